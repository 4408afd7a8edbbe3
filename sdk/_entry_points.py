"""The installed entry points of a group, scanned once per process.

Scanning means reading every installed distribution's metadata: a few milliseconds each time, paid by every
new world (its fake cloud backend, its lifecycle plug-ins). A campaign opens thousands of worlds in one
process, so :func:`group_entry_points` remembers each scan, keyed by the group and the directories of
``sys.path`` that hold distributions, as absolute paths (a directory added to it, with new
distributions, is scanned afresh; one without, such as a script's own directory, changes nothing: a
campaign's fork server, whose path starts with the current directory, and its workers, whose path
starts with the script's, share scans). Like the type registry's entry-point
cache, a package installed into an already scanned directory is seen by the next process. When
``importlib.metadata.entry_points`` has been replaced (a test standing in its own entry points) nothing
is remembered: the replacement answers every call.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys

_SCANS: dict[tuple[str, tuple[str, ...]], tuple[importlib.metadata.EntryPoint, ...]] = {}
_REAL_SCAN = importlib.metadata.entry_points
#: (sys.path, working directory) -> the entries of it that hold distributions
_PATHS: dict[tuple[tuple[str, ...], str], tuple[str, ...]] = {}


def group_entry_points(group: str) -> tuple[importlib.metadata.EntryPoint, ...]:
    """The entry points of *group*, sorted by name (stable for equal names), remembered per process."""
    scan = importlib.metadata.entry_points
    if scan is not _REAL_SCAN:
        return tuple(sorted(scan(group=group), key=lambda ep: ep.name))
    key = (group, _distribution_path())
    found = _SCANS.get(key)
    if found is None:
        found = tuple(sorted(scan(group=group), key=lambda ep: ep.name))
        _SCANS[key] = found
    return found


def _distribution_path() -> tuple[str, ...]:
    """The entries of ``sys.path`` that hold distributions (remembered per path and directory)."""
    where = (tuple(sys.path), os.getcwd())
    found = _PATHS.get(where)
    if found is None:
        places = dict.fromkeys(os.path.abspath(e or ".") for e in sys.path)
        found = _PATHS[where] = tuple(p for p in places if _holds_distributions(p))
    return found


def _holds_distributions(place: str) -> bool:
    """True when the ``sys.path`` item *place* (absolute) may hold distributions' metadata."""
    try:
        names = os.listdir(place)
    except OSError:
        return os.path.isfile(place)  # a zip archive on the path may hold some
    return any(name.lower().endswith((".dist-info", ".egg-info")) for name in names)


def forget_scans() -> None:
    """Drop every remembered scan (after installing a distribution in this process)."""
    _SCANS.clear()
    _PATHS.clear()
