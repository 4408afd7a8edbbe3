"""The resource base class plug-ins subclass: the per-resource state machine.

See :class:`Resource` for the lifecycle contract.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from sdk import _actions, _escapes, exception, rsrc_defn, transitions
from sdk import attributes as attributes_mod
from sdk import properties as properties_mod
from sdk._attrs import AttributesMixin
from sdk._persistence import PersistenceMixin
from sdk._schemas import class_schemas
from sdk._update import UpdateMixin
from sdk._validation import ValidationMixin
from sdk.clients import ClientPlugin
from sdk.context import ResourceContext, StackInfo
from sdk.support import SupportStatus
from sdk.transitions import ResourceState

__all__ = ["Resource", "ResourceState"]

LOG = logging.getLogger(__name__)


class Resource(PersistenceMixin, ValidationMixin, UpdateMixin, AttributesMixin):
    """Base class of resource plug-ins: one resource of a stack and its state machine.

    **Construction.** ``Resource(name, definition, context, resolver=None)``:
    *definition* is an :class:`sdk.rsrc_defn.ResourceDefinition`, *context*
    the resource's only window on the world (see :mod:`sdk.context`: clients,
    clock, stack info, persistence), *resolver* the engine's function turning
    intrinsic functions into values. The resource starts in ``INIT_COMPLETE``.

    **Actions.** ``create``, ``update``, ``delete``, ``suspend``, ``resume``,
    ``snapshot``, ``check`` and ``adopt`` are coroutines of this class. Each
    one sets ``<ACTION>_IN_PROGRESS``, calls ``handle_<action>(...)``, then
    polls ``check_<action>_complete(token)`` with the handler's return value
    until it returns a true value, and sets ``<ACTION>_COMPLETE``. Handlers and
    checks may be plain methods (Heat style) or ``async def``. No handler
    means there is nothing to do (COMPLETE at once); no check means the action
    is complete when the handler returns. The first check runs right after
    the handler; between two checks the resource sleeps in the context's
    clock, ``context.poll_interval`` seconds at first, half as long again each
    time, at most ``context.max_poll_interval``. After every handler and check
    call the clock is settled, so latency charged by synchronous client calls
    is paid in virtual time.

    **Failures.** Any exception from a handler or check sets
    ``<ACTION>_FAILED`` with the reason ``'<ExceptionClass>: <message>'`` and
    raises :class:`sdk.exception.ResourceFailure` wrapping it. An action asked
    for in a state that does not allow it raises ``ResourceFailure`` without a
    state change (e.g. ``'State DELETE_COMPLETE invalid for suspend'``). Which
    states allow which action is the transition table of :mod:`sdk.transitions`,
    the same table the test kit checks every transition against; the class
    constants ``Resource.CREATE``, ``Resource.COMPLETE`` ... are its names.

    **Retries.** When create fails with :class:`sdk.exception.ResourceInError`
    or an error the client plug-in classifies as a conflict or over-limit, the
    resource deletes what was created (the DELETE action, with its events) and
    creates again, up to :attr:`action_retry_limit` times (the context's
    ``action_retry_limit`` wins when it has one). Delete retries itself the same
    way on conflict and over-limit errors. Before retry *n* (1, 2, ...) the
    resource waits ``2 ** n`` virtual seconds, or the error's ``retry_after``
    when longer. There is no jitter: runs are deterministic.

    **Cancellation.** The engine applies timeouts and cancels by cancelling
    the task running an action (it may first set :attr:`cancel_reason`, e.g.
    ``'Create timed out'``, or call :meth:`cancel`). The resource then calls
    ``handle_<action>_cancel(token)`` if the plug-in defines it (sync or
    async; the token argument is optional), sets ``<ACTION>_FAILED`` with the
    cancel reason (default ``'<Action> cancelled'``) and re-raises
    :class:`asyncio.CancelledError`.

    **Update.** :meth:`update` computes ``prop_diff`` (changed properties
    compared on resolved values, new values, None for removed ones) and
    ``tmpl_diff`` (changed top-level HOT keys of the snippet, lower-case:
    ``properties``, ``metadata``, ``depends_on``, ``deletion_policy``,
    ``update_policy``...). Nothing changed: no-op, no event. Invalid new
    properties or a changed immutable property: ``UPDATE_FAILED`` naming it.
    A changed property that is not ``update_allowed``:
    :class:`sdk.exception.UpdateReplace` before any state change, so the
    engine replaces the resource. Otherwise ``handle_update(json_snippet,
    tmpl_diff, prop_diff)`` runs, with the new definition's HOT snippet as
    ``json_snippet``; the default ``handle_update`` asks for replacement when
    any property changed (the action is then recorded ``UPDATE_COMPLETE``
    with the replacement as reason, as Heat does). A resource that is
    ``*_FAILED``, ``INIT_COMPLETE`` or ``DELETE_COMPLETE`` is always replaced.
    After success :attr:`t` and :attr:`properties` are the new ones and
    :attr:`prev_definition` the old definition; after a failure :attr:`t`
    stays the old definition.

    **Deletion policies.** ``Delete`` runs ``handle_delete`` (the default one
    deletes ``entity`` through ``default_client_name`` and ignores not-found);
    ``Retain`` runs no handler; ``Snapshot`` runs
    ``handle_snapshot_delete(state)`` instead. A resource adopted through
    ``external_id`` is always retained.

    **State and persistence.** :meth:`state_set` reports every transition to
    ``context.state_changed`` (which persists it and records the event before
    returning); :meth:`resource_id_set`, :meth:`data_set` and
    :meth:`data_delete` report to ``context.data_changed``. A resource never
    touches a real clock or the engine's internals.
    """

    #: The property schema: ``{name: sdk.properties.Schema}``.
    properties_schema: ClassVar[Mapping[str, Any]] = {}
    #: The attribute schema: ``{name: sdk.attributes.Schema}`` (``show`` is added).
    attributes_schema: ClassVar[Mapping[str, Any]] = {}
    #: The support status of the resource type.
    support_status: ClassVar[SupportStatus] = SupportStatus()
    #: The client name ``client()`` / ``client_plugin()`` use by default.
    default_client_name: ClassVar[str | None] = None
    #: The client attribute holding this resource's manager (e.g. ``'servers'``),
    #: used by the default ``handle_delete`` and ``_show_resource``.
    entity: ClassVar[str | None] = None
    #: How often create (and delete) are retried on retryable errors.
    action_retry_limit: ClassVar[int] = 2
    #: Extra names allowed to change in place, besides the schema's ``update_allowed``.
    update_allowed_properties: ClassVar[Sequence[str]] = ()
    #: The longest name :meth:`physical_resource_name` returns (None: no limit).
    physical_resource_name_limit: ClassVar[int | None] = 255

    @classmethod
    def implicit_requirements(cls, name: str, stack: Any) -> Iterable[str]:
        """The resources of the same stack that resource *name* of this type must follow although
        none of its properties names them (Heat's ``add_dependencies``).

        For types whose cloud API orders things by itself (a port takes an address from any
        subnet of its network, so it follows them all). *stack* offers ``implementing(type)``
        (names of resources of a type), ``properties(name)`` (values as they compare before the
        stack exists: a ``get_resource`` is the resource's name, a ``get_attr`` None; None when
        they cannot be resolved) and ``requires(name)`` (explicit requirements). A plug-in of
        your own should say what it needs through its properties instead (lint rule PS107).
        """
        return ()

    def __init__(
        self,
        name: str,
        definition: rsrc_defn.ResourceDefinition,
        context: ResourceContext,
        resolver: Callable[[Any], Any] | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise exception.StackValidationFailed(
                f"A resource name must be a non-empty string, not {name!r}", path=["resources"]
            )
        if "/" in name:
            raise exception.StackValidationFailed(
                'Resource name may not contain "/"', path=["resources", name]
            )
        if not isinstance(definition, rsrc_defn.ResourceDefinition):
            raise TypeError(
                f"Resource {name}: definition must be a ResourceDefinition, "
                f"not {type(definition).__name__}"
            )
        self.name = name
        self.context = context
        self._resolver = resolver
        self.t = definition
        #: The definition before the last update attempt (for rollback), or None.
        self.prev_definition: rsrc_defn.ResourceDefinition | None = None
        self.action = self.INIT
        self.status = self.COMPLETE
        self.status_reason = ""
        self.resource_id: Any = None
        #: This resource instance's unique id, given by the engine (a replacement
        #: gets a new one); None outside a stack. Feeds :meth:`physical_resource_name`.
        self.uuid: str | None = None
        self._data: dict[str, Any] = {}
        self._metadata: dict[str, Any] | None = None
        #: Set by the engine before cancelling an action: the FAILED reason to record.
        self.cancel_reason: str | None = None
        #: Errors met while resolving attributes, by attribute name (latest wins).
        self.attribute_errors: dict[str, str] = {}
        self._running: tuple[str, asyncio.Task[Any] | None] | None = None
        try:
            self.properties = self._make_properties(definition)
            #: The definition :attr:`properties` was built from, and that object.
            self._properties_built = (definition, self.properties)
            self.attributes = attributes_mod.Attributes(
                name, class_schemas(self).attributes, self._resolve_any_attribute
            )
        except exception.InvalidSchemaError as ex:
            raise exception.InvalidSchemaError(
                f"Resource plug-in {type(self).__qualname__} ({definition.resource_type}, "
                f"resource {name}): {ex}"
            ) from None

    # --- identity --------------------------------------------------------------

    def __str__(self) -> str:
        return f'{type(self).__name__} "{self.name}"'

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self.state}>"

    def type(self) -> str:
        """Return the resource type name from the definition."""
        return self.t.resource_type

    @property
    def definition(self) -> rsrc_defn.ResourceDefinition:
        """The resource's current definition (read-only; a successful update replaces it)."""
        return self.t

    @property
    def stack(self) -> StackInfo:
        """The :class:`sdk.context.StackInfo` of the stack this resource belongs to."""
        return self.context.stack

    @property
    def external_id(self) -> str | None:
        """The id of the existing physical resource this one adopts, or None."""
        return self.t.external_id

    @property
    def state(self) -> ResourceState:
        """The current ``(action, status)``; ``str()`` gives e.g. ``'CREATE_COMPLETE'``."""
        return ResourceState(self.action, self.status)

    def _make_properties(
        self, definition: rsrc_defn.ResourceDefinition
    ) -> properties_mod.Properties:
        return properties_mod.Properties(
            class_schemas(self).properties,
            definition.properties,
            resolver=self._resolver,
            context=self.context,
            path=["resources", self.name, "properties"],
        )

    # --- clients -----------------------------------------------------------------

    def client_plugin(self, name: str | None = None) -> ClientPlugin:
        """Return the client plug-in *name* (default: :attr:`default_client_name`)."""
        client_name = name or self.default_client_name
        if not client_name:
            raise exception.ConfigurationError(
                f"Resource {self.name} ({self.type()}) has no default_client_name: "
                f"pass a client name, e.g. self.client('compute')"
            )
        return self.context.client_plugin(client_name)

    def client(self, name: str | None = None) -> Any:
        """Return the service client *name* (default: :attr:`default_client_name`)."""
        return self.client_plugin(name).client()

    def _default_client_plugin(self) -> ClientPlugin:
        """The plug-in that classifies errors; a generic one without a default client."""
        if self.default_client_name:
            try:
                return self.context.client_plugin(self.default_client_name)
            except exception.ConfigurationError:
                pass
        return ClientPlugin("default")

    # --- the action recorder -----------------------------------------------------

    @property
    def running_action(self) -> str | None:
        """The action being performed now, or None."""
        return self._running[0] if self._running else None

    def cancel(self, reason: str | None = None) -> bool:
        """Cancel the action in progress, recording *reason* as its FAILED reason.

        Returns True when an action was running and has been asked to stop.
        """
        if not self._running or self._running[1] is None or self._running[1].done():
            return False
        self.cancel_reason = reason
        return self._running[1].cancel()

    def _retry_limit(self) -> int:
        limit = getattr(self.context, "action_retry_limit", None)
        if not isinstance(limit, int) or isinstance(limit, bool):
            limit = self.action_retry_limit
        return max(int(limit), 0)

    def _is_retryable(self, exc: BaseException, *, in_error: bool) -> bool:
        plugin = self._default_client_plugin()
        if in_error and isinstance(exc, exception.ResourceInError):
            return True
        return plugin.is_conflict(exc) or plugin.is_over_limit(exc)

    def _cancelled(self, action: str) -> None:
        reason = self.cancel_reason or f"{action.capitalize()} cancelled"
        self.state_set(action, self.FAILED, reason)

    async def _run_action(
        self,
        action: str,
        body: Callable[[], Awaitable[Any]],
        pre: Callable[[], Any] | None = None,
        expected: tuple[builtins.type[BaseException], ...] = (),
    ) -> Any:
        """Record *action* around *body*: IN_PROGRESS, then COMPLETE or FAILED."""
        self.state_set(action, self.IN_PROGRESS)
        self._running = (action, asyncio.current_task())
        try:
            if pre is not None:
                pre()
            result = await body()
        except asyncio.CancelledError:
            self._cancelled(action)
            raise
        except expected as ex:
            self.state_set(action, self.COMPLETE, str(ex))
            raise
        except BaseException as ex:
            # SystemExit & co. escaping a plug-in outside a handler call: a failure too
            contained = None if isinstance(ex, Exception) else _escapes.contain(ex, self, action)
            if contained is None and not isinstance(ex, Exception):
                raise
            cause = _actions.unwrap(contained or ex)
            self._failure_cause = cause  # what a test kit's verdict reads (the handler's traceback)
            self.state_set(action, self.FAILED, _actions.failure_reason(cause))
            raise exception.ResourceFailure(cause, self, action) from cause
        else:
            self.state_set(action, self.COMPLETE)
            return result
        finally:
            self._running = None
            self.cancel_reason = None

    def _handler(
        self, handler_name: str, check_name: str | None = None, *args: Any
    ) -> Callable[[], Awaitable[Any]]:
        """The body of an action: run ``handle_<handler_name>(*args)``, poll its check."""

        async def body() -> Any:
            return await _actions.run_handler(self, handler_name, check_name or handler_name, args)

        return body

    def _invalid(self, action: str, verb: str) -> exception.ResourceFailure:
        return exception.ResourceFailure(f"State {self.state} invalid for {verb}", self, action)

    def _guard(self, action: str) -> None:
        """Refuse *action* unless the transition table lets it start from the current state."""
        if not transitions.may_start(self.state, action):
            raise self._invalid(action, action.lower())

    async def _sleep(self, seconds: float, action: str) -> None:
        try:
            await self.context.clock.sleep(seconds)
        except asyncio.CancelledError:
            self._cancelled(action)
            raise

    # --- create / adopt ----------------------------------------------------------

    async def create(self) -> None:
        """Create the physical resource (``handle_create`` / ``check_create_complete``).

        Allowed only from ``INIT_COMPLETE``. Validates the properties first
        (a failure is ``CREATE_FAILED``). With an ``external_id`` the resource
        adopts that id instead (ADOPT, then CHECK) and ``handle_create`` never
        runs. Retries as the class docstring describes.
        """
        self._guard(self.CREATE)
        if self.external_id is not None:
            await self._run_action(
                self.ADOPT, self._handler("adopt", None, {"resource_id": self.external_id})
            )
            await self.check()
            return
        limit = self._retry_limit()
        count = {self.CREATE: 0, self.DELETE: 0}
        action = self.CREATE
        first_failure: exception.ResourceFailure | None = None
        last_exc: BaseException | None = None
        while count[self.CREATE] <= limit and count[self.DELETE] <= limit:
            if count[action]:
                await self._sleep(_actions.retry_delay(count[action], last_exc), self.CREATE)
            pre = self.properties.validate if first_failure is None else None
            try:
                await self._run_action(action, self._handler(action.lower()), pre)
            except exception.ResourceFailure as failure:
                exc = failure.exc
                if exc is None or not self._is_retryable(exc, in_error=True):
                    raise
                last_exc = exc
                count[action] += 1
                if action == self.CREATE:
                    action = self.DELETE
                    count[action] = 0
                if first_failure is None:
                    first_failure = failure
                continue
            if action == self.CREATE:
                return
            # The failed physical resource is gone: forget its id and create again.
            self.resource_id_set(None)
            action = self.CREATE
        assert first_failure is not None
        raise first_failure

    async def adopt(self, resource_data: Mapping[str, Any]) -> None:
        """Adopt an existing physical resource (``handle_adopt(resource_data)``)."""
        self._guard(self.ADOPT)
        await self._run_action(self.ADOPT, self._handler("adopt", None, resource_data))

    def handle_adopt(self, resource_data: Mapping[str, Any] | None = None) -> None:
        """Default adopt: take ``resource_id``, ``resource_data`` and ``metadata``."""
        data = resource_data or {}
        resource_id = data.get("resource_id")
        if not resource_id:
            raise ValueError(f"Resource ID was not provided for adopting {self.name}.")
        self.resource_id_set(resource_id)
        extra = data.get("resource_data")
        if isinstance(extra, Mapping):
            for key in sorted(extra, key=str):
                self.data_set(key, extra[key])
        if data.get("metadata") is not None:
            self.metadata_set(data["metadata"])

    # --- delete ------------------------------------------------------------------

    def effective_deletion_policy(self) -> str:
        """The deletion policy that applies: ``Retain`` for an adopted external id."""
        if self.external_id is not None:
            return rsrc_defn.RETAIN
        return self.t.deletion_policy

    async def delete(self) -> None:
        """Delete the physical resource according to the deletion policy.

        Nothing happens (no event) when the resource was never created
        (``INIT_*``) or is already ``DELETE_COMPLETE``.
        """
        if self.state in transitions.NOTHING_THERE:
            return
        self._guard(self.DELETE)
        initial_state = self.state
        policy = self.effective_deletion_policy()

        async def body() -> Any:
            if policy == rsrc_defn.RETAIN:
                return None
            if policy == rsrc_defn.SNAPSHOT:
                return await self._delete_with_retries("snapshot_delete", initial_state)
            return await self._delete_with_retries("delete")

        await self._run_action(self.DELETE, body)

    async def _delete_with_retries(self, handler_name: str, *args: Any) -> Any:
        limit = self._retry_limit()
        attempt = 0
        while True:
            try:
                return await _actions.run_handler(self, handler_name, "delete", args)
            except Exception as ex:
                if attempt >= limit or not self._is_retryable(ex, in_error=False):
                    raise
                attempt += 1
                self.state_set(
                    self.DELETE,
                    self.IN_PROGRESS,
                    f"Retrying delete (attempt {attempt + 1}) after {_actions.failure_reason(ex)}",
                )
                await self.context.clock.sleep(_actions.retry_delay(attempt, ex))

    def handle_delete(self) -> Any:
        """Default delete: ``client().<entity>.delete(resource_id)``, not-found ignored.

        Does nothing unless :attr:`entity` is set and there is a resource id.
        Returns the deleted id (the token for ``check_delete_complete``), or
        None when the resource was already gone.
        """
        if self.entity is None or self.resource_id is None:
            return None
        try:
            getattr(self.client(), self.entity).delete(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return None
        return self.resource_id

    # --- suspend / resume / snapshot / check ---------------------------------------

    async def suspend(self) -> None:
        """Suspend the resource (``handle_suspend`` / ``check_suspend_complete``).

        As in Heat, refused in any ``DELETE_*`` state and in any state that is
        neither COMPLETE nor a SUSPEND state (a failed suspend may be retried).
        """
        self._guard(self.SUSPEND)
        await self._run_action(self.SUSPEND, self._handler("suspend"))

    async def resume(self) -> None:
        """Resume the resource; allowed from SUSPEND_COMPLETE, RESUME_FAILED, RESUME_COMPLETE."""
        self._guard(self.RESUME)
        await self._run_action(self.RESUME, self._handler("resume"))

    async def snapshot(self) -> dict[str, Any]:
        """Snapshot the resource; return the resource data (what the stack snapshot keeps)."""
        self._guard(self.SNAPSHOT)
        await self._run_action(self.SNAPSHOT, self._handler("snapshot"))
        return self.data()

    async def delete_snapshot(self, snapshot: Mapping[str, Any]) -> None:
        """Delete a snapshot (``handle_delete_snapshot``); the resource's state is unchanged."""
        try:
            await _actions.run_handler(self, "delete_snapshot", "delete_snapshot", (snapshot,))
        except Exception as ex:
            cause = _actions.unwrap(ex)
            raise exception.ResourceFailure(cause, self, "DELETE_SNAPSHOT") from cause

    def handle_restore(self, defn: rsrc_defn.ResourceDefinition, restore_data: Any) -> Any:
        """Return the definition to restore from a snapshot (default: *defn* unchanged)."""
        return defn

    async def check(self) -> None:
        """Check the physical resource (``handle_check``).

        Without ``handle_check`` the state becomes ``CHECK_COMPLETE`` with a
        reason saying check is not supported (a never-created resource stays
        ``INIT_COMPLETE``). With one, checking a never-created resource fails.
        """
        if not callable(getattr(self, "handle_check", None)):
            if self.state == (self.INIT, self.COMPLETE):
                return
            self._guard(self.CHECK)
            self.state_set(self.CHECK, self.COMPLETE, f"CHECK not supported for {self.type()}")
            return
        if self.state == (self.INIT, self.COMPLETE):
            self.state_set(
                self.CHECK, self.FAILED, f"Can not check {self.name}, resource not created yet."
            )
            raise exception.ResourceFailure(
                f"Resource {self.name} not created yet.", self, self.CHECK
            )
        self._guard(self.CHECK)
        await self._run_action(self.CHECK, self._handler("check"))
