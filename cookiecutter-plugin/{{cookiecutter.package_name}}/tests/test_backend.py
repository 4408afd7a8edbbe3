{%- set cls = cookiecutter.__camel_name -%}
"""Tests of the backend: entry point, gadget lifecycle, faults, determinism."""

from __future__ import annotations

import pytest
from fake_clouds import available_backends, load_backend
from hypothesis import given, settings
from hypothesis import strategies as st
from sdk import exception

NAME = "{{ cookiecutter.package_name }}"


def _settle(cloud, seconds=3600.0):
    cloud.clock.advance(seconds)


def test_the_entry_point_builds_the_backend():
    assert NAME in available_backends()
    cloud = load_backend(NAME, seed=1)
    assert cloud.service_names() == sorted(["{{ cookiecutter.service }}", NAME])


def test_a_gadget_is_built_then_scrapped_in_virtual_time():
    cloud = load_backend(NAME, seed=1)
    gadgets = cloud.client(NAME)
    made = gadgets.create("g1", colour="blue")
    assert made["status"] == "BUILDING"
    _settle(cloud)
    assert gadgets.get(made["id"])["status"] == "READY"
    assert gadgets.get(made["id"])["colour"] == "blue"
    gadgets.delete(made["id"])
    _settle(cloud)
    with pytest.raises(exception.NotFound):
        gadgets.get(made["id"])
    assert cloud.leaks() == []


def test_bad_requests_and_the_quota_are_typed_errors():
    cloud = load_backend(NAME, seed=1)
    gadgets = cloud.client(NAME)
    with pytest.raises(exception.BadRequest) as error:
        gadgets.create("g1", colour="purple")
    assert str(error.value) == "Unknown colour 'purple' (known: red, green, blue)"
    for index in range(10):
        gadgets.create(f"g{index}")
    with pytest.raises(exception.OverLimit):
        gadgets.create("one-too-many")


def test_faults_reach_the_gadget_service():
    rules = [{"service": NAME, "operation": "gadgets.create", "effect": "error_state"}]
    cloud = load_backend(NAME, seed=1, faults=rules)
    made = cloud.client(NAME).create("g1")
    _settle(cloud)
    assert cloud.client(NAME).get(made["id"])["status"] == "BROKEN"


@settings(max_examples=25, deadline=None)
@given(
    st.integers(min_value=0, max_value=2**31 - 1),
    st.lists(st.sampled_from(["red", "green", "blue"]), max_size=5),
)
def test_the_same_seed_gives_the_same_world(seed, colours):
    def run():
        cloud = load_backend(NAME, seed=seed)
        made = [cloud.client(NAME).create(f"g{i}", colour=c) for i, c in enumerate(colours)]
        _settle(cloud)
        return made, cloud.client(NAME).list(), cloud.clock.now()

    assert run() == run()
