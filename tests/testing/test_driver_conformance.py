"""sdk.testing.CloudDriverConformance: one test per scenario, failures name the findings."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "examples" / "drivers" / "digitalocean_v2.py"
TOKEN = "plugsim-digitalocean-token"
PROVIDERS = {"my-do": {"driver": "digitalocean", "personal_access_token": TOKEN}}
PROFILES = {
    "do-small": {
        "provider": "my-do",
        "size": "s-1vcpu-2gb",
        "image": "ubuntu-22-04-x64",
        "location": "nyc3",
    }
}

TEST_MODULE = """
from sdk.testing import CloudDriverConformance


class TestDriver(CloudDriverConformance):
    driver = {driver!r}
    providers = "providers.yaml"
    profiles = "profiles.yaml"
    {extra}
"""


def _project(pytester, driver, extra=""):
    pytester.path.joinpath("providers.yaml").write_text(yaml.safe_dump(PROVIDERS))
    pytester.path.joinpath("profiles.yaml").write_text(yaml.safe_dump(PROFILES))
    pytester.makepyfile(test_driver=TEST_MODULE.format(driver=str(driver), extra=extra))


def test_the_bundled_driver_passes_every_scenario(pytester):
    _project(pytester, BUNDLED)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=6)


def test_unselected_fault_kinds_are_skipped_with_a_reason(pytester):
    _project(pytester, BUNDLED, extra="fault_kinds = ('rate_limit',)")
    result = pytester.runpytest("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(passed=2, skipped=4)
    result.stdout.fnmatch_lines(["*fault kind 'slow_boot' not selected by TestDriver*"])


def test_a_driver_leaking_its_token_fails_with_the_finding(pytester):
    source = BUNDLED.read_text()
    old = '{"kwargs": __utils__["cloud.filter_event"]("requesting", kwargs, list(kwargs))}'
    assert old in source
    leaky = pytester.path / "leaky_do.py"
    leaky.write_text(
        source.replace(old, '{"kwargs": kwargs, "auth": _provider()["personal_access_token"]}')
    )
    _project(pytester, leaky, extra="fault_kinds = ()")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, skipped=5)
    result.stdout.fnmatch_lines(["*driver does not conform*", "*baseline*secret*"])


def test_a_class_without_profiles_fails_collection_naming_it(pytester):
    pytester.makepyfile(
        test_bad="""
from sdk.testing import CloudDriverConformance

class TestBad(CloudDriverConformance):
    providers = {"p": {"driver": "x"}}
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*missing required attribute 'profiles'*"])
    assert result.ret != 0
