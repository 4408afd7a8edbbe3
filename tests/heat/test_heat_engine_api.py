"""The parts of Heat's engine API that Heat's own plug-ins use, imitated by the compat layer.

Each fixture is a small plug-in of our own written against Heat's module
names and using the same engine API as Heat's in-tree plug-ins (KeyPair's
``__init__`` override, Delay's ``strict_validate``, ServerGroup's
``is_version_supported``, translation ``RESOLVE``, heat_docker's ``''``
default for a list).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from simulator.heat_compat import use_heat_plugins
from simulator.store import Store
from simulator.world import World

ENGINE_API = textwrap.dedent(
    '''
    from heat.engine import attributes, properties, resource, translation


    class Source(resource.Resource):
        """Nothing but a reference id."""

        def handle_create(self):
            self.resource_id_set("src-" + self.name)


    class Overridden(resource.Resource):
        """Overrides __init__ with Heat's three arguments, as KeyPair does."""

        properties_schema = {"peer": properties.Schema(properties.Schema.STRING, "A peer.")}
        attributes_schema = {"seen": attributes.Schema("What the plug-in saw.")}

        def __init__(self, name, json_snippet, stack):
            super().__init__(name, json_snippet, stack)
            self.made_by_override = True

        def handle_create(self):
            self.resource_id_set("ovr")
            self.data_set("seen", self.properties["peer"])

        def _resolve_attribute(self, name):
            return self.data().get(name)


    class Looker(resource.Resource):
        """Reads the stack as Heat plug-ins do."""

        properties_schema = {"peer": properties.Schema(properties.Schema.STRING, "A peer.")}
        attributes_schema = {"seen": attributes.Schema("What it saw.", type=attributes.Schema.MAP)}

        def handle_create(self):
            stack = self.stack
            peer = stack.resource_by_refid(self.properties["peer"])
            seen = {
                "strict": stack.strict_validate,
                "names": sorted(stack),
                "count": len(stack),
                "has_src": "src" in stack,
                "src_type": stack["src"].type(),
                "peer": peer.name if peer is not None else None,
                "nobody": stack.resource_by_refid("no-such-ref"),
                "timeout": stack.timeout_secs(),
            }
            self.resource_id_set("looker")
            self.data_set("seen", seen)

        def _resolve_attribute(self, name):
            return self.data().get(name)


    class Versioned(resource.Resource):
        """Asks its client plug-in for microversions, as ServerGroup does."""

        default_client_name = "nova"
        attributes_schema = {"seen": attributes.Schema("What it saw.", type=attributes.Schema.MAP)}

        def handle_create(self):
            plugin = self.client_plugin()
            self.resource_id_set("v")
            self.data_set(
                "seen",
                {
                    "old": plugin.is_version_supported("2.1"),
                    "future": plugin.is_version_supported("99.0"),
                    "nova": type(self.nova()).__name__ == type(self.client("nova")).__name__,
                    "neutron": self.neutron() is not None,
                    "ignored": self._ignores(plugin),
                },
            )

        def _ignores(self, plugin):
            gone = self.client().servers.get  # the fake cloud's not-found, as a client raises it
            with plugin.ignore_not_found:
                gone("no-such-server")
            try:
                gone("no-such-server")
            except Exception as ex:
                plugin.ignore_not_found(ex)
            with plugin.ignore_conflict_and_not_found:
                gone("no-such-server")
            return True

        def _resolve_attribute(self, name):
            return self.data().get(name)


    class Finder:
        """Stands for a client plug-in with a finder, as the rule's client_plugin."""

        def find_id(self, entity, value):
            return f"{entity}-id-of-{value}"


    class Resolving(resource.Resource):
        """Resolves a name to an id with a RESOLVE translation rule."""

        properties_schema = {"net": properties.Schema(properties.Schema.STRING, "A network.")}
        attributes_schema = {"seen": attributes.Schema("The resolved network.")}

        def translation_rules(self, props):
            return [
                translation.TranslationRule(
                    props,
                    translation.TranslationRule.RESOLVE,
                    ["net"],
                    client_plugin=Finder(),
                    finder="find_id",
                    entity="network",
                )
            ]

        def handle_create(self):
            self.resource_id_set("res")
            self.data_set("seen", self.properties["net"])

        def _resolve_attribute(self, name):
            return self.data().get(name)


    class EmptyListDefault(resource.Resource):
        """A list whose default is '' (as contrib heat_docker's ``links``)."""

        properties_schema = {
            "links": properties.Schema(properties.Schema.LIST, "Links.", default=""),
        }
        attributes_schema = {"links": attributes.Schema("The links.", type=attributes.Schema.LIST)}

        def handle_create(self):
            self.resource_id_set("e")
            self.data_set("links", self.properties["links"])

        def _resolve_attribute(self, name):
            return self.data().get(name)


    def resource_mapping():
        return {
            "Test::HeatApi::Source": Source,
            "Test::HeatApi::Overridden": Overridden,
            "Test::HeatApi::Looker": Looker,
            "Test::HeatApi::Versioned": Versioned,
            "Test::HeatApi::Resolving": Resolving,
            "Test::HeatApi::EmptyListDefault": EmptyListDefault,
        }
    '''
)


@pytest.fixture
def world(tmp_path: Path) -> Any:
    path = tmp_path / "engine_api.py"
    path.write_text(ENGINE_API, encoding="utf-8")
    w = World(Store(":memory:"), seed=3)
    report = use_heat_plugins(w, path)
    assert not report.errors, report.errors
    yield w
    w.close()


def _create(world: Any, resources: dict[str, Any]) -> Any:
    template = {"heat_template_version": "2018-08-31", "resources": resources}
    template["outputs"] = {
        name: {"value": {"get_attr": [name, "seen"]}} for name in resources if name not in ("src",)
    }
    stack = world.create_stack("s", template, disable_rollback=True)
    assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
    return {o["output_key"]: o.get("output_value") for o in stack.outputs()}


def test_init_override_without_resolver_gets_resolved_properties(world: Any) -> None:
    outputs = _create(
        world,
        {
            "src": {"type": "Test::HeatApi::Source"},
            "ovr": {
                "type": "Test::HeatApi::Overridden",
                "properties": {"peer": {"get_resource": "src"}},
            },
        },
    )
    assert outputs["ovr"] == "src-src"
    assert world.delete_stack("s").status == "COMPLETE"


def test_stack_view_has_strict_validate_refid_lookup_and_iteration(world: Any) -> None:
    outputs = _create(
        world,
        {
            "src": {"type": "Test::HeatApi::Source"},
            "look": {
                "type": "Test::HeatApi::Looker",
                "properties": {"peer": {"get_resource": "src"}},
            },
        },
    )
    assert outputs["look"] == {
        "strict": True,
        "names": ["look", "src"],
        "count": 2,
        "has_src": True,
        "src_type": "Test::HeatApi::Source",
        "peer": "src",
        "nobody": None,
        "timeout": 3600,
    }


def test_client_plugin_answers_is_version_supported(world: Any) -> None:
    outputs = _create(world, {"v": {"type": "Test::HeatApi::Versioned"}})
    assert outputs["v"] == {
        "old": True,
        "future": False,
        "nova": True,
        "neutron": True,
        "ignored": True,
    }


def test_translation_resolve_replaces_the_value_with_the_finders_answer(world: Any) -> None:
    outputs = _create(
        world,
        {"res": {"type": "Test::HeatApi::Resolving", "properties": {"net": "public"}}},
    )
    assert outputs["res"] == "network-id-of-public"


def test_empty_string_default_of_a_list_is_accepted_and_reads_empty(world: Any) -> None:
    stack = world.create_stack(
        "s",
        {
            "heat_template_version": "2018-08-31",
            "resources": {"e": {"type": "Test::HeatApi::EmptyListDefault"}},
            "outputs": {"links": {"value": {"get_attr": ["e", "links"]}}},
        },
        disable_rollback=True,
    )
    assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
    assert stack.outputs()[0]["output_value"] == []


def test_default_that_breaks_a_constraint_is_still_rejected() -> None:
    from sdk import constraints, exception
    from simulator.heat_compat._shims import PropertiesSchema

    with pytest.raises(exception.InvalidSchemaError, match="Invalid default"):
        PropertiesSchema("List", default="", constraints=[constraints.Length(min=1)])


class _MembersOnly:
    """A context offering its members only through the public ``stack_members()``."""

    def __init__(self, members: dict[str, Any]) -> None:
        self._members = members
        self.calls = 0

    def stack_members(self) -> dict[str, Any]:
        self.calls += 1
        return dict(self._members)


def test_stack_view_reads_members_through_the_public_context_method() -> None:
    from sdk.context import StackInfo
    from simulator.heat_compat.engine_api import HeatStackView

    member = type("Member", (), {"name": "a", "action": "CREATE", "status": "COMPLETE"})()
    member.get_reference_id = lambda: "ref-a"
    context = _MembersOnly({"a": member})
    view = HeatStackView(StackInfo(name="s"), context)
    assert list(view) == ["a"] and len(view) == 1 and "a" in view
    assert view["a"] is member
    assert view.resource_by_refid("ref-a") is member
    assert context.calls  # every answer came from the public method
    assert list(HeatStackView(StackInfo(), object())) == []  # a context without the method


def test_contexts_list_their_stack_members(world: Any) -> None:
    from sdk.context import LocalContext
    from simulator.property_validation import ValidationContext

    local = LocalContext()
    local.peers["p"] = "peer"
    assert local.stack_members() == {"p": "peer"}
    assert local.stack_members() is not local.peers
    assert ValidationContext().stack_members() == {}
    stack = world.create_stack(
        "members",
        {
            "heat_template_version": "2018-08-31",
            "resources": {"b": {"type": "Test::HeatApi::Source"}, "a": {"type": "OS::Heat::None"}},
        },
    )
    assert stack.state == "CREATE_COMPLETE"
    context = stack.resources["a"].context
    assert sorted(context.stack_members()) == ["a", "b"]
    assert context.stack_members()["b"] is stack.resources["b"]


HEAT_SIGNATURES = textwrap.dedent(
    '''
    from heat.common import exception
    from heat.engine import attributes, properties, resource, translation


    class OneArgPolicy(resource.Resource):
        """Overrides validate_deletion_policy with Heat's one argument, as BaseVolume does."""

        properties_schema = {"size": properties.Schema(properties.Schema.INTEGER, "Size.")}

        @classmethod
        def validate_deletion_policy(cls, policy):
            super().validate_deletion_policy(policy)
            if policy == "Retain":
                raise exception.StackValidationFailed(message="Retain refused by the plug-in")

        def handle_create(self):
            self.resource_id_set("one")


    class AsksForAbsent(resource.Resource):
        """Names an absent service's client plug-in in its rules, using it only for a queue."""

        properties_schema = {"queue": properties.Schema(properties.Schema.STRING, "Queue.")}

        def translation_rules(self, props):
            return [
                translation.TranslationRule(
                    props,
                    translation.TranslationRule.RESOLVE,
                    ["queue"],
                    client_plugin=self.client_plugin("zaqar"),
                    finder="find_queue_by_name",
                )
            ]

        def handle_create(self):
            self.resource_id_set("zaqar-free")


    class Metadata(resource.Resource):
        """Merges into its metadata and re-reads it with Heat's refresh flag, as ServerBase does."""

        attributes_schema = {"meta": attributes.Schema("The metadata it ends with.")}

        def handle_create(self):
            self.metadata_set({"b": 2}, merge_metadata=lambda old, new: {**old, **new})
            self.resource_id_set("meta")

        def _resolve_attribute(self, name):
            return self.metadata_get(True)


    class Guard(resource.Resource):
        """Checks at validation that the resources it names are in the stack, as AccessPolicy."""

        properties_schema = {"names": properties.Schema(properties.Schema.LIST, "Names.")}

        def validate(self):
            super().validate()
            for name in self.properties["names"] or []:
                if name not in self.stack:
                    raise exception.StackValidationFailed(message=f"{name} not in stack")
                if self.stack[name].type() != "OS::Heat::None":
                    raise exception.StackValidationFailed(message=f"{name} is no None")

        def handle_create(self):
            self.resource_id_set("guard")


    def resource_mapping():
        return {
            "Test::HeatApi::Guard": Guard,
            "Test::HeatApi::OneArgPolicy": OneArgPolicy,
            "Test::HeatApi::Absent": AsksForAbsent,
            "Test::HeatApi::Metadata": Metadata,
        }
    '''
)


@pytest.fixture
def signatures(tmp_path: Path) -> Any:
    path = tmp_path / "signatures.py"
    path.write_text(HEAT_SIGNATURES, encoding="utf-8")
    w = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(w, path).errors
    yield w, path
    w.close()


def _one(kind: str, props: dict | None = None, **extra: Any) -> dict:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"r": {"type": kind, "properties": props or {}, **extra}},
    }


def test_heat_one_argument_deletion_policy_check_runs_before_properties(signatures: Any) -> None:
    from sdk import exception

    world, _ = signatures
    assert world.create_stack("ok", _one("Test::HeatApi::OneArgPolicy")).state == "CREATE_COMPLETE"
    with pytest.raises(exception.StackValidationFailed, match="Retain refused by the plug-in"):
        world.create_stack(
            "kept", _one("Test::HeatApi::OneArgPolicy", {"size": "x"}, deletion_policy="Retain")
        )
    with pytest.raises(exception.StackValidationFailed, match="size"):
        world.create_stack("typed", _one("Test::HeatApi::OneArgPolicy", {"size": "x"}))


def test_a_missing_service_fails_only_when_its_client_plugin_is_used(signatures: Any) -> None:
    world, path = signatures
    stack = world.create_stack("g", _one("Test::HeatApi::Absent"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    from sdk import exception

    with pytest.raises(exception.StackValidationFailed) as caught:
        world.create_stack("g2", _one("Test::HeatApi::Absent", {"queue": "jobs"}))
    assert "the fake cloud has no 'zaqar' service" in str(caught.value)


def test_metadata_merge_and_refresh_take_heats_arguments(signatures: Any) -> None:
    world, _ = signatures
    template = _one("Test::HeatApi::Metadata", metadata={"a": 1})
    template["outputs"] = {"meta": {"value": {"get_attr": ["r", "meta"]}}}
    stack = world.create_stack("m", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert stack.output("meta") == {"a": 1, "b": 2}


def test_resource_id_is_a_stable_number_per_stack_and_name(signatures: Any) -> None:
    world, _ = signatures
    pair = {n: {"type": "Test::HeatApi::Metadata"} for n in ("a", "b")}
    template = {"heat_template_version": "2018-08-31", "resources": pair}
    stacks = [world.create_stack(name, template) for name in ("one", "two")]
    ids = {(s.name, n): s.resources[n].id for s in stacks for n in ("a", "b")}
    assert all(isinstance(i, int) for i in ids.values())
    assert len(set(ids.values())) == 4  # per stack and per name
    assert stacks[0].resources["a"].id == ids[("one", "a")]  # the same on every read


def test_the_stack_lists_its_resources_while_being_validated(signatures: Any) -> None:
    from sdk import exception

    world, _ = signatures
    template = _one("Test::HeatApi::Guard", {"names": ["n"]})
    template["resources"]["n"] = {"type": "OS::Heat::None"}
    assert world.create_stack("ok", template).state == "CREATE_COMPLETE"
    template["resources"]["r"]["properties"] = {"names": ["ghost"]}
    with pytest.raises(exception.StackValidationFailed, match="ghost not in stack"):
        world.create_stack("ghost", template)


def test_a_map_default_of_a_list_reads_empty_as_in_heat() -> None:
    """NetworkGateway's ``connections`` is a list with ``default={}``: Heat reads it as []."""
    from sdk.properties import Properties
    from simulator.heat_compat._shims import PropertiesSchema

    schema = {"connections": PropertiesSchema("List", default={}, update_allowed=True)}
    props = Properties(schema, {})
    props.validate()
    assert props["connections"] == []
    assert Properties(schema, {"connections": [{"network": "n"}]})["connections"] == [
        {"network": "n"}
    ]
