"""The kit's searches draw the same values whatever the process has imported (sdk.testing.stable_draws)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# a derandomised search like the kit's, run twice in a fresh process: before and after one more
# local module is imported, whose constants are distinctive (a draw of one is easy to see)
PROBE = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from hypothesis import given, settings, strategies as st
    from sdk.testing.stable_draws import stable_draws

    def search():
        seen = []

        @settings(derandomize=True, database=None, max_examples=100)
        @given(st.text(max_size=24), st.integers())
        def probe(text, number):
            seen.append([text, number])

        if sys.argv[2] == "stable":
            with stable_draws():
                probe()
        else:
            probe()
        return seen

    before = search()
    import extra_constants  # noqa: F401
    print(json.dumps([before, search()]))
    """
)


def draws(tmp_path: Path, *, stable: bool) -> list[list[list[object]]]:
    """The values drawn before and after the extra module is loaded."""
    (tmp_path / "extra_constants.py").write_text(
        'NAMES = ["zebra-marker-one", "yak-marker-two", "walrus-marker-three"]\n'
        "SIZES = [987654321, 123456789]\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path), "stable" if stable else "-"],
        capture_output=True,
        text=True,
        # the checkout's directory: Hypothesis's Unicode tables are computed there once, not per test
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def marked(seen: list[list[object]]) -> list[list[object]]:
    return [d for d in seen if "marker" in str(d[0]) or d[1] in (987654321, 123456789)]


def test_hypothesis_mines_loaded_modules_so_unpinned_draws_depend_on_imports(tmp_path):
    # the hazard itself: without the pin, one more loaded module changes what is drawn
    plain, more = draws(tmp_path, stable=False)
    assert marked(more) and not marked(plain)
    assert plain != more


def test_the_kits_pin_draws_the_same_values_whatever_is_loaded(tmp_path):
    plain, more = draws(tmp_path, stable=True)
    assert marked(more) == []
    assert plain == more


def test_the_pin_gives_hypothesis_its_own_pool_back():
    from hypothesis.internal.conjecture import providers

    from sdk.testing.stable_draws import stable_draws, supported

    assert supported()
    mine, cache = providers._get_local_constants, providers.CONSTANTS_CACHE
    with stable_draws():
        assert providers._get_local_constants is not mine
        assert len(providers._get_local_constants().strings) == 0
    assert providers._get_local_constants is mine
    assert providers.CONSTANTS_CACHE is cache
