"""ctx-tui's disposable per-user cache (``$XDG_CACHE_HOME/ctx-tui``, default ``~/.cache/ctx-tui``).

Seven kinds of small files live here (JSON, but the regular expressions' programs):

* ``statusline/<key>.json``: what ``ctx-tui statusline`` read of one
  transcript (byte offset, file identity, the usage figure), so the next call
  reads only the bytes appended since;
* ``claude-code/<session>.json``: the latest context figures Claude Code
  itself sent to the status line for a session (window size, usage). The
  dashboard and ``stats`` size the window by it and say "reported by Claude
  Code" (see :func:`claude_code_report`);
* ``everyday-words.json``: the everyday English words :mod:`ctx_tui.english`
  found in the word counts, so a later process does not rank them again;
* ``lexicon.json``: the concept lexicon as :mod:`ctx_tui.mentions` compiled it
  (its words stemmed), by a digest of what compiling reads, so a later process
  does not compile it again;
* ``everyday-keys.json``: those everyday words as the matcher's term keys
  (stemmed), by that digest and the word counts', so a later process does not
  stem them again;
* ``help.json``: ``ctx-tui --help``'s text as argparse rendered it, by the
  terminal's width and what the text follows from (``ctx_tui.cli.print_top_help``);
* ``regex.marshal``: the programs ``re`` compiled ctx-tui's regular expressions
  to, by Python's version (:mod:`ctx_tui.regex_cache`), so a later process does
  not compile them again.

Everything here may be deleted at any time: it is rebuilt on the next call.
Writes are atomic (temp file + rename, no fsync: a lost cache costs one cold
read). Only ``os``, ``stat``, :mod:`ctx_tui.json_light` (json's own answers without
its ``re``) and the built-in ``_thread`` are imported: the status line runs this on
every message.
"""

from __future__ import annotations

import os
import stat
from _thread import get_ident  # built in (threading's own): the status line's start is not slowed

from ctx_tui import json_light

TYPE_CHECKING = False  # typing is not imported at run time (~4 ms): ctx-tui statusline imports this module
if TYPE_CHECKING:
    from typing import Any

APP = "ctx-tui"
CLAUDE_CODE_DIR = "claude-code"


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, APP)


def file_key(text: str) -> str:
    """A short file-name-safe key for ``text`` (a path): two independent 32-bit hashes."""
    import zlib

    data = text.encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def safe_stem(text: str) -> str:
    """``text`` (a session id) as a file name: letters, digits, ``-``, ``_`` and ``.`` only."""
    cleaned = "".join(c if (c.isalnum() or c in "-_.") else "-" for c in text).replace("..", "-").strip(".-")
    return cleaned[:80] or file_key(text)


def read_json(path: str) -> Any:
    """The JSON in ``path``; None when missing, unreadable, damaged (nested too deep too) or not a regular file (a cache is
    never an error, and a FIFO or device at the path must not block the status line or a hook)."""
    data = read_bytes(path, 1 << 20)
    if data is None:
        return None
    try:
        return json_light.loads(data)
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deep (a damaged or planted file)
        return None


def read_bytes(path: str, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of ``path``; None when missing, unreadable or not a regular file (see :func:`read_json`)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with open(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return fh.read(limit)
    except OSError:
        return None


def write_json(path: str, data: Any) -> None:
    """Replace ``path`` with ``data`` atomically; creates the folder (private to the user)."""
    write_bytes(path, json_light.dumps(data).encode("utf-8"))


def write_bytes(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (see :func:`write_json`)."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.{get_ident()}.tmp"  # each thread its own: two writing at once never share one
    try:
        os.unlink(tmp)  # a leftover of a killed process with this pid
    except FileNotFoundError:
        pass
    try:
        # A new file only: never written through a link planted at the temporary name.
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600), "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def kept(path: str, source: str) -> Any:
    """The value kept at ``path`` (by :func:`keep`) for ``source`` (a digest of what the value was made from);
    None when the file holds none for it: missing, damaged, or kept for another source."""
    data = read_json(path)
    return data.get("value") if isinstance(data, dict) and data.get("source") == source else None


def keep(path: str, source: str, value: Any) -> None:
    """Keep ``value``, made from ``source``, at ``path`` for :func:`kept`; a failed write is skipped (a cache:
    the next process makes the value again)."""
    try:
        write_json(path, {"source": source, "value": value})
    except OSError:
        pass


def claude_code_report_path(session_id: str) -> str:
    return os.path.join(cache_dir(), CLAUDE_CODE_DIR, safe_stem(session_id) + ".json")


def record_claude_code_report(session_id: str, report: dict[str, Any]) -> bool:
    """Keep Claude Code's latest figures for a session; returns False when they were already kept.

    ``report``: ``context_window_size``, ``context_tokens``, ``used_percentage``,
    ``model``, ``transcript_path`` (what Claude Code sent), ``recorded_at``
    (epoch seconds, not compared).
    """
    path = claude_code_report_path(session_id)
    old = read_json(path)
    same = isinstance(old, dict) and all(old.get(k) == v for k, v in report.items() if k != "recorded_at")
    if same:
        return False
    write_json(path, {"session_id": session_id, **report})
    return True


def claude_code_report(session_id: str | None) -> dict[str, Any] | None:
    """The figures Claude Code last reported for ``session_id`` (a window size > 0), or None."""
    if not session_id:
        return None
    data = read_json(claude_code_report_path(session_id))
    if not isinstance(data, dict) or data.get("session_id") != session_id:
        return None
    size = data.get("context_window_size")
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        return None
    return data
