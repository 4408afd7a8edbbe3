"""oracles.recording on a Heat group's blocking handler (issue #30: a false alarm on ResourceGroup).

The compat layer runs a Heat stack resource's ``handle_update`` as a coroutine in turns with the
engine, wrapping it once per class that defines it. The oracles' spy subclass defines it again;
it must stay that coroutine (not be wrapped a second time), so ``check_update_complete`` gets
the handler's checkers rather than an un-awaited coroutine.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from sdk.testing import oracles
from simulator.heat_compat.stack_resource import HeatStackResource


class _Clock:
    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(0)


class Group(HeatStackResource):
    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> list[str]:
        if "bad" in prop_diff:
            raise KeyError("bad")
        return ["checker"]


def _run(cls: type, diff: dict[str, Any]) -> Any:
    me = SimpleNamespace(context=SimpleNamespace(clock=_Clock()))
    return asyncio.run(cls.handle_update(me, None, None, diff))


def test_spy_of_a_blocking_group_handler_returns_its_result() -> None:
    record = oracles.HandlerRecord()
    spied = oracles.recording(Group, record)
    assert _run(spied, {"count": 2}) == ["checker"]
    assert record.calls == ["handle_update"]


def test_spy_of_a_blocking_group_handler_records_its_crash() -> None:
    record = oracles.HandlerRecord()
    spied = oracles.recording(Group, record)
    with pytest.raises(KeyError):  # the handler's own error comes through the spy
        _run(spied, {"bad": 1})
    assert [(m, type(ex).__name__) for m, ex, _ in record.raised] == [("handle_update", "KeyError")]


def test_a_verdict_of_a_spied_plugin_names_the_plugins_own_handler() -> None:
    # the retry oracle runs the plug-in through a recording subclass: the verdict's handler field
    # must still point at the plug-in's file and line, not at the spy's wrapper in oracles.py
    import inspect

    from sdk.testing.verdict import handler_site, last_handler
    from tests.testing.sample_plugins import SampleServer

    spied = oracles.recording(SampleServer, oracles.HandlerRecord())
    line = inspect.getsourcelines(SampleServer.handle_create)[1]
    expected = f"handle_create (sample_plugins.py:{line})"
    assert handler_site(spied, "handle_create") == expected
    assert last_handler(spied, "CREATE", "COMPLETE") == expected
