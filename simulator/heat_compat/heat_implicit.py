"""Heat plug-ins' ``add_dependencies``, asked while plugsim builds a definition's graph.

Heat calls every resource's ``add_dependencies(deps)`` after it has collected the explicit
requirements of a stack (``Stack._add_implicit_dependencies``); its networking types add edges
there (a port follows the subnets of its network). plugsim's engine asks a class method instead,
:meth:`sdk.resource.Resource.implicit_requirements`, with the stack as
:class:`simulator.implicit_deps.StackPeers`. :func:`implicit_requirements` is that method for a
Heat plug-in class that overrides ``add_dependencies``: it runs the class's own method on
stand-ins made from the peers and returns the names the resource was made to require.

What the method sees, as it would in Heat before the stack is created:

* ``self`` is an instance of the class (so ``super(Port, self)`` works) whose ``stack`` is a
  mapping of the stack's resources in template order (``values()``, ``[name]``, ``keys()``);
* each resource has ``name``, ``type()``, ``has_interface(type_name)`` (its type is that name, or
  the stack resolves that name to the resource's own class: Heat's ``ResourceInfo.name``
  comparison) and ``properties``: the peer's values (a ``get_resource`` is the resource's name, a
  ``get_attr`` None), through its class's schema (defaults, ``get``, conversion), after the
  class's translation rules that need no cloud (a Heat class's ``network_id`` moves to
  ``network``, as Heat's first parse does), or a plugsim type's own renames (``translations``,
  ``item_translations``) when the stack mixes the two;
* ``deps += (self, res)`` records an edge; ``deps.graph()[res]`` is what *res* requires so far
  (its explicit requirements, plus what ``self`` recorded);
* no cloud is asked: a client plug-in's finders and ``client()`` raise, which Heat's floating IP
  takes as "not on that subnet" (as when the network is the stack's own and not made yet).

An error inside ``add_dependencies`` ends it with the edges recorded so far and is otherwise
ignored, as Heat ignores it for a stored stack (every error) and for any stack (``ValueError``,
``TypeError``). Only an edge from ``self`` counts: no Heat 27 type adds one between two other
resources.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator, Mapping
from typing import Any

from sdk import exception
from sdk import properties as properties_mod
from simulator.heat_compat.neutron_plugin import RES_TYPES
from simulator.heat_compat.translation import apply_rules


class OfflineError(Exception):
    """Raised by a client plug-in asked for something while the graph is built."""


class _OfflineClientPlugin:
    """A client plug-in that names resource kinds and refuses every call."""

    def __init__(self, service: str) -> None:
        self._service = service

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in RES_TYPES:
            return RES_TYPES[name]
        service = self._service

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise OfflineError(f"{service}.{name}: no cloud is asked while the graph is built")

        return refuse


class _NoProperties(Mapping[str, Any]):
    """The properties of a resource whose values cannot be resolved: reading them fails as a
    bad value does in Heat (``ValueError``, which the types skip)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def _fail(self) -> Any:
        raise ValueError(f"the properties of {self._name} cannot be resolved yet")

    def __getitem__(self, key: str) -> Any:
        return self._fail()

    def get(self, key: str, default: Any = None) -> Any:
        return self._fail()

    def __iter__(self) -> Iterator[str]:
        return self._fail()

    def __len__(self) -> int:
        return self._fail()


def _properties(cls: type, name: str, peers: Any, standin: Any) -> Mapping[str, Any]:
    """*name*'s properties as *cls*'s ``add_dependencies`` reads them (see the module doc)."""
    values = peers.properties(name)
    if values is None:
        return _NoProperties(name)
    data = dict(values)
    path = ["resources", name, "properties"]
    renamed = getattr(cls, "renamed_properties", None)
    if standin is None and callable(renamed):  # a plugsim type: its own renames (``network_id``)
        try:
            data = renamed(data, path)
        except exception.StackValidationFailed:  # validation reports it; Heat skips such values
            return _NoProperties(name)
    props = properties_mod.Properties(
        getattr(cls, "properties_schema", None) or {}, data, path=path
    )
    rules_of = getattr(cls, "translation_rules", None)
    if standin is not None and callable(rules_of):
        try:
            rules = rules_of(standin, props)
        except Exception:  # noqa: BLE001 - the rules fail again, and are reported, at create
            rules = None
        if rules:
            apply_rules(props, rules, client_resolve=False)
    return props


class _Peer:
    """A resource of the stack whose class is not a Heat plug-in's (a plugsim type)."""

    def __init__(self, view: _StackView, name: str) -> None:
        self.name = name
        self._view = view
        self._properties: Mapping[str, Any] | None = None

    def type(self) -> str:
        return self._view.type_of(self.name)

    def has_interface(self, type_name: str) -> bool:
        return self._view.has_interface(self.name, type_name)

    @property
    def properties(self) -> Mapping[str, Any]:
        if self._properties is None:
            cls = self._view.peers.class_of(self.name)
            self._properties = _properties(cls, self.name, self._view.peers, None)
        return self._properties

    def __repr__(self) -> str:
        return f"<resource {self.name}>"


_STANDIN_CLASSES: weakref.WeakKeyDictionary[type, type] = weakref.WeakKeyDictionary()


