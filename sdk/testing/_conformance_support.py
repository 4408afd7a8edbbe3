"""Private helpers of :mod:`sdk.testing.conformance`: declaration checks, spies, fault rules."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sdk import exception
from sdk.resource import Resource

TRANSIENT_KINDS = ("throttle", "conflict", "eventual_consistency", "drift")


class ConformanceDeclarationError(exception.PlugsimError):
    """A conformance class is missing an attribute or declares a wrong one."""


def declared(cls: type, name: str) -> bool:
    """True when *cls* (not ``Resource`` itself) defines method *name*."""
    found = getattr(cls, name, None)
    return callable(found) and getattr(Resource, name, None) is not found


def resolve_type(type_name: str) -> type[Resource]:
    """Return the installed plug-in class registered as *type_name*."""
    from simulator.type_sources import world_registry

    mapping = world_registry().plugins()
    if type_name not in mapping:
        raise ConformanceDeclarationError(
            f"resource_type {type_name!r} is not an installed resource type "
            f"(set resource_class to the plug-in class instead)"
        )
    plugin = mapping[type_name]
    if not issubclass(plugin, Resource):
        raise ConformanceDeclarationError(
            f"resource_type {type_name!r} is registered to {plugin!r}, not a Resource subclass"
        )
    return plugin


def validate_declaration(cls: type) -> None:
    """Check a conformance class's attributes; raise naming the first problem."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    plugin = cls.__dict__.get("resource_class", getattr(cls, "resource_class", None))
    type_name = getattr(cls, "resource_type", None)
    if plugin is None and type_name is None:
        raise ConformanceDeclarationError(
            f"{where}: missing required attribute 'resource_class' (the plug-in class) "
            f"or 'resource_type' (its registered type name)"
        )
    if plugin is not None and not (isinstance(plugin, type) and issubclass(plugin, Resource)):
        raise ConformanceDeclarationError(
            f"{where}: attribute 'resource_class' must be a subclass of sdk.resource.Resource, "
            f"got {plugin!r}"
        )
    if getattr(cls, "valid_properties", None) is None:
        raise ConformanceDeclarationError(
            f"{where}: missing required attribute 'valid_properties' "
            "(a property map the plug-in accepts)"
        )
    for attr in (
        "valid_properties",
        "update_in_place",
        "update_replace",
        "immutable_update",
        "companions",
    ):
        value = getattr(cls, attr, None)
        if value is not None and not isinstance(value, Mapping):
            raise ConformanceDeclarationError(
                f"{where}: attribute '{attr}' must be a mapping of property values, "
                f"got {type(value).__name__}"
            )
    survives = getattr(cls, "survives", None)
    for kind in survives or ():
        if kind not in TRANSIENT_KINDS:
            raise ConformanceDeclarationError(
                f"{where}: attribute 'survives': unknown fault kind {kind!r} "
                f"(known: {', '.join(TRANSIENT_KINDS)})"
            )


class Spy:
    """Wraps a bound plug-in method and records each call's arguments."""

    def __init__(self, inner: Callable[..., Any]) -> None:
        self.inner = inner
        self.calls: list[tuple[Any, ...]] = []

    def __call__(self, *args: Any) -> Any:
        self.calls.append(args)
        return self.inner(*args)


def fail_rule(service: str, operation: str, nth: int, label: str) -> dict[str, Any]:
    """A fault rule failing the *nth* ``service.operation`` call with a 500 naming *label*."""
    return {
        "name": label,
        "service": service,
        "operation": operation,
        "nth": nth,
        "effect": {"type": "error", "status": 500, "message": f"injected failure of {label}"},
    }


def numbered_calls(trace: Sequence[Any]) -> list[tuple[str, str, int]]:
    """``(service, operation, nth)`` of each call; runs of one repeated call keep ends only."""
    seen: dict[tuple[str, str], int] = {}
    out: list[tuple[str, str, int]] = []
    for index, entry in enumerate(trace):
        key = (entry.service, entry.operation)
        seen[key] = seen.get(key, 0) + 1
        prev = trace[index - 1] if index else None
        nxt = trace[index + 1] if index + 1 < len(trace) else None
        same_prev = prev is not None and (prev.service, prev.operation) == key
        same_next = nxt is not None and (nxt.service, nxt.operation) == key
        if same_prev and same_next:
            continue
        out.append((key[0], key[1], seen[key]))
    return out


# -- verdicts: what a failed conformance check says (sdk.testing.verdict) ------------------------


def _plugin_of(h: Any) -> Any:
    try:
        return h.resource
    except Exception:  # noqa: BLE001 - a stack that never made its resource
        return None


