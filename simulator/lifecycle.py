"""Stack lifecycle plug-ins: the per-engine registry and the pre/post calls.

A :class:`LifecycleRegistry` belongs to one :class:`simulator.world.World`
(there is no module-level cache, so two engines never share plug-ins). It is
filled from four places, each giving the plug-in a *registration name*:

* the entry-point group ``plugsim.stack_lifecycle_plugins`` (the entry
  point's name), loaded when the world opens;
* Python: ``World(lifecycle_plugins=[...])`` or :meth:`LifecycleRegistry.register`
  (``module.QualName`` of the class unless a name is given);
* engine configuration: ``--lifecycle-plugin module:Class`` on the CLI and the
  ``PLUGSIM_LIFECYCLE_PLUGINS`` environment variable (``module.Class`` names);
* ``lifecycle_plugins: [module:Class]`` in the ``plugsim.yaml`` next to a
  template; those are stored with the stack and apply to that stack only.

Plug-ins run in ascending ``get_ordinal()`` order, ties broken by registration
name. The ordinal is read once, at registration: raising or returning
anything but an ``int`` is a :class:`sdk.exception.ConfigurationError` naming
the plug-in.

:func:`guard` wraps one stack action: pre-ops (a failure stops there, runs
the post-ops of the plug-ins already processed in reverse order with
``is_stack_failure=True`` and fails the action without touching a resource),
the action itself, then the post-ops on every path. Plug-ins see a
:class:`~simulator.lifecycle_view.LifecycleStack` built fresh for every call,
so nothing a plug-in does to it reaches the engine; in strict mode the view is
fingerprinted before and after each call and a change to anything but
``status``/``status_reason`` fails the action naming the plug-in and field.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sdk import _escapes, exception
from sdk._entry_points import group_entry_points
from simulator.events import Event
from simulator.heat_compat.lifecycle_import import (
    HEAT_ENTRY_POINT_GROUP,
    heat_aware,
    import_heat_aware,
)
from simulator.lifecycle_view import LifecycleStack, changed_field, stack_data
from simulator.project_config import LIFECYCLE_PLUGINS

if TYPE_CHECKING:
    from simulator.stack import Stack

#: The entry-point group lifecycle plug-ins are published under.
ENTRY_POINT_GROUP = "plugsim.stack_lifecycle_plugins"
#: The ``resource_type`` of the events that record plug-in calls.
LIFECYCLE_TYPE = "plugsim::LifecyclePlugin"
#: The environment variable listing plug-ins (``module:Class``, space or comma separated).
ENV_PLUGINS = "PLUGSIM_LIFECYCLE_PLUGINS"
#: The environment variable that turns strict mode on (``1``, ``true``, ``yes``).
ENV_STRICT = "PLUGSIM_STRICT_LIFECYCLE"

PRE_OK, PRE_FAILED = "PRE_OP_COMPLETE", "PRE_OP_FAILED"
POST_OK, POST_FAILED = "POST_OP_COMPLETE", "POST_OP_FAILED"
WARNING = "WARNING"

_METHODS = ("do_pre_op", "do_post_op", "get_ordinal")


@dataclass(frozen=True)
class RegisteredPlugin:
    """One registered plug-in: its name, instance, ordinal and where it came from."""

    name: str
    plugin: Any
    ordinal: int
    origin: str

    @property
    def sort_key(self) -> tuple[int, str]:
        """``(ordinal, name)``: the calling order."""
        return (self.ordinal, self.name)


def _config_error(name: str, message: str) -> exception.ConfigurationError:
    return exception.ConfigurationError(f"lifecycle plug-in {name}: {message}")


def resolve_spec(spec: str) -> Any:
    """Import ``module:Class`` (or ``module:Outer.Inner``) and return the object."""
    if not isinstance(spec, str) or not re.fullmatch(r"[\w.]+:[\w.]+", spec.strip()):
        raise exception.ConfigurationError(
            f"lifecycle plug-in {spec!r}: expected 'module:Class' (e.g. mypkg.policies:RackAffinity)"
        )
    module_name, _, attr_path = spec.strip().partition(":")
    try:
        obj: Any = import_heat_aware(module_name)
    except Exception as ex:
        raise _config_error(
            spec, f"cannot import module {module_name}: {type(ex).__name__}: {ex}"
        ) from None
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise _config_error(
                spec, f"module {module_name} has no attribute {attr_path}"
            ) from None
    return obj


def spec_name(spec: str) -> str:
    """The registration name of ``module:Class``: ``module.Class``."""
    return spec.strip().replace(":", ".")


def parse_spec_list(text: str | None) -> list[str]:
    """Split ``'a:B, c:D e:F'`` (commas and/or whitespace) into specs."""
    return [item for item in re.split(r"[\s,]+", text or "") if item]


class LifecycleRegistry:
    """The lifecycle plug-ins of one engine, kept in calling order."""

    def __init__(
        self,
        plugins: Iterable[Any] = (),
        *,
        entry_points: bool = True,
        strict: bool = False,
        environ: bool = True,
    ) -> None:
        self.strict = bool(strict)
        self._plugins: dict[str, RegisteredPlugin] = {}
        self._stack_plugins: dict[str, RegisteredPlugin] = {}
        if entry_points:
            self.load_entry_points()
        if environ:
            for spec in parse_spec_list(os.environ.get(ENV_PLUGINS)):
                self.register_spec(spec, origin="environment")
            if os.environ.get(ENV_STRICT, "").strip().lower() in ("1", "true", "yes", "on"):
                self.strict = True
        for item in plugins:
            if isinstance(item, str):
                self.register_spec(item)
            else:
                self.register(item)

    # -- registration ----------------------------------------------------------

    def register(self, plugin: Any, name: str | None = None, *, origin: str = "python") -> str:
        """Register a plug-in class or instance; return its registration name.

        A class is instantiated without arguments. The name defaults to
        ``module.QualName`` of the class.
        """
        instance = self._instantiate(plugin, name)
        cls = type(instance)
        reg_name = name or f"{cls.__module__}.{cls.__qualname__}"
        if reg_name in self._plugins:
            raise _config_error(reg_name, "is registered twice")
        self._plugins[reg_name] = self._entry(reg_name, instance, origin)
        return reg_name

    def register_spec(self, spec: str, *, origin: str = "configuration") -> str:
        """Register the plug-in named by ``module:Class`` as ``module.Class``; return that name."""
        return self.register(resolve_spec(spec), spec_name(spec), origin=origin)

    def load_entry_points(self) -> list[str]:
        """Register every plug-in of the entry-point groups (plugsim's, then Heat's) by name.

        A plug-in of Heat's group ``heat.stack_lifecycle_plugins`` whose module
        imports ``heat`` is imported through the Heat compatibility layer.
        """
        names: list[str] = []
        eps = [
            ep
            for group in (ENTRY_POINT_GROUP, HEAT_ENTRY_POINT_GROUP)
            for ep in group_entry_points(group)
        ]
        for ep in eps:
            if ep.name in self._plugins:
                continue
            try:
                with heat_aware(ep.value.partition(":")[0].strip()):
                    obj = ep.load()
            except Exception as ex:
                raise _config_error(
                    ep.name, f"entry point {ep.value} cannot be loaded: {type(ex).__name__}: {ex}"
                ) from None
            names.append(self.register(obj, ep.name, origin="entry point"))
        return names

    def unregister(self, name: str) -> None:
        """Remove the plug-in registered as *name*."""
        if self._plugins.pop(name, None) is None:
            raise exception.EntityNotFound(entity="Lifecycle plug-in", name=name)

    @staticmethod
    def _instantiate(plugin: Any, name: str | None) -> Any:
        label = name or getattr(plugin, "__qualname__", None) or type(plugin).__qualname__
        if inspect.isclass(plugin):
            try:
                plugin = plugin()
            except Exception as ex:
                raise _config_error(
                    label, f"cannot be instantiated: {type(ex).__name__}: {ex}"
                ) from None
        missing = [m for m in _METHODS if not callable(getattr(plugin, m, None))]
        if missing:
            raise _config_error(
                label,
                f"is not a lifecycle plug-in (no {', '.join(missing)}); "
                "derive it from sdk.lifecycle_plugin.LifecyclePlugin",
            )
        return plugin

    @staticmethod
    def _entry(name: str, instance: Any, origin: str) -> RegisteredPlugin:
        return RegisteredPlugin(name, instance, ordinal_of(name, instance), origin)

    # -- queries -----------------------------------------------------------------

    def ordered(self) -> list[RegisteredPlugin]:
        """The engine's plug-ins in calling order."""
        return sorted(self._plugins.values(), key=lambda p: p.sort_key)

    def names(self) -> list[str]:
        """Registration names in calling order."""
        return [p.name for p in self.ordered()]

    def __len__(self) -> int:
        return len(self._plugins)

    def for_stack(self, stack: Stack) -> list[RegisteredPlugin]:
        """The plug-ins that run for *stack*: the engine's plus the stack's project ones."""
        found = dict(self._plugins)
        for spec in stack.record.doc.get(LIFECYCLE_PLUGINS) or []:
            entry = self._stack_plugins.get(spec)
            if entry is None:
                instance = self._instantiate(resolve_spec(spec), spec)
                cls = type(instance)
                entry = self._entry(
                    f"{cls.__module__}.{cls.__qualname__}", instance, "plugsim.yaml"
                )
                self._stack_plugins[spec] = entry
            found.setdefault(entry.name, entry)
        return sorted(found.values(), key=lambda p: p.sort_key)


