"""Bad and hostile input: files outside the template's tree, pipes, NUL bytes, odd keys,
project plug-ins. Each ends in one clear error naming the file and path, never an
"internal error", a hang or code nobody asked to run.
"""

import os
import sys
import time

import pytest
from click.testing import CliRunner

from sdk import exception
from simulator.cli import main
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


def run(*args):
    result = CliRunner().invoke(main, ["--state", ":memory:", *map(str, args)])
    return result.exit_code, result.output


# --- files only inside the template's tree -----------------------------------------------------


def test_a_template_resource_outside_the_tree_is_refused(world, tmp_path):
    write(tmp_path / "outside" / "inner.yaml", HOT + "resources: {}\n")
    t = write(
        tmp_path / "proj" / "t.yaml", HOT + "resources:\n  r: {type: ../outside/inner.yaml}\n"
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(t)
    assert str(err.value) == (
        f'{t}: resources.r.type: The template resource "../outside/inner.yaml" is outside the '
        f"template's directory ({tmp_path / 'proj'}); only files in that tree (or the files "
        "map) can be read"
    )


def test_an_absolute_template_resource_is_refused(world, tmp_path):
    inner = write(tmp_path / "inner.yaml", HOT + "resources: {}\n")
    t = write(tmp_path / "t.yaml", HOT + f"resources:\n  r: {{type: {inner}}}\n")
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(t)
    assert str(err.value) == (
        f'{t}: resources.r.type: The template resource "{inner}" is an absolute path; name '
        "files relative to the template's directory (or pass the content in the files map)"
    )


def test_a_nested_template_cannot_leave_its_own_directory(world, tmp_path):
    write(tmp_path / "secret.yaml", HOT + "resources: {}\n")
    write(tmp_path / "sub" / "inner.yaml", HOT + "resources:\n  s: {type: ../secret.yaml}\n")
    t = write(tmp_path / "t.yaml", HOT + "resources:\n  r: {type: sub/inner.yaml}\n")
    with pytest.raises(exception.StackValidationFailed, match=r'"\.\./secret\.yaml" is outside'):
        world.create_stack("s", t)
    assert world.stack_records() == []


def test_get_file_of_a_named_pipe_does_not_hang(world, tmp_path):
    os.mkfifo(tmp_path / "fifo")
    t = write(tmp_path / "t.yaml", HOT + "outputs:\n  o: {value: {get_file: fifo}}\n")
    started = time.monotonic()
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(t)
    assert time.monotonic() - started < 5
    assert str(err.value) == (
        f"{t}: outputs.o.value.get_file: get_file: fifo is not a regular file; only regular "
        "files can be read"
    )


def test_a_template_that_is_a_pipe_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "t.yaml")
    code, out = run("template", "validate", "-t", tmp_path / "t.yaml")
    assert (code, out) == (
        1,
        f"plugsim: error: {tmp_path / 't.yaml'}: The template file is not a regular file; only "
        "regular files can be read\n",
    )


def test_a_directory_as_environment_or_get_file(world, tmp_path):
    (tmp_path / "d").mkdir()
    t = write(tmp_path / "t.yaml", HOT + "outputs:\n  o: {value: {get_file: d}}\n")
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(t)
    assert str(err.value) == (
        f"{t}: outputs.o.value.get_file: get_file: d is a directory; only regular files can be read"
    )
    with pytest.raises(exception.StackValidationFailed, match="The environment file is a dir"):
        world.validate_template(write(tmp_path / "u.yaml", HOT), [tmp_path / "d"])


def test_a_nul_byte_in_a_get_file_path(world, tmp_path):
    t = write(tmp_path / "t.yaml", HOT + 'outputs:\n  o: {value: {get_file: "a\\0b"}}\n')
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(t)
    assert str(err.value) == (
        f"{t}: outputs.o.value.get_file: get_file: 'a\\x00b' contains a NUL byte"
    )


def test_a_nul_byte_in_the_template_path(world):
    with pytest.raises(exception.StackValidationFailed, match="contains a NUL byte"):
        world.validate_template("a\0b.yaml")


# --- the "internal errors" of issue #18 ----------------------------------------------------------


