"""Drift schedules: the adversary's drifts written down, to replay exactly those (``--drifts``).

A schedule is a YAML file holding ``drifts:``, a list of ``{after, drift, resource}``: at point
``after`` (``create``, ``update`` after an action; ``update started``, ``delete started`` when the
resource's action starts) do drift ``drift`` (:data:`sdk.testing.campaign.drifts.KINDS`) to the
entity of resource ``resource``. Shrinking writes one per finding (``OUT/shrunk/finding-N.drifts.yaml``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from sdk.testing.campaign.drifts import KINDS

#: Where a drift may happen.
POINTS = ("create", "update", "update started", "delete started")


def load_drifts(path: str) -> list[dict[str, Any]]:
    """The schedule in *path*; a ConfigurationError naming the file and key when it is not one."""
    from sdk import exception

    def bad(where: str, problem: str) -> exception.ConfigurationError:
        return exception.ConfigurationError(f"{path}: {where}: {problem}")

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as ex:
        raise exception.ConfigurationError(
            f"{path}: cannot read the drift schedule ({ex.strerror})"
        ) from None
    except yaml.YAMLError as ex:
        raise exception.ConfigurationError(
            f"{path}: not YAML ({str(ex).splitlines()[0]})"
        ) from None
    if not isinstance(data, Mapping) or not isinstance(data.get("drifts"), list):
        raise bad("drifts", "expected a mapping with a list 'drifts'")
    out = []
    for i, entry in enumerate(data["drifts"]):
        where = f"drifts[{i}]"
        if not isinstance(entry, Mapping):
            raise bad(where, "expected a mapping {after, drift, resource}")
        for key, known in (("after", POINTS), ("drift", KINDS)):
            if entry.get(key) not in known:
                raise bad(f"{where}.{key}", f"{entry.get(key)!r} is not one of {', '.join(known)}")
        if not isinstance(entry.get("resource"), str) or not entry["resource"]:
            raise bad(f"{where}.resource", "expected a resource name")
        out.append(
            {"after": entry["after"], "drift": entry["drift"], "resource": entry["resource"]}
        )
    return out


def write_drifts(path: Path, drifts: Sequence[Mapping[str, Any]]) -> None:
    """Write *drifts* (schedule entries) to *path* as a schedule :func:`load_drifts` reads."""
    entries = [{k: d[k] for k in ("after", "drift", "resource")} for d in drifts]
    path.write_text(yaml.safe_dump({"drifts": entries}, sort_keys=False), encoding="utf-8")
