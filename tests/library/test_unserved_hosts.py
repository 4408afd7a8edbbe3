"""Requests to hosts no fake serves, and a third-party fake backend (issue 35 item 9).

A plug-in that calls a vendor's REST API itself (heat-infoblox's WAPI, contrail-heat's
API server) used to fail with the library's bare ``ConnectionError``. Such a request is
now refused in one line naming the host, the method and the path and how to add a fake;
``examples/infoblox`` is a fake Infoblox grid published as a fake cloud backend, with a
plug-in of heat-infoblox's style that runs on it.
"""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest

from simulator import backend as backend_mod
from simulator.world import World

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "infoblox"
TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "net": {
            "type": "Acme::Infoblox::Network",
            "properties": {"grid": "nios.example.test", "cidr": "10.8.0.0/24"},
        }
    },
}


@pytest.fixture
def infoblox_backend(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    entry = importlib.metadata.EntryPoint(
        name="infoblox", value="infoblox_fake:backend", group=backend_mod.ENTRY_POINT_GROUP
    )
    real = backend_mod._entry_points
    monkeypatch.setattr(backend_mod, "_entry_points", lambda: [*real(), entry])
    yield
    sys.modules.pop("infoblox_fake", None)


def test_a_request_to_an_unserved_host_fails_in_one_line_naming_it():
    world = World(seed=2, plugin_dirs=[EXAMPLE / "plugins"])
    try:
        stack = world.create_stack("s", TEMPLATE)
        assert stack.status == "FAILED"
        reason = stack.status_reason
        assert "\n" not in reason
        assert "no fake cloud serves nios.example.test (POST /wapi/v2.7/network)" in reason
        assert "plugsim.fake_clouds" in reason
    finally:
        world.close()


def test_the_example_infoblox_backend_serves_the_plugin(infoblox_backend):
    world = World(seed=2, backend="infoblox", plugin_dirs=[EXAMPLE / "plugins"])
    try:
        stack = world.create_stack("s", TEMPLATE)
        assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
        grid = world.cloud.service("infoblox")
        [network] = grid.find("network", {"network": "10.8.0.0/24"})
        assert network["_ref"] == stack.resources["net"].resource_id
        assert network["network_view"] == "default"
        # the grid refuses a second network of the same CIDR in the view, as NIOS does
        again = world.create_stack("t", TEMPLATE)
        assert again.status == "FAILED"
        assert "already exists in network view default" in again.status_reason
        world.delete_stack("t")
        assert world.delete_stack("s").status == "COMPLETE"
        assert grid.find("network", {}) == []
    finally:
        world.close()


def test_loopback_is_still_reached_for_real():
    from fake_clouds.http_refusal import LOOPBACK, refusal_message

    assert "127.0.0.1" in LOOPBACK
    line = refusal_message("DELETE", "https://api.contrail.test:8082/virtual-network/1")
    assert line.startswith(
        "no fake cloud serves api.contrail.test:8082 (DELETE /virtual-network/1)"
    )
