"""The test tiers: README's ``pytest -n auto`` leaves the ``material`` tier out, ``-m`` brings it.

The modules and tests below each run real material for tens of seconds (measured in
docs/contributing.rst); losing their marker would put minutes back into the default run.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: (test file, test function or None for the whole module) that must stay in the material tier.
MATERIAL = (
    ("tests/docs/test_docs_site.py", None),
    ("tests/mutants/test_mutant_regression.py", None),
    ("tests/heat/test_heat_lifecycle_full.py", None),
    ("tests/heat/test_heat_lifecycle_full_conformance.py", None),
    ("tests/heat/test_heat_groups_diff.py", None),
    ("tests/heat/test_heat_lifecycle_diff.py", None),
    ("tests/heat/test_corpus_diff.py", None),
    ("tests/heat/test_types_diff.py", None),
    ("tests/heat/test_events_diff.py", None),
    ("tests/campaign/test_campaign_sequences.py", None),
    ("tests/testing/test_upgrade_conformance.py", None),
    ("tests/world/test_kill.py", None),
    ("tests/library/test_library_lint.py", None),
    (
        "tests/testing/test_replays.py",
        "test_a_conformance_replay_line_fails_the_same_way_after_the_run",
    ),
    (
        "tests/campaign/test_campaign.py",
        "test_a_thousand_seeds_find_the_planted_bug_and_shrink_it_to_one_fault",
    ),
    (
        "tests/campaign/test_upgrade_mode.py",
        "test_a_process_pool_gives_the_same_results_as_one_process",
    ),
    (
        "tests/library/test_library_lint.py",
        "test_the_whole_bundled_library_lints_without_a_finding",
    ),
    (
        "tests/heat/test_heat_conformance.py",
        "test_plugsim_conformance_runs_the_suite_on_a_heat_plugin_file",
    ),
    ("tests/views/test_page.py", "test_a_browser_draws_the_timeline_across_the_whole_window"),
    # Session 11 (issue 36): each over ~5 s of wall time in the default tier on a shared machine.
    ("tests/lint/test_lint_dynamic.py", "test_dynamic_findings_are_the_same_on_every_run"),
    (
        "tests/lint/test_lint_dynamic.py",
        "test_the_cli_flag_no_dynamic_switches_the_dynamic_rules_off",
    ),
    ("tests/simulator/test_bad_input.py", "test_fifty_thousand_resource_template_validates"),
    ("tests/simulator/test_template_loader.py", "test_fifty_thousand_resources_load_and_validate"),
    (
        "tests/orchestration_wire/test_heat_cli_over_serve.py",
        "test_openstack_stack_commands_over_plugsim_serve",
    ),
    (
        "tests/fake_clouds/test_fake_cloud_bad_input.py",
        "test_random_calls_only_raise_client_errors",
    ),
    (
        "tests/simulator/test_fuzz_inputs.py",
        "test_template_validate_never_prints_an_internal_error",
    ),
)


def _names_material(node: ast.expr) -> bool:
    return any(isinstance(sub, ast.Attribute) and sub.attr == "material" for sub in ast.walk(node))


def _is_marked(path: str, test: str | None) -> bool:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    for node in tree.body:
        if test is None and isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
                return _names_material(node.value)
        if test is not None and isinstance(node, ast.FunctionDef) and node.name == test:
            return any(_names_material(d) for d in node.decorator_list)
    return False


@pytest.mark.parametrize(("path", "test"), MATERIAL, ids=[f"{p}::{t or '*'}" for p, t in MATERIAL])
def test_material_heavy_tests_keep_their_marker(path: str, test: str | None) -> None:
    assert _is_marked(path, test), f"{path}::{test or 'pytestmark'} lost @pytest.mark.material"


def _root_conftest():
    spec = importlib.util.spec_from_file_location("_tiers_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Item:
    def __init__(self, name: str, *marks: str, path: Path = ROOT / "tests" / "test_x.py") -> None:
        self.name, self.marks, self.path = name, marks, path

    def get_closest_marker(self, name: str):
        return name if name in self.marks else None


class _Config:
    def __init__(self, markexpr: str, args: tuple[str, ...] = ()) -> None:
        self.markexpr, self.deselected = markexpr, []
        self.args = list(args)
        self.invocation_params = type("Params", (), {"dir": ROOT})()

        class _Hook:
            def pytest_deselected(hook_self, items):  # noqa: N805
                self.deselected.extend(item.name for item in items)

        self.hook = _Hook()

    def getoption(self, name: str, default=None):
        assert name == "markexpr"
        return self.markexpr


@pytest.mark.parametrize(
    ("markexpr", "kept", "deselected"),
    [
        ("", ["unit", "other"], ["heavy"]),
        ("material", ["unit", "heavy", "other"], []),
        ("material or not material", ["unit", "heavy", "other"], []),
    ],
)
def test_the_material_tier_runs_only_when_the_mark_expression_names_it(markexpr, kept, deselected):
    hook = _root_conftest().pytest_collection_modifyitems
    items = [_Item("unit"), _Item("heavy", "material"), _Item("other", "parametrize")]
    config = _Config(markexpr)
    hook(config, items)
    assert [item.name for item in items] == kept
    assert config.deselected == deselected


@pytest.mark.parametrize(
    "arg",
    ["tests/test_tiers.py", "tests/test_tiers.py::test_material_heavy_tests_keep_their_marker"],
)
def test_a_file_named_on_the_command_line_runs_its_material_tests(arg):
    hook = _root_conftest().pytest_collection_modifyitems
    here = ROOT / "tests" / "test_tiers.py"
    items = [_Item("named", "material", path=here), _Item("elsewhere", "material")]
    config = _Config("", (arg,))
    hook(config, items)
    assert [item.name for item in items] == ["named"]
    assert config.deselected == ["elsewhere"]


def test_a_folder_on_the_command_line_leaves_its_material_tests_out():
    hook = _root_conftest().pytest_collection_modifyitems
    items = [_Item("inside", "material", path=ROOT / "tests" / "test_tiers.py")]
    config = _Config("", ("tests",))
    hook(config, items)
    assert items == [] and config.deselected == ["inside"]
