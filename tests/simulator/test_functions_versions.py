"""Every function in every HOT version: it works where the version has it, and where
the version lacks it, loading fails naming the function, the version and the path."""

from __future__ import annotations

import hashlib

import pytest

from sdk.exception import StackValidationFailed
from simulator.template import VERSIONS, StackDefinition, load_template, resolve, select_path

ORDER = list(VERSIONS)


class View:
    """A minimal engine view: ids are '<name>-id', attributes come from a dict."""

    def __init__(self, attrs=None):
        self.attrs = attrs or {"r": {"a": "A", "net": {"ips": ["1.1.1.1", "2.2.2.2"]}}}

    def reference_id(self, name):
        return f"{name}-id"

    def attribute(self, name, attr, path):
        if attr is None:
            return dict(self.attrs[name])
        return select_path(self.attrs[name].get(attr), path)

    def resource_facade(self, kind):
        return {"metadata": {"m": 1}, "deletion_policy": "Retain", "update_policy": {}}[kind]


def template(version, value, **extra):
    return {
        "heat_template_version": version,
        "parameters": {"p": {"type": "string", "default": "x"}},
        "resources": {"r": {"type": "T"}},
        "outputs": {"o": {"value": value}},
        **extra,
    }


def evaluate(version, value, files=None, view=None, **extra):
    tmpl = load_template(template(version, value, **extra), files=files)
    defn = StackDefinition(tmpl, None, None, stack_name="st", stack_id="id-1")
    ((_, _, parsed),) = defn.output_definitions()
    return resolve(parsed, view or View())


SHA = hashlib.sha256(b"abc").hexdigest()

# function -> (usage, expected result, first version, last version)
CASES = {
    "get_param": ({"get_param": "p"}, "x", "2013-05-23", None),
    "get_resource": ({"get_resource": "r"}, "r-id", "2013-05-23", None),
    "get_attr": ({"get_attr": ["r", "net", "ips", 1]}, "2.2.2.2", "2013-05-23", None),
    "get_file": ({"get_file": "f.txt"}, "file text", "2013-05-23", None),
    "list_join": ({"list_join": ["-", ["a", "b"]]}, "a-b", "2013-05-23", None),
    "str_replace": (
        {"str_replace": {"template": "hi $n", "params": {"$n": "you"}}},
        "hi you",
        "2013-05-23",
        None,
    ),
    "repeat": (
        {"repeat": {"for_each": {"%x%": ["a", "b"]}, "template": "v%x%"}},
        ["va", "vb"],
        "2015-04-30",
        None,
    ),
    "digest": ({"digest": ["sha256", "abc"]}, SHA, "2015-04-30", None),
    "str_split": ({"str_split": [",", "a,b"]}, ["a", "b"], "2015-10-15", None),
    "map_merge": ({"map_merge": [{"a": 1}, {"b": 2}]}, {"a": 1, "b": 2}, "2016-04-08", None),
    "map_replace": (
        {"map_replace": [{"k": "v"}, {"keys": {"k": "K"}, "values": {"v": "V"}}]},
        {"K": "V"},
        "2016-10-14",
        None,
    ),
    "if": ({"if": [True, "yes", "no"]}, "yes", "2016-10-14", None),
    "filter": ({"filter": [["b"], ["a", "b", "c"]]}, ["a", "c"], "2017-02-24", None),
    "str_replace_strict": (
        {"str_replace_strict": {"template": "a-X", "params": {"X": "b"}}},
        "a-b",
        "2017-02-24",
        None,
    ),
    "make_url": (
        {"make_url": {"scheme": "https", "host": "example.com", "port": 8443, "path": "/v1"}},
        "https://example.com:8443/v1",
        "2017-09-01",
        None,
    ),
    "list_concat": ({"list_concat": [["a"], ["b", "a"]]}, ["a", "b", "a"], "2017-09-01", None),
    "list_concat_unique": (
        {"list_concat_unique": [["a", "b"], ["b", "c"]]},
        ["a", "b", "c"],
        "2017-09-01",
        None,
    ),
    "contains": ({"contains": ["a", ["a", "b"]]}, True, "2017-09-01", None),
    "str_replace_vstrict": (
        {"str_replace_vstrict": {"template": "a-X", "params": {"X": "b"}}},
        "a-b",
        "2017-09-01",
        None,
    ),
    "Ref": ({"Ref": "p"}, "x", "2013-05-23", "2013-05-23"),
    "Fn::Select": ({"Fn::Select": [1, ["a", "b"]]}, "b", "2013-05-23", "2015-04-30"),
    "Fn::Join": ({"Fn::Join": [",", ["a", "b"]]}, "a,b", "2013-05-23", "2013-05-23"),
    "Fn::Split": ({"Fn::Split": [",", "a,b"]}, ["a", "b"], "2013-05-23", "2013-05-23"),
    "Fn::Replace": ({"Fn::Replace": [{"$x": "y"}, "a $x"]}, "a y", "2013-05-23", "2013-05-23"),
    "Fn::Base64": ({"Fn::Base64": "plain"}, "plain", "2013-05-23", "2013-05-23"),
    "Fn::MemberListToMap": (
        {"Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=k", ".member.0.Value=v"]]},
        {"k": "v"},
        "2013-05-23",
        "2013-05-23",
    ),
}


