"""World files: loading, validation, presets, seeding and writing a cloud back as a world file."""

import json
import pathlib

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_clouds import worldfile
from fake_clouds.core.world import FakeCloud
from sdk import exception

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _names(cloud, service, kind):
    return [e.name for e in cloud.service(service)._live(kind)]


def test_the_default_preset_is_the_world_a_cloud_gets_without_a_file():
    plain, preset = FakeCloud(seed=3), worldfile.build("default", seed=3)
    assert plain.to_state()["services"] == preset.to_state()["services"]
    assert worldfile.export(plain) == worldfile.export(preset)


def test_the_devstack_preset_holds_what_a_fresh_devstack_has():
    cloud = worldfile.build("devstack", seed=0)
    assert _names(cloud, "network", "network") == ["public", "private"]
    assert "cirros-0.6.3-x86_64-disk" in _names(cloud, "compute", "image")
    flavors = _names(cloud, "compute", "flavor")
    assert {"m1.tiny", "m1.nano", "ds512M", "ds1G", "ds2G", "ds4G"} <= set(flavors)
    assert _names(cloud, "network", "router") == ["router1"]
    assert _names(cloud, "network", "security_group") == ["default"]
    assert {"admin", "demo"} <= set(_names(cloud, "entity", "project"))
    router = cloud.service("network")._live("router")[0]
    public = cloud.service("network")._live("network")[0]
    assert router.attrs["external_gateway_info"]["network_id"] == public.id
    assert len(router.attrs["interfaces"]) == 2
    # nothing a world file declares is a leak, nor counts against quotas
    assert cloud.leaks() == []


@pytest.mark.parametrize("name", worldfile.PRESETS)
def test_show_load_show_is_identical(name, tmp_path):
    text = worldfile.dump(worldfile.export(worldfile.build(name, seed=0)))
    path = tmp_path / "world.yaml"
    path.write_text(text)
    assert worldfile.dump(worldfile.export(worldfile.build(str(path), seed=5))) == text


def test_a_world_file_declares_every_kind(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(
        """
plugsim_world: 1
images: [{name: F18-x86_64-cfntools}]
flavors: [{name: big, vcpus: 16, ram: 65536, disk: 500}]
keypairs: [{name: mine, public_key: ssh-ed25519 AAAA me}]
networks:
  - name: ext
    external: true
    subnets: [{name: ext-v4, cidr: 203.0.113.0/24}]
  - name: lan
    subnets: [{name: lan-v4, cidr: 192.168.7.0/24, gateway_ip: 192.168.7.254}]
routers: [{name: gw, external_gateway: ext, interfaces: [lan-v4]}]
security_groups:
  - name: web
    rules: [{direction: ingress, protocol: tcp, port_range_min: 80, port_range_max: 80}]
volume_types: [{name: ssd}]
projects: [{name: team}]
users: [{name: alice, project: team, roles: [member]}]
quotas: {compute: {instances: 3}}
latency: {calls: {"compute.*": 0.5}}
faults: flaky
"""
    )
    cloud = worldfile.build(str(path), seed=1)
    data = worldfile.export(cloud)
    assert data["images"][0]["name"] == "F18-x86_64-cfntools"
    lan = data["networks"][1]["subnets"][0]
    assert lan["allocation_pools"] == [{"start": "192.168.7.1", "end": "192.168.7.253"}]
    assert data["networks"][0]["subnets"][0]["gateway_ip"] == "203.0.113.1"
    assert data["routers"][0]["interfaces"] == ["lan-v4"]
    assert data["security_groups"][0]["rules"][0]["port_range_min"] == 80
    assert data["users"][0]["project"] == "team"
    assert data["quotas"] == {"compute": {"instances": 3}}
    assert data["latency"] == {"calls": {"compute.*": 0.5}}
    assert [r["name"] for r in data["faults"]][:1] == ["flaky-503"]
    # the world's objects are what the network API answers
    client = cloud.client("network")
    assert [n["name"] for n in client.list_networks()["networks"]] == ["ext", "lan"]


def test_extends_adds_to_a_preset(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("extends: devstack\nkeypairs: [{name: heat_key, public_key: ssh-rsa AAA x}]\n")
    cloud = worldfile.build(str(path), seed=0)
    assert _names(cloud, "compute", "keypair") == ["heat_key"]
    assert "private" in _names(cloud, "network", "network")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("plugsim_world: 2\n", "plugsim_world: 1 was expected"),
        ("plugsim_world: 1\nimagez: []\n", "(top level): Additional properties"),
        (
            "plugsim_world: 1\nflavors: [{name: a, vcpus: 1, ram: 1, disk: -1}]\n",
            "flavors[0].disk: -1 is less than the minimum of 0",
        ),
        (
            "plugsim_world: 1\nnetworks: [{name: n, subnets: [{name: s}]}]\n",
            "networks[0].subnets[0]: 'cidr' is a required property",
        ),
        (
            "plugsim_world: 1\nrouters: [{name: r, interfaces: [nowhere]}]\n",
            "routers[0].interfaces[0]: no subnet named 'nowhere'",
        ),
        (
            "plugsim_world: 1\nimages: [{name: a}, {name: a}]\n",
            "images[1].name: 'a' is already images[0]",
        ),
        ("plugsim_world: 1\nimages: [{name: a}\n", "line "),
        ("extends: openstack\n", "extends: expected one of default, devstack"),
    ],
)
def test_bad_world_files_are_one_line_naming_file_and_key(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(exception.ConfigurationError) as info:
        worldfile.build(str(path), seed=0)
    text = str(info.value)
    assert text.startswith(f"{path}: ")
    assert message in text
    assert "\n" not in text


def test_an_unknown_preset_names_the_presets():
    with pytest.raises(exception.ConfigurationError, match="presets: default, devstack"):
        worldfile.resolve("openstack-train")


def test_the_schema_ships_in_the_package_and_in_the_docs():
    shipped = worldfile.schema()
    docs = json.loads((ROOT / "docs" / "world.schema.json").read_text())
    assert shipped == docs
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(shipped)
    for name in worldfile.PRESETS:
        jsonschema.validate(worldfile.preset(name), shipped)


_name = st.text(alphabet="abcdefghij-", min_size=1, max_size=8)


@settings(max_examples=30, deadline=None)
@given(
    images=st.lists(_name, unique=True, max_size=4),
    flavors=st.lists(
        st.tuples(_name, st.integers(1, 64), st.integers(1, 10**5)),
        unique_by=lambda f: f[0],
        max_size=4,
    ),
    prefix=st.integers(0, 200),
)
def test_any_declared_world_round_trips(images, flavors, prefix):
    data = {
        "plugsim_world": 1,
        "images": [{"name": n} for n in images],
        "flavors": [{"name": n, "vcpus": c, "ram": r, "disk": 1} for n, c, r in flavors],
        "networks": [{"name": "n", "subnets": [{"name": "s", "cidr": f"10.{prefix}.0.0/24"}]}],
    }
    once = worldfile.export(worldfile.build(data, seed=0))
    twice = worldfile.export(worldfile.build(yaml.safe_load(worldfile.dump(once)), seed=9))
    assert once == twice
    assert [i["name"] for i in once.get("images", [])] == images
