"""Property-based tests: empty values, coercions and nested validation paths."""

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sdk import exception
from sdk import properties as p

S = p.Schema
WEB = ["resources", "web", "properties"]

EMPTY = {
    S.STRING: "",
    S.INTEGER: 0,
    S.NUMBER: 0,
    S.BOOLEAN: False,
    S.MAP: {},
    S.LIST: [],
    S.ANY: None,
}


def value_of(data_type, raw):
    return p.Properties({"x": S(data_type)}, {"x": raw})["x"]


# -- empty values round-trip -------------------------------------------------------------


@given(st.sampled_from(S.TYPES))
def test_every_type_round_trips_its_empty_value(data_type):
    empty = p.Properties({"x": S(data_type)}, {})["x"]
    assert empty == EMPTY[data_type]
    again = p.Properties({"x": S(data_type)}, {"x": empty})
    again.validate()
    assert again["x"] == empty


# -- scalar coercions -----------------------------------------------------------------------


@given(st.integers())
def test_any_int_to_string_is_str_of_it(n):
    assert value_of(S.STRING, n) == str(n)


@given(st.text())
def test_any_text_to_string_is_itself(text):
    assert value_of(S.STRING, text) == text


@given(st.booleans())
def test_bool_to_string_is_lower_case(b):
    assert value_of(S.STRING, b) == ("true" if b else "false")


@given(st.integers(), st.sampled_from(["", " ", "  "]))
def test_integral_numeric_strings_to_integer(n, pad):
    assert value_of(S.INTEGER, f"{pad}{n}{pad}") == n
    assert value_of(S.INTEGER, n) == n
    assert value_of(S.INTEGER, f"{n}.0") == n


@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()))
def test_fractional_values_are_not_integers(f):
    with pytest.raises(exception.StackValidationFailed, match="fractional part"):
        value_of(S.INTEGER, f)
    with pytest.raises(exception.StackValidationFailed, match="fractional part"):
        value_of(S.INTEGER, repr(f))


@given(st.integers())
def test_numbers_from_integral_strings_are_ints(n):
    value = value_of(S.NUMBER, str(n))
    assert value == n and type(value) is int


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_numbers_from_float_strings_round_trip(f):
    value = value_of(S.NUMBER, repr(f))
    assert value == f
    assert value_of(S.NUMBER, f) == f


@given(st.booleans(), st.sampled_from([str.lower, str.upper, str.title]))
def test_boolean_strings_in_any_case(b, case):
    assert value_of(S.BOOLEAN, case(str(b))) is b
    assert value_of(S.BOOLEAN, b) is b


@given(st.text().filter(lambda t: t.strip().lower() not in ("true", "false")))
def test_other_strings_are_not_booleans(text):
    with pytest.raises(exception.StackValidationFailed, match="is not a valid Boolean"):
        value_of(S.BOOLEAN, text)


@given(st.text().filter(lambda t: not _is_number(t)))
@example("0\x1f")  # str.strip() drops this control character; int()/float() do not
@example("1.0\x1c")
def test_non_numeric_strings_are_rejected_by_number_types(text):
    for data_type in (S.NUMBER, S.INTEGER):
        with pytest.raises(exception.StackValidationFailed, match=f"is not a valid {data_type}"):
            value_of(data_type, text)


def _is_number(text):
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


# -- nested schemas -----------------------------------------------------------------------------

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True)
SCALARS = st.sampled_from([S.STRING, S.INTEGER, S.NUMBER, S.BOOLEAN])

# A tree is ("scalar", type) | ("map", {name: tree}) | ("list", tree).
TREES = st.recursive(
    SCALARS.map(lambda t: ("scalar", t)),
    lambda children: st.one_of(
        st.dictionaries(NAMES, children, min_size=1, max_size=4).map(lambda d: ("map", d)),
        children.map(lambda c: ("list", c)),
    ),
    max_leaves=8,
)


#: Trees whose root is a map, drawn as such (filtering TREES for them rejected most draws, which
#: can fail Hypothesis's filter health check now and then).
MAP_TREES = st.dictionaries(NAMES, TREES, min_size=1, max_size=4).map(lambda d: ("map", d))


