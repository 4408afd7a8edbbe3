"""Validating every resource's properties before any resource is touched.

Heat checks each resource's properties when a stack is validated, not only
when the resource is created; plugsim does the same. For each enabled
resource the plug-in class is instantiated with a :class:`ValidationContext`
and a resolver that raises :class:`sdk.properties.ValueNotYetKnown` for
anything that depends on another resource (``get_resource``, ``get_attr``),
and its ``validate()`` runs: unknown and missing properties, wrong types and
broken constraints are found with their path
(``resources.<name>.properties.<prop>``) while values not yet known are only
checked for presence.

A resource that builds a nested stack from its properties (the groups) can
check that stack's template too: :meth:`ValidationContext.validate_nested`
validates a template with the environment, files and plug-ins of the stack
being validated, as Heat validates a group's member definition.

Custom constraints get the fake cloud's client plug-ins through the
validation context, so a template naming an image the cloud does not have
fails validation. Without clients (validating a template outside a world)
those checks are skipped rather than guessed. A resource with an explicit
``depends_on`` is checked without clients too: ``depends_on`` exists for
dependencies the properties do not show, such as a subnet naming (by name,
not ``get_resource``) the network another resource of the stack creates, and
such a value cannot be looked up before that resource exists. Heat would
reject that template at validation; plugsim lets the create find out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from sdk import exception
from sdk.clients import ClientPlugin
from sdk.context import CounterClock, StackInfo
from sdk.properties import ValueNotYetKnown

#: ``client_source(name)`` returns the client plug-in for service *name*.
ClientSource = Callable[[str], ClientPlugin]
#: ``nested_validator(template, name)`` validates the template of a nested stack named *name*.
NestedValidator = Callable[[Mapping[str, Any], str], None]


class ValidationContext:
    """The resource context of a resource that is only being validated.

    It offers the clients (when there are any), a clock and the stack's
    identity; a resource being validated must not change state or data, so
    :meth:`state_changed` and :meth:`data_changed` refuse.
    """

    poll_interval = 1.0
    max_poll_interval = 30.0
    #: The :class:`simulator.limits.Limits` of the template being validated (a group
    #: checks its member count against them before building any member).
    limits: Any = None

    def __init__(
        self,
        clients: ClientSource | None = None,
        stack: StackInfo | None = None,
        clock: Any = None,
        nested: NestedValidator | None = None,
        members: dict[str, Any] | None = None,
    ) -> None:
        self._members = dict(members or {})
        self._clients = clients
        self.stack = stack if stack is not None else StackInfo()
        self.clock = clock if clock is not None else CounterClock()
        self._nested = nested

    def validate_nested(self, template: Mapping[str, Any], name: str) -> None:
        """Validate *template* as the nested stack *name* of the stack being validated.

        Raises :class:`sdk.exception.StackValidationFailed` (path inside the
        nested template); does nothing when validating outside a stack source.
        """
        if self._nested is not None:
            self._nested(template, name)

    def client_plugin(self, name: str) -> ClientPlugin:
        """Return the client plug-in *name*; without clients the value cannot be checked yet."""
        if self._clients is None:
            raise ValueNotYetKnown(f"no {name} client while validating the template")
        return self._clients(name)

    def state_changed(self, resource: Any, action: str, status: str, reason: str) -> None:
        """Refuse: validation never changes a resource's state."""
        raise exception.PlugsimError(
            f"Resource {resource.name} tried to change its state to {action}_{status} "
            f"while being validated"
        )

    def data_changed(self, resource: Any) -> None:
        """Refuse: validation never stores resource data."""
        raise exception.PlugsimError(
            f"Resource {resource.name} tried to store data while being validated"
        )

    def signals(self) -> Any:
        """Refuse: no signal reaches a resource that is only being validated."""
        raise exception.PlugsimError("Signals are not available while a template is validated")

    def nested_stacks(self) -> Any:
        """Refuse: validation creates no nested stack (see :meth:`validate_nested`)."""
        raise exception.PlugsimError(
            "Nested stacks are not available while a template is validated"
        )

    def resource_by_reference(self, reference: str) -> Any:
        """No resource exists yet while validating: the answer is not known."""
        raise ValueNotYetKnown(f"resource {reference} does not exist while validating")

    def stack_members(self) -> dict[str, Any]:
        """The stack's resources as they are before anything is made (:class:`PendingMember`)."""
        return dict(self._members)


