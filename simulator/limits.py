"""Bounds on what plugsim reads and builds, with Heat's names and defaults where Heat has them.

A template that nests without end, a YAML alias bomb or a huge file must end
in one clear error, not in a crash, a hang or gigabytes of memory. Each bound
is a field of :class:`Limits`; the defaults (:data:`DEFAULTS`) can be changed
for a project in the ``limits`` map of its ``plugsim.yaml``::

    limits:
      max_nested_stack_depth: 3
      max_resources_per_stack: -1    # -1: no limit (as in Heat)

or for a whole engine with ``World(limits=Limits(...))``. A stack keeps the
values it was created with (:attr:`simulator.stack_source.StackSource.limits`),
and its nested stacks inherit them.

Exceeding a bound raises :class:`LimitExceeded` (a
:class:`sdk.exception.StackValidationFailed`) naming the file, the path in it,
the limit's key and its value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sdk import exception

#: The ``plugsim.yaml`` key holding the limits.
CONFIG_KEY = "limits"


@dataclass(frozen=True)
class Limits:
    """The bounds one stack (and its nested stacks) is built under.

    :ivar max_nested_stack_depth: levels of nested stacks below a top-level
        stack (Heat's option of the same name, default 5).
    :ivar max_template_size: bytes of any file read: template, environment,
        ``get_file`` file, template resource, ``plugsim.yaml`` (Heat's
        ``max_template_size``, 512 KiB).
    :ivar max_resources_per_stack: resources in one stack's template; ``-1``
        for no limit (Heat's name and default, 1000; Heat counts the whole tree
        of nested stacks, plugsim each stack on its own).
    :ivar max_yaml_nodes: values a YAML document may expand to once its
        aliases (``*name``) are followed (plugsim's own; a 512 KiB file
        without aliases holds far fewer), and values one intrinsic function
        may build (``repeat``, ``list_concat``, ``map_merge`` ...; see
        :mod:`simulator.template.budget`).
    :ivar max_string_length: characters of one string an intrinsic function
        builds (``str_replace``, ``list_join``, a ``repeat`` copy); 1 MiB,
        Heat's ``max_json_body_size`` (plugsim's own limit).
    :ivar max_printed_value_length: characters of one parameter or output value
        printed in a table (``-f json``/``yaml`` print the whole value).
    """

    max_nested_stack_depth: int = 5
    max_template_size: int = 512 * 1024
    max_resources_per_stack: int = 1000
    max_yaml_nodes: int = 1_000_000
    max_string_length: int = 1024 * 1024
    max_printed_value_length: int = 4096

    def overrides(self) -> dict[str, int]:
        """The values that differ from :data:`DEFAULTS` (what a stack stores)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }

    def updated(self, values: Mapping[str, Any], source: str | None = None) -> Limits:
        """Return these limits with *values* applied (checked; errors name *source*)."""
        return dataclasses.replace(self, **parse_limits(values, source))


#: Heat's (and plugsim's) default limits.
DEFAULTS = Limits()

#: The limit names, in documentation order.
NAMES = tuple(f.name for f in dataclasses.fields(Limits))

#: Limits that accept ``-1`` for "no limit".
_UNBOUNDABLE = frozenset({"max_resources_per_stack"})


class LimitExceeded(exception.StackValidationFailed):
    """A template, file or stack is bigger or deeper than a :class:`Limits` bound."""


def hint(name: str) -> str:
    """The sentence telling how to change limit *name*."""
    return f"(set limits: {{{name}: N}} in plugsim.yaml to change it)"


def exceeded(
    message: str, name: str, value: int, *, source: str | None, path: list[Any] | None = None
) -> LimitExceeded:
    """Return the error for *message* (``... more than``) exceeding limit *name* = *value*."""
    return LimitExceeded(
        f"{message}, more than {name} {value} {hint(name)}", source=source, path=path or []
    )


def parse_limits(values: Any, source: str | None = None) -> dict[str, int]:
    """Check a ``limits`` map; return ``{name: int}``; errors name *source* and the key."""
    where = f"{source}: " if source else ""
    if not isinstance(values, Mapping):
        raise exception.ConfigurationError(
            f"{where}limits must be a map of limit names to numbers "
            f"(e.g. limits: {{max_nested_stack_depth: 3}})"
        )
    out: dict[str, int] = {}
    for key, value in values.items():
        if key not in NAMES:
            raise exception.ConfigurationError(
                f"{where}limits.{key}: unknown limit (known: {', '.join(NAMES)})"
            )
        ok = isinstance(value, int) and not isinstance(value, bool)
        if ok and value < 1 and not (key in _UNBOUNDABLE and value == -1):
            ok = False
        if not ok:
            allowed = " or -1 for no limit" if key in _UNBOUNDABLE else ""
            raise exception.ConfigurationError(
                f"{where}limits.{key}: must be a positive whole number{allowed}, not {value!r}"
            )
        out[str(key)] = value
    return out


def read_config_limits(data: Mapping[str, Any], config_path: Any) -> dict[str, Any]:
    """The part of a ``plugsim.yaml`` map *data* this module owns: ``{"limits": {...}}``.

    Returns ``{}`` when the file sets no limits.
    """
    if data.get(CONFIG_KEY) is None:
        return {}
    return {CONFIG_KEY: parse_limits(data[CONFIG_KEY], str(config_path))}


# --- checks ------------------------------------------------------------------------------


def check_size(
    size: int, what: str, limits: Limits, *, source: str | None, path: Any = None
) -> None:
    """Raise :class:`LimitExceeded` when *size* bytes of *what* exceed ``max_template_size``."""
    if size > limits.max_template_size:
        raise exceeded(
            f"{what} is {size} bytes",
            "max_template_size",
            limits.max_template_size,
            source=source,
            path=path,
        )


def check_resource_count(count: int, limits: Limits, source: str | None) -> None:
    """Raise :class:`LimitExceeded` when a stack of *count* resources is over the limit."""
    limit = limits.max_resources_per_stack
    if limit != -1 and count > limit:
        raise exceeded(
            f"the stack has {count} resources",
            "max_resources_per_stack",
            limit,
            source=source,
            path=["resources"],
        )


def nested_depth(stack: Any) -> int:
    """How many stacks are above *stack* (0 for a top-level stack)."""
    depth, current = 0, stack
    while current.parent_id is not None:
        depth += 1
        parent = getattr(current.parent_resource, "context", None)
        parent_stack = getattr(parent, "engine_stack", None)
        current = parent_stack or current.world.get_stack(current.parent_id)
    return depth


def check_nested_depth(stack: Any, resource_name: str) -> None:
    """Refuse a nested stack below *stack* for its resource *resource_name* when too deep."""
    limits = stack.source.limit_values()
    depth = nested_depth(stack) + 1
    if depth > limits.max_nested_stack_depth:
        raise exceeded(
            f"the nested stack of {resource_name} would be {depth} levels deep",
            "max_nested_stack_depth",
            limits.max_nested_stack_depth,
            source=stack.source.template_name,
            path=["resources", resource_name],
        )


def cap_text(text: str, length: int) -> str:
    """Return *text* cut to *length* characters, saying how much was left out."""
    if length < 0 or len(text) <= length:
        return text
    return f"{text[:length]}... ({len(text) - length} more characters; -f json shows all)"
