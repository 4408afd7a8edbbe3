"""The resource state machine: states, events, handlers, checks, polling, cancellation."""

from __future__ import annotations

import asyncio

import pytest
from test_resource_fakes import Server, make, make_context, run, states

from sdk import exception
from sdk.resource import Resource, ResourceState
from simulator.clock import VirtualClock
from simulator.clock import run as vrun


class Plain(Resource):
    """No handlers at all."""


def test_constants():
    assert Resource.ACTIONS == (
        "INIT",
        "CREATE",
        "DELETE",
        "UPDATE",
        "ROLLBACK",
        "SUSPEND",
        "RESUME",
        "ADOPT",
        "SNAPSHOT",
        "CHECK",
    )
    assert Resource.STATUSES == ("IN_PROGRESS", "FAILED", "COMPLETE")
    for name in Resource.ACTIONS + Resource.STATUSES:
        assert getattr(Resource, name) == name


def test_resource_state_str_and_equality():
    s = ResourceState("CREATE", "COMPLETE")
    assert str(s) == "CREATE_COMPLETE"
    assert s == "CREATE_COMPLETE"
    assert s == ("CREATE", "COMPLETE")
    assert s != "CREATE_FAILED"
    assert s != ("CREATE", "FAILED")
    assert s.action == "CREATE" and s.status == "COMPLETE"
    assert hash(s) == hash(("CREATE", "COMPLETE"))


def test_initial_state():
    r = make(Plain)
    assert r.state == "INIT_COMPLETE"
    assert (r.action, r.status, r.status_reason) == ("INIT", "COMPLETE", "")
    assert r.resource_id is None


def test_name_with_slash_rejected():
    from sdk.rsrc_defn import ResourceDefinition

    ctx, _ = make_context()
    defn = ResourceDefinition("ok", "T")
    with pytest.raises(exception.StackValidationFailed, match='may not contain "/"'):
        Plain("a/b", defn, ctx)


def test_no_handler_completes_at_once():
    r = make(Plain)
    run(r.create())
    assert r.state == "CREATE_COMPLETE"
    assert states(r.context) == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    assert r.context.clock.now() == 0


def test_sync_handler_with_polling_backoff_in_virtual_time():
    ctx, compute = make_context(poll_interval=2.0, max_poll_interval=5.0)
    compute.servers.build_polls = 6  # ACTIVE on the 6th get
    r = make(Server, ctx=ctx, props={"name": "w"})
    run(r.create())
    assert r.state == "CREATE_COMPLETE"
    assert r.resource_id == "srv-1"
    # 5 sleeps between 6 checks: 2, 3, 4.5, 5 (capped), 5
    assert ctx.clock.now() == pytest.approx(2 + 3 + 4.5 + 5 + 5)
    assert [c for c in compute.servers.calls if c[0] == "get"] == [("get", "srv-1")] * 6
    assert states(ctx) == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    assert ctx.saved["web"]["resource_id"] == "srv-1"


def test_events_carry_time_and_physical_id():
    ctx, compute = make_context(poll_interval=1.0)
    compute.servers.build_polls = 2
    r = make(Server, ctx=ctx)
    run(r.create())
    last = ctx.events[-1]
    assert (last.time, last.resource, last.physical_id) == (1.0, "web", "srv-1")


class AsyncServer(Server):
    """The same plug-in written with async handlers and checks."""

    async def handle_create(self):
        await asyncio.sleep(0)
        server = self.client().servers.create(name="a")
        self.resource_id_set(server.id)
        return server.id

    async def check_create_complete(self, sid):
        await self.context.clock.sleep(0.5)
        return self.client().servers.get(sid).status == "ACTIVE"


def test_async_handlers_are_first_class():
    ctx, compute = make_context(poll_interval=1.0)
    compute.servers.build_polls = 3
    r = make(AsyncServer, ctx=ctx)
    run(r.create())
    assert r.state == "CREATE_COMPLETE"
    # three checks (0.5 each) and two sleeps between them (1, 1.5)
    assert ctx.clock.now() == pytest.approx(3 * 0.5 + 1 + 1.5)


def test_latency_charged_by_sync_calls_is_settled_in_virtual_time():
    clock = VirtualClock()
    ctx, compute = make_context(clock=clock, latency=0.25, poll_interval=1.0)
    r = make(Server, ctx=ctx)

    async def go():
        await r.create()
        return clock.now()

    # one create call and one get, 0.25 s each, paid by settle()
    assert vrun(go(), clock) == pytest.approx(0.5)


class NoCheck(Resource):
    calls: list[str] = []

    def handle_create(self):
        self.calls.append("create")
        return "token"


