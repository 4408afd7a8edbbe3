"""Which code a project's ``plugsim.yaml`` may make plugsim run, and saying so.

A ``plugsim.yaml`` next to a template can list ``plugin_dirs``: Python files
plugsim imports. Three rules keep that from surprising anyone:

* **Confined.** Each directory must be inside the project directory (the one
  holding ``plugsim.yaml``); ``../elsewhere`` or an absolute path outside it
  is a :class:`sdk.exception.ConfigurationError` naming the file and the entry.
  (``--plugin-dir`` on the command line and ``plugin_dirs=`` in Python are
  the user's own choice and are not confined.)
* **Announced.** Before a project's plug-ins are loaded, one line goes to
  stderr: ``plugsim: loading plug-ins from DIR (plugin_dirs in FILE)``.
* **Opt-in for checking.** The stack commands (``stack create`` and the
  others, ``simulate``) run the project, so they load its plug-ins.
  ``template validate`` is how one looks at a template of unknown origin, so
  it loads none unless told to with ``--trust-project``
  (``World.validate_template(..., trust_project=True)``); an unknown type
  then says which directories were left out.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sdk import exception

#: The ``template validate`` flag that lets a project's plug-ins load.
TRUST_FLAG = "--trust-project"

_announced: set[tuple[str, str]] = set()


def project_plugin_dirs(
    project_dir: str | os.PathLike[str], dirs: Iterable[str], config_path: Any
) -> list[str]:
    """Resolve ``plugin_dirs`` entries of *config_path*; refuse any outside *project_dir*."""
    root = Path(project_dir).resolve()
    out = []
    for i, entry in enumerate(dirs):
        if "\0" in entry:
            raise exception.ConfigurationError(
                f"{config_path}: plugin_dirs[{i}]: {entry!r} contains a NUL byte"
            )
        target = (root / entry).resolve()
        if not target.is_relative_to(root):
            raise exception.ConfigurationError(
                f"{config_path}: plugin_dirs[{i}]: {entry} is outside the project directory "
                f"{root}; a project may load plug-ins only from inside it (give other "
                "directories with --plugin-dir)"
            )
        out.append(str(target))
    return out


def announce(dirs: Iterable[str], config_path: Any) -> None:
    """Tell stderr, once per process and directory, that plug-ins load from *dirs*."""
    for d in dirs:
        key = (str(d), str(config_path))
        if key in _announced:
            continue
        _announced.add(key)
        print(f"plugsim: loading plug-ins from {d} (plugin_dirs in {config_path})", file=sys.stderr)


def untrusted_hint(dirs: Iterable[str], config_path: Any) -> str:
    """The sentence added to a validation error when project plug-ins were left out."""
    listed = ", ".join(str(d) for d in dirs)
    return (
        f"(the plug-ins of {config_path} were not loaded: {listed}; template validate runs "
        f"no project code unless given {TRUST_FLAG})"
    )