def _available(first, last, version):
    return version >= first and (last is None or version <= last)


@pytest.mark.parametrize("version", ORDER)
@pytest.mark.parametrize("fn", sorted(CASES))
def test_function_in_version(fn, version):
    usage, expected, first, last = CASES[fn]
    files = {"f.txt": "file text"}
    if _available(first, last, version):
        assert evaluate(version, usage, files=files) == expected
        return
    with pytest.raises(StackValidationFailed) as err:
        load_template(template(version, usage), files=files, source="v.yaml")
    msg = str(err.value)
    assert msg.startswith(f'v.yaml: outputs.o.value.{fn}: The function "{fn}" is not supported in ')
    assert f"heat_template_version {version}" in msg
    if version < first:
        assert f"it was added in {first}" in msg
    else:
        assert f"it was removed after {last}" in msg


@pytest.mark.parametrize("version", ORDER)
def test_yaql_is_evaluated_from_2016_10_14_and_too_new_before(version):
    from simulator.template.definition import StackDefinition
    from simulator.template.functions import StaticView

    value = {"yaql": {"expression": "$.data.l.max()", "data": {"l": [4, 9, 2]}}}
    if version < "2016-10-14":
        with pytest.raises(StackValidationFailed) as err:
            load_template(template(version, value))
        assert "it was added in 2016-10-14" in str(err.value)
        assert str(err.value).startswith("outputs.o.value.yaql: ")
        return
    tmpl = load_template(template(version, value))
    definition = StackDefinition(tmpl, None, None, stack_name="s", stack_id="i")
    assert definition.outputs(StaticView("a test", ValueError))[0]["output_value"] == 9


def test_get_azs_gives_the_fake_clouds_zone():
    from simulator.template.definition import StackDefinition
    from simulator.template.functions import StaticView

    tmpl = load_template(template("2013-05-23", {"Fn::GetAZs": ""}))
    definition = StackDefinition(tmpl, None, None, stack_name="s", stack_id="i")
    assert definition.outputs(StaticView("a test", ValueError))[0]["output_value"] == ["nova"]


@pytest.mark.parametrize("version", ORDER)
def test_get_attr_all_attributes_form_from_2015_10_15(version):
    usage = {"get_attr": ["r"]}
    view = View({"r": {"a": 1, "b": 2}})
    if version >= "2015-10-15":
        assert evaluate(version, usage, view=view) == {"a": 1, "b": 2}
    else:
        with pytest.raises(
            StackValidationFailed, match=r"\[resource_name, attribute, \(path\), \.\.\.\]"
        ):
            load_template(template(version, usage))


@pytest.mark.parametrize("version", ORDER)
def test_list_join_of_several_lists_from_2015_10_15(version):
    usage = {"list_join": [",", ["a"], ["b", {"k": 1}]]}
    if version >= "2015-10-15":
        assert evaluate(version, usage) == 'a,b,{"k": 1}'
    else:
        with pytest.raises(StackValidationFailed, match='Incorrect arguments to "list_join"'):
            load_template(template(version, usage))


