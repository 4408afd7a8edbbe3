"""Names past nova's, cinder's and keystone's schema lengths get each service's own 400.

(neutron's 255 is covered in ``test_wire_bounded_input.py``, against a served world.)
"""

from __future__ import annotations

import pytest

requests = pytest.importorskip("requests")


def _post(wire, token, path, body):
    return requests.post(
        f"{wire.base_url}{path}", json=body, headers={"X-Auth-Token": token}, timeout=30
    )


def _compute(wire, token, path, body):
    return _post(wire, token, f"/compute/v2.1{path}", body)


def test_nova_names_longer_than_255_are_its_400(wire, token):
    for path, member in (("/os-keypairs", "keypair"), ("/flavors", "flavor")):
        extra = {"ram": 64, "vcpus": 1, "disk": 1} if member == "flavor" else {}
        ok = _compute(wire, token, path, {member: {"name": "k" * 255, **extra}})
        assert ok.status_code in (200, 201), ok.text
        long = _compute(wire, token, path, {member: {"name": "k" * 256, **extra}})
        assert long.status_code == 400, long.text
        message = long.json()["badRequest"]["message"]
        assert message == (
            f"Invalid input for field/attribute name. Value: {'k' * 256}. '{'k' * 256}' is too long"
        )
        assert long.json()["badRequest"]["code"] == 400
    server = {"name": "s" * 256, "imageRef": "cirros", "flavorRef": "m1.small"}
    refused = _compute(wire, token, "/servers", {"server": server})
    assert refused.status_code == 400
    assert refused.json()["badRequest"]["message"].endswith(f"'{'s' * 256}' is too long")


def test_cinder_names_longer_than_255_are_its_400(wire, token):
    project = requests.get(
        f"{wire.auth_url}/auth/tokens", headers={"X-Auth-Token": token, "X-Subject-Token": token}
    ).json()["token"]["project"]["id"]
    path = f"/volume/v3/{project}/volumes"
    ok = _post(wire, token, path, {"volume": {"name": "v" * 255, "size": 1}})
    assert ok.status_code == 202, ok.text
    long = _post(wire, token, path, {"volume": {"name": "v" * 256, "size": 1}})
    assert long.status_code == 400, long.text
    assert long.json()["badRequest"]["message"] == (
        f"Invalid input for field/attribute name. Value: {'v' * 256}. '{'v' * 256}' is too long"
    )
    vid = ok.json()["volume"]["id"]
    renamed = requests.put(
        f"{wire.base_url}{path}/{vid}",
        json={"volume": {"name": "w" * 256}},
        headers={"X-Auth-Token": token},
        timeout=30,
    )
    assert renamed.status_code == 400


@pytest.mark.parametrize(
    ("collection", "kind", "limit"),
    [("projects", "project", 64), ("domains", "domain", 64), ("users", "user", 255)],
)
def test_keystone_names_past_its_schema_are_its_400(wire, token, collection, kind, limit):
    url = f"{wire.auth_url}/{collection}"
    headers = {"X-Auth-Token": token}
    ok = requests.post(url, json={kind: {"name": "a" * limit}}, headers=headers, timeout=30)
    assert ok.status_code == 201, ok.text
    name = "b" * (limit + 1)
    long = requests.post(url, json={kind: {"name": name}}, headers=headers, timeout=30)
    assert long.status_code == 400, long.text
    error = long.json()["error"]
    assert error["code"] == 400 and error["title"] == "Bad Request"
    assert error["message"] == f"Invalid input for field 'name': '{name}' is too long"
    ident = ok.json()[kind]["id"]
    patched = requests.patch(
        f"{url}/{ident}", json={kind: {"name": name}}, headers=headers, timeout=30
    )
    assert patched.status_code == 400
