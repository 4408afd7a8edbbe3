"""What the dialects share: virtual timestamps, integer ids, entity reads and actions.

* Virtual time ``t`` is shown as the instant ``2024-01-01T00:00:00Z + t``.
* Providers with integer ids (DigitalOcean, Linode) see the fake cloud's UUID
  ``u`` as ``int(u[:8], 16)`` - stable, so no second id table is needed and
  a droplet created over REST is the compute server of the same UUID.
* Actions (DigitalOcean) are records kept per world in :class:`RestState`;
  an action is ``in-progress`` until the transition it started is due, then
  ``completed`` (or ``errored`` if the entity ended in its ERROR status). A
  stuck entity keeps its action in progress forever.

The dialects read entities of the core read-only (``Service._get`` /
``Service._store``) to follow transitions without a second dispatch; every
change goes through the services' operations.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fake_clouds.core.entities import Entity

EPOCH = datetime(2024, 1, 1, tzinfo=UTC)

#: Pre-seeded flavor id -> DigitalOcean size slug / Linode type id.
DO_SIZES = {
    "1": "s-1vcpu-512mb-10gb",
    "2": "s-1vcpu-2gb",
    "3": "s-2vcpu-4gb",
    "4": "s-4vcpu-8gb",
    "5": "s-8vcpu-16gb",
}
LINODE_TYPES = {
    "1": "g6-nanode-1",
    "2": "g6-standard-1",
    "3": "g6-standard-2",
    "4": "g6-standard-4",
    "5": "g6-standard-8",
}
#: Pre-seeded image name -> (DigitalOcean slug, Linode id, distribution).
IMAGE_ALIASES = {
    "cirros": ("cirros-0-6-2-x64", "linode/cirros0.6", "CirrOS"),
    "fedora": ("fedora-39-x64", "linode/fedora39", "Fedora"),
    "ubuntu": ("ubuntu-22-04-x64", "linode/ubuntu22.04", "Ubuntu"),
}


def iso(t: float, *, zulu: bool = True) -> str:
    """Return virtual time *t* as an ISO 8601 UTC timestamp."""
    stamp = (EPOCH + timedelta(seconds=float(t))).strftime("%Y-%m-%dT%H:%M:%S")
    return stamp + ("Z" if zulu else "")


def int_id(uuid_text: str) -> int:
    """Return the integer id a provider with integer ids shows for *uuid_text*."""
    return int(uuid_text.replace("-", "")[:8], 16)


def parse_int(value: Any) -> int | None:
    """Return *value* as an int if it is one (or a string of digits), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def entity(cloud: Any, service: str, kind: str, entity_id: str) -> Entity | None:
    """Return the live entity (read-only, no dispatch), or None."""
    if service not in cloud.service_names():
        return None
    svc = cloud.service(service)
    svc._refresh(kind)
    ent = svc._store.get(kind, {}).get(entity_id)
    return None if ent is None or ent.deleted else ent


def settle_resize(cloud: Any, server: dict[str, Any]) -> dict[str, Any]:
    """Confirm a finished resize (providers without a VERIFY_RESIZE step); return the view.

    Call it from inside a dispatched request: the confirmation runs as part of it.
    """
    if server["status"] == "VERIFY_RESIZE":
        ent = entity(cloud, "compute", "server", server["id"])
        if ent is not None and not ent.pending:
            return cloud.service("compute").confirm_resize(server["id"])
    return server


def flavor_slug(flavor: dict[str, Any], table: dict[str, str]) -> str:
    """Return the provider slug of a flavor (its name when it is not pre-seeded)."""
    return table.get(flavor["id"], flavor["name"])


@dataclass
class Action:
    """A provider action (power_off, snapshot ...) following one entity's transition."""

    id: int
    type: str
    resource_id: int
    resource_type: str
    region: str
    started_at: float
    watch: tuple[str, str, str] | None
    done_at: float
    outcome: str | None = None
    completed_at: float | None = None

    def status(self, cloud: Any) -> str:
        """Return ``in-progress``, ``completed`` or ``errored`` at the caller's virtual time."""
        if self.outcome is not None:
            return self.outcome
        now = cloud.now()
        if now < self.done_at:
            return "in-progress"
        outcome = "completed"
        if self.watch is not None:
            ent = entity(cloud, *self.watch)
            if ent is not None and ent.status.upper() == "ERROR":
                outcome = "errored"
        self.outcome = outcome
        self.completed_at = self.done_at
        return outcome


class RestState:
    """REST-side records of one world (actions, regions of entities)."""

    def __init__(self) -> None:
        self.actions: dict[int, Action] = {}
        self.regions: dict[str, str] = {}
        #: Address a dialect shows -> the fake cloud's own address (see linode.public_address).
        self.aliases: dict[str, str] = {}
        #: (dialect, kind, value) a client asked for that the fake's catalogue lacks.
        self.misses: list[tuple[str, str, str]] = []

    def start_action(
        self,
        cloud: Any,
        action_type: str,
        resource_id: int,
        resource_type: str,
        region: str,
        watch: tuple[str, str, str] | None,
        done: tuple[str, ...] = (),
    ) -> Action:
        """Record an action now; it completes when *watch*'s pending transition is due.

        *done* lists statuses that count as finished when nothing is pending
        (anything else, e.g. a stuck transitional status, never completes).
        """
        now = cloud.now()
        done_at = now
        if watch is not None:
            ent = entity(cloud, *watch)
            if ent is not None and ent.pending:
                done_at = ent.pending[-1].at
            elif ent is not None and done and ent.status not in done:
                done_at = math.inf
        action = Action(
            int_id(cloud.new_id()),
            action_type,
            resource_id,
            resource_type,
            region,
            now,
            watch,
            done_at,
        )
        self.actions[action.id] = action
        return action


_STATES: weakref.WeakKeyDictionary[Any, RestState] = weakref.WeakKeyDictionary()


def rest_state(cloud: Any) -> RestState:
    """Return the REST records of *cloud* (shared by every server of that world)."""
    state = _STATES.get(cloud)
    if state is None:
        state = _STATES[cloud] = RestState()
    return state


def paginate(items: list[Any], page: int, per_page: int) -> tuple[list[Any], int]:
    """Return the items of *page* (1-based) and the number of pages (at least 1)."""
    pages = max(1, math.ceil(len(items) / per_page))
    start = (page - 1) * per_page
    return items[start : start + per_page], pages