@pytest.mark.parametrize("version", ORDER)
def test_str_replace_json_values_from_2015_10_15(version):
    usage = {"str_replace": {"template": "v=V", "params": {"V": {"get_param": "p"}}}}
    assert evaluate(version, usage) == "v=x"
    usage = {"str_replace": {"template": "v=V", "params": {"V": [1, 2]}}}
    if version >= "2015-10-15":
        assert evaluate(version, usage) == "v=[1, 2]"
    else:
        with pytest.raises(
            StackValidationFailed, match='"str_replace" params must be strings or numbers'
        ):
            evaluate(version, usage)


@pytest.mark.parametrize("version", ORDER)
def test_repeat_over_a_map_from_2016_10_14(version):
    if version < "2015-04-30":
        return
    usage = {"repeat": {"for_each": {"K": {"a": 1, "b": 2}}, "template": "k-K"}}
    if version >= "2016-10-14":
        assert evaluate(version, usage) == ["k-a", "k-b"]
    else:
        with pytest.raises(StackValidationFailed, match="must be lists"):
            evaluate(version, usage)


@pytest.mark.parametrize("version", ORDER)
def test_repeat_permutations_option_counts_from_2017_09_01(version):
    if version < "2015-04-30":
        return
    usage = {
        "repeat": {
            "for_each": {"X": ["1", "2"], "Y": ["a", "b"]},
            "template": "X-Y",
            "permutations": False,
        }
    }
    if version >= "2017-09-01":
        assert evaluate(version, usage) == ["1-a", "2-b"]
    else:
        # Heat 27's engine takes the option before 2017-09-01 and ignores it: every combination
        assert evaluate(version, usage) == ["1-a", "1-b", "2-a", "2-b"]


@pytest.mark.parametrize("version", ORDER)
def test_two_argument_if_from_2021_04_16(version):
    if version < "2016-10-14":
        return
    usage = {"keep": "k", "maybe": {"if": [False, "v"]}}
    if version >= "2021-04-16":
        assert evaluate(version, usage) == {"keep": "k"}
        assert evaluate(version, ["a", {"if": [False, "b"]}, {"if": [True, "c"]}]) == ["a", "c"]
    else:
        with pytest.raises(
            StackValidationFailed, match=r"outputs\.o\.value\.maybe\.if: Arguments to \"if\""
        ):
            load_template(template(version, usage))


def test_resource_facade_in_a_nested_stack():
    from simulator.template import ParentInfo

    tmpl = load_template(template("2018-08-31", {"resource_facade": "metadata"}))
    defn = StackDefinition(
        tmpl, None, None, stack_name="s", stack_id="i", parent_resource=ParentInfo("parent")
    )
    ((_, _, parsed),) = defn.output_definitions()
    assert resolve(parsed, View()) == {"m": 1}


def test_resource_facade_outside_a_nested_stack_is_an_error():
    tmpl = load_template(template("2018-08-31", {"resource_facade": "metadata"}))
    with pytest.raises(
        StackValidationFailed,
        match="can only be used in a template that is used as a resource type",
    ):
        StackDefinition(tmpl, None, None, stack_name="s", stack_id="i")


def test_resource_facade_kind_checked():
    with pytest.raises(
        StackValidationFailed, match="should be one of: metadata, deletion_policy, update_policy"
    ):
        load_template(template("2018-08-31", {"resource_facade": "tags"}))


def test_cfn_resource_facade():
    from simulator.template import ParentInfo

    tmpl = load_template(template("2013-05-23", {"Fn::ResourceFacade": "DeletionPolicy"}))
    defn = StackDefinition(
        tmpl, None, None, stack_name="s", stack_id="i", parent_resource=ParentInfo("p")
    )
    ((_, _, parsed),) = defn.output_definitions()
    assert resolve(parsed, View()) == "Retain"


def test_condition_functions_are_plain_data_in_values():
    # as in Heat, equals/not/and/or are only functions inside conditions
    assert evaluate("2018-08-31", {"equals": [1, 1]}) == {"equals": [1, 1]}
