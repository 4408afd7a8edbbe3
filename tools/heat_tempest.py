"""Run heat-tempest-plugin's functional and scenario tests against ``plugsim serve``.

Usage: ``python tools/heat_tempest.py WORKDIR [--plugin DIR] [--concurrency N]
[--time-scale S] [--filter REGEX ...]``

Needs tempest, heat-tempest-plugin and python-heatclient in the running
Python (``pip install tempest heat-tempest-plugin python-heatclient stestr``;
``nox -s heat_tempest`` installs them); nothing of theirs is committed.
``--plugin DIR`` runs the tests of a heat-tempest-plugin checkout instead of
the installed one's.

It does what a tester does for a DevStack with Heat:

* starts ``plugsim serve`` on 127.0.0.1 with a fresh world in WORKDIR: the
  ``devstack`` preset (``public`` and ``private`` networks, the cirros image,
  the ``m1.*`` flavors, the ``demo`` member and the ``admin``) plus what
  Heat's DevStack plug-in adds for its tests: the flavors ``m1.heat_int`` and
  ``m1.heat_micro``, and the network ``heat-net`` with ``heat-subnet`` routed
  to ``public``;
* writes ``WORKDIR/etc/tempest.conf`` (the ``[heat_plugin]`` section names
  the ``demo`` user for the tests and ``admin`` for the admin ones, the
  server's auth URL, the images, flavors and networks above; services the
  fakes do not provide -- aodh, octavia, barbican, zaqar, gnocchi -- are
  marked unavailable, so tests needing them skip as they would on such a
  cloud);
* runs ``heat_tempest_plugin.tests.functional`` and ``.scenario`` with
  ``stestr`` (the runner ``tempest run`` uses), reads the subunit stream and
  prints every test's outcome, the figures per file and per suite, and the
  reason of each failure and skip.

``--heatclient`` then runs python-heatclient's own functional tests
(``heatclient.tests.functional``: the ``openstack stack``/``orchestration``
commands through tempest's CLI runner, as the ``demo`` member) against the
same server with pytest, and prints their figures and failure reasons.

Exit status 0 even when tests fail: the figures are a measurement, not a
gate.
"""

from __future__ import annotations

import argparse
import collections
import io
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

WORLD = """plugsim_world: 1
extends: devstack
flavors:
  - {name: m1.heat_int, vcpus: 1, ram: 1024, disk: 10}
  - {name: m1.heat_micro, vcpus: 1, ram: 128, disk: 1}
networks:
  - name: heat-net
    subnets: [{name: heat-subnet, cidr: 10.0.5.0/24}]
routers:
  - {name: heat-router, external_gateway: public, interfaces: [heat-subnet]}
"""
IMAGE = "cirros-0.6.3-x86_64-disk"

CONF = """[DEFAULT]
log_dir = {workdir}/logs
log_file = tempest.log

[auth]
use_dynamic_credentials = false

[identity]
uri_v3 = {auth_url}
auth_version = v3
region = RegionOne

[service_available]
heat = true
nova = true
neutron = true
cinder = true
glance = true
swift = true
aodh = false
octavia = false
barbican = false
zaqar = false
gnocchi = false
designate = false
manila = false
sahara = false

[heat_plugin]
auth_url = {auth_url}
username = demo
password = plugsim
project_name = demo
admin_username = admin
admin_password = plugsim
admin_project_name = admin
user_domain_name = Default
project_domain_name = Default
region = RegionOne
endpoint_type = public
image_ref = {image}
minimal_image_ref = {image}
instance_type = m1.heat_int
minimal_instance_type = m1.heat_micro
fixed_network_name = heat-net
fixed_subnet_name = heat-subnet
network_for_ssh = heat-net
floating_network_name = public
build_interval = 1
build_timeout = {build_timeout}
convergence_engine_enabled = true
hidden_stack_tag = data-processing-cluster

[heat_features_enabled]
stack_cancel = true
multi_cloud = false
"""


