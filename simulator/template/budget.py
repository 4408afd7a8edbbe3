"""The expansion budget of intrinsic functions (``repeat``, ``list_concat``, ``str_replace`` ...).

A few hundred bytes of template can ask a function for billions of values:
``repeat`` over three 200-item lists makes eight million copies of its
template, ``str_replace`` can paste a long value into every one of thousands
of placeholders. Each function that builds a collection or a string asks
this module first, with the size it *is about to* build computed from its
arguments (the product of the loop lengths, the sum of the list lengths, the
length of the text after replacement), so an expansion over the budget fails
before any of it is made, in one line naming the file, the function's path
and the limit:

* collections are bounded by ``max_yaml_nodes``, the budget a YAML document
  has once its aliases are followed (values: maps, lists and scalars);
* strings by ``max_string_length`` characters.

The value budget is shared by the functions of one expression: the
functions nested in an outermost function (``list_concat`` of thirty
``repeat`` results, say) spend from one ``max_yaml_nodes``, so pieces each
under the budget cannot add up to millions (:func:`evaluation`, entered by
:func:`simulator.template.functions.resolve`).

The limits come from the template the function sits in (a stack's
:class:`simulator.limits.Limits`); see ``docs/limits.rst``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from simulator.limits import DEFAULTS, Limits, exceeded

#: Values built so far by the expression being evaluated (None outside one).
_SPENT: ContextVar[list[int] | None] = ContextVar("plugsim_expansion_spent", default=None)


def active() -> bool:
    """Whether an expression's budget is being spent (inside :func:`evaluation`)."""
    return _SPENT.get() is not None


@contextmanager
def evaluation() -> Iterator[None]:
    """Share one value budget among the functions evaluated inside."""
    token = _SPENT.set([0])
    try:
        yield
    finally:
        _SPENT.reset(token)


def evaluate(fn: Any, view: Any) -> Any:
    """``fn.result(view)``, inside :func:`evaluation` unless an expression's budget is open.

    What :func:`simulator.template.functions.resolve` runs for every function, without a
    context manager per call.
    """
    if _SPENT.get() is not None:
        return fn.result(view)
    token = _SPENT.set([0])
    try:
        return fn.result(view)
    finally:
        _SPENT.reset(token)


def limits_of(fn: Any) -> Limits:
    """The limits of the template function *fn* sits in."""
    scope = getattr(fn, "scope", None)
    limits = getattr(getattr(scope, "template", None), "limits", None)
    return limits if isinstance(limits, Limits) else DEFAULTS


def _fail(fn: Any, message: str, name: str, value: int) -> Exception:
    where = [*fn.path, fn.fn_name]
    scope = fn.scope
    path = scope.display_path(where) if scope is not None else where
    source = scope.source if scope is not None else None
    return exceeded(message, name, value, source=source, path=path)


def check_values(fn: Any, count: int, what: str) -> None:
    """Refuse *count* values about to be built by *fn* (*what* says how) above the budget."""
    budget = limits_of(fn).max_yaml_nodes
    if count > budget:
        raise _fail(fn, f"{what} would make {count} values", "max_yaml_nodes", budget)
    spent = _SPENT.get()
    if spent is not None:
        total = spent[0] + count
        if total > budget:
            raise _fail(
                fn,
                f"{what} would make {count} values, {total} with those the expression around "
                "it has built",
                "max_yaml_nodes",
                budget,
            )
        spent[0] = total


def check_length(fn: Any, length: int, what: str = "the result") -> None:
    """Refuse a string of *length* characters about to be built by *fn* above the budget."""
    budget = limits_of(fn).max_string_length
    if length > budget:
        raise _fail(fn, f"{what} would be {length} characters long", "max_string_length", budget)


def count_values(value: Any, stop: int) -> int:
    """Count the values in a plain *value* (maps, lists, scalars; keys too), stopping past *stop*."""
    total = 0
    todo = [value]
    while todo and total <= stop:
        item = todo.pop()
        total += 1
        if isinstance(item, dict):
            total += len(item)
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return total
