"""A Heat plug-in imports a package from its own directory (``from common.mixins import ...``).

F5's plug-ins do this (``f5_heat/resources/common``); the compat layer lets
the import find the sibling package while the plug-in loads, and leaves
``sys.path`` and ``sys.modules`` as they were.
"""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

from simulator.heat_compat import load_heat_plugin
from simulator.heat_compat.loader import HeatCompatLoader
from simulator.heat_compat.siblings import sibling_imports, sibling_names

STYLE = Path(__file__).resolve().parent / "f5_style"
PARTITION = STYLE / "bigip_partition.py"


def _sibling_entries() -> list[str]:
    return sorted(n for n in sys.modules if n == "common" or n.startswith("common."))


def test_a_plugin_loads_with_its_sibling_package() -> None:
    path_before = list(sys.path)
    report = load_heat_plugin(PARTITION)
    assert report.errors == []
    cls = report.mapping["Test::BigIP::Partition"]
    assert cls.__name__ == "BigIPPartition"
    assert "BigIPUser" in [base.__name__ for base in cls.__mro__]
    assert sys.path == path_before
    assert _sibling_entries() == []


def test_plugins_of_one_directory_share_the_sibling_module(tmp_path: Path) -> None:
    shutil.copytree(STYLE / "common", tmp_path / "common")
    for name in ("one", "two"):
        (tmp_path / f"{name}.py").write_text(
            "from common import mixins\n"
            "from heat.engine import resource\n"
            f"class R(resource.Resource):\n    helper = mixins\n"
            f"def resource_mapping():\n    return {{'Test::Sib::{name}': R}}\n"
        )
    loader = HeatCompatLoader(force=True)
    one = loader.load_file(tmp_path / "one.py")
    two = loader.load_file(tmp_path / "two.py")
    assert one is not None and two is not None
    assert one.R.helper is two.R.helper
    assert one.R.helper.__file__ == str(tmp_path / "common" / "mixins.py")
    assert _sibling_entries() == []


def test_the_sibling_wins_over_a_module_of_the_same_name_and_that_module_returns() -> None:
    other = types.ModuleType("common")
    sys.modules["common"] = other
    try:
        loader = HeatCompatLoader(force=True)
        module = loader.load_file(PARTITION)
        assert module is not None, loader.report.errors
        assert module.BigIPUser.__module__ == "common.mixins"
        assert sys.modules["common"] is other
        assert "common.mixins" not in sys.modules
    finally:
        sys.modules.pop("common", None)


def test_a_missing_sibling_name_fails_in_one_line_naming_the_file(tmp_path: Path) -> None:
    shutil.copytree(STYLE / "common", tmp_path / "common")
    plugin = tmp_path / "broken.py"
    plugin.write_text("from common.mixins import nothing_here\nfrom heat.engine import resource\n")
    report = load_heat_plugin(plugin)
    assert len(report.errors) == 1
    text = str(report.errors[0])
    assert str(plugin) in text and "nothing_here" in text and "\n" not in text
    assert _sibling_entries() == []


def test_sibling_names_are_packages_and_modules_beside_the_file(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "plain_dir").mkdir()  # no __init__.py: not a package
    (tmp_path / "helper.py").write_text("")
    (tmp_path / "me.py").write_text("")
    (tmp_path / "heat").mkdir()  # the compat layer serves heat, never a sibling
    (tmp_path / "heat" / "__init__.py").write_text("")
    assert sibling_names(tmp_path, exclude="me") == {"pkg", "helper"}


def test_outside_the_block_the_sibling_is_not_importable(tmp_path: Path) -> None:
    (tmp_path / "lonely_helper.py").write_text("VALUE = 42\n")
    plugin = tmp_path / "p.py"
    plugin.write_text("")
    with sibling_imports(plugin):
        import lonely_helper  # noqa: PLC0415 - the import under test

        assert lonely_helper.VALUE == 42
    assert "lonely_helper" not in sys.modules
    assert str(tmp_path) not in sys.path_importer_cache
