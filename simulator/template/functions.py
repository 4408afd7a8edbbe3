"""Intrinsic functions: the base class and the helpers that walk parsed values.

A template value is *parsed* once: every single-key map whose key is a function
of the template's HOT version (``{get_param: x}``, ``{list_join: [...]}`` ...)
becomes an instance of a :class:`Function` subclass holding its parsed
arguments. Parsed values are plain dicts, lists and scalars with function
objects inside.

* :func:`resolve` turns a parsed value into a plain value, calling
  :meth:`Function.result` with the engine's :class:`ResourceView` (the view
  answers ``get_resource``/``get_attr``/``resource_facade`` and raises
  :class:`sdk.properties.ValueNotYetKnown` for resources not created yet).
* :func:`dependencies` lists the resource names a parsed value refers to.
* :func:`functions_in` walks every function object of a parsed value.

The families of functions live in ``functions_*.py`` modules; which names a
version accepts is decided in :mod:`simulator.template.versions`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from simulator.template import budget
from simulator.template.scope import FunctionError, Scope

__all__ = ["OMIT", "Function", "FunctionError", "ResourceView"]


class _Omit:
    """The value of a two-argument ``if`` whose condition is false: drop the item."""

    _instance: _Omit | None = None

    def __new__(cls) -> _Omit:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "OMIT"


OMIT = _Omit()


class ResourceView(Protocol):
    """What a function needs of the running stack (implemented by the engine)."""

    def reference_id(self, name: str) -> Any:
        """Return ``get_resource`` of *name*; raise ValueNotYetKnown if not created."""

    def attribute(self, name: str, attr: str | None, path: list[Any]) -> Any:
        """Return ``get_attr`` of *name*: attribute *attr* navigated along *path*.

        ``attr`` is None for the all-attributes form (``{get_attr: [name]}``),
        which returns a map of every attribute except ``show``. The view does
        the path navigation (as ``Resource.FnGetAtt(attr, *path)`` does);
        :func:`select_path` is there to help. Raise ValueNotYetKnown when the
        resource has no value yet.
        """

    def resource_facade(self, kind: str) -> Any:
        """Return the parent resource's ``metadata``/``deletion_policy``/``update_policy``."""


class Function:
    """Base class of intrinsic functions.

    :param scope: what the function may read besides the view (parameters,
        conditions, files, the template); see :class:`simulator.template.scope.Scope`.
    :param fn_name: the name the template used (``'get_param'``, ``'Fn::Select'`` ...).
    :param args: the parsed arguments.
    :param path: where the function sits in the template.
    """

    __slots__ = ("scope", "fn_name", "args", "path")

    def __init__(self, scope: Scope, fn_name: str, args: Any, path: list[Any]) -> None:
        self.scope = scope
        self.fn_name = fn_name
        self.args = args
        self.path = path
        self.check()

    # --- parsing -----------------------------------------------------------

    @classmethod
    def parse(cls, parser: Any, fn_name: str, raw_args: Any, path: list[Any]) -> Any:
        """Build the function from its raw template arguments.

        The default parses the arguments as template values. Macros (``if``)
        override this and may return something that is not a Function.
        """
        args = parser.parse_args(raw_args, [*path, fn_name])
        return cls(parser.scope, fn_name, args, path)

    def check(self) -> None:
        """Check the shape of the arguments when the template is parsed."""

    # --- evaluation --------------------------------------------------------

    def result(self, view: ResourceView) -> Any:
        """Return the value of the function (subclasses implement this)."""
        raise self.error(f'The function "{self.fn_name}" cannot be evaluated')

    def dependencies(self) -> Iterator[str]:
        """Yield the names of the resources the function refers to."""
        return dependencies(self.args)

    def error(self, message: str) -> FunctionError:
        """Return a FunctionError for this function, naming its path and file."""
        where = [*self.path, self.fn_name]
        return FunctionError(
            message,
            path=self.scope.display_path(where) if self.scope is not None else where,
            source=self.scope.source if self.scope is not None else None,
        )

    def __repr__(self) -> str:
        """Show the function as its template snippet."""
        return f"{{{self.fn_name}: {self.args!r}}}"

    def __eq__(self, other: object) -> bool:
        """Functions are equal when name and arguments are."""
        if not isinstance(other, Function):
            return NotImplemented
        return (
            type(self) is type(other) and self.fn_name == other.fn_name and self.args == other.args
        )

    def __hash__(self) -> int:
        """Hash by name (arguments may be unhashable)."""
        return hash((type(self).__name__, self.fn_name))

    def to_snippet(self) -> dict[str, Any]:
        """Return the function as a plain template snippet (functions left in)."""
        return {self.fn_name: snippet(self.args)}


# --- walking parsed values ---------------------------------------------------


def resolve(value: Any, view: ResourceView) -> Any:
    """Return *value* with every function replaced by its result.

    The functions of one outermost function share one expansion budget
    (:mod:`simulator.template.budget`).
    """
    if isinstance(value, Function):
        return budget.evaluate(value, view)
    if isinstance(value, dict):
        return {k: resolve(v, view) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, view) for v in value]
    return value


def functions_in(value: Any) -> Iterator[Function]:
    """Yield every function object in a parsed value (outermost first)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Function):
            yield item
            stack.append(item.args)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def dependencies(value: Any) -> Iterator[str]:
    """Yield the resource names a parsed value refers to (may repeat)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Function):
            yield from item.dependencies()
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def has_functions(value: Any) -> bool:
    """Return whether a parsed value contains any function."""
    return next(functions_in(value), None) is not None


def snippet(value: Any) -> Any:
    """Return a parsed value as a plain template snippet."""
    if isinstance(value, Function):
        return value.to_snippet()
    if isinstance(value, dict):
        return {k: snippet(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snippet(v) for v in value]
    return value


def select_path(value: Any, path: list[Any]) -> Any:
    """Navigate *value* along *path* (map keys and list indices).

    A list index may be given as an integer or a numeric string. A step that
    does not exist yields None (as Heat's attribute selection does).
    """
    for key in path:
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, (list, tuple)) and not isinstance(value, str):
            try:
                index = int(key)
            except (TypeError, ValueError):
                return None
            if isinstance(key, bool) or not -len(value) <= index < len(value):
                return None
            value = value[index]
        else:
            return None
        if value is None:
            return None
    return value


class StaticView:
    """A view for values that must not depend on resources (conditions, policies).

    ``what`` names the place (``'a condition'``, ``'deletion_policy'``) in the
    error raised when a resource is referred to anyway.
    """

    def __init__(self, what: str, raise_error: Callable[[str], Exception]) -> None:
        self.what = what
        self._raise = raise_error

    def reference_id(self, name: str) -> Any:
        """Refuse: resources cannot be referred to here."""
        raise self._raise(f'{self.what} cannot refer to resource "{name}"')

    def attribute(self, name: str, attr: str | None, path: list[Any]) -> Any:
        """Refuse: resources cannot be referred to here."""
        raise self._raise(f'{self.what} cannot refer to attributes of resource "{name}"')

    def resource_facade(self, kind: str) -> Any:
        """Refuse: the parent resource is not available here."""
        raise self._raise(f"{self.what} cannot use resource_facade")
