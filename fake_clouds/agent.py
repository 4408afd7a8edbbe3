"""What a server's simulated config agent reads in ``user_data``: signal endpoints and payloads.

:func:`agent_plan` lists the signals the agent sends, in order of appearance:
one per orchestration signal endpoint (``AGENT_ENDPOINT_PREFIX`` + handle id)
named in a command. A command is a line (backslash- or, as PowerShell writes
it, backtick-continued lines joined) or a part of one between ``;``, ``&&``,
``||`` and ``|``; a comment (``#`` starting a word outside quotes, to the end
of the line) is not run, so an endpoint named only there sends nothing. Its
JSON payload is the value of a curl data option in the same command (``-d``,
``--data``, ``--data-binary``, ``--data-raw``, ``--data-ascii``) or the
``-Body`` of a PowerShell ``Invoke-RestMethod``/``Invoke-WebRequest``: a map of ``status``
(SUCCESS or FAILURE), ``reason``, ``data`` and ``id``, taken as given (or the four
keys ``Status``, ``Reason``, ``Data``, ``UniqueId`` that an AWS-style handle takes). A
payload that is not such a map (bad JSON, another type, an unknown key,
another status) is ignored, with the problem said in words; it never stops the
plan. A MIME multipart ``user_data`` (what ``OS::Heat::MultipartMime`` makes)
is read part by part, each part decoded. Loops and shell functions run as a server
runs them (:mod:`fake_clouds.agent_shell`). When and how the signals are sent is :mod:`fake_clouds.compute`'s
business (it re-exports :func:`agent_plan` and :data:`AGENT_ENDPOINT_PREFIX`).
"""

from __future__ import annotations

import email
import json
import re
import shlex
from typing import Any

from sdk.signals import SIGNAL_ENDPOINT_PREFIX

#: Orchestration signal endpoints the config agent recognises in user_data (defined by the sdk).
AGENT_ENDPOINT_PREFIX = SIGNAL_ENDPOINT_PREFIX
_ENDPOINT = re.compile(re.escape(AGENT_ENDPOINT_PREFIX) + r"[A-Za-z0-9._~-]+")

_DATA_OPTIONS = ("--data-binary", "--data-raw", "--data-ascii", "--data", "-d")
_POWERSHELL_WEB = ("invoke-restmethod", "invoke-webrequest", "irm", "iwr")
_SIGNAL_KEYS = ("status", "reason", "data", "id")
#: the keys of a signal to an AWS-style wait condition handle, and what each is here
_CFN_KEYS = {"Status": "status", "Reason": "reason", "Data": "data", "UniqueId": "id"}


def _uncommented(line: str) -> str:
    """Return *line* without its comment: from a ``#`` that starts a word outside quotes."""
    quote = ""
    escaped = False
    previous = " "
    for index, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (previous.isspace() or previous in ";&|("):
            return line[:index]
        previous = char
    return line


def _commands(user_data: str) -> list[list[str]]:
    """Split *user_data* into commands (token lists); a line shlex cannot read is one token."""
    out: list[list[str]] = []
    joined = user_data.replace("\\\r\n", " ").replace("\\\n", " ")
    joined = joined.replace("`\r\n", " ").replace("`\n", " ")
    for raw in joined.splitlines():
        line = _uncommented(raw)
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
            lexer.whitespace_split = True
            lexer.commenters = ""
            tokens = list(lexer)
        except ValueError:
            out.append([line])
            continue
        current: list[str] = []
        for token in tokens:
            if token and set(token) <= set(";&|"):
                out.append(current)
                current = []
            else:
                current.append(token)
        out.append(current)
    return [c for c in out if c]


def _payload(tokens: list[str]) -> str | None:
    """The value of the first curl data option among *tokens* (None: no payload)."""
    for index, token in enumerate(tokens):
        if token in _DATA_OPTIONS:
            return tokens[index + 1] if index + 1 < len(tokens) else ""
        if token.startswith("-d") and not token.startswith("--"):
            return token[2:]
    if any(t.lower() in _POWERSHELL_WEB for t in tokens):
        for index, token in enumerate(tokens):
            if token.lower() == "-body":
                return tokens[index + 1] if index + 1 < len(tokens) else ""
    return None


def _parse_payload(text: str | None) -> tuple[dict[str, Any], str | None]:
    """Return (signal fields, problem) for a payload; a problem leaves no fields."""
    if text is None:
        return {}, None
    try:
        value = json.loads(text)
    except ValueError as ex:
        return {}, f"not valid JSON ({ex})"
    if not isinstance(value, dict):
        return {}, f"a JSON {type(value).__name__}, not a map of {', '.join(_SIGNAL_KEYS)}"
    if set(value) == set(_CFN_KEYS):
        # a CloudFormation-style handle's signal (cfn-signal's body): its four keys, all given
        value = {ours: value[theirs] for theirs, ours in _CFN_KEYS.items()}
    unknown = sorted(str(k) for k in value if k not in _SIGNAL_KEYS)
    if unknown:
        return {}, f"unknown key(s) {', '.join(unknown)} (a signal has {', '.join(_SIGNAL_KEYS)})"
    if value.get("status", "SUCCESS") not in ("SUCCESS", "FAILURE"):
        return {}, f"status {value['status']!r} is not SUCCESS or FAILURE"
    return dict(value), None


def _script(user_data: str) -> str:
    """The text the agent runs: a MIME multipart message's parts (decoded) one after another."""
    head = user_data.lstrip()[:200].lower()
    if not (head.startswith("content-type:") or head.startswith("mime-version:")):
        return user_data
    message = email.message_from_string(user_data.lstrip())
    if not message.is_multipart():
        payload = message.get_payload(decode=True)
        return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else user_data
    texts = []
    for part in message.walk():
        if part.is_multipart():
            continue
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            texts.append(payload.decode("utf-8", "replace"))
    return "\n".join(texts)


def agent_plan(user_data: Any) -> list[dict[str, Any]]:
    """Return the signals a config agent sends for *user_data*, in order of appearance.

    Each is ``{endpoint, payload, problem}``: *payload* holds the keys the
    command's JSON gave (empty without one), *problem* why a payload was
    ignored (None when it was not).
    """
    if not isinstance(user_data, str):
        return []
    from fake_clouds.agent_shell import run_order

    plan = []
    for tokens in run_order(_commands(_script(user_data))):
        payload, problem = _parse_payload(_payload(tokens))
        for token in tokens:
            for endpoint in _ENDPOINT.findall(token):
                plan.append({"endpoint": endpoint, "payload": payload, "problem": problem})
    return plan
