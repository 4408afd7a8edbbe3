"""The lifecycle coverage matrix: which plug-in went through which action, how it ended.

A :class:`Coverage` collects, for every resource type, how many times each
action ended ``COMPLETE`` or ``FAILED`` and which fault kinds the fake cloud
injected while that type was in play. The pytest plugin prints it as a
terminal summary section and ``--plugsim-report PATH`` writes it as JSON
(:meth:`Coverage.to_json`). Everything is sorted, so the same run gives the
same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

#: The actions shown as columns, in lifecycle order.
ACTIONS = (
    "CREATE",
    "UPDATE",
    "DELETE",
    "SUSPEND",
    "RESUME",
    "SNAPSHOT",
    "CHECK",
    "ADOPT",
    "ROLLBACK",
)
OUTCOMES = ("COMPLETE", "FAILED")


class Coverage:
    """Counts of (plug-in type, action, outcome) and the fault kinds seen per type."""

    def __init__(self) -> None:
        self.counts: dict[str, dict[str, dict[str, int]]] = {}
        self.faults: dict[str, dict[str, int]] = {}

    def add(self, plugin: str, action: str, outcome: str, times: int = 1) -> None:
        """Count one end of *action* (``COMPLETE``/``FAILED``) for resource type *plugin*."""
        per_action = self.counts.setdefault(plugin, {}).setdefault(action, {})
        per_action[outcome] = per_action.get(outcome, 0) + times

    def add_fault(self, plugin: str, kind: str, times: int = 1) -> None:
        """Count one injected fault of *kind* while *plugin* was being driven."""
        per = self.faults.setdefault(plugin, {})
        per[kind] = per.get(kind, 0) + times

    def record_events(self, events: Iterable[Any]) -> None:
        """Count every settled resource event (stack events are skipped)."""
        for ev in events:
            if ev.is_stack_event or ev.status not in OUTCOMES:
                continue
            self.add(ev.resource_type, ev.action, ev.status)

    def merge(self, data: dict[str, Any]) -> None:
        """Add the counts of another coverage's :meth:`to_dict` (e.g. an xdist worker's)."""
        for plugin, actions in data.get("plugins", {}).items():
            for action, outcomes in actions.get("actions", {}).items():
                for outcome, n in outcomes.items():
                    self.add(plugin, action, outcome, n)
            for kind, n in actions.get("faults", {}).items():
                self.add_fault(plugin, kind, n)

    def plugins(self) -> list[str]:
        """Return every resource type seen, sorted."""
        return sorted(set(self.counts) | set(self.faults))

    def to_dict(self) -> dict[str, Any]:
        """Return ``{'plugins': {type: {'actions': {...}, 'faults': {...}}}}`` (sorted)."""
        out: dict[str, Any] = {}
        for plugin in self.plugins():
            actions = self.counts.get(plugin, {})
            out[plugin] = {
                "actions": {
                    a: {o: actions[a][o] for o in sorted(actions[a])} for a in sorted(actions)
                },
                "faults": dict(sorted(self.faults.get(plugin, {}).items())),
            }
        return {"plugins": out}

    def to_json(self) -> str:
        """Return the JSON report (stable key order, trailing newline)."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    def lines(self) -> list[str]:
        """Render the matrix as text lines: one row per plug-in, ``ok/failed`` per action."""
        plugins = self.plugins()
        if not plugins:
            return ["no plug-in actions were recorded"]
        actions = [a for a in ACTIONS if any(a in self.counts.get(p, {}) for p in plugins)]
        extra = sorted({a for p in plugins for a in self.counts.get(p, {})} - set(ACTIONS))
        actions += extra
        width = max(len("plug-in"), *(len(p) for p in plugins))
        header = "plug-in".ljust(width) + "".join(f"  {a:>9}" for a in actions) + "  faults"
        rows = [header, "-" * len(header)]
        for plugin in plugins:
            cells = []
            for action in actions:
                got = self.counts.get(plugin, {}).get(action, {})
                cell = f"{got.get('COMPLETE', 0)}/{got.get('FAILED', 0)}" if got else "-"
                cells.append(f"  {cell:>9}")
            kinds = self.faults.get(plugin, {})
            faults = ", ".join(f"{k}×{n}" for k, n in sorted(kinds.items())) or "none"
            rows.append(plugin.ljust(width) + "".join(cells) + "  " + faults)
        rows.append("cells: COMPLETE/FAILED ends of each action; '-' = never exercised")
        return rows
