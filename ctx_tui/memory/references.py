"""Reference detection: which later entries of a transcript mention a tracked item?

The judgement itself ("does this text mention that item?") is
:mod:`ctx_tui.mentions`: IDF-weighted terms, identifiers and numbers strong,
matched sentence by sentence. This module walks a transcript with it:

* **What can mention**: user and assistant text, thinking, tool calls (each
  string argument apart: a command, a path, an edit's new text; there one
  shared plain word is not enough, an identifier, path or number is), compaction
  summaries and system notes (a restatement arrives as one) of the main
  chain. Tool results never do: a file listing that happens to contain the
  item's words is not the agent attending to it.
* **IDF over the session**: every sentence read is added to the session's
  :class:`~ctx_tui.mentions.Vocabulary` before it is matched, so a word the
  session uses everywhere weighs little and a rare one much.
* **Follow-ups**: a short answer that points back ("yes, keep it that way")
  mentions what the other speaker's previous turn mentioned.

Each hit is a :class:`Reference` (round, speaker, the sentence, the matched
words): the evidence ``detect-decay --json`` and the dashboard show.

Cost: linear in the appended text. The scan of a growing entry list is kept
(one slot, the latest list) and continued with the appended entries only; an
item first asked for later is matched against the entries already read (once).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctx_tui.memory.items import TrackedItem
from ctx_tui.mentions import THRESHOLD, Mention, MentionIndex, Vocabulary
from ctx_tui.transcripts.model import Entry, Kind

#: Entry kinds whose text can refer to an item.
MENTION_KINDS = frozenset({Kind.USER, Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL, Kind.SUMMARY, Kind.SYSTEM})
#: Kinds that are a speaker's turn (a follow-up answers the other speaker's turn).
_TURNS = frozenset({Kind.USER, Kind.ASSISTANT})


@dataclass(frozen=True, slots=True)
class Reference:
    """One entry that mentions an item, and why."""

    seq: int
    round: int
    speaker: str  # "user", "assistant", "system", ...
    kind: str  # the entry kind ("user", "assistant", "tool_call", ...)
    sentence: str
    matched: tuple[str, ...]
    score: float
    followup: bool = False

    def as_dict(self) -> dict[str, object]:
        return {
            "round": self.round,
            "speaker": self.speaker,
            "kind": self.kind,
            "sentence": self.sentence,
            "matched": list(self.matched),
            "score": round(self.score, 3),
            "followup": self.followup,
        }


def mentions(entry: Entry) -> bool:
    """Whether ``entry`` is a place where the model or the user can mention an item."""
    return entry.kind in MENTION_KINDS and not entry.is_sidechain and getattr(entry, "in_context", True)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def texts_of(entry: Entry) -> list[str]:
    """What of ``entry`` is matched: its text, or each string argument of a tool call."""
    if entry.kind is Kind.TOOL_CALL and entry.tool_input:
        return [s for s in _strings(entry.tool_input) if s.strip()]
    return [entry.text] if entry.text else []


@dataclass
class _Scan:
    """What a scan of one entry list found so far (see :func:`occurrences`)."""

    entries: Sequence[Entry] | None = None
    scanned: int = 0
    vocab: Vocabulary = field(default_factory=Vocabulary)
    index: MentionIndex | None = None
    found: dict[str, list[Reference]] = field(default_factory=dict)
    #: the latest turn's role and what it mentioned (for follow-ups)
    last_turn: tuple[str, dict[str, Mention]] = ("", {})
    #: one object per distinct evidence sentence and matched tuple (see :func:`_reference`)
    shared: dict[object, Any] = field(default_factory=dict)


def _reference(entry: Entry, hit: Mention, shared: dict[object, Any]) -> Reference:
    """``hit`` in ``entry`` as a :class:`Reference`, its sentence and matched terms the equal ones
    already held when there are: each mention makes new ones, and a session repeats its
    sentences (the Claude session grown to 100 MB: 11,774 references, 226 distinct sentences,
    191 distinct matched tuples, ~1.9 MiB held as copies)."""
    sentence = shared.setdefault(hit.sentence, hit.sentence)
    matched = shared.setdefault(hit.matched, hit.matched)
    return Reference(entry.seq, entry.round, entry.role, entry.kind.value, sentence, matched, hit.score, hit.followup)


def _scan(scan: _Scan, index: MentionIndex, entries: Sequence[Entry], learn: bool) -> None:
    """Match ``entries`` against ``index``; ``learn``: feed the vocabulary and the follow-up state."""
    last_role, last_found = scan.last_turn if learn else ("", {})
    for entry in entries:
        if not mentions(entry):
            continue
        texts = texts_of(entry)
        if not texts:
            continue
        previous = last_found if entry.kind in _TURNS and last_role and last_role != entry.role else None
        hits: dict[str, Mention] = {}
        for text in texts:
            for key, hit in index.find(text, previous, learn, strict=entry.kind is Kind.TOOL_CALL).items():
                if key not in hits or hit.score > hits[key].score:
                    hits[key] = hit
        for key, hit in hits.items():
            scan.found.setdefault(key, []).append(_reference(entry, hit, scan.shared))
        if entry.kind in _TURNS:
            last_role, last_found = entry.role, hits
    if learn:
        scan.last_turn = (last_role, last_found)


class _Cache:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.scan = _Scan()


_CACHE = _Cache()


def occurrences(
    items: Sequence[TrackedItem], entries: Sequence[Entry], threshold: float = THRESHOLD
) -> dict[str, list[Reference]]:
    """For each item id, the entries (in order) that state or mention it.

    A session's entry list only grows (a reset replaces the list): the next
    call on the same list reads the appended entries only.
    """
    wanted = {item.id: item.content for item in items}
    with _CACHE.lock:
        scan = _CACHE.scan
        if scan.entries is not entries or len(entries) < scan.scanned or scan.index is None or scan.index.threshold != threshold:
            new_index = MentionIndex(threshold=threshold)
            scan = _CACHE.scan = _Scan(entries=entries, index=new_index)
            new_index.vocab = scan.vocab
        index = scan.index
        assert index is not None
        for key in [k for k in index.profiles if k not in wanted or index.profiles[k].text != wanted[k]]:
            index.remove(key)
            scan.found.pop(key, None)
        fresh = {k: text for k, text in wanted.items() if k not in index}
        if fresh:
            # items asked for the first time: match them against what was already read
            late = MentionIndex(scan.vocab, threshold)
            for key, text in fresh.items():
                late.add(key, text)
            _scan(scan, late, entries[: scan.scanned], learn=False)
            for key, text in fresh.items():
                index.add(key, text)
        _scan(scan, index, entries[scan.scanned :], learn=True)
        scan.scanned = len(entries)
        return {key: list(scan.found.get(key, ())) for key in wanted}
