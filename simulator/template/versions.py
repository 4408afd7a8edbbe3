"""The HOT versions: which sections, keys and functions each one accepts.

The tables follow Heat's HOT specification (``hot_spec``) and its template
classes; each entry below says what a version adds or removes:

==============  =========================================================
2013-05-23      get_attr, get_file, get_param, get_resource, list_join,
                resource_facade, str_replace + the CFN functions (Ref,
                Fn::Select, Fn::Join, Fn::Split, Fn::Replace, Fn::Base64,
                Fn::MemberListToMap, Fn::ResourceFacade, Fn::GetAZs)
2014-10-16      removes the CFN functions except Fn::Select
2015-04-30      adds repeat, digest
2015-10-15      removes Fn::Select; get_attr all-attributes form; list_join
                of several lists; str_replace JSON-encodes maps/lists;
                adds str_split
2016-04-08      adds map_merge
2016-10-14      adds map_replace, if, yaql; ``conditions`` section; resource
                ``condition``/``external_id``; output ``condition``;
                condition functions equals, get_param, not, and, or; repeat
                over maps; lower-case deletion policies
2017-02-24      adds filter, str_replace_strict; ``modulo`` constraint
2017-09-01      adds make_url, list_concat, list_concat_unique, contains,
                str_replace_vstrict; repeat ``permutations``; condition
                functions contains (and yaql)
2018-03-02      parameter ``tags``
2018-08-31      (same functions as 2018-03-02)
2021-04-16      ``if`` with two arguments (no false value)
==============  =========================================================

Note: Heat's code registers ``str_replace_vstrict`` with 2017-09-01 (pike);
plugsim follows the code. The top-level ``capabilities`` section is accepted
in every version (see :mod:`simulator.template.loader`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.template import functions_cfn as cfn
from simulator.template import functions_collections as coll
from simulator.template import functions_conditions as cond
from simulator.template import functions_core as core
from simulator.template import functions_strings as strs
from simulator.template import functions_yaql as yaql_fn


@dataclass(frozen=True)
class VersionSpec:
    """What one HOT version accepts."""

    name: str
    sections: frozenset[str]
    resource_keys: frozenset[str]
    output_keys: frozenset[str]
    parameter_keys: frozenset[str]
    constraint_keys: frozenset[str]
    functions: dict[str, type] = field(hash=False)
    condition_functions: dict[str, type] = field(hash=False)
    deletion_policies: frozenset[str] = frozenset({"Delete", "Retain", "Snapshot"})
    #: The key naming the version: ``heat_template_version`` or a CFN format's key.
    version_key: str = "heat_template_version"

    @property
    def label(self) -> str:
        """The version as a template writes it, for messages (``heat_template_version 2015-04-30``)."""
        return f"{self.version_key} {self.name}"

    @property
    def is_cfn(self) -> bool:
        """True for the CloudFormation formats (``AWSTemplateFormatVersion`` ...)."""
        return self.version_key != "heat_template_version"


_BASE_SECTIONS = frozenset(
    {
        "heat_template_version",
        "description",
        "parameter_groups",
        "parameters",
        "resources",
        "outputs",
        "capabilities",
    }
)
_BASE_RESOURCE_KEYS = frozenset(
    {
        "type",
        "properties",
        "metadata",
        "depends_on",
        "deletion_policy",
        "update_policy",
        "description",
    }
)
_BASE_PARAM_KEYS = frozenset(
    {"type", "description", "default", "constraints", "hidden", "label", "immutable"}
)
_BASE_CONSTRAINTS = frozenset(
    {"length", "range", "allowed_values", "allowed_pattern", "custom_constraint", "description"}
)

_V20130523 = {
    "get_attr": core.GetAttr,
    "get_file": core.GetFile,
    "get_param": core.GetParam,
    "get_resource": core.GetResource,
    "list_join": strs.ListJoin,
    "resource_facade": core.ResourceFacade,
    "str_replace": strs.StrReplace,
    "Ref": cfn.Ref,
    "Fn::Select": cfn.Select,
    "Fn::Join": cfn.Join,
    "Fn::Split": cfn.Split,
    "Fn::Replace": cfn.Replace,
    "Fn::Base64": cfn.Base64,
    "Fn::MemberListToMap": cfn.MemberListToMap,
    "Fn::ResourceFacade": cfn.CfnResourceFacade,
    "Fn::GetAZs": cfn.GetAZs,
}
_CFN_REMOVED_2014 = (
    "Ref",
    "Fn::Join",
    "Fn::Split",
    "Fn::Replace",
    "Fn::Base64",
    "Fn::MemberListToMap",
    "Fn::ResourceFacade",
    "Fn::GetAZs",
)


def _without(table: dict[str, type], *names: str) -> dict[str, type]:
    return {k: v for k, v in table.items() if k not in names}


_V20141016 = _without(_V20130523, *_CFN_REMOVED_2014)
_V20150430 = {**_V20141016, "repeat": coll.Repeat, "digest": strs.Digest}
_V20151015 = {
    **_without(_V20150430, "Fn::Select"),
    "get_attr": core.GetAttrAll,
    "list_join": strs.ListJoinMultiple,
    "str_replace": strs.StrReplaceJson,
    "str_split": strs.StrSplit,
}
_V20160408 = {**_V20151015, "map_merge": coll.MapMerge}
_V20161014 = {
    **_V20160408,
    "repeat": coll.RepeatWithMap,
    "map_replace": coll.MapReplace,
    "if": cond.If,
    "yaql": yaql_fn.Yaql,
}
_V20170224 = {**_V20161014, "filter": coll.Filter, "str_replace_strict": strs.StrReplaceStrict}
_V20170901 = {
    **_V20170224,
    "repeat": coll.RepeatWithPermutations,
    "make_url": strs.MakeURL,
    "list_concat": coll.ListConcat,
    "list_concat_unique": coll.ListConcatUnique,
    "contains": coll.Contains,
    "str_replace_vstrict": strs.StrReplaceVeryStrict,
}
_V20210416 = {**_V20170901, "if": cond.IfNullable}

_COND_20161014 = {
    "get_param": core.GetParam,
    "equals": cond.Equals,
    "not": cond.Not,
    "and": cond.And,
    "or": cond.Or,
}
_COND_20170901 = {**_COND_20161014, "contains": coll.Contains, "yaql": yaql_fn.Yaql}

_CONDITIONAL_SECTIONS = _BASE_SECTIONS | {"conditions"}
_CONDITIONAL_RESOURCE_KEYS = _BASE_RESOURCE_KEYS | {"condition", "external_id"}
_POLICIES_2016 = frozenset({"Delete", "Retain", "Snapshot", "delete", "retain", "snapshot"})


def _spec(
    name: str,
    functions: dict[str, type],
    conditions: dict[str, type] | None = None,
    *,
    modulo: bool = False,
    tags: bool = False,
) -> VersionSpec:
    conditional = conditions is not None
    return VersionSpec(
        name=name,
        sections=_CONDITIONAL_SECTIONS if conditional else _BASE_SECTIONS,
        resource_keys=_CONDITIONAL_RESOURCE_KEYS if conditional else _BASE_RESOURCE_KEYS,
        output_keys=frozenset({"value", "description"} | ({"condition"} if conditional else set())),
        parameter_keys=_BASE_PARAM_KEYS | ({"tags"} if tags else set()),
        constraint_keys=_BASE_CONSTRAINTS | ({"modulo"} if modulo else set()),
        functions=functions,
        condition_functions=conditions or {},
        deletion_policies=_POLICIES_2016
        if conditional
        else frozenset({"Delete", "Retain", "Snapshot"}),
    )


#: Every version, oldest first, by canonical date.
VERSIONS: dict[str, VersionSpec] = {
    s.name: s
    for s in (
        _spec("2013-05-23", _V20130523),
        _spec("2014-10-16", _V20141016),
        _spec("2015-04-30", _V20150430),
        _spec("2015-10-15", _V20151015),
        _spec("2016-04-08", _V20160408),
        _spec("2016-10-14", _V20161014, _COND_20161014),
        _spec("2017-02-24", _V20170224, _COND_20161014, modulo=True),
        _spec("2017-09-01", _V20170901, _COND_20170901, modulo=True),
        _spec("2018-03-02", _V20170901, _COND_20170901, modulo=True, tags=True),
        _spec("2018-08-31", _V20170901, _COND_20170901, modulo=True, tags=True),
        _spec("2021-04-16", _V20210416, _COND_20170901, modulo=True, tags=True),
    )
}

_CFN_HEAT_20121212 = {
    "Fn::FindInMap": cfn.FindInMap,
    "Fn::GetAZs": cfn.GetAZs,
    "Ref": cfn.Ref,
    "Fn::GetAtt": cfn.CfnGetAtt,
    "Fn::Select": cfn.Select,
    "Fn::Join": cfn.Join,
    "Fn::Split": cfn.Split,
    "Fn::Replace": cfn.Replace,
    "Fn::Base64": cfn.Base64,
    "Fn::MemberListToMap": cfn.MemberListToMap,
    "Fn::ResourceFacade": cfn.CfnResourceFacade,
}
_CFN_AWS_20100909 = {**_CFN_HEAT_20121212, "Fn::If": cond.If}
_CFN_CONDITIONS = {
    "Fn::Equals": cond.Equals,
    "Ref": cfn.ParamRef,
    "Fn::FindInMap": cfn.FindInMap,
    "Fn::Not": cfn.CfnNot,
    "Fn::And": cond.And,
    "Fn::Or": cond.Or,
}
_CFN_SECTIONS = frozenset({"description", "mappings", "parameters", "resources", "outputs"})


def _cfn_spec(key: str, name: str, functions: dict[str, type], conditional: bool) -> VersionSpec:
    extra = {"condition"} if conditional else set()
    return VersionSpec(
        name=name,
        sections=_CFN_SECTIONS | ({"conditions"} if conditional else set()),
        resource_keys=_BASE_RESOURCE_KEYS | extra,
        output_keys=frozenset({"value", "description"} | extra),
        parameter_keys=_BASE_PARAM_KEYS,
        constraint_keys=_BASE_CONSTRAINTS,
        functions=functions,
        condition_functions=_CFN_CONDITIONS if conditional else {},
        version_key=key,
    )


#: The CloudFormation formats Heat 27 reads, by ``Template.version`` (``<key>.<version>``);
#: see :mod:`simulator.template.cfn_format`.
CFN_VERSIONS: dict[str, VersionSpec] = {
    f"{s.version_key}.{s.name}": s
    for s in (
        _cfn_spec("AWSTemplateFormatVersion", "2010-09-09", _CFN_AWS_20100909, True),
        _cfn_spec("HeatTemplateFormatVersion", "2012-12-12", _CFN_HEAT_20121212, False),
    )
}

#: Release-name aliases accepted for ``heat_template_version``.
ALIASES: dict[str, str] = {
    "newton": "2016-10-14",
    "ocata": "2017-02-24",
    "pike": "2017-09-01",
    "queens": "2018-03-02",
    "rocky": "2018-08-31",
    "wallaby": "2021-04-16",
}

#: Every value-function name of any HOT version (a CFN-only name such as ``Fn::GetAtt`` is
#: plain data in a HOT template, as in Heat).
ALL_FUNCTIONS: frozenset[str] = frozenset(n for s in VERSIONS.values() for n in s.functions)
#: Every condition-function name of any HOT version.
ALL_CONDITION_FUNCTIONS: frozenset[str] = frozenset(
    n for s in VERSIONS.values() for n in s.condition_functions
)


def canonical(version: object) -> str | None:
    """Return the canonical date for a version value (date, alias), or None if unknown."""
    text = str(version).strip()
    if text in VERSIONS:
        return text
    return ALIASES.get(text.lower())


def get_spec(version: str) -> VersionSpec:
    """Return the spec of a canonical version (a HOT date or a CFN ``<key>.<version>``)."""
    spec = VERSIONS.get(version)
    return spec if spec is not None else CFN_VERSIONS[version]


def supported_versions() -> list[str]:
    """Return the accepted version values (dates, then aliases) for messages."""
    return [*VERSIONS, *ALIASES]


def unavailable_message(fn_name: str, spec: VersionSpec) -> str:
    """Explain that *fn_name* is not a function of *spec*'s version."""
    if spec.is_cfn:
        return (
            f'The function "{fn_name}" is not supported in {spec.label} templates '
            f"(functions: {', '.join(sorted(spec.functions))})"
        )
    having = [v for v, s in VERSIONS.items() if fn_name in s.functions]
    if having and having[0] > spec.name:
        hint = f"it was added in {having[0]}"
    elif having:
        hint = f"it was removed after {having[-1]}"
    else:
        hint = "it is not a HOT function"
    return (
        f'The function "{fn_name}" is not supported in heat_template_version {spec.name} ({hint})'
    )
