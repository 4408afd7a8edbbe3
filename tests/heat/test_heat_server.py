"""Heat's own ``OS::Nova::Server`` on plugsim: nova's and glance's client plug-in surfaces."""

from __future__ import annotations

from typing import Any

from _heat_diff import requires_heat

from simulator.heat_compat.heat_definition import HeatTemplateDiff
from simulator.heat_compat.nova_plugin import ServerManagerAdapter, _api_nics
from simulator.store import Store
from simulator.world import World


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def create(self, name: str, image: Any, flavor: Any, **options: Any) -> Any:
        self.calls.append((name, image, flavor, options))
        return type("Server", (), {"id": "srv-1", "status": "BUILD"})()


def test_novaclient_boot_arguments_become_the_fake_computes() -> None:
    servers = _Recorder()
    made = ServerManagerAdapter(servers, ports=lambda sid: [{"id": "p1", "fixed_ips": []}])
    view = made.create(
        "web",
        "img",
        "flv",
        userdata="echo hi",
        meta={"a": "1"},
        nics=[{"net-id": "n1", "v4-fixed-ip": "10.0.0.5", "port-id": None}],
        files={},
        block_device_mapping=None,
        config_drive=False,
        key_name="default",
    )
    [(name, image, flavor, options)] = servers.calls
    assert (name, image, flavor) == ("web", "img", "flv")
    assert options == {
        "user_data": "echo hi",
        "metadata": {"a": "1"},
        "nics": [{"uuid": "n1", "fixed_ip": "10.0.0.5"}],
        "key_name": "default",
    }
    assert [i.port_id for i in view.interface_list()] == ["p1"]
    assert _api_nics("auto") == "auto"


def test_template_diff_answers_heats_questions() -> None:
    diff = HeatTemplateDiff({"metadata": {"a": 1}})
    assert diff.metadata_changed()
    assert not diff.properties_changed() and not diff.update_policy_changed()


def _template(name: str) -> dict[str, Any]:
    props = {
        "name": name,
        "image": "cirros",
        "flavor": "m1.tiny",
        "networks": [{"network": "public"}],
        "user_data_format": "RAW",
        "user_data": "echo hi",
    }
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"vm": {"type": "OS::Nova::Server", "properties": props}},
        "outputs": {
            "networks": {"value": {"get_attr": ["vm", "networks"]}},
            "name": {"value": {"get_attr": ["vm", "name"]}},
        },
    }


@requires_heat
def test_heats_server_boots_renames_in_place_and_deletes() -> None:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(world, "heat.engine.resources.openstack.nova.server").errors
    stack = world.create_stack("s", _template("web"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    nova = world.client_plugin("nova").client()
    server = nova.servers.get(stack.resources["vm"].resource_id)
    assert server.status == "ACTIVE" and server.name == "web"
    public = world.client_plugin("neutron").client().list_networks(name="public")["networks"][0]
    addresses = stack.output("networks")
    assert addresses["public"] == addresses[public["id"]]  # by name and by id, as Heat gives
    events = len(world.stack_events("s"))
    stack = world.update_stack("s", _template("web2"))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.output("name") == "web2"
    assert nova.servers.get(server.id).id == server.id  # renamed, not replaced
    changed = [(e.resource_name, e.action, e.status) for e in world.stack_events("s")[events:]]
    assert ("vm", "CREATE", "IN_PROGRESS") not in changed
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert [s for s in nova.servers.list() if s.id == server.id] == []
    world.close()


MANAGER_GAP = """
from heat.engine import resource


class Flavorful(resource.Resource):
    default_client_name = "nova"

    def handle_create(self):
        self.client().servers.add_security_group("web", "default")


def resource_mapping():
    return {"Test::Heat::Flavorful": Flavorful}
"""


def test_a_method_a_client_manager_lacks_is_named_with_file_and_line(tmp_path) -> None:
    from simulator.heat_compat import use_heat_plugins

    path = tmp_path / "flavorful.py"
    path.write_text(MANAGER_GAP, encoding="utf-8")
    world = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(world, path).errors
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"f": {"type": "Test::Heat::Flavorful"}},
    }
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_FAILED"
    assert f"{path}:9: the fake cloud's 'nova' client" in stack.status_reason
    assert "has no 'servers.add_security_group'" in stack.status_reason
    assert "object has no attribute" not in stack.status_reason
    world.close()


SERVER_FROM_PARAMETERS = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "image": {"type": "string", "default": "cirros"},
        "flavor": {"type": "string", "default": "m1.tiny"},
    },
    "resources": {
        "server": {
            "type": "OS::Nova::Server",
            "properties": {"image": {"get_param": "image"}, "flavor": {"get_param": "flavor"}},
        }
    },
}


@requires_heat
def test_heats_server_takes_its_image_and_flavor_from_get_param() -> None:
    # issue 35 item 4: Server's and BaseServer's Heat-style __init__ chain kept the engine's
    # resolver from the properties, so a get_param reached the String converter unresolved
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=4)
    try:
        report = use_heat_plugins(world, "heat.engine.resources.openstack.nova.server")
        assert not report.errors, report.errors
        world.validate_template(SERVER_FROM_PARAMETERS)
        stack = world.create_stack("s", SERVER_FROM_PARAMETERS, parameters={"image": "cirros"})
        assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
        server_id = stack.resources["server"].resource_id
        [made] = [e for e in world.cloud.service("compute")._live("server") if e.id == server_id]
        images = {e.id: e.name for e in world.cloud.service("compute")._live("image")}
        assert images[made.attrs["image"]["id"]] == "cirros"
        assert world.delete_stack("s").status == "COMPLETE"
    finally:
        world.close()
