"""Exact cl100k counts without building tiktoken's encoder, for a one-shot process (``ctx-tui api``).

tiktoken counts a text in two steps: a regex cuts it into pre-token pieces
(words with their leading space, runs of up to three digits, punctuation runs,
whitespace runs), then each piece is byte-pair encoded on its own. The count
of a text is therefore the sum of its pieces' counts, and a piece's count never
depends on its neighbours. Building tiktoken's encoder (its 100k ranks into
Rust tables) takes ~55 ms of a fresh process, and reading the ranks ~15 ms more;
an 8k-token window has only ~1,000 distinct pieces, most of them seen by the
calls before. So :class:`PieceCounter`:

* cuts the text with :data:`PATTERN`, tiktoken's cl100k pattern spelled for
  Python's ``re``. The two agree on every text whose characters are ASCII or
  Unicode symbols, punctuation, marks and controls (the pattern's classes,
  letters, numbers and white space, are then the ASCII ones). A text with
  another character (an accented letter, CJK, a non-ASCII digit or space) is
  cut with tiktoken's own pattern (:data:`UNICODE_PATTERN`) by the ``regex``
  module (what tiktoken's Python reference implementation uses; ~10 ms to
  import, so only then): the same pieces as tiktoken for every code point
  assigned in Python's Unicode database (all 282,102 non-ASCII ones checked,
  in eight contexts). A text with a code point unassigned there (a newer
  Unicode's) or a lone surrogate is not counted here
  (:meth:`PieceCounter.count` returns None and the caller uses tiktoken);
* looks each piece up in a table of piece counts kept on disk
  (:func:`cache_path`), and counts the pieces it has not seen with a plain
  byte-pair merge over the ranks (tiktoken's own algorithm: the lowest-ranked
  adjacent pair first, the leftmost on a tie), reading the ranks only then;
  past :data:`MERGE_BUDGET_S` of merging, a text with a new piece is left
  to tiktoken.

Counts are identical to ``len(encoding.encode_ordinary(text))``
(``tests/test_token_pieces.py`` checks it on the real transcripts and on random text).

The table is a cache: bounded (:data:`MAX_PIECES`, the least recently used
pieces dropped first), written atomically (temp file + rename) only when it
learnt something, tagged with a format and the pattern; a missing,
damaged or foreign file is ignored and replaced. It holds only counts of
cl100k pieces, so a changed text can never get a stale count. A counter that
lives for hours (the dashboard) keeps it bounded in memory too
(:data:`MAX_HELD`), and may be called from several threads.
"""

from __future__ import annotations

import _thread  # the low-level lock: `threading` would cost a one-shot `ctx-tui api` process ~0.6 ms
import marshal
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ctx_tui import regex_cache

#: tiktoken's cl100k pattern (tiktoken_ext ``pat_str``) with its classes spelled in ASCII:
#: ``\p{L}`` -> ``A-Za-z``, ``\p{N}`` -> ``0-9``, ``\s`` -> ``[\t\n\v\f\r ]`` (Rust's ``\s`` in
#: ASCII; Python's would add ``\x1c``-``\x1f``), ``$`` -> ``\Z`` (Python's ``$`` also matches
#: before a final newline). Exact on the texts :func:`pattern_applies` accepts.
PATTERN = (
    r"'(?i:[sdmt]|ll|ve|re)"
    r"|[^\r\nA-Za-z0-9]?+[A-Za-z]++"
    r"|[0-9]{1,3}+"
    r"| ?[^\t\n\x0b\x0c\r A-Za-z0-9]++[\r\n]*+"
    r"|[\t\n\x0b\x0c\r ]++\Z"
    r"|[\t\n\x0b\x0c\r ]*[\r\n]"
    r"|[\t\n\x0b\x0c\r ]+(?![^\t\n\x0b\x0c\r ])"
    r"|[\t\n\x0b\x0c\r ]"
)
_PIECES = regex_cache.compile(PATTERN)
#: tiktoken_ext's cl100k ``pat_str`` as it is (a test compares them), for the ``regex`` module.
UNICODE_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_NON_ASCII = regex_cache.compile(r"[^\x00-\x7f]")
#: Pieces kept in the table; ~50 bytes each on disk, ~0.3 ms to load per thousand.
MAX_PIECES = 40_000
#: Pieces a counter holds in memory (in its table, and as recently used) before it drops the
#: least recently used down to :data:`MAX_PIECES`: a dashboard following a session for hours
#: meets new pieces all the time (~100 bytes each held).
MAX_HELD = MAX_PIECES + MAX_PIECES // 4
#: Rank groups :class:`RankGroups` keeps decoded (then it forgets them all and decodes again, a few µs
#: each): new pieces ask for their substrings' groups, and a dashboard meeting new pieces for hours
#: would otherwise end up holding every group decoded (~8 MiB) beside their blobs.
MAX_DECODED_GROUPS = 2048
#: CPU seconds a counter may spend on byte-pair merges in Python; past them a text with a new piece
#: is left to tiktoken (:meth:`PieceCounter.count` returns None), whose encoder merges ~10-40x
#: faster. English needs far less (a 100 MB session's live window from an empty table: ~0.1 s);
#: a first dashboard on a long session in Chinese or Japanese (a clause is one piece) may not.
MERGE_BUDGET_S = 1.0
#: Pieces longer than this are counted each time, never kept (a run of 500 '=' is not worth a slot);
#: a kept piece has at most 4 x 48 tokens, so its count fits the table's one byte.
MAX_PIECE_CHARS = 48
_FORMAT = "ctx-tui piece counts 1"


