"""``plugsim serve``'s group commit: a changing request is answered only after its commit."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from werkzeug.test import Client

from fake_clouds.openstack.app import WireApp
from simulator.cli.serve_commit import GroupCommit
from simulator.world import World

pytest.importorskip("keystoneauth1")

USER = {"name": "admin", "domain": {"id": "default"}, "password": "plugsim"}
AUTH = {
    "auth": {
        "identity": {"methods": ["password"], "password": {"user": USER}},
        "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
    }
}


class _GatedLock:
    """The world lock as the committer takes it: only once *gate* is open (a commit held back)."""

    def __init__(self, lock, gate: threading.Event) -> None:
        self.lock, self.gate = lock, gate

    def __enter__(self):
        self.gate.wait(60)
        return self.lock.__enter__()

    def __exit__(self, *exc):
        return self.lock.__exit__(*exc)


def _served(world: World, commit, gate: threading.Event | None = None):
    lock = threading.RLock()
    commits = GroupCommit(commit, lock if gate is None else _GatedLock(lock, gate))
    commits.app = WireApp(world.cloud, "http://x", lock=lock, after_request=commits.note)
    return commits, Client(commits)


def _token(client: Client) -> str:
    return client.post("/identity/v3/auth/tokens", json=AUTH).headers["X-Subject-Token"]


def _stored_network_names(path) -> set[str]:
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT doc FROM cloud_entities WHERE service='network' AND kind='network'"
        ).fetchall()
    import json

    return {json.loads(doc)["name"] for (doc,) in rows}


def test_a_write_is_answered_after_its_commit_and_a_read_does_not_wait(tmp_path):
    world = World.open(tmp_path / "w.db", seed=3)
    gate = threading.Event()  # while closed, no commit can start
    committed: list[float] = []

    def commit() -> None:
        world.commit()
        committed.append(time.monotonic())

    commits, client = _served(world, commit, gate)
    try:
        gate.set()
        token = _token(client)  # a POST: it waited for a commit
        assert committed
        gate.clear()
        answers: dict[str, tuple[int, float]] = {}

        def write() -> None:
            answer = client.post(
                "/network/v2.0/networks",
                json={"network": {"name": "durable"}},
                headers={"X-Auth-Token": token},
            )
            answers["write"] = (answer.status_code, time.monotonic())

        writer = threading.Thread(target=write)
        writer.start()
        time.sleep(0.3)
        assert "write" not in answers  # held back: its commit has not run
        read = client.get("/network/v2.0/networks", headers={"X-Auth-Token": token})
        assert read.status_code == 200  # the read did not wait for the stuck commit
        assert "durable" in {n["name"] for n in read.json["networks"]}
        released = time.monotonic()
        gate.set()
        writer.join(30)
        status, when = answers["write"]
        assert status == 201
        assert when >= released
        assert "durable" in _stored_network_names(tmp_path / "w.db")
    finally:
        gate.set()
        commits.close()
        world.close()


def test_concurrent_writes_share_commits(tmp_path):
    world = World.open(tmp_path / "w.db", seed=3)
    commits, client = _served(world, world.commit)
    try:
        token = _token(client)
        before = commits.commits

        def write(n: int) -> None:
            for i in range(5):
                answer = client.post(
                    "/network/v2.0/networks",
                    json={"network": {"name": f"c{n}-{i}"}},
                    headers={"X-Auth-Token": token},
                )
                assert answer.status_code == 201

        threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        names = _stored_network_names(tmp_path / "w.db")
        assert {f"c{n}-{i}" for n in range(8) for i in range(5)} <= names
        assert commits.commits - before <= 40  # never more commits than writes
    finally:
        commits.close()
        world.close()


def test_a_failed_commit_answers_503_and_leaves_the_file_at_the_last_commit(tmp_path):
    world = World.open(tmp_path / "w.db", seed=3)
    commits, client = _served(world, world.commit)
    real_commit = world.store.commit
    failures = []

    def failing_commit() -> bool:
        if failures:
            failures.pop()
            world.store.rollback()  # what a failing COMMIT statement leaves: nothing
            raise sqlite3.OperationalError("database or disk is full")
        return real_commit()

    try:
        token = _token(client)
        world.store.commit = failing_commit
        failures.append(True)
        answer = client.post(
            "/network/v2.0/networks",
            json={"network": {"name": "unlucky"}},
            headers={"X-Auth-Token": token},
        )
        assert answer.status_code == 503
        message = answer.json["error"]["message"]
        assert "could not be saved" in message and "disk is full" in message
        assert "unlucky" not in _stored_network_names(tmp_path / "w.db")
        answer = client.post(
            "/network/v2.0/networks",
            json={"network": {"name": "lucky"}},
            headers={"X-Auth-Token": token},
        )
        assert answer.status_code == 201
        stored = _stored_network_names(tmp_path / "w.db")
        assert "lucky" in stored
        assert "unlucky" in stored  # still in the running world: the next commit wrote it
    finally:
        commits.close()
        world.close()


def test_a_timed_out_write_that_was_applied_is_committed_before_its_504(tmp_path):
    rule = {
        "name": "late",
        "service": "network",
        "operation": "networks.create",
        "effect": {"type": "timeout", "after": 5, "applied": True},
    }
    world = World.open(tmp_path / "w.db", seed=3, faults=[rule])
    commits, client = _served(world, world.commit)
    try:
        token = _token(client)
        answer = client.post(
            "/network/v2.0/networks",
            json={"network": {"name": "applied-anyway"}},
            headers={"X-Auth-Token": token},
        )
        assert answer.status_code == 504
        assert answer.headers["X-Plugsim-Timeout"] == "read"
        # the client cannot tell, but the world file already agrees with the running world
        assert "applied-anyway" in _stored_network_names(tmp_path / "w.db")
    finally:
        commits.close()
        world.close()