def main(argv: list[str]) -> int:
    """Serve, configure tempest, run the tests, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("workdir")
    parser.add_argument("--plugin", metavar="DIR", help="a heat-tempest-plugin checkout")
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--time-scale", type=float, default=20.0)
    parser.add_argument("--build-timeout", type=int, default=120, help="wall seconds")
    parser.add_argument("--heatclient", action="store_true", help="also heatclient's tests")
    parser.add_argument("--no-plugin", action="store_true", help="skip the plug-in's tests")
    parser.add_argument(
        "--filter",
        action="append",
        default=[],
        help="regexes of test ids to run (default: functional and scenario)",
    )
    args = parser.parse_args(argv)
    workdir = Path(args.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    for old in ("w.db", "w.db-wal", "w.db-shm", "unserved.json"):
        (workdir / old).unlink(missing_ok=True)
    (workdir / "logs").mkdir(exist_ok=True)
    top, tests = _plugin_paths(args.plugin)
    world = workdir / "world.yaml"
    world.write_text(WORLD, encoding="utf-8")
    plugsim = Path(sys.executable).with_name("plugsim")
    cmd = [str(plugsim), "serve", "--port", "0", "--state", str(workdir / "w.db")]
    cmd += ["--world", str(world), "--clouds-yaml", str(workdir / "clouds.yaml")]
    cmd += ["--time-scale", str(args.time_scale), "--seed", "1"]
    cmd += ["--report", str(workdir / "unserved.json")]
    server_log = open(workdir / "serve.log", "w", encoding="utf-8")  # noqa: SIM115
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=server_log, text=True)
    try:
        line = server.stdout.readline()  # type: ignore[union-attr]
        if not line.startswith("auth URL:"):
            print(f"plugsim serve did not start: {line!r}", file=sys.stderr)
            return 1
        auth_url = line.split(": ", 1)[1].strip()
        etc = workdir / "etc"
        etc.mkdir(exist_ok=True)
        conf = CONF.format(
            workdir=workdir, auth_url=auth_url, image=IMAGE, build_timeout=args.build_timeout
        )
        (etc / "tempest.conf").write_text(conf, encoding="utf-8")
        stream = b"" if args.no_plugin else _run_stestr(workdir, top, tests, args)
        if args.heatclient:
            heatclient = _run_heatclient(workdir, auth_url)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        server_log.close()
    if not args.no_plugin:
        _print(_parse(stream), workdir)
    if args.heatclient:
        counts, reasons = heatclient
        print("\nheatclient functional: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        for reason, count in reasons.most_common():
            print(f"  {count:>3}x {reason}")
    return 0


def _run_heatclient(workdir: Path, auth_url: str) -> Any:
    """python-heatclient's functional tests, as ``demo``; (counts, reasons) of the junit report."""
    from openstacksdk_functional import summarise

    env = {
        **os.environ,
        "OS_HEATCLIENT_EXEC_DIR": str(Path(sys.executable).parent),
        "OS_AUTH_URL": auth_url,
        "OS_USERNAME": "demo",
        "OS_PASSWORD": "plugsim",
        "OS_PROJECT_NAME": "demo",
        "OS_TENANT_NAME": "demo",
        "OS_USER_DOMAIN_ID": "default",
        "OS_PROJECT_DOMAIN_ID": "default",
        "OS_IDENTITY_API_VERSION": "3",
    }
    report = workdir / "heatclient.xml"
    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    run += ["--pyargs", "heatclient.tests.functional", f"--junitxml={report}"]
    subprocess.run(run, cwd=workdir, env=env, check=False)
    return summarise(report)


def _plugin_paths(checkout: str | None) -> tuple[Path, Path]:
    """The import root and the ``tests`` directory of heat-tempest-plugin."""
    if checkout:
        top = Path(checkout).resolve()
    else:
        import heat_tempest_plugin

        top = Path(heat_tempest_plugin.__file__).resolve().parent.parent
    tests = top / "heat_tempest_plugin" / "tests"
    if not tests.is_dir():
        raise SystemExit(f"heat_tempest.py: {tests}: not a heat-tempest-plugin tests directory")
    return top, tests


