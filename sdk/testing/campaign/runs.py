"""One run of a campaign: a seed through a stack's whole life, reduced to what the campaign keeps.

A run is a pure function of its :class:`RunSpec` and seed (plugsim's determinism): the same pair gives the
same events, faults and outcome on any machine, process or backend. :func:`run_one` keeps the outcome, the
failure's signature, the injected faults (for shrinking), a digest of the event log (to confirm a failure
repeats exactly) and which actions ran under which fault kinds (the coverage the report shows).
"""

from __future__ import annotations

import hashlib
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sdk.testing.campaign.results import RunResult
from sdk.testing.campaign.signature import Signature, of_run
from simulator.events import event_log
from simulator.simulate import Report, simulate
from simulator.views.timeline import build_timeline


@dataclass(frozen=True)
class RunSpec:
    """What every run of a campaign does; only the seed (and, when shrinking, the faults) change."""

    template: str
    environment: tuple[str, ...] = ()
    parameters: tuple[tuple[str, str], ...] = ()
    update_template: str | None = None
    faults: Any = None
    plugin_dirs: tuple[str, ...] = ()
    #: the world file or preset every run's fake cloud starts from (``--world``)
    world: str | None = None
    #: drift the cloud behind the engine's back (:mod:`sdk.testing.campaign.adversary`)
    adversary: bool = False
    #: with the adversary: a YAML file of the drifts to do instead of the seed's (``--drifts``)
    drifts: str | None = None

    def replay(self, seed: int, faults: str | None = None, drifts: str | None = None) -> str:
        """The ``plugsim simulate`` command line of one run (``plugsim campaign`` with the adversary,
        which only a campaign runs; *drifts*: a drift schedule file instead of the spec's)."""
        if self.adversary:
            return self._campaign_line(seed, faults, drifts or self.drifts)
        report = Report(
            seed=seed,
            template=self.template,
            environment=list(self.environment),
            fault_spec=faults if faults is not None else _as_text(self.faults),
            update_template=self.update_template,
        )
        line = report.replay()
        prefix = "".join(f"--plugin-dir {d} " for d in self.plugin_dirs)
        params = "".join(f" --parameter {k}={v}" for k, v in self.parameters)
        world = f" --world {shlex.quote(self.world)}" if self.world else ""
        return line.replace("plugsim simulate", f"plugsim {prefix}simulate", 1) + params + world

    def _campaign_line(self, seed: int, faults: str | None, drifts: str | None) -> str:
        words = ["plugsim", *(w for d in self.plugin_dirs for w in ("--plugin-dir", d))]
        words += ["campaign", self.template, *(w for e in self.environment for w in ("-e", e))]
        words += [w for k, v in self.parameters for w in ("--parameter", f"{k}={v}")]
        if self.update_template:
            words += ["--update-template", self.update_template]
        words += ["--seeds", str(seed), "--adversary"]
        chosen = faults if faults is not None else _as_text(self.faults)
        words += ["--faults", chosen] if chosen else []
        words += ["--world", self.world] if self.world else []
        words += ["--drifts", drifts] if drifts else []
        return shlex.join(words)

    @property
    def label(self) -> str:
        """What the campaign ran over, for reports."""
        return self.template

    def run(self, seed: int, faults: Any = None, drifts: Any = None) -> RunResult:
        """One run of this spec (:func:`run_one`, or the adversary's drifted lifecycle, with the
        drift schedule *drifts* when given)."""
        if self.adversary:
            from sdk.testing.campaign.adversary import run_drifted

            return run_drifted(self, seed, faults, drifts)
        return run_one(self, seed, faults)

    def drift_schedule(self) -> list[dict[str, Any]] | None:
        """The drifts of ``--drifts`` (None: the adversary draws them from each seed)."""
        if self.drifts is None:
            return None
        from sdk.testing.campaign.schedule import load_drifts

        return load_drifts(self.drifts)

    def log(self, seed: int) -> str:
        """The event log of one run, for a diff."""
        if self.adversary:
            return "".join(f"{sorted(d.items())}\n" for d in self.run(seed).drifts)
        return event_log(run_report(self, seed).events)

    def base_faults(self) -> Any:
        """The fault profile the runs are given: ``--faults``, else the world file's own rules."""
        if self.faults is not None or not self.world:
            return self.faults
        from fake_clouds.worldfile import resolve

        return resolve(self.world)[0].get("faults")

    def check(self) -> None:
        """Raise the one-line error of a world file or drift schedule that cannot be read, or of a
        project the trust rule does not let run, before any run."""
        from simulator.project_config import check_trusted

        for template in (self.template, self.update_template):
            if template and Path(template).is_file():
                check_trusted(Path(template).resolve().parent)
        if self.world:
            from fake_clouds.worldfile import resolve

            resolve(self.world)
        self.drift_schedule()


