"""The scope functions are parsed and evaluated in.

A :class:`Scope` is what a parsed function may read besides the engine's
resource view: the template (version, files, directory), the resolved
parameter values and the conditions. A scope without parameters is a *check*
scope: :func:`simulator.template.load_template` parses every value in one to
find syntax and version errors before any parameter is known, and macros
(``if``) then keep both branches instead of choosing one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sdk import exception

if TYPE_CHECKING:
    from simulator.template.conditions import Conditions
    from simulator.template.definition import ParentInfo
    from simulator.template.loader import Template


@dataclass
class Scope:
    """Template, parameters and conditions a function sees."""

    template: Template
    parameters: dict[str, Any] | None = None
    conditions: Conditions | None = None
    parent: ParentInfo | None = None
    param_names: frozenset[str] = field(default_factory=frozenset)

    @property
    def checking(self) -> bool:
        """True in a check scope (no parameter values yet)."""
        return self.parameters is None

    @property
    def source(self) -> str | None:
        """The template's file name, for messages."""
        return self.template.source

    @property
    def version(self) -> str:
        """The template's canonical HOT version."""
        return self.template.version

    def fail(self, message: str, path: list[Any]) -> exception.StackValidationFailed:
        """Return a StackValidationFailed naming *path* and the template file."""
        from simulator.template.functions import FunctionError

        return FunctionError(message, path=path, source=self.source)