#: How :func:`cut` may treat a non-ASCII character.
_ASCII_CLASSES, _UNICODE_CLASSES, _REFUSED = 0, 1, 2


def _kind(char: str) -> int:
    """Whether ``char`` leaves :data:`PATTERN` exact, needs :data:`UNICODE_PATTERN`, or neither.

    :data:`PATTERN` is exact where ``char`` is neither a letter, a number nor
    white space, for Python and for tiktoken alike. Unassigned code points are
    refused (a newer Unicode, tiktoken's, may have made one a letter), and so
    are lone surrogates (tiktoken replaces them first).
    """
    import unicodedata

    category = unicodedata.category(char)
    if category in ("Cn", "Cs"):
        return _REFUSED
    if category[0] in "LNZ" or char.isspace():
        return _UNICODE_CLASSES
    return _ASCII_CLASSES


_kinds: dict[str, int] = {}
_unicode_findall: Callable[[str], list[str]] | None = None


def _worst_kind(text: str) -> int:
    worst = _ASCII_CLASSES
    if not text.isascii():
        for char in set(_NON_ASCII.findall(text)):
            kind = _kinds.get(char)
            if kind is None:
                kind = _kinds[char] = _kind(char)
            worst = max(worst, kind)
    return worst


def pattern_applies(text: str) -> bool:
    """True when :data:`PATTERN` (Python's ``re``, no import) cuts ``text`` exactly as tiktoken does."""
    return _worst_kind(text) == _ASCII_CLASSES


def cut(text: str) -> list[str] | None:
    """``text``'s pre-token pieces as tiktoken cuts them, or None when that cannot be done here."""
    kind = _worst_kind(text)
    if kind == _ASCII_CLASSES:
        return _PIECES.findall(text)
    if kind == _REFUSED:
        return None
    global _unicode_findall
    if _unicode_findall is None:
        try:
            import regex  # type: ignore[import-untyped]  # no stubs installed (types-regex is not a dependency)
        except ImportError:  # tiktoken installs it; without it, tiktoken counts
            return None
        _unicode_findall = regex.compile(UNICODE_PATTERN).findall
    return _unicode_findall(text)


class Ranks(Protocol):
    """What the byte-pair merge asks of the ranks: a dict, or :class:`RankGroups`."""

    def get(self, key: bytes, /) -> int | None: ...


class Blobs(Protocol):  # bytes, or the blobs left in the groups file, read when asked for (ctx_tui.tokens)
    def __len__(self) -> int: ...
    def __getitem__(self, part: slice, /) -> bytes: ...


_NO_RANK = 1 << 62


