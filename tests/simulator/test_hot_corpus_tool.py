"""tools/hot_corpus.py: which templates it selects, the parameter values it generates and the
world it runs each template in (the measurement in docs/heat-fidelity.rst depends on them)."""

import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("hot_corpus", ROOT / "tools" / "hot_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VALUES = {
    "image": "cirros-0.6.3-x86_64-disk",
    "flavor": "m1.small",
    "key": "heat_key",
    "net": "private",
    "public": "public",
    "subnet": "private-subnet",
}


def test_a_member_template_with_a_foreign_type_excludes_its_parent(tool, tmp_path):
    (tmp_path / "member.yaml").write_text(
        "heat_template_version: 2016-10-14\nresources:\n  q: {type: OS::Zaqar::Queue}\n"
    )
    (tmp_path / "inner.yaml").write_text(
        "heat_template_version: 2016-10-14\nresources:\n  r: {type: OS::Heat::RandomString}\n"
    )
    parent = {
        "heat_template_version": "2016-10-14",
        "resources": {
            "g": {
                "type": "OS::Heat::AutoScalingGroup",
                "properties": {"resource": {"type": "member.yaml"}},
            }
        },
    }
    fine = {"heat_template_version": "2016-10-14", "resources": {"n": {"type": "inner.yaml"}}}
    bundled = {"OS::Heat::AutoScalingGroup", "OS::Heat::RandomString"}
    assert not tool._uses_bundled_types(tmp_path / "p.yaml", parent, bundled)
    assert tool._uses_bundled_types(tmp_path / "f.yaml", fine, bundled)


def test_a_nested_template_that_includes_itself_does_not_loop(tool, tmp_path):
    (tmp_path / "loop.yaml").write_text(
        "heat_template_version: 2016-10-14\nresources:\n  me: {type: loop.yaml}\n"
    )
    doc = {"heat_template_version": "2016-10-14", "resources": {"x": {"type": "loop.yaml"}}}
    assert tool._uses_bundled_types(tmp_path / "p.yaml", doc, set())


# Password rules as public templates write them: one of several character-class combinations.
PATTERNS = [
    r"(?=^.{6,255}$)((?=.*\d)(?=.*[A-Z])(?=.*[a-z])|(?=.*[^A-Za-z0-9])(?=.*[A-Z])(?=.*[a-z]))^.*",
    r"[a-zA-Z0-9]+",
    r"[a-z][a-z0-9_-]*",
    r"(?=.*[^A-Za-z0-9])(?=.*[A-Z]).{8,}",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_generated_string_matches_the_allowed_pattern(tool, pattern):
    schema = {"type": "string", "constraints": [{"allowed_pattern": pattern}]}
    value = tool._value("admin_password", schema, VALUES)
    assert re.fullmatch(pattern, value), value


def test_a_generated_string_honours_length_and_pattern_together(tool):
    schema = {
        "type": "string",
        "constraints": [{"length": {"min": 10}}, {"allowed_pattern": "[a-z]+"}],
    }
    value = tool._value("db_name", schema, VALUES)
    assert len(value) >= 10 and re.fullmatch("[a-z]+", value)


def test_images_a_template_insists_on_are_added_to_its_world(tool):
    doc = {
        "parameters": {
            "image_id": {
                "type": "string",
                "default": "old-cfntools",
                "constraints": [
                    {"allowed_values": ["old-cfntools", "older-cfntools"]},
                    {"custom_constraint": "glance.image"},
                ],
            },
            "flavor": {"type": "string", "constraints": [{"allowed_values": ["m1.small"]}]},
        }
    }
    world = tool.world_for(doc, tool.WORLD)
    assert [i["name"] for i in world["images"]] == ["old-cfntools"]
    assert world["keypairs"] == tool.WORLD["keypairs"]
    assert "images" not in tool.WORLD
    # a template with no such parameter runs in the shared world unchanged
    assert tool.world_for({"parameters": {"n": {"type": "number"}}}, tool.WORLD) == tool.WORLD


def test_a_template_naming_an_existing_server_gets_one_in_its_world(tool):
    doc = {
        "parameters": {
            "instance_id": {"type": "string", "description": "Server to attach to"},
            "ext": {"type": "string", "default": "0000-ext"},
        },
        "resources": {
            "srv": {"type": "OS::Nova::Server", "external_id": {"get_param": "ext"}},
            "lit": {"type": "OS::Nova::Server", "external_id": "0000-lit"},
        },
    }
    values = {**VALUES, "server": tool.SERVER_ID}
    assert tool._parameters(doc, values) == {"instance_id": tool.SERVER_ID}
    world = tool.world_for(doc, tool.WORLD)
    assert [(s["name"], s["id"]) for s in world["servers"]] == [
        ("corpus-server", tool.SERVER_ID),
        ("external-srv", "0000-ext"),
        ("external-lit", "0000-lit"),
    ]
    from fake_clouds import worldfile

    cloud = worldfile.build(world)
    assert len(cloud.service("compute").list_servers()) == 3
