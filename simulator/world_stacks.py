"""A world's stacks: ids, lookups and building a new stack (a mixin of :class:`simulator.world.World`).

A world keeps every stack it built or loaded in this process (``_stacks``, by id) and is the
store's one writer, so a stack it holds needs no read of its row. A new stack gets its id from
the world's seeded ``stack-ids`` stream, is validated before anything is stored, and carries the
lifecycle plug-ins of its project (or of its parent, for a nested stack).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sdk import exception
from simulator.project_config import CONFIG_NAME, LIFECYCLE_PLUGINS, lifecycle_specs
from simulator.project_trust import may_run
from simulator.stack import Stack
from simulator.stack_loader import load_stack
from simulator.stack_source import StackSource
from simulator.store import StackRecord

if TYPE_CHECKING:
    from simulator.clock import VirtualClock
    from simulator.lifecycle import LifecycleRegistry
    from simulator.rng import SeededRNG
    from simulator.store import Store


class WorldStacks:
    """The stacks of a world (see the module docstring)."""

    rng: SeededRNG
    store: Store
    clock: VirtualClock
    lifecycle: LifecycleRegistry
    readonly: bool
    _stacks: dict[str, Stack]

    def new_stack_id(self) -> str:
        """Return a new stack id from the seeded ``stack-ids`` stream, never one in use.

        The stream's state is committed with the world, so a world reopened after
        a crash continues it; an id that is somehow taken (a stack row from a
        world whose streams were lost) is skipped, so a stack is never overwritten.
        """
        while True:
            sid = self.rng.uuid("stack-ids")
            if not self.store.stack_exists(sid):
                return sid

    def stack_records(self, *, include_deleted: bool = False) -> list[StackRecord]:
        """Return the top-level stacks' rows, oldest first."""
        return self.store.list_stacks(include_deleted=include_deleted)

    def get_stack(self, name_or_id: str, *, deleted_ok: bool = False) -> Stack:
        """Return a live stack by name or id; unknown ones are :class:`EntityNotFound`."""
        stack = self._stacks.get(name_or_id)
        if stack is not None and not self.readonly:
            # This world is the store's one writer: the row of a stack it holds (by id) is what
            # the stack's record says (a rollback forgets every held stack), so no read is needed.
            if stack.record.deleted and not deleted_ok:
                raise exception.EntityNotFound(entity="Stack", name=name_or_id)
            return stack
        rec = self.store.get_stack(name_or_id)
        if rec is None or (rec.deleted and not deleted_ok):
            raise exception.EntityNotFound(entity="Stack", name=name_or_id)
        stack = self._stacks.get(rec.id)
        if stack is None:
            stack = load_stack(self, rec)
            self._stacks[rec.id] = stack
        return stack

    def register(self, stack: Stack) -> None:
        """Keep a stack built in this process (so later lookups reuse it)."""
        self._stacks[stack.id] = stack

    def new_stack(
        self,
        name: str,
        source: StackSource,
        *,
        timeout_mins: float | None = None,
        disable_rollback: bool = True,
        parent: Stack | None = None,
        parent_resource: Any = None,
        tags: Iterable[str] = (),
        project_id: str | None = None,
    ) -> Stack:
        """Build, validate and store a new stack (no resource touched yet).

        The lifecycle plug-ins listed in a ``plugsim.yaml`` next to the
        template (or the parent's, for a nested stack) are stored with it.
        *project_id* (the Orchestration API's caller) is kept in the stack's
        document.
        """
        if parent is None:
            _check_name(name)
            existing = self.store.get_stack(name)
            if existing is not None and not existing.deleted:
                raise exception.StackExists(f"The Stack ({name}) already exists.")
        if timeout_mins is not None and (
            not isinstance(timeout_mins, int | float) or timeout_mins <= 0
        ):
            raise exception.StackValidationFailed(
                f"timeout must be a positive number of minutes, not {timeout_mins!r}"
            )
        rec = StackRecord(
            id=self.new_stack_id(),
            name=name,
            action="INIT",
            status="COMPLETE",
            reason="",
            created=self.clock.now(),
            parent_id=parent.id if parent is not None else None,
            doc={"timeout_mins": timeout_mins, "disable_rollback": bool(disable_rollback)},
        )
        tag_list = _check_tags(tags)
        if tag_list:
            rec.doc["tags"] = tag_list
        if project_id is not None:
            rec.doc["project_id"] = str(project_id)
        if parent is not None:
            specs = list(parent.record.doc.get(LIFECYCLE_PLUGINS) or [])
        else:
            specs = lifecycle_specs(source.base_dir) if source.base_dir else []
            if specs and source.base_dir:
                may_run(Path(source.base_dir) / CONFIG_NAME, True)
        if specs:
            rec.doc[LIFECYCLE_PLUGINS] = specs
        stack = Stack(self, rec, source, parent_resource=parent_resource)
        self.lifecycle.for_stack(stack)  # a bad plug-in name fails before anything is stored
        stack.validate()
        stack.save()
        self.register(stack)
        return stack


def _check_tags(tags: Iterable[str]) -> list[str]:
    if isinstance(tags, str):
        tags = tags.split(",")
    out: list[str] = []
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip() or "," in tag:
            raise exception.StackValidationFailed(
                f"Invalid stack tag {tag!r}: tags are non-empty strings without commas"
            )
        out.append(tag.strip())
    return out


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{0,254}", name):
        raise exception.StackValidationFailed(
            f"Invalid stack name {name!r}: it must start with a letter and contain only "
            "letters, digits, '_', '-' and '.'"
        )
