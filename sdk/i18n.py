"""Translation marker kept for source compatibility with Heat plug-ins.

plugsim does not translate messages; ``_`` returns its argument unchanged so
that plug-ins written as ``_('text')`` keep working.
"""


def _(message: str) -> str:
    """Return *message* unchanged (identity translation)."""
    return message
