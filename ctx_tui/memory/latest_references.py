"""The references a one-off job needs, found from the end of the transcript backwards.

:func:`ctx_tui.memory.references.occurrences` reads a session forwards,
counting each sentence into the vocabulary before matching it, and finds
every reference of every item: what the dashboard keeps and continues as the
transcript grows. A job that reads a session once (the pre-compact hook's)
needs less: what an item's status as of the session's last round depends on —

* its latest :data:`~ctx_tui.memory.items.MAX_REFERENCED_ROUNDS` referenced
  rounds after the one it entered (the session memory keeps no more), with
  the rounds its memory already holds counted in; or every one when fewer;
* its latest reference (the evidence of its last round);
* its latest reference inside the live window (its position), if any.

:func:`latest_occurrences` finds those and stops reading an item once they
are known, and the whole scan once every item is done. Each sentence is
matched exactly as the forward scan matches it: with the vocabulary as it
stood after that sentence was counted. Those frequencies come from the whole
session at once: every sentence is split and each distinct sentence parsed
once (a session repeats many; a sentence over 240 characters is not looked
for again, nor kept: it is split again from its entry when matched); a
term's frequency at a sentence is the number of sentences up to it that hold
the term (a binary search in the term's positions, built when first asked).
Only a sentence where a term some item holds is not common can have a
candidate item, so only those are matched. Follow-ups ("yes, keep it that
way") take what the previous turn mentioned, so that turn is matched too,
with every item, when a follow-up needs it.

The result, per item, is the tail of what :func:`occurrences` gives (in
transcript order) from where the item was settled, but that before the live
window only the latest reference of each round is looked for: a status
(:func:`ctx_tui.memory.decay.status_of`) reads which rounds hold one, the
latest of the last of them and the latest in the live window, so the statuses
it derives, and what the tracker stores, are the same
(``tests/test_latest_references.py`` compares them on real transcripts); only
``ItemStatus.referenced_rounds`` may hold fewer of the older rounds, which the
session memory would not keep.

With a ``cache`` (the one-off jobs': :mod:`ctx_tui.memory.scan_cache`), an
entry's hits that an earlier job of the session found for an item are taken
from there when everything up to that entry reads as it did then, and only
the rest is matched: the pre-compact job before a session's next compaction
matches what was appended since the last one (the same result, a test checks).
When the whole session that job read is the start of this one, only what came
since is numbered too: the frequencies at a later sentence are the earlier
job's counts plus those since; should the scan need to match an entry of the
earlier part after all (an item that job did not know), it starts again and
numbers the whole session.

Over 400 lines: the scan's parts (the frequencies at a position, the
sentences' numbering, the per-item stopping rule, the follow-up chains) are
one algorithm whose invariants span them; apart, each would need the others' internals.
"""

from __future__ import annotations

import hashlib
import math
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, count, repeat
from operator import add
from typing import Any

from ctx_tui.memory.items import MAX_REFERENCED_ROUNDS, TrackedItem
from ctx_tui.memory.references import _TURNS, Reference, _reference, _strings, mentions, texts_of
from ctx_tui.memory.scan_cache import ScanCache, UnitHits
from ctx_tui.mentions import (
    COMMON_SHARE,
    BoundPlan,
    MAX_POSTING,
    PARSED_CACHE_CHARS,
    PRIOR_SENTENCES,
    THRESHOLD,
    Mention,
    MentionIndex,
    Profile,
    ScoreBound,
    _MARGIN,
    Vocabulary,
    _evidence,
    _Idf,
    _parse,
    _Parsed,
    is_followup,
    sentences,
    strict_may_mention,
)
from ctx_tui.transcripts.model import Entry, Kind, key_text, text_key


class _Frequencies:
    """Sentence frequencies of terms at any position of the session's sentences.

    ``at(i)`` is what the forward scan's vocabulary held once sentence ``i`` was
    counted: ``at(i)[key]`` is the number of sentences ``0..i`` holding ``key``
    (``before[key]`` of them before the first sentence numbered, when the scan
    does not number the session from its start).
    """

    __slots__ = ("_positions", "_before")

    def __init__(self, holders: dict[str, list[int]], places: list[list[int]], before: Mapping[str, int]) -> None:
        self._positions = _Positions(holders, places)
        self._before = before

    def positions(self, key: str) -> list[int]:
        """The positions of the sentences numbered that hold ``key``, in order."""
        return self._positions[key]

    def at(self, position: int, keys: Iterable[str]) -> _At:
        """The frequencies at ``position``, those of ``keys`` (the sentence's: the matcher reads them all) worked out at once."""
        return _At(self._positions, self._before, position, keys)


