"""tools/cfn_corpus.py: which files it takes as CFN templates, what it counts as loading, and the
images it declares in the world (the figure in docs/heat-fidelity.rst depends on them)."""

import importlib.util
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tool():
    sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location("cfn_corpus", ROOT / "tools" / "cfn_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_counts_cfn_templates_that_load_and_names_the_failure(tool, tmp_path, monkeypatch):
    monkeypatch.delenv("PLUGSIM_HEAT_PYTHON", raising=False)
    (tmp_path / "hot").mkdir()
    good = {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Parameters": {"KeyName": {"Type": "String"}},
        "Resources": {"r": {"Type": "OS::Heat::None"}},
    }
    bad = {"HeatTemplateFormatVersion": "2012-12-12", "Outputs": {"o": {"Value": {"Ref": "x"}}}}
    (tmp_path / "hot" / "a.template").write_text(json.dumps(good))
    (tmp_path / "hot" / "b.yaml").write_text(json.dumps(bad))
    (tmp_path / "hot" / "c.yaml").write_text("heat_template_version: 2015-04-30\n")
    records = tool.run(tmp_path)
    assert [(r["template"], r["loads"]) for r in records] == [
        ("hot/a.template", True),
        ("hot/b.yaml", False),
    ]
    assert '"x" is neither a parameter nor a resource' in records[1]["error"]
    assert not any(r["validates"] for r in records)  # no Heat: nothing is validated


def test_world_declares_the_mapped_and_literal_images(tool):
    hot = {
        "mappings": {
            "DistroArch2AMI": {"F17": {"32": "F17-i386", "64": "F17-x86_64"}},
            "Sizes": {"s": {"disk": "not-an-image"}},
        },
        "resources": {"i": {"type": "AWS::EC2::Instance", "properties": {"ImageId": "lit"}}},
    }
    world = tool._world(hot, {"extends": "devstack"})
    assert [i["name"] for i in world["images"]] == ["F17-i386", "F17-x86_64", "lit"]
