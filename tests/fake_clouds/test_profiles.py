"""Fault profiles: YAML files, presets and validation messages."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fake_clouds import FakeCloud
from fake_clouds.core import FAULT_PRESETS, load_profile, parse_distribution
from fake_clouds.core.faults import parse_yaml
from sdk.exception import ConfigurationError

GOOD = """
name: demo
rules:
  - name: boot-fails
    service: compute
    operation: servers.create
    nth: 1
    effect: {type: error, status: 503, message: nova is down}
  - operation: "*.list"
    probability: 0.1
    effect: timeout
"""


def test_yaml_file_and_text(tmp_path):
    path = tmp_path / "faults.yaml"
    path.write_text(GOOD)
    profile = load_profile(str(path))
    assert profile.source == str(path)
    assert [r.name for r in profile.rules] == ["boot-fails", None]
    assert profile.rules[1].effect.params == {"after": 60.0, "applied": False}
    assert load_profile(GOOD).rules == profile.rules
    cloud = FakeCloud(faults=path)
    with pytest.raises(Exception, match="nova is down"):
        cloud.client("nova").servers.create(name="a", image="cirros", flavor="1")


@pytest.mark.parametrize("name", ["none", "flaky", "slow", "chaos"])
def test_presets_load_and_validate_against_the_default_world(name):
    cloud = FakeCloud(faults=name)
    assert len(cloud.faults.profile.rules) == len(FAULT_PRESETS[name])
    assert cloud.faults.profile.source == f"preset '{name}'"


def test_chaos_preset_injects_recorded_faults():
    cloud = FakeCloud(seed=11, faults="chaos")
    nova = cloud.client("nova")
    for i in range(40):
        try:
            nova.servers.create(name=f"s{i}", image="cirros", flavor="1")
        except Exception as ex:  # noqa: BLE001 - any typed client error is fine here
            assert ex.code in (413, 503, 504)
    effects = {f.effect for f in cloud.injected_faults()}
    assert {"error", "eventual_consistency"} <= effects


BAD = [
    ("- {service: dns, effect: error}", "<string>: rules[0]: key 'service': unknown service 'dns'"),
    (
        "- {name: x, effect: explode}",
        "<string>: rules[0] 'x': key 'effect.type': unknown effect 'explode'",
    ),
    (
        "- {effect: error}\n- {name: p, probability: 1.5, effect: error}",
        "<string>: rules[1] 'p': key 'probability': must be between 0 and 1, got 1.5",
    ),
    ("- {probability: -0.1, effect: error}", "key 'probability': must be between 0 and 1"),
    (
        "- {service: compute, operation: servers.explode, effect: error}",
        "rules[0]: key 'operation': 'servers.explode' matches no operation of service 'compute'",
    ),
    ("- {nth: two, effect: error}", "rules[0]: key 'nth': expected an integer, got 'two'"),
    ("- {colour: red, effect: error}", "rules[0]: key 'colour': unknown key"),
    ("- {service: compute}", "rules[0]: key 'effect': required"),
    ("- {effect: {type: error, status: 200}}", "key 'effect.status': must be >= 400"),
    ("- {effect: {type: error, error: Boom}}", "key 'effect.error': unknown error 'Boom'"),
    ("- {effect: {type: throttle, rate: 0}}", "key 'effect.rate': must be > 0"),
    ("- {effect: {type: stuck, reason: x}}", "key 'effect.reason': unknown parameter for stuck"),
    (
        "- {effect: {type: eventual_consistency, lag: {dist: gamma}}}",
        "key 'effect.lag': lag.dist: unknown distribution 'gamma'",
    ),
    ("- {window: [10, 5], effect: error}", "key 'window': end (5.0) is before start (10.0)"),
    (
        "- {service: compute, kind: spaceship, effect: error}",
        "key 'kind': unknown entity kind 'spaceship'",
    ),
    ("rules: 5", "<string>: expected a list of rules"),
    ("- [1, 2]", "<string>: rules[0]: expected a mapping, got list"),
    ("- {effect: error\n", "<string>: invalid YAML (line 2, column 1)"),
    ("extra: 1\nrules: []", "<string>: key 'extra': unknown top-level key"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_malformed_profiles_name_the_rule_and_key(text, message):
    with pytest.raises(ConfigurationError) as ex:
        FakeCloud(faults=parse_yaml(text))
    assert message in str(ex.value)


def test_bad_file_names_the_file(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("- {effect: nope}\n")
    with pytest.raises(ConfigurationError, match=r"broken.yaml: rules\[0\]: key 'effect.type'"):
        FakeCloud(faults=str(path))
    with pytest.raises(ConfigurationError, match="missing.yaml: cannot read fault profile"):
        load_profile(str(tmp_path / "missing.yaml"))


def test_unknown_preset_or_missing_file_is_explained():
    with pytest.raises(
        ConfigurationError, match="'flakey' is not a preset \\(chaos, flaky, none, slow\\)"
    ):
        FakeCloud(faults="flakey")


def test_python_rules_keep_their_source_in_messages():
    with pytest.raises(ConfigurationError, match=r"<python>: rules\[0\]: key 'times'"):
        FakeCloud(faults=[{"times": 0, "effect": "error"}])


@given(
    low=st.floats(0, 100, allow_nan=False),
    width=st.floats(0, 100, allow_nan=False),
    seed=st.integers(0, 2**32),
)
def test_bounded_distributions_stay_in_bounds(low, width, seed):
    import random

    rnd = random.Random(seed)
    for spec in (
        {"dist": "normal", "mean": low, "sd": width, "min": low, "max": low + width},
        {"dist": "lognormal", "median": low + 1, "sigma": 2, "min": low, "max": low + width},
        {"dist": "uniform", "low": low, "high": low + width},
    ):
        value = parse_distribution(spec).sample(rnd)
        assert low <= value <= low + width
    assert parse_distribution(low).sample(rnd) == low


def test_latency_model_errors():
    with pytest.raises(ConfigurationError, match=r"latency.calls.compute.\*.sd: must be >= 0"):
        FakeCloud(latency={"calls": {"compute.*": {"dist": "normal", "mean": 1, "sd": -1}}})
    with pytest.raises(ConfigurationError, match="latency.speed: unknown section"):
        FakeCloud(latency={"speed": {}})
