"""Salt's proxmox driver, whose API no fake serves: ``-p`` says so in one line.

The driver catches the connection error, logs it and returns False; the
error it logs is the harness's one-line refusal naming the method and URL
(not ``responses``' list of every registered route), and ``plugsim cloud -p``
shows what salt-cloud shows for a create that returned False.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from simulator.cli.main import main
from simulator.drivers import DriverHarness
from simulator.drivers import salt_mode as sm

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)
pytest.importorskip("IPy", reason="Salt's proxmox driver needs IPy (plugsim[salt])")

# As the driver's docstring writes them.
PROVIDERS = {
    "my-proxmox-config": {
        "driver": "proxmox",
        "user": "myuser@pam",
        "password": "badpassword",
        "url": "your.proxmox.host",
        "port": 8006,
    }
}
PROFILES = {
    "proxmox-ubuntu": {
        "provider": "my-proxmox-config",
        "image": "local:vztmpl/ubuntu-12.04-standard_12.04-1_amd64.tar.gz",
        "technology": "lxc",
        "host": "myvmhost",
        "ip_address": "192.168.100.155",
        "password": "topsecret",
    }
}
REFUSAL = (
    "no fake cloud serves POST https://your.proxmox.host:8006/api2/json/access/ticket "
    "(real network I/O is refused)"
)


def test_the_logged_error_is_one_line(caplog: pytest.LogCaptureFixture) -> None:
    h = DriverHarness(PROVIDERS, PROFILES, salt_mode=True)
    with caplog.at_level(logging.ERROR):
        assert h.create("proxmox-ubuntu", "web1") is False
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert REFUSAL in logged
    assert "re.compile" not in logged and len(logged) < 400


def test_cli_profile_shows_salt_clouds_failed_deploy(tmp_path: Path) -> None:
    (tmp_path / "providers.yaml").write_text(yaml.safe_dump(PROVIDERS))
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump(PROFILES))
    result = CliRunner().invoke(
        main,
        [
            "cloud",
            "--state",
            str(tmp_path / "w.db"),
            "--providers-config",
            str(tmp_path / "providers.yaml"),
            "--profiles-config",
            str(tmp_path / "profiles.yaml"),
            "--out",
            "json",
            "-p",
            "proxmox-ubuntu",
            "web1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"web1": {"Error": "Failed to deploy VM"}}
    assert "re.compile" not in result.output


def test_one_failing_provider_does_not_fail_the_query() -> None:
    linode = {
        "driver": "linode",
        "apikey": "f4ZsmwtB1c7f85Jdu43RgXVDFlNjuJaeIYV8QMftTqKScEB2vSos",
        "password": "F00barbaz1",
    }
    profile = {"provider": "my-linode", "size": "g6-nanode-1", "image": "linode/ubuntu22.04"}
    h = DriverHarness(
        {**PROVIDERS, "my-linode": linode},
        {**PROFILES, "web": {**profile, "location": "us-east"}},
        salt_mode=True,
    )
    h.create("web", "web1")
    listed = h.query("list_nodes")
    # as Salt's map_providers: the failing provider lists nothing, the others still answer
    assert listed["my-proxmox-config"] == {"proxmox": []}
    assert list(listed["my-linode"]["linode"]) == ["web1"]
    [(alias, message)] = h.listing_errors
    assert alias == "my-proxmox-config" and "no fake cloud serves" in message


def test_cli_destroy_through_a_failing_listing_names_the_provider(tmp_path: Path) -> None:
    (tmp_path / "providers.yaml").write_text(yaml.safe_dump(PROVIDERS))
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump(PROFILES))
    result = CliRunner().invoke(
        main,
        [
            "cloud",
            "--state",
            ":memory:",
            "--providers-config",
            str(tmp_path / "providers.yaml"),
            "--profiles-config",
            str(tmp_path / "profiles.yaml"),
            "-d",
            "web1",
        ],
    )
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith("Error: provider my-proxmox-config: ")
    assert "no fake cloud serves" in lines[0]
    assert lines[-1] == "Error: The node (web1) could not be found."
