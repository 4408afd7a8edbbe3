"""``heat.common.password_gen`` under plugsim: random strings from character classes.

The characters come from the running resource's seeded stream
(:func:`simulator.heat_compat._vtime.rng`), so a simulated world is
reproducible; the rules are Heat's: every class contributes at least its
minimum, the rest is drawn from the union of all classes, then shuffled.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import NamedTuple

from sdk import exception
from simulator.heat_compat import _vtime

CHARACTER_CLASSES = (
    LETTERS_DIGITS,
    LETTERS,
    LOWERCASE,
    UPPERCASE,
    DIGITS,
    HEXDIGITS,
    OCTDIGITS,
) = ("lettersdigits", "letters", "lowercase", "uppercase", "digits", "hexdigits", "octdigits")

_POOLS = {
    LETTERS_DIGITS: string.ascii_letters + string.digits,
    LETTERS: string.ascii_letters,
    LOWERCASE: string.ascii_lowercase,
    UPPERCASE: string.ascii_uppercase,
    DIGITS: string.digits,
    HEXDIGITS: string.digits + "ABCDEF",
    OCTDIGITS: string.octdigits,
}


class CharClass(NamedTuple):
    """A pool of characters and how many of them the result must hold at least."""

    allowed_chars: frozenset[str]
    min_count: int


def named_char_class(char_class: str, min_count: int = 0) -> CharClass:
    """The class named *char_class* (one of :data:`CHARACTER_CLASSES`)."""
    if char_class not in _POOLS:
        raise exception.StackValidationFailed(
            f"Unknown character class {char_class!r}; valid: {', '.join(CHARACTER_CLASSES)}"
        )
    return CharClass(frozenset(_POOLS[char_class]), int(min_count))


def special_char_class(allowed_chars: str, min_count: int = 0) -> CharClass:
    """A class of the characters in *allowed_chars*."""
    return CharClass(frozenset(allowed_chars), int(min_count))


def generate_password(length: int, char_classes: Sequence[CharClass]) -> str:
    """Return *length* characters honouring each class's minimum."""
    rng = _vtime.rng()
    if not char_classes:
        char_classes = [named_char_class(LETTERS_DIGITS)]
    chars: list[str] = []
    union: set[str] = set()
    for cls in char_classes:
        pool = sorted(cls.allowed_chars)
        union.update(pool)
        chars.extend(rng.choice(pool) for _ in range(cls.min_count))
    if len(chars) > length:
        raise exception.StackValidationFailed(
            "Length property cannot be smaller than combined character class minimums"
        )
    everything = sorted(union)
    chars.extend(rng.choice(everything) for _ in range(length - len(chars)))
    rng.shuffle(chars)
    return "".join(chars)


def generate_openstack_password() -> str:
    """A password for a keystone user: 32 characters, each kind of character at least once."""
    return generate_password(
        32,
        [
            named_char_class(LOWERCASE, 1),
            named_char_class(UPPERCASE, 1),
            named_char_class(DIGITS, 1),
            special_char_class("!@#%^&*", 1),
        ],
    )
