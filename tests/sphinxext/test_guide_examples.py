"""The code of the resource plug-in guide (docs/examples/) works as the guide says."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


@pytest.fixture(scope="module")
def examples(request: pytest.FixtureRequest):
    """Import the example modules from docs/examples (as the guide's reader would)."""
    sys.path.insert(0, str(EXAMPLES))
    request.addfinalizer(lambda: sys.path.remove(str(EXAMPLES)))
    import dns_zone
    import test_dns_zone as standalone

    return dns_zone, standalone


EXAMPLE_TESTS = [
    "test_a_stack_snapshot_records_the_ttl_and_restore_brings_it_back",
    "test_a_vendor_client_plugin_classifies_its_errors",
    "test_a_zone_that_goes_to_error_is_retried_then_fails",
    "test_bad_properties_name_the_template_path",
    "test_changing_the_name_asks_for_a_replacement",
    "test_create_polls_until_active_then_update_changes_ttl_in_place",
    "test_retain_policy_leaves_the_zone_alone",
    "test_snapshot_policy_keeps_a_backup_and_deletes_the_zone",
]


def test_the_list_below_names_every_example_test(examples) -> None:
    _, standalone = examples
    assert sorted(n for n in dir(standalone) if n.startswith("test_")) == EXAMPLE_TESTS


@pytest.mark.parametrize("name", EXAMPLE_TESTS)
def test_example_test_from_the_guide_passes(examples, name: str) -> None:
    _, standalone = examples
    getattr(standalone, name)()


def test_the_example_plugin_publishes_its_type_and_renders(examples) -> None:
    from sdk.sphinxext import hot_example, module_resource_types

    dns_zone, _ = examples
    assert module_resource_types("dns_zone") == {"Example::DNS::Zone": dns_zone.DNSZone}
    assert hot_example("Example::DNS::Zone", dns_zone.DNSZone) == (
        "resources:\n"
        "  zone:\n"
        "    type: Example::DNS::Zone\n"
        "    properties:\n"
        "      name: a.\n"
        "      email: example\n"
    )


def test_the_guide_builds_strictly_with_its_examples(tmp_path: Path) -> None:
    import shutil

    from sphinx.cmd.build import build_main

    root = EXAMPLES.parents[1]
    src = tmp_path / "docs"
    (src / "guide").mkdir(parents=True)
    shutil.copy(root / "docs" / "guide" / "resource-plugins.rst", src / "guide")
    shutil.copytree(root / "docs" / "examples", src / "examples")
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(root)!r})\n"
        'project = "guide"\nextensions = ["sdk.sphinxext"]\n'
    )
    (src / "index.rst").write_text("Guide\n=====\n\n.. toctree::\n\n   guide/resource-plugins\n")
    out = tmp_path / "out"
    assert build_main(["-q", "-W", "-E", "-b", "text", str(src), str(out)]) == 0
    text = (out / "guide" / "resource-plugins.txt").read_text()
    assert "class DNSZone(resource.Resource):" in text
    assert "def make_zone(cloud: FakeCloud" in text
    assert "Example::DNS::Zone\n------------------" in text
    assert "resources:\n     zone:\n       type: Example::DNS::Zone" in text
