"""The fake Docker Engine API, spoken to with plain ``requests`` (no docker library needed)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
import requests
import responses
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_clouds import FakeCloud
from fake_clouds.docker import add_docker_service, serve_docker
from fake_clouds.docker.api import DockerEngine

BASE = "http://docker.fake:2375"
V = BASE + "/v1.45"


def _call(method: str, path: str, **kwargs) -> requests.Response:
    return requests.request(method, V + path, timeout=60, **kwargs)


def _pulled(image: str = "nginx") -> None:
    assert _call("POST", "/images/create", params={"fromImage": image, "tag": "latest"}).ok


def _create(name: str | None = None, image: str = "nginx", **config) -> str:
    reply = _call("POST", "/containers/create", params={"name": name} if name else {},
                  json={"Image": image, **config})  # fmt: skip
    assert reply.status_code == 201, reply.text
    return reply.json()["Id"]


def _state(cid: str) -> dict:
    return _call("GET", f"/containers/{cid}/json").json()["State"]


def test_version_and_ping_answer_without_a_version_prefix() -> None:
    with serve_docker(FakeCloud(seed=1)):
        assert requests.get(BASE + "/_ping", timeout=5).text == "OK"
        version = requests.get(BASE + "/version", timeout=5).json()
        assert version["ApiVersion"] == "1.45" and version["MinAPIVersion"] == "1.24"
        too_new = requests.get(BASE + "/v1.99/containers/json", timeout=5)
        assert too_new.status_code == 400
        assert "client version 1.99 is too new" in too_new.json()["message"]


def test_a_container_runs_through_its_lifecycle_with_dockers_answers() -> None:
    cloud = FakeCloud(seed=1)
    with serve_docker(cloud):
        _pulled()
        cid = _create("web", ExposedPorts={"80/tcp": {}})
        assert len(cid) == 64
        assert _state(cid)["Status"] == "created" and not _state(cid)["Running"]
        assert _call("POST", f"/containers/{cid}/start").status_code == 204
        assert _call("POST", f"/containers/{cid}/start").status_code == 304
        info = _call("GET", "/containers/web/json").json()  # by name too
        assert info["Id"] == cid and info["Name"] == "/web"
        assert info["State"]["Running"] and info["State"]["Status"] == "running"
        assert info["NetworkSettings"]["IPAddress"].startswith("172.17.")
        assert info["NetworkSettings"]["Ports"] == {"80/tcp": None}
        assert _call("POST", f"/containers/{cid[:12]}/pause").status_code == 204  # short id
        assert _state(cid)["Paused"] and _state(cid)["Running"]
        assert _call("POST", f"/containers/{cid}/unpause").status_code == 204
        assert _call("POST", f"/containers/{cid}/stop").status_code == 204
        assert _state(cid) | {"StartedAt": "", "FinishedAt": ""} == _state(cid) | {
            "StartedAt": "",
            "FinishedAt": "",
            "Status": "exited",
            "Running": False,
            "ExitCode": 0,
        }
        assert _call("POST", f"/containers/{cid}/stop").status_code == 304
        assert _call("DELETE", f"/containers/{cid}").status_code == 204
        gone = _call("GET", f"/containers/{cid}/json")
        assert gone.status_code == 404
        assert gone.json() == {"message": f"No such container: {cid}"}
    assert cloud.leaks() == []


def test_dockers_errors_404_409_and_400() -> None:
    with serve_docker(FakeCloud(seed=1)):
        missing = _call("POST", "/containers/create", json={"Image": "nginx"})
        assert (missing.status_code, missing.json()) == (
            404,
            {"message": "No such image: nginx:latest"},
        )
        denied = _call("POST", "/images/create", params={"fromImage": "nosuch/image"})
        assert denied.status_code == 404 and "pull access denied for nosuch/image" in denied.text
        _pulled()
        cid = _create("db")
        taken = _call("POST", "/containers/create", params={"name": "db"}, json={"Image": "nginx"})
        assert taken.status_code == 409
        assert (
            f'The container name "/db" is already in use by container "{cid}"'
            in taken.json()["message"]
        )
        bad = _call("POST", "/containers/create", params={"name": "-x"}, json={"Image": "nginx"})
        assert bad.status_code == 400 and "Invalid container name (-x)" in bad.text
        not_running = _call("POST", f"/containers/{cid}/kill")
        assert not_running.status_code == 409 and "is not running" in not_running.text
        assert _call("POST", f"/containers/{cid}/unpause").status_code == 409
        _call("POST", f"/containers/{cid}/start")
        running = _call("DELETE", f"/containers/{cid}")
        assert (
            running.status_code == 409
            and "stop the container before removing" in running.json()["message"]
        )
        assert _call("DELETE", f"/containers/{cid}", params={"force": "1"}).status_code == 204
        assert _call("POST", "/containers/nothing/start").status_code == 404


def test_a_process_ends_by_itself_in_virtual_time() -> None:
    cloud = FakeCloud(seed=1)
    with serve_docker(cloud):
        _pulled("busybox")
        cid = _create(image="busybox", Cmd=["sleep", "30"])
        _call("POST", f"/containers/{cid}/start")
        assert _state(cid)["Running"]
        cloud.clock.advance(31)
        state = _state(cid)
        assert (state["Status"], state["Running"], state["ExitCode"]) == ("exited", False, 0)
        failing = _create(image="busybox", Cmd=["false"])
        _call("POST", f"/containers/{failing}/start")
        cloud.clock.advance(1)
        assert _state(failing)["ExitCode"] == 1
        assert "Created" in _call("GET", f"/containers/{cid}/json").json()


def test_logs_come_as_dockers_multiplexed_stream_or_raw_with_a_tty() -> None:
    with serve_docker(FakeCloud(seed=1)):
        _pulled("busybox")
        cid = _create(image="busybox", Cmd=["echo", "hello", "world"])
        _call("POST", f"/containers/{cid}/start")
        body = _call("GET", f"/containers/{cid}/logs", params={"stdout": 1}).content
        assert body == struct.pack(">BxxxL", 1, 12) + b"hello world\n"
        tty = _create(image="busybox", Cmd=["echo", "hi"], Tty=True)
        _call("POST", f"/containers/{tty}/start")
        assert _call("GET", f"/containers/{tty}/logs", params={"stdout": 1}).content == b"hi\n"


def test_a_container_left_behind_is_a_leak() -> None:
    cloud = FakeCloud(seed=1)
    mark = cloud.snapshot_inventory()
    with serve_docker(cloud):
        _pulled()
        cid = _create("forgotten")
    leaks = cloud.leaks(mark)
    assert [(i.service, i.kind, i.id, i.name) for i in leaks] == [
        ("containers", "container", cid, "forgotten")
    ]


def test_seeded_faults_fail_requests_with_dockers_body() -> None:
    cloud = FakeCloud(seed=1)
    add_docker_service(cloud)
    cloud.set_faults(
        [
            {
                "service": "containers",
                "operation": "containers.start",
                "effect": {"type": "error", "status": 500, "message": "cgroup busy"},
            }
        ]
    )
    with serve_docker(cloud):
        _pulled()
        cid = _create()
        failed = _call("POST", f"/containers/{cid}/start")
        assert (failed.status_code, failed.json()["message"]) == (500, "cgroup busy")
        assert _state(cid)["Status"] == "created"
    assert [f.operation for f in cloud.injected_faults()] == ["containers.start"]


def test_a_timeout_fault_is_a_requests_timeout() -> None:
    cloud = FakeCloud(seed=1)
    add_docker_service(cloud)
    cloud.set_faults(
        [{"service": "containers", "operation": "images.pull", "effect": {"type": "timeout"}}]
    )
    with serve_docker(cloud), pytest.raises(requests.exceptions.ConnectTimeout):
        _pulled()


def test_latency_is_virtual_and_the_same_seed_gives_the_same_run() -> None:
    def run() -> tuple[str, float, list]:
        cloud = FakeCloud(seed=9)
        with serve_docker(cloud):
            _pulled()
            cid = _create()
            _call("POST", f"/containers/{cid}/start")
        return cid, cloud.now(), [(t.operation, t.entity_id) for t in cloud.trace()]

    first = run()
    assert first == run()
    assert first[1] > 0  # every call charged latency to the virtual clock
    assert [op for op, _ in first[2]] == ["images.pull", "containers.create", "containers.start"]


def test_other_traffic_passes_to_an_enclosing_mock() -> None:
    with responses.RequestsMock() as outer:
        outer.add(responses.GET, "https://example.test/x", json={"outer": True})
        with serve_docker(FakeCloud(seed=1)):
            assert requests.get("https://example.test/x", timeout=5).json() == {"outer": True}
            assert requests.get(BASE + "/_ping", timeout=5).text == "OK"
        with pytest.raises(requests.exceptions.ConnectionError):
            requests.get(BASE + "/_ping", timeout=5)  # no longer served


def test_a_world_holding_containers_is_restored_with_them() -> None:
    cloud = FakeCloud(seed=1)
    with serve_docker(cloud):
        _pulled()
        cid = _create("kept")
    again = FakeCloud.from_state(cloud.to_state())
    with serve_docker(again):
        assert _call("GET", f"/containers/{cid}/json").json()["Name"] == "/kept"
        assert _call("POST", f"/containers/{cid}/start").status_code == 204  # image still pulled


#: What each action answers from each status (None: not allowed from there), per Docker.
MODEL = {
    "start": {"created": ("running", 204), "running": ("running", 304), "exited": ("running", 204),
              "paused": ("paused", 409)},
    "stop": {"created": ("created", 304), "running": ("exited", 204), "exited": ("exited", 304),
             "paused": ("exited", 204)},
    "kill": {"created": ("created", 409), "running": ("exited", 204), "exited": ("exited", 409),
             "paused": ("exited", 204)},
    "pause": {"created": ("created", 409), "running": ("paused", 204), "exited": ("exited", 409),
              "paused": ("paused", 409)},
    "unpause": {"created": ("created", 409), "running": ("running", 409),
                "exited": ("exited", 409), "paused": ("running", 204)},
}  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(sorted(MODEL)), max_size=12))
def test_any_sequence_of_actions_follows_dockers_state_machine(actions: list[str]) -> None:
    with serve_docker(FakeCloud(seed=2)):
        _pulled()
        cid = _create()
        status = "created"
        for action in actions:
            status, code = MODEL[action][status]
            assert _call("POST", f"/containers/{cid}/{action}").status_code == code, action
            assert _state(cid)["Status"] == status
        removal = _call("DELETE", f"/containers/{cid}")
        assert removal.status_code == (409 if status in ("running", "paused") else 204)


def test_the_docs_page_lists_every_docker_route() -> None:
    page = (Path(__file__).parents[2] / "docs" / "fake-clouds-rest.rst").read_text()
    body = page.split("\nDocker Engine\n-------------\n", 1)[1]
    section = re.split(r"\n[^\n]+\n-{3,}\n", body, maxsplit=1)[0]
    assert DockerEngine.default_base_url in section
    for r in DockerEngine.routes():
        assert f"{r.method:<6}  {r.template} " in section, (r.method, r.template)


def test_running_containers_get_distinct_names_and_bridge_addresses() -> None:
    svc = add_docker_service(FakeCloud(seed=3))
    svc.pull("nginx")
    addresses, names = [], []
    for _ in range(300):  # more than the generated adjective_noun pairs
        cid = svc.create({"Image": "nginx"})["Id"]
        svc.start(cid)
        addresses.append(svc.get(cid)["ip"])
        names.append(svc.get(cid)["name"])
    assert len(set(addresses)) == 300 and len(set(names)) == 300
    assert all(
        a.startswith("172.17.") and a.rsplit(".", 1)[1] not in ("0", "255") for a in addresses
    )
