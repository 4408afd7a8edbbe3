"""DigitalOcean v2 over plain ``requests``: droplets, actions and the other endpoints."""

from __future__ import annotations

import pytest

from fake_clouds.rest import int_id

DROPLET = {"name": "web-1", "region": "nyc3", "size": "s-1vcpu-2gb", "image": "ubuntu-22-04-x64"}


def poll(world, fetch, done, step=5.0, limit=600.0):
    """Call *fetch* until *done* holds, sleeping *step* virtual seconds in between."""
    start = world.now()
    while True:
        value = fetch()
        if done(value):
            return value
        assert world.now() - start < limit, f"still waiting after {limit} s: {value}"
        world.clock.sleep_sync(step)


def create(do, **extra):
    base, s = do
    r = s.post(f"{base}/droplets", json={**DROPLET, **extra}, timeout=30)
    assert r.status_code == 202, r.text
    return r.json()


def test_droplet_round_trip_shares_state_with_the_compute_client(world, do):
    base, s = do
    body = create(do, tags=["web"])
    droplet = body["droplet"]
    assert droplet["status"] == "new"
    assert droplet["size_slug"] == "s-1vcpu-2gb" and droplet["region"]["slug"] == "nyc3"
    action_id = body["links"]["actions"][0]["id"]
    assert s.get(f"{base}/actions/{action_id}").json()["action"]["status"] == "in-progress"

    url = f"{base}/droplets/{droplet['id']}"
    active = poll(world, lambda: s.get(url).json()["droplet"], lambda d: d["status"] == "active")
    assert active["tags"] == ["web"]
    v4 = active["networks"]["v4"]
    assert v4[0]["type"] == "public" and v4[0]["netmask"] == "255.255.255.0"
    assert v4[0]["gateway"] == "172.24.4.1" and v4[0]["ip_address"].startswith("172.24.4.")
    assert s.get(f"{base}/actions/{action_id}").json()["action"]["status"] == "completed"

    [server] = world.client("compute").servers.list()
    assert int_id(server.id) == droplet["id"] and server.status == "ACTIVE"
    assert server.name == "web-1"

    r = s.post(f"{url}/actions", json={"type": "power_off"})
    assert r.status_code == 201
    action = r.json()["action"]
    assert (action["type"], action["status"], action["resource_id"]) == (
        "power_off",
        "in-progress",
        droplet["id"],
    )
    aurl = f"{url}/actions/{action['id']}"
    done = poll(world, lambda: s.get(aurl).json()["action"], lambda a: a["status"] != "in-progress")
    assert done["status"] == "completed" and done["completed_at"] is not None
    assert s.get(url).json()["droplet"]["status"] == "off"
    assert world.client("compute").servers.get(server.id).status == "SHUTOFF"

    assert s.delete(url).status_code == 204
    poll(world, lambda: s.get(url).status_code, lambda code: code == 404)
    assert s.get(url).json() == {
        "id": "not_found",
        "message": "The resource you were accessing could not be found.",
    }
    assert not [i for i in world.inventory() if i.kind == "server"]


def test_multi_create_pagination_and_delete_by_tag(world, do):
    base, s = do
    r = s.post(f"{base}/droplets", json={**DROPLET, "name": None} | {"names": ["a", "b"]})
    assert r.status_code == 422 and r.json()["id"] == "unprocessable_entity"
    body = {k: v for k, v in DROPLET.items() if k != "name"}
    r = s.post(f"{base}/droplets", json={**body, "names": ["a", "b", "c"], "tags": ["batch"]})
    assert r.status_code == 202
    assert [d["name"] for d in r.json()["droplets"]] == ["a", "b", "c"]
    assert len(r.json()["links"]["actions"]) == 3

    page = s.get(f"{base}/droplets", params={"per_page": 1, "page": 2}).json()
    assert [d["name"] for d in page["droplets"]] == ["b"]
    assert page["meta"] == {"total": 3}
    pages = page["links"]["pages"]
    assert pages["first"].endswith("page=1&per_page=1")
    assert pages["prev"].endswith("page=1&per_page=1")
    assert pages["next"].endswith("page=3&per_page=1")
    assert pages["last"].endswith("page=3&per_page=1")
    last = s.get(pages["last"]).json()
    assert set(last["links"]["pages"]) == {"first", "prev"}
    assert s.get(f"{base}/droplets").json()["links"] == {}

    assert s.get(f"{base}/droplets", params={"tag_name": "batch"}).json()["meta"]["total"] == 3
    assert s.delete(f"{base}/droplets").status_code == 422
    assert s.delete(f"{base}/droplets", params={"tag_name": "batch"}).status_code == 204
    world.clock.sleep_sync(60)
    assert s.get(f"{base}/droplets").json()["meta"]["total"] == 0
    assert world.client("compute").servers.list() == []


