"""Heat's own ``OS::Heat::Delay`` on plugsim (issue 35 item 3).

Read in Heat 27's ``delay.py`` and ``resource.py``: the create handler returns the
start time and a wait of ``min_wait`` plus ``max_jitter * jitter_multiplier_secs``
times a random fraction; ``check_create_complete`` is done once that much time has
passed, and while 4 s or more remain it raises ``resource.PollDelay(remaining // 2)``,
asking not to be polled again until the resource has become eligible for polling that
many times (a period of 1 is the same as returning False). plugsim's engine honours it
on the virtual clock, so the wait costs virtual seconds and few polls.
"""

from __future__ import annotations

import pytest
from _heat_diff import requires_heat

from simulator.world import World

pytestmark = requires_heat


def _template(**props):
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"d": {"type": "OS::Heat::Delay", "properties": props}},
    }


def _run(seed: int, **props):
    from simulator.heat_compat import use_heat_plugins

    world = World(seed=seed)
    report = use_heat_plugins(world, "heat.engine.resources.openstack.heat.delay")
    assert not report.errors, report.errors
    polls = []
    cls = world.registry.plugins()["OS::Heat::Delay"]
    original = cls.check_create_complete

    def counted(self, cookie):
        polls.append(world.clock.now())
        return original(self, cookie)

    cls.check_create_complete = counted
    try:
        start = world.clock.now()
        stack = world.create_stack("d", _template(**props))
        assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
        took = world.clock.now() - start
        assert world.delete_stack("d").status == "COMPLETE"
        return took, polls
    finally:
        cls.check_create_complete = original
        world.close()


def test_the_delay_waits_its_minimum_in_virtual_time_with_few_polls():
    took, polls = _run(1, min_wait=120)
    assert 120 <= took < 135
    # PollDelay(remaining // 2) halves the polls each time: a handful, not one per second
    assert len(polls) <= 12


def test_jitter_is_drawn_from_the_seeded_stream():
    first, _ = _run(5, min_wait=10, max_jitter=60)
    again, _ = _run(5, min_wait=10, max_jitter=60)
    assert first == again
    assert 10 <= first <= 75


def test_no_wait_completes_at_once():
    took, polls = _run(1)
    assert took < 5
    assert len(polls) == 1


@pytest.mark.parametrize("period", [0, -1])
def test_poll_delay_needs_a_period_of_at_least_one(period):
    from sdk.exception import PollDelay

    with pytest.raises(ValueError):
        PollDelay(period)
