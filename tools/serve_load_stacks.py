"""The stack workload of ``tools/serve_load.py`` (``--workload stacks``): Heat's API under load.

A client that meets a 401 (at ``--time-scale 100`` a token's virtual hour
lasts 36 wall seconds) logs in again and repeats the request, as
keystoneauth does. Each client repeats a cycle over the Orchestration API until it has sent its
requests: create a small stack (a random string and a test resource that
takes a few virtual seconds), poll it until ``CREATE_COMPLETE``, list its
events, delete it and poll until it is gone (every 10th stack is kept). The
checks a load test must make: no 5xx answer, no stack ending ``*_FAILED``,
every kept stack listed ``CREATE_COMPLETE`` and no deleted one listed, and
the same stacks in the world file once the server stopped on SIGTERM.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import requests

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "word": {"type": "OS::Heat::RandomString", "properties": {"length": 6}},
        "thing": {
            "type": "OS::Heat::TestResource",
            "properties": {
                "value": {"get_attr": ["word", "value"]},
                "action_wait_secs": {"create": 5, "delete": 2},
            },
        },
    },
    "outputs": {"said": {"value": {"get_attr": ["thing", "output"]}}},
}
#: wall seconds between two polls of a stack (a client's ``--poll``)
POLL = 0.05


def load_stacks(
    auth_url: str, clients: int, per_client: int, token: Any, endpoint: str
) -> dict[str, Any]:
    """Run the stack workload; return the figures (and the stacks kept and deleted)."""
    headers = {"X-Auth-Token": token()}
    statuses: Counter[int] = Counter()
    latencies: list[float] = []
    lifetimes: list[float] = []
    kept: dict[str, str] = {}
    deleted: set[str] = set()
    failed: list[str] = []
    relogins = [0]
    lock = threading.Lock()

    def client(n: int) -> None:
        sent, cycle = 0, 0
        mine: list[tuple[int, float]] = []
        keep, gone, lives, bad = {}, set(), [], []
        with requests.Session() as http:

            def call(method: str, url: str, **kwargs: Any) -> requests.Response:
                nonlocal sent
                start = time.perf_counter()
                answer = http.request(method, url, headers=dict(headers), timeout=120, **kwargs)
                if answer.status_code == 401:  # the token's virtual hour is over: log in again
                    with lock:
                        headers["X-Auth-Token"] = token()
                        relogins[0] += 1
                    start = time.perf_counter()
                    answer = http.request(method, url, headers=dict(headers), timeout=120, **kwargs)
                mine.append((answer.status_code, time.perf_counter() - start))
                sent += 1
                return answer

            def wait(url: str, action: str) -> str:
                while True:
                    answer = call("GET", url)
                    if answer.status_code == 404:
                        return "GONE"
                    status = answer.json()["stack"]["stack_status"]
                    if status != f"{action}_IN_PROGRESS":
                        return str(status)
                    time.sleep(POLL)

            while sent < per_client:
                name = f"load-{n}-{cycle}"
                cycle += 1
                began = time.perf_counter()
                made = call(
                    "POST", f"{endpoint}/stacks", json={"stack_name": name, "template": TEMPLATE}
                )
                if made.status_code != 201:
                    continue
                sid = made.json()["stack"]["id"]
                url = f"{endpoint}/stacks/{name}/{sid}"
                status = wait(url, "CREATE")
                lives.append(time.perf_counter() - began)
                if status != "CREATE_COMPLETE":
                    bad.append(f"{name}: {status}")
                    continue
                call("GET", f"{url}/events")
                if cycle % 10 == 1 or sent >= per_client:
                    keep[sid] = name
                    continue
                if call("DELETE", url).status_code == 204:
                    status = wait(url, "DELETE")
                    if status in ("GONE", "DELETE_COMPLETE"):
                        gone.add(sid)
                    else:
                        bad.append(f"{name}: {status}")
        with lock:
            statuses.update(code for code, _ in mine)
            latencies.extend(seconds for _, seconds in mine)
            lifetimes.extend(lives)
            kept.update(keep)
            deleted.update(gone)
            failed.extend(bad)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    fresh = {"X-Auth-Token": token()}
    listed = requests.get(f"{endpoint}/stacks", headers=fresh, timeout=60).json()["stacks"]
    shown = {s["id"]: s["stack_status"] for s in listed}
    problems = [
        f"{count} answers with status {code}" for code, count in statuses.items() if code >= 500
    ]
    problems += [f"stack ended badly: {what}" for what in failed]
    if statuses.get(401):
        problems.append(f"{statuses[401]} answers 401: the run outlasted its token")
    missing = [sid for sid in kept if shown.get(sid) != "CREATE_COMPLETE"]
    if missing:
        problems.append(f"{len(missing)} kept stacks are not listed CREATE_COMPLETE")
    if deleted & set(shown):
        problems.append(f"{len(deleted & set(shown))} deleted stacks are still listed")
    cuts = statistics.quantiles(latencies, n=20) if len(latencies) > 1 else [0.0] * 19
    stacks = len(lifetimes)
    return {
        "workload": "stacks",
        "clients": clients,
        "requests_per_client": per_client,
        "requests": len(latencies),
        "stacks_created": stacks,
        "wall_seconds": round(wall, 3),
        "requests_per_second": round(len(latencies) / wall, 1),
        "stacks_per_second": round(stacks / wall, 2),
        "create_to_complete_p50_ms": round(statistics.median(lifetimes) * 1000, 1)
        if lifetimes
        else 0.0,
        "p50_ms": round(statistics.median(latencies) * 1000, 2) if latencies else 0.0,
        "p95_ms": round(cuts[18] * 1000, 2),
        "statuses": dict(sorted(statuses.items())),
        "relogins": relogins[0],
        "problems": problems,
        "kept": kept,
        "deleted": deleted,
    }


def check_world_stacks(world: Path, kept: dict[str, str], deleted: set[str]) -> list[str]:
    """The world file, reopened after SIGTERM, holds every kept stack complete and no deleted one."""
    from simulator.world import World

    with World.open(world) as reopened:
        live = {r.id: f"{r.action}_{r.status}" for r in reopened.store.list_stacks()}
    problems = []
    lost = [sid for sid in kept if live.get(sid) != "CREATE_COMPLETE"]
    if lost:
        problems.append(f"{len(lost)} kept stacks are missing or not complete in the saved world")
    if deleted & set(live):
        problems.append(f"{len(deleted & set(live))} deleted stacks are live in the saved world")
    return problems
