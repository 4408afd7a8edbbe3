"""Heat's own networking plug-ins (and AWS's VPC gateway attachment), loaded through the compat layer, add the edges their
``add_dependencies`` adds in Heat 27: the graph Heat's engine builds for each template of
tests/fixtures/implicit_deps_heat (``tools/heat_diff/heat_graph.py``) equals the one plugsim builds
with Heat's classes for those types (:mod:`simulator.heat_compat.heat_implicit`)."""

from __future__ import annotations

import inspect
from pathlib import Path

import _heat_diff
import pytest
from _heat_diff import ROOT, requires_heat

from simulator.heat_compat import use_heat_plugins
from simulator.heat_compat.resource import HeatResource
from simulator.store import Store
from simulator.world import World

pytestmark = [requires_heat, pytest.mark.material]

FIXTURES = sorted((ROOT / "tests" / "fixtures" / "implicit_deps_heat").glob("*.yaml"))

#: Heat's modules whose classes back every type of the fixtures
HEAT_MODULES = [
    f"heat.engine.resources.openstack.{module}"
    for module in (
        "neutron.net",
        "neutron.subnet",
        "neutron.port",
        "neutron.router",
        "neutron.floatingip",
        "neutron.extraroute",
        "neutron.extrarouteset",
        "nova.server",
    )
] + [f"heat.engine.resources.aws.ec2.{m}" for m in ("vpc", "route_table", "internet_gateway")]


@pytest.fixture(scope="module")
def heat_graphs() -> dict:
    return _heat_diff.heat_graphs(FIXTURES)


@pytest.fixture(scope="module")
def plugsim_graphs() -> dict:
    """``{path: (graph with implicit edges, explicit graph, {resource: class})}``."""
    world = World(Store(":memory:"))
    try:
        report = use_heat_plugins(world, *HEAT_MODULES)
        assert report.errors == []
        out = {}
        for path in FIXTURES:
            stack = world.new_stack(path.stem.replace("_", "-"), world.source(str(path)))
            graph = stack.dependency_graph()
            explicit = stack.definition.dependencies()
            classes = {
                name: world.registry.get_class(defn.resource_type, name, stack.source)
                for name, defn in stack.definition.resource_definitions().items()
            }
            out[str(path)] = (
                {n: sorted(graph.requires(n)) for n in graph},
                {n: sorted(explicit.requires(n)) for n in explicit},
                classes,
            )
        return out
    finally:
        world.close()


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_heat_plugin_edges_equal_heats(path: Path, heat_graphs: dict, plugsim_graphs: dict):
    graph, explicit, classes = plugsim_graphs[str(path)]
    # every type runs Heat's own class, not plugsim's bundled one
    assert all(issubclass(cls, HeatResource) for cls in classes.values()), classes
    sources = {Path(inspect.getfile(cls)).as_posix() for cls in classes.values()}
    assert all("/heat/engine/resources/" in s for s in sources), sources
    assert graph == heat_graphs[str(path)]
    # and the fixture exercises add_dependencies: Heat's graph has edges no property states
    implicit = {(n, r) for n, rs in graph.items() for r in rs if r not in explicit.get(n, [])}
    assert implicit, path.name


def test_heat_port_beside_plugsims_subnets_adds_heats_edges(heat_graphs: dict):
    """Only Heat's Port loaded: the subnets are plugsim's bundled type (its own ``network_id``
    rename), and the graph is still Heat's."""
    path = ROOT / "tests" / "fixtures" / "implicit_deps_heat" / "net_subnet_port.yaml"
    world = World(Store(":memory:"))
    try:
        report = use_heat_plugins(world, "heat.engine.resources.openstack.neutron.port")
        assert report.errors == []
        stack = world.new_stack("mixed", world.source(str(path)))
        subnet = world.registry.get_class("OS::Neutron::Subnet", "subnet_b", stack.source)
        assert not issubclass(subnet, HeatResource)
        graph = stack.dependency_graph()
        assert {n: sorted(graph.requires(n)) for n in graph} == heat_graphs[str(path)]
    finally:
        world.close()
