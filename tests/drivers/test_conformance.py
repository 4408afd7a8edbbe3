"""check_driver: the bundled driver conforms under every fault kind; broken drivers are caught."""

from __future__ import annotations

from simulator.drivers import FAULT_KINDS, check_driver

from .conftest import BUNDLED, PROFILES, PROVIDERS


def _variant(write_driver, name, *replacements):
    source = BUNDLED.read_text()
    for old, new in replacements:
        assert old in source, old
        source = source.replace(old, new)
    return write_driver(name, source)


def test_the_bundled_do_driver_passes_every_check_under_every_fault_kind(configs):
    providers, profiles = configs
    findings = check_driver(BUNDLED, providers, profiles, seed=5)
    assert findings == []
    assert set(FAULT_KINDS) == {
        "rate_limit",
        "server_error",
        "timeout",
        "slow_boot",
        "eventual_consistency",
    }


def test_a_driver_leaking_the_token_under_an_innocent_key_is_caught(write_driver, configs):
    providers, profiles = configs
    leaky = _variant(
        write_driver,
        "leaky",
        (
            '{"kwargs": __utils__["cloud.filter_event"]("requesting", kwargs, list(kwargs))}',
            '{"kwargs": kwargs, "auth": _provider()["personal_access_token"]}',
        ),
    )
    findings = check_driver(leaky, providers, profiles, fault_kinds=[])
    assert [(f.check, f.severity, f.scenario) for f in findings] == [
        ("events.secret", "error", "baseline")
    ]
    assert findings[0].message == (
        f"salt/cloud/conformance-baseline/requesting carries the value of the secret setting "
        f"{providers}: my-do.personal_access_token"
    )


def test_a_secret_the_provider_marks_is_searched_by_value(write_driver, tmp_path):
    providers = {
        **PROVIDERS,
        "my-do": {**PROVIDERS["my-do"], "team": "blue-team-x", "secret_keys": ["team"]},
    }
    leaky = _variant(
        write_driver,
        "leaky_marked",
        (
            '"region": config.get_cloud_config_value("location", vm_, __opts__, default="nyc3"),',
            '"region": config.get_cloud_config_value("location", vm_, __opts__, default="nyc3"),\n'
            '        "user_data": "owner=" + _provider()["team"],',
        ),
    )
    findings = check_driver(leaky, providers, PROFILES, fault_kinds=[])
    assert [f.message for f in findings] == [
        "salt/cloud/conformance-baseline/requesting carries the value of the secret setting "
        "providers: my-do.team"
    ]


def test_wrong_event_order_missing_payload_and_missing_destroy_events(write_driver):
    bad = _variant(
        write_driver,
        "badevents",
        ('_fire(name, "destroyed", "destroyed instance", {"name": name})', ""),
        (
            '        {"kwargs": __utils__["cloud.filter_event"]("requesting", kwargs, list(kwargs))},\n',
            '        {"size": kwargs["size"]},\n',
        ),
    )
    findings = check_driver(bad, PROVIDERS, PROFILES, fault_kinds=[])
    messages = [(f.check, f.message) for f in findings]
    assert (
        "events.payload",
        "salt/cloud/conformance-baseline/requesting lacks payload key(s) kwargs (has: size)",
    ) in messages
    assert (
        "events.missing",
        "destroy() did not fire salt/cloud/conformance-baseline/destroyed",
    ) in messages


def test_list_nodes_shape_and_call_conventions_are_checked(write_driver):
    bad = _variant(
        write_driver,
        "badshape",
        (
            '"state": str(droplet.get("status") or ""),',
            '"state": droplet.get("status"), "memory": 1,',
        ),
        (
            '"private_ips": _ips(droplet, "private"),',
            '"private_ips": ",".join(_ips(droplet, "private")),',
        ),
        (
            '    if call != "action":\n        raise SaltCloudSystemExit("The show_instance',
            '    if call == "function":\n        raise SaltCloudSystemExit("The show_instance',
        ),
        ("def show_image(kwargs=None, call=None):", "def show_image(call=None, **kwargs):"),
    )
    findings = check_driver(bad, PROVIDERS, PROFILES, fault_kinds=[])
    messages = {f.message for f in findings}
    assert (
        "list_nodes()['conformance-baseline'] has extra field(s) memory (only id, image, size, state, private_ips, public_ips belong there)"
        in messages
    )
    assert "list_nodes()['conformance-baseline'].private_ips is str, not list" in messages
    assert "show_instance() ran with call=None; it must refuse" in messages
    assert any(
        m.endswith(
            "show_image() takes **kwargs; salt-cloud passes generic arguments as one dict parameter named 'kwargs'"
        )
        for m in messages
    )


def test_a_destroy_that_does_nothing_is_a_leak(write_driver):
    lazy = _variant(
        write_driver, "lazy", ('    deleted = _delete(droplet["id"])', "    deleted = False")
    )
    findings = check_driver(lazy, PROVIDERS, PROFILES, fault_kinds=[])
    checks = [f.check for f in findings]
    assert "leaks" in checks and "destroy.gone" in checks
    leak = next(f for f in findings if f.check == "leaks")
    assert leak.message.startswith("compute server 'conformance-baseline' (")


def test_a_driver_without_retries_gets_warnings_under_faults(write_driver):
    fragile = _variant(write_driver, "fragile", ("RETRIES = 8", "RETRIES = 1"))
    findings = check_driver(
        fragile, PROVIDERS, PROFILES, fault_kinds=["rate_limit", "server_error"]
    )
    assert {(f.scenario, f.check, f.severity) for f in findings} >= {
        ("rate_limit", "create", "warning"),
    }
    assert all(f.severity == "warning" for f in findings)
    assert not any(f.scenario == "baseline" for f in findings)


def test_missing_functions_and_bad_config_are_findings_not_crashes(write_driver):
    stub = write_driver(
        "stub",
        "def __virtual__():\n    return True\n\ndef get_configured_provider():\n    return True\n",
    )
    findings = check_driver(stub, PROVIDERS, PROFILES, fault_kinds=[])
    assert [f.message.rsplit(": ", 1)[-1] for f in findings] == [
        f"required function {n}() is missing"
        for n in (
            "create",
            "destroy",
            "list_nodes",
            "list_nodes_full",
            "list_nodes_select",
            "show_instance",
            "avail_images",
            "avail_sizes",
        )
    ]
    broken = write_driver("broken", "def create(:\n")
    (finding,) = check_driver(broken, PROVIDERS, PROFILES, fault_kinds=[])
    assert finding.check == "load" and "broken.py:1: syntax error" in finding.message
    (finding,) = check_driver(None, {"x": {"token": 1}}, PROFILES)
    assert (
        finding.message
        == "providers: x.driver: missing (name the driver module, e.g. 'driver: digitalocean')"
    )
    (finding,) = check_driver(None, PROVIDERS, PROFILES, fault_kinds=["earthquake"])
    assert finding.message.startswith("unknown fault kind(s) earthquake (known: rate_limit")


def test_the_libcloud_based_example_passes_too():
    import pytest

    pytest.importorskip("libcloud", reason="apache-libcloud (optional extra) is not installed")
    providers = {
        "lc": {
            "driver": "digitalocean_libcloud",
            "personal_access_token": "plugsim-digitalocean-token",
        }
    }
    profiles = {"lc-small": {**PROFILES["do-small"], "provider": "lc"}}
    assert check_driver(None, providers, profiles, seed=2) == []
