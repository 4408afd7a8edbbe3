"""Shared fixtures: provider/profile files for the bundled DigitalOcean driver and a driver writer."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

TOKEN = "plugsim-digitalocean-token"
BUNDLED = Path(__file__).resolve().parents[2] / "examples" / "drivers" / "digitalocean_v2.py"

PROVIDERS = {"my-do": {"driver": "digitalocean", "personal_access_token": TOKEN}}
PROFILES = {
    "do-small": {
        "provider": "my-do",
        "size": "s-1vcpu-2gb",
        "image": "ubuntu-22-04-x64",
        "location": "nyc3",
    }
}


@pytest.fixture
def configs(tmp_path: Path) -> tuple[Path, Path]:
    """Write providers.yaml and profiles.yaml for the bundled DO driver; return their paths."""
    providers = tmp_path / "providers.yaml"
    profiles = tmp_path / "profiles.yaml"
    providers.write_text(yaml.safe_dump(PROVIDERS))
    profiles.write_text(yaml.safe_dump(PROFILES))
    return providers, profiles


@pytest.fixture
def write_driver(tmp_path: Path):
    """Return a function writing a driver module into tmp_path/drivers and returning its path."""
    folder = tmp_path / "drivers"
    folder.mkdir(exist_ok=True)

    def write(name: str, body: str) -> Path:
        path = folder / f"{name}.py"
        path.write_text(textwrap.dedent(body))
        return path

    return write


@pytest.fixture(autouse=True)
def _plugsim_contract_outside_salt_tests(request: pytest.FixtureRequest, monkeypatch) -> None:
    """Tests outside tests/drivers/salt exercise plugsim's own contract, Salt installed or not.

    With Salt installed the harness switches to real-Salt mode by itself, where
    ``driver: digitalocean`` is Salt's driver; these tests mean the bundled one.
    """
    if "salt" not in request.node.path.parent.parts[-1:]:
        monkeypatch.setenv("PLUGSIM_SALT_MODE", "0")
