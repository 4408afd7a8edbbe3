"""Resolution of registry lists from ``requires``: the spec's TripleO example end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk.exception import ResourceTypeNotFound, StackValidationFailed
from simulator.capabilities import describe_resolution
from simulator.environment import Environment, TemplateResourceSpec
from simulator.store import Store
from simulator.template import StackDefinition, load_template
from simulator.world import World

TRIPLEO = Path(__file__).parent / "capabilities" / "tripleo"
PARENT = TRIPLEO / "overcloud.yaml"
REGISTRY = TRIPLEO / "overcloud-resource-registry.yaml"
DOCKER = TRIPLEO / "environments" / "docker.yaml"
CHOICES = TRIPLEO / "environments" / "choices.yaml"
PUPPET_CTL = str((TRIPLEO / "puppet" / "controller.yaml").resolve())
DOCKER_CTL = str((TRIPLEO / "docker" / "controller.yaml").resolve())


@pytest.fixture
def world():
    w = World(Store(":memory:"), seed=7)
    yield w
    w.close()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def impl(tmp: Path, rel: str, caps: str) -> Path:
    return write(tmp / rel, f"heat_template_version: 2015-10-15\ncapabilities: {caps}\n")


# --- through the registry ---------------------------------------------------------------


def test_requires_picks_the_puppet_implementation():
    env = Environment.load([REGISTRY])
    spec = env.registry.get_class("OS::TripleO::Controller", "controller", {})
    assert spec == TemplateResourceSpec(PUPPET_CTL, "OS::TripleO::Controller")
    assert env.resolutions == {"OS::TripleO::Controller": PUPPET_CTL}


def test_a_later_requires_overrides_the_earlier_key():
    env = Environment.load([REGISTRY, DOCKER])
    assert env.requires == {"deployment": "docker"}
    spec = env.registry.get_class("OS::TripleO::Controller", "controller", {})
    assert spec.path == DOCKER_CTL
    assert env.registry.resolutions == {"OS::TripleO::Controller": DOCKER_CTL}


def test_paths_are_relative_to_the_environment_file():
    env = Environment.load([CHOICES, DOCKER])
    assert env.registry.resolve("OS::TripleO::Controller").choices == (PUPPET_CTL, DOCKER_CTL)
    assert env.registry.get_class("OS::TripleO::Controller", None, {}).path == DOCKER_CTL


def test_no_match_lists_every_candidate_and_why():
    env = Environment.load([CHOICES, {"requires": {"deployment": "ansible"}}])
    with pytest.raises(ResourceTypeNotFound) as err:
        env.registry.get_class("OS::TripleO::Controller", None, {})
    assert str(err.value) == (
        f"{CHOICES}: resource_registry.OS::TripleO::Controller: cannot choose an implementation "
        "of OS::TripleO::Controller: no candidate template satisfies requires {deployment: "
        "ansible}: ../puppet/controller.yaml rejected (deployment is puppet, not ansible); "
        "../docker/controller.yaml rejected (deployment is docker, not ansible)"
    )


def test_several_matches_is_ambiguous_and_says_what_tells_them_apart():
    env = Environment.load([CHOICES])
    with pytest.raises(ResourceTypeNotFound) as err:
        env.registry.get_class("OS::TripleO::Controller", None, {})
    assert str(err.value) == (
        f"{CHOICES}: resource_registry.OS::TripleO::Controller: cannot choose an implementation "
        "of OS::TripleO::Controller: 2 candidate templates satisfy an empty requires section: "
        "../puppet/controller.yaml accepted; ../docker/controller.yaml accepted; add a requires "
        "entry for deployment to pick one"
    )
    assert env.resolutions == {}


def test_identical_candidates_cannot_be_told_apart(tmp_path):
    impl(tmp_path, "a.yaml", "{deployment: puppet}")
    impl(tmp_path, "b.yaml", "{deployment: puppet}")
    env_file = write(
        tmp_path / "env.yaml",
        "requires: {deployment: puppet}\nresource_registry:\n  My::T: [a.yaml, b.yaml]\n",
    )
    env = Environment.load([env_file])
    with pytest.raises(ResourceTypeNotFound, match="their capabilities do not tell them apart$"):
        env.registry.get_class("My::T", None, {})


def test_type_based_annotation_must_name_the_type_being_resolved(tmp_path):
    impl(tmp_path, "compute.yaml", "{deployment: puppet, resource_type: OS::TripleO::Compute}")
    impl(tmp_path, "ctl.yaml", "{deployment: puppet, resource_type: [OS::A, OS::TripleO::Ctl]}")
    impl(tmp_path, "plain.yaml", "{deployment: docker}")
    env_file = write(
        tmp_path / "env.yaml",
        "requires: {deployment: puppet}\n"
        "resource_registry:\n  OS::TripleO::Ctl: [compute.yaml, ctl.yaml, plain.yaml]\n",
    )
    env = Environment.load([env_file])
    found = env.registry.choose("OS::TripleO::Ctl")
    assert [c.verdict() for c in found.candidates] == [
        "rejected (it implements OS::TripleO::Compute, not OS::TripleO::Ctl)",
        "accepted",
        "rejected (deployment is docker, not puppet)",
    ]
    assert found.chosen == str((tmp_path / "ctl.yaml").resolve())


def test_a_template_without_type_annotation_is_judged_by_tags_alone(tmp_path):
    impl(tmp_path, "a.yaml", "{deployment: puppet}")
    impl(tmp_path, "b.yaml", "{deployment: docker, resource_type: Other::Type}")
    env_file = write(tmp_path / "env.yaml", "resource_registry:\n  My::T: [a.yaml, b.yaml]\n")
    env = Environment.load([env_file])
    assert env.registry.get_class("My::T", None, {}).path == str((tmp_path / "a.yaml").resolve())


def test_an_alias_to_the_list_accepts_either_type_name(tmp_path):
    impl(tmp_path, "a.yaml", "{resource_type: My::Alias}")
    impl(tmp_path, "b.yaml", "{resource_type: Nobody::Else}")
    env_file = write(
        tmp_path / "env.yaml",
        "resource_registry:\n  My::Alias: My::Real\n  My::Real: [a.yaml, b.yaml]\n",
    )
    env = Environment.load([env_file])
    assert env.registry.get_class("My::Alias", None, {}).path == str(
        (tmp_path / "a.yaml").resolve()
    )
    assert env.resolutions == {"My::Alias": str((tmp_path / "a.yaml").resolve())}


def test_a_per_resource_list_is_recorded_under_the_resource(tmp_path):
    impl(tmp_path, "a.yaml", "{deployment: puppet}")
    impl(tmp_path, "b.yaml", "{deployment: docker}")
    env_file = write(
        tmp_path / "env.yaml",
        "requires: {deployment: docker}\n"
        "resource_registry:\n  resources:\n    db:\n      My::T: [a.yaml, b.yaml]\n",
    )
    env = Environment.load([env_file])
    assert env.registry.get_class("My::T", "db", {}).path == str((tmp_path / "b.yaml").resolve())
    assert env.resolutions == {"My::T (db)": str((tmp_path / "b.yaml").resolve())}
    assert env.registry.choice_entries() == [("My::T", "db")]


def test_a_missing_candidate_names_the_environment_and_key(tmp_path):
    impl(tmp_path, "puppet.yaml", "{deployment: puppet}")
    env_file = write(
        tmp_path / "env.yaml",
        "requires: {deployment: puppet}\n"
        "resource_registry:\n  My::T: [puppet.yaml, docker/missing.yaml]\n",
    )
    env = Environment.load([env_file])
    with pytest.raises(ResourceTypeNotFound) as err:
        env.registry.get_class("My::T", None, {})
    missing = (tmp_path / "docker" / "missing.yaml").resolve()
    assert str(err.value) == (
        f"{env_file}: resource_registry.My::T: cannot choose an implementation of My::T: the "
        f"candidate template docker/missing.yaml cannot be used: {missing}: the template file "
        "does not exist"
    )


def test_a_malformed_candidate_annotation_names_its_file_and_key(tmp_path):
    impl(tmp_path, "a.yaml", "[deployment, puppet]")
    impl(tmp_path, "b.yaml", "{deployment: docker}")
    env_file = write(tmp_path / "env.yaml", "resource_registry:\n  My::T: [a.yaml, b.yaml]\n")
    env = Environment.load([env_file])
    with pytest.raises(ResourceTypeNotFound) as err:
        env.registry.get_class("My::T", None, {})
    assert str(err.value).endswith(
        f"the candidate template a.yaml cannot be used: {(tmp_path / 'a.yaml').resolve()}: "
        "capabilities: The capabilities section must be a map of names to values "
        "(e.g. deployment: puppet), not a list"
    )


@pytest.mark.parametrize(
    ("requires", "message"),
    [
        ("[deployment]", 'env.yaml: requires: The "requires" section must be a map'),
        (
            "{deployment: 2}",
            "env.yaml: requires.deployment: A required capability must be a non-empty string, "
            "not int 2",
        ),
        (
            "{deployment: null}",
            "env.yaml: requires.deployment: A required capability must be a non-empty string, "
            "not null",
        ),
    ],
)
def test_a_malformed_requires_section_names_file_and_key(requires, message):
    with pytest.raises(StackValidationFailed) as err:
        Environment.from_dict({"requires": _yaml(requires)}, "env.yaml")
    assert str(err.value) == message


def _yaml(text):
    return yaml.safe_load(text)


def test_a_list_of_non_templates_is_rejected_when_loaded():
    with pytest.raises(StackValidationFailed) as err:
        Environment.from_dict({"resource_registry": {"My::T": ["OS::Heat::None"]}}, "env.yaml")
    assert str(err.value) == (
        "env.yaml: resource_registry.My::T: A list in the resource registry must list "
        "template files"
    )


# --- describe_resolution and StackDefinition.resolutions --------------------------------


def test_describe_resolution_reports_every_candidate():
    env = Environment.load([REGISTRY])
    described = describe_resolution(env)
    assert described["requires"] == {"deployment": "puppet"}
    ctl = described["types"]["OS::TripleO::Controller"]
    assert ctl["chosen"] == "puppet/controller.yaml"
    assert ctl["chosen_path"] == PUPPET_CTL
    assert ctl["error"] is None
    assert ctl["environment"] == str(REGISTRY)
    assert [(c["template"], c["accepted"], c["reasons"]) for c in ctl["candidates"]] == [
        ("puppet/controller.yaml", True, []),
        ("docker/controller.yaml", False, ["deployment is docker, not puppet"]),
    ]
    assert list(described["types"]) == ["OS::TripleO::Controller"]


def test_describe_resolution_reports_failures_instead_of_raising():
    env = Environment.load([CHOICES])
    ctl = describe_resolution(env, {"controller": "OS::TripleO::Controller", "x": "OS::Heat::None"})
    assert list(ctl["types"]) == ["OS::TripleO::Controller"]
    entry = ctl["types"]["OS::TripleO::Controller"]
    assert entry["chosen"] is None
    assert entry["error"].startswith("2 candidate templates satisfy an empty requires section")


def test_stack_definition_resolutions():
    env = Environment.load([REGISTRY])
    defn = StackDefinition(
        load_template(PARENT), env, {}, stack_name="s", stack_id="id", project_id="p"
    )
    assert defn.resolutions() == {"OS::TripleO::Controller": PUPPET_CTL}
    ambiguous = StackDefinition(
        load_template(PARENT),
        Environment.load([CHOICES]),
        {},
        stack_name="s",
        stack_id="id",
    )
    with pytest.raises(StackValidationFailed, match="2 candidate templates satisfy"):
        ambiguous.resolutions()


# --- end to end through the world --------------------------------------------------------


def test_stack_create_picks_puppet_then_docker(world):
    puppet = world.create_stack("overcloud", str(PARENT), [str(REGISTRY)])
    assert puppet.state == "CREATE_COMPLETE"
    assert puppet.output("deployment") == "puppet"
    assert puppet.output("controller_name") == "overcloud-controller-0-puppet"
    assert puppet.definition.resolutions() == {"OS::TripleO::Controller": PUPPET_CTL}
    assert puppet.source.environment.resolutions == {"OS::TripleO::Controller": PUPPET_CTL}

    docker = world.create_stack("overcloud-docker", str(PARENT), [str(REGISTRY), str(DOCKER)])
    assert docker.state == "CREATE_COMPLETE"
    assert docker.output("deployment") == "docker"
    assert docker.output("controller_name") == "overcloud-controller-0-docker"
    assert docker.definition.resolutions() == {"OS::TripleO::Controller": DOCKER_CTL}


def test_stack_create_with_an_ambiguous_choice_fails_validation(world):
    with pytest.raises(StackValidationFailed) as err:
        world.create_stack("overcloud", str(PARENT), [str(CHOICES)])
    assert str(err.value).startswith(
        f"{PARENT}: resources.controller.type: {CHOICES}: resource_registry."
        "OS::TripleO::Controller: cannot choose an implementation of OS::TripleO::Controller"
    )
    assert world.stack_records() == []


def test_validate_template_fails_on_an_unresolvable_choice(world):
    with pytest.raises(StackValidationFailed, match="no candidate template satisfies"):
        world.validate_template(
            str(PARENT), [str(CHOICES), {"requires": {"deployment": "ansible"}}]
        )


# --- the rule, over many random trees --------------------------------------------------

tag_values = st.sampled_from(["puppet", "docker", "ansible"])
candidate_caps = st.fixed_dictionaries(
    {},
    optional={
        "deployment": tag_values,
        "nic": st.sampled_from(["bond", "bridge"]),
        "resource_type": st.sampled_from(["My::T", "Other::T", ["Other::T", "My::T"]]),
    },
)


@settings(max_examples=60, deadline=None)
@given(
    caps=st.lists(candidate_caps, min_size=1, max_size=4),
    requires=st.fixed_dictionaries(
        {}, optional={"deployment": tag_values, "nic": st.sampled_from(["bond", "bridge"])}
    ),
)
def test_exactly_one_satisfying_candidate_is_chosen(caps, requires):
    files = {
        f"c{i}.yaml": yaml.safe_dump({"heat_template_version": "2015-10-15", "capabilities": c})
        for i, c in enumerate(caps)
    }
    env = Environment.from_dict(
        {"requires": requires, "resource_registry": {"My::T": sorted(files)}}, files=files
    )

    def satisfies(c):
        types = c.get("resource_type", [])
        types = [types] if isinstance(types, str) else types
        tags_ok = all(c.get(k) == v for k, v in requires.items())
        return tags_ok and (not types or "My::T" in types)

    expected = [f"c{i}.yaml" for i, c in enumerate(caps) if satisfies(c)]
    resolution = env.registry.choose("My::T")
    assert [c.name for c in resolution.accepted] == expected
    if len(expected) == 1:
        assert env.registry.get_class("My::T", None, {}).path == expected[0]
        assert env.resolutions == {"My::T": expected[0]}
    else:
        with pytest.raises(ResourceTypeNotFound, match="cannot choose an implementation of My::T"):
            env.registry.get_class("My::T", None, {})
        assert env.resolutions == {}
