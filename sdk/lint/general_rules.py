"""Rules about a source file as a whole (PS0xx)."""

from __future__ import annotations

from collections.abc import Iterator

from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.source import PluginModule


@rule(
    "PS001",
    "syntax-error",
    severity=Severity.ERROR,
    family="general",
    scope="module",
    message="cannot parse the file: {error}",
    summary="The file is not valid Python.",
    doc="""
        A file that does not parse cannot be loaded by the engine; no other rule can
        look at it either. The message carries the parser's own explanation.
    """,
    bad="""
        def resource_mapping()
            return {}
    """,
    good="""
        def resource_mapping():
            return {}
    """,
)
def check_syntax(module: PluginModule) -> Iterator[Hit]:
    """Report the parser's error, if any."""
    error = module.syntax_error
    if error is not None:
        yield Hit(module.display, error.lineno or 1, error.offset or 1, {"error": error.msg})
