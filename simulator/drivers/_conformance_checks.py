"""The individual conformance checks (private; see :mod:`simulator.drivers.conformance`)."""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sdk import cloud_driver as cd
from simulator.drivers.loader import LoadedDriver

#: Driver functions salt-cloud calls with ``call=None`` (never expected to refuse it).
LISTING_FUNCTIONS = frozenset(
    {
        "list_nodes",
        "list_nodes_full",
        "list_nodes_select",
        "avail_images",
        "avail_sizes",
        "avail_locations",
        "destroy",
        "create",
        "script",
        "get_configured_provider",
        "get_dependencies",
    }
)

#: Functions the driver-module guide asks of every driver. ``avail_sizes`` and
#: ``avail_locations`` are not among them: the guide says sizes "may not be present on
#: some cloud providers" and locations are needed only with several data centres.
GUIDE_FUNCTIONS = (
    "create",
    "destroy",
    "list_nodes",
    "list_nodes_full",
    "list_nodes_select",
    "show_instance",
    "avail_images",
)

#: Functions a conformance scenario cannot run without.
SCENARIO_FUNCTIONS = ("create", "destroy", "list_nodes")

CREATE_ORDER = ("creating", "requesting", "deploying", "created")
DESTROY_ORDER = ("destroying", "destroyed")


#: Where a finding comes from: the driver departs from the driver-module guide, the driver
#: misbehaves under an injected fault (beyond the guide), or plugsim lacks something.
ORIGINS = ("driver", "robustness", "plugsim")

#: The rule of the driver-module guide (docs: "Writing Cloud Driver Modules") each check enforces.
GUIDE_RULES: dict[str, str] = {
    "functions.required": "All Driver Modules: the functions every driver module defines",
    "create": "The create() Function: request the VM, wait for it, deploy, return its description",
    "create.result": "The create() Function: return a data structure that describes the new VM",
    "create.deploy": "The create() Function: (optionally) log in and install Salt",
    "events.missing": "The create()/destroy() Function: the required events are fired",
    "events.order": "The create() Function: creating, requesting, deploying, created, in order",
    "events.payload": "The create() Function: each event's payload (names of VM, profile, "
    "provider; requesting carries the request's kwargs)",
    "events.secret": "The create() Function: private information must not be sent in events",
    "list_nodes": "The list_nodes() Function",
    "list_nodes.type": "The list_nodes() Function",
    "list_nodes.created": "The list_nodes() Function: the nodes available on the provider",
    "list_nodes.fields": "The list_nodes() Function: exactly id, image, size, state, "
    "private_ips, public_ips",
    "list_nodes.types": "The list_nodes() Function: id, image, size, state are str; the IP "
    "fields lists",
    "list_nodes_full": "The list_nodes_full() Function",
    "list_nodes_full.type": "The list_nodes_full() Function",
    "list_nodes_full.fields": "The list_nodes_full() Function: the list_nodes() fields are "
    "returned too",
    "list_nodes_select": "The list_nodes_select() Function",
    "list_nodes_select.type": "The list_nodes_select() Function",
    "list_nodes_select.selection": "The list_nodes_select() Function: only the query.selection "
    "fields",
    "show_instance": "The show_instance() Function",
    "show_instance.result": "The show_instance() Function: the information about one node",
    "call.refusal": "Actions and Functions: verify it has been called correctly (call) first",
    "call.default": "Actions and Functions: accept call with a default of None",
    "kwargs.generic": "Actions and Functions: generic kwargs arrive as kwargs, not **kwargs",
    "destroy": "The destroy() Function: irreversibly destroys the VM",
    "destroy.gone": "The destroy() Function: irreversibly destroys the VM",
    "leaks": "The destroy() Function: irreversibly destroys the VM",
}


@dataclass(frozen=True)
class Finding:
    """One conformance problem: which check, how bad, what, under which scenario, whose.

    *origin* is ``driver`` (a departure from the driver-module guide; *rule*
    names the guide's rule), ``robustness`` (the driver under an injected
    fault, beyond what the guide asks) or ``plugsim`` (a gap of plugsim: an
    endpoint its fake does not serve, a catalogue entry it lacks - not the
    driver's fault).
    """

    check: str
    severity: str
    message: str
    scenario: str = "baseline"
    origin: str = "driver"
    rule: str = ""

    def __str__(self) -> str:
        text = f"[{self.severity}] {self.scenario}: {self.check}: {self.message}"
        if self.origin == "plugsim":
            return f"{text} (plugsim gap, not the driver's fault)"
        return text

    def to_dict(self) -> dict[str, str]:
        """Return the finding as plain data."""
        return {
            "check": self.check,
            "severity": self.severity,
            "message": self.message,
            "scenario": self.scenario,
            "origin": self.origin,
            "rule": self.rule,
        }


