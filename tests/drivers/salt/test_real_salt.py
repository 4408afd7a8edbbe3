"""Real-Salt mode with Salt installed: Salt's config, Salt's helpers, the harness's world.

Skipped, with the reason, when Salt does not import (CI installs ``plugsim[salt]``
in its own virtualenv and runs these there).
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from sdk.exception import ConfigurationError
from simulator.drivers import DriverCallError, DriverHarness, check_driver
from simulator.drivers import salt_mode as sm
from simulator.drivers.utils import http_query
from tests.drivers.conftest import BUNDLED, PROFILES, PROVIDERS, TOKEN

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "drivers" / "salt_style"
EXAMPLE_DRIVER = EXAMPLE / "digitalocean_salt.py"
SALT_DO = "salt.cloud.clouds.digitalocean"
SALT_PROVIDERS = {"my-do": {"driver": "digitalocean_salt", "personal_access_token": TOKEN}}
SALT_PROFILES = {"do-small": {**PROFILES["do-small"], "provider": "my-do"}}


@pytest.fixture
def harness() -> Iterator[DriverHarness]:
    """A harness in real-Salt mode for the Salt-style example driver."""
    h = DriverHarness(
        SALT_PROVIDERS,
        SALT_PROFILES,
        drivers={"digitalocean_salt": str(EXAMPLE_DRIVER)},
        salt_mode=True,
    )
    yield h
    h.salt_mode.close()


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


# --- __opts__ and vm_ ----------------------------------------------------------------------------


def test_mode_is_on_by_itself_when_salt_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sm.SALT_MODE_ENV, raising=False)
    assert DriverHarness(SALT_PROVIDERS, SALT_PROFILES).salt_mode is not None


def test_mode_reports_the_salt_version(harness: DriverHarness) -> None:
    assert harness.salt_mode.version == importlib.import_module("salt.version").__version__


def test_opts_come_from_salts_config_code(harness: DriverHarness) -> None:
    provider = harness.opts["providers"]["my-do"]["digitalocean_salt"]
    assert provider["personal_access_token"] == TOKEN
    assert provider["profiles"]["do-small"]["provider"] == "my-do:digitalocean_salt"
    assert harness.opts["profiles"]["do-small"]["profile"] == "do-small"
    assert harness.opts["script"] == "bootstrap-salt"  # salt.config.DEFAULT_CLOUD_OPTS
    assert harness.opts["query.selection"] == ["id", "image", "size", "state"]


def test_no_path_in_opts_leaves_the_temp_dir(harness: DriverHarness) -> None:
    root = harness.salt_mode.root
    package = os.path.dirname(importlib.import_module("salt").__file__)
    outside = [
        s
        for s in _strings(harness.opts)
        if os.path.isabs(s) and s != "/" and not s.startswith((root, package))
    ]
    assert outside == []
    assert harness.opts["cachedir"].startswith(root)
    assert harness.opts["sock_dir"].startswith(root)
    assert harness.opts["pki_dir"].startswith(root)


def test_temp_dir_is_removed_on_close() -> None:
    h = DriverHarness(SALT_PROVIDERS, SALT_PROFILES, salt_mode=True)
    root = h.salt_mode.root
    assert os.path.isdir(root)
    h.salt_mode.close()
    assert not os.path.exists(root)


def test_vm_is_built_like_salt_clouds_vm_config(harness: DriverHarness) -> None:
    vm_ = harness.vm("do-small", "web-1")
    assert vm_["name"] == "web-1"
    assert vm_["profile"] == "do-small"
    assert vm_["provider"] == "my-do:digitalocean_salt"
    assert vm_["driver"] == "digitalocean_salt"  # the provider's own 'driver' setting
    assert vm_["personal_access_token"] == TOKEN  # provider settings are merged in
    assert vm_["os"] == "bootstrap-salt"
    assert "profiles" not in vm_


def test_explicit_false_keeps_the_plain_harness_even_with_salt() -> None:
    h = DriverHarness(SALT_PROVIDERS, SALT_PROFILES, salt_mode=False)
    assert h.salt_mode is None
    assert "profiles" not in h.opts["providers"]["my-do"]["digitalocean_salt"]


def test_importing_salt_leaves_entry_points_working() -> None:
    assert sm.salt_available()
    names = [ep.name for ep in metadata.entry_points(group="console_scripts")]
    assert isinstance(names, list)


# --- __utils__ ------------------------------------------------------------------------------------


def test_pure_helpers_are_salts_own_functions(harness: DriverHarness) -> None:
    salt_file = importlib.import_module("salt.utils.cloud").__file__
    for name in ("filter_event", "is_public_ip", "list_nodes_select", "wait_for_ip"):
        fun = harness.utils[f"cloud.{name}"]
        assert fun.__code__.co_filename == salt_file, name
        assert fun.__module__.startswith("_plugsim_salt_utils_cloud_"), name
    assert harness.utils["cloud.is_public_ip"]("10.1.2.3") is False
    assert harness.utils["cloud.is_public_ip"]("203.0.113.9") is True
    assert harness.utils["http.query"] is http_query


def test_salts_filter_event_reads_the_configured_filter() -> None:
    h = DriverHarness(
        SALT_PROVIDERS,
        SALT_PROFILES,
        settings={"filter_events": {"creating": {"keys": ["size"], "use_defaults": False}}},
        salt_mode=True,
    )
    got = h.utils["cloud.filter_event"]("creating", {"name": "n", "size": "s"}, ["name"])
    assert got == {"size": "s"}


def test_fire_event_goes_to_the_harness_bus(harness: DriverHarness) -> None:
    with harness.session():
        harness.utils["cloud.fire_event"](
            "event", "hello", "salt/cloud/x/creating", sock_dir="/nowhere", args={"name": "x"}
        )
    assert [(e.tag, e.data, e.message) for e in harness.events()] == [
        ("salt/cloud/x/creating", {"name": "x"}, "hello")
    ]


def test_a_missing_helper_lists_the_available_ones(harness: DriverHarness) -> None:
    with pytest.raises(KeyError) as err:
        harness.utils["cloud.gen_keys"]
    assert "__utils__['cloud.gen_keys'] is not provided by the plugsim harness" in str(err.value)
    assert "cloud.bootstrap" in str(err.value)


def test_wait_for_port_is_the_simulated_deploys_port_wait(harness: DriverHarness) -> None:
    with harness.session():
        assert harness.utils["cloud.wait_for_port"]("198.51.100.250", timeout=30) is False
    record = harness.deployer.records[-1]
    assert (record.method, record.deployed) == ("port", False)
    assert record.message == (
        "deploy to 198.51.100.250:22 failed: no server of the fake cloud has the address "
        "198.51.100.250 (nothing was contacted)"
    )
    node = harness.create("do-small", "web-port")
    with harness.session():
        assert harness.utils["cloud.wait_for_port"](node["public_ips"][0]) is True
    assert harness.deployer.records[-1].method == "port"
    assert harness.deployer.records[-1].deployed is True


# --- the scoped patch -----------------------------------------------------------------------------


def test_global_salt_helpers_are_virtual_only_inside_a_driver_call(harness: DriverHarness) -> None:
    cloud_utils = importlib.import_module("salt.utils.cloud")
    real_fire = cloud_utils.fire_event
    calls = []

    def callback() -> Any:
        calls.append(harness.now())
        return "up" if len(calls) == 3 else None

    start, wall = harness.now(), time.monotonic()
    with harness.session():
        assert cloud_utils.time is harness.time_shim
        assert cloud_utils.fire_event is not real_fire
        assert cloud_utils.wait_for_ip(callback, timeout=600, interval=40) == "up"
    assert calls == [start, start + 40, start + 80]
    assert time.monotonic() - wall < 5
    assert cloud_utils.time is time
    assert cloud_utils.fire_event is real_fire


def test_impure_salt_helpers_refuse_with_a_message(harness: DriverHarness) -> None:
    cloud_utils = importlib.import_module("salt.utils.cloud")
    with harness.session(), pytest.raises(Exception) as err:
        cloud_utils.wait_for_winrm("203.0.113.5", 5986, "Administrator", "pw")
    assert type(err.value).__name__ == "SaltCloudSystemExit"
    assert "salt.utils.cloud.wait_for_winrm() would reach a real machine" in str(err.value)


# --- the Salt-style example driver ----------------------------------------------------------------


def test_example_driver_creates_in_virtual_time(harness: DriverHarness) -> None:
    wall = time.monotonic()
    node = harness.create("do-small", "web-1")
    assert node["state"] == "active"
    assert node["deployed"] is True
    assert harness.now() > 30  # it waited for the droplet and the SSH port, virtually
    assert time.monotonic() - wall < 10
    assert [e.tag for e in harness.events()] == [
        "salt/cloud/web-1/creating",
        "salt/cloud/web-1/requesting",
        "salt/cloud/web-1/deploying",
        "salt/cloud/web-1/created",
    ]
    listed = harness.query("list_nodes")["my-do"]["digitalocean_salt"]
    assert listed["web-1"]["public_ips"] == node["public_ips"]
    assert harness.destroy("web-1") == {
        "my-do": {"digitalocean_salt": {"web-1": {"id": node["id"], "deleted": True}}}
    }


@pytest.fixture
def salt_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """check_driver's harnesses in real-Salt mode, whatever the environment said."""
    monkeypatch.setenv(sm.SALT_MODE_ENV, "1")


