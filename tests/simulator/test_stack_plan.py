"""Stack plans (:mod:`simulator.plan`): made once per process, shared, and never stale or wrong."""

import pytest

from sdk import exception, properties
from sdk.plugins import LoadReport
from sdk.resource import Resource
from simulator import plan
from simulator.registry import TypeRegistry
from simulator.world import World

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  word: {type: string, default: hello}
resources:
  one:
    type: Plugsim::Test::Trivial
    properties: {value: {get_param: word}}
"""


@pytest.fixture(autouse=True)
def fresh_plans():
    plan.clear()
    yield
    plan.clear()


@pytest.fixture
def world():
    w = World(seed=3)
    yield w
    w.close()


def test_a_source_read_twice_is_shared(world, tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE)
    first = world.source(t)
    assert world.source(t) is first
    with World(seed=4) as other:  # another world (another seed) of the same process
        assert other.source(t) is first


def test_an_edited_template_is_seen(world, tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE)
    assert world.source(t).template["parameters"]["word"]["default"] == "hello"
    t.write_text(TEMPLATE.replace("default: hello", "default: howdy"))
    assert world.source(t).template["parameters"]["word"]["default"] == "howdy"


def test_an_edited_environment_is_seen(world, tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE)
    env = tmp_path / "env.yaml"
    env.write_text("parameters: {word: one}\n")
    stack = world.create_stack("s1", t, [env])
    assert stack.parameters["word"] == "one"
    env.write_text("parameters: {word: two}\n")
    assert world.create_stack("s2", t, [env]).parameters["word"] == "two"


def test_an_edited_or_new_template_resource_file_is_seen(world, tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text("heat_template_version: 2018-08-31\nresources:\n  inner: {type: inner.yaml}\n")
    inner = tmp_path / "inner.yaml"
    with pytest.raises(exception.StackValidationFailed):  # the file is missing
        world.create_stack("s0", t)
    inner.write_text(TEMPLATE)  # the file appears: a new plan reads it
    source = world.source(t)
    assert "default: hello" in source.files[str(inner)]
    inner.write_text(TEMPLATE.replace("hello", "howdy"))
    assert "default: howdy" in world.source(t).files[str(inner)]


def test_inputs_hash_content_not_time(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text("x: 1\n")
    inputs = plan.Inputs.of([str(f), str(tmp_path / "absent.yaml")])
    assert inputs.fresh()
    f.write_text("x: 2\n")
    assert not inputs.fresh()
    f.write_text("x: 1\n")
    assert inputs.fresh()
    (tmp_path / "absent.yaml").write_text("now here\n")
    assert not inputs.fresh()


class _Strict(Resource):
    """A stricter class for the type ``Plugsim::Test::Trivial``: its value must be a number."""

    properties_schema = {"value": properties.Schema(properties.Schema.INTEGER, "A number.")}


class _StrictTypes:
    """A type source that overrides the built-in trivial type with :class:`_Strict`."""

    overrides = True

    def load(self, dirs):
        return LoadReport(mapping={"Plugsim::Test::Trivial": _Strict})


def test_different_plugin_sets_do_not_share_a_plan(tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE)  # value: hello, a string
    with World(seed=1) as lenient, World(seed=1) as strict:
        registry = strict.registry
        strict.registry = TypeRegistry(
            [*registry.sources, _StrictTypes()], template_classes=registry.template_classes
        )
        assert strict.source(t).digest == lenient.source(t).digest  # the same files ...
        ident = plan.plugin_set_identity(lenient.registry, [])
        assert plan.plugin_set_identity(strict.registry, []) != ident  # ... other classes
        assert lenient.create_stack("s", t).state == "CREATE_COMPLETE"
        with pytest.raises(exception.StackValidationFailed, match="value"):
            strict.create_stack("s", t)  # the lenient set's verdict is not this set's
    with World(seed=2) as again:  # the same classes (loaded once per process): the same identity
        assert plan.plugin_set_identity(again.registry, []) == ident


def test_a_verdict_is_shared_by_the_worlds_of_one_plan(tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE)
    for seed in (1, 2, 3):
        with World(seed=seed) as w:
            assert w.create_stack("s", t).state == "CREATE_COMPLETE"
    assert plan.stats() == {"sources": 1, "verdicts": 1, "templates": 0, "environments": 0}


def test_bad_input_gives_its_one_line_error_every_time(tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE.replace("value:", "valeu:"))
    messages = []
    for seed in (1, 2):
        with World(seed=seed) as w, pytest.raises(exception.StackValidationFailed) as err:
            w.create_stack("s", t)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "valeu" in messages[0] and "\n" not in messages[0]
    assert plan.stats()["verdicts"] == 0  # a failure is never kept
    t.write_text(TEMPLATE)  # fixed: the same process now builds it
    with World(seed=3) as w:
        assert w.create_stack("s", t).state == "CREATE_COMPLETE"


def test_parameters_are_part_of_a_verdict(tmp_path):
    t = tmp_path / "t.yaml"
    t.write_text(
        TEMPLATE.replace(
            "word: {type: string, default: hello}",
            "word: {type: string, default: hello, constraints: [{length: {max: 5}}]}",
        )
    )
    with World(seed=1) as w:
        w.create_stack("s", t)
    with World(seed=2) as w, pytest.raises(exception.StackValidationFailed, match="word"):
        w.create_stack("s", t, parameters={"word": "far too long"})


def test_campaign_results_are_the_same_with_and_without_plans():
    from sdk.testing.campaign.bench import three_tier
    from sdk.testing.campaign.runs import run_range

    def results():
        return [
            {k: v for k, v in r.items() if k != "wall_seconds"}
            for r in run_range(three_tier(), range(3))
        ]

    with plan.disabled():
        without = results()
    with_plans = results()
    assert plan.stats()["verdicts"] >= 1  # the plans were used
    assert with_plans == without
    assert [r["digest"] for r in with_plans] == [r["digest"] for r in without]


def _within(seconds, fn, unblock):
    """Run *fn* in a thread; fail (after unblocking it with *unblock*) if it takes longer."""
    import threading

    box = {}

    def target():
        try:
            box["value"] = fn()
        except Exception as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        unblock()
        thread.join(seconds)
        pytest.fail(f"still reading after {seconds} s: the plan waited on a pipe")
    return box


@pytest.mark.parametrize("which", ["template", "environment"])
def test_a_pipe_among_the_inputs_is_never_waited_on_nor_kept(world, tmp_path, which):
    import os

    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE)
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)

    def unblock():
        open(pipe, "w").close()  # a writer that closes at once ends a blocked reader  # noqa: SIM115

    args = (pipe, []) if which == "template" else (t, [pipe])
    box = _within(5, lambda: world.source(*args), unblock)
    assert "not a regular file" in str(box.get("error")), box
    assert plan.stats()["sources"] == 0


def test_a_verdict_depends_on_what_get_file_read(tmp_path):
    """An edited ``get_file`` target is validated again (its content feeds the properties)."""
    t = tmp_path / "t.yaml"
    t.write_text(
        "heat_template_version: 2018-08-31\nresources:\n  one:\n"
        "    type: Plugsim::Test::Trivial\n    properties: {delay: {get_file: delay.txt}}\n"
    )
    data = tmp_path / "delay.txt"
    data.write_text("5\n")
    for seed in (1, 2):
        with World(seed=seed) as w:
            assert w.create_stack("s", t).resources["one"].properties["delay"] == 5
    assert plan.stats()["verdicts"] == 1  # the second world shared the first one's verdict
    data.write_text("-1\n")
    with World(seed=3) as w, pytest.raises(exception.StackValidationFailed, match="minimum 0"):
        w.create_stack("s", t)