def expect_state(h: Any, want: str) -> None:
    """Raise a :class:`~sdk.testing.verdict.VerdictFailure` unless the stack of *h* is in *want*.

    A stack that timed out names the handler that was still polling, the virtual time and the
    resource's and its cloud entity's last status.
    """
    __tracebackhide__ = True  # pytest shows the verdict, not this helper's source
    state = h.state
    if state == want:
        return
    from sdk.testing.verdict import VerdictFailure, observe

    reason = h.status_reason
    res = _plugin_of(h)
    timed_out = "timed out" in reason.lower()
    action = want.rsplit("_", 1)[0].lower()
    if timed_out:
        hint = (
            f"check_{action}_complete never returned True before the stack timeout: compare the "
            "status it waits for with the cloud entity's"
        )
    else:
        hint = f"the {action} failed: {reason}"
    verdict = observe(
        "timeout" if timed_out else "state",
        f"the stack is {state}, expected {want}: {reason}",
        world=h.world,
        resource=res,
        stack=h.name,
        hint=hint,
        replay=getattr(h.env, "replay", ""),
    )
    if not timed_out and not verdict.fault:
        verdict.hint = _refused_made_up(h, res, action) or verdict.hint
    if res is not None and action != "create" and getattr(res, "resource_id", 0) is None:
        from sdk.testing.verdict import handler_site

        maker = handler_site(type(res), "handle_create")
        if maker and declared(type(res), "handle_create"):
            # what failed worked on a resource whose create never recorded its cloud object
            note = f"the resource has no physical id: {maker} never set one"
            lost = _lost_in(res)
            if lost and not lost.startswith("handle_create "):
                note += f" (its create failed in {lost})"
            verdict.handler = f"{verdict.handler}; {note}" if verdict.handler else note
    if timed_out and res is not None:
        from sdk.testing.verdict import handler_site, last_handler

        check = handler_site(type(res), f"check_{action}_complete")
        verdict.handler = check or last_handler(type(res), action.upper(), "FAILED")
        undeleted = _never_asked_to_delete(h, res) if action == "delete" else None
        if undeleted is not None and declared(type(res), "handle_delete"):
            verdict.handler = handler_site(type(res), "handle_delete")
            if check:  # neither asked the cloud to delete: either may be the one to fix
                verdict.handler += f"; {check} polled until the stack timed out"
            verdict.hint = (
                f"handle_delete made no call that deletes {undeleted}, so "
                f"{check or 'the delete'} waited for it until the stack timed out"
            )
    raise VerdictFailure(verdict)


#: HTTP statuses of a cloud refusing what it was sent (bad request, not found, unprocessable)
_REFUSALS = (400, 404, 422)


def _refused_made_up(h: Any, res: Any, action: str) -> str:
    """The hint for a cloud refusing values the kit made up (``""`` when that is not the case).

    ``plugsim conformance`` draws the simplest values a schema allows; a property naming a cloud
    object (a network id, a flavor) then gets one the cloud cannot know, and every test fails the
    same way. The verdict names those values and the options that give real ones.
    """
    cause = getattr(res, "_failure_cause", None)
    status = getattr(cause, "code", None) or getattr(cause, "http_status", None)
    if status not in _REFUSALS:
        return ""
    now = getattr(h, "properties_now", {}) or {}
    # the values the resource had that the kit made up (not a value the user gave the same name)
    held = sorted({name for name, value in getattr(h, "made_up", ()) if now.get(name) == value})
    if not held:
        return ""
    values = ", ".join(f"{name}={now[name]!r}" for name in held)
    give = (
        "--properties FILE (and the resources they name, with --companions FILE)"
        if action == "create"
        else "--updates FILE"
    )
    return (
        f"the cloud refused values the kit made up from the schema ({values}); a property that "
        f"names a cloud object needs a real one: give it with {give}"
    )


def _never_asked_to_delete(h: Any, res: Any) -> str | None:
    """``service/kind id`` of the live cloud object behind *res* when no call ever deleted it."""
    try:
        item = h.world.entity(res.resource_id)
    except Exception:  # noqa: BLE001 - a closed world: nothing more to say
        return None
    history = getattr(getattr(h.world, "cloud", None), "history", None)
    if item is None or history is None:
        return None
    if any(r.op == "delete" for r in history.of(item.kind, item.id, item.service)):
        return None
    return f"{item.service}/{item.kind} {item.id}"


def expect_ready(h: Any, plugin: type) -> None:
    """Raise a verdict when the create of *h* was reported complete before its cloud object was
    ready (:func:`sdk.testing.oracles_cloud.completed_early`), naming ``check_create_complete``."""
    __tracebackhide__ = True  # pytest shows the verdict, not this helper's source
    from sdk.testing import oracles_cloud
    from sdk.testing.verdict import VerdictFailure, handler_site, observe

    problems = oracles_cloud.completed_early(plugin, h.world, h.physical_id)
    if not problems:
        return
    verdict = observe(
        "completion",
        problems[0],
        world=h.world,
        resource=_plugin_of(h),
        stack=h.name,
        hint="check_create_complete must return True only once the cloud object reached the "
        "status it is usable in; poll it until then",
        replay=getattr(h.env, "replay", ""),
        handler=handler_site(plugin, "check_create_complete"),
    )
    raise VerdictFailure(verdict)


