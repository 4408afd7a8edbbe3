"""The capabilities annotation: tag-based and type-based styles, and malformed sections."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk.exception import StackValidationFailed
from simulator.template import VERSIONS, load_template
from simulator.template.capabilities import Capabilities, parse_capabilities


def tmpl(capabilities, version="2015-10-15"):
    return {"heat_template_version": version, "capabilities": capabilities}


def test_tag_based_annotation():
    caps = parse_capabilities({"deployment": "puppet", "nic": "bond"})
    assert caps.tags == {"deployment": "puppet", "nic": "bond"}
    assert caps.resource_types == ()
    assert not caps.declares_types
    assert caps.matches({"deployment": "puppet"})
    assert caps.matches({"deployment": "puppet", "nic": "bond"})
    assert not caps.matches({"deployment": "docker"})
    assert caps.mismatch("deployment", "docker") == "deployment is puppet, not docker"
    assert caps.mismatch("storage", "ceph") == "declares no storage"


def test_type_based_annotation_single_and_list():
    one = parse_capabilities({"resource_type": "OS::TripleO::Controller"})
    assert one.resource_types == ("OS::TripleO::Controller",)
    assert one.matches({"resource_type": "OS::TripleO::Controller"})
    both = parse_capabilities(
        {
            "resource_type": [
                "OS::TripleO::ControllerPostDeployment",
                "OS::TripleO::ComputePostDeployment",
            ]
        }
    )
    assert both.matches({"resource_type": "OS::TripleO::ComputePostDeployment"})
    assert not both.matches({"resource_type": "OS::TripleO::Controller"})
    assert both.mismatch("resource_type", "OS::X") == (
        "resource_type is [OS::TripleO::ControllerPostDeployment, "
        "OS::TripleO::ComputePostDeployment], not OS::X"
    )
    assert both.to_dict() == {
        "resource_type": [
            "OS::TripleO::ControllerPostDeployment",
            "OS::TripleO::ComputePostDeployment",
        ]
    }


def test_absent_section_means_no_capabilities():
    assert parse_capabilities(None) == Capabilities()
    loaded = load_template({"heat_template_version": "2015-10-15"})
    assert loaded.capability_annotation() == Capabilities()


@pytest.mark.parametrize("version", list(VERSIONS))
def test_every_version_accepts_the_section(version):
    loaded = load_template(tmpl({"deployment": "puppet"}, version))
    assert loaded.capability_annotation().tags == {"deployment": "puppet"}


@pytest.mark.parametrize(
    ("capabilities", "message"),
    [
        (
            ["deployment", "puppet"],
            'web.yaml: capabilities: The "capabilities" section must be a map, not list',
        ),
        (
            {"version": 2},
            "web.yaml: capabilities.version: The capability version must be a non-empty "
            'string, not number 2 (quote it: "..." in YAML)',
        ),
        (
            {"ha": True},
            "web.yaml: capabilities.ha: The capability ha must be a non-empty string, not "
            'boolean True (quote it: "..." in YAML)',
        ),
        (
            {"deployment": None},
            "web.yaml: capabilities.deployment: The capability deployment must be a non-empty "
            "string, not null",
        ),
        (
            {"deployment": ["puppet", "docker"]},
            "web.yaml: capabilities.deployment: The capability deployment must be a non-empty "
            "string, not list ['puppet', 'docker']",
        ),
        (
            {"deployment": {"tool": "puppet"}},
            "web.yaml: capabilities.deployment: The capability deployment must be a non-empty "
            "string, not map {'tool': 'puppet'}",
        ),
        (
            {"resource_type": ["OS::A", 3]},
            "web.yaml: capabilities.resource_type[1]: resource_type must be a type name or a "
            "list of type names, not number 3",
        ),
        (
            {"resource_type": []},
            "web.yaml: capabilities.resource_type: resource_type must name at least one "
            "resource type",
        ),
        (
            {1: "x"},
            # a Python dict: keys must already be strings (YAML's 1: is read as "1", as in Heat)
            "web.yaml: capabilities.1: map keys must be strings, not int 1",
        ),
    ],
)
def test_malformed_sections_name_file_and_key(capabilities, message):
    with pytest.raises(StackValidationFailed) as err:
        load_template(tmpl(capabilities), source="web.yaml")
    assert str(err.value) == message


def test_list_where_a_map_is_expected_via_the_parser():
    with pytest.raises(StackValidationFailed) as err:
        parse_capabilities(["deployment: puppet"], source="a.yaml")
    assert str(err.value) == (
        "a.yaml: capabilities: The capabilities section must be a map of names to values "
        "(e.g. deployment: puppet), not a list"
    )


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8).filter(
    lambda s: s != "resource_type"
)
values = st.text(min_size=1, max_size=8)
type_names = st.lists(
    st.from_regex(r"[A-Z][a-z]{1,4}::[A-Z][a-z]{1,4}", fullmatch=True),
    min_size=1,
    max_size=4,
    unique=True,
)


@given(tags=st.dictionaries(names, values, max_size=5), types=type_names)
def test_round_trip_and_self_match(tags, types):
    raw = {**tags, "resource_type": types}
    caps = parse_capabilities(raw)
    assert parse_capabilities(caps.to_dict()) == caps
    assert caps.matches(tags)
    for type_name in types:
        assert caps.matches({"resource_type": type_name})


@given(
    tags=st.dictionaries(names, values, min_size=1, max_size=5),
    data=st.data(),
)
def test_a_changed_value_never_matches(tags, data):
    caps = parse_capabilities(tags)
    key = data.draw(st.sampled_from(sorted(tags)))
    other = data.draw(values.filter(lambda v: v != tags[key]))
    assert not caps.matches({**tags, key: other})
    assert caps.mismatch(key, other) == f"{key} is {tags[key]}, not {other}"