class Collector:
    """Collects findings for one scenario."""

    def __init__(self, scenario: str) -> None:
        self.scenario = scenario
        self.findings: list[Finding] = []

    def _add(self, check: str, severity: str, message: str, origin: str) -> None:
        rule = GUIDE_RULES.get(check, "") if origin == "driver" else ""
        self.findings.append(Finding(check, severity, message, self.scenario, origin, rule))

    def error(self, check: str, message: str, origin: str = "driver") -> None:
        """Record an error (a departure from the guide unless *origin* says otherwise)."""
        self._add(check, "error", message, origin)

    def warning(self, check: str, message: str, origin: str = "driver") -> None:
        """Record a warning."""
        self._add(check, "warning", message, origin)

    def gap(self, check: str, message: str) -> None:
        """Record a gap of plugsim (a warning: the driver is not to blame)."""
        self._add(check, "warning", message, "plugsim")


# --- static checks ----------------------------------------------------------------------------


def _own_functions(loaded: LoadedDriver) -> dict[str, Callable[..., Any]]:
    module = loaded.module
    out = {}
    for name, value in sorted(vars(module).items()):
        if name.startswith("_") or not inspect.isfunction(value):
            continue
        if value.__module__ != module.__name__:
            continue
        out[name] = value
    return out


def classify(loaded: LoadedDriver) -> tuple[list[str], list[str]]:
    """Return ``(actions, functions)``: public callables taking ``call``, by first parameter."""
    actions, functions = [], []
    for name, fun in _own_functions(loaded).items():
        if name in LISTING_FUNCTIONS:
            continue
        try:
            params = list(inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):
            continue
        if not any(p.name == "call" for p in params):
            continue
        if name == "show_instance" or (params and params[0].name == "name"):
            actions.append(name)
        else:
            functions.append(name)
    return actions, functions


def check_static(loaded: LoadedDriver, out: Collector) -> None:
    """Required functions exist; actions/functions take ``call=None`` and no ``**kwargs``."""
    for name in loaded.missing_functions():
        out.error("functions.required", f"{loaded.source}: required function {name}() is missing")
    for name in GUIDE_FUNCTIONS:
        if name not in loaded.required and loaded.function(name) is None:
            out.error(
                "functions.required",
                f"{loaded.source}: {name}() is missing (the guide asks every driver for it; "
                "salt-cloud refuses only the operations that need it)",
            )
    actions, functions = classify(loaded)
    for name in [*actions, *functions]:
        params = inspect.signature(loaded.function(name)).parameters  # type: ignore[arg-type]
        for p in params.values():
            if p.kind is inspect.Parameter.VAR_KEYWORD:
                out.error(
                    "kwargs.generic",
                    f"{loaded.source}: {name}() takes **{p.name}; salt-cloud passes generic "
                    "arguments as one dict parameter named 'kwargs'",
                )
        call = params.get("call")
        if call is not None and call.default is not None:
            out.error("call.default", f"{loaded.source}: {name}() must default 'call' to None")


# --- events -------------------------------------------------------------------------------------


def _order(
    events: list[cd.CloudEvent],
    expected: tuple[str, ...],
    required: set[str],
    name: str,
    what: str,
    out: Collector,
) -> None:
    kinds = [e.kind for e in events if e.kind in expected]
    for kind in expected:
        if kind in required and kind not in kinds:
            out.error("events.missing", f"{what} did not fire salt/cloud/{name}/{kind}")
    firsts = [k for i, k in enumerate(kinds) if k not in kinds[:i]]
    ranked = [expected.index(k) for k in firsts]
    if ranked != sorted(ranked):
        out.error(
            "events.order",
            f"{what} fired {', '.join(firsts)}; expected the order {', '.join(expected)}",
        )


def _payload(events: list[cd.CloudEvent], name: str, out: Collector) -> None:
    for event in events:
        keys = cd.EVENT_PAYLOAD_KEYS.get(event.kind)
        if keys is None:
            continue
        missing = [k for k in keys if k not in event.data]
        if missing:
            out.error(
                "events.payload",
                f"{event.tag} lacks payload key(s) {', '.join(missing)} "
                f"(has: {', '.join(sorted(event.data)) or 'nothing'})",
            )
        if "name" in keys and "name" in event.data and event.data["name"] != name:
            out.error("events.payload", f"{event.tag} names {event.data['name']!r}, not {name!r}")


def check_create_events(
    events: list[cd.CloudEvent], name: str, deployed: bool, succeeded: bool, out: Collector
) -> None:
    """``creating``, ``requesting``, ``deploying`` (when deploying), ``created``, in order."""
    mine = [e for e in events if e.tag.startswith(f"salt/cloud/{name}/")]
    required = {"creating", "requesting"}
    if succeeded:
        required.add("created")
    if deployed:
        required.add("deploying")
    _order(mine, CREATE_ORDER, required, name, "create()", out)
    _payload(mine, name, out)


