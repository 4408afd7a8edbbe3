"""Collection functions: repeat, map_merge, map_replace, filter, list_concat(_unique), contains."""

from __future__ import annotations

import itertools
import math
from typing import Any

from simulator.template import budget
from simulator.template.functions import Function, ResourceView, resolve


class Repeat(Function):
    """``{repeat: {for_each: {<var>: <list>, ...}, template: <body>}}``.

    Every combination of the loop values (their cartesian product) gives one
    copy of the body with each ``<var>`` replaced, in strings, map keys and
    map values, at any depth. The body is resolved first, so nested
    ``repeat`` functions work from the inside out.
    """

    __slots__ = ()

    #: Loop values may be maps (their keys are iterated): 2016-10-14 on.
    maps_allowed = False
    #: The ``permutations`` option exists: 2017-09-01 on.
    has_permutations = False

    def check(self) -> None:
        """Arguments are a map with ``for_each`` and ``template`` (+ ``permutations``)."""
        args = self.args
        example = "repeat: {template: 'This is %var%', for_each: {'%var%': [a, b, c]}}"
        if not isinstance(args, dict):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map: {example}')
        # Heat 27's engine takes "permutations" before 2017-09-01 too (its documentation says it
        # was added then) and ignores it there: every combination is made
        allowed = {"for_each", "template", "permutations"}
        if not {"for_each", "template"} <= set(args):
            raise self.error(f'"{self.fn_name}" syntax should be {example}')
        extra = sorted(set(args) - allowed, key=str)
        if extra:
            raise self.error(f'Unknown arguments to "{self.fn_name}": {", ".join(extra)}')
        for_each = args["for_each"]
        if not isinstance(for_each, (dict, Function)):
            raise self.error(f'The "for_each" argument to "{self.fn_name}" must contain a map')
        if isinstance(for_each, dict) and not for_each:
            raise self.error(f'The "for_each" argument to "{self.fn_name}" must not be empty')
        perm = args.get("permutations", True) if self.has_permutations else True
        if not isinstance(perm, (bool, Function)):
            raise self.error(f'"permutations" should be boolean for "{self.fn_name}"')

    def _loop_values(self, key: str, value: Any, nested: bool) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, dict) and self.maps_allowed and nested:
            return list(value)
        if isinstance(value, list):
            return value
        kinds = "lists or maps" if self.maps_allowed and nested else "lists"
        raise self.error(
            f'The values of the "for_each" argument to "{self.fn_name}" must be {kinds}'
        )

    def result(self, view: ResourceView) -> list[Any]:
        """Expand the body once per combination of loop values."""
        for_each = resolve(self.args["for_each"], view)
        if not isinstance(for_each, dict) or not for_each:
            raise self.error(f'The "for_each" argument to "{self.fn_name}" must contain a map')
        nested = (
            resolve(self.args.get("permutations", True), view) if self.has_permutations else True
        )
        if not isinstance(nested, bool):
            raise self.error(f'"permutations" should be boolean for "{self.fn_name}"')
        keys = list(for_each)
        for k in keys:
            if not isinstance(k, str):
                raise self.error(f'The "for_each" keys of "{self.fn_name}" must be strings')
        lists = [self._loop_values(k, for_each[k], nested) for k in keys]
        if not nested and len({len(v) for v in lists}) > 1:
            raise self.error(
                f'For "{self.fn_name}", the for_each lists must all have the same length '
                f"when permutations is false"
            )
        body = resolve(self.args["template"], view)
        copies = math.prod(len(v) for v in lists) if nested else len(lists[0])
        if copies > 1:  # checked before any copy is made
            each = budget.count_values(body, budget.limits_of(self).max_yaml_nodes)
            budget.check_values(self, copies * each, f"{copies} copies of a {each}-value template")
        texts = [[_text(v) for v in values] for values in lists]
        measure = not self._short_enough(keys, texts, body)
        combos = itertools.product(*texts) if nested else zip(*texts, strict=True)
        return [self._replace(keys, list(combo), body, measure) for combo in combos]

    def _short_enough(self, keys: list[str], texts: list[list[str]], body: Any) -> bool:
        """Whether no copy of *body* can outgrow ``max_string_length`` (then copies go unmeasured).

        Replacing *key* by a value at most *n* characters long makes a text at
        most ``n / len(key)`` times longer, whatever the order of replacements.
        """
        growth = 1.0
        for key, values in zip(keys, texts, strict=True):
            longest = max(map(len, values), default=0)
            if longest > len(key):
                growth *= longest / max(len(key), 1)
        longest_text = max((len(t) for t in _strings(body)), default=0)
        return longest_text * growth <= budget.limits_of(self).max_string_length

    def _replace(self, keys: list[str], values: list[str], body: Any, measure: bool) -> Any:
        if isinstance(body, str):
            for key, value in zip(keys, values, strict=True):
                if measure and key and len(value) > len(key):
                    grown = len(body) + body.count(key) * (len(value) - len(key))
                    budget.check_length(self, grown, "a copy of the template")
                body = body.replace(key, value)
            return body
        if isinstance(body, list):
            return [self._replace(keys, values, item, measure) for item in body]
        if isinstance(body, dict):
            return {
                self._replace(keys, values, k, measure): self._replace(keys, values, v, measure)
                for k, v in body.items()
            }
        return body


