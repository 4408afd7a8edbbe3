"""The installed entry points of a group, scanned once per process.

Scanning means reading every installed distribution's metadata: a few milliseconds each time, paid by every
new world (its fake cloud backend, its lifecycle plug-ins). A campaign opens thousands of worlds in one
process, so :func:`group_entry_points` remembers each scan, keyed by the group and ``sys.path`` (a
directory added to it, with new distributions, is scanned afresh). Like the type registry's entry-point
cache, a package installed into an already scanned directory is seen by the next process. When
``importlib.metadata.entry_points`` has been replaced (a test standing in its own entry points) nothing
is remembered: the replacement answers every call.
"""

from __future__ import annotations

import importlib.metadata
import sys

_SCANS: dict[tuple[str, tuple[str, ...]], tuple[importlib.metadata.EntryPoint, ...]] = {}
_REAL_SCAN = importlib.metadata.entry_points


def group_entry_points(group: str) -> tuple[importlib.metadata.EntryPoint, ...]:
    """The entry points of *group*, sorted by name (stable for equal names), remembered per process."""
    scan = importlib.metadata.entry_points
    if scan is not _REAL_SCAN:
        return tuple(sorted(scan(group=group), key=lambda ep: ep.name))
    key = (group, tuple(sys.path))
    found = _SCANS.get(key)
    if found is None:
        found = tuple(sorted(scan(group=group), key=lambda ep: ep.name))
        _SCANS[key] = found
    return found


def forget_scans() -> None:
    """Drop every remembered scan (after installing a distribution in this process)."""
    _SCANS.clear()
