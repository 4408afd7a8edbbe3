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

from collections.abc import Iterable, Mapping
from typing import Any

from sdk.secrets import (  # the book itself lives in the SDK, where plug-ins can reach it
    BOOK,
    MASK,
    MAX_SECRETS,
    MIN_SCRUB_LENGTH,
    OUTPUT_KEYS,
    SecretBook,
    collecting_generated,
    remember,
    remember_generated,
)

__all__ = [
    "BOOK",
    "MASK",
    "MAX_SECRETS",
    "MIN_SCRUB_LENGTH",
    "OUTPUT_KEYS",
    "SecretBook",
    "collecting_generated",
    "mask_abandon",
    "mask_parameters",
    "remember",
    "remember_generated",
    "scrub",
    "scrub_data",
    "scrub_exception",
    "unmask_adopt",
]


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
