"""What makes a campaign's runs cheap changes nothing they produce.

The levers (entry-point scans remembered per process, template texts parsed once, one watchdog thread,
workers forked from a fork server) must leave every run a pure function of its seed: a warm process and
a cold one give the same results.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk._entry_points import forget_scans, group_entry_points
from sdk.testing.campaign.backends import balanced_chunks, chunks
from sdk.testing.campaign.bench import three_tier
from sdk.testing.campaign.runs import run_range
from simulator.template.text import parse_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.material
def test_a_warm_worker_gives_what_a_cold_process_gives():
    """Seed 7 run first thing in a fresh interpreter equals seed 7 run after other seeds here."""
    spec = three_tier()
    run_range(spec, [1, 2])  # warm: plug-ins loaded, scans and texts remembered
    warm = run_range(spec, [7])[0]
    code = (
        "import json; from sdk.testing.campaign.bench import three_tier; "
        "from sdk.testing.campaign.runs import run_range; "
        "print(json.dumps(run_range(three_tier(), [7])[0]))"
    )
    cold = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout
    )
    for key in ("digest", "signature", "phases", "faults", "coverage", "virtual_seconds"):
        assert cold[key] == warm[key], key


def test_entry_point_scans_are_remembered_until_the_path_changes(monkeypatch, tmp_path):
    calls = []
    real = importlib.metadata.entry_points

    def counting(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    first = group_entry_points("plugsim.fake_clouds")
    assert [ep.name for ep in first] == sorted(ep.name for ep in first)
    monkeypatch.setattr("sdk._entry_points._REAL_SCAN", counting)
    monkeypatch.setattr(importlib.metadata, "entry_points", counting)
    forget_scans()
    group_entry_points("plugsim.fake_clouds")
    group_entry_points("plugsim.fake_clouds")
    assert len(calls) == 1  # scanned once under this scanner, then remembered
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    monkeypatch.syspath_prepend(str(scripts))
    group_entry_points("plugsim.fake_clouds")
    assert len(calls) == 1  # a directory holding no distributions (a script's) changes nothing
    site = tmp_path / "site"
    (site / "newdist-1.0.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))
    group_entry_points("plugsim.fake_clouds")
    assert len(calls) == 2  # a new directory with distributions on sys.path is scanned afresh
    forget_scans()  # the next test scans with the real scanner again


@pytest.mark.material
def test_a_pool_worker_finds_the_fork_server_s_scans(tmp_path):
    """The fork server's path starts with the current directory, a worker's with the script's:
    the scans the fork server made (sdk.testing.campaign.warm) still serve the worker. (In a fresh
    interpreter: a test that imported Ray has a directory of Ray's distributions on this path.)"""
    code = (
        "import concurrent.futures\n"
        "from sdk.testing.campaign.backends import pool_context\n"
        "from tests.campaign.test_campaign_speed import _scans_remembered\n"
        "if __name__ == '__main__':\n"
        "    with concurrent.futures.ProcessPoolExecutor(1, mp_context=pool_context()) as pool:\n"
        "        hits, where = pool.submit(_scans_remembered).result()\n"
        "    print(hits, where)\n"
    )
    script = tmp_path / "probe_scans.py"  # the script's own directory holds no distributions
    script.write_text(code)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, cwd=ROOT, env=env
    ).stdout
    from sdk.testing.campaign.warm import GROUPS

    assert out.startswith(f"{[True] * len(GROUPS)} "), out


def test_a_replaced_scanner_is_asked_every_time(monkeypatch):
    answers = [[], []]
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: answers.pop())
    group_entry_points("plugsim.stack_lifecycle_plugins")
    group_entry_points("plugsim.stack_lifecycle_plugins")
    assert answers == []


def test_a_remembered_text_gives_every_caller_its_own_tree():
    text = "a: &shared [1, {b: 2}]\nc: *shared\n"
    first = parse_text(text, "one.yaml")
    first["a"][1]["b"] = 99
    first["new"] = True
    second = parse_text(text, "two.yaml")
    assert second == {"a": [1, {"b": 2}], "c": [1, {"b": 2}]}
    assert second["a"] is second["c"]  # an anchor's nodes stay shared, as a fresh parse has them


def test_the_fork_server_preload_leaves_a_worker_nothing_to_import_or_scan():
    """A process that imported PRELOAD (as the fork server does) runs a seed without importing
    an engine module or scanning an entry-point group."""
    code = (
        "import importlib, sys\n"
        "from sdk.testing.campaign.backends import PRELOAD\n"
        "for name in PRELOAD: importlib.import_module(name)\n"
        "import sdk._entry_points as eps\n"
        "scans = []\n"
        "real = eps._REAL_SCAN\n"
        "def counting(**kw):\n"
        "    scans.append(kw['group'])\n"
        "    return real(**kw)\n"
        "eps._REAL_SCAN = importlib.metadata.entry_points = counting\n"
        "before = set(sys.modules)\n"
        "from sdk.testing.campaign.bench import three_tier\n"
        "from sdk.testing.campaign.runs import run_range\n"
        "assert run_range(three_tier(), [0])[0]['ok']\n"
        "ours = ('simulator', 'sdk', 'fake_clouds')\n"
        "new = sorted(m for m in set(sys.modules) - before if m.split('.')[0] in ours)\n"
        "print(new, scans)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == "['sdk.testing.campaign.bench'] []"


@given(st.integers(0, 500), st.integers(1, 60), st.integers(1, 4))
def test_ranges_cover_every_seed_in_order_and_shrink_at_the_end(count, size, jobs):
    seeds = list(range(100, 100 + count))
    ranges = balanced_chunks(seeds, size, jobs)
    assert [s for r in ranges for s in r] == seeds
    assert all(0 < len(r) <= size for r in ranges)
    if jobs > 1 and size >= 4:
        # the seeds in the last jobs x size come in quarter ranges: no worker is left alone long
        tail = seeds[max(0, count - jobs * size) :]
        assert all(len(r) <= size // 4 for r in ranges if r[0] in tail)
    else:
        assert ranges == chunks(seeds, size)


def _scans_remembered() -> tuple[list[bool], object]:
    """In a pool worker: whether each group a run looks up is already scanned for this path."""
    import sdk._entry_points as eps
    from sdk.testing.campaign.warm import GROUPS

    path = eps._distribution_path()
    return [(group, path) in eps._SCANS for group in GROUPS], (path, sorted(set(eps._SCANS)))
