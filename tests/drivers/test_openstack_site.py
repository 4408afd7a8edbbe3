"""The world's OpenStack wire at a provider's own keystone, with the provider's credentials."""

from __future__ import annotations

import requests

from fake_clouds import FakeCloud
from fake_clouds.rest import serve

AUTH_URL = "https://keystone.example.com:5000/v3"
AUTH = {
    "username": "demo",
    "password": "secret",
    "project_name": "demo",
    "user_domain_name": "Default",
    "project_domain_name": "Default",
}


def _token_body(password: str) -> dict:
    user = {"name": "demo", "password": password, "domain": {"name": "Default"}}
    project = {"name": "demo", "domain": {"name": "Default"}}
    return {
        "auth": {
            "identity": {"methods": ["password"], "password": {"user": user}},
            "scope": {"project": project},
        }
    }


def test_the_providers_credentials_open_the_wire_at_its_keystone():
    world = FakeCloud(seed=2)
    with serve(world, ["digitalocean"]) as rest:
        site = rest.serve_openstack(AUTH_URL)
        tokens = f"{AUTH_URL}/auth/tokens"
        assert requests.post(tokens, json=_token_body("secret"), timeout=30).status_code == 401
        site.accept(AUTH)
        site.accept(AUTH)  # accepting twice changes nothing
        ok = requests.post(tokens, json=_token_body("secret"), timeout=30)
        assert ok.status_code == 201, ok.text
        assert ok.json()["token"]["project"]["name"] == "demo"
        assert requests.post(tokens, json=_token_body("wrong"), timeout=30).status_code == 401
        headers = {"X-Auth-Token": ok.headers["X-Subject-Token"]}
        base = site.app.base_url
        plain = requests.get(f"{base}/network/v2.0/networks", headers=headers, timeout=30)
        suffixed = requests.get(f"{base}/network/v2.0/networks.json", headers=headers, timeout=30)
        assert suffixed.status_code == 200 and suffixed.json() == plain.json()
        compute = world.service("compute")
        image = compute.list_images()[0]["id"]
        flavor = compute.list_flavors()[0]["id"]
        server = compute.create_server("web-1", image, flavor)
        groups = requests.get(
            f"{base}/compute/v2.1/servers/{server['id']}/os-security-groups",
            headers=headers,
            timeout=30,
        ).json()["security_groups"]
        [default] = [g for g in world.service("network").list_security_groups()]
        assert groups == [
            {
                "name": "default",
                "id": default["id"],
                "description": default["description"],
                "tenant_id": default["tenant_id"],
                "rules": [],
            }
        ]
        compute.delete_server(server["id"])
        world.clock.advance(300)
        missing = requests.get(f"{base}/compute/v2.1/no-such-thing", headers=headers, timeout=30)
        assert missing.status_code == 404
        assert any("no-such-thing" in u.url for u in rest.unserved())
    assert not world.leaks()
