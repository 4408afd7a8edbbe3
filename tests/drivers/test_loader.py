"""Loading drivers salt-cloud style: injected globals, __virtual__ variants, bad drivers."""

from __future__ import annotations

import sys

import pytest

from sdk.exception import ConfigurationError
from simulator.drivers import DriverCallError, DriverHarness, DriverLoadError, DriverUnavailable

from .conftest import PROFILES, PROVIDERS

RECORDER = """
import time
SEEN = {
    "opts_has_providers": "providers" in __opts__,
    "active": __active_provider_name__,
    "utils": sorted(k for k in __utils__ if k.startswith("cloud.")),
    "virtualname": __virtualname__,
}

def __virtual__():
    return True

def get_configured_provider():
    return True

def ping(kwargs=None, call=None):
    return {"kwargs": kwargs, "call": call, "time": time.time()}
"""


def _harness(write_driver, body, name="fakedrv", providers=None, **kwargs):
    path = write_driver(name, body)
    providers = providers or {"prov": {"driver": name}}
    return DriverHarness(providers, {}, driver_dirs=[path.parent], bundled=False, **kwargs)


def test_injects_opts_active_provider_utils_and_virtualname_before_the_code_runs(write_driver):
    h = _harness(write_driver, RECORDER)
    loaded = h.driver("prov")
    assert loaded.module.SEEN == {
        "opts_has_providers": True,
        "active": "prov:fakedrv",
        "utils": [
            "cloud.bootstrap",
            "cloud.cachedir_index_add",
            "cloud.cachedir_index_del",
            "cloud.deploy_script",
            "cloud.deploy_windows",
            "cloud.filter_event",
            "cloud.fire_event",
            "cloud.is_public_ip",
            "cloud.list_nodes_select",
            "cloud.wait_for_ip",
        ],
        "virtualname": "fakedrv",
    }
    assert "http.query" in loaded.module.__utils__
    with pytest.raises(KeyError, match=r"__utils__\['cloud.nope'\] is not provided"):
        loaded.module.__utils__["cloud.nope"]


def test_every_alias_gets_its_own_module(write_driver):
    providers = {"one": {"driver": "fakedrv"}, "two": {"driver": "fakedrv"}}
    h = _harness(write_driver, RECORDER, providers=providers)
    assert h.driver("one").module.SEEN["active"] == "one:fakedrv"
    assert h.driver("two").module.SEEN["active"] == "two:fakedrv"
    assert h.driver("one").module is not h.driver("two").module


def test_functions_get_kwargs_as_one_dict_and_call_function(write_driver):
    h = _harness(write_driver, RECORDER)
    result = h.function("ping", "prov", {"image": "ubuntu", "count": 2})
    assert result["prov"]["fakedrv"]["kwargs"] == {"image": "ubuntu", "count": 2}
    assert result["prov"]["fakedrv"]["call"] == "function"
    assert h.function("ping", "prov:fakedrv")["prov"]["fakedrv"]["kwargs"] is None


def test_virtual_false_with_reason_disables_the_driver(write_driver):
    body = "def __virtual__():\n    return (False, 'the fakedrv SDK is not installed')\n"
    h = _harness(write_driver, body)
    with pytest.raises(
        DriverUnavailable,
        match=r"fakedrv.py: driver 'fakedrv' is disabled by __virtual__\(\): the fakedrv SDK is not installed",
    ):
        h.driver("prov")


def test_virtual_plain_false_is_reported_too(write_driver):
    h = _harness(write_driver, "def __virtual__():\n    return False\n")
    with pytest.raises(DriverUnavailable, match="it returned False without a reason"):
        h.driver("prov")


def test_virtual_returning_a_string_renames_the_driver(write_driver):
    body = "__virtualname__ = 'shiny'\n\ndef __virtual__():\n    return __virtualname__\n"
    path = write_driver("ugly_module_name", body)
    h = DriverHarness({"prov": {"driver": "shiny"}}, {}, driver_dirs=[path.parent], bundled=False)
    assert h.driver("prov").name == "shiny"
    assert h.driver("prov").module.__active_provider_name__ == "prov:shiny"


def test_a_module_that_is_another_driver_is_refused(write_driver):
    body = "def __virtual__():\n    return 'other'\n"
    path = write_driver("x", body)
    h = DriverHarness(
        {"prov": {"driver": "wanted"}}, {}, drivers={"wanted": str(path)}, bundled=False
    )
    with pytest.raises(
        DriverLoadError, match=r"providers: prov.driver: .*x.py is the driver 'other'"
    ):
        h.driver("prov")