def test_example_driver_passes_every_conformance_scenario(salt_env: None) -> None:
    findings = check_driver(EXAMPLE_DRIVER, SALT_PROVIDERS, SALT_PROFILES)
    assert [str(f) for f in findings] == []


def test_example_driver_without_token_names_the_key(tmp_path: Path) -> None:
    providers = {"my-do": {"driver": "digitalocean_salt"}}
    h = DriverHarness(
        providers, SALT_PROFILES, drivers={"digitalocean_salt": str(EXAMPLE_DRIVER)}, salt_mode=True
    )
    with pytest.raises(ConfigurationError) as err:
        h.driver("my-do")
    assert str(err.value).startswith(
        "providers: my-do.personal_access_token: missing credential personal_access_token "
        "required by driver 'digitalocean_salt'"
    )


def test_example_driver_cannot_reach_a_host_no_fake_serves() -> None:
    providers = {"my-do": {**SALT_PROVIDERS["my-do"], "api_root": "https://api.example.invalid/v2"}}
    h = DriverHarness(
        providers, SALT_PROFILES, drivers={"digitalocean_salt": str(EXAMPLE_DRIVER)}, salt_mode=True
    )
    with pytest.raises(DriverCallError) as err:
        h.call("my-do", "list_nodes")
    assert "no fake cloud serves" in str(err.value)
    assert "https://api.example.invalid/v2/droplets" in str(err.value)
    # -Q maps providers as Salt does: this one lists nothing, its error is kept per provider
    assert h.query("list_nodes") == {"my-do": {"digitalocean_salt": []}}
    assert "https://api.example.invalid/v2/droplets" in h.listing_errors[0][1]


