"""``plugsim conformance`` on a Heat type that needs another resource (issue #20).

Many of Heat's types name another resource (a port, a server, a volume) in a
required property. ``--companions`` makes those resources in the same stack
before the one under test, and ``--junitxml`` writes each test's result so a
script can count them per type.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from _heat_diff import requires_heat

from sdk.testing.cli import conformance_classes
from sdk.testing.conformance import ConformanceDeclarationError, ResourceConformance

#: plugsim conformance on Heat plug-ins in subprocesses: the material tier (``-m material``).
pytestmark = pytest.mark.material

ROOT = Path(__file__).resolve().parents[2]

TAGGER = textwrap.dedent(
    '''
    """Tags another resource of the stack, as a Heat plug-in would."""

    from heat.engine import properties, resource


    class Tagger(resource.Resource):
        properties_schema = {
            "target": properties.Schema(properties.Schema.STRING, "What to tag.", required=True),
        }

        def handle_create(self):
            self.resource_id_set("tag-" + self.properties["target"])


    def resource_mapping():
        return {"Test::Conf::Tagger": Tagger}
    '''
)

BUDDY = {"buddy": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}}


@pytest.fixture
def tagger(tmp_path: Path) -> Path:
    path = tmp_path / "tagger.py"
    path.write_text(TAGGER, encoding="utf-8")
    return path


def test_companions_reach_the_conformance_class_and_its_template(tagger: Path) -> None:
    classes = conformance_classes(
        str(tagger),
        {"Test::Conf::Tagger": {"target": {"get_resource": "buddy"}}},
        {"Test::Conf::Tagger": BUDDY},
    )
    (cls,) = classes.values()
    assert cls.companions == BUDDY
    assert cls.update_replace is None  # the target names a resource: not changed to a made-up one


def test_companions_must_be_a_mapping() -> None:
    with pytest.raises(ConformanceDeclarationError, match="companions"):
        type(
            "TestBad",
            (ResourceConformance,),
            {"resource_type": "X::Y", "valid_properties": {}, "companions": ["buddy"]},
        )


def _conformance(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from sdk.testing.cli import conformance; "
            "conformance(sys.argv[1:], prog_name='plugsim conformance')",
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )


def test_the_command_makes_companions_and_writes_junit_results(
    tagger: Path, tmp_path: Path
) -> None:
    props = tmp_path / "props.yaml"
    props.write_text(yaml.safe_dump({"Test::Conf::Tagger": {"target": {"get_resource": "buddy"}}}))
    companions = tmp_path / "companions.yaml"
    companions.write_text(yaml.safe_dump({"Test::Conf::Tagger": BUDDY}))
    done = _conformance(
        tmp_path,
        str(tagger),
        "--properties",
        str(props),
        "--companions",
        str(companions),
        "--junitxml",
        "out.xml",
        "-k",
        "test_create or test_delete_twice",
        "-q",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    cases = ET.parse(tmp_path / "out.xml").getroot().iter("testcase")
    results = {
        (c.get("classname", "").rsplit(".", 1)[-1], c.get("name")): [x.tag for x in c]
        for c in cases
    }
    assert results[("Test_Test__Conf__Tagger", "test_create")] == []  # passed
    assert results[("Test_Test__Conf__Tagger", "test_delete_twice")] == []


def test_companions_of_an_unknown_type_are_one_line(tagger: Path, tmp_path: Path) -> None:
    companions = tmp_path / "companions.yaml"
    companions.write_text(yaml.safe_dump({"No::Such::Type": BUDDY}))
    done = _conformance(tmp_path, str(tagger), "--companions", str(companions))
    assert done.returncode != 0
    assert f"{companions}: no plug-in of type No::Such::Type" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_failed_resource_being_replaced_may_be_marked_update_complete() -> None:
    """Heat backs up a resource it replaces as UPDATE_COMPLETE, a failed one too."""
    from sdk.transitions import legal

    for action in ("CREATE", "UPDATE", "CHECK", "RESUME"):
        assert legal((action, "FAILED"), ("UPDATE", "COMPLETE"))
    assert not legal(("DELETE", "COMPLETE"), ("UPDATE", "COMPLETE"))


def test_declared_updates_win_over_derived_ones(tagger: Path) -> None:
    (cls,) = conformance_classes(
        str(tagger),
        {"Test::Conf::Tagger": {"target": "a"}},
        updates={"Test::Conf::Tagger": {"update_replace": {"target": "b"}}},
    ).values()
    assert cls.update_replace == {"target": "b"}
    assert cls.update_in_place is None


def test_a_required_list_under_a_custom_constraint_is_pinned() -> None:
    from sdk.constraints import CustomConstraint
    from sdk.properties import Schema
    from sdk.resource import Resource
    from sdk.testing.schema_conformance import pinned_schema

    class Pool(Resource):
        properties_schema = {
            "prefixes": Schema(
                Schema.LIST,
                required=True,
                schema=Schema(Schema.STRING, constraints=[CustomConstraint("net_cidr")]),
            ),
            "name": Schema(Schema.STRING),
        }

    generated, pinned = pinned_schema(Pool, {"prefixes": ["10.0.0.0/8"]})
    assert pinned == {"prefixes": ["10.0.0.0/8"]}
    assert list(generated) == ["name"]


SHOWN = textwrap.dedent(
    '''
    """Shows itself through Heat's ``_show_resource``, on a client plugsim's kit cannot read."""

    from heat.engine import resource


    class Shown(resource.Resource):
        entity = "thing"
        default_client_name = "heat"

        def handle_create(self):
            self.resource_id_set("shown-1")

        def handle_delete(self):
            return None

        def _show_resource(self):
            return {"id": self.resource_id}


    def resource_mapping():
        return {"Test::Conf::Shown": Shown}
    '''
)


def test_attributes_of_a_heat_plugin_whose_client_the_kit_cannot_read(tmp_path: Path) -> None:
    path = tmp_path / "shown.py"
    path.write_text(SHOWN, encoding="utf-8")
    done = _conformance(tmp_path, str(path), "-k", "test_attributes", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and " failed" not in done.stdout


PAIR = textwrap.dedent(
    """
    from heat.engine import constraints, properties, resource


    class Plain(resource.Resource):
        def handle_create(self):
            self.resource_id_set("plain")


    class Needy(resource.Resource):
        properties_schema = {
            "network": properties.Schema(
                properties.Schema.STRING, "A network.", required=True,
                constraints=[constraints.CustomConstraint("neutron.network")],
            ),
        }


    def resource_mapping():
        return {"Test::Conf::Plain": Plain, "Test::Conf::Needy": Needy}
    """
)


def test_a_type_without_valid_properties_is_skipped_and_the_others_run(tmp_path: Path) -> None:
    path = tmp_path / "pair.py"
    path.write_text(PAIR, encoding="utf-8")
    done = _conformance(tmp_path, str(path), "-k", "test_create and not fails and not rollback")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "1 passed" in out
    assert "Test::Conf::Needy: no valid properties (property network" in out
    assert "--properties" in out


IDLESS = textwrap.dedent(
    '''
    from heat.engine import properties, resource


    class Idless(resource.Resource):
        """Sets no physical id, as Heat's AccessPolicy; a new size replaces it."""

        properties_schema = {
            "size": properties.Schema(properties.Schema.INTEGER, "A size.", default=1),
        }


    def resource_mapping():
        return {"Test::Conf::Idless": Idless}
    '''
)


def test_a_type_without_physical_id_is_replaced_all_the_same(tmp_path: Path) -> None:
    path = tmp_path / "idless.py"
    path.write_text(IDLESS, encoding="utf-8")
    done = _conformance(tmp_path, str(path), "-k", "test_update_replace", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and " failed" not in done.stdout


BADGE = textwrap.dedent(
    '''
    """A badge the tagger may tag: a type no installed plug-in provides."""

    from heat.engine import resource


    class Badge(resource.Resource):
        def handle_create(self):
            self.resource_id_set("badge-" + self.physical_resource_name())


    def resource_mapping():
        return {"Test::Conf::Badge": Badge}
    '''
)

ON_BADGE = {"badge": {"type": "Test::Conf::Badge"}}
TARGET_BADGE = {"Test::Conf::Tagger": {"target": {"get_resource": "badge"}}}


def test_a_companion_may_be_a_type_of_the_same_plugin_file(tmp_path: Path) -> None:
    both = tmp_path / "both.py"
    tagger = TAGGER.replace('return {"Test::Conf::Tagger": Tagger}', "")
    both.write_text(
        tagger.replace("def resource_mapping():\n", "")
        + BADGE.replace(
            'return {"Test::Conf::Badge": Badge}',
            'return {"Test::Conf::Badge": Badge, "Test::Conf::Tagger": Tagger}',
        )
    )
    classes = conformance_classes(str(both), TARGET_BADGE, {"Test::Conf::Tagger": ON_BADGE})
    tagger_class = classes["Test_Test__Conf__Tagger"]
    assert set(tagger_class.companion_types) == {"Test::Conf::Badge"}


def test_also_brings_the_companions_types_from_another_plugin(tagger: Path, tmp_path: Path) -> None:
    badge = tmp_path / "badge.py"
    badge.write_text(BADGE, encoding="utf-8")
    props = tmp_path / "props.yaml"
    props.write_text(yaml.safe_dump(TARGET_BADGE))
    companions = tmp_path / "companions.yaml"
    companions.write_text(yaml.safe_dump({"Test::Conf::Tagger": ON_BADGE}))
    common = [str(tagger), "--properties", str(props), "--companions", str(companions)]
    common += ["-k", "test_create", "-q"]
    without = _conformance(tmp_path, *common)
    assert without.returncode != 0
    assert "Test::Conf::Badge" in without.stdout + without.stderr
    done = _conformance(tmp_path, *common, "--also", str(badge))
    assert done.returncode == 0, done.stdout + done.stderr
    missing = _conformance(tmp_path, *common, "--also", str(tmp_path / "nowhere.py"))
    assert missing.returncode != 0 and "nowhere.py" in missing.stderr
    assert "Traceback" not in missing.stderr


@requires_heat
def test_retain_keeps_the_companions_a_kept_resource_still_uses(tmp_path: Path) -> None:
    """A retained firewall keeps using its policy, which neutron will not delete under it."""
    props = tmp_path / "props.yaml"
    props.write_text(
        yaml.safe_dump(
            {"OS::Neutron::Firewall": {"firewall_policy_id": {"get_resource": "policy"}}}
        )
    )
    companions = tmp_path / "companions.yaml"
    companions.write_text(
        yaml.safe_dump(
            {"OS::Neutron::Firewall": {"policy": {"type": "OS::Neutron::FirewallPolicy"}}}
        )
    )
    done = _conformance(
        tmp_path,
        "heat.engine.resources.openstack.neutron.firewall",
        "--properties",
        str(props),
        "--companions",
        str(companions),
        "-k",
        "Test_OS__Neutron__Firewall and test_deletion_policy_retain",
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
