"""``yaql``: an expression of the yaql query language over the given data, as Heat runs it.

Heat 27 evaluates ``{yaql: {expression: EXPR, data: {...}}}`` with the ``yaql`` library
(Heat's own dependency), the data reachable as ``$.data``, under two limits of its
configuration: a collection of at most 200 elements (``[yaql] limit_iterators``) and at
most 10000 bytes of memory (``[yaql] memory_quota``). plugsim uses the same library with
the same limits. The arguments must be a map with ``expression`` and optionally ``data``;
a literal expression is parsed when the template is validated (``Bad expression ...``),
and an expression that breaks a limit fails where it is read (an output's error).
"""

from __future__ import annotations

import collections.abc  # noqa: F401 - yaql 3.x reads collections.abc without importing it
from typing import Any

from simulator.template.functions import Function, ResourceView, resolve

#: Heat 27's defaults for ``[yaql] limit_iterators`` and ``[yaql] memory_quota``.
LIMIT_ITERATORS = 200
MEMORY_QUOTA = 10000

_EXAMPLE = "yaql:\n  expression: $.data.var1.sum()\n  data:\n    var1: [3, 2, 1]"

_engine: tuple[Any, Any] | None = None


def _parser_and_context() -> tuple[Any, Any]:
    """The yaql parser with Heat's limits, and the root context (made once)."""
    global _engine
    if _engine is None:
        import yaql

        options = {"yaql.limitIterators": LIMIT_ITERATORS, "yaql.memoryQuota": MEMORY_QUOTA}
        _engine = (yaql.YaqlFactory().create(options), yaql.create_context())
    return _engine


class Yaql(Function):
    """``{yaql: {expression: ..., data: ...}}`` (2016-10-14 on)."""

    __slots__ = ()

    def check(self) -> None:
        """The arguments are a map of ``expression`` and ``data``; a literal expression parses."""
        if not isinstance(self.args, dict):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map.')
        if "expression" not in self.args or set(self.args) - {"expression", "data"}:
            raise self.error(f'"{self.fn_name}" syntax should be {_EXAMPLE}')
        expression = self.args["expression"]
        if not isinstance(expression, Function):
            self._parse(expression)

    def _parse(self, expression: Any) -> Any:
        from yaql.language import exceptions

        if not isinstance(expression, str):
            raise self.error(f'The "expression" argument to {self.fn_name} must contain a string.')
        parser, _ = _parser_and_context()
        try:
            return parser(expression)
        except exceptions.YaqlException as ex:
            raise self.error(f"Bad expression {ex}.") from None

    def result(self, view: ResourceView) -> Any:
        """Evaluate the expression over ``{'data': data}`` in a fresh child context."""
        statement = self._parse(resolve(self.args["expression"], view))
        data = resolve(self.args.get("data", {}), view)
        _, context = _parser_and_context()
        from yaql.language import exceptions

        try:
            return statement.evaluate({"data": data}, context.create_child_context())
        except exceptions.YaqlException as ex:  # a limit, a method that does not apply ...
            raise self.error(f"{type(ex).__name__}: {ex}") from None
