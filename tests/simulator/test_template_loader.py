"""Loading templates: sources, versions, sections, keys, files, nesting and size."""

from __future__ import annotations

from pathlib import Path

import pytest

from sdk.exception import StackValidationFailed
from simulator.template import ALIASES, VERSIONS, load_template

HERE = Path(__file__).parent / "templates"


def minimal(version: str = "2018-08-31", **sections) -> dict:
    return {"heat_template_version": version, "resources": {"r": {"type": "T"}}, **sections}


def test_load_from_path_keeps_source_and_reads_files():
    tmpl = load_template(HERE / "web.yaml")
    assert tmpl.version == "2018-08-31"
    assert tmpl.source == str(HERE / "web.yaml")
    assert tmpl.description == "A small web tier used by the loader tests."
    assert tmpl.raw["resources"]["server"]["type"] == "OS::Nova::Server"
    assert tmpl.read_file("sub/boot.sh", []) == "#!/bin/sh\necho hello\n"


def test_load_from_str_path_and_text_and_dict():
    assert load_template(str(HERE / "web.yaml")).source == str(HERE / "web.yaml")
    text = "heat_template_version: 2015-04-30\nresources: {a: {type: T}}\n"
    assert load_template(text).version == "2015-04-30"
    assert load_template(text, source="given.yaml").source == "given.yaml"
    assert load_template(minimal("2016-04-08")).version == "2016-04-08"


def test_json_text_is_accepted():
    tmpl = load_template('{"heat_template_version": "2016-10-14", "resources": {}}')
    assert tmpl.version == "2016-10-14"


@pytest.mark.parametrize("alias,date", sorted(ALIASES.items()))
def test_aliases_map_to_dates(alias, date):
    assert load_template(minimal(alias)).version == date


@pytest.mark.parametrize("version", list(VERSIONS))
def test_every_version_loads(version):
    assert load_template(minimal(version)).version == version


def test_date_version_written_unquoted_in_yaml_stays_text():
    tmpl = load_template("heat_template_version: 2017-02-24\nresources: {}\n")
    assert tmpl.version == "2017-02-24"


def test_missing_file_names_it():
    with pytest.raises(
        StackValidationFailed, match=r"nope\.yaml: The template file does not exist"
    ):
        load_template(HERE / "nope.yaml")


def test_malformed_yaml_names_file_and_line():
    with pytest.raises(StackValidationFailed) as err:
        load_template(HERE / "broken.yaml")
    msg = str(err.value)
    assert msg.startswith(f"{HERE / 'broken.yaml'}: The template is not valid YAML (line ")


@pytest.mark.parametrize(
    "text,kind",
    [("- a\n- b\n", "a list"), ("just words\n", "a string"), ("", "empty")],
)
def test_template_must_be_a_map(text, kind):
    with pytest.raises(
        StackValidationFailed, match=f"t.yaml: The template must be a map.*it is {kind}"
    ):
        load_template(text, source="t.yaml")


def test_missing_version():
    with pytest.raises(
        StackValidationFailed, match="t.yaml: The template has no heat_template_version"
    ):
        load_template({"resources": {}}, source="t.yaml")


def test_cfn_template_is_read_and_missing_version_names_the_cfn_keys():
    tmpl = load_template({"AWSTemplateFormatVersion": "2010-09-09", "Resources": {}})
    assert tmpl.spec.is_cfn
    with pytest.raises(StackValidationFailed, match="nor AWSTemplateFormatVersion"):
        load_template({"Resources": {}})


def test_unknown_version_lists_supported():
    with pytest.raises(StackValidationFailed) as err:
        load_template(minimal("2012-12-12"), source="t.yaml")
    assert str(err.value).startswith(
        "t.yaml: heat_template_version: The template version is invalid: unknown "
        "heat_template_version '2012-12-12'; supported: "
        "2013-05-23, 2014-10-16"
    )


def test_wrong_section_name():
    with pytest.raises(StackValidationFailed) as err:
        load_template(minimal(resorces={}), source="t.yaml")
    assert str(err.value).startswith(
        't.yaml: resorces: "resorces" is not a valid template section in heat_template_version '
        "2018-08-31; valid sections:"
    )


def test_conditions_section_needs_newton():
    with pytest.raises(
        StackValidationFailed, match=r"conditions: .*needs heat_template_version 2016-10-14"
    ):
        load_template(minimal("2016-04-08", conditions={}))
    assert load_template(minimal("2016-10-14", conditions={"c": True})).version == "2016-10-14"


@pytest.mark.parametrize("version", list(VERSIONS))
def test_capabilities_section_accepted_everywhere(version):
    tmpl = load_template(minimal(version, capabilities={"compute": "large"}))
    assert tmpl.capabilities == {"compute": "large"}
    assert load_template(minimal(version)).capabilities == {}