def test_virtual_that_raises_is_a_clear_error(write_driver):
    body = "def __virtual__():\n    raise ValueError('no config dir')\n"
    h = _harness(write_driver, body)
    with pytest.raises(
        DriverLoadError,
        match=r"fakedrv.py: __virtual__\(\) of driver 'fakedrv' raised ValueError: no config dir \(line 2\)",
    ):
        h.driver("prov")


def test_syntax_error_names_file_and_line(write_driver):
    h = _harness(write_driver, "def create(vm_):\n    return {\n")
    with pytest.raises(DriverLoadError, match=r"fakedrv.py:2: syntax error in driver 'fakedrv'"):
        h.driver("prov")


def test_import_error_names_file_and_line(write_driver):
    h = _harness(write_driver, "X = 1\nimport not_a_real_module_xyz\n")
    with pytest.raises(
        DriverLoadError,
        match=r"importing driver 'fakedrv' raised ModuleNotFoundError: .*not_a_real_module_xyz.* \(line 2\)",
    ):
        h.driver("prov")


def test_unknown_driver_names_file_key_and_known_drivers(configs):
    providers, profiles = configs
    providers.write_text("my-do:\n  driver: nosuchcloud\n")
    h = DriverHarness(providers, {})
    with pytest.raises(ConfigurationError) as err:
        h.driver("my-do")
    assert f"{providers}: my-do.driver: unknown driver 'nosuchcloud' (known: " in str(err.value)
    assert "digitalocean" in str(err.value)


def test_missing_credential_names_file_and_key(configs):
    providers, profiles = configs
    providers.write_text("my-do:\n  driver: digitalocean\n")
    h = DriverHarness(providers, profiles)
    with pytest.raises(ConfigurationError) as err:
        h.create("do-small", "web1")
    assert str(err.value).startswith(
        f"{providers}: my-do.personal_access_token: missing credential personal_access_token "
        "required by driver 'digitalocean'"
    )


def test_get_configured_provider_false_is_a_config_error(write_driver):
    body = (
        "def __virtual__():\n    return True\n\ndef get_configured_provider():\n    return False\n"
    )
    h = _harness(write_driver, body)
    with pytest.raises(
        ConfigurationError,
        match=r"providers: prov: driver 'fakedrv' says the provider is not configured",
    ):
        h.driver("prov")


def test_missing_required_function_is_named_when_called(write_driver):
    h = _harness(write_driver, "def __virtual__():\n    return True\n")
    assert h.driver("prov").missing_functions() == [
        "get_configured_provider",
        "create",
        "destroy",
        "list_nodes",
        "list_nodes_full",
        "list_nodes_select",
        "show_instance",
        "avail_images",
        "avail_sizes",
    ]
    with pytest.raises(
        DriverCallError, match=r"fakedrv.py: driver 'fakedrv' has no function 'list_nodes'"
    ):
        h.call(h.aliases()[0], "list_nodes")
    # -Q, as salt-cloud maps providers: the provider lists nothing and its error is kept
    [(alias, driver)] = [(a, h.config.driver_of(a)) for a in h.aliases()]
    assert h.query("list_nodes") == {alias: {driver: []}}
    assert "has no function 'list_nodes'" in h.listing_errors[0][1]


def test_import_name_loads_a_private_copy(tmp_path, monkeypatch):
    (tmp_path / "plugsim_test_importable_driver.py").write_text(
        "def __virtual__():\n    return True\n\n"
        "def who(kwargs=None, call=None):\n    return __active_provider_name__\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import plugsim_test_importable_driver as shared

    h = DriverHarness(
        {"prov": {"driver": "imp"}},
        {},
        drivers={"imp": "plugsim_test_importable_driver"},
        bundled=False,
    )
    loaded = h.driver("prov")
    assert loaded.module is not shared
    assert h.function("who", "prov") == {"prov": {"imp": "prov:imp"}}
    assert not hasattr(shared, "__opts__")
    sys.modules.pop("plugsim_test_importable_driver", None)


def test_bundled_driver_is_found_by_its_virtualname():
    h = DriverHarness(PROVIDERS, PROFILES)
    loaded = h.driver("my-do")
    assert loaded.name == "digitalocean" and loaded.source.endswith("digitalocean_v2.py")
    assert loaded.missing_functions() == []
    assert "time" in loaded.time_patched
