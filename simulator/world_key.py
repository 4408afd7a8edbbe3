"""The key that seals a world's secrets at rest, kept outside every world file.

A world file is something people share (attached to a bug, copied to a
colleague, kept in CI artefacts); the hidden parameter values inside it must
not travel with it. The store seals every row that holds one
(:mod:`simulator.store_seal`) with a Fernet key (AES-128-CBC with an
HMAC-SHA256, from the maintained ``cryptography`` library) that lives in the
*user's* configuration, not in the world:

* ``$PLUGSIM_KEY_FILE`` when set, else ``$XDG_CONFIG_HOME/plugsim/world.key``
  (``~/.config/plugsim/world.key``);
* created on first use, mode 0600 in a 0700 directory, and never rewritten;
* a world remembers only the key's *id* (the first 16 hex digits of its
  SHA-256), so a reader can say which key is missing without holding it.

A missing, unreadable or different key is a one-line
:class:`~sdk.exception.ConfigurationError` naming the key file and the key id
the world needs; plugsim never falls back to writing a secret in plain text.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from sdk import exception

#: The environment variable naming the key file.
KEY_FILE_ENV = "PLUGSIM_KEY_FILE"


class MissingWorldKey(exception.ConfigurationError):
    """The key a world's secrets were sealed with is not available."""


def key_file() -> Path:
    """Where this user's world key lives (``$PLUGSIM_KEY_FILE``, else the config dir)."""
    explicit = os.environ.get(KEY_FILE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "plugsim" / "world.key"


def key_id(key: bytes) -> str:
    """The public name of *key*: 16 hex digits of its SHA-256 (kept in the world)."""
    return hashlib.sha256(key.strip()).hexdigest()[:16]


def read_key(path: Path | None = None) -> bytes | None:
    """The key in *path* (default :func:`key_file`), or None when there is no such file."""
    path = path or key_file()
    try:
        data = path.read_bytes().strip()
    except FileNotFoundError:
        return None
    except OSError as ex:
        raise MissingWorldKey(
            f"{path}: the world key cannot be read ({ex.strerror or ex}); "
            f"fix its permissions or point {KEY_FILE_ENV} at a readable key file"
        ) from None
    _check(path, data)
    return data


def create_key(path: Path | None = None) -> bytes:
    """Make a new key at *path* (mode 0600); a key already there is kept and returned."""
    from cryptography.fernet import Fernet

    path = path or key_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        key = Fernet.generate_key()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        existing = read_key(path)
        if existing is None:  # removed between the two calls: try once more
            return create_key(path)
        return existing
    except OSError as ex:
        raise MissingWorldKey(
            f"{path}: cannot create the world key ({ex.strerror or ex}); "
            f"point {KEY_FILE_ENV} at a writable place"
        ) from None
    with os.fdopen(fd, "wb") as out:
        out.write(key + b"\n")
        out.flush()
        os.fsync(out.fileno())
    return key


def _check(path: Path, data: bytes) -> None:
    import base64
    import binascii

    try:
        raw = base64.urlsafe_b64decode(data)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise MissingWorldKey(
            f"{path}: not a plugsim world key (expected 44 characters of url-safe base64, "
            f"as `plugsim` writes on first use); restore the key file or point "
            f"{KEY_FILE_ENV} at the right one"
        )