def expect_physical_id(h: Any, plugin: type) -> None:
    """Raise a verdict naming ``handle_create`` when the created resource has no physical id."""
    __tracebackhide__ = True  # pytest shows the verdict, not this helper's source
    if h.physical_id is not None:
        return
    from sdk.testing.verdict import VerdictFailure, handler_site, observe

    raise VerdictFailure(
        observe(
            "state",
            "the resource has no physical id after create",
            world=h.world,
            resource=_plugin_of(h),
            stack=h.name,
            hint="handle_create must record the cloud object's id with resource_id_set, or "
            "nothing can find the object again to update or delete it",
            replay=getattr(h.env, "replay", ""),
            handler=handler_site(plugin, "handle_create") or None,
        )
    )


def swallowed(h: Any, label: str) -> None:
    """Raise a verdict: the injected failure of *label* did not fail the create of *h*."""
    __tracebackhide__ = True  # pytest shows the verdict, not this helper's source
    from sdk.testing.verdict import VerdictFailure, observe

    raise VerdictFailure(
        observe(
            "state",
            f"{label} failed but the stack is {h.state}",
            world=h.world,
            resource=_plugin_of(h),
            stack=h.name,
            hint="the create went on past a failed cloud call: a handler caught the error and "
            "carried on (starting over, or ignoring it); let it fail the action instead",
            replay=getattr(h.env, "replay", ""),
        )
    )


def check_clean(*harnesses: Any) -> None:
    """Legal transitions and no leaked entity in the worlds of *harnesses*, or a verdict.

    A leak names each leaked entity, the call that created it and the plug-in handler (file:line)
    that made that call, with the injected fault of the run, if any.
    """
    __tracebackhide__ = True  # pytest shows the verdict, not this helper's source
    from sdk.testing.verdict import VerdictFailure, entity_line, handler_site, observe

    for world in dict.fromkeys(h.world for h in harnesses):
        h = next(x for x in harnesses if x.world is world)
        res = _plugin_of(h)
        replay = getattr(h.env, "replay", "")
        if world.transitions.violations:
            raise VerdictFailure(
                observe(
                    "transition",
                    "; ".join(world.transitions.violations),
                    world=world,
                    resource=res,
                    stack=h.name,
                    hint="a resource moved along a transition Heat never makes "
                    "(sdk.transitions lists the legal ones)",
                    replay=replay,
                )
            )
        leaked = world.leaked()
        if not leaked:
            continue
        cloud = world.cloud
        details = ["leaked:   " + entity_line(cloud, item) for item in leaked]
        faults = cloud.injected_faults()
        plugin = type(res) if res is not None else None
        if faults:
            hint = (
                "an injected fault failed the action after this object was made: record it "
                "(resource_id_set) before the next call can fail, so handle_delete finds it"
            )
        else:
            hint = (
                "handle_delete (or check_delete_complete) ended without removing the object "
                "the create made"
            )
        creators = [
            cloud.history.creator(i.kind, i.id, i.service) for i in leaked if cloud is not None
        ]
        maker = next((c for c in creators if c is not None and c.handler), None)
        verdict = observe(
            "leak",
            "leaked fake-cloud entities: "
            + ", ".join(f"{i.service}/{i.kind} {i.id} ({i.status})" for i in leaked),
            world=world,
            resource=res,
            stack=h.name,
            hint=hint,
            replay=replay,
            details=details,
            handler=handler_site(plugin, "handle_delete") if plugin is not None else None,
        )
        recorded = str(getattr(res, "resource_id", None))
        forgotten = all(i.id != recorded for i in leaked)
        if maker is not None and forgotten and not faults:
            # no leaked object was ever the resource's: the handler that made it never
            # recorded it (resource_id_set), so the delete could not know of it
            verdict.handler = f"{maker.handler} ({maker.site})"
            verdict.hint = (
                f"{maker.handler} made this object but the resource's id never named it "
                "(resource_id_set), so handle_delete could not find it"
            )
        if maker is not None and (faults or not verdict.handler):
            # after an injected fault the object is lost by the handler that made it and did
            # not record it before a later call could fail; without one, by the delete
            verdict.handler = f"{maker.handler} ({maker.site})"
            if faults and plugin is not None:
                lost = _lost_in(res)
                if lost and lost != verdict.handler:
                    verdict.handler += f"; the failure came out of {lost}"
        raise VerdictFailure(verdict)


def _lost_in(res: Any) -> str:
    """The handler the resource's last failure came out of (``""`` when it does not say)."""
    from sdk.testing.verdict import handler_of_exception

    return handler_of_exception(getattr(res, "_failure_cause", None), handlers_only=True)
