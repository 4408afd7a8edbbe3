"""Seeded random streams: one seed per run, split into independent named streams.

Each stream (``"latency"``, ``"faults"``, ``"ids"``, ...) is derived from the
run seed and the stream's name with SHA-256, so drawing from one stream never
shifts another: adding a fault rule does not change the generated ids.
"""

from __future__ import annotations

import hashlib
import random
import uuid


def derive_seed(seed: int | str, *names: str) -> int:
    """Derive a 64-bit seed from a parent *seed* and a path of stream *names*."""
    text = ":".join([str(seed), *names])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


class _Stream(random.Random):
    """A random stream that counts how often its state changed (cheap to compare)."""

    draws = 0

    def seed(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]
        """As ``random.Random.seed``."""
        self.draws += 1
        super().seed(*args, **kwargs)  # type: ignore[arg-type]

    def random(self) -> float:
        """As ``random.Random.random``."""
        self.draws += 1
        return super().random()

    def getrandbits(self, k: int) -> int:
        """As ``random.Random.getrandbits``."""
        self.draws += 1
        return super().getrandbits(k)

    def setstate(self, state: tuple) -> None:  # type: ignore[override]
        """As ``random.Random.setstate``."""
        self.draws += 1
        super().setstate(state)


class SeededRNG:
    """A family of independent :class:`random.Random` streams derived from one seed."""

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed
        self._streams: dict[str, random.Random] = {}

    def stream(self, name: str) -> random.Random:
        """Return the stream called *name*, creating it on first use."""
        rnd = self._streams.get(name)
        if rnd is None:
            rnd = _Stream(derive_seed(self.seed, name))
            self._streams[name] = rnd
        return rnd

    def child(self, name: str) -> SeededRNG:
        """Return an independent family for a sub-world (e.g. one test, one stack)."""
        return SeededRNG(derive_seed(self.seed, "child", name))

    def uuid(self, stream: str = "ids") -> str:
        """Return a deterministic UUID4-shaped string drawn from *stream*."""
        return str(uuid.UUID(int=self.stream(stream).getrandbits(128), version=4))

    def hex_id(self, length: int = 12, stream: str = "ids") -> str:
        """Return a deterministic lowercase hex id of *length* characters."""
        return f"{self.stream(stream).getrandbits(4 * length):0{length}x}"

    def getstate(self) -> dict[str, object]:
        """Return a JSON-serialisable snapshot of every stream's state."""
        return {name: _state_to_json(r.getstate()) for name, r in sorted(self._streams.items())}

    def draws(self) -> dict[str, int]:
        """Return how often each stream's state changed so far (to tell which moved)."""
        return {name: r.draws for name, r in self._streams.items()}

    def setstate(self, state: dict[str, object]) -> None:
        """Restore stream states saved by :meth:`getstate`."""
        for name, st in state.items():
            self.stream(name).setstate(_state_from_json(st))


def _state_to_json(state: tuple) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _state_from_json(data: object) -> tuple:
    version, internal, gauss = data  # type: ignore[misc]
    return (version, tuple(internal), gauss)
