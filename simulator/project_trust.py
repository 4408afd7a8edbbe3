"""Which code a project's ``plugsim.yaml`` may make plugsim run, and saying so.

A ``plugsim.yaml`` next to a template can list ``plugin_dirs``: Python files
plugsim imports, and ``lifecycle_plugins``. Four rules keep that from
surprising anyone:

* **Confined.** Each directory must be inside the project directory (the one
  holding ``plugsim.yaml``); ``../elsewhere`` or an absolute path outside it
  is a :class:`sdk.exception.ConfigurationError` naming the file and the entry.
  (``--plugin-dir`` on the command line and ``plugin_dirs=`` in Python are
  the user's own choice and are not confined.)
* **Trusted once, remembered.** On the command line (every command: ``simulate``,
  ``stack ...``, ``template ...``, ``serve``, ``campaign``, ``conformance``,
  ``lint``) a project's code runs only once the user has trusted the project:
  ``plugsim trust DIR`` records the project directory and the SHA-256 of its
  ``plugsim.yaml`` in a file of the user's own (:func:`trust_file`), as
  ``direnv allow`` does. Editing ``plugsim.yaml`` withdraws the trust until it
  is given again. ``plugsim --trust-project ...`` trusts for one run only.
  A command that would run untrusted project code stops with one line naming
  the file and the command that trusts it (:class:`UntrustedProject`); the
  ``template`` commands, which look at templates of unknown origin, load no
  project code instead and say so when a type is then unknown.
* **Announced.** Before a project's plug-ins are loaded, one line goes to
  stderr: ``plugsim: loading plug-ins from DIR (plugin_dirs in FILE)``.
* **Python callers choose.** Code that calls the engine's Python API
  (``World.create_stack``, the test kit) is the user's own program and is not
  asked; :func:`enforcing` is how the command line switches the rule on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from sdk import exception

#: The project configuration file next to a template (read by :mod:`simulator.project_config`).
CONFIG_NAME = "plugsim.yaml"
#: The flag that trusts a project for one run (global, and on the ``template`` commands).
TRUST_FLAG = "--trust-project"
#: Environment variable naming the trust file (default under the user's config directory).
TRUST_FILE_ENV = "PLUGSIM_TRUST_FILE"

_announced: set[tuple[str, str]] = set()

#: ``None``: Python API (trust); ``"store"``: the command line, trust file only;
#: ``"run"``: the command line with --trust-project. A process-wide setting (not a
#: context variable) so that the threads of ``plugsim serve`` see it too.
_policy: str | None = None


class UntrustedProject(exception.ConfigurationError):
    """A command would run the code of a project the user has not trusted."""


def trust_file() -> Path:
    """Where the trust decisions are kept: ``$PLUGSIM_TRUST_FILE``, else the config dir."""
    explicit = os.environ.get(TRUST_FILE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "plugsim" / "trusted-projects.json"


def config_digest(config_path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a ``plugsim.yaml`` (what a trust decision is bound to)."""
    return hashlib.sha256(Path(config_path).read_bytes()).hexdigest()


def trusted_projects() -> dict[str, str]:
    """Trusted project directories and the digest of their ``plugsim.yaml`` when trusted."""
    path = trust_file()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as ex:
        raise exception.ConfigurationError(
            f"{path}: the trusted-projects file cannot be read ({ex}); fix or delete it"
        ) from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise exception.ConfigurationError(
            f"{path}: expected a map of project directories to digests; fix or delete it"
        )
    return {str(k): v for k, v in data.items()}


def _write(entries: dict[str, str]) -> None:
    path = trust_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(dict(sorted(entries.items())), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def project_config(project_dir: str | os.PathLike[str]) -> Path:
    """The ``plugsim.yaml`` of *project_dir* (which must exist)."""
    config = Path(project_dir).resolve() / CONFIG_NAME
    if not config.is_file():
        raise exception.ConfigurationError(f"{config}: no such file; nothing to trust there")
    return config


def trust(project_dir: str | os.PathLike[str]) -> Path:
    """Trust *project_dir*'s ``plugsim.yaml`` as it is now; return the config's path."""
    config = project_config(project_dir)
    entries = trusted_projects()
    entries[str(config.parent)] = config_digest(config)
    _write(entries)
    return config


def revoke(project_dir: str | os.PathLike[str]) -> bool:
    """Forget the trust in *project_dir*; return whether it was trusted."""
    entries = trusted_projects()
    found = entries.pop(str(Path(project_dir).resolve()), None) is not None
    if found:
        _write(entries)
    return found


def is_trusted(config_path: str | os.PathLike[str]) -> bool:
    """Whether the user trusted this ``plugsim.yaml`` as it is now."""
    config = Path(config_path).resolve()
    recorded = trusted_projects().get(str(config.parent))
    return recorded is not None and recorded == config_digest(config)


@contextlib.contextmanager
def enforcing(trust_this_run: bool = False) -> Iterator[None]:
    """Apply the trust rule (the command line) for the duration of the block."""
    global _policy
    before, _policy = _policy, ("run" if trust_this_run else "store")
    try:
        yield
    finally:
        _policy = before


def handover() -> tuple[str | None, str]:
    """This process's trust rule and trust file, for the worker processes it hands work to."""
    return _policy, str(trust_file())


@contextlib.contextmanager
def applied(rule: tuple[str | None, str]) -> Iterator[None]:
    """Apply a :func:`handover` from the process that handed out the work, for a block.

    A campaign's worker processes start without the command line's rule, and a pool's workers
    keep the environment of the moment the pool's fork server started; the work they are given
    carries both, so that a worker refuses what the command itself would refuse.
    """
    global _policy
    before = _policy, os.environ.get(TRUST_FILE_ENV)
    _policy, os.environ[TRUST_FILE_ENV] = rule
    try:
        yield
    finally:
        _policy = before[0]
        if before[1] is None:
            os.environ.pop(TRUST_FILE_ENV, None)
        else:
            os.environ[TRUST_FILE_ENV] = before[1]


def trust_this_run() -> None:
    """Trust every project for the rest of this command (a ``--trust-project`` flag)."""
    global _policy
    if _policy is not None:
        _policy = "run"


def may_run(config_path: str | os.PathLike[str], wanted: bool) -> bool:
    """Whether the code a ``plugsim.yaml`` lists may run; raise when it must and may not.

    *wanted*: the caller runs the project (stack commands) rather than only
    looking at its template. Python callers are never asked.
    """
    if _policy is None:
        return wanted
    if _policy == "run" or is_trusted(config_path):
        return True
    if wanted:
        raise UntrustedProject(untrusted_message(config_path))
    return False


def untrusted_message(config_path: str | os.PathLike[str]) -> str:
    """The one line that says a project's code was not run and how to allow it."""
    config = Path(config_path).resolve()
    changed = str(config.parent) in trusted_projects()
    why = "changed since you trusted it" if changed else "is not trusted"
    return (
        f"{config}: this project lists code for plugsim to run and {why}; "
        f"read it, then run: plugsim trust {shlex.quote(_shown(config.parent))} "
        f"(or add {TRUST_FLAG} after plugsim for this run only)"
    )


def _shown(directory: Path) -> str:
    """*directory* relative to the working directory when it is below it."""
    try:
        return str(directory.relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(directory)


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
    project = shlex.quote(_shown(Path(config_path).resolve().parent))
    return (
        f"(the plug-ins of {config_path} were not loaded: {listed}; plugsim runs a "
        f"project's code once you trust it: plugsim trust {project}, or {TRUST_FLAG} "
        "for one run)"
    )
