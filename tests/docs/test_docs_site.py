"""The documentation site builds with warnings as errors (what ``nox -s docs`` runs)."""

from pathlib import Path

import pytest

build_main = pytest.importorskip("sphinx.cmd.build").build_main

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_docs_build_without_warnings(tmp_path):
    status = build_main(["-q", "-W", "--keep-going", "-b", "html", str(DOCS), str(tmp_path)])
    assert status == 0
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    for page in ("quickstart", "testing", "lint-rules", "architecture", "benchmarks"):
        assert f'href="{page}.html"' in index, page
