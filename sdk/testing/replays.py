"""Replay material that outlives the run: ``.plugsim/replays/<id>/`` (or ``--out``).

``plugsim conformance`` writes the test module it generates there (with a
``pytest.ini`` that pins pytest's rootdir to the folder, so each test keeps
its node id and therefore its seed when run again from anywhere), and after
the run ``failures.txt``: each failing test, its replay line and its verdict.
``plugsim campaign`` writes each finding's shrunk fault profile, drift
schedule and template under ``<folder>/shrunk/``. Every line the kit prints
to replay a failure names files in that folder and works once the run has
ended.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

#: Where replay material goes when no ``--out`` is given (relative to the current directory).
DEFAULT_ROOT = Path(".plugsim") / "replays"

_INI = """# Written by plugsim: keeps this folder pytest's rootdir, so each test keeps its seed.
[pytest]
"""
#: pytest-asyncio's option, written only where pytest-asyncio is installed (elsewhere pytest
#: would warn about an unknown option on every run).
_ASYNCIO_INI = "asyncio_default_fixture_loop_scope = function\n"


def slug(text: str) -> str:
    """*text* as a folder name: letters, digits, ``-`` and ``_`` only."""
    name = Path(text.rstrip("/\\")).name or text
    if name.endswith(".py"):
        name = name[:-3]
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "target"


def replay_folder(
    out: str | os.PathLike[str] | None,
    target: str,
    kind: str = "conformance",
    *,
    create: bool = True,
) -> Path:
    """The folder of one run's replay material: *out*, else ``.plugsim/replays/<kind>-<target>``
    under the current directory (absolute; made now when *create*, else by whoever writes)."""
    folder = Path(out) if out is not None else DEFAULT_ROOT / f"{kind}-{slug(target)}"
    folder = folder.resolve()
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_runner(folder: Path, module: str, name: str = "test_plugsim_conformance.py") -> Path:
    """Write the generated test *module* and the folder's ``pytest.ini``; return the module's path."""
    import importlib.util

    asyncio = _ASYNCIO_INI if importlib.util.find_spec("pytest_asyncio") else ""
    (folder / "pytest.ini").write_text(_INI + asyncio, encoding="utf-8")
    runner = folder / name
    runner.write_text(module, encoding="utf-8")
    return runner


def shown(path: Path) -> str:
    """*path* relative to the current directory when it lies below it, else absolute."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class FailureLog:
    """A pytest plugin object that keeps each failing test's plugsim section (verdict, replay)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.texts: list[str] = []
        #: each failure's verdict hint ("" when it has none), in the order they failed
        self.hints: list[str] = []

    def pytest_runtest_logreport(self, report: Any) -> None:
        """Keep the replay line and message of a failed test phase."""
        if not report.failed:
            return
        section = next((text for name, text in report.sections if name == "plugsim"), "")
        replay = next(
            (line[8:] for line in section.splitlines() if line.startswith("replay: ")), ""
        )
        self.lines.append(f"{report.nodeid} ({report.when}): {replay or 'no replay line'}")
        message = str(getattr(report, "longreprtext", "") or "")
        verdict = [line[4:] for line in message.splitlines() if line.startswith("E   ")]
        self.texts.append("\n".join([f"== {report.nodeid}", f"replay: {replay}", *verdict]))
        hints = (line.strip()[5:].strip() for line in verdict if line.strip().startswith("hint:"))
        self.hints.append(next(hints, ""))

    def shared_hint(self) -> tuple[str, int] | None:
        """The hint most failures give and how many give it, when more than one does (the first
        such hint on a tie): many failures with one cause are one thing to fix."""
        best = Counter(hint for hint in self.hints if hint).most_common(1)
        return best[0] if best and best[0][1] > 1 else None

    def write(self, folder: Path) -> Path:
        """Write ``failures.txt`` in *folder* (empty when nothing failed); return its path."""
        path = folder / "failures.txt"
        body = "\n\n".join(self.texts)
        path.write_text(body + ("\n" if body else ""), encoding="utf-8")
        return path
