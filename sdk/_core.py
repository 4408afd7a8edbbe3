"""Private: the shape every part of :class:`sdk.resource.Resource` shares, declared once.

``Resource`` is assembled from parts (persistence, validation, update,
attributes) that each use what another part or the class itself defines: the
state, the definition, the context, ``state_set``, ``_run_action`` ... This
base declares those names and their types, so each part is checked on its own
against one declaration instead of reaching for names it cannot see. It holds
the state machine's constants (from :mod:`sdk.transitions`); the methods it
declares exist only for the type checker and are implemented by ``Resource``
or by one of its parts.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from sdk import attributes as attributes_mod
from sdk import properties as properties_mod
from sdk import rsrc_defn, transitions
from sdk.clients import ClientPlugin
from sdk.context import ResourceContext, StackInfo
from sdk.transitions import ResourceState


class ResourceCore:
    """The attributes, constants and cross-part methods of a resource (see the module doc)."""

    ACTIONS: ClassVar[tuple[str, ...]] = transitions.ACTIONS
    INIT = transitions.INIT
    CREATE = transitions.CREATE
    DELETE = transitions.DELETE
    UPDATE = transitions.UPDATE
    ROLLBACK = transitions.ROLLBACK
    SUSPEND = transitions.SUSPEND
    RESUME = transitions.RESUME
    ADOPT = transitions.ADOPT
    SNAPSHOT = transitions.SNAPSHOT
    CHECK = transitions.CHECK

    STATUSES: ClassVar[tuple[str, ...]] = transitions.STATUSES
    IN_PROGRESS = transitions.IN_PROGRESS
    FAILED = transitions.FAILED
    COMPLETE = transitions.COMPLETE

    BASE_ATTRIBUTES: ClassVar[tuple[str, ...]] = (attributes_mod.SHOW,)
    SHOW = attributes_mod.SHOW

    # Class settings a plug-in overrides (documented on Resource).
    properties_schema: ClassVar[Mapping[str, Any]]
    attributes_schema: ClassVar[Mapping[str, Any]]
    default_client_name: ClassVar[str | None]
    entity: ClassVar[str | None]
    action_retry_limit: ClassVar[int]
    update_allowed_properties: ClassVar[Sequence[str]]
    physical_resource_name_limit: ClassVar[int | None]

    # Per-resource state (set in Resource.__init__).
    name: str
    context: ResourceContext
    t: rsrc_defn.ResourceDefinition
    prev_definition: rsrc_defn.ResourceDefinition | None
    action: str
    status: str
    status_reason: str
    resource_id: Any
    uuid: str | None
    properties: properties_mod.Properties
    attributes: attributes_mod.Attributes
    attribute_errors: dict[str, str]
    cancel_reason: str | None
    _data: dict[str, Any]
    _metadata: dict[str, Any] | None
    _properties_built: tuple[rsrc_defn.ResourceDefinition, properties_mod.Properties]
    _running: tuple[str, asyncio.Task[Any] | None] | None

    if TYPE_CHECKING:

        @property
        def state(self) -> ResourceState: ...

        @property
        def stack(self) -> StackInfo: ...

        @property
        def external_id(self) -> str | None: ...

        def type(self) -> str: ...

        def state_set(self, action: str, status: str, reason: str = ...) -> None: ...

        def client(self, name: str | None = ...) -> Any: ...

        def _default_client_plugin(self) -> ClientPlugin: ...

        def _make_properties(
            self, definition: rsrc_defn.ResourceDefinition
        ) -> properties_mod.Properties: ...

        def _show_resource(self) -> dict[str, Any] | None: ...

        def _handler(
            self, handler_name: str, check_name: str | None = ..., *args: Any
        ) -> Callable[[], Awaitable[Any]]: ...

        async def _run_action(
            self,
            action: str,
            body: Callable[[], Awaitable[Any]],
            pre: Callable[[], Any] | None = ...,
            expected: tuple[builtins.type[BaseException], ...] = ...,
        ) -> Any: ...
