"""What a campaign keeps of one run, whatever kind of run it was (a lifecycle, conformance paths)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from sdk.testing.campaign.signature import Signature


@dataclass
class RunResult:
    """What a campaign keeps of one run (JSON lines in ``results.jsonl``)."""

    seed: int
    ok: bool
    signature: list[str] | None
    phases: list[str]
    virtual_seconds: float
    wall_seconds: float
    digest: str
    faults: list[dict[str, Any]] = field(default_factory=list)
    coverage: list[list[str]] = field(default_factory=list)
    #: the adversary's out-of-band operations (``--adversary``)
    drifts: list[dict[str, Any]] = field(default_factory=list)
    #: the failure in the kit's one format (:class:`sdk.testing.verdict.Verdict` as a dict)
    verdict: dict[str, Any] | None = None

    @property
    def sig(self) -> Signature | None:
        """The failure's :class:`Signature` (None for a run that passed)."""
        return Signature.from_list(self.signature) if self.signature else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunResult:
        """Inverse of :meth:`to_dict`."""
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})
