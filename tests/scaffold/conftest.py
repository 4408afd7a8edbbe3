"""Shared helpers of the scaffold tests; registers the ``slow`` marker."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator.scaffold import find_template

KINDS = ("resource", "lifecycle", "cloud_driver", "fake_cloud_backend")
#: The home directory before the tests moved HOME (pip's wheel cache lives there).
ORIGINAL_HOME = Path.home()


def pytest_configure(config: pytest.Config) -> None:
    """Register ``slow``: end-to-end tests that build virtual environments (``-m slow``)."""
    config.addinivalue_line(
        "markers", "slow: end-to-end tests that install into fresh virtual environments"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave ``slow`` tests out unless the ``-m`` expression names them (``-m slow``)."""
    if "slow" in (config.getoption("markexpr", "") or ""):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


@pytest.fixture(scope="session")
def template() -> Path:
    """The checkout's cookiecutter-plugin/ directory."""
    return find_template()


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Keep cookiecutter's replay files and config out of the real home directory."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("COOKIECUTTER_CONFIG", raising=False)
