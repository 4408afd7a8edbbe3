"""The resource base class plug-ins subclass: the per-resource state machine.

See :class:`Resource` for the lifecycle contract.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

from sdk import _actions, _update, exception, rsrc_defn
from sdk import attributes as attributes_mod
from sdk import properties as properties_mod
from sdk.clients import ClientPlugin
from sdk.support import SupportStatus

__all__ = ["Resource", "ResourceState"]

LOG = logging.getLogger(__name__)


class ResourceState(NamedTuple):
    """A resource's state: ``(action, status)``.

    ``str()`` gives ``'CREATE_COMPLETE'``, and the state compares equal both
    to the tuple ``('CREATE', 'COMPLETE')`` and to the string
    ``'CREATE_COMPLETE'``. Its hash is the tuple's.
    """

    action: str
    status: str

    def __str__(self) -> str:
        return f"{self.action}_{self.status}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return str(self) == other
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__


def _short_id(seed: str) -> str:
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:12]


class Resource:
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
    state change (e.g. ``'State DELETE_COMPLETE invalid for suspend'``).

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
    ``update_policy``...). Nothing changed: no-op, no event. An immutable
    property changed: ``UPDATE_FAILED`` naming it. A changed property that is
    not ``update_allowed``: :class:`sdk.exception.UpdateReplace` before any
    state change, so the engine replaces the resource. Otherwise
    ``handle_update(json_snippet, tmpl_diff, prop_diff)`` runs, with the new
    definition's HOT snippet as ``json_snippet``; the default
    ``handle_update`` asks for replacement when any property changed.

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

    ACTIONS: ClassVar[tuple[str, ...]] = (
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
    INIT = "INIT"
    CREATE = "CREATE"
    DELETE = "DELETE"
    UPDATE = "UPDATE"
    ROLLBACK = "ROLLBACK"
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    ADOPT = "ADOPT"
    SNAPSHOT = "SNAPSHOT"
    CHECK = "CHECK"

    STATUSES: ClassVar[tuple[str, ...]] = ("IN_PROGRESS", "FAILED", "COMPLETE")
    IN_PROGRESS = "IN_PROGRESS"
    FAILED = "FAILED"
    COMPLETE = "COMPLETE"

    BASE_ATTRIBUTES: ClassVar[tuple[str, ...]] = (attributes_mod.SHOW,)
    SHOW = attributes_mod.SHOW

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

    def __init__(
        self,
        name: str,
        definition: rsrc_defn.ResourceDefinition,
        context: Any,
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
        self._data: dict[str, Any] = {}
        self._metadata: dict[str, Any] | None = None
        #: Set by the engine before cancelling an action: the FAILED reason to record.
        self.cancel_reason: str | None = None
        #: Errors met while resolving attributes, by attribute name (latest wins).
        self.attribute_errors: dict[str, str] = {}
        self._running: tuple[str, asyncio.Task[Any] | None] | None = None
        self.properties = self._make_properties(definition)
        self.attributes = attributes_mod.Attributes(
            name,
            {**attributes_mod.base_attributes_schema(), **dict(self.attributes_schema)},
            self._resolve_any_attribute,
        )

    # --- identity --------------------------------------------------------------

    def __str__(self) -> str:
        return f'{type(self).__name__} "{self.name}"'

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self.state}>"

    def type(self) -> str:
        """Return the resource type name from the definition."""
        return self.t.resource_type

    @property
    def stack(self) -> Any:
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
            self.properties_schema,
            definition.properties,
            resolver=self._resolver,
            context=self.context,
            path=["resources", self.name, "properties"],
        )

    # --- persistence -------------------------------------------------------------

    def state_set(self, action: str, status: str, reason: str = "state changed") -> None:
        """Move to ``(action, status)`` and report it to the context (every time)."""
        if action not in self.ACTIONS:
            raise ValueError(f"Invalid action {action!r} for resource {self.name}")
        if status not in self.STATUSES:
            raise ValueError(f"Invalid status {status!r} for resource {self.name}")
        self.action = action
        self.status = status
        self.status_reason = reason
        if status != self.COMPLETE:
            self.attributes.reset_resolved_values()
        self.context.state_changed(self, action, status, reason)

    def resource_id_set(self, value: Any) -> None:
        """Set the physical resource's id and persist it."""
        self.resource_id = value
        self.attributes.reset_resolved_values()
        self.context.data_changed(self)

    def data(self) -> dict[str, Any]:
        """Return a copy of the resource's private data (persisted key/value pairs)."""
        return dict(self._data)

    def data_set(self, key: str, value: Any) -> None:
        """Store *value* under *key* in the resource data and persist it."""
        self._data[key] = value
        self.context.data_changed(self)

    def data_delete(self, key: str) -> bool:
        """Remove *key* from the resource data; return True if it existed."""
        if key not in self._data:
            return False
        del self._data[key]
        self.context.data_changed(self)
        return True

    def metadata_get(self) -> dict[str, Any]:
        """Return the resource's metadata (the definition's until set)."""
        if self._metadata is None:
            return self.t.metadata
        return dict(self._metadata)

    def metadata_set(self, metadata: Mapping[str, Any] | None) -> None:
        """Replace the resource's metadata and persist it."""
        self._metadata = dict(metadata or {})
        self.context.data_changed(self)

    def physical_resource_name(self) -> str:
        """Return a name for the physical resource: ``<stack>-<resource>-<suffix>``.

        The 12-character suffix is derived from the stack id and the resource
        name, so it is the same in every run of the same stack. Names longer
        than :attr:`physical_resource_name_limit` are shortened by
        :meth:`reduce_physical_resource_name`.
        """
        stack_name = str(self.stack.name).rstrip("*")
        suffix = _short_id(f"{self.stack.id}/{self.name}")
        name = f"{stack_name}-{self.name}-{suffix}"
        if self.physical_resource_name_limit:
            name = self.reduce_physical_resource_name(name, self.physical_resource_name_limit)
        return name

    @staticmethod
    def reduce_physical_resource_name(name: str, limit: int) -> str:
        """Shorten *name* to at most *limit* characters, keeping its unique end.

        The result is the first two characters, a hyphen, and as much of the
        end of *name* as fits.
        """
        if len(name) <= limit:
            return name
        if limit < 4:
            raise ValueError(f"A physical resource name limit must be at least 4, not {limit}")
        return name[:2] + "-" + name[len(name) - (limit - 3) :]

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

    # --- validation ----------------------------------------------------------------

    def validate(self) -> None:
        """Validate the resource: properties, deletion policy, external resource.

        Plug-ins may override it to add checks; they call ``super().validate()``.
        Raises :class:`sdk.exception.StackValidationFailed` naming the path.
        """
        self.validate_deletion_policy(self.t.deletion_policy, self.name)
        self.properties.validate(with_value=True)
        self.validate_external()

    @classmethod
    def validate_deletion_policy(cls, policy: str, resource_name: str | None = None) -> None:
        """Reject an unknown deletion policy, and ``Snapshot`` without ``handle_snapshot_delete``."""
        path = ["resources", resource_name, rsrc_defn.DELETION_POLICY] if resource_name else None
        who = f"resource {resource_name} ({cls.__name__})" if resource_name else cls.__name__
        if policy not in rsrc_defn.DELETION_POLICIES:
            allowed = ", ".join(rsrc_defn.DELETION_POLICIES)
            raise exception.StackValidationFailed(
                f'Invalid deletion policy "{policy}" for {who}; use one of {allowed}', path=path
            )
        if policy == rsrc_defn.SNAPSHOT and not callable(
            getattr(cls, "handle_snapshot_delete", None)
        ):
            raise exception.StackValidationFailed(
                f'"Snapshot" deletion policy not supported by {who}: '
                f"the plug-in does not implement handle_snapshot_delete",
                path=path,
            )

    def validate_external(self) -> None:
        """Check that the resource an ``external_id`` names exists (when it can tell)."""
        if self.external_id is None or not (self.entity and self.default_client_name):
            return
        saved = self.resource_id
        self.resource_id = self.external_id
        try:
            self._show_resource()
        except Exception as ex:
            if self._default_client_plugin().is_not_found(ex):
                raise exception.StackValidationFailed(
                    f"Invalid external resource: Resource {self.external_id} ({self.type()}) "
                    f"can not be found.",
                    path=["resources", self.name, rsrc_defn.EXTERNAL_ID],
                ) from ex
            raise
        finally:
            self.resource_id = saved

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
        expected: tuple[type[BaseException], ...] = (),
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
        except Exception as ex:
            cause = _actions.unwrap(ex)
            self.state_set(action, self.FAILED, _actions.failure_reason(cause))
            raise exception.ResourceFailure(cause, self, action) from cause
        else:
            self.state_set(action, self.COMPLETE)
            return result
        finally:
            self._running = None
            self.cancel_reason = None

    def _handler(self, handler_name: str, check_name: str | None = None, *args: Any):
        async def body() -> Any:
            return await _actions.run_handler(self, handler_name, check_name or handler_name, args)

        return body

    def _invalid(self, action: str, verb: str) -> exception.ResourceFailure:
        return exception.ResourceFailure(f"State {self.state} invalid for {verb}", self, action)

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
        if self.state != (self.INIT, self.COMPLETE):
            raise self._invalid(self.CREATE, "create")
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
        if self.state == (self.DELETE, self.COMPLETE) or self.action == self.INIT:
            return
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

    # --- update ------------------------------------------------------------------

    def needs_replace_failed(self) -> bool:
        """Return True if a resource in a FAILED state is replaced on update (default)."""
        return True

    def _update_allowed_set(self) -> set[str]:
        return set(self.update_allowed_properties) | set(
            properties_mod.update_allowed_properties(self.properties.schema)
        )

    async def update(
        self,
        after: rsrc_defn.ResourceDefinition,
        before: rsrc_defn.ResourceDefinition | None = None,
    ) -> None:
        """Update the resource to the definition *after*.

        *before* defaults to the current definition. Raises
        :class:`sdk.exception.UpdateReplace` when the engine must replace the
        resource instead; see the class docstring for the rules.
        """
        if not isinstance(after, rsrc_defn.ResourceDefinition):
            raise TypeError(f"Resource {self.name}: update() needs a ResourceDefinition")
        before = self.t if before is None else before
        if after.external_id != self.external_id:
            raise exception.ResourceFailure(
                exception.NotSupported(
                    f"Update to property external_id of {self.name} ({self.type()}) "
                    f"is not supported"
                ),
                self,
                self.UPDATE,
            )
        if after.external_id is not None:
            return
        if self.status == self.FAILED and (
            self.action == self.CHECK or self.needs_replace_failed()
        ):
            raise exception.UpdateReplace(self.name)
        if self.state in ((self.INIT, self.COMPLETE), (self.DELETE, self.COMPLETE)):
            raise exception.UpdateReplace(self.name)
        if self.status == self.IN_PROGRESS:
            raise exception.ResourceFailure(
                f"Resource update already requested: {self.name} is {self.state}",
                self,
                self.UPDATE,
            )
        if after.resource_type != before.resource_type:
            raise exception.UpdateReplace(self.name)

        before_props = self._make_properties(before)
        after_props = self._make_properties(after)
        prop_diff = _update.property_diff(before_props, after_props)
        tmpl_diff = _update.template_diff(before, after, prop_diff, after_props)
        if not prop_diff and not tmpl_diff:
            return

        immutable = sorted(
            k for k in prop_diff if k in properties_mod.immutable_properties(after_props.schema)
        )
        allowed = self._update_allowed_set()
        if not immutable and not set(prop_diff) <= allowed:
            raise exception.UpdateReplace(self.name)

        self.prev_definition = before
        snippet = after.to_dict()

        def checks() -> None:
            after_props.validate(with_value=True)
            if immutable:
                raise exception.NotSupported(
                    f"Update to properties {', '.join(immutable)} of {self.name} "
                    f"({self.type()}) is not supported"
                )

        await self._run_action(
            self.UPDATE,
            self._handler("update", None, snippet, tmpl_diff, prop_diff),
            pre=checks,
            expected=(exception.UpdateReplace,),
        )
        self.t = after
        self.properties = after_props
        self.attributes.reset_resolved_values()

    def handle_update(
        self,
        json_snippet: Mapping[str, Any] | None = None,
        tmpl_diff: Mapping[str, Any] | None = None,
        prop_diff: Mapping[str, Any] | None = None,
    ) -> None:
        """Default update: replacement when any property changed, nothing otherwise."""
        if prop_diff:
            raise exception.UpdateReplace(self.name)

    # --- suspend / resume / snapshot / check ---------------------------------------

    async def suspend(self) -> None:
        """Suspend the resource (``handle_suspend`` / ``check_suspend_complete``).

        As in Heat, refused in any ``DELETE_*`` state and in any state that is
        neither COMPLETE nor a SUSPEND state (a failed suspend may be retried).
        """
        if self.action == self.DELETE or (
            self.action != self.SUSPEND and self.status != self.COMPLETE
        ):
            raise self._invalid(self.SUSPEND, "suspend")
        await self._run_action(self.SUSPEND, self._handler("suspend"))

    async def resume(self) -> None:
        """Resume the resource; allowed from SUSPEND_COMPLETE, RESUME_FAILED, RESUME_COMPLETE."""
        if self.state not in (
            (self.SUSPEND, self.COMPLETE),
            (self.RESUME, self.FAILED),
            (self.RESUME, self.COMPLETE),
        ):
            raise self._invalid(self.RESUME, "resume")
        await self._run_action(self.RESUME, self._handler("resume"))

    async def snapshot(self) -> dict[str, Any]:
        """Snapshot the resource; return the resource data (what the stack snapshot keeps)."""
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
            self.state_set(self.CHECK, self.COMPLETE, f"CHECK not supported for {self.type()}")
            return
        if self.state == (self.INIT, self.COMPLETE):
            self.state_set(
                self.CHECK, self.FAILED, f"Can not check {self.name}, resource not created yet."
            )
            raise exception.ResourceFailure(
                f"Resource {self.name} not created yet.", self, self.CHECK
            )
        await self._run_action(self.CHECK, self._handler("check"))

    # --- attributes ----------------------------------------------------------------

    def _note_attribute_error(self, name: str, ex: BaseException) -> None:
        self.attribute_errors[name] = _actions.failure_reason(ex)
        LOG.warning("Resolving attribute %s of %s failed: %s", name, self, ex)

    def _resolve_any_attribute(self, name: str) -> Any:
        """Resolve any attribute: ``show`` via :meth:`_show_resource`, others via
        :meth:`_resolve_attribute`. Not-found errors give None."""
        if name in self.BASE_ATTRIBUTES:
            if self.resource_id is None:
                return None
            try:
                return getattr(self, f"_{name}_resource")()
            except Exception as ex:
                if not self._default_client_plugin().is_not_found(ex):
                    self._note_attribute_error(name, ex)
                return None
        try:
            return self._resolve_attribute(name)
        except Exception as ex:
            if self._default_client_plugin().is_not_found(ex):
                return None
            raise

    def _resolve_attribute(self, name: str) -> Any:
        """Return the value of attribute *name*; override in plug-ins (default None)."""
        return None

    def _show_resource(self) -> dict[str, Any] | None:
        """Return the physical resource's details for the ``show`` attribute.

        Default: ``client().<entity>.get(resource_id)`` as a dict (``to_dict()``
        when it is an object); None without :attr:`entity`.
        """
        if not (self.entity and self.default_client_name):
            return None
        try:
            found = getattr(self.client(), self.entity).get(self.resource_id)
            return found if isinstance(found, dict) else found.to_dict()
        except AttributeError as ex:
            self._note_attribute_error(self.SHOW, ex)
            return None

    def get_attribute(self, key: str, *path: Any) -> Any:
        """Return attribute *key*, then follow *path* into nested maps and lists."""
        value = self.attributes[key]
        return _select_path(self.name, key, value, path)

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat's name
        """For ``get_attr``: the attribute *key*, optionally navigated by *path*."""
        return self.get_attribute(key, *path)

    def FnGetAtts(self) -> dict[str, Any]:  # noqa: N802 - Heat's name
        """For ``get_attr`` of all attributes: every attribute except ``show``."""
        return {k: self.attributes[k] for k in sorted(self.attributes) if k != self.SHOW}

    def get_reference_id(self) -> str:
        """For ``get_resource``: the resource id, or the resource name before there is one."""
        return str(self.resource_id) if self.resource_id is not None else self.name

    def FnGetRefId(self) -> str:  # noqa: N802 - Heat's name
        """For the intrinsic function ``Ref`` / ``get_resource``."""
        return self.get_reference_id()


def _select_path(resource: str, key: str, value: Any, path: Sequence[Any]) -> Any:
    """Follow *path* into *value*; a missing key/index is an InvalidTemplateAttribute."""
    current = value
    for depth, part in enumerate(path):
        if current is None:
            return None
        where = "/".join(str(p) for p in (key, *path[: depth + 1]))
        try:
            if isinstance(current, Mapping):
                current = current[part]
            elif isinstance(current, Sequence) and not isinstance(current, str | bytes):
                if isinstance(part, str) and part.lstrip("-").isdigit():
                    part = int(part)
                if not isinstance(part, int) or isinstance(part, bool):
                    raise TypeError(f"list index must be an integer, not {part!r}")
                current = current[part]
            else:
                raise TypeError(f"cannot look up {part!r} in a {type(current).__name__}")
        except (KeyError, IndexError, TypeError) as ex:
            detail = ex.args[0] if isinstance(ex, TypeError) else f"no item {part!r}"
            raise exception.InvalidTemplateAttribute(
                f"The Referenced Attribute ({resource} {where}) is incorrect: {detail}"
            ) from None
    return current
