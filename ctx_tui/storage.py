"""Atomic, locked file writes shared by every writer (TUI, CLI, hook processes).

Every state file under ``.ctx/`` and MEMORY.md is written through here:
the writer takes an exclusive lock on a sidecar ``<file>.lock`` (``filelock``,
which works across processes), writes a temp file in the same folder, fsyncs
it and renames it over the target, so a reader never sees half a file and two
writers never interleave.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

LOCK_TIMEOUT_S = 10.0


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@contextmanager
def locked(path: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the cross-process lock that guards ``path`` (read-modify-write)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(lock_path(path)), timeout=timeout):
        yield


def write_atomic(path: Path, data: bytes | str) -> None:
    """Replace ``path`` with ``data`` atomically (temp file + rename, same folder).

    The caller holds :func:`locked` when the write depends on what it read.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def append_line(path: Path, line: str) -> None:
    """Append one line (newline added) under the file's lock, in a single write."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    with locked(path):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
