"""What driving Heat's types beyond create and delete revealed in plugsim (issue #20).

* A resource's ``handle_restore(defn, restore_data)`` gets the resource's
  whole snapshot entry, as Heat passes it (``restore_data['resource_data']``
  holds what ``data_set`` stored), not only its data.
* ``Resource._verify_check_conditions(checks)``: Heat's helper that fails a
  check naming each attribute whose current value is not the expected one.
* Heat's ``OS::Nova::Server`` suspends, resumes, snapshots, restores,
  checks and changes its admin password in place on the fake compute.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _heat_diff import requires_heat

from simulator.heat_compat import use_heat_plugins
from simulator.store import Store
from simulator.world import World

SNAPSHOTTER = '''
from heat.engine import properties, resource


class Snapshotter(resource.Resource):
    """Remembers its label in a snapshot and restores it from there."""

    properties_schema = {
        "label": properties.Schema(properties.Schema.STRING, "A label.", default="a",
                                   update_allowed=True),
    }

    def handle_create(self):
        self.resource_id_set("snap-" + self.properties["label"])

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        pass

    def handle_snapshot(self):
        self.data_set("saved_label", self.properties["label"])

    def handle_restore(self, defn, restore_data):
        label = restore_data["resource_data"]["saved_label"]
        assert restore_data["resource_id"] == self.resource_id
        return defn.freeze(properties={"label": label})


class Checked(resource.Resource):
    """Checks that its status property reads ACTIVE, with Heat's helper."""

    properties_schema = {
        "status": properties.Schema(properties.Schema.STRING, "Status.", default="ACTIVE",
                                    update_allowed=True),
    }

    def handle_create(self):
        self.resource_id_set("checked")

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        pass

    def handle_check(self):
        self._verify_check_conditions([
            {"attr": "status", "expected": "ACTIVE", "current": self.properties["status"]},
            {"attr": "power", "expected": ["ON", "BOOTING"], "current": "ON"},
        ])


def resource_mapping():
    return {"Test::Fix::Snapshotter": Snapshotter, "Test::Fix::Checked": Checked}
'''


def _world(tmp_path: Path) -> World:
    path = tmp_path / "fixes.py"
    path.write_text(SNAPSHOTTER, encoding="utf-8")
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, path).errors
    return world


def _one(type_name: str, **props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"r": {"type": type_name, "properties": props}},
    }


def test_handle_restore_gets_the_whole_snapshot_entry_as_in_heat(tmp_path: Path) -> None:
    world = _world(tmp_path)
    stack = world.create_stack("s", _one("Test::Fix::Snapshotter", label="first"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    snap = world.snapshot_stack("s", "one")
    assert snap.status == "COMPLETE", snap.reason
    stack = world.update_stack("s", _one("Test::Fix::Snapshotter", label="second"))
    assert stack.resources["r"].properties["label"] == "second"
    stack = world.restore_stack("s", snap.id)
    assert stack.state == "RESTORE_COMPLETE", stack.status_reason
    assert stack.resources["r"].properties["label"] == "first"
    world.close()


def test_verify_check_conditions_passes_and_fails_naming_the_attribute(tmp_path: Path) -> None:
    world = _world(tmp_path)
    world.create_stack("s", _one("Test::Fix::Checked"))
    stack = world.check_stack("s")
    assert stack.state == "CHECK_COMPLETE", stack.status_reason
    world.update_stack("s", _one("Test::Fix::Checked", status="ERROR"))
    stack = world.check_stack("s")
    assert stack.state == "CHECK_FAILED"
    assert "'status': expected 'ACTIVE', got 'ERROR'" in stack.status_reason
    assert "power" not in stack.status_reason
    world.close()


def _server(**extra: Any) -> dict[str, Any]:
    return _one(
        "OS::Nova::Server",
        image="cirros",
        flavor="m1.tiny",
        networks=[{"network": "public"}],
        **extra,
    )


@requires_heat
def test_heats_server_suspends_resumes_and_checks() -> None:
    world = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(world, "heat.engine.resources.openstack.nova.server").errors
    stack = world.create_stack("s", _server())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    nova = world.client_plugin("nova").client()
    server_id = stack.resources["r"].resource_id
    stack = world.suspend_stack("s")
    assert stack.state == "SUSPEND_COMPLETE", stack.status_reason
    assert nova.servers.get(server_id).status == "SUSPENDED"
    stack = world.resume_stack("s")
    assert stack.state == "RESUME_COMPLETE", stack.status_reason
    assert nova.servers.get(server_id).status == "ACTIVE"
    stack = world.check_stack("s")
    assert stack.state == "CHECK_COMPLETE", stack.status_reason
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
def test_heats_server_changes_its_admin_password_in_place() -> None:
    world = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(world, "heat.engine.resources.openstack.nova.server").errors
    stack = world.create_stack("s", _server())
    server_id = stack.resources["r"].resource_id
    stack = world.update_stack("s", _server(admin_pass="s3cret-pass"))
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason
    assert stack.resources["r"].resource_id == server_id
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()


@requires_heat
def test_heats_server_snapshots_restores_and_deletes_the_image() -> None:
    world = World(Store(":memory:"), seed=3)
    assert not use_heat_plugins(world, "heat.engine.resources.openstack.nova.server").errors
    mark = world.cloud.snapshot_inventory()
    stack = world.create_stack("s", _server())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    snap = world.snapshot_stack("s", "one")
    assert snap.status == "COMPLETE", snap.reason
    image_id = snap.doc["resources"]["r"]["resource_data"]["snapshot_image_id"]
    stack = world.restore_stack("s", snap.id)
    assert stack.state == "RESTORE_COMPLETE", stack.status_reason
    world.delete_snapshot("s", snap.id)
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.clock.advance(3600)
    assert [i.id for i in world.cloud.leaks(mark)] == []
    assert image_id not in [i.id for i in world.cloud.inventory()]
    world.close()


CALLS_A_NAME = '''
from heat.engine import resource


