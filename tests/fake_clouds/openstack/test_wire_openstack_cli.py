"""The ``openstack`` CLI (python-openstackclient) creates, lists, shows and deletes on the wire.

The CLI runs in-process through its own entry point (``openstackclient.shell.main``)
against the ``openstack_connection`` fixture's world and ``clouds.yaml``, so its
requests are answered by the in-process transport and what it makes is the
world's.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openstackclient.shell")


@pytest.fixture
def cli(openstack_connection, monkeypatch, capsys):
    """Run ``openstack --os-cloud plugsim ARGS -f json``; return the parsed output."""
    from openstackclient import shell

    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(openstack_connection.plugsim_clouds_yaml))
    for name in ("OS_CLOUD", "OS_AUTH_URL", "OS_USERNAME", "OS_PASSWORD", "OS_PROJECT_NAME"):
        monkeypatch.delenv(name, raising=False)

    def run(*args: str) -> object:
        capsys.readouterr()
        argv = ["--os-cloud", "plugsim", *args]
        if args[-1] not in ("delete",) and args[1] in ("create", "list", "show"):
            argv += ["-f", "json"]
        code = shell.main(argv)
        out = capsys.readouterr()
        assert code == 0, out.err
        return json.loads(out.out) if out.out.strip() else None

    return run


def _crud(cli, kind: str, name: str, *create_args: str) -> dict:
    made = cli(kind, "create", *create_args, name)
    assert made["name"] == name
    assert name in [row["Name"] for row in cli(kind, "list")]
    shown = cli(kind, "show", made["id"])
    assert shown["id"] == made["id"]
    return made


def test_openstack_cli_network_subnet_port_router(cli, fake_cloud):
    net = _crud(cli, "network", "cli-net")
    subnet = _crud(
        cli, "subnet", "cli-sub", "--network", "cli-net", "--subnet-range", "10.7.0.0/24"
    )
    port = _crud(cli, "port", "cli-port", "--network", "cli-net")
    router = _crud(cli, "router", "cli-router")
    assert fake_cloud.service("network").get_subnet(subnet["id"])["cidr"] == "10.7.0.0/24"
    for kind, made in (("port", port), ("router", router), ("subnet", subnet), ("network", net)):
        cli(kind, "delete", made["id"])
    assert "cli-net" not in [row["Name"] for row in cli("network", "list")]


def test_openstack_cli_server_volume_image_container(cli, fake_cloud, tmp_path):
    cli("network", "create", "cli-only-net")
    server = _crud(cli, "server", "cli-vm", "--image", "cirros", "--flavor", "m1.tiny")
    fake_cloud.clock.advance(600)  # the CLI's --wait would sleep in wall time: move time instead
    assert cli("server", "show", server["id"])["status"] == "ACTIVE"
    assert fake_cloud.service("compute").get_server(server["id"])["name"] == "cli-vm"
    volume = _crud(cli, "volume", "cli-vol", "--size", "1")
    data = tmp_path / "disk.raw"
    data.write_bytes(b"0" * 512)
    image = _crud(cli, "image", "cli-image", "--file", str(data), "--disk-format", "raw")
    container = cli("container", "create", "cli-box")
    assert container[0]["container"] == "cli-box"
    assert "cli-box" in [row["Name"] for row in cli("container", "list")]
    fake_cloud.clock.advance(600)
    cli("server", "delete", server["id"])
    cli("volume", "delete", volume["id"])
    cli("image", "delete", image["id"])
    cli("container", "delete", "cli-box")
    fake_cloud.clock.advance(600)
    assert "cli-vm" not in [row["Name"] for row in cli("server", "list")]
    assert "cli-vol" not in [row["Name"] for row in cli("volume", "list")]
    assert [row["Name"] for row in cli("container", "list")] == []
