"""Atomic, locked file writes shared by every writer (TUI, CLI, hook processes).

Every state file under ``.ctx/`` and MEMORY.md is written through here:
the writer takes an exclusive lock on a sidecar ``<file>.lock`` (across
processes), writes a temp file in the same folder, fsyncs it and renames it
over the target, so a reader never sees half a file and two writers never
interleave. Files that must never be replaced (handoffs) are
created with :func:`create_exclusive`.

Every file ctx-tui reads by a path it did not create goes through
:func:`open_regular`: a FIFO, a device or a folder at that path is refused
before a read could block on it or never end.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from ctx_tui.errors import CtxError

try:
    import fcntl
except ImportError:  # Windows: filelock's own lock (see locked)
    fcntl = None  # type: ignore[assignment]

LOCK_TIMEOUT_S = 10.0
#: How often a waiting writer tries the lock again.
LOCK_POLL_S = 0.02
#: flock errors of a filesystem without flock (some network mounts): filelock's soft lock then.
_NO_FLOCK = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS}
#: :func:`create_exclusive` gives up after this many taken names (something is badly wrong then).
MAX_SUFFIX = 10_000


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(OSError):
    """A path that names a FIFO, device, socket or folder where a file was expected."""


def special_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO", "a folder"...), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _refuse(path: Path | str, kind: str) -> NotRegularFile:
    return NotRegularFile(errno.EINVAL, f"not a regular file ({kind})", str(path))


def check_regular(path: Path | str) -> None:
    """Raise :class:`NotRegularFile` when ``path`` exists and is not a regular file (symlinks followed)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    kind = special_kind(mode)
    if kind is not None:
        raise _refuse(path, kind)


def open_regular(path: Path | str, buffering: int = -1) -> BinaryIO:
    """Open ``path`` for binary reading; a FIFO, device, socket or folder raises :class:`NotRegularFile`.

    The file is opened non-blocking (opening a FIFO then returns at once instead
    of waiting for a writer) and checked with ``fstat`` on the opened
    descriptor, so a regular file swapped for a FIFO after a ``stat`` is still
    refused; a device is refused by ``stat`` before it is opened at all.
    """
    check_regular(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        kind = special_kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise _refuse(path, kind)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path | str) -> bytes:
    """The bytes of the regular file ``path`` (see :func:`open_regular`)."""
    with open_regular(path) as fh:
        return fh.read()


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


class LockTimeout(CtxError):
    """Another process held a file's lock longer than the timeout."""


def _flock(target: Path, timeout: float) -> int | None:
    """An open descriptor of ``target`` holding its exclusive flock; None when the filesystem has no flock.

    The same lock ``filelock`` takes on POSIX (``flock`` on the ``.lock`` file,
    which stays in place), without its import: ``import filelock`` costs more
    CPU than the interpreter's start-up, and the prompt hook takes this lock
    whenever it delivers a restatement. Raises :class:`LockTimeout`.
    """
    deadline = time.monotonic() + timeout
    while True:
        fd = os.open(target, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                raise LockTimeout(f"{target}: locked by another process for over {timeout:g} s; try again") from None
            time.sleep(LOCK_POLL_S)
            continue
        except OSError as exc:
            os.close(fd)
            if exc.errno in _NO_FLOCK:
                return None
            raise
        try:
            same = os.fstat(fd).st_ino == os.stat(target).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # the lock file was replaced while we waited: lock the one in place


@contextmanager
def locked(path: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the cross-process lock that guards ``path`` (read-modify-write).

    ``timeout`` 0 tries once. Raises :class:`LockTimeout` when the lock stays taken.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    target = lock_path(path)
    fd = _flock(target, timeout) if fcntl is not None else None
    if fd is None:
        from filelock import FileLock, Timeout  # Windows, or a filesystem without flock

        try:
            with FileLock(str(target), timeout=timeout):
                yield
        except Timeout:
            raise LockTimeout(f"{target}: locked by another process for over {timeout:g} s; try again") from None
        return
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _write_temp(path: Path, payload: bytes) -> str:
    """Write ``payload`` to a fsynced temp file beside ``path`` and return its name."""
    import tempfile  # not at the top: the prompt hook imports this module and never writes a temp file

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_atomic(path: Path, data: bytes | str) -> None:
    """Replace ``path`` with ``data`` atomically (temp file + rename, same folder).

    The caller holds :func:`locked` when the write depends on what it read.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = _write_temp(path, payload)
    try:
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


def _numbered(path: Path, n: int) -> Path:
    """``path`` itself for 1, else ``name-N.ext`` (``report.yaml`` -> ``report-2.yaml``)."""
    return path if n == 1 else path.with_name(f"{path.stem}-{n}{path.suffix}")


def _open_exclusive(path: Path, start: int, payload: bytes) -> Path:
    """Fallback without hard links: ``O_EXCL`` create, then write (a reader may see it growing)."""
    for n in range(start, MAX_SUFFIX + 1):
        target = _numbered(path, n)
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        return target
    raise CtxError(f"{path.parent}: more than {MAX_SUFFIX} files named {path.stem}*{path.suffix}; not writing another")


def create_exclusive(path: Path, data: bytes | str) -> Path:
    """Create a new file with ``data`` at ``path`` or, when taken, ``name-2.ext``, ``-3``, ...; return where.

    Never overwrites: the data is written complete to a temp file in the same
    folder, fsynced, then hard-linked to the first free name. ``link`` fails
    when the name exists, so two processes racing for a name each get their
    own, and a reader never sees half a file (unlike :func:`write_atomic`, whose
    rename replaces an existing target). Where the filesystem has no hard
    links (some network / FUSE mounts) it falls back to an ``O_EXCL`` create.
    No lock is needed. Raises ``CtxError`` after ``MAX_SUFFIX`` taken names and
    ``OSError`` for other filesystem failures.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = _write_temp(path, payload)
    try:
        os.chmod(tmp, 0o644)
        for n in range(1, MAX_SUFFIX + 1):
            target = _numbered(path, n)
            try:
                os.link(tmp, target)
            except FileExistsError:
                continue
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                    raise
                return _open_exclusive(path, n, payload)
            return target
        raise CtxError(
            f"{path.parent}: more than {MAX_SUFFIX} files named {path.stem}*{path.suffix}; not writing another"
        )
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
