"""Implicit dependencies: the edges networking types add to their stack's graph, as Heat 27 does.

The expected graphs are the ones Heat 27's engine builds for the same fixture templates
(``tools/heat_diff/heat_graph.py``; tests/heat/test_implicit_deps_diff.py compares them with a
Heat venv at hand).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sdk import exception
from sdk.resource import Resource
from simulator.cli import main
from simulator.world import World

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "implicit_deps"

#: What Heat 27 answers for each fixture: {resource: what it requires}.
HEAT_27 = {
    "port_server_subnet.yaml": {
        "net": [],
        "port": ["net", "subnet"],
        "server": ["net", "subnet"],
        "subnet": ["net"],
    },
    "server_port_entry.yaml": {
        "net_a": [],
        "net_b": [],
        "on_net_b": ["net_b", "subnet_b"],
        "on_port": ["port", "subnet_a", "subnet_b"],
        "port": ["net_a", "subnet_a"],
        "subnet_a": ["net_a"],
        "subnet_b": ["net_b"],
    },
    "router_floating_ip.yaml": {
        "assoc": ["assoc_fip", "interface", "port"],
        "assoc_fip": ["public_router"],
        "ext_net": [],
        "ext_subnet": ["ext_net"],
        "fip": ["interface", "port", "public_router"],
        "interface": ["router", "subnet"],
        "lone_fip": ["ext_net", "router"],
        "net": [],
        "port": ["net", "subnet"],
        "public_router": [],
        "router": ["ext_net", "ext_subnet"],
        "routes": ["interface", "router"],
        "subnet": ["net"],
    },
}


@pytest.fixture
def world():
    w = World()
    yield w
    w.close()


def graph_of(world, template, name="s", plugin_dirs=()):
    stack = world.new_stack(name, world.source(str(template), plugin_dirs=plugin_dirs))
    graph = stack.dependency_graph()
    return {n: sorted(graph.requires(n)) for n in graph}


@pytest.mark.parametrize("fixture", sorted(HEAT_27))
def test_the_graph_is_heats(world, fixture):
    assert graph_of(world, FIXTURES / fixture) == HEAT_27[fixture]


def test_ports_and_servers_are_deleted_before_the_subnet_of_their_network(world):
    stack = world.create_stack("s", str(FIXTURES / "port_server_subnet.yaml"))
    assert (stack.action, stack.status) == ("CREATE", "COMPLETE")
    world.delete_stack("s")
    events = [(e.resource_name, e.action, e.status, e.reason) for e in world.store.events(stack.id)]
    deletes = [(n, s) for n, a, s, _ in events if a == "DELETE" and n != "s"]
    finished = [n for n, s in deletes if s == "COMPLETE"]
    assert finished.index("subnet") > max(finished.index("port"), finished.index("server"))
    assert finished[-1] == "net"
    # no subnet delete refused because a port still held an address from it
    assert not [r for n, a, _, r in events if a == "DELETE" and "Retrying" in (r or "")]
    created = [n for n, a, s, _ in events if a == "CREATE" and s == "COMPLETE" and n != "s"]
    assert created.index("subnet") < min(created.index("port"), created.index("server"))


def test_a_cycle_closed_by_an_implicit_requirement_is_refused_as_heat_does():
    template = FIXTURES / "implicit_cycle.yaml"
    for command in (["template", "validate", "-t", str(template)], ["simulate", str(template)]):
        result = CliRunner().invoke(main, ["--state", ":memory:", *command])
        assert result.exit_code == 1, result.output
        assert result.output == (
            f"plugsim: error: {template}: resources.port: Circular dependency found: "
            "port -> subnet -> port\n"
        )


FOLLOWER = '''
from sdk import properties
from sdk.resource import Resource


class Follower(Resource):
    """Follows every resource named in after although no property references them."""

    properties_schema = {
        "after": properties.Schema(properties.Schema.LIST, "Names to follow.", default=[])
    }

    @classmethod
    def implicit_requirements(cls, name, stack):
        props = stack.properties(name) or {}
        return [*props.get("after", []), name, "not_in_the_stack"]


def resource_mapping():
    return {"Test::Follower": Follower}
'''


def test_a_plugin_type_adds_its_own_implicit_requirements(world, tmp_path):
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "implicit_follower.py").write_text(FOLLOWER)
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  first: {type: string, default: a}\n"
        "resources:\n"
        "  a: {type: OS::Heat::None}\n"
        "  b: {type: OS::Heat::None}\n"
        "  f: {type: Test::Follower, properties: {after: [{get_param: first}, b]}}\n"
    )
    # itself and names the stack does not have are left out
    graph = graph_of(world, template, plugin_dirs=[str(tmp_path / "plugins")])
    assert graph == {"a": [], "b": [], "f": ["a", "b"]}


def test_an_unresolvable_property_adds_nothing(world, tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  net: {type: OS::Neutron::Net}\n"
        "  subnet:\n    type: OS::Neutron::Subnet\n"
        "    properties: {network: {get_resource: net}, cidr: 10.0.0.0/24}\n"
        "  port:\n    type: OS::Neutron::Port\n"
        "    properties:\n"
        "      network: {get_attr: [net, name]}\n"
    )
    # get_attr has no value before the stack exists: the port's network compares as None
    assert graph_of(world, template)["port"] == ["net"]


def test_the_hook_is_a_classmethod_of_every_resource():
    assert list(Resource.implicit_requirements("x", object())) == []
    with pytest.raises(exception.StackValidationFailed):
        World().validate_template(
            {
                "heat_template_version": "2018-08-31",
                "resources": {
                    "net": {"type": "OS::Neutron::Net"},
                    "port": {"type": "OS::Neutron::Port", "properties": {"network": "net"}},
                    "subnet": {
                        "type": "OS::Neutron::Subnet",
                        "depends_on": "port",
                        "properties": {"network": "net", "cidr": "10.0.0.0/24"},
                    },
                },
            }
        )