def _strings(value: Any) -> list[str]:
    """The strings in a plain value (map keys included)."""
    out: list[str] = []
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return out


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


class RepeatWithMap(Repeat):
    """``repeat`` from 2016-10-14: loop values may be maps (keys are iterated)."""

    __slots__ = ()
    maps_allowed = True


class RepeatWithPermutations(RepeatWithMap):
    """``repeat`` from 2017-09-01: ``permutations: false`` zips equal-length lists."""

    __slots__ = ()
    has_permutations = True


class MapMerge(Function):
    """``{map_merge: [map, map, ...]}``: later maps win."""

    __slots__ = ()

    def check(self) -> None:
        """The argument is a list (or a function)."""
        if not isinstance(self.args, (list, Function)):
            raise self.error(
                f'Incorrect arguments to "{self.fn_name}", should be: '
                f'"{self.fn_name}": [{{"key1": "val1"}}, {{"key2": "val2"}}]'
            )

    def result(self, view: ResourceView) -> dict[Any, Any]:
        """Merge the maps in order."""
        maps = resolve(self.args, view)
        if not isinstance(maps, list):
            raise self.error(f'Incorrect arguments to "{self.fn_name}": expected a list of maps')
        out: dict[Any, Any] = {}
        for m in maps:
            if m is None:
                continue
            if not isinstance(m, dict):
                raise self.error("Incorrect arguments: Items to merge must be maps.")
        budget.check_values(self, sum(len(m) for m in maps if m), "merging the maps")
        for m in maps:
            if m:
                out.update(m)
        return out


