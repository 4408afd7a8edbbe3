"""providers.yaml / profiles.yaml parsing: every error names the file and the key."""

from __future__ import annotations

import pytest

from sdk.exception import ConfigurationError
from simulator.drivers import load_cloud_config


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_parses_salt_cloud_format_and_builds_opts_and_vm(tmp_path):
    providers = _write(
        tmp_path, "providers.yaml", "my-do:\n  driver: digitalocean\n  personal_access_token: t\n"
    )
    profiles = _write(
        tmp_path,
        "profiles.yaml",
        "base:\n  provider: my-do\n  image: ubuntu\n  size: s1\nbig:\n  extends: base\n  size: s4\n",
    )
    cfg = load_cloud_config(providers, profiles, {"query.selection": ["id"]})
    opts = cfg.opts()
    assert opts["providers"]["my-do"]["digitalocean"]["personal_access_token"] == "t"
    assert opts["profiles"]["big"] == {"provider": "my-do", "image": "ubuntu", "size": "s4"}
    assert opts["query.selection"] == ["id"]
    vm_ = cfg.vm("big", "web1")
    assert vm_["name"] == "web1" and vm_["profile"] == "big"
    assert vm_["driver"] == vm_["provider"] == "my-do:digitalocean"


@pytest.mark.parametrize(
    ("providers", "message"),
    [
        (
            "- a\n- b\n",
            "providers.yaml: expected a mapping of provider aliases to settings, not list",
        ),
        ("my-do:\n  token: x\n", "providers.yaml: my-do.driver: missing"),
        (
            "my-do: 3\n",
            "providers.yaml: my-do: expected a mapping of settings with a 'driver' key, not int",
        ),
        ("my-do:\n  driver: [a]\n", "providers.yaml: my-do.driver: expected a driver name"),
        ("my-do: {driver: x\n", "providers.yaml: invalid YAML at line 2"),
    ],
)
def test_provider_errors_name_file_and_key(tmp_path, providers, message):
    path = _write(tmp_path, "providers.yaml", providers)
    with pytest.raises(ConfigurationError) as err:
        load_cloud_config(path, {})
    assert str(err.value).startswith(path.rsplit("/", 1)[0] + "/" + message) or message in str(
        err.value
    )
    assert "providers.yaml" in str(err.value)


@pytest.mark.parametrize(
    ("profiles", "message"),
    [
        ("web:\n  size: s\n", "profiles.yaml: web.provider: missing"),
        (
            "web:\n  provider: other\n",
            "profiles.yaml: web.provider: unknown provider 'other' (known: my-do)",
        ),
        (
            "web:\n  provider: my-do:linode\n",
            "profiles.yaml: web.provider: provider 'my-do' uses driver 'digitalocean', not 'linode'",
        ),
        (
            "web:\n  provider: my-do\n  extends: base\n",
            "profiles.yaml: web.extends: unknown profile 'base'",
        ),
        (
            "a:\n  extends: b\n  provider: my-do\nb:\n  extends: a\n",
            "profiles extend in a circle (a -> b -> a)",
        ),
    ],
)
def test_profile_errors_name_file_and_key(tmp_path, profiles, message):
    providers = _write(tmp_path, "providers.yaml", "my-do:\n  driver: digitalocean\n")
    path = _write(tmp_path, "profiles.yaml", profiles)
    with pytest.raises(ConfigurationError) as err:
        load_cloud_config(providers, path)
    assert message in str(err.value)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(ConfigurationError, match=r"nope.yaml: cannot read the file"):
        load_cloud_config(str(tmp_path / "nope.yaml"))


def test_unknown_profile_lists_known_ones():
    cfg = load_cloud_config({"p": {"driver": "d"}}, {"web": {"provider": "p"}})
    with pytest.raises(ConfigurationError, match=r"profiles: no profile 'db' \(known: web\)"):
        cfg.vm("db", "x")
