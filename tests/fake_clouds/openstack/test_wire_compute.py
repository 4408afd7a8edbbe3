"""Compute v2.1 on the wire: openstacksdk and novaclient against the in-process fake."""

from __future__ import annotations

import pytest
import requests

openstack = pytest.importorskip("openstack")


def _image(world) -> str:
    return next(i["id"] for i in world.service("compute").list_images() if i["name"] == "cirros")


def test_openstacksdk_server_create_show_list_delete(openstack_connection, fake_cloud):
    conn = openstack_connection
    image = _image(fake_cloud)
    server = conn.compute.create_server(name="web", image_id=image, flavor_id="1")
    server = conn.compute.wait_for_server(server, wait=600)
    assert server.status == "ACTIVE"
    assert conn.compute.get_server(server.id).name == "web"
    assert [s.name for s in conn.compute.servers()] == ["web"]
    # the engine's Python client sees the very same server
    assert fake_cloud.client("compute").servers.get(server.id).status == "ACTIVE"
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, wait=600)
    assert list(conn.compute.servers()) == []
    assert conn.plugsim_wire.bugs() == []


def test_server_created_by_engine_client_is_seen_on_the_wire(openstack_connection, fake_cloud):
    nova = fake_cloud.client("compute")
    made = nova.servers.create("from-engine", _image(fake_cloud), "1")
    seen = openstack_connection.compute.get_server(made.id)
    assert seen.name == "from-engine"
    assert seen.status in ("BUILD", "ACTIVE")


def test_server_actions_stop_and_start(openstack_connection, fake_cloud):
    conn = openstack_connection
    server = conn.compute.create_server(name="a", image_id=_image(fake_cloud), flavor_id="1")
    conn.compute.wait_for_server(server, wait=600)
    conn.compute.stop_server(server)
    assert conn.compute.wait_for_server(server, status="SHUTOFF", wait=600).status == "SHUTOFF"
    conn.compute.start_server(server)
    assert conn.compute.wait_for_server(server, wait=600).status == "ACTIVE"


def test_flavors_keypairs_limits_and_zones(openstack_connection):
    conn = openstack_connection
    assert "m1.small" in [f.name for f in conn.compute.flavors()]
    key = conn.compute.create_keypair(name="k1")
    assert key.private_key.startswith("-----BEGIN")
    assert conn.compute.get_keypair("k1").fingerprint == key.fingerprint
    conn.compute.delete_keypair("k1")
    assert "k1" not in [k.name for k in conn.compute.keypairs()]
    limits = conn.compute.get_limits()
    assert limits.absolute.instances == 10
    assert [z.name for z in conn.compute.availability_zones()] == ["nova"]


def test_novaclient_create_show_delete(session, world):
    from novaclient import client as nova_client

    nova = nova_client.Client("2.1", session=session)
    server = nova.servers.create("nc", _image(world), "1")
    assert nova.servers.get(server.id).name == "nc"
    nova.servers.delete(server.id)
    world.clock.advance(600)
    assert server.id not in [s.id for s in nova.servers.list()]


def test_microversion_negotiation(wire, token):
    url = f"{wire.base_url}/compute/v2.1/flavors"
    r = requests.get(url, headers={"X-Auth-Token": token, "OpenStack-API-Version": "compute 2.53"})
    assert r.headers["OpenStack-API-Version"] == "compute 2.53"
    r = requests.get(url, headers={"X-Auth-Token": token, "X-OpenStack-Nova-API-Version": "latest"})
    assert r.headers["X-OpenStack-Nova-API-Version"] == "2.96"
    r = requests.get(url, headers={"X-Auth-Token": token, "OpenStack-API-Version": "compute 3.0"})
    assert r.status_code == 406
    assert "maximum is 2.96" in r.json()["notAcceptable"]["message"]
    r = requests.get(url, headers={"X-Auth-Token": token, "OpenStack-API-Version": "compute x"})
    assert r.status_code == 400
    assert "Invalid API version" in r.json()["badRequest"]["message"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "Malformed request body"),
        (b"[1, 2]", "expected a JSON object"),
        (b'{"server": "x"}', "field/attribute server"),
        (b'{"server": {"name": 5, "flavorRef": "1", "imageRef": "x"}}', "attribute name"),
        (
            b'{"server": {"name": "a", "flavorRef": "1", "imageRef": "x", "metadata": 3}}',
            "metadata",
        ),
    ],
)
def test_bad_server_bodies_are_nova_400s(wire, token, body, message):
    r = requests.post(
        f"{wire.base_url}/compute/v2.1/servers",
        data=body,
        headers={"X-Auth-Token": token, "Content-Type": "application/json"},
    )
    assert r.status_code == 400
    assert message in r.json()["badRequest"]["message"]
    assert wire.bugs() == []


def test_unknown_server_is_item_not_found(wire, token):
    r = requests.get(f"{wire.base_url}/compute/v2.1/servers/nope", headers={"X-Auth-Token": token})
    assert r.status_code == 404
    assert r.json()["itemNotFound"]["code"] == 404
    assert r.headers["X-Openstack-Request-Id"].startswith("req-")


