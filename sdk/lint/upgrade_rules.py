"""Rules comparing a plug-in's schemas with its previous version (PS8xx, ``plugsim lint --against``).

A release that changes a schema the wrong way breaks stacks created with the previous one: a removed
property makes their templates invalid, a narrowed constraint refuses values they hold, a changed default
or a property that can no longer be updated in place changes or replaces their resources at the next
update. Heat's deprecation policy (SUPPORTED, then DEPRECATED, then HIDDEN with a translation rule) is
the way to retire a name; these rules check a plug-in follows it. They run only with ``--against``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.upgrade import Versions

_RETIRED = ("DEPRECATED", "HIDDEN")


def _at(info: dict[str, Any], **args: Any) -> Hit:
    path = info.get("file") or "<unknown>"
    try:
        path = os.path.relpath(path)
    except ValueError:
        pass
    return Hit(path, int(info.get("line") or 1), 0, args)


def _common(versions: Versions) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    for name in sorted(set(versions.old) & set(versions.new)):
        yield name, versions.old[name], versions.new[name]


def _members(versions: Versions, key: str) -> Iterator[tuple[str, str, dict, dict | None, dict]]:
    """(type, member, old schema, new schema or None, new class info) for members the old version had."""
    for type_name, old, new in _common(versions):
        for member, old_schema in old[key].items():
            yield type_name, member, old_schema, new[key].get(member), new


@rule(
    "PS801",
    "property-removed-without-deprecation",
    severity=Severity.ERROR,
    family="upgrade",
    scope="upgrade",
    message="{type}: property '{prop}' was removed, but the old version still supported it",
    summary="A property is removed before it was deprecated or hidden.",
    doc="""
        Stacks created with the old version name the property in their templates; once it is gone
        their next update fails validation. Mark it DEPRECATED for a release, then HIDDEN with a
        translation rule to its replacement, and remove it only after that.
    """,
    bad="""
        # 1.0: 'flavor': Schema(STRING) ... 2.0: the key is simply gone
    """,
    good="""
        'flavor': properties.Schema(properties.Schema.STRING, support_status=support.SupportStatus(
            status=support.HIDDEN, version='2.0', message='Use size.')),
    """,
)
def _removed_property(versions: Versions) -> Iterator[Hit]:
    for type_name, prop, old, new, info in _members(versions, "properties"):
        if new is None and old["status"] not in _RETIRED:
            yield _at(info, type=type_name, prop=prop)


@rule(
    "PS802",
    "attribute-removed-without-deprecation",
    severity=Severity.ERROR,
    family="upgrade",
    scope="upgrade",
    message="{type}: attribute '{attr}' was removed, but the old version still supported it",
    summary="An attribute is removed before it was deprecated or hidden.",
    doc="""
        Templates read attributes with get_attr; removing one breaks every stack whose outputs or
        other resources use it. Deprecate it first and keep answering it until it is hidden.
    """,
    bad="""
        # 1.0: attributes_schema = {'ip': ...} ... 2.0: 'ip' is gone
    """,
    good="""
        'ip': attributes.Schema('Use addresses.', support_status=support.SupportStatus(
            status=support.DEPRECATED, version='2.0')),
    """,
)
def _removed_attribute(versions: Versions) -> Iterator[Hit]:
    for type_name, attr, old, new, info in _members(versions, "attributes"):
        if new is None and old["status"] not in _RETIRED:
            yield _at(info, type=type_name, attr=attr)


def _mentions(source: str, prop: str) -> bool:
    return bool(re.search(rf"['\"]{re.escape(prop)}['\"]|\b{re.escape(prop.upper())}\b", source))


@rule(
    "PS803",
    "hidden-without-translation",
    severity=Severity.ERROR,
    family="upgrade",
    scope="upgrade",
    message="{type}: property '{prop}' became HIDDEN without a translation rule",
    summary="A property is hidden but nothing translates old templates' values.",
    doc="""
        A hidden property is still accepted so old templates keep validating, but its value must go
        somewhere: ``translation_rules`` should move it to the property that replaces it. Without
        one, the value is silently ignored.
    """,
    bad="""
        'flavor': Schema(STRING, support_status=SupportStatus(status=HIDDEN)),  # and no rule
    """,
    good="""
        def translation_rules(self, props):
            return [TranslationRule(props, TranslationRule.REPLACE, ['size'], value_path=['flavor'])]
    """,
)
def _hidden_without_translation(versions: Versions) -> Iterator[Hit]:
    for type_name, prop, old, new, info in _members(versions, "properties"):
        if new is None or new["status"] != "HIDDEN" or old["status"] == "HIDDEN":
            continue
        if not _mentions(info.get("translation") or "", prop):
            yield _at(info, type=type_name, prop=prop)


@rule(
    "PS804",
    "update-no-longer-allowed",
    severity=Severity.ERROR,
    family="upgrade",
    scope="upgrade",
    message="{type}: property '{prop}' was updatable in place and no longer is",
    summary="update_allowed is turned off: existing resources get replaced on change.",
    doc="""
        A change to the property used to update the resource in place; now the engine replaces the
        resource, which for a server or a volume means losing it. Keep update_allowed, or make the
        change in a new property.
    """,
    bad="""
        'size': Schema(INTEGER)  # was Schema(INTEGER, update_allowed=True)
    """,
    good="""
        'size': Schema(INTEGER, update_allowed=True)
    """,
)
def _update_turned_off(versions: Versions) -> Iterator[Hit]:
    for type_name, prop, old, new, info in _members(versions, "properties"):
        if new is not None and old["update_allowed"] and not new["update_allowed"]:
            yield _at(info, type=type_name, prop=prop)


@rule(
    "PS805",
    "new-required-property",
    severity=Severity.ERROR,
    family="upgrade",
    scope="upgrade",
    message="{type}: property '{prop}' is required without a default; old templates lack it",
    summary="A property becomes required and has no default.",
    doc="""
        Templates written for the old version do not set it, so their next update fails
        validation. Give it a default, or keep it optional.
    """,
    bad="""
        'zone': Schema(STRING, required=True)  # new in 2.0
    """,
    good="""
        'zone': Schema(STRING, default='nova')
    """,
)
def _new_required(versions: Versions) -> Iterator[Hit]:
    for type_name, old_type, new_type in _common(versions):
        for prop, new in new_type["properties"].items():
            old = old_type["properties"].get(prop)
            if new["required"] and new["default"] is None and not (old and old["required"]):
                yield _at(new_type, type=type_name, prop=prop)


def _narrowing(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    if old["type"] != new["type"]:
        return f"its type changed from {old['type']} to {new['type']}"
    before = {c["kind"]: c for c in old["constraints"]}
    for constraint in new["constraints"]:
        kind = constraint["kind"]
        prior = before.get(kind)
        if prior is None:
            return f"it gained a {kind} constraint"
        if kind == "AllowedValues":
            lost = [v for v in prior.get("allowed", []) if v not in constraint.get("allowed", [])]
            if lost:
                return f"AllowedValues no longer allows {lost!r}"
        for bound, tighter in (("min", lambda a, b: b > a), ("max", lambda a, b: b < a)):
            a, b = prior.get(bound), constraint.get(bound)
            if b is not None and (a is None or tighter(a, b)):
                return f"{kind} {bound} went from {a} to {b}"
        for key in ("pattern", "name", "step", "offset"):
            if prior.get(key) != constraint.get(key):
                return f"{kind} {key} changed from {prior.get(key)!r} to {constraint.get(key)!r}"
    return None


@rule(
    "PS806",
    "schema-narrowed",
    severity=Severity.ERROR,
    family="upgrade",
    scope="upgrade",
    message="{type}: property '{prop}' refuses values the old version accepted: {why}",
    summary="A property's type or constraints got narrower.",
    doc="""
        Existing stacks hold values that were valid; after the upgrade their next update (or even a
        check) fails validation on them. Widen instead, or validate the new limit only for new
        values in the handler.
    """,
    bad="""
        'count': Schema(INTEGER, constraints=[Range(1, 5)])  # was Range(1, 10)
    """,
    good="""
        'count': Schema(INTEGER, constraints=[Range(1, 10)])
    """,
)
def _narrowed(versions: Versions) -> Iterator[Hit]:
    for type_name, prop, old, new, info in _members(versions, "properties"):
        why = _narrowing(old, new) if new is not None else None
        if why:
            yield _at(info, type=type_name, prop=prop, why=why)


@rule(
    "PS807",
    "default-changed",
    severity=Severity.WARNING,
    family="upgrade",
    scope="upgrade",
    message="{type}: the default of property '{prop}' changed from {old!r} to {new!r}",
    summary="A property's default changed: existing stacks change at their next update.",
    doc="""
        A stack that relies on the default has the old value; its next update, even with an
        unchanged template, sees the new default as a change (and, unless the property is
        updatable in place, replaces the resource).
    """,
    bad="""
        'size': Schema(INTEGER, default=20)  # was default=10
    """,
    good="""
        'size': Schema(INTEGER, default=10)  # a new default belongs in a new property or type
    """,
)
def _default_changed(versions: Versions) -> Iterator[Hit]:
    for type_name, prop, old, new, info in _members(versions, "properties"):
        if new is not None and old["default"] != new["default"]:
            yield _at(info, type=type_name, prop=prop, old=old["default"], new=new["default"])


def _same_schema(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["properties"] == b["properties"] and a["attributes"] == b["attributes"]


@rule(
    "PS808",
    "type-removed",
    severity=Severity.ERROR,
    family="upgrade",
    scope="upgrade",
    message="resource type {type} was removed{renamed}; keep the old name mapped",
    summary="A resource type is removed or renamed without an alias.",
    doc="""
        Every stack holding a resource of the type stops working. Keep mapping the old name (to the
        same class, or to a deprecated subclass) in resource_mapping().
    """,
    bad="""
        def resource_mapping():
            return {'Acme::DNS::Zone2': Zone}  # 'Acme::DNS::Zone' is gone
    """,
    good="""
        def resource_mapping():
            return {'Acme::DNS::Zone2': Zone, 'Acme::DNS::Zone': Zone}
    """,
)
def _type_removed(versions: Versions) -> Iterator[Hit]:
    added = sorted(set(versions.new) - set(versions.old))
    for name in sorted(set(versions.old) - set(versions.new)):
        old = versions.old[name]
        twin = next((n for n in added if _same_schema(versions.new[n], old)), None)
        where = versions.new[twin] if twin else next(iter(versions.new.values()), old)
        renamed = f" (renamed to {twin}?)" if twin else ""
        yield _at(where, type=name, renamed=renamed)