def test_a_nested_list_in_parameter_groups(world, tmp_path):
    t = write(
        tmp_path / "pg.yaml",
        HOT + "parameters:\n  a: {type: string, default: x}\nparameter_groups:\n"
        "- label: g\n  parameters: [[a]]\nresources: {}\n",
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(t)
    assert str(err.value) == (
        f"{t}: parameter_groups[0].parameters[0]: A parameter group lists parameter names, "
        "not a list"
    )


def test_an_integer_property_key_is_read_as_text_as_in_heat(world, tmp_path):
    t = write(
        tmp_path / "k.yaml",
        HOT + "resources:\n  r:\n    type: OS::Heat::Value\n    properties:\n"
        "      value: {1: 2}\noutputs:\n  o: {value: {get_attr: [r, value]}}\n  1: {value: 3}\n",
    )
    stack = world.create_stack("s", t)
    assert stack.state == "CREATE_COMPLETE"
    assert {o["output_key"]: o["output_value"] for o in stack.outputs()} == {
        "o": {"1": 2},
        "1": 3,
    }
    bad = write(
        tmp_path / "p.yaml",
        HOT + "resources:\n  r:\n    type: OS::Heat::RandomString\n    properties:\n      1: 2\n",
    )
    with pytest.raises(exception.StackValidationFailed, match=r"properties: Unknown Property 1"):
        world.create_stack("t", bad)


def test_a_python_dict_with_an_integer_key(world):
    t = {"heat_template_version": "2018-08-31", "resources": {"r": {"type": "OS::Heat::None"}}}
    t["resources"]["r"]["metadata"] = {1: "x"}
    with pytest.raises(exception.StackValidationFailed) as err:
        world.create_stack("s", t)
    assert str(err.value) == "resources.r.metadata.1: map keys must be strings, not int 1"


def test_a_python_dict_that_contains_itself(world):
    t = {"heat_template_version": "2018-08-31", "resources": {}}
    t["parameters"] = {"p": {"type": "json", "default": t}}
    with pytest.raises(
        exception.StackValidationFailed, match="parameters.p.default.parameters: the value contains"
    ):
        world.validate_template(t)


@pytest.mark.parametrize("bad", [5, 2.5, None, ["a.yaml"], object()])
def test_validate_template_of_something_that_is_not_a_template(world, bad):
    with pytest.raises(exception.StackValidationFailed, match="A template must be a map or a"):
        world.validate_template(bad)


def test_binary_values_are_named(world, tmp_path):
    t = write(tmp_path / "b.yaml", HOT + "description: !!binary aGVsbG8=\nresources: {}\n")
    with pytest.raises(exception.StackValidationFailed) as err:
        world.validate_template(t)
    assert str(err.value).startswith(f"{t}: description: the value is binary data (!!binary)")


def test_environment_and_parameters_of_the_wrong_type(world, tmp_path):
    t = write(tmp_path / "t.yaml", HOT + "resources: {}\n")
    with pytest.raises(exception.StackValidationFailed, match="An environment must be a map"):
        world.validate_template(t, [5])
    with pytest.raises(exception.StackValidationFailed, match="parameters must be a map"):
        world.validate_template(t, [], ["a=b"])


# --- plug-ins named by a project's plugsim.yaml -------------------------------------------------

PLUGIN = '''
from sdk import properties
from sdk.resource import Resource

open({marker!r}, "w").write("ran")


class Thing(Resource):
    """A thing."""

    properties_schema = {{"size": properties.Schema(properties.Schema.INTEGER, "Size.")}}


def resource_mapping():
    return {{"Proj::Thing": Thing}}
'''


def project(tmp_path, plugin_dir="plugins"):
    sys.modules.pop("thing", None)  # a fresh import, so that the marker says whether it ran
    marker = tmp_path / "marker"
    write(tmp_path / "proj" / "plugins" / "thing.py", PLUGIN.format(marker=str(marker)))
    write(tmp_path / "proj" / "plugsim.yaml", f"plugin_dirs: [{plugin_dir}]\n")
    t = write(tmp_path / "proj" / "t.yaml", HOT + "resources:\n  a: {type: Proj::Thing}\n")
    return t, marker


@pytest.fixture
def own_trust_file(tmp_path, monkeypatch):
    """A user who has trusted nothing yet."""
    path = tmp_path / "trust.json"
    monkeypatch.setenv("PLUGSIM_TRUST_FILE", str(path))
    return path


def test_template_validate_runs_no_project_code_without_trust(tmp_path, own_trust_file):
    t, marker = project(tmp_path)
    code, out = run("template", "validate", "-t", t)
    assert code == 1
    (line,) = out.splitlines()
    assert line.startswith(
        f"plugsim: error: {t}: resources.a.type: The Resource Type (Proj::Thing) could not be found"
    )
    assert line.endswith(
        f"(the plug-ins of {t.parent / 'plugsim.yaml'} were not loaded: "
        f"{t.parent / 'plugins'}; plugsim runs a project's code once you trust it: "
        f"plugsim trust {t.parent}, or --trust-project for one run)"
    )
    assert "To provide a type: --plugin-dir DIR" in line  # the unknown-type hint comes too
    assert not marker.exists()


def test_trusting_the_project_loads_its_plugins_and_says_so(tmp_path, own_trust_file):
    t, marker = project(tmp_path)
    code, out = run("template", "validate", "--trust-project", "-t", t, "-f", "json")
    assert code == 0, out
    assert (
        f"plugsim: loading plug-ins from {t.parent / 'plugins'} (plugin_dirs in "
        f"{t.parent / 'plugsim.yaml'})\n"
    ) in out
    assert marker.read_text() == "ran"
    assert not own_trust_file.exists()  # one run only: nothing remembered


@pytest.mark.parametrize(
    "command",
    [
        ("stack", "create", "-t", "{t}", "s"),
        ("stack", "create", "--dry-run", "-t", "{t}", "s"),
        ("simulate", "{t}"),
        ("campaign", "{t}", "--seeds", "0..1"),
        ("campaign", "{t}", "--seeds", "0..3", "--jobs", "2"),
    ],
)
def test_commands_that_run_the_project_refuse_an_untrusted_one(tmp_path, own_trust_file, command):
    t, marker = project(tmp_path)
    code, out = run(*(word.format(t=t) for word in command))
    assert code == 1, out
    assert out == (
        f"plugsim: error: {t.parent / 'plugsim.yaml'}: this project lists code for plugsim to "
        f"run and is not trusted; read it, then run: plugsim trust {t.parent} "
        "(or add --trust-project after plugsim for this run only)\n"
    )
    assert not marker.exists()


def test_a_trusted_project_is_remembered_by_every_command(tmp_path, own_trust_file):
    t, marker = project(tmp_path)
    code, out = run("trust", str(t.parent))
    assert code == 0, out
    assert out.startswith(f"trusted: {t.parent} (plugsim.yaml ")

    code, out = run("template", "validate", "-t", t, "-f", "json")
    assert code == 0, out
    assert f"plugsim: loading plug-ins from {t.parent / 'plugins'}" in out
    code, out = run("stack", "create", "-t", t, "s")
    assert code == 0, out
    assert marker.exists()


def test_editing_plugsim_yaml_withdraws_the_trust(tmp_path, own_trust_file):
    t, marker = project(tmp_path)
    assert run("trust", str(t.parent))[0] == 0
    config = t.parent / "plugsim.yaml"
    config.write_text(config.read_text() + "# edited\n")

    code, out = run("stack", "create", "-t", t, "s")
    assert code == 1
    assert "changed since you trusted it" in out
    assert not marker.exists()
    code, out = run("trust", "--list")
    assert out == f"{t.parent}  changed since trusted\n"


def test_trust_for_one_run_and_revoke(tmp_path, own_trust_file):
    t, marker = project(tmp_path)
    code, out = run("--trust-project", "stack", "create", "-t", t, "s")
    assert code == 0, out
    assert marker.exists()
    assert run("trust", "--list")[1] == f"no trusted projects ({own_trust_file})\n"

    assert run("trust", str(t.parent))[0] == 0
    code, out = run("trust", "--revoke", str(t.parent))
    assert (code, out) == (0, f"revoked: {t.parent}\n")
    code, out = run("stack", "create", "-t", t, "s2")
    assert code == 1 and "is not trusted" in out


def test_trusting_a_directory_without_plugsim_yaml_says_so(tmp_path, own_trust_file):
    code, out = run("trust", str(tmp_path))
    assert code == 1
    assert (
        out
        == f"plugsim: error: {tmp_path / 'plugsim.yaml'}: no such file; nothing to trust there\n"
    )


@pytest.mark.parametrize("entry", ["../elsewhere", "/tmp"])
def test_plugin_dirs_outside_the_project_are_refused(tmp_path, entry):
    t, marker = project(tmp_path, plugin_dir=entry)
    (tmp_path / "elsewhere").mkdir()
    code, out = run("--trust-project", "stack", "create", "-t", t, "s")
    assert code == 1
    assert out.startswith(
        f"plugsim: error: {t.parent / 'plugsim.yaml'}: plugin_dirs[0]: {entry} is outside the "
        f"project directory {t.parent}; a project may load plug-ins only from inside it"
    )
    assert not marker.exists()


def test_python_validate_template_is_untrusted_by_default(world, tmp_path):
    t, marker = project(tmp_path)
    with pytest.raises(exception.StackValidationFailed, match="--trust-project"):
        world.validate_template(t)
    assert not marker.exists()
    assert world.validate_template(t, trust_project=True)["Resources"] == ["a"]
    assert marker.exists()
    sys.modules.pop("thing", None)


def test_campaign_workers_apply_the_rule_of_the_process_that_hands_out_the_work(
    tmp_path, own_trust_file
):
    from sdk.testing.campaign.backends import execute
    from sdk.testing.campaign.runs import RunSpec
    from simulator.project_trust import enforcing

    t, marker = project(tmp_path)
    with enforcing():  # the command line's rule, without the campaign's check before the runs
        results = [r for batch in execute(RunSpec(str(t)), [0, 1], jobs=2, chunk=1) for r in batch]
    assert sorted(r["seed"] for r in results) == [0, 1]
    assert {r["signature"][3] for r in results} == {"UntrustedProject"}
    assert not marker.exists()
