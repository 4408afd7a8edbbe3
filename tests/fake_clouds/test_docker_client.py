"""The real ``docker`` library's APIClient against the fake Docker Engine API."""

from __future__ import annotations

import pytest

from fake_clouds import FakeCloud
from fake_clouds.docker import add_docker_service, serve_docker

docker = pytest.importorskip(
    "docker", reason="the docker library is not installed (pip install 'plugsim[docker]')"
)


def test_the_docker_client_creates_starts_inspects_and_removes() -> None:
    cloud = FakeCloud(seed=4)
    with serve_docker(cloud) as server:
        client = docker.APIClient("tcp://docker.fake:2375")  # asks GET /version first
        assert client.api_version == "1.45" and client.ping()
        client.pull("nginx", tag="1.25")
        host = client.create_host_config(port_bindings={80: 8080})
        cid = client.create_container("nginx:1.25", name="web", ports=[80], host_config=host)["Id"]
        client.start(cid)
        info = client.inspect_container(cid)
        assert info["State"]["Running"] and info["Name"] == "/web"
        assert info["NetworkSettings"]["Ports"] == {
            "80/tcp": [{"HostIp": "0.0.0.0", "HostPort": "8080"}]
        }
        assert client.logs(cid) == b"start worker processes\n"
        assert [c["Id"] for c in client.containers()] == [cid]
        with pytest.raises(docker.errors.APIError) as running:
            client.remove_container(cid)
        assert running.value.response.status_code == 409
        client.stop(cid)
        client.remove_container(cid)
        with pytest.raises(docker.errors.NotFound, match=f"No such container: {cid}"):
            client.inspect_container(cid)
        assert server.unserved() == [] and server.bugs() == []
    assert cloud.leaks() == []


def test_the_local_socket_is_served_when_no_endpoint_is_given() -> None:
    with serve_docker(FakeCloud(seed=4)):
        client = docker.APIClient()
        client.pull("busybox")
        cid = client.create_container("busybox", command=["echo", "local"])["Id"]
        client.start(cid)
        assert client.logs(cid) == b"local\n"


def test_dockers_errors_reach_the_client_as_its_own_exceptions() -> None:
    cloud = FakeCloud(seed=4)
    with serve_docker(cloud):
        client = docker.APIClient("tcp://docker.fake:2375")
        with pytest.raises(docker.errors.ImageNotFound, match="No such image: redis:latest"):
            client.create_container("redis")
        client.pull("redis")
        add_docker_service(cloud)
        cloud.set_faults(
            [
                {
                    "service": "containers",
                    "operation": "containers.create",
                    "effect": {
                        "type": "error",
                        "status": 500,
                        "message": "no space left on device",
                    },
                }
            ]
        )
        with pytest.raises(docker.errors.APIError, match="no space left on device") as failed:
            client.create_container("redis")
        assert failed.value.response.status_code == 500
