"""``heat.engine.translation`` under plugsim: property translation rules.

A plug-in returns :class:`TranslationRule` objects from
``translation_rules(props)``; :func:`apply_rules` rewrites the raw data of an
:class:`sdk.properties.Properties` accordingly before the resource uses it.
Supported rules: ``ADD`` (append to a list), ``REPLACE`` (move a value onto
the translation path when it is unset: from ``value_path``, or from the
sibling key ``value_name`` of each map the path reaches), ``DELETE`` and ``RESOLVE`` (replace
a value, or each item of a list, by what the rule's client plug-in's
``finder`` method returns for it, with the rule's ``entity`` first when it
has one, as Heat does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sdk import exception
from sdk.properties import ValueNotYetKnown
from simulator.heat_compat.missing import MissingCloudService, MissingHeatName


class TranslationRule:
    """One rule: what to do (``rule``) at ``translation_path`` with ``value``."""

    RULE_KEYS = (ADD, REPLACE, RESOLVE, DELETE) = ("Add", "Replace", "Resolve", "Delete")

    def __init__(
        self,
        properties: Any,
        rule: str,
        translation_path: Sequence[str],
        value: Any = None,
        value_name: str | None = None,
        value_path: Sequence[str] | None = None,
        client_plugin: Any = None,
        finder: str | None = None,
        entity: str | None = None,
        custom_value_path: Sequence[str] | None = None,
    ) -> None:
        if rule not in self.RULE_KEYS:
            raise exception.InvalidSchemaError(
                f"Unknown translation rule {rule!r}; valid rules are: {', '.join(self.RULE_KEYS)}"
            )
        if not translation_path:
            raise exception.InvalidSchemaError("A translation rule needs a translation_path")
        self.properties = properties
        self.rule = rule
        self.translation_path = list(translation_path)
        self.value = value
        self.value_name = value_name
        self.value_path = list(value_path) if value_path else None
        if rule == self.RESOLVE and not (client_plugin or finder):
            raise exception.InvalidSchemaError(
                f'"client_plugin" and "finder" should be specified for {self.RESOLVE} rule'
            )
        self.client_plugin = client_plugin
        self.finder = finder
        self.entity = entity

    def __repr__(self) -> str:
        return f"TranslationRule({self.rule}, {self.translation_path!r})"


def _container(data: dict[str, Any], path: list[str]) -> tuple[dict[str, Any] | None, str]:
    node: Any = data
    for key in path[:-1]:
        if not isinstance(node, dict) or not isinstance(node.get(key), dict):
            return None, path[-1]
        node[key] = dict(node[key])
        node = node[key]
    return (node if isinstance(node, dict) else None), path[-1]


def _containers(data: dict[str, Any], path: list[str]) -> list[tuple[dict[str, Any], str]]:
    """Every ``(map, key)`` the rule's *path* reaches, through lists item by item (as Heat).

    ``['networks', 'network']`` reaches the ``network`` key of each map in the
    ``networks`` list. Maps on the way are copied, never changed in place.
    """
    found: list[tuple[dict[str, Any], str]] = []

    def walk(node: dict[str, Any], rest: list[str]) -> None:
        if len(rest) == 1:
            found.append((node, rest[0]))
            return
        child = node.get(rest[0])
        if isinstance(child, dict):
            node[rest[0]] = dict(child)
            walk(node[rest[0]], rest[1:])
        elif isinstance(child, list):
            items = [dict(item) if isinstance(item, dict) else item for item in child]
            node[rest[0]] = items
            for item in items:
                if isinstance(item, dict):
                    walk(item, rest[1:])

    walk(data, list(path))
    return found


def _resolve_value(value: Any, rule: TranslationRule, resolve: Any) -> Any:
    """Heat's RESOLVE of *value*: each item of a list, a set value through the finder."""
    if value is not None and not isinstance(value, (str, int, float, bool, list)):
        try:
            value = resolve(value)  # a template function: its value first
        except ValueNotYetKnown:
            return value  # resolved once the value is known (Heat sees None here)
    if not value:
        return value
    if isinstance(value, list):
        return [_resolve_value(item, rule, resolve) for item in value]
    try:
        finder = getattr(rule.client_plugin, str(rule.finder))
    except MissingCloudService:
        raise  # the plug-in's service is not in the fake cloud: say that, not a missing name
    except AttributeError:
        finder = None
    if finder is None:
        raise MissingHeatName(
            f"{type(rule.client_plugin).__name__}.{rule.finder} "
            f"(the finder of a {TranslationRule.RESOLVE} translation rule)"
        )
    return finder(rule.entity, value) if rule.entity else finder(value)


def apply_rules(
    props: Any, rules: Sequence[TranslationRule], *, client_resolve: bool = True
) -> None:
    """Apply *rules* in order to the raw data of the Properties *props* (copied first).

    Without *client_resolve* (Heat's flag when it first parses a resource),
    ``RESOLVE`` rules ask the cloud nothing: they only check that the client
    plug-in's service is one the fake cloud runs.
    """
    data = dict(props.data or {})
    for rule in rules:
        if rule.rule == TranslationRule.RESOLVE and not client_resolve:
            if any(node.get(key) for node, key in _containers(data, rule.translation_path)):
                try:
                    getattr(rule.client_plugin, str(rule.finder))
                except MissingCloudService:
                    raise
                except AttributeError:
                    pass  # a finder the layer lacks is named when the lookup runs
            continue
        if rule.rule == TranslationRule.RESOLVE:
            resolve = getattr(props, "resolve", _same)
            for node, key in _containers(data, rule.translation_path):
                if key in node:
                    node[key] = _resolve_value(node[key], rule, resolve)
            continue
        if rule.rule == TranslationRule.REPLACE and rule.value_name and not rule.value_path:
            # the value of a sibling key moves onto the path, in each item of a list on the way
            # (Server's networks: ``uuid`` to ``network``)
            for item, key in _containers(data, rule.translation_path):
                value = item.pop(rule.value_name, None)
                if value is not None and item.get(key) is not None:
                    both = [*rule.translation_path[:-1], rule.value_name]
                    raise exception.StackValidationFailed(
                        error_message="Cannot define the following properties at the same "
                        f"time: {'.'.join(rule.translation_path)}, {'.'.join(both)}",
                        path=list(getattr(props, "path", []) or []),
                    )
                if value is not None:
                    item[key] = value
            continue
        node, key = _container(data, rule.translation_path)
        if node is None:
            continue
        if rule.rule == TranslationRule.ADD:
            extra = rule.value if isinstance(rule.value, list) else [rule.value]
            current = node.get(key)
            node[key] = [*(current if isinstance(current, list) else []), *extra]
        elif rule.rule == TranslationRule.DELETE:
            node.pop(key, None)
        elif rule.rule == TranslationRule.REPLACE:
            if rule.value_path:
                src, src_key = _container(data, rule.value_path)
                value = src.pop(src_key, None) if src is not None else None
                if value and node.get(key):  # Heat refuses the old key and the new one together
                    raise exception.StackValidationFailed(
                        error_message="Cannot define the following properties at the same "
                        f"time: {'.'.join(rule.translation_path)}, {'.'.join(rule.value_path)}",
                        path=list(getattr(props, "path", []) or []),
                    )
            else:
                value = rule.value
            if value is not None and node.get(key) is None:
                node[key] = value
    props.data = data


def _same(value: Any) -> Any:
    return value
