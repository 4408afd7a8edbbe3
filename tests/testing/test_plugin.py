"""The pytest plugin: fixtures, markers, options, seeds, replay lines, async tests, opt-out."""

import json

import pytest
import yaml
from sample_plugins import SampleServer

from sdk import exception
from sdk.testing.plugin import item_seed
from simulator.rng import derive_seed

TRIVIAL = {
    "heat_template_version": "2018-08-31",
    "resources": {"a": {"type": "Plugsim::Test::Trivial", "properties": {"value": "x"}}},
    "outputs": {"v": {"value": {"get_attr": ["a", "value"]}}},
}


def test_stack_factory_takes_a_dict_and_drives_every_action(stack_factory):
    stack = stack_factory(TRIVIAL).create()
    assert stack.state == "CREATE_COMPLETE"
    assert stack.outputs == {"v": "x"}
    new = yaml.safe_load(yaml.safe_dump(TRIVIAL))
    new["resources"]["a"]["properties"]["value"] = "y"
    assert stack.update(new).state == "UPDATE_COMPLETE"
    assert stack.outputs == {"v": "y"}
    assert stack.suspend().state == "SUSPEND_COMPLETE"
    assert stack.resume().state == "RESUME_COMPLETE"
    assert stack.check().state == "CHECK_COMPLETE"
    snap = stack.snapshot("first")
    assert snap.status == "COMPLETE"
    assert stack.restore(snap).state == "RESTORE_COMPLETE"
    # the resource had nothing to change: it keeps its last settled state
    assert stack.resources["a"].state == "SNAPSHOT_COMPLETE"
    assert stack.delete().state == "DELETE_COMPLETE"
    states = [(e.resource_name, e.state) for e in stack.events]
    assert states[:2] == [(stack.name, "CREATE_IN_PROGRESS"), ("a", "CREATE_IN_PROGRESS")]
    assert states[-1] == (stack.name, "DELETE_COMPLETE")


def test_stack_factory_takes_yaml_text_and_a_path(stack_factory, tmp_path):
    text = yaml.safe_dump(TRIVIAL)
    assert stack_factory(text).create().outputs == {"v": "x"}
    path = tmp_path / "t.yaml"
    path.write_text(text)
    assert stack_factory(path).create().state == "CREATE_COMPLETE"
    assert stack_factory(str(path)).create().state == "CREATE_COMPLETE"


def test_a_template_that_is_not_a_mapping_is_a_clear_error(stack_factory):
    with pytest.raises(exception.StackValidationFailed, match="template: expected a mapping"):
        stack_factory("- just\n- a list\n")


def test_abandon_and_adopt_round_trip(stack_factory):
    stack = stack_factory(TRIVIAL).create()
    pid = stack.resources["a"].resource_id
    data = stack.abandon()
    adopted = stack.adopt(data)
    assert adopted.state == "ADOPT_COMPLETE"
    assert adopted.resources["a"].resource_id == pid


def test_resource_harness_drives_one_class_against_the_fake_cloud(resource_harness, fake_cloud):
    h = resource_harness(SampleServer, {"image": "cirros", "name": "web"}).create()
    assert h.state == "CREATE_COMPLETE"
    item = h.cloud_entity()
    assert (item.service, item.kind, item.name, item.status) == (
        "compute",
        "server",
        "web",
        "ACTIVE",
    )
    h.suspend()
    assert h.resource.state == "SUSPEND_COMPLETE"
    assert h.cloud_entity().status == "SUSPENDED"
    h.resume()
    assert h.cloud_entity().status == "ACTIVE"
    h.update({"image": "cirros", "name": "web2"})
    assert h.cloud_entity().name == "web2"
    h.delete()
    assert h.resource.state == "DELETE_COMPLETE"
    assert h.world.leaked() == []
    assert h.world.transitions.violations == []


