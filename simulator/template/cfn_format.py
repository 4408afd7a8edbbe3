"""CloudFormation-format templates (``AWSTemplateFormatVersion``, ``HeatTemplateFormatVersion``).

Heat 27 reads two CFN-style formats besides HOT:

* ``AWSTemplateFormatVersion: '2010-09-09'``: sections ``Description``, ``Mappings``,
  ``Parameters``, ``Conditions``, ``Resources``, ``Outputs``; resources and outputs
  may carry a ``Condition``; ``Fn::If`` and the condition functions are available.
* ``HeatTemplateFormatVersion: '2012-12-12'`` (the format Heat's own
  ``OS::Heat::InstanceGroup`` writes its members in): the same without
  ``Conditions``, ``Condition`` keys and ``Fn::If``.

plugsim runs one engine: :func:`to_hot` checks a CFN template's sections, keys
and parameter declarations (errors worded as Heat words them, naming the
CFN path) and maps them onto the HOT-shaped dict the
:class:`~simulator.template.model.Template` reads (``Resources`` ->
``resources``, ``Properties`` -> ``properties``, ``MinLength`` -> a ``length``
constraint ...). The function table is the CFN one
(:data:`simulator.template.versions.CFN_VERSIONS`), and
:meth:`Template.fail <simulator.template.model.Template.fail>` names paths with
the CFN keys again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sdk import exception

#: The version keys of the CFN formats, with the versions Heat 27 accepts for each.
FORMATS: dict[str, tuple[str, ...]] = {
    "AWSTemplateFormatVersion": ("2010-09-09",),
    "HeatTemplateFormatVersion": ("2012-12-12",),
}

#: CFN section -> HOT section.
SECTIONS = {
    "Description": "description",
    "Mappings": "mappings",
    "Parameters": "parameters",
    "Conditions": "conditions",
    "Resources": "resources",
    "Outputs": "outputs",
}
#: CFN resource key -> HOT resource key.
RESOURCE_KEYS = {
    "Type": "type",
    "Properties": "properties",
    "Metadata": "metadata",
    "DependsOn": "depends_on",
    "DeletionPolicy": "deletion_policy",
    "UpdatePolicy": "update_policy",
    "Description": "description",
    "Condition": "condition",
}
#: CFN output key -> HOT output key.
OUTPUT_KEYS = {"Value": "value", "Description": "description", "Condition": "condition"}
#: CFN parameter type -> HOT parameter type.
PARAM_TYPES = {
    "String": "string",
    "Number": "number",
    "CommaDelimitedList": "comma_delimited_list",
    "Json": "json",
    "Boolean": "boolean",
}
PARAM_KEYS = (
    "Type",
    "Default",
    "NoEcho",
    "AllowedValues",
    "AllowedPattern",
    "MaxLength",
    "MinLength",
    "MaxValue",
    "MinValue",
    "Description",
    "ConstraintDescription",
    "Label",
)
#: The keys only ``AWSTemplateFormatVersion`` 2010-09-09 has.
_CONDITIONAL = frozenset({"Conditions", "Condition"})

_HOT_TO_CFN = {
    0: {v: k for k, v in SECTIONS.items()},
    2: {**{v: k for k, v in RESOURCE_KEYS.items()}, "value": "Value"},
}

Fail = Callable[[str, list[Any]], exception.StackValidationFailed]


def version_key(raw: dict[str, Any]) -> str | None:
    """Return the CFN version key *raw* carries (None for none)."""
    for key in FORMATS:
        if key in raw:
            return key
    return None


def check_version(raw: dict[str, Any], fail: Fail) -> tuple[str, str]:
    """Return ``(key, version)`` of a CFN template; raise on an ambiguous or unknown one."""
    present = [k for k in (*FORMATS, "heat_template_version") if isinstance(raw.get(k), str)]
    if len(present) > 1:
        raise fail(f"Ambiguous versions ({', '.join(present)})", [])
    key = version_key(raw)
    assert key is not None
    value = raw[key]
    if not isinstance(value, str) or value.strip() not in FORMATS[key]:
        known = ", ".join(f'"{k}.{v}"' for k, vs in FORMATS.items() for v in vs)
        raise fail(f"Unknown version ({key}.{value}). Should be one of: {known}", [key])
    return key, value.strip()


def cfn_path(path: list[Any]) -> list[Any]:
    """Name a HOT-shaped path with the CFN keys (``resources.x.properties`` -> ``Resources...``)."""
    out = list(path)
    if out and out[0] in _HOT_TO_CFN[0]:
        section = out[0]
        out[0] = _HOT_TO_CFN[0][section]
        if len(out) > 2 and section in ("resources", "outputs"):
            keys = RESOURCE_KEYS if section == "resources" else OUTPUT_KEYS
            reverse = {v: k for k, v in keys.items()}
            out[2] = reverse.get(out[2], out[2])
    return out


def to_hot(raw: dict[str, Any], key: str, fail: Fail) -> dict[str, Any]:
    """Check a CFN template's sections and keys and return it HOT-shaped (same values)."""
    conditional = key == "AWSTemplateFormatVersion"
    hot: dict[str, Any] = {}
    for section, value in raw.items():
        if section == key:
            continue
        if section not in SECTIONS or (section in _CONDITIONAL and not conditional):
            raise fail(f"The template section is invalid: {section}", [section])
        hot[SECTIONS[section]] = value
    if "resources" in hot:
        hot["resources"] = _entries(
            hot["resources"], "Resources", RESOURCE_KEYS, conditional, "resource", fail
        )
    if "outputs" in hot:
        hot["outputs"] = _entries(
            hot["outputs"], "Outputs", OUTPUT_KEYS, conditional, "output", fail
        )
    if "parameters" in hot:
        hot["parameters"] = _parameters(hot["parameters"], fail)
    mappings = hot.get("mappings")
    if mappings is not None and not isinstance(mappings, dict):
        raise fail("Mappings must be a map", ["Mappings"])
    return hot


