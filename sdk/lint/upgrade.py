"""``plugsim lint --against OLD``: find the old version of the linted plug-ins and compare schemas.

OLD may be a directory (the old project's root), a wheel or sdist-free ``.whl`` file, an installed
distribution's name, or a git ref of the repository the linted paths live in. The linted paths are taken
relative to the project root (the nearest directory above them holding ``pyproject.toml``, ``setup.py`` or
``.git``) and looked up at the same place in OLD; in a wheel or an installed distribution, by their path
below the package directory. Each version's schemas are read by :mod:`sdk.lint.schema_dump` in an
interpreter of its own, so the two versions' modules never meet in one process.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk._git_export import git_export
from sdk.exception import ConfigurationError

_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


@dataclass
class Versions:
    """The old and the new schemas of the linted plug-ins (``types`` maps of :mod:`schema_dump`)."""

    old: dict[str, Any]
    new: dict[str, Any]
    against: str
    notes: list[str] = field(default_factory=list)


def project_root(path: Path) -> Path:
    """The nearest directory at or above *path* that looks like a project root."""
    here = path.resolve()
    here = here if here.is_dir() else here.parent
    for candidate in (here, *here.parents):
        if any((candidate / marker).exists() for marker in _MARKERS):
            return candidate
    return here


def _dump(root: Path, relative: Sequence[str]) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run(
        [sys.executable, "-m", "sdk.lint.schema_dump", str(root), *relative],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ConfigurationError(f"--against: reading the schemas under {root} failed: {last}")
    return json.loads(done.stdout)


def _git_checkout(root: Path, ref: str, into: Path) -> Path:
    return git_export(
        root, ref, into, f"--against {ref}: not a directory, wheel, distribution or git ref"
    )


def _installed(name: str) -> Path | None:
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    return Path(str(dist.locate_file("")))


def old_root(against: str, root: Path, scratch: Path) -> tuple[Path, bool]:
    """Where the old version lives, and whether it is laid out as installed (packages at its top)."""
    path = Path(against)
    if path.is_dir():
        return path.resolve(), False
    if path.is_file() and path.suffix == ".whl":
        try:
            with zipfile.ZipFile(path) as wheel:
                wheel.extractall(scratch)
        except zipfile.BadZipFile:
            raise ConfigurationError(f"--against {against}: not a readable wheel") from None
        return scratch, True
    installed = _installed(against)
    if installed is not None:
        return installed, True
    return _git_checkout(root, against, scratch), False


def compare(paths: Sequence[str | os.PathLike[str]], against: str) -> Versions:
    """Read the new schemas under *paths* and the old ones in *against* (see the module docstring)."""
    if not paths:
        raise ConfigurationError("--against needs the paths of the new version")
    root = project_root(Path(paths[0]))
    relative = [os.path.relpath(Path(p).resolve(), root) for p in paths]
    new = _dump(root, relative)
    with tempfile.TemporaryDirectory(prefix="plugsim-against-") as scratch:
        base, installed = old_root(against, root, Path(scratch))
        old_paths = relative
        if installed:  # a wheel or site-packages: packages sit at the top, without a src/ prefix
            old_paths = [_below_package(base, rel) for rel in relative]
        present = [p for p in old_paths if (base / p).exists()]
        notes = [f"{p}: not in {against}" for p in old_paths if p not in present]
        old = _dump(base, present) if present else {"types": {}, "errors": []}
    versions = Versions(old.get("types", {}), new.get("types", {}), against, notes)
    versions.notes += [f"old version: {e}" for e in old.get("errors", [])]
    return versions


def _below_package(base: Path, relative: str) -> str:
    parts = Path(relative).parts
    for start in range(len(parts)):
        candidate = Path(*parts[start:])
        if (base / candidate).exists():
            return str(candidate)
    return relative
