"""One format for every failure the kit reports: a :class:`Verdict`.

A verdict says where the bug is, in the same fields whoever found it (a
conformance test, a campaign run, a dynamic lint check)::

    leak: leaked fake-cloud entities: compute/server 3f2a... (ACTIVE)
      path:     stack harness-2, resource 'resource' (Conformance::LeakyServer), action DELETE
      handler:  handle_delete (leaky_plugin.py:31)
      fault:    none injected
      time:     t=42.5s (virtual)
      status:   resource DELETE_COMPLETE; cloud entity compute/server 3f2a... ACTIVE
      leaked:   compute/server 3f2a... 'sample' (ACTIVE) created by call 1 compute.servers.create
                at t=0.4s by handle_create (leaky_plugin.py:22)
      hint:     handle_delete returned without deleting the cloud object its create made
      replay:   python -m pytest test_x.py::TestIt::test_create --plugsim-seed=0

:func:`observe` fills the fields from a test's world and resource;
:class:`VerdictFailure` is the ``AssertionError`` the conformance suite
raises with it, so pytest prints the whole verdict.
"""

from __future__ import annotations

import contextlib
import inspect
import os
from dataclasses import asdict, dataclass, field
from typing import Any

#: The order and labels of the fields a rendered verdict shows.
_FIELDS = (
    ("path", "path"),
    ("handler", "handler"),
    ("fault", "fault"),
    ("time", "time"),
    ("status", "status"),
)


