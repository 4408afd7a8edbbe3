"""Secrets: hidden parameter values and generated passwords never reach an output.

Two kinds of masking, both in this module so every output path uses the same
rules:

* **Structural**, where the shape says what is secret, as Heat does: a
  parameter declared ``hidden: true`` shows as :data:`MASK` (``******``) in
  ``stack show``, ``stack create -f json``, ``stack abandon`` and in
  ``template validate``'s ``Default`` (:func:`mask_parameters`,
  :func:`mask_abandon`).
* **By value**, for free text plugsim adds: the process keeps a
  :class:`SecretBook` of the secret values it has seen (hidden parameter
  values, ``OS::Heat::RandomString`` strings) and replaces them with
  :data:`MASK` in event reasons, error messages (also under ``--debug``),
  progress lines, tables and reports (:func:`scrub`, :func:`scrub_data`,
  :func:`scrub_exception`). Values shorter than :data:`MIN_SCRUB_LENGTH`
  characters are not scrubbed from free text (a hidden ``"1"`` would mangle
  every number); they are still masked structurally. Generated secrets are
  collected while a command runs (library use keeps only hidden parameter
  values), and a process keeps at most :data:`MAX_SECRETS` of them.

Stack outputs are left as the template says (Heat shows them too): an output
that returns a secret is the template author's decision. ``stack output
show`` prints them unscrubbed; ``stack show`` scrubs everything but the
output values.
"""

from __future__ import annotations

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

    def scrub(self, text: str) -> str:
        """Return *text* with every remembered secret replaced by :data:`MASK`."""
        if not self._secrets or not text or not isinstance(text, str):
            return text
        pattern = self._pattern
        if pattern is None:
            # longest first, so a secret containing another is masked whole
            ordered = sorted(self._secrets, key=lambda s: (-len(s), s))
            pattern = self._pattern = re.compile("|".join(map(re.escape, ordered)))
        return pattern.sub(MASK, text)

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


def scrub(text: str) -> str:
    """Replace every secret this process has seen in *text* by :data:`MASK`."""
    return BOOK.scrub(text)


def scrub_data(data: Any, keep: Iterable[str] = OUTPUT_KEYS) -> Any:
    """:meth:`SecretBook.scrub_data` with this process's secrets."""
    return BOOK.scrub_data(data, keep)


def scrub_exception(exc: BaseException) -> BaseException:
    """Scrub secrets from *exc* and the exceptions chained to it, in place; return *exc*.

    Used before ``--debug`` lets a traceback be printed: the message of every
    exception in the chain (its ``args`` and plugsim's ``message``) loses the
    secrets it quoted.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and BOOK:
        seen.add(id(current))
        try:
            text = str(current)
        except Exception:  # noqa: BLE001 - an exception that cannot render has nothing to scrub
            text = ""
        if BOOK.scrub(text) != text:
            current.args = tuple(BOOK.scrub(a) if isinstance(a, str) else a for a in current.args)
            for attr in ("message", "error_message"):
                value = getattr(current, attr, None)
                if isinstance(value, str):
                    try:
                        setattr(current, attr, BOOK.scrub(value))
                    except AttributeError:
                        pass
        current = current.__cause__ or current.__context__
    return exc


def mask_parameters(values: Mapping[str, Any], hidden: Iterable[str]) -> dict[str, Any]:
    """Return *values* with every parameter named in *hidden* shown as :data:`MASK`."""
    names = frozenset(hidden)
    return {k: (MASK if k in names else v) for k, v in values.items()}


def hidden_names(template: Any) -> set[str]:
    """Return the names of the parameters a template (a map) declares ``hidden``."""
    params = template.get("parameters") if isinstance(template, Mapping) else None
    if not isinstance(params, Mapping):
        return set()
    out: set[str] = set()
    for name, spec in params.items():
        if isinstance(spec, Mapping) and str(spec.get("hidden", "")).lower() in ("true", "1"):
            out.add(str(name))
    return out


def mask_abandon(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Return a copy of a ``stack abandon`` document with its secrets masked.

    Hidden parameters are masked in ``parameters`` and in the environment's
    ``parameters`` / ``parameter_defaults``; the strings of
    ``OS::Heat::RandomString`` resources are remembered as secrets; then every
    remembered secret is scrubbed from the rest. ``stack adopt`` treats a
    masked value as not given (:func:`unmask_adopt`).
    """
    data = dict(doc)
    hidden = hidden_names(data.get("template"))
    if isinstance(data.get("parameters"), Mapping):
        data["parameters"] = mask_parameters(data["parameters"], hidden)
    env = data.get("environment")
    if isinstance(env, Mapping):
        env = dict(env)
        for section in ("parameters", "parameter_defaults"):
            if isinstance(env.get(section), Mapping):
                env[section] = mask_parameters(env[section], hidden)
        data["environment"] = env
    for entry in (data.get("resources") or {}).values():
        if isinstance(entry, Mapping) and entry.get("type") == "OS::Heat::RandomString":
            remember((entry.get("resource_data") or {}).get("value"))
    return scrub_data(data, keep=())


def unmask_adopt(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Return an adopt document without the values :func:`mask_abandon` masked.

    A masked hidden parameter is then taken from ``--parameter`` or its default.
    """
    data = dict(doc)
    if isinstance(data.get("parameters"), Mapping):
        data["parameters"] = {k: v for k, v in data["parameters"].items() if v != MASK}
    env = data.get("environment")
    if isinstance(env, Mapping):
        env = dict(env)
        for section in ("parameters", "parameter_defaults"):
            if isinstance(env.get(section), Mapping):
                env[section] = {k: v for k, v in env[section].items() if v != MASK}
        data["environment"] = env
    return data
