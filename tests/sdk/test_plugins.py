"""Plug-in discovery: plug-in directories, entry points, reports and conflicts."""

from __future__ import annotations

import importlib.metadata
import shutil
import sys
import types
from pathlib import Path

import pytest

from sdk import exception, plugins
from sdk.constraints import ConstraintRegistry
from sdk.resource import Resource

FIXTURES = Path(__file__).parent / "plugin_fixtures"


def messages(report):
    return [(Path(e.path).name, e.message) for e in report.errors]


def test_good_directory_walk():
    registry = ConstraintRegistry(group=None)
    report = plugins.load_plugin_dirs([FIXTURES / "good"], constraint_registry=registry)
    assert list(report.mapping) == [
        "Fixture::Compute::Legacy",
        "Fixture::Compute::Server",
        "Fixture::Storage::Volume",
    ]
    assert report.mapping["Fixture::Compute::Server"].__name__ == "FixtureServer"
    assert report.mapping["Fixture::Compute::Legacy"] is report.mapping["Fixture::Compute::Server"]
    assert all(issubclass(cls, Resource) for cls in report.mapping.values())
    assert report.sources["Fixture::Storage::Volume"] == str(FIXTURES / "good/nested/storage.py")
    assert report.errors == []
    # the optional dependency is missing: disabled, not an error
    assert report.disabled == [str(FIXTURES / "good/optional.py")]
    # sorted walk: files before sub-directories' files
    assert [Path(m).name for m in report.modules] == [
        "compute.py",
        "helpers.py",
        "optional.py",
        "storage.py",
    ]
    assert list(report.constraints) == ["fixture.even_size"]
    assert "fixture.even_size" in registry
    assert registry.get("fixture.even_size").validate(4) is True


def test_available_resource_mapping_with_content_is_used(tmp_path):
    (tmp_path / "avail.py").write_text(
        "from sdk.resource import Resource\n"
        "class R(Resource):\n    pass\n"
        "def available_resource_mapping():\n    return {'Fixture::Avail': R}\n"
    )
    report = plugins.load_plugin_dirs([tmp_path])
    assert list(report.mapping) == ["Fixture::Avail"]
    assert report.disabled == []


