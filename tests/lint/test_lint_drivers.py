"""Cloud driver rules: static PS601-PS604 on small driver files, dynamic PS611-PS614 on a fake cloud.

The dynamic fixtures are variants of the bundled DigitalOcean driver, each with
one defect, written to a temporary directory with the providers and profiles
files the ``[tool.plugsim.lint.driver]`` configuration names.
"""

from pathlib import Path

import pytest
import yaml

from sdk.exception import ConfigurationError
from sdk.lint import LintConfig, all_rules, lint_paths, load_config
from sdk.lint.config import DriverConfig
from sdk.lint.driver_rules import is_driver
from sdk.lint.source import PluginModule

FIXTURES = Path(__file__).parent / "fixtures"
DRIVERS = FIXTURES / "drivers"
R = "tests/lint/fixtures/drivers"
BUNDLED = Path(__file__).parents[2] / "examples" / "drivers" / "digitalocean_v2.py"
TOKEN = "plugsim-digitalocean-token"

STATIC = {
    "PS601": [
        f"{R}/ps601_bad.py:1:1: PS601 cloud driver ps601_bad.py does not define the required "
        "function(s) get_configured_provider(), list_nodes_full(), list_nodes_select(), "
        "show_instance(), avail_images(), avail_sizes()"
    ],
    "PS602": [
        f"{R}/ps602_bad.py:13:16: PS602 list_nodes() gives call no default instead of None; "
        "salt-cloud passes call='action' or call='function'",
        f"{R}/ps602_bad.py:19:1: PS602 show_instance() has no call parameter; salt-cloud passes "
        "call='action' or call='function'",
        f"{R}/ps602_bad.py:23:17: PS602 avail_sizes() gives call the default 'function' instead "
        "of None; salt-cloud passes call='action' or call='function'",
    ],
    "PS603": [
        f"{R}/ps603_bad.py:8:1: PS603 destroy() never raises SaltCloudSystemExit when call is "
        "wrong",
        f"{R}/ps603_bad.py:12:1: PS603 list_nodes() never raises SaltCloudSystemExit when call is "
        "wrong",
        f"{R}/ps603_bad.py:24:1: PS603 show_image() never raises SaltCloudSystemExit when call is "
        "wrong",
    ],
    "PS604": [
        f"{R}/ps604_bad.py:4:19: PS604 create() takes **extra; salt-cloud passes generic "
        "arguments as one dict parameter named kwargs",
        f"{R}/ps604_bad.py:19:29: PS604 show_image() takes **kwargs; salt-cloud passes generic "
        "arguments as one dict parameter named kwargs",
    ],
}


def _lines(paths, config=None, rule_prefix="PS6", **kwargs):
    report = lint_paths(paths, config=config or LintConfig(), **kwargs)
    return [
        f"{f.path}:{f.line}:{f.col}: {f.rule_id} {f.message}"
        for f in report.findings
        if f.rule_id.startswith(rule_prefix)
    ]


@pytest.mark.parametrize("rule_id", sorted(STATIC))
def test_static_driver_rule_fires_on_its_failing_example(rule_id):
    path = DRIVERS / f"{rule_id.lower()}_bad.py"
    assert _lines([path], rule_prefix=rule_id) == STATIC[rule_id]


def test_the_passing_driver_has_no_finding_at_all():
    assert lint_paths([DRIVERS / "driver_good.py"], config=LintConfig()).findings == []


def test_the_bundled_driver_passes_the_static_rules():
    assert _lines([BUNDLED]) == []


def test_resource_plugins_and_helper_modules_are_not_drivers():
    def module(path):
        return PluginModule.read(path)

    assert is_driver(module(DRIVERS / "driver_good.py"))
    assert is_driver(module(DRIVERS / "ps604_bad.py"))  # create, destroy, list_nodes
    assert not is_driver(module(FIXTURES / "good_plugin.py"))
    assert not is_driver(
        PluginModule(Path("helpers.py"), "helpers.py", "def create(x):\n    pass\n")
    )


# --- dynamic -----------------------------------------------------------------------------------

VARIANTS = {
    "secret": [
        (
            '{"kwargs": __utils__["cloud.filter_event"]("requesting", kwargs, list(kwargs))}',
            '{"kwargs": kwargs, "auth": _provider()["personal_access_token"]}',
        )
    ],
    "order": [
        ('"destroying", "destroying instance"', '"@@"'),
        ('"destroyed", "destroyed instance"', '"destroying", "destroying instance"'),
        ('"@@"', '"destroyed", "destroyed instance"'),
    ],
    "listing": [
        ('        "private_ips": _ips(droplet, "private"),\n', ""),
        (
            '"state": str(droplet.get("status") or ""),',
            '"state": len(str(droplet.get("status") or "")), "ipv6": True,',
        ),
    ],
    "leak": [('    deleted = _delete(droplet["id"])\n', "    deleted = False\n")],
}


