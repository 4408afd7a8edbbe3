"""Export one git ref of a working tree into a directory (``git archive`` piped to ``tar``).

Shared by ``plugsim lint --against REF`` and the previous-release finder of the
upgrade session: both read an older version of a project from its own history.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from sdk.exception import ConfigurationError


def git_export(project: Path, ref: str, into: Path, refused: str) -> Path:
    """Write the tree of *ref* in *project* under *into* (made if missing) and return *into*.

    A ref git cannot archive raises :class:`ConfigurationError` with *refused*
    and git's last line of complaint.
    """
    archive = subprocess.run(
        ["git", "-C", str(project), "archive", "--format=tar", ref],
        capture_output=True,
        timeout=120,
        check=False,
    )
    if archive.returncode != 0:
        reason = archive.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
        raise ConfigurationError(f"{refused} ({reason[0]})")
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True, timeout=120)
    return into