def _as_text(faults: Any) -> str | None:
    return faults if isinstance(faults, str) else None


def run_report(spec: RunSpec, seed: int, faults: Any = None) -> Report:
    """Simulate one run and return plugsim's full report of it."""
    own = getattr(spec, "run_report", None)  # a spec of another mode runs itself (upgrade_mode)
    if own is not None:
        return own(seed, faults)
    world_options: dict[str, Any] = {"world_file": spec.world} if spec.world else {}
    return simulate(
        spec.template,
        list(spec.environment),
        dict(spec.parameters),
        seed=seed,
        faults=spec.faults if faults is None else faults,
        update_template=spec.update_template,
        plugin_dirs=list(spec.plugin_dirs),
        **world_options,
    )


def run_one(spec: RunSpec, seed: int, faults: Any = None) -> RunResult:
    """Run *seed* (with *faults* instead of the spec's, when given) and keep what a campaign needs.

    A plug-in or template error that stops the run before any phase is a failure of check ``setup``.
    """
    own = getattr(spec, "run_one", None)  # a spec of another mode runs itself (upgrade_mode)
    if own is not None:
        return own(seed, faults)
    started = time.perf_counter()
    try:
        report = run_report(spec, seed, faults)
    except Exception as ex:  # noqa: BLE001 - a run that cannot start is a finding, not a crash
        setup = Signature("setup", "", "", type(ex).__name__, str(ex))
        return RunResult(seed, False, setup.to_list(), [], 0.0, time.perf_counter() - started, "")
    phases = [p.to_dict() for p in report.phases]
    sig = of_run(phases, report.events, report.leaks)
    verdict = None
    if sig is not None:
        from sdk.testing.campaign.verdicts import of_report

        verdict = of_report(report, sig).to_dict()
    return RunResult(
        seed=seed,
        ok=sig is None,
        signature=sig.to_list() if sig is not None else None,
        phases=[p["state"] for p in phases],
        virtual_seconds=report.virtual_seconds,
        wall_seconds=time.perf_counter() - started,
        digest=hashlib.sha256(event_log(report.events).encode()).hexdigest(),
        faults=list(report.faults),
        coverage=_coverage(report),
        verdict=verdict,
    )


def _coverage(report: Report) -> list[list[str]]:
    """``[action, fault kind]`` pairs this run exercised (``none`` when no fault hit the action)."""
    timeline = build_timeline(report.events, report.faults)
    pairs = {(span.action, "none") for span in timeline.spans}
    spans = timeline.spans
    for fault in timeline.faults:
        hit = [s for s in spans if s.row == fault.row and s.start <= fault.time <= s.end]
        for span in hit or spans[:0]:
            pairs.add((span.action, fault.effect))
    return [list(p) for p in sorted(pairs)]


def run_range(spec: Any, seeds: Sequence[int]) -> list[dict[str, Any]]:
    """Run every seed of a range in this process (what a worker task does).

    *spec* is a :class:`RunSpec` or any campaign spec with ``run(seed)`` (conformance paths, action
    sequences); a spec with its own ``run_range`` (the upgrade mode) runs the range itself.
    """
    own = getattr(spec, "run_range", None)  # a spec of another mode runs itself (upgrade_mode)
    if own is not None:
        return own(seeds)
    return [spec.run(seed).to_dict() for seed in seeds]
