"""The fake BIG-IP's iControl REST API, spoken to with plain ``requests`` (no f5-sdk needed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests
import responses
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_clouds import FakeCloud
from fake_clouds.bigip import DEFAULT_DEVICE, add_bigip_service, serve_bigip
from fake_clouds.bigip.api import IControlREST

HOST = DEFAULT_DEVICE["address"]
BASE = f"https://{HOST}:443/mgmt/tm"
ADMIN = ("admin", "admin")


def _call(method: str, path: str, *, auth=ADMIN, base: str = BASE, **kwargs) -> requests.Response:
    return requests.request(method, base + path, auth=auth, timeout=30, verify=False, **kwargs)


def _create(name: str, sub_path: str = "/") -> requests.Response:
    return _call("POST", "/sys/folder/", json={"name": name, "subPath": sub_path})


def _folders(cloud: FakeCloud) -> list[str]:
    return sorted(i.name for i in cloud.inventory() if (i.service, i.kind) == ("bigip", "folder"))


def test_the_probe_reports_the_tmos_version_in_its_link() -> None:
    with serve_bigip(FakeCloud(seed=1)):
        reply = _call("GET", "/sys/")
        assert reply.status_code == 200
        assert reply.headers["Content-Type"].startswith("application/json")
        body = reply.json()
        assert body["kind"] == "tm:sys:syscollectionstate"
        assert body["selfLink"] == "https://localhost/mgmt/tm/sys?ver=13.1.1"


def test_wrong_or_missing_credentials_are_bigips_401() -> None:
    with serve_bigip(FakeCloud(seed=1)):
        for auth in (("admin", "nope"), ("root", "admin"), None):
            reply = _call("GET", "/sys/", auth=auth)
            assert reply.status_code == 401
            assert reply.json() == {
                "code": 401,
                "message": "Authentication failed.",
                "errorStack": [],
                "apiError": 3,
            }


def test_a_host_that_is_no_device_refuses_the_connection() -> None:
    with serve_bigip(FakeCloud(seed=1)):
        with pytest.raises(requests.exceptions.ConnectionError, match="no BIG-IP at 10.9.9.9:443"):
            _call("GET", "/sys/", base="https://10.9.9.9/mgmt/tm")
        with pytest.raises(requests.exceptions.ConnectionError, match=f"{HOST}:8443"):
            _call("GET", "/sys/", base=f"https://{HOST}:8443/mgmt/tm")


def test_a_folder_lives_from_post_to_delete_with_bigips_answers() -> None:
    cloud = FakeCloud(seed=1)
    with serve_bigip(cloud):
        created = _create("tenant")
        assert created.status_code == 200
        body = created.json()
        assert (body["kind"], body["name"], body["fullPath"], body["subPath"]) == (
            "tm:sys:folder:folderstate",
            "tenant",
            "/tenant",
            "/",
        )
        assert body["selfLink"] == "https://localhost/mgmt/tm/sys/folder/~tenant?ver=13.1.1"
        assert _call("GET", "/sys/folder/~tenant").json()["fullPath"] == "/tenant"
        assert _folders(cloud) == ["/", "/Common", "/tenant"]
        again = _create("tenant")
        assert again.status_code == 409
        assert (
            again.json()["message"] == "01020066:3: The requested folder (/tenant) already exists."
        )
        deleted = _call("DELETE", "/sys/folder/~tenant")
        assert (deleted.status_code, deleted.text) == (200, "")
        missing = _call("GET", "/sys/folder/~tenant")
        assert missing.status_code == 404
        assert (
            missing.json()["message"] == "01020036:3: The requested folder (/tenant) was not found."
        )
        assert _call("DELETE", "/sys/folder/~tenant").status_code == 404
    assert _folders(cloud) == ["/", "/Common"]
    assert cloud.leaks() == []


def test_nested_folders_and_the_folders_nothing_deletes() -> None:
    cloud = FakeCloud(seed=1)
    with serve_bigip(cloud):
        assert _create("t").ok and _create("app", "/t").ok
        assert _call("GET", "/sys/folder/~t~app").json()["subPath"] == "/t"
        assert _create("x", "/nowhere").status_code == 404
        busy = _call("DELETE", "/sys/folder/~t")
        assert busy.status_code == 400 and "contains /t/app" in busy.json()["message"]
        for ref, path in (("~Common", "/Common"), ("~", "/")):
            refused = _call("DELETE", f"/sys/folder/{ref}")
            assert refused.status_code == 400
            assert f"({path}) is a system folder" in refused.json()["message"]
        listed = _call("GET", "/sys/folder").json()
        assert listed["kind"] == "tm:sys:folder:foldercollectionstate"
        assert [f["fullPath"] for f in listed["items"]] == ["/", "/Common", "/t", "/t/app"]
        assert _create("bad name").status_code == 400
        assert _call("POST", "/sys/folder", data=b"{not json").status_code == 400
    assert sorted(i.name for i in cloud.leaks()) == ["/t", "/t/app"]


def test_seeded_faults_fail_requests_with_bigips_body() -> None:
    cloud = FakeCloud(seed=1)
    add_bigip_service(cloud)
    cloud.set_faults(
        [
            {
                "service": "bigip",
                "operation": "folders.create",
                "effect": {"type": "error", "status": 500, "message": "mcpd is restarting"},
            }
        ]
    )
    with serve_bigip(cloud):
        failed = _create("tenant")
        assert failed.status_code == 500
        assert failed.json() == {
            "code": 500,
            "message": "mcpd is restarting",
            "errorStack": [],
            "apiError": 3,
        }
    assert _folders(cloud) == ["/", "/Common"]
    assert [f.operation for f in cloud.injected_faults()] == ["folders.create"]


def test_a_timeout_fault_is_a_requests_timeout() -> None:
    cloud = FakeCloud(seed=1)
    add_bigip_service(cloud)
    cloud.set_faults([{"service": "bigip", "operation": "sys.get", "effect": {"type": "timeout"}}])
    with serve_bigip(cloud), pytest.raises(requests.exceptions.ConnectTimeout):
        _call("GET", "/sys/")


def test_latency_is_virtual_and_the_same_seed_gives_the_same_run() -> None:
    def run() -> tuple[float, list]:
        cloud = FakeCloud(seed=9)
        with serve_bigip(cloud):
            _call("GET", "/sys/")
            _create("tenant")
            _call("DELETE", "/sys/folder/~tenant")
        return cloud.now(), [(t.operation, t.entity_id) for t in cloud.trace()]

    first = run()
    assert first == run()
    assert first[0] > 0  # every call charged latency to the virtual clock
    assert [op for op, _ in first[1]] == ["sys.get", "folders.create", "folders.delete"]


def test_devices_of_their_own_answer_at_their_address_and_port() -> None:
    cloud = FakeCloud(seed=1)
    add_bigip_service(cloud).add_device("10.0.0.5", "ops", "s3cret", version="15.1.0", port=8443)
    with serve_bigip(cloud):
        base = "https://10.0.0.5:8443/mgmt/tm"
        assert (
            _call("GET", "/sys/", base=base, auth=("ops", "s3cret"))
            .json()["selfLink"]
            .endswith("?ver=15.1.0")
        )
        assert _call("GET", "/sys/", base=base).status_code == 401  # admin/admin is not its user
        assert _create("only-here").ok
        assert (
            _call("GET", "/sys/folder/~only-here", base=base, auth=("ops", "s3cret")).status_code
            == 404
        )


def test_an_endpoint_the_fake_does_not_serve_is_reported() -> None:
    with serve_bigip(FakeCloud(seed=1)) as server:
        reply = _call("GET", "/ltm/pool")
        assert reply.status_code == 404
        assert "does not serve GET /mgmt/tm/ltm/pool" in reply.json()["message"]
        assert [(u.method, u.url) for u in server.unserved()] == [("GET", f"{BASE}/ltm/pool")]


def test_other_traffic_passes_to_an_enclosing_mock() -> None:
    with responses.RequestsMock() as outer:
        outer.add(responses.GET, "https://example.test/x", json={"outer": True})
        with serve_bigip(FakeCloud(seed=1)):
            assert requests.get("https://example.test/x", timeout=5).json() == {"outer": True}
            assert _call("GET", "/sys/").ok
        with pytest.raises(requests.exceptions.ConnectionError):
            _call("GET", "/sys/")  # no longer served


def test_a_world_holding_folders_is_restored_with_them() -> None:
    cloud = FakeCloud(seed=1)
    with serve_bigip(cloud):
        assert _create("kept").ok
    again = FakeCloud.from_state(cloud.to_state())
    with serve_bigip(again):
        assert _call("GET", "/sys/folder/~kept").json()["fullPath"] == "/kept"
        assert _create("kept").status_code == 409
    assert [i.name for i in again.leaks()] == ["/kept"]


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["POST", "DELETE"]), st.sampled_from("abc")), max_size=12)
)
def test_any_sequence_of_creates_and_deletes_matches_a_set_of_folders(
    actions: list[tuple[str, str]],
) -> None:
    cloud = FakeCloud(seed=2)
    add_bigip_service(cloud)
    model: set[str] = set()
    with serve_bigip(cloud):
        for method, name in actions:
            if method == "POST":
                expected = 409 if name in model else 200
                assert _create(name).status_code == expected
                model.add(name)
            else:
                expected = 200 if name in model else 404
                assert _call("DELETE", f"/sys/folder/~{name}").status_code == expected
                model.discard(name)
    assert _folders(cloud) == sorted(["/", "/Common", *(f"/{n}" for n in model)])


def test_the_docs_page_lists_every_bigip_route() -> None:
    page = (Path(__file__).parents[2] / "docs" / "fake-clouds-rest.rst").read_text()
    body = page.split("\nF5 BIG-IP iControl REST\n-----------------------\n", 1)[1]
    section = re.split(r"\n[^\n]+\n-{3,}\n", body, maxsplit=1)[0]
    for r in IControlREST.routes():
        assert f"{r.method:<6}  {r.template} " in section, (r.method, r.template)
