"""The shim modules of Heat's nested-stack types (groups, chains, scaling groups).

:data:`NESTED_BUILDERS` maps each module name to a builder of its public
names; :mod:`simulator.heat_compat._shims` serves them with the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Engine services Heat's ``ResourceChain`` counts to bound its concurrency: plugsim
#: answers Heat's default number of engine workers (``num_engine_workers``, at least 4).
ACTIVE_ENGINE_SERVICES = 4


class Service:
    """``heat.objects.service.Service``: the engine services, as ResourceChain counts them."""

    @classmethod
    def active_service_count(cls, context: Any) -> int:
        """How many engine services run (:data:`ACTIVE_ENGINE_SERVICES`)."""
        return ACTIVE_ENGINE_SERVICES


def _package() -> dict[str, Any]:
    return {}


def _stack_resource() -> dict[str, Any]:
    from simulator.heat_compat.stack_resource import stack_resource_names

    return stack_resource_names()


def _grouputils() -> dict[str, Any]:
    from simulator.heat_compat.grouputils import grouputils_names

    return grouputils_names()


def _output() -> dict[str, Any]:
    from simulator.heat_compat.nested_template import output_names

    return output_names()


def _function() -> dict[str, Any]:
    from simulator.heat_compat.nested_template import function_names

    return function_names()


def _scaling_template() -> dict[str, Any]:
    from simulator.heat_compat.nested_template import scaling_template_names

    return scaling_template_names()


def _scheduler() -> dict[str, Any]:
    from simulator.heat_compat.scheduler import scheduler_names

    return scheduler_names()


def _service() -> dict[str, Any]:
    return {"Service": Service}


#: ``module name -> builder`` of the nested-stack shims.
NESTED_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "heat.common.grouputils": _grouputils,
    "heat.engine.function": _function,
    "heat.engine.output": _output,
    "heat.engine.resources.stack_resource": _stack_resource,
    "heat.engine.scheduler": _scheduler,
    "heat.objects": _package,
    "heat.objects.service": _service,
    "heat.scaling.template": _scaling_template,
}
