"""Heat's keystone, swift and heat client plug-ins, imitated over the fake identity and object store.

Heat's own wait condition handle and wait condition run on the default
world: the handle's stack user lives in the fake keystone while the handle
does, a signal reaches it through ``signal_resource`` and completes (or
fails) the wait condition. Plug-ins of our own use the same Heat APIs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _heat_diff import requires_heat

from sdk import exception
from simulator.store import Store
from simulator.world import World

HANDLE = "heat.engine.resources.openstack.heat.wait_condition_handle"
WAIT = "heat.engine.resources.openstack.heat.wait_condition"


def _world(*targets: str) -> World:
    from simulator.heat_compat import use_heat_plugins

    world = World(Store(":memory:"), seed=5)
    report = use_heat_plugins(world, *targets)
    assert not report.errors, report.errors
    return world


def _waiting(count: int = 1, timeout: int = 600) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "h": {"type": "OS::Heat::WaitConditionHandle"},
            "w": {
                "type": "OS::Heat::WaitCondition",
                "properties": {"handle": {"get_resource": "h"}, "count": count, "timeout": timeout},
            },
        },
        "outputs": {
            "data": {"value": {"get_attr": ["w", "data"]}},
            "token": {"value": {"get_attr": ["h", "token"]}},
            "endpoint": {"value": {"get_attr": ["h", "endpoint"]}},
            "curl": {"value": {"get_attr": ["h", "curl_cli"]}},
        },
    }


def _signal_when_created(world: World, *signals: Any) -> None:
    def listener(ev: Any) -> None:
        if (ev.resource_name, ev.action, ev.status) == ("h", "CREATE", "COMPLETE"):
            for data in signals:
                world.signal_resource("s", "h", data)

    world.listeners.append(listener)


def _identity(world: World) -> Any:
    return world.client_plugin("keystone").client()


@requires_heat
def test_heats_wait_condition_completes_on_a_signal_to_heats_handle() -> None:
    world = _world(HANDLE, WAIT)
    mark = world.cloud.snapshot_inventory()
    _signal_when_created(world, {"status": "SUCCESS", "data": "ok", "id": "a"}, {"data": "more"})
    stack = world.create_stack("s", _waiting(count=2))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert json.loads(stack.output("data")) == {"a": "ok", "2": "more"}
    handle = stack.resources["h"]
    # the handle's stack user, in the stack's user project, holds the token
    user = _identity(world).users.get(handle.resource_id)
    project = _identity(world).projects.get(user.default_project_id)
    assert project.name == f"{world.project_id}-{stack.id}"[:64]
    assert _identity(world).tokens.validate(stack.output("token"))["user"]["id"] == user.id
    endpoint = stack.output("endpoint")
    assert endpoint.endswith(f"/{project.id}/stacks/s/{stack.id}/resources/h/signal")
    assert stack.output("curl").endswith(endpoint)
    assert f"X-Auth-Token: {stack.output('token')}" in stack.output("curl")
    events = [(e.resource_name, e.action, e.status) for e in world.stack_events("s")]
    assert events[1:] == [
        ("h", "CREATE", "IN_PROGRESS"),
        ("h", "CREATE", "COMPLETE"),
        ("h", "SIGNAL", "COMPLETE"),
        ("h", "SIGNAL", "COMPLETE"),
        ("w", "CREATE", "IN_PROGRESS"),
        ("w", "CREATE", "COMPLETE"),
        ("s", "CREATE", "COMPLETE"),
    ]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(mark) == []  # the stack user and its project went too
    world.close()


@requires_heat
def test_a_failure_signal_fails_heats_wait_condition_with_its_reason() -> None:
    world = _world(HANDLE, WAIT)
    _signal_when_created(world, {"status": "FAILURE", "reason": "disk full"})
    stack = world.create_stack("s", _waiting(), disable_rollback=True)
    assert stack.state == "CREATE_FAILED"
    assert "disk full" in stack.resources["w"].status_reason
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
def test_heats_wait_condition_times_out_on_the_virtual_clock() -> None:
    world = _world(HANDLE, WAIT)
    _signal_when_created(world, {"data": "one"})
    started = world.clock.now()
    stack = world.create_stack("s", _waiting(count=2, timeout=30), disable_rollback=True)
    assert stack.state == "CREATE_FAILED"
    assert "1 of 2 received - Signal 1 received" in stack.resources["w"].status_reason
    assert 30 <= world.clock.now() - started < 120
    world.close()


def test_keystones_finders_take_an_id_or_a_unique_name() -> None:
    from simulator.heat_compat.keystone_plugin import KeystoneClientPlugin

    world = World(Store(":memory:"), seed=5)
    plugin = KeystoneClientPlugin(world.client_plugin("keystone"), "keystone", world.project_id)
    admin = plugin.get_project_id("admin")
    assert plugin.get_project_id(admin) == admin
    assert plugin.get_project_id("admin{default}") == admin
    assert plugin.get_domain_id("Default") == "default"
    assert plugin.get_role_id("member") == _identity(world).roles.list(name="member")[0].id
    with pytest.raises(exception.EntityNotFound, match="nobody"):
        plugin.get_user_id("nobody")
    world.close()


KEYSTONE_GAP = """
from heat.engine import resource


