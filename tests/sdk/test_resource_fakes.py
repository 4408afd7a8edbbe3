"""A tiny dict-backed compute client and resource plug-ins for the resource tests.

Imported by the other ``test_resource_*`` modules; its own tests check the fake.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sdk import exception
from sdk import properties as p
from sdk.context import CounterClock, LocalContext, StackInfo
from sdk.resource import Resource
from sdk.rsrc_defn import ResourceDefinition


class FakeServer:
    """One server: its id, fields and a status that becomes ACTIVE after some polls."""

    def __init__(self, sid: str, fields: dict[str, Any], build_polls: int, error: bool) -> None:
        self.id = sid
        self.fields = dict(fields)
        self.polls_left = build_polls
        self.error = error
        self.suspended = False

    @property
    def status(self) -> str:
        if self.error:
            return "ERROR"
        if self.suspended:
            return "SUSPENDED"
        return "BUILD" if self.polls_left > 0 else "ACTIVE"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, **self.fields}


class FakeServers:
    """``client.servers``: create/get/delete/update, with injectable faults."""

    def __init__(self, clock: Any = None, latency: float = 0.0) -> None:
        self.items: dict[str, FakeServer] = {}
        self.calls: list[tuple[str, Any]] = []
        self.counter = 0
        self.build_polls = 0
        self.fail_next_creates = 0  # created servers go to ERROR
        self.delete_conflicts = 0  # delete raises Conflict this many times
        self.clock = clock
        self.latency = latency

    def _charge(self) -> None:
        if self.clock is not None and self.latency:
            self.clock.charge(self.latency)

    def create(self, **fields: Any) -> FakeServer:
        self._charge()
        self.counter += 1
        sid = f"srv-{self.counter}"
        error = self.fail_next_creates > 0
        if error:
            self.fail_next_creates -= 1
        server = FakeServer(sid, fields, self.build_polls, error)
        self.items[sid] = server
        self.calls.append(("create", sid))
        return server

    def get(self, sid: str) -> FakeServer:
        self._charge()
        self.calls.append(("get", sid))
        try:
            server = self.items[sid]
        except KeyError:
            raise exception.NotFound(f"Server {sid} could not be found") from None
        if server.polls_left > 0:
            server.polls_left -= 1
        return server

    def delete(self, sid: str) -> None:
        self._charge()
        self.calls.append(("delete", sid))
        if self.delete_conflicts > 0:
            self.delete_conflicts -= 1
            raise exception.Conflict(f"Server {sid} is busy")
        if sid not in self.items:
            raise exception.NotFound(f"Server {sid} could not be found")
        del self.items[sid]

    def update(self, sid: str, **fields: Any) -> None:
        self.calls.append(("update", sid))
        self.items[sid].fields.update(fields)


class FakeCompute:
    """The compute client: only ``servers``."""

    def __init__(self, clock: Any = None, latency: float = 0.0) -> None:
        self.servers = FakeServers(clock, latency)


class Server(Resource):
    """A server plug-in written Heat style (synchronous handlers)."""

    default_client_name = "compute"
    entity = "servers"
    properties_schema = {
        "name": p.Schema(p.Schema.STRING, "Name.", update_allowed=True),
        "flavor": p.Schema(p.Schema.STRING, "Flavor.", default="small"),
        "image": p.Schema(p.Schema.STRING, "Image.", immutable=True),
        "tags": p.Schema(p.Schema.LIST, "Tags.", update_allowed=True),
    }

    def handle_create(self):
        server = self.client().servers.create(
            name=self.properties["name"] or self.physical_resource_name(),
            flavor=self.properties["flavor"],
        )
        self.resource_id_set(server.id)
        return server.id

    def check_create_complete(self, sid):
        server = self.client().servers.get(sid)
        if server.status == "ERROR":
            raise exception.ResourceInError(status_reason="boot failed")
        return server.status == "ACTIVE"

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        if prop_diff:
            self.client().servers.update(self.resource_id, **prop_diff)


def make_context(**kwargs: Any) -> tuple[LocalContext, FakeCompute]:
    """Return a LocalContext with a FakeCompute registered as 'compute'."""
    clock = kwargs.pop("clock", None) or CounterClock()
    latency = kwargs.pop("latency", 0.0)
    compute = FakeCompute(clock, latency)
    ctx = LocalContext(
        {"compute": compute},
        clock=clock,
        stack=kwargs.pop("stack", StackInfo(name="demo", id="stack-1")),
        **kwargs,
    )
    return ctx, compute


def make(
    cls: type[Resource] = Server,
    name: str = "web",
    props: dict | None = None,
    ctx: LocalContext | None = None,
    **defn_kwargs: Any,
) -> Resource:
    """Build a resource of *cls* named *name* with a fresh context unless given."""
    if ctx is None:
        ctx, _ = make_context()
    defn = ResourceDefinition(name, "Test::Server", properties=props or {}, **defn_kwargs)
    return cls(name, defn, ctx)


def states(ctx: LocalContext) -> list[str]:
    """The context's events as 'ACTION_STATUS' strings."""
    return [f"{e.action}_{e.status}" for e in ctx.events]


def run(coro: Any) -> Any:
    """Run *coro* on a fresh event loop."""
    return asyncio.run(coro)


def test_fake_server_builds_after_polls():
    compute = FakeCompute()
    compute.servers.build_polls = 2
    s = compute.servers.create(name="a")
    assert [compute.servers.get(s.id).status for _ in range(3)] == ["BUILD", "ACTIVE", "ACTIVE"]


def test_fake_servers_raise_typed_errors():
    compute = FakeCompute()
    with pytest.raises(exception.NotFound, match="srv-9"):
        compute.servers.get("srv-9")
    compute.servers.delete_conflicts = 1
    with pytest.raises(exception.Conflict):
        compute.servers.delete("srv-1")
