"""Stack plans for nested stacks (:mod:`simulator.plan`): a template resource's template is
checked once per process and its merged environment made once, for every seed and owner."""

import pytest
import yaml

from sdk import exception
from simulator import plan
from simulator.stack_source import StackSource
from simulator.world import World

CHILD = {
    "heat_template_version": "2018-08-31",
    "parameters": {"word": {"type": "string"}, "delay": {"type": "number", "default": 3}},
    "resources": {
        "inner": {
            "type": "My::Inner",
            "properties": {"value": {"get_param": "word"}, "delay": {"get_param": "delay"}},
        }
    },
    "outputs": {
        "echo": {"value": {"get_attr": ["inner", "value"]}},
        "facade": {"value": {"resource_facade": "metadata"}},
    },
}

PARENT = {
    "heat_template_version": "2018-08-31",
    "parameters": {"delay": {"type": "number", "default": 3}},
    "resources": {
        "kid1": {
            "type": "My::Child",
            "properties": {"word": "one", "delay": {"get_param": "delay"}},
            "metadata": {"role": "web"},
        },
        "kid2": {
            "type": "My::Child",
            "properties": {"word": "two", "delay": {"get_param": "delay"}},
            "metadata": {"role": "db"},
        },
    },
    "outputs": {
        "echo1": {"value": {"get_attr": ["kid1", "echo"]}},
        "echo2": {"value": {"get_attr": ["kid2", "echo"]}},
        "facade2": {"value": {"get_attr": ["kid2", "facade"]}},
    },
}

ENV = {
    "resource_registry": {
        "My::Child": "child.yaml",
        "My::Inner": "Plugsim::Test::Trivial",
        # kid2's nested stack (only) makes its inner resource a placeholder
        "resources": {"kid2": {"inner": {"My::Inner": "OS::Heat::None"}}},
    }
}


@pytest.fixture(autouse=True)
def fresh_plans():
    plan.clear()
    yield
    plan.clear()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "child.yaml").write_text(yaml.safe_dump(CHILD, sort_keys=False))
    (tmp_path / "env.yaml").write_text(yaml.safe_dump(ENV, sort_keys=False))
    (tmp_path / "parent.yaml").write_text(yaml.safe_dump(PARENT, sort_keys=False))
    return tmp_path


@pytest.fixture
def checks(monkeypatch):
    """The template names :meth:`StackSource.check_template` was called for, in order."""
    seen: list[str | None] = []
    original = StackSource.check_template

    def counted(self):
        seen.append(self.template_name)
        return original(self)

    monkeypatch.setattr(StackSource, "check_template", counted)
    return seen


def _create(files, seed, name="p", **kw):
    world = World(seed=seed)
    stack = world.create_stack(name, files / "parent.yaml", [files / "env.yaml"], **kw)
    return world, stack


def _children(world, stack):
    return {n: world.get_stack(stack.resources[n].resource_id) for n in ("kid1", "kid2")}


def _nested_checks(seen):
    return [name for name in seen if name and name.endswith("child.yaml")]


def test_a_nested_template_is_checked_once_for_every_owner_and_world(files, checks):
    templates = []
    for seed in (1, 2):
        world, stack = _create(files, seed)
        with world:
            assert stack.state == "CREATE_COMPLETE", stack.status_reason
            kids = _children(world, stack)
            templates += [kid.definition.template for kid in kids.values()]
    assert len(_nested_checks(checks)) == 1
    assert all(t is templates[0] for t in templates)  # one checked template, shared
    assert str(templates[0].base_dir) == str(files)  # as the file's own directory says


def test_without_plans_every_nested_stack_checks_its_template(files, checks):
    with plan.disabled():
        for seed in (1, 2):
            world, stack = _create(files, seed)
            with world:
                assert stack.state == "CREATE_COMPLETE", stack.status_reason
    assert len(_nested_checks(checks)) == 4
    assert plan.stats()["templates"] == plan.stats()["environments"] == 0


