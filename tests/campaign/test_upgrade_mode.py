"""The upgrade mode of a campaign: many seeds of the upgrade check, each with its own stacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sdk.testing.campaign.runs import RunSpec, run_range
from sdk.testing.campaign.upgrade_mode import UpgradeSpec, signature_of, upgrade_spec
from simulator.cli import main

PLUGIN = '''
from sdk import attributes, constraints, properties
from sdk.resource import Resource

S = properties.Schema


class Disk(Resource):
    """A disk on the fake entity service."""

    default_client_name = "entity"
    properties_schema = {{
        "name": S(
            S.STRING,
            "Name.",
            default="disk",
            update_allowed={name_update},
            constraints=[constraints.AllowedPattern(r"[a-z]{{1,8}}")],
        ),
        "size": S(S.INTEGER, "Size.", default=10, constraints=[constraints.Range(1, {most})]),
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
        return self.properties["size"] if name == "size" else None


def resource_mapping():
    return {{"Acme::Disk": Disk}}
'''


def plugin(tmp_path: Path, version: str, *, name_update: bool = True, most: int = 100) -> Path:
    directory = tmp_path / version
    directory.mkdir()
    (directory / "disk.py").write_text(PLUGIN.format(name_update=name_update, most=most))
    return directory


def _campaign(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["campaign", *args], catch_exceptions=False)
    return result.exit_code, result.output


@pytest.mark.material
def test_a_release_that_replaces_on_rename_is_found_naming_the_property(tmp_path):
    old = plugin(tmp_path, "v1")
    new = plugin(tmp_path, "v2", name_update=False)
    code, output = _campaign(str(new), "--upgrade-from", str(old), "--count", "4")
    assert code == 1, output
    assert output.startswith("4 runs, 0 passed, 4 failed; 1 distinct failure(s)")
    assert (
        "1. upgrade Acme::Disk UPDATE an update of property name, which the old version makes "
        "in place, replaced the resource" in output
    )
    assert f"replay: plugsim campaign {new} --upgrade-from {old} --seeds 0" in output
    assert "shrunk: 0 injected fault(s)" in output  # the bug needs no fault at all


@pytest.mark.material
def test_a_compatible_release_passes_every_seed(tmp_path):
    old = plugin(tmp_path, "v1")
    code, output = _campaign(str(old), "--upgrade-from", str(old), "--count", "3", "-f", "json")
    assert code == 0, output
    summary = json.loads(output)
    assert (summary["runs"], summary["failed"], summary["findings"]) == (3, 0, [])


@pytest.mark.material
def test_each_seed_draws_its_own_stack_so_a_narrowed_range_is_found_by_some(tmp_path):
    """v2 refuses sizes above 50: only the seeds whose drawn size is larger show it."""
    old = plugin(tmp_path, "v1")
    new = plugin(tmp_path, "v2", most=50)
    spec = UpgradeSpec(template=str(new), old=str(old))
    results = run_range(spec, list(range(8)))
    failed = [r for r in results if not r["ok"]]
    assert failed and len(failed) < len(results), results
    for result in failed:
        check, type_name, _, _, message = result["signature"]
        assert (check, type_name) == ("upgrade", "Acme::Disk")
        assert "size" in message and "<n>" in message, message
    again = run_range(spec, [failed[0]["seed"]])[0]  # the same seed: the same run, to the event
    assert (again["signature"], again["digest"]) == (failed[0]["signature"], failed[0]["digest"])


@pytest.mark.material
def test_faults_after_the_upgrade_are_recorded_for_shrinking(tmp_path):
    old = plugin(tmp_path, "v1")
    faults = tmp_path / "faults.yaml"
    faults.write_text(
        "rules:\n  - name: slow\n    service: entity\n    operation: '*'\n"
        "    probability: 1.0\n    effect: {type: delay, seconds: 2}\n"
    )
    spec = UpgradeSpec(template=str(old), old=str(old), faults=str(faults))
    (result,) = run_range(spec, [0])
    assert result["ok"], result
    assert result["faults"] and {f["rule_name"] for f in result["faults"]} == {"slow"}
    assert ["UPGRADE", "delay"] in result["coverage"]
    assert spec.replay(3) == (
        f"plugsim campaign {old} --upgrade-from {old} --seeds 3 --faults {faults}"
    )


def test_signatures_name_the_check_the_type_and_the_property():
    assert signature_of({"A::B": [], "C::D": []}) is None
    sig = signature_of({"A::B": ["property size now reads 20 where the old version stored 10"]})
    assert sig is not None and sig.key() == (
        "upgrade A::B UPDATE property size now reads <n> where the old version stored <n>"
    )
    leak = signature_of({"(leaks)": ["entity/disk d (x) left behind"]})
    assert leak is not None and leak.key() == "leak entity/disk DELETE 1 kind(s) left behind"
    made = signature_of({"A::B": ["the old version did not create it: boom"]})
    assert made is not None and made.check == "create"


def test_bad_input_is_one_line(tmp_path):
    old = plugin(tmp_path, "v1")
    code, output = _campaign(str(old), "--upgrade-from", str(tmp_path / "nope"), "--count", "1")
    assert code == 2 and f"--upgrade-from {tmp_path / 'nope'}: no such plug-in" in output
    spec = RunSpec(str(old), update_template="x.yaml")
    try:
        upgrade_spec(spec, str(old))
    except Exception as ex:  # noqa: BLE001 - the message is what is checked
        assert "--update-template" in str(ex)
    else:
        raise AssertionError("a template-only option was accepted")
    code, output = _campaign(str(old), "--count", "1")
    assert code == 2 and "is a directory" in output


@pytest.mark.material
def test_a_process_pool_gives_the_same_results_as_one_process(tmp_path):
    from sdk.testing.campaign.backends import execute

    old = plugin(tmp_path, "v1")
    new = plugin(tmp_path, "v2", most=50)
    spec = UpgradeSpec(template=str(new), old=str(old))

    def runs(jobs: int) -> list[tuple[int, bool, object, str]]:
        batches = execute(spec, [0, 1, 6, 7], backend="local", jobs=jobs, chunk=2)
        found = [(r["seed"], r["ok"], r["signature"], r["digest"]) for b in batches for r in b]
        return sorted(found, key=lambda r: r[0])

    serial = runs(1)
    assert runs(2) == serial
    assert all(digest for *_, digest in serial)
