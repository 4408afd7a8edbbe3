"""Large object bodies as files beside the world file, never whole in memory.

A :class:`BlobStore` is a directory (``<world file>-blobs/``) of immutable
files named by the SHA-256 of their content. The object storage service keeps
an object larger than :data:`INLINE_BYTES` there and records only the name
(its *ref*) in the object's entity; smaller objects stay inline in the world
file as before.

Order of durability. A body is streamed from the socket into a temporary
file of the directory (:meth:`BlobStore.spool`), hashed as it arrives, closed,
then renamed to its ref (:meth:`BlobStore.adopt`) before the entity naming it
is committed; the ``201`` waits for that commit. So a committed object's
bytes are always on disk: a process killed at any instant leaves at worst a
temporary file or a file no committed entity names, and both are removed
when the world is next opened (:meth:`BlobStore.collect`). Files survive the
process being killed as the world file's own commits do (the data was
handed to the kernel); like the world file, they are not ``fsync``-ed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

#: Objects larger than this are kept as files (smaller ones inline in the world file).
INLINE_BYTES = 1024 * 1024
#: Bytes read from the socket or a file at a time.
CHUNK = 1024 * 1024
_TEMP_PREFIX = ".upload-"


class BodyTooLarge(Exception):
    """A body went past its limit while being read (a chunked body without a length)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the body is larger than {limit} bytes")
        self.limit = limit


def read_chunks(stream: IO[bytes], length: int | None, limit: int) -> Iterator[bytes]:
    """*stream*'s body in chunks of at most :data:`CHUNK` bytes: *length* bytes, or to the
    end when it is None; more than *limit* bytes in all is :class:`BodyTooLarge`."""
    size = 0
    while length is None or size < length:
        data = stream.read(CHUNK if length is None else min(CHUNK, length - size))
        if not data:
            return
        size += len(data)
        if size > limit:
            raise BodyTooLarge(limit)
        yield data


@dataclass
class Spooled:
    """A body read into a temporary file of a :class:`BlobStore`, not yet an object's."""

    path: Path
    size: int
    md5: str
    sha256: str


class BlobStore:
    """Immutable content-named files of one world (see the module docstring)."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        referenced: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        """Keep blobs in *directory*; *referenced* lists the refs the world's entities name."""
        self.directory = Path(directory)
        self._referenced = referenced
        #: a blob stopped being named by an entity since the last collection
        self.released = False

    def committed(self) -> None:
        """The world was just committed: remove the files no entity names any more.

        Right after a commit the running world and the world file agree, so a
        file the running world does not name is named by no committed state.
        """
        if self.released and self._referenced is not None:
            self.released = False
            self.collect(self._referenced())

    def _ensure(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)

    def spool(self, stream: IO[bytes], length: int | None, limit: int) -> Spooled:
        """Read *stream* (*length* bytes, or to its end when None) into a temporary file.

        Never holds more than :data:`CHUNK` bytes in memory. More than *limit*
        bytes is :class:`BodyTooLarge` (the file is removed).
        """
        self._ensure()
        md5 = hashlib.md5(usedforsecurity=False)
        sha = hashlib.sha256()
        fd, name = tempfile.mkstemp(prefix=_TEMP_PREFIX, dir=self.directory)
        size = 0
        try:
            with os.fdopen(fd, "wb") as out:
                for data in read_chunks(stream, length, limit):
                    size += len(data)
                    md5.update(data)
                    sha.update(data)
                    out.write(data)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise
        return Spooled(Path(name), size, md5.hexdigest(), sha.hexdigest())

    def adopt(self, spooled: Spooled) -> str:
        """Make a spooled body a blob; return its ref (the same content shares one file)."""
        target = self.directory / spooled.sha256
        os.replace(spooled.path, target)
        return spooled.sha256

    def discard(self, spooled: Spooled) -> None:
        """Remove a spooled body nobody adopted."""
        with contextlib.suppress(OSError):
            os.unlink(spooled.path)

    def path(self, ref: str) -> Path:
        """The file of *ref*."""
        if not ref or "/" in ref or ref.startswith("."):
            raise ValueError(f"not a blob ref: {ref!r}")
        return self.directory / ref

    def read(self, ref: str) -> bytes:
        """The whole content of *ref* (for Python callers; the wire streams it)."""
        return self.path(ref).read_bytes()

    def chunks(self, ref: str) -> Iterator[bytes]:
        """The content of *ref*, :data:`CHUNK` bytes at a time.

        The file is opened now (a later collection cannot take it away from a
        reader) and closed when the iteration ends.
        """
        fh = open(self.path(ref), "rb")  # noqa: SIM115 - closed by the generator

        def read() -> Iterator[bytes]:
            with fh:
                while data := fh.read(CHUNK):
                    yield data

        return read()

    def collect(self, referenced: Iterable[str], *, uploads: bool = False) -> int:
        """Remove every file no ref in *referenced* names; return how many.

        With *uploads*, also the temporary files of uploads (only when no
        upload can be running: when the world is opened).
        """
        if not self.directory.is_dir():
            return 0
        keep = set(referenced)
        removed = 0
        for entry in os.scandir(self.directory):
            if entry.name in keep or not entry.is_file():
                continue
            if entry.name.startswith(_TEMP_PREFIX) and not uploads:
                continue
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed += 1
        return removed


def attach(cloud: object, directory: str | os.PathLike[str], *, collect: bool) -> BlobStore:
    """Give *cloud* the blob store at *directory*; with *collect*, drop unreferenced files.

    *collect* is for the world's one writer when it opens the world: no upload
    can be running then, so leftover uploads go too.
    """
    store = BlobStore(directory, referenced=lambda: referenced(cloud))
    cloud.blobs = store  # type: ignore[attr-defined]
    if collect:
        store.collect(referenced(cloud), uploads=True)
    return store


def referenced(cloud: object) -> set[str]:
    """The refs the entities of *cloud* name (``attrs["blob"]`` of any entity)."""
    refs: set[str] = set()
    services = getattr(cloud, "_services", {})
    for svc in services.values():
        for kind in svc._store.values():
            for ent in kind.values():
                ref = ent.attrs.get("blob")
                if ref:
                    refs.add(ref)
    return refs
