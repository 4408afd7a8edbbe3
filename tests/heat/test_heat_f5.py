"""Heat plug-ins driving f5-sdk themselves run on the world's fake BIG-IP.

The fixtures (``f5_style/``) use the Heat APIs and the layout of F5's
plug-ins: the partition imports ``common.mixins`` from its own directory and
reaches the device's ``ManagementRoot`` through
``self.stack.resource_by_refid``; the world serves the iControl REST API
while its actions run, so f5-sdk reaches the fake ``bigip`` service.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from fake_clouds.bigip import DEFAULT_DEVICE, add_bigip_service
from simulator.heat_compat import use_heat_plugins
from simulator.store import Store
from simulator.world import World

pytest.importorskip("f5.bigip", reason="f5-sdk is not installed (pip install 'plugsim[bigip]')")

STYLE = Path(__file__).resolve().parent / "f5_style"


def _world(seed: int = 3) -> World:
    world = World(Store(":memory:"), seed=seed)
    report = use_heat_plugins(world, STYLE / "bigip_device.py", STYLE / "bigip_partition.py")
    assert report.errors == []
    assert sorted(report.mapping) == ["Test::BigIP::Device", "Test::BigIP::Partition"]
    return world


def _template(name: str = "tenant", password: str = DEFAULT_DEVICE["password"]) -> dict[str, Any]:
    device = {
        "type": "Test::BigIP::Device",
        "properties": {"ip": DEFAULT_DEVICE["address"], "username": "admin", "password": password},
    }
    partition = {
        "type": "Test::BigIP::Partition",
        "properties": {"name": name, "bigip_server": {"get_resource": "device"}},
    }
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"device": device, "partition": partition},
    }


def _folders(world: World) -> list[str]:
    return sorted(
        i.name for i in world.cloud.inventory() if (i.service, i.kind) == ("bigip", "folder")
    )


def _folder_ops(world: World) -> list[str]:
    return [t.operation for t in world.cloud.trace() if t.operation.startswith("folders.")]


def test_device_and_partition_create_then_delete_the_folder() -> None:
    world = _world()
    stack = world.create_stack("s", _template())
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert stack.resources["device"].resource_id  # the device's physical name
    assert _folders(world) == ["/", "/Common", "/tenant"]
    assert [i.name for i in world.cloud.leaks()] == ["/tenant"]  # alive while the stack lives
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert _folders(world) == ["/", "/Common"]
    assert world.cloud.leaks() == []
    # create; delete asks whether it exists, loads it and deletes it
    assert _folder_ops(world) == ["folders.create", "folders.get", "folders.get", "folders.delete"]
    world.close()


def test_the_common_partition_is_never_created_or_deleted() -> None:
    world = _world()
    stack = world.create_stack("s", _template(name="Common"))
    assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert world.delete_stack("s").state == "DELETE_COMPLETE"
    assert _folders(world) == ["/", "/Common"]
    assert "folders.create" not in _folder_ops(world)
    assert "folders.delete" not in _folder_ops(world)
    world.close()


def test_a_fault_on_the_bigip_api_fails_the_resource_clearly() -> None:
    world = _world()
    add_bigip_service(world.cloud)
    world.cloud.set_faults(
        [
            {
                "service": "bigip",
                "operation": "folders.create",
                "effect": {"type": "error", "status": 500, "message": "mcpd is restarting"},
            }
        ]
    )
    stack = world.create_stack("s", _template())
    assert stack.state == "CREATE_FAILED"
    assert stack.resources["device"].state == "CREATE_COMPLETE"
    reason = stack.resources["partition"].status_reason
    assert "500 Unexpected Error" in reason and "mcpd is restarting" in reason
    assert "/mgmt/tm/sys/folder/" in reason
    assert _folders(world) == ["/", "/Common"]
    assert world.delete_stack("s").state == "DELETE_COMPLETE"  # nothing to delete: not found
    assert world.cloud.leaks() == []
    world.close()


def test_a_wrong_password_fails_the_device_with_bigips_401() -> None:
    world = _world()
    stack = world.create_stack("s", _template(password="wrong"))
    assert stack.state == "CREATE_FAILED"
    reason = stack.resources["device"].status_reason
    assert "401 Unexpected Error: Unauthorized" in reason and "Authentication failed." in reason
    world.close()


def test_a_reopened_world_deletes_the_folder_it_created(tmp_path: Path) -> None:
    path = str(tmp_path / "world.db")
    world = World.open(path)
    use_heat_plugins(world, STYLE / "bigip_device.py", STYLE / "bigip_partition.py")
    assert world.create_stack("s", _template()).state == "CREATE_COMPLETE"
    world.close()
    again = World.open(path)
    use_heat_plugins(again, STYLE / "bigip_device.py", STYLE / "bigip_partition.py")
    assert _folders(again) == ["/", "/Common", "/tenant"]
    assert again.delete_stack("s").state == "DELETE_COMPLETE"
    assert _folders(again) == ["/", "/Common"]
    again.close()


def test_the_same_seed_gives_the_same_events() -> None:
    def run() -> list[tuple[Any, ...]]:
        world = _world(seed=11)
        world.create_stack("s", _template())
        world.delete_stack("s")
        events = [(e.resource_name, e.action, e.status, e.time) for e in world.stack_events("s")]
        world.close()
        return events

    assert run() == run()


def _inventory_tool() -> Any:
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "heat_inventory", root / "tools" / "heat_inventory.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["heat_inventory"] = module
    spec.loader.exec_module(module)
    return module


def test_the_inventory_runs_f5s_type_names_with_a_device_from_a_companion_file(
    tmp_path: Path,
) -> None:
    """tools/heat_inventory.py --plugins measures F5's two plug-ins together, as run here."""
    shutil.copytree(STYLE / "common", tmp_path / "common")
    names = {
        "Test::BigIP::Device": "F5::BigIP::Device",
        "Test::BigIP::Partition": "F5::Sys::Partition",
    }
    for stem in ("bigip_device", "bigip_partition"):
        text = (STYLE / f"{stem}.py").read_text()
        for ours, f5s in names.items():
            text = text.replace(ours, f5s)
        (tmp_path / f"{stem}.py").write_text(text)
    files = [str(tmp_path / "bigip_device.py"), str(tmp_path / "bigip_partition.py")]
    rows = {Path(r["module"]).name: r for r in _inventory_tool().plugin_rows(files)}
    assert rows["bigip_device.py"]["types_run"] == ["F5::BigIP::Device"]
    assert rows["bigip_partition.py"]["types_run"] == ["F5::Sys::Partition"], rows
    alone = _inventory_tool().plugin_rows(files[1:])[0]  # measured alone: no device type
    assert not alone["runs"]
    assert "(F5::BigIP::Device) could not be found" in alone["reason"]
