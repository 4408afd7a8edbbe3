"""What a failed run is, in a few words that deduplicate: its signature.

A signature names the check that failed (a phase such as ``create`` or ``delete``, ``leak`` for fake-cloud
entities left behind, ``nondeterminism`` for a run that differed from itself), the resource type and action
at the root of the failure, the exception class and the message with its ids, addresses and numbers
replaced by placeholders, so the same bug seen under a thousand seeds is one line with a count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_HEX = re.compile(r"\b[0-9a-f]{10,}\b", re.I)
_IP = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?\b")
_NUMBER = re.compile(r"(?<![A-Za-z_])\d+(?:\.\d+)?")
_CLASS = re.compile(
    r"^((?:[A-Z][A-Za-z0-9_]*)?(?:Error|Exception|Failed|Failure|Timeout|Unavailable|"
    r"NotFound|Conflict|Limit|Request|Unauthorized|Fault|Exit))\s*:\s*"
)


def normalise(message: str) -> str:
    """*message* with uuids, long hex ids, IP addresses and numbers replaced by placeholders."""
    text = _UUID.sub("<id>", message)
    text = _HEX.sub("<hex>", text)
    text = _IP.sub("<ip>", text)
    text = _NUMBER.sub("<n>", text)
    return " ".join(text.split())


@dataclass(frozen=True, order=True)
class Signature:
    """The dedup key of a failure."""

    check: str
    resource_type: str
    action: str
    error: str
    message: str

    def key(self) -> str:
        """One line: ``create OS::Nova::Server CREATE ServiceUnavailable: <message>``."""
        error = f"{self.error}: " if self.error else ""
        return f"{self.check} {self.resource_type} {self.action} {error}{self.message}".strip()

    def to_list(self) -> list[str]:
        """JSON-able form."""
        return [self.check, self.resource_type, self.action, self.error, self.message]

    @classmethod
    def from_list(cls, data: Iterable[str]) -> Signature:
        """Inverse of :meth:`to_list`."""
        return cls(*data)


def _split_error(reason: str) -> tuple[str, str]:
    match = _CLASS.match(reason)
    if match is None:
        return "", reason
    return match.group(1), reason[match.end() :]


def of_run(
    phases: Iterable[Mapping[str, Any]],
    events: Iterable[Any],
    leaks: Iterable[Mapping[str, Any]],
) -> Signature | None:
    """The signature of a run (None when every phase completed and nothing leaked).

    The root of a failed phase is the first resource that failed in it (a nested stack's resource
    before the resource that owns the nested stack, since it fails first).
    """
    phases = list(phases)
    failed = next((p for p in phases if not str(p.get("state", "")).endswith("_COMPLETE")), None)
    if failed is not None:
        action = str(failed.get("state", "")).rsplit("_", 1)[0]
        root = next(
            (
                e
                for e in events
                if not e.is_stack_event
                and e.status == "FAILED"
                and e.action == action
                and float(failed.get("virtual_start", 0.0)) <= e.time
            ),
            None,
        )
        reason = root.reason if root is not None else str(failed.get("reason", ""))
        error, message = _split_error(reason)
        return Signature(
            str(failed.get("phase", action.lower())),
            root.resource_type if root is not None else "",
            action,
            error,
            normalise(message),
        )
    leaks = list(leaks)
    if leaks:
        kinds = sorted({f"{x.get('service')}/{x.get('kind')}" for x in leaks})
        return Signature("leak", ",".join(kinds), "DELETE", "", f"{len(kinds)} kind(s) left behind")
    return None