def test_fixtures_share_one_world(plugsim_world, fake_cloud, virtual_clock, stack_factory):
    assert fake_cloud is plugsim_world.cloud
    assert virtual_clock is plugsim_world.clock
    stack = stack_factory(TRIVIAL)
    assert stack.world is plugsim_world


def test_seed_derives_from_session_seed_and_node_id(request, plugsim_seed):
    assert plugsim_seed == derive_seed(0, request.node.nodeid) % 2**31
    assert plugsim_seed == item_seed(request.node)


@pytest.mark.seed(1234)
def test_seed_marker_wins(plugsim_seed, plugsim_world):
    assert plugsim_seed == 1234
    assert plugsim_world.seed == 1234


@pytest.mark.faults("flaky")
def test_faults_marker_takes_a_preset(fake_cloud):
    names = [rule.name for rule in fake_cloud.faults.profile.rules]
    assert names[0] == "flaky-503"


@pytest.mark.faults({"operation": "servers.create", "effect": {"type": "error", "status": 500}})
def test_faults_marker_takes_rules(resource_harness, fake_cloud):
    h = resource_harness(SampleServer, {"image": "cirros"}).create()
    assert h.state == "CREATE_FAILED"
    assert "ServiceUnavailable" in h.status_reason
    assert [f.effect for f in fake_cloud.injected_faults()] == ["error"]


@pytest.mark.latency(0)
def test_latency_marker_zero_makes_everything_instant(resource_harness, virtual_clock):
    h = resource_harness(SampleServer, {"image": "cirros"}).create()
    assert h.state == "CREATE_COMPLETE"
    assert virtual_clock.now() == 0.0


def test_default_latency_costs_virtual_time_only(resource_harness, virtual_clock):
    h = resource_harness(SampleServer, {"image": "cirros"}).create()
    assert h.state == "CREATE_COMPLETE"
    assert virtual_clock.now() > 5.0  # a server boots in ~30 virtual seconds


async def test_async_tests_await_stack_actions(stack_factory):
    stack = await stack_factory(TRIVIAL).acreate()
    assert stack.state == "CREATE_COMPLETE"
    await stack.asuspend()
    assert stack.state == "SUSPEND_COMPLETE"
    assert (await stack.adelete()).state == "DELETE_COMPLETE"


async def test_sync_actions_also_work_inside_an_async_test(stack_factory):
    assert stack_factory(TRIVIAL).create().state == "CREATE_COMPLETE"


# -- through pytester -------------------------------------------------------------

FAILING = """
def test_boom(stack_factory):
    stack = stack_factory({"heat_template_version": "2018-08-31",
                           "resources": {"a": {"type": "Plugsim::Test::Fail"}}}).create()
    assert stack.state == "CREATE_COMPLETE"

def test_plain_failure():
    assert 1 == 2
"""


def test_a_failing_test_reports_its_seed_and_replay_command(scratch):
    scratch.makepyfile(test_x=FAILING)
    result = scratch.runpytest("--plugsim-seed=7")
    result.assert_outcomes(failed=2)
    seed = derive_seed(7, "test_x.py::test_boom") % 2**31
    result.stdout.fnmatch_lines(
        [
            "*- plugsim -*",
            f"seed: {seed} (session seed 7)",
            "replay: python -m pytest test_x.py::test_boom --plugsim-seed=7",
        ]
    )
    # a test that used no plugsim fixture gets no plugsim section
    assert result.stdout.str().count("replay:") == 1


def test_replay_command_carries_the_fault_option(scratch):
    scratch.makepyfile(test_x=FAILING)
    result = scratch.runpytest("--plugsim-faults=flaky", "-k", "boom")
    result.stdout.fnmatch_lines(
        ["replay: python -m pytest test_x.py::test_boom --plugsim-seed=0 --plugsim-faults=flaky"]
    )