class _Positions(dict[str, list[int]]):
    """Term key -> the positions of the sentences holding it, in order (sorted when first asked)."""

    __slots__ = ("_holders", "_places")

    def __init__(self, holders: dict[str, list[int]], places: list[list[int]]) -> None:
        super().__init__()
        self._holders = holders  # key -> the distinct sentences holding it
        self._places = places  # distinct sentence -> its positions

    def __missing__(self, key: str) -> list[int]:
        places = self._places
        found = self[key] = sorted(chain.from_iterable(places[d] for d in self._holders.get(key, ())))
        return found


class _At(dict[str, int]):
    """The frequencies as they stood at one position: ``at[key]`` (a ``Counter``'s missing-key read,
    all the matcher does). The keys given (and :meth:`add`) are found at once (no Python call per
    key); any other, by :meth:`__missing__`, once, and kept: scoring asks again per candidate item."""

    __slots__ = ("_positions", "_before", "_position")

    def __init__(self, positions: _Positions, before: Mapping[str, int], position: int, keys: Iterable[str]) -> None:
        super().__init__()
        self._positions = positions
        self._before = before
        self._position = position
        self.add(keys)

    def add(self, keys: Iterable[str]) -> None:
        """Find the frequencies of ``keys`` not found yet."""
        keys = [k for k in keys if k not in self]
        positions, position = self._positions, self._position
        if self._before:
            found = map(bisect_right, map(positions.__getitem__, keys), repeat(position))
            self.update(zip(keys, map(add, map(self._before.get, keys, repeat(0)), found)))
        else:
            self.update(zip(keys, map(bisect_right, map(positions.__getitem__, keys), repeat(position))))

    def __missing__(self, key: str) -> int:
        seen = self[key] = self._before.get(key, 0) + bisect_right(self._positions[key], self._position)
        return seen


class _LowIdf(dict[str, float]):
    """A lower bound of each term's IDF (:class:`~ctx_tui.mentions._Idf`) at every position from one
    whose ``log_n`` is no lower than the one given up to ``last``: that ``log_n`` less the log of the
    term's frequency at ``last`` (``df``) plus one, at least 0. ``bases``: each item's lower bound of
    its squared norm there (:meth:`~ctx_tui.mentions.ScoreBound.item_base`), once asked."""

    __slots__ = ("log_n", "last", "df", "bases")

    def __init__(self, log_n: float, last: int, df: _At | Mapping[str, int]) -> None:
        super().__init__()
        self.log_n = log_n
        self.last = last
        self.df = df
        self.bases: dict[str, float] = {}

    def add(self, keys: Iterable[str]) -> None:
        """Work out the bounds of ``keys`` not known yet at once (no Python call per key)."""
        keys = [k for k in keys if k not in self]
        if keys:
            df = self.df
            if isinstance(df, _At):
                df.add(keys)
            found = map(math.log, map(add, map(df.__getitem__, keys), repeat(1)))
            self.update(zip(keys, map(max, repeat(0.0), map(self.log_n.__sub__, found))))

    def __missing__(self, key: str) -> float:
        value = self[key] = max(0.0, self.log_n - math.log(self.df[key] + 1))
        return value


def _item_base(bound: ScoreBound, low: _LowIdf, item: str, profile: Profile) -> float:
    """The item's :meth:`~ctx_tui.mentions.ScoreBound.item_base` at ``low`` (the bound's), kept there."""
    base = low.bases.get(item)
    if base is None:
        low.add(profile.keys)
        base = low.bases[item] = bound.item_base(profile)
    return base


class _HighIdf(dict[str, float]):
    """An upper bound of each term's IDF at every position up to one whose ``log_n`` is given, from
    the frequencies ``df`` at a position no later than any of them (at that very position: the exact IDF)."""

    __slots__ = ("log_n", "_df")

    def __init__(self, log_n: float, df: Mapping[str, int]) -> None:
        super().__init__()
        self.log_n = log_n
        self._df = df

    def __missing__(self, key: str) -> float:
        value = self[key] = self.log_n - math.log(self._df[key] + 1)
        return value


#: Positions share a lower bound of the IDFs while the log of their sentence count is in one step of this size.
LOG_STEP = 1 / 64
#: A candidate whose bound at a sentence is below this share of the threshold is bounded for the
#: stretch of positions down to :data:`RANGE_START` tenths of that sentence's (see ``_Scan.match``).
RANGE_SLACK = 0.6
#: That stretch starts at this many tenths of the sentence's position.
RANGE_START = 7