@dataclass
class Verdict:
    """One failure: what broke, where, under which fault, when, and how to see it again."""

    #: the check that failed: ``leak``, ``transition``, ``state``, ``timeout``, ``crash`` ...
    check: str
    #: one line: what went wrong
    summary: str
    #: stack, resource (and its type) and action
    path: str = ""
    action: str = ""
    #: the plug-in handler that ran last, ``handle_delete (plugin.py:31)``
    handler: str = ""
    #: the injected fault of the run, if any: ``compute.servers.create #2: error (rule)``
    fault: str = ""
    #: virtual time of the failure, in seconds
    time: float | None = None
    #: the resource's last ``ACTION_STATUS``
    resource_status: str = ""
    #: the cloud entity behind the resource and its last status (``gone`` once deleted)
    entity_status: str = ""
    #: one line saying what to look at
    hint: str = ""
    #: the command that fails the same way after the run
    replay: str = ""
    #: more lines (each leaked entity with the call and handler that made it ...)
    details: list[str] = field(default_factory=list)

    def render(self, *, include_replay: bool = True) -> str:
        """The verdict as the lines a person reads (see the module docstring); without its replay
        line when the text around it already has one."""
        lines = [f"{self.check}: {self.summary}"]
        values = {
            "path": self.path + (f", action {self.action}" if self.action else ""),
            "handler": self.handler,
            "fault": self.fault or "none injected",
            "time": f"t={self.time:g}s (virtual)" if self.time is not None else "",
            "status": "; ".join(
                part
                for part in (
                    f"resource {self.resource_status}" if self.resource_status else "",
                    f"cloud entity {self.entity_status}" if self.entity_status else "",
                )
                if part
            ),
        }
        for key, label in _FIELDS:
            if values[key]:
                lines.append(f"  {label + ':':<9} {values[key]}")
        for detail in self.details:
            lines.append(f"  {detail}")
        if self.hint:
            lines.append(f"  {'hint:':<9} {self.hint}")
        if self.replay and include_replay:
            lines.append(f"  {'replay:':<9} {self.replay}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (what campaign summaries and reports carry)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        """Rebuild from :meth:`to_dict`."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


class VerdictFailure(AssertionError):
    """An ``AssertionError`` carrying a :class:`Verdict` (its message is the rendered verdict)."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.render())
        self.verdict = verdict


def handler_site(plugin: type | None, name: str) -> str:
    """``name (file.py:LINE)`` of a plug-in method, or ``""`` when the class has none."""
    if plugin is None:
        return ""
    func = getattr(plugin, name, None)
    func = getattr(func, "__func__", func)
    if func is None:
        return ""
    # a kit spy (``oracles.recording``) wraps the handler: name the plug-in's own code (on a
    # __wrapped__ cycle the outermost function is the best there is)
    with contextlib.suppress(ValueError):
        func = inspect.unwrap(func)
    code = getattr(func, "__code__", None)
    if code is None:
        return ""
    try:
        line = inspect.getsourcelines(func)[1]
    except (OSError, TypeError):
        line = code.co_firstlineno
    return f"{name} ({os.path.basename(code.co_filename)}:{line})"


def _declared(plugin: type | None, name: str) -> bool:
    if plugin is None:
        return False
    from sdk.resource import Resource

    found = getattr(plugin, name, None)
    return callable(found) and getattr(Resource, name, None) is not found


def last_handler(plugin: type | None, action: str, status: str) -> str:
    """The plug-in handler that ran last in *action*: the completion check while it polls or after
    it timed out, else the action's handler (``""`` when the plug-in declares neither)."""
    word = action.lower()
    check, handle = f"check_{word}_complete", f"handle_{word}"
    if _declared(plugin, check) and status in ("IN_PROGRESS", "FAILED", "COMPLETE"):
        if status != "COMPLETE" or not _declared(plugin, handle):
            return handler_site(plugin, check)
    if _declared(plugin, handle):
        return handler_site(plugin, handle)
    return ""


def handler_of_exception(exc: BaseException | None, *, handlers_only: bool = False) -> str:
    """``name (file.py:LINE)`` of the plug-in handler an exception came out of, at the line it was
    running (the innermost ``handle_*``/``check_*`` frame of plug-in code in its traceback, else
    the innermost plug-in frame unless *handlers_only*)."""
    from fake_clouds.core.history import is_plugin_frame

    tb = exc.__traceback__ if exc is not None else None
    found = ""
    inner = ""
    while tb is not None:
        frame = tb.tb_frame
        if is_plugin_frame(frame):
            site = f"{frame.f_code.co_name} ({os.path.basename(frame.f_code.co_filename)}:"
            site += f"{tb.tb_lineno})"
            inner = site
            if frame.f_code.co_name.startswith(("handle_", "check_")):
                found = site
        tb = tb.tb_next
    return found or ("" if handlers_only else inner)


def _with_token_source(plugin: type | None, site: str, action: str) -> str:
    """*site* of a ``check_<action>_complete`` that failed, with the ``handle_<action>`` whose
    return value it was polling (what it was given comes from there)."""
    word = action.lower()
    if not word or not site.startswith(f"check_{word}_complete ("):
        return site
    source = handler_site(plugin, f"handle_{word}") if _declared(plugin, f"handle_{word}") else ""
    return f"{site}, polling what {source} returned" if source else site


def describe_fault(cloud: Any) -> str:
    """The last fault injected into *cloud*: ``service.operation #N: effect (rule) at t=Xs``."""
    faults = cloud.injected_faults() if cloud is not None else []
    if not faults:
        return ""
    last = faults[-1]
    nth = sum(
        1
        for t in cloud.trace()
        if (t.service, t.operation) == (last.service, last.operation) and t.time <= last.time
    )
    rule = f" ({last.rule_name})" if last.rule_name else ""
    more = f" [{len(faults)} injected in all]" if len(faults) > 1 else ""
    return f"{last.service}.{last.operation} #{nth}: {last.effect}{rule} at t={last.time:g}s{more}"


def _cloud(world: Any) -> Any:
    cloud = getattr(world, "cloud", None)
    return cloud if hasattr(cloud, "injected_faults") else None


def entity_line(cloud: Any, item: Any) -> str:
    """An inventory item with the call that made it and the handler that made that call."""
    text = f"{item.service}/{item.kind} {item.id} '{item.name}' ({item.status})"
    history = getattr(cloud, "history", None)
    creator = history.creator(item.kind, item.id, item.service) if history is not None else None
    if creator is None:
        return text + " made outside any recorded call"
    return text + f" created by {creator.describe()}"


def entity_status(world: Any, physical_id: Any) -> str:
    """The cloud entity behind *physical_id* and its status now (``gone`` once deleted)."""
    if physical_id is None:
        return ""
    cloud = _cloud(world)
    find = getattr(world, "entity", None)
    item = find(physical_id) if callable(find) else None
    if item is not None:
        return f"{item.service}/{item.kind} {item.id} {item.status}"
    history = getattr(cloud, "history", None)
    if history is not None:
        for record in reversed(history.all()):
            if record.id == str(physical_id):
                return (
                    f"{record.service}/{record.kind} {record.id} gone (last: {record.describe()})"
                )
    return f"{physical_id} (no fake-cloud entity)"


def observe(
    check: str,
    summary: str,
    *,
    world: Any = None,
    resource: Any = None,
    plugin: type | None = None,
    stack: str = "",
    hint: str = "",
    replay: str = "",
    details: list[str] | None = None,
    handler: str | None = None,
) -> Verdict:
    """Build a :class:`Verdict` from a test's world and the resource under test (either may be
    None: the fields that need it stay empty)."""
    verdict = Verdict(check, summary, hint=hint, replay=replay, details=list(details or ()))
    cloud = _cloud(world)
    if world is not None:
        clock = getattr(world, "clock", None)
        verdict.time = round(float(clock.now()), 6) if clock is not None else None
    verdict.fault = describe_fault(cloud)
    if resource is not None:
        state = getattr(resource, "state", None)
        action = str(getattr(state, "action", "") or "")
        status = str(getattr(state, "status", "") or "")
        plugin = plugin or type(resource)
        verdict.action = action
        verdict.resource_status = f"{action}_{status}" if action else ""
        try:
            type_name = resource.type()
        except Exception:  # noqa: BLE001 - a label, never a reason to fail again
            type_name = type(resource).__name__
        where = f"stack {stack}, " if stack else ""
        verdict.path = f"{where}resource '{resource.name}' ({type_name})"
        verdict.entity_status = entity_status(world, getattr(resource, "resource_id", None))
        if handler is None:
            cause = getattr(resource, "_failure_cause", None) if status == "FAILED" else None
            handler = handler_of_exception(cause) or last_handler(plugin, action, status)
            handler = _with_token_source(plugin, handler, action)
        verdict.handler = handler
    elif handler:
        verdict.handler = handler
    if not verdict.handler and cloud is not None:
        records = cloud.history.all()
        if records and records[-1].handler:
            last = records[-1]
            verdict.handler = f"{last.handler} ({last.site})"
    return verdict


def verdict_of_failure(env: Any, exc: BaseException) -> Verdict | None:
    """The verdict of a plugsim test that failed with *exc* (None: it opened no world).

    A :class:`VerdictFailure` carries its own; any other failure (an ``assert`` of the test, an
    exception out of a plug-in) is read against the last resource harness the test made, else its
    last world.
    """
    found = getattr(exc, "verdict", None)
    if isinstance(found, Verdict):
        return found
    harnesses = getattr(env, "harnesses", None) or []
    worlds = getattr(env, "worlds", None) or []
    if not harnesses and not worlds:
        return None
    text = str(exc).strip().splitlines()
    summary = text[0] if text else type(exc).__name__
    if not isinstance(exc, AssertionError):
        summary = f"{type(exc).__name__}: {summary}"
    check = "assertion" if isinstance(exc, AssertionError) else "crash"
    h = harnesses[-1] if harnesses else None
    world = h.world if h is not None else worlds[-1]
    resource = None
    if h is not None:
        try:
            resource = h.resource
        except Exception:  # noqa: BLE001 - a stack that never made its resource
            resource = None
    try:
        verdict = observe(
            check,
            summary,
            world=world,
            resource=resource,
            stack=h.name if h is not None else "",
            replay=getattr(env, "replay", ""),
            handler=handler_of_exception(exc, handlers_only=True) or None,
        )
    except Exception:  # noqa: BLE001 - a closed world: the message stays what it was
        return None
    if not verdict.hint:
        verdict.hint = "the test's own check failed; the fields say what the plug-in did last"
    return verdict
