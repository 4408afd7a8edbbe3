"""Bounded inputs: nesting depth, template-resource cycles, sizes, YAML aliases, resource counts.

Each limit is a clear error naming the file and the path, and each can be set in the
``limits`` map of the ``plugsim.yaml`` next to the template.
"""

import time

import pytest

from sdk import exception
from simulator.limits import DEFAULTS, LimitExceeded, Limits
from simulator.world import World

HOT = "heat_template_version: 2018-08-31\n"


@pytest.fixture
def world():
    w = World()
    yield w
    w.close()


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- Heat's defaults and names ----------------------------------------------------------


def test_defaults_are_heats():
    assert DEFAULTS.max_nested_stack_depth == 5
    assert DEFAULTS.max_template_size == 512 * 1024
    assert DEFAULTS.max_resources_per_stack == 1000
    assert LimitExceeded.__mro__[1] is exception.StackValidationFailed


# --- nesting ------------------------------------------------------------------------------


def test_a_template_using_itself_is_a_cycle_found_by_validate(world, tmp_path):
    t = write(tmp_path / "self.yaml", HOT + "resources:\n  me:\n    type: self.yaml\n")
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(t)
    assert str(err.value) == (
        f"{t}: resources.me.type: template resources form a cycle: self.yaml (resources.me) "
        "-> self.yaml; a template cannot contain itself"
    )


def test_a_two_file_cycle_is_found_by_validate_and_create_stores_nothing(world, tmp_path):
    a = write(tmp_path / "a.yaml", HOT + "resources:\n  x:\n    type: sub/b.yaml\n")
    write(tmp_path / "sub" / "b.yaml", HOT + "resources:\n  y:\n    type: ../a.yaml\n")
    # b.yaml names ../a.yaml, which is outside b.yaml's directory: refused on its own
    with pytest.raises(exception.StackValidationFailed, match="outside"):
        world.validate_template(a)
    write(tmp_path / "b.yaml", HOT + "resources:\n  y:\n    type: a.yaml\n")
    a.write_text(HOT + "resources:\n  x:\n    type: b.yaml\n")
    with pytest.raises(exception.StackValidationFailed) as err:
        world.create_stack("s", a)
    assert "template resources form a cycle: a.yaml (resources.x) -> b.yaml (resources.y) " in str(
        err.value
    )
    assert world.stack_records() == []


def test_a_group_of_itself_is_a_cycle_too(world, tmp_path):
    t = write(
        tmp_path / "grp.yaml",
        HOT + "resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
        "      count: 1\n      resource_def: {type: grp.yaml}\n",
    )
    with pytest.raises(exception.StackValidationFailed, match="form a cycle: grp.yaml"):
        world.validate_template(t)
    asg = write(
        tmp_path / "asg.yaml",
        HOT + "resources:\n  g:\n    type: OS::Heat::AutoScalingGroup\n    properties:\n"
        "      min_size: 1\n      max_size: 2\n      resource: {type: asg.yaml}\n",
    )
    with pytest.raises(exception.StackValidationFailed, match="form a cycle: asg.yaml"):
        world.validate_template(asg)


def chain(tmp_path, n):
    """Files l0.yaml -> l1.yaml -> ... -> l{n}.yaml (l{n} has no template resource)."""
    for i in range(n):
        write(tmp_path / f"l{i}.yaml", HOT + f"resources:\n  r:\n    type: l{i + 1}.yaml\n")
    write(tmp_path / f"l{n}.yaml", HOT + "resources:\n  leaf: {type: OS::Heat::None}\n")
    return tmp_path / "l0.yaml"


def test_five_levels_of_nesting_are_allowed(world, tmp_path):
    stack = world.create_stack("s", chain(tmp_path, 5))
    assert stack.state == "CREATE_COMPLETE"


def test_six_levels_fail_validation_naming_the_limit(world, tmp_path):
    top = chain(tmp_path, 6)
    with pytest.raises(LimitExceeded) as err:
        world.validate_template(top)
    assert str(err.value) == (
        f"{tmp_path / 'l5.yaml'}: resources.r.type: template resources nest 6 levels deep (l0.yaml -> l1.yaml -> "
        "l2.yaml -> l3.yaml -> l4.yaml -> l5.yaml -> l6.yaml), more than max_nested_stack_depth "
        "5 (set limits: {max_nested_stack_depth: N} in plugsim.yaml to change it)"
    )


def test_the_depth_limit_is_read_from_plugsim_yaml(world, tmp_path):
    top = chain(tmp_path, 3)
    write(tmp_path / "plugsim.yaml", "limits:\n  max_nested_stack_depth: 2\n")
    with pytest.raises(LimitExceeded, match="nest 3 levels deep .* max_nested_stack_depth 2"):
        world.validate_template(top)


