"""``plugsim bench --vs-heat`` as a function: the shape of its result (timings are not tested)."""

from __future__ import annotations

import pytest
from _heat_diff import requires_heat

from sdk import exception
from simulator import bench_heat


def test_layered_template_references_the_layer_before() -> None:
    tmpl = bench_heat.layered_template(5, 2, "v1")
    assert sorted(tmpl["resources"]) == ["r0", "r1", "r2", "r3", "r4"]
    assert tmpl["resources"]["r1"]["properties"] == {"value": "v1-1"}
    assert tmpl["resources"]["r4"]["properties"]["value"] == {
        "list_join": ["-", ["v1-4", {"get_resource": "r2"}]]
    }


def test_layered_template_rejects_empty_sizes() -> None:
    with pytest.raises(exception.ConfigurationError, match="at least 1"):
        bench_heat.layered_template(0, 1, "v1")


def test_missing_heat_is_a_clear_error(tmp_path) -> None:
    fake = tmp_path / "python"
    fake.write_text("")
    with pytest.raises(exception.ConfigurationError, match="PLUGSIM_HEAT_PYTHON"):
        bench_heat.run_vs_heat(3, heat_python=str(fake))


@pytest.mark.material
@requires_heat
def test_vs_heat_reports_both_engines_and_ratios() -> None:
    result = bench_heat.run_vs_heat(6, 3)
    assert result["resources"] == 6 and result["width"] == 3
    for engine in ("heat", "plugsim"):
        figures = result["engines"][engine]
        assert figures["states"] == {
            "create": "CREATE_COMPLETE",
            "update": "UPDATE_COMPLETE",
            "delete": "DELETE_COMPLETE",
        }
        assert set(figures["wall_seconds"]) == {"create", "update", "delete"}
    assert set(result["ratios"]) == {"create", "update", "delete"}
    assert all(r > 0 for r in result["ratios"].values())
    text = bench_heat.format_vs_heat(result)
    assert text.startswith("plugsim bench --vs-heat: 6 OS::Heat::TestResource")


@pytest.mark.material
@requires_heat
def test_vs_heat_repeats_each_engine_and_reports_medians() -> None:
    result = bench_heat.run_vs_heat(4, 2, repeat=3)
    assert result["repeat"] == 3
    for engine in ("heat", "plugsim"):
        runs = result["engines"][engine]["runs"]
        assert len(runs) == 3
        for phase in ("create", "update", "delete"):
            times = sorted(run[phase] for run in runs)
            assert result["engines"][engine]["wall_seconds"][phase] == round(times[1], 4)
    assert "median of 3 runs" in bench_heat.format_vs_heat(result)


def test_repeat_must_be_at_least_one() -> None:
    with pytest.raises(exception.ConfigurationError, match="--repeat"):
        bench_heat.run_vs_heat(3, repeat=0)
