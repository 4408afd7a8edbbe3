"""tools/salt_drivers.py: the providers files it measures are the drivers' docstrings' shapes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

from simulator.drivers import salt_mode as sm

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)
TOOL = Path(__file__).resolve().parents[3] / "tools" / "salt_drivers.py"


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("plugsim_salt_drivers_tool", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_configs_are_written_as_the_docstrings_write_them(tool) -> None:
    providers, _ = tool.configs("digitalocean", "/k")
    assert providers["my-digitalocean"]["ssh_key_names"] == "my-key-name,my-key-name-2"
    providers, profiles = tool.configs("openstack", "/k")
    auth = providers["my-openstack"]["auth"]
    assert auth["auth_url"] == "http://openstack/identity"  # DevStack's, no /v3
    assert auth["user_domain_name"] == "default"
    assert "network" not in profiles["openstack-vm"] and "networks" not in profiles["openstack-vm"]
    assert profiles["openstack-vm"]["ssh_key_file"] == "/k"
    assert tool.WORLDS["openstack"] == "devstack"
    assert set(tool.configs("hetzner", "/k")[0]["my-hetzner"]) == {"driver", "key"}


def test_show_configs_prints_every_measured_driver(tool) -> None:
    text = tool.show_configs(["digitalocean", "openstack", "lxc"], "/k")
    assert "# openstack (world: devstack)" in text and "# lxc" not in text
    first = text.split("# openstack")[0].split("\n", 1)[1]
    assert yaml.safe_load(first)["providers"]["my-digitalocean"]["driver"] == "digitalocean"


def test_a_create_returning_false_is_a_failed_step_with_the_logged_reason(tool) -> None:
    pytest.importorskip("IPy", reason="Salt's proxmox driver needs IPy (plugsim[salt])")
    row = tool.measure("proxmox", "/nonexistent/key")
    assert row["steps"]["-p"] == "no" and row["passed"] == 0
    assert row["why"] == (
        "-p: create() returned False: no fake cloud serves POST "
        "https://hypervisor.domain.tld:8006/api2/json/access/ticket (real network I/O is refused)"
    )
