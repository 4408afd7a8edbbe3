"""The upgrade mode of a campaign: ``plugsim campaign NEW --upgrade-from OLD``.

Each seed is one run of the upgrade check (:mod:`sdk.testing.upgrade`): every resource type of OLD gets
a stack created with a valid property map drawn from OLD's schema by the seed, the plug-in files are
replaced by NEW in place, and NEW must keep each stack working (stack check, attributes, an update with
the same template that replaces nothing, the in-place updates OLD makes, the additions, delete without
leaks). ``--faults`` applies after the upgrade, with the world's fault stream seeded by the seed, so
each seed also has its own fault schedule: the new version must survive the faults it claims to
survive on stacks it did not create.

A run's first problem is its :class:`~sdk.testing.campaign.signature.Signature`: check ``upgrade``,
the resource type, the action the problem is about and the problem's words (which name the property),
numbers and ids replaced; ``create`` when OLD could not create the stack, ``leak`` for what delete
left behind, ``setup`` when a phase could not run. Everything else is the campaign's machinery:
:class:`UpgradeSpec` is a :class:`~sdk.testing.campaign.runs.RunSpec` that runs itself, so backends,
confirmation, shrinking (of the faults injected after the upgrade) and reports work unchanged. A range
of seeds costs two interpreters (one per version), whatever its length.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk import exception
from sdk.testing.campaign.runs import RunResult, RunSpec
from sdk.testing.campaign.signature import Signature, normalise
from sdk.testing.upgrade import put_version, run_phase

#: The problem's first words -> the action it is about (the signature's action).
_ACTIONS = (
    ("stack check", "CHECK"),
    ("attribute", "ATTRIBUTE"),
    ("delete", "DELETE"),
    ("the stack no longer loads", "LOAD"),
    ("the new version does not map", "LOAD"),
    ("the old version did not create", "CREATE"),
)


@dataclass
class UpgradeReport:
    """One upgrade run's events and injected faults (what a report draws)."""

    events: list[Any]
    faults: list[dict[str, Any]]
    dependencies: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UpgradeSpec(RunSpec):
    """Every run of an upgrade campaign: ``template`` is the new version, ``old`` the previous one.

    Both are plug-in files or directories; ``faults`` applies after the upgrade.
    """

    old: str = ""

    def replay(self, seed: int, faults: str | None = None, drifts: str | None = None) -> str:
        """The command line that runs this seed again (a campaign of one seed; no drifts)."""
        spec = faults if faults is not None else self.faults
        line = f"plugsim campaign {self.template} --upgrade-from {self.old} --seeds {seed}"
        return line + (f" --faults {spec}" if isinstance(spec, str) else "")

    def run_range(self, seeds: Sequence[int]) -> list[dict[str, Any]]:
        """Run every seed of a range (two interpreters in all); JSON-able results."""
        return [result.to_dict() for result, _ in self._execute(seeds, None)]

    def run_one(self, seed: int, faults: Any = None) -> RunResult:
        """Run *seed* (with *faults* after the upgrade instead of the spec's, when given)."""
        return self._execute([seed], faults)[0][0]

    def run_report(self, seed: int, faults: Any = None) -> UpgradeReport:
        """Run *seed* and keep its world's events (for nondeterminism logs and timelines)."""
        result, report = self._execute([seed], faults, keep_events=True)[0]
        return report or UpgradeReport([], result.faults)

    def _execute(
        self, seeds: Sequence[int], faults: Any, keep_events: bool = False
    ) -> list[tuple[RunResult, UpgradeReport | None]]:
        started = time.perf_counter()
        fault_spec = self.faults if faults is None else faults
        with tempfile.TemporaryDirectory(prefix="plugsim-upgrade-campaign-") as scratch:
            work = Path(scratch) / "plugins"
            runs: list[dict[str, Any]] = [
                {
                    "plugins": str(work),
                    "state": str(Path(scratch) / f"world-{seed}.db"),
                    "seed": seed,
                    "properties": {},
                    "updates": {},
                    "generate": True,
                }
                for seed in seeds
            ]
            try:
                put_version(Path(self.old), work)
                created = run_phase("create", runs, scratch)
                put_version(Path(self.template), work)
                ready = [(r, c) for r, c in zip(runs, created, strict=True) if "error" not in c]
                checked = iter(
                    run_phase(
                        "upgrade",
                        [{**r, "created": c, "faults": fault_spec} for r, c in ready],
                        scratch,
                    )
                    if ready
                    else []
                )
            except (exception.PlugsimError, OSError) as ex:
                wall = (time.perf_counter() - started) / max(1, len(seeds))
                return [(_setup(seed, str(ex), wall), None) for seed in seeds]
            out: list[tuple[RunResult, UpgradeReport | None]] = []
            wall = (time.perf_counter() - started) / max(1, len(seeds))
            for run, made in zip(runs, created, strict=True):
                if "error" in made:
                    out.append((_setup(run["seed"], made["error"], wall), None))
                    continue
                result = _result(run["seed"], made, next(checked), wall)
                report = None
                if keep_events:
                    report = UpgradeReport(_events(run["state"]), result.faults)
                out.append((result, report))
        return out


