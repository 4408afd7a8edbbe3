"""``OS::Heat::Stack``: a stack made by the orchestration service of a region.

Heat's type asks the Heat endpoint of the region named in ``context:
{region_name: ...}`` (default: the stack's own region) to create a stack from
``template`` (template text: what ``get_file`` gives) with ``parameters``.
Here the region must be one keystone lists (the fake identity's ``regions``: a
world file adds more with ``regions:``), checked when the template is
validated, with Heat's wording when it is not; the stack is then made by the
same engine as a child stack of this resource, its resources in the world's
fake cloud (the fake clouds run one set of services, whatever the region).

``outputs`` is the map of the remote stack's outputs, ``stack_name`` its name;
``get_resource`` gives its id. The ``credential_secret_id`` form (a remote
cloud's credentials in a Barbican secret) is refused at validation: no fake
serves Barbican.
"""

from __future__ import annotations

from typing import Any, ClassVar

import yaml

from sdk import attributes, constraints, exception, properties, support
from sdk.properties import ValueNotYetKnown
from sdk.stack_resource import StackResource

__all__ = ["RemoteStack"]

#: The region a context without ``region_name`` means (keystone's bootstrap region).
DEFAULT_REGION = "RegionOne"


class _TemplateLoader(yaml.SafeLoader):
    """YAML as Heat's template parser reads it: a date (``2015-10-15``) stays text."""


_TemplateLoader.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
)