class Caller(resource.Resource):
    """Calls a name of Heat's Resource from create."""

    def handle_create(self):
        self.resource_id_set("caller")
        return self.NAME()


def resource_mapping():
    return {"Test::Fix::Caller": Caller}
'''


def _fake_heat(tmp_path: Path, monkeypatch: Any) -> None:
    """A virtualenv whose Heat's Resource has ``only_in_heat`` (and its status base)."""
    from simulator.heat_compat import HEAT_PYTHON_ENV

    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n", encoding="utf-8")
    python.chmod(0o755)
    engine = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "heat" / "engine"
    engine.mkdir(parents=True)
    (engine / "resource.py").write_text(
        "from heat.engine import status\n\n\n"
        "class Resource(status.ResourceStatus):\n"
        "    def __init__(self):\n        self.also_in_heat = 1\n\n"
        "    def only_in_heat(self):\n        return 1\n",
        encoding="utf-8",
    )
    (engine / "status.py").write_text("class ResourceStatus:\n    IN_HEAT = 1\n")
    monkeypatch.setenv(HEAT_PYTHON_ENV, str(python))


def _call(tmp_path: Path, name: str) -> str:
    path = tmp_path / f"caller_{name}.py"
    path.write_text(CALLS_A_NAME.replace("NAME", name), encoding="utf-8")
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, path).errors
    stack = world.create_stack("s", _one("Test::Fix::Caller"))
    world.close()
    assert stack.state == "CREATE_FAILED"
    return stack.status_reason


def test_a_name_heats_resource_lacks_too_is_the_plugins_bug(tmp_path: Path, monkeypatch) -> None:
    _fake_heat(tmp_path, monkeypatch)
    reason = _call(tmp_path, "_check_status_complete")
    assert "caller__check_status_complete.py:10" in reason
    assert "Heat's own heat.engine.resource.Resource has no '_check_status_complete'" in reason
    assert "not provided by plugsim" not in reason


def test_a_name_heat_has_and_plugsim_lacks_is_still_plugsims(tmp_path: Path, monkeypatch) -> None:
    _fake_heat(tmp_path, monkeypatch)
    for name in ("only_in_heat", "also_in_heat", "IN_HEAT"):
        reason = _call(tmp_path, name)
        assert f"heat.engine.resource.Resource.{name} is not provided by plugsim" in reason


def test_a_compat_shim_base_never_blames_heat(tmp_path: Path, monkeypatch) -> None:
    from simulator.heat_compat.heat_names import heat_lacks
    from simulator.heat_compat.resource import HeatResource

    _fake_heat(tmp_path, monkeypatch)
    shim = type("StackResource", (HeatResource,), {"__module__": "simulator.heat_compat.x"})
    plugin = type("Nested", (shim,), {"__module__": "plugsim_heat_plugins.nested"})
    own = type("Own", (HeatResource,), {"__module__": "plugsim_heat_plugins.own"})
    assert heat_lacks(own, "_check_status_complete", HeatResource)
    assert not heat_lacks(own, "only_in_heat", HeatResource)
    assert not heat_lacks(
        plugin, "_check_status_complete", HeatResource
    )  # the shim may be what lacks it


RESOLVES = '''
from heat.engine import properties, resource, translation


class Resolver(resource.Resource):
    """Resolves its network's name to an id with a translation rule."""

    properties_schema = {
        "network": properties.Schema(properties.Schema.STRING, "A network.", required=True),
    }

    def translation_rules(self, props):
        return [
            translation.TranslationRule(
                props,
                translation.TranslationRule.RESOLVE,
                ["network"],
                client_plugin=self.client_plugin("neutron"),
                finder="find_resourceid_by_name_or_id",
                entity="network",
            )
        ]

    def handle_create(self):
        self.resource_id_set(self.properties["network"])


