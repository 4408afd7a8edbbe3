"""``heat.engine.resources.stack_resource.StackResource`` on plugsim's nested stacks.

Heat's nested-stack types (``ResourceGroup``, ``ResourceChain``,
``InstanceGroup``, ``AutoScalingGroup``) subclass Heat's ``StackResource``:
``handle_create`` calls ``create_with_template(template, params)``, which
asks the engine (over RPC) to create the child stack and returns at once;
``check_create_complete`` then polls the child's status. Update, delete,
suspend, resume and check follow the same pattern, and ``nested()`` /
``get_output()`` read the child.

:class:`HeatStackResource` gives that API over plugsim's own nested stacks,
reached only through the resource context's ``nested_stacks()`` facet
(:class:`sdk.context.NestedStacks`): each ``*_with_template`` /
``delete_nested`` / ``handle_suspend`` ... starts the facet's coroutine as a
task on the world's event loop, and ``check_*_complete`` reports whether that
task has ended (raising the child's failure). The engine polls on the virtual
clock, so the child stack runs, with its own events, while the parent waits,
as in Heat. ``nested()`` is :class:`HeatNestedStack`, Heat's ``Stack``
surface over the child's view.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from typing import Any

from sdk import exception as sdk_exc
from sdk import properties as properties_mod
from simulator.heat_compat import blocking
from simulator.heat_compat import exceptions as heat_exc
from simulator.heat_compat.nested_template import (
    apply_registry,
    split_environment,
    template_dict,
)
from simulator.heat_compat.nested_view import GroupStackView, HeatNestedStack, NestedDraft
from simulator.heat_compat.resource import HeatResource
from simulator.heat_compat.unfound import explain

#: The handlers Heat's groups may wait in (``resize`` runs ``TaskRunner(...)()``):
#: plugsim runs them in turns with its engine (:mod:`simulator.heat_compat.blocking`).
BLOCKING_HANDLERS = ("handle_update", "handle_signal")

#: The template a nested stack starts from when an update finds none (Heat's empty stack).
EMPTY_TEMPLATE = {"heat_template_version": "2013-05-23"}


class ComposingProperties(properties_mod.Properties):
    """Properties whose ``resolve`` may be replaced by a plug-in, as Heat's groups do.

    ``ResourceGroup.get_resource_def`` sets ``self.properties.resolve`` to a
    function that drops null values from Heat's parsed functions. plugsim's
    resolver (the engine's) must still run first, so a resolver set later is
    applied to the engine's result instead of replacing it.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "resolve" and "_engine_resolve" in self.__dict__:
            engine = self.__dict__["_engine_resolve"]
            object.__setattr__(self, "resolve", lambda raw: value(engine(raw)))
            return
        if name == "resolve":
            object.__setattr__(self, "_engine_resolve", value)
        object.__setattr__(self, name, value)


class HeatStackResource(HeatResource):
    """``heat.engine.resources.stack_resource.StackResource`` (see the module docstring)."""

    #: attributes are the child's outputs / members: any name may be asked for
    dynamic_attributes = True
    requires_deferred_auth = True
    #: nothing aborts a stack resource's action between polls (Heat's default)
    abandon_in_progress = False
    converge = False
    old_template_id = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in BLOCKING_HANDLERS:
            own = cls.__dict__.get(name)
            if callable(own) and not getattr(own, "_heat_blocking", False):
                setattr(cls, name, _in_turns(own))

    def __init__(self, name: str, definition: Any, context: Any, resolver: Any = None) -> None:
        self._nested = None
        self._outputs = None
        self.resource_info = None
        self._heat_update_policy = None
        self._nested_job: tuple[str, asyncio.Future[Any]] | None = None
        super().__init__(name, definition, context, resolver)

    # -- Heat's attribute surface --------------------------------------------------

    @property  # type: ignore[override]
    def properties(self) -> Any:
        """The resource's properties (their resolver may be composed, see ComposingProperties)."""
        return self.__dict__["_heat_properties"]

    @properties.setter
    def properties(self, value: Any) -> None:
        if type(value) is properties_mod.Properties:
            value.__class__ = ComposingProperties
            value.__dict__["_engine_resolve"] = value.resolve
        self.__dict__["_heat_properties"] = value

    @property
    def update_policy(self) -> Any:
        """The update policy as Heat's ``Properties`` over ``update_policy_schema``."""
        if self._heat_update_policy is not None:
            return self._heat_update_policy
        return properties_mod.Properties(
            getattr(self, "update_policy_schema", {}) or {},
            self.t.update_policy or {},
            resolver=self._resolver,
            context=self.context,
            path=["resources", self.name, "update_policy"],
        )

    @update_policy.setter
    def update_policy(self, value: Any) -> None:
        self._heat_update_policy = value

    @property
    def stack(self) -> Any:  # type: ignore[override]
        """Heat's stack surface, with what groups read while validating (``env``, ``t``)."""
        return GroupStackView(self.context.stack, self.context)

    @property
    def template_url(self) -> str:
        """The child template's name in errors (Heat's placeholder for built templates)."""
        return "nested_stack"

    def referenced_attrs(
        self,
        stack: Any = None,
        in_resources: bool = True,
        in_outputs: bool = True,
        load_all: bool = False,
    ) -> set[Any]:
        """The attributes of this resource the stack refers to: none known here.

        Heat builds a child output for each attribute referenced in the parent
        template; a resource's context does not show the parent's template, so
        the groups' attributes are read from the members directly (Heat's own
        fallback when the child has no such output), with the same values.
        """
        return set()

    def clear_stored_attributes(self) -> None:
        """Forget cached attribute values: plugsim resolves attributes afresh on every read."""
        self._outputs = None

    # -- the nested stack -----------------------------------------------------------

    def _facet(self) -> Any:
        return self.context.nested_stacks()

    def nested_identifier(self) -> str | None:
        """The nested stack's identity (its id here), or None before it exists."""
        return None if self.resource_id is None else str(self.resource_id)

    def has_nested(self) -> bool:
        """True when the resource has (or is making) a nested stack."""
        return self.resource_id is not None

    def nested(self) -> HeatNestedStack | None:
        """The nested stack (Heat's ``Stack`` surface), or None."""
        if self.resource_id is None:
            return None
        view = self._facet().get(self)
        return HeatNestedStack(view) if view is not None else None

    def child_template(self) -> Any:
        """The child template (plug-ins override it)."""
        raise NotImplementedError()

    def child_params(self) -> Any:
        """The child's parameters (plug-ins override it)."""
        raise NotImplementedError()

    def child_template_files(self, child_env: Any) -> dict[str, Any]:
        """The files map the child is given: the parent's (plugsim passes them itself)."""
        return {}

    def _parse_nested_stack(
        self,
        stack_name: str,
        child_template: Any,
        child_params: Any,
        timeout_mins: Any = None,
        adopt_data: Any = None,
    ) -> NestedDraft:
        template, params = self._child(child_template, child_params or {})
        return NestedDraft(self, template, params)

    def validate(self) -> None:
        """Heat's checks, then the child template (when validating a template)."""
        super().validate()
        if callable(getattr(self.context, "validate_nested", None)):
            self.validate_nested_stack()

    def validate_nested_stack(self) -> None:
        """Validate the child template built from the current properties.

        As in Heat, whatever goes wrong building or checking the child is a
        validation error of this resource (path ``resources.<name><nested_stack>``).
        """
        try:
            child_template = self.child_template()
            params = self.child_params()
        except NotImplementedError:
            return
        except Exception as ex:  # noqa: BLE001 - Heat reports any failure the same way
            raise self._nested_invalid(ex) from ex
        try:
            self._parse_nested_stack(self.name, child_template, params).validate()
        except sdk_exc.StackValidationFailed:
            raise
        except Exception as ex:  # noqa: BLE001
            raise self._nested_invalid(ex) from ex

    def _nested_invalid(self, ex: Exception) -> heat_exc.StackValidationFailed:
        ex = explain(ex)  # a None from an unfound reference, said in one line
        return heat_exc.StackValidationFailed(
            error=type(ex).__name__,
            path=["resources", f"{self.name}<{self.template_url}>"],
            message=str(ex),
        )

    def get_nested_parameters_stack(self) -> Any:
        """A draft of the child stack (Heat's, for its parameter schema)."""
        try:
            return self._parse_nested_stack(self.name, self.child_template(), self.child_params())
        except NotImplementedError:
            return None

    # -- starting child actions ----------------------------------------------------------

    def _start(self, action: str, work: Any) -> None:
        """Run coroutine *work* as a task on the world's loop; ``check_*_complete`` polls it."""
        loop = blocking.current_loop() or asyncio.get_running_loop()
        task = loop.create_task(work)
        task.add_done_callback(_retrieve)
        self._nested_job = (action, task)

    def _child(self, child_template: Any, user_params: Any) -> tuple[dict, dict]:
        """The child's HOT dict and parameters (an environment's type map applied).

        A child of more resources than ``max_resources_per_stack`` is refused first, before
        its template is read, as Heat's ``_validate_nested_resources`` counts them
        (``heat/engine/resources/stack_resource.py:282``): a group's count of 48,000 fails
        at once instead of converting 48,000 definitions the loader then refuses.
        """
        _check_child_size(self, child_template)
        if user_params is None:
            try:
                user_params = self.child_params()
            except NotImplementedError:
                user_params = {}
        params, registry = split_environment(user_params)
        return apply_registry(template_dict(child_template), registry), params

    def create_with_template(
        self,
        child_template: Any,
        user_params: Any = None,
        timeout_mins: Any = None,
        adopt_data: Any = None,
    ) -> None:
        """Start creating the nested stack from *child_template* (``check_create_complete`` waits).

        With *adopt_data* (Heat's ``handle_adopt``), the abandoned child is adopted instead.
        """
        if adopt_data is not None:
            self._adopt_child(adopt_data)
            return
        template, params = self._child(child_template, user_params)
        self._outputs = None
        self._start(
            self.CREATE,
            self._facet().create(
                self, template, params, template_name=f"{self.name} ({self.template_url})"
            ),
        )

    async def _update_child(self, template: dict[str, Any], params: dict[str, Any]) -> bool:
        facet = self._facet()
        if self.resource_id is None or facet.get(self) is None:
            # the create failed before the child existed: start from an empty stack, as Heat does
            ok = await facet.create(
                self, dict(EMPTY_TEMPLATE), {}, template_name=f"{self.name} ({self.template_url})"
            )
            if not ok:
                return False
        return bool(await facet.update(self, template, params))

    def update_with_template(
        self, child_template: Any, user_params: Any = None, timeout_mins: Any = None
    ) -> None:
        """Start updating the nested stack to *child_template* (``check_update_complete`` waits)."""
        template, params = self._child(child_template, user_params)
        self._outputs = None
        self._start(self.UPDATE, self._update_child(template, params))

    def delete_nested(self) -> None:
        """Start deleting the nested stack (nothing to do when there is none)."""
        if self.resource_id is None:
            self._nested_job = None
            return
        self._start(self.DELETE, self._facet().act(self, self.DELETE))

    def _act(self, action: str) -> None:
        if self.resource_id is None:
            raise heat_exc.Error(f"Cannot {action.lower()} {self.name}, stack not created")
        self._start(action, self._facet().act(self, action))

    # -- polling -------------------------------------------------------------------

    def _check_status_complete(self, expected_action: str, cookie: Any = None) -> bool:
        job = self._nested_job
        if job is None or job[0] != expected_action:
            return expected_action == self.DELETE or self.nested() is not None
        task = job[1]
        if not task.done():
            return False
        self._nested_job = None
        if task.cancelled():
            raise sdk_exc.ResourceFailure(
                f"Nested stack {expected_action} cancelled", self, expected_action
            )
        failure = task.exception()
        if failure is not None:
            raise failure
        if not task.result():
            child = self.nested()
            reason = child.status_reason if child is not None else "nested stack not found"
            raise sdk_exc.ResourceFailure(reason, self, expected_action)
        return True

    def check_create_complete(self, cookie: Any = None) -> bool:
        """True once the nested stack is created; its failure is raised."""
        return self._check_status_complete(self.CREATE, cookie)

    def check_update_complete(self, cookie: Any = None) -> bool:
        """True once the nested stack is updated; its failure is raised."""
        return self._check_status_complete(self.UPDATE, cookie)

    def check_delete_complete(self, cookie: Any = None) -> bool:
        """True once the nested stack is deleted (or there was none)."""
        return self._check_status_complete(self.DELETE, cookie)

    def check_suspend_complete(self, cookie: Any = None) -> bool:
        """True once the nested stack is suspended."""
        return self._check_status_complete(self.SUSPEND, cookie)

    def check_resume_complete(self, cookie: Any = None) -> bool:
        """True once the nested stack is resumed."""
        return self._check_status_complete(self.RESUME, cookie)

    def check_check_complete(self, cookie: Any = None) -> bool:
        """True once the nested stack is checked."""
        return self._check_status_complete(self.CHECK, cookie)

    def _cancel_job(self) -> Any:
        """Cancel the running child action; the awaitable waits until the child has stopped.

        The engine awaits what a cancel handler returns, so the nested stack
        ends its action (``FAILED``, its own resources cancelled) before the
        owner's action is failed, as plugsim's own nested stacks do.
        """
        job = self._nested_job
        if job is None or job[1].done():
            return None
        job[1].cancel()
        return asyncio.wait([job[1]])

    def handle_create_cancel(self, cookie: Any = None) -> Any:
        """Cancel the nested stack's create (and wait for it to stop)."""
        return self._cancel_job()

    def handle_update_cancel(self, cookie: Any = None) -> Any:
        """Cancel the nested stack's update (and wait for it to stop)."""
        return self._cancel_job()

    # -- Heat's default handlers -------------------------------------------------------

    def handle_create(self) -> Any:
        """Create the nested stack from ``child_template()`` and ``child_params()``."""
        return self.create_with_template(self.child_template(), self.child_params())

    async def _finish_job(self) -> None:
        """Wait until the child action just started has ended (``check_*_complete`` then reports).

        Heat's default handlers return at once and leave the waiting to the
        engine's polls; waiting here ends the owner's action when the child's
        does, instead of up to a poll interval later. A cancelled wait cancels
        the child too, and waits for it to stop.
        """
        job = self._nested_job
        if job is None:
            return
        try:
            await asyncio.wait([job[1]])
        except asyncio.CancelledError:
            job[1].cancel()
            await asyncio.wait([job[1]])
            raise

    async def handle_delete(self) -> Any:
        """Delete the nested stack (Heat's ``delete_nested``)."""
        self.delete_nested()
        await self._finish_job()

    async def handle_suspend(self) -> None:
        """Suspend the nested stack."""
        self._act(self.SUSPEND)
        await self._finish_job()

    async def handle_resume(self) -> None:
        """Resume the nested stack."""
        self._act(self.RESUME)
        await self._finish_job()

    async def handle_check(self) -> None:
        """Check the nested stack."""
        self._act(self.CHECK)
        await self._finish_job()

    def check_adopt_complete(self, cookie: Any = None) -> bool:
        """True once the nested stack is adopted."""
        return self._check_status_complete(self.ADOPT, cookie)

    def _adopt_child(self, adopt_data: Any) -> None:
        """Adopt the nested stack an abandon left in place (the abandoned ``resource_id``).

        plugsim's abandon keeps a resource's nested stack, physical resources
        and all; Heat re-creates the child from its abandon data instead. The
        same members end up adopted, under the child's old id here.
        """
        child_id = (adopt_data or {}).get("resource_id")
        if child_id:
            self.resource_id_set(child_id)
        if not child_id or self._facet().get(self) is None:
            self.resource_id_set(None)
            raise heat_exc.Error(
                f"Cannot adopt {self.name}: its nested stack {child_id!r} is not in this world "
                f"(plugsim adopts a group by re-attaching the nested stack abandon left in place)"
            )
        self._nested_job = None

    def get_output(self, op: str) -> Any:
        """The value of the nested stack's output *op* (None without a nested stack).

        An output the child's template lacks is Heat's ``NotFound``; one that
        cannot be resolved is ``TemplateOutputError``.
        """
        view = self._facet().get(self) if self.resource_id is not None else None
        if view is None:
            return None
        outputs = view.template.get("outputs") or {}
        if op not in outputs:
            raise heat_exc.NotFound(f"Specified output key {op} not found.")
        try:
            return view.output(op)
        except sdk_exc.PlugsimError as ex:
            raise heat_exc.TemplateOutputError(
                resource=self.name, attribute=op, message=str(ex)
            ) from None

    def _resolve_attribute(self, name: str) -> Any:
        try:
            return self.get_output(name)
        except heat_exc.NotFound:
            raise heat_exc.InvalidTemplateAttribute(resource=self.name, key=name) from None

    def get_reference_id(self) -> str:
        """``get_resource``: the nested stack's id (the name before there is one)."""
        return str(self.resource_id) if self.resource_id is not None else self.name


def _in_turns(handler: Any) -> Any:
    """*handler* run in turns with the engine (:func:`blocking.call_blocking`), as a coroutine."""

    @functools.wraps(handler)
    async def run(self: HeatStackResource, *args: Any) -> Any:
        return await blocking.call_blocking(self.context.clock, handler, self, *args)

    run._heat_blocking = True  # type: ignore[attr-defined]
    run._heat_compat_wrapped = True  # type: ignore[attr-defined]
    return run


def _check_child_size(res: HeatStackResource, child_template: Any) -> None:
    """Refuse a child template of more resources than the stack's limit (the loader's check)."""
    from simulator.limits import check_resource_count

    try:
        facet_limits = getattr(res._facet(), "limits", None)
        limits = facet_limits() if callable(facet_limits) else None
    except sdk_exc.PlugsimError:  # validating: the validation context carries the limits
        limits = getattr(res.context, "limits", None)
    inner = child_template.t if isinstance(getattr(child_template, "t", None), Mapping) else None
    body = inner if inner is not None else child_template
    if limits is None or not isinstance(body, Mapping):
        return
    members = body.get("resources", body.get("Resources"))
    if isinstance(members, Mapping):
        check_resource_count(len(members), limits, f"{res.name} ({res.template_url})")


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a finished child task's exception as seen (``check_*_complete`` re-raises it)."""
    if not task.cancelled():
        task.exception()


def stack_resource_names() -> dict[str, Any]:
    """The public names of the ``heat.engine.resources.stack_resource`` shim."""
    return {"StackResource": HeatStackResource}


__all__ = ["HeatNestedStack", "HeatStackResource", "stack_resource_names"]
