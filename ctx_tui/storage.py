"""Atomic, locked file writes shared by every writer (TUI, CLI, hook processes).

Every state file under ``.ctx/`` and MEMORY.md is written through here:
the writer takes an exclusive lock on a sidecar ``<file>.lock`` (across
processes), writes a temp file in the same folder, fsyncs it and renames it
over the target, so a reader never sees half a file and two writers never
interleave. A symlinked file is written through (its target is replaced, the
link stays), modes are kept (new files follow the umask), and temp files left
by a killed writer are removed by the next write beside them. Files that must
never be replaced (handoffs) are
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

from ctx_tui.errors import CtxError

# Nor re, pathlib, contextlib or collections.abc at import time: the prompt hook
# delivers a restatement through locked, read_regular and append_line on
# string paths, and those imports (re with enum, pathlib with urllib.parse,
# ipaddress and fnmatch) were more than a bare Python start (docs/performance.md).
TYPE_CHECKING = False  # typing is not imported at run time (~4 ms): the status line and the hooks import this module
if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType
    from typing import Any, BinaryIO

try:
    import fcntl
except ImportError:  # Windows: filelock's own lock (see locked)
    fcntl = None  # type: ignore[assignment]  # no fcntl module on Windows

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

    def __init__(self, path: Path | str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({kind})", str(path))
        self.kind = kind  # "a FIFO", "a folder"...


class FileTooLarge(OSError):
    """A file larger than its reader accepts."""


def special_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO", "a folder"...), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_regular(path: Path | str) -> None:
    """Raise :class:`NotRegularFile` when ``path`` exists and is not a regular file (symlinks followed)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    kind = special_kind(mode)
    if kind is not None:
        raise NotRegularFile(path, kind)


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
            raise NotRegularFile(path, kind)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path | str, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (see :func:`open_regular`).

    With ``limit``, a file larger than that raises :class:`FileTooLarge`
    after reading at most ``limit + 1`` bytes.
    """
    with open_regular(path) as fh:
        data = fh.read() if limit is None else fh.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise FileTooLarge(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
    return data


def lock_path(path: Path | str) -> str:
    """The file whose flock guards ``path``: its name with ``.lock`` added, beside it."""
    return os.fspath(path) + ".lock"


class LockTimeout(CtxError):
    """Another process held a file's lock longer than the timeout."""


def _flock(target: str, timeout: float) -> int | None:
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


class locked:  # noqa: N801 (used as a function: ``with locked(path):``)
    """Hold the cross-process lock that guards ``path`` (read-modify-write).

    ``timeout`` 0 tries once. Raises :class:`LockTimeout` when the lock stays
    taken. A class rather than a ``contextlib.contextmanager``: the prompt hook
    does not import contextlib. ``path`` may be a string (the hooks' paths).
    """

    def __init__(self, path: Path | str, timeout: float = LOCK_TIMEOUT_S) -> None:
        self.path = os.fspath(path)
        self.timeout = timeout
        self._fd: int | None = None
        self._soft: Any = None  # filelock's lock, where flock is not there

    def __enter__(self) -> None:
        os.makedirs(os.path.dirname(self.path) or os.curdir, exist_ok=True)
        target = lock_path(self.path)
        self._fd = _flock(target, self.timeout) if fcntl is not None else None
        if self._fd is None:
            from filelock import FileLock, Timeout  # Windows, or a filesystem without flock

            soft = FileLock(target, timeout=self.timeout)
            try:
                soft.acquire()
            except Timeout:
                raise LockTimeout(f"{target}: locked by another process for over {self.timeout:g} s; try again") from None
            self._soft = soft

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._soft is not None:
            self._soft.release()
            self._soft = None
        elif self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


#: Temp files are named ``.<target name>.ctx-tui-<pid>-<random>.tmp``: recognisable, and the
#: writer's pid says whether a leftover's owner is still alive (compiled by the first write).
_TEMP_PATTERN = r"^\..+\.ctx-tui-(\d+)-[0-9a-f]{8}\.tmp$"
#: A temp file older than this whose writer is gone is a leftover of a killed process.
STALE_TEMP_S = 60.0


def temp_name(path: Path) -> Path:
    """A fresh temp name beside ``path`` (see ``_TEMP_PATTERN``)."""
    return path.with_name(f".{path.name}.ctx-tui-{os.getpid()}-{os.urandom(4).hex()}.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or not a pid): leave its file alone
    return True


def remove_stale_temps(folder: Path, now: float | None = None) -> list[Path]:
    """Remove ctx-tui temp files in ``folder`` older than ``STALE_TEMP_S`` whose writer is dead.

    Run before each write, so a process killed between writing its temp file
    and renaming it (``kill -9``, power loss) leaves nothing behind for long.
    """
    import re
    from pathlib import Path

    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    temp_re = re.compile(_TEMP_PATTERN)  # re's cache keeps it
    for entry in entries:
        match = temp_re.match(entry.name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime < STALE_TEMP_S or _alive(int(match.group(1))):
                continue
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def resolve_target(path: Path) -> Path:
    """Where a write to ``path`` lands: the file a symlink (or a chain of them) points to.

    Writing beside the symlink and renaming over it would replace the link with
    a plain file and leave its target (a dotfiles repo's MEMORY.md, say) stale.
    """
    if not os.path.islink(path):
        return path
    from pathlib import Path

    return Path(os.path.realpath(path))


def _write_temp(path: Path, payload: bytes, mode: int | None = None) -> Path:
    """Write ``payload`` to a fsynced temp file beside ``path`` and return its name.

    The temp file is created with 0o666, so the umask decides a new file's
    mode; ``mode`` (an existing file's) is set instead when given.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path.parent)
    tmp = temp_name(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_atomic(path: Path, data: bytes | str) -> None:
    """Replace ``path`` with ``data`` atomically (temp file + rename, same folder).

    A symlink is followed: the temp file is written beside the final target
    and renamed over it, so the link stays a link and its target gets the new
    text. An existing file keeps its mode; a new one gets 0o666 less the
    umask. The caller holds :func:`locked` when the write depends on what it read.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target = resolve_target(path)
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    tmp = _write_temp(target, payload, mode)
    try:
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def append_line(path: Path | str, line: str) -> None:
    """Append one line (newline added) under the file's lock, in a single write."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    with locked(path):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
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
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
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