class Trusting(resource.Resource):
    def handle_create(self):
        self.keystone().create_trust_context()


def resource_mapping():
    return {"Test::Heat::Trusting": Trusting}
"""


def test_a_keystone_call_the_layer_lacks_is_named_with_file_and_line(tmp_path) -> None:
    from simulator.heat_compat import use_heat_plugins

    path = tmp_path / "trusting.py"
    path.write_text(KEYSTONE_GAP, encoding="utf-8")
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, path).errors
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"t": {"type": "Test::Heat::Trusting"}},
    }
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_FAILED"
    assert f"{path}:7: heat.engine.clients.os.keystone" in stack.status_reason
    assert "KsClientWrapper.create_trust_context is not provided" in stack.status_reason
    world.close()


SWIFT = "heat.engine.resources.openstack.heat.swiftsignal"


def _swift_waiting() -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "h": {"type": "OS::Heat::SwiftSignalHandle"},
            "w": {
                "type": "OS::Heat::SwiftSignal",
                "properties": {"handle": {"get_resource": "h"}, "timeout": 600},
            },
        },
        "outputs": {
            "data": {"value": {"get_attr": ["w", "data"]}},
            "endpoint": {"value": {"get_attr": ["h", "endpoint"]}},
            "curl": {"value": {"get_attr": ["h", "curl_cli"]}},
        },
    }


@requires_heat
def test_heats_swift_signal_completes_when_the_server_puts_to_its_temp_url() -> None:
    from urllib.parse import urlparse

    world = _world(SWIFT)
    mark = world.cloud.snapshot_inventory()
    swift = world.client_plugin("swift").client()

    def put_signal(ev: Any) -> None:  # what the server's curl -X PUT does
        if (ev.resource_name, ev.action, ev.status) == ("h", "CREATE", "COMPLETE"):
            url = world.get_stack("s").resources["h"].data()["endpoint"]
            _, _, _, container, name = urlparse(url).path.split("/", 4)
            assert swift.get_object(container, name)[1] == b"in progress"
            swift.put_object(container, name, json.dumps({"data": "up", "id": "x"}))

    world.listeners.append(put_signal)
    stack = world.create_stack("s", _swift_waiting())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert json.loads(stack.output("data")) == {"x": "up"}
    endpoint = urlparse(stack.output("endpoint"))
    assert endpoint.path.startswith(f"/v1/AUTH_{world.project_id}/{stack.id}/s-h-")
    assert "temp_url_sig=" in endpoint.query and "temp_url_expires=" in endpoint.query
    assert stack.output("curl") == f"curl -i -X PUT '{stack.output('endpoint')}'"
    assert stack.id in [c["name"] for c in swift.get_account()[1]]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(mark) == []  # the signal object and the container went
    world.close()


@requires_heat
def test_a_swift_signal_without_a_put_times_out() -> None:
    world = _world(SWIFT)
    template = _swift_waiting()
    template["resources"]["w"]["properties"]["timeout"] = 20
    stack = world.create_stack("s", template, disable_rollback=True)
    assert stack.state == "CREATE_FAILED"
    assert "0 of 1 received" in stack.resources["w"].status_reason
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


PROJECT_QUOTA = """
from heat.engine import constraints
from heat.engine import properties
from heat.engine import resource


