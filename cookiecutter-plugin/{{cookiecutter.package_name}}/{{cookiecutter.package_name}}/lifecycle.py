{%- set cls = cookiecutter.__camel_name ~ "Plugin" -%}
"""A stack lifecycle plug-in: a journal of stack actions that can protect stacks from deletion.

plugsim finds :class:`{{ cls }}` through the ``plugsim.stack_lifecycle_plugins``
entry point of the project's ``pyproject.toml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sdk import exception
from sdk.lifecycle_plugin import DEFAULT_ORDINAL, LifecyclePlugin


class StackProtected(exception.PlugsimError):
    """A protected stack was about to be deleted."""


@dataclass(frozen=True)
class JournalEntry:
    """One call of the plug-in: which phase of which action on which stack, and how it ended."""

    phase: str
    action: str
    stack: str
    failed: bool = False


def _name(stack: Any) -> str:
    """The stack's name (its ``name`` attribute, else its text)."""
    return str(getattr(stack, "name", stack))


class {{ cls }}(LifecyclePlugin):
    """Keep a journal of every stack action; refuse to delete the stacks named in ``protected``."""

    def __init__(self, protected: frozenset[str] = frozenset()) -> None:
        self.protected = frozenset(protected)
        self.journal: list[JournalEntry] = []

    def get_ordinal(self) -> int:
        """Run before plug-ins with the default ordinal, so the journal sees vetoed actions."""
        return DEFAULT_ORDINAL - 10

    def do_pre_op(
        self, context: Any, stack: Any, current_stack: Any = None, action: str | None = None
    ) -> None:
        """Record the action; raise StackProtected for a DELETE of a protected stack."""
        name = _name(stack)
        self.journal.append(JournalEntry("pre", str(action), name))
        if action == "DELETE" and name in self.protected:
            raise StackProtected(f"stack {name!r} is protected; remove it from 'protected' first")

    def do_post_op(
        self,
        context: Any,
        stack: Any,
        current_stack: Any = None,
        action: str | None = None,
        is_stack_failure: bool = False,
    ) -> None:
        """Record how the action ended."""
        self.journal.append(JournalEntry("post", str(action), _name(stack), is_stack_failure))