def test_section_shapes():
    with pytest.raises(
        StackValidationFailed, match=r"resources: The \"resources\" section must be a map"
    ):
        load_template({"heat_template_version": "2018-08-31", "resources": ["a"]})
    with pytest.raises(StackValidationFailed, match="description must be a string"):
        load_template(minimal(description=["x"]))


def test_resource_needs_a_type():
    with pytest.raises(
        StackValidationFailed, match=r"resources\.a\.type: Resource \"a\" needs a \"type\""
    ):
        load_template(
            {"heat_template_version": "2018-08-31", "resources": {"a": {"properties": {}}}}
        )
    with pytest.raises(StackValidationFailed, match=r"resources\.a: Resource \"a\" must be a map"):
        load_template({"heat_template_version": "2018-08-31", "resources": {"a": "T"}})


@pytest.mark.parametrize("key", ["condition", "external_id"])
def test_resource_keys_by_version(key):
    tmpl = {"heat_template_version": "2016-04-08", "resources": {"a": {"type": "T", key: "x"}}}
    with pytest.raises(StackValidationFailed) as err:
        load_template(tmpl)
    assert str(err.value) == (
        f'resources.a.{key}: "{key}" is not a valid keyword inside a resource definition '
        f"(it needs heat_template_version 2016-10-14 or later)"
    )


def test_unknown_resource_key():
    with pytest.raises(
        StackValidationFailed, match=r'resources\.a\.propertys: "propertys" is not a valid'
    ):
        load_template(
            {
                "heat_template_version": "2018-08-31",
                "resources": {"a": {"type": "T", "propertys": {}}},
            }
        )


def test_depends_on_string_or_list_of_existing_resources():
    base = {"heat_template_version": "2018-08-31"}
    ok = {**base, "resources": {"a": {"type": "T"}, "b": {"type": "T", "depends_on": "a"}}}
    assert load_template(ok)
    bad = {**base, "resources": {"a": {"type": "T"}, "b": {"type": "T", "depends_on": ["a", "zz"]}}}
    with pytest.raises(
        StackValidationFailed, match=r'resources\.b\.depends_on\[1\]: depends_on refers to "zz"'
    ):
        load_template(bad)
    worse = {**base, "resources": {"b": {"type": "T", "depends_on": {"a": 1}}}}
    with pytest.raises(StackValidationFailed, match="depends_on must be a resource name or a list"):
        load_template(worse)


def test_deletion_policy_values_by_version():
    def t(version, policy):
        return {
            "heat_template_version": version,
            "resources": {"a": {"type": "T", "deletion_policy": policy}},
        }

    assert load_template(t("2016-10-14", "retain"))
    with pytest.raises(StackValidationFailed, match='Invalid deletion policy "retain"'):
        load_template(t("2016-04-08", "retain"))
    with pytest.raises(StackValidationFailed, match='Invalid deletion policy "Keep"'):
        load_template(t("2018-08-31", "Keep"))


def test_outputs_need_value_and_known_keys():
    with pytest.raises(
        StackValidationFailed, match=r'outputs\.o: Output "o" must be a map with a "value" key'
    ):
        load_template(minimal(outputs={"o": {"description": "x"}}))
    with pytest.raises(
        StackValidationFailed, match=r"outputs\.o\.condition: .*2016-10-14 or later"
    ):
        load_template(minimal("2016-04-08", outputs={"o": {"value": 1, "condition": True}}))


def test_parameter_groups_checked():
    params = {"a": {"type": "string", "default": "x"}}
    ok = minimal(parameters=params, parameter_groups=[{"label": "g", "parameters": ["a"]}])
    assert load_template(ok)
    with pytest.raises(
        StackValidationFailed,
        match=r'parameter_groups\[0\]\.parameters\[0\]: The grouped parameter "b"',
    ):
        load_template(minimal(parameters=params, parameter_groups=[{"parameters": ["b"]}]))
    twice = [{"parameters": ["a"]}, {"parameters": ["a"]}]
    with pytest.raises(StackValidationFailed, match="must be in one parameter group only"):
        load_template(minimal(parameters=params, parameter_groups=twice))


# --- get_file confinement -------------------------------------------------------


def test_get_file_from_files_map_without_directory():
    tmpl = load_template(
        minimal(outputs={"o": {"value": {"get_file": "x.txt"}}}), files={"x.txt": "content"}
    )
    assert tmpl.read_file("x.txt", []) == "content"


def test_get_file_without_directory_or_files_map():
    with pytest.raises(
        StackValidationFailed,
        match=r"outputs\.o\.value\.get_file: get_file: \"x.txt\" is not in the files map",
    ):
        load_template(minimal(outputs={"o": {"value": {"get_file": "x.txt"}}}))


