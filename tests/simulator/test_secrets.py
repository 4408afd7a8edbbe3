"""Hidden parameters and generated secrets never reach an output.

A stack with two hidden parameters (one given, one defaulted) and an
OS::Heat::RandomString goes through every command that prints something;
the secret values must not appear anywhere in what is printed, while the
hidden parameters show as ``******`` where Heat shows them.
"""

import json
import traceback

import pytest
import yaml
from click.testing import CliRunner

from simulator import masking
from simulator.cli import main
from simulator.world import World

GIVEN = "s3cr3t-given-Value"
DEFAULT = "s3cr3t-default-Value"

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "api_key": {
            "type": "string",
            "hidden": True,
            "constraints": [{"allowed_pattern": "[a-zA-Z0-9-]+"}],
        },
        "db_password": {"type": "string", "hidden": True, "default": DEFAULT},
        "plain": {"type": "string", "default": "visible"},
    },
    "resources": {
        "a": {
            "type": "Plugsim::Test::Trivial",
            "properties": {"value": {"get_param": "api_key"}},
        },
        "b": {
            "type": "Plugsim::Test::Trivial",
            "properties": {"value": {"get_param": "db_password"}},
        },
        "rs": {"type": "OS::Heat::RandomString", "properties": {"length": 24}},
    },
    "outputs": {"plain_out": {"value": {"get_param": "plain"}}},
}


@pytest.fixture
def env(tmp_path):
    tpl = tmp_path / "t.yaml"
    tpl.write_text(yaml.safe_dump(TEMPLATE))
    state = tmp_path / "world.db"
    outputs: list[str] = []

    def run(*args, debug=False, expect=0):
        pre = ["--debug"] if debug else []
        res = CliRunner().invoke(main, [*pre, "--state", str(state), *args])
        text = res.output + (res.stderr if res.stderr_bytes is not None else "")
        if res.exception is not None and not isinstance(res.exception, SystemExit):
            text += "".join(traceback.format_exception(res.exception))
        outputs.append(text)
        if expect is not None:
            assert res.exit_code == expect, text
        return text

    return run, tpl, state, outputs, tmp_path


def _random_value(state) -> str:
    with World.open(str(state)) as world:
        value = world.get_stack("web").resources["rs"].data()["value"]
    assert isinstance(value, str) and len(value) == 24
    return value


def test_no_output_shows_a_secret(env):
    run, tpl, state, outputs, tmp_path = env
    validated = yaml.safe_load(
        run("template", "validate", "-t", str(tpl), "--parameter", f"api_key={GIVEN}", "-f", "yaml")
    )
    assert validated["Parameters"]["db_password"]["Default"] == "******"
    assert validated["Parameters"]["db_password"]["NoEcho"] == "true"
    assert validated["Parameters"]["plain"]["Default"] == "visible"

    created = json.loads(
        run(
            "stack",
            "create",
            "-t",
            str(tpl),
            "--parameter",
            f"api_key={GIVEN}",
            "web",
            "-f",
            "json",
        )
    )
    assert created["parameters"]["api_key"] == "******"
    assert created["parameters"]["db_password"] == "******"
    assert created["parameters"]["plain"] == "visible"
    secret_random = _random_value(state)

    for fmt in ("table", "json", "yaml"):
        run("stack", "show", "web", "-f", fmt)
        run("stack", "event", "list", "web", "-f", fmt)
        run("stack", "resource", "list", "web", "-f", fmt)
    shown = yaml.safe_load(run("stack", "show", "web", "-f", "yaml"))
    assert shown["parameters"]["api_key"] == "******"
    resources = json.loads(run("stack", "resource", "list", "web", "-f", "json"))
    rs_id = next(r["physical_resource_id"] for r in resources if r["resource_name"] == "rs")
    assert rs_id.startswith("web-rs-")  # the physical resource name, as in Heat

    run("stack", "output", "show", "web", "--all")
    run("stack", "update", "web", "--existing", "--parameter", "plain=again")
    run("stack", "check", "web")
    run("stack", "snapshot", "create", "web", "-f", "json")
    run("--debug", "stack", "show", "web")
    abandoned = json.loads(run("stack", "abandon", "web"))
    assert abandoned["parameters"]["api_key"] == "******"
    rs_data = abandoned["resources"]["rs"]["resource_data"]
    assert rs_data["value"] == "******"

    # validation errors, with and without --debug
    run("stack", "create", "-t", str(tpl), "--parameter", f"api_key={GIVEN}!", "bad", expect=1)
    run(
        "stack",
        "create",
        "-t",
        str(tpl),
        "--parameter",
        f"api_key={GIVEN}!",
        "bad",
        debug=True,
        expect=None,
    )
    run("simulate", str(tpl), "--parameter", f"api_key={GIVEN}", "--progress")
    run("simulate", str(tpl), "--parameter", f"api_key={GIVEN}", "--format", "json")
    run("stack", "create", "-t", str(tpl), "--parameter", f"api_key={GIVEN}", "other")
    run("stack", "delete", "other")

    everything = "\n".join(outputs)
    assert "******" in everything
    for secret in (GIVEN, DEFAULT, secret_random):
        assert secret not in everything, secret


