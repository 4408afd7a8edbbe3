"""A Heat-style plug-in's ``add_dependencies`` adds its edges to plugsim's graph (without Heat).

The plug-ins are tests/heat/heat_edges/ordered.py, loaded through the compat layer; the edges are
asked of :mod:`simulator.heat_compat.heat_implicit`'s stand-ins while the graph is built.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sdk import exception
from sdk.resource import Resource
from simulator import implicit_deps
from simulator.heat_compat import use_heat_plugins
from simulator.store import Store
from simulator.world import World

ORDERED = Path(__file__).resolve().parent / "heat_edges" / "ordered.py"


@pytest.fixture
def world():
    world = World(Store(":memory:"), seed=3)
    report = use_heat_plugins(world, ORDERED)
    assert report.errors == []
    yield world
    world.close()


def _graph(world: World, resources: dict, name: str = "edges") -> dict:
    template = {"heat_template_version": "2018-08-31", "resources": resources}
    stack = world.new_stack(name, world.source(template))
    graph = stack.dependency_graph()
    return {n: sorted(graph.requires(n)) for n in graph}


def _cls(world: World, type_name: str) -> type:
    source = world.source({"heat_template_version": "2018-08-31", "resources": {}})
    return world.registry.get_class(type_name, None, source)


SEGMENTS = {
    "seg_a": {"type": "Test::Segment", "properties": {"fabric": "blue"}},
    "seg_b": {"type": "Test::Segment", "properties": {"fabric": "blue", "size": 2}},
    "seg_red": {"type": "Test::Segment", "properties": {"fabric": "red"}},
    "big": {"type": "Test::BigSegment", "properties": {"fabric": "blue"}},
}


def test_a_link_follows_the_segments_of_its_fabric(world):
    graph = _graph(
        world,
        {
            **SEGMENTS,
            "link": {"type": "Test::Link", "properties": {"fabric": "blue"}},
            "old_link": {"type": "Test::Link", "properties": {"fabric_id": "red"}},
            "lost_link": {"type": "Test::Link", "properties": {"fabric": "green"}},
        },
    )
    # a BigSegment derives from Segment but is not a Test::Segment (Heat's has_interface)
    assert graph["link"] == ["seg_a", "seg_b"]
    assert graph["old_link"] == ["seg_red"]  # fabric_id translated to fabric first
    assert graph["lost_link"] == []
    assert graph["seg_a"] == graph["big"] == []


def test_a_get_resource_compares_as_the_resources_name(world):
    graph = _graph(
        world,
        {
            "fabric": {"type": "Test::Plain"},
            "seg": {"type": "Test::Segment", "properties": {"fabric": {"get_resource": "fabric"}}},
            "seg_other": {"type": "Test::Segment", "properties": {"fabric": "fabric"}},
            "link": {"type": "Test::Link", "properties": {"fabric": {"get_resource": "fabric"}}},
        },
    )
    # before the stack exists a get_resource is the name, so "fabric" matches it too (as Heat)
    assert graph["link"] == ["fabric", "seg", "seg_other"]


def test_an_edge_recorded_before_an_error_stays_and_the_error_is_ignored(world):
    graph = _graph(
        world,
        {**SEGMENTS, "hasty": {"type": "Test::Hasty", "properties": {"first": "seg_red"}}},
    )
    assert graph["hasty"] == ["seg_red"]


def test_deps_graph_holds_the_explicit_requirements_and_the_cloud_is_not_asked(world):
    resources = {
        **SEGMENTS,
        "link": {"type": "Test::Link", "properties": {"fabric": "red"}},
        "asker": {"type": "Test::Asker", "properties": {"link": {"get_resource": "link"}}},
        "curious": {
            "type": "Test::Asker",
            "properties": {"link": {"get_resource": "link"}, "ask_cloud": True},
        },
    }
    graph = _graph(world, resources)
    assert graph["asker"] == ["link", "seg_red"]
    assert graph["curious"] == ["link"]  # its client call was refused before any edge


def test_an_implicit_edge_that_closes_a_cycle_is_refused(world):
    resources = {
        "seg": {"type": "Test::Segment", "properties": {"fabric": {"get_attr": ["link", "x"]}}},
        "link": {"type": "Test::Link", "properties": {"fabric": None}},
    }
    # get_attr has no value yet and the link names no fabric: None == None, the link follows seg
    with pytest.raises(exception.StackValidationFailed, match="[Cc]ircular"):
        _graph(world, resources)


def test_only_classes_with_add_dependencies_are_asked(world):
    for type_name in ("Test::Segment", "Test::Plain"):
        cls = _cls(world, type_name)
        assert cls.implicit_requirements.__func__ is Resource.implicit_requirements.__func__
        assert not implicit_deps._overrides(cls)
    for type_name in ("Test::Link", "Test::Hasty", "Test::Asker"):
        assert implicit_deps._overrides(_cls(world, type_name))


def test_replace_with_value_name_moves_the_sibling_key_in_each_item():
    """Heat's Server rule: ``networks[].uuid`` moves to ``networks[].network`` (its edges compare
    ``network``); an item giving both is refused, as Heat refuses it."""
    from sdk import properties
    from simulator.heat_compat.translation import TranslationRule, apply_rules

    def translated(*items):
        props = properties.Properties(
            {"networks": properties.Schema(properties.Schema.LIST, "Networks.")},
            {"networks": list(items)},
            path=["resources", "server", "properties"],
        )
        rule = TranslationRule(
            props, TranslationRule.REPLACE, ["networks", "network"], value_name="uuid"
        )
        apply_rules(props, [rule], client_resolve=False)
        return props.data["networks"]

    given = {"uuid": "a"}
    assert translated(given, {"network": "b"}, {"port": "p"}, "odd") == [
        {"network": "a"},
        {"network": "b"},
        {"port": "p"},
        "odd",
    ]
    assert given == {"uuid": "a"}  # the template's own maps are not changed
    with pytest.raises(exception.StackValidationFailed, match="networks.network, networks.uuid"):
        translated({"network": "b", "uuid": "c"})


def test_replace_with_value_path_moves_the_old_key_and_refuses_both():
    """Heat's Port rule: a deprecated ``network_id`` moves to ``network``; giving both is refused
    with Heat 27's message (``Translation.replace``), not settled silently for the new key."""
    from sdk import properties
    from simulator.heat_compat.translation import TranslationRule, apply_rules

    def translated(**given):
        schema = {
            name: properties.Schema(properties.Schema.STRING, name)
            for name in ("network", "network_id")
        }
        props = properties.Properties(schema, given, path=["resources", "port", "properties"])
        rule = TranslationRule(
            props, TranslationRule.REPLACE, ["network"], value_path=["network_id"]
        )
        apply_rules(props, [rule], client_resolve=False)
        return props.data

    assert translated(network_id="a") == {"network": "a"}
    assert translated(network="b") == {"network": "b"}
    with pytest.raises(exception.StackValidationFailed) as info:
        translated(network="b", network_id="c")
    assert "Cannot define the following properties at the same time: network, network_id" in str(
        info.value
    )