class PendingMember:
    """A resource of the stack being validated: defined, not made yet (Heat's INIT state).

    Enough for a plug-in's ``validate()`` that asks whether a resource is in
    the stack, or for its type.
    """

    action = "INIT"
    status = "COMPLETE"
    resource_id = None

    def __init__(self, name: str, resource_type: str) -> None:
        self.name = name
        self._type = resource_type

    def type(self) -> str:
        """The resource's type name."""
        return self._type

    def get_reference_id(self) -> str:
        """Its name, as a resource not made yet is referred to."""
        return self.name


class UnknownResourcesView:
    """A resource view in which no resource exists yet.

    ``get_resource`` and ``get_attr`` raise :class:`ValueNotYetKnown`;
    ``resource_facade`` is answered by *parent_view* (a nested stack's real
    view) when there is one.
    """

    def __init__(self, parent_view: Any = None) -> None:
        self.parent_view = parent_view

    def reference_id(self, name: str) -> Any:
        """``get_resource``: never known while validating."""
        raise ValueNotYetKnown(f"resource {name} has not been created yet")

    def attribute(self, name: str, attr: str | None, path: Any = ()) -> Any:
        """``get_attr``: never known while validating."""
        raise ValueNotYetKnown(f"resource {name} has not been created yet")

    def resource_facade(self, kind: str) -> Any:
        """``resource_facade``: the parent resource's, when validating a nested stack."""
        if self.parent_view is None:
            raise ValueNotYetKnown("resource_facade is known only inside a nested stack")
        return self.parent_view.resource_facade(kind)


def _is_resource_class(cls: Any) -> bool:
    from sdk.resource import Resource

    return isinstance(cls, type) and issubclass(cls, Resource)


def validate_resource_properties(
    definition: Any,
    type_lookup: Callable[[str, str | None], Any],
    *,
    clients: ClientSource | None = None,
    stack: StackInfo | None = None,
    clock: Any = None,
    parent_view: Any = None,
    nested: NestedValidator | None = None,
) -> None:
    """Validate the properties of every enabled resource of *definition*, in template order.

    *definition* is a :class:`simulator.template.StackDefinition` that has
    passed its own validation; ``type_lookup(type_name, resource_name)``
    returns each resource's class; *nested* backs
    :meth:`ValidationContext.validate_nested`. Raises
    :class:`sdk.exception.StackValidationFailed` for the first problem, its
    path starting ``resources.<name>``.
    """
    members = {
        name: PendingMember(name, defn.resource_type)
        for name, defn in definition.resource_definitions().items()
    }
    context = ValidationContext(clients, stack, clock, nested, members)
    offline = ValidationContext(None, stack, clock, nested, members)
    context.limits = offline.limits = getattr(getattr(definition, "template", None), "limits", None)
    resolver = definition.resolver(UnknownResourcesView(parent_view))
    template = getattr(definition, "template", None)
    for name, defn in definition.resource_definitions().items():
        cls = type_lookup(defn.resource_type, name)
        if not _is_resource_class(cls):
            continue
        try:
            ctx = offline if defn.depends_on else context
            res = cls(name, defn, ctx, resolver=resolver)
            if getattr(defn, "external_id", None) is not None:
                # Heat 27 validates an adopted (external) resource only by looking it up
                res.validate_external()
            else:
                res.validate()
        except ValueNotYetKnown:
            continue  # the plug-in's own checks need something not known yet
        except exception.StackValidationFailed as ex:
            if not ex.path:
                raise _failure(ex.error_message or str(ex), ["resources", name], template) from None
            raise _with_source(ex, template) from None
        except exception.PlugsimError as ex:
            raise _failure(f"{type(ex).__name__}: {ex}", ["resources", name], template) from None
        except Exception as ex:  # a plug-in's validate() that raises anything else
            raise _failure(f"{type(ex).__name__}: {ex}", ["resources", name], template) from None