class _Unit:
    """One entry that can mention: its texts' sentence positions and the previous turn it may follow up."""

    __slots__ = ("index", "entry", "texts", "previous", "followup")

    def __init__(self, index: int, entry: Entry, texts: list[tuple[int, int]] | None) -> None:
        self.index = index  # its place among the units
        self.entry = entry
        self.texts = texts  # (first position, number of sentences) per text; None: not numbered by this scan
        self.previous: _Unit | None = None  # the previous turn, when it is the other speaker's
        self.followup = False  # a text opens with a follow-up of ``previous``


class _Item:
    """What the backward scan knows of one item so far."""

    __slots__ = ("id", "entered", "floor", "memory", "keep", "rounds", "live", "found")

    def __init__(self, item: TrackedItem, current_round: int, keep: int) -> None:
        self.id = item.id
        self.keep = keep
        self.entered = item.entered_round
        self.floor = max(1, item.entered_round)  # rounds before it entered are no reference
        self.memory = sorted(r for r in item.referenced_rounds if item.entered_round < r <= current_round)
        self.rounds: set[int] = set()  # rounds after it entered with a reference found
        self.live = False  # a reference inside the live window found
        self.found: list[Reference] = []  # latest first (before the live window: the latest of each round)

    def settled(self, round_: int, seq: int, live_from: int) -> bool:
        """Whether nothing at or before ``round_``/``seq`` can change the item's status (every
        entry after them read: the rounds found are ``round_`` or later)."""
        if not self.live and seq >= live_from:
            return False
        if round_ < self.floor:
            return True
        later = self.rounds - {round_}
        memory = self.memory
        later.update(memory[bisect_right(memory, round_) :])
        return len(later) >= self.keep


class _Unnumbered(Exception):
    """A unit of the part an earlier scan numbered was needed (not taken from the cache): the scan
    is made again over the whole session (see :func:`latest_occurrences`)."""


class _Before:
    """What the scan needs of the part of the session an earlier scan numbered: its units and
    sentence count, and each term's sentence frequency at its end (see ``scan_cache``)."""

    __slots__ = ("units", "positions", "counts")

    def __init__(self, units: int, positions: int, counts: Mapping[str, int]) -> None:
        self.units = units
        self.positions = positions
        self.counts = counts


#: A unit asked for at most this many items (most of a session's units, once all but an item or two are
#: settled) first looks each text up in the positions of those items' terms (``_Scan._may_hold``: a binary
#: search per term) and reads none of a text that holds none; with more items, reading the positions costs less.
FEW_ITEMS = 2


#: A scan's unit: an entry that can mention, and its :func:`texts_of` with its own text as stored
#: (:func:`text_key`: not decoded; a tool call's input is parsed from its stored JSON once per scan).
Unit = tuple[Entry, list[str] | list[str | bytes]]


#: ``Kind.TOOL_CALL`` as a module constant: an enum attribute lookup is a descriptor call on Python 3.11, and
#: :func:`_stored_texts` runs once per entry that can mention.
_TOOL_CALL = Kind.TOOL_CALL


def _stored_texts(entry: Entry) -> list[str] | list[str | bytes]:
    """:func:`texts_of` ``entry``, its own text as stored (:func:`text_key`: not decoded)."""
    if entry.kind is _TOOL_CALL:
        tool_input = entry.tool_input  # parsed on each read (see ctx_tui.transcripts.model)
        if tool_input:
            return [s for s in _strings(tool_input) if s.strip()]
    key = text_key(entry)
    return [key] if key else []


def _units_of(entries: Sequence[Entry]) -> list[Unit]:
    """The entries that can mention and have a text, with those texts: the scan's units."""
    units: list[Unit] = []
    for entry in entries:
        if mentions(entry):
            texts = _stored_texts(entry)
            if texts:
                units.append((entry, texts))
    return units


def _digests(units: Sequence[Unit]) -> list[str]:
    """Per unit, a digest of every unit up to it (its kind, speaker and texts): each chained to the previous one's."""
    digests: list[str] = []
    previous = b""
    for entry, texts in units:
        digest = hashlib.blake2b(previous, digest_size=12)
        digest.update(f"\x00u{entry.kind.value}\x00{entry.role}".encode("utf-8", "surrogatepass"))
        for text in texts:
            data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
            digest.update(b"\x00t%d\x00" % len(data))
            digest.update(data)
        previous = digest.digest()
        digests.append(digest.hexdigest())
    return digests


