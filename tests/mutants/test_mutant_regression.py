"""A handful of the mutation benchmark's mutants, run in CI: the kit must keep killing them.

Each is one bug planted in the bundled example plug-in
(``examples/three-tier/plugins/example_cloud.py``) by ``tools/mutants_catalogue.py``,
run through ``plugsim conformance`` narrowed to the test that kills it today
(a few seconds each). The unmutated example must pass the same tests, or a
kill would mean nothing. The full benchmark is ``nox -s mutants``.
"""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Each mutant is a plugsim conformance run: the material tier (``-m material``).
pytestmark = pytest.mark.material
sys.path.insert(0, str(ROOT / "tools"))

import mutants  # noqa: E402
from mutants_catalogue import MUTANTS, TARGETS  # noqa: E402

#: mutant id -> the conformance test that kills it today
KILLED_BY = {
    "en-delete-returns": "test_create",  # delete forgets: the network and subnet leak
    "en-delete-strict": "test_delete_when_already_gone",  # a gone network's delete raises
    "en-create-id-last": "test_create_fails_at_each_cloud_call",  # a failed subnet leaks the network
    "en-no-id": "test_create",  # resource_id never set
    "en-delete-assumes-created": "test_create_fails_at_each_cloud_call",  # delete before the subnet
}
BY_ID = {m.id: m for m in MUTANTS}
ORIGINAL = (ROOT / mutants.TARGETS["example-network"].file).read_text(encoding="utf-8")


def run(source: str, folder: Path, tests: tuple[str, ...]) -> dict:
    target = TARGETS["example-network"]
    return mutants.run_kit(target, source, folder, "example_cloud.py", tests)


@pytest.fixture(scope="module")
def original_results(tmp_path_factory):
    """The unmutated example under every test a regression mutant is killed by."""
    tests = tuple(sorted(set(KILLED_BY.values())))
    return run(ORIGINAL, tmp_path_factory.mktemp("original"), tests)


def test_the_unmutated_example_passes_the_killing_tests(original_results):
    outcomes = {name: r["outcome"] for name, r in original_results["tests"].items()}
    # -k matches substrings: test_create brings test_create_with_rollback along
    assert set(KILLED_BY.values()) <= set(outcomes), outcomes
    assert set(outcomes.values()) == {"passed"}, original_results


@pytest.fixture(scope="module")
def verdicts(original_results, tmp_path_factory):
    """Each regression mutant's verdict, run once for the tests below."""
    cache: dict[str, dict] = {}

    def verdict(mutant_id: str) -> dict:
        if mutant_id not in cache:
            mutant = BY_ID[mutant_id]
            folder = tmp_path_factory.mktemp(mutant_id)
            result = run(mutant.op(ORIGINAL), folder, (KILLED_BY[mutant_id],))
            cache[mutant_id] = mutants.judge(mutant, original_results, result)
        return cache[mutant_id]

    return verdict


@pytest.mark.parametrize("mutant_id", sorted(KILLED_BY))
def test_the_kit_kills_the_mutant(mutant_id, verdicts):
    assert BY_ID[mutant_id].target == "example-network"
    verdict = verdicts(mutant_id)
    assert verdict["status"] == "killed", verdict
    assert verdict["killed_by"] == KILLED_BY[mutant_id]
    assert verdict["message"]


@pytest.mark.parametrize("mutant_id", sorted(KILLED_BY))
def test_the_kill_message_names_the_handler(mutant_id, verdicts):
    verdict = verdicts(mutant_id)
    assert verdict["status"] == "killed", verdict
    assert verdict["names_handler"], verdict["full_message"]
    # with the file and line of its definition or of the call in it
    handler = BY_ID[mutant_id].handler
    assert re.search(rf"{handler} \(example_cloud\.py:\d+\)", verdict["full_message"]), verdict[
        "full_message"
    ]
