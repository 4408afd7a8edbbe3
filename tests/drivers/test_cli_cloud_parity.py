"""plugsim cloud speaks more of salt-cloud: map files, -P, provider/profile listings, auth."""

from __future__ import annotations

import yaml
from click.testing import CliRunner

from simulator.cli.cloud import cloud
from tests.drivers.test_cli_cloud import run  # noqa: F401 - the fixture


def _write_map(tmp_path, body: dict) -> str:
    path = tmp_path / "web.map"
    path.write_text(yaml.safe_dump(body))
    return str(path)


def test_a_map_file_creates_its_nodes_with_overrides(run, tmp_path):  # noqa: F811
    mapping = _write_map(tmp_path, {"do-small": ["web1", {"web2": {"size": "s-2vcpu-4gb"}}]})
    created = run("-m", mapping)
    assert created.exit_code == 0, created.output
    data = yaml.safe_load(created.stdout)
    assert sorted(data) == ["web1", "web2"]
    listed = yaml.safe_load(run("-Q").stdout)["my-do"]["digitalocean"]
    assert listed["web2"]["size"] == "s-2vcpu-4gb" and listed["web1"]["size"] == "s-1vcpu-2gb"
    again = yaml.safe_load(run("-m", mapping).stdout)
    assert again["web1"] == {"Already exists": True}


def _seconds(stamp: str) -> float:
    hours, minutes, seconds = stamp.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def test_parallel_map_creation_overlaps_in_virtual_time(tmp_path, configs):
    providers, profiles = configs
    mapping = _write_map(tmp_path, {"do-small": ["a1", "a2", "a3"]})

    worlds = iter(range(10))

    def elapsed(*flags: str) -> tuple[float, dict]:
        state = tmp_path / f"world{next(worlds)}.db"
        result = CliRunner().invoke(
            cloud,
            [
                "--providers-config",
                str(providers),
                "--profiles-config",
                str(profiles),
                "--state",
                str(state),
                "--seed",
                "5",
                "-m",
                mapping,
                *flags,
                "--out",
                "json",
                "--events",
            ],
            catch_exceptions=False,
        )
        assert result.exit_code == 0, result.output
        times = [_seconds(line.split()[0]) for line in result.stderr.splitlines()]
        return max(times) - min(times), yaml.safe_load(result.stdout)

    serial, one = elapsed()
    parallel, many = elapsed("-P")
    assert sorted(one) == sorted(many) == ["a1", "a2", "a3"]
    assert parallel < serial * 0.6
    assert elapsed("-P") == (parallel, many)  # deterministic


def test_list_providers_and_profiles(run):  # noqa: F811
    providers = yaml.safe_load(run("--list-providers").stdout)
    assert providers == {"my-do": {"digitalocean": {"profiles": ["do-small"]}}}
    profiles = yaml.safe_load(run("--list-profiles", "all").stdout)
    assert profiles["my-do"]["digitalocean"]["do-small"]["size"] == "s-1vcpu-2gb"
    only = run("--list-profiles", "nope")
    assert only.exit_code == 1 and "unknown provider 'nope'" in only.stderr


def test_update_bootstrap_is_refused_with_a_reason(run):  # noqa: F811
    result = run("-u")
    assert result.exit_code == 1
    assert "never downloads bootstrap-salt.sh" in result.stderr


def test_help_describes_out_rest_token_and_strict_auth():
    text = CliRunner().invoke(cloud, ["--help"]).output
    for words in ("--out", "--rest-token", "--strict-auth", "-m, --map", "-P, --parallel"):
        assert words in text
    assert "Output format" in text and "DIALECT=TOKEN" in text


def test_strict_auth_is_remembered_by_the_world(run):  # noqa: F811
    refused = run("--strict-auth", "only-this", "--list-sizes", "my-do")
    assert refused.exit_code == 1 and "Unable to authenticate you" in refused.stderr
    later = run("--list-sizes", "my-do")
    assert later.exit_code == 1 and "Unable to authenticate you" in later.stderr
