"""Load ``plugsim serve`` with concurrent clients and print requests per second (a benchmark).

Usage: ``python tools/serve_load.py [--clients 8] [--requests 500] [--json]``.
Starts ``plugsim serve`` on a free port with a fresh world in a temporary
directory, authenticates once, then runs the clients in threads, each over its
own HTTP connection. A client repeats a cycle until it has sent its requests:
create a network, show it, find it by name, list the flavors, delete the
network (every 20th cycle keeps it). Afterwards it checks what a load test
must: no 5xx answer, every kept network listed and no deleted one, and the
same networks in the world file once the server stopped on SIGTERM. It prints
the wall seconds, requests per second and latency percentiles; the exit status
is 1 only when a check fails, never because of speed.

``--workload stacks`` loads the Orchestration API instead: each client
creates small stacks, polls them to ``CREATE_COMPLETE``, lists their events
and deletes them (``tools/serve_load_stacks.py``); it adds stacks per second
and the median wall time from create to complete.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import requests
from serve_load_stacks import check_world_stacks, load_stacks


def main(argv: list[str]) -> int:
    """Serve, load, check, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=500, help="requests per client")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--workload", choices=("networks", "stacks"), default="networks")
    parser.add_argument(
        "--checkout",
        metavar="DIR",
        help="serve from the plugsim source tree in DIR (to compare two versions)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(tmp) / "w.db"
        server = subprocess.Popen(
            [
                *_plugsim(args.checkout),
                "serve",
                "--port",
                "0",
                "--state",
                str(world),
                "--seed",
                "3",
                "--time-scale",
                "100",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            auth_url = server.stdout.readline().split(": ", 1)[1].strip()  # type: ignore[union-attr]
            if args.workload == "stacks":
                result = _load_stacks(auth_url, args.clients, args.requests)
            else:
                result = _load(auth_url, args.clients, args.requests)
        finally:
            server.send_signal(signal.SIGTERM)
            _, err = server.communicate(timeout=60)
        result["server"] = err.strip().splitlines()[-1] if err.strip() else ""
        check = _check_world if args.workload == "networks" else check_world_stacks
        result["problems"] += check(world, result.pop("kept"), result.pop("deleted"))
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
    elif args.workload == "stacks":
        print(
            f"{result['clients']} clients x {result['requests_per_client']} requests: "
            f"{result['requests']} in {result['wall_seconds']:.2f} s, "
            f"{result['requests_per_second']:.0f} req/s, {result['stacks_created']} stacks "
            f"({result['stacks_per_second']:.2f}/s, create to complete p50 "
            f"{result['create_to_complete_p50_ms']:.0f} ms); latency p50 "
            f"{result['p50_ms']:.1f} ms, p95 {result['p95_ms']:.1f} ms; statuses "
            f"{result['statuses']}"
        )
    else:
        print(
            f"{result['clients']} clients x {result['requests_per_client']} requests: "
            f"{result['requests']} in {result['wall_seconds']:.2f} s, "
            f"{result['requests_per_second']:.0f} req/s; latency p50 {result['p50_ms']:.1f} ms, "
            f"p95 {result['p95_ms']:.1f} ms; statuses {result['statuses']}"
        )
        print(f"server: {result['server']}")
        for problem in result["problems"]:
            print(f"PROBLEM: {problem}")
    return 1 if result["problems"] else 0


def _plugsim(checkout: str | None) -> list[str]:
    """The command running ``plugsim``: installed, or from the source tree *checkout*."""
    if checkout is None:
        return [str(Path(sys.executable).with_name("plugsim"))]
    code = (
        "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)]; "
        f"sys.path.insert(0, {str(Path(checkout).resolve())!r}); "
        "from simulator.cli import main; sys.exit(main())"
    )
    return [sys.executable, "-c", code]


def _load_stacks(auth_url: str, clients: int, per_client: int) -> dict[str, Any]:
    base = auth_url.rsplit("/identity", 1)[0]
    token = _token(auth_url)
    catalog = requests.get(
        f"{auth_url}/auth/catalog", headers={"X-Auth-Token": token}, timeout=60
    ).json()["catalog"]
    heat = next(s for s in catalog if s["type"] == "orchestration")
    endpoint = next(e["url"] for e in heat["endpoints"] if e["interface"] == "public")
    assert endpoint.startswith(base)
    return load_stacks(auth_url, clients, per_client, lambda: _token(auth_url), endpoint)


def _token(auth_url: str) -> str:
    user = {"name": "admin", "domain": {"id": "default"}, "password": "plugsim"}
    body = {
        "auth": {
            "identity": {"methods": ["password"], "password": {"user": user}},
            "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
        }
    }
    answer = requests.post(f"{auth_url}/auth/tokens", json=body, timeout=60)
    return answer.headers["X-Subject-Token"]


def _load(auth_url: str, clients: int, per_client: int) -> dict[str, Any]:
    base = auth_url.rsplit("/identity", 1)[0]
    headers = {"X-Auth-Token": _token(auth_url)}
    statuses: Counter[int] = Counter()
    latencies: list[float] = []
    kept: set[str] = set()
    deleted: set[str] = set()
    lock = threading.Lock()

    def client(n: int) -> None:
        sent, cycle = 0, 0
        mine: list[tuple[int, float]] = []
        keep, gone = set(), set()
        with requests.Session() as http:

            def call(method: str, url: str, **kwargs: Any) -> requests.Response:
                nonlocal sent
                start = time.perf_counter()
                answer = http.request(method, url, headers=headers, timeout=120, **kwargs)
                mine.append((answer.status_code, time.perf_counter() - start))
                sent += 1
                return answer

            while sent < per_client:
                name = f"load-{n}-{cycle}"
                made = call(
                    "POST", f"{base}/network/v2.0/networks", json={"network": {"name": name}}
                )
                if made.status_code != 201:
                    cycle += 1
                    continue
                net_id = made.json()["network"]["id"]
                steps = [
                    ("GET", f"{base}/network/v2.0/networks/{net_id}"),
                    ("GET", f"{base}/network/v2.0/networks?name={name}"),
                    ("GET", f"{base}/compute/v2.1/flavors"),
                ]
                for method, url in steps[: max(0, per_client - sent)]:
                    call(method, url)
                if cycle % 20 == 0 or sent >= per_client:
                    keep.add(net_id)
                else:
                    if call("DELETE", f"{base}/network/v2.0/networks/{net_id}").status_code == 204:
                        gone.add(net_id)
                    else:
                        keep.add(net_id)
                cycle += 1
        with lock:
            statuses.update(code for code, _ in mine)
            latencies.extend(seconds for _, seconds in mine)
            kept.update(keep)
            deleted.update(gone)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    # a fresh token: on a loaded machine the run may outlast the first one's virtual hour
    fresh = {"X-Auth-Token": _token(auth_url)}
    listed = requests.get(f"{base}/network/v2.0/networks", headers=fresh, timeout=60).json()
    names = {n["id"] for n in listed["networks"]}
    problems = [
        f"{count} answers with status {code}" for code, count in statuses.items() if code >= 500
    ]
    if statuses.get(401):
        problems.append(
            f"{statuses[401]} answers 401: the run outlasted its token (one virtual hour, "
            "36 wall seconds at --time-scale 100); the figures do not count"
        )
    if kept - names:
        problems.append(f"{len(kept - names)} kept networks are not listed")
    if deleted & names:
        problems.append(f"{len(deleted & names)} deleted networks are still listed")
    cuts = statistics.quantiles(latencies, n=20) if len(latencies) > 1 else [0.0] * 19
    return {
        "clients": clients,
        "requests_per_client": per_client,
        "requests": len(latencies),
        "wall_seconds": round(wall, 3),
        "requests_per_second": round(len(latencies) / wall, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p95_ms": round(cuts[18] * 1000, 2),
        "statuses": dict(sorted(statuses.items())),
        "problems": problems,
        "kept": kept,
        "deleted": deleted,
    }


def _check_world(world: Path, kept: set[str], deleted: set[str]) -> list[str]:
    """The world file, reopened after SIGTERM, holds every kept network and no deleted one."""
    from simulator.world import World

    with World.open(world) as reopened:
        ids = {n["id"] for n in reopened.cloud.service("network").list_networks()}
    problems = []
    if kept - ids:
        problems.append(f"{len(kept - ids)} kept networks are missing from the saved world")
    if deleted & ids:
        problems.append(f"{len(deleted & ids)} deleted networks are in the saved world")
    return problems


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
