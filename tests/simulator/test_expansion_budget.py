"""The expansion budget: functions that build values are bounded before they build them.

Each case is a template of a few hundred bytes that would expand to millions of values or
gigabytes of text; validation must refuse it in one line naming the file, the function's
path and the limit, within a couple of seconds of CPU and without growing the process.
"""

import resource
import time

import pytest

from sdk import exception
from simulator.world import World

HOT = "heat_template_version: 2017-09-01\n"
ITEMS = "[" + ", ".join(f"i{i}" for i in range(200)) + "]"


@pytest.fixture
def world():
    w = World()
    yield w
    w.close()


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def refused(world, path):
    """Validate *path*; return the error, asserting it came fast and small."""
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu = time.process_time()
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(path)
    assert time.process_time() - cpu < 2.0
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    assert grown_kib < 200 * 1024
    return str(err.value)


def value(body):
    return (
        HOT + "resources:\n  v:\n    type: OS::Heat::Value\n    properties:\n      value:\n" + body
    )


REPEAT = (
    "        repeat:\n          for_each:\n"
    f"            '%a%': {ITEMS}\n            '%b%': {ITEMS}\n            '%c%': {ITEMS}\n"
    "          template: '%a%-%b%-%c%'\n          permutations: true\n"
)


def test_repeat_over_three_long_lists_is_refused_before_it_expands(world, tmp_path):
    t = write(tmp_path / "t.yaml", value(REPEAT))
    assert len(t.read_bytes()) < 4000
    assert refused(world, t) == (
        f"{t}: resources.v.properties.value.repeat: 8000000 copies of a 1-value template "
        "would make 8000000 values, more than max_yaml_nodes 1000000 "
        "(set limits: {max_yaml_nodes: N} in plugsim.yaml to change it)"
    )


def test_an_output_repeat_fails_that_output_fast_naming_it(world, tmp_path):
    body = REPEAT.replace("\n  ", "\n")[2:]
    t = write(tmp_path / "t.yaml", HOT + "outputs:\n  o:\n    value:\n" + body)
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE"
    cpu = time.process_time()
    with pytest.raises(exception.PlugsimError) as err:
        stack.output("o")
    assert time.process_time() - cpu < 2.0
    assert f"{t}: outputs.o.value.repeat: 8000000 copies" in str(err.value)


def test_the_budget_counts_the_template_copied(world, tmp_path):
    # 2,000 copies of a 1,001-value template: 2,002,000 values
    inner = "[" + ", ".join(["x"] * 1000) + "]"
    body = (
        "        repeat:\n          for_each:\n"
        f"            '%a%': {ITEMS}\n            '%b%': [p, q, r, s, t, u, v, w, y, z]\n"
        f"          template: {inner}\n"
    )
    message = refused(world, write(tmp_path / "t.yaml", value(body)))
    assert "2000 copies of a 1001-value template would make 2002000 values" in message


def test_repeat_under_the_budget_still_expands(world, tmp_path):
    body = (
        "        repeat:\n          for_each:\n"
        "            '%a%': [1, 2]\n            '%b%': [x, y]\n"
        "          template: '%a%%b%'\n"
    )
    out = "outputs:\n  o: {value: {get_attr: [v, value]}}\n"
    stack = world.create_stack("s", write(tmp_path / "t.yaml", value(body) + out))
    assert stack.state == "CREATE_COMPLETE"
    assert stack.output("o") == ["1x", "1y", "2x", "2y"]


def test_the_budget_is_set_in_plugsim_yaml(world, tmp_path):
    fifteen = "[" + ", ".join(str(i) for i in range(15)) + "]"
    body = (
        "        repeat:\n          for_each:\n"
        f"            '%a%': {fifteen}\n            '%b%': {fifteen}\n"
        "          template: '%a%%b%'\n"
    )
    t = write(tmp_path / "t.yaml", value(body))
    write(tmp_path / "plugsim.yaml", "limits: {max_yaml_nodes: 200}\n")
    message = refused(world, t)
    assert (
        "225 copies of a 1-value template would make 225 values, more than max_yaml_nodes 200"
        in (message)
    )
    write(tmp_path / "plugsim.yaml", "limits: {max_yaml_nodes: 300}\n")
    world.validate_template(t)