def _events(state: str) -> list[Any]:
    from simulator.store import Store

    store = Store(state)
    try:
        return list(store.events())
    finally:
        store.close()


def _setup(seed: int, message: str, wall: float) -> RunResult:
    sig = Signature("setup", "", "", "", normalise(message))
    return RunResult(seed, False, sig.to_list(), [], 0.0, wall, "")


def _action(problem: str) -> str:
    for words, action in _ACTIONS:
        if problem.startswith(words):
            return action
    return "UPDATE"  # every other check is an update (same template, in place, additions)


def signature_of(results: Mapping[str, Sequence[str]]) -> Signature | None:
    """The signature of one upgrade run's problems per type (None when there are none)."""
    for type_name, problems in sorted(results.items()):
        if not problems:
            continue
        problem = problems[0]
        if type_name == "(leaks)":
            kinds = sorted({p.split(" ", 1)[0] for p in problems})
            return Signature(
                "leak", ",".join(kinds), "DELETE", "", f"{len(kinds)} kind(s) left behind"
            )
        action = _action(problem)
        check = "create" if action == "CREATE" else "upgrade"
        return Signature(check, type_name, action, "", normalise(problem))
    return None


def _result(
    seed: int, created: Mapping[str, Any], checked: Mapping[str, Any], wall: float
) -> RunResult:
    if "error" in checked:
        return _setup(seed, checked["error"], wall)
    sig = signature_of(checked["results"])
    made = all(
        str(v.get("state", "")).endswith("CREATE_COMPLETE")
        for k, v in sorted(created.items())
        if k != "baseline"
    )
    faults = list(checked.get("faults") or [])
    coverage = {("UPGRADE", "none")} | {("UPGRADE", str(f.get("effect"))) for f in faults}
    return RunResult(
        seed=seed,
        ok=sig is None,
        signature=sig.to_list() if sig is not None else None,
        phases=[
            "CREATE_COMPLETE" if made else "CREATE_FAILED",
            "UPGRADE_COMPLETE" if sig is None else "UPGRADE_FAILED",
        ],
        virtual_seconds=float(checked.get("virtual_seconds", 0.0)),
        wall_seconds=wall,
        digest=str(checked.get("digest", "")),
        faults=faults,
        coverage=[list(p) for p in sorted(coverage)],
    )


def upgrade_spec(spec: RunSpec, old: str) -> UpgradeSpec:
    """The upgrade campaign of ``plugsim campaign NEW --upgrade-from OLD`` (*spec* from the other
    options: its template is NEW; options that only a template campaign has are refused)."""
    if spec.update_template or spec.environment or spec.parameters:
        raise exception.ConfigurationError(
            "--upgrade-from: --update-template, --environment and --parameter belong to a "
            "template campaign; an upgrade campaign draws its own stacks from the plug-ins"
        )
    paths = {"--upgrade-from": old, "the new version": spec.template}
    for what, path in paths.items():
        if not Path(path).exists():
            raise exception.ConfigurationError(f"{what} {path}: no such plug-in file or directory")
    return UpgradeSpec(
        template=str(Path(spec.template).resolve()),
        faults=spec.faults,
        old=str(Path(old).resolve()),
    )