class ProjectQuota(resource.Resource):
    properties_schema = {
        "project": properties.Schema(
            properties.Schema.STRING,
            required=True,
            constraints=[constraints.CustomConstraint("keystone.project")],
        ),
    }

    def handle_create(self):
        project = self.client_plugin("keystone").get_project_id(self.properties["project"])
        self.resource_id_set(project)


def resource_mapping():
    return {"Test::Heat::ProjectQuota": ProjectQuota}
"""


@pytest.mark.parametrize("project", ["admin", "admin{Default}"])
def test_the_keystone_project_constraint_finds_the_fake_keystones_project(
    tmp_path, project: str
) -> None:
    from simulator.heat_compat import use_heat_plugins

    path = tmp_path / "project_quota.py"
    path.write_text(PROJECT_QUOTA, encoding="utf-8")
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, path).errors
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "q": {"type": "Test::Heat::ProjectQuota", "properties": {"project": project}}
        },
    }
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    admin = _identity(world).projects.list(name="admin")[0].id
    assert stack.resources["q"].resource_id == admin
    template["resources"]["q"]["properties"]["project"] = "nobody"
    with pytest.raises(exception.StackValidationFailed) as refused:
        world.create_stack("t", template)
    assert "resources.q.properties.project" in str(refused.value)
    assert "nobody" in str(refused.value)
    world.close()


@requires_heat
def test_a_handle_without_a_signal_transport_signals_itself() -> None:
    world = _world(HANDLE, WAIT)
    mark = world.cloud.snapshot_inventory()
    template = _waiting()
    template["resources"]["h"]["properties"] = {"signal_transport": "NO_SIGNAL"}
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert json.loads(stack.output("data")) == {"1": None}
    assert stack.output("token") is None  # a token only for TOKEN_SIGNAL, as in Heat
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(mark) == []
    world.close()


KEYSTONE_PROJECT = """
from heat.engine import constraints
from heat.engine import properties
from heat.engine import resource


class Project(resource.Resource):
    properties_schema = {
        "name": properties.Schema(properties.Schema.STRING, update_allowed=True),
        "domain": properties.Schema(
            properties.Schema.STRING,
            default="default",
            update_allowed=True,
            constraints=[constraints.CustomConstraint("keystone.domain")],
        ),
        "enabled": properties.Schema(properties.Schema.BOOLEAN, default=True, update_allowed=True),
    }

    def handle_create(self):
        domain = self.client_plugin("keystone").get_domain_id(self.properties["domain"])
        project = self.keystone().client.projects.create(
            name=self.properties["name"] or self.physical_resource_name(),
            domain=domain,
            enabled=self.properties["enabled"],
        )
        self.resource_id_set(project.id)

    def handle_update(self, json_snippet=None, tmpl_diff=None, prop_diff=None):
        domain = prop_diff.get("domain") or self._stored_properties_data.get("domain")
        values = {"project": self.resource_id, "domain": domain}
        for key in ("name", "enabled"):
            if prop_diff.get(key) is not None:
                values[key] = prop_diff[key]
        self.keystone().client.projects.update(**values)

    def handle_delete(self):
        if self.resource_id is not None:
            try:
                self.keystone().client.projects.delete(self.resource_id)
            except Exception as ex:
                self.client_plugin("keystone").ignore_not_found(ex)


