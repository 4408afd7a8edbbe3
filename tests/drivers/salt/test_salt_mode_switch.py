"""Switching real-Salt mode on and off, and keeping Salt's paths in the temp dir (no Salt needed)."""

from __future__ import annotations

import os
import sys
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk.exception import ConfigurationError
from simulator.drivers import DriverHarness
from simulator.drivers import salt_mode as sm
from tests.drivers.conftest import PROFILES, PROVIDERS

ROOT = "/tmp/plugsim-salt-test"
MISSING = "Salt is not installed (pip install 'plugsim[salt]')"


@pytest.fixture
def no_salt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Behave as if Salt were not installed."""
    monkeypatch.setattr(sm, "salt_unavailable_reason", lambda: MISSING)
    monkeypatch.delenv(sm.SALT_MODE_ENV, raising=False)


@pytest.fixture
def with_salt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Behave as if Salt imported cleanly (only the decision is exercised)."""
    monkeypatch.setattr(sm, "salt_unavailable_reason", lambda: None)
    monkeypatch.delenv(sm.SALT_MODE_ENV, raising=False)


def test_auto_mode_is_off_without_salt(no_salt: None) -> None:
    assert sm.salt_mode_wanted(None) is False
    assert sm.salt_available() is False
    assert sm.salt_version() is None


def test_auto_mode_is_on_when_salt_imports(with_salt: None) -> None:
    assert sm.salt_mode_wanted(None) is True


def test_explicit_false_wins_over_an_installed_salt(with_salt: None) -> None:
    assert sm.salt_mode_wanted(False) is False


def test_asking_for_salt_mode_without_salt_says_why(no_salt: None) -> None:
    with pytest.raises(ConfigurationError) as err:
        sm.salt_mode_wanted(True)
    assert str(err.value) == f"salt_mode=True: real-Salt mode is not available: {MISSING}"


@pytest.mark.parametrize("value", ["0", "false", "OFF", " no "])
def test_environment_turns_the_mode_off(with_salt: None, monkeypatch, value: str) -> None:
    monkeypatch.setenv(sm.SALT_MODE_ENV, value)
    assert sm.salt_mode_wanted(None) is False


def test_environment_asking_for_the_mode_without_salt_names_the_variable(
    no_salt: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(sm.SALT_MODE_ENV, "1")
    with pytest.raises(ConfigurationError) as err:
        sm.salt_mode_wanted(None)
    assert str(err.value) == f"PLUGSIM_SALT_MODE=1: real-Salt mode is not available: {MISSING}"


def test_a_bad_environment_value_is_named(no_salt: None, monkeypatch) -> None:
    monkeypatch.setenv(sm.SALT_MODE_ENV, "sometimes")
    with pytest.raises(ConfigurationError) as err:
        sm.salt_mode_wanted(None)
    assert str(err.value) == ("PLUGSIM_SALT_MODE='sometimes': expected 1/true/on or 0/false/off")


def test_harness_without_salt_keeps_the_plain_opts(no_salt: None) -> None:
    harness = DriverHarness(PROVIDERS, PROFILES)
    assert harness.salt_mode is None
    assert harness.opts["providers"]["my-do"]["digitalocean"] == PROVIDERS["my-do"]
    assert harness.vm("do-small", "n1")["driver"] == "my-do:digitalocean"


def test_harness_asked_for_salt_mode_without_salt_fails_clearly(no_salt: None) -> None:
    with pytest.raises(ConfigurationError, match="salt_mode=True: real-Salt mode is not"):
        DriverHarness(PROVIDERS, PROFILES, salt_mode=True)


def test_only_salts_vendored_metadata_finders_are_dropped(monkeypatch) -> None:
    vendored = type("MetadataPathFinder", (), {"__module__": "salt.ext.importlib_metadata"})()
    other = type("Finder", (), {"__module__": "somewhere.else"})()
    monkeypatch.setattr(sys, "meta_path", [other, vendored, *sys.meta_path])
    assert sm._drop_vendored_metadata_finders() == ["MetadataPathFinder"]
    assert vendored not in sys.meta_path
    assert sys.meta_path[0] is other


# --- reroot --------------------------------------------------------------------------------------

segments = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.-", min_size=1, max_size=8).filter(
        lambda s: s not in (".", "..")
    ),
    min_size=1,
    max_size=5,
)


@given(segments)
def test_every_absolute_path_lands_under_the_root(parts: list[str]) -> None:
    path = "/" + "/".join(parts)
    moved = sm.reroot(path, ROOT)
    assert moved == os.path.join(ROOT, *parts)
    assert sm.reroot(moved, ROOT) == moved


@given(segments)
def test_relative_strings_and_kept_prefixes_stay(parts: list[str]) -> None:
    relative = "/".join(parts)
    assert sm.reroot(relative, ROOT) == relative
    kept = "/opt/salt/" + relative
    assert sm.reroot(kept, ROOT, keep=("/opt/salt",)) == kept


def test_reroot_walks_nested_values_and_the_placeholder() -> None:
    value = {
        "cachedir": "/var/cache/salt/cloud",
        "file_roots": {"base": ["/srv/salt"]},
        "search": ("/etc/salt/cloud.deploy.d", "relative"),
        "sock_dir": sm._PLACEHOLDER_ROOT + "/var/run/salt/master",
        "keysize": 4096,
        "root": "/",
    }
    assert sm.reroot(value, ROOT) == {
        "cachedir": f"{ROOT}/var/cache/salt/cloud",
        "file_roots": {"base": [f"{ROOT}/srv/salt"]},
        "search": (f"{ROOT}/etc/salt/cloud.deploy.d", "relative"),
        "sock_dir": f"{ROOT}/var/run/salt/master",
        "keysize": 4096,
        "root": "/",
    }


def test_salt_mode_refuses_to_build_without_salt(no_salt: None) -> None:
    from simulator.drivers.config import load_cloud_config
    from simulator.drivers.vtime import VirtualTimeModule

    clock = types.SimpleNamespace(now=lambda: 0.0, debt=lambda: 0.0)
    with pytest.raises(ConfigurationError) as err:
        sm.SaltMode(load_cloud_config(PROVIDERS, PROFILES), VirtualTimeModule(clock), None)
    assert str(err.value) == f"real-Salt mode is not available: {MISSING}"
