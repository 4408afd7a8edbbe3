"""``plugsim serve``: the fake cloud's OpenStack APIs and provider APIs on a loopback socket.

The world is the store file the other commands use (``--state``, here or
global). ``--world FILE|PRESET`` names the world file or preset a new world
starts from (an existing world keeps its own), as on the other commands; a
``--world`` naming a SQLite store is still read as ``--state``, with a note
(before world files, ``serve --world`` named the store). The server listens on 127.0.0.1 only (werkzeug's threaded
server; one lock serialises every request against the world), prints the auth
URL, writes a ``clouds.yaml`` naming the cloud ``plugsim`` and keeps running
until SIGTERM or Ctrl-C; then it stops accepting requests and commits the
world.

A request that may change the world (any method but GET, HEAD, OPTIONS) is
answered only once its change is committed: concurrent requests share one
commit (:mod:`simulator.cli.serve_commit`), so an acknowledged write survives
``kill -9``. Reads are answered at once; what they leave behind (the call
trace, the clock) is committed with the next write or every ``--save-every``
wall seconds.

Virtual time follows wall time multiplied by ``--time-scale``: before each
request the clock is moved forward to ``start + elapsed wall time × scale``
(it never goes back; latency charged by calls moves it further). A client that
polls a booting server every 2 s at scale 100 sees 200 virtual seconds pass
between polls.

The provider APIs (DigitalOcean, Linode, Hetzner, Vultr, CloudStack; ``--provider``
picks some, all by default) are served by the same server, each under its own
path (``/digitalocean/v2``, ...; :mod:`fake_clouds.rest.serving`), behind the
same lock and group commit; ``providers.yaml`` beside ``clouds.yaml`` gives
each one's URL, token and environment variables.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import click

from simulator.cli._shared import Options, world_option

_SQLITE_MAGIC = b"SQLite format 3\x00"
_STORE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def _names_a_store(value: str) -> bool:
    """True when *value* is a SQLite store (or a store to be), not a world file or preset."""
    path = Path(value)
    if value == ":memory:":
        return True
    if path.is_file():
        with open(path, "rb") as fh:
            return fh.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC
    return path.suffix in _STORE_SUFFIXES


@click.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="TCP port on 127.0.0.1 (0: any free port).",
)
@click.option(
    "--state",
    "state_path",
    metavar="FILE",
    help="The world's SQLite file (default: the global --state).",
)
@world_option
@click.option("--faults", help="Fault profile: a preset (none, flaky, slow, chaos) or YAML file.")
@click.option("--seed", type=int, help="Seed of a new world (an existing world keeps its own).")
@click.option(
    "--time-scale",
    type=click.FloatRange(min=0.0),
    default=1.0,
    show_default=True,
    help="Virtual seconds per wall second.",
)
@click.option(
    "--clouds-yaml",
    "clouds_path",
    metavar="PATH",
    help="Where to write clouds.yaml (default: next to the world file).",
)
@click.option(
    "--save-every",
    type=click.FloatRange(min=0.1),
    default=5.0,
    show_default=True,
    help="Also commit every N wall seconds (what reads leave: the trace, the clock).",
)
@click.option(
    "--cloud-name",
    "cloud_names",
    multiple=True,
    metavar="NAME",
    help="Name of the cloud in clouds.yaml (repeatable; default plugsim).",
)
@click.option(
    "--max-body",
    "max_bodies",
    multiple=True,
    metavar="SERVICE=BYTES",
    help="Largest request body a service accepts, e.g. object-store=1073741824 "
    "(repeatable; defaults in the limits page of the docs).",
)
@click.option(
    "--provider",
    "providers",
    metavar="NAMES",
    default="all",
    show_default=True,
    help="Provider APIs served beside OpenStack, comma-separated "
    "(digitalocean, linode, hetzner, vultr, cloudstack; all; none).",
)
@click.option(
    "--providers-yaml",
    "providers_path",
    metavar="PATH",
    help="Where to write providers.yaml (default: beside clouds.yaml).",
)
@click.option("--access-log", is_flag=True, help="Log every request to stderr.")
@click.option(
    "--report",
    "report_path",
    metavar="PATH",
    help="On stop, write the unserved endpoints and the fake's bugs there (JSON).",
)
@click.pass_obj
def serve(
    opts: Options,
    port: int,
    state_path: str | None,
    world_file: str | None,
    faults: str | None,
    seed: int | None,
    time_scale: float,
    clouds_path: str | None,
    save_every: float,
    access_log: bool,
    cloud_names: tuple[str, ...],
    report_path: str | None = None,
    max_bodies: tuple[str, ...] = (),
    providers: str = "all",
    providers_path: str | None = None,
) -> None:
    """Serve the world as OpenStack on 127.0.0.1: identity, compute, network, block storage,
    image, object storage and orchestration (Heat's API), with a clouds.yaml for the clients;
    and as the provider APIs (DigitalOcean, Linode, ...), with a providers.yaml."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    class QuietHandler(WSGIRequestHandler):
        def log_request(self, *args: Any, **kwargs: Any) -> None:
            if access_log:
                super().log_request(*args, **kwargs)

    from fake_clouds.openstack.app import WireApp, api_classes
    from fake_clouds.openstack.inprocess import clouds_yaml
    from fake_clouds.rest.serving import provider_apps, provider_names, write_providers_config
    from simulator.cli.serve_commit import GroupCommit

    if world_file is not None and _names_a_store(world_file):
        click.echo(
            f"note: {world_file} is a world's SQLite file: name it with --state "
            "(--world names a world file or preset)",
            err=True,
        )
        state_path, world_file = state_path or world_file, None
    if state_path is not None:
        opts.state = state_path
    body_limits = _body_limits(max_bodies)
    try:
        provider_list = provider_names(providers)
    except Exception as ex:  # an unknown name: one line, before the world opens
        raise click.BadParameter(str(ex).split(": ", 1)[-1], param_hint="--provider") from None
    from simulator.orchestration_wire.api import OrchestrationAPI

    served = [*(cls.prefix for cls in api_classes()), OrchestrationAPI.prefix]
    unknown = sorted(set(body_limits) - set(served))
    if unknown:
        raise click.BadParameter(
            f"no served service {', '.join(unknown)} (served: {', '.join(served)})",
            param_hint="--max-body",
        )
    world = opts.open_world(seed=seed, faults=faults, world_file=world_file or opts.world)
    spool_dir = None
    if getattr(world.cloud, "blobs", True) is None:  # an in-memory world: a directory of its own
        spool_dir = tempfile.TemporaryDirectory(prefix="plugsim-blobs-")
        world.cloud.attach_blobs(spool_dir.name, collect=False)
    lock = threading.RLock()
    clock = world.clock
    start_virtual, start_wall = clock.now(), time.monotonic()

    from simulator.orchestration_wire import ServedEngine, mount

    engine = ServedEngine(world)  # the Orchestration API's stack actions, in virtual time

    def follow_wall_time() -> None:
        engine.advance_to(start_virtual + (time.monotonic() - start_wall) * time_scale)

    holder: dict[str, Any] = {}
    server = make_server(
        "127.0.0.1",
        port,
        lambda env, sr: holder["app"](env, sr),
        threaded=True,
        request_handler=QuietHandler,
    )
    base_url = f"http://127.0.0.1:{server.server_port}"
    commits = GroupCommit(world.commit, lock)
    mounted = provider_apps(world.cloud, base_url, provider_list)
    app = WireApp(
        world.cloud,
        base_url,
        lock=lock,
        before_request=follow_wall_time,
        extra_apis=[mount(world, engine)],
        after_request=commits.note,
        body_limits=body_limits,
        mounts=mounted,
    )

    commits.app = app
    holder["app"] = commits
    target = Path(clouds_path) if clouds_path else _default_clouds_path(world.store.path)
    names = tuple(cloud_names) or ("plugsim",)
    clouds_yaml(target, app.auth_url, names=names)
    providers_target = Path(providers_path) if providers_path else target.parent / "providers.yaml"
    if mounted:
        write_providers_config(providers_target, mounted)
    stop = threading.Event()
    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)
    }
    thread = threading.Thread(target=server.serve_forever, name="plugsim-serve", daemon=True)
    thread.start()
    click.echo(f"auth URL: {app.auth_url}")
    click.echo(f"clouds.yaml: {target} (cloud {', '.join(names)}; user admin, password plugsim)")
    if mounted:
        click.echo(f"providers.yaml: {providers_target} ({', '.join(mounted)})")
    click.echo("serving on 127.0.0.1; stop with Ctrl-C or SIGTERM", err=True)
    try:
        tick, last_save = min(save_every, 0.2), time.monotonic()
        while not stop.wait(tick):  # actions go on between requests too
            with lock:
                follow_wall_time()
                if time.monotonic() - last_save >= save_every:
                    world.save()
                    last_save = time.monotonic()
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        commits.close()
        with lock:
            follow_wall_time()
            engine.stop()
            world.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if spool_dir is not None:
            spool_dir.cleanup()
        if report_path is not None:
            _write_report(Path(report_path), app, mounted)
    click.echo(
        f"stopped; world saved to {world.store.path} ({commits.tickets} changing requests "
        f"acknowledged after {commits.commits} commits, {commits.seconds:.1f} s)",
        err=True,
    )