def test_no_check_means_complete_after_handler():
    r = make(NoCheck)
    run(r.create())
    assert r.state == "CREATE_COMPLETE"
    assert r.calls == ["create"]


class Broken(Resource):
    def handle_create(self):
        raise RuntimeError("quota exhausted badly")


def test_handler_failure_sets_failed_and_raises_resource_failure():
    r = make(Broken)
    with pytest.raises(exception.ResourceFailure) as info:
        run(r.create())
    assert r.state == "CREATE_FAILED"
    assert r.status_reason == "RuntimeError: quota exhausted badly"
    assert isinstance(info.value.exc, RuntimeError)
    assert info.value.action == "CREATE"
    assert info.value.resource is r
    assert states(r.context) == ["CREATE_IN_PROGRESS", "CREATE_FAILED"]
    assert r.context.events[-1].reason == "RuntimeError: quota exhausted badly"


class CheckFails(Resource):
    def handle_create(self):
        return 1

    async def check_create_complete(self, token):
        raise ValueError("went sideways")


def test_check_failure_sets_failed():
    r = make(CheckFails)
    with pytest.raises(exception.ResourceFailure, match="ValueError: went sideways"):
        run(r.create())
    assert r.state == "CREATE_FAILED"


def test_create_twice_is_refused_without_state_change():
    r = make(Plain)
    run(r.create())
    before = list(r.context.events)
    with pytest.raises(exception.ResourceFailure, match="State CREATE_COMPLETE invalid for create"):
        run(r.create())
    assert r.context.events == before
    assert r.state == "CREATE_COMPLETE"


def test_create_validates_properties_first():
    r = make(Server, props={"colour": "red"})
    with pytest.raises(exception.ResourceFailure, match="Unknown Property colour"):
        run(r.create())
    assert r.state == "CREATE_FAILED"
    assert r.context.events[-1].reason.startswith("StackValidationFailed: ")
    assert "resources.web.properties" in r.status_reason


def test_state_set_reports_every_call_and_rejects_unknown_values():
    r = make(Plain)
    r.state_set("CREATE", "IN_PROGRESS", "a")
    r.state_set("CREATE", "IN_PROGRESS", "b")
    assert [e.reason for e in r.context.events] == ["a", "b"]
    with pytest.raises(ValueError, match="Invalid action 'FLY'"):
        r.state_set("FLY", "COMPLETE")
    with pytest.raises(ValueError, match="Invalid status 'DONE'"):
        r.state_set("CREATE", "DONE")


# --- retries -------------------------------------------------------------------


def test_create_retries_after_resource_in_error_with_events_and_backoff():
    ctx, compute = make_context(poll_interval=1.0)
    compute.servers.fail_next_creates = 2
    r = make(Server, ctx=ctx)
    run(r.create())
    assert r.state == "CREATE_COMPLETE"
    assert r.resource_id == "srv-3"
    assert states(ctx) == [
        "CREATE_IN_PROGRESS",
        "CREATE_FAILED",
        "DELETE_IN_PROGRESS",
        "DELETE_COMPLETE",
        "CREATE_IN_PROGRESS",
        "CREATE_FAILED",
        "DELETE_IN_PROGRESS",
        "DELETE_COMPLETE",
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
    ]
    # the failed servers were deleted
    assert sorted(compute.servers.items) == ["srv-3"]
    # backoff 2 s before the 2nd create, 4 s before the 3rd
    create_starts = [
        e.time for e in ctx.events if (e.action, e.status) == ("CREATE", "IN_PROGRESS")
    ]
    assert create_starts == [0.0, 2.0, 6.0]
    assert ctx.events[1].reason == 'ResourceInError: Went to status ERROR due to "boot failed"'


def test_create_gives_up_after_the_retry_limit():
    ctx, compute = make_context()
    compute.servers.fail_next_creates = 10
    r = make(Server, ctx=ctx)
    with pytest.raises(exception.ResourceFailure, match="ResourceInError"):
        run(r.create())
    assert r.state == "CREATE_FAILED"
    assert [e for e in states(ctx) if e == "CREATE_IN_PROGRESS"] == ["CREATE_IN_PROGRESS"] * 3


def test_retry_limit_from_context():
    ctx, compute = make_context()
    ctx.action_retry_limit = 0
    compute.servers.fail_next_creates = 1
    r = make(Server, ctx=ctx)
    with pytest.raises(exception.ResourceFailure):
        run(r.create())
    assert states(ctx) == ["CREATE_IN_PROGRESS", "CREATE_FAILED"]


class OverLimitOnce(Resource):
    attempts = 0

    def handle_create(self):
        type(self).attempts += 1
        if type(self).attempts == 1:
            raise exception.OverLimit("slow down", retry_after=7)