def _failure(message: str, path: list[Any], template: Any) -> exception.StackValidationFailed:
    source = getattr(template, "source", None)
    return exception.StackValidationFailed(message, path=path, source=source)


def _with_source(
    ex: exception.StackValidationFailed, template: Any
) -> exception.StackValidationFailed:
    source = getattr(template, "source", None)
    if ex.source is not None or source is None or not ex.path:
        return ex
    return exception.StackValidationFailed(
        error_message=ex.error_message, path=ex.path, error=ex.error, source=source
    )


def stack_info(name: str, stack_id: str, parameters: Mapping[str, Any]) -> StackInfo:
    """Return the :class:`StackInfo` a validated resource sees."""
    return StackInfo(name=name, id=stack_id, parameters=dict(parameters))


def _reference_before_creation(raw: Any) -> Any:
    """``{get_resource: NAME}`` before NAME exists is NAME, as Heat's reference id is; else None.

    A template resource's preview passes its properties to the nested
    template as parameters, so Heat's nested preview sees the name there.
    """
    from simulator.template.functions_core import GetResource

    return raw.target() if isinstance(raw, GetResource) else None


def _preview_value(raw: Any, resolver: Callable[[Any], Any]) -> Any:
    """*raw* resolved as far as a preview knows it, inside maps and lists too: what needs a
    made resource is None, ``get_resource`` the resource's name (a group's ``resource_def``
    naming a sibling keeps its other keys, as Heat's preview shows it)."""
    with contextlib.suppress(ValueNotYetKnown):  # not known as a whole: resolve its parts
        return resolver(raw)
    if isinstance(raw, Mapping):
        return {k: _preview_value(v, resolver) for k, v in raw.items()}
    if isinstance(raw, list | tuple):
        return [_preview_value(v, resolver) for v in raw]
    return _reference_before_creation(raw)


def preview_views(definition: Any, type_lookup: Callable[[str, str | None], Any]) -> dict[str, Any]:
    """Per resource of *definition*: its properties as a preview shows them, and attribute names.

    Values that are known before anything exists (literals, parameters,
    schema defaults) are resolved; ``get_resource`` of a resource not made yet
    is that resource's name (Heat's reference id before creation) and one
    that needs a made resource (``get_attr``) is None, as in Heat's preview. A
    resource that is not a plug-in class (a template resource) gets its
    properties resolved the same way with no schema and no attributes.
    """
    members = {
        name: PendingMember(name, defn.resource_type)
        for name, defn in definition.resource_definitions().items()
    }
    offline = ValidationContext(None, None, None, None, members)
    offline.limits = getattr(getattr(definition, "template", None), "limits", None)
    resolver = definition.resolver(UnknownResourcesView())
    views: dict[str, Any] = {}
    for name, defn in definition.resource_definitions().items():
        cls = type_lookup(defn.resource_type, name)
        props: dict[str, Any] = {}
        attributes: list[str] = []
        if _is_resource_class(cls):
            res = cls(name, defn, offline, resolver=resolver)
            for key in res.properties:
                try:
                    props[key] = res.properties._get_property_value(key, strict=False)
                except ValueNotYetKnown:
                    props[key] = None
                if props[key] is None:
                    raw = (getattr(defn, "properties", None) or {}).get(key)
                    props[key] = _preview_value(raw, resolver)
            attributes = sorted(getattr(cls, "attributes_schema", {}) or {})
        else:
            for key, raw in dict(getattr(defn, "properties", None) or {}).items():
                props[key] = _preview_value(raw, resolver)
        views[name] = (props, attributes)
    return views