@pytest.fixture
def cloud(tmp_path, monkeypatch):
    """Providers/profiles files, a driver-variant writer and the matching lint configuration."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "providers.yaml").write_text(
        yaml.safe_dump({"my-do": {"driver": "digitalocean", "personal_access_token": TOKEN}})
    )
    (tmp_path / "profiles.yaml").write_text(
        yaml.safe_dump(
            {
                "do-small": {
                    "provider": "my-do",
                    "size": "s-1vcpu-2gb",
                    "image": "ubuntu-22-04-x64",
                    "location": "nyc3",
                }
            }
        )
    )
    config = LintConfig(driver=DriverConfig(Path("providers.yaml"), Path("profiles.yaml")))

    def variant(name):
        source = BUNDLED.read_text()
        for old, new in VARIANTS.get(name, []):
            assert old in source, old
            source = source.replace(old, new)
        folder = tmp_path / name
        folder.mkdir()
        path = folder / "digitalocean.py"
        path.write_text(source)
        return path

    return variant, config


def _line_of(path, text):
    return path.read_text().splitlines().index(text) + 1


def test_the_bundled_driver_passes_the_dynamic_rules(cloud):
    variant, config = cloud
    assert _lines([variant("unchanged")], config) == []


def test_ps612_an_event_carrying_the_token(cloud):
    variant, config = cloud
    path = variant("secret")
    line = _line_of(path, "def create(vm_):")
    assert _lines([path], config) == [
        f"secret/digitalocean.py:{line}:1: PS612 cloud driver digitalocean.py: "
        "salt/cloud/conformance-baseline/requesting carries the value of the secret setting "
        "providers.yaml: my-do.personal_access_token (events.secret)"
    ]


def test_ps611_events_out_of_order(cloud):
    variant, config = cloud
    path = variant("order")
    line = _line_of(path, "def destroy(name, call=None):")
    assert _lines([path], config) == [
        f"order/digitalocean.py:{line}:1: PS611 cloud driver digitalocean.py: destroy() fired "
        "destroyed, destroying; expected the order destroying, destroyed (events.order)"
    ]


def test_ps613_list_nodes_with_wrong_fields_and_types(cloud):
    variant, config = cloud
    path = variant("listing")
    nodes = _line_of(path, "def list_nodes(call=None):")
    full = _line_of(path, "def list_nodes_full(call=None):")
    assert _lines([path], config) == [
        f"listing/digitalocean.py:{nodes}:1: PS613 cloud driver digitalocean.py: "
        "list_nodes()['conformance-baseline'] lacks private_ips; "
        "list_nodes()['conformance-baseline'] has extra field(s) ipv6 (only id, image, size, "
        "state, private_ips, public_ips belong there); "
        "list_nodes()['conformance-baseline'].state is int, not str "
        "(list_nodes.fields, list_nodes.types)",
        f"listing/digitalocean.py:{full}:1: PS613 cloud driver digitalocean.py: "
        "list_nodes_full()['conformance-baseline'] lacks private_ips (list_nodes_full.fields)",
    ]


def test_ps614_a_destroy_that_leaves_the_node(cloud):
    variant, config = cloud
    path = variant("leak")
    lines = _lines([path], config)
    line = _line_of(path, "def destroy(name, call=None):")
    assert len(lines) == 1
    assert lines[0].startswith(
        f"leak/digitalocean.py:{line}:1: PS614 cloud driver digitalocean.py: compute server "
        "'conformance-baseline' ("
    )
    assert lines[0].endswith(
        "list_nodes() still shows 'conformance-baseline' after destroy (leaks, destroy.gone)"
    )


def test_a_broken_cloud_configuration_is_a_ps614_finding(cloud, tmp_path):
    variant, config = cloud
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump({"do-small": {"size": "x"}}))
    assert _lines([variant("unchanged")], config) == [
        "unchanged/digitalocean.py:1:1: PS614 cloud driver digitalocean.py: profiles.yaml: "
        "do-small.provider: missing (name a provider alias from providers.yaml) (config)"
    ]


def test_dynamic_driver_rules_run_only_for_the_configured_driver(cloud, tmp_path):
    variant, config = cloud
    path = variant("secret")
    other = tmp_path / "secret" / "othercloud.py"
    other.write_text(path.read_text().replace('"digitalocean"', '"othercloud"'))
    path.unlink()
    assert _lines([other], config) == []


def test_no_dynamic_and_no_configuration_mean_static_rules_only(cloud):
    variant, config = cloud
    path = variant("secret")
    assert _lines([path], config, dynamic=False) == []
    assert _lines([path], LintConfig()) == []


def test_driver_table_in_pyproject_is_checked(tmp_path):
    (tmp_path / "providers.yaml").write_text("{}\n")
    (tmp_path / "profiles.yaml").write_text("{}\n")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.plugsim.lint.driver]\nproviders = "providers.yaml"\nprofiles = "profiles.yaml"\n'
        'profile = "small"\n'
    )
    assert load_config(pyproject).driver == DriverConfig(
        tmp_path / "providers.yaml", tmp_path / "profiles.yaml", "small"
    )
    pyproject.write_text('[tool.plugsim.lint.driver]\nproviders = "nope.yaml"\nprofiles = "x"\n')
    with pytest.raises(ConfigurationError) as info:
        load_config(pyproject)
    assert str(info.value) == (
        f"{pyproject}: [tool.plugsim.lint] driver.providers: {tmp_path / 'nope.yaml'}: no such file"
    )
    pyproject.write_text('[tool.plugsim.lint.driver]\nprovider = "providers.yaml"\n')
    with pytest.raises(ConfigurationError) as info:
        load_config(pyproject)
    assert str(info.value) == (
        f"{pyproject}: [tool.plugsim.lint] driver.provider: unknown key; valid keys are "
        "providers, profiles, profile"
    )


def test_every_driver_rule_is_tested():
    ids = {r.id for r in all_rules() if r.family == "driver"}
    assert ids == set(STATIC) | {"PS611", "PS612", "PS613", "PS614"}
