"""Dynamic rules on cloud driver modules (PS611-PS614): the driver run on a fake cloud.

:func:`simulator.drivers.conformance.check_driver` runs the baseline scenario
(create, listings, call conventions, destroy, leak and secret checks) on a
fresh fake cloud in virtual time, with the providers and profiles files that
``[tool.plugsim.lint.driver]`` names. Its findings become lint findings on
the driver's file, at the function they are about. The run is bounded by a
wall-clock budget; a driver that overruns it is reported by PS614.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sdk.lint.driver_rules import is_driver, virtual_name
from sdk.lint.dynamic import DynamicTimeout, bounded
from sdk.lint.loading import network_blocked
from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.source import PluginModule

#: Wall seconds one driver's conformance run may take.
DRIVER_WALL_LIMIT = 60.0

#: Conformance checks the static rules PS601-PS604 already report.
STATIC_CHECKS = frozenset({"functions.required", "kwargs.generic", "call.default"})


def _driver_name(config: Any) -> tuple[str | None, str | None]:
    """The driver name the configured profile's provider uses, or an error message."""
    from sdk.exception import PlugsimError
    from simulator.drivers.config import load_cloud_config

    try:
        cloud = load_cloud_config(config.providers, config.profiles)
        if not cloud.profiles:
            return None, f"{config.profiles}: no profile to create from"
        profile = config.profile or sorted(cloud.profiles)[0]
        vm_ = cloud.vm(profile, "lint")
    except PlugsimError as exc:
        return None, str(exc)
    return vm_["driver"].split(":", 1)[1], None


def conformance(module: PluginModule) -> list[Any]:
    """The conformance findings of *module* (cached; empty when the rules do not apply)."""
    if "driver_conformance" in module.cache:
        return module.cache["driver_conformance"]
    from simulator.drivers._conformance_checks import Finding

    out: list[Any] = []
    config = getattr(module.cache.get("lint_config"), "driver", None)
    if module.cache.get("dynamic_enabled", True) and config is not None and is_driver(module):
        name, error = _driver_name(config)
        if error is not None:
            out = [Finding("config", "error", error)]
        elif name == virtual_name(module):
            from simulator.drivers.conformance import check_driver

            try:
                with network_blocked("running a driver on a fake cloud"):
                    out = bounded(
                        lambda: check_driver(
                            module.path,
                            config.providers,
                            config.profiles,
                            seed=0,
                            profile=config.profile,
                            fault_kinds=[],
                        ),
                        DRIVER_WALL_LIMIT,
                        f"the conformance run of driver {name}",
                    )
            except DynamicTimeout as exc:
                out = [Finding("run", "error", str(exc))]
            except Exception as exc:  # noqa: BLE001 - the driver broke the harness itself
                out = [Finding("run", "error", f"{type(exc).__name__}: {exc}")]
    module.cache["driver_conformance"] = out
    return out


#: Findings about the configuration or the run as a whole: reported on the first line.
WHOLE_FILE_CHECKS = frozenset({"config", "load", "run"})
#: Conformance checks named after something other than the function they are about.
CHECK_FUNCTIONS = {"leaks": "destroy"}
_FUNCTION = re.compile(r"\b([a-z_][a-z0-9_]*)\(")


def _where(module: PluginModule, finding: Any, default: str) -> Any:
    """The def of the function the finding is about (its check or message), else *default*."""
    head = finding.check.split(".", 1)[0]
    if head in WHOLE_FILE_CHECKS:
        return 1
    candidates = [CHECK_FUNCTIONS.get(head, head), *_FUNCTION.findall(finding.message), default]
    for name in candidates:
        fn = module.functions.get(name)
        if fn is not None:
            return fn
    return 1


def _hits(module: PluginModule, select: Any, default: str) -> Iterator[Hit]:
    """One hit per place: findings about the same function are joined in run order."""
    grouped: dict[int, tuple[Any, list[str], list[str]]] = {}
    for finding in conformance(module):
        if finding.severity != "error" or not select(finding.check):
            continue
        where = _where(module, finding, default)
        line = where if isinstance(where, int) else where.lineno
        _, details, checks = grouped.setdefault(line, (where, [], []))
        if finding.message not in details:
            details.append(finding.message)
        if finding.check not in checks:
            checks.append(finding.check)
    for line in sorted(grouped):
        where, details, checks = grouped[line]
        yield module.hit(
            where, driver=module.path.name, check=", ".join(checks), detail="; ".join(details)
        )