def byte_pair_count(piece: bytes, ranks: Ranks) -> int:
    """Tokens of one piece: tiktoken's byte-pair merge (lowest rank first, leftmost on a tie), counted.

    As tiktoken's ``_byte_pair_merge``: the rank of every adjacent pair is kept,
    and a merge looks up only the two pairs beside it (looking up every pair at
    every merge cost a 60-byte piece ~370 µs: a clause of Japanese text is one
    piece of that length).
    """
    n = len(piece)
    if n < 2 or ranks.get(piece) is not None:
        return 1 if piece else 0
    get = ranks.get
    starts = list(range(n + 1))  # part k is piece[starts[k]:starts[k + 1]]
    pairs = [_NO_RANK if (r := get(piece[i : i + 2])) is None else r for i in range(n - 1)]
    while pairs:
        best = min(pairs)
        if best == _NO_RANK:
            break
        i = pairs.index(best)  # the leftmost of the lowest
        del starts[i + 1], pairs[i]  # parts i and i + 1 are one
        if i < len(pairs):
            pairs[i] = _NO_RANK if (r := get(piece[starts[i] : starts[i + 2]])) is None else r
        if i:
            pairs[i - 1] = _NO_RANK if (r := get(piece[starts[i - 1] : starts[i + 1]])) is None else r
    return len(starts) - 1


class RankGroups:
    """The ranks of the tokens of two bytes or more, read a group at a time.

    Reading all 100k ranks takes ~15 ms; new pieces need their substrings'
    ranks only. Two-byte tokens are one dict; longer ones are grouped by their
    first three bytes, each group a ``marshal`` blob decoded when first asked,
    the blobs end to end (:class:`Blobs`) found through two arrays
    (``ctx_tui.tokens.rank_groups``; a dict of 17k bytes objects held 3.6 MiB
    for a dashboard's life; the blobs, 1.6 MB, are now left in their file).
    A blob that does not decode raises
    ``ValueError`` (the caller then counts with tiktoken) and removes
    ``path``, their file, so that the next process makes it again.
    """

    def __init__(self, pairs: dict[bytes, int], prefixes: bytes, ends: bytes, blob: Blobs, path: Path | None = None) -> None:
        from array import array  # here: a process whose pieces are all in the table never needs them
        from bisect import bisect_left

        self._pairs = pairs
        self._prefixes, self._ends = array("I"), array("I")
        self._prefixes.frombytes(prefixes)  # parts that do not fit together raise ValueError here
        self._ends.frombytes(ends)
        if len(self._prefixes) != len(self._ends) or (self._ends and self._ends[-1] != len(blob)):
            raise ValueError("rank groups whose parts do not fit together")
        self._blob = blob
        self._find = bisect_left
        self._path = path
        self._groups: dict[bytes, dict[bytes, int]] = {}

    def get(self, key: bytes, /) -> int | None:
        if len(key) < 3:
            return self._pairs.get(key)
        prefix = key[:3]
        group = self._groups.get(prefix)
        if group is None:
            wanted = int.from_bytes(prefix, "big")
            at = self._find(self._prefixes, wanted)
            found = at < len(self._prefixes) and self._prefixes[at] == wanted
            try:
                group = _decoded(self._blob[self._ends[at - 1] if at else 0 : self._ends[at]]) if found else {}
            except ValueError:
                if self._path is not None:
                    self._path.unlink(missing_ok=True)
                raise
            if len(self._groups) >= MAX_DECODED_GROUPS:
                self._groups.clear()
            self._groups[prefix] = group
        return group.get(key)


def _decoded(blob: bytes) -> dict[bytes, int]:
    try:
        group = marshal.loads(blob)
    except (ValueError, EOFError, TypeError) as exc:
        raise ValueError(f"a damaged rank group: {exc}") from None
    if not isinstance(group, dict):
        raise ValueError("a damaged rank group")
    return group


def cache_path(folder: Path) -> Path:
    return folder / "cl100k_base-pieces.marshal"