def build(tree):
    kind, arg = tree
    if kind == "scalar":
        return S(arg)
    if kind == "map":
        return S(S.MAP, schema={k: build(v) for k, v in arg.items()})
    return S(S.LIST, schema=build(arg))


RAW_SCALARS = {
    S.STRING: st.one_of(
        st.text(max_size=5).map(lambda t: (t, t)),
        st.integers().map(lambda n: (n, str(n))),
    ),
    S.INTEGER: st.one_of(
        st.integers().map(lambda n: (n, n)), st.integers().map(lambda n: (str(n), n))
    ),
    S.NUMBER: st.one_of(
        st.integers().map(lambda n: (n, n)),
        st.floats(allow_nan=False, allow_infinity=False).map(lambda f: (f, f)),
    ),
    S.BOOLEAN: st.one_of(
        st.booleans().map(lambda b: (b, b)), st.booleans().map(lambda b: (str(b).lower(), b))
    ),
}


def draw_value(data, tree):
    """Draw (raw, expected) for a tree: the user data and what props returns."""
    kind, arg = tree
    if kind == "scalar":
        return data.draw(RAW_SCALARS[arg])
    if kind == "map":
        present = data.draw(st.lists(st.sampled_from(sorted(arg)), unique=True))
        raw, expected = {}, {}
        for name, child in arg.items():
            if name in present:
                raw[name], expected[name] = draw_value(data, child)
            else:
                expected[name] = empty_of(child)
        return raw, expected
    size = data.draw(st.integers(0, 3))
    pairs = [draw_value(data, arg) for _ in range(size)]
    return [r for r, _ in pairs], [e for _, e in pairs]


def empty_of(tree):
    kind, arg = tree
    if kind == "scalar":
        return EMPTY[arg]
    if kind == "map":
        return {k: empty_of(v) for k, v in arg.items()}
    return []


def locations(raw, tree, path=()):
    """Every (path, tree) inside the raw value, containers included."""
    yield path, tree
    kind, arg = tree
    if kind == "map":
        for name in raw:
            yield from locations(raw[name], arg[name], (*path, name))
    elif kind == "list":
        for i, item in enumerate(raw):
            yield from locations(item, arg, (*path, i))


def replaced(raw, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(raw) if isinstance(raw, dict) else list(raw)
    copy[head] = replaced(raw[head], rest, new)
    return copy


@settings(max_examples=150, deadline=None)
@given(TREES, st.data())
def test_random_valid_nested_values_validate(tree, data):
    raw, expected = draw_value(data, tree)
    props = p.Properties({"root": build(tree)}, {"root": raw}, path=WEB)
    props.validate()
    assert props["root"] == expected


@settings(max_examples=150, deadline=None)
@given(TREES, st.data())
def test_wrong_types_are_rejected_with_their_path(tree, data):
    raw, _ = draw_value(data, tree)
    path, target = data.draw(st.sampled_from(list(locations(raw, tree))))
    bad = {"bad": 1} if target[0] == "list" else ["bad"]
    props = p.Properties({"root": build(tree)}, {"root": replaced(raw, path, bad)}, path=WEB)
    with pytest.raises(exception.StackValidationFailed) as info:
        props.validate()
    assert info.value.path == [*WEB, "root", *path]
    assert str(info.value).startswith(exception.format_path([*WEB, "root", *path]) + ": ")


@settings(max_examples=100, deadline=None)
@given(MAP_TREES, st.data())
def test_unknown_members_are_rejected_at_their_map(tree, data):
    raw, _ = draw_value(data, tree)
    maps = [(path, t) for path, t in locations(raw, tree) if t[0] == "map"]
    path, target = data.draw(st.sampled_from(maps))
    intruder = data.draw(NAMES.filter(lambda n: n not in target[1]))
    node = raw
    for part in path:
        node = node[part]
    polluted = replaced(raw, path, {**node, intruder: 1})
    props = p.Properties({"root": build(tree)}, {"root": polluted}, path=WEB)
    with pytest.raises(exception.StackValidationFailed) as info:
        props.validate()
    assert info.value.path == [*WEB, "root", *path]
    assert info.value.error_message == f"Unknown Property {intruder}"
