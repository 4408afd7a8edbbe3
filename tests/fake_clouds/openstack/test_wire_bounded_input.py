"""Bounded input on the wire: oversized, malformed and ambiguous bodies get a clear 4xx, fast.

Each case runs against a real ``plugsim serve`` on 127.0.0.1 and checks the
answer, the wall time to get it (under 2 s) and the server's peak resident
memory (``VmHWM`` in ``/proc``: the high-water mark, so nothing is missed
between samples) staying under 200 MB.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

requests = pytest.importorskip("requests")

MB = 1024 * 1024
PEAK_LIMIT = 200 * MB


def _argv(*args: str) -> list[str]:
    code = "import sys; from simulator.cli import main; sys.exit(main())"
    return [sys.executable, "-c", code, *args]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A served world: ``(process, base URL, token, project id, world file)``.

    Object bodies above 400 MB are refused (``--max-body``); the rest keep their defaults.
    """
    tmp = tmp_path_factory.mktemp("bounded")
    proc = subprocess.Popen(
        _argv(
            "serve",
            "--port",
            "0",
            "--state",
            str(tmp / "w.db"),
            "--seed",
            "5",
            "--max-body",
            "object-store=400000000",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    line = proc.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("auth URL: "), line + proc.stderr.read()  # type: ignore[union-attr]
    base = line.split(": ", 1)[1].strip().rsplit("/identity", 1)[0]
    user = {"name": "admin", "domain": {"id": "default"}, "password": "plugsim"}
    body = {
        "auth": {
            "identity": {"methods": ["password"], "password": {"user": user}},
            "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
        }
    }
    answer = requests.post(f"{base}/identity/v3/auth/tokens", json=body, timeout=60)
    token = answer.headers["X-Subject-Token"]
    project = answer.json()["token"]["project"]["id"]
    requests.put(
        f"{base}/object-store/v1/AUTH_{project}/big", headers={"X-Auth-Token": token}, timeout=60
    ).raise_for_status()
    yield proc, base, token, project, tmp / "w.db"
    proc.send_signal(signal.SIGTERM)
    try:
        proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


def _peak(proc: subprocess.Popen[str]) -> int:
    """The server's peak resident set size in bytes."""
    for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc")


def _raw(base: str, head: str, body_parts=(), *, read_first: bool = False) -> tuple[int, str]:
    """Send a request by hand; return the status and body of the answer.

    With *read_first* the answer is read before any of the body is sent (a
    server that refuses from the headers alone answers at once).
    """
    host, port = base.split("//", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n")
        if not read_first:
            try:
                for part in body_parts:
                    sock.sendall(part)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server answered and closed before the whole body went
        data = b""
        try:  # read the whole answer (the server may keep reading what the client sent)
            while not _complete(data) and (chunk := sock.recv(65536)):
                data += chunk
        except ConnectionResetError:
            pass
    status_line, _, rest = data.decode("latin1").partition("\r\n")
    return int(status_line.split()[1]), rest.partition("\r\n\r\n")[2]


def _complete(data: bytes) -> bool:
    """True once *data* holds an answer's headers and its ``Content-Length`` of body."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


class _Body:
    """A request body of *size* bytes made on the fly (never whole in the test's memory)."""

    def __init__(self, head: bytes, size: int, tail: bytes = b"") -> None:
        self.head, self.tail = head, tail
        self.fill = size - len(head) - len(tail)
        self.sent = 0
        self.md5 = hashlib.md5(usedforsecurity=False)

    def __len__(self) -> int:
        return len(self.head) + self.fill + len(self.tail)

    def __iter__(self):
        yield self.head
        self.md5.update(self.head)
        block = b"a" * MB
        left = self.fill
        while left > 0:
            part = block[: min(MB, left)]
            self.md5.update(part)
            left -= len(part)
            yield part
        self.md5.update(self.tail)
        yield self.tail


def test_a_150_mb_network_name_is_413_from_the_content_length(served):
    proc, base, token, _, _ = served
    head = (
        "POST /network/v2.0/networks HTTP/1.1\nHost: x\nContent-Type: application/json\n"
        f"X-Auth-Token: {token}\nContent-Length: {150 * MB}\n"
    )
    start = time.monotonic()
    status, body = _raw(base, head, read_first=True)
    assert time.monotonic() - start < 2.0
    assert status == 413
    message = json.loads(body)["NeutronError"]["message"]
    assert "114688 bytes" in message and "--max-body network=" in message
    assert _peak(proc) < PEAK_LIMIT


def test_a_client_sending_the_whole_oversized_body_still_reads_the_413(served):
    proc, base, token, _, _ = served
    name = _Body(b'{"network": {"name": "', 150 * MB, b'"}}')
    answer = requests.post(
        f"{base}/network/v2.0/networks",
        data=name,  # sized: sent with its Content-Length, in 1 MB pieces
        headers={"X-Auth-Token": token, "Content-Type": "application/json"},
        timeout=60,
    )
    assert answer.status_code == 413
    assert _peak(proc) < PEAK_LIMIT


def test_a_chunked_body_past_the_limit_is_413(served):
    proc, base, token, _, _ = served
    head = (
        "POST /network/v2.0/networks HTTP/1.1\nHost: x\nContent-Type: application/json\n"
        f"X-Auth-Token: {token}\nTransfer-Encoding: chunked\n"
    )
    chunk = b"a" * 65536
    parts = [b'16\r\n{"network": {"name": "\r\n'] + [
        b"%x\r\n" % len(chunk) + chunk + b"\r\n" for _ in range(4)
    ]
    parts.append(b'3\r\n"}}\r\n0\r\n\r\n')
    start = time.monotonic()
    status, body = _raw(base, head, parts)
    assert time.monotonic() - start < 2.0
    assert status == 413
    assert "114688 bytes" in json.loads(body)["NeutronError"]["message"]


def test_content_length_with_chunked_is_400(served):
    _, base, token, _, _ = served
    payload = b'{"network": {"name": "both"}}'
    head = (
        "POST /network/v2.0/networks HTTP/1.1\nHost: x\nContent-Type: application/json\n"
        f"X-Auth-Token: {token}\nContent-Length: {len(payload)}\nTransfer-Encoding: chunked\n"
    )
    start = time.monotonic()
    status, body = _raw(base, head, [b"%x\r\n" % len(payload) + payload + b"\r\n0\r\n\r\n"])
    assert time.monotonic() - start < 2.0
    assert status == 400
    assert "Content-Length and Transfer-Encoding" in json.loads(body)["NeutronError"]["message"]


def test_json_nested_1000_deep_is_400(served):
    proc, base, token, _, _ = served
    deep = '{"network": {"name": "deep", "x": ' + "[" * 1000 + "]" * 1000 + "}}"
    start = time.monotonic()
    answer = requests.post(
        f"{base}/network/v2.0/networks",
        data=deep,
        headers={"X-Auth-Token": token, "Content-Type": "application/json"},
        timeout=60,
    )
    assert time.monotonic() - start < 2.0
    assert answer.status_code == 400
    assert "nested more than 100 levels" in answer.json()["NeutronError"]["message"]
    again = deep.replace("[" * 1000, "[" * 150).replace("]" * 1000, "]" * 150)
    answer = requests.post(
        f"{base}/network/v2.0/networks",
        data=again,
        headers={"X-Auth-Token": token, "Content-Type": "application/json"},
        timeout=60,
    )
    assert answer.status_code == 400  # deep enough to refuse, not deep enough to crash the parser
    assert _peak(proc) < PEAK_LIMIT


def test_a_network_name_longer_than_neutrons_255_is_400(served):
    _, base, token, _, _ = served
    for size, status in ((255, 201), (256, 400)):
        start = time.monotonic()
        answer = requests.post(
            f"{base}/network/v2.0/networks",
            json={"network": {"name": "n" * size}},
            headers={"X-Auth-Token": token},
            timeout=60,
        )
        assert time.monotonic() - start < 2.0
        assert answer.status_code == status, answer.text
    assert "exceeds maximum length of 255" in answer.json()["NeutronError"]["message"]


def test_an_object_above_the_limit_is_413_at_once(served):
    proc, base, token, project, _ = served
    head = (
        f"PUT /object-store/v1/AUTH_{project}/big/huge HTTP/1.1\nHost: x\n"
        f"X-Auth-Token: {token}\nContent-Length: {500 * MB}\n"
    )
    start = time.monotonic()
    status, body = _raw(base, head, read_first=True)
    assert time.monotonic() - start < 2.0
    assert status == 413
    assert body.startswith("Request Entity Too Large: ")
    assert "400000000 bytes" in body


@pytest.mark.material
def test_a_300_mb_object_streams_to_disk_and_back(served):
    proc, base, token, project, world = served
    url = f"{base}/object-store/v1/AUTH_{project}/big/o300"
    data = _Body(b"start", 300 * MB, b"end")
    answer = requests.put(
        url,
        data=data,
        headers={"X-Auth-Token": token},
        timeout=120,
    )
    assert answer.status_code == 201, answer.text
    assert answer.headers["ETag"] == data.md5.hexdigest()
    assert _peak(proc) < PEAK_LIMIT
    md5 = hashlib.md5(usedforsecurity=False)
    size = 0
    with requests.get(url, headers={"X-Auth-Token": token}, stream=True, timeout=120) as got:
        assert got.status_code == 200
        assert int(got.headers["Content-Length"]) == 300 * MB
        for part in got.iter_content(MB):
            md5.update(part)
            size += len(part)
    assert (size, md5.hexdigest()) == (300 * MB, data.md5.hexdigest())
    assert _peak(proc) < PEAK_LIMIT
    kept = [p for p in (world.parent / "w.db-blobs").iterdir() if p.stat().st_size == 300 * MB]
    assert len(kept) == 1  # beside the world file, named by its content


@pytest.mark.parametrize(
    ("value", "said"),
    [("network", "SERVICE=BYTES"), ("network=-5", "SERVICE=BYTES"), ("nova=100", "nova")],
)
def test_a_bad_max_body_option_is_one_usage_line(tmp_path, value, said):
    done = subprocess.run(
        _argv("serve", "--state", str(tmp_path / "w.db"), "--max-body", value),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "--max-body" in done.stderr and said in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "w.db").exists()  # refused before the world was opened
