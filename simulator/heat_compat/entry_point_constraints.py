"""Custom constraints third-party Heat plug-ins register through Heat's entry points.

Heat finds custom constraints in the ``heat.constraints`` entry-point group
of the installed distributions (networking-bgpvpn registers
``neutron.bgpvpn = networking_bgpvpn_heat.bgpvpnservice:BGPVPNConstraint``
there; the plug-in module itself has no ``constraint_mapping()``). When the
compat layer loads a plug-in file, the entry points of that group whose
module is this file (its dotted name matches the end of the file's path)
name classes of the module just loaded, and those are registered as its
constraints.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from types import ModuleType

#: Heat's entry-point group of custom constraints.
GROUP = "heat.constraints"


def constraints_of(module: ModuleType, path: str | Path) -> dict[str, type]:
    """``{name: class}`` of the ``heat.constraints`` entry points naming a class of *module*.

    *path* is the plug-in file *module* was loaded from; an entry point's
    ``package.module`` must name that file (``.../package/module.py``).
    """
    parts = Path(path).resolve().with_suffix("").parts
    found: dict[str, type] = {}
    for entry in sorted(metadata.entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
        dotted, _, attr = entry.value.partition(":")
        names = dotted.strip().split(".")
        if not attr or len(names) > len(parts) or list(parts[-len(names) :]) != names:
            continue
        cls = getattr(module, attr.strip(), None)
        if isinstance(cls, type):
            found.setdefault(entry.name, cls)
    return found
