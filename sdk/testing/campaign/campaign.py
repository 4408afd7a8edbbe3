"""A campaign: many seeds of one stack lifecycle, failures confirmed, deduplicated and shrunk.

:func:`run_campaign` runs the seeds on a backend (:mod:`sdk.testing.campaign.backends`), appending every
result to ``results.jsonl`` in the output directory as it arrives, so an interrupted campaign resumes where
it stopped. Then every failure is made useful:

* grouped by :class:`~sdk.testing.campaign.signature.Signature` (one finding, many seeds);
* confirmed: its smallest seed is run again, and a run that differs from itself (another event-log digest)
  is reported as nondeterminism, with both event logs written out;
* shrunk to the fewest injected faults and adversary drifts, and the smallest stack, that still
  fail the same way (:func:`~sdk.testing.campaign.shrink_stack.make_smaller`), with a fault profile,
  a drift schedule, a template and a replay line.

Everything a report shows is sorted by seed or signature, never by arrival order.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk.testing.campaign.backends import execute
from sdk.testing.campaign.runs import RunResult, RunSpec
from sdk.testing.campaign.shrink import Shrunk
from sdk.testing.campaign.shrink_stack import make_smaller
from sdk.testing.campaign.signature import Signature
from sdk.testing.verdict import Verdict

RESULTS = "results.jsonl"
#: The campaign whose results ``results.jsonl`` holds (its spec), so another one never resumes them.
IDENTITY = "campaign.json"


@dataclass
class Finding:
    """One distinct failure: its signature, every seed that showed it, and what was learned about it."""

    signature: Signature
    seeds: list[int]
    replay: str
    nondeterministic: bool = False
    shrunk: Shrunk | None = None
    shrunk_replay: str = ""
    shrunk_profile: str = ""
    #: the first failing run's verdict (:class:`sdk.testing.verdict.Verdict`), its replay line the
    #: finding's (the shrunk one when there is one)
    verdict: Verdict | None = None


@dataclass
class CampaignResult:
    """The outcome of a campaign."""

    spec: Any
    results: dict[int, RunResult] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    wall_seconds: float = 0.0
    resumed: int = 0
    stopped_early: bool = False

    @property
    def failures(self) -> int:
        """How many runs failed."""
        return sum(not r.ok for r in self.results.values())

    @property
    def seeds_per_second(self) -> float:
        """Runs done in this invocation per wall second (resumed runs excluded)."""
        ran = len(self.results) - self.resumed
        return ran / self.wall_seconds if self.wall_seconds > 0 else 0.0

    def coverage(self) -> dict[tuple[str, str], int]:
        """How many runs exercised each (action, fault kind) pair (``none``: no fault)."""
        counts: dict[tuple[str, str], int] = {}
        for result in self.results.values():
            for action, kind in result.coverage:
                counts[(action, kind)] = counts.get((action, kind), 0) + 1
        return dict(sorted(counts.items()))


def parse_seeds(text: str | None, count: int | None) -> list[int]:
    """``0..999`` (inclusive), ``5,7,9`` or ``--count N`` (0..N-1) as a sorted list of seeds."""
    from sdk import exception

    if text:
        seeds: set[int] = set()
        for part in text.split(","):
            part = part.strip()
            lo, sep, hi = part.partition("..")
            try:
                if sep:
                    first, last = int(lo), int(hi)
                    if last < first or last - first > 10_000_000:
                        raise ValueError
                    seeds.update(range(first, last + 1))
                else:
                    seeds.add(int(part))
            except ValueError:
                raise exception.ConfigurationError(
                    f"--seeds: {part!r} is not a seed or a range FIRST..LAST"
                ) from None
        return sorted(seeds)
    return list(range(count if count is not None else 100))


def _identity(spec: Any) -> dict[str, Any]:
    """What makes a campaign itself: its kind and every field of its spec (the seeds aside)."""
    import dataclasses

    is_instance = dataclasses.is_dataclass(spec) and not isinstance(spec, type)
    fields = dataclasses.asdict(spec) if is_instance else {"spec": repr(spec)}
    return json.loads(json.dumps({"kind": type(spec).__name__, **fields}, default=str))


def _claim(out: Path, spec: Any) -> None:
    """Make sure *out* holds no other campaign's results, then record this campaign's identity.

    :raises sdk.exception.ConfigurationError: *out* has results of another campaign, or results
        written without an identity (nothing tells which campaign they belong to).
    """
    from sdk import exception

    identity = _identity(spec)
    marker = out / IDENTITY
    if (out / RESULTS).exists():
        try:
            recorded = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise exception.ConfigurationError(
                f"{out}: cannot tell which campaign the results in {RESULTS} belong to "
                f"({IDENTITY} is missing or unreadable); give another --out or remove them"
            ) from None
        if recorded != identity:
            raise exception.ConfigurationError(
                f"{out}: holds the results of another campaign ({recorded.get('kind')} "
                f"{_describe(recorded)}); give another --out or remove it"
            )
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(identity, sort_keys=True, indent=1) + "\n", encoding="utf-8")


def _describe(identity: dict[str, Any]) -> str:
    for key in ("template", "target", "plugin"):
        if identity.get(key):
            return str(identity[key])
    return "with other settings"


def _load(out: Path | None) -> dict[int, RunResult]:
    if out is None or not (out / RESULTS).exists():
        return {}
    done: dict[int, RunResult] = {}
    for line in (out / RESULTS).read_text(encoding="utf-8").splitlines():
        try:
            result = RunResult.from_dict(json.loads(line))
        except (ValueError, TypeError):
            continue  # a line cut short by an interruption: that seed runs again
        done[result.seed] = result
    return done


def run_campaign(
    spec: Any,
    seeds: Sequence[int],
    *,
    backend: str = "local",
    jobs: int = 1,
    chunk: int = 25,
    address: str | None = None,
    out: Path | None = None,
    time_budget: float | None = None,
    shrink_budget: int = 64,
    progress: Callable[[int, int, int], None] | None = None,
    replays: Path | None = None,
) -> CampaignResult:
    """Run *seeds* of *spec* and make every failure useful (see the module docstring).

    *progress(done, total, failures)* is called as results arrive. Without *out*, the shrunk
    profiles, drift schedules and templates go under *replays* (see :mod:`sdk.testing.replays`)
    so that the replay lines still work after the run.
    """
    started = time.perf_counter()
    outcome = CampaignResult(spec)
    if out is not None:
        _claim(out, spec)
    previous = _load(out)
    outcome.results = {s: r for s, r in previous.items() if s in set(seeds)}
    outcome.resumed = len(outcome.results)
    todo = [s for s in seeds if s not in outcome.results]
    sink = None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        sink = (out / RESULTS).open("a", encoding="utf-8")
    try:
        for batch in execute(spec, todo, backend=backend, jobs=jobs, chunk=chunk, address=address):
            for data in batch:
                result = RunResult.from_dict(data)
                outcome.results[result.seed] = result
                if sink is not None:
                    sink.write(json.dumps(data, sort_keys=True) + "\n")
            if sink is not None:
                sink.flush()
            if progress is not None:
                progress(len(outcome.results), len(seeds), outcome.failures)
            if time_budget is not None and time.perf_counter() - started > time_budget:
                outcome.stopped_early = len(outcome.results) < len(seeds)
                break
    finally:
        if sink is not None:
            sink.close()
    outcome.results = dict(sorted(outcome.results.items()))
    keep = out if out is not None else replays
    outcome.findings = _findings(spec, outcome.results.values(), keep, shrink_budget)
    outcome.wall_seconds = time.perf_counter() - started
    return outcome


def _findings(
    spec: Any, results: Iterable[RunResult], out: Path | None, budget: int
) -> list[Finding]:
    groups: dict[Signature, list[RunResult]] = {}
    for result in results:
        if result.sig is not None:
            groups.setdefault(result.sig, []).append(result)
    findings = []
    for number, (sig, runs) in enumerate(sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))):
        first = min(runs, key=lambda r: r.seed)
        finding = Finding(sig, sorted(r.seed for r in runs), spec.replay(first.seed))
        again = spec.run(first.seed)
        if again.digest != first.digest or again.signature != first.signature:
            finding.nondeterministic = True
            if out is not None:
                _write_logs(spec, first.seed, out / "nondeterminism" / f"seed-{first.seed}")
        elif sig.check != "setup":
            finding.shrunk, finding.shrunk_profile, finding.shrunk_replay = make_smaller(
                spec, first, out, number + 1, budget
            )
        if first.verdict:
            finding.verdict = Verdict.from_dict(first.verdict)
            finding.verdict.replay = finding.shrunk_replay or finding.replay
        findings.append(finding)
    return findings


def _write_logs(spec: RunSpec, seed: int, prefix: Path) -> None:
    """Run *seed* twice more and keep both event logs, so the difference can be read."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    for name in ("a", "b"):
        prefix.with_name(f"{prefix.name}-{name}.log").write_text(spec.log(seed), encoding="utf-8")


