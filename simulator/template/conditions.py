"""The ``conditions`` section: named boolean expressions over parameters.

A condition definition is a boolean or a condition function (``equals``,
``not``, ``and``, ``or``, ``get_param``, and ``contains`` from 2017-09-01).
Names may refer to other conditions inside ``not``/``and``/``or``, in a
resource's or an output's ``condition`` key and in the first argument of
``if``. Each condition is evaluated at most once; a condition that depends on
itself is an error naming it.
"""

from __future__ import annotations

from typing import Any

from simulator.template.functions import Function, StaticView


class Conditions:
    """Parses and evaluates one template's conditions in a scope."""

    def __init__(self, parser: Any, raw: Any) -> None:
        self._parser = parser
        self._scope = parser.scope
        self._raw: dict[str, Any] = raw if isinstance(raw, dict) else {}
        self._parsed: dict[str, Any] = {}
        self._values: dict[str, bool] = {}
        self._evaluating: list[str] = []

    @property
    def names(self) -> list[str]:
        """The condition names, in template order."""
        return list(self._raw)

    def definition(self, name: str) -> Any:
        """Return the parsed definition of condition *name*."""
        if name not in self._parsed:
            path = ["conditions", name]
            parsed = self._parser.parse_condition(self._raw[name], path)
            if not isinstance(parsed, (bool, Function)):
                raise self._scope.fail(
                    f'The definition of condition "{name}" is invalid: {self._raw[name]!r} '
                    f"(use true/false or a condition function)",
                    path,
                )
            self._parsed[name] = parsed
        return self._parsed[name]

    def check_all(self) -> None:
        """Parse every definition (check scope): shapes, versions, referenced names."""
        for name in self._raw:
            self.definition(name)

    def check_ref(self, expr: Any, path: list[Any]) -> None:
        """Check that a literal condition name in *expr* exists."""
        if isinstance(expr, str) and expr not in self._raw:
            raise self._scope.fail(
                f'Invalid condition "{expr}": no such condition is defined', path
            )
        if not isinstance(expr, (str, bool, Function)):
            raise self._scope.fail(
                f"Invalid condition {expr!r}: expected a condition name, true/false or a "
                f"condition function",
                path,
            )

    def is_enabled(self, name: str, path: list[Any]) -> bool:
        """Return the value of condition *name*."""
        if name not in self._raw:
            raise self._scope.fail(
                f'Invalid condition "{name}": no such condition is defined', path
            )
        if name in self._values:
            return self._values[name]
        if name in self._evaluating:
            loop = [*self._evaluating[self._evaluating.index(name) :], name]
            raise self._scope.fail(
                f"Circular definition for condition: {' -> '.join(loop)}", ["conditions", name]
            )
        self._evaluating.append(name)
        try:
            value = self.truth(self.definition(name), ["conditions", name])
        finally:
            self._evaluating.pop()
        self._values[name] = value
        return value

    def truth(self, expr: Any, path: list[Any]) -> bool:
        """Evaluate a condition expression: a name, a boolean or a condition function."""
        self.check_ref(expr, path)
        if isinstance(expr, bool):
            return expr
        if isinstance(expr, str):
            return self.is_enabled(expr, path)
        view = StaticView("A condition", lambda msg: self._scope.fail(msg, path))
        value = expr.result(view)
        if not isinstance(value, bool):
            raise self._scope.fail(
                f"The condition evaluated to {value!r}, which is not a boolean", path
            )
        return value

    def values(self) -> dict[str, bool]:
        """Evaluate every condition; return ``{name: bool}`` in template order."""
        return {name: self.is_enabled(name, ["conditions", name]) for name in self._raw}
