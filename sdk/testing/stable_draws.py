"""The kit's Hypothesis searches draw the same values whatever else the process has imported.

Hypothesis (6.13x and later) mixes into its draws, now and then, constants it mines from the
source files of every *local* module loaded in the process (anything outside site-packages and
outside test files), and it mines again whenever ``sys.modules`` grows. A derandomised search is
then deterministic only for one set of loaded modules: the same conformance test drew other
values run alone (its replay line) than in the whole run, after another test had imported more;
a campaign worker, a lint probe and the test suite's workers each saw their own set; and a
plug-in checkout installed in editable mode added plugsim's own strings to the pool.

:func:`stable_draws` turns that mining off for the duration of one of the kit's searches, with an
empty constant pool of its own, and puts Hypothesis's pool back afterwards, so a user's own
``@given`` tests in the same process keep the feature. Hypothesis's global constants (the fixed
list it always uses) are untouched. The hook is Hypothesis-internal: when a release moves it,
:func:`supported` is False and ``tests/testing/test_stable_draws.py`` fails, rather than the kit
silently losing its determinism.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_LOCK = threading.RLock()


def _hooks() -> tuple[Any, Any, Any] | None:
    """``(providers module, Constants, LRUCache)`` when this Hypothesis has the hook, else None."""
    try:
        from hypothesis.internal.cache import LRUCache
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:
        return None
    if not (
        callable(getattr(providers, "_get_local_constants", None))
        and hasattr(providers, "CONSTANTS_CACHE")
    ):
        return None
    return providers, Constants, LRUCache


def supported() -> bool:
    """True when the installed Hypothesis has the hook :func:`stable_draws` needs."""
    return _hooks() is not None


@contextmanager
def stable_draws() -> Iterator[None]:
    """Run the block with no locally mined constants in Hypothesis's draws (see the module)."""
    hooks = _hooks()
    if hooks is None:
        yield
        return
    providers, constants_type, cache_type = hooks
    empty = constants_type()
    with _LOCK:  # re-entrant: a kit search inside another restores in order
        saved_mine, saved_cache = providers._get_local_constants, providers.CONSTANTS_CACHE
        providers._get_local_constants = lambda: empty
        # the cache holds each choice kind's (global, local) pools: the kit's own, while it runs
        providers.CONSTANTS_CACHE = cache_type(1024)
        try:
            yield
        finally:
            providers._get_local_constants = saved_mine
            providers.CONSTANTS_CACHE = saved_cache
