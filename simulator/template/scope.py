"""The scope functions are parsed and evaluated in.

A :class:`Scope` is what a parsed function may read besides the engine's
resource view: the template (version, files, directory), the resolved
parameter values and the conditions. A scope without parameters is a *check*
scope: :func:`simulator.template.load_template` parses every value in one to
find syntax and version errors before any parameter is known, and macros
(``if``) then keep both branches instead of choosing one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from sdk import exception


class FunctionError(exception.StackValidationFailed):
    """An intrinsic function got arguments it cannot work with.

    Raised while parsing (bad argument shapes, a function the version lacks)
    and while resolving (e.g. ``list_join`` of a map). ``path`` is where the
    function sits in the template, ``source`` the template file.
    """


class TemplateSource(Protocol):
    """What functions read of the template they sit in (a loaded ``Template``)."""

    source: str | None
    version: str

    def read_file(self, key: str, path: list[Any]) -> str:
        """Return the content of ``get_file`` *key*; raise naming *path* when it cannot."""
        ...

    def resource_names(self) -> Mapping[str, Any]:
        """The template's resource names (fast membership), in template order."""
        ...


class ConditionTable(Protocol):
    """What functions ask of the template's conditions (a ``Conditions``)."""

    def truth(self, expr: Any, path: list[Any]) -> bool:
        """Evaluate a condition expression or name."""
        ...

    def check_ref(self, expr: Any, path: list[Any]) -> None:
        """Check that a condition reference names a declared condition."""
        ...


@dataclass(frozen=True)
class ParentInfo:
    """The resource a nested stack stands for (its "facade" in the parent stack)."""

    name: str
    type_name: str = ""
    metadata: Any = None
    deletion_policy: str = "Delete"
    update_policy: Any = None
    stack_name: str | None = None


@dataclass
class Scope:
    """Template, parameters and conditions a function sees."""

    template: TemplateSource
    parameters: dict[str, Any] | None = None
    conditions: ConditionTable | None = None
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

    def display_path(self, path: list[Any]) -> list[Any]:
        """*path* as the template writes it (a CFN template's own keys)."""
        shown = getattr(self.template, "display_path", None)
        return path if shown is None else shown(path)

    def fail(self, message: str, path: list[Any]) -> exception.StackValidationFailed:
        """Return a StackValidationFailed naming *path* and the template file."""
        return FunctionError(message, path=self.display_path(path), source=self.source)