def resource_mapping():
    return {"Test::Fix::Resolver": Resolver}
'''


def test_a_cloud_failure_while_translating_fails_the_create(tmp_path: Path) -> None:
    path = tmp_path / "resolver.py"
    path.write_text(RESOLVES, encoding="utf-8")
    rule = {
        "name": "lookup",
        "service": "network",
        "operation": "networks.list",
        "effect": {"type": "error", "status": 503, "message": "lookup down"},
    }
    world = World(Store(":memory:"), seed=5, faults=[rule])
    assert not use_heat_plugins(world, path).errors
    stack = world.create_stack("s", _one("Test::Fix::Resolver", network="public"))
    assert stack.state == "CREATE_FAILED"
    assert "lookup down" in stack.status_reason
    assert stack.resources["r"].state == ("CREATE", "FAILED")
    world.close()


KEEPS_FAILED = '''
from heat.engine import properties, resource


class Stubborn(resource.Resource):
    """Is not replaced after a failure (as Neutron's resources whose entity lives on)."""

    properties_schema = {
        "label": properties.Schema(properties.Schema.STRING, "A label.", default="a",
                                   update_allowed=True),
    }

    def handle_create(self):
        self.resource_id_set("stubborn")

    def needs_replace_failed(self):
        return False

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        if prop_diff.get("label") == "bad":
            raise ValueError("refused before changing anything")


def resource_mapping():
    return {"Test::Fix::Stubborn": Stubborn}
'''


def test_a_failed_resource_an_update_leaves_unchanged_is_marked_complete(tmp_path: Path) -> None:
    """Heat: "Update status to COMPLETE for FAILED resource neither update nor replace"."""
    path = tmp_path / "stubborn.py"
    path.write_text(KEEPS_FAILED, encoding="utf-8")
    world = World(Store(":memory:"), seed=5)
    assert not use_heat_plugins(world, path).errors
    world.create_stack("s", _one("Test::Fix::Stubborn"))
    stack = world.update_stack(
        "s", _one("Test::Fix::Stubborn", label="bad"), disable_rollback=False
    )
    assert stack.state == "ROLLBACK_COMPLETE", stack.status_reason
    res = stack.resources["r"]
    assert res.resource_id == "stubborn"  # not replaced
    assert res.status == "COMPLETE", res.status_reason
    assert res.properties["label"] == "a"
    world.close()


def test_creating_a_volume_type_is_one_cloud_call_after_the_name_check() -> None:
    """As cinder's one POST: a failure after the type exists would hide its id from Heat."""
    world = World(Store(":memory:"), seed=5)
    types = world.client_plugin("cinder").client().volume_types
    before = len(world.cloud.trace())
    made = types.create("gold", description="fast")
    calls = [c.operation for c in world.cloud.trace()[before:]]
    assert calls == ["entities.list", "entities.create"]  # the name check, then the type
    assert (made.name, made.description, made.is_public) == ("gold", "fast", True)
    assert types.get(made.id).name == "gold"
    world.close()


@requires_heat
def test_heats_network_volume_and_server_attributes_resolve_on_the_fake_clouds() -> None:
    """Attributes Heat's types read from the API's answer, which the fakes now give."""
    world = World(Store(":memory:"), seed=3)
    modules = ("neutron.net", "neutron.port", "neutron.floatingip", "cinder.volume")
    report = use_heat_plugins(world, *(f"heat.engine.resources.openstack.{m}" for m in modules))
    assert not report.errors, report.errors
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "net": {"type": "OS::Neutron::Net"},
            "port": {"type": "OS::Neutron::Port", "properties": {"network": "public"}},
            "fip": {
                "type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public"},
            },
            "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
        },
        "outputs": {
            "adjacent": {"value": {"get_attr": ["net", "l2_adjacency"]}},
            "dns": {"value": {"get_attr": ["port", "dns_assignment"]}},
            "router": {"value": {"get_attr": ["fip", "router_id"]}},
            "encrypted": {"value": {"get_attr": ["vol", "encrypted"]}},
            "qos": {"value": {"get_attr": ["port", "qos_policy_id"]}},
            "uplink": {"value": {"get_attr": ["port", "propagate_uplink_status"]}},
        },
    }
    stack = world.create_stack("s", template)
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert stack.output("adjacent") is True
    assert stack.output("dns") == []
    assert stack.output("router") is None
    assert (stack.output("qos"), stack.output("uplink")) == (None, False)
    assert stack.output("encrypted") == "False"  # Heat gives it as a string
    template["resources"]["net"]["properties"] = {"availability_zone_hints": ["nova"]}
    stack = world.update_stack("s", template)
    assert stack.state == "UPDATE_COMPLETE", stack.status_reason  # the hints replace the net
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    world.close()