def test_recursion_the_static_check_cannot_see_fails_at_create(world, tmp_path):
    # the member type comes from a parameter, so only the running nested stacks show the loop
    t = write(
        tmp_path / "rec.yaml",
        HOT + "parameters:\n  t: {type: string, default: rec.yaml}\nresources:\n"
        "  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
        "      count: 1\n      resource_def: {type: {get_param: t}}\n",
    )
    started = time.monotonic()
    stack = world.create_stack("s", t)
    assert time.monotonic() - started < 30
    assert stack.state == "CREATE_FAILED"
    assert "more than max_nested_stack_depth 5" in stack.status_reason
    depth, current = 0, stack
    while "g" in current.resources and current.resources["g"].resource_id:
        nested = current.resources["g"].nested()
        if nested is None:
            break
        depth += 1
        current = nested
        if "0" in current.resources and current.resources["0"].resource_id:
            current = current.resources["0"].nested() or current
            depth += 1
    assert depth <= 5


def test_an_autoscaling_group_of_itself_fails_at_create_without_crashing(world, tmp_path):
    t = write(
        tmp_path / "asg.yaml",
        HOT + "parameters:\n  t: {type: string, default: asg.yaml}\nresources:\n"
        "  g:\n    type: OS::Heat::AutoScalingGroup\n    properties:\n"
        "      min_size: 1\n      max_size: 1\n      resource: {type: {get_param: t}}\n",
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_FAILED"
    assert stack.status_reason.endswith(
        "would be 6 levels deep, more than max_nested_stack_depth 5 (set limits: "
        "{max_nested_stack_depth: N} in plugsim.yaml to change it)"
    )


# --- sizes --------------------------------------------------------------------------------


def test_a_template_over_max_template_size_is_refused(world, tmp_path):
    t = write(tmp_path / "big.yaml", HOT + "description: " + "x" * (512 * 1024) + "\n")
    with pytest.raises(LimitExceeded) as err:
        world.validate_template(t)
    assert str(err.value) == (
        f"{t}: The template file is {t.stat().st_size} bytes, more than max_template_size "
        "524288 (set limits: {max_template_size: N} in plugsim.yaml to change it)"
    )


def test_a_large_get_file_is_refused_naming_the_path(world, tmp_path):
    write(tmp_path / "blob.txt", "y" * 2000)
    t = write(tmp_path / "t.yaml", HOT + "outputs:\n  o: {value: {get_file: blob.txt}}\n")
    write(tmp_path / "plugsim.yaml", "limits: {max_template_size: 1000}\n")
    with pytest.raises(LimitExceeded) as err:
        world.validate_template(t)
    assert str(err.value).startswith(
        f"{t}: outputs.o.value.get_file: get_file: blob.txt is 2000 bytes, more than "
        "max_template_size 1000"
    )


def test_text_templates_are_measured_too():
    from simulator.template.text import parse_text

    with pytest.raises(LimitExceeded, match="more than max_template_size 10 "):
        parse_text(HOT, "inline.yaml", limits=Limits(max_template_size=10))


# --- YAML aliases -------------------------------------------------------------------------


def alias_bomb():
    """Nine levels of nine aliases: under 600 bytes, 9**9 strings when expanded."""
    lines = [HOT.strip(), "parameters:", "  p:", "    type: json", "    default:"]
    lines.append('      a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]')
    prev = "a"
    for name in "bcdefghi":
        refs = ",".join([f"*{prev}"] * 9)
        lines.append(f"      {name}: &{name} [{refs}]")
        prev = name
    lines.append("resources: {}")
    return "\n".join(lines) + "\n"


def test_the_alias_bomb_fails_fast_with_a_clear_message(world, tmp_path):
    text = alias_bomb()
    assert len(text) < 600
    t = write(tmp_path / "bomb.yaml", text)
    started = time.monotonic()
    with pytest.raises(LimitExceeded) as err:
        world.validate_template(t)
    assert time.monotonic() - started < 5
    assert str(err.value) == (
        f"{t}: parameters.p.default.i[8][8]: this value of the template expands to 5380840 "
        "values once the YAML aliases (*name) in it are followed, more than max_yaml_nodes "
        "1000000 (set limits: {max_yaml_nodes: N} in plugsim.yaml to change it)"
    )


def test_aliases_below_the_budget_still_work(world, tmp_path):
    t = write(
        tmp_path / "ok.yaml",
        HOT + "parameters:\n  p:\n    type: json\n    default: {a: &a [1, 2], b: *a}\n"
        "resources: {}\n",
    )
    assert world.validate_template(t)["Parameters"]["p"]["Default"] == {"a": [1, 2], "b": [1, 2]}


def test_a_self_referencing_anchor_is_a_clear_error(world, tmp_path):
    t = write(
        tmp_path / "selfref.yaml",
        HOT + "parameters:\n  p:\n    type: json\n    default: &x {a: *x}\nresources: {}\n",
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(t)
    assert str(err.value) == (
        f"{t}: parameters.p.default.a: the value contains itself (a YAML alias *name inside "
        "its own &anchor); templates must be plain trees of maps, lists and scalars"
    )


# --- resources per stack --------------------------------------------------------------------


def test_resources_per_stack(world, tmp_path):
    resources = "".join(f"  r{i}: {{type: OS::Heat::None}}\n" for i in range(1001))
    t = write(tmp_path / "many.yaml", HOT + "resources:\n" + resources)
    with pytest.raises(LimitExceeded) as err:
        world.validate_template(t)
    assert str(err.value) == (
        f"{t}: resources: the stack has 1001 resources, more than max_resources_per_stack 1000 "
        "(set limits: {max_resources_per_stack: N} in plugsim.yaml to change it)"
    )
    write(tmp_path / "plugsim.yaml", "limits: {max_resources_per_stack: -1}\n")
    assert len(world.validate_template(t)["Resources"]) == 1001


def test_a_world_can_be_given_limits():
    w = World(limits=Limits(max_resources_per_stack=3))
    try:
        t = {"heat_template_version": "2018-08-31", "resources": {}}
        t["resources"] = {f"r{i}": {"type": "OS::Heat::None"} for i in range(4)}
        with pytest.raises(LimitExceeded, match="4 resources, more than max_resources_per_stack 3"):
            w.create_stack("s", t)
    finally:
        w.close()


def test_a_group_too_large_fails_validation(world, tmp_path):
    t = write(
        tmp_path / "g.yaml",
        HOT + "resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
        "      count: 5\n      resource_def: {type: OS::Heat::None}\n",
    )
    write(tmp_path / "plugsim.yaml", "limits: {max_resources_per_stack: 4}\n")
    with pytest.raises(exception.StackValidationFailed) as err:
        world.create_stack("s", t)
    assert (
        "resources.g.properties.count: count 5 would make a nested stack of 5 resources, "
        in str(err.value)
    )


def test_a_group_whose_count_is_known_late_fails_its_nested_stack(world, tmp_path):
    t = write(
        tmp_path / "g.yaml",
        HOT + "resources:\n  n:\n    type: OS::Heat::Value\n    properties: {value: 5}\n"
        "  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
        "      count: {get_attr: [n, value]}\n      resource_def: {type: OS::Heat::None}\n",
    )
    write(tmp_path / "plugsim.yaml", "limits: {max_resources_per_stack: 4}\n")
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_FAILED"
    assert "5 resources, more than max_resources_per_stack 4" in stack.status_reason


# --- configuration ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,message",
    [
        ("limits: [1]\n", "limits must be a map of limit names to numbers"),
        ("limits: {max_depth: 3}\n", "limits.max_depth: unknown limit (known: "),
        ("limits: {max_template_size: big}\n", "limits.max_template_size: must be a positive"),
        ("limits: {max_nested_stack_depth: 0}\n", "limits.max_nested_stack_depth: must be a"),
        ("limits: {max_yaml_nodes: true}\n", "limits.max_yaml_nodes: must be a positive"),
    ],
)
def test_bad_limits_are_named(world, tmp_path, text, message):
    t = write(tmp_path / "t.yaml", HOT + "resources: {}\n")
    write(tmp_path / "plugsim.yaml", text)
    with pytest.raises(exception.ConfigurationError) as err:
        world.validate_template(t)
    assert str(err.value).startswith(f"{tmp_path / 'plugsim.yaml'}: {message}")


def test_the_limits_are_kept_with_the_stack(world, tmp_path):
    t = write(tmp_path / "t.yaml", HOT + "resources: {}\n")
    write(tmp_path / "plugsim.yaml", "limits: {max_resources_per_stack: 7}\n")
    stack = world.create_stack("s", t)
    assert stack.source.limits == {"max_resources_per_stack": 7}
    assert stack.source.limit_values().max_resources_per_stack == 7


# --- printing -------------------------------------------------------------------------------


def test_tables_cap_long_parameters_and_outputs(tmp_path):
    import json

    from click.testing import CliRunner

    from simulator.cli import main

    t = write(
        tmp_path / "long.yaml",
        HOT + "parameters:\n  p: {type: string}\noutputs:\n  o: {value: {get_param: p}}\n",
    )
    write(tmp_path / "plugsim.yaml", "limits: {max_printed_value_length: 100}\n")
    state = ["--state", str(tmp_path / "w.db")]

    def run(*args):
        result = CliRunner().invoke(main, [*state, *args])
        assert result.exit_code == 0, result.output
        return result.output

    run("stack", "create", "-t", str(t), "--parameter", "p=" + "z" * 5000, "s")
    table = run("stack", "show", "s")
    words = " ".join(table.replace("\u2502", " ").split())
    assert "z" * 101 not in words
    assert words.count("zzz... (4900 more characters; -f json shows all)") == 2  # p and o
    assert "OS::stack_id" in words  # the other parameters are whole
    shown = " ".join(run("stack", "output", "show", "s", "o").replace("\u2502", " ").split())
    assert "z" * 101 not in shown
    assert "zzz... (4900 more characters; -f json shows all)" in shown
    full = json.loads(run("stack", "show", "s", "-f", "json"))
    assert full["outputs"][0]["output_value"] == "z" * 5000
    assert full["parameters"]["p"] == "z" * 5000


def test_cap_text():
    from simulator.limits import cap_text

    assert cap_text("abc", 3) == "abc"
    assert cap_text("abcdef", 2) == "ab... (4 more characters; -f json shows all)"