#: :func:`_add_open` decides a term's positions this many at a time where it can.
OPEN_BLOCK = 128


def _add_open(open_: set[int], positions: list[int], first: int, prior: int) -> None:
    """Add to ``open_`` the ``positions`` of a term (in order, the first its ``first``-th sentence)
    where it is not common: its frequency ``j`` there at most ``COMMON_SHARE * (p + prior)``. That
    bound never falls as ``p`` grows, so a block of positions is all common when its first ``j``
    exceeds the bound at its last position, and all open when its last ``j`` is within the bound at
    its first one; only the others are tested position by position."""
    for start in range(0, len(positions), OPEN_BLOCK):
        block = positions[start : start + OPEN_BLOCK]
        j = first + start
        if j > COMMON_SHARE * (block[-1] + prior):
            continue
        if j + len(block) - 1 <= COMMON_SHARE * (block[0] + prior):
            open_.update(block)
        else:
            open_.update([p for i, p in enumerate(block, j) if i <= COMMON_SHARE * (p + prior)])


class _Scan:
    """The session's sentences, their distinct texts and the index of the items."""

    def __init__(
        self,
        items: Sequence[TrackedItem],
        units: Sequence[Unit],
        threshold: float,
        keep: bool = False,
        known_keys: Mapping[str, frozenset[str]] | None = None,
        before: _Before | None = None,
    ) -> None:
        """``units``: :func:`_units_of` the session; ``keep``: work out :attr:`short_keys` and
        :attr:`counts` (for a :class:`~ctx_tui.memory.scan_cache.ScanCache`); ``known_keys``: the
        term keys of short sentences an earlier scan parsed (taken instead of parsing them again);
        ``before``: the first units, numbered by an earlier scan, are not numbered again (their
        hits come from the cache; a scan that needs more of them raises :class:`_Unnumbered`)."""
        self.index = MentionIndex(threshold=threshold)
        for item in items:
            self.index.add(item.id, item.content)
        # the text last split again (see sentence): where it is, the text and its sentences
        self._split: tuple[int, str, list[str]] = (-1, "", [])
        self._parsed: tuple[int, _Parsed | None] = (-1, None)
        self.owner = Vocabulary()  # names the norms' cache state (see _Idf)
        self.units: list[_Unit] = []
        postings = self.index._postings
        # distinct sentence (by number) -> its text, None for a long one (not kept: found again in
        # its entry when matched)
        self.texts: list[str | None] = []
        self.items: dict[int, frozenset[str]] = {}  # distinct sentence -> those items (see items_of), once asked for
        self._strict: dict[int, frozenset[str]] = {}  # distinct sentence -> those strict text there may mention
        self._alike: dict[frozenset[str], frozenset[str]] = {}  # one set for all alike
        holders: dict[str, list[int]] = {}  # term key -> the distinct sentences holding it

        known = known_keys or {}
        self.short_keys: list[tuple[str, frozenset[str]]] = []  # when kept: each short sentence's keys

        def number(sentence: str) -> int:
            d = len(self.texts)
            short = len(sentence) <= PARSED_CACHE_CHARS
            keys = known.get(sentence) if short else None
            if keys is None:
                keys = _parse(sentence).keys
            for key in keys:
                holders.setdefault(key, []).append(d)
            self.texts.append(sentence if short else None)
            if short:
                numbering[sentence] = d
                if keep:
                    self.short_keys.append((sentence, keys))
            return d

        numbering: dict[str, int] = {}  # a short sentence -> its number (a session repeats many)
        # a text -> its sentences' numbers: each text split once however often it comes (commands, paths, short
        # turns; a long text repeated). The texts are the entries' (a tool call's strings held until the end here)
        split: dict[str, list[int]] = {}
        skip = before.units if before is not None else 0
        # the first sentence numbered: ``ids[p - offset]`` is the number of the sentence at position ``p``
        self.offset = offset = before.positions if before is not None else 0
        ids: list[int] = []  # every sentence read from ``offset`` on, by number
        self.starts: list[int] = []  # each text's first position ...
        self.where: list[tuple[Entry, int]] = []  # ... its entry and which of the entry's texts
        last_turn: _Unit | None = None
        for entry, stored in units:
            if len(self.units) < skip:
                unit = _Unit(len(self.units), entry, None)  # numbered by the earlier scan
            else:
                spans = []
                for t, text in enumerate(map(key_text, stored)):
                    numbers = split.get(text)
                    if numbers is None:
                        numbers = [d if (d := numbering.get(s)) is not None else number(s) for s in sentences(text)]
                        split[text] = numbers
                    start = offset + len(ids)
                    self.starts.append(start)
                    self.where.append((entry, t))
                    spans.append((start, len(numbers)))
                    ids.extend(numbers)
                unit = _Unit(len(self.units), entry, spans)
            if entry.kind in _TURNS:
                if last_turn is not None and last_turn.entry.role != entry.role:
                    unit.previous = last_turn
                    unit.followup = unit.texts is not None and any(
                        size and is_followup(self.sentence(start, ids)) for start, size in unit.texts
                    )
                last_turn = unit
            self.units.append(unit)
        del split, numbering
        self.ids = ids
        places: list[list[int]] = [[] for _ in self.texts]
        # each position appended to its distinct sentence's list (C-level maps: no Python step per position)
        deque(map(list.append, map(places.__getitem__, ids), count(offset)), maxlen=0)
        counts = before.counts if before is not None else {}
        self.frequencies = _Frequencies(holders, places, counts)
        # each term's sentence frequency at the end (what the next scan takes as ``before``)
        self.counts: dict[str, int] = {}
        if keep:
            self.counts = dict(counts)
            for key, distinct in holders.items():
                self.counts[key] = counts.get(key, 0) + sum([len(places[d]) for d in distinct])
        self._low = self._wide = _LowIdf(-1.0, -1, {})  # the bounds last used (see _reachable)
        #: (distinct sentence, strict) -> item -> its :meth:`~ctx_tui.mentions.ScoreBound.plan` (see _reachable)
        self._plans: dict[tuple[int, bool], dict[str, BoundPlan]] = {}
        #: distinct sentence -> item -> the positions (first, last) where it is known not to mention the item
        self._ruled_out: dict[int, dict[str, tuple[int, int]]] = {}
        self.positions = offset + len(ids)
        # the positions where a term some item holds is not common (at a term's j-th sentence its
        # frequency is j): no other sentence has a candidate item
        self.open: set[int] = set()
        prior = 1 + PRIOR_SENTENCES  # _common_cut(position + 1), spelt out
        for key, held_by in postings.items():
            if len(held_by) <= MAX_POSTING:
                _add_open(self.open, self.frequencies.positions(key), counts.get(key, 0) + 1, prior)
        # the hits a cache holds for the units that read as they did (see scan_cache), and those of
        # this scan (unit index -> the items matched for, the hits): what the next scan may take
        self.stored: dict[int, UnitHits] = {}
        self.matched: dict[int, UnitHits] = {}
        self.all_items = frozenset(self.index.profiles)
        #: items asked for (at most :data:`FEW_ITEMS`) -> the positions of each term one of them holds (see _may_hold)
        self._terms_of: dict[frozenset[str], list[list[int]]] = {}

    def items_of(self, position: int) -> frozenset[str]:
        """The items sharing a term with the sentence at ``position`` (common there or not)."""
        d = self.ids[position - self.offset]
        items = self.items.get(d)
        if items is None:
            postings = self.index._postings
            items = frozenset().union(*[postings[k] for k in self.parsed(position).keys & postings.keys()])
            items = self.items[d] = self._alike.setdefault(items, items)
        return items

    def strict_items(self, position: int) -> frozenset[str]:
        """The items the sentence at ``position`` may mention as strict text (:func:`strict_may_mention`:
        whatever the frequencies there; most of a command's words are plain)."""
        d = self.ids[position - self.offset]
        items = self._strict.get(d)
        if items is None:
            items = self.items_of(position)
            if items:
                keys = {k for k in self.parsed(position).keys if k[0] != "~"}  # its words, not its concepts
                profiles = self.index.profiles
                items = frozenset([i for i in items if strict_may_mention(profiles[i], keys)])
            items = self._strict[d] = self._alike.setdefault(items, items)
        return items

    def parsed(self, position: int) -> _Parsed:
        """The terms of the sentence at ``position`` (the last one kept: it is matched next)."""
        at, parsed = self._parsed
        if at != position or parsed is None:
            parsed = _parse(self.sentence(position))
            self._parsed = (position, parsed)
        return parsed

    def sentence(self, position: int, ids: list[int] | None = None) -> str:
        """The sentence at ``position`` (a long one split again from its entry's text)."""
        kept = self.texts[(self.ids if ids is None else ids)[position - self.offset]]
        if kept is not None:
            return kept
        at = bisect_right(self.starts, position) - 1
        entry, t = self.where[at]
        if self._split[0] != at:
            text = texts_of(entry)[t]
            # the same text elsewhere (a session repeats its long texts too) is not split again
            self._split = (at, text, self._split[2] if text == self._split[1] else sentences(text))
        return self._split[2][position - self.starts[at]]

    def match(
        self, position: int, strict: bool, only: frozenset[str] | None, beat: Mapping[str, float] | None = None
    ) -> dict[str, Mention]:
        """What the forward scan's ``match_sentence`` gives at ``position``, for the items ``only``;
        ``beat``: an item whose hit there would not score more than this is left out (the caller
        keeps only a better hit).

        Only the candidates :meth:`_reachable` keeps are scored: a sentence left with none is not
        (the frequencies of its other terms there are not even looked up)."""
        d = self.ids[position - self.offset]
        ruled_out = self._ruled_out.get(d)
        if ruled_out is not None and only is not None:
            only = frozenset([i for i in only if not ((r := ruled_out.get(i)) and r[0] <= position <= r[1])])
            if not only:
                return {}
        parsed = self.parsed(position)
        index = self.index
        held = parsed.keys & index._postings.keys()
        if not held:
            return {}
        df = self.frequencies.at(position, held)
        n = position + 1
        candidates = index.candidates(held, df, n)
        if only is not None:
            candidates &= only
        if not candidates:
            return {}
        idf = _Idf(self.owner, df, n)
        reachable = self._reachable(position, d, parsed, candidates, df, idf.log_n, strict, beat)
        if not reachable:
            return {}
        df.add(parsed.keys)
        return index.score_sentence(self.sentence(position), parsed, held, reachable, idf, strict)

    def _reachable(
        self,
        position: int,
        d: int,
        parsed: _Parsed,
        candidates: Iterable[str],
        df: _At,
        log_n: float,
        strict: bool,
        beat: Mapping[str, float] | None,
    ) -> list[str]:
        """The ``candidates`` whose :class:`~ctx_tui.mentions.ScoreBound` at ``position`` reaches the
        threshold: the terms an item shares with the sentence (``d``, ``parsed``) at their IDF
        there (``df``, ``log_n``), every other term at a lower bound from its frequency at the end
        of the position's :data:`LOG_STEP`. A candidate well below (:data:`RANGE_SLACK`) is bounded
        again for every position of the sentence down to :data:`RANGE_START` tenths of this one; if
        that holds too, it is not matched with the sentence there again (:attr:`_ruled_out`). Nor is a
        candidate kept whose bound is below its score in ``beat`` (a hit there could not score more)."""
        low = self._low
        if not low.log_n <= log_n < low.log_n + LOG_STEP:
            step = math.floor(log_n / LOG_STEP) * LOG_STEP
            last = int(math.exp(step + LOG_STEP)) + 1 - (PRIOR_SENTENCES + 2)  # the step's last position, or later
            low = self._low = _LowIdf(step, last, self.frequencies.at(last, ()))
        low.add(parsed.weighted()[0])  # the sentence's norm, at the bounds: what ScoreBound reads
        bound = ScoreBound(parsed, _HighIdf(log_n, df), low, strict, exact=True)
        profiles, threshold = self.index.profiles, self.index.threshold
        plans = self._plans.get((d, strict))
        if plans is None:
            plans = self._plans[d, strict] = {}
        reachable: list[str] = []
        wide: ScoreBound | None = None  # the bound from ``start`` to ``position``
        start = position * RANGE_START // 10
        for item in candidates:
            profile = profiles[item]
            plan = plans.get(item)
            if plan is None:
                plan = plans[item] = bound.plan(profile)
            value = bound.of(profile, _item_base(bound, low, item, profile), plan)
            if value >= threshold * _MARGIN:
                if not (beat and item in beat and value < beat[item] * _MARGIN):  # (else it cannot score more)
                    reachable.append(item)
            elif value < threshold * RANGE_SLACK:
                if wide is None:
                    step = math.floor(math.log(start + PRIOR_SENTENCES + 2) / LOG_STEP) * LOG_STEP
                    if self._wide.log_n != step or self._wide.last != low.last:
                        self._wide = _LowIdf(step, low.last, low.df)
                    self._wide.add(parsed.weighted()[0])
                    wide = ScoreBound(parsed, _HighIdf(log_n, self.frequencies.at(start, ())), self._wide, strict, exact=False)
                if not wide.may_reach(profile, _item_base(wide, self._wide, item, profile), threshold, plan):
                    self._ruled_out.setdefault(d, {})[item] = (start, position)
        return reachable

    def unit_hits(self, unit: _Unit, only: frozenset[str] | None) -> dict[str, Mention]:
        """What the forward scan finds in ``unit`` (``find`` per text, the best hit per item), for ``only``
        (None: every item): what the cache or this scan already found for some of them (a unit's hits
        for some items are its hits for all, restricted to those), the others matched."""
        only = self.all_items if only is None else only
        asked, hits = self.matched.get(unit.index) or self.stored.get(unit.index) or (frozenset(), {})
        missing = only - asked
        if missing:
            hits = {**hits, **self._unit_hits(unit, missing)}
            asked = self._one(asked | missing)
            self.matched[unit.index] = (asked, hits)
        elif unit.index not in self.matched:
            self.matched[unit.index] = (asked, hits)
        return {k: v for k, v in hits.items() if k in only}

    def _one(self, items: frozenset[str]) -> frozenset[str]:
        """One set object for all alike (thousands of units are asked for the same items)."""
        return self._alike.setdefault(items, items)

    def _unit_hits(self, unit: _Unit, only: frozenset[str]) -> dict[str, Mention]:
        """:meth:`unit_hits` matched."""
        if unit.texts is None:
            raise _Unnumbered
        previous = self.turn_hits(unit.previous, only) if unit.followup and unit.previous is not None else None
        strict = unit.entry.kind is _TOOL_CALL
        threshold = self.index.threshold
        open_, items, ids, offset = self.open, self.items, self.ids, self.offset
        few = len(only) <= FEW_ITEMS
        hits: dict[str, Mention] = {}
        for start, size in unit.texts:
            found: dict[str, Mention] = {}
            if previous and size and is_followup(self.sentence(start)):
                evidence = _evidence(self.sentence(start))
                for item in previous:
                    found[item] = Mention(threshold, evidence, (), followup=True)
            # per item, the score a hit must exceed to change what the unit gives: a sentence that cannot
            # is not scored for it (the first best hit of a text is kept, then the first best of the unit's texts)
            beat = {item: hit.score for item, hit in hits.items()}
            for item, hit in found.items():
                beat[item] = max(hit.score, beat.get(item, hit.score))
            # with few items asked for, a text none of whose sentences holds a term of theirs is not read
            span = range(start, start + size) if not few or self._may_hold(only, start, start + size) else range(0)
            for position in span:
                if position not in open_:
                    continue  # no item can be mentioned there
                may = self.strict_items(position) if strict else items.get(ids[position - offset])
                asked = only & (self.items_of(position) if may is None else may)
                if not asked:
                    continue  # no item asked for can be mentioned there
                for item, hit in self.match(position, strict, asked, beat).items():
                    best = found.get(item)
                    if best is None or hit.score > best.score:
                        found[item] = hit
                        beat[item] = max(hit.score, beat.get(item, hit.score))
            for item, hit in found.items():
                if item not in hits or hit.score > hits[item].score:
                    hits[item] = hit
        return hits

    def _may_hold(self, only: frozenset[str], start: int, end: int) -> bool:
        """Whether a sentence from position ``start`` to ``end`` (excluded) holds a term of an item of
        ``only`` (else none of them is among its :meth:`items_of`): a binary search in the positions
        of each such term."""
        held = self._terms_of.get(only)
        if held is None:
            postings, positions = self.index._postings, self.frequencies.positions
            held = self._terms_of[only] = [positions(k) for k, items in postings.items() if not only.isdisjoint(items)]
        for found in held:
            at = bisect_left(found, start)
            if at < len(found) and found[at] < end:
                return True
        return False

    def known(self, unit: _Unit, only: frozenset[str] | None) -> dict[str, Mention] | None:
        """The hits of ``unit`` for ``only`` (None: every item) if already found (for those items or
        more, by this scan or kept from an earlier one), else None."""
        kept = self.matched.get(unit.index) or self.stored.get(unit.index)
        if kept is None:
            return None
        asked, hits = kept
        only = self.all_items if only is None else only
        if not only <= asked:
            return None
        return {k: v for k, v in hits.items() if k in only}

    def turn_hits(self, unit: _Unit, only: frozenset[str] | None) -> dict[str, Mention]:
        """A turn's hits for ``only`` (what a follow-up of it takes), kept: the main scan reaches
        that turn next, and a chain of follow-ups is walked once, from its oldest turn (no deep recursion)."""
        hits = self.known(unit, only)
        if hits is not None:
            return hits
        chain_: list[_Unit] = [unit]
        while True:
            last = chain_[-1]
            if not last.followup or last.previous is None or self.known(last.previous, only) is not None:
                break
            chain_.append(last.previous)
        for link in reversed(chain_[1:]):
            self.unit_hits(link, only)
        return self.unit_hits(unit, only)


