"""The secret values a process has seen, and scrubbing them out of text (the "secret book").

A plug-in that generates a secret (``OS::Heat::RandomString``'s string) calls
:func:`remember_generated`; the engine remembers hidden parameter values with
:func:`remember`. :mod:`simulator.masking` scrubs them from every output. This lives in the SDK
so plug-ins can name their secrets without importing the engine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

#: What a hidden value shows as (Heat's mask).
MASK = "******"
#: Free text is scrubbed only of secrets at least this long.
MIN_SCRUB_LENGTH = 4
#: The most secrets a process keeps (the oldest are forgotten first): a bound on the
#: cost of scrubbing in long-lived processes (test suites), never reached by one command.
MAX_SECRETS = 256
#: Keys whose values :func:`scrub_data` leaves alone by default (stack outputs).
OUTPUT_KEYS = frozenset({"output_value"})


class SecretBook:
    """The secret values seen so far, and how to scrub them from text."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()
        self._order: list[str] = []
        self._pattern: re.Pattern[str] | None = None
        #: secrets too short to scrub from free text, as JSON strings (``"q7"``): the
        #: store seals a document holding one as a value (:mod:`simulator.store_seal`)
        self._short: dict[str, None] = {}
        self._short_pattern: re.Pattern[str] | None = None
        #: whether generated secrets (RandomString values) are collected: on while a
        #: command runs (:func:`collecting_generated`), off for library use, where
        #: thousands of generated strings would only slow every event down
        self.generated = False

    @property
    def secrets(self) -> set[str]:
        """The remembered values (the live set; never reassigned)."""
        return self._secrets

    def __bool__(self) -> bool:
        """True when there is at least one secret to scrub."""
        return bool(self._secrets)

    def __contains__(self, value: object) -> bool:
        """True when *value* is a remembered secret."""
        return value in self._secrets

    def remember(self, value: Any) -> None:
        """Remember *value* (and, for a list or map, its string items) as a secret."""
        for text in _texts(value):
            if 0 < len(text) < MIN_SCRUB_LENGTH:
                quoted = json.dumps(text)
                if quoted not in self._short:
                    self._short[quoted] = None
                    if len(self._short) > MAX_SECRETS:
                        del self._short[next(iter(self._short))]
                    self._short_pattern = None
            if len(text) >= MIN_SCRUB_LENGTH and text not in self._secrets:
                self._secrets.add(text)
                self._order.append(text)
                if len(self._order) > MAX_SECRETS:
                    self._secrets.discard(self._order.pop(0))
                self._pattern = None

    def forget_all(self) -> None:
        """Forget every secret (tests)."""
        self._secrets.clear()
        self._order.clear()
        self._pattern = None
        self._short.clear()
        self._short_pattern = None

    def found_in(self, text: str) -> bool:
        """True when *text* holds a remembered secret (the store seals such text at rest)."""
        if not text:
            return False
        if self._secrets and self._compiled().search(text) is not None:
            return True
        if self._short:
            pattern = self._short_pattern
            if pattern is None:
                pattern = re.compile("|".join(map(re.escape, self._short)))
                self._short_pattern = pattern
            return pattern.search(text) is not None
        return False

    def _compiled(self) -> re.Pattern[str]:
        pattern = self._pattern
        if pattern is None:
            # longest first, so a secret containing another is masked whole
            ordered = sorted(self._secrets, key=lambda s: (-len(s), s))
            pattern = self._pattern = re.compile("|".join(map(re.escape, ordered)))
        return pattern

    def scrub(self, text: str) -> str:
        """Return *text* with every remembered secret replaced by :data:`MASK`."""
        if not self._secrets or not text or not isinstance(text, str):
            return text
        return self._compiled().sub(MASK, text)

    def scrub_data(self, data: Any, keep: Iterable[str] = OUTPUT_KEYS) -> Any:
        """Return a copy of *data* (lists, maps, strings) with secrets scrubbed.

        Values under a key in *keep* are copied unchanged.
        """
        if not self._secrets:
            return data
        keep = frozenset(keep)
        return self._walk(data, keep)

    def _walk(self, data: Any, keep: frozenset[str]) -> Any:
        if isinstance(data, str):
            return self.scrub(data)
        if isinstance(data, Mapping):
            return {
                self.scrub(k) if isinstance(k, str) else k: (
                    v if k in keep else self._walk(v, keep)
                )
                for k, v in data.items()
            }
        if isinstance(data, list | tuple):
            return [self._walk(v, keep) for v in data]
        return data


def _texts(value: Any) -> list[str]:
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, int | float):
        return [str(value)]
    if isinstance(value, Mapping):
        import json

        out = [json.dumps(value, sort_keys=True), json.dumps(value)]
        for item in value.values():
            out.extend(_texts(item))
        return out
    if isinstance(value, list | tuple):
        out = [",".join(str(v) for v in value)]
        for item in value:
            out.extend(_texts(item))
        return out
    return [str(value)]


#: The secrets this process has seen (what the command line and events scrub).
BOOK = SecretBook()


def remember(value: Any) -> None:
    """Remember *value* as a secret of this process (see :class:`SecretBook`)."""
    BOOK.remember(value)


def remember_generated(value: Any) -> None:
    """Remember a generated secret (a RandomString value) while a command collects them."""
    if BOOK.generated:
        BOOK.remember(value)


@contextmanager
def collecting_generated() -> Iterator[None]:
    """Collect generated secrets inside the block (the command line wraps each command)."""
    before = BOOK.generated
    BOOK.generated = True
    try:
        yield
    finally:
        BOOK.generated = before
