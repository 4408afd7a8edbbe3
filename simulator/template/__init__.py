"""HOT templates: loading, versions, intrinsic functions, parameters, conditions.

The interface the engine uses::

    from simulator.template import load_template, StackDefinition, ResourceView, FunctionError

    tmpl = load_template(path_or_text_or_dict, files=None, source=None)
    tmpl.version          # canonical date, e.g. '2018-08-31' (aliases such as 'rocky' map to it)
    tmpl.source           # file name or None (used in messages)
    tmpl.description, tmpl.capabilities, tmpl.raw
    tmpl.capability_annotation()   # simulator.template.capabilities.Capabilities
    tmpl.parameters_schema()   # {name: ParamSchema}

    defn = StackDefinition(tmpl, env, params, stack_name=..., stack_id=...,
                           project_id="plugsim", parent_resource=None)
    defn.validate(type_lookup)         # type_lookup(type_name, resource_name) -> class
    defn.resource_definitions()        # {name: sdk.rsrc_defn.ResourceDefinition}, enabled only
    defn.dependencies()                # simulator.dependencies.Graph
    defn.resolver(view)                # value -> value with functions resolved
    defn.outputs(view)                 # [{'output_key', 'output_value', 'description',
                                       #   'output_error' (only on error)}]
    defn.parameters, defn.hidden_parameters
    defn.resolutions()                 # {type: template path} chosen from registry lists

``view`` is the engine's :class:`ResourceView`: ``reference_id(name)``,
``attribute(name, attr, path)`` (attr None = all attributes; the view
navigates *path*, see :func:`~simulator.template.functions.select_path`) and
``resource_facade(kind)``; it raises :class:`sdk.properties.ValueNotYetKnown`
for resources not created yet.

Parsed property values hold :class:`~simulator.template.functions.Function`
objects with ``.dependencies()`` and ``.result(view)``;
:func:`~simulator.template.functions.resolve` walks a structure.

Errors are :class:`sdk.exception.StackValidationFailed` (``FunctionError`` is
one) whose message starts with the file and the template path, e.g.
``web.yaml: resources.server.properties.name.get_param: ...``.
"""

from simulator.template.definition import StackDefinition
from simulator.template.functions import (
    Function,
    FunctionError,
    ResourceView,
    resolve,
    select_path,
)
from simulator.template.loader import load_template
from simulator.template.model import Template
from simulator.template.parameters import ParameterValues, ParamSchema
from simulator.template.scope import ParentInfo
from simulator.template.versions import ALIASES, VERSIONS

__all__ = [
    "ALIASES",
    "VERSIONS",
    "Function",
    "FunctionError",
    "ParamSchema",
    "ParameterValues",
    "ParentInfo",
    "ResourceView",
    "StackDefinition",
    "Template",
    "load_template",
    "resolve",
    "select_path",
]
