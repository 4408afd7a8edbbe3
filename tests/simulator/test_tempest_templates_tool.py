"""tools/tempest_templates.py: what it extracts from a heat-tempest-plugin-shaped tree.

The tree is written here (no download): a functional test module with a template
string, a dict template, a files map naming a class attribute, a placeholder the
test replaces, and parameters given from tempest's configuration; a scenario
template with a sibling file.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import tempest_templates  # noqa: E402

MODULE = textwrap.dedent(
    '''
    class T:
        template = """
    heat_template_version: 2015-10-15
    parameters:
      image: {type: string}
    resources:
      n:
        type: nested.yaml
      s:
        type: OS::Heat::None
        properties:
          nets: $NETWORKS
    """
        nested = """
    heat_template_version: 2015-10-15
    resources:
      r: {type: OS::Heat::RandomString}
    """

        def test_it(self):
            tmpl = self.template.replace("$NETWORKS", "[a, b]")
            self.stack_create(template=tmpl, files={"nested.yaml": self.nested},
                              parameters={"image": self.conf.minimal_image_ref})
            other = {"heat_template_version": "2016-10-14", "resources": {}}
    '''
)


def _tree(root: Path) -> Path:
    functional = root / "heat_tempest_plugin" / "tests" / "functional"
    functional.mkdir(parents=True)
    (functional / "test_shape.py").write_text(MODULE)
    templates = root / "heat_tempest_plugin" / "tests" / "scenario" / "templates"
    templates.mkdir(parents=True)
    (templates / "main.yaml").write_text(
        "heat_template_version: 2015-10-15\n"
        "resources:\n  k:\n    type: OS::Heat::Value\n"
        "    properties: {value: {get_file: key.pub}}\n"
    )
    (templates / "key.pub").write_text("ssh-ed25519 AAAA test\n")
    return root


def test_extraction_finds_strings_dicts_files_placeholders_and_parameters(tmp_path):
    items = {i["name"]: i for i in tempest_templates.extract(_tree(tmp_path))}
    assert sorted(items) == [
        "functional/test_shape.py:nested",
        "functional/test_shape.py:other",
        "functional/test_shape.py:template",
        "scenario/templates/main.yaml",
    ]
    main = items["functional/test_shape.py:template"]
    assert main["doc"]["resources"]["s"]["properties"]["nets"] == ["a", "b"]
    assert "RandomString" in main["files"]["nested.yaml"]
    assert main["parameters"] == {"image": tempest_templates.TEMPEST_CONF["minimal_image_ref"]}
    assert items["scenario/templates/main.yaml"]["files"]["key.pub"].startswith("ssh-ed25519")


def test_a_template_runs_create_then_delete(tmp_path):
    items = {i["name"]: i for i in tempest_templates.extract(_tree(tmp_path))}
    record = tempest_templates.run_one(items["functional/test_shape.py:template"], tmp_path, {})
    assert record["ok"], record
    assert (record["create"], record["delete"]) == ("CREATE_COMPLETE", "DELETE_COMPLETE")
    scenario = tempest_templates.run_one(items["scenario/templates/main.yaml"], tmp_path, {})
    assert scenario["ok"], scenario


SCENARIO = textwrap.dedent(
    """
    class S:
        def setUp(self):
            self.member_template_name = 'member.yaml'

        def test_it(self):
            self.env = {'resource_registry': {'OS::Test::Member': self.member_template_name}}
            self.launch_stack('group.yaml', environment=self.env)
    """
)


def test_a_scenario_tests_resource_registry_is_passed_with_the_template_naming_its_type(tmp_path):
    root = _tree(tmp_path)
    scenario = root / "heat_tempest_plugin" / "tests" / "scenario"
    (scenario / "test_group.py").write_text(SCENARIO)
    (scenario / "templates" / "group.yaml").write_text(
        "heat_template_version: 2015-10-15\n"
        "resources:\n  g:\n    type: OS::Heat::ResourceGroup\n"
        "    properties: {count: 2, resource_def: {type: OS::Test::Member}}\n"
    )
    (scenario / "templates" / "member.yaml").write_text(
        "heat_template_version: 2015-10-15\nresources:\n  r: {type: OS::Heat::RandomString}\n"
    )
    items = {i["name"]: i for i in tempest_templates.extract(root)}
    group = items["scenario/templates/group.yaml"]
    assert group["registry"] == {"OS::Test::Member": "member.yaml"}
    assert items["scenario/templates/main.yaml"]["registry"] == {}
    record = tempest_templates.run_one(group, tmp_path / "run", {})
    assert record["ok"], record


def test_a_template_given_a_backup_runs_after_the_stack_whose_volume_leaves_one(tmp_path):
    root = _tree(tmp_path)
    templates = root / "heat_tempest_plugin" / "tests" / "scenario" / "templates"
    (templates / "first.yaml").write_text(
        "heat_template_version: 2015-10-15\n"
        "resources:\n  v:\n    type: OS::Cinder::Volume\n    deletion_policy: Snapshot\n"
        "    properties: {size: 1}\n"
    )
    (templates / "from_backup.yaml").write_text(
        "heat_template_version: 2015-10-15\n"
        "parameters:\n  backup_id: {type: string}\n"
        "resources:\n  v:\n    type: OS::Cinder::Volume\n"
        "    properties: {backup_id: {get_param: backup_id}}\n"
    )
    items = {i["name"]: i for i in tempest_templates.extract(root)}
    item = items["scenario/templates/from_backup.yaml"]
    assert tempest_templates._backup_source(item, item["doc"], {})[0] == "first.yaml"
    record = tempest_templates.run_one(item, tmp_path / "run", {})
    assert record["ok"], record