@pytest.mark.parametrize(
    ("action", "extra", "final_status"),
    [
        ("reboot", {}, "active"),
        ("power_cycle", {}, "active"),
        ("shutdown", {}, "off"),
        ("rebuild", {"image": "fedora-39-x64"}, "active"),
        ("resize", {"size": "s-2vcpu-4gb"}, "active"),
    ],
)
def test_droplet_actions_complete_in_virtual_time(world, do, action, extra, final_status):
    base, s = do
    droplet = create(do)["droplet"]
    url = f"{base}/droplets/{droplet['id']}"
    poll(world, lambda: s.get(url).json()["droplet"], lambda d: d["status"] == "active")
    r = s.post(f"{url}/actions", json={"type": action, **extra})
    assert r.status_code == 201, r.text
    aurl = f"{base}/actions/{r.json()['action']['id']}"
    assert s.get(aurl).json()["action"]["status"] == "in-progress"
    poll(world, lambda: s.get(aurl).json()["action"], lambda a: a["status"] == "completed")
    after = s.get(url).json()["droplet"]
    assert after["status"] == final_status
    if action == "resize":
        assert after["size_slug"] == "s-2vcpu-4gb" and after["vcpus"] == 2
    if action == "rebuild":
        assert after["image"]["slug"] == "fedora-39-x64"


def test_snapshot_action_makes_a_private_image(world, do):
    base, s = do
    droplet = create(do)["droplet"]
    url = f"{base}/droplets/{droplet['id']}"
    poll(world, lambda: s.get(url).json()["droplet"], lambda d: d["status"] == "active")
    r = s.post(f"{url}/actions", json={"type": "snapshot", "name": "snap-1"})
    aurl = f"{base}/actions/{r.json()['action']['id']}"
    poll(world, lambda: s.get(aurl).json()["action"], lambda a: a["status"] == "completed")
    private = s.get(f"{base}/images", params={"private": "true"}).json()["images"]
    assert [(i["name"], i["type"], i["public"], i["slug"]) for i in private] == [
        ("snap-1", "snapshot", False, None)
    ]
    assert s.get(url).json()["droplet"]["snapshot_ids"] == [private[0]["id"]]
    assert s.delete(f"{base}/images/{private[0]['id']}").status_code == 204
    assert s.get(f"{base}/images/{private[0]['id']}").status_code == 404


def test_invalid_state_action_and_unknown_type_are_422(world, do):
    base, s = do
    droplet = create(do)["droplet"]
    url = f"{base}/droplets/{droplet['id']}/actions"
    r = s.post(url, json={"type": "power_on"})
    assert r.status_code == 422 and r.json()["id"] == "unprocessable_entity"
    assert "BUILD" in r.json()["message"]
    r = s.post(url, json={"type": "teleport"})
    assert r.status_code == 422 and "teleport" in r.json()["message"]


def test_images_sizes_regions_account(do):
    base, s = do
    images = s.get(f"{base}/images", params={"type": "distribution"}).json()
    assert sorted(i["slug"] for i in images["images"]) == [
        "cirros-0-6-2-x64",
        "fedora-39-x64",
        "ubuntu-22-04-x64",
    ]
    assert s.get(f"{base}/images", params={"type": "application"}).json()["images"] == []
    one = s.get(f"{base}/images/ubuntu-22-04-x64").json()["image"]
    assert one["distribution"] == "Ubuntu"
    assert s.get(f"{base}/images/{one['id']}").json()["image"] == one
    sizes = s.get(f"{base}/sizes").json()
    slugs = [z["slug"] for z in sizes["sizes"]]
    # DigitalOcean's documented slugs, so a profile copied from its docs works
    assert slugs[:3] == ["s-1vcpu-512mb-10gb", "s-1vcpu-1gb", "s-1vcpu-1gb-amd"]
    assert {"s-1vcpu-2gb", "s-2vcpu-4gb", "c-2", "g-2vcpu-8gb"} <= set(slugs)
    assert sizes["meta"]["total"] == len(slugs) == 12
    regions = s.get(f"{base}/regions").json()["regions"]
    assert "nyc3" in [r["slug"] for r in regions]
    account = s.get(f"{base}/account").json()["account"]
    assert account["droplet_limit"] == 10 and account["status"] == "active"


def test_ssh_keys_crud(world, do):
    base, s = do
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeyForTheRestTests plugsim"
    r = s.post(f"{base}/account/keys", json={"name": "laptop", "public_key": key})
    assert r.status_code == 201
    created = r.json()["ssh_key"]
    assert s.get(f"{base}/account/keys/{created['fingerprint']}").json()["ssh_key"] == created
    r = s.put(f"{base}/account/keys/{created['id']}", json={"name": "desktop"})
    assert r.json()["ssh_key"] == {**created, "name": "desktop"}
    assert world.client("compute").keypairs.get("desktop").public_key == key
    droplet = create(do, ssh_keys=[created["id"]])["droplet"]
    [server] = world.client("compute").servers.list()
    assert server.key_name == "desktop" and int_id(server.id) == droplet["id"]
    r = s.post(f"{base}/account/keys", json={"name": "x"})
    assert r.status_code == 422 and "public_key" in r.json()["message"]
    assert s.delete(f"{base}/account/keys/{created['id']}").status_code == 204
    names = [k["name"] for k in s.get(f"{base}/account/keys").json()["ssh_keys"]]
    assert names == ["default"]


