"""The kit's text draws skip Hypothesis's UTF-8 codec table, and draw what its default alphabet draws.

Hypothesis's default alphabet for ``text()`` and ``from_regex()`` is ``characters(codec="utf-8")``:
the first use in a directory computes that codec's table (over a million code points, about 3.6 CPU
seconds here) into ``.hypothesis/unicode_data``, so every first ``plugsim conformance`` in a fresh
checkout or CI container paid it. The kit names the same characters by category instead (every
code point but the surrogates), which needs only the small category table.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sdk.testing.strategies import TEXT_CHARACTERS

ROOT = Path(__file__).resolve().parents[2]


def drawn(strategy: st.SearchStrategy[str]) -> list[str]:
    seen: list[str] = []

    @settings(derandomize=True, database=None, max_examples=60)
    @given(strategy)
    def collect(value: str) -> None:
        seen.append(value)

    collect()
    return seen


def test_the_kits_alphabet_is_hypothesiss_default_one():
    assert TEXT_CHARACTERS.wrapped_strategy.intervals == (
        st.characters(codec="utf-8").wrapped_strategy.intervals
    )
    assert drawn(st.text(TEXT_CHARACTERS, max_size=8)) == drawn(st.text(max_size=8))
    for pattern in (r"[a-z]+\d?", r".{2,5}", r"\w+-\S*"):
        kit = st.from_regex(pattern, fullmatch=True, alphabet=TEXT_CHARACTERS)
        assert drawn(kit) == drawn(st.from_regex(pattern, fullmatch=True)), pattern


def test_the_kits_draws_compute_no_codec_table(tmp_path):
    code = (
        "from sdk.testing.strategies import valid_properties, invalid_properties\n"
        "from sdk.testing.stable_draws import stable_draws\n"
        "from sdk.properties import Schema\n"
        "from sdk import constraints as c\n"
        "from hypothesis import find\n"
        "schema = {'name': Schema(Schema.STRING, required=True),\n"
        "          'tag': Schema(Schema.STRING, constraints=[c.AllowedPattern('[a-z]+')]),\n"
        "          'kind': Schema(Schema.STRING, constraints=[c.AllowedValues(['a', 'b'])])}\n"
        "with stable_draws():\n"
        "    find(valid_properties(schema), lambda d: len(d.get('name', '')) > 2)\n"
        "    find(invalid_properties(schema), lambda case: True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HYPOTHESIS_STORAGE_DIRECTORY": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    tables = sorted(p.name for p in tmp_path.rglob("*.json.gz"))
    assert not [t for t in tables if t.startswith("codec")], tables
