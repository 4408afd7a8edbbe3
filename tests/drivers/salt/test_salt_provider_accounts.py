"""Salt 3007's own drivers: each provider of a providers file is its own cloud account.

The providers file is written as the drivers' docstrings write it (DigitalOcean
with ``ssh_key_names``, Linode with ``apikey`` and ``password``). Skipped, with
the reason, when Salt does not import.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from simulator.cli.main import main
from simulator.drivers import DriverCallError, DriverHarness
from simulator.drivers import salt_mode as sm

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)


def _providers(key_file: Path) -> dict:
    return {
        "my-digital-ocean-config": {
            "personal_access_token": "xxx",
            "ssh_key_file": str(key_file),
            "ssh_key_names": "my-key-name,my-key-name-2",
            "driver": "digitalocean",
        },
        "my-linode-config": {
            "apikey": "f4ZsmwtB1c7f85Jdu43RgXVDFlNjuJaeIYV8QMftTqKScEB2vSos",
            "password": "F00barbaz1",
            "driver": "linode",
        },
    }


PROFILES = {
    "linode-web": {
        "provider": "my-linode-config",
        "size": "g6-nanode-1",
        "image": "linode/ubuntu22.04",
        "location": "us-east",
    },
    "do-web": {
        "provider": "my-digital-ocean-config",
        "size": "s-1vcpu-1gb",
        "image": "ubuntu-22-04-x64",
        "location": "nyc3",
    },
}


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    key = tmp_path / "id_ed25519"
    key.write_text("not a real key\n", encoding="utf-8")
    key.chmod(0o600)
    return key


def test_the_docstrings_ssh_key_names_are_keys_the_account_holds(key_file: Path) -> None:
    h = DriverHarness(_providers(key_file), PROFILES, salt_mode=True)
    keys = h.function("list_keypairs", "my-digital-ocean-config")
    assert set(keys["my-digital-ocean-config"]["digitalocean"]) >= {
        "my-key-name",
        "my-key-name-2",
    }
    h.create("do-web", "web1")
    assert h.cloud.inventory()  # created; the declared keys are not a leak
    assert not [i for i in h.cloud.inventory() if i.kind == "keypair" and not i.preseeded]


def test_a_linode_node_is_not_listed_or_destroyed_through_digitalocean(key_file: Path) -> None:
    h = DriverHarness(_providers(key_file), PROFILES, salt_mode=True)
    h.create("linode-web", "web2")
    listed = h.query("list_nodes")
    assert "web2" in listed["my-linode-config"]["linode"]
    assert listed["my-digital-ocean-config"]["digitalocean"] == {}
    with pytest.raises(DriverCallError):  # Salt's DigitalOcean driver does not find it
        h.call("my-digital-ocean-config", "destroy", "web2")
    assert h.query("list_nodes")["my-linode-config"]["linode"]["web2"]["state"] == "running"
    assert h.destroy("web2") == {"my-linode-config": {"linode": {"web2": None}}}


def _cloud(runner: CliRunner, state: Path, files: Path, *args: str):
    return runner.invoke(
        main,
        [
            "cloud",
            "--state",
            str(state),
            "--providers-config",
            str(files / "providers.yaml"),
            "--profiles-config",
            str(files / "profiles.yaml"),
            "--out",
            "json",
            *args,
        ],
    )


def test_cli_a_destroyed_node_leaves_the_query_and_the_inventory(
    tmp_path: Path, key_file: Path
) -> None:
    (tmp_path / "providers.yaml").write_text(yaml.safe_dump(_providers(key_file)))
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump(PROFILES))
    runner, state = CliRunner(), tmp_path / "w.db"
    assert _cloud(runner, state, tmp_path, "-p", "linode-web", "web2").exit_code == 0
    queried = json.loads(_cloud(runner, state, tmp_path, "-Q").stdout)
    assert queried["my-digital-ocean-config"]["digitalocean"] == {}
    assert list(queried["my-linode-config"]["linode"]) == ["web2"]
    destroyed = _cloud(runner, state, tmp_path, "-d", "web2")
    assert destroyed.exit_code == 0, destroyed.output
    assert list(json.loads(destroyed.stdout)) == ["my-linode-config"]
    queried = json.loads(_cloud(runner, state, tmp_path, "-Q").stdout)
    assert queried == {
        "my-digital-ocean-config": {"digitalocean": {}},
        "my-linode-config": {"linode": {}},
    }
    inventory = runner.invoke(main, ["cloud", "--state", str(state), "inventory", "-f", "json"])
    assert json.loads(inventory.stdout) == []
