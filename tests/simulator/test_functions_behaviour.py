"""What each function computes, its errors, and property-based round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk.exception import StackValidationFailed
from sdk.properties import ValueNotYetKnown
from simulator.template import FunctionError, StackDefinition, load_template, resolve, select_path
from simulator.template.functions import dependencies, functions_in

LATEST = "2021-04-16"


class View:
    def __init__(self, attrs=None, pending=()):
        self.attrs = attrs or {}
        self.pending = set(pending)

    def reference_id(self, name):
        if name in self.pending:
            raise ValueNotYetKnown(name)
        return f"{name}-id"

    def attribute(self, name, attr, path):
        if name in self.pending:
            raise ValueNotYetKnown(name)
        data = self.attrs.get(name, {})
        return dict(data) if attr is None else select_path(data.get(attr), path)

    def resource_facade(self, kind):
        raise AssertionError("not used")


def parsed(value, version=LATEST, params=None, parameters=None, conditions=None):
    tmpl = {
        "heat_template_version": version,
        "parameters": parameters or {},
        "resources": {"a": {"type": "T"}, "b": {"type": "T"}},
        "outputs": {"o": {"value": value}},
    }
    if conditions is not None:
        tmpl["conditions"] = conditions
    defn = StackDefinition(load_template(tmpl), None, params, stack_name="st", stack_id="sid")
    ((_, _, out),) = defn.output_definitions()
    return out


def ev(value, view=None, **kw):
    return resolve(parsed(value, **kw), view or View())


# --- get_param / pseudo parameters -----------------------------------------------


def test_get_param_with_path_and_pseudo_parameters():
    params = {"j": {"type": "json", "default": {"a": [{"b": "deep"}]}}}
    assert ev({"get_param": ["j", "a", 0, "b"]}, parameters=params) == "deep"
    assert ev({"get_param": ["j", "a", "0", "b"]}, parameters=params) == "deep"
    assert ev({"get_param": ["j", "missing"]}, parameters=params) == ""
    assert ev({"get_param": "OS::stack_name"}) == "st"
    assert ev({"get_param": "OS::stack_id"}) == "sid"
    assert ev({"get_param": "OS::project_id"}) == "plugsim"


def test_get_param_unknown_is_a_load_error_with_path():
    tmpl = {
        "heat_template_version": LATEST,
        "resources": {"a": {"type": "T", "properties": {"x": {"get_param": "nope"}}}},
    }
    with pytest.raises(StackValidationFailed) as err:
        StackDefinition(load_template(tmpl), None, None, stack_name="st", stack_id="sid")
    assert str(err.value) == (
        'resources.a.properties.x.get_param: The parameter "nope" is not defined in the '
        "template (declare it in the parameters section)"
    )


def test_get_param_unknown_in_an_output_is_that_outputs_error_as_in_heat_27():
    from simulator.template.functions_core import UserParameterMissing

    with pytest.raises(UserParameterMissing, match=r"^The Parameter \(nope\) was not provided\.$"):
        ev({"x": {"get_param": "nope"}})


# --- get_resource / get_attr ---------------------------------------------------------


def test_get_resource_and_get_attr_use_the_view():
    view = View({"a": {"net": {"ips": ["1", "2"]}, "name": "n"}})
    assert ev({"get_resource": "a"}, view) == "a-id"
    assert ev({"get_attr": ["a", "net", "ips", 1]}, view) == "2"
    assert ev({"get_attr": ["a", "name"]}, view) == "n"
    assert ev({"get_attr": ["a"]}, view) == {"net": {"ips": ["1", "2"]}, "name": "n"}


def test_not_yet_known_propagates():
    with pytest.raises(ValueNotYetKnown):
        ev({"list_join": [",", [{"get_attr": ["a", "x"]}]]}, View(pending={"a"}))


def test_get_resource_of_unknown_resource():
    with pytest.raises(
        StackValidationFailed,
        match=r'outputs\.o\.value\.get_resource: The resource "zz" does not exist',
    ):
        parsed({"get_resource": "zz"})
    with pytest.raises(StackValidationFailed, match=r'get_attr: The resource "zz" does not exist'):
        parsed({"get_attr": ["zz", "x"]})


def test_dependencies_of_parsed_values():
    value = parsed(
        {
            "x": {"get_resource": "a"},
            "y": [{"str_replace": {"template": "t", "params": {"t": {"get_attr": ["b", "q"]}}}}],
        }
    )
    assert sorted(dependencies(value)) == ["a", "b"]
    assert [f.fn_name for f in functions_in(value)] == ["get_resource", "str_replace", "get_attr"]


def test_get_resource_name_from_a_parameter():
    params = {"which": {"type": "string", "default": "b"}}
    value = parsed({"get_resource": {"get_param": "which"}}, parameters=params)
    assert list(dependencies(value)) == ["b"]
    assert resolve(value, View()) == "b-id"


# --- strings ------------------------------------------------------------------------


def test_str_replace_prefers_longer_keys_and_does_not_rescan():
    out = ev({"str_replace": {"template": "$a $ab", "params": {"$a": "X", "$ab": "$a"}}})
    assert out == "X $a"


def test_str_replace_strict_and_vstrict_errors():
    with pytest.raises(FunctionError) as err:
        ev({"str_replace_strict": {"template": "abc", "params": {"zz": "y"}}})
    assert str(err.value) == (
        "outputs.o.value.str_replace_strict: The following params were not found in the template: zz"
    )
    with pytest.raises(FunctionError, match='has an undefined or empty value for param "a"'):
        ev({"str_replace_vstrict": {"template": "a", "params": {"a": ""}}})
    assert ev({"str_replace_strict": {"template": "a", "params": {"a": ""}}}) == ""


def test_str_replace_argument_shape():
    with pytest.raises(
        StackValidationFailed, match='"str_replace" needs exactly "template" and "params"'
    ):
        parsed({"str_replace": {"template": "x"}})


def test_list_join_errors():
    with pytest.raises(FunctionError, match='"list_join" must operate on a list'):
        ev({"list_join": [",", "abc"]})
    with pytest.raises(FunctionError, match="Items to join must be strings"):
        ev({"list_join": [",", [1]]}, version="2015-04-30")


def test_str_split_index():
    assert ev({"str_split": [",", "a,b,c", 2]}) == "c"
    with pytest.raises(FunctionError, match="should be between 0 and 2"):
        ev({"str_split": [",", "a,b,c", 5]})


def test_digest_algorithms():
    assert ev({"digest": ["md5", "x"]}) == "9dd4e461268c8034f5c8564e155c67a6"
    with pytest.raises(StackValidationFailed, match="Algorithm must be one of md5, sha1"):
        parsed({"digest": ["rot13", "x"]})


def test_make_url_escapes_and_ipv6():
    out = ev(
        {
            "make_url": {
                "scheme": "http",
                "username": "u@x",
                "password": "p w",
                "host": "::1",
                "port": "80",
                "path": "/a b",
                "query": {"q": "1/2"},
                "fragment": "f",
            }
        }
    )
    assert out == "http://u%40x:p%20w@[::1]:80/a%20b?q=1/2#f"
    with pytest.raises(StackValidationFailed, match="Invalid URL port 70000"):
        parsed({"make_url": {"host": "h", "port": 70000}})
    with pytest.raises(StackValidationFailed, match='Invalid arguments to "make_url": hostname'):
        parsed({"make_url": {"hostname": "h"}})


# --- collections ---------------------------------------------------------------------


def test_repeat_nested_and_in_keys():
    inner = {"repeat": {"for_each": {"%y%": ["1", "2"]}, "template": "%x%-%y%"}}
    outer = {"repeat": {"for_each": {"%x%": ["a", "b"]}, "template": inner}}
    assert ev(outer) == [["a-1", "a-2"], ["b-1", "b-2"]]
    assert ev({"repeat": {"for_each": {"K": ["p", "q"]}, "template": {"K": "v-K"}}}) == [
        {"p": "v-p"},
        {"q": "v-q"},
    ]


def test_repeat_cartesian_product_and_unequal_zip():
    usage = {"repeat": {"for_each": {"X": ["1", "2"], "Y": ["a", "b", "c"]}, "template": "XY"}}
    assert ev(usage) == ["1a", "1b", "1c", "2a", "2b", "2c"]
    usage["repeat"]["permutations"] = False
    with pytest.raises(FunctionError, match="must all have the same length"):
        ev(usage)


@given(
    st.lists(st.lists(st.integers(0, 9), max_size=4), min_size=1, max_size=3),
)
def test_repeat_cardinality_is_the_product_of_list_lengths(lists):
    for_each = {f"<{i}>": [str(v) for v in vals] for i, vals in enumerate(lists)}
    template = "".join(for_each)
    out = ev({"repeat": {"for_each": for_each, "template": template}})
    expected = 1
    for vals in lists:
        expected *= len(vals)
    assert len(out) == expected


_TEXT = st.text(alphabet="abcXYZ-_ ", max_size=12)


@given(st.lists(_TEXT, max_size=8), st.sampled_from([",", "|", "::"]))
def test_list_join_then_str_split_round_trips(items, delim):
    items = [i.replace(delim, "") for i in items if delim not in i]
    if not items:
        return
    joined = ev({"list_join": [delim, items]})
    assert ev({"str_split": [delim, joined]}) == items


@given(st.dictionaries(st.sampled_from(["<a>", "<bb>", "<ccc>"]), _TEXT, min_size=1), _TEXT)
def test_str_replace_fills_every_placeholder_once(params, filler):
    template = filler.join(params)
    out = ev({"str_replace": {"template": template, "params": params}})
    assert out == filler.join(params[k] for k in params)


def test_map_merge_and_map_replace():
    assert ev({"map_merge": [{"a": 1, "b": 1}, None, {"b": 2}]}) == {"a": 1, "b": 2}
    with pytest.raises(FunctionError, match="Items to merge must be maps"):
        ev({"map_merge": [{"a": 1}, ["x"]]})
    with pytest.raises(
        FunctionError, match="key replacement b collides with a key in the input map"
    ):
        ev({"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "b"}}]})
    with pytest.raises(StackValidationFailed, match='takes only "keys" and "values"'):
        parsed({"map_replace": [{"a": 1}, {"kees": {}}]})


def test_filter_concat_contains():
    assert ev({"filter": [[None, "x"], ["a", None, "x"]]}) == ["a"]
    # Heat keeps each item's first occurrence (checked against openstack-heat 27).
    assert ev({"list_concat_unique": [["a", "b", "a"], ["c", "b"]]}) == ["a", "b", "c"]
    assert ev({"contains": ["x", ["y"]]}) is False
    with pytest.raises(FunctionError, match="Items to concat must be lists"):
        ev({"list_concat": [["a"], "b"]})
    with pytest.raises(StackValidationFailed, match='"filter" expected 2 arguments'):
        parsed({"filter": [[1]]})


# --- if / conditions in values ---------------------------------------------------------


def test_if_chooses_by_named_condition_and_parameters():
    params = {"env": {"type": "string", "default": "prod"}}
    conds = {"is_prod": {"equals": [{"get_param": "env"}, "prod"]}}
    assert ev({"if": ["is_prod", "big", "small"]}, parameters=params, conditions=conds) == "big"
    out = ev(
        {"if": ["is_prod", "big", "small"]},
        parameters=params,
        conditions=conds,
        params={"env": "dev"},
    )
    assert out == "small"


def test_if_unknown_condition_name():
    with pytest.raises(StackValidationFailed) as err:
        parsed({"if": ["nope", 1, 2]}, conditions={"c": True})
    assert (
        str(err.value)
        == 'outputs.o.value.if[0]: Invalid condition "nope": no such condition is defined'
    )


def test_value_functions_are_refused_inside_conditions():
    with pytest.raises(StackValidationFailed) as err:
        parsed("x", conditions={"c": {"equals": [{"list_join": ["", ["a"]]}, "a"]}})
    assert str(err.value).startswith(
        'conditions.c.equals[0].list_join: The function "list_join" cannot be used in a condition'
    )


def test_contains_as_condition_function_from_pike():
    conds = {"c": {"contains": ["a", ["a"]]}}
    assert ev({"if": ["c", 1, 2]}, conditions=conds) == 1
    with pytest.raises(
        StackValidationFailed,
        match='"contains" cannot be used in a condition in heat_template_version 2017-02-24',
    ):
        parsed("x", version="2017-02-24", conditions=conds)
