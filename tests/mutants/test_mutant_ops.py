"""The mutation benchmark's source transformations (tools/mutants_ops.py), on a small module."""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import mutants_ops as ops  # noqa: E402
from mutants_catalogue import CLASSES, MUTANTS, TARGETS  # noqa: E402

SOURCE = '''\
"""A module."""


class Thing(Base):
    """A thing."""

    def handle_create(self):
        made = self.client().things.create(name="a")
        self.resource_id_set(made.id)
        self.client().tags.add(made.id)
        return made.id

    def handle_delete(self):
        """Delete it."""
        if self.resource_id is None:
            return None
        try:
            self.client().things.delete(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
        return self.resource_id


def untouched():
    return 1
'''


def method_source(source: str, name: str) -> str:
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef))
    fn = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(source, fn) or ""


def test_drop_call_replaces_the_statement_and_keeps_the_other_lines():
    out = ops.drop_call("Thing", "handle_delete", "things.delete", "d")(SOURCE)
    assert "things.delete" not in out
    assert "            pass\n" in out
    assert len(out.splitlines()) == len(SOURCE.splitlines())
    assert out.endswith("def untouched():\n    return 1\n")


def test_drop_call_matches_the_dotted_suffix_only():
    with pytest.raises(ops.MutationError, match="makes no call to volumes.delete"):
        ops.drop_call("Thing", "handle_delete", "volumes.delete", "d")(SOURCE)


def test_unwrap_removes_the_handler_and_dedents_the_body():
    out = ops.unwrap("Thing", "handle_delete", "try", "u")(SOURCE)
    body = method_source(out, "handle_delete")
    assert "except" not in body
    assert "\n        self.client().things.delete(self.resource_id)\n" in out
    compile(out, "m", "exec")


def test_override_replaces_a_method_or_adds_an_inherited_one():
    replaced = ops.override(
        "Thing", "handle_delete", "def handle_delete(self):\n    return 7\n", "o"
    )(SOURCE)
    assert method_source(replaced, "handle_delete") == "def handle_delete(self):\n        return 7"
    added = ops.override(
        "Thing", "handle_suspend", "def handle_suspend(self):\n    return None\n", "o"
    )(SOURCE)
    assert "def handle_suspend" in method_source(added, "handle_suspend")
    assert "handle_delete" in added
    compile(added, "m", "exec")


def test_defer_call_moves_the_statement_before_the_final_return():
    out = ops.defer_call("Thing", "handle_create", "resource_id_set", "d")(SOURCE)
    lines = [line.strip() for line in method_source(out, "handle_create").splitlines()]
    assert lines[-2:] == ["self.resource_id_set(made.id)", "return made.id"]
    assert lines.index("self.client().tags.add(made.id)") < lines.index(
        "self.resource_id_set(made.id)"
    )


def test_prepend_goes_after_the_docstring():
    out = ops.prepend("Thing", "handle_delete", "raise KeyError('x')", "p")(SOURCE)
    lines = method_source(out, "handle_delete").splitlines()
    assert lines[1].strip() == '"""Delete it."""'
    assert lines[2] == "        raise KeyError('x')"


def test_rename_and_wrap_keeps_the_original_reachable():
    wrapper = "def handle_create(self):\n    return ('wrapped', self._mutant_original())\n"
    out = ops.rename_and_wrap("Thing", "handle_create", wrapper, "w")(SOURCE)
    assert "def _mutant_original_handle_create(self):" in out
    assert "_mutant_original = _mutant_original_handle_create" in out
    inherited = ops.rename_and_wrap(
        "Thing", "handle_suspend", wrapper.replace("create", "suspend"), "w"
    )(SOURCE)
    assert "return super().handle_suspend(*args, **kwargs)" in inherited
    compile(inherited, "m", "exec")


def test_substitute_and_drop_statement_refuse_what_is_not_there():
    with pytest.raises(ops.MutationError):
        ops.substitute("Thing", "handle_delete", "nothing like this", "x", "s")(SOURCE)
    with pytest.raises(ops.MutationError):
        ops.drop_statement("Thing", "handle_delete", "nothing like this", "s")(SOURCE)
    with pytest.raises(ops.MutationError, match="no class Other"):
        ops.drop_call("Other", "handle_delete", "delete", "d")(SOURCE)


def test_catalogue_covers_every_class_with_forty_mutants_and_unique_ids():
    assert len(MUTANTS) >= 40
    assert {m.bug_class for m in MUTANTS} == set(CLASSES)
    assert len({m.id for m in MUTANTS}) == len(MUTANTS)
    heat = {TARGETS[m.target].type_name for m in MUTANTS if TARGETS[m.target].source == "heat"}
    assert len(heat) >= 3


def test_every_example_mutant_applies_compiles_and_changes_the_example():
    original = (ROOT / "examples/three-tier/plugins/example_cloud.py").read_text(encoding="utf-8")
    for mutant in MUTANTS:
        if TARGETS[mutant.target].source != "example":
            continue
        mutated = mutant.op(original)
        assert mutated != original, mutant.id
        compile(mutated, mutant.id, "exec")


JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest"><testcase classname="m.Test_X" name="test_create">
<failure message="VerdictFailure: state: DELETE_FAILED&#10;  path: stack s&#10;[+2 more lines; full report in element text]">
self = &lt;Test_X object&gt;

    def check_create_complete(self, server_id):
&gt;       raise VerdictFailure(message)
E       sdk.testing.verdict.VerdictFailure: state: DELETE_FAILED
E         path:     stack s
E         handler:  check_create_complete (plugin.py:12)
E         hint:     the object leaked

plugin.py:12: VerdictFailure</failure></testcase></testsuite></testsuites>
"""


def test_a_shortened_junit_message_is_read_whole_from_the_report_without_source(tmp_path):
    import mutants

    xml = tmp_path / "results.xml"
    xml.write_text(JUNIT, encoding="utf-8")
    row = mutants.results(xml, "Test_X")["test_create"]
    assert row["outcome"] == "failed"
    assert "handler:  check_create_complete (plugin.py:12)" in row["full"]
    assert "hint:     the object leaked" in row["full"]
    assert "def check_create_complete" not in row["full"]  # the traceback's source is no naming


def test_a_target_with_a_world_runs_under_plugsim_world():
    import mutants

    assert TARGETS["heat-cinder-volume"].world == "devstack"
    assert "'--world', sys.argv[1], 'conformance'" in mutants._RUN_IN_WORLD
