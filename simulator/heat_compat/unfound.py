"""A one-line error for a plug-in that used the ``None`` of a reference it could not find.

``stack.resource_by_refid(refid)`` returns ``None`` when no resource of the
stack has that reference id, as in Heat, and some plug-ins use the result
straight away (Heat's ``OS::Heat::InstanceGroup`` reads its launch
configuration's definition). The bare ``AttributeError`` that follows names
neither the reference nor what was missing; :func:`explain` turns it into an
:class:`UnfoundReference` naming the plug-in's file and line, the reference id
and where it was looked up. Only an ``AttributeError`` on ``None`` raised in the
same plug-in file as the last failed lookup of the running task, at or after
its line, is explained; any other error is returned unchanged.
"""

from __future__ import annotations

import contextvars
from typing import Any

from sdk import exception
from simulator.heat_compat._finder import _plugin_file

#: The last failed lookup of the running task: (reference id, ``file:line`` or None).
_LAST: contextvars.ContextVar[tuple[str, str | None] | None] = contextvars.ContextVar(
    "plugsim_heat_unfound_refid", default=None
)


class UnfoundReference(exception.PlugsimError, AttributeError):
    """A plug-in used the ``None`` that a failed ``resource_by_refid`` gave it."""

    def __init__(self, refid: str, lookup: str, use: str, detail: str) -> None:
        #: the reference id no resource of the stack had
        self.refid = refid
        #: ``file:line`` of the lookup that found nothing
        self.lookup = lookup
        where = (
            lookup.rpartition(":")[2]
            if lookup.rpartition(":")[0] == use.rpartition(":")[0]
            else lookup
        )
        super().__init__(
            f"{use}: the plug-in needs a resource of the stack with reference id {refid!r}; "
            f"stack.resource_by_refid (line {where}) found none and it used the None "
            f"({detail})"
        )


def note_lookup(refid: Any, found: bool, site: str | None) -> None:
    """Remember a failed ``resource_by_refid`` of the running task (a found one clears it)."""
    _LAST.set(None if found else (str(refid), site))


def _innermost_plugin_site(ex: BaseException) -> str | None:
    site = None
    tb = ex.__traceback__
    while tb is not None:
        path = _plugin_file(tb.tb_frame)
        if path is not None:
            site = f"{path}:{tb.tb_lineno}"
        tb = tb.tb_next
    return site


def _split(site: str) -> tuple[str, int]:
    path, _, line = site.rpartition(":")
    return path, int(line) if line.isdigit() else 0


def explain(ex: Exception) -> Exception:
    """*ex* as an :class:`UnfoundReference` when it came from using a failed lookup's None."""
    last = _LAST.get()
    if last is None or not isinstance(ex, AttributeError) or isinstance(ex, exception.PlugsimError):
        return ex
    if not str(ex).startswith("'NoneType' object has no attribute"):
        return ex
    refid, lookup = last
    use = _innermost_plugin_site(ex)
    if lookup is None or use is None:
        return ex
    (lookup_file, lookup_line), (use_file, use_line) = _split(lookup), _split(use)
    if lookup_file != use_file or use_line < lookup_line:
        return ex
    return UnfoundReference(refid, lookup, use, str(ex))


__all__ = ["UnfoundReference", "explain", "note_lookup"]