def resource_mapping():
    return {"Test::Keystone::Project": Project}
"""


def test_a_contrib_style_keystone_project_creates_updates_and_deletes(tmp_path) -> None:
    from simulator.heat_compat import use_heat_plugins

    path = tmp_path / "project.py"
    path.write_text(KEYSTONE_PROJECT, encoding="utf-8")
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, path).errors
    mark = world.cloud.snapshot_inventory()

    def template(**props: Any) -> dict[str, Any]:
        return {
            "heat_template_version": "2018-08-31",
            "resources": {"p": {"type": "Test::Keystone::Project", "properties": props}},
        }

    stack = world.create_stack("s", template(name="team", domain="Default"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    ident = stack.resources["p"].resource_id
    project = _identity(world).projects.get(ident)
    assert (project.name, project.domain_id, project.enabled) == ("team", "default", True)
    stack = world.update_stack("s", template(name="squad", domain="Default", enabled=False))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["p"].resource_id == ident  # in place
    project = _identity(world).projects.get(ident)
    assert (project.name, project.enabled) == ("squad", False)
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert world.cloud.leaks(mark) == []
    with pytest.raises(exception.StackValidationFailed, match="properties.domain"):
        world.create_stack("t", template(domain="Elsewhere"))
    world.close()


@requires_heat
def test_the_stack_user_survives_a_reopened_world_and_goes_with_the_stack(tmp_path) -> None:
    from simulator.heat_compat import use_heat_plugins

    path = str(tmp_path / "world.db")
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"h": {"type": "OS::Heat::WaitConditionHandle"}},
    }
    world = World(Store(path), seed=5)
    use_heat_plugins(world, HANDLE)
    user = world.create_stack("s", template).resources["h"].resource_id
    world.close()
    world = World(Store(path))  # identity joined the cloud after its first commit
    use_heat_plugins(world, HANDLE)
    assert "identity" in world.cloud.service_names()
    handle = world.get_stack("s").resources["h"]
    assert _identity(world).users.get(user).name == handle.physical_resource_name()
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert [u.name for u in _identity(world).users.list()] == ["admin"]
    assert sorted(p.name for p in _identity(world).projects.list()) == ["admin", "service"]
    world.close()


def _failing(operation: str, nth: int = 1) -> list[dict[str, Any]]:
    return [
        {
            "name": f"{operation} fails",
            "service": "identity",
            "operation": operation,
            "nth": nth,
            "effect": {"type": "error", "status": 500, "message": "injected"},
        }
    ]


@requires_heat
@pytest.mark.parametrize("operation", ["role_assignments.grant", "users.create"])
def test_a_failed_stack_user_rolls_back_leaving_nothing_in_keystone(operation: str) -> None:
    world = _world(HANDLE)
    mark = world.cloud.snapshot_inventory()
    world.cloud.set_faults(_failing(operation))  # identity joins the world to take the rule
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"h": {"type": "OS::Heat::WaitConditionHandle"}},
    }
    stack = world.create_stack("s", template, disable_rollback=False)
    assert stack.state == "ROLLBACK_COMPLETE", stack.status_reason
    failed = [e.reason for e in world.stack_events("s") if e.status == "FAILED"]
    assert any("injected" in reason for reason in failed), failed
    assert world.cloud.leaks(mark) == []  # neither the user nor the stack's user project
    world.close()


@requires_heat
def test_a_retained_handle_keeps_its_user_and_the_stack_takes_its_project() -> None:
    world = _world(HANDLE)
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"h": {"type": "OS::Heat::WaitConditionHandle", "deletion_policy": "Retain"}},
    }
    stack = world.create_stack("s", template)
    user = stack.resources["h"].resource_id
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert _identity(world).users.get(user).id == user  # retained, as in Heat
    names = sorted(p.name for p in _identity(world).projects.list())
    assert names == ["admin", "service"]  # Heat deletes the stack's user project with it
    world.close()
