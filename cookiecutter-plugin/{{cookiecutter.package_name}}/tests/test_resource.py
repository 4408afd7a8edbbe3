{%- set svc = cookiecutter.service -%}
{%- set cls = cookiecutter.__class_name -%}
"""Tests of {{ cls }}: the plugsim conformance suite and a property test of its schema."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sdk import exception
from sdk.context import LocalContext
from sdk.rsrc_defn import ResourceDefinition
from sdk.testing import ResourceConformance
from sdk.testing.strategies import TEXT_CHARACTERS

from {{ cookiecutter.package_name }}.resource import {{ cls }}, resource_mapping

TYPE_NAME = "{{ cookiecutter.resource_type }}"
NAME = re.compile(r"[a-z][a-z0-9-]{0,62}")
#: The previous release's package directory; ``nox -s upgrade`` sets it (see the README).
UPGRADE_FROM = os.environ.get("PLUGSIM_UPGRADE_FROM") or None


class Test{{ cls }}Conformance(ResourceConformance):
    """Every lifecycle path plugsim knows, run on seeded fake clouds."""

    resource_class = {{ cls }}
    resource_type = TYPE_NAME
{%- if svc == "entity" or svc == "block_storage" %}
    valid_properties = {"name": "first", "size": 1, "zone": "zone-a"}
    update_replace = {"size": 2}
    immutable_update = {"zone": "zone-b"}
    expected_attributes = {"status": "{{ 'available' if svc == 'block_storage' else 'ACTIVE' }}", "size": 1}
{%- elif svc == "compute" %}
    valid_properties = {"name": "first", "flavor": "m1.tiny", "image": "cirros"}
    update_replace = {"flavor": "m1.small"}
    immutable_update = {"image": "fedora"}
    expected_attributes = {"status": "ACTIVE", "flavor": "m1.tiny"}
{%- elif svc == "network" %}
    valid_properties = {"name": "first", "mtu": 1500, "shared": False}
    update_replace = {"mtu": 9000}
    immutable_update = {"shared": True}
    expected_attributes = {"status": "ACTIVE", "mtu": 1500}
{%- else %}
    valid_properties = {"name": "first", "metadata": {"colour": "red"}}
    update_replace = {"name": "second"}
    immutable_update = {"read_acl": ".r:example.org"}
    expected_attributes = {"object_count": 0, "bytes_used": 0}
{%- endif %}
{%- if cookiecutter.with_update %}
    update_in_place = {{ '{"metadata": {"colour": "blue"}}' if svc == 'object_storage' else '{"name": "renamed"}' }}
{%- endif %}
{%- if cookiecutter.with_suspend_resume %}
    cloud_states = {"suspend": "SUSPENDED", "resume": "ACTIVE"}
{%- endif %}
    survives = ("throttle", "conflict", "eventual_consistency")
    # A stack created with the previous release keeps working with this one.
    upgrade_from = UPGRADE_FROM
    upgrade_skip_reason = (
        "no previous release to upgrade from: nox -s upgrade finds the last one "
        "(none before the first release)"
    )


def test_the_module_publishes_the_type():
    assert resource_mapping() == {TYPE_NAME: {{ cls }}}


def _validate(name: str) -> None:
    definition = ResourceDefinition("thing", TYPE_NAME, {"name": name})
    {{ cls }}("thing", definition, LocalContext({})).validate()


# TEXT_CHARACTERS: Hypothesis's default alphabet (every character but a surrogate), named so that
# the first run in a new directory need not compute a codec table (seconds of CPU) first. The
# first draw still builds Hypothesis's small character table there (a fraction of a second, more
# on a busy CI runner), which its "input generation is slow" check would count against the test.
FIRST_RUN = settings(suppress_health_check=[HealthCheck.too_slow])


@FIRST_RUN
@given(st.from_regex(NAME, fullmatch=True, alphabet=TEXT_CHARACTERS))
def test_any_lowercase_name_is_accepted(name):
    _validate(name)


@FIRST_RUN
@given(st.text(TEXT_CHARACTERS, max_size=80).filter(lambda s: not NAME.fullmatch(s)))
def test_other_names_are_refused_naming_the_property(name):
    with pytest.raises(exception.StackValidationFailed) as error:
        _validate(name)
    assert str(error.value).startswith("resources.thing.properties.name: ")
