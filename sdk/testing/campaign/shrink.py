"""Shrinking a failure to the fewest injected faults and adversary drifts that still produce it.

A failed run injected some faults. :func:`schedule` turns a list of them into a fault profile that injects
exactly those, each on the call it hit (a one-shot rule on the operation's Nth call when the record
numbers the call, else on the virtual instant: a window), with the effect of the rule that injected
it; the adversary's drifts become a drift schedule (:mod:`sdk.testing.campaign.schedule`) the same way.
:func:`shrink` runs delta debugging (ddmin) over both lists at once: it keeps removing faults and
drifts while the run still fails with the same signature, within a budget of runs. The result is a
profile (and a schedule) a person can read and the replay line that runs it. Cutting the stack itself
is :mod:`sdk.testing.campaign.shrink_stack`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fake_clouds.core.faults import load_profile
from sdk.testing.campaign.runs import RunResult
from sdk.testing.campaign.signature import Signature

#: A window this wide around the recorded instant matches the call the fault hit.
WINDOW = 1e-9


def schedule(faults: Sequence[Mapping[str, Any]], base_faults: Any) -> list[dict[str, Any]]:
    """Fault rules that inject exactly *faults* (records of injected faults) and nothing else."""
    effects = (
        [rule.get("effect") for rule in load_profile(base_faults).to_spec()]
        if not all(f.get("rule_effect") for f in faults)
        else []
    )
    rules = []
    for i, fault in enumerate(faults):
        index = int(fault.get("rule_index", -1))
        effect = fault.get("rule_effect") or (effects[index] if 0 <= index < len(effects) else None)
        if effect is None:
            continue
        start = float(fault["time"])
        # the call it hit: its number among the calls of its operation when known (it stays put
        # when other faults go and the timing moves), else its virtual instant
        when = (
            {"nth": int(fault["nth"])} if fault.get("nth") else {"window": [start, start + WINDOW]}
        )
        rules.append(
            {
                "name": f"shrunk-{i}"
                + (f"-{fault['rule_name']}" if fault.get("rule_name") else ""),
                "service": fault["service"],
                "operation": fault["operation"],
                **when,
                "times": 1,
                "effect": effect,
                **({"world": fault["world"]} if "world" in fault else {}),
            }
        )
    return rules


@dataclass
class Shrunk:
    """The smallest failing run found: its faults (as records and as rules), its drifts, its stack
    (when it was cut) and how many runs it took."""

    seed: int
    signature: Signature
    faults: list[dict[str, Any]]
    rules: list[dict[str, Any]]
    result: RunResult
    runs: int
    reproduced: bool = True
    notes: list[str] = field(default_factory=list)
    #: the adversary's drifts the failure needs (records of the original run)
    drifts: list[dict[str, Any]] = field(default_factory=list)
    #: the spec the shrunk run ran (another template when the stack was cut; else the campaign's)
    spec: Any = None
    #: the resources of the original stack, and those the shrunk stack kept (empty: not cut)
    resources: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    #: the campaign's failing run this was shrunk from
    original: RunResult | None = None


def ddmin(
    items: list[Any], fails: Callable[[list[Any]], bool], budget: int
) -> tuple[list[Any], int]:
    """Zeller's delta debugging: a 1-minimal failing subset of *items* (or the best within *budget*).

    *fails(subset)* must be True for *items* itself. Returns the subset and the number of calls made.
    """
    calls = 0
    n = 2
    current = list(items)
    while len(current) >= 2 and calls < budget:
        size = max(1, len(current) // n)
        chunks = [current[i : i + size] for i in range(0, len(current), size)]
        reduced = False
        for chunk in chunks:  # try each chunk alone
            if calls >= budget:
                break
            calls += 1
            if fails(chunk):
                current, n, reduced = chunk, 2, True
                break
        if not reduced:
            for i in range(len(chunks)):  # then each complement
                if calls >= budget:
                    break
                complement = [x for j, c in enumerate(chunks) if j != i for x in c]
                calls += 1
                if fails(complement):
                    current, n, reduced = complement, max(n - 1, 2), True
                    break
        if not reduced:
            if n >= len(current):
                break
            n = min(len(current), 2 * n)
    if len(current) == 1 and calls < budget:
        calls += 1
        if fails([]):  # the failure needs no fault at all
            current = []
    return current, calls


def shrink(spec: Any, failed: RunResult, *, budget: int = 64) -> Shrunk:
    """Shrink *failed* (a failing run of *spec*) to the fewest injected faults and adversary drifts
    with the same signature (delta debugging over both at once: a drift and a fault are items alike)."""
    from sdk.testing.campaign.adversary import schedule_of

    target = failed.sig
    assert target is not None, "only a failed run can be shrunk"
    results: dict[tuple[tuple[str, int], ...], RunResult] = {}
    faults = list(failed.faults)
    drifted = getattr(spec, "adversary", False)
    drifts = list(failed.drifts) if drifted else []
    base = spec.base_faults()

    def run(items: list[tuple[str, int]]) -> RunResult:
        key = tuple(items)
        if key not in results:
            rules = schedule([faults[i] for kind, i in items if kind == "fault"], base)
            if drifted:
                chosen = schedule_of([drifts[i] for kind, i in items if kind == "drift"])
                results[key] = spec.run(failed.seed, faults=rules, drifts=chosen)
            else:
                results[key] = spec.run(failed.seed, faults=rules)
        return results[key]

    def attempt(items: list[tuple[str, int]]) -> bool:
        return run(items).sig == target

    everything = [("fault", i) for i in range(len(faults))]
    everything += [("drift", i) for i in range(len(drifts))]
    if not attempt(everything):
        return Shrunk(
            failed.seed,
            target,
            faults,
            schedule(faults, base),
            failed,
            1,
            reproduced=False,
            notes=["the failure did not repeat when its faults were injected as a schedule"],
            drifts=drifts,
            spec=spec,
            original=failed,
        )
    kept, calls = ddmin(everything, attempt, budget)
    chosen = [faults[i] for kind, i in kept if kind == "fault"]
    return Shrunk(
        failed.seed,
        target,
        chosen,
        schedule(chosen, base),
        run(kept),
        calls + 1,
        drifts=[drifts[i] for kind, i in kept if kind == "drift"],
        spec=spec,
        original=failed,
    )
