"""``plugsim campaign --plugin … --sequences``: the kit's state machine, seeded by each seed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sdk.testing.campaign.sequences import SequenceSpec
from simulator.cli import main

#: Each test runs a campaign of many seeded sequences: the material tier (``-m material``).
pytestmark = pytest.mark.material

PLUGIN = str(Path(__file__).resolve().parent / "paths_plugin" / "leaky_delete.py")
#: every delete answered 503: the planted bug leaks the network
ALWAYS_503 = """rules:
  - name: delete-503
    service: network
    operation: networks.delete
    effect: {type: error, status: 503}
"""


def test_a_sequence_that_leaks_is_found_and_shrunk_to_create_then_delete(tmp_path):
    faults = tmp_path / "faults.yaml"
    faults.write_text(ALWAYS_503)
    spec = SequenceSpec(PLUGIN, faults=str(faults), examples=3, steps=6)
    result = spec.run(0)
    assert not result.ok
    assert result.signature[:2] == ["sequence", "Test::Campaign::LeakyDelete"]
    steps = [p.strip() for p in result.phases if p.startswith("  state.")]
    actions = [s for s in steps if "fault=" in s]
    # hypothesis shrank it: a create, then a delete under the campaign's profile
    assert [a.split("(")[0] for a in actions] == ["state.create", "state.delete"]
    assert str(faults) in actions[-1]
    assert spec.run(0).digest == result.digest  # the same seed draws the same sequences


def test_without_the_fault_the_sequences_pass_and_the_command_says_so():
    result = CliRunner().invoke(
        main, ["campaign", "--plugin", PLUGIN, "--sequences", "--count", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "1 runs, 1 passed, 0 failed" in result.output


def test_the_command_prints_the_shortest_failing_sequence(tmp_path):
    faults = tmp_path / "faults.yaml"
    faults.write_text(ALWAYS_503)
    args = ["campaign", "--plugin", PLUGIN, "--sequences", "--faults", str(faults), "--seeds", "3"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert "sequence Test::Campaign::LeakyDelete" in result.output
    assert "   shortest failing sequence:" in result.output
    assert f"state.delete(fault={str(faults)!r})" in result.output
    assert f"--sequences --seeds 3 --faults {faults}" in result.output
