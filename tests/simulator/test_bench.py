"""The benchmark harness (figures only, never a timed assertion)."""

import json

from click.testing import CliRunner

from simulator.bench import layered_template, run_bench
from simulator.cli import main


def test_layered_template_shape():
    t = layered_template(7, 3)
    assert len(t["resources"]) == 7
    assert "depends" not in t["resources"]["r2"]["properties"]
    assert t["resources"]["r5"]["properties"]["depends"] == {"get_resource": "r2"}


def test_run_bench_goes_through_every_phase():
    result = run_bench(30, 10, state=":memory:")
    assert result.states == {
        "create": "CREATE_COMPLETE",
        "update": "UPDATE_COMPLETE",
        "suspend": "SUSPEND_COMPLETE",
        "resume": "RESUME_COMPLETE",
        "delete": "DELETE_COMPLETE",
    }
    assert result.virtual["create"] == 30.0  # three layers of 10 virtual seconds


def test_bench_cli_json():
    res = CliRunner().invoke(
        main, ["--state", ":memory:", "bench", "--resources", "20", "--width", "5", "--json"]
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["resources"] == 20 and set(doc["phases"]) == {
        "create",
        "update",
        "suspend",
        "resume",
        "delete",
    }
    assert doc["simulated_seconds_per_wall_second"] > 0
