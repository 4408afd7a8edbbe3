"""``plugsim simulate``: exit codes, JSON shape, leaks, the bundled example."""

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from simulator.cli import main
from simulator.simulate import simulate

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "three-tier"


def test_bundled_example_runs_clean():
    report = simulate(
        EXAMPLE / "stack.yaml",
        [EXAMPLE / "env.yaml"],
        seed=1,
        update_template=EXAMPLE / "update.yaml",
    )
    assert report.ok, report.to_text()
    assert [p.name for p in report.phases] == [
        "create",
        "update",
        "suspend",
        "resume",
        "snapshot",
        "delete",
    ]
    assert report.virtual_seconds > 60  # servers boot in virtual time
    assert report.leaks == []
    nested = {e.stack_name for e in report.events}
    assert "simulated-web1" in nested  # the template resource is a real nested stack


def test_json_report_shape_and_exit_code(tmp_path):
    res = CliRunner().invoke(
        main,
        [
            "simulate",
            str(EXAMPLE / "stack.yaml"),
            "-e",
            str(EXAMPLE / "env.yaml"),
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)  # stderr may carry the plug-in announcement
    assert set(doc) == {
        "ok",
        "seed",
        "template",
        "virtual_seconds",
        "wall_seconds",
        "phases",
        "events",
        "leaks",
        "injected_faults",
    }
    assert doc["ok"] is True and doc["seed"] == 0
    assert doc["phases"][0]["phase"] == "create"
    assert {"resource_name", "action", "status", "time"} <= set(doc["events"][0])


def test_failure_exits_1(tmp_path):
    t = tmp_path / "f.yaml"
    t.write_text(
        yaml.safe_dump(
            {
                "heat_template_version": "2018-08-31",
                "resources": {
                    "f": {"type": "Plugsim::Test::Fail", "properties": {"fail_on": "suspend"}}
                },
            }
        )
    )
    res = CliRunner().invoke(main, ["simulate", str(t)])
    assert res.exit_code == 1
    assert "SUSPEND_FAILED" in res.output and "Result: FAILED" in res.output


def test_retained_physical_resource_is_reported_as_a_leak(tmp_path):
    tpl = yaml.safe_load((EXAMPLE / "stack.yaml").read_text())
    tpl["resources"]["db_volume"]["deletion_policy"] = "Retain"
    (tmp_path / "stack.yaml").write_text(yaml.safe_dump(tpl))
    for name in ("env.yaml", "tier.yaml", "plugsim.yaml"):
        (tmp_path / name).write_text((EXAMPLE / name).read_text())
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "example_cloud.py").write_text(
        (EXAMPLE / "plugins" / "example_cloud.py").read_text()
    )
    report = simulate(tmp_path / "stack.yaml", [tmp_path / "env.yaml"])
    assert not report.ok
    assert [(leak["kind"], leak["name"]) for leak in report.leaks] == [("volume", "db-data")]
    assert "LEAKED fake-cloud resources: 1" in report.to_text()


def test_the_plain_report_calls_its_event_list_events_not_timeline():
    """``--timeline`` draws the real timeline; the plain report's list is the events."""
    report = simulate(EXAMPLE / "stack.yaml", [EXAMPLE / "env.yaml"], seed=0)
    lines = report.to_text().splitlines()

    assert "Events:" in lines
    assert "Timeline:" not in lines