def _standin_class(cls: type) -> type:
    """*cls* with its engine surface (stack, clients, properties, type) made of the peers."""
    found = _STANDIN_CLASSES.get(cls)
    if found is not None:
        return found

    def stack(self: Any) -> _StackView:
        return self.__dict__["_standin_view"]

    def properties(self: Any) -> Mapping[str, Any]:
        cached = self.__dict__.get("_standin_properties")
        if cached is None:
            view = self.__dict__["_standin_view"]
            cached = _properties(cls, self.name, view.peers, self)
            self.__dict__["_standin_properties"] = cached
        return cached

    def type_(self: Any) -> str:
        return self.__dict__["_standin_view"].type_of(self.name)

    def has_interface(self: Any, type_name: str) -> bool:
        return self.__dict__["_standin_view"].has_interface(self.name, type_name)

    def client_plugin(self: Any, name: str | None = None) -> _OfflineClientPlugin:
        return _OfflineClientPlugin(str(name or getattr(cls, "default_client_name", None)))

    def client(self: Any, name: str | None = None) -> Any:
        raise OfflineError(f"{name or 'client'}: no cloud is asked while the graph is built")

    def describe(self: Any) -> str:
        return f"<{cls.__name__} {self.name} (graph stand-in)>"

    found = type(
        cls.__name__,
        (cls,),
        {
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            "_plugsim_standin": True,
            "stack": property(stack),
            "properties": property(properties),
            "type": type_,
            "has_interface": has_interface,
            "client_plugin": client_plugin,
            "client": client,
            "__repr__": describe,
            "__str__": describe,
        },
    )
    _STANDIN_CLASSES[cls] = found
    return found


class _StackView(Mapping[str, Any]):
    """``self.stack`` of a stand-in: the stack's resources by name, in template order."""

    def __init__(self, peers: Any) -> None:
        self.peers = peers
        self._names = list(peers.names())
        self._known = set(self._names)
        self._made: dict[str, Any] = {}
        self._types: dict[str, str] = {}
        self._lookups: dict[str, type | None] = {}

    def __getitem__(self, name: str) -> Any:
        made = self._made.get(name)
        if made is None:
            if name not in self._known:
                raise KeyError(name)
            made = self._made[name] = self._make(name)
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def _make(self, name: str) -> Any:
        cls = self.peers.class_of(name)
        if isinstance(cls, type) and getattr(cls, "heat_plugin_class", False) is True:
            made: Any = object.__new__(_standin_class(cls))
            made.__dict__.update(name=name, _standin_view=self)
            return made
        return _Peer(self, name)

    def type_of(self, name: str) -> str:
        if name not in self._types:
            self._types[name] = str(self.peers.type_of(name))
        return self._types[name]

    def has_interface(self, name: str, type_name: str) -> bool:
        """Heat's ``Resource.has_interface``: the resource's type is *type_name*, or the stack
        resolves *type_name* to the resource's own class."""
        if self.type_of(name) == type_name:
            return True
        if type_name not in self._lookups:
            self._lookups[type_name] = self.peers.lookup(type_name)
        wanted = self._lookups[type_name]
        return wanted is not None and wanted is self.peers.class_of(name)


class _Graph:
    """``deps.graph()``: what each resource requires so far."""

    def __init__(self, deps: _Deps) -> None:
        self._deps = deps

    def __getitem__(self, node: Any) -> list[Any]:
        return self._deps.required_by(node)

    def get(self, node: Any, default: Any = None) -> Any:
        return self[node]


class _Deps:
    """Heat's ``Dependencies`` as ``add_dependencies`` uses it: ``+=`` a (requirer, required)
    pair, ``graph()``."""

    def __init__(self, view: _StackView) -> None:
        self._view = view
        self.pairs: list[tuple[Any, Any]] = []

    def __iadd__(self, pair: tuple[Any, Any]) -> _Deps:
        requirer, required = pair
        self.pairs.append((requirer, required))
        return self

    def graph(self) -> _Graph:
        return _Graph(self)

    def required_by(self, node: Any) -> list[Any]:
        name = getattr(node, "name", None)
        out = [self._view[r] for r in self._view.peers.requires(name) if r in self._view]
        out += [b for a, b in self.pairs if a is node and b is not None and b not in out]
        return out


_VIEWS: weakref.WeakKeyDictionary[Any, _StackView] = weakref.WeakKeyDictionary()


def implicit_requirements(cls: type, name: str, peers: Any) -> list[str]:
    """The names *cls*'s ``add_dependencies`` makes resource *name* require (see the module doc)."""
    view = _VIEWS.get(peers)
    if view is None:  # one per graph being built: its stand-ins serve every type that asks
        view = _VIEWS[peers] = _StackView(peers)
    if name not in view:
        return []
    me = view[name]
    deps = _Deps(view)
    with contextlib.suppress(Exception):  # Heat ignores them while it builds the graph
        me.add_dependencies(deps)
    out: list[str] = []
    for requirer, required in deps.pairs:
        found = getattr(required, "name", None)
        if requirer is me and isinstance(found, str) and found != name and found not in out:
            out.append(found)
    return out
