"""A campaign over a plug-in's conformance paths: every path of the kit, under faults, per seed.

``plugsim campaign --plugin PATH_OR_MODULE`` builds the conformance classes ``plugsim conformance``
builds (:func:`sdk.testing.cli.conformance_classes`) and, for each seed, runs their paths (``test_create``,
``test_update_replace``, ``test_check`` ...) outside pytest, each with a fresh
:class:`~sdk.testing.harness.PlugsimEnv` of that seed, and the campaign's fault profile in every world the
path opens. The paths that test a reaction to a fault they inject themselves (:data:`REACTIONS`: each
compares a world with a clean probe of the same create, which extra faults would make differ) are left
out unless named with ``--path``, and then run as the kit runs them, without the campaign's faults.
A path that skips is not a failure; a path whose assertion fails, or that raises, fails the run. The run's signature is its first failing path's
(check = the path, resource type, exception class, normalised message) and its faults are the injected
faults of that path's worlds, each naming the world it hit (``test_create/0``: the path's first world),
so shrinking can replay each world's own faults there and nowhere else.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sdk.testing.campaign.results import RunResult
from sdk.testing.campaign.signature import Signature, normalise

if TYPE_CHECKING:
    from sdk.testing.conformance import ResourceConformance

#: Paths that are not about faults: hypothesis's validation checks and the upgrade check.
LEFT_OUT = ("test_validation_", "test_upgrade_")
#: Paths that inject their own faults into worlds compared with a clean probe (see the docstring).
REACTIONS = (
    "test_create_fails_at_each_cloud_call",
    "test_create_with_rollback",
    "test_update_failure_rolls_back",
    "test_timeout_cancels_create",
    "test_survives_",
)


@dataclass(frozen=True)
class PathSpec:
    """What every run of a conformance-paths campaign does; only the seed (and the faults) change."""

    target: str
    faults: Any = None
    world: str | None = None
    #: ``{type: {property: value}}`` valid properties (``--properties``), as sorted items
    properties: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    #: only these paths (``--path``, repeatable); empty: every fault-related path
    paths: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """What the campaign ran over, for reports."""
        return f"plug-in {self.target}"

    def overrides(self) -> dict[str, dict[str, Any]]:
        """The ``--properties`` overrides as the kit takes them."""
        return {name: dict(values) for name, values in self.properties}

    def replay(self, seed: int, faults: str | None = None) -> str:
        """The command line that runs this seed's paths again."""
        import shlex

        words = ["plugsim", "campaign", "--plugin", self.target, "--seeds", str(seed)]
        chosen = faults if faults is not None else self.faults
        if isinstance(chosen, str):
            words += ["--faults", chosen]
        if self.world:
            words += ["--world", self.world]
        for path in self.paths:
            words += ["--path", path]
        return shlex.join(words)

    def base_faults(self) -> Any:
        """The fault profile the paths are given: ``--faults``, else the world file's own rules."""
        if self.faults is not None or not self.world:
            return self.faults
        from fake_clouds.worldfile import resolve

        return resolve(self.world)[0].get("faults")

    def check(self) -> None:
        """Raise the one-line error of a plug-in, world file or path name that cannot be used."""
        from sdk import exception

        if self.world:
            from fake_clouds.worldfile import resolve

            resolve(self.world)
        from sdk.testing.conformance import conformance_test_names

        _classes(self.target, self.overrides())  # a plug-in that does not load says so here
        known = [n for n in conformance_test_names() if not n.startswith(LEFT_OUT)]
        unknown = sorted(set(self.paths) - set(known))
        if unknown:
            raise exception.ConfigurationError(
                f"--path: {', '.join(unknown)} is not a conformance path of {self.target} "
                f"(paths: {', '.join(known)})"
            )

    def cases(self) -> list[tuple[type[ResourceConformance], str]]:
        """``(conformance class, path name)`` of every path to run, in a fixed order."""
        from sdk.testing.conformance import conformance_test_names

        names = [n for n in conformance_test_names() if not n.startswith(LEFT_OUT)]
        if self.paths:
            names = [n for n in names if n in self.paths]
        else:
            names = [n for n in names if not n.startswith(REACTIONS)]
        classes = _classes(self.target, self.overrides())
        return [(classes[c], name) for c in sorted(classes) for name in names]

    def run(self, seed: int, faults: Any = None) -> RunResult:
        """Run every path under *seed* (with *faults* instead of the spec's, when given)."""
        return run_paths(self, seed, faults)

    def log(self, seed: int) -> str:
        """A text record of one run (every path's outcome and injected faults), for a diff."""
        result = self.run(seed)
        return "\n".join([*result.phases, *map(str, result.faults)]) + "\n"


_CLASSES: dict[tuple[str, str], dict[str, type]] = {}


def _classes(target: str, overrides: Mapping[str, Any]) -> dict[str, type]:
    """The conformance classes of *target* (built once per process: plug-ins import once)."""
    from sdk.testing.cli import conformance_classes

    key = (str(Path(target).resolve()) if Path(target).exists() else target, repr(overrides))
    if key not in _CLASSES:
        _CLASSES[key] = conformance_classes(key[0], dict(overrides))
    return _CLASSES[key]


