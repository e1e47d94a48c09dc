"""The backward scan of a one-off job gives the statuses the forward scan gives.

:func:`~ctx_tui.memory.latest_references.latest_occurrences` reads a session
from its end and stops once each item's status is settled; on real sessions,
with the items extraction finds and with items cut from the session's own
sentences (entered at various rounds, some with rounds already in memory), the
statuses it yields must be those of :func:`~ctx_tui.memory.references.occurrences`
(everything the tracker stores: the latest referenced rounds, the last
reference, the position, decay), and its references the tail of the forward ones
(before the live window, the latest of each round).
A small ``keep`` makes the scan stop early, so the stopping rule is exercised
on sessions of any size.
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from ctx_tui.config import Config
from ctx_tui.memory.decay import ItemStatus, analyze, status_of
from ctx_tui.memory.extract import extract_items
from ctx_tui.memory.items import MAX_REFERENCED_ROUNDS, ItemType, TrackedItem
from ctx_tui.memory import latest_references
from ctx_tui.memory.latest_references import latest_occurrences
from ctx_tui.memory.references import mentions as can_mention
from ctx_tui.memory.references import Reference, occurrences, texts_of
from ctx_tui.memory.scan_cache import ScanCache
from ctx_tui.mentions import PARSED_CACHE_CHARS, Profile, Vocabulary, sentences, similarity, strict_may_mention, term_keys
from ctx_tui.transcripts.model import Entry, Kind
from ctx_tui.window import Session

from conftest import ALL_FIXTURES, fixture


def _session(name: str) -> Session:
    session = Session(fixture(name), Config())
    session.poll()
    return session


def _cut_items(session: Session, count: int) -> list[TrackedItem]:
    """Items worded as the session words things (every n-th sentence of 4 to 25 words), entered in the
    round they were said, every third with two later rounds already in memory."""
    pool = [
        (entry.round, s)
        for entry in session.entries
        if can_mention(entry)
        for text in texts_of(entry)
        for s in sentences(text)
        if 4 <= len(s.split()) <= 25
    ]
    step = max(1, len(pool) // count)
    items = []
    for n in range(min(count, len(pool))):
        round_, text = pool[n * step]
        memory = [round_ + 1, round_ + 3] if n % 3 == 0 else []
        items.append(
            TrackedItem(
                id=f"i{n}", type=ItemType.CONSTRAINT if n % 4 == 0 else ItemType.FINDING, content=text, importance="high" if n % 4 == 0 else "medium", entered_round=round_,
                referenced_rounds=memory, source="extracted" if n % 2 else "registered",
            )
        )
    return items


def _stored(status: ItemStatus, keep: int) -> tuple[object, ...]:
    """What the tracker keeps of a status: the latest ``keep`` referenced rounds and the rest of it."""
    return (
        status.referenced_rounds[-keep:], status.last_seen_round, status.rounds_since_reference, status.position,
        status.seq, status.out_of_context, status.decayed, status.in_danger_zone, status.risk,
        status.recommendation, status.last_reference,
    )


def _latest_of_rounds(found: list[Reference], live_from: int) -> list[Reference]:
    """``found`` (in transcript order) as the backward scan reads it: every reference in the live
    window (from the seq ``live_from``), before it only the latest of each round."""
    return [
        ref for n, ref in enumerate(found) if ref.seq >= live_from or n + 1 == len(found) or found[n + 1].round != ref.round
    ]


def _compare(session: Session, items: list[TrackedItem], keep: int) -> int:
    config = Config()
    state = session.state()
    threshold = config.decay.reference_threshold
    forward = occurrences(items, session.entries, threshold)
    live_from = state.live[0].entry.seq if state.live else 1 << 62
    backward = latest_occurrences(items, session.entries, live_from, state.rounds, threshold, keep)
    for item in items:
        full, tail = _latest_of_rounds(forward[item.id], live_from), backward[item.id]
        assert tail == full[len(full) - len(tail) :], item.id
        expected = status_of(item, full, state.live, state.rounds, config)
        assert _stored(status_of(item, tail, state.live, state.rounds, config), keep) == _stored(expected, keep), item.id
    return sum(map(len, forward.values()))


@pytest.mark.parametrize("name", ALL_FIXTURES)
@pytest.mark.parametrize("keep", [MAX_REFERENCED_ROUNDS, 2])
def test_the_same_statuses_with_cut_items(name: str, keep: int) -> None:
    session = _session(name)
    items = _cut_items(session, 60)
    found = _compare(session, items, keep)
    assert found or not items


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_the_same_statuses_with_extracted_items(name: str) -> None:
    session = _session(name)
    items = [x.item for x in extract_items(session.entries)]
    _compare(session, items, MAX_REFERENCED_ROUNDS)
    _compare(session, items, 1)


def test_analyze_latest_only_gives_the_same_statuses(tmp_path: object) -> None:
    session = _session(ALL_FIXTURES[0])
    config = Config()
    state = session.state()
    items = _cut_items(session, 40)
    full = analyze(items, session.entries, state.live, state.rounds, config)
    latest = analyze(items, session.entries, state.live, state.rounds, config, latest_only=True)
    assert [_stored(s, MAX_REFERENCED_ROUNDS) for s in latest] == [_stored(s, MAX_REFERENCED_ROUNDS) for s in full]
    assert [s.item.id for s in latest] == [s.item.id for s in full]


def test_no_items_reads_nothing() -> None:
    session = _session(ALL_FIXTURES[0])
    assert latest_occurrences([], session.entries, 0, 1) == {}



@pytest.mark.parametrize("name", ALL_FIXTURES[:2])
def test_strict_text_that_cannot_mention_an_item_scores_zero(name: str) -> None:
    """The scan skips a command's sentence for the items :func:`strict_may_mention` rules out: for
    each of them the score is 0 whatever the frequencies (here the whole session's, and none)."""
    session = _session(name)
    commands = list(dict.fromkeys(
        s for entry in session.entries if entry.kind is Kind.TOOL_CALL and can_mention(entry)
        for text in texts_of(entry) for s in sentences(text)
    ))[:400]
    vocab = Vocabulary(texts_of_entry for entry in session.entries if can_mention(entry) for texts_of_entry in texts_of(entry))
    profiles = [Profile(item.content) for item in _cut_items(session, 40)]
    ruled_out = kept = 0
    for sentence in commands:
        words = {k for k in term_keys(sentence) if not k.startswith("~")}
        for profile in profiles:
            if strict_may_mention(profile, words):
                kept += 1
                continue
            ruled_out += 1
            for frequencies in (vocab, None):
                assert similarity(profile, sentence, frequencies, strict=True)[0] == 0.0, (sentence, profile.text)
    assert ruled_out and kept



def _latest(session: Session, items: list[TrackedItem], entries: list[Entry], cache: Path | None) -> dict[str, list[Reference]]:
    state = session.state()
    live_from = state.live[0].entry.seq if state.live else 1 << 62
    if cache is None:
        return latest_occurrences(items, entries, live_from, state.rounds, Config().decay.reference_threshold)
    kept = ScanCache(cache, Config().decay.reference_threshold)
    found = latest_occurrences(items, entries, live_from, state.rounds, Config().decay.reference_threshold, cache=kept)
    kept.save()
    return found


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_a_scan_cache_gives_the_same_references(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hits kept by a job on the session as it was (a prefix of its entries, other items) and taken by
    the next job give what a scan without a cache gives; so does a cache of a session whose earlier
    entries read differently now, or a broken file; the next job matches only what is new."""
    session = _session(name)
    entries = list(session.entries)
    items = _cut_items(session, 40)
    expected = _latest(session, items, entries, None)
    cache = tmp_path / "s.scan.json"
    for cut in (len(entries) // 2, len(entries) - 3, len(entries)):
        _latest(session, items[: len(items) * 3 // 4], entries[:cut], cache)  # the earlier job, fewer items
        assert cache.is_file()
        assert _latest(session, items, entries, cache) == expected
    kept = orjson.loads(cache.read_bytes())
    assert kept["units"] and len(kept["digests"]) == sum(1 for e in entries if can_mention(e) and texts_of(e))
    # all kept now: the same again, matching nothing
    matched: list[int] = []
    match = latest_references._Scan.match
    monkeypatch.setattr(latest_references._Scan, "match", lambda self, *a: matched.append(1) or match(self, *a))
    parsed: list[str] = []
    parse = latest_references._parse
    monkeypatch.setattr(latest_references, "_parse", lambda sentence: parsed.append(sentence) or parse(sentence))
    assert _latest(session, items, entries, cache) == expected
    assert not matched
    assert all(len(sentence) > PARSED_CACHE_CHARS for sentence in parsed)  # the short sentences' terms kept too
    monkeypatch.undo()
    # an earlier entry that reads differently now: nothing from it on is taken from the cache
    first = next(n for n, e in enumerate(entries) if can_mention(e) and e.kind is Kind.USER and e.text)
    changed = [*entries[:first], replace(entries[first], text=entries[first].text + " Kubernetes pods"), *entries[first + 1 :]]
    assert _latest(session, items, changed, cache) == _latest(session, items, changed, None)
    for broken in (b"{", b"[]", orjson.dumps({**kept, "units": [[0, [0], [[0, "x"]]]]}), orjson.dumps({**kept, "threshold": 0.1})):
        cache.write_bytes(broken)
        assert _latest(session, items, entries, cache) == expected


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_the_next_scan_numbers_only_what_came_since(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job on the session grown since the last one (same items) splits no text of what that job
    read: the term frequencies there come from the cache; the same references as without a cache.
    A cache whose frequencies do not read as such gives no more than no cache gives."""
    session = _session(name)
    entries = list(session.entries)
    items = _cut_items(session, 40)
    expected = _latest(session, items, entries, None)
    cache = tmp_path / "s.scan.json"
    cut = len(entries) * 9 // 10
    _latest(session, items, entries[:cut], cache)
    split: list[str] = []
    sentences_of = latest_references.sentences
    monkeypatch.setattr(latest_references, "sentences", lambda text: split.append(text) or sentences_of(text))
    assert _latest(session, items, entries, cache) == expected
    later = {text for entry in entries[cut:] if can_mention(entry) for text in texts_of(entry)}
    assert set(split) <= later
    kept = orjson.loads(cache.read_bytes())
    assert sum(kept["counts"].values()) >= kept["positions"] > 0
    for broken in ({**kept, "counts": {"x": "y"}}, {**kept, "counts": [1]}, {**kept, "positions": None}):
        cache.write_bytes(orjson.dumps(broken))
        split.clear()
        assert _latest(session, items, entries, cache) == expected
        assert not set(split) <= later or not later  # every text split again


def test_the_scan_cache_never_writes_through_a_link_nor_over_a_fifo(tmp_path: Path) -> None:
    """A cache path that is a symlink (to a file of the user's) or a FIFO is left as it is: the job
    gives the same references without a cache and the other file keeps every byte."""
    session = _session(ALL_FIXTURES[0])
    entries = list(session.entries)
    items = _cut_items(session, 10)
    expected = _latest(session, items, entries, None)
    precious = tmp_path / "notes.txt"
    precious.write_bytes(b"the user's own notes\n")
    link = tmp_path / "link.scan.json"
    link.symlink_to(precious)
    dangling = tmp_path / "dangling.scan.json"
    dangling.symlink_to(tmp_path / "nowhere" / "file")
    fifo = tmp_path / "fifo.scan.json"
    os.mkfifo(fifo)
    for cache in (link, dangling, fifo):
        assert _latest(session, items, entries, cache) == expected
    assert precious.read_bytes() == b"the user's own notes\n"
    assert link.is_symlink() and dangling.is_symlink() and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not (tmp_path / "nowhere").exists()


def test_the_scan_cache_is_keyed_by_every_module_the_scan_runs() -> None:
    """Every ctx_tui module the scan imports is in the cache's code digest, but the transcript
    model's (the digests of the entries themselves cover what it reads): a changed matcher,
    lexicon or command-line rule never takes hits an older one found."""
    import subprocess
    import sys

    from ctx_tui.memory import scan_cache

    code = "import sys, ctx_tui.memory.latest_references; print(*[m.__file__ for n, m in sys.modules.items() if n.startswith('ctx_tui')])"
    files = {Path(f).resolve() for f in subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()}
    root = Path(scan_cache.__file__).resolve().parents[1]
    covered = {p.resolve() for pattern in scan_cache._CODE for p in root.glob(pattern)}
    assert root / "concepts.txt" in covered
    missing = [f for f in files - covered if "transcripts" not in f.relative_to(root).parts]
    assert not missing


def test_the_scan_cache_keeps_what_each_text_states(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next one-off refresh of a session reads no text again to extract: each text's statements
    come from the scan cache (by a digest of the speaker and the text), with the same extractions
    and session memory as without it; a file whose statements do not read as statements gives no
    statements (every text read again), and the same result."""
    from ctx_tui.memory import extract
    from ctx_tui.memory.scan_cache import scan_cache_path
    from ctx_tui.memory.session_store import session_id_of
    from ctx_tui.memory.tracker import refresh

    session = _session(ALL_FIXTURES[0])  # its assistant states decisions
    config = Config()
    first = refresh(tmp_path / "first", session, config, latest_only=True)
    assert first.extractions
    cache = scan_cache_path(tmp_path / "first", session_id_of(session))
    kept = orjson.loads(cache.read_bytes())
    assert kept["statements"] and any(found for _, found in kept["statements"])
    read: list[str | bytes] = []
    statements = extract._statements
    monkeypatch.setattr(extract, "_statements", lambda role, key: read.append(key) or statements(role, key))
    again = refresh(tmp_path / "first", session, config, latest_only=True)
    assert _timeless(again.extractions) == _timeless(first.extractions)
    assert [replace(i, created_at="").dump() for i in again.memory.items] == [replace(i, created_at="").dump() for i in first.memory.items]
    assert not read
    assert orjson.loads(cache.read_bytes())["statements"] == kept["statements"]
    # a statement of a type that does not exist: the file is not taken, every text is read again
    digest, found = next((d, f) for d, f in kept["statements"] if f)
    broken = {**kept, "statements": [[digest, [["no-such-type", *found[0][1:]]]]]}
    other = scan_cache_path(tmp_path / "broken", session_id_of(session))
    other.parent.mkdir(parents=True)
    other.write_bytes(orjson.dumps(broken))
    assert _timeless(refresh(tmp_path / "broken", session, config, latest_only=True).extractions) == _timeless(first.extractions)
    assert read


def _timeless(extractions: tuple[object, ...]) -> list[tuple[object, ...]]:
    """Extractions but for when their items were made."""
    return [(replace(x.item, created_at="").dump(), x.seq, x.rationale, x.affects_files) for x in extractions]  # type: ignore[attr-defined]


def test_equal_sentences_and_matched_terms_are_held_once() -> None:
    """A session repeats its sentences: each reference to one holds the same objects (what it shows is unchanged)."""
    session = _session(ALL_FIXTURES[0])
    items = _cut_items(session, 40)
    state = session.state()
    threshold = Config().decay.reference_threshold
    twice = list(session.entries) * 2  # every sentence said again
    for found in (occurrences(items, twice, threshold), latest_occurrences(items, twice, 0, state.rounds, threshold, 1 << 20)):
        refs = [ref for refs in found.values() for ref in refs]
        assert len(refs) > len({ref.sentence for ref in refs})  # repeats to share
        assert len({id(ref.sentence) for ref in refs}) == len({ref.sentence for ref in refs})
        assert len({id(ref.matched) for ref in refs}) == len({ref.matched for ref in refs})