def _entries(
    section: Any, name: str, keys: dict[str, str], conditional: bool, kind: str, fail: Fail
) -> Any:
    if not isinstance(section, dict):
        return section  # the HOT checks name the wrong shape
    out: dict[str, Any] = {}
    for entry, data in section.items():
        if not isinstance(data, dict):
            out[entry] = data
            continue
        mapped = {}
        for k, v in data.items():
            if k not in keys or (k in _CONDITIONAL and not conditional):
                raise fail(
                    f'"{k}" is not a valid keyword inside a {kind} definition', [name, entry, k]
                )
            mapped[keys[k]] = v
        out[entry] = mapped
    return out


def _number(value: Any, name: str, key: str, fail: Fail) -> int | float:
    if isinstance(value, bool):
        raise fail(
            f"{key} of parameter ({name}) must be a number, not {value!r}",
            ["Parameters", name, key],
        )
    if isinstance(value, (int, float)):
        return value
    try:
        return int(str(value))
    except ValueError:
        try:
            return float(str(value))
        except ValueError:
            raise fail(
                f"{key} of parameter ({name}) must be a number, not {value!r}",
                ["Parameters", name, key],
            ) from None


def _parameters(section: Any, fail: Fail) -> Any:
    if not isinstance(section, dict):
        return section
    out: dict[str, Any] = {}
    for name, schema in section.items():
        where = ["Parameters", name]
        if not isinstance(schema, dict):
            raise fail(f"Invalid parameter schema for ({name}): it must be a map", where)
        for k in schema:
            if k not in PARAM_KEYS:
                raise fail(f"Invalid key '{k}' for parameter ({name})", [*where, k])
        if "Type" not in schema:
            raise fail(f"Missing parameter type for parameter: {name}", where)
        ptype = schema["Type"]
        if ptype not in PARAM_TYPES:
            raise fail(f"Invalid type ({ptype})", [*where, "Type"])
        out[name] = _hot_schema(name, schema, fail)
    return out


def _hot_schema(name: str, schema: dict[str, Any], fail: Fail) -> dict[str, Any]:
    hot: dict[str, Any] = {"type": PARAM_TYPES[schema["Type"]]}
    for cfn_key, hot_key in (("Description", "description"), ("Label", "label")):
        if cfn_key in schema:
            hot[hot_key] = schema[cfn_key]
    if "Default" in schema:
        hot["default"] = schema["Default"]
    if str(schema.get("NoEcho", "false")).lower() == "true":
        hot["hidden"] = True
    described = schema.get("ConstraintDescription")
    constraints: list[dict[str, Any]] = []

    def add(constraint: dict[str, Any]) -> None:
        if described is not None:
            constraint["description"] = described
        constraints.append(constraint)

    for lo, hi, kind in (("MinValue", "MaxValue", "range"), ("MinLength", "MaxLength", "length")):
        if lo in schema or hi in schema:
            bounds = {
                bound: _number(schema[key], name, key, fail)
                for key, bound in ((lo, "min"), (hi, "max"))
                if key in schema
            }
            add({kind: bounds})
    if "AllowedValues" in schema:
        add({"allowed_values": schema["AllowedValues"]})
    if "AllowedPattern" in schema:
        add({"allowed_pattern": schema["AllowedPattern"]})
    if constraints:
        hot["constraints"] = constraints
    return hot
