"""``plugsim serve``: a real loopback server driven by openstacksdk, stopped with SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

openstack = pytest.importorskip("openstack")

PLUGSIM = Path(sys.executable).with_name("plugsim")


def _start(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            str(PLUGSIM),
            "serve",
            "--port",
            "0",
            "--state",
            str(tmp_path / "w.db"),
            "--seed",
            "5",
            "--time-scale",
            "100",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    line = proc.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("auth URL: http://127.0.0.1:"), line + proc.stderr.read()  # type: ignore[union-attr]
    proc.stdout.readline()  # type: ignore[union-attr]
    return proc, line.split(": ", 1)[1].strip()


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("plugsim serve did not stop within 30 s of SIGTERM")
    assert proc.returncode == 0, err
    return err


def test_serve_answers_openstacksdk_and_saves_the_world_on_sigterm(tmp_path):
    proc, auth_url = _start(tmp_path)
    try:
        config = openstack.config.OpenStackConfig(config_files=[str(tmp_path / "clouds.yaml")])
        region = config.get_one(cloud="plugsim")
        assert region.config["auth"]["auth_url"] == auth_url
        conn = openstack.connection.Connection(config=region)
        net = conn.network.create_network(name="served")
        conn.network.create_subnet(network_id=net.id, cidr="10.4.0.0/24", ip_version=4)
        image = next(i for i in conn.compute.images() if i.name == "cirros")
        server = conn.compute.create_server(
            name="vm", image_id=image.id, flavor_id="1", networks=[{"uuid": net.id}]
        )
        server = conn.compute.wait_for_server(server, interval=0.2, wait=60)
        assert server.status == "ACTIVE"
        assert list(server.addresses) == ["served"]
    finally:
        err = _stop(proc)
    assert "world saved" in err
    from simulator.world import World

    with World.open(tmp_path / "w.db") as world:
        names = [s["name"] for s in world.cloud.service("compute").list_servers()]
        assert names == ["vm"]
        assert world.cloud.service("identity").counters["tokens"]


def test_serve_writes_the_unserved_endpoints_to_its_report_on_stop(tmp_path):
    import json

    import requests

    report = tmp_path / "report.json"
    proc, auth_url = _start(tmp_path, "--report", str(report))
    try:
        base = auth_url.rsplit("/identity/", 1)[0]
        config = openstack.config.OpenStackConfig(config_files=[str(tmp_path / "clouds.yaml")])
        conn = openstack.connection.Connection(config=config.get_one(cloud="plugsim"))
        token = conn.session.get_token()
        for _ in range(2):
            answer = requests.get(
                f"{base}/compute/v2.1/os-no-such-thing/42", headers={"X-Auth-Token": token}
            )
            assert answer.status_code == 404
    finally:
        _stop(proc)
    data = json.loads(report.read_text())
    assert {
        "service": "compute",
        "method": "GET",
        "path": "/v2.1/os-no-such-thing/{id}",
        "count": 2,
    } in data["unserved"]
    assert data["bugs"] == []


def test_serve_rejects_a_bad_port_in_one_line(tmp_path):
    result = subprocess.run(
        [str(PLUGSIM), "serve", "--port", "70000", "--state", str(tmp_path / "w.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "70000" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_takes_concurrent_clients_without_losing_entities(tmp_path):
    import threading

    import requests

    proc, auth_url = _start(tmp_path)
    statuses: list[int] = []
    try:
        user = {"name": "admin", "domain": {"id": "default"}, "password": "plugsim"}
        body = {
            "auth": {
                "identity": {"methods": ["password"], "password": {"user": user}},
                "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
            }
        }
        token = requests.post(f"{auth_url}/auth/tokens", json=body).headers["X-Subject-Token"]
        base = auth_url.rsplit("/identity", 1)[0] + "/network/v2.0/networks"
        headers = {"X-Auth-Token": token}

        def client(n: int) -> None:
            with requests.Session() as http:
                for i in range(10):
                    payload = {"network": {"name": f"c{n}-{i}"}}
                    statuses.append(http.post(base, json=payload, headers=headers).status_code)
                    statuses.append(http.get(base, headers=headers).status_code)

        threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        names = {n["name"] for n in requests.get(base, headers=headers).json()["networks"]}
    finally:
        _stop(proc)
    assert sorted(set(statuses)) == [200, 201]
    assert {f"c{n}-{i}" for n in range(4) for i in range(10)} <= names
