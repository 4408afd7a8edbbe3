"""The Sphinx side: the ``plugsim`` domain and its ``resource`` / ``resources`` directives.

A module or type that cannot be found, or a broken schema, is a Sphinx
warning at the directive's location, never a crash.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.domains import Domain
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from sdk import exception
from sdk.resource import Resource
from sdk.sphinxext.lookup import find_resource_class, is_hidden, module_resource_types
from sdk.sphinxext.render import resource_reference

LOG = logging.getLogger(__name__)


class _ReferenceDirective(SphinxDirective):
    """Shared machinery: warn instead of failing, parse generated reST into nodes."""

    directive_name: ClassVar[str] = ""

    def _warn(self, message: str) -> list[nodes.Node]:
        LOG.warning("%s: %s", self.directive_name, message, location=self.get_location())
        return []

    def _render(self, items: list[tuple[str, type[Resource]]]) -> list[nodes.Node]:
        lines: list[str] = []
        for type_name, cls in items:
            try:
                lines += resource_reference(type_name, cls)
            except exception.PlugsimError as ex:
                self._warn(str(ex))
                continue
            with contextlib.suppress(TypeError):  # rebuild the page when the plug-in changes
                source = inspect.getsourcefile(cls)
                if source:
                    self.env.note_dependency(source)
        if not lines:
            return []
        source = f"<{self.directive_name} {' '.join(self.arguments)}>"
        content = StringList(lines, source=source)
        holder = nodes.section()
        holder.document = self.state.document
        nested_parse_with_titles(self.state, content, holder)
        return holder.children


class ResourceDirective(_ReferenceDirective):
    """``.. plugsim:resource:: Type::Name`` with ``:module:`` or ``:class:``."""

    directive_name = "plugsim:resource"
    required_arguments = 1
    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "module": directives.unchanged_required,
        "class": directives.unchanged_required,
    }

    def run(self) -> list[nodes.Node]:
        """Render the reference of one resource type, or warn."""
        type_name = self.arguments[0]
        try:
            cls = find_resource_class(
                type_name, self.options.get("module"), self.options.get("class")
            )
        except exception.PlugsimError as ex:
            return self._warn(str(ex))
        if is_hidden(cls.support_status):
            return self._warn(f"resource type '{type_name}' is HIDDEN and is not documented")
        return self._render([(type_name, cls)])


class ResourcesDirective(_ReferenceDirective):
    """``.. plugsim:resources:: dotted.module``: every visible type of the module's mapping."""

    directive_name = "plugsim:resources"
    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        """Render the reference of every type the module maps, sorted by name."""
        try:
            types = module_resource_types(self.arguments[0])
        except exception.PlugsimError as ex:
            return self._warn(str(ex))
        items = [(n, c) for n, c in types.items() if not is_hidden(c.support_status)]
        return self._render(items)


class PlugsimDomain(Domain):
    """The ``plugsim`` domain: it only holds the reference directives (no objects)."""

    name = "plugsim"
    label = "plugsim"
    directives: ClassVar[dict[str, Any]] = {
        "resource": ResourceDirective,
        "resources": ResourcesDirective,
    }

    def clear_doc(self, docname: str) -> None:
        """Nothing is recorded per document."""

    def merge_domaindata(self, docnames: Any, otherdata: dict[str, Any]) -> None:
        """Nothing is recorded per document, so parallel reads have nothing to merge."""