class PieceCounter:
    """cl100k counts through the piece table at ``path``; ``ranks`` loads the ranks when a piece is new."""

    def __init__(self, path: Path, ranks: Callable[[], Ranks | None]) -> None:
        self.path = path
        self._load_ranks = ranks
        self._ranks: Ranks | None = None
        self._no_ranks = False  # tried once and failed: not again in this process
        self._counts: dict[str, int] | None = None
        self._used: set[str] = set()
        self._learnt = 0
        self._merging = 0.0  # CPU seconds spent merging new pieces
        self._lock = _thread.allocate_lock()  # the dashboard counts from its workers and its UI thread

    def load(self) -> None:
        """Read the table now (it is read on the first count otherwise), and the ranks too when it is empty."""
        with self._lock:
            if not self._table():
                self._ranks_or_none()

    def _table(self) -> dict[str, int]:
        if self._counts is None:
            self._counts = self._read()
        return self._counts

    def _read(self) -> dict[str, int]:
        try:
            with open(self.path, "rb") as fh:
                data = marshal.loads(fh.read())
        except (OSError, ValueError, EOFError, TypeError):
            return {}  # missing, unreadable or damaged: start again
        if not (isinstance(data, tuple) and len(data) == 4 and data[:2] == (_FORMAT, PATTERN)):
            return {}  # another program's file, or an older format
        pieces, counts = data[2:]
        if (not isinstance(pieces, tuple) or not isinstance(counts, bytes) or len(pieces) != len(counts)
                or 0 in counts or not all(type(p) is str for p in pieces)):
            return {}
        return dict(zip(pieces, counts))

    def count(self, text: str) -> int | None:
        """Tokens of ``text``; None when it cannot be cut here (:func:`cut`), the ranks cannot be read,
        or it has a new piece and :data:`MERGE_BUDGET_S` is spent (the caller then uses tiktoken)."""
        pieces = cut(text)
        if pieces is None:
            return None
        with self._lock:
            table = self._table()
            get = table.get
            counts = [get(piece, 0) for piece in pieces]
            self._used.update(pieces)
            total = sum(counts)
            if 0 in counts:
                counted = self._count_new([piece for piece, n in zip(pieces, counts) if not n])
                if counted is None:
                    return None
                total += counted
            if len(self._used) > MAX_HELD or len(table) > MAX_HELD:
                self._trim()
        return total

    def can_count(self) -> bool:
        """True when pieces it has not seen can be counted (the ranks are read, once)."""
        with self._lock:
            return self._ranks_or_none() is not None

    def _ranks_or_none(self) -> Ranks | None:
        if self._ranks is None and not self._no_ranks:
            self._ranks = self._load_ranks()
            self._no_ranks = self._ranks is None
        return self._ranks

    def _count_new(self, pieces: list[str]) -> int | None:
        if self._merging > MERGE_BUDGET_S:
            return None  # merging in Python has cost enough: tiktoken counts texts with new pieces
        ranks = self._ranks_or_none()
        if ranks is None:
            return None
        table = self._table()
        total = 0
        started = time.thread_time()
        try:
            for piece in pieces:
                n = table.get(piece)
                if n is None:  # not yet counted (a piece may come twice)
                    try:
                        n = byte_pair_count(piece.encode("utf-8"), ranks)
                    except ValueError:  # damaged ranks (RankGroups): tiktoken counts from now on
                        self._ranks, self._no_ranks = None, True
                        return None
                    if len(piece) <= MAX_PIECE_CHARS:
                        table[piece] = n
                        self._learnt += 1
                total += n
        finally:
            self._merging += time.thread_time() - started
        return total

    def _trim(self) -> None:
        """The pieces used since the last trim moved last (most recent), then the oldest dropped down to :data:`MAX_PIECES`."""
        table = self._table()
        for piece in self._used:
            n = table.pop(piece, None)
            if n is not None:
                table[piece] = n
        self._used.clear()
        if len(table) > MAX_PIECES:
            for piece in list(table)[: len(table) - MAX_PIECES]:
                del table[piece]

    def save(self) -> None:
        """Write the table back when it learnt pieces: the ones used now last, the oldest dropped over the bound."""
        with self._lock:
            if not self._learnt or self._counts is None:
                return
            self._trim()
            table = self._counts
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp.write_bytes(marshal.dumps((_FORMAT, PATTERN, tuple(table), bytes(table.values()))))
                os.replace(tmp, self.path)
            except OSError:  # a read-only or full cache folder: counted again next time
                try:
                    tmp.unlink()
                except OSError:
                    pass
            self._learnt = 0
