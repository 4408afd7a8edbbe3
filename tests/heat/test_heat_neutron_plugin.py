"""Heat's neutron client plug-in surface, as Heat's network plug-ins use it, on the default world.

The fixture is a plug-in of our own written as Heat's ``OS::Neutron::Port``
and friends are: kinds named through ``client_plugin().RES_TYPE_*``, a name
resolved to an id by a ``RESOLVE`` translation rule whose finder is
``find_resourceid_by_name_or_id``, optional attributes dropped when unset.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from simulator.heat_compat import use_heat_plugins
from simulator.heat_compat._shims import PropertiesSchema
from simulator.heat_compat.neutron_plugin import RES_TYPES, NeutronClientPlugin
from simulator.store import Store
from simulator.world import World

PLUGIN = textwrap.dedent(
    '''
    from heat.engine import attributes, properties, resource, translation


    class Lookup(resource.Resource):
        """Resolves a network and a security group, records what the client plug-in said."""

        default_client_name = "neutron"
        properties_schema = {
            "network": properties.Schema(properties.Schema.STRING, "Network name or id."),
            "network_id": properties.Schema(properties.Schema.STRING, "Network id."),
            "groups": properties.Schema(properties.Schema.LIST, "Security groups."),
            "hints": properties.Schema(properties.Schema.LIST, "Never set here."),
        }
        attributes_schema = {"seen": attributes.Schema("What the plug-in saw.")}

        def translation_rules(self, props):
            plugin = self.client_plugin()
            return [
                translation.TranslationRule(
                    props,
                    translation.TranslationRule.RESOLVE,
                    ["network"],
                    client_plugin=plugin,
                    finder="find_resourceid_by_name_or_id",
                    entity=plugin.RES_TYPE_NETWORK,
                ),
            ]

        def handle_create(self):
            plugin = self.client_plugin()
            self.data_set("net", self.properties["network"])
            self.data_set("groups", ",".join(plugin.get_secgroup_uuids(self.properties["groups"] or [])))
            self.data_set("tagging", str(plugin.has_extension("standard-attr-tag")))
            self.data_set("hints", repr(self.properties["hints"]))
            self.resource_id_set(self.properties["network"])

        def _resolve_attribute(self, name):
            return dict(self.data())


    def resource_mapping():
        return {"Test::Heat::Lookup": Lookup}
    '''
)


@pytest.fixture
def world(tmp_path: Path) -> Any:
    path = tmp_path / "lookup.py"
    path.write_text(PLUGIN, encoding="utf-8")
    w = World(Store(":memory:"), seed=3)
    assert use_heat_plugins(w, path).errors == []
    yield w
    w.close()


def _ids(world: Any, kind: str) -> dict[str, str]:
    plugin = world.client_plugin("neutron")
    plural = "security_groups" if kind == "security_group" else kind + "s"
    listed = getattr(plugin.client(), f"list_{plural}")()[plural]
    return {item["name"]: item["id"] for item in listed}


def _create(world: Any, props: dict[str, Any]) -> Any:
    return world.create_stack(
        "s",
        {
            "heat_template_version": "2018-08-31",
            "resources": {"r": {"type": "Test::Heat::Lookup", "properties": props}},
            "outputs": {"seen": {"value": {"get_attr": ["r", "seen"]}}},
        },
        disable_rollback=True,
    )


def test_names_resolve_to_ids_of_the_worlds_objects(world: Any) -> None:
    stack = _create(world, {"network": "public", "groups": ["default"]})
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    seen = stack.output("seen")
    assert seen["net"] == _ids(world, "network")["public"]
    assert seen["groups"] == _ids(world, "security_group")["default"]
    assert seen["tagging"] == "False"  # the fake network lists no such extension
    assert seen["hints"] == "None"  # an unset list is None, as in Heat


def test_an_id_is_taken_as_it_is(world: Any) -> None:
    public = _ids(world, "network")["public"]
    stack = _create(world, {"network": public})
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert stack.output("seen")["net"] == public


def test_an_unknown_name_fails_the_create_naming_it(world: Any) -> None:
    # Heat parses a new resource without asking the cloud and does a RESOLVE
    # rule's lookup when it creates it: an unknown name (with no custom
    # constraint to check it first) fails the create, not the validation
    stack = _create(world, {"network": "nowhere"})
    assert stack.state == "CREATE_FAILED"
    assert "resources.r" in stack.status_reason
    assert "The network (nowhere) could not be found" in stack.status_reason


def test_res_types_are_heats_kind_names() -> None:
    assert NeutronClientPlugin.RES_TYPE_NETWORK == "network"
    assert NeutronClientPlugin.RES_TYPE_QOS_POLICY == "policy"
    assert set(RES_TYPES) <= set(dir(NeutronClientPlugin))


def test_unset_list_without_default_is_none_but_empty_string_default_is_empty() -> None:
    assert PropertiesSchema("List").empty_value() is None
    assert PropertiesSchema("List", default="").empty_value() == []
    assert PropertiesSchema("List", default=[]).default == []


def test_security_group_bodies_carry_their_rules_as_neutrons_do(world: Any) -> None:
    # Heat's OS::Neutron::SecurityGroup deletes the rules it reads from the group's body
    neutron = world.client_plugin("neutron").client()
    group = neutron.create_security_group({"security_group": {"name": "web"}})["security_group"]
    rule = neutron.create_security_group_rule(
        {"security_group_rule": {"security_group_id": group["id"], "direction": "ingress"}}
    )["security_group_rule"]
    shown = neutron.show_security_group(group["id"])["security_group"]
    assert [r["id"] for r in shown["security_group_rules"]] == [rule["id"]]
    listed = {g["name"]: g for g in neutron.list_security_groups()["security_groups"]}
    assert [r["id"] for r in listed["web"]["security_group_rules"]] == [rule["id"]]


LISTED = textwrap.dedent(
    '''
    from heat.engine import attributes, properties, resource, translation


    class Nics(resource.Resource):
        """Resolves the network of each item of a list, as Heat's Server does."""

        default_client_name = "neutron"
        properties_schema = {
            "networks": properties.Schema(
                properties.Schema.LIST,
                "Networks.",
                schema=properties.Schema(
                    properties.Schema.MAP,
                    schema={"network": properties.Schema(properties.Schema.STRING, "Net.")},
                ),
            )
        }
        attributes_schema = {"ids": attributes.Schema("Resolved ids.")}

        def translation_rules(self, props):
            return [
                translation.TranslationRule(
                    props,
                    translation.TranslationRule.RESOLVE,
                    ["networks", "network"],
                    client_plugin=self.client_plugin(),
                    finder="find_resourceid_by_name_or_id",
                    entity="network",
                )
            ]

        def handle_create(self):
            self.resource_id_set("nics")

        def _resolve_attribute(self, name):
            return [n["network"] for n in self.properties["networks"]]


    def resource_mapping():
        return {"Test::Heat::Nics": Nics}
    '''
)


def test_resolve_rules_reach_into_each_item_of_a_list(tmp_path: Path) -> None:
    path = tmp_path / "nics.py"
    path.write_text(LISTED, encoding="utf-8")
    w = World(Store(":memory:"), seed=3)
    assert use_heat_plugins(w, path).errors == []
    stack = w.create_stack(
        "s",
        {
            "heat_template_version": "2018-08-31",
            "resources": {
                "n": {
                    "type": "Test::Heat::Nics",
                    "properties": {"networks": [{"network": "public"}, {"network": "public"}]},
                }
            },
            "outputs": {"ids": {"value": {"get_attr": ["n", "ids"]}}},
        },
    )
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    public = _ids(w, "network")["public"]
    assert stack.output("ids") == [public, public]
    w.close()
