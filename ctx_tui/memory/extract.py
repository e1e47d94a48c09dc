"""Automatic extraction of tracked items from a transcript: offline, deterministic.

* **Goal** — the first real user request of the session (slash-command
  wrappers, caveats and injected instructions are SYSTEM entries already; a
  leading ``/command`` word is dropped, a redacted placeholder is no request).
* **Constraints and preferences** — sentences of USER entries that instruct:
  an imperative opening ("always", "never", "don't", "do not", "make sure",
  "avoid", "only"...), a binding modal anywhere ("must", "must not", "is not
  allowed"...), or a stated preference ("I prefer", "I'd rather", "instead
  of", "rather than"...). Questions, code blocks and quoted text are skipped.
* **Decisions** — sentences of USER or ASSISTANT text that settle a choice:
  "we'll go with", "let's use", "decided to", "going with", "opted for",
  "settled on"... A "because/since/so that" clause becomes the rationale, file
  paths in the sentence the affected files.

Tool results, thinking and system entries are never a source; nor is
sub-agent traffic. The same fact always gets the same id
(:func:`~ctx_tui.memory.items.extracted_item_id`), so re-running the
extraction is idempotent and a dismissed item stays dismissed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ctx_tui.memory.items import ItemType, TrackedItem, extracted_item_id
from ctx_tui.transcripts.model import Entry, Kind

MAX_CONTENT = 300
MIN_SENTENCE = 8
_GOAL_SENTENCES = 3

#: Placeholders some transcripts hold instead of text (redacted fixtures, images).
_PLACEHOLDER = re.compile(r"\[(?:REDACTED[^\]]*|image[^\]]*)\]", re.I)
_FENCED = re.compile(r"(^|\n)[ \t]*(```|~~~).*?(\n[ \t]*\2[^\n]*|$)", re.S)
_TAGGED = re.compile(r"<([a-z][\w-]*)(\s[^>]*)?>.*?</\1>", re.S | re.I)
_SLASH_COMMAND = re.compile(r"^/[\w:.-]+\s*")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")

_IMPERATIVE = re.compile(
    r"^(?:(?:and|but|also|so|then|please|pls|plz)[\s,]+)*"
    r"(?:always|never|don'?t|do not|dont|make sure|ensure|be sure to|avoid|only|stop|no more|under no circumstances)\b",
    re.I,
)
_MODAL = re.compile(
    r"\b(?:must(?:n'?t| not)?|have to always|should (?:never|always)|shall not|is not allowed|are not allowed|"
    r"not allowed to|is forbidden|are forbidden|is required|are required|required to|is mandatory|"
    r"you (?:always|never)|we (?:always|never)|needs? to (?:stay|remain|be kept))\b",
    re.I,
)
_PREFERENCE = re.compile(
    r"\b(?:i|we) (?:prefer|'d prefer|would prefer|'d rather|would rather|like it when|want you to)\b|"
    r"\bi'd (?:prefer|rather)\b|\bprefer(?:ably|red)?\b|\brather than\b|\binstead of\b",
    re.I,
)
_DECISION = re.compile(
    r"\b(?:(?:we|i)(?:'ll| will| shall) go with|let'?s (?:go with|use|stick with|keep|switch to|adopt|pick|choose|set|make)|"
    r"let us (?:go with|use)|(?:we|i)(?: have|'ve)? decided|decided (?:to|on|that)|decision:|we(?:'re| are) going with|"
    r"going with|opted (?:for|to)|settled on|we(?:'ll| will) use|chose to|the plan is to)\b",
    re.I,
)
#: Every pattern above needs one of these substrings (a fast pre-filter).
_TRIGGERS = (
    "always", "never", "don", "do not", "make sure", "ensure", "be sure", "avoid", "only", "stop", "no more",
    "under no", "must", "should", "shall", "allowed", "forbidden", "required", "mandatory", "need", "prefer",
    "rather", "instead", "like it", "want you", "go with", "let", "decided", "decision", "going with", "opted",
    "settled", "will use", "'ll use", "chose", "plan is", "have to",
)
_NOT_SELF = re.compile(r"^(?:i(?:'ve| have)? never|never mind|i don'?t (?:know|think|see|understand|get))\b", re.I)
_RATIONALE = re.compile(r"\s*(?:,\s*)?\b(?:because|since|so that|as it|as this|given that)\b\s*", re.I)
_PATHS = re.compile(r"(?:[\w@.+-]+/)+[\w@.+-]+\.\w{1,6}|\b[\w-]+\.(?:py|ts|tsx|js|json|md|ya?ml|toml|rs|go|java|sh)\b")


@dataclass(frozen=True, slots=True)
class Extraction:
    """One extracted item and where it came from."""

    item: TrackedItem
    seq: int  # the entry it was read from
    rationale: str = ""  # decisions only
    affects_files: tuple[str, ...] = ()


def _prose(text: str) -> str:
    """``text`` without code blocks and tagged blocks (pasted logs, injected notes)."""
    return _TAGGED.sub(" ", _FENCED.sub("\n", text))


def sentences(text: str) -> list[str]:
    """Sentences of the prose of ``text``: one per line, lines split at sentence ends."""
    out: list[str] = []
    for line in _prose(text).splitlines():
        line = _BULLET.sub("", line).strip()
        if not line or line.startswith((">", "|", "#")):
            continue
        out.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return out


def _bounded(text: str, limit: int = MAX_CONTENT) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + "…"


def _clean(sentence: str) -> str:
    return _bounded(sentence.strip().rstrip(";").strip())


def classify(sentence: str, role: str) -> ItemType | None:
    """The item type a sentence states (USER: constraint/preference/decision; ASSISTANT: decision)."""
    s = sentence.strip()
    if len(s) < MIN_SENTENCE or s.endswith("?"):
        return None
    low = s.lower()
    if not any(trigger in low for trigger in _TRIGGERS):
        return None  # cheap test first: most sentences instruct nothing
    if role == "user" and not _NOT_SELF.match(s):
        if _PREFERENCE.search(s):
            return ItemType.USER_PREFERENCE
        if _IMPERATIVE.match(s) or _MODAL.search(s):
            return ItemType.CONSTRAINT
    if _DECISION.search(s):
        return ItemType.DECISION
    return None


def _is_real_request(entry: Entry) -> bool:
    return (
        entry.kind is Kind.USER
        and not entry.is_sidechain
        and getattr(entry, "in_context", True)
        and _has_text(entry.text)
    )


def _has_text(text: str) -> bool:
    """True when ``text`` says something beyond placeholders and punctuation."""
    return any(c.isalnum() for c in _PLACEHOLDER.sub(" ", text))


def goal_of(entries: Iterable[Entry]) -> Extraction | None:
    """The session goal: the first real user request, its first sentences."""
    for entry in entries:
        if not _is_real_request(entry):
            continue
        text = _SLASH_COMMAND.sub("", _prose(_PLACEHOLDER.sub(" ", entry.text)).strip(), count=1)
        parts = [s for s in sentences(text)][:_GOAL_SENTENCES]
        content = _bounded(" ".join(parts)) if parts else ""
        if not content:
            continue
        item = TrackedItem(
            id=extracted_item_id(ItemType.GOAL, content),
            type=ItemType.GOAL,
            content=content,
            entered_round=max(entry.round, 0),
            source="extracted",
        )
        return Extraction(item=item, seq=entry.seq)
    return None


def _decision(sentence: str) -> tuple[str, str]:
    parts = _RATIONALE.split(sentence, maxsplit=1)
    if len(parts) == 2 and parts[0].strip() and parts[1].strip():
        return _clean(parts[0]).rstrip(","), _clean(parts[1])
    return _clean(sentence), ""


@lru_cache(maxsize=16384)
def _statements(role: str, text: str) -> tuple[tuple[ItemType, str, str, tuple[str, ...]], ...]:
    """(type, content, rationale, files) of each instructing sentence of one text (cached: polls repeat)."""
    if not _has_text(text):
        return ()
    out = []
    for sentence in sentences(text):
        kind = classify(sentence, role)
        if kind is None:
            continue
        rationale = ""
        if kind is ItemType.DECISION:
            content, rationale = _decision(sentence)
        else:
            content = _clean(sentence)
        out.append((kind, content, rationale, tuple(dict.fromkeys(_PATHS.findall(sentence)))))
    return tuple(out)


def extract_items(entries: Iterable[Entry]) -> list[Extraction]:
    """Goal, constraints, preferences and decisions of a transcript, in order, without duplicates."""
    entries = list(entries)
    out: list[Extraction] = []
    seen: set[str] = set()
    goal = goal_of(entries)
    if goal is not None:
        out.append(goal)
        seen.add(goal.item.id)
    for entry in entries:
        if entry.is_sidechain or not getattr(entry, "in_context", True):
            continue
        if entry.kind is Kind.USER:
            role = "user"
        elif entry.kind is Kind.ASSISTANT:
            role = "assistant"
        else:
            continue
        for kind, content, rationale, files in _statements(role, entry.text):
            item_id = extracted_item_id(kind, content)
            if item_id in seen:
                continue
            seen.add(item_id)
            item = TrackedItem(
                id=item_id, type=kind, content=content, entered_round=max(entry.round, 0), source="extracted"
            )
            out.append(Extraction(item=item, seq=entry.seq, rationale=rationale, affects_files=files))
    return out
