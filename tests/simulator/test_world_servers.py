"""Servers declared in a world file (issue 21): templates that name a server which must already
exist (an ``external_id``, an instance id parameter) run against a world that holds one."""

import pytest
import yaml

from fake_clouds import worldfile
from sdk import exception
from simulator.simulate import simulate
from simulator.world import World

SERVER_ID = "5f0c2a54-3d1e-4d6b-9a53-000000000001"
LAB = {
    "plugsim_world": 1,
    "extends": "devstack",
    "servers": [
        {
            "name": "db",
            "id": SERVER_ID,
            "image": "cirros-0.6.3-x86_64-disk",
            "flavor": "m1.tiny",
            "networks": ["private"],
        }
    ],
}


def _write(tmp_path, data, name="lab.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_declared_server_is_active_on_its_network_and_no_leak(tmp_path):
    cloud = worldfile.build(_write(tmp_path, LAB))
    (server,) = cloud.service("compute").list_servers()
    assert (server["id"], server["name"], server["status"]) == (SERVER_ID, "db", "ACTIVE")
    (address,) = server["addresses"]["private"]
    assert address["addr"].startswith("10.0.0.")
    ports = [p for p in cloud.service("network").list_ports() if p["device_id"] == SERVER_ID]
    assert [p["fixed_ips"][0]["ip_address"] for p in ports] == [address["addr"]]
    assert cloud.leaks(cloud.snapshot_inventory()) == []
    # a declared server does not count against the project's instance quota
    assert cloud.service("compute")._count("server") == 0


def test_a_template_can_adopt_a_declared_server_by_external_id(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(
        yaml.safe_dump(
            {
                "heat_template_version": "2016-10-14",
                "resources": {"srv": {"type": "OS::Nova::Server", "external_id": SERVER_ID}},
                "outputs": {"ip": {"value": {"get_attr": ["srv", "networks", "private", 0]}}},
            }
        )
    )
    report = simulate(str(template), [], {}, world_file=str(_write(tmp_path, LAB)))
    assert report.ok, report.format()


def test_a_volume_attaches_to_a_declared_server(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(
        yaml.safe_dump(
            {
                "heat_template_version": "2013-05-23",
                "parameters": {"instance_id": {"type": "string"}},
                "resources": {
                    "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
                    "att": {
                        "type": "OS::Cinder::VolumeAttachment",
                        "properties": {
                            "volume_id": {"get_resource": "vol"},
                            "instance_uuid": {"get_param": "instance_id"},
                        },
                    },
                },
            }
        )
    )
    world = _write(tmp_path, LAB)
    report = simulate(str(template), [], {"instance_id": SERVER_ID}, world_file=str(world))
    assert report.ok, report.format()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"image": "nope"}, "servers[0].image: no image named 'nope' in this world"),
        ({"flavor": "m9.huge"}, "servers[0].flavor: no flavor named 'm9.huge' in this world"),
        (
            {"networks": ["elsewhere"]},
            "servers[0].networks[0]: no network named 'elsewhere' in this world",
        ),
        ({"key_name": "nokey"}, "servers[0].key_name: no keypair named 'nokey' in this world"),
    ],
)
def test_a_server_naming_what_the_world_lacks_is_one_line(tmp_path, entry, message):
    bad = {**LAB, "servers": [{**LAB["servers"][0], **entry}]}
    path = _write(tmp_path, bad)
    with pytest.raises(exception.ConfigurationError) as err:
        worldfile.build(path)
    assert str(err.value) == f"{path}: {message}"


def test_a_server_without_an_image_breaks_the_schema(tmp_path):
    bad = {**LAB, "servers": [{"name": "x", "flavor": "m1.tiny"}]}
    path = _write(tmp_path, bad)
    with pytest.raises(exception.ConfigurationError, match=r"servers\[0\]: 'image' is a required"):
        worldfile.resolve(path)


def test_servers_round_trip_through_world_show(tmp_path):
    first = worldfile.export(worldfile.build(_write(tmp_path, LAB)))
    assert first["servers"] == [
        {
            "name": "db",
            "id": SERVER_ID,
            "image": "cirros-0.6.3-x86_64-disk",
            "flavor": "m1.tiny",
            "networks": ["private"],
            "key_name": None,
            "metadata": {},
            "status": "ACTIVE",
        }
    ]
    again = worldfile.export(worldfile.build(_write(tmp_path, first, "again.yaml")))
    assert again == first


def test_a_world_with_a_server_reopens_from_its_store(tmp_path):
    state = tmp_path / "w.db"
    with World.open(state, world_file=str(_write(tmp_path, LAB))) as world:
        assert [s["name"] for s in world.cloud.service("compute").list_servers()] == ["db"]
    with World.open(state) as world:
        assert [s["id"] for s in world.cloud.service("compute").list_servers()] == [SERVER_ID]