def latest_occurrences(
    items: Sequence[TrackedItem],
    entries: Sequence[Entry],
    live_from: int,
    current_round: int,
    threshold: float = THRESHOLD,
    keep: int = MAX_REFERENCED_ROUNDS,
    cache: ScanCache | None = None,
) -> dict[str, list[Reference]]:
    """For each item id, its references (in transcript order) from the latest back to where its status is settled.

    ``live_from``: the seq of the live window's first entry (its position needs the latest
    reference at or after it); ``current_round``: the session's last round (rounds the item's
    memory holds after it are not counted); ``keep``: how many of the latest referenced rounds
    are needed; ``cache``: what an earlier scan of this session kept
    (:class:`~ctx_tui.memory.scan_cache.ScanCache`), whose hits are taken and which is given
    this scan's to save (the same result with or without it). See the module's docstring.
    """
    if not items:
        return {}
    if cache is None:
        return _read(_Scan(items, _units_of(entries), threshold), items, live_from, current_round, keep)
    units = _units_of(entries)
    texts = {item.id: item.content for item in items}
    cache.load(texts)
    digests = _digests(units)
    valid = cache.valid(digests)
    stored = {unit: hits for unit, hits in cache.units.items() if unit < valid}
    before = None
    if cache.counts is not None and valid == len(cache.digests):
        # the session as the earlier scan read it, grown: only what came since is numbered
        before = _Before(valid, cache.positions, cache.counts)
    scan = _Scan(items, units, threshold, True, cache.keys, before)
    units.clear()  # their texts (a tool call's strings) are not held while the scan reads
    scan.stored = stored
    try:
        found = _read(scan, items, live_from, current_round, keep)
    except _Unnumbered:  # a unit of the earlier part is needed after all: the whole session numbered
        scan = _Scan(items, _units_of(entries), threshold, True, cache.keys)
        scan.stored = stored
        found = _read(scan, items, live_from, current_round, keep)
    short_keys = {**cache.keys, **dict(scan.short_keys)} if scan.offset else dict(scan.short_keys)
    cache.keep(texts, digests, {**scan.stored, **scan.matched}.items(), short_keys.items(), scan.counts, scan.positions)
    return found


