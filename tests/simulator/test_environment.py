"""Environments: sections, merge order, registry aliases, wildcards, templates, overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from sdk.exception import ResourceTypeNotFound, StackValidationFailed
from simulator.environment import Environment, TemplateResourceSpec

ENV = Path(__file__).parent / "templates" / "env"
TEMPLATES = ENV.parent


class NoneRes:
    pass


class NovaServer:
    pass


class NeutronNet:
    pass


PLUGINS = {"OS::Heat::None": NoneRes, "OS::Nova::Server": NovaServer, "OS::New::Net": NeutronNet}


def test_load_single_file():
    env = Environment.load([ENV / "base.yaml"])
    assert env.parameters == {"flavor": "m1.large"}
    assert env.parameter_defaults == {"size": 2, "region": "one"}
    assert env.sources == [str(ENV / "base.yaml")]


def test_merge_order_later_wins():
    env = Environment.load([ENV / "base.yaml", ENV / "override.yaml"])
    assert env.parameters == {"flavor": "m1.xlarge"}
    assert env.parameter_defaults == {"size": 2, "region": "two"}
    reverse = Environment.load([ENV / "override.yaml", ENV / "base.yaml"])
    assert reverse.parameters == {"flavor": "m1.large"}
    assert reverse.parameter_defaults["region"] == "one"


def test_null_removes_an_earlier_mapping():
    base = Environment.load([ENV / "base.yaml"])
    assert base.registry.resolve("My::Alias").type_name == "OS::Heat::None"
    merged = Environment.load([ENV / "base.yaml", ENV / "override.yaml"])
    entry = merged.registry.resolve("My::Alias")
    assert entry.kind == "unmapped"
    with pytest.raises(
        ResourceTypeNotFound, match=r"The Resource Type \(My::Alias\) could not be found"
    ):
        merged.registry.get_class("My::Alias", None, PLUGINS)


def test_wildcard_null_removes_all_matching():
    env = Environment.from_dict(
        {"resource_registry": {"A::x": "OS::Heat::None", "A::y": "OS::Heat::None"}}
    )
    env = env.merge(Environment.from_dict({"resource_registry": {"A::*": None}}))
    assert env.registry.to_dict() == {}


def test_alias_chain_is_followed_to_the_end():
    env = Environment.from_dict({"resource_registry": {"A": "B", "B": "OS::Heat::None"}})
    entry = env.registry.resolve("A")
    assert (entry.kind, entry.type_name, entry.chain) == (
        "class_name",
        "OS::Heat::None",
        ("A", "B", "OS::Heat::None"),
    )
    assert env.registry.get_class("A", "r", PLUGINS) is NoneRes
    assert env.registry.resolve("OS::Nova::Server").kind == "unmapped"
    assert env.get_class("OS::Nova::Server", "r", PLUGINS) is NovaServer


def test_alias_loop_is_an_error():
    env = Environment.from_dict({"resource_registry": {"A": "B", "B": "A"}}, source="e.yaml")
    with pytest.raises(
        StackValidationFailed,
        match=r"e\.yaml: resource_registry\.B: The resource registry maps types in a loop: A -> B -> A",
    ):
        env.registry.resolve("A")


def test_template_resource_relative_to_the_env_file():
    env = Environment.load([ENV / "base.yaml"])
    entry = env.registry.resolve("My::Thing")
    assert entry.kind == "template"
    assert entry.path == str((TEMPLATES / "thing.yaml").resolve())
    spec = env.registry.get_class("My::Thing", "t", PLUGINS)
    assert spec == TemplateResourceSpec(str((TEMPLATES / "thing.yaml").resolve()), "My::Thing")


def test_template_file_used_directly_as_a_type():
    env = Environment()
    spec = env.registry.get_class("thing.yaml", "t", PLUGINS, base_dir=TEMPLATES)
    assert spec == TemplateResourceSpec(str((TEMPLATES / "thing.yaml").resolve()), "thing.yaml")


def test_template_in_files_map_keeps_its_key():
    env = Environment.from_dict({"resource_registry": {"My::T": "t.yaml"}}, files={"t.yaml": "..."})
    assert env.registry.resolve("My::T").path == "t.yaml"


def test_wildcard_mapping_rewrites_the_suffix():
    env = Environment.load([ENV / "base.yaml"])
    entry = env.registry.resolve("OS::Old::Net")
    assert (entry.kind, entry.type_name) == ("class_name", "OS::New::Net")
    assert env.registry.get_class("OS::Old::Net", None, PLUGINS) is NeutronNet


def test_many_to_one_wildcard_disables_a_family():
    env = Environment.from_dict({"resource_registry": {"OS::*": "OS::Heat::None"}})
    assert env.registry.get_class("OS::Nova::Server", "s", PLUGINS) is NoneRes
    assert env.registry.get_class("OS::Heat::None", "n", PLUGINS) is NoneRes


def test_longest_wildcard_wins():
    env = Environment.from_dict(
        {"resource_registry": {"OS::*": "OS::Heat::None", "OS::Nova::*": "Custom::Server"}}
    )
    assert env.registry.resolve("OS::Nova::Thing").type_name == "Custom::Server"
    assert env.registry.resolve("OS::Cinder::Volume").type_name == "OS::Heat::None"


def test_per_resource_override():
    env = Environment.load([ENV / "base.yaml", ENV / "override.yaml"])
    assert env.registry.get_class("My::Thing", "special", PLUGINS) is NoneRes
    assert isinstance(env.registry.get_class("My::Thing", "other", PLUGINS), TemplateResourceSpec)


def test_per_resource_hooks_are_kept():
    env = Environment.from_dict(
        {
            "resource_registry": {
                "resources": {
                    "web": {"hooks": ["pre-create"], "OS::Nova::Server": "OS::Heat::None"}
                }
            }
        }
    )
    assert env.registry.resource_items("web") == {"hooks": ["pre-create"]}
    assert env.registry.get_class("OS::Nova::Server", "web", PLUGINS) is NoneRes


def test_choices_with_a_missing_candidate_name_it():
    env = Environment.from_dict(
        {"resource_registry": {"My::DB": ["a.yaml", "b.yaml"]}}, base_dir=TEMPLATES
    )
    entry = env.registry.resolve("My::DB")
    assert entry.kind == "choices"
    assert entry.choices == (
        str((TEMPLATES / "a.yaml").resolve()),
        str((TEMPLATES / "b.yaml").resolve()),
    )
    with pytest.raises(ResourceTypeNotFound) as err:
        env.registry.get_class("My::DB", "db", PLUGINS)
    assert str(err.value) == (
        "resource_registry.My::DB: cannot choose an implementation of My::DB: the candidate "
        f"template a.yaml cannot be used: {(TEMPLATES / 'a.yaml').resolve()}: the template file "
        "does not exist"
    )


def test_unknown_type_error_mentions_the_mapping():
    env = Environment.from_dict({"resource_registry": {"A": "Missing::Type"}})
    with pytest.raises(ResourceTypeNotFound) as err:
        env.registry.get_class("A", None, PLUGINS)
    assert (
        str(err.value)
        == "The Resource Type (A) could not be found (mapped to Missing::Type by the environment)"
    )


def test_unknown_section_names_file_and_key():
    with pytest.raises(StackValidationFailed) as err:
        Environment.load([ENV / "bad_section.yaml"])
    assert str(err.value).startswith(
        f'{ENV / "bad_section.yaml"}: resource_registery: "resource_registery" is not a valid '
        "environment section"
    )


def test_pass_through_sections():
    env = Environment.from_dict(
        {
            "event_sinks": [{"type": "zaqar-queue"}],
            "encrypted_param_names": ["pw"],
            "requires": {"compute": "any"},
        }
    )
    merged = env.merge(
        Environment.from_dict(
            {"requires": {"storage": "ssd"}, "encrypted_param_names": ["pw", "x"]}
        )
    )
    assert merged.requires == {"compute": "any", "storage": "ssd"}
    assert merged.encrypted_param_names == ["pw", "x"]
    assert merged.event_sinks == [{"type": "zaqar-queue"}]


def test_bad_shapes():
    with pytest.raises(
        StackValidationFailed, match=r'parameters: The "parameters" section must be a map'
    ):
        Environment.from_dict({"parameters": ["a"]})
    with pytest.raises(StackValidationFailed, match="An environment must be a map"):
        Environment.load(["- a\n- b\n"])
    with pytest.raises(
        StackValidationFailed, match=r"resource_registry\.A: A registry entry maps to a type name"
    ):
        Environment.from_dict({"resource_registry": {"A": 5}})
    with pytest.raises(StackValidationFailed, match="plugsim reads local files only"):
        Environment.from_dict({"resource_registry": {"A": "http://x/t.yaml"}}).registry.resolve("A")


def test_to_dict_round_trip():
    env = Environment.load([ENV / "base.yaml", ENV / "override.yaml"])
    again = Environment.from_dict(env.to_dict())
    assert again.parameters == env.parameters
    assert again.registry.to_dict() == env.registry.to_dict()
