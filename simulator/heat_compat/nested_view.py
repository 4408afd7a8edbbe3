"""What a Heat stack resource sees of stacks: its own stack, its child, a child to validate.

:class:`GroupStackView` is ``self.stack`` of a stack resource (Heat's stack
surface plus what the groups read while validating), :class:`HeatNestedStack`
is ``nested()`` (Heat's ``Stack`` surface over the child's view from the
context's ``nested_stacks()`` facet) and :class:`NestedDraft` is what
``_parse_nested_stack`` gives: a child template validated through the
validation context, never created.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from simulator.heat_compat._finder import plugin_site
from simulator.heat_compat.engine_api import HeatStackView
from simulator.heat_compat.missing import MissingHeatName
from simulator.heat_compat.nested_template import HeatTemplate


class _HeatEnvironment:
    """``stack.env`` as Heat's groups read it while validating."""

    def get_class_to_instantiate(self, resource_type: str, resource_name: Any = None) -> None:
        """Accept the type here: plugsim checks it when the member template is validated.

        The nested template is validated as a whole through the validation
        context (:meth:`HeatStackResource._parse_nested_stack`), unknown types included.
        """
        return None


class _HeatStackTemplate:
    """``stack.t`` as Heat's groups read it: section names and the files map."""

    RESOURCES = HeatTemplate.RESOURCES
    OUTPUTS = HeatTemplate.OUTPUTS
    PARAMETERS = HeatTemplate.PARAMETERS
    files: dict[str, Any] = {}
    id = None


class GroupStackView(HeatStackView):
    """``self.stack`` of a stack resource: Heat's stack surface plus ``env``, ``t``, depth."""

    convergence = False
    env = _HeatEnvironment()
    t = _HeatStackTemplate()
    stack_user_project_id = None
    user_creds_id = None


class HeatNestedStack:
    """``nested()``: Heat's ``Stack`` surface over a nested stack's view.

    A mapping of resource names to the child's resources (Heat's plug-ins read
    ``nested[name]``, ``nested.values()``), with ``resource_by_refid``,
    ``t`` (the child's template as definitions) and ``output(key)``.
    """

    def __init__(self, view: Any) -> None:
        self._view = view

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingHeatName(f"heat.engine.stack.Stack.{name}", plugin_site(sys._getframe(1)))

    @property
    def id(self) -> str:
        """The nested stack's id."""
        return str(self._view.id)

    @property
    def name(self) -> str:
        """The nested stack's name."""
        return str(self._view.name)

    @property
    def status_reason(self) -> str:
        """Why the nested stack is in its state."""
        return str(self._view.status_reason)

    @property
    def resources(self) -> dict[str, Any]:
        """The child's resources by name (template order)."""
        return dict(self._view.resources)

    def __getitem__(self, name: str) -> Any:
        return self._view.resources[name]

    def __contains__(self, name: object) -> bool:
        return name in self._view.resources

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._view.resources))

    def __len__(self) -> int:
        return len(self._view.resources)

    def keys(self) -> list[str]:
        """The resource names."""
        return list(self._view.resources)

    def values(self) -> list[Any]:
        """The resources."""
        return list(self._view.resources.values())

    def items(self) -> list[tuple[str, Any]]:
        """``(name, resource)`` pairs."""
        return list(self._view.resources.items())

    def resource_by_refid(self, refid: str) -> Any:
        """The child's resource whose reference id (or name) is *refid*, or None."""
        for res in self._view.resources.values():
            if refid in (res.get_reference_id(), res.name):
                return res
        return None

    @property
    def t(self) -> HeatTemplate:
        """The child's current template, read back into definitions."""
        return HeatTemplate.from_dict(self._view.template)

    def output(self, key: str) -> Any:
        """The value of the child's output *key*."""
        return self._view.output(key)

    def total_resources(self, stack_id: Any = None) -> int:
        """The number of resources in the child (Heat counts nested ones too)."""
        return len(self._view.resources)


class NestedDraft:
    """What ``_parse_nested_stack`` gives: a child template to validate, not yet created."""

    def __init__(self, owner: Any, template: dict[str, Any], params: dict[str, Any]) -> None:
        self._owner = owner
        self.t = HeatTemplate.from_dict(template)
        self._template = template
        self._params = params
        #: Heat's flag; plugsim validates the child's values whenever they are known
        self.strict_validate = True

    def validate(self) -> None:
        """Validate the child template as the owner's nested stack (during template validation).

        Only the validation context can check a nested template; while the
        stack runs, the engine checks the child when it creates or updates it.
        """
        check = getattr(self._owner.context, "validate_nested", None)
        if callable(check):
            check(self._template, self._owner.name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingHeatName(f"heat.engine.stack.Stack.{name}", plugin_site(sys._getframe(1)))