def _body_limits(values: tuple[str, ...]) -> dict[str, int]:
    """Parse ``--max-body SERVICE=BYTES`` options."""
    out: dict[str, int] = {}
    for value in values:
        service, sep, number = value.partition("=")
        if not sep or not service or not number.strip().isdigit() or int(number) < 1:
            raise click.BadParameter(
                f"{value!r}: expected SERVICE=BYTES with a positive whole number of bytes",
                param_hint="--max-body",
            )
        out[service.strip()] = int(number)
    return out


def _write_report(path: Path, app: Any, mounted: dict[str, Any] | None = None) -> None:
    """Write what clients asked for that the fake does not serve, and its bugs, as JSON."""
    import json

    logs = {id(a.log): a.log for a in (mounted or {}).values()}
    provider_unserved = [
        {"provider": name, "method": method, "url": url, "count": count}
        for log in logs.values()
        for (name, method, url), count in sorted(log.unserved.items())
    ]
    provider_bugs = [
        {
            "provider": b.dialect,
            "method": b.method,
            "url": b.url,
            "error": b.error,
            "where": b.where,
        }
        for log in logs.values()
        for b in log.bugs
    ]

    report = {
        "unserved": [
            {"service": u.service, "method": u.method, "path": u.path, "count": u.count}
            for u in app.unserved()
        ],
        "bugs": [
            {
                "service": b.service,
                "method": b.method,
                "path": b.path,
                "error": b.error,
                "where": b.where,
            }
            for b in app.bugs()
        ],
        "providers": {"unserved": provider_unserved, "bugs": provider_bugs},
    }
    path.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _default_clouds_path(store_path: Any) -> Path:
    """Return ``clouds.yaml`` beside the world file (the working directory for ``:memory:``)."""
    text = str(store_path)
    if text == ":memory:":
        return Path(os.getcwd()) / "clouds.yaml"
    return Path(text).resolve().parent / "clouds.yaml"
