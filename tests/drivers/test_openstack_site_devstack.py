"""Keystone as DevStack serves it: a versionless ``/identity`` root, domain names in any case."""

from __future__ import annotations

import requests

from fake_clouds import FakeCloud
from fake_clouds.rest import serve
from fake_clouds.rest.openstack_site import keystone_root

ROOT = "http://openstack/identity"


def _token_body(domain: str) -> dict:
    user = {"name": "demo", "password": "secret", "domain": {"name": domain}}
    project = {"name": "demo", "domain": {"name": domain}}
    return {
        "auth": {
            "identity": {"methods": ["password"], "password": {"user": user}},
            "scope": {"project": project},
        }
    }


def test_keystone_root_strips_only_a_version() -> None:
    assert keystone_root("https://keystone.example.com:5000/v3") == (
        "https://keystone.example.com:5000"
    )
    assert keystone_root("https://keystone.example.com:5000/v3/") == (
        "https://keystone.example.com:5000"
    )
    assert keystone_root(ROOT) == ROOT
    assert keystone_root(f"{ROOT}/v3") == ROOT


def test_a_devstack_style_auth_url_serves_discovery_and_v3() -> None:
    world = FakeCloud(seed=3)
    with serve(world, ["digitalocean"]) as rest:
        site = rest.serve_openstack(ROOT)
        site.accept(
            {
                "username": "demo",
                "password": "secret",
                "project_name": "demo",
                "user_domain_name": "default",
                "project_domain_name": "default",
            }
        )
        versions = requests.get(ROOT, timeout=30)
        assert versions.status_code == 300
        [v3] = versions.json()["versions"]["values"]
        assert v3["id"].startswith("v3")
        # keystone compares domain names without case (DevStack's MySQL): default is Default
        for domain in ("default", "Default", "DEFAULT"):
            ok = requests.post(f"{ROOT}/v3/auth/tokens", json=_token_body(domain), timeout=30)
            assert ok.status_code == 201, (domain, ok.text)
            assert ok.json()["token"]["project"]["domain"]["id"] == "default"
        # the user was added once, in the Default domain, not in a new one
        users = [u for u in world.service("identity").list_users() if u["name"] == "demo"]
        assert [u["domain_id"] for u in users] == ["default"]
        bad = requests.post(f"{ROOT}/v3/auth/tokens", json=_token_body("other"), timeout=30)
        assert bad.status_code == 401
