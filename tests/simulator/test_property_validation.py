"""Template validation checks every resource's properties before any resource is touched."""

from __future__ import annotations

import pytest
import yaml
from click.testing import CliRunner

from sdk import exception
from simulator.cli import main
from simulator.world import World


def _tmpl(resources, version="2018-08-31"):
    return {"heat_template_version": version, "resources": resources}


def _server(**props):
    base = {
        "image": "cirros",
        "flavor": "m1.tiny",
        "key_name": "default",
        "networks": [{"network": "public"}],
    }
    return {"type": "OS::Nova::Server", "properties": {**base, **props}}


@pytest.fixture
def world():
    with World(seed=3) as w:
        yield w


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({"delay": "soon"}, "resources.t.properties.delay: 'soon' is not a valid Number"),
        ({"delay": -1}, "resources.t.properties.delay: -1 is less than the minimum 0"),
        ({"colour": "red"}, "resources.t.properties: Unknown Property colour"),
        ({"size": [1]}, "resources.t.properties.size"),
    ],
)
def test_a_bad_property_is_refused_before_anything_is_stored(world, props, expected):
    with pytest.raises(exception.StackValidationFailed) as info:
        world.create_stack(
            "s", _tmpl({"t": {"type": "Plugsim::Test::Trivial", "properties": props}})
        )
    assert expected in str(info.value)
    assert world.store.get_stack("s") is None
    assert world.store.events() == []


def test_the_first_bad_resource_in_template_order_is_named(world):
    resources = {
        "ok": {"type": "Plugsim::Test::Trivial", "properties": {"value": "x"}},
        "bad1": {"type": "Plugsim::Test::Trivial", "properties": {"delay": "x"}},
        "bad2": {"type": "Plugsim::Test::Trivial", "properties": {"delay": "y"}},
    }
    with pytest.raises(exception.StackValidationFailed, match="resources.bad1.properties.delay"):
        world.create_stack("s", _tmpl(resources))


def test_values_from_resources_not_created_yet_are_only_checked_for_presence(world):
    resources = {
        "a": {"type": "Plugsim::Test::Trivial", "properties": {"value": "x"}},
        # value and delay come from a resource that does not exist yet: skipped, not refused
        "b": {
            "type": "Plugsim::Test::Trivial",
            "properties": {
                "value": {"get_attr": ["a", "value"]},
                "delay": {"get_attr": ["a", "value"]},
            },
        },
    }
    assert world.validate_template(_tmpl(resources))["Resources"] == ["a", "b"]


def test_a_missing_image_is_a_validation_error_and_no_cloud_resource_is_made(world):
    before = world.cloud.inventory()
    resources = {"net": {"type": "OS::Neutron::Net"}, "srv": _server(image="no-such-image")}
    with pytest.raises(exception.StackValidationFailed) as info:
        world.create_stack("s", _tmpl(resources))
    assert str(info.value) == (
        "resources.srv.properties.image: 'no-such-image' does not satisfy the custom "
        "constraint 'glance.image': The Image (no-such-image) could not be found."
    )
    assert world.cloud.inventory() == before
    assert world.store.get_stack("s") is None


def test_an_update_to_a_bad_template_is_refused_and_the_stack_is_untouched(world):
    world.create_stack("s", _tmpl({"srv": _server()}))
    events = len(world.store.events())
    with pytest.raises(exception.StackValidationFailed, match="resources.srv.properties.flavor"):
        world.update_stack("s", _tmpl({"srv": _server(flavor="m1.gigantic")}))
    stack = world.get_stack("s")
    assert stack.state == "CREATE_COMPLETE"
    assert len(world.store.events()) == events


def test_a_resource_with_depends_on_is_not_looked_up_in_the_cloud_before_creation(world):
    resources = {
        "net": {"type": "OS::Neutron::Net", "properties": {"name": "private"}},
        "sub": {
            "type": "OS::Neutron::Subnet",
            "properties": {"network": "private", "cidr": "10.1.0.0/24"},
            "depends_on": "net",
        },
    }
    assert world.create_stack("s", _tmpl(resources)).state == "CREATE_COMPLETE"


def test_describe_with_the_worlds_clients_checks_custom_constraints(world):
    source = world.source(_tmpl({"srv": _server(key_name="nokey")}))
    assert source.describe(world.registry)["Resources"] == ["srv"]  # no clients: not checked
    with pytest.raises(exception.StackValidationFailed, match="The Key \\(nokey\\) could not"):
        source.describe(world.registry, clients=world.client_plugin)


def test_a_plugin_validate_that_raises_names_the_resource(world, tmp_path):
    (tmp_path / "picky.py").write_text(
        "from sdk.resource import Resource\n"
        "class Picky(Resource):\n"
        "    def validate(self):\n"
        "        super().validate()\n"
        "        raise RuntimeError('never happy')\n"
        "def resource_mapping():\n"
        "    return {'Test::Picky': Picky}\n"
    )
    with pytest.raises(exception.StackValidationFailed) as info:
        world.create_stack("s", _tmpl({"p": {"type": "Test::Picky"}}), plugin_dirs=[tmp_path])
    assert str(info.value) == "resources.p: RuntimeError: never happy"


def test_a_plugin_that_changes_state_while_validated_is_refused(world, tmp_path):
    (tmp_path / "sneaky.py").write_text(
        "from sdk.resource import Resource\n"
        "class Sneaky(Resource):\n"
        "    def validate(self):\n"
        "        self.data_set('k', 'v')\n"
        "def resource_mapping():\n"
        "    return {'Test::Sneaky': Sneaky}\n"
    )
    with pytest.raises(exception.StackValidationFailed) as info:
        world.create_stack("s", _tmpl({"p": {"type": "Test::Sneaky"}}), plugin_dirs=[tmp_path])
    assert "resources.p: PlugsimError: Resource p tried to store data while being validated" in str(
        info.value
    )


def test_template_validate_cli_names_the_property_and_exits_1(tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(
        yaml.safe_dump(
            _tmpl({"t": {"type": "Plugsim::Test::Trivial", "properties": {"delay": "x"}}})
        )
    )
    res = CliRunner().invoke(
        main, ["--state", str(tmp_path / "w.db"), "template", "validate", "-t", str(t)]
    )
    assert res.exit_code == 1
    assert "t.yaml: resources.t.properties.delay: 'x' is not a valid Number" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_stack_create_cli_refuses_before_touching_any_resource(tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(yaml.safe_dump(_tmpl({"srv": _server(image="ghost")})))
    state = str(tmp_path / "w.db")
    res = CliRunner().invoke(main, ["--state", state, "stack", "create", "-t", str(t), "s"])
    assert res.exit_code == 1
    assert "resources.srv.properties.image" in res.output
    assert "The Image (ghost) could not be found." in res.output
    listed = CliRunner().invoke(main, ["--state", state, "stack", "list", "-f", "json"])
    assert listed.exit_code == 0 and listed.output.strip() == "[]"
