"""Templates and resource types on the Orchestration API.

``POST /validate`` (the world's ``validate_template``, as ``plugsim template
validate``), the template versions and their functions
(:mod:`simulator.template.versions`), and the resource types of the world's
registry: list (``name``, ``support_status``, ``with_description``), show
(schemas from the plug-in classes' ``to_dict``) and a template generated
from a type's schema (``template_type`` hot or cfn).
"""

from __future__ import annotations

import fnmatch
from typing import Any

from fake_clouds.openstack.base import ApiRequest, Reply, route
from simulator.orchestration_wire.errors import HeatError, not_found
from simulator.orchestration_wire.stacks import StackBody
from simulator.orchestration_wire.validate import heat_validate


def _support(cls: Any) -> dict[str, Any]:
    status = getattr(cls, "support_status", None)
    if status is not None and hasattr(status, "to_dict"):
        return dict(status.to_dict())
    return {"status": "SUPPORTED", "version": None, "message": None, "previous_status": None}


def _doc(cls: Any) -> str:
    text = (cls.__doc__ or "").strip()
    return text.split("\n\n", 1)[0].replace("\n", " ")


class TemplateRoutes:
    """Mixin of :class:`~simulator.orchestration_wire.api.OrchestrationAPI`: templates, types."""

    world: Any

    @route("POST", "/v1/<tenant>/validate")
    def validate(self, req: ApiRequest, tenant: str) -> Reply:
        """``POST /validate``: the template's description, parameters and groups."""
        api: Any = self
        api.check_tenant(req, tenant)
        body = req.json()
        parsed = StackBody(body)
        show_nested = str(req.args.get("show_nested") or body.get("show_nested") or "")
        nested = show_nested.lower() in ("1", "true", "yes", "on")
        return Reply(200, heat_validate(self.world, parsed, show_nested=nested))

    @route("GET", "/v1/<tenant>/template_versions")
    def template_versions(self, req: ApiRequest, tenant: str) -> Reply:
        """``GET /template_versions``: every HOT and CloudFormation version read."""
        from simulator.template.versions import ALIASES, CFN_VERSIONS, VERSIONS

        api: Any = self
        api.check_tenant(req, tenant)
        rows = [
            {
                "version": f"heat_template_version.{name}",
                "type": "hot",
                "aliases": sorted(a for a, v in ALIASES.items() if v == name),
            }
            for name in VERSIONS
        ]
        rows += [{"version": key, "type": "cfn", "aliases": []} for key in CFN_VERSIONS]
        return Reply(200, {"template_versions": rows})

    @route("GET", "/v1/<tenant>/template_versions/<version>/functions")
    def template_functions(self, req: ApiRequest, tenant: str, version: str) -> Reply:
        """``GET /template_versions/{version}/functions`` (``with_condition_func``)."""
        from simulator.template.versions import CFN_VERSIONS, VERSIONS

        api: Any = self
        api.check_tenant(req, tenant)
        key = version.split(".", 1)[1] if version.startswith("heat_template_version.") else ""
        spec = VERSIONS.get(key) or CFN_VERSIONS.get(version)
        if spec is None:
            raise not_found("Template version", version)
        funcs = dict(spec.functions)
        if (req.args.get("with_condition_func") or "").lower() in ("1", "true", "yes"):
            funcs.update(spec.condition_functions)
        rows = [{"functions": n, "description": _doc(funcs[n])} for n in sorted(funcs)]
        return Reply(200, {"template_functions": rows})

    # --- resource types -------------------------------------------------------------

    def _types(self) -> dict[str, Any]:
        return dict(self.world.registry.plugins())

    @route("GET", "/v1/<tenant>/resource_types")
    def resource_types(self, req: ApiRequest, tenant: str) -> Reply:
        """``GET /resource_types``: names (or names and descriptions), filtered."""
        api: Any = self
        api.check_tenant(req, tenant)
        types = self._types()
        names = sorted(types)
        pattern = req.args.get("name")
        if pattern:
            names = [n for n in names if fnmatch.fnmatchcase(n, pattern) or pattern in n]
        statuses = req.args.getlist("support_status")
        if statuses:
            names = [n for n in names if _support(types[n]).get("status") in statuses]
        version = req.args.get("version")
        if version:
            names = [n for n in names if _support(types[n]).get("version") == version]
        if (req.args.get("with_description") or "").lower() in ("1", "true", "yes"):
            body = [{"resource_type": n, "description": _doc(types[n])} for n in names]
            return Reply(200, {"resource_types": body})
        return Reply(200, {"resource_types": names})

    def _type(self, name: str) -> Any:

        cls = self._types().get(name)
        if cls is None:
            raise HeatError(
                404, "EntityNotFound", f"The Resource Type ({name}) could not be found."
            )
        return cls

    @route("GET", "/v1/<tenant>/resource_types/<path:rtype>")
    def resource_type(self, req: ApiRequest, tenant: str, rtype: str) -> Reply:
        """``GET /resource_types/{type}``: property and attribute schemas."""
        api: Any = self
        api.check_tenant(req, tenant)
        if rtype.endswith("/template"):
            return self._type_template(req, rtype[: -len("/template")])
        cls = self._type(rtype)
        props = getattr(cls, "properties_schema", {}) or {}
        attrs = getattr(cls, "attributes_schema", {}) or {}
        body = {
            "resource_type": rtype,
            "properties": {k: v.to_dict() for k, v in sorted(props.items())},
            "attributes": {k: v.to_dict() for k, v in sorted(attrs.items())},
            "support_status": _support(cls),
            "description": _doc(cls),
        }
        return Reply(200, body)

    def _type_template(self, req: ApiRequest, rtype: str) -> Reply:
        cls = self._type(rtype)
        props = getattr(cls, "properties_schema", {}) or {}
        attrs = getattr(cls, "attributes_schema", {}) or {}
        cfn = (req.args.get("template_type") or "cfn").lower() == "cfn"
        params = {}
        for key, schema in sorted(props.items()):
            data = schema.to_dict()
            param = {
                "type": _param_type(str(data.get("type", "string"))),
                "description": data.get("description") or "",
            }
            if data.get("default") is not None:
                param["default"] = data["default"]
            params[key] = param
        if cfn:
            doc = {
                "HeatTemplateFormatVersion": "2012-12-12",
                "Description": f"Initial template of {rtype}",
                "Parameters": {
                    k: {**{kk.capitalize(): vv for kk, vv in p.items()}} for k, p in params.items()
                },
                "Resources": {
                    rtype.split("::")[-1]: {
                        "Type": rtype,
                        "Properties": {k: {"Ref": k} for k in params},
                    }
                },
                "Outputs": {
                    k: {
                        "Description": (attrs[k].to_dict().get("description") or ""),
                        "Value": {"Fn::GetAtt": [rtype.split("::")[-1], k]},
                    }
                    for k in sorted(attrs)
                },
            }
        else:
            doc = {
                "heat_template_version": "2016-10-14",
                "description": f"Initial template of {rtype}",
                "parameters": params,
                "resources": {
                    rtype.split("::")[-1]: {
                        "type": rtype,
                        "properties": {k: {"get_param": k} for k in params},
                    }
                },
                "outputs": {
                    k: {
                        "description": (attrs[k].to_dict().get("description") or ""),
                        "value": {"get_attr": [rtype.split("::")[-1], k]},
                    }
                    for k in sorted(attrs)
                },
            }
        return Reply(200, doc)


def _param_type(prop_type: str) -> str:
    return {
        "string": "string",
        "integer": "number",
        "number": "number",
        "boolean": "boolean",
        "map": "json",
        "list": "comma_delimited_list",
    }.get(prop_type.lower(), "string")
