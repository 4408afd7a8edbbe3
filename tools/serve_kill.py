"""Kill ``plugsim serve`` (SIGKILL) under load, restart it, and count acknowledged writes lost.

Usage: ``python tools/serve_kill.py [--kills 10] [--clients 8] [--seed 1] [--json]``.

One world file lives through every round. A round starts ``plugsim serve``
on it, runs the clients (threads, each over its own connections) and kills
the server with SIGKILL after a seeded random 1 to 3 wall seconds. Each
client cycles through the writes a real client makes: PUT an object, create
a network, create a server on it (every 4th cycle), delete a network it
made (every 3rd cycle); at the network or instance quota it deletes an
older network or server so creates keep flowing. A write counts as
*acknowledged* when it got a 2xx; a request the kill cut off counts neither
way. After the kill, the world
file is reopened and must hold every object, network and server acknowledged
in this round or any earlier one, and none of the networks whose delete was
acknowledged. The next round restarts the server on the same file.

The exit status is 1 when any acknowledged write is lost (or a deleted
network came back), 0 otherwise. ``tests/world/test_serve_kill.py`` runs a
few rounds of this in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Acked:
    """Writes that got a 2xx, across rounds."""

    objects: set[str] = field(default_factory=set)
    networks: set[str] = field(default_factory=set)
    servers: set[str] = field(default_factory=set)
    deleted: set[str] = field(default_factory=set)
    #: servers ever acknowledged (``servers`` shrinks when the quota makes a client free one)
    servers_made: int = 0

    def size(self) -> int:
        """How many acknowledged writes (deletes included)."""
        return len(self.objects) + len(self.networks) + len(self.servers) + len(self.deleted)


#: the plugsim source tree the server runs from (``--checkout``; default: this one)
CHECKOUT: Path | None = None


def _argv(*args: str) -> list[str]:
    code = "import sys; from simulator.cli import main; sys.exit(main())"
    if CHECKOUT is not None:  # another source tree, ahead of any editable install
        code = (
            "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in "
            f"repr(f)]; sys.path.insert(0, {str(CHECKOUT)!r}); " + code
        )
    return [sys.executable, "-c", code, *args]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["PYTHONWARNINGS"] = "ignore"
    env.pop("PLUGSIM_STATE", None)
    return env


def start_server(world: Path) -> tuple[subprocess.Popen[str], str]:
    """Start ``plugsim serve`` on *world*; return the process and its base URL."""
    proc = subprocess.Popen(
        _argv("serve", "--port", "0", "--state", str(world), "--seed", "3", "--time-scale", "100"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_env(),
        cwd=world.parent,
    )
    line = proc.stdout.readline()  # type: ignore[union-attr]
    if not line.startswith("auth URL: "):
        proc.kill()
        proc.wait()
        raise RuntimeError(f"plugsim serve did not start: {line!r}")
    return proc, line.split(": ", 1)[1].strip().rsplit("/identity", 1)[0]


def token(base: str) -> str:
    """An admin token."""
    user = {"name": "admin", "domain": {"id": "default"}, "password": "plugsim"}
    body = {
        "auth": {
            "identity": {"methods": ["password"], "password": {"user": user}},
            "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
        }
    }
    answer = requests.post(f"{base}/identity/v3/auth/tokens", json=body, timeout=60)
    return answer.headers["X-Subject-Token"]


def _client(base: str, headers: dict[str, str], tag: str, image: str, acked: Acked) -> None:
    """Write until the server dies; record at once what was acknowledged (shared, locked)."""
    swift = f"{base}/object-store/v1/AUTH_{headers['X-Project']}/kill"
    hdrs = {"X-Auth-Token": headers["X-Auth-Token"]}
    nets = f"{base}/network/v2.0/networks"
    with requests.Session() as http:

        def free(pool: set[str], url: str, gone: set[str] | None) -> None:
            """At a quota: delete one acknowledged entity so creates keep flowing."""
            with _LOCK:
                victim = next(iter(sorted(pool - _SERVER_NETS)), None)
                if victim is None:
                    return
                pool.discard(victim)  # while its delete is unanswered it is neither way
            answer = http.delete(f"{url}/{victim}", headers=hdrs, timeout=30)
            with _LOCK:
                if answer.status_code == 204 and gone is not None:
                    gone.add(victim)
                elif answer.status_code not in (202, 204):
                    pool.add(victim)

        cycle = 0
        try:
            while True:
                name = f"{tag}-{cycle}"
                answer = http.put(
                    f"{swift}/{name}", data=name.encode() * 8, headers=hdrs, timeout=30
                )
                if answer.status_code == 201:
                    with _LOCK:
                        acked.objects.add(name)
                answer = http.post(nets, json={"network": {"name": name}}, headers=hdrs, timeout=30)
                if answer.status_code in (409, 413):  # the network quota
                    free(acked.networks, nets, acked.deleted)
                if answer.status_code == 201:
                    net = answer.json()["network"]["id"]
                    if cycle % 3 == 2:
                        gone = http.delete(f"{nets}/{net}", headers=hdrs, timeout=30)
                        with _LOCK:
                            (acked.deleted if gone.status_code == 204 else acked.networks).add(net)
                    else:
                        with _LOCK:
                            acked.networks.add(net)
                    if cycle % 4 == 0:
                        spec = {
                            "name": name,
                            "imageRef": image,
                            "flavorRef": "1",
                            "networks": [{"uuid": net}],
                        }
                        with _LOCK:
                            _SERVER_NETS.add(net)  # a port on it: it cannot be deleted
                        made = http.post(
                            f"{base}/compute/v2.1/servers",
                            json={"server": spec},
                            headers=hdrs,
                            timeout=30,
                        )
                        if made.status_code == 202:
                            with _LOCK:
                                acked.servers.add(made.json()["server"]["id"])
                                acked.servers_made += 1
                        elif made.status_code in (403, 413):  # the instance quota
                            # a deleted server goes at a later virtual instant: not checked
                            free(acked.servers, f"{base}/compute/v2.1/servers", None)
                cycle += 1
        except requests.RequestException:
            pass  # the server was killed: what was cut off counts neither way


_LOCK = threading.Lock()
#: networks a server was asked to use (never deleted by the clients)
_SERVER_NETS: set[str] = set()


def one_round(world: Path, round_no: int, clients: int, rng: random.Random, acked: Acked) -> int:
    """Serve, load, kill; return the writes acknowledged in this round."""
    before = acked.size()
    proc, base = start_server(world)
    try:
        tok = token(base)
        hdrs = {"X-Auth-Token": tok}
        project = requests.get(
            f"{base}/identity/v3/auth/tokens",
            headers={**hdrs, "X-Subject-Token": tok},
            timeout=60,
        ).json()["token"]["project"]["id"]
        requests.put(
            f"{base}/object-store/v1/AUTH_{project}/kill", headers=hdrs, timeout=60
        ).raise_for_status()
        images = requests.get(f"{base}/compute/v2.1/images", headers=hdrs, timeout=60).json()
        image = next(i["id"] for i in images["images"] if i["name"] == "cirros")
        headers = {"X-Auth-Token": tok, "X-Project": project}
        threads = [
            threading.Thread(target=_client, args=(base, headers, f"r{round_no}c{n}", image, acked))
            for n in range(clients)
        ]
        servers_before = acked.servers_made
        for thread in threads:
            thread.start()
        # On a loaded machine the first server create can take longer than the kill delay:
        # the delay starts once this round has had a server acknowledged (or after 60 s).
        started = time.monotonic()
        while acked.servers_made == servers_before and time.monotonic() - started < 60:
            time.sleep(0.05)
        time.sleep(rng.uniform(1.0, 3.0))
        proc.send_signal(signal.SIGKILL)
        for thread in threads:
            thread.join(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
        if proc.stdout is not None:
            proc.stdout.close()
    return acked.size() - before


def lost(world: Path, acked: Acked) -> dict[str, set[str]]:
    """Reopen *world*; return the acknowledged writes it does not hold, by kind."""
    from simulator.world import World

    with World.open(world) as reopened:
        cloud = reopened.cloud
        storage = cloud.service("object_storage")
        if "kill" in {c["name"] for c in storage.list_containers()}:
            objects = {o["name"] for o in storage.list_objects("kill")}
        else:  # the container itself was lost
            objects = set()
        networks = {n["id"] for n in cloud.service("network").list_networks()}
        servers = {s["id"] for s in cloud.service("compute").list_servers()}
    return {
        "objects": acked.objects - objects,
        "networks": acked.networks - networks,
        "servers": acked.servers - servers,
        "deleted_networks_back": acked.deleted & networks,
    }


def run(kills: int, clients: int, seed: int, workdir: Path) -> dict[str, Any]:
    """Run *kills* rounds on one world file in *workdir*; return the figures."""
    rng = random.Random(seed)
    world = workdir / "served.db"
    acked = Acked()
    rounds = []
    gone: set[tuple[str, str]] = set()  # every acknowledged write found missing at some check
    for n in range(kills):
        made = one_round(world, n, clients, rng, acked)
        missing = lost(world, acked)
        gone |= {(kind, key) for kind, keys in missing.items() for key in keys}
        counts = {kind: len(keys) for kind, keys in missing.items()}
        rounds.append({"acknowledged": made, "lost": sum(counts.values()), **counts})
    return {
        "kills": kills,
        "clients": clients,
        "acknowledged": acked.size(),
        "objects": len(acked.objects),
        "networks": len(acked.networks),
        "servers": len(acked.servers),
        "servers_made": acked.servers_made,
        "deleted_networks": len(acked.deleted),
        "lost": len(gone),
        "rounds": rounds,
    }


def main(argv: list[str]) -> int:
    """Run the rounds and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--checkout",
        metavar="DIR",
        help="serve from the plugsim source tree in DIR (to compare two versions)",
    )
    args = parser.parse_args(argv)
    global CHECKOUT
    CHECKOUT = Path(args.checkout).resolve() if args.checkout else None
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.kills, args.clients, args.seed, Path(tmp))
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
    else:
        for n, r in enumerate(result["rounds"], 1):
            print(
                f"kill {n}: {r['acknowledged']} writes acknowledged, "
                f"{r['lost']} of all acknowledged so far missing"
            )
        print(
            f"{result['kills']} kills, {result['clients']} clients: {result['acknowledged']} "
            f"acknowledged writes ({result['objects']} objects, {result['networks']} networks, "
            f"{result['servers']} servers, {result['deleted_networks']} network deletes), "
            f"{result['lost']} lost"
        )
    return 1 if result["lost"] else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
