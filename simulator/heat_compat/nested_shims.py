"""The shim modules of Heat's nested-stack types (groups, chains, scaling groups).

:data:`NESTED_BUILDERS` maps each module name to a builder of its public
names; :mod:`simulator.heat_compat._shims` serves them with the rest.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOG = logging.getLogger(__name__)

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


def _hot_template() -> dict[str, Any]:
    from simulator.heat_compat.nested_template import hot_template_names

    return hot_template_names()


def _environment() -> dict[str, Any]:
    from simulator.heat_compat.nested_template import environment_names

    return environment_names()


def send(**notification: Any) -> None:
    """``heat.engine.notification.autoscaling.send``: what Heat does with no notifier configured.

    Heat sends scaling notifications through oslo.messaging; an unconfigured
    Heat (no ``notification_driver``) drops them. plugsim has no message bus
    and logs them at debug level instead.
    """
    LOG.debug(
        "scaling notification %s of %s: %s",
        notification.get("suffix"),
        notification.get("groupname"),
        notification.get("message"),
    )


def _notification() -> dict[str, Any]:
    return {"send": send}


def short_id_of(source: Any) -> str:
    """``heat.common.short_id.get_id``: 12 lower-case base32 characters of a v4 UUID's time bits."""
    if isinstance(source, str):
        source = uuid.UUID(source)
    if source.version != 4:
        raise ValueError(f"Invalid UUID version ({source.version})")
    return base64.b32encode((source.time << 4).to_bytes(8, "big"))[:12].decode("ascii").lower()


def generate_short_id() -> str:
    """``heat.common.short_id.generate_id``, drawn from the running resource's seeded stream.

    Heat draws a random UUID; plugsim derives it from the stack, the resource,
    the virtual time and a per-resource count, so a run gives the same member
    names every time (a scaling group names its members with these).
    """
    from simulator.heat_compat import _vtime

    resource = _vtime.active_resource()
    draws = int(getattr(resource, "_heat_short_ids", 0)) + 1
    if resource is not None:
        resource._heat_short_ids = draws
    stack_id = getattr(getattr(resource, "stack", None), "id", "")
    material = f"{stack_id}/{getattr(resource, 'name', '')}/{_vtime.now()}/{draws}".encode()
    bits = int.from_bytes(hashlib.sha256(material).digest()[:16], "big")
    return short_id_of(uuid.UUID(int=bits, version=4))


def _short_id() -> dict[str, Any]:
    return {"get_id": short_id_of, "generate_id": generate_short_id}


def _heat_timeutils() -> dict[str, Any]:
    """``heat.common.timeutils``: Heat's own file, run as it is, its clock made virtual.

    Its ``Duration`` (the groups' pause between batches) reads the wall clock;
    this copy reads the running resource's virtual clock instead, so a pause
    costs virtual seconds, not real ones.
    """
    from simulator.heat_compat import _vtime
    from simulator.heat_compat._finder import serving_heat_source

    package = serving_heat_source()
    source = Path(package) / "common" / "timeutils.py" if package is not None else None
    if source is None or not source.is_file():
        return {}
    spec = importlib.util.spec_from_file_location("heat.common.timeutils", source)
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    _vtime.patch_module(copy)
    return {k: v for k, v in vars(copy).items() if not k.startswith("__")}


def _service() -> dict[str, Any]:
    return {"Service": Service}


#: ``module name -> builder`` of the nested-stack shims.
NESTED_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "heat.common.grouputils": _grouputils,
    "heat.common.short_id": _short_id,
    "heat.common.timeutils": _heat_timeutils,
    "heat.engine.environment": _environment,
    "heat.engine.function": _function,
    "heat.engine.hot.template": _hot_template,
    "heat.engine.notification": _package,
    "heat.engine.notification.autoscaling": _notification,
    "heat.engine.output": _output,
    "heat.engine.resources.stack_resource": _stack_resource,
    "heat.engine.scheduler": _scheduler,
    "heat.objects": _package,
    "heat.objects.service": _service,
    "heat.scaling.template": _scaling_template,
}
