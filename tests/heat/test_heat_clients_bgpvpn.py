"""A networking-bgpvpn-style Heat plug-in on the fake network's BGP VPNs.

The plug-in below uses the same Heat APIs as networking-bgpvpn's
(``heat.engine.clients.os.neutron.neutron_constraints``, ``NeutronResource``,
``self.neutron().create_bgpvpn``, ``create_bgpvpn_network_assoc``); the real
one is measured by ``tools/heat_inventory.py --plugins`` (see
docs/heat-fidelity.rst), never downloaded by a test.
"""

from __future__ import annotations

from typing import Any

import pytest
from _heat_diff import requires_heat

from sdk import exception
from simulator.store import Store
from simulator.world import World

BGPVPN_STYLE = """
from heat.common import exception
from heat.engine import constraints
from heat.engine import properties
from heat.engine.clients.os.neutron import neutron_constraints
from heat.engine.resources.openstack.neutron import neutron


class Vpn(neutron.NeutronResource):
    properties_schema = {
        "route_targets": properties.Schema(properties.Schema.LIST),
        "tenant_id": properties.Schema(
            properties.Schema.STRING,
            constraints=[constraints.CustomConstraint("keystone.project")],
        ),
    }

    def handle_create(self):
        props = self.prepare_properties(self.properties, self.physical_resource_name())
        if "tenant_id" in props:
            props["tenant_id"] = self.client_plugin("keystone").get_project_id(props["tenant_id"])
        vpn = self.neutron().create_bgpvpn({"bgpvpn": props})
        self.resource_id_set(vpn["bgpvpn"]["id"])

    def handle_delete(self):
        try:
            self.neutron().delete_bgpvpn(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)

    def _show_resource(self):
        return self.neutron().show_bgpvpn(self.resource_id)["bgpvpn"]


class VpnConstraint(neutron_constraints.NeutronConstraint):
    resource_name = "bgpvpn"


class NetAssoc(neutron.NeutronResource):
    properties_schema = {
        "bgpvpn_id": properties.Schema(
            properties.Schema.STRING,
            required=True,
            constraints=[constraints.CustomConstraint("test.vpn")],
        ),
        "network_id": properties.Schema(
            properties.Schema.STRING,
            required=True,
            constraints=[constraints.CustomConstraint("neutron.network")],
        ),
    }

    def handle_create(self):
        vpn = self.client_plugin().find_resourceid_by_name_or_id(
            "bgpvpn", self.properties["bgpvpn_id"])
        net = self.client_plugin().find_resourceid_by_name_or_id(
            "network", self.properties["network_id"])
        assoc = self.neutron().create_bgpvpn_network_assoc(
            vpn, {"network_association": {"network_id": net}})
        self.resource_id_set(assoc["network_association"]["id"])

    def handle_delete(self):
        try:
            self.neutron().delete_bgpvpn_network_assoc(
                self.properties["bgpvpn_id"], self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)


def constraint_mapping():
    return {"test.vpn": VpnConstraint}


def resource_mapping():
    return {"Test::Bgp::Vpn": Vpn, "Test::Bgp::NetAssoc": NetAssoc}
"""


def _template(targets: list[str]) -> dict:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "vpn": {
                "type": "Test::Bgp::Vpn",
                "properties": {"route_targets": targets, "tenant_id": "admin"},
            },
            "assoc": {
                "type": "Test::Bgp::NetAssoc",
                "properties": {"bgpvpn_id": {"get_resource": "vpn"}, "network_id": "public"},
            },
        },
    }


@requires_heat
def test_a_bgpvpn_style_plugin_creates_vpns_and_associations_in_the_fake_network(
    tmp_path,
) -> None:
    from simulator.heat_compat import use_heat_plugins

    path = tmp_path / "vpn.py"
    path.write_text(BGPVPN_STYLE, encoding="utf-8")
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, path).errors
    mark = world.cloud.snapshot_inventory()
    stack = world.create_stack("s", _template(["64512:1"]))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    neutron = world.client_plugin("neutron").client()
    vpn = neutron.show_bgpvpn(stack.resources["vpn"].resource_id)["bgpvpn"]
    admin = world.client_plugin("keystone").client().projects.list(name="admin")[0].id
    assert (vpn["route_targets"], vpn["type"], vpn["tenant_id"]) == (["64512:1"], "l3", admin)
    assoc = neutron.show_bgpvpn_network_assoc(vpn["id"], stack.resources["assoc"].resource_id)
    public = neutron.list_networks(name="public")["networks"][0]["id"]
    assert assoc["network_association"]["network_id"] == public
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(mark) == []
    refused = world.create_stack("t", _template(["not-a-target"]), disable_rollback=True)
    assert refused.state == "CREATE_FAILED"
    assert "'not-a-target' is not a valid RT" in refused.resources["vpn"].status_reason
    world.close()


def test_an_association_names_a_live_vpn_and_network_once() -> None:
    world = World(Store(":memory:"), seed=5)
    neutron = world.client_plugin("neutron").client()
    public = neutron.list_networks(name="public")["networks"][0]["id"]
    vpn = neutron.create_bgpvpn({"bgpvpn": {"name": "v"}})["bgpvpn"]["id"]
    body = {"network_association": {"network_id": public}}
    made = neutron.create_bgpvpn_network_assoc(vpn, body)["network_association"]
    with pytest.raises(exception.Conflict, match="already associated"):
        neutron.create_bgpvpn_network_assoc(vpn, body)
    with pytest.raises(exception.NotFound):
        neutron.create_bgpvpn_network_assoc("nope", body)
    other = neutron.create_bgpvpn({"bgpvpn": {"name": "w"}})["bgpvpn"]["id"]
    with pytest.raises(exception.NotFound, match="could not be found"):
        neutron.show_bgpvpn_network_assoc(other, made["id"])
    neutron.delete_bgpvpn_network_assoc(vpn, made["id"])
    world.close()


def _installed(tmp_path, monkeypatch) -> Any:
    """A plug-in package 'installed' with its constraint in Heat's heat.constraints group."""
    package = tmp_path / "vpnplug"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    # the same plug-in without constraint_mapping(): its constraint comes from the entry point
    source = BGPVPN_STYLE.replace('"test.vpn"', '"test.installed_vpn"')
    source = source.split("def constraint_mapping")[0] + (
        "def resource_mapping():\n"
        '    return {"Test::Bgp::Vpn": Vpn, "Test::Bgp::NetAssoc": NetAssoc}\n'
    )
    (package / "service.py").write_text(source, encoding="utf-8")
    info = tmp_path / "vpnplug-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vpnplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[heat.constraints]\ntest.installed_vpn = vpnplug.service:VpnConstraint\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return package / "service.py"


@requires_heat
def test_a_constraint_registered_in_heats_entry_point_group_is_used(tmp_path, monkeypatch) -> None:
    from simulator.heat_compat import use_heat_plugins

    path = _installed(tmp_path, monkeypatch)
    world = World(Store(":memory:"), seed=5)
    report = use_heat_plugins(world, path)
    assert not report.errors, report.errors
    assert "test.installed_vpn" in report.constraints
    template = _template(["64512:7"])
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    template["resources"]["assoc"]["properties"]["bgpvpn_id"] = "no-such-vpn"
    del template["resources"]["vpn"]
    with pytest.raises(exception.StackValidationFailed, match="no-such-vpn"):
        world.create_stack("t", template)
    world.close()