def test_an_update_of_a_nested_stack_shares_the_plan_too(files, checks):
    for seed in (1, 2):
        world, stack = _create(files, seed)
        with world:
            stack = world.update_stack(
                "p", files / "parent.yaml", [files / "env.yaml"], parameters={"delay": 5}
            )
            assert stack.state == "UPDATE_COMPLETE", stack.status_reason
            assert _children(world, stack)["kid1"].parameters["delay"] == 5
    assert len(_nested_checks(checks)) == 1


def test_each_owner_keeps_its_own_registry_entries(files):
    for seed in (1, 2):
        world, stack = _create(files, seed)
        with world:
            kids = _children(world, stack)
            inner = {n: type(kid.resources["inner"]).__name__ for n, kid in kids.items()}
            assert inner["kid1"] != inner["kid2"]
            assert kids["kid1"].resources["inner"].properties["value"] == "one"
            outs = {o["output_key"]: o["output_value"] for o in stack.outputs()}
            assert outs["echo1"] == "one"
            assert outs["facade2"] == {"role": "db"}
    # two owners, two inherited environments: each made once, for both worlds
    assert plan.stats()["environments"] == 2


def test_an_edited_nested_template_file_is_seen(files):
    world, stack = _create(files, 1)
    with world:
        assert {o["output_key"]: o["output_value"] for o in stack.outputs()}["echo1"] == "one"
    child = yaml.safe_load((files / "child.yaml").read_text())
    child["outputs"]["echo"]["value"] = {"list_join": ["+", [{"get_param": "word"}, "edited"]]}
    (files / "child.yaml").write_text(yaml.safe_dump(child, sort_keys=False))
    world, stack = _create(files, 2)
    with world:
        assert stack.state == "CREATE_COMPLETE", stack.status_reason
        assert {o["output_key"]: o["output_value"] for o in stack.outputs()}[
            "echo1"
        ] == "one+edited"


@pytest.mark.parametrize("nested", [True, False])
def test_an_edited_get_file_is_seen(tmp_path, nested):
    """A template shared by a plan reads ``get_file`` again when the file changed."""
    (tmp_path / "data.txt").write_text("first")
    inner = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "one": {
                "type": "Plugsim::Test::Trivial",
                "properties": {"value": {"get_file": "data.txt"}},
            }
        },
        "outputs": {"v": {"value": {"get_attr": ["one", "value"]}}},
    }
    top = {
        "heat_template_version": "2018-08-31",
        "resources": {"kid": {"type": "inner.yaml"}},
        "outputs": {"v": {"value": {"get_attr": ["kid", "v"]}}},
    }
    (tmp_path / "inner.yaml").write_text(yaml.safe_dump(inner))
    (tmp_path / "top.yaml").write_text(yaml.safe_dump(top))
    name = "top.yaml" if nested else "inner.yaml"
    values = []
    for seed, text in ((1, None), (2, "second"), (3, None)):
        if text is not None:
            (tmp_path / "data.txt").write_text(text)
        with World(seed=seed) as world:
            stack = world.create_stack("s", tmp_path / name)
            assert stack.state == "CREATE_COMPLETE", stack.status_reason
            values.append(stack.output("v"))
    assert values == ["first", "second", "second"]


def test_a_nested_validation_failure_is_reported_every_time(files):
    reasons = []
    for seed in (1, 2, 3):
        world, stack = _create(files, seed, parameters={"delay": -1})
        with world:
            assert stack.state == "CREATE_FAILED"
            reasons.append(stack.status_reason)
    assert reasons[0] == reasons[1] == reasons[2]
    assert "delay" in reasons[0] and "\n" not in reasons[0]
    # the same plan still builds a good stack afterwards
    world, stack = _create(files, 4)
    with world:
        assert stack.state == "CREATE_COMPLETE", stack.status_reason


def test_a_template_that_fails_its_checks_is_never_kept():
    bad = {
        "heat_template_version": "2018-08-31",
        "resources": {"a": {"type": "Plugsim::Test::Trivial", "depends_on": ["nowhere"]}},
    }
    messages = []
    for _ in range(2):
        source = StackSource(template=bad, template_name="bad.yaml").share_plans(plan.NESTED)
        with pytest.raises(exception.StackValidationFailed) as err:
            source.load_template()
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "nowhere" in messages[0]
    assert plan.stats()["templates"] == 0


