"""A campaign over a plug-in's stateful action sequences: the kit's state machine, one seed each.

``plugsim campaign --plugin PATH_OR_MODULE --sequences`` drives every plug-in found through the
hypothesis state machine of :mod:`sdk.testing.statemachine` (random create, update, suspend, resume,
check, snapshot and delete, each under a fault or none, with its invariants after every step). The
campaign's seed is hypothesis's seed for that run (``hypothesis.seed`` on the machine), so a seed
draws the same sequences on every backend; ``--faults`` adds the campaign's profile to the faults a
step may run under. When a sequence fails, hypothesis shrinks it to a shortest failing sequence (the
"shorter action sequence" of a shrunk finding) and the steps are kept with the run's result.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from sdk.testing.campaign.results import RunResult
from sdk.testing.campaign.signature import Signature, normalise

#: Sequences tried per plug-in and seed, and the most steps in one.
EXAMPLES = 5
STEPS = 10


@dataclass(frozen=True)
class SequenceSpec:
    """What every run of a sequences campaign does; only the seed changes."""

    target: str
    faults: Any = None
    properties: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    examples: int = EXAMPLES
    steps: int = STEPS

    @property
    def label(self) -> str:
        """What the campaign ran over, for reports."""
        return f"plug-in {self.target} (action sequences)"

    def replay(self, seed: int, faults: str | None = None) -> str:
        """The command line that draws this seed's sequences again."""
        import shlex

        words = ["plugsim", "campaign", "--plugin", self.target, "--sequences"]
        words += ["--seeds", str(seed)]
        chosen = faults if faults is not None else self.faults
        return shlex.join(words + (["--faults", chosen] if isinstance(chosen, str) else []))

    def base_faults(self) -> Any:
        """The campaign's fault profile (one more choice for every step)."""
        return self.faults

    def check(self) -> None:
        """Load the plug-ins (a plug-in that does not load is one line here, before any run)."""
        _machines(self)

    def run(self, seed: int, faults: Any = None) -> RunResult:
        """Draw *seed*'s sequences for every plug-in; the first failing one is the finding.

        Shrinking is hypothesis's own (a shorter sequence); *faults* is accepted for the campaign's
        interface and ignored, since the sequence's steps choose their faults.
        """
        return run_sequences(self, seed)

    def log(self, seed: int) -> str:
        """The outcome of one run as text (each plug-in's result and a failing sequence's steps)."""
        return "\n".join(self.run(seed).phases) + "\n"


_MACHINES: dict[str, list[tuple[str, type]]] = {}


def _machines(spec: SequenceSpec) -> list[tuple[str, type]]:
    """``(type name, state machine class)`` of every plug-in of *spec* (built once per process)."""
    from sdk.testing.cli import derived_updates, find_plugins
    from sdk.testing.statemachine import FAULTS, lifecycle_machine
    from sdk.testing.strategies import simplest_properties

    key = repr(spec)
    if key not in _MACHINES:
        overrides = {name: dict(values) for name, values in spec.properties}
        faults = FAULTS if spec.faults is None else (*FAULTS, spec.faults)
        machines = []
        for type_name, plugin in find_plugins(spec.target).items():
            base = dict(overrides.get(type_name) or simplest_properties(plugin))
            changed = derived_updates(plugin, base)
            updates = [u for u in (changed["update_in_place"], changed["update_replace"]) if u]
            machine = lifecycle_machine(
                plugin, base, updates=updates, type_name=type_name, faults=faults
            )
            machines.append((type_name, machine))
        _MACHINES[key] = machines
    return _MACHINES[key]


def run_sequences(spec: SequenceSpec, seed: int) -> RunResult:
    """Run *seed*'s sequences of every plug-in of *spec* (see the module docstring)."""
    import hypothesis
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    from sdk.testing.stable_draws import stable_draws

    started = time.perf_counter()
    options = settings(
        max_examples=spec.examples,
        stateful_step_count=spec.steps,
        database=None,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    phases: list[str] = []
    failure: Signature | None = None
    for type_name, machine in _machines(spec):
        seeded = hypothesis.seed(seed)(type(machine.__name__, (machine,), {}))
        try:
            with stable_draws():
                run_state_machine_as_test(seeded, settings=options)
        except Exception as ex:  # noqa: BLE001 - a failing sequence is a finding
            message = str(ex).strip().splitlines()[0] if str(ex).strip() else ""
            steps = [n for n in getattr(ex, "__notes__", []) if n.strip()]
            phases.append(f"{type_name}: failed")
            phases += [f"  {line}" for note in steps for line in note.splitlines()]
            if failure is None:
                failure = Signature(
                    "sequence", type_name, "", type(ex).__name__, normalise(message)
                )
            continue
        phases.append(f"{type_name}: passed")
    return RunResult(
        seed=seed,
        ok=failure is None,
        signature=failure.to_list() if failure is not None else None,
        phases=phases,
        virtual_seconds=0.0,
        wall_seconds=time.perf_counter() - started,
        digest=hashlib.sha256("\n".join(phases).encode()).hexdigest(),
        coverage=[[type_name, "none"] for type_name, _ in _machines(spec)],
    )