@rule(
    "PS611",
    "driver-events",
    severity=Severity.ERROR,
    family="driver",
    scope="module",
    message="cloud driver {driver}: {detail} ({check})",
    summary="create/destroy fire their events out of order, or without the documented payload.",
    doc="""
        salt-cloud's reactor and plugsim's reports follow a VM by its events:
        ``creating``, ``requesting``, ``deploying`` (when it deploys) and
        ``created`` in that order, then ``destroying`` and ``destroyed``, each
        with its documented payload keys. The driver is run on a fake cloud
        with the configured providers and profiles
        (``[tool.plugsim.lint.driver]``) and the events it fires are checked.
    """,
    bad="""
        def create(vm_):
            node = _create_node(vm_)
            _fire(vm_["name"], "created", {"name": vm_["name"]})
            _fire(vm_["name"], "creating", {"name": vm_["name"]})
            return node
    """,
    good="""
        def create(vm_):
            _fire(vm_["name"], "creating", {"name": vm_["name"], "profile": vm_["profile"],
                                            "provider": vm_["driver"]})
            ...
            _fire(vm_["name"], "created", {"name": vm_["name"], "profile": vm_["profile"],
                                           "provider": vm_["driver"]})
    """,
)
def check_events(module: PluginModule) -> Iterator[Hit]:
    """Event order, missing events and payload keys."""
    yield from _hits(module, lambda c: c.startswith("events.") and c != "events.secret", "create")


@rule(
    "PS612",
    "driver-event-secret",
    severity=Severity.ERROR,
    family="driver",
    scope="module",
    message="cloud driver {driver}: {detail} ({check})",
    summary="An event the driver fires carries a configured secret.",
    doc="""
        Events go to the event bus, where every listener sees them. A payload
        that includes a token, password or key from the provider or profile
        (found by value, whatever key it sits under) leaks it. Filter payloads
        with ``cloud.filter_event``.
    """,
    bad="""
        __utils__["cloud.fire_event"]("event", "requesting instance",
                                       f"salt/cloud/{name}/requesting",
                                       args={"kwargs": kwargs, "token": _provider()["token"]})
    """,
    good="""
        __utils__["cloud.fire_event"](
            "event", "requesting instance", f"salt/cloud/{name}/requesting",
            args={"kwargs": __utils__["cloud.filter_event"]("requesting", kwargs, list(kwargs))},
        )
    """,
)
def check_event_secrets(module: PluginModule) -> Iterator[Hit]:
    """Secret values in event payloads."""
    yield from _hits(module, lambda c: c == "events.secret", "create")


@rule(
    "PS613",
    "driver-list-nodes",
    severity=Severity.ERROR,
    family="driver",
    scope="module",
    message="cloud driver {driver}: {detail} ({check})",
    summary="list_nodes (or its _full/_select forms) returns the wrong fields or types.",
    doc="""
        ``list_nodes`` maps each node's name to exactly ``id``, ``image``,
        ``size``, ``state`` (strings) and ``private_ips``, ``public_ips``
        (lists); ``list_nodes_full`` has those too and ``list_nodes_select``
        honours ``query.selection``. The node the run created must be listed.
    """,
    bad="""
        def list_nodes(call=None):
            return {n["name"]: {"id": n["id"], "ip": n["ip"]} for n in _nodes()}
    """,
    good="""
        def list_nodes(call=None):
            return {
                n["name"]: {"id": str(n["id"]), "image": n["image"], "size": n["size"],
                            "state": n["status"], "private_ips": [], "public_ips": [n["ip"]]}
                for n in _nodes()
            }
    """,
)
def check_list_nodes(module: PluginModule) -> Iterator[Hit]:
    """Wrong fields or types from the listings."""
    yield from _hits(module, lambda c: c.startswith("list_nodes"), "list_nodes")


def _other(check: str) -> bool:
    return not (check.startswith(("events.", "list_nodes")) or check in STATIC_CHECKS)


@rule(
    "PS614",
    "driver-conformance",
    severity=Severity.ERROR,
    family="driver",
    scope="module",
    message="cloud driver {driver}: {detail} ({check})",
    summary="The driver fails another conformance check on a fake cloud.",
    doc="""
        The rest of the conformance run: the configuration loads and the
        driver with it, ``create`` succeeds and returns the node, actions and
        functions refuse the wrong ``call`` when actually called, ``destroy``
        removes the node and nothing the driver made is left behind, and the
        whole run finishes within its wall-clock budget.
    """,
    bad="""
        def destroy(name, call=None):
            if call == "function":
                raise SaltCloudSystemExit("destroy must be called with -d or -a")
            return {"destroyed": name}   # never deletes the node: it leaks
    """,
    good="""
        def destroy(name, call=None):
            if call == "function":
                raise SaltCloudSystemExit("destroy must be called with -d or -a")
            _delete(_node(name)["id"])
            return {"destroyed": name}
    """,
)
def check_other(module: PluginModule) -> Iterator[Hit]:
    """Every other error of the conformance run."""
    yield from _hits(module, _other, "create")