def check_destroy_events(events: list[cd.CloudEvent], name: str, out: Collector) -> None:
    """``destroying`` then ``destroyed``, each naming the node."""
    mine = [e for e in events if e.tag.startswith(f"salt/cloud/{name}/")]
    _order(mine, DESTROY_ORDER, set(DESTROY_ORDER), name, "destroy()", out)
    _payload(mine, name, out)


def secret_settings(conf: Mapping[str, Any], where: str) -> list[tuple[str, str]]:
    """Return ``(setting path, secret value)`` pairs of *conf* (key files contribute lines)."""
    marked = conf.get(cd.SECRET_KEYS_SETTING) or []
    marked_set = {str(k) for k in marked} if isinstance(marked, list | tuple) else set()
    out: list[tuple[str, str]] = []
    for key in sorted(conf, key=str):
        value = conf[key]
        path = f"{where}.{key}"
        if isinstance(value, Mapping):
            out.extend(secret_settings(value, path))
            continue
        if not (cd.is_secret_key(key) or key in marked_set):
            continue
        if isinstance(value, bool) or not isinstance(value, str | int):
            continue
        text = str(value)
        if len(text) >= 4:
            out.append((path, text))
        expanded = os.path.expanduser(text)
        if os.path.isfile(expanded):
            try:
                with open(expanded, encoding="utf-8") as fh:
                    lines = fh.read().splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            out.extend(
                (f"{path} (file content)", line.strip())
                for line in lines
                if len(line.strip()) >= 16 and not line.startswith("-----")
            )
    return out


def check_secrets(
    events: list[cd.CloudEvent], secrets: list[tuple[str, str]], out: Collector
) -> None:
    """No payload carries a configured secret value (searched as text, whatever the key)."""
    for event in events:
        text = json.dumps(event.data, sort_keys=True, default=str)
        for where, value in secrets:
            if value in text or json.dumps(value)[1:-1] in text:
                out.error(
                    "events.secret",
                    f"{event.tag} carries the value of the secret setting {where}",
                )


# --- return values ------------------------------------------------------------------------------


def check_list_nodes(nodes: Any, out: Collector) -> None:
    """Exactly id, image, size, state (str) and private_ips, public_ips (lists) per node."""
    if not isinstance(nodes, Mapping):
        out.error("list_nodes.type", f"list_nodes() returned {type(nodes).__name__}, not a dict")
        return
    fields = set(cd.LIST_NODES_FIELDS)
    for name in sorted(nodes, key=str):
        node = nodes[name]
        if not isinstance(node, Mapping):
            out.error(
                "list_nodes.type", f"list_nodes()[{name!r}] is {type(node).__name__}, not a dict"
            )
            continue
        extra, missing = sorted(set(node) - fields), sorted(fields - set(node))
        if missing:
            out.error("list_nodes.fields", f"list_nodes()[{name!r}] lacks {', '.join(missing)}")
        if extra:
            out.error(
                "list_nodes.fields",
                f"list_nodes()[{name!r}] has extra field(s) {', '.join(extra)} "
                "(only id, image, size, state, private_ips, public_ips belong there)",
            )
        for key in ("id", "image", "size", "state"):
            if key in node and not isinstance(node[key], str):
                out.error(
                    "list_nodes.types",
                    f"list_nodes()[{name!r}].{key} is {type(node[key]).__name__}, not str",
                )
        for key in ("private_ips", "public_ips"):
            if key in node and not isinstance(node[key], list):
                out.error(
                    "list_nodes.types",
                    f"list_nodes()[{name!r}].{key} is {type(node[key]).__name__}, not list",
                )


def check_list_nodes_full(nodes: Any, out: Collector) -> None:
    """Every node of list_nodes_full() has the list_nodes fields too."""
    if not isinstance(nodes, Mapping):
        out.error("list_nodes_full.type", f"list_nodes_full() returned {type(nodes).__name__}")
        return
    for name in sorted(nodes, key=str):
        node = nodes[name]
        missing = [
            f for f in cd.LIST_NODES_FIELDS if not isinstance(node, Mapping) or f not in node
        ]
        if missing:
            out.error(
                "list_nodes_full.fields", f"list_nodes_full()[{name!r}] lacks {', '.join(missing)}"
            )


def check_list_nodes_select(nodes: Any, full: Any, selection: list[str], out: Collector) -> None:
    """list_nodes_select() returns exactly the selected fields the full listing has."""
    if not isinstance(nodes, Mapping):
        out.error("list_nodes_select.type", f"list_nodes_select() returned {type(nodes).__name__}")
        return
    for name in sorted(nodes, key=str):
        node = nodes[name]
        got = set(node) if isinstance(node, Mapping) else set()
        have = full.get(name) if isinstance(full, Mapping) else None
        want = {f for f in selection if isinstance(have, Mapping) and f in have} or set(selection)
        if got != want:
            out.error(
                "list_nodes_select.selection",
                f"list_nodes_select()[{name!r}] has {', '.join(sorted(got)) or 'nothing'}; "
                f"query.selection asks for {', '.join(selection)}",
            )