def summary(outcome: CampaignResult) -> dict[str, Any]:
    """The machine-readable report (``summary.json``)."""
    return {
        "template": getattr(outcome.spec, "template", None),
        "plugin": getattr(outcome.spec, "target", None),
        "world": outcome.spec.world,
        "runs": len(outcome.results),
        "passed": len(outcome.results) - outcome.failures,
        "failed": outcome.failures,
        "resumed": outcome.resumed,
        "stopped_early": outcome.stopped_early,
        "wall_seconds": round(outcome.wall_seconds, 3),
        "seeds_per_second": round(outcome.seeds_per_second, 2),
        "findings": [
            {
                "signature": f.signature.key(),
                "parts": f.signature.to_list(),
                "count": len(f.seeds),
                "seeds": f.seeds,
                "replay": f.replay,
                "nondeterministic": f.nondeterministic,
                "shrunk_faults": len(f.shrunk.faults) if f.shrunk else None,
                "shrunk_reproduced": f.shrunk.reproduced if f.shrunk else None,
                "shrunk_profile": f.shrunk_profile or None,
                "shrunk_replay": f.shrunk_replay or None,
                "shrunk_drifts": f.shrunk.drifts if f.shrunk else None,
                "shrunk_resources": f.shrunk.kept or None if f.shrunk else None,
                "shrunk_template": f.shrunk.spec.template if f.shrunk and f.shrunk.kept else None,
                "verdict": f.verdict.to_dict() if f.verdict else None,
            }
            for f in outcome.findings
        ],
        "coverage": [
            {"action": a, "fault": k, "runs": n} for (a, k), n in outcome.coverage().items()
        ],
    }