def test_plugsim_faults_option_reaches_every_fake_cloud(scratch):
    scratch.makepyfile(
        test_x="""
def test_f(fake_cloud):
    assert [r.name for r in fake_cloud.faults.profile.rules][0] == "chaos-throttle"
"""
    )
    scratch.runpytest("--plugsim-faults=chaos").assert_outcomes(passed=1)


def test_the_plugin_can_be_disabled(scratch):
    scratch.makepyfile(test_x="def test_f(stack_factory):\n    pass\n")
    result = scratch.runpytest("-p", "no:plugsim")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'stack_factory' not found*"])


def test_markers_are_registered(scratch):
    result = scratch.runpytest("--markers")
    result.stdout.fnmatch_lines(
        ["@pytest.mark.faults(*", "@pytest.mark.latency(*", "@pytest.mark.seed(*"]
    )


def test_a_bad_seed_marker_is_a_clear_error(scratch):
    scratch.makepyfile(
        test_x="""
import pytest
@pytest.mark.seed("abc")
def test_f(plugsim_seed):
    pass
"""
    )
    result = scratch.runpytest()
    result.stdout.fnmatch_lines(["*@pytest.mark.seed takes one integer*"])


def test_coverage_matrix_in_the_summary_and_as_json(scratch, tmp_path):
    scratch.makepyfile(
        test_x="""
def test_f(stack_factory):
    s = stack_factory({"heat_template_version": "2018-08-31",
                       "resources": {"a": {"type": "Plugsim::Test::Trivial"},
                                     "b": {"type": "Plugsim::Test::Fail"}}}).create()
    s.delete()
"""
    )
    report = tmp_path / "cov.json"
    result = scratch.runpytest(f"--plugsim-report={report}")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*plugsim lifecycle coverage*",
            "plug-in*CREATE*DELETE*faults",
            "Plugsim::Test::Fail*0/1*1/0*none",
            "Plugsim::Test::Trivial*1/0*1/0*none",
        ]
    )
    data = json.loads(report.read_text())
    assert data["plugins"]["Plugsim::Test::Fail"]["actions"]["CREATE"] == {"FAILED": 1}
    assert data["plugins"]["Plugsim::Test::Trivial"]["actions"]["DELETE"] == {"COMPLETE": 1}


def test_a_blocking_handler_fails_the_test_with_its_name(scratch):
    scratch.makepyfile(
        test_x="""
from sample_plugins import HangingServer

def test_hang(resource_harness):
    resource_harness(HangingServer, {"image": "cirros"}).create()
"""
    )
    result = scratch.runpytest("--plugsim-wall-limit=0.3")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*HandlerBlocked: handler HangingServer.handle_create of resource 'resource' "
            "(Plugsim::Harness::HangingServer) blocked the event loop for more than 0.3 s*"
        ]
    )


def test_a_report_directory_gets_a_page_per_failing_test(scratch, tmp_path):
    scratch.makepyfile(
        test_x="""
import sample_plugins

def test_fails(stack_factory):
    s = stack_factory({"heat_template_version": "2018-08-31",
                       "resources": {"b": {"type": "Plugsim::Test::Fail"}}})
    s.create()
    assert s.state == "CREATE_COMPLETE"

def test_passes(stack_factory):
    stack_factory({"heat_template_version": "2018-08-31",
                   "resources": {"a": {"type": "Plugsim::Test::Trivial"}}}).create()
"""
    )
    out = tmp_path / "pages"
    result = scratch.runpytest(f"--plugsim-report={out}")
    result.assert_outcomes(passed=1, failed=1)
    pages = sorted(p.name for p in out.glob("*.html"))
    assert pages == ["test_x.py_test_fails.html"]
    html = (out / pages[0]).read_text()
    assert "test_x.py::test_fails" in html and "--plugsim-seed=0" in html
    assert 'class="bar failed' in html
    assert (out / "coverage.json").exists()
    result.stdout.fnmatch_lines([f"*report: {out / pages[0]}"])