def _listed_rules(faults: Any) -> list[Any] | None:
    """The rules of *faults* when they are written out (a list, or a YAML file of ``rules``)."""
    if isinstance(faults, list | tuple):
        return list(faults)
    if isinstance(faults, str) and faults.endswith((".yaml", ".yml")) and Path(faults).is_file():
        import yaml

        data = yaml.safe_load(Path(faults).read_text(encoding="utf-8"))
        rules = data.get("rules") if isinstance(data, Mapping) else data
        return list(rules) if isinstance(rules, list) else None
    return None


def _per_world(faults: Any) -> tuple[Any, dict[str, list[dict[str, Any]]] | None]:
    """Split a profile into (profile for every world, or rules per world).

    Rules that name a ``world`` (``PATH/N``, what shrinking writes) go to that world only.
    """
    rules = _listed_rules(faults)
    if rules is None or not any(isinstance(r, Mapping) and "world" in r for r in rules):
        return faults, None
    by_world: dict[str, list[dict[str, Any]]] = {}
    for rule in rules:
        rule = dict(rule)
        by_world.setdefault(str(rule.pop("world", "")), []).append(rule)
    return None, by_world


class _Faulted:
    """Gives the campaign's faults to every world a path opens (world by world when shrunk)."""

    def __init__(
        self, path: str, every: Any, by_world: dict[str, list[dict[str, Any]]] | None
    ) -> None:
        self.path, self.every, self.by_world = path, every, by_world
        self.opened: list[Any] = []  # the campaign-faulted worlds, in order

    def install(self, case: Any) -> None:
        original = case._harness

        def harness(env: Any, *, faults: Any = None, **kwargs: Any) -> Any:
            index = len(self.opened)
            name = f"{self.path}/{index}"
            given = self.every if self.by_world is None else self.by_world.get(name)
            made = original(env, faults=given, **kwargs)
            self.opened.append(made.world)
            return made

        case._harness = harness


def _numbered(world: Any, name: str) -> list[dict[str, Any]]:
    """The injected faults of *world* (the campaign world *name*), each with the number of the call
    it hit among the calls of its operation (``nth``) and its rule's effect, for shrinking."""
    rules = world.cloud.faults.profile.to_spec()
    calls: dict[tuple[str, str], int] = {}
    numbers: dict[tuple[float, str, str], int] = {}
    for entry in world.cloud.trace():
        key = (entry.service, entry.operation)
        calls[key] = calls.get(key, 0) + 1
        numbers.setdefault((entry.time, entry.service, entry.operation), calls[key])
    return [
        {
            **f.to_dict(),
            "world": name,
            "nth": numbers.get((f.time, f.service, f.operation)),
            "rule_effect": rules[f.rule_index].get("effect") if f.rule_index < len(rules) else None,
        }
        for f in world.cloud.injected_faults()
    ]


def run_paths(spec: PathSpec, seed: int, faults: Any = None) -> RunResult:
    """Run every path of *spec* under *seed*; the first failing path is the run's finding."""
    import pytest

    from sdk.testing.campaign.verdicts import of_exception
    from sdk.testing.harness import PlugsimEnv

    started = time.perf_counter()
    every, by_world = _per_world(spec.faults if faults is None else faults)
    outcomes: list[str] = []
    failure: Signature | None = None
    recorded: list[dict[str, Any]] = []
    verdict: dict[str, Any] | None = None
    coverage: set[tuple[str, str]] = set()
    digest = hashlib.sha256()
    for cls, name in spec.cases():
        faulted = _Faulted(name, every, by_world)
        case = cls()
        if not name.startswith(REACTIONS):
            faulted.install(case)
        env = PlugsimEnv(seed, world=spec.world)
        outcome, sig = "passed", None
        try:
            getattr(case, name)(env)
        except pytest.skip.Exception:
            outcome = "skipped"
        except (AssertionError, Exception) as ex:  # noqa: BLE001 - a failing path is a finding
            outcome = "failed"
            sig = _signature(name, str(cls.resource_type), ex)
            if failure is None:
                verdict = of_exception(ex, name, str(cls.resource_type)).to_dict()
        injected = [
            f for i, world in enumerate(faulted.opened) for f in _numbered(world, f"{name}/{i}")
        ]
        for world in env.worlds:
            try:
                events = world.store.events()
            except sqlite3.ProgrammingError:  # a world the path closed itself
                continue
            digest.update("".join(e.to_line() for e in events).encode())
        env.close()
        line = f"{cls.resource_type} {name}: {outcome}"
        outcomes.append(line)
        digest.update(line.encode())
        coverage.add((name, "none"))
        coverage.update((name, str(f.get("effect"))) for f in injected)
        if sig is not None and failure is None:
            failure, recorded = sig, injected
    return RunResult(
        seed=seed,
        ok=failure is None,
        signature=failure.to_list() if failure is not None else None,
        phases=outcomes,
        virtual_seconds=0.0,
        wall_seconds=time.perf_counter() - started,
        digest=digest.hexdigest(),
        faults=recorded,
        coverage=[list(p) for p in sorted(coverage)],
        verdict=verdict,
    )


def _signature(path: str, resource_type: str, ex: BaseException) -> Signature:
    verdict = getattr(ex, "verdict", None)  # a VerdictFailure: its summary, not the whole verdict
    text = verdict.summary if verdict is not None else str(ex).strip()
    message = text.splitlines()[0] if text else ""
    error = "AssertionError" if verdict is not None else type(ex).__name__  # a failed check
    return Signature(path, resource_type, "", error, normalise(message))
