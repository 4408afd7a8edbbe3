"""Run heat-tempest-plugin's gabbi API tests against ``plugsim serve`` and summarise them.

Usage: ``python tools/heat_gabbi.py GABBITS_DIR WORKDIR``

GABBITS_DIR is ``heat_tempest_plugin/tests/api/gabbits`` of a heat-tempest-plugin
checkout (fetched, never committed). The plug-in's own loader needs tempest and
its configuration only to find the endpoint and a token; this runner gets both
from a ``plugsim serve`` it starts on a fresh world in WORKDIR (the bootstrap
admin's token, the ``orchestration`` endpoint of the catalog) and hands the
YAML files to gabbi (``pip install gabbi``) exactly as the plug-in does:
``$ENVIRON['OS_TOKEN']``, ``$ENVIRON['PREFIX']`` and the
``AuthenticationFixture`` the files name. Prints passed/failed per file and the
first line of every failure; exit status 0 (a measurement, not a gate).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import types
import unittest
from pathlib import Path


def _fixture_module() -> types.ModuleType:
    from gabbi import fixture

    class AuthenticationFixture(fixture.GabbiFixture):
        """The plug-in's fixture: the token is in the environment already."""

        def start_fixture(self) -> None:
            assert os.environ.get("OS_TOKEN")

        def stop_fixture(self) -> None:
            return None

    module = types.ModuleType("plugsim_gabbi_fixtures")
    module.AuthenticationFixture = AuthenticationFixture  # type: ignore[attr-defined]
    return module


def main(argv: list[str]) -> int:
    """Start a server, run every gabbi file of ``argv[0]`` against it, print the figures."""
    gabbits, workdir = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "w.db").unlink(missing_ok=True)
    plugsim = Path(sys.executable).with_name("plugsim")
    args = [str(plugsim), "serve", "--port", "0", "--state", str(workdir / "w.db")]
    args += ["--time-scale", "50", "--seed", "1", "--report", str(workdir / "unserved.json")]
    server = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()  # type: ignore[union-attr]
        if not line.startswith("auth URL:"):
            print(f"plugsim serve did not start: {line!r}", file=sys.stderr)
            return 1
        auth_url = line.split(": ", 1)[1].strip()
        from gabbi import driver
        from keystoneauth1 import session as ks_session
        from keystoneauth1.identity import v3

        sess = ks_session.Session(
            auth=v3.Password(
                auth_url=auth_url,
                username="admin",
                password="plugsim",
                project_name="admin",
                user_domain_id="default",
                project_domain_id="default",
            )
        )
        endpoint = sess.get_endpoint(service_type="orchestration", interface="public")
        os.environ["OS_TOKEN"] = sess.get_token()
        os.environ["PREFIX"] = "api-plugsim"
        loader = unittest.TestLoader()
        rows = []
        for path in sorted(gabbits.glob("*.yaml")):
            single = workdir / "one"
            single.mkdir(exist_ok=True)
            for old in single.glob("*.yaml"):
                old.unlink()
            (single / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
            suite = driver.build_tests(
                str(single),
                loader,
                url=endpoint,
                host="",
                fixture_module=_fixture_module(),
                test_loader_name="heat_gabbi",
            )
            result = unittest.TextTestRunner(stream=open(os.devnull, "w"), verbosity=0).run(suite)
            failed = [*result.failures, *result.errors]
            rows.append((path.stem, result.testsRun, len(failed), len(result.skipped), failed))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    print("\nfile             tests  passed  failed  skipped")
    for name, total, failed, skipped, _ in rows:
        passed = total - failed - skipped
        print(f"{name:<16} {total:>5} {passed:>7} {failed:>7} {skipped:>8}")
    total = sum(r[1] for r in rows)
    passed = sum(r[1] - r[2] - r[3] for r in rows)
    print(f"{'all':<16} {total:>5} {passed:>7}")
    for name, _, _, _, failed in rows:
        for case, text in failed:
            last = [ln for ln in text.strip().splitlines() if ln.strip()][-1]
            print(f"- {name}: {case.id().rsplit('.', 1)[-1]}: {last[:300]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