class MapReplace(Function):
    """``{map_replace: [map, {keys: {old: new}, values: {old: new}}]}``."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of exactly two items."""
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(
                f'Incorrect arguments to "{self.fn_name}", should be: '
                f'"{self.fn_name}": [{{"key1": "val1"}}, '
                f'{{"keys": {{"key1": "key2"}}, "values": {{"val1": "val2"}}}}]'
            )
        repl = self.args[1]
        if isinstance(repl, dict):
            extra = sorted(set(repl) - {"keys", "values"}, key=str)
            if extra:
                raise self.error(
                    f'Incorrect arguments to "{self.fn_name}": the replacement map takes '
                    f'only "keys" and "values", not {", ".join(map(str, extra))}'
                )

    def result(self, view: ResourceView) -> dict[Any, Any]:
        """Rename keys and replace values."""
        src, repl = resolve(self.args, view)
        src = {} if src is None else src
        repl = {} if repl is None else repl
        if not isinstance(src, dict) or not isinstance(repl, dict):
            raise self.error(f'Incorrect arguments to "{self.fn_name}": arguments must be maps')
        keys = repl.get("keys") or {}
        values = repl.get("values") or {}
        if not isinstance(keys, dict) or not isinstance(values, dict):
            raise self.error(f'"keys" and "values" of "{self.fn_name}" must be maps')
        budget.check_values(self, len(src), "replacing in the map")
        out: dict[Any, Any] = {}
        for k, v in src.items():
            new_key = keys.get(k)
            if new_key is None:
                new_key = k
            elif new_key in src and new_key != k:
                raise self.error(f"key replacement {new_key} collides with a key in the input map")
            if new_key in out:
                raise self.error(f"key replacement {new_key} collides with a key in the output map")
            try:
                out[new_key] = values.get(v, v)
            except TypeError:
                out[new_key] = v
        return out


class Filter(Function):
    """``{filter: [values_to_remove, list]}``."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of two."""
        if not isinstance(self.args, list):
            raise self.error(f'Argument to "{self.fn_name}" must be a list')
        if len(self.args) != 2:
            raise self.error(
                f'"{self.fn_name}" expected 2 arguments of the form [values, sequence] '
                f"but got {len(self.args)} arguments instead"
            )

    def result(self, view: ResourceView) -> Any:
        """Return the list without the given values."""
        values, sequence = resolve(self.args, view)
        if not sequence:
            return sequence
        if not isinstance(sequence, list):
            raise self.error(f'"{self.fn_name}" only works with lists')
        if not values:
            return sequence
        if not isinstance(values, list):
            raise self.error(f'"{self.fn_name}" filters a list of values')
        return [item for item in sequence if item not in values]


class ListConcat(Function):
    """``{list_concat: [list, list, ...]}``."""

    __slots__ = ()
    unique = False

    def check(self) -> None:
        """The argument is a list (or a function)."""
        if not isinstance(self.args, (list, Function)):
            raise self.error(
                f'Incorrect arguments to "{self.fn_name}", should be: '
                f'"{self.fn_name}": [[<value 1>, <value 2>], [<value 3>, <value 4>]]'
            )

    def result(self, view: ResourceView) -> list[Any]:
        """Concatenate the lists (keeping the first copy of duplicates when unique)."""
        lists = resolve(self.args, view)
        if not isinstance(lists, list):
            raise self.error(f'Incorrect arguments to "{self.fn_name}": expected a list of lists')
        out: list[Any] = []
        for lst in lists:
            if lst is not None and not isinstance(lst, list):
                raise self.error("Incorrect arguments: Items to concat must be lists.")
        budget.check_values(self, sum(len(lst) for lst in lists if lst), "concatenating the lists")
        for lst in lists:
            if lst:
                out.extend(lst)
        if self.unique:
            kept: list[Any] = []
            seen: set[Any] = set()
            for item in out:
                try:
                    if item in seen:
                        continue
                    seen.add(item)
                except TypeError:  # maps and lists: compare by equality
                    if item in kept:
                        continue
                kept.append(item)
            out = kept
        return out


class ListConcatUnique(ListConcat):
    """``list_concat_unique``: like list_concat, each item once (at its first occurrence)."""

    __slots__ = ()
    unique = True


class Contains(Function):
    """``{contains: [value, sequence]}`` -> bool."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of two."""
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(
                f'Arguments to "{self.fn_name}" must be of the form: [value1, [value1, value2]]'
            )

    def result(self, view: ResourceView) -> bool:
        """Return whether the value is in the sequence."""
        value, sequence = resolve(self.args, view)
        if not isinstance(sequence, (list, str)):
            raise self.error(f'Second argument to "{self.fn_name}" should be a sequence.')
        if isinstance(sequence, str) and not isinstance(value, str):
            return False
        return value in sequence
