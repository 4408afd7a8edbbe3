"""OS::Heat::Stack: a stack made through a region's orchestration endpoint (Heat's remote stack).

The fixture is shaped like heat-tempest-plugin's ``remote_nested_*`` scenario: the root
names its child template with ``get_file`` and that child holds another remote stack.
"""

from pathlib import Path

import pytest
import yaml

from sdk import exception
from simulator.world import World
from tests.library.conftest import outputs

HERE = Path(__file__).parent / "templates" / "remote_stack"


def _world(tmp_path, regions=None):
    data = {"plugsim_world": 1, "extends": "devstack"}
    if regions:
        data["regions"] = [{"name": r} for r in regions]
    path = tmp_path / "world.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return World(world_file=str(path))


def test_remote_stack_in_the_own_region_creates_its_nested_remote_stack_and_deletes(tmp_path):
    world = _world(tmp_path)
    try:
        baseline = world.cloud.snapshot_inventory()
        stack = world.create_stack("root", str(HERE / "root.yaml"))
        assert stack.status == "COMPLETE", stack.status_reason
        out = outputs(stack)
        assert len(out["word"]) == 12
        assert out["all"] == {"word": out["word"]}
        assert out["name"]
        member = stack.resources["remote"]
        assert out["id"] == member.resource_id
        assert world.delete_stack("root").status == "COMPLETE"
        assert world.cloud.leaks(baseline) == []
    finally:
        world.close()


def test_a_region_keystone_does_not_list_is_refused_with_heats_words(tmp_path):
    world = _world(tmp_path)
    try:
        with pytest.raises(exception.StackValidationFailed) as info:
            world.create_stack("root", str(HERE / "root.yaml"), parameters={"region": "RegionTwo"})
        text = str(info.value)
        assert 'Cannot establish connection to Heat endpoint at region "RegionTwo"' in text
        assert "remote.properties.context.region_name" in text
    finally:
        world.close()


def test_a_second_region_declared_in_the_world_file_is_usable(tmp_path):
    world = _world(tmp_path, regions=["RegionTwo"])
    try:
        names = sorted(r.id for r in world.client_plugin("identity").client().regions.list())
        assert names == ["RegionOne", "RegionTwo"]
        stack = world.create_stack(
            "root", str(HERE / "root.yaml"), parameters={"region": "RegionTwo"}
        )
        assert stack.status == "COMPLETE", stack.status_reason
        assert world.delete_stack("root").status == "COMPLETE"
    finally:
        world.close()


def test_a_barbican_credential_is_refused_naming_the_missing_service(tmp_path):
    world = _world(tmp_path)
    doc = {
        "heat_template_version": "2015-10-15",
        "resources": {
            "remote": {
                "type": "OS::Heat::Stack",
                "properties": {
                    "context": {"credential_secret_id": "abc"},
                    "template": "heat_template_version: 2015-10-15\n",
                },
            }
        },
    }
    try:
        with pytest.raises(exception.StackValidationFailed, match="needs Barbican"):
            world.create_stack("s", doc)
    finally:
        world.close()


def test_a_broken_remote_template_fails_validation_naming_the_region(tmp_path):
    world = _world(tmp_path)
    bad = "heat_template_version: 2015-10-15\nresources:\n  r:\n    type: OS::No::Such\n"
    doc = {
        "heat_template_version": "2015-10-15",
        "resources": {"remote": {"type": "OS::Heat::Stack", "properties": {"template": bad}}},
    }
    try:
        with pytest.raises(exception.StackValidationFailed) as info:
            world.create_stack("s", doc)
        assert 'Failed validating stack template using Heat endpoint at region "RegionOne"' in str(
            info.value
        )
    finally:
        world.close()


def test_declared_regions_survive_export_and_rebuild(tmp_path):
    from fake_clouds import worldfile

    world = _world(tmp_path, regions=["RegionTwo"])
    try:
        data = worldfile.export(world.cloud)
    finally:
        world.close()
    assert data["regions"] == [{"name": "RegionTwo", "description": ""}]
    assert worldfile.export(worldfile.build(data))["regions"] == data["regions"]
