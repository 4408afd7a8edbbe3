"""Sphinx extension: a resource-type reference generated from plug-in schemas.

Add ``"sdk.sphinxext"`` to ``extensions`` in ``conf.py``, then write::

    .. plugsim:resource:: Vendor::Service::Thing
       :module: my_plugins.thing

    .. plugsim:resource:: Vendor::Service::Thing
       :class: my_plugins.thing.Thing

    .. plugsim:resources:: my_plugins.thing

The first form looks the type up in the module's ``available_resource_mapping()``
(or ``resource_mapping()``); the second documents the class directly; the third
documents every type of the module's mapping, sorted by name. Each reference
shows the class docstring, the properties (type, required, default, constraints,
update behaviour, version notes from the support-status chain, nested members),
the attributes (``show`` included) and a HOT example using the required
properties. Anything whose current support status is HIDDEN is left out. A
module or type that cannot be found is a Sphinx warning at the directive's
location, never a crash.

The rendering functions (:func:`resource_reference`, :func:`hot_example`,
:func:`example_value`, :func:`format_constraint`) do not need Sphinx to run a
build; they produce reStructuredText and YAML text.

The package is split by concept: :mod:`~sdk.sphinxext.lookup` finds the
classes, :mod:`~sdk.sphinxext.render` writes the reference,
:mod:`~sdk.sphinxext.examples` makes example values (with
:mod:`~sdk.sphinxext.patterns` for regular expressions) and
:mod:`~sdk.sphinxext.directives` is the Sphinx glue. This module is the
extension Sphinx loads and the names documented for authors.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

import sdk
from sdk.sphinxext.directives import PlugsimDomain, ResourceDirective, ResourcesDirective
from sdk.sphinxext.examples import example_value, hot_example
from sdk.sphinxext.lookup import find_resource_class, is_hidden, module_resource_types
from sdk.sphinxext.render import format_constraint, format_value, resource_reference

__all__ = [
    "PlugsimDomain",
    "ResourceDirective",
    "ResourcesDirective",
    "example_value",
    "find_resource_class",
    "format_constraint",
    "format_value",
    "hot_example",
    "is_hidden",
    "module_resource_types",
    "resource_reference",
    "setup",
]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the ``plugsim`` domain with its ``resource`` and ``resources`` directives."""
    app.add_domain(PlugsimDomain)
    return {
        "version": sdk.__version__,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