def test_the_plugsim_native_driver_also_conforms_in_salt_mode(salt_env: None) -> None:
    # 'driver: digitalocean' is Salt's own driver in real-Salt mode; the bundled one is named.
    assert [str(f) for f in check_driver(BUNDLED, PROVIDERS, PROFILES)] == []


# --- Salt's own in-tree DigitalOcean driver, unmodified -------------------------------------------


SALT_DO_SETTINGS = {"ssh_agent": True}  # its create() needs a key file or an SSH agent


def test_salts_own_digitalocean_driver_creates_and_destroys() -> None:
    h = DriverHarness(
        PROVIDERS,
        PROFILES,
        drivers={"digitalocean": SALT_DO},
        settings=SALT_DO_SETTINGS,
        salt_mode=True,
    )
    node = h.create("do-small", "salt-web")
    assert node["status"] == "active" or node["networks"]["v4"]
    assert node["deployed"] is True
    assert [e.kind for e in h.events("salt/cloud/salt-web/")] == [
        "creating",
        "requesting",
        "deploying",
        "created",
    ]
    h.destroy("salt-web")
    assert [e.kind for e in h.events("salt/cloud/salt-web/")][-2:] == ["destroying", "destroyed"]


def test_salts_own_digitalocean_driver_findings(salt_env: None) -> None:
    findings = check_driver(
        SALT_DO, PROVIDERS, PROFILES, settings=SALT_DO_SETTINGS, fault_kinds=["slow_boot"]
    )
    got = {(f.scenario, f.check) for f in findings}
    for expected in [
        ("baseline", "events.payload"),  # requesting carries the kwargs bare, not {"kwargs": ...}
        ("baseline", "list_nodes.fields"),  # list_nodes adds 'name'
        ("baseline", "list_nodes.types"),  # id is an int
        ("baseline", "list_nodes_full.fields"),  # raw API fields: no state/private_ips/public_ips
        ("baseline", "call.refusal"),  # several -f functions log and return False
        ("slow_boot", "leaks"),  # a failed deploy leaves the droplet behind
    ]:
        assert expected in got, expected
    assert not any(f.check in ("load", "events.secret", "events.order") for f in findings)
    messages = [f.message for f in findings]
    assert "list_nodes()['conformance-baseline'].id is int, not str" in messages