def test_events_store_no_secret(env):
    run, tpl, state, _outputs, _ = env
    run("stack", "create", "-t", str(tpl), "--parameter", f"api_key={GIVEN}", "web")
    secret_random = _random_value(state)
    with World.open(str(state)) as world:
        lines = "\n".join(ev.to_line() for ev in world.stack_events("web"))
    assert secret_random not in lines
    assert GIVEN not in lines


def test_failure_reasons_quoting_a_secret_are_masked(tmp_path):
    template = {
        "heat_template_version": "2018-08-31",
        "parameters": {"token": {"type": "string", "hidden": True}},
        "resources": {
            "f": {
                "type": "Plugsim::Test::Fail",
                "properties": {"message": {"list_join": [" ", ["bad", {"get_param": "token"}]]}},
            }
        },
    }
    tpl = tmp_path / "f.yaml"
    tpl.write_text(yaml.safe_dump(template))
    state = tmp_path / "w.db"
    res = CliRunner().invoke(
        main,
        [
            "--state",
            str(state),
            "stack",
            "create",
            "-t",
            str(tpl),
            "--parameter",
            f"token={GIVEN}",
            "f",
        ],
    )
    assert res.exit_code == 1
    assert GIVEN not in res.output and "bad ******" in res.output
    events = CliRunner().invoke(
        main, ["--state", str(state), "stack", "event", "list", "f", "-f", "json"]
    )
    assert GIVEN not in events.output and "bad ******" in events.output
    with World.open(str(state)) as world:
        lines = "\n".join(ev.to_line() for ev in world.stack_events("f"))
    assert GIVEN not in lines


def test_random_string_reference_is_still_the_value():
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"rs": {"type": "OS::Heat::RandomString"}},
        "outputs": {
            "ref": {"value": {"get_resource": "rs"}},
            "val": {"value": {"get_attr": ["rs", "value"]}},
        },
    }
    with World(seed=3) as world:
        stack = world.create_stack("s", template)
        outs = {o["output_key"]: o["output_value"] for o in stack.outputs()}
        rs = stack.resources["rs"]
        assert outs["ref"] == outs["val"] == rs.data()["value"]
        assert rs.resource_id == rs.physical_resource_name()


def test_mask_text_replaces_known_secrets_only():
    book = masking.SecretBook()
    book.remember("hunter2-long")
    book.remember("ab")  # too short to scrub from free text safely
    assert book.scrub("password hunter2-long, ab") == "password ******, ab"
    assert book.scrub_data({"k": ["x hunter2-long", 3]}) == {"k": ["x ******", 3]}


def test_mask_parameters_is_structural():
    masked = masking.mask_parameters({"a": "1", "b": "x"}, {"a"})
    assert masked == {"a": "******", "b": "x"}


def test_the_book_keeps_a_bounded_number_of_secrets():
    book = masking.SecretBook()
    for i in range(masking.MAX_SECRETS + 10):
        book.remember(f"secret-number-{i:04d}")
    assert "secret-number-0000" not in book  # the oldest went first
    assert f"secret-number-{masking.MAX_SECRETS + 9:04d}" in book
    assert book.scrub("secret-number-0000") == "secret-number-0000"


def test_generated_secrets_are_collected_only_while_a_command_runs():
    masking.remember_generated("generated-outside-zzz")
    assert "generated-outside-zzz" not in masking.BOOK
    with masking.collecting_generated():
        masking.remember_generated("generated-inside-zzz")
    assert "generated-inside-zzz" in masking.BOOK
