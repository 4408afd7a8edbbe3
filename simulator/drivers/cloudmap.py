"""salt-cloud map files: which nodes to create from which profile, with per-node overrides.

::

    do-small:              # a profile
      - web1               # a node named web1
      - web2:              # a node with settings overriding the profile's
          size: s-2vcpu-4gb

Errors name the file and the key (``web.map: do-small[1]: ...``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sdk.exception import ConfigurationError
from simulator.drivers.config import _read_yaml


@dataclass(frozen=True)
class MapEntry:
    """One node of a map: its profile, name and the settings overriding the profile's."""

    profile: str
    name: str
    overrides: dict[str, Any] = field(default_factory=dict)


def load_map(source: Any) -> list[MapEntry]:
    """Parse a map file (a path or a mapping) into entries, in file order."""
    data, label = _read_yaml(source, "map")
    if not isinstance(data, Mapping):
        raise ConfigurationError(
            f"{label}: expected a mapping of profile names to lists of node names"
        )
    entries: list[MapEntry] = []
    seen: dict[str, str] = {}
    for profile, nodes in data.items():
        where = f"{label}: {profile}"
        if not isinstance(profile, str):
            raise ConfigurationError(f"{where}: a profile name must be a string")
        if isinstance(nodes, str):
            nodes = [nodes]
        if not isinstance(nodes, list):
            raise ConfigurationError(f"{where}: expected a list of node names")
        for i, node in enumerate(nodes):
            name, overrides = _node(node, f"{where}[{i}]")
            if name in seen:
                raise ConfigurationError(
                    f"{where}[{i}]: node {name!r} is already mapped by profile {seen[name]!r}"
                )
            seen[name] = profile
            entries.append(MapEntry(profile, name, overrides))
    return entries


def _node(node: Any, where: str) -> tuple[str, dict[str, Any]]:
    if isinstance(node, str) and node:
        return node, {}
    if isinstance(node, Mapping) and len(node) == 1:
        ((name, settings),) = node.items()
        if isinstance(name, str) and name and (settings is None or isinstance(settings, Mapping)):
            return name, dict(settings or {})
    raise ConfigurationError(
        f"{where}: expected a node name or {{name: {{setting: value}}}}, got {node!r}"
    )
