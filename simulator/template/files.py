"""Reading the files a template names: regular files only, bounded, inside the template's tree.

Every file plugsim reads for a stack goes through :func:`read_text`: the
template, environments, ``get_file`` targets, template resources and
``plugsim.yaml``. It opens without blocking and refuses anything but a
regular file (a named pipe or a device would hang or never end), refuses
files over ``max_template_size``, and turns a NUL byte in the name or an
unreadable file into one clear error.

:func:`inside` resolves a path a template names relative to the template's
directory and refuses absolute paths and paths that leave that directory
tree (``../outside/inner.yaml``, or a symbolic link pointing out).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from sdk import exception
from simulator.limits import DEFAULTS, Limits, check_size

#: ``source`` default of :func:`read_text`: the file's own name.
SELF: Any = object()


def _fail(message: str, source: str | None, path: Any) -> exception.StackValidationFailed:
    return exception.StackValidationFailed(message, source=source, path=path)


def check_name(name: Any, what: str, source: str | None = None, path: Any = None) -> None:
    """Refuse a file name that is not a non-empty string without NUL bytes."""
    if not isinstance(name, (str, os.PathLike)) or not os.fspath(name):
        raise _fail(f"{what} must be a file path, not {name!r}", source, path)
    if "\0" in str(os.fspath(name)):
        raise _fail(f"{what} {str(os.fspath(name))!r} contains a NUL byte", source, path)


def read_text(
    file: str | os.PathLike[str],
    what: str,
    *,
    limits: Limits = DEFAULTS,
    source: str | None = SELF,
    path: Any = None,
) -> str:
    """Return the UTF-8 text of the regular file *file*.

    *what* names the file in messages ("the template file", "get_file: x.txt");
    errors are :class:`sdk.exception.StackValidationFailed` naming *source*
    (default, :data:`SELF`: the file itself) and *path*.
    """
    name = str(file)
    source = name if source is SELF else source
    path = [] if path is None else path
    check_name(file, what, source, path)
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise _fail(f"{what} does not exist", source, path) from None
    except OSError as ex:
        raise _fail(f"{what} cannot be read: {ex.strerror or ex}", source, path) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise _fail(f"{what} is {kind}; only regular files can be read", source, path)
        check_size(info.st_size, what, limits, source=source, path=path)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limits.max_template_size + 1)
    check_size(len(data), what, limits, source=source, path=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as ex:
        raise _fail(
            f"{what} is not UTF-8 text: {ex.reason} at byte {ex.start}", source, path
        ) from None


def inside(
    base: str | os.PathLike[str],
    relative: str,
    what: str,
    *,
    source: str | None = None,
    path: Any = None,
) -> Path:
    """Resolve *relative* against the directory *base*; refuse anything outside its tree."""
    check_name(relative, what, source, path)
    root = Path(base).resolve()
    target = (root / relative).resolve()
    if os.path.isabs(relative) and target.is_relative_to(root):
        raise _fail(
            f'{what} "{relative}" is an absolute path; name files relative to the template\'s '
            "directory (or pass the content in the files map)",
            source,
            path,
        )
    if not target.is_relative_to(root):
        raise _fail(
            f'{what} "{relative}" is outside the template\'s directory ({root}); only files in '
            "that tree (or the files map) can be read",
            source,
            path,
        )
    return target
