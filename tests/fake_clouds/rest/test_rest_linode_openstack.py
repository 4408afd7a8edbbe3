"""Linode v4, and the OpenStack wire at its old nova URL, over plain ``requests``."""

from __future__ import annotations

import pytest

from fake_clouds import FakeCloud
from fake_clouds.rest import int_id, serve

INSTANCE = {"type": "g6-standard-1", "region": "us-east", "image": "linode/ubuntu22.04"}


def wait(world, fetch, done, step=5.0, limit=600.0):
    start = world.now()
    while not done(value := fetch()):
        assert world.now() - start < limit, value
        world.clock.sleep_sync(step)
    return value


def test_linode_round_trip(world, linode):
    base, s = linode
    r = s.post(f"{base}/linode/instances", json={**INSTANCE, "label": "db-1", "tags": ["db"]})
    assert r.status_code == 200, r.text
    inst = r.json()
    assert (inst["status"], inst["label"], inst["type"], inst["tags"]) == (
        "provisioning",
        "db-1",
        "g6-standard-1",
        ["db"],
    )
    url = f"{base}/linode/instances/{inst['id']}"
    wait(world, lambda: s.get(url).json()["status"], lambda st: st == "running")
    [server] = world.client("compute").servers.list()
    assert int_id(server.id) == inst["id"] and server.status == "ACTIVE"

    assert s.post(f"{url}/shutdown").json() == {}
    assert s.get(url).json()["status"] == "shutting_down"
    wait(world, lambda: s.get(url).json()["status"], lambda st: st == "offline")
    assert s.post(f"{url}/boot").status_code == 200
    assert s.get(url).json()["status"] == "booting"
    wait(world, lambda: s.get(url).json()["status"], lambda st: st == "running")
    s.post(f"{url}/reboot")
    assert s.get(url).json()["status"] == "rebooting"
    wait(world, lambda: s.get(url).json()["status"], lambda st: st == "running")

    r = s.put(url, json={"label": "db-primary", "tags": ["db", "prod"]})
    assert (r.json()["label"], r.json()["tags"]) == ("db-primary", ["db", "prod"])
    assert world.client("compute").servers.get(server.id).name == "db-primary"

    ips = s.get(f"{url}/ips").json()
    assert ips["ipv4"]["public"][0]["address"] == inst["ipv4"][0]
    assert ips["ipv4"]["public"][0]["linode_id"] == inst["id"]

    assert s.post(f"{url}/resize", json={"type": "g6-standard-2"}).status_code == 200
    resized = wait(world, lambda: s.get(url).json(), lambda i: i["status"] == "running")
    assert resized["type"] == "g6-standard-2" and resized["specs"]["vcpus"] == 2

    assert s.delete(url).json() == {}
    assert s.get(url).json()["status"] == "deleting"
    wait(world, lambda: s.get(url).status_code, lambda code: code == 404)
    assert s.get(url).json() == {"errors": [{"reason": "Not found"}]}
    assert not [i for i in world.inventory() if i.kind == "server"]


def test_linode_default_label_images_types_regions(linode):
    base, s = linode
    inst = s.post(f"{base}/linode/instances", json=INSTANCE).json()
    assert inst["label"] == f"linode{inst['id']}"
    images = s.get(f"{base}/images").json()
    assert {"linode/ubuntu22.04", "linode/fedora39"} <= {i["id"] for i in images["data"]}
    one = s.get(f"{base}/images/linode/ubuntu22.04").json()
    assert one["is_public"] and one["vendor"] == "Ubuntu"
    types = s.get(f"{base}/linode/types").json()
    assert [t["id"] for t in types["data"]][:2] == ["g6-nanode-1", "g6-standard-1"]
    assert s.get(f"{base}/linode/types/g6-standard-2").json()["vcpus"] == 2
    regions = s.get(f"{base}/regions").json()
    assert "us-east" in [r["id"] for r in regions["data"]] and regions["page"] == 1
    assert s.get(f"{base}/regions/us-east").json()["label"] == "Newark, NJ"
    assert s.get(f"{base}/regions/mars").status_code == 404


