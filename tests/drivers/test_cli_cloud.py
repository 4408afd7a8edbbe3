"""plugsim cloud: salt-cloud's flags through click's CliRunner, state kept in the world store."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from simulator.cli.cloud import cloud


@pytest.fixture
def run(configs, tmp_path):
    providers, profiles = configs
    base = [
        "--providers-config",
        str(providers),
        "--profiles-config",
        str(profiles),
        "--state",
        str(tmp_path / "world.db"),
    ]
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cloud, [*base, *args], catch_exceptions=False)

    return invoke


def test_create_query_action_destroy_across_invocations(run):
    created = run("-p", "do-small", "web1", "web2")
    assert created.exit_code == 0, created.output
    data = yaml.safe_load(created.stdout)
    assert sorted(data) == ["web1", "web2"] and data["web1"]["state"] == "active"

    listed = yaml.safe_load(run("-Q").stdout)
    nodes = listed["my-do"]["digitalocean"]
    assert sorted(nodes) == ["web1", "web2"]
    assert sorted(nodes["web1"]) == ["id", "image", "private_ips", "public_ips", "size", "state"]

    full = json.loads(run("-F", "--out", "json").stdout)
    assert full["my-do"]["digitalocean"]["web2"]["name"] == "web2"
    selected = yaml.safe_load(run("-S").stdout)
    assert sorted(selected["my-do"]["digitalocean"]["web1"]) == ["id", "image", "size", "state"]

    shown = yaml.safe_load(run("-a", "show_instance", "web1").stdout)
    assert shown["my-do"]["digitalocean"]["web1"]["name"] == "web1"

    gone = yaml.safe_load(run("-d", "web1", "web2", "-y").stdout)
    assert gone["my-do"]["digitalocean"]["web1"]["deleted"] is True
    assert gone["my-do"]["digitalocean"]["web2"]["deleted"] is True


def test_functions_take_k_equals_v_and_listings(run):
    image = yaml.safe_load(run("-f", "show_image", "my-do", "image=ubuntu-22-04-x64").stdout)
    assert image["my-do"]["digitalocean"]["slug"] == "ubuntu-22-04-x64"
    keys = yaml.safe_load(run("-f", "list_keypairs", "my-do").stdout)
    assert "default" in keys["my-do"]["digitalocean"]
    for flag, member in (
        ("--list-images", "ubuntu-22-04-x64"),
        ("--list-sizes", "s-1vcpu-2gb"),
        ("--list-locations", "nyc3"),
    ):
        result = run(flag, "my-do")
        assert result.exit_code == 0
        assert member in yaml.safe_load(result.stdout)["my-do"]["digitalocean"]


def test_events_are_printed_on_stderr(run):
    result = run("-p", "do-small", "web1", "--events", "--out", "json")
    assert json.loads(result.stdout)["web1"]["name"] == "web1"
    tags = [line.split()[1] for line in result.stderr.splitlines()]
    assert tags == [
        f"salt/cloud/web1/{k}" for k in ("creating", "requesting", "deploying", "created")
    ]


def test_inventory_shows_the_stored_world(run):
    run("-p", "do-small", "web1")
    items = yaml.safe_load(run("inventory").stdout)
    found = [(i["service"], i["kind"], i["name"]) for i in items]
    assert ("compute", "server", "web1") in found
    assert ("network", "port", "") in found  # the droplet's public address


def test_same_seed_same_output(configs, tmp_path):
    providers, profiles = configs
    outs = []
    for n in range(2):
        result = CliRunner().invoke(
            cloud,
            [
                "--providers-config",
                str(providers),
                "--profiles-config",
                str(profiles),
                "--state",
                str(tmp_path / f"w{n}.db"),
                "--seed",
                "9",
                "-p",
                "do-small",
                "web1",
                "--events",
            ],
        )
        outs.append(result.output)
    assert outs[0] == outs[1]


def test_errors_are_one_line_and_exit_1(run, configs):
    result = run("-d", "nosuchnode")
    assert result.exit_code == 1
    assert result.stderr == "Error: The node (nosuchnode) could not be found.\n"
    result = run("-p", "nosuchprofile", "x")
    assert result.exit_code == 1 and "no profile 'nosuchprofile' (known: do-small)" in result.stderr
    providers, _ = configs
    providers.write_text("my-do:\n  driver: digitalocean\n")
    result = run("-Q")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"Error: {providers}: my-do.personal_access_token: missing credential"
    )


def test_usage_errors(run):
    assert "give exactly one of -p, -m, -d" in run().output
    assert "give exactly one of -p, -m, -d" in run("-Q", "-F").output
    assert "-p PROFILE needs at least one NAME" in run("-p", "do-small").output
    assert "-f FUNCTION needs exactly one PROVIDER" in run("-f", "list_keypairs").output
    assert run("-Q").exit_code == 0 and run("-Q", "-F").exit_code == 2


def test_state_comes_from_a_parent_group_when_not_given(configs, tmp_path):
    import click

    class Options:
        state = str(tmp_path / "parent.db")
        debug = False

    @click.group()
    @click.pass_context
    def main(ctx):
        ctx.obj = Options()

    main.add_command(cloud)
    providers, profiles = configs
    base = ["cloud", "--providers-config", str(providers), "--profiles-config", str(profiles)]
    runner = CliRunner()
    assert runner.invoke(main, [*base, "-p", "do-small", "web1"]).exit_code == 0
    assert (tmp_path / "parent.db").exists()
    listed = yaml.safe_load(runner.invoke(main, [*base, "-Q"]).stdout)
    assert list(listed["my-do"]["digitalocean"]) == ["web1"]


def test_driver_events_and_output_never_show_a_secret_setting(configs, write_driver, tmp_path):
    from tests.drivers.conftest import BUNDLED, TOKEN

    source = BUNDLED.read_text()
    old = '{"kwargs": __utils__["cloud.filter_event"]("requesting", kwargs, list(kwargs))}'
    assert old in source
    leaky = write_driver(
        "leaky",
        source.replace(old, '{"kwargs": kwargs, "auth": _provider()["personal_access_token"]}'),
    )
    providers, profiles = configs
    result = CliRunner().invoke(
        cloud,
        [
            "--providers-config", str(providers), "--profiles-config", str(profiles),
            "--state", str(tmp_path / "w.db"), "--driver", f"digitalocean={leaky}",
            "-p", "do-small", "web1", "--events", "--out", "json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "salt/cloud/web1/requesting" in result.stderr and "******" in result.stderr
    assert TOKEN not in result.stdout + result.stderr