def test_str_replace_is_measured_before_the_text_is_built(world, tmp_path):
    # 40,000 placeholders, each replaced by 100,000 characters: 4 GB of text
    template = "%p%" * 40000
    body = (
        "        str_replace:\n"
        f"          template: '{template}'\n"
        "          params:\n            '%p%': {str_replace: {template: '"
        + "x" * 100
        + "', params: {x: '"
        + "y" * 1000
        + "'}}}\n"
    )
    message = refused(world, write(tmp_path / "t.yaml", value(body)))
    assert message.endswith(
        "resources.v.properties.value.str_replace: the result would be 4000000000 characters "
        "long, more than max_string_length 1048576 "
        "(set limits: {max_string_length: N} in plugsim.yaml to change it)"
    )


def test_a_repeat_copy_longer_than_the_budget_is_refused(world, tmp_path):
    body = (
        "        repeat:\n          for_each:\n"
        "            '%a%': [{str_replace: {template: '"
        + "x" * 100
        + "', params: {x: '"
        + "y" * 1000
        + "'}}}]\n"
        "          template: '" + "%a%" * 20 + "'\n"
    )
    message = refused(world, write(tmp_path / "t.yaml", value(body)))
    assert "a copy of the template would be 2000000 characters long" in message


def test_list_join_with_a_long_delimiter_is_refused(world, tmp_path):
    body = (
        "        list_join:\n          - {str_replace: {template: '"
        + "x" * 100
        + "', params: {x: '"
        + "y" * 1000
        + "'}}}\n"
        "          - {repeat: {for_each: {'%a%': " + ITEMS + "}, template: '%a%'}}\n"
    )
    message = refused(world, write(tmp_path / "t.yaml", value(body)))
    assert "list_join: the result would be " in message
    assert "characters long, more than max_string_length 1048576" in message


def test_list_concat_of_expanded_lists_is_refused(world, tmp_path):
    rep = "{repeat: {for_each: {'%a%': " + ITEMS + ", '%b%': " + ITEMS + "}, template: '%a%%b%'}}"
    t = write(tmp_path / "t.yaml", value("        list_concat: [" + ", ".join([rep] * 30) + "]\n"))
    # each repeat is under the budget; together they are not (a lower budget keeps this fast:
    # the default, a million values, takes seconds to build before the last piece is refused)
    write(tmp_path / "plugsim.yaml", "limits: {max_yaml_nodes: 100000}\n")
    message = refused(world, t)
    assert (
        "list_concat[2].repeat: 40000 copies of a 1-value template would make 40000 values, "
        in (message)
    )
    assert "with those the expression around it has built, more than max_yaml_nodes" in message


def test_a_resource_group_count_over_the_limit_fails_at_validation(world, tmp_path):
    t = write(
        tmp_path / "g.yaml",
        HOT + "resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
        "      count: 100000\n      resource_def: {type: OS::Heat::None}\n",
    )
    assert refused(world, t) == (
        f"{t}: resources.g.properties.count: count 100000 would make a nested stack of 100000 "
        "resources, more than max_resources_per_stack 1000 "
        "(set limits: {max_resources_per_stack: N} in plugsim.yaml to change it)"
    )
    cpu = time.process_time()
    with pytest.raises(exception.StackValidationFailed, match="max_resources_per_stack"):
        world.create_stack("s", t)
    assert time.process_time() - cpu < 2.0


def test_an_autoscaling_group_too_large_fails_at_validation(world, tmp_path):
    t = write(
        tmp_path / "g.yaml",
        HOT + "resources:\n  g:\n    type: OS::Heat::AutoScalingGroup\n    properties:\n"
        "      min_size: 5000\n      max_size: 6000\n      resource: {type: OS::Heat::None}\n",
    )
    assert "resources.g.properties.min_size: min_size 5000 would make" in refused(world, t)