def test_floating_ip_assign_and_unassign(world, do):
    base, s = do
    droplet = create(do)["droplet"]
    r = s.post(f"{base}/floating_ips", json={"region": "nyc3"})
    assert r.status_code == 202
    ip = r.json()["floating_ip"]["ip"]
    assert r.json()["floating_ip"]["droplet"] is None
    r = s.post(
        f"{base}/floating_ips/{ip}/actions", json={"type": "assign", "droplet_id": droplet["id"]}
    )
    assert r.status_code == 201 and r.json()["action"]["status"] == "completed"
    fip = s.get(f"{base}/floating_ips/{ip}").json()["floating_ip"]
    assert fip["droplet"]["id"] == droplet["id"]
    [neutron_fip] = world.client("network").list_floatingips()["floatingips"]
    assert neutron_fip["floating_ip_address"] == ip and neutron_fip["port_id"]
    s.post(f"{base}/floating_ips/{ip}/actions", json={"type": "unassign"})
    assert s.get(f"{base}/floating_ips/{ip}").json()["floating_ip"]["droplet"] is None
    actions = s.get(f"{base}/floating_ips/{ip}/actions").json()["actions"]
    assert [a["type"] for a in actions] == ["assign", "unassign"]
    assert s.post(f"{base}/floating_ips", json={}).status_code == 422
    assert s.delete(f"{base}/floating_ips/{ip}").status_code == 204
    assert s.get(f"{base}/floating_ips").json()["meta"]["total"] == 0


def test_tags_create_tag_resources_and_delete(world, do):
    base, s = do
    droplet = create(do)["droplet"]
    assert s.post(f"{base}/tags", json={"name": "bad name!"}).status_code == 422
    r = s.post(f"{base}/tags", json={"name": "db"})
    assert r.status_code == 201 and r.json()["tag"]["resources"]["count"] == 0
    res = {"resources": [{"resource_id": str(droplet["id"]), "resource_type": "droplet"}]}
    assert s.post(f"{base}/tags/db/resources", json=res).status_code == 204
    assert s.get(f"{base}/tags/db").json()["tag"]["resources"]["count"] == 1
    assert s.get(f"{base}/droplets/{droplet['id']}").json()["droplet"]["tags"] == ["db"]
    assert s.delete(f"{base}/tags/db/resources", json=res).status_code == 204
    assert s.get(f"{base}/droplets/{droplet['id']}").json()["droplet"]["tags"] == []
    bad = {"resources": [{"resource_id": "1", "resource_type": "droplet"}]}
    assert s.post(f"{base}/tags/db/resources", json=bad).status_code == 422
    assert s.delete(f"{base}/tags/db").status_code == 204
    assert s.get(f"{base}/tags/db").status_code == 404
    assert [t.kind for t in world.inventory() if t.service == "entity"] == []


def test_vpcs_are_networks_and_give_droplets_private_addresses(world, do):
    base, s = do
    r = s.post(
        f"{base}/vpcs", json={"name": "backend", "region": "fra1", "ip_range": "10.20.0.0/24"}
    )
    assert r.status_code == 201
    vpc = r.json()["vpc"]
    assert (vpc["ip_range"], vpc["region"], vpc["urn"]) == (
        "10.20.0.0/24",
        "fra1",
        f"do:vpc:{vpc['id']}",
    )
    assert world.client("network").show_network(vpc["id"])["network"]["name"] == "backend"
    droplet = create(do, vpc_uuid=vpc["id"], region="fra1")["droplet"]
    private = [n for n in droplet["networks"]["v4"] if n["type"] == "private"]
    assert private[0]["ip_address"].startswith("10.20.0.") and droplet["vpc_uuid"] == vpc["id"]
    assert s.delete(f"{base}/vpcs/{vpc['id']}").status_code == 422
    r = s.patch(f"{base}/vpcs/{vpc['id']}", json={"description": "db tier"})
    assert r.json()["vpc"]["description"] == "db tier"
    s.delete(f"{base}/droplets/{droplet['id']}")
    world.clock.sleep_sync(30)
    assert s.delete(f"{base}/vpcs/{vpc['id']}").status_code == 204
    assert s.get(f"{base}/vpcs").json()["vpcs"] == []
    assert s.post(f"{base}/vpcs", json={"name": "x", "region": "mars1"}).status_code == 422


def test_a_documented_slug_without_a_flavor_of_its_own_is_shown_as_asked(world, do):
    base, s = do
    droplet = create(do, size="s-1vcpu-1gb")["droplet"]
    assert droplet["size_slug"] == "s-1vcpu-1gb"
    assert (droplet["memory"], droplet["vcpus"], droplet["disk"]) == (1024, 1, 25)
    again = s.get(f"{base}/droplets/{droplet['id']}").json()["droplet"]
    assert again["size"]["slug"] == "s-1vcpu-1gb"
    # it runs on the smallest flavor that fits it
    (server,) = world.service("compute").list_servers()
    assert server["flavor"]["original_name"] == "m1.small"