def test_over_limit_retry_honours_retry_after():
    r = make(OverLimitOnce)
    run(r.create())
    assert r.state == "CREATE_COMPLETE"
    starts = [
        e.time for e in r.context.events if str(e.action) == "CREATE" and e.status == "IN_PROGRESS"
    ]
    assert starts == [0.0, 7.0]


def test_non_retryable_error_is_not_retried():
    r = make(Broken)
    with pytest.raises(exception.ResourceFailure):
        run(r.create())
    assert states(r.context) == ["CREATE_IN_PROGRESS", "CREATE_FAILED"]


# --- cancellation -------------------------------------------------------------


class SlowServer(Server):
    cancelled_with: list = []

    def handle_create_cancel(self, token):
        self.cancelled_with.append(token)


async def _cancel_after(resource, seconds, reason=None):
    task = asyncio.ensure_future(resource.create())
    await asyncio.sleep(seconds)
    if reason is None:
        task.cancel()
    else:
        assert resource.cancel(reason) is True
    with pytest.raises(asyncio.CancelledError):
        await task


def test_cancel_calls_handle_create_cancel_and_fails_the_action():
    clock = VirtualClock()
    ctx, compute = make_context(clock=clock, poll_interval=1.0)
    compute.servers.build_polls = 100
    r = make(SlowServer, ctx=ctx)
    vrun(_cancel_after(r, 10), clock)
    assert r.cancelled_with == ["srv-1"]
    assert r.state == "CREATE_FAILED"
    assert r.status_reason == "Create cancelled"
    assert r.running_action is None


class AsyncCancel(Server):
    seen: list = []

    async def handle_create_cancel(self):
        await asyncio.sleep(0)
        self.seen.append("cancelled")


def test_cancel_reason_from_the_engine_and_async_canceller_without_token():
    clock = VirtualClock()
    ctx, compute = make_context(clock=clock)
    compute.servers.build_polls = 100
    r = make(AsyncCancel, ctx=ctx)
    vrun(_cancel_after(r, 5, reason="Create timed out"), clock)
    assert r.seen == ["cancelled"]
    assert r.status_reason == "Create timed out"
    assert r.cancel_reason is None
    assert states(ctx) == ["CREATE_IN_PROGRESS", "CREATE_FAILED"]


def test_cancel_without_running_action_returns_false():
    assert make(Plain).cancel("x") is False


# --- engine-style driving ------------------------------------------------------


def test_bad_schema_names_the_plug_in():
    class BadSchema(Resource):
        properties_schema = {"size": "not a schema"}

    with pytest.raises(exception.InvalidSchemaError) as info:
        make(BadSchema)
    assert str(info.value).startswith("Resource plug-in ")
    assert "BadSchema (Test::Server, resource web): " in str(info.value)


def test_concurrent_resources_interleave_in_virtual_time():
    clock = VirtualClock()
    ctx, compute = make_context(clock=clock, poll_interval=1.0, max_poll_interval=1.0)
    compute.servers.build_polls = 5
    a = make(Server, name="a", ctx=ctx)
    b = make(Server, name="b", ctx=ctx)

    async def both():
        await asyncio.gather(a.create(), b.create())
        return clock.now()

    # each needs 5 checks (4 one-second sleeps); together they still take 4 s
    assert vrun(both(), clock) == pytest.approx(4.0)
    assert a.state == b.state == "CREATE_COMPLETE"


def test_engine_timeout_with_asyncio_timeout():
    clock = VirtualClock()
    ctx, compute = make_context(clock=clock, poll_interval=1.0)
    compute.servers.build_polls = 1000
    r = make(SlowServer, ctx=ctx)

    async def with_timeout():
        r.cancel_reason = "Create timed out"
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(30):
                await r.create()
        return clock.now()

    assert vrun(with_timeout(), clock) == pytest.approx(30.0)
    assert r.state == "CREATE_FAILED"
    assert r.status_reason == "Create timed out"
    assert r.cancelled_with[-1] == "srv-1"


def test_cancel_during_retry_backoff_fails_create():
    clock = VirtualClock()
    ctx, compute = make_context(clock=clock)
    compute.servers.fail_next_creates = 5
    r = make(Server, ctx=ctx)

    async def go():
        task = asyncio.ensure_future(r.create())
        await asyncio.sleep(1)  # inside the 2 s backoff after the first cleanup
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    vrun(go(), clock)
    assert states(ctx)[-3:] == ["DELETE_IN_PROGRESS", "DELETE_COMPLETE", "CREATE_FAILED"]
    assert r.status_reason == "Create cancelled"