def _run_stestr(workdir: Path, top: Path, tests: Path, args: Any) -> bytes:
    """Run the selected tests with stestr in WORKDIR; return the subunit v2 stream."""
    env = {
        **os.environ,
        "TEMPEST_CONFIG_DIR": str(workdir / "etc"),
        "TEMPEST_CONFIG": "tempest.conf",
        "PYTHONPATH": os.pathsep.join([str(top), os.environ.get("PYTHONPATH", "")]),
        "OS_TEST_TIMEOUT": str(args.build_timeout * 3),
    }
    filters = args.filter or [
        r"heat_tempest_plugin\.tests\.functional",
        r"heat_tempest_plugin\.tests\.scenario",
    ]
    (workdir / ".stestr.conf").write_text(
        f"[DEFAULT]\ntest_path={tests}\ntop_dir={top}\ngroup_regex=([^\\.]*\\.)*\n",
        encoding="utf-8",
    )
    stestr = [sys.executable, "-m", "stestr"]
    if not (workdir / ".stestr").exists():
        subprocess.run([*stestr, "init"], cwd=workdir, env=env, check=False)
    run = [*stestr, "run", "--subunit", "--concurrency", str(args.concurrency), *filters]
    done = subprocess.run(run, cwd=workdir, env=env, stdout=subprocess.PIPE, check=False)
    (workdir / "results.subunit").write_bytes(done.stdout)
    return done.stdout


def _parse(stream: bytes) -> dict[str, dict[str, Any]]:
    """Test id -> {"status", "reason"} from a subunit v2 byte stream."""
    import subunit
    import testtools

    results: dict[str, dict[str, Any]] = {}

    def on_test(test: dict[str, Any]) -> None:
        status = test["status"]
        if status in ("exists", "inprogress"):
            return
        text = ""
        for name, detail in test["details"].items():
            if name in ("traceback", "reason"):
                text += detail.as_text()
        tid = re.sub(r"\[.*\]$", "", test["id"])
        results[tid] = {"status": status, "reason": _reason(text, status)}

    case = subunit.ByteStreamToStreamResult(io.BytesIO(stream), non_subunit_name="stdout")
    result = testtools.StreamToDict(on_test)
    result.startTestRun()
    case.run(result)
    result.stopTestRun()
    return results


def _reason(text: str, status: str) -> str:
    """The line that says why a test failed or skipped (ids folded)."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    if status == "skip":
        return lines[0][:200]
    picked = next(
        (
            ln
            for ln in reversed(lines)
            if re.match(r"^[\w.]+(Error|Exception|Failure|Mismatch|NotFound|Conflict)\b", ln)
        ),
        lines[-1],
    )
    picked = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "{id}", picked)
    return re.sub(r"-\d{5,}", "-N", picked)[:300]


def _print(results: dict[str, dict[str, Any]], workdir: Path) -> None:
    """Every outcome, the figures per file and suite, the failure and skip reasons."""
    per_file: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for tid in sorted(results):
        res = results[tid]
        print(f"{res['status']:<8} {tid}")
        parts = tid.split(".")
        module = ".".join(parts[2:4]) if len(parts) > 4 else tid
        per_file[module][res["status"]] += 1
    print("\nfile                                          tests  passed  failed  skipped")
    suites: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for module in sorted(per_file):
        c = per_file[module]
        total = sum(c.values())
        suites[module.split(".")[0]].update(c)
        print(f"{module:<45} {total:>5} {c['success']:>7} {c['fail']:>7} {c['skip']:>8}")
    for suite, c in sorted(suites.items()):
        total = sum(c.values())
        ran = total - c["skip"]
        share = f"{100 * c['success'] / total:.0f}%" if total else "-"
        print(
            f"{suite}: {total} tests, {c['success']} passed ({share} of all), {c['fail']} "
            f"failed, {c['skip']} skipped ({ran} ran)"
        )
    print("\nfailures")
    for tid in sorted(results):
        if results[tid]["status"] == "fail":
            print(f"- {tid.split('.', 3)[-1]}: {results[tid]['reason']}")
    skips = collections.Counter(r["reason"] for r in results.values() if r["status"] == "skip")
    print("\nskips")
    for reason, count in skips.most_common():
        print(f"  {count:>3}x {reason}")
    report = workdir / "unserved.json"
    if report.exists():
        import json

        data = json.loads(report.read_text(encoding="utf-8"))
        for u in sorted(data.get("unserved", []), key=lambda u: (-u["count"], u["path"])):
            print(f"unserved {u['count']:>4}x {u['service']:<13} {u['method']:<6} {u['path']}")
        for bug in data.get("bugs", []):
            print(f"bug: {bug['method']} {bug['path']}: {bug['error']} ({bug['where']})")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
