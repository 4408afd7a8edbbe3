"""Example strings for a regular expression, generated from its parse tree.

The tree is the one :mod:`re` builds itself (``re._parser``), walked to emit
the simplest text each node allows, repeats taken 1, 2, 4, 8, 16 and 0 times;
only candidates the pattern really matches are yielded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# typeshed does not describe re's private parser modules; they exist on every Python >= 3.11.
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

_CATEGORY_CHARS = {
    sre.CATEGORY_DIGIT: "0",
    sre.CATEGORY_NOT_DIGIT: "a",
    sre.CATEGORY_SPACE: " ",
    sre.CATEGORY_NOT_SPACE: "a",
    sre.CATEGORY_WORD: "a",
    sre.CATEGORY_NOT_WORD: "-",
}


def _emit(tree: Any, reps: int) -> str:
    out: list[str] = []
    for op, av in tree:
        if op == sre.LITERAL:
            out.append(chr(av))
        elif op == sre.NOT_LITERAL:
            out.append("a" if av != ord("a") else "b")
        elif op == sre.ANY:
            out.append("a")
        elif op == sre.IN:
            out.append(_emit(av[:1], reps))
        elif op == sre.RANGE:
            out.append(chr(av[0]))
        elif op == sre.CATEGORY:
            out.append(_CATEGORY_CHARS.get(av, "a"))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, sub = av
            count = max(low, min(reps, high))
            out.append(_emit(sub, reps) * count)
        elif op == sre.SUBPATTERN:
            out.append(_emit(av[-1], reps))
        elif op == sre.ATOMIC_GROUP:
            out.append(_emit(av, reps))
        elif op == sre.BRANCH:
            out.append(_emit(av[1][0], reps))
        elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            continue
        else:
            raise ValueError(f"no example for {op}")
    return "".join(out)


def pattern_examples(pattern: str) -> Iterator[str]:
    """Yield strings that *pattern* fully matches (none when it cannot be walked)."""
    try:
        tree = sre_parse.parse(pattern)
    except Exception:
        return
    for reps in (1, 2, 4, 8, 16, 0):
        try:
            text = _emit(tree, reps)
        except ValueError:
            return
        if re.fullmatch(pattern, text):
            yield text
