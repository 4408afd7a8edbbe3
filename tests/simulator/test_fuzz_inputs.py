"""Fuzzing templates and environments: any input ends in a result or a plugsim error.

Documents are HOT-shaped (the real section names, resource types, functions and
parameter declarations) with random junk wherever a value goes. Each one is
validated through the Python API and through ``plugsim template validate``, and
created when it validates. The properties: nothing raises outside
:mod:`sdk.exception`'s hierarchy, the CLI never prints "internal error", and no
example runs longer than :data:`HANG_SECONDS` of wall time (an alarm stops it).

Examples are derandomized (the same ones in every run, so CI is
deterministic); set ``PLUGSIM_FUZZ_EXAMPLES`` to explore more.
"""

import contextlib
import os
import signal

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdk import exception
from simulator.cli import main
from simulator.limits import Limits
from simulator.world import World

HANG_SECONDS = 20
EXAMPLES = int(os.environ.get("PLUGSIM_FUZZ_EXAMPLES", "100"))

NAMES = st.sampled_from(["a", "b", "c", "p", "q", "1", ""])
scalars = (
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-1e3, 1e3) | st.text(max_size=6)
)


def rarely(draw):
    """True about one time in ten (hypothesis favours 0, so the rare case is another value)."""
    return draw(st.integers(0, 9)) == 7


def mostly(structured, other):
    """*structured* nine times in ten, else *other*."""
    return st.integers(0, 9).flatmap(lambda i: other if i == 7 else structured)


KEYS = mostly(NAMES, st.integers(0, 2))
junk = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def function(draw):
    """A HOT function call with plausible or junk arguments."""
    name = draw(
        st.sampled_from(
            [
                "get_param",
                "get_resource",
                "get_attr",
                "str_replace",
                "list_join",
                "if",
                "equals",
                "not",
                "and",
                "or",
                "repeat",
                "map_merge",
                "yaql",
                "get_file",
                "str_split",
                "list_concat",
                "contains",
                "filter",
                "make_url",
                "digest",
                "resource_facade",
            ]
        )
    )
    args = draw(
        st.one_of(
            NAMES,
            st.lists(NAMES | junk, max_size=3),
            st.fixed_dictionaries({"template": NAMES, "params": st.dictionaries(NAMES, junk)}),
            junk,
        )
    )
    return {name: args}


def get_param():
    """A reference that often resolves."""
    return st.fixed_dictionaries({"get_param": NAMES}) | st.fixed_dictionaries(
        {"get_resource": NAMES}
    )


values = st.one_of(
    scalars, get_param(), function(), st.dictionaries(NAMES, scalars | function(), max_size=3), junk
)

RESOURCE_TYPES = st.sampled_from(
    [
        "OS::Heat::None",
        "OS::Heat::RandomString",
        "OS::Heat::Value",
        "OS::Heat::TestResource",
        "OS::Heat::ResourceGroup",
        "OS::Heat::WaitConditionHandle",
        "No::Such::Type",
        "missing.yaml",
        "../up.yaml",
        "/abs.yaml",
    ]
)


@st.composite
def resource(draw):
    """A resource definition: mostly right keys, any values."""
    body = {"type": draw(mostly(RESOURCE_TYPES, junk))}
    if draw(st.booleans()):
        body["properties"] = draw(
            mostly(
                st.dictionaries(
                    st.sampled_from(["value", "length", "count", "resource_def", "x", "1"]),
                    values,
                    max_size=3,
                ),
                junk,
            )
        )
    for key in ("depends_on", "condition", "metadata", "deletion_policy", "update_policy"):
        if rarely(draw):
            body[key] = draw(values | NAMES)
    return draw(junk) if rarely(draw) else body


@st.composite
def parameter(draw):
    """A parameter declaration."""
    decl = {"type": draw(mostly(st.sampled_from(["string", "number", "json", "boolean"]), junk))}
    if draw(st.booleans()):
        decl["default"] = draw(mostly(scalars, junk))
    if rarely(draw):
        decl["constraints"] = draw(junk)
    if rarely(draw):
        decl["hidden"] = draw(junk)
    return draw(junk) if rarely(draw) else decl


