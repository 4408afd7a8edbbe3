"""Adding a provider: one Dialect subclass, one entry point in ``plugsim.providers``.

The small dialect here is the one ``docs/fake-clouds-rest.rst`` walks
through: a list and a create route over the compute service.
"""

from __future__ import annotations

import importlib.metadata

import pytest
import requests

from fake_clouds import FakeCloud
from fake_clouds.rest import Dialect, Reply, Request, RestServer, dialect_classes, int_id, route
from fake_clouds.rest.serving import provider_apps, providers_config
from sdk.exception import ConfigurationError


class Acme(Dialect):
    """A made-up provider: machines are compute servers."""

    name = "acme"
    default_base_url = "https://api.acme.test/v1"
    default_token = "acme-token"

    @route("GET", "/machines", op=("compute", "servers.list", "server"))
    def list_machines(self, req: Request) -> Reply:
        servers = self.cloud.service("compute").list_servers()
        return Reply(
            200, {"machines": [{"id": int_id(s["id"]), "name": s["name"]} for s in servers]}
        )

    @route("POST", "/machines", op=("compute", "servers.create", "server"))
    def create_machine(self, req: Request) -> Reply:
        body = req.json(self)
        if not isinstance(body.get("name"), str):
            raise self.fail(422, "name must be a string", "name")
        server = self.cloud.service("compute").create_server(body["name"], "cirros", "1")
        req.entity_id = server["id"]
        return Reply(201, {"machine": {"id": int_id(server["id"]), "name": server["name"]}})


def _entry(value: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name="acme", value=value, group="plugsim.providers")


@pytest.fixture
def acme_registered(monkeypatch):
    """``acme = test_rest_provider_entry:Acme`` in the group, as a package's metadata would say."""
    entry = _entry(f"{__name__}:Acme")
    real = importlib.metadata.entry_points

    def entry_points(**kwargs):
        if kwargs.get("group") == "plugsim.providers":
            return [entry]
        return real(**kwargs)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def test_a_provider_entry_point_is_served_in_process(acme_registered):
    assert dialect_classes()["acme"] is Acme
    world = FakeCloud(seed=3)
    with RestServer(world, ["acme"]) as rest:
        url = rest.base_url("acme") + "/machines"
        made = requests.post(url, json={"name": "m1"}, headers=rest.headers("acme"), timeout=10)
        assert made.status_code == 201
        listed = requests.get(url, headers=rest.headers("acme"), timeout=10).json()
        assert listed == {"machines": [made.json()["machine"]]}
        bad = requests.post(url, json={"name": 3}, headers=rest.headers("acme"), timeout=10)
        assert bad.status_code == 422 and bad.json() == {"message": "name must be a string"}
        assert requests.get(url, timeout=10).status_code == 401
    # one dispatch per routed request, the refused create too (the 401 reached no route)
    assert [t.operation for t in world.trace()] == [
        "servers.create",
        "servers.list",
        "servers.create",
    ]


def test_a_provider_entry_point_is_mounted_for_plugsim_serve(acme_registered):
    apps = provider_apps(FakeCloud(seed=3), "http://127.0.0.1:5000", ["acme"])
    config = providers_config(apps)
    assert config == {
        "providers": {"acme": {"url": "http://127.0.0.1:5000/acme/v1", "token": "acme-token"}}
    }


def test_an_entry_point_that_is_no_dialect_is_named(monkeypatch):
    entry = _entry("fake_clouds.rest:iso")
    real = importlib.metadata.entry_points
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda **kw: [entry] if kw.get("group") == "plugsim.providers" else real(**kw),
    )
    with pytest.raises(ConfigurationError, match=r"acme = fake_clouds\.rest:iso .*Dialect"):
        dialect_classes()