def test_templates_that_differ_in_types_or_order_are_not_confused():
    def source(resources):
        tmpl = {"heat_template_version": "2018-08-31", "resources": resources}
        return StackSource(template=tmpl, template_name="t.yaml").share_plans(plan.NESTED)

    one = {"a": {"type": "Plugsim::Test::Trivial", "properties": {"value": "1"}}}
    other = {"a": {"type": "Plugsim::Test::Trivial", "properties": {"value": 1}}}
    assert source(one).load_template() is not source(other).load_template()
    ab = {"a": {"type": "OS::Heat::None"}, "b": {"type": "OS::Heat::None"}}
    ba = {"b": {"type": "OS::Heat::None"}, "a": {"type": "OS::Heat::None"}}
    assert list(source(ab).load_template().resources) == ["a", "b"]
    assert list(source(ba).load_template().resources) == ["b", "a"]
    assert source(ab).load_template() is source(dict(ab)).load_template()


def _run(files, seed):
    """Everything a lifecycle of the parent shows: events, outputs, nested parameters."""
    world, stack = _create(files, seed)
    with world:
        world.update_stack(
            "p", files / "parent.yaml", [files / "env.yaml"], parameters={"delay": 4}
        )
        seen = [stack.state, stack.outputs()]
        seen.append(
            [
                (e.stack_name, e.resource_name, e.state, e.reason, e.time)
                for e in world.stack_events("p")
            ]
        )
        seen.append({n: k.parameters for n, k in _children(world, stack).items()})
        world.delete_stack("p")
        seen.append(
            [(e.stack_name, e.resource_name, e.state, e.time) for e in world.stack_events("p")]
        )
    return seen


def test_nested_runs_are_the_same_with_and_without_plans(files):
    with plan.disabled():
        without = [_run(files, seed) for seed in (5, 6)]
    with_plans = [_run(files, seed) for seed in (5, 6)]
    assert plan.stats()["templates"] == 1
    assert with_plans == without
    assert without[0] != without[1]  # the seeds differ (ids), so the comparison means something


def test_a_template_without_template_resources_is_checked_for_nesting_without_paths(
    files, monkeypatch
):
    """Most nested stacks name no template resource: the nesting check then resolves no path
    (it was the largest part of a nested stack's validation), and still refuses a cycle."""
    from pathlib import Path

    from simulator.nesting import check_nesting

    source = StackSource.load(files / "child.yaml", [files / "env.yaml"])
    assert source.environment is not None  # merged beforehand, as a stack's build does

    def refuse(self, *args, **kwargs):
        raise AssertionError(f"resolved {self}")

    monkeypatch.setattr(Path, "resolve", refuse)
    check_nesting(source)
    monkeypatch.undo()
    looped = dict(CHILD, resources={"again": {"type": "My::Child"}})
    (files / "child.yaml").write_text(yaml.safe_dump(looped, sort_keys=False))
    with pytest.raises(exception.StackValidationFailed, match="cycle"):
        check_nesting(StackSource.load(files / "child.yaml", [files / "env.yaml"]))


GROUP = """\
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 3}
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: Plugsim::Test::Trivial
        properties: {value: "member %index%"}
outputs:
  values: {value: {get_attr: [group, value]}}
"""


def test_a_groups_nested_stack_shares_its_plan(tmp_path, checks):
    t = tmp_path / "g.yaml"
    t.write_text(GROUP)

    def run(seed):
        with World(seed=seed) as world:
            first = world.create_stack("s", t).output("values")
            stack = world.update_stack("s", t, parameters={"count": 2})
            return first, stack.state, stack.output("values")

    with plan.disabled():
        without = [run(seed) for seed in (1, 2)]
    del checks[:]
    with_plans = [run(seed) for seed in (1, 2)]
    assert with_plans == without
    assert with_plans[0] == (
        ["member 0", "member 1", "member 2"],
        "UPDATE_COMPLETE",
        ["member 0", "member 1"],
    )
    # the member stack's template of each count, checked once for both worlds
    assert sorted(n for n in checks if n == "group (nested)") == ["group (nested)"] * 2
