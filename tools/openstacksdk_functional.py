"""Run openstacksdk's own functional tests against ``plugsim serve`` and summarise them.

Usage: ``python tools/openstacksdk_functional.py WORKDIR [SERVICE ...] [-- PYTEST ARGS]``
(services default to all six the wire serves). Starts ``plugsim serve``
on a free port with a fresh world in WORKDIR (the default world plus
DevStack's ``demo`` and ``alt_demo`` projects, each with its member user) and
a ``clouds.yaml`` naming the clouds the suite expects as DevStack writes them:
``devstack`` is ``demo`` (a member), ``devstack-alt`` is ``alt_demo``,
``devstack-admin`` and ``devstack-system-admin`` the admin. It runs the
suite with pytest, stops the server with SIGTERM and prints the pass/fail/skip
figures per service, the most common failure reasons and the endpoints the
suite called that the fake does not serve (``plugsim serve --report``). Exit
status 0 even when tests fail: the figures are a measurement, not a gate.

The suite runs in WORKDIR. Its image tests upload ``CONTRIBUTING.rst`` from
their working directory (they expect openstacksdk's source tree), so a small
file of that name is written there.
"""

from __future__ import annotations

import collections
import json
import os
import re
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from fake_clouds.openstack.inprocess import clouds_yaml

CLOUDS = ("devstack", "devstack-alt", "devstack-admin", "devstack-system-admin")
#: cloud -> (user, project, password) for the clouds that are not the bootstrap admin
MEMBERS = {
    "devstack": ("demo", "demo", "plugsim"),
    "devstack-alt": ("alt_demo", "alt_demo", "plugsim"),
}
WORLD = """plugsim_world: 1
extends: default
projects: [{name: demo}, {name: alt_demo}]
users:
  - {name: demo, project: demo, roles: [member]}
  - {name: alt_demo, project: alt_demo, roles: [member]}
"""
DEFAULT_SERVICES = ("identity", "compute", "network", "block_storage", "image", "object_store")


def main(argv: list[str]) -> int:
    """Serve, run the suite per service, print the summary."""
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    workdir = Path(argv[0]).resolve()
    services = tuple(argv[1:]) or DEFAULT_SERVICES
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "w.db").unlink(missing_ok=True)
    (workdir / "CONTRIBUTING.rst").write_text(
        "Image data for openstacksdk's functional image tests.\n", encoding="utf-8"
    )
    report_path = workdir / "unserved.json"
    report_path.unlink(missing_ok=True)
    plugsim = Path(sys.executable).with_name("plugsim")
    world = workdir / "world.yaml"
    world.write_text(WORLD, encoding="utf-8")
    args = [str(plugsim), "serve", "--port", "0", "--state", str(workdir / "w.db")]
    args += ["--world", str(world), "--clouds-yaml", str(workdir / "clouds-admin.yaml")]
    args += ["--time-scale", "50", "--seed", "1", "--report", str(report_path)]
    for name in CLOUDS:
        args += ["--cloud-name", name]
    server = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()  # type: ignore[union-attr]
        if not line.startswith("auth URL:"):
            print(f"plugsim serve did not start: {line!r}", file=sys.stderr)
            return 1
        clouds_yaml(
            workdir / "clouds.yaml", line.split(":", 1)[1].strip(), names=CLOUDS, users=MEMBERS
        )
        env = {
            **os.environ,
            "OS_CLIENT_CONFIG_FILE": str(workdir / "clouds.yaml"),
            "OS_CLOUD": "devstack-admin",
            "OPENSTACKSDK_FUNC_TEST_TIMEOUT": "60",
            "OS_TEST_TIMEOUT": "120",
        }
        rows = []
        for service in services:
            report = workdir / f"{service}.xml"
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "--pyargs",
                    f"openstack.tests.functional.{service}",
                    f"--junitxml={report}",
                    "--timeout=120",
                    *extra,
                ],
                env=env,
                cwd=workdir,
                check=False,
            )
            rows.append((service, *summarise(report)))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    print("\nservice      tests  passed  failed  errors  skipped")
    for service, counts, _reasons in rows:
        print(
            f"{service:<12} {counts['tests']:>5} {counts['passed']:>7} {counts['failed']:>7} "
            f"{counts['errors']:>7} {counts['skipped']:>8}"
        )
    for service, _, reasons in rows:
        print(f"\n{service}: most common reasons")
        for reason, count in reasons.most_common(12):
            print(f"  {count:>4}x {reason}")
    if report_path.exists():
        report = json.loads(report_path.read_text(encoding="utf-8"))
        unserved = sorted(report["unserved"], key=lambda u: (-u["count"], u["path"]))
        print("\nendpoints called but not served (count, service, method, path)")
        for u in unserved:
            print(f"  {u['count']:>4}x {u['service']:<13} {u['method']:<6} {u['path']}")
        for bug in report["bugs"]:
            print(f"  bug: {bug['method']} {bug['path']}: {bug['error']} ({bug['where']})")
    return 0


def summarise(report: Path) -> tuple[dict[str, int], collections.Counter[str]]:
    """Return the counts and the failure/skip reasons of one junit report."""
    counts = {"tests": 0, "passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    reasons: collections.Counter[str] = collections.Counter()
    if not report.exists():
        return counts, reasons
    for case in ET.parse(report).getroot().iter("testcase"):
        counts["tests"] += 1
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "errors"}.get(child.tag, "skipped")
                reason = _reason(child.text or child.get("message") or child.tag)
                reasons[f"{outcome}: {reason[:150]}"] += 1
        counts[outcome] += 1
    return counts, reasons


def _reason(text: str) -> str:
    """Return the exception line of a failure text (ids folded), or its first line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    picked = next(
        (line for line in reversed(lines) if re.match(r"^[\w.]+(Error|Exception|Failure)\b", line)),
        lines[0] if lines else "?",
    )
    if picked.startswith("Skipped: ") or picked.startswith("SKIP"):
        picked = lines[0]
    return re.sub(r"[0-9a-f-]{32,36}", "{id}", picked)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