def write_broken_tree(root: Path) -> None:
    """A directory with every kind of module that must not crash the loader."""
    (root / "syntax_error.py").write_text("def broken(:\n    pass\n")
    (root / "missing_dep.py").write_text("import plugsim_no_such_module_anywhere\n")
    (root / "exits.py").write_text("raise SystemExit(3)\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_plugin.py").write_text("raise RuntimeError('tests must not load')\n")
    (root / "deep" / "tests" / "unit").mkdir(parents=True)
    (root / "deep" / "tests" / "unit" / "x.py").write_text("raise RuntimeError('nor here')\n")
    (root / "_private.py").write_text("raise RuntimeError('private helpers are not plug-ins')\n")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "stale.py").write_text("raise RuntimeError('cache')\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "h.py").write_text("raise RuntimeError('hidden')\n")
    (root / "notes.txt").write_text("not python")
    shutil.copy(FIXTURES / "good" / "compute.py", root / "ok.py")


def test_broken_modules_are_reported_with_path_and_skipped(tmp_path):
    write_broken_tree(tmp_path)
    report = plugins.load_plugin_dirs([tmp_path])
    assert list(report.mapping) == ["Fixture::Compute::Legacy", "Fixture::Compute::Server"]
    errors = {Path(e.path).name: e.message for e in report.errors}
    assert sorted(errors) == ["exits.py", "missing_dep.py", "syntax_error.py"]
    assert errors["syntax_error.py"].startswith("failed to import: SyntaxError: ")
    assert "(line 1)" in errors["syntax_error.py"]
    assert errors["missing_dep.py"] == (
        "failed to import: ModuleNotFoundError: No module named 'plugsim_no_such_module_anywhere'"
    )
    assert errors["exits.py"] == "failed to import: SystemExit: 3"
    assert str(report.errors[0]).startswith(str(tmp_path))
    # failed modules leave nothing behind in sys.modules
    assert not [m for m in sys.modules if m.startswith("plugsim_plugins.") and "syntax" in m]


def test_iter_plugin_files_skips_tests_private_cache_and_hidden(tmp_path):
    write_broken_tree(tmp_path)
    names = [p.relative_to(tmp_path).as_posix() for p in plugins.iter_plugin_files(tmp_path)]
    assert names == ["exits.py", "missing_dep.py", "ok.py", "syntax_error.py"]


def test_bad_mapping_values_are_reported_with_module_and_type():
    report = plugins.load_plugin_dirs([FIXTURES / "bad"])
    assert list(report.mapping) == ["Fixture::Bad::Fine"]
    assert messages(report) == [
        ("not_a_map.py", "resource_mapping() must return a map, not list"),
        ("raises.py", "resource_mapping() raised RuntimeError: mapping exploded"),
        (
            "values.py",
            "resource_mapping() maps 'Fixture::Bad::Class' to class NotAResource, "
            "which is not a subclass of sdk.resource.Resource",
        ),
        (
            "values.py",
            "resource_mapping() maps 'Fixture::Bad::Instance' to value of type object, "
            "which is not a subclass of sdk.resource.Resource",
        ),
        (
            "values.py",
            "resource_mapping() maps 'Fixture::Bad::String' to value of type str, "
            "which is not a subclass of sdk.resource.Resource",
        ),
    ]
    assert all(e.path.endswith(".py") for e in report.errors)


def test_conflict_names_both_modules():
    with pytest.raises(exception.PluginConflict) as info:
        plugins.load_plugin_dirs([FIXTURES / "conflict_a", FIXTURES / "conflict_b"])
    first = str(FIXTURES / "conflict_a" / "dup.py")
    second = str(FIXTURES / "conflict_b" / "dup.py")
    assert str(info.value) == (
        f"Resource type Fixture::Dup is registered by both {first} and {second}"
    )
    # everything else still loaded and is available on the exception
    report = info.value.report
    assert list(report.mapping) == [
        "Fixture::Dup",
        "Fixture::Unique::conflict_a",
        "Fixture::Unique::conflict_b",
    ]
    assert report.sources["Fixture::Dup"] == first


def test_the_same_file_twice_is_loaded_once():
    report = plugins.load_plugin_dirs([FIXTURES / "conflict_a", FIXTURES / "conflict_a"])
    assert report.modules == [str(FIXTURES / "conflict_a" / "dup.py")]


def test_missing_directory_is_reported(tmp_path):
    report = plugins.load_plugin_dirs([tmp_path / "nope"])
    assert messages(report) == [("nope", "plug-in directory does not exist or is not a directory")]


def test_constraint_rejected_by_registry_is_reported(tmp_path):
    (tmp_path / "c.py").write_text("def constraint_mapping():\n    return {'bad.one': int}\n")
    registry = ConstraintRegistry(group=None)
    report = plugins.load_plugin_dirs([tmp_path], constraint_registry=registry)
    assert report.constraints == {}
    [error] = report.errors
    assert error.message.startswith("constraint_mapping() entry 'bad.one' was rejected: ")
    assert "bad.one" not in registry


def test_constraint_registry_may_be_a_callable(tmp_path):
    (tmp_path / "c.py").write_text(
        "class C:\n    pass\n\ndef constraint_mapping():\n    return {'x.y': C}\n"
    )
    seen = []
    report = plugins.load_plugin_dirs([tmp_path], constraint_registry=lambda n, c: seen.append(n))
    assert seen == ["x.y"] and list(report.constraints) == ["x.y"]


# --- entry points -----------------------------------------------------------------


class EPServer(Resource):
    """Published by an entry point naming the class."""


def ep_mapping():
    return {"EP::Mapped": EPServer}


def make_ep(name, value):
    return importlib.metadata.EntryPoint(name=name, value=value, group=plugins.ENTRY_POINT_GROUP)


def test_entry_points_module_function_and_class(monkeypatch):
    module = types.ModuleType("plugsim_fixture_ep_module")
    module.resource_mapping = lambda: {"EP::FromModule": EPServer}
    monkeypatch.setitem(sys.modules, "plugsim_fixture_ep_module", module)
    eps = [
        make_ep("EP::Class", f"{__name__}:EPServer"),
        make_ep("mapping", f"{__name__}:ep_mapping"),
        make_ep("module", "plugsim_fixture_ep_module"),
        make_ep("broken", "plugsim_no_such_module_anywhere:x"),
        make_ep("weird", f"{__name__}:FIXTURES"),
    ]
    report = plugins.load_entry_points(entry_points=eps)
    assert list(report.mapping) == ["EP::Class", "EP::FromModule", "EP::Mapped"]
    assert all(cls is EPServer for cls in report.mapping.values())
    assert report.sources["EP::Class"].startswith("entry point EP::Class = ")
    assert [(e.path.split(" = ")[0], e.message) for e in report.errors] == [
        (
            "entry point broken",
            "failed to import: ModuleNotFoundError: "
            "No module named 'plugsim_no_such_module_anywhere'",
        ),
        (
            "entry point weird",
            "must name a module, a mapping function or a Resource class, not PosixPath",
        ),
    ]


def test_entry_point_group_discovery_runs(monkeypatch):
    seen = {}

    def fake_entry_points(group):
        seen["group"] = group
        return [make_ep("EP::Class", f"{__name__}:EPServer")]

    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points)
    report = plugins.load_entry_points()
    assert seen == {"group": "plugsim.resources"}
    assert list(report.mapping) == ["EP::Class"]


def test_entry_points_and_directories_share_one_loader():
    loader = plugins.PluginLoader()
    loader.load_plugin_dirs([FIXTURES / "conflict_a"])
    with pytest.raises(exception.PluginConflict, match="entry point Fixture::Dup"):
        loader.load_entry_points(entry_points=[make_ep("Fixture::Dup", f"{__name__}:EPServer")])
