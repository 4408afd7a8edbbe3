"""A plug-in handler that crashes while the dynamic rules drive it (PS154): an error, not a skip.

The dynamic run (:mod:`sdk.lint.dynamic`) creates the resource and updates each updatable
property. When a handler raises a programming error there (``KeyError`` on a property it did
not expect in ``prop_diff``, ``AttributeError``, ``TypeError`` ...), in its own code or in the
SDK called from it, the plug-in has a bug whatever the lint's property values were: the finding
is an error at the line the handler was running, naming the handler and the exception, and
``plugsim lint`` exits non-zero. A failure that is the cloud's answer (a client error, a quota,
a status the fake cloud refused) stays PS150's *info*.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sdk.lint.dynamic_rules import _at, _class_info, runs
from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.report import display_path
from sdk.lint.source import PluginModule


@rule(
    "PS154",
    "handler-crashed",
    severity=Severity.ERROR,
    family="dynamic",
    scope="module",
    message="{cls} ({type_name}): {handler} ({where}) raised {error} while {doing}",
    summary="A plug-in handler raised a programming error when driven on a fake cloud.",
    doc="""
        While the dynamic rules create the resource and change each
        ``update_allowed`` property in turn, a handler raised ``KeyError``,
        ``IndexError``, ``TypeError``, ``AttributeError``, ``NameError`` or
        ``ZeroDivisionError`` in the plug-in's own code (or in the SDK called
        from it). The stack would fail the same way under Heat, for any
        template that makes that change. The finding is at the line the
        handler was running and names the exception; the run exits
        non-zero. Read ``prop_diff`` with ``.get`` or handle every
        ``update_allowed`` property. An error the cloud answers (a quota, a
        refused value) is not a crash: it is reported by PS150 as an
        *info* saying why the checks were skipped.
    """,
    bad="""
        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            self.client().entities.update(self.resource_id, name=prop_diff["name"])
            # updating "tier" alone: KeyError: 'name'
    """,
    good="""
        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            if "name" in prop_diff:
                self.client().entities.update(self.resource_id, name=prop_diff["name"])
            if "tier" in prop_diff:
                self.client().entities.update(self.resource_id, tier=prop_diff["tier"])
    """,
)
def check_handler_crashed(module: PluginModule) -> Iterator[Hit]:
    """Handlers that raised a programming error while the class was driven."""
    for run in runs(module):
        info = _class_info(module, run)
        for crash in run.crashes:
            args = {
                "cls": run.cls.__name__,
                "type_name": run.type_name,
                "handler": crash.handler,
                "where": f"{Path(crash.path).name}:{crash.line}",
                "error": crash.error,
                "doing": crash.doing,
            }
            if info is not None and Path(info.module.path).resolve() == Path(crash.path).resolve():
                yield info.module.hit(crash.line, **args)
            elif Path(crash.path).is_file():
                yield Hit(display_path(Path(crash.path)), crash.line, 1, args)
            else:
                yield _at(module, info, info.node if info else None, **args)
