"""Upgrade conformance: create with the old plug-in, upgrade in place, the stack keeps working."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sdk.testing.upgrade import check_upgrade

#: Each test runs upgrade conformance (two releases, a stack each): the material tier.
pytestmark = pytest.mark.material

PLUGIN = '''
from sdk import attributes, exception, properties
from sdk.resource import Resource

S = properties.Schema


class Disk(Resource):
    """A disk on the fake entity service."""

    default_client_name = "entity"
    properties_schema = {{
        "name": S(S.STRING, "Name.", default="disk", update_allowed={name_update}),
        "size": S(S.INTEGER, "Size.", default={size}{size_update}),
{extra}
    }}
    attributes_schema = {{"size": attributes.Schema("Size.")}}

    def handle_create(self):
        thing = self.client().entities.create(
            "disk", {{"size": self.properties["size"]}}, name=self.properties["name"]
        )
        self.resource_id_set(thing.id)
        return thing.id

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        if "name" in prop_diff:
            self.client().entities.update(self.resource_id, name=prop_diff["name"])

    def handle_delete(self):
        if self.resource_id is None:
            return None
        try:
            self.client().entities.delete(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
        return None

    def _resolve_attribute(self, name):
        {resolve}


def resource_mapping():
    return {{"Acme::Disk": Disk}}
'''

GOOD_RESOLVE = 'return self.properties["size"] if name == "size" else None'


def plugin(
    tmp_path: Path,
    name: str,
    *,
    size=10,
    size_update=False,
    extra="",
    resolve=GOOD_RESOLVE,
    name_update=True,
):
    directory = tmp_path / name
    directory.mkdir()
    (directory / "disk.py").write_text(
        PLUGIN.format(
            size=size,
            size_update=", update_allowed=True" if size_update else "",
            extra=extra,
            resolve=resolve,
            name_update=name_update,
        )
    )
    return directory


def test_a_compatible_release_keeps_the_stack_working(tmp_path):
    old = plugin(tmp_path, "v1")
    new = plugin(
        tmp_path, "v2", extra='        "label": S(S.STRING, "Label.", update_allowed=True),'
    )
    (result,) = check_upgrade(old, new)
    assert result.resource_type == "Acme::Disk" and result.problems == []


def test_a_changed_default_is_named_with_both_values(tmp_path):
    old = plugin(tmp_path, "v1", size=10)
    new = plugin(tmp_path, "v2", size=20)
    (result,) = check_upgrade(old, new)
    assert result.problems == [
        "property size now reads 20 where the old version stored 10: "
        "the stack's next update will change it"
    ]


def test_an_attribute_that_stops_resolving_is_reported(tmp_path):
    old = plugin(tmp_path, "v1")
    new = plugin(tmp_path, "v2", resolve='raise RuntimeError("no size any more")')
    (result,) = check_upgrade(old, new)
    assert result.problems == ["attribute size no longer resolves: RuntimeError: no size any more"]


def test_a_new_required_property_breaks_loading_the_old_stack(tmp_path):
    old = plugin(tmp_path, "v1")
    new = plugin(tmp_path, "v2", extra='        "zone": S(S.STRING, "Zone.", required=True),')
    results = {r.resource_type: r for r in check_upgrade(old, new)}
    (problem,) = [p for p in results["Acme::Disk"].problems if "no longer loads" in p]
    assert "zone" in problem


def test_the_command_line_runs_it(tmp_path):
    from simulator.cli import main

    old = plugin(tmp_path, "v1", size=10)
    new = plugin(tmp_path, "v2", size=20)
    result = CliRunner().invoke(main, ["conformance", str(new), "--upgrade-from", str(old)])
    assert result.exit_code == 1, result.output
    assert "Acme::Disk: property size now reads 20 where the old version stored 10" in result.output
    same = CliRunner().invoke(main, ["conformance", str(new), "--upgrade-from", str(new)])
    assert same.exit_code == 0 and "Acme::Disk: kept working" in same.output


def test_a_conformance_class_checks_its_upgrade(tmp_path, pytester):
    old = plugin(tmp_path, "v1", size=10)
    new = plugin(tmp_path, "v2", size=20)
    pytester.makepyfile(
        test_disk=f"""
import sys
sys.path.insert(0, {str(new)!r})
from disk import Disk
from sdk.testing import ResourceConformance

class TestDisk(ResourceConformance):
    resource_class = Disk
    resource_type = "Acme::Disk"
    valid_properties = {{}}
    upgrade_from = {str(old)!r}
"""
    )
    result = pytester.runpytest("-k", "upgrade", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*Acme::Disk: property size now reads 20*"])


def test_a_release_that_replaces_what_the_old_one_updated_in_place_names_the_property(tmp_path):
    old = plugin(tmp_path, "v1")
    new = plugin(tmp_path, "v2", name_update=False)  # a rename now replaces the disk
    (result,) = check_upgrade(old, new)
    assert result.problems == [
        "an update of property name, which the old version makes in place, replaced the resource"
    ]


def test_the_in_place_changes_given_are_the_ones_tried(tmp_path):
    old = plugin(tmp_path, "v1", size_update=True)
    new = plugin(tmp_path, "v2", size_update=False)
    (generated,) = check_upgrade(old, new)
    assert generated.problems == [
        "an update of property size, which the old version makes in place, replaced the resource"
    ]
    (given,) = check_upgrade(old, new, updates={"Acme::Disk": {"name": "other"}})
    assert given.problems == []


def test_installed_plug_ins_stay_out_of_the_upgrade_worlds(tmp_path, monkeypatch):
    """The new version is usually installed (an entry point) as well: it must not claim the type."""
    from sdk.plugins import load_entry_points
    from sdk.testing import upgrade

    opened = []
    real = upgrade._open

    def spy(args, faults=None):
        world = real(args, faults)
        opened.append(world)
        return world

    monkeypatch.setattr(upgrade, "_open", spy)
    old = plugin(tmp_path, "v1")
    args = {"plugins": str(old), "state": str(tmp_path / "w.db"), "seed": 0, "properties": {}}
    upgrade.phase_create(args)
    (world,) = opened
    types = set(world.registry.plugins())
    assert "Acme::Disk" in types
    installed = load_entry_points().mapping  # the bundled OpenStack types, for one
    assert installed and not types & set(installed)