class RemoteStack(StackResource):  # plugsim: ignore[PS301] - see the package
    """``OS::Heat::Stack``: a stack created through a region's orchestration endpoint."""

    support_status = support.SupportStatus(version="0.1.0")
    lint_properties: ClassVar[dict[str, Any]] = {
        "context": {"region_name": DEFAULT_REGION},
        "template": (
            "heat_template_version: 2015-10-15\n"
            "resources:\n  word: {type: OS::Heat::RandomString}\n"
            "outputs:\n  word: {value: {get_attr: [word, value]}}\n"
        ),
    }

    properties_schema = {
        "context": properties.Schema(  # plugsim: ignore[PS153] - one set of services per world
            properties.Schema.MAP,
            "Where the stack is made: region_name (default: the stack's region).",
            update_allowed=True,
            schema={
                "region_name": properties.Schema(
                    properties.Schema.STRING, "Region the stack is created in."
                ),
                "credential_secret_id": properties.Schema(
                    properties.Schema.STRING,
                    "A Barbican secret holding a remote cloud's credentials.",
                    update_allowed=True,
                ),
                "ca_cert": properties.Schema(
                    properties.Schema.STRING, "CA certificate for SSL.", update_allowed=True
                ),
                "insecure": properties.Schema(
                    properties.Schema.BOOLEAN,
                    "Do not verify the server's certificate.",
                    default=False,
                    update_allowed=True,
                ),
            },
        ),
        "template": properties.Schema(
            properties.Schema.STRING,
            "The template text of the stack to create.",
            required=True,
            update_allowed=True,
        ),
        "timeout": properties.Schema(  # plugsim: ignore[PS153] - timing only
            properties.Schema.INTEGER,
            "Minutes to wait for the stack's creation.",
            update_allowed=True,
            constraints=[constraints.Range(min=1)],
        ),
        "parameters": properties.Schema(  # plugsim: ignore[PS150] - undeclared ones fail, as in Heat
            properties.Schema.MAP,
            "Parameters passed to the stack.",
            default={},
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "stack_name": attributes.Schema("Name of the remote stack.", type=attributes.Schema.STRING),
        "outputs": attributes.Schema(
            "The remote stack's outputs, by output name.", type=attributes.Schema.MAP
        ),
    }

    def _region(self) -> str:
        ctx = self.properties["context"] or {}
        return str(ctx.get("region_name") or DEFAULT_REGION)

    def _template(self) -> dict[str, Any]:
        return self._parse(self.properties["template"])

    def _check_region(self) -> None:
        """Refuse a region keystone does not list, as Heat fails to reach its endpoint."""
        region = self._region()
        try:
            known = sorted(str(r.id) for r in self.client("identity").regions.list())
        except ValueNotYetKnown:
            return
        if region not in known:
            heat = (
                f'Cannot establish connection to Heat endpoint at region "{region}" due to '
                f'"publicURL endpoint for orchestration service in {region} region not found"'
            )
            err = exception.StackValidationFailed(
                error_message=(
                    f"{heat} (regions: {', '.join(known)}; a world file adds one with regions:)"
                ),
                path=["resources", self.name, "properties", "context", "region_name"],
            )
            err.wire_message = heat  # type: ignore[attr-defined] - Heat's answer names no path
            raise err

    def validate(self) -> None:
        """Check the region, refuse a Barbican credential, validate the remote template."""
        super().validate()
        ctx = self.properties["context"] or {}
        if ctx.get("credential_secret_id"):
            raise exception.StackValidationFailed(
                error_message=(
                    "context.credential_secret_id needs Barbican (a remote cloud's credentials "
                    "in a secret), which no fake cloud serves: use region_name"
                ),
                path=["resources", self.name, "properties", "context", "credential_secret_id"],
            )
        self._check_region()
        check = getattr(self.context, "validate_nested", None)
        template = self._with_given_values(self._template())
        if check is not None and template is not None:
            try:
                check(template, self.name)
            except exception.StackValidationFailed as ex:
                where = f'Failed validating stack template using Heat endpoint at region "{self._region()}"'
                err = exception.StackValidationFailed(
                    error_message=f'{where} due to "{ex}"',
                    path=["resources", self.name, "properties", "template"],
                )
                # the remote Heat's answer, as heatclient words it, with no path (as Heat)
                remote = getattr(ex, "wire_message", None) or str(ex)
                err.wire_message = f'{where} due to "ERROR: {remote}"'  # type: ignore[attr-defined]
                raise err from None

    def _with_given_values(self, template: dict[str, Any]) -> dict[str, Any] | None:
        """*template* with the given parameter values as defaults, for validation alone.

        Heat's validate call takes no parameter values; a parameter neither given nor
        defaulted leaves the template unchecked here (None) and is reported at create.
        """
        given = dict(self.properties["parameters"] or {})
        declared = template.get("parameters") or {}
        if not isinstance(declared, dict):
            return template
        params = {}
        for key, schema in declared.items():
            if isinstance(schema, dict) and key in given:
                schema = {**schema, "default": given[key]}
            if not isinstance(schema, dict) or "default" not in schema:
                return None
            params[key] = schema
        return {**template, "parameters": params}

    async def handle_create(self) -> None:
        """Create the remote stack from the template text and parameters."""
        self._check_region()
        await self.create_nested(self._template(), dict(self.properties["parameters"] or {}))

    async def handle_update(
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Update the remote stack to the new template and parameters (as Heat, always)."""
        diff = dict(prop_diff or {})
        template = self._parse(diff["template"]) if "template" in diff else None
        params = diff.get("parameters", self.properties["parameters"]) or {}
        await self.update_nested(template, dict(params))

    def _parse(self, text: Any) -> dict[str, Any]:
        try:
            parsed = yaml.load(text, Loader=_TemplateLoader) if isinstance(text, str) else text  # noqa: S506
        except yaml.YAMLError as ex:
            raise exception.StackValidationFailed(
                error_message=f"template is not valid YAML or JSON: {str(ex).splitlines()[0]}",
                path=["resources", self.name, "properties", "template"],
            ) from None
        if not isinstance(parsed, dict):
            raise exception.StackValidationFailed(
                error_message="The template is not a JSON object or YAML mapping.",
                path=["resources", self.name, "properties", "template"],
            )
        return parsed

    def _resolve_attribute(self, name: str) -> Any:
        child = self.nested()
        if child is None:
            return None
        if name == "stack_name":
            return child.name
        if name == "outputs":
            declared = child.template.get("outputs") or {}
            return {key: child.output(key) for key in declared}
        return None
