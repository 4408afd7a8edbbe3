"""Turning raw template values into parsed values with function objects.

The parser knows two contexts, as Heat's HOT does:

* *value* context (properties, metadata, outputs ...): the version's
  ``functions`` table applies;
* *condition* context (the ``conditions`` section, ``condition:`` keys and the
  first argument of ``if``): only the version's condition functions apply,
  and any other function is an error.

A single-key map whose key is a function of *another* HOT version (added
later, or removed) is an error naming the function, the version and the path.
Any other map is plain data.

Nesting is bounded: :data:`MAX_DEPTH` levels of maps and lists. Deeper values
get a clear error instead of a ``RecursionError`` (:func:`check_depth` is
iterative).
"""

from __future__ import annotations

from typing import Any

from simulator.template import versions
from simulator.template.functions import OMIT
from simulator.template.scope import Scope

#: Deepest nesting of maps/lists accepted in one template value.
MAX_DEPTH = 200


def check_depth(value: Any, path: list[Any], fail: Any, limit: int = MAX_DEPTH) -> None:
    """Raise ``fail(message, path)`` when *value* nests deeper than *limit* (iterative)."""
    stack: list[tuple[Any, int, list[Any]]] = [(value, 0, path)]
    while stack:
        item, depth, where = stack.pop()
        if isinstance(item, dict):
            children: Any = item.items()
        elif isinstance(item, list):
            children = enumerate(item)
        else:
            continue
        if depth >= limit:
            raise fail(
                f"The value is nested more than {limit} levels deep; plugsim refuses "
                f"such templates (flatten the nested functions)",
                where,
            )
        for key, child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1, where if depth > 8 else [*where, key]))


class Parser:
    """Parses raw values of one template in a scope."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.spec = versions.get_spec(scope.template.version)
        #: True while a function found in condition context is being built.
        self.in_condition = False

    def parse(self, value: Any, path: list[Any]) -> Any:
        """Parse a value in value context."""
        return self._parse(value, path, self.spec.functions, condition=False)

    def parse_condition(self, value: Any, path: list[Any]) -> Any:
        """Parse a value in condition context."""
        return self._parse(value, path, self.spec.condition_functions, condition=True)

    def parse_args(self, value: Any, path: list[Any]) -> Any:
        """Parse a function's arguments in the context the function was found in."""
        if self.in_condition:
            return self.parse_condition(value, path)
        return self.parse(value, path)

    def _parse(self, value: Any, path: list[Any], table: dict, *, condition: bool) -> Any:
        if isinstance(value, dict):
            if len(value) == 1:
                ((key, args),) = value.items()
                if isinstance(key, str):
                    cls = table.get(key)
                    if cls is not None:
                        self.in_condition = condition
                        return cls.parse(self, key, args, path)
                    self._check_unavailable(key, path, condition)
            out = {}
            for k, v in value.items():
                parsed = self._parse(v, [*path, k], table, condition=condition)
                if parsed is not OMIT:
                    out[k] = parsed
            return out
        if isinstance(value, list):
            items = []
            for i, v in enumerate(value):
                parsed = self._parse(v, [*path, i], table, condition=condition)
                if parsed is not OMIT:
                    items.append(parsed)
            return items
        return value

    def _check_unavailable(self, key: str, path: list[Any], condition: bool) -> None:
        if condition:
            if (
                key in versions.ALL_FUNCTIONS
                or key in versions.ALL_CONDITION_FUNCTIONS
                or key in self.spec.functions
            ):
                allowed = ", ".join(sorted(self.spec.condition_functions))
                raise self.scope.fail(
                    f'The function "{key}" cannot be used in a condition in '
                    f"{self.spec.label} (condition functions: {allowed})",
                    [*path, key],
                )
            return
        if key in versions.ALL_FUNCTIONS and not self.spec.is_cfn:
            # a CFN template's parser knows only its own table: other names are data, as in Heat
            raise self.scope.fail(versions.unavailable_message(key, self.spec), [*path, key])
