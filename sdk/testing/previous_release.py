"""Check a plug-in project against its previous release: ``python -m sdk.testing.previous_release``.

What the ``upgrade`` session of a generated project runs. From the project's root::

    python -m sdk.testing.previous_release PACKAGE [OLD]

finds the previous release, unpacks it into a temporary directory (never into the environment, which
holds the new version), then runs ``plugsim lint --against`` with the upgrade rules (PS8xx) and the
project's upgrade conformance test (``-k upgrade_from_previous_version``) with
:data:`UPGRADE_FROM_ENV` naming the old package directory. It exits 1 when either fails.

OLD is a wheel file, a directory holding the old version's packages (an unpacked wheel, a checkout) or
a git ref of the project (``v0.1.0``). Without OLD, the previous release is the newest wheel of the
project's distribution on the package index, fetched by ``pip download --no-deps`` (so ``PIP_INDEX_URL``,
``PIP_FIND_LINKS`` and ``PIP_NO_INDEX`` apply); when the index has none (a first release) there is
nothing to upgrade from: it says so and exits 0.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sdk._git_export import git_export
from sdk.exception import ConfigurationError

#: The environment variable the generated conformance test reads ``upgrade_from`` from.
UPGRADE_FROM_ENV = "PLUGSIM_UPGRADE_FROM"
#: What pip says when the index holds no distribution of that name (or none that fits).
_NOT_RELEASED = ("No matching distribution found", "Could not find a version that satisfies")
#: What pip says when it could not ask the index at all.
_UNREACHABLE = ("NewConnectionError", "ProxyError", "Max retries exceeded", "Temporary failure")


@dataclass
class Release:
    """An unpacked previous version: ``root`` holds its packages (at the top, or below ``src/``).

    ``against`` is what ``plugsim lint --against`` is given: the wheel, the directory or the git ref.
    """

    root: Path
    label: str
    against: str


def distribution_name(project: Path) -> str:
    """The ``[project] name`` of *project*'s ``pyproject.toml``."""
    path = project / "pyproject.toml"
    try:
        name = tomllib.loads(path.read_text(encoding="utf-8"))["project"]["name"]
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as ex:
        raise ConfigurationError(
            f"{path}: no [project] name to look the release up by ({ex})"
        ) from None
    return str(name)


def _unpack(wheel: Path, into: Path) -> Release:
    try:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(into)
    except (zipfile.BadZipFile, OSError) as ex:
        raise ConfigurationError(f"{wheel}: not a readable wheel ({ex})") from None
    parts = wheel.name.split("-")
    label = f"{parts[0]} {parts[1]}" if len(parts) > 2 else wheel.name
    return Release(into, label, str(wheel.resolve()))


def _download(dist: str, scratch: Path) -> Release | None:
    """The newest wheel of *dist* on the package index, unpacked; None when there is none."""
    target = scratch / "download"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        + ["--disable-pip-version-check", "--dest", str(target), dist],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        output = done.stdout + done.stderr
        if any(s in output for s in _NOT_RELEASED) and not any(s in output for s in _UNREACHABLE):
            return None
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ConfigurationError(f"pip download {dist}: {last}")
    wheels = sorted(target.glob("*.whl"))
    if not wheels:
        raise ConfigurationError(f"pip download {dist}: no wheel came back")
    return _unpack(wheels[-1], scratch / "old")


def _git(project: Path, ref: str, into: Path) -> Release:
    refused = f"{ref}: not a wheel, a directory or a git ref of {project}"
    return Release(git_export(project, ref, into, refused), f"git {ref}", ref)


def find_release(old: str | None, project: Path, dist: str, scratch: Path) -> Release | None:
    """The previous version named by *old* (see the module docstring), unpacked below *scratch*."""
    if not old:
        return _download(dist, scratch)
    path = Path(old)
    if path.is_dir():
        return Release(path.resolve(), str(path), str(path.resolve()))
    if path.suffix == ".whl":
        if not path.is_file():
            raise ConfigurationError(f"{old}: no such wheel")
        return _unpack(path, scratch / "old")
    return _git(project, old, scratch / "old")


def old_package(release: Release, package: str) -> Path:
    """The package directory of *package* in *release* (``src/`` layouts included)."""
    for candidate in (release.root / package, release.root / "src" / package):
        if candidate.is_dir():
            return candidate
    raise ConfigurationError(f"{release.label}: holds no package {package!r}")


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> int:
    print("$ python " + " ".join(args[1:]), flush=True)
    return subprocess.run(args, cwd=cwd, env=env, check=False).returncode


def check(package: str, old: str | None = None, project: Path | None = None) -> int:
    """Find the previous release and run both upgrade checks against it; the exit status."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", package):
        raise ConfigurationError(f"{package!r} is not a package name")
    project = (project or Path.cwd()).resolve()
    dist = distribution_name(project)
    with tempfile.TemporaryDirectory(prefix="plugsim-previous-") as scratch:
        release = find_release(old, project, dist, Path(scratch))
        if release is None:
            print(
                f"plugsim upgrade: the package index has no release of {dist} yet (a first "
                "release?): nothing to upgrade from; name one with OLD to check anyway"
            )
            return 0
        where = old_package(release, package)
        print(f"plugsim upgrade: {package} against {release.label}", flush=True)
        lint = _run(
            [sys.executable, "-m", "sdk.lint", "--select", "PS8", "--against", release.against]
            + [package],
            project,
        )
        env = {**os.environ, UPGRADE_FROM_ENV: str(where)}
        tests = _run(
            [sys.executable, "-m", "pytest", "-rs", "-k", "upgrade_from_previous_version"],
            project,
            env,
        )
    failed = [name for name, code in (("lint --against", lint), ("upgrade test", tests)) if code]
    print(f"plugsim upgrade: {', '.join(failed) + ' failed' if failed else 'kept working'}")
    return 1 if failed else 0


def main(argv: Sequence[str]) -> int:
    """Command line: ``PACKAGE [OLD]``; exits 2 with one line on bad input."""
    if not 1 <= len(argv) <= 2 or argv[0].startswith("-"):
        print("usage: python -m sdk.testing.previous_release PACKAGE [OLD]", file=sys.stderr)
        return 2
    try:
        return check(argv[0], argv[1] if len(argv) > 1 else None)
    except ConfigurationError as ex:
        print(f"plugsim upgrade: {ex}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