@st.composite
def template(draw):
    """A HOT-ish document."""
    doc = {
        "heat_template_version": draw(
            mostly(
                st.sampled_from(
                    ["2018-08-31", "2016-10-14", "2021-04-16", "2013-05-23", "wallaby"]
                ),
                junk,
            )
        )
    }
    sections = {
        "description": mostly(st.text(max_size=10), junk),
        "parameters": mostly(st.dictionaries(NAMES, parameter(), max_size=3), junk),
        "parameter_groups": mostly(
            st.lists(
                mostly(
                    st.fixed_dictionaries({"label": NAMES, "parameters": st.lists(NAMES)}), junk
                ),
                max_size=2,
            ),
            junk,
        ),
        "resources": mostly(st.dictionaries(NAMES, resource(), max_size=4), junk),
        "outputs": mostly(
            st.dictionaries(NAMES, mostly(st.fixed_dictionaries({"value": values}), junk)), junk
        ),
        "conditions": mostly(st.dictionaries(NAMES, values, max_size=2), junk),
        "capabilities": mostly(st.dictionaries(NAMES, scalars, max_size=2), junk),
    }
    for name, strategy in sections.items():
        if draw(st.booleans()):
            doc[name] = draw(strategy)
    if rarely(draw):
        doc[draw(st.sampled_from(["resourcez", "Outputs", "1"]))] = draw(junk)
    return doc


environments = st.lists(
    mostly(
        st.fixed_dictionaries(
            {},
            optional={
                "parameters": st.dictionaries(NAMES, junk) | junk,
                "parameter_defaults": st.dictionaries(NAMES, junk) | junk,
                "resource_registry": st.dictionaries(
                    st.sampled_from(["My::T", "OS::Heat::None", "resources", "x*"]),
                    st.sampled_from(["OS::Heat::None", "My::T", "t.yaml", "../x.yaml"]) | junk,
                )
                | junk,
                "requires": junk,
            },
        ),
        junk,
    ),
    max_size=2,
)


class Hang(Exception):
    """An example ran longer than :data:`HANG_SECONDS`."""


@contextlib.contextmanager
def alarm(seconds):
    """Raise :class:`Hang` in this (main) thread after *seconds* of wall time."""

    def ring(signum, frame):
        raise Hang(f"no result after {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def not_internal(call):
    """Run *call*; only plugsim's own errors may come out."""
    try:
        return call()
    except exception.PlugsimError:
        return None


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=10_000,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def plain(value):
    """The document as YAML can hold it (keys as text)."""
    return yaml.safe_load(yaml.safe_dump(value))


@FUZZ
@given(doc=template(), envs=environments, params=st.dictionaries(NAMES, scalars, max_size=2))
def test_python_api_gives_a_result_or_a_plugsim_error(tmp_path_factory, doc, envs, params):
    world = World(limits=Limits(max_nested_stack_depth=2))
    try:
        with alarm(HANG_SECONDS):
            described = not_internal(lambda: world.validate_template(doc, envs, params))
            if described is not None:
                stack = not_internal(lambda: world.create_stack("s", doc, envs, params))
                if stack is not None:
                    assert stack.status in ("COMPLETE", "FAILED")
                    not_internal(lambda: world.delete_stack("s"))
    finally:
        world.close()


@pytest.mark.material
@FUZZ
@given(doc=template(), envs=environments)
def test_template_validate_never_prints_an_internal_error(tmp_path_factory, doc, envs):
    where = tmp_path_factory.mktemp("fuzz")
    (where / "t.yaml").write_text(yaml.safe_dump(plain(doc)))
    args = ["--state", ":memory:", "template", "validate", "-t", str(where / "t.yaml")]
    for i, env in enumerate(envs):
        (where / f"e{i}.yaml").write_text(yaml.safe_dump(plain(env)))
        args += ["-e", str(where / f"e{i}.yaml")]
    with alarm(HANG_SECONDS):
        result = CliRunner().invoke(main, args)
    assert "internal error" not in result.output, result.output
    assert result.exit_code in (0, 1), result.output