def test_linode_pagination_over_servers_made_by_the_python_client():
    world = FakeCloud(seed=3, quotas={"compute": {"instances": -1, "cores": -1, "ram": -1}})
    nova = world.client("compute")
    for i in range(27):
        nova.servers.create(f"vm-{i:02d}", "cirros", "m1.tiny")
    with serve(world, ["linode"]) as rest:
        base, headers = rest.base_url("linode"), rest.headers("linode")
        import requests

        first = requests.get(f"{base}/linode/instances?page_size=25", headers=headers).json()
        assert (first["page"], first["pages"], first["results"], len(first["data"])) == (
            1,
            2,
            27,
            25,
        )
        second = requests.get(
            f"{base}/linode/instances", params={"page": 2, "page_size": 25}, headers=headers
        ).json()
        assert [i["label"] for i in second["data"]] == ["vm-25", "vm-26"]
        bad = requests.get(f"{base}/linode/instances?page_size=5", headers=headers)
        assert bad.status_code == 400
        assert bad.json()["errors"][0]["field"] == "page_size"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"region": "us-east", "image": "linode/ubuntu22.04"}, "type"),
        ({**INSTANCE, "type": "g9-huge"}, "type"),
        ({**INSTANCE, "region": "moon"}, "region"),
        ({**INSTANCE, "image": "linode/beos"}, "image"),
        ({**INSTANCE, "label": "a"}, "label"),
        ({**INSTANCE, "label": "a--b"}, "label"),
        ({**INSTANCE, "tags": "db"}, "tags"),
        ({**INSTANCE, "root_pass": "short"}, "root_pass"),
        ({**INSTANCE, "booted": "yes"}, "booted"),
        ({**INSTANCE, "authorized_keys": ["not a key"]}, "authorized_keys"),
    ],
)
def test_linode_bad_create_bodies_name_the_field(linode, body, field):
    base, s = linode
    r = s.post(f"{base}/linode/instances", json=body)
    assert r.status_code == 400
    [error] = r.json()["errors"]
    assert error["field"] == field and error["reason"]


def test_linode_busy_instance_is_a_400(linode):
    base, s = linode
    inst = s.post(f"{base}/linode/instances", json=INSTANCE).json()
    r = s.post(f"{base}/linode/instances/{inst['id']}/reboot")
    assert r.status_code == 400 and "BUILD" in r.json()["errors"][0]["reason"]


def test_the_nova_url_is_the_openstack_wires_compute_service(world, osc):
    """``compute.openstack.fake/v2.1`` reaches the wire's nova: its shapes, its entities."""
    base, s = osc
    image = next(i for i in s.get(f"{base}/images").json()["images"] if i["name"] == "cirros")
    r = s.post(
        f"{base}/servers",
        json={"server": {"name": "app", "imageRef": image["id"], "flavorRef": "1"}},
    )
    assert r.status_code == 202, r.text
    sid = r.json()["server"]["id"]
    url = f"{base}/servers/{sid}"
    wait(world, lambda: s.get(url).json()["server"]["status"], lambda st: st == "ACTIVE")
    assert world.client("compute").servers.get(sid).status == "ACTIVE"
    assert [x["id"] for x in s.get(f"{base}/servers").json()["servers"]] == [sid]
    r = s.post(f"{url}/action", json={"os-stop": None})
    assert r.status_code == 202, r.text
    wait(world, lambda: s.get(url).json()["server"]["status"], lambda st: st == "SHUTOFF")
    assert s.delete(url).status_code == 204
    wait(world, lambda: s.get(url).status_code, lambda code: code == 404)
    assert s.get(url).json()["itemNotFound"]["code"] == 404
    # the wire's own route answered, so it is the wire's call trace too
    assert any(t.operation == "servers.create" for t in world.trace())


def test_the_nova_url_takes_a_keystone_token_too(world, server):
    """A token keystone issued over the wire works at the old URL as at the catalog's."""
    from fake_clouds.identity import ADMIN_PASSWORD

    site = server.serve_openstack()
    body = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {
                    "user": {
                        "name": "admin",
                        "domain": {"id": "default"},
                        "password": ADMIN_PASSWORD,
                    }
                },
            },
            "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
        }
    }
    import requests

    r = requests.post(f"{site.app.auth_url}/auth/tokens", json=body, timeout=10)
    token = r.headers["X-Subject-Token"]
    flavors = requests.get(
        "https://compute.openstack.fake/v2.1/flavors", headers={"X-Auth-Token": token}, timeout=10
    )
    assert flavors.status_code == 200
    assert [f["name"] for f in flavors.json()["flavors"]][:2] == ["m1.tiny", "m1.small"]
    wrong = requests.get(
        "https://compute.openstack.fake/v2.1/flavors", headers={"X-Auth-Token": "x"}, timeout=10
    )
    assert wrong.status_code == 401
