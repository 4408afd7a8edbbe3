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


def test_bench_floor_json_puts_the_engine_beside_the_floor():
    res = CliRunner().invoke(
        main,
        ["--state", ":memory:", "bench", "--floor", "--resources", "20", "--width", "5", "--json"],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    floor, engine = doc["floor"], doc["engine"]
    # ten transitions per resource; one commit per layer and state in each of the five phases
    assert floor["transitions"] == engine["transitions"] == 200
    assert floor["commits"] == 5 * 4 * 2
    assert engine["states"]["delete"] == "DELETE_COMPLETE"
    assert doc["multiple"] == round(engine["us_per_transition"] / floor["us_per_transition"], 1)


def test_bench_json_reports_cpu_seconds_per_phase():
    result = run_bench(10, 5, state=":memory:")
    doc = result.to_dict()
    assert set(result.cpu) == set(result.wall)
    assert doc["total_cpu_seconds"] == round(sum(result.cpu.values()), 4)
