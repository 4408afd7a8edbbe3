"""A plug-in handler's crash found while the dynamic rules drive it (:mod:`sdk.lint.dynamic`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sdk.testing import oracles


@dataclass(frozen=True)
class Crash:
    """A plug-in handler that raised a programming error while the lint drove it."""

    #: ``handle_update`` ...
    handler: str
    #: the plug-in file and line the handler was running when it raised
    path: str
    line: int
    #: ``KeyError: 'tier'``
    error: str
    #: what the lint was doing: ``updating property tier to 'gold'``
    doing: str
    prop: str | None = None


def crash_of(resource: Any, doing: str, prop: str | None = None) -> Crash | None:
    """The :class:`Crash` behind *resource*'s failed action, or None when it failed otherwise.

    A crash is an :data:`~sdk.testing.oracles.PROGRAMMING_ERRORS` exception raised in the plug-in's own code, or in
    plugsim's SDK called from it (``self.properties['missing']``); one raised inside a client
    library or the fake cloud is the cloud's answer, not the plug-in's bug.
    """
    from fake_clouds.core.history import is_plugin_frame

    cause = getattr(resource, "_failure_cause", None)
    if not isinstance(cause, oracles.PROGRAMMING_ERRORS):
        return None
    frames = []
    tb = cause.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    if not frames:
        return None
    innermost = frames[-1][0]
    top = str(innermost.f_globals.get("__name__") or "").partition(".")[0]
    if not is_plugin_frame(innermost) and top != "sdk":
        return None  # raised by a library or the fake cloud
    plugin = [(f, n) for f, n in frames if is_plugin_frame(f)]
    if not plugin:
        return None
    handlers = [(f, n) for f, n in plugin if f.f_code.co_name.startswith(("handle_", "check_"))]
    frame, line = (handlers or plugin)[-1]
    return Crash(
        frame.f_code.co_name,
        frame.f_code.co_filename,
        line,
        f"{type(cause).__name__}: {cause}",
        doing,
        prop,
    )
