"""Conformance of a cloud driver module to the salt-cloud contract, as a plain Python API.

:func:`check_driver` runs one *baseline* scenario and one scenario per fault
kind, each on a fresh fake cloud from the same seed:

1. (baseline) the required functions exist; actions and functions take
   ``call=None`` and generic arguments as ``kwargs``, never ``**kwargs``;
2. ``create(vm_)`` fires ``creating``, ``requesting``, ``deploying`` (when it
   deploys) and ``created`` in that order with the documented payload keys,
   and returns the node's description;
3. no event payload carries a configured secret value (found by value);
4. ``list_nodes`` has exactly ``id``, ``image``, ``size``, ``state`` (str),
   ``private_ips``, ``public_ips`` (lists); ``list_nodes_full`` has them too;
   ``list_nodes_select`` honours ``query.selection``;
5. (baseline) ``show_instance`` refuses unless ``call == 'action'``, other
   actions refuse ``call='function'``, functions refuse unless
   ``call == 'function'``;
6. ``destroy`` fires ``destroying`` then ``destroyed``; after a settling
   period the fake cloud no longer has the node and nothing the driver made
   is left (leak check).

Under a fault kind, a create that fails cleanly (a ``SaltCloud*`` error) is a
warning; an unexpected exception or a leak is an error. The pytest helper can
wrap :func:`check_driver`; every finding names its check and scenario.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from sdk import cloud_driver as cd
from sdk.exception import PlugsimError
from simulator.drivers._conformance_checks import (
    SCENARIO_FUNCTIONS,
    Collector,
    Finding,
    check_create_events,
    check_destroy_events,
    check_list_nodes,
    check_list_nodes_full,
    check_list_nodes_select,
    check_secrets,
    check_static,
    classify,
    secret_settings,
)
from simulator.drivers.config import load_cloud_config
from simulator.drivers.harness import DriverCallError, DriverHarness

__all__ = ["FAULT_KINDS", "Finding", "check_driver"]

#: Fault kind -> fault rules (the fake cloud's rule format) the scenario runs under.
FAULT_KINDS: dict[str, list[dict[str, Any]]] = {
    "rate_limit": [
        {
            "name": "conformance-429",
            "operation": "servers.create",
            "nth": 1,
            "effect": {"type": "error", "status": 429, "retry_after": 5},
        }
    ],
    "server_error": [
        {"name": "conformance-5xx", "nth": 2, "effect": {"type": "error", "status": 503}},
        {
            "name": "conformance-5xx-get",
            "operation": "servers.get",
            "nth": 2,
            "effect": {"type": "error", "status": 500},
        },
    ],
    "timeout": [
        {
            "name": "conformance-timeout",
            "operation": "servers.create",
            "nth": 1,
            "effect": {"type": "timeout", "after": 30, "applied": True},
        }
    ],
    "slow_boot": [
        {
            "name": "conformance-slow-boot",
            "operation": "servers.create",
            "effect": {"type": "delay", "factor": 30},
        }
    ],
    "eventual_consistency": [
        {
            "name": "conformance-eventual",
            "operation": "servers.create",
            "effect": {
                "type": "eventual_consistency",
                "lag": {"dist": "uniform", "low": 5, "high": 20},
            },
        }
    ],
}

#: A driver's own "not found" for a profile's size/image/location (Salt's DigitalOcean driver
#: looks them up in the listings before it asks for a droplet).
_CLIENT_SIDE_MISS = re.compile(
    r"specified (size|image|location|region)\W+'?([^',]+)'?,? could not be found", re.I
)

#: Virtual seconds allowed after destroy for the node to be gone.
DEFAULT_SETTLE = 900.0
DEFAULT_SELECTION = ("id", "state")


def check_driver(
    driver: str | os.PathLike[str] | None,
    providers: Any,
    profiles: Any,
    seed: int = 0,
    faults: Any = None,
    *,
    profile: str | None = None,
    settings: Any = None,
    fault_kinds: Iterable[str] | None = None,
    driver_dirs: Iterable[str | os.PathLike[str]] = (),
    settle: float = DEFAULT_SETTLE,
    selection: Iterable[str] = DEFAULT_SELECTION,
    world: object = None,
) -> list[Finding]:
    """Run the conformance checks on *driver* and return every finding (empty: conformant).

    *driver*: a path or import name serving the driver that *profile*'s
    provider names (None: find it by name like the harness). *profile*: the
    profile to create from (default: the first, sorted). *faults*: extra fault
    rules run as one more scenario named ``faults``. *fault_kinds*: which of
    :data:`FAULT_KINDS` to run (default: all). *world*: the world file or preset each
    scenario's fake cloud starts from (default: the default world).
    """
    try:
        config = load_cloud_config(providers, profiles, settings)
    except PlugsimError as ex:
        return [Finding("config", "error", str(ex))]
    if not config.profiles:
        return [Finding("config", "error", f"{config.profiles_file}: no profile to create from")]
    profile = profile or sorted(config.profiles)[0]
    try:
        vm_ = config.vm(profile, "conformance")
    except PlugsimError as ex:
        return [Finding("config", "error", str(ex))]
    alias, driver_name = vm_["driver"].split(":", 1)
    drivers = {driver_name: os.fspath(driver)} if driver is not None else None
    kinds = list(FAULT_KINDS) if fault_kinds is None else list(fault_kinds)
    unknown = [k for k in kinds if k not in FAULT_KINDS]
    if unknown:
        return [
            Finding(
                "config",
                "error",
                f"unknown fault kind(s) {', '.join(unknown)} (known: {', '.join(FAULT_KINDS)})",
            )
        ]
    scenarios: list[tuple[str, Any]] = [("baseline", None)]
    scenarios += [(k, FAULT_KINDS[k]) for k in kinds]
    if faults is not None:
        scenarios.append(("faults", faults))
    findings: list[Finding] = []
    for name, rules in scenarios:
        run = _Scenario(
            name, rules, config, alias, profile, drivers, driver_dirs, seed, settle, list(selection)
        )
        run.world = world
        findings.extend(run.run())
    return findings


class _Scenario:
    def __init__(
        self,
        name: str,
        rules: Any,
        config: Any,
        alias: str,
        profile: str,
        drivers: Mapping[str, str] | None,
        driver_dirs: Iterable[str | os.PathLike[str]],
        seed: int,
        settle: float,
        selection: list[str],
    ) -> None:
        self.name = name
        self.rules = rules
        self.config = config
        self.alias = alias
        self.profile = profile
        self.drivers = drivers
        self.driver_dirs = list(driver_dirs)
        self.seed = seed
        self.settle = settle
        self.selection = selection
        self.out = Collector(name)
        self.world: object = None
        self.vm_name = "conformance-" + name.replace("_", "-")

    def _fail(self, check: str, ex: DriverCallError, what: str) -> None:
        gap = self._gap(ex)
        if gap is not None:
            self.gap = gap
            self.out.gap(check, f"{what} failed on a gap of plugsim - {gap}: {ex}")
            return
        clean = ex.cause is not None and (
            type(ex.cause).__name__.startswith("SaltCloud") or isinstance(ex.cause, PlugsimError)
        )
        if self.rules is not None and clean:
            self.out.warning(
                check, f"{what} failed under fault kind {self.name!r}: {ex}", "robustness"
            )
        elif self.rules is not None:
            self.out.error(
                check, f"{what} failed under fault kind {self.name!r}: {ex}", "robustness"
            )
        else:
            self.out.error(check, f"{what} failed: {ex}")

    def _gap(self, ex: DriverCallError) -> str | None:
        """Return what plugsim lacks when *ex* comes from a gap of plugsim, else None."""
        text = str(ex)
        if "no fake cloud serves" in text:
            return text[text.index("no fake cloud serves") :].split(" (", 1)[0]
        report = self.harness.rest_report()
        if report is not None:
            new = [
                f"{u.method} {u.url}"
                for u in report.unserved
                if u.count > self.unserved_before.get((u.method, u.url), 0)
            ]
            if new:
                return f"its fake {report.unserved[0].dialect} API does not serve " + ", ".join(new)
        misses = self._misses()[self.misses_before :]
        if misses:
            dialect, kind, value = misses[-1]
            return f"the fake {dialect} catalogue has no {kind} {value!r}"
        found = _CLIENT_SIDE_MISS.search(text)
        if found:
            return f"the fake catalogue has no {found.group(1)} {found.group(2)!r} (or the profile names one the provider lacks)"
        return None

    def _misses(self) -> list[tuple[str, str, str]]:
        lister = getattr(self.harness.rest, "catalogue_misses", None)
        return list(lister()) if callable(lister) else []

    def run(self) -> list[Finding]:
        try:
            harness = DriverHarness(
                {a: self.config.provider_settings(a) for a in self.config.aliases()},
                self.config.profiles,
                settings=self.config.settings,
                drivers=self.drivers,
                driver_dirs=self.driver_dirs,
                seed=self.seed,
                faults=self.rules,
                world=self.world,
            )
            harness.config.providers_file = self.config.providers_file
            harness.config.profiles_file = self.config.profiles_file
            loaded = harness.driver(self.alias)
        except PlugsimError as ex:
            self.out.error("load", str(ex))
            return self.out.findings
        self.harness = harness
        report = harness.rest_report()
        self.unserved_before = {
            (u.method, u.url): u.count for u in (report.unserved if report else ())
        }
        self.misses_before = len(self._misses())
        self.gap: str | None = None
        if self.rules is None:
            check_static(loaded, self.out)
        if loaded.missing_functions() or any(
            loaded.function(n) is None for n in SCENARIO_FUNCTIONS
        ):
            return self.out.findings
        snapshot = harness.cloud.snapshot_inventory()
        created = self._create()
        if created:
            self._listings()
            if self.rules is None:
                self._call_conventions(loaded)
            self._destroy()
        harness.clock.advance(self.settle)
        self._leaks(snapshot)
        self._secrets()
        return self.out.findings

    def _create(self) -> bool:
        h, name = self.harness, self.vm_name
        mark = h.bus.mark()
        deploys = len(h.deployer.records)
        try:
            result = h.create(self.profile, name)
        except DriverCallError as ex:
            self._fail("create", ex, "create()")
            check_create_events(h.bus.since(mark), name, False, False, self.out)
            return False
        deployed = len(h.deployer.records) > deploys
        check_create_events(h.bus.since(mark), name, deployed, True, self.out)
        deploy_on = cd.get_cloud_config_value(
            "deploy", h.config.vm(self.profile, name), h.opts, True
        )
        if deploy_on and not deployed:
            self.out.warning("create.deploy", "create() did not deploy although deploy is enabled")
        if not isinstance(result, Mapping) or not result:
            self.out.error(
                "create.result",
                f"create() returned {type(result).__name__} {result!r:.60}; expected the node's "
                "description (a non-empty dict)",
            )
        self.created_result = result
        return True

    def _listings(self) -> None:
        h, name = self.harness, self.vm_name
        nodes = self._call("list_nodes")
        if nodes is not None:
            check_list_nodes(nodes, self.out)
            if isinstance(nodes, Mapping):
                if name not in nodes:
                    self.out.error("list_nodes.created", f"list_nodes() does not show {name!r}")
                else:
                    result = getattr(self, "created_result", None)
                    if isinstance(result, Mapping) and "id" in result:
                        if str(result["id"]) != str(nodes[name].get("id")):
                            self.out.error(
                                "create.result",
                                f"create() returned id {result['id']!r} but list_nodes() says "
                                f"{nodes[name].get('id')!r}",
                            )
        full = self._call("list_nodes_full")
        if full is not None:
            check_list_nodes_full(full, self.out)
        h.opts["query.selection"] = list(self.selection)
        selected = self._call("list_nodes_select")
        if selected is not None:
            check_list_nodes_select(selected, full, self.selection, self.out)

    def _call(self, function: str, *args: Any, **kwargs: Any) -> Any:
        if self.harness.driver(self.alias).function(function) is None:
            return None  # reported once, by the functions.required check
        try:
            return self.harness.call(self.alias, function, *args, **kwargs)
        except DriverCallError as ex:
            self._fail(function, ex, f"{function}()")
            return None

    def _expect_refusal(self, function: str, args: tuple[Any, ...], call: Any) -> None:
        try:
            self.harness.call(self.alias, function, *args, call=call)
        except DriverCallError as ex:
            kind = type(ex.cause).__name__ if ex.cause is not None else ""
            if not ex.refused and kind.startswith("SaltCloud"):
                self.out.warning(
                    "call.refusal",
                    f"{function}(call={call!r}) refused with {kind}, not SaltCloudSystemExit "
                    "(the guide's refusal)",
                )
            elif not ex.refused:
                self.out.error(
                    "call.refusal",
                    f"{function}(call={call!r}) should raise SaltCloudSystemExit, raised: {ex}",
                )
            return
        self.out.error("call.refusal", f"{function}() ran with call={call!r}; it must refuse")

    def _call_conventions(self, loaded: Any) -> None:
        actions, functions = classify(loaded)
        for action in actions:
            for wrong in (None, "function") if action == "show_instance" else ("function",):
                self._expect_refusal(action, (self.vm_name,), wrong)
        for function in functions:
            for wrong in (None, "action"):
                self._expect_refusal(function, (), wrong)
        shown = self._call("show_instance", self.vm_name, call=cd.ACTION_CALL)
        if shown is not None and not isinstance(shown, Mapping):
            self.out.error(
                "show_instance.result", f"show_instance() returned {type(shown).__name__}"
            )

    def _destroy(self) -> None:
        h, name = self.harness, self.vm_name
        mark = h.bus.mark()
        try:
            h.call(self.alias, "destroy", name)
        except DriverCallError as ex:
            self._fail("destroy", ex, "destroy()")
            return
        check_destroy_events(h.bus.since(mark), name, self.out)

    def _leaks(self, snapshot: Any) -> None:
        h = self.harness
        for item in h.cloud.leaks(snapshot):
            if self.gap is not None:
                self.out.gap(
                    "leaks",
                    f"{item.service} {item.kind} {item.name!r} ({item.id}) was left behind after "
                    f"a call failed on a gap of plugsim ({self.gap}); not counted as the "
                    "driver's leak",
                )
                continue
            self.out.error(
                "leaks",
                f"{item.service} {item.kind} {item.name!r} ({item.id}) is still there after "
                f"destroy and {self.settle:g} s",
                "robustness" if self.rules is not None else "driver",
            )
        try:
            nodes = h.call(self.alias, "list_nodes")
        except DriverCallError:
            return
        if isinstance(nodes, Mapping) and self.vm_name in nodes and self.gap is None:
            self.out.error(
                "destroy.gone",
                f"list_nodes() still shows {self.vm_name!r} after destroy",
                "robustness" if self.rules is not None else "driver",
            )

    def _secrets(self) -> None:
        h = self.harness
        secrets = secret_settings(
            h.config.provider_settings(self.alias), f"{h.config.providers_file}: {self.alias}"
        )
        secrets += secret_settings(
            h.config.profiles.get(self.profile, {}), f"{h.config.profiles_file}: {self.profile}"
        )
        check_secrets(h.events(), secrets, self.out)
