"""``plugsim campaign --world FILE|PRESET``: every run starts from the same world file."""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml
from click.testing import CliRunner

from sdk.testing.campaign import RunSpec, parse_seeds, run_campaign
from simulator.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "campaign"

#: Runs only in a world that has the DevStack's network, image and flavor.
DEVSTACK_ONLY = textwrap.dedent(
    """
    heat_template_version: 2018-08-31
    resources:
      port:
        type: OS::Neutron::Port
        properties: {network: private}
      server:
        type: OS::Nova::Server
        properties:
          image: cirros-0.6.3-x86_64-disk
          flavor: ds512M
          networks: [{port: {get_resource: port}}]
    """
)


def _campaign(*args: str):
    return CliRunner().invoke(main, ["campaign", *args])


def test_every_run_starts_from_the_world_preset(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(DEVSTACK_ONLY)
    ok = _campaign(str(template), "--world", "devstack", "--count", "3")
    assert ok.exit_code == 0, ok.output
    assert "3 runs, 3 passed, 0 failed" in ok.output
    bad = _campaign(str(template), "--count", "2")
    assert bad.exit_code == 1
    assert "2 runs, 0 passed, 2 failed; 1 distinct failure(s)" in bad.output


def test_the_global_world_option_reaches_the_campaign_and_the_replay_line(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(DEVSTACK_ONLY)
    ok = CliRunner().invoke(
        main, ["--world", "devstack", "campaign", str(template), "--count", "2"]
    )
    assert ok.exit_code == 0, ok.output
    spec = RunSpec(str(template), world="devstack")
    assert spec.replay(7).endswith(f"{template} --seed 7 --world devstack")


def test_a_world_file_s_faults_are_the_campaign_s_and_shrink(tmp_path):
    """Without --faults the world file's fault rules hit the runs, and shrinking maps the injected
    faults back to those rules."""
    rules = yaml.safe_load((EXAMPLE / "faults.yaml").read_text())["rules"]
    world = tmp_path / "world.yaml"
    world.write_text(yaml.safe_dump({"plugsim_world": 1, "faults": rules}))
    spec = RunSpec(str(EXAMPLE / "stack.yaml"), world=str(world))
    outcome = run_campaign(spec, parse_seeds("400..430", None), chunk=10, out=tmp_path / "out")
    (finding,) = outcome.findings
    assert finding.signature.check == "leak" and len(finding.seeds) == 2
    assert [f["rule_name"] for f in finding.shrunk.faults] == ["subnet-503"]
    assert f"--world {world}" in finding.shrunk_replay


def test_a_bad_world_file_is_one_line_before_any_run(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(DEVSTACK_ONLY)
    world = tmp_path / "w.yaml"
    world.write_text("plugsim_world: 1\nimages: 7\n")
    result = _campaign(str(template), "--world", str(world), "--count", "50")
    assert result.exit_code == 1
    assert str(world) in result.output and "images" in result.output
    assert "runs," not in result.output and "Traceback" not in result.output
    missing = _campaign(str(template), "--world", "nowhere", "--count", "5")
    assert missing.exit_code == 1
    assert "nowhere: no such world file" in missing.output
