"""What the backward reference scan found, kept for the session's next one-off job.

The pre-compact job runs before every compaction of a session, each time on
the same transcript grown further. What one entry's sentences mention depends
only on the session up to that entry (each sentence is matched with the
frequencies of the sentences before it) and on the items: so the hits a job
found in an entry still hold for the next job, for the same items, as long as
everything up to that entry reads the same. :mod:`ctx_tui.memory.latest_references`
then matches again only what is new (or what no job has matched yet for
those items) and takes the rest from here.

``.ctx/sessions/<session>.scan.json`` holds, per entry that can mention (a
*unit*, in transcript order): a digest of everything up to and including it
(each unit's kind, speaker and texts, chained), the items the job knows its
hits for (matched, or ruled out: no sentence of it can mention them and it
follows up no hit of theirs) and those hits; the number of sentences of those
units and each term's sentence frequency over them (the next job, when the
whole of that session is the start of its own, numbers only the sentences
that came since); the term keys of each short sentence (a job that numbers
the session again parses none of those again); and what each text of the
session states for extraction (:class:`~ctx_tui.memory.extract.Statements`:
by a digest of the speaker and the text, as the statements depend on nothing
else). A unit's hits, and the frequencies, are used only where its digest and
every earlier one are the digests of the session as read now, the code that
matches (this module, the scan, the matcher, the lexicon) and the threshold
are the same, and the item (its id and text) is the same; the statements,
where the code (and Python: its Unicode tables) is the same. A file that does
not read as this format is ignored (the job then numbers, matches and extracts
everything, as on a session's first run) and replaced; a symlink, a FIFO or
anything else but a plain file at its path is left alone (never written
through). Written atomically under its lock.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from collections.abc import Iterable, Mapping
from typing import Any
from pathlib import Path

import orjson

from ctx_tui.english import source as english_source
from ctx_tui.memory.extract import Statement
from ctx_tui.memory.items import ItemType
from ctx_tui.mentions import Mention
from ctx_tui.paths import SESSIONS_DIR, safe_name, state_dir
from ctx_tui.storage import LockTimeout, locked, read_regular, write_atomic

FORMAT = 5
#: A cache file larger than this is not read (a session's is ~1 MB at 100 MB of transcript).
MAX_BYTES = 64 << 20
#: How long a job waits for another one's write before it goes on without saving.
LOCK_TIMEOUT_S = 2.0

#: The code whose behaviour the hits may depend on, with the stemmer's version: every module and
#: data file at the package's top (the matcher, the lexicon, what a command line runs, and what they
#: import) and of ``memory/`` (the scan). Wider than needed: a new release is a new cache.
_CODE = ("*.py", "*.txt", "memory/*.py")

#: Per unit: the ids of the items it was matched for, and its hits by item id.
UnitHits = tuple[frozenset[str], dict[str, Mention]]


def scan_cache_path(project: Path, session_id: str) -> Path:
    """``.ctx/sessions/<session-id>.scan.json``."""
    return state_dir(project) / SESSIONS_DIR / f"{safe_name(session_id)}.scan.json"


def _code_digest() -> str:
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(p for pattern in _CODE for p in root.glob(pattern)):
        digest.update(f"\x00{path.relative_to(root).as_posix()}\x00".encode())
        digest.update(path.read_bytes())
    stemmer = sys.modules.get("Stemmer") or sys.modules.get("snowballstemmer")
    digest.update(str(getattr(stemmer, "__version__", "")).encode())
    digest.update(english_source().encode())  # the everyday words (a part of a name that is one: see mentions)
    digest.update(sys.version.encode())  # the regex engine and the Unicode tables extraction reads with
    return digest.hexdigest()


def _replaceable(path: Path) -> bool:
    """Whether the cache may be written at ``path``: nothing there, or a plain file of its own.

    A file that does not read as a cache is replaced, so the write must never go through a
    symlink (:func:`write_atomic` follows one to its target: some other file, whatever it
    holds, would be overwritten) nor replace a FIFO or a folder someone put there.
    """
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True


#: What :meth:`ScanCache.keep` keeps: items, digests, units' hits, short sentences' keys, term counts, sentence count.
_Kept = tuple[
    dict[str, str], list[str], list[tuple[int, UnitHits]], list[tuple[str, frozenset[str]]], "dict[str, int] | None", int
]


def _item_key(item_id: str, text: str) -> str:
    return f"{item_id}\x00{text}"


class ScanCache:
    """What earlier jobs kept for a session: read when made, used by extraction (:attr:`statements`)
    and the scan (:meth:`load`, :meth:`keep`), written with :meth:`save`."""

    __slots__ = ("path", "threshold", "code", "_data", "statements", "digests", "units", "keys", "counts", "positions", "_kept")

    def __init__(self, path: Path, threshold: float) -> None:
        self.path = path
        self.threshold = threshold
        self.code = _code_digest()
        self.digests: list[str] = []
        self.units: dict[int, UnitHits] = {}  # unit index -> what was kept for it (the current items' ids)
        self.keys: dict[str, frozenset[str]] = {}  # a short sentence -> its term keys (parsed once per session)
        #: each term's sentence frequency over the units of :attr:`digests`, and their sentence count
        self.counts: dict[str, int] | None = None
        self.positions = 0
        #: the texts' statements the file holds (digest -> statements); the extraction adds this job's
        self.statements: dict[str, tuple[Statement, ...]] = {}
        self._kept: _Kept | None = None
        self._data: dict[str, Any] | None = None
        try:
            data = orjson.loads(read_regular(self.path, MAX_BYTES))
            if data.get("format") != FORMAT or data.get("code") != self.code or data.get("threshold") != self.threshold:
                return
            statements = {
                str(digest): tuple(
                    (ItemType(kind), str(content), str(rationale), tuple(map(str, files)))
                    for kind, content, rationale, files in found
                )
                for digest, found in data["statements"]
            }
        except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError):
            return
        self._data, self.statements = data, statements

    def load(self, items: Mapping[str, str]) -> None:
        """Take the file's hits for the items ``items`` (id -> text); nothing from an unreadable or foreign file."""
        data = self._data
        if data is None:
            return
        try:
            index: dict[int, str] = {}  # the file's item number -> the id of the same item now
            for n, key in enumerate(data["items"]):
                item_id, _, text = str(key).partition("\x00")
                if items.get(item_id) == text:
                    index[n] = item_id
            digests = [str(d) for d in data["digests"]]
            asked_sets = [frozenset(index[n] for n in asked if n in index) for asked in data["asked"]]
            units: dict[int, UnitHits] = {}
            for unit, asked, hits in data["units"]:
                units[int(unit)] = (
                    asked_sets[asked],
                    {
                        index[n]: Mention(float(score), str(sentence), tuple(map(str, matched)), bool(followup))
                        for n, score, sentence, matched, followup in hits
                        if n in index
                    },
                )
            keys = {str(sentence): frozenset(map(str, sentence_keys)) for sentence, sentence_keys in data["sentences"]}
            counts = None if data["counts"] is None else {str(key): int(count) for key, count in data["counts"].items()}
            positions = int(data["positions"])
        except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError):
            return
        self.digests, self.units, self.keys, self.counts, self.positions = digests, units, keys, counts, positions

    def valid(self, digests: list[str]) -> int:
        """How many units, from the first, read now as they did when the file was written."""
        n = 0
        for old, new in zip(self.digests, digests):
            if old != new:
                break
            n += 1
        return n

    def keep(
        self,
        items: Mapping[str, str],
        digests: list[str],
        units: Iterable[tuple[int, UnitHits]],
        keys: Iterable[tuple[str, frozenset[str]]] = (),
        counts: Mapping[str, int] | None = None,
        positions: int = 0,
    ) -> None:
        """What :meth:`save` writes of the scan: ``units``' hits for ``items`` (id -> text), the units'
        ``digests``, the short sentences' term ``keys``, each term's sentence frequency over those
        units (``counts``, None: not known) and their sentence count (``positions``)."""
        self._kept = (dict(items), list(digests), sorted(units), list(keys), None if counts is None else dict(counts), positions)

    def save(self) -> None:
        """Replace the file with the scan's hits (if kept) and the statements; a write that fails is
        skipped (the next job matches and extracts again)."""
        items, digests, units, keys, counts, positions = self._kept or ({}, [], [], [], None, 0)
        ids = list(items)
        number = {item_id: n for n, item_id in enumerate(ids)}
        asked_sets: dict[frozenset[str], int] = {}  # each distinct set of items asked for, written once
        rows = [
            [
                unit,
                asked_sets.setdefault(asked, len(asked_sets)),
                [[number[i], m.score, m.sentence, list(m.matched), m.followup] for i, m in hits.items() if i in number],
            ]
            for unit, (asked, hits) in units
        ]
        data = {
            "format": FORMAT,
            "code": self.code,
            "threshold": self.threshold,
            "items": [_item_key(i, items[i]) for i in ids],
            "digests": digests,
            "asked": [sorted(number[i] for i in asked if i in number) for asked in asked_sets],
            "units": rows,
            "sentences": [[sentence, list(sentence_keys)] for sentence, sentence_keys in keys],
            "counts": counts,
            "positions": positions,
            "statements": [
                [digest, [[kind.value, content, rationale, list(files)] for kind, content, rationale, files in found]]
                for digest, found in self.statements.items()
            ],
        }
        try:
            with locked(self.path, timeout=LOCK_TIMEOUT_S):
                if not _replaceable(self.path):
                    return
                write_atomic(self.path, orjson.dumps(data))
        except (OSError, LockTimeout):
            return