def test_get_file_dotdot_escape_is_refused():
    with pytest.raises(StackValidationFailed) as err:
        load_template(HERE / "escape.yaml")
    msg = str(err.value)
    assert msg.startswith(
        f"{HERE / 'escape.yaml'}: resources.server.properties.user_data.get_file: get_file: "
        f'"../test_dependencies.py" is outside the template\'s directory'
    )


def test_get_file_absolute_path_outside_is_refused(tmp_path):
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources: {}\noutputs:\n"
        "  o: {value: {get_file: /etc/hostname}}\n"
    )
    with pytest.raises(StackValidationFailed, match="is outside the template's directory"):
        load_template(tmp_path / "t.yaml")


def test_get_file_symlink_out_is_refused(tmp_path):
    (tmp_path / "secret.txt").write_text("s")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "link.txt").symlink_to(tmp_path / "secret.txt")
    (inner / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources: {}\noutputs:\n  o: {value: {get_file: link.txt}}\n"
    )
    with pytest.raises(StackValidationFailed, match="outside the template's directory"):
        load_template(inner / "t.yaml")


def test_get_file_missing_and_remote():
    with pytest.raises(StackValidationFailed, match=r'get_file: no such file "nothing.txt"'):
        _load_in(HERE, {"get_file": "nothing.txt"})
    with pytest.raises(StackValidationFailed, match="plugsim reads local files only"):
        _load_in(HERE, {"get_file": "http://example.com/x"})


def _load_in(directory: Path, value):
    from simulator.template.checks import check_template
    from simulator.template.model import Template

    tmpl = Template(minimal(outputs={"o": {"value": value}}), "2018-08-31", base_dir=directory)
    check_template(tmpl)
    return tmpl


# --- nesting and size -------------------------------------------------------------


def nested_join(depth: int):
    value = "x"
    for _ in range(depth):
        value = {"list_join": ["", [value]]}
    return value


def test_thousand_deep_function_gives_a_clear_error():
    with pytest.raises(StackValidationFailed) as err:
        load_template(minimal(outputs={"o": {"value": nested_join(1000)}}), source="deep.yaml")
    assert "deep.yaml: outputs.o.value" in str(err.value)
    assert "nested more than 200 levels deep" in str(err.value)


def test_thousand_deep_yaml_text_gives_a_clear_error():
    text = (
        "heat_template_version: 2018-08-31\noutputs:\n  o:\n    value: " + "[" * 1000 + "]" * 1000
    )
    with pytest.raises(StackValidationFailed) as err:
        load_template(text, source="deep.yaml")
    # the same message whether PyYAML's own nesting limit or Python's recursion limit stops it
    assert str(err.value).startswith("deep.yaml: The template is nested too deeply to be read")


@pytest.mark.parametrize("depth", [50, 66])
def test_nesting_up_to_the_limit_works(depth):
    from simulator.template import StackDefinition
    from simulator.template.functions import resolve

    tmpl = load_template(minimal(outputs={"o": {"value": nested_join(depth)}}))
    defn = StackDefinition(tmpl, None, None, stack_name="s", stack_id="i")
    ((_, _, value),) = defn.output_definitions()
    assert resolve(value, None) == "x"


@pytest.mark.material
def test_fifty_thousand_resources_load_and_validate():
    """A long chain loads, validates and orders (its speed is a benchmark's, not this test's)."""
    n = 50_000
    resources = {"r0": {"type": "T"}}
    for i in range(1, n):
        resources[f"r{i}"] = {"type": "T", "properties": {"prev": {"get_resource": f"r{i - 1}"}}}
    from simulator.limits import Limits
    from simulator.template import StackDefinition

    unbounded = Limits(max_resources_per_stack=-1)  # Heat's default (1000) would refuse it
    tmpl = load_template(
        {"heat_template_version": "2018-08-31", "resources": resources}, limits=unbounded
    )
    defn = StackDefinition(tmpl, None, None, stack_name="s", stack_id="i")
    defn.validate(lambda t, n: object)
    order = defn.dependencies().order()
    assert order[0] == "r0" and order[-1] == f"r{n - 1}"


def test_dict_with_source_file_reads_files_from_its_directory():
    import yaml

    raw = yaml.safe_load((HERE / "web.yaml").read_text())
    tmpl = load_template(raw, source=str(HERE / "web.yaml"))
    assert tmpl.read_file("sub/boot.sh", []).startswith("#!/bin/sh")
    tmpl = load_template(raw, source="elsewhere.yaml", base_dir=HERE)
    assert tmpl.base_dir == HERE.resolve()
