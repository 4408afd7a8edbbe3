"""A stack: its resources, its state, and how every change is persisted.

:class:`Stack` owns the in-memory resources of one stack, writes every
resource and stack state change to the world's store (and so to the event log)
before the next one starts, and runs stack actions through
:meth:`Stack.run_action` (timeout, user cancel, engine lease). The actions
themselves live in :mod:`simulator.stack_actions` (create, delete, suspend,
resume, check, adopt, abandon) and :mod:`simulator.stack_update` (update,
rollback, restore); snapshots are taken by :mod:`simulator.stack_api`.
What a stack needs of the world it lives in is :class:`StackHost` (the
world implements it), so this module never imports the world.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

from sdk import exception
from sdk._persistence import PersistenceMixin
from sdk.resource import Resource
from sdk.rsrc_defn import ResourceDefinition
from simulator.context import EngineContext, StackView
from simulator.events import STACK_TYPE, Event
from simulator.implicit_deps import registry_classes, with_implicit
from simulator.plan import validate
from simulator.resource_rows import json_data, plain, same_scalars, uuid4_text
from simulator.scheduler import fewer_full_collections
from simulator.stack_host import StackHost
from simulator.stack_source import StackSource
from simulator.store import ResourceRecord, StackRecord

IN_PROGRESS, COMPLETE, FAILED = "IN_PROGRESS", "COMPLETE", "FAILED"

#: Stack-document entries holding a source document the stack never mutates.
_SOURCE_KEYS = frozenset({"source", "previous"})

#: The actions whose COMPLETE transition records the property values the resource now has.
_APPLIES = frozenset({"CREATE", "ADOPT", "UPDATE"})
_NO_UPDATE: tuple[None, None] = (None, None)
#: The SDK's own ``Resource.data`` (a class that keeps it stores its data in ``_data``).
_SDK_DATA = PersistenceMixin.data

#: The timeout of a stack created without one (Heat's default: 60 minutes).
DEFAULT_TIMEOUT_MINS = 60.0


class StackTimeout(Exception):
    """The stack's action ran past ``timeout_mins``."""


class UserCancelled(Exception):
    """The user cancelled the stack's in-progress action."""

    def __str__(self) -> str:
        return "Operation cancelled"


