"""Reading template text: YAML or JSON, bounded, with timestamps kept as text.

:func:`parse_text` parses YAML (JSON is YAML) with PyYAML's safe loader (the C one when available),
with timestamps kept as strings so ``heat_template_version: 2016-10-14`` and date-like values stay
text, as in Heat, within the size and expansion limits of :mod:`simulator.limits`.
:func:`read_source` accepts a dict, text or a path.

A text parsed before is not parsed again: a campaign builds the same template (and its template
resources, and the update template) in thousands of worlds in one process. The parsed tree of each
recent text is remembered, and every caller gets its own copy of it (shared nodes, from YAML anchors,
stay shared), so nobody can change another's template.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from pathlib import Path
from typing import Any

import yaml

from sdk import exception
from simulator.limits import DEFAULTS, Limits, check_size
from simulator.template import files as template_files
from simulator.template.plain import check_yaml_nodes, may_expand, plain_data

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """The safe loader, with timestamps left as strings."""


def _timestamp_as_text(loader: Any, node: Any) -> str:
    return loader.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)

_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template", ".hot")

#: Texts whose parsed tree is remembered (most recently used kept).
PARSED_TEXTS = 64
_PARSED: OrderedDict[tuple[str, Limits], Any] = OrderedDict()


def _copy_tree(root: Any) -> Any:
    """A copy of a parsed tree of dicts and lists (scalars are immutable and shared).

    Iterative, like :func:`simulator.template.plain.plain_data`: a deeply nested text must not
    exhaust the stack here either.
    """
    if not isinstance(root, dict | list):
        return root
    copies: dict[int, Any] = {}
    todo: list[tuple[Any, Any]] = []

    def copy_of(value: Any) -> Any:
        if not isinstance(value, dict | list):
            return value
        copied = copies.get(id(value))
        if copied is None:
            copied = [] if isinstance(value, list) else {}
            copies[id(value)] = copied
            todo.append((value, copied))
        return copied

    top = copy_of(root)
    while todo:
        source, copied = todo.pop()
        if isinstance(source, list):
            copied.extend(copy_of(v) for v in source)
        else:
            for key, value in source.items():
                copied[key] = copy_of(value)
    return top


def parse_text(
    text: str, source: str | None, what: str = "template", *, limits: Limits = DEFAULTS
) -> Any:
    """Parse YAML (or JSON) text; errors name the file, line and column.

    The text must fit ``limits.max_template_size`` bytes and expand to at most
    ``limits.max_yaml_nodes`` values (see :mod:`simulator.template.plain`);
    map keys that are not strings become JSON's strings for them.
    """
    key = (text, limits)
    if key in _PARSED:
        _PARSED.move_to_end(key)
        return _copy_tree(_PARSED[key])
    data = _parse(text, source, what, limits)
    _PARSED[key] = data
    if len(_PARSED) > PARSED_TEXTS:
        _PARSED.popitem(last=False)
    return _copy_tree(data)


def _parse(text: str, source: str | None, what: str, limits: Limits) -> Any:
    """:func:`parse_text` without the memory of texts parsed before."""
    size = len(text) if len(text) * 4 <= limits.max_template_size else len(text.encode())
    check_size(size, f"the {what}", limits, source=source)
    try:
        if text.lstrip().startswith("{"):
            try:
                return plain_data(json.loads(text), source, convert_keys=True)
            except ValueError:
                pass
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            if may_expand(text, limits):
                check_yaml_nodes(node, limits, source, what)
            data = loader.construct_document(node)
        finally:
            loader.dispose()
        return plain_data(data, source, convert_keys=True)
    except yaml.YAMLError as ex:
        mark = getattr(ex, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(ex, "problem", None) or str(ex)
        if "nesting depth" in problem:  # PyYAML >= 6.0.3 limits nesting itself
            message = f"The {what} is nested too deeply to be read{where}"
        else:
            message = f"The {what} is not valid YAML{where}: {problem}"
        raise exception.StackValidationFailed(message, source=source, path=[]) from None
    except RecursionError:
        raise exception.StackValidationFailed(
            f"The {what} is nested too deeply to be read", source=source, path=[]
        ) from None


def read_source(
    src: Any, source: str | None, what: str = "template", *, limits: Limits = DEFAULTS
) -> tuple[Any, str | None, Path | None]:
    """Return ``(raw data, source name, directory)`` for a dict, text or a path."""
    if isinstance(src, dict):
        return plain_data(src, source, convert_keys=False), source, None
    if isinstance(src, os.PathLike) or (
        isinstance(src, str)
        and "\n" not in src
        and not src.lstrip().startswith("{")
        and (src.endswith(_TEMPLATE_SUFFIXES) or "\0" in src or os.path.isfile(src))
    ):
        path = Path(os.fspath(src))
        name = source or str(path)
        text = template_files.read_text(
            path, f"The {what} file", limits=limits, source=name, path=[]
        )
        return parse_text(text, name, what, limits=limits), name, path.resolve().parent
    if isinstance(src, str):
        return parse_text(src, source, what, limits=limits), source, None
    raise exception.StackValidationFailed(
        f"A {what} must be a map, YAML/JSON text or a file path, not {type(src).__name__}",
        source=source,
        path=[],
    )
