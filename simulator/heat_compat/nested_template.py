"""Templates Heat's group plug-ins build for their nested stacks.

Heat's nested-stack types (``ResourceGroup``, ``ResourceChain``,
``InstanceGroup``) assemble their child template in code: they make
resource definitions (``heat.engine.rsrc_defn.ResourceDefinition``), put
them in a template (``heat.scaling.template.make_template``), add outputs
(``heat.engine.output.OutputDefinition``) whose values are ``get_attr`` /
``get_resource`` snippets made through ``template.functions[...]``, and hand
the template to ``create_with_template``. This module imitates that surface
(written from Heat's behaviour, not its code): a :class:`HeatTemplate`
renders to the plain HOT dict plugsim's nested stacks run, and reads a nested
stack's HOT dict back into definitions (``resource_definitions``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from sdk import rsrc_defn

#: The template version Heat's group plug-ins ask for by default.
DEFAULT_VERSION = ("heat_template_version", "2015-04-30")


#: The name a definition made without one carries until a template names it.
UNNAMED = "unnamed-member"


class HeatResourceDefinition(rsrc_defn.ResourceDefinition):
    """``heat.engine.rsrc_defn.ResourceDefinition``: sdk's definition with Heat's keywords.

    Heat names the explicit dependencies ``depends`` (sdk: ``depends_on``),
    lets a scaling group make a definition without a name (the template it is
    added to names it), and compares definitions by their HOT snippet, the
    name ignored; ``render_hot()`` gives that snippet.
    """

    __slots__ = ("_unnamed",)

    def __init__(
        self,
        name: str | None,
        resource_type: str,
        properties: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        depends: Iterable[str] | str | None = None,
        deletion_policy: str | None = None,
        update_policy: Mapping[str, Any] | None = None,
        description: str | None = None,
        external_id: str | None = None,
        condition: Any = None,
        *,
        depends_on: Iterable[str] | str | None = None,
    ) -> None:
        self._unnamed = name is None
        super().__init__(
            UNNAMED if name is None else name,
            resource_type,
            properties,
            metadata,
            depends_on=depends if depends is not None else depends_on,
            deletion_policy=deletion_policy,
            update_policy=update_policy,
            condition=condition,
            external_id=external_id,
            description=description,
        )

    @property
    def name(self) -> Any:  # type: ignore[override]
        """The resource's name (None until a template names an unnamed definition)."""
        return None if self._unnamed else self._name

    def freeze(self, **changes: Any) -> HeatResourceDefinition:
        """This definition with *changes* (sdk's keyword names, or Heat's ``depends``)."""
        fields = self._fields()
        if "depends" in changes:
            changes["depends_on"] = changes.pop("depends")
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise TypeError(f"ResourceDefinition.freeze() got unknown field(s): {unknown}")
        fields.update(changes)
        if fields["name"] == UNNAMED and self._unnamed and "name" not in changes:
            fields["name"] = None
        return HeatResourceDefinition(
            fields["name"],
            fields["resource_type"],
            fields["properties"],
            fields["metadata"],
            depends_on=fields["depends_on"],
            deletion_policy=fields["deletion_policy"],
            update_policy=fields["update_policy"],
            description=fields["description"],
            external_id=fields["external_id"],
            condition=fields["condition"],
        )

    def render_hot(self) -> dict[str, Any]:
        """The HOT snippet of this definition (intrinsic functions rendered)."""
        return render(self.to_dict())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, rsrc_defn.ResourceDefinition):
            return NotImplemented
        return render(self.to_dict()) == render(other.to_dict())

    def __hash__(self) -> int:
        return hash(self.resource_type)


