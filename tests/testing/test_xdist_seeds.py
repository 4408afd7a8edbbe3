"""A test's seed derives from the session seed and its node id, not from xdist scheduling."""

import json

import pytest

pytest.importorskip("xdist", reason="pytest-xdist is not installed")

TESTS = """
import json, os, pytest

@pytest.mark.parametrize("n", range(6))
def test_seed(plugsim_seed, n):
    path = os.path.join(os.environ["SEED_DIR"], f"{n}.json")
    with open(path, "w") as f:
        json.dump(plugsim_seed, f)
"""


def _seeds(pytester, monkeypatch, tag, *args):
    out = pytester.mkdir(tag)
    monkeypatch.setenv("SEED_DIR", str(out))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--plugsim-seed", "11", *args)
    result.assert_outcomes(passed=6)
    return {p.name: json.loads(p.read_text()) for p in sorted(out.iterdir())}


@pytest.mark.material
def test_seeds_are_the_same_with_and_without_xdist(pytester, monkeypatch):
    pytester.makepyfile(test_seeds=TESTS)
    serial = _seeds(pytester, monkeypatch, "serial")
    parallel = _seeds(pytester, monkeypatch, "parallel", "-n", "2")
    assert serial == parallel
    assert len(set(serial.values())) == 6  # every test gets its own seed