def ordinal_of(name: str, plugin: Any) -> int:
    """Call ``plugin.get_ordinal()``; anything but an int is a ConfigurationError."""
    try:
        value = plugin.get_ordinal()
    except Exception as ex:
        raise _config_error(name, f"get_ordinal() raised {type(ex).__name__}: {ex}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _config_error(name, f"get_ordinal() returned {value!r}; it must return an int")
    return value


# -- calling ------------------------------------------------------------------------


class LifecycleContext:
    """The ``context`` argument of plug-in calls: virtual time, clients, warnings.

    It gives a plug-in what it may use of the world without handing it the
    engine: :meth:`now`, :meth:`client_plugin` (the fake cloud's services) and
    :meth:`warn`, which records a ``WARNING`` event under the plug-in's name.
    """

    def __init__(self, stack: Stack, plugin_name: str, action: str) -> None:
        self._stack = stack
        self.plugin_name = plugin_name
        self.action = action
        self.project_id = stack.world.project_id
        self.warnings: list[str] = []

    def now(self) -> float:
        """The world's virtual time in seconds."""
        return self._stack.world.clock.now()

    def client_plugin(self, name: str) -> Any:
        """Return the fake cloud's client plug-in for service *name*."""
        return self._stack.world.client_plugin(name)

    def warn(self, message: str) -> None:
        """Record a WARNING event for the stack under this plug-in's name."""
        self.warnings.append(str(message))
        record_event(self._stack, self.plugin_name, self.action, WARNING, str(message))


def record_event(stack: Stack, plugin: str, action: str, status: str, reason: str) -> Event:
    """Record one lifecycle event for *stack* (virtual time, store, listeners)."""
    world = stack.world
    ev = Event(
        0,
        stack.id,
        stack.name,
        plugin,
        LIFECYCLE_TYPE,
        None,
        action,
        status,
        reason,
        world.clock.now(),
    )
    ev = world.store.add_event(ev)
    world.emit(ev)
    return ev


def _describe(ex: BaseException) -> str:
    text = str(ex)
    return f"{type(ex).__name__}: {text}" if text else type(ex).__name__


class _Views:
    """Builds fresh plug-in views of a stack (and of a new definition) for each call."""

    def __init__(self, stack: Stack, current: Any) -> None:
        self.stack = stack
        self.current = current

    def make(self) -> tuple[LifecycleStack, LifecycleStack | None]:
        stack_view = LifecycleStack(stack_data(self.stack))
        if self.current is None:
            return stack_view, None
        return stack_view, LifecycleStack(stack_data(self.stack, self.current))


def _call(
    stack: Stack,
    entry: RegisteredPlugin,
    views: _Views,
    strict: bool,
    method: str,
    action: str,
    **extra: Any,
) -> str | None:
    """Call one plug-in method; return a failure message or None."""
    view, current = views.make()
    before = (view.fingerprint(), current.fingerprint() if current is not None else None)
    ctx = LifecycleContext(stack, entry.name, action)
    try:
        result = getattr(entry.plugin, method)(ctx, view, current, action, **extra)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            return f"{method} returned an awaitable; lifecycle plug-in methods are synchronous"
    except BaseException as ex:
        contained = _escapes.contain(ex, entry.plugin, method)
        if contained is not None:
            return str(contained)
        if not isinstance(ex, Exception):
            raise
        return _describe(ex) if not str(ex) or method == "do_post_op" else str(ex)
    if strict:
        for label, obj, old in (("stack", view, before[0]), ("current_stack", current, before[1])):
            if obj is None:
                continue
            where = changed_field(old, obj.fingerprint())
            if where is not None:
                return (
                    f"Lifecycle plug-in {entry.name} modified {label} in {method}: "
                    f"{where} changed (plug-ins must not change the stack)"
                )
    return None


def heat_written(plugins: list[RegisteredPlugin]) -> bool:
    """True when every plug-in is written against Heat (``heat.engine.lifecycle_plugin``):
    the stack's plug-ins then run with Heat 27's semantics (see :func:`run_post_ops`)."""
    from simulator.heat_compat.lifecycle import LifecyclePlugin as HeatLifecyclePlugin

    return bool(plugins) and all(isinstance(p.plugin, HeatLifecyclePlugin) for p in plugins)


def run_pre_ops(
    stack: Stack, action: str, plugins: list[RegisteredPlugin], strict: bool, current: Any = None
) -> str | None:
    """Run the pre-ops in order; on a failure undo the processed ones and return the reason.

    The processed plug-ins' post-ops get ``is_stack_failure=True`` in reverse order; Heat
    27 calls them in calling order and stops at one that raises, and so does plugsim for
    Heat-written plug-ins.
    """
    views = _Views(stack, current)
    done: list[RegisteredPlugin] = []
    heat = heat_written(plugins)
    for entry in plugins:
        failure = _call(stack, entry, views, strict, "do_pre_op", action)
        if failure is None:
            record_event(stack, entry.name, action, PRE_OK, "")
            done.append(entry)
            continue
        record_event(stack, entry.name, action, PRE_FAILED, failure)
        for undo in done if heat else reversed(done):
            if _post_one(stack, undo, views, strict, action, True) is not None and heat:
                break
        return failure or f"Lifecycle plug-in {entry.name} refused {action}"
    return None


def _post_one(
    stack: Stack,
    entry: RegisteredPlugin,
    views: _Views,
    strict: bool,
    action: str,
    failed: bool | None,
) -> str | None:
    """One post-op; *failed* None calls it without ``is_stack_failure`` (as Heat 27 does
    after an action, so the plug-in sees its own default)."""
    extra = {} if failed is None else {"is_stack_failure": failed}
    failure = _call(stack, entry, views, strict, "do_post_op", action, **extra)
    flag = "is_stack_failure not passed" if failed is None else f"is_stack_failure={failed}"
    if failure is None:
        record_event(stack, entry.name, action, POST_OK, flag)
        return None
    record_event(stack, entry.name, action, POST_FAILED, f"{flag}; {failure}")
    return f"lifecycle plug-in {entry.name} post-op failed: {failure}"


def run_post_ops(
    stack: Stack,
    action: str,
    plugins: list[RegisteredPlugin],
    strict: bool,
    failed: bool,
    current: Any = None,
) -> list[str]:
    """Run every post-op in order (all of them, even after one raised); return the failures.

    Heat-written plug-ins (:func:`heat_written`) run as Heat 27 runs them: called without
    ``is_stack_failure`` (so a failed action reads as their default, False), and a post-op
    that raises is recorded (a ``POST_OP_FAILED`` event) and skips the later post-ops
    without failing the stack: nothing is returned.
    """
    views = _Views(stack, current)
    out: list[str] = []
    heat = heat_written(plugins)
    for entry in plugins:
        failure = _post_one(stack, entry, views, strict, action, None if heat else failed)
        if failure is not None:
            if heat:
                break
            out.append(failure)
    return out


def _plugins_of(stack: Stack) -> tuple[list[RegisteredPlugin], bool]:
    registry: LifecycleRegistry | None = getattr(stack.world, "lifecycle", None)
    if registry is None:
        return [], False
    return registry.for_stack(stack), registry.strict


def _ended_ok(stack: Stack, action: str) -> bool:
    return (stack.action, stack.status) == (action, "COMPLETE")


def _report_post_failures(stack: Stack, action: str, failures: list[str]) -> None:
    if failures:
        reason = "; ".join([stack.status_reason, *failures]) if stack.status_reason else ""
        stack.state_set(action, "FAILED", reason or "; ".join(failures))


async def guard(
    stack: Stack,
    action: str,
    body: Callable[[], Awaitable[Any]],
    *,
    current: Any = None,
) -> bool | None:
    """Run *body* as the stack's *action* between the lifecycle plug-ins' pre- and post-ops.

    *current* is the new definition (update, restore, rollback), passed to
    plug-ins as ``current_stack``. Returns None when a pre-op vetoed the
    action (the stack is then ``<ACTION>_FAILED`` with the plug-in's message),
    else whether the action ended ``<ACTION>_COMPLETE``.
    """
    plugins, strict = _plugins_of(stack)
    if not plugins:
        await body()
        return _ended_ok(stack, action)
    vetoed = run_pre_ops(stack, action, plugins, strict, current)
    if vetoed is not None:
        stack.state_set(action, "FAILED", vetoed)
        return None
    failed = True
    try:
        await body()
        failed = not _ended_ok(stack, action)
    finally:
        failures = run_post_ops(stack, action, plugins, strict, failed, current)
        _report_post_failures(stack, action, failures)
    return not failed and not failures


def guard_sync(stack: Stack, action: str, body: Callable[[], Any]) -> tuple[bool | None, Any]:
    """The synchronous :func:`guard` (abandon): returns (outcome, body's result)."""
    plugins, strict = _plugins_of(stack)
    if not plugins:
        return True, body()
    vetoed = run_pre_ops(stack, action, plugins, strict)
    if vetoed is not None:
        stack.state_set(action, "FAILED", vetoed)
        return None, None
    failed = True
    try:
        result = body()
        failed = not _ended_ok(stack, action)
    finally:
        failures = run_post_ops(stack, action, plugins, strict, failed)
        _report_post_failures(stack, action, failures)
    return (not failed and not failures), result


def pre_cancel(stack: Stack) -> tuple[str | None, list[RegisteredPlugin]]:
    """Run the CANCEL pre-ops; return (veto reason or None, the plug-ins to post-op later)."""
    plugins, strict = _plugins_of(stack)
    if not plugins:
        return None, []
    vetoed = run_pre_ops(stack, "CANCEL", plugins, strict)
    return vetoed, ([] if vetoed is not None else plugins)


def post_cancel(stack: Stack, plugins: list[RegisteredPlugin], cancelled: bool) -> None:
    """Run the CANCEL post-ops once the update ended (``is_stack_failure`` unless cancelled)."""
    if not plugins:
        return
    _, strict = _plugins_of(stack)
    failures = run_post_ops(stack, "CANCEL", plugins, strict, not cancelled)
    if failures:
        stack.state_set(stack.action, "FAILED", "; ".join([stack.status_reason, *failures]))


def _cancel_pre_ops(stack: Stack) -> str | None:
    if stack.interrupting:
        return None
    vetoed, plugins = pre_cancel(stack)
    stack.cancel_plugins = plugins
    return vetoed


def cancel_update(stack: Stack, rollback: bool = True) -> None:
    """Cancel *stack*'s update running in this process (a user ``stack cancel``).

    Without *rollback* the stack stays ``UPDATE_FAILED`` where the cancel
    left it (Heat's ``cancel_without_rollback``).

    The lifecycle plug-ins' CANCEL pre-ops run first; a veto raises
    :class:`sdk.exception.PlugsimError` with the plug-in's message and the
    update goes on. Their post-ops run when the update has ended.
    """
    if not stack.updating:
        raise exception.NotSupportedAction(
            f"Cancelling update when stack is {stack.state} is not supported"
        )
    vetoed = _cancel_pre_ops(stack)
    if vetoed is not None:
        raise exception.PlugsimError(f"Stack CANCEL failed: {vetoed}")
    stack.interrupt_update(rollback=rollback)


def cancel_quietly(stack: Stack, rollback: bool = True) -> None:
    """Cancel if an update is running (and no lifecycle pre-op vetoes); else do nothing."""
    if stack.updating and _cancel_pre_ops(stack) is None:
        stack.interrupt_update(rollback=rollback)