def _read(scan: _Scan, items: Sequence[TrackedItem], live_from: int, current_round: int, keep: int) -> dict[str, list[Reference]]:
    states = {item.id: _Item(item, current_round, keep) for item in items}
    open_: dict[str, _Item] = dict(states)
    checked: tuple[int, bool] | None = None  # the round and live side last checked, unless hits came since
    distinct: dict[object, Any] = {}  # one object per distinct sentence and matched tuple (see _reference)
    # the items with a reference found in the round being read (its latest): before the live window no
    # other of that round is looked for (a status reads which rounds have one, and the latest of the last)
    found_in: tuple[int, set[str]] = (-1, set())
    for unit in reversed(scan.units):
        entry = unit.entry
        where = (entry.round, entry.seq >= live_from)
        if where != checked:
            for key in [k for k, state in open_.items() if state.settled(entry.round, entry.seq, live_from)]:
                del open_[key]
            if not open_:
                break
            checked = where
        if found_in[0] != entry.round:
            found_in = (entry.round, set())
        done = found_in[1]
        if done and entry.seq < live_from:
            wanted = frozenset([k for k in open_ if k not in done])
            if not wanted:
                continue
        else:
            wanted = frozenset(open_)
        known = scan.known(unit, wanted)
        if known is not None:
            hits = known
        elif unit.followup and unit.previous is not None and scan.turn_hits(unit.previous, wanted):
            hits = scan.unit_hits(unit, wanted)
        else:
            # no follow-up hits for these items: each sentence matched for those it may mention
            hits = scan.unit_hits(unit, wanted)
            if not hits:
                continue
        if hits:
            checked = None
        for key, hit in hits.items():
            state = open_[key]
            state.found.append(_reference(entry, hit, distinct))
            done.add(key)
            if entry.round >= state.floor and entry.round > state.entered:
                state.rounds.add(entry.round)
            if entry.seq >= live_from:
                state.live = True
    return {key: state.found[::-1] for key, state in states.items()}
