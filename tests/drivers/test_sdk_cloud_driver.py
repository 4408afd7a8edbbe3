"""sdk.cloud_driver: config lookup, provider checks, events, waiting, errors - no Salt, no harness."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk import cloud_driver as cd
from sdk.exception import PlugsimError

OPTS = {
    "size": "global-size",
    "image": "global-image",
    "meta": {"a": 1, "b": 1},
    "providers": {
        "my-do": {
            "digitalocean": {
                "driver": "digitalocean",
                "token": "t0ken-value",
                "image": "prov-image",
                "meta": {"b": 2},
            }
        },
        "half": {"digitalocean": {"driver": "digitalocean"}},
    },
    "profiles": {"small": {"provider": "my-do", "image": "profile-image", "meta": {"c": 3}}},
}
VM = {"name": "web1", "profile": "small", "driver": "my-do:digitalocean", "meta": {"d": 4}}


def test_lookup_goes_global_provider_profile_vm():
    assert cd.get_cloud_config_value("size", VM, OPTS) == "global-size"
    assert cd.get_cloud_config_value("image", VM, OPTS) == "profile-image"
    assert cd.get_cloud_config_value("token", VM, OPTS) == "t0ken-value"
    assert cd.get_cloud_config_value("name", VM, OPTS) == "web1"
    assert cd.get_cloud_config_value("missing", VM, OPTS, default=7) == 7


def test_lookup_merges_mappings_key_by_key_and_can_skip_globals():
    assert cd.get_cloud_config_value("meta", VM, OPTS) == {"a": 1, "b": 2, "c": 3, "d": 4}
    assert cd.get_cloud_config_value("size", VM, OPTS, search_global=False) is None


def test_is_provider_configured_returns_settings_or_false_and_notes_missing_keys():
    runtime = cd.DriverRuntime()
    with cd.use_runtime(runtime):
        assert (
            cd.is_provider_configured(OPTS, "my-do:digitalocean", ("token",))["token"]
            == "t0ken-value"
        )
        assert cd.is_provider_configured(OPTS, "half:digitalocean", ("token",)) is False
        assert cd.is_provider_configured(OPTS, "digitalocean", ("token",))["token"] == "t0ken-value"
        assert cd.is_provider_configured(OPTS, "nowhere:digitalocean", ("token",)) is False
    assert [(n.provider, n.missing) for n in runtime.notes] == [
        ("half:digitalocean", ["token"]),
        ("nowhere:digitalocean", ["token"]),
    ]


def test_fire_event_goes_to_the_installed_runtime_bus_in_order():
    bus = cd.EventBus(clock=lambda: 12.5)
    with cd.use_runtime(cd.DriverRuntime(bus=bus)):
        cd.fire_event("event", "starting", "salt/cloud/a/creating", args={"name": "a"})
        cd.fire_event("event", "asking", "salt/cloud/a/requesting", args={"kwargs": {}})
    assert bus.tags() == ["salt/cloud/a/creating", "salt/cloud/a/requesting"]
    assert bus.events()[0].data == {"name": "a"} and bus.events()[0].time == 12.5
    assert [e.kind for e in bus.since(1)] == ["requesting"]


def test_event_payload_is_copied_when_fired():
    bus = cd.EventBus()
    payload = {"kwargs": {"size": "s"}}
    bus.fire("salt/cloud/a/requesting", payload)
    payload["kwargs"]["size"] = "changed"
    assert bus.events()[0].data == {"kwargs": {"size": "s"}}


def test_filter_event_keeps_defaults_and_configured_extras():
    data = {"name": "a", "size": "s", "image": "i"}
    assert cd.filter_event("requesting", data, ["name"]) == {"name": "a"}
    opts = {"filter_events": {"requesting": {"keys": ["image"]}}}
    assert cd.filter_event("requesting", data, ["name"], opts) == {"name": "a", "image": "i"}
    opts = {"filter_events": {"requesting": {"keys": ["size"], "use_defaults": False}}}
    assert cd.filter_event("requesting", data, ["name"], opts) == {"size": "s"}


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def sleep(self, s: float) -> None:
        self.t += s

    def now(self) -> float:
        return self.t


def test_wait_for_ip_polls_through_the_runtime_sleep():
    clock = _Clock()
    answers = iter([None, False, None, "10.0.0.5"])
    with cd.use_runtime(cd.DriverRuntime(sleep=clock.sleep, now=clock.now)):
        assert cd.wait_for_ip(lambda: next(answers), interval=10, timeout=100) == "10.0.0.5"
    assert clock.t == 30


def test_wait_for_ip_times_out_with_the_salt_equivalent_error():
    clock = _Clock()
    with cd.use_runtime(cd.DriverRuntime(sleep=clock.sleep, now=clock.now)):
        with pytest.raises(cd.SaltCloudExecutionTimeout, match="in 60 seconds"):
            cd.wait_for_ip(lambda: None, interval=7, timeout=60)
    assert clock.t <= 60


def test_wait_for_ip_gives_up_after_max_failures():
    clock = _Clock()

    def broken():
        raise KeyError("networks")

    with cd.use_runtime(cd.DriverRuntime(sleep=clock.sleep, now=clock.now)):
        with pytest.raises(
            cd.SaltCloudExecutionFailure, match="failed 3 times; last error: KeyError"
        ):
            cd.wait_for_ip(broken, interval=1, timeout=100, max_failures=3)


def test_errors_are_plugsim_errors():
    for cls in (
        cd.SaltCloudSystemExit,
        cd.SaltCloudConfigError,
        cd.SaltCloudNotFound,
        cd.SaltCloudExecutionTimeout,
        cd.SaltCloudExecutionFailure,
    ):
        assert issubclass(cls, cd.CloudDriverError) and issubclass(cls, PlugsimError)


@given(st.ip_addresses(v=4))
def test_is_public_ip_agrees_with_private_ranges(ip):
    addr = ipaddress.ip_address(ip)
    expected = not (
        addr.is_private
        or addr.is_loopback
        or addr.is_link_local
        or addr.is_reserved
        or addr.is_multicast
        or addr.is_unspecified
    )
    assert cd.is_public_ip(str(ip)) is expected


def test_is_public_ip_examples():
    assert cd.is_public_ip("8.8.8.8") and not cd.is_public_ip("10.1.2.3")
    assert not cd.is_public_ip("not an ip")


def test_list_nodes_select_picks_fields_and_refuses_actions():
    nodes = {"b": {"id": "2", "state": "on", "size": "s"}, "a": {"id": "1", "size": "m"}}
    assert cd.list_nodes_select(nodes, ["id", "state"]) == {
        "a": {"id": "1"},
        "b": {"id": "2", "state": "on"},
    }
    assert cd.list_nodes_select(nodes, "size") == {"a": {"size": "m"}, "b": {"size": "s"}}
    with pytest.raises(cd.SaltCloudSystemExit, match="-f or --function"):
        cd.list_nodes_select(nodes, ["id"], call="action")


def test_bootstrap_outside_the_harness_refuses_to_deploy():
    vm_ = {"name": "web1", "ssh_host": "203.0.113.9"}
    with cd.use_runtime(cd.DriverRuntime()):
        with pytest.raises(cd.SaltCloudSystemExit, match="cannot deploy to '203.0.113.9' over ssh"):
            cd.bootstrap(vm_, {})


def test_bootstrap_fires_deploying_without_secrets_and_calls_the_hook():
    seen = {}

    def deploy(method, settings):
        seen.update(method=method, password=settings["password"])
        return {"deployed": True}

    bus = cd.EventBus()
    opts = {
        "providers": {
            "p": {"d": {"driver": "d", "secret_keys": ["motto"], "motto": "open-sesame"}}
        },
        "profiles": {},
    }
    vm_ = {
        "name": "web1",
        "driver": "p:d",
        "ssh_host": "203.0.113.9",
        "ssh_password": "hunter22",
        "script_args": "-x open-sesame",
    }
    with cd.use_runtime(cd.DriverRuntime(bus=bus, deploy=deploy)):
        result = cd.bootstrap(vm_, opts)
    assert seen == {"method": "ssh", "password": "hunter22"}
    assert result["deployed"] is True and result["method"] == "ssh"
    (event,) = bus.events()
    assert event.tag == "salt/cloud/web1/deploying"
    assert event.data["kwargs"]["host"] == "203.0.113.9"
    assert "hunter22" not in str(event.data) and "password" not in event.data["kwargs"]


def test_bootstrap_with_deploy_disabled_fires_nothing():
    bus = cd.EventBus()
    with cd.use_runtime(cd.DriverRuntime(bus=bus)):
        result = cd.bootstrap({"name": "a", "deploy": False, "ssh_host": "x"}, {})
    assert result["deployed"] is False and bus.events() == []


def test_bootstrap_without_an_address_names_the_missing_setting():
    with cd.use_runtime(cd.DriverRuntime()):
        with pytest.raises(cd.SaltCloudConfigError, match="has no 'ssh_host'"):
            cd.bootstrap({"name": "a"}, {})


def test_secret_values_find_secret_names_marked_keys_and_key_file_lines(tmp_path):
    keyfile = tmp_path / "id_test"
    keyfile.write_text("-----BEGIN KEY-----\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldY\n-----END KEY-----\n")
    conf = {
        "api_token": "tok-123456",
        "motto": "shh-quiet",
        "secret_keys": ["motto"],
        "ssh_keyfile": str(keyfile),
        "size": "big-size",
    }
    values = cd.secret_values(conf)
    assert "tok-123456" in values and "shh-quiet" in values
    assert "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY" in values and "big-size" not in values