class Function:
    """``heat.engine.function.Function``: an intrinsic function call in a built template.

    Built templates only hold the snippets made by :attr:`HeatTemplate.functions`;
    plugsim's nested stack resolves them when it runs the rendered template.
    """

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        self.stack = stack
        self.fn_name = fn_name
        self.args = args

    def render(self) -> dict[str, Any]:
        """The HOT form: ``{fn_name: args}``."""
        return {self.fn_name: render(self.args)}

    def result(self) -> Any:
        """The function's value: its HOT form, for the nested stack's engine to resolve."""
        return self.render()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Function) and self.render() == other.render()

    def __hash__(self) -> int:
        return hash(self.fn_name)

    def __repr__(self) -> str:
        return f"{{{self.fn_name}: {self.args!r}}}"


def render(value: Any) -> Any:
    """*value* with every :class:`Function` replaced by its HOT form (a deep copy)."""
    if isinstance(value, Function):
        return value.render()
    if isinstance(value, Mapping):
        return {k: render(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [render(v) for v in value]
    return copy.deepcopy(value)


def non_null_value(value: Any) -> bool:
    """Heat's filter of items a condition removed (Heat marks them with ``Ellipsis``)."""
    return value is not Ellipsis


def non_null_item(item: tuple[Any, Any]) -> bool:
    """:func:`non_null_value` of a ``(key, value)`` pair's value."""
    return item[1] is not Ellipsis


def function_names() -> dict[str, Any]:
    """The public names of the ``heat.engine.function`` shim."""
    return {
        "Function": Function,
        "resolve": lambda snippet, nullable=False: render(snippet),
        "_non_null_value": non_null_value,
        "_non_null_item": non_null_item,
    }


class OutputDefinition:
    """``heat.engine.output.OutputDefinition``: a stack output made in code."""

    def __init__(self, name: str, value: Any, description: str | None = None) -> None:
        self.name = name
        self._value = value
        self._description = description

    def get_value(self) -> Any:
        """The output's value as built (functions in HOT form; the nested engine resolves them)."""
        return render(self._value)

    def description(self) -> str:
        """The description, or Heat's placeholder when there is none."""
        return "No description given" if self._description is None else str(self._description)

    def render_hot(self) -> dict[str, Any]:
        """The HOT snippet of the output."""
        body: dict[str, Any] = {}
        if self._description is not None:
            body["description"] = self._description
        body["value"] = render(self._value)
        return body


_HOT_FUNCTIONS = ("get_attr", "get_resource", "get_param")
_CFN_FUNCTIONS = ("Fn::GetAtt", "Ref")
_CFN_KEYS = ("HeatTemplateFormatVersion", "AWSTemplateFormatVersion")
#: HOT key -> CFN key, for sections, resources and outputs (Heat's CFN templates' spelling).
_CFN_NAMES = {
    "resources": "Resources",
    "outputs": "Outputs",
    "parameters": "Parameters",
    "description": "Description",
    "type": "Type",
    "properties": "Properties",
    "metadata": "Metadata",
    "depends_on": "DependsOn",
    "deletion_policy": "DeletionPolicy",
    "update_policy": "UpdatePolicy",
    "condition": "Condition",
    "value": "Value",
}
_HOT_NAMES = {v: k for k, v in _CFN_NAMES.items()}


def _rename(data: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """Rename the section keys and, one level down, each entry's keys."""
    out: dict[str, Any] = {}
    for key, section in data.items():
        new = names.get(key, key)
        if new in ("resources", "outputs", "Resources", "Outputs") and isinstance(section, Mapping):
            section = {
                n: {names.get(k, k): v for k, v in body.items()}
                if isinstance(body, Mapping)
                else body
                for n, body in section.items()
            }
        out[new] = section
    return out


def _to_cfn(data: Mapping[str, Any]) -> dict[str, Any]:
    return _rename(data, _CFN_NAMES)


def _from_cfn(data: Mapping[str, Any]) -> dict[str, Any]:
    return _rename(data, _HOT_NAMES)


def _snippet_function(stack: Any, fn_name: str, args: Any) -> Function:
    return Function(stack, fn_name, args)


class HeatTemplate:
    """A template built in code (``heat.engine.template.Template`` as groups use it).

    :attr:`t` is the HOT dict; ``tmpl['resources']`` its resources section;
    :meth:`resource_definitions` the definitions by name.
    """

    RESOURCES = "resources"
    OUTPUTS = "outputs"
    PARAMETERS = "parameters"

    def __init__(
        self,
        version: tuple[str, str] = DEFAULT_VERSION,
        files: Mapping[str, Any] | None = None,
        env: Any = None,
    ) -> None:
        self.version = tuple(version)
        self.files = dict(files or {})
        self.env = env
        self._resources: dict[str, rsrc_defn.ResourceDefinition] = {}
        self._outputs: dict[str, OutputDefinition] = {}
        #: snippet makers: ``functions[name](stack, name, args)``; a CFN-format template
        #: (``HeatTemplateFormatVersion`` ...) has ``Fn::GetAtt`` / ``Ref`` instead
        names = _CFN_FUNCTIONS if self.is_cfn else _HOT_FUNCTIONS
        self.functions: dict[str, Callable[[Any, str, Any], Function]] = dict.fromkeys(
            names, _snippet_function
        )

    def add_resource(
        self, definition: rsrc_defn.ResourceDefinition, name: str | None = None
    ) -> None:
        """Add (or replace) the resource *definition* under *name* (its own name by default)."""
        key = name or definition.name
        if definition.name != key:
            definition = definition.freeze(name=key)
        if definition.depends_on:
            # as Heat's: a dependency on a resource not (yet) in the template is dropped
            kept = [d for d in definition.depends_on if d in self._resources]
            if len(kept) != len(definition.depends_on):
                definition = definition.freeze(depends_on=kept)
        self._resources[key] = definition

    def add_output(self, definition: OutputDefinition) -> None:
        """Add (or replace) an output."""
        self._outputs[definition.name] = definition

    def resource_definitions(self, stack: Any) -> dict[str, rsrc_defn.ResourceDefinition]:
        """The resource definitions by name, in the order they were added."""
        return dict(self._resources)

    def outputs(self, stack: Any = None) -> dict[str, OutputDefinition]:
        """The output definitions by name."""
        return dict(self._outputs)

    @property
    def is_cfn(self) -> bool:
        """True when the version is a CloudFormation format (Heat's InstanceGroup uses one)."""
        return self.version[0] in _CFN_KEYS

    @property
    def t(self) -> dict[str, Any]:
        """The template's dict: HOT, or CFN-keyed (``Resources``/``Type`` ...) for a CFN version."""
        key, value = self.version
        tmpl: dict[str, Any] = {key: value, self.RESOURCES: self[self.RESOURCES]}
        if self._outputs:
            tmpl[self.OUTPUTS] = {n: o.render_hot() for n, o in self._outputs.items()}
        if self.is_cfn:
            return _to_cfn(tmpl)
        return tmpl

    def __getitem__(self, section: str) -> Any:
        if section == self.RESOURCES:
            return {n: render(d.to_dict()) for n, d in self._resources.items()}
        if section == self.OUTPUTS:
            return {n: o.render_hot() for n, o in self._outputs.items()}
        return {}

    def __len__(self) -> int:
        return len(self._resources)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HeatTemplate:
        """Read a HOT dict (a nested stack's template) back into a template."""
        version = next(
            (
                (k, str(v))
                for k, v in data.items()
                if k.endswith("template_version") or k in _CFN_KEYS
            ),
            DEFAULT_VERSION,
        )
        tmpl = cls(version)
        if tmpl.is_cfn:
            data = _from_cfn(data)
        for name, body in (data.get(cls.RESOURCES) or {}).items():
            tmpl.add_resource(definition_from_snippet(name, body))
        for name, body in (data.get(cls.OUTPUTS) or {}).items():
            body = body if isinstance(body, Mapping) else {"value": body}
            tmpl.add_output(OutputDefinition(name, body.get("value"), body.get("description")))
        return tmpl


class HOTemplate20150430:
    """``heat.engine.hot.template.HOTemplate20150430`` as a scaling group's interpreter uses it.

    ``OS::Heat::AutoScalingGroup`` subclasses it to read its ``resource``
    property (a HOT resource snippet) into definition arguments with
    ``_rsrc_defn_args``; ``parse`` gives snippets back as they are.
    """

    #: the HOT keys of a resource snippet and the definition argument each gives
    FIELDS = (
        ("type", "resource_type", str),
        ("properties", "properties", Mapping),
        ("metadata", "metadata", Mapping),
        ("depends_on", "depends", (str, list)),
        ("deletion_policy", "deletion_policy", str),
        ("update_policy", "update_policy", Mapping),
        ("description", "description", str),
    )

    def __init__(
        self, tmpl: Mapping[str, Any], template_id: Any = None, files: Any = None, env: Any = None
    ) -> None:
        self.t = dict(tmpl)
        self.id = template_id
        self.files = dict(files or {})
        self.env = env

    def parse(self, stack: Any, snippet: Any, path: str = "") -> Any:
        """The snippet as it is (plugsim's engine resolved the functions already)."""
        return snippet

    def parse_conditions(self, stack: Any, snippet: Any, path: str = "") -> Any:
        """The conditions as they are."""
        return snippet

    def _rsrc_defn_args(self, stack: Any, name: str, data: Mapping[str, Any]):
        """``(argument, value)`` pairs of the definition of resource snippet *data*."""
        if "type" not in data:
            raise KeyError(f"Resource {name} is missing the type")
        for key, argument, kind in self.FIELDS:
            value = self.parse(stack, data.get(key))
            if value is not None and not isinstance(value, kind):
                raise TypeError(
                    f'Resource {name} "{key}" is a {type(value).__name__}, not the expected kind'
                )
            if argument == "depends" and isinstance(value, str):
                value = [value]
            yield argument, value


def hot_template_names() -> dict[str, Any]:
    """The public names of the ``heat.engine.hot.template`` shim."""
    return {"HOTemplate20150430": HOTemplate20150430}


#: The sections of an environment file (Heat's ``environment_format``).
ENVIRONMENT_SECTIONS = frozenset(
    {
        "parameters",
        "parameter_defaults",
        "resource_registry",
        "event_sinks",
        "encrypted_param_names",
        "parameter_merge_strategies",
    }
)


class ChildEnvironment:
    """What ``heat.engine.environment.get_child_environment`` gives a group's child stack.

    The parameters and the type mappings (``resource_registry``) of the child;
    plugsim's nested stack takes the parent's environments itself.
    """

    def __init__(self, params: Mapping[str, Any], registry: Mapping[str, Any]) -> None:
        self.params = dict(params)
        self.registry = dict(registry)

    def user_env_as_dict(self) -> dict[str, Any]:
        """The environment as an environment file's dict."""
        return {"parameters": dict(self.params), "resource_registry": dict(self.registry)}


def split_environment(child_params: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict]:
    """``(parameters, resource_registry)`` of a child's params: plain or environment-shaped."""
    data = dict(child_params or {})
    if (
        data
        and set(data) <= ENVIRONMENT_SECTIONS
        and ("parameters" in data or "resource_registry" in data)
    ):
        params = {
            **dict(data.get("parameter_defaults") or {}),
            **dict(data.get("parameters") or {}),
        }
        return params, dict(data.get("resource_registry") or {})
    return data, {}


def get_child_environment(
    parent_env: Any,
    child_params: Mapping[str, Any] | None,
    item_to_remove: Any = None,
    child_resource_name: Any = None,
) -> ChildEnvironment:
    """``heat.engine.environment.get_child_environment``: the child's params and type map."""
    params, registry = split_environment(child_params)
    return ChildEnvironment(params, registry)


def apply_registry(template: dict[str, Any], registry: Mapping[str, Any]) -> dict[str, Any]:
    """*template* with each resource type the child's ``resource_registry`` maps replaced.

    A group's child environment maps its member type (``OS::Heat::ScaledResource``)
    onto a real one; plugsim's nested stack runs the mapped type.
    """
    aliases = {k: v for k, v in registry.items() if isinstance(v, str) and "::" in v}
    if not aliases:
        return template
    cfn = any(k in template for k in _CFN_KEYS)
    section, type_key = ("Resources", "Type") if cfn else ("resources", "type")
    resources = {}
    for name, body in (template.get(section) or {}).items():
        if isinstance(body, Mapping) and body.get(type_key) in aliases:
            body = {**body, type_key: aliases[body[type_key]]}
        resources[name] = body
    return {**template, section: resources}


def environment_names() -> dict[str, Any]:
    """The public names of the ``heat.engine.environment`` shim."""
    return {"get_child_environment": get_child_environment}


def definition_from_snippet(name: str, body: Mapping[str, Any]) -> HeatResourceDefinition:
    """The definition of one HOT ``resources`` entry."""
    return HeatResourceDefinition(
        name,
        str(body.get("type", "")),
        body.get("properties"),
        body.get("metadata"),
        depends=body.get("depends_on"),
        deletion_policy=body.get("deletion_policy"),
        update_policy=body.get("update_policy"),
        description=body.get("description"),
        external_id=body.get("external_id"),
        condition=body.get("condition"),
    )


def template_dict(child_template: Any) -> dict[str, Any]:
    """The HOT dict of whatever a plug-in passes as a child template (template or dict)."""
    if isinstance(child_template, HeatTemplate):
        return child_template.t
    inner = getattr(child_template, "t", None)
    if isinstance(inner, Mapping):
        return render(inner)
    if isinstance(child_template, Mapping):
        return render(child_template)
    raise TypeError(
        f"a nested stack's template must be a template or a dict, "
        f"not {type(child_template).__name__}"
    )


def make_template(
    resource_definitions: Iterable[tuple[str, rsrc_defn.ResourceDefinition]],
    version: tuple[str, str] = DEFAULT_VERSION,
    child_env: Any = None,
) -> HeatTemplate:
    """``heat.scaling.template.make_template``: a template holding these named definitions."""
    tmpl = HeatTemplate(version, env=child_env)
    for name, definition in resource_definitions:
        tmpl.add_resource(definition, name)
    return tmpl


def _keep_definition(name: str, definition: Any) -> Any:
    return definition


def member_definitions(
    old_resources: Sequence[tuple[str, Any]],
    new_definition: Any,
    num_resources: int,
    num_new: int,
    get_new_id: Callable[[], str],
    customise: Callable[[str, Any], Any] = _keep_definition,
) -> Iterator[tuple[str, Any]]:
    """``heat.scaling.template.member_definitions``: the next step of a scaling group.

    *old_resources* are the current ``(name, definition)`` members, those to
    replace or drop first at the front. The group keeps the last
    *num_resources* of them (adding new members named by *get_new_id* when
    they fall short) and gives at most *num_new* members the new definition
    (customised per member by *customise*), new members counted first.
    """
    kept = list(old_resources)[max(len(old_resources) - num_resources, 0) :]
    added = num_resources - len(kept)
    replacements_left = num_new - added
    for name, old in kept:
        wanted = customise(name, new_definition)
        if replacements_left > 0 and wanted != old:
            replacements_left -= 1
            yield name, wanted
        else:
            yield name, old
    for _ in range(added):
        name = get_new_id()
        yield name, customise(name, new_definition)


def scaling_template_names() -> dict[str, Any]:
    """The public names of the ``heat.scaling.template`` shim."""
    return {"make_template": make_template, "member_definitions": member_definitions}


def output_names() -> dict[str, Any]:
    """The public names of the ``heat.engine.output`` shim."""
    return {"OutputDefinition": OutputDefinition, "FIELDS": ("Value", "Description")}
