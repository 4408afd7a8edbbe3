"""The documentation site builds with warnings as errors (what ``nox -s docs`` runs)."""

from pathlib import Path

import pytest

build_main = pytest.importorskip("sphinx.cmd.build").build_main

#: The whole site: a couple of minutes of Sphinx (the material tier, ``-m material``).
pytestmark = pytest.mark.material

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_docs_build_without_warnings(tmp_path):
    status = build_main(["-q", "-W", "--keep-going", "-b", "html", str(DOCS), str(tmp_path)])
    assert status == 0
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    pages = (
        "quickstart",
        "testing",
        "lint-rules",
        "architecture",
        "benchmarks",
        "cli",
        "guide/fake-clouds",
        "api/sdk",
        "api/simulator",
        "api/fake_clouds",
    )
    for page in pages:
        assert f'href="{page}.html"' in index, page
    api = (tmp_path / "api" / "simulator.html").read_text(encoding="utf-8")
    assert 'id="simulator.world.World"' in api
    api = (tmp_path / "api" / "fake_clouds.html").read_text(encoding="utf-8")
    assert 'id="fake_clouds.core.world.FakeCloud"' in api
    cli = (tmp_path / "cli.html").read_text(encoding="utf-8")
    assert 'id="plugsim-stack-create"' in cli