class Stack:
    """One stack of a world (top-level or nested)."""

    def __init__(
        self,
        world: StackHost,
        record: StackRecord,
        source: StackSource,
        parent_resource: Any = None,
    ) -> None:
        self.world = world
        self.record = record
        self.source = source
        #: the template resource this nested stack implements (None at top level)
        self.parent_resource = parent_resource
        self.parent_definition: ResourceDefinition | None = (
            parent_resource.definition if parent_resource is not None else None
        )
        with fewer_full_collections():
            self.definition = self._build(source)
        self._previous: StackSource | None = None
        self._previous_definition: Any = None
        self.view = StackView(self)
        self.context = EngineContext(self)
        self.resolver = self.definition.resolver(self.view)
        #: current resources by name (template order)
        self.resources: dict[str, Resource] = {}
        #: replaced resources waiting for cleanup, oldest first
        self.replaced: list[Resource] = []
        self._rids: dict[int, int] = {}
        self._tmpl: dict[int, str] = {}
        self._applied: dict[int, dict[str, Any]] = {}
        #: the row document last handed to the store per resource (never mutated)
        self._row_docs: dict[int, dict[str, Any]] = {}
        #: an update's target (definition, template digest), applied when it completes
        self._pending_after: dict[int, tuple[ResourceDefinition, str | None]] = {}
        self._next_rid = 1
        self._task: asyncio.Task[Any] | None = None
        self._interrupt_kind: str | None = None
        #: False once a cancel without rollback interrupted the running update
        self.cancel_rolls_back = True
        #: the lifecycle plug-ins whose CANCEL pre-op passed (post-ops run after the update)
        self.cancel_plugins: list[Any] = []
        #: id(source) -> (source, its document): one unchanging object per source
        self._source_docs: dict[int, tuple[StackSource, dict[str, Any]]] = {}
        #: the last dependency graph computed: (definition, graph)
        self._graph: tuple[Any, Any] | None = None
        #: the last :meth:`requires` answer: (graph, current resource names, answer)
        self._requires: tuple[Any, tuple[str, ...], dict[str, list[str]]] | None = None

    # -- identity ------------------------------------------------------------

    @property
    def id(self) -> str:
        """The stack id (a seeded UUID)."""
        return self.record.id

    @property
    def name(self) -> str:
        """The stack name."""
        return self.record.name

    @property
    def action(self) -> str:
        """The stack's current action (CREATE, UPDATE ...)."""
        return self.record.action

    @property
    def status(self) -> str:
        """IN_PROGRESS, COMPLETE or FAILED."""
        return self.record.status

    @property
    def status_reason(self) -> str:
        """Why the stack is in its current state."""
        return self.record.reason

    @property
    def state(self) -> str:
        """``ACTION_STATUS``."""
        return f"{self.action}_{self.status}"

    @property
    def parameters(self) -> dict[str, Any]:
        """The stack's resolved parameter values."""
        return self.definition.parameters

    @property
    def timeout_mins(self) -> float | None:
        """The stack timeout in (virtual) minutes, or None."""
        return self.record.doc.get("timeout_mins")

    @property
    def disable_rollback(self) -> bool:
        """True when a failed create/update stays failed instead of rolling back."""
        return bool(self.record.doc.get("disable_rollback", True))

    @property
    def parent_id(self) -> str | None:
        """The id of the parent stack for a nested stack."""
        return self.record.parent_id

    # -- resources -----------------------------------------------------------

    def make_resource(
        self, defn: ResourceDefinition, source: StackSource | None = None
    ) -> Resource:
        """Instantiate the plug-in class for *defn* in this stack (state INIT)."""
        src = source or self.source
        cls = self.world.registry.get_class(defn.resource_type, defn.name, src)
        try:
            res = cls(defn.name, defn, self.context, resolver=self.resolver)
        except exception.PlugsimError:
            raise
        except Exception as ex:  # a plug-in constructor that raises
            raise exception.ResourceFailure(ex, defn.name, "INIT") from ex
        self._rids[id(res)] = self._next_rid
        res.uuid = self._resource_uuid(self._next_rid)
        self._tmpl[id(res)] = src.digest
        self._next_rid += 1
        return res

    def _resource_uuid(self, rid: int) -> str:
        """The uuid of this stack's resource row *rid*: the same in every run."""
        return uuid4_text(hashlib.sha256(f"{self.id}/resource/{rid}".encode()).digest())

    def capture_applied(
        self, res: Resource, defn: ResourceDefinition | None = None, persist: bool = True
    ) -> None:
        """Remember the resolved property values *res* was last created/updated with."""
        try:
            props = plain(
                {k: self.resolver(v) for k, v in (defn or res.definition).properties.items()}
            )
        except Exception:  # unresolvable now: the next update compares raw values
            self._applied.pop(id(res), None)
        else:
            self._applied[id(res)] = props
        if persist:
            self.persist_resource(res)

    def expect_update(
        self, res: Resource, after: ResourceDefinition, digest: str | None = None
    ) -> None:
        """Note the definition (and template digest) an update of *res* moves to.

        Both are recorded with the ``UPDATE_COMPLETE`` transition itself, in
        its one commit; :meth:`finish_update` settles an update that ended
        without one (nothing changed).
        """
        self._pending_after[id(res)] = (after, digest)

    def finish_update(self, res: Resource, digest: str) -> None:
        """Record that *res* conforms to the template *digest* after a successful update."""
        self._pending_after.pop(id(res), None)
        if self._tmpl.get(id(res)) != digest:
            self._tmpl[id(res)] = digest
            self.persist_resource(res)

    def set_applied(self, res: Resource, props: dict[str, Any] | None) -> None:
        """Restore remembered property values (when loading from the store)."""
        if props is not None:
            self._applied[id(res)] = props

    def before_definition(self, res: Resource) -> ResourceDefinition | None:
        """The definition *res* was last applied with, its properties as resolved then."""
        props = self._applied.get(id(res))
        if props is None:
            return None
        # a copy: the remembered values are part of the stored row document
        return res.definition.freeze(properties=plain(props))

    def rid(self, res: Resource) -> int:
        """Return the engine's row id of *res*."""
        return self._rids[id(res)]

    def source_digest(self, res: Resource) -> str:
        """Return the digest of the template *res* was last made from."""
        return self._tmpl[id(res)]

    def set_source_digest(self, res: Resource, digest: str) -> None:
        """Record that *res* now conforms to the template with *digest*."""
        self._tmpl[id(res)] = digest

    def adopt_rid(self, res: Resource, rid: int, digest: str) -> None:
        """Give a resource rebuilt from the store its original row id."""
        self._rids[id(res)] = rid
        res.uuid = self._resource_uuid(rid)
        self._tmpl[id(res)] = digest
        self._next_rid = max(self._next_rid, rid + 1)

    def resource_by_rid(self, rid: int) -> Resource | None:
        """Return the resource (current or replaced) with engine row id *rid*."""
        for res in self.all_resources():
            if self._rids.get(id(res)) == rid:
                return res
        return None

    def all_resources(self) -> list[Resource]:
        """Current resources (template order) followed by replaced ones."""
        return [*self.resources.values(), *self.replaced]

    def is_current(self, res: Resource) -> bool:
        """True unless *res* is a replaced resource awaiting cleanup."""
        return self.resources.get(res.name) is res

    def _row_doc(self, res: Resource) -> dict[str, Any]:
        """The row document of *res*: the previous object when its content is unchanged.

        The store is told these documents are frozen, so a changed one is
        always a new dict and an unchanged one costs the store no comparison.
        A resource without data whose class keeps the SDK's own ``data()``
        (most transitions of most resources) is settled without copying it.
        """
        key = id(res)
        tmpl = self._tmpl[key]
        props = self._applied.get(key)
        doc = self._row_docs.get(key)
        if doc is not None and doc["tmpl"] == tmpl and doc["props"] is props:
            if not doc["data"] and not res._data and type(res).data is _SDK_DATA:
                return doc
            data = json_data(res)
            if same_scalars(doc["data"], data):
                return doc
        else:
            data = json_data(res)
        doc = {"data": data, "tmpl": tmpl, "props": props}
        self._row_docs[key] = doc
        return doc

    def _resource_record(
        self, res: Resource, action: str, status: str, reason: Any, kind: str | None = None
    ) -> ResourceRecord:
        resource_id = res.resource_id
        return ResourceRecord(
            self.record.id,
            self._rids[id(res)],
            res.name,
            res.type() if kind is None else kind,
            action,
            status,
            str(reason or "") if type(reason) is not str else reason,
            None if resource_id is None else str(resource_id),
            self.resources.get(res.name) is res,
            self._row_doc(res),
        )

    def persist_resource(self, res: Resource) -> None:
        """Write the resource's row (state, physical id, data)."""
        if id(res) in self._rids:
            rec = self._resource_record(
                res, res.action, res.status, getattr(res, "status_reason", "")
            )
            self.world.store.save_resource(rec, frozen_doc=True)

    def defer_persist(self, res: Resource) -> None:
        """Write *res*'s row with its next transition, or when the world's run ends."""
        self.world.unsaved[id(res)] = (self, res)

    def forget_resource(self, res: Resource) -> None:
        """Drop a resource's row (after it was deleted and replaced/removed)."""
        self.world.store.delete_resource(self.id, self.rid(res))

    def resource_state_changed(self, res: Resource, action: str, status: str, reason: str) -> None:
        """Persist a resource transition and record its event, in one transaction."""
        world = self.world
        world.check_cancel(self)
        key = id(res)
        kind = res.type()
        reason = str(reason or "") if type(reason) is not str else reason
        resource_id = res.resource_id
        ev = Event(
            0,
            self.record.id,
            self.record.name,
            res.name,
            kind,
            None if resource_id is None else str(resource_id),
            action,
            status,
            reason,
            world.clock.now(),
        )
        if status == COMPLETE and action in _APPLIES:
            after, digest = self._pending_after.pop(key, _NO_UPDATE)
            if digest is not None and action == "UPDATE":
                self._tmpl[key] = digest
            self.capture_applied(res, after, persist=False)
        elif status != IN_PROGRESS:
            self._pending_after.pop(key, None)
        if key in self._rids:
            unsaved = world.unsaved
            if unsaved:
                unsaved.pop(key, None)
            rec = self._resource_record(res, action, status, reason, kind)
            ev = world.store.record(ev, resource=rec, frozen_doc=True)
        else:
            ev = world.store.add_event(ev)
        world.emit(ev)

    # -- stack state ---------------------------------------------------------

    def state_set(self, action: str, status: str, reason: str) -> None:
        """Change the stack's state: persist the row and record the event."""
        now = self.world.clock.now()
        self.record.action, self.record.status, self.record.reason = action, status, reason
        self.record.updated = now
        ev = Event(
            0, self.id, self.name, self.name, STACK_TYPE, self.id, action, status, reason, now
        )
        self.world.emit(self.world.store.record(ev, stack=self.record, frozen_keys=_SOURCE_KEYS))

    def save(self) -> None:
        """Persist the stack row including its source document."""
        self.record.doc["source"] = self._source_doc(self.source)
        self.world.store.save_stack(self.record, frozen_keys=_SOURCE_KEYS)

    def _source_doc(self, source: StackSource) -> dict[str, Any]:
        """The stored document of *source*, the same object every time (never mutated)."""
        entry = self._source_docs.get(id(source))
        if entry is None or entry[0] is not source:
            if len(self._source_docs) > 4:
                self._source_docs.clear()
            entry = (source, source.to_doc())
            self._source_docs[id(source)] = entry
        return entry[1]

    # -- sources and definitions ---------------------------------------------

    def validate(self) -> None:
        """Validate the stack's definition against the known resource types."""
        with fewer_full_collections():
            validate(self.source, self.definition, self)

    def definition_from(self, source: StackSource) -> Any:
        """Build and validate the definition of *source* for this stack."""
        with fewer_full_collections():
            definition = self._build(source)
            validate(source, definition, self)
        return definition

    def _build(self, source: StackSource) -> Any:
        """Build *source*'s definition as this stack's (name, id, parent resource)."""
        return source.build(self.name, self.id, self.world.project_id, self.parent_resource)

    def build(self, source: StackSource) -> Any:
        """Build *source*'s definition for this stack without validating it."""
        with fewer_full_collections():
            return self._build(source)

    def remember_previous(self) -> None:
        """Keep the current source as the rollback target of the coming update."""
        self._previous = self.source
        self._previous_definition = self.definition
        self.record.doc["previous"] = self._source_doc(self.source)

    def previous_source(self) -> StackSource:
        """The source before the last update (the rollback target)."""
        if self._previous is None:
            doc = self.record.doc.get("previous")
            self._previous = StackSource.from_doc(doc) if doc else self.source
        return self._previous

    def previous_requires(self, name: str) -> list[str]:
        """What *name* required in the previous (or current) template."""
        for definition in (self._previous_definition, self.definition):
            if definition is None:
                continue
            graph = self.dependency_graph(definition)
            if name in graph:
                return list(graph.requires(name))
        return []

    def switch_source(self, source: StackSource, definition: Any) -> None:
        """Make *source* the stack's current template (update/rollback/restore)."""
        if self._previous_definition is None:
            self._previous_definition = self.definition
        self.source = source
        self.definition = definition
        self.resolver = definition.resolver(self.view)

    # -- graph ---------------------------------------------------------------

    def dependency_graph(self, definition: Any = None) -> Any:
        """Return the dependency graph of *definition* (default: the current one).

        The graph of the definition asked for last is kept (a definition does
        not change once built), so the actions of one template share it.
        Callers must not modify it.
        """
        definition = self.definition if definition is None else definition
        if self._graph is None or self._graph[0] is not definition:
            source = self.source
            if definition is self._previous_definition and self._previous is not None:
                source = self._previous
            graph = with_implicit(
                definition,
                registry_classes(self.world.registry, source),
                source=definition.template.source,
            )
            self._graph = (definition, graph)
        return self._graph[1]

    def requires(self) -> dict[str, list[str]]:
        """Return each current resource's requirements (within this stack).

        The answer is kept while the graph and the current resources' names are
        the same (the actions of one template ask it again); callers must not
        modify it.
        """
        graph = self.dependency_graph()
        names = tuple(self.resources)
        kept = self._requires
        if kept is not None and kept[0] is graph and kept[1] == names:
            return kept[2]
        current = self.resources
        out: dict[str, list[str]] = {}
        for name in names:
            out[name] = [r for r in graph.requires(name) if r in current] if name in graph else []
        self._requires = (graph, names, out)
        return out

    # -- outputs -------------------------------------------------------------

    def outputs(self) -> list[dict[str, Any]]:
        """Return ``[{output_key, output_value, description}]`` in template order.

        Attributes may be read over the fake cloud's HTTP APIs, so they are served meanwhile.
        """
        wire = getattr(self.world, "http_wire", None)
        with wire() if callable(wire) else contextlib.nullcontext():
            return self.definition.outputs(self.view)

    def output(self, key: str) -> Any:
        """Return one output's value; an unknown key is :class:`EntityNotFound`."""
        for out in self.outputs():
            if out["output_key"] == key:
                if "output_error" in out:
                    if self.parent_resource is not None:  # read as an attribute: Heat's words
                        where = f"Error in {self.parent_resource.name} output {key}"
                    else:
                        where = f"Output {key} of stack {self.name}"
                    raise exception.PlugsimError(f"{where}: {out['output_error']}")
                return out["output_value"]
        raise exception.EntityNotFound(entity="Output", name=key)

    # -- running actions -----------------------------------------------------

    async def run_action(self, action: str, body: Callable[[], Awaitable[None]]) -> None:
        """Run *body* as this stack's *action*, enforcing the stack timeout.

        When the timeout expires, every in-progress resource is cancelled with
        the reason ``'<Action> timed out'`` (running its cancel handler) and
        :class:`StackTimeout` is raised; a user cancel raises
        :class:`UserCancelled`.
        """
        loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._interrupt_kind = None
        self.cancel_rolls_back = True
        handle = None
        mins = self.timeout_mins or (DEFAULT_TIMEOUT_MINS if self.parent_id is None else None)
        if mins:
            handle = loop.call_later(
                mins * 60, self._interrupt, "timeout", f"{action.title()} timed out"
            )
        try:
            await body()
        except asyncio.CancelledError:
            kind = self._interrupt_kind
            if kind is None:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            if kind == "timeout":
                raise StackTimeout(f"{action.title()} timed out") from None
            raise UserCancelled() from None
        finally:
            if handle is not None:
                handle.cancel()
            self._task = None
            self._interrupt_kind = None

    def _interrupt(self, kind: str, reason: str) -> None:
        if self._task is None or self._task.done() or self._interrupt_kind is not None:
            return
        self._interrupt_kind = kind
        for res in self.all_resources():
            if res.running_action:
                res.cancel_reason = reason
        self._task.cancel()

    @property
    def busy(self) -> bool:
        """True while an action of this stack runs in this process."""
        return self._task is not None

    def interrupt_update(self, rollback: bool = True) -> bool:
        """Cancel the update running in this process (a user ``stack cancel``).

        Every in-progress resource gets the reason "Update cancelled" and runs
        its cancel handler; the update then rolls back unless *rollback* is
        False. Returns False when no update is running or an interruption is
        already under way. The lifecycle plug-ins' CANCEL pre-ops run before
        this (:func:`simulator.lifecycle.cancel_update`).
        """
        if not self.updating or self._interrupt_kind is not None:
            return False
        self.cancel_rolls_back = rollback
        self._interrupt("user", "Update cancelled")
        return True

    @property
    def updating(self) -> bool:
        """True while an update of this stack runs in this process."""
        return self._task is not None and self.state == "UPDATE_IN_PROGRESS"

    @property
    def interrupting(self) -> bool:
        """True once a timeout or a cancel is interrupting the running action."""
        return self._interrupt_kind is not None

    def take_cancel_plugins(self) -> list[Any]:
        """Return (and forget) the plug-ins whose CANCEL pre-op passed, for their post-op."""
        plugins, self.cancel_plugins = self.cancel_plugins, []
        return plugins
