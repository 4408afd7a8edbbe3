"""Plug-in directories holding packages load as Heat's loader loads them (issue 35 item 7).

Heat imports its plug-in directories as packages (``pkgutil.walk_packages``): a
package's ``__init__.py`` is a module like any other, and modules of a sub-package
import their siblings relatively. plugsim's ``--plugin-dir``, ``plugin_dirs`` and
``lint --against`` (:func:`sdk.lint.schema_dump.describe`) must find the same types.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from sdk import plugins
from sdk.lint.schema_dump import describe

RESOURCE = textwrap.dedent(
    """
    from sdk import properties
    from sdk.resource import Resource

    class {cls}(Resource):
        properties_schema = {{"size": properties.Schema(properties.Schema.INTEGER, "{doc}")}}
    """
)


def _tree(root: Path, types: str = "Acme") -> None:
    pkg = root / "acme"
    (pkg / "storage").mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        RESOURCE.format(cls="Box", doc="a box")
        + f"\ndef resource_mapping():\n    return {{'{types}::Box': Box}}\n"
    )
    (pkg / "common.py").write_text("UNIT = 'GiB'\n")
    (pkg / "storage" / "__init__.py").write_text("")
    (pkg / "storage" / "volume.py").write_text(
        "from ..common import UNIT\nfrom . import helpers\n"
        + RESOURCE.format(cls="Volume", doc="size")
        + "\nVolume.unit = UNIT + helpers.SUFFIX\n"
        + f"\ndef resource_mapping():\n    return {{'{types}::Volume': Volume}}\n"
    )
    (pkg / "storage" / "helpers.py").write_text("SUFFIX = '!'\n")
    (pkg / "_private.py").write_text("raise RuntimeError('private helpers are not plug-ins')\n")


def test_a_packages_init_and_a_sub_packages_relative_imports_load(tmp_path):
    _tree(tmp_path)
    report = plugins.load_plugin_dirs([tmp_path])
    assert report.errors == []
    assert list(report.mapping) == ["Acme::Box", "Acme::Volume"]
    assert report.mapping["Acme::Volume"].unit == "GiB!"
    assert report.sources["Acme::Box"] == str(tmp_path / "acme" / "__init__.py")
    assert report.sources["Acme::Volume"] == str(tmp_path / "acme" / "storage" / "volume.py")


def test_two_directories_with_packages_of_one_name_do_not_clash(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    _tree(first, "One")
    _tree(second, "Two")
    report = plugins.load_plugin_dirs([first, second])
    assert report.errors == []
    assert list(report.mapping) == ["One::Box", "One::Volume", "Two::Box", "Two::Volume"]
    assert report.mapping["One::Box"] is not report.mapping["Two::Box"]


def test_a_broken_sub_package_is_reported_and_the_rest_loads(tmp_path):
    _tree(tmp_path)
    (tmp_path / "acme" / "storage" / "__init__.py").write_text("import plugsim_nowhere_at_all\n")
    report = plugins.load_plugin_dirs([tmp_path])
    assert list(report.mapping) == ["Acme::Box"]
    bad = {Path(e.path).relative_to(tmp_path).as_posix() for e in report.errors}
    assert "acme/storage/__init__.py" in bad
    assert all("plugsim_nowhere_at_all" in e.message for e in report.errors)


def test_lint_against_reads_the_same_types(tmp_path):
    _tree(tmp_path)
    described = describe([tmp_path])
    assert described["errors"] == []
    assert sorted(described["types"]) == ["Acme::Box", "Acme::Volume"]