def test_unknown_route_is_404_and_counted(wire, token):
    url = (
        f"{wire.base_url}/compute/v2.1/os-simple-tenant-usage/0b6c7e5d-8a66-4b3e-9d1b-1f5f5e7c0a11"
    )
    r = requests.get(url, headers={"X-Auth-Token": token})
    assert r.status_code == 404
    assert "itemNotFound" in r.json()
    [missing] = wire.unserved()
    assert (missing.service, missing.method, missing.path) == (
        "compute",
        "GET",
        "/v2.1/os-simple-tenant-usage/{id}",
    )


def admin_token(app) -> str:
    """Log in as the bootstrap admin on *app*; return the token."""
    user = {"name": "admin", "domain": {"id": "default"}, "password": "plugsim"}
    body = {
        "auth": {
            "identity": {"methods": ["password"], "password": {"user": user}},
            "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
        }
    }
    return requests.post(f"{app.auth_url}/auth/tokens", json=body).headers["X-Subject-Token"]


def test_fault_rule_applies_to_wire_calls():
    from fake_clouds import FakeCloud
    from fake_clouds.openstack import serve_openstack

    rule = {"operation": "servers.create", "effect": {"type": "error", "status": 503}}
    world = FakeCloud(seed=3, faults=[rule])
    with serve_openstack(world) as app:
        body = {"server": {"name": "x", "imageRef": _image(world), "flavorRef": "1"}}
        r = requests.post(
            f"{app.base_url}/compute/v2.1/servers",
            json=body,
            headers={"X-Auth-Token": admin_token(app)},
        )
    assert r.status_code == 503
    assert "serviceUnavailable" in r.json()
    assert [f.operation for f in world.injected_faults()] == ["servers.create"]


def test_server_metadata_items_and_quota_set(openstack_connection, fake_cloud):
    conn = openstack_connection
    server = conn.compute.create_server(name="m", image_id=_image(fake_cloud), flavor_id="1")
    conn.compute.set_server_metadata(server, k0="v0")
    assert conn.compute.get_server_metadata(server).metadata == {"k0": "v0"}
    fake_cloud.client("compute").servers.create("other", _image(fake_cloud), "2")
    quota = conn.compute.get_quota_set(conn.current_project_id, usage=True)
    assert quota.instances == 10
    assert quota.usage["instances"] == 2


def test_nova_image_metadata_is_the_images_properties(openstack_connection, fake_cloud):
    compute = openstack_connection.compute
    image = compute.find_image("cirros", ignore_missing=False)
    compute.set_image_metadata(image, k0="", k1="v1")
    compute.set_image_metadata(image, k1="v1.1")
    assert compute.fetch_image_metadata(image).metadata == {"k0": "", "k1": "v1.1"}
    # glance shows the same properties: one image entity
    assert openstack_connection.image.get_image(image.id).properties["k1"] == "v1.1"
    compute.delete_image_metadata(image, ["k0", "k1"])
    assert compute.fetch_image_metadata(image).metadata == {}
    gone = compute.delete(f"/images/{image.id}/metadata/k1")
    assert gone.status_code == 404
    assert "k1" in gone.json()["itemNotFound"]["message"]


def test_the_hypervisor_reports_what_the_servers_use(openstack_connection, fake_cloud):
    compute = openstack_connection.compute
    (hypervisor,) = compute.hypervisors(details=True)
    before = compute.get_hypervisor(hypervisor.id)
    server = compute.create_server(name="h", image_id=_image(fake_cloud), flavor_id="2")
    compute.wait_for_server(server, wait=600)
    after = compute.find_hypervisor("plugsim", ignore_missing=False)
    assert after.id == hypervisor.id
    shown = compute.get(f"/os-hypervisors/{hypervisor.id}", microversion="2.87").json()
    flavor = fake_cloud.service("compute").get_flavor("2")
    assert shown["hypervisor"]["running_vms"] == before.running_vms + 1
    assert shown["hypervisor"]["vcpus_used"] == flavor["vcpus"]
    assert "os-hypervisors" in {e.alias for e in compute.extensions()}


def test_disabling_nova_compute_leaves_new_servers_in_error(openstack_connection, fake_cloud):
    compute = openstack_connection.compute
    services = {s.binary: s for s in compute.services()}
    assert set(services) == {"nova-scheduler", "nova-conductor", "nova-compute"}
    nova_compute = compute.find_service("nova-compute", host="plugsim", ignore_missing=False)
    compute.disable_service(
        nova_compute, host="plugsim", binary="nova-compute", disabled_reason="m"
    )
    shown = compute.find_service("nova-compute", host="plugsim", ignore_missing=False)
    assert (shown.status, shown.disabled_reason) == ("disabled", "m")
    server = compute.create_server(name="nohost", image_id=_image(fake_cloud), flavor_id="1")
    failed = compute.wait_for_server(server, status="ERROR", failures=[], wait=600)
    assert failed.fault["message"] == "No valid host was found."
    compute.enable_service(nova_compute, host="plugsim", binary="nova-compute")
    assert fake_cloud.service("compute").daemon_enabled("nova-compute")
    server = compute.create_server(name="host", image_id=_image(fake_cloud), flavor_id="1")
    assert compute.wait_for_server(server, wait=600).status == "ACTIVE"
