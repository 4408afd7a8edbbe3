"""As a salt-cloud user: driver names resolve like salt-cloud, the configuration stays as written.

Skipped, with the reason, when Salt does not import.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator.drivers import DriverHarness, check_driver
from simulator.drivers import salt_mode as sm

pytestmark = pytest.mark.skipif(
    not sm.salt_available(), reason=f"needs Salt: {sm.salt_unavailable_reason()}"
)

CLOUDS = "salt/cloud/clouds"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "drivers"


def _harness(providers: dict, profiles: dict | None = None, **kwargs) -> DriverHarness:
    return DriverHarness(providers, profiles or {}, salt_mode=True, **kwargs)


def _do(token: str = "dop_v1_my_own_token", **more: object) -> dict:
    return {"my-do": {"driver": "digitalocean", "personal_access_token": token, **more}}


# --- names resolve like salt-cloud ----------------------------------------------------------------


def test_digitalocean_is_salts_own_driver() -> None:
    h = _harness(_do())
    assert h.driver("my-do").source.endswith(f"{CLOUDS}/digitalocean.py")


def test_a_virtualname_finds_salts_file_vultr_is_vultrpy() -> None:
    h = _harness({"v": {"driver": "vultr", "api_key": "k"}})
    assert h.locator.find("vultr") == "salt.cloud.clouds.vultrpy"


def test_a_driver_dir_overrides_salts_in_tree_driver_as_in_salt_3007(write_driver) -> None:
    path = write_driver(
        "digitalocean",
        """
        def __virtual__():
            return True

        def get_configured_provider():
            return True
        """,
    )
    h = _harness(_do(), driver_dirs=[path.parent])
    assert h.driver("my-do").source == str(path)


def test_bundled_examples_answer_only_to_their_own_file_names() -> None:
    h = _harness(
        {
            "a": {"driver": "digitalocean_v2", "personal_access_token": "t"},
            "b": {"driver": "digitalocean_salt", "personal_access_token": "t"},
        }
    )
    assert h.driver("a").source == str(EXAMPLES / "digitalocean_v2.py")
    assert h.driver("a").name == "digitalocean_v2"
    assert h.driver("b").source == str(EXAMPLES / "salt_style" / "digitalocean_salt.py")
    assert "digitalocean_v2" in h.locator.known()


def test_salt_cloud_requires_only_get_configured_provider_scaleway_loads() -> None:
    h = _harness({"sw": {"driver": "scaleway", "access_key": "a", "token": "t"}})
    loaded = h.driver("sw")
    assert loaded.function("avail_sizes") is None
    assert loaded.missing_functions() == []


def test_conformance_does_not_refuse_scaleway_for_lacking_avail_sizes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(sm.SALT_MODE_ENV, "1")
    findings = check_driver(
        None,
        {"sw": {"driver": "scaleway", "access_key": "a", "token": "t"}},
        {"sw-small": {"provider": "sw", "image": "ubuntu", "size": "DEV1-S"}},
        fault_kinds=[],
    )
    assert not [f for f in findings if "avail_sizes" in f.message]


# --- the configuration as the user wrote it ---------------------------------------------------------


def test_absolute_paths_in_the_configuration_stay_as_written(tmp_path: Path) -> None:
    key = tmp_path / "id_ed25519"
    profiles = {"web": {"provider": "my-do", "size": "s-1vcpu-1gb", "image": "ubuntu-22-04-x64"}}
    h = _harness(
        _do(ssh_key_file=str(key), ssh_key_names="k"),
        profiles,
        settings={"known_hosts_file": "/dev/null"},
    )
    provider = h.opts["providers"]["my-do"]["digitalocean"]
    assert provider["ssh_key_file"] == str(key)
    assert h.opts["known_hosts_file"] == "/dev/null"
    assert h.vm("web", "web-1")["ssh_key_file"] == str(key)
    # Salt's own directories are still redirected into the private root
    for name in ("cachedir", "pki_dir", "sock_dir"):
        assert h.opts[name].startswith(h.salt_mode.root), name


def test_cloudstacks_url_is_not_rewritten() -> None:
    url = "https://cloud.example.com/client/api"
    h = _harness(
        {"cs": {"driver": "cloudstack", "url": url, "apikey": "k", "secretkey": "s"}},
    )
    assert h.opts["providers"]["cs"]["cloudstack"]["url"] == url


def test_dev_null_stays_dev_null() -> None:
    h = _harness(_do(ssh_key_file="/dev/null"))
    assert h.opts["providers"]["my-do"]["digitalocean"]["ssh_key_file"] == "/dev/null"


# --- the credential and the catalogue ------------------------------------------------------------


def _key_file(tmp_path: Path) -> str:
    key = tmp_path / "id_ed25519"
    key.write_text("not a real key\n")
    return str(key)


def test_salts_digitalocean_driver_runs_with_the_users_own_token_and_documented_slugs(
    tmp_path: Path,
) -> None:
    profiles = {
        "do-1gb": {
            "provider": "my-do",
            "size": "s-1vcpu-1gb",
            "image": "ubuntu-22-04-x64",
            "location": "nyc3",
        }
    }
    h = _harness(_do(ssh_key_file=_key_file(tmp_path)), profiles)
    assert "dop_v1_my_own_token" in h.accepted_tokens
    sizes = h.avail("sizes", "my-do")["my-do"]["digitalocean"]
    assert "s-1vcpu-1gb" in sizes
    h.create("do-1gb", "web-1")
    listed = h.query("list_nodes")["my-do"]["digitalocean"]["web-1"]
    assert listed["size"] == "s-1vcpu-1gb"
    assert listed["public_ips"]


def test_strict_auth_makes_the_fake_insist_on_one_token() -> None:
    h = _harness(_do(), strict_auth="the-only-token")
    with pytest.raises(Exception) as err:
        h.avail("sizes", "my-do")
    assert "Unable to authenticate you" in str(err.value)
    ok = _harness(_do(token="the-only-token"), strict_auth="the-only-token")
    assert "s-1vcpu-1gb" in ok.avail("sizes", "my-do")["my-do"]["digitalocean"]


def test_a_driver_disabled_without_a_reason_is_reported_with_salts_warning() -> None:
    # (proxmox, once the example, loads now that the salt extra installs IPy)
    h = _harness({"px": {"driver": "oneandone", "api_token": "t", "ssh_private_key": "/k"}})
    with pytest.raises(Exception) as err:
        h.driver("px")
    assert "disabled by __virtual__(): it returned False; Salt said: Missing dependency" in str(
        err.value
    )
