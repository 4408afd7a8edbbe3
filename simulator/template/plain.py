"""Keeping template data plain: bounded YAML expansion and JSON-shaped values.

A template is a tree of maps, lists, strings, numbers, booleans and null, as
in Heat (whose client sends every template to the engine as JSON). Two checks
keep what plugsim reads that way:

* :func:`check_yaml_nodes` runs on the composed YAML graph before any Python
  object is built. It counts the values the document expands to once aliases
  are followed (a node shared by aliases counts every time it is used) and
  stops at ``max_yaml_nodes``, so a 600-byte alias bomb fails in
  milliseconds; an alias inside its own anchor is refused.
* :func:`plain_data` walks the built data: a non-string map key becomes the
  string JSON would make of it (``1`` -> ``"1"``, ``true`` -> ``"true"``),
  as Heat's client does; any other type (``!!binary``, ``!!set``, Python
  objects, a structure that contains itself) is an error naming the path.

Both walks are iterative, so depth never costs Python stack.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import yaml

from sdk import exception
from simulator.limits import Limits, exceeded

_SCALARS = (str, int, float, bool, type(None))
#: what a value may also be (PyYAML's default loader makes dates of 2018-08-31)
_VALUE_SCALARS = (*_SCALARS, datetime.date)


def _key_name(node: Any) -> Any:
    return node.value if isinstance(node, yaml.ScalarNode) else "?"


def may_expand(text: str, limits: Limits) -> bool:
    """Whether *text* needs :func:`check_yaml_nodes`: it may hold aliases, or be large.

    Without a ``*`` there is no alias, and each value takes at least two
    characters, so a text under twice the budget cannot exceed it.
    """
    return "*" in text or len(text) >= 2 * limits.max_yaml_nodes


def check_yaml_nodes(root: Any, limits: Limits, source: str | None, what: str) -> None:
    """Refuse a composed YAML document that expands past ``limits.max_yaml_nodes``."""
    budget = limits.max_yaml_nodes
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    todo: list[tuple[Any, bool, tuple[Any, ...]]] = [(root, False, ())]
    while todo:
        node, done, path = todo.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            total = 1
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    total += sizes[id(k)] + sizes[id(v)]
            elif isinstance(node, yaml.SequenceNode):
                total += sum(sizes[id(v)] for v in node.value)
            sizes[key] = total
            if total > budget:
                raise exceeded(
                    f"this value of the {what} expands to {total} values once the YAML aliases "
                    "(*name) in it are followed",
                    "max_yaml_nodes",
                    budget,
                    source=source,
                    path=list(path),
                )
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise exception.StackValidationFailed(
                "the value contains itself (a YAML alias *name inside its own &anchor); "
                "templates must be plain trees of maps, lists and scalars",
                source=source,
                path=list(path),
            )
        on_path.add(key)
        todo.append((node, True, path))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                todo.append((k, False, path))
                todo.append((v, False, (*path, _key_name(k))))
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                todo.append((v, False, (*path, i)))


def json_key(key: Any) -> str | None:
    """The string JSON makes of a scalar map key (None for keys JSON cannot hold)."""
    if isinstance(key, str):
        return key
    if isinstance(key, _SCALARS):
        return json.dumps(key)
    return None


def _type_name(value: Any) -> str:
    names = {bytes: "binary data (!!binary)", set: "a set (!!set)", tuple: "a tuple"}
    return names.get(type(value), f"a {type(value).__name__}")


def plain_data(value: Any, source: str | None, *, convert_keys: bool) -> Any:
    """Check that *value* is JSON-shaped; return it (keys converted in place if asked).

    With *convert_keys* (data this module's caller owns, e.g. freshly parsed
    YAML), a non-string scalar key becomes JSON's string for it; otherwise it
    is an error naming the path, like any non-JSON value.
    """
    if _already_plain(value):
        return value
    done: set[int] = set()
    on_path: set[int] = set()
    todo: list[tuple[Any, bool, tuple[Any, ...]]] = [(value, False, ())]
    while todo:
        item, finished, path = todo.pop()
        if finished:
            on_path.discard(id(item))
            done.add(id(item))
            continue
        if isinstance(item, _VALUE_SCALARS):
            continue
        if not isinstance(item, (dict, list)):
            raise exception.StackValidationFailed(
                f"the value is {_type_name(item)}; templates hold only maps, lists, strings, "
                "numbers, booleans and null",
                source=source,
                path=list(path),
            )
        if id(item) in on_path:
            raise exception.StackValidationFailed(
                "the value contains itself; templates must be plain trees of maps, lists and "
                "scalars",
                source=source,
                path=list(path),
            )
        if id(item) in done:
            continue
        on_path.add(id(item))
        todo.append((item, True, path))
        if isinstance(item, list):
            todo.extend((v, False, (*path, i)) for i, v in enumerate(item))
            continue
        if not all(isinstance(k, str) for k in item):
            _fix_keys(item, source, path, convert_keys)
        todo.extend((v, False, (*path, k)) for k, v in item.items())
    return value


def _already_plain(value: Any) -> bool:
    """The fast path (C speed): True when a JSON round trip gives *value* back unchanged.

    A non-string key, a tuple, a NaN or a self-containing value make it False
    (or raise), and the walk then says exactly what and where.
    """
    try:
        return bool(json.loads(json.dumps(value)) == value)
    except (TypeError, ValueError, RecursionError):
        return False


def _fix_keys(
    item: dict[Any, Any], source: str | None, path: tuple[Any, ...], convert: bool
) -> None:
    pairs = []
    for k, v in item.items():
        name = json_key(k)
        if name is None or (not convert and not isinstance(k, str)):
            shown = _type_name(k) if name is None else f"{type(k).__name__} {k!r}"
            raise exception.StackValidationFailed(
                f"map keys must be strings, not {shown}", source=source, path=[*path, str(k)]
            )
        pairs.append((name, v))
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise exception.StackValidationFailed(
            f'the map has the key "{dup}" twice once keys are read as strings',
            source=source,
            path=[*path, dup],
        )
    item.clear()
    item.update(pairs)
