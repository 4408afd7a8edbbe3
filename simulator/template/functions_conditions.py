"""Condition functions: if, equals, not, and, or (``yaql`` is :mod:`functions_yaql`)."""

from __future__ import annotations

from typing import Any

from simulator.template.functions import OMIT, Function, ResourceView, resolve


class If(Function):
    """``{if: [condition, value_if_true, value_if_false]}`` (a macro).

    The condition only depends on parameters, so the choice is made when the
    stack's template is parsed: the result *is* the chosen branch, parsed.
    From 2021-04-16 the false value may be left out; a false condition then
    removes the enclosing map key or list item.
    """

    __slots__ = ()

    #: The two-argument form is allowed (2021-04-16 on).
    nullable = False

    @classmethod
    def parse(cls, parser: Any, fn_name: str, raw_args: Any, path: list[Any]) -> Any:
        """Choose the branch now (or, in a check scope, parse both)."""
        scope = parser.scope
        where = [*path, fn_name]
        counts = (2, 3) if cls.nullable else (3,)
        if not isinstance(raw_args, list) or len(raw_args) not in counts:
            form = "[condition_name, value_if_true, value_if_false]"
            if cls.nullable:
                form += " or [condition_name, value_if_true]"
            raise scope.fail(f'Arguments to "{fn_name}" must be of the form: {form}', where)
        cond = parser.parse_condition(raw_args[0], [*where, 0])
        if scope.checking:
            scope.conditions.check_ref(cond, [*where, 0])
            branches = [parser.parse(v, [*where, i + 1]) for i, v in enumerate(raw_args[1:])]
            return cls(scope, fn_name, [cond, *branches], path)
        if scope.conditions.truth(cond, [*where, 0]):
            return parser.parse(raw_args[1], [*where, 1])
        if len(raw_args) == 2:
            return OMIT
        return parser.parse(raw_args[2], [*where, 2])

    def result(self, view: ResourceView) -> Any:
        """Only reachable for a check-scope parse, which is never evaluated."""
        raise self.error(f'"{self.fn_name}" is decided when the stack is defined')


class IfNullable(If):
    """``if`` from 2021-04-16: the false value is optional."""

    __slots__ = ()
    nullable = True


class Equals(Function):
    """``{equals: [value_1, value_2]}`` -> bool."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of two."""
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(
                f'Arguments to "{self.fn_name}" must be of the form: [value_1, value_2]'
            )

    def result(self, view: ResourceView) -> bool:
        """Compare the two resolved values."""
        first, second = resolve(self.args, view)
        return bool(first == second)


class _Boolean(Function):
    """Common part of not/and/or: arguments are conditions (names, booleans, functions)."""

    __slots__ = ()

    def _items(self) -> list[Any]:
        return self.args

    def check(self) -> None:
        """Literal condition names must exist."""
        if not isinstance(self.args, list):
            raise self.error(f'Arguments to "{self.fn_name}" must be a list of conditions')
        if len(self.args) < 2:
            raise self.error(f'The minimum number of condition arguments to "{self.fn_name}" is 2.')
        self._check_items()

    def _check_items(self) -> None:
        for i, item in enumerate(self._items()):
            self.scope.conditions.check_ref(item, [*self.path, self.fn_name, i])

    def _truths(self) -> Any:
        for i, item in enumerate(self._items()):
            yield self.scope.conditions.truth(item, [*self.path, self.fn_name, i])


class Not(_Boolean):
    """``{not: condition}``."""

    __slots__ = ()

    def _items(self) -> list[Any]:
        return [self.args]

    def check(self) -> None:
        """The argument is one condition."""
        if self.args is None or isinstance(self.args, (list, dict)):
            raise self.error(f'Argument to "{self.fn_name}" must be a condition')
        self._check_items()

    def result(self, view: ResourceView) -> bool:
        """Negate the condition."""
        return not next(self._truths())


class And(_Boolean):
    """``{and: [condition, condition, ...]}``."""

    __slots__ = ()

    def result(self, view: ResourceView) -> bool:
        """True when every condition is."""
        return all(self._truths())


class Or(_Boolean):
    """``{or: [condition, condition, ...]}``."""

    __slots__ = ()

    def result(self, view: ResourceView) -> bool:
        """True when any condition is."""
        return any(self._truths())
