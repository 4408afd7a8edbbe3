"""Tests of the driver module: plugsim's salt-cloud driver conformance checks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from simulator.drivers import FAULT_KINDS, check_driver

DRIVER = Path(__file__).resolve().parents[1] / "{{ cookiecutter.package_name }}" / "driver.py"
PROVIDERS = {
    "my-provider": {
        "driver": "{{ cookiecutter.package_name }}",
        "personal_access_token": "plugsim-digitalocean-token",
    }
}
PROFILES = {
    "small": {
        "provider": "my-provider",
        "size": "s-1vcpu-2gb",
        "image": "ubuntu-22-04-x64",
        "location": "nyc3",
    }
}


def _configs(folder: Path) -> tuple[Path, Path]:
    providers, profiles = folder / "providers.yaml", folder / "profiles.yaml"
    providers.write_text(yaml.safe_dump(PROVIDERS))
    profiles.write_text(yaml.safe_dump(PROFILES))
    return providers, profiles


@pytest.mark.parametrize("kind", sorted(FAULT_KINDS))
def test_the_driver_conforms_under_each_fault_kind(tmp_path, kind):
    findings = check_driver(DRIVER, *_configs(tmp_path), seed=3, fault_kinds=[kind])
    assert [f for f in findings if f.severity == "error"] == []


@settings(max_examples=5, deadline=None)
@given(st.integers(min_value=0, max_value=2**31 - 1))
def test_the_baseline_conforms_for_any_seed(tmp_path_factory, seed):
    folder = tmp_path_factory.mktemp("configs")
    assert check_driver(DRIVER, *_configs(folder), seed=seed, fault_kinds=[]) == []
