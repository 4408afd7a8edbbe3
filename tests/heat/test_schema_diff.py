"""The bundled OS::* types against Heat 27's schema of the same types (issue 21).

For every bundled type whose name starts with ``OS::``, the property names (nested
ones included), ``required``, ``update_allowed``, the HIDDEN/DEPRECATED support
status and the attribute names are compared with Heat's (printed by
``tools/heat_diff/heat_schema.py`` in the Heat virtualenv). Every difference left
must be one of those listed on purpose in ``docs/heat_schema_differences.yaml``
(shown in docs/heat-fidelity.rst), and every listed one must still be a
difference, so the list stays true.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
import yaml
from _heat_diff import ROOT, requires_heat

from simulator.heat_compat import heat_python

ACCEPTED = ROOT / "docs" / "heat_schema_differences.yaml"
DUMPER = ROOT / "tools" / "heat_diff" / "heat_schema.py"
#: Support statuses the comparison looks at (SUPPORTED and UNKNOWN count as one).
MARKED = ("HIDDEN", "DEPRECATED", "UNSUPPORTED")


def _nested(schema: Any) -> dict[str, Any] | None:
    inner = getattr(schema, "schema", None)
    if isinstance(inner, dict):
        return {str(k): _prop(v) for k, v in sorted(inner.items())}
    if inner is not None and isinstance(getattr(inner, "schema", None), dict):
        return _nested(inner)  # a list whose entries are maps
    return None


def _prop(schema: Any) -> dict[str, Any]:
    return {
        "type": str(schema.type).lower(),
        "required": bool(schema.required),
        "update_allowed": bool(getattr(schema, "update_allowed", False)),
        "immutable": bool(getattr(schema, "immutable", False)),
        "status": schema.support_status.status,
        "schema": _nested(schema),
    }


def describe(cls: type) -> dict[str, Any]:
    """plugsim's resource class *cls* in the shape ``heat_schema.py`` prints for Heat's."""
    props = getattr(cls, "properties_schema", {}) or {}
    attrs = getattr(cls, "attributes_schema", {}) or {}
    return {
        "properties": {str(k): _prop(v) for k, v in sorted(props.items())},
        "attributes": {
            str(k): {"status": v.support_status.status} for k, v in sorted(attrs.items())
        },
    }


def _status(entry: dict[str, Any]) -> str:
    return entry["status"] if entry["status"] in MARKED else "SUPPORTED"


def _props(type_name: str, where: str, ours: dict[str, Any], heat: dict[str, Any]) -> list[str]:
    out = []
    for name in sorted(set(ours) | set(heat)):
        label = f"{type_name} property {where}{name}"
        if name not in ours:
            out.append(f"{label}: missing ({_status(heat[name]).lower()} in Heat)")
            continue
        if name not in heat:
            out.append(f"{label}: not in Heat")
            continue
        mine, theirs = ours[name], heat[name]
        for key in ("required", "update_allowed"):
            if mine[key] != theirs[key]:
                out.append(f"{label}: {key} is {mine[key]}, Heat {theirs[key]}")
        if _status(mine) != _status(theirs):
            out.append(f"{label}: {_status(mine)}, Heat {_status(theirs)}")
        if mine["schema"] is not None and theirs["schema"] is not None:
            out += _props(type_name, f"{where}{name}.", mine["schema"], theirs["schema"])
    return out


def differences(type_name: str, ours: dict[str, Any], heat: dict[str, Any]) -> list[str]:
    """The differences between two described schemas, one sentence each, sorted."""
    out = _props(type_name, "", ours["properties"], heat["properties"])
    for name in sorted(set(ours["attributes"]) | set(heat["attributes"])):
        label = f"{type_name} attribute {name}"
        if name not in ours["attributes"]:
            out.append(f"{label}: missing ({_status(heat['attributes'][name]).lower()} in Heat)")
        elif name not in heat["attributes"]:
            out.append(f"{label}: not in Heat")
    return sorted(out)


def test_differences_name_each_kind_of_mismatch():
    ours = {
        "properties": {
            "a": {"required": True, "update_allowed": False, "status": "SUPPORTED", "schema": None},
            "b": {
                "required": False,
                "update_allowed": True,
                "status": "SUPPORTED",
                "schema": {
                    "x": {"required": False, "update_allowed": False, "status": "X", "schema": None}
                },
            },
        },
        "attributes": {"mine": {"status": "SUPPORTED"}},
    }
    heat = {
        "properties": {
            "a": {"required": False, "update_allowed": False, "status": "UNKNOWN", "schema": None},
            "b": {"required": False, "update_allowed": True, "status": "SUPPORTED", "schema": {}},
            "old": {"required": False, "update_allowed": False, "status": "HIDDEN", "schema": None},
        },
        "attributes": {"theirs": {"status": "SUPPORTED"}},
    }
    assert differences("T", ours, heat) == [
        "T attribute mine: not in Heat",
        "T attribute theirs: missing (supported in Heat)",
        "T property a: required is True, Heat False",
        "T property b.x: not in Heat",
        "T property old: missing (hidden in Heat)",
    ]


def _bundled() -> dict[str, type]:
    from simulator.world import World

    world = World()
    try:
        plugins = world.registry.plugins()
    finally:
        world.close()
    return {name: plugins[name] for name in sorted(plugins) if name.startswith("OS::")}


def accepted() -> dict[str, str]:
    """The differences kept on purpose: ``{difference: reason}`` (the file groups them by reason)."""
    data = yaml.safe_load(ACCEPTED.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for group in data["accepted"]:
        for difference in group["differences"]:
            assert difference not in out, f"{ACCEPTED.name}: {difference!r} is listed twice"
            out[str(difference)] = str(group["why"])
    return out


@requires_heat
def test_bundled_types_match_heat_27_but_for_the_listed_differences():
    bundled = _bundled()
    proc = subprocess.run(
        [heat_python(), str(DUMPER)],
        input=json.dumps(sorted(bundled)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    heat = json.loads(proc.stdout)
    unknown = sorted(name for name, schema in heat.items() if schema is None)
    assert not unknown, f"bundled types Heat 27 does not have: {unknown}"
    found = []
    for name, cls in bundled.items():
        found += differences(name, describe(cls), heat[name])
    listed = accepted()
    unexplained = [d for d in found if d not in listed]
    stale = [d for d in listed if d not in found]
    assert not unexplained, "differences from Heat 27 not listed in docs:\n" + "\n".join(
        unexplained
    )
    assert not stale, "listed differences that are gone (remove them):\n" + "\n".join(stale)


def test_the_accepted_list_gives_a_reason_for_each_difference():
    listed = accepted()
    assert listed, "the list of accepted differences is empty"
    assert all(len(why.split()) >= 3 for why in listed.values()), listed
    if ACCEPTED.name not in (ROOT / "docs" / "heat-fidelity.rst").read_text(encoding="utf-8"):
        pytest.fail("docs/heat-fidelity.rst does not show the list of accepted differences")
