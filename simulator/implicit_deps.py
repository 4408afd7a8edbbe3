"""Implicit dependencies: the edges a resource type adds to its stack's graph by itself.

Some OpenStack APIs have ordering rules no property states: a port takes an address from whichever
subnet of its network exists, so it must come after every subnet of that network, and a subnet
cannot be deleted while a port holds an address from it. Heat adds those edges in its types'
``add_dependencies``; plugsim's types say the same through the class method
:meth:`sdk.resource.Resource.implicit_requirements`, which this module asks while the engine builds
a definition's graph (:meth:`simulator.stack.Stack.dependency_graph`).

The types compare property values as Heat does when it builds the graph of a stack about to be
created: a ``get_resource`` is the resource's name and a ``get_attr`` has no value yet, parameters
and other functions are resolved. A property that cannot be resolved compares as unknown. An
implicit edge that would close a cycle is refused with the same error as an explicit cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from simulator.dependencies import Graph
from simulator.property_validation import UnknownResourcesView
from simulator.template.functions import resolve

#: The class method a type overrides to add implicit requirements.
HOOK = "implicit_requirements"


class _NamesView(UnknownResourcesView):
    """Functions resolved as Heat resolves them before a stack is created."""

    def reference_id(self, name: str) -> Any:
        """``get_resource``: the resource's name."""
        return name

    def attribute(self, name: str, attr: str | None, path: Any = ()) -> Any:
        """``get_attr``: no value yet."""
        return None


class StackPeers:
    """What a type's :meth:`~sdk.resource.Resource.implicit_requirements` may read of its stack."""

    def __init__(
        self, definition: Any, classes: Mapping[str, type], lookup: Callable[[str], type | None]
    ) -> None:
        self._definition = definition
        self._classes = classes
        self._lookup = lookup
        self._explicit: Graph | None = None
        self._fields = definition.resource_properties()
        self._view = _NamesView()
        self._properties: dict[str, Mapping[str, Any] | None] = {}

    def implementing(self, type_name: str) -> list[str]:
        """The resources (in template order) whose class is, or derives from, *type_name*'s."""
        wanted = self._lookup(type_name)
        if wanted is None:
            return []
        return [
            n
            for n, cls in self._classes.items()
            if isinstance(cls, type) and issubclass(cls, wanted)
        ]

    def names(self) -> list[str]:
        """Every resource of the stack whose type has a class, in template order."""
        return list(self._classes)

    def class_of(self, name: str) -> type | None:
        """The class the stack uses for resource *name* (None: not one of the stack's)."""
        return self._classes.get(name)

    def type_of(self, name: str) -> str | None:
        """The type name resource *name* declares (None: not one of the stack's)."""
        defn = self._definition.resource_definitions().get(name)
        return None if defn is None else defn.resource_type

    def lookup(self, type_name: str) -> type | None:
        """The class the stack resolves *type_name* to (None: none)."""
        return self._lookup(type_name)

    def properties(self, name: str) -> Mapping[str, Any] | None:
        """*name*'s properties as they compare before the stack exists (None: unresolvable)."""
        if name not in self._properties:
            try:
                value = resolve(self._fields.get(name) or {}, self._view)
            except Exception:  # noqa: BLE001 - a property error is validation's to report
                value = None
            self._properties[name] = value if isinstance(value, Mapping) else None
        return self._properties[name]

    def requires(self, name: str) -> list[str]:
        """What *name* requires explicitly (references and ``depends_on``)."""
        if self._explicit is None:  # only the floating IP types ask
            self._explicit = self._definition.dependencies()
        return list(self._explicit.requires(name)) if name in self._explicit else []


def with_implicit(
    definition: Any,
    class_of: Callable[[str, str | None], type | None],
    *,
    source: str | None = None,
) -> Graph:
    """*definition*'s graph with the implicit requirements of its resources' types.

    ``class_of(type_name, resource_name)`` returns the class the stack would use (None when it
    has none: that resource adds nothing).
    """
    return _added(definition.dependencies(), _implicit(definition, class_of), source)


def _added(graph: Graph, extra: Mapping[str, list[str]], source: str | None) -> Graph:
    """*graph* with the *extra* requirements (a copy; *graph* itself when there are none)."""
    if not extra:
        return graph
    out = graph.copy()
    for name, requirements in extra.items():
        out.add(name, requirements)
    out.check_acyclic(source=source)
    return out


def _implicit(
    definition: Any, class_of: Callable[[str, str | None], type | None]
) -> dict[str, list[str]]:
    """``{resource: the resources of the stack its type makes it require}`` (only non-empty)."""
    classes = dict(_classes(definition, class_of))
    askers = [n for n, cls in classes.items() if _overrides(cls)]
    if not askers:
        return {}
    peers = StackPeers(definition, classes, lambda t: class_of(t, None))
    out: dict[str, list[str]] = {}
    for name in askers:
        found = classes[name].implicit_requirements(name, peers)
        wanted = [r for r in found if r != name and r in classes]
        if wanted:
            out[name] = wanted
    return out


def registry_classes(registry: Any, source: Any) -> Callable[[str, str | None], type | None]:
    """``class_of(type, resource name)`` of a stack's registry for *source*'s types."""
    from sdk import exception

    def class_of(type_name: str, name: str | None) -> type | None:
        try:
            found = registry.get_class(type_name, name, source)
        except exception.PlugsimError:
            return None
        return found if isinstance(found, type) else None

    return class_of


def check(definition: Any, type_lookup: Callable[[str, str], Any]) -> None:
    """Refuse *definition* when its types' implicit requirements close a cycle (as Heat's stack
    validation does); ``type_lookup(type, resource name)`` as for the definition's own checks."""

    def class_of(type_name: str, name: str | None) -> type | None:
        found = type_lookup(type_name, name)  # type: ignore[arg-type]
        return found if isinstance(found, type) else None

    extra = _implicit(definition, class_of)
    if extra:  # the explicit graph (already checked) is built again only when a type adds to it
        _added(definition.dependencies(), extra, definition.template.source)


def _classes(
    definition: Any, class_of: Callable[[str, str | None], type | None]
) -> Iterator[tuple[str, type]]:
    for name, defn in definition.resource_definitions().items():
        try:
            cls = class_of(defn.resource_type, name)
        except Exception:  # noqa: BLE001 - an unknown type is validation's to report
            cls = None
        if cls is not None:
            yield name, cls


def _overrides(cls: Any) -> bool:
    from sdk.resource import Resource

    own = getattr(cls, HOOK, None)
    return (
        own is not None
        and getattr(own, "__func__", None) is not Resource.implicit_requirements.__func__
    )
