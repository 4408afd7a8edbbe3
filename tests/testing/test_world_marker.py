"""The pytest plugin's ``world`` marker, ``--plugsim-world`` and ``plugsim_world`` ini option."""

TESTS = """
import pytest

def _networks(world):
    return sorted(n["name"] for n in world.client_plugin("neutron").client().list_networks()["networks"])

@pytest.mark.world("devstack")
def test_marker(plugsim_world):
    assert _networks(plugsim_world) == ["private", "public"]

@pytest.mark.world("mine.yaml")
def test_marker_file(plugsim_world):
    assert _networks(plugsim_world) == ["lab"]

def test_ini(plugsim_world):
    assert _networks(plugsim_world) == ["public"]
"""


def test_the_pytest_plugin_takes_a_world_marker_and_an_ini_option(pytester):
    pytester.makepyfile(test_worlds=TESTS)
    (pytester.path / "mine.yaml").write_text("plugsim_world: 1\nnetworks: [{name: lab}]\n")
    pytester.makeini("[pytest]\nplugsim_world = default\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
