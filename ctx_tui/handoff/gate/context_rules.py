"""continuation_context rules: concrete, not filler, and carrying state with evidence."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from ctx_tui.handoff.gate.concrete import anchor_tokens
from ctx_tui.handoff.gate.draft_view import HINTS, DraftView
from ctx_tui.handoff.gate.evidence import PENDING, RESULT_WORD, has_evidence
from ctx_tui.handoff.gate.text import CODE_SPAN, content_words, sentence_spans, stem
from ctx_tui.handoff.gate.vocabulary import FILLER

MAX_CONTEXT_WORDS = 500
#: continuation_context must name at least this many distinct concrete things.
MIN_CONTEXT_ANCHORS = 2
#: Below this many words the context gets a warning (it may still pass).
SHORT_CONTEXT_WORDS = 20
#: Filler sentences carrying at least this share of the words make the context fail.
FILLER_SHARE_ERROR = 0.5
#: A sentence whose content words are at least this share of the task's words restates the task.
RESTATE_SHARE = 0.5
#: A number standing alone (not part of a path, version or name): "meldet 3 fehlende", "(41 passed)".
_COUNT = re.compile(r"(?<![\w./:-])\d+(?![\w./:-]*[A-Za-z/])")


def _filler_matches(text: str) -> list[tuple[int, str]]:
    """``(offset, phrase as written)`` for every vague phrase of ``text``."""
    lower = text.lower()
    same = len(lower) == len(text)  # lower() may change the length of some non-ASCII text
    return [(m.start(), text[m.start():m.end()] if same else m.group(0)) for m in FILLER.finditer(lower)]


def check_context(view: DraftView) -> None:
    field = "continuation_context"
    text = view.text(field, view.data.get(field))
    if text is None:
        return
    words = text.split()
    if not words:
        view.add(field, "error", "continuation_context is empty", HINTS[field], "context.empty")
        return
    errors_before = sum(f.is_error for f in view.findings)
    if len(words) > MAX_CONTEXT_WORDS:
        view.add(field, "error", f"{len(words)} words; at most {MAX_CONTEXT_WORDS}",
                 "keep what the next session cannot find by reading the files", "context.too_long")
    found = anchor_tokens(text)
    named = {thing for _, thing in found}
    if len(named) < MIN_CONTEXT_ANCHORS:
        view.add(field, "error",
                 "names nothing concrete the next session can act on" if not named
                 else f"names only one concrete thing ({next(iter(named))})",
                 "name files, identifiers, commands, test names or error messages (at least "
                 f"{MIN_CONTEXT_ANCHORS}), e.g. `src/io.py`, parse_rows(), `pytest -k partial`, KeyError",
                 "context.not_concrete")
    spans = sentence_spans(text)
    starts = [a for a, _ in spans]
    concrete = {bisect_right(starts, offset) - 1 for offset, _ in found}
    filler_error = _filler(view, text, spans, starts, concrete, len(words))
    if sum(f.is_error for f in view.findings) == errors_before and not filler_error:
        _state(view, text, spans, starts, found)


def _filler(view: DraftView, text: str, spans: list[tuple[int, int]], starts: list[int],
            concrete: set[int], total_words: int) -> bool:
    """A sentence is filler when it holds a vague phrase and names nothing concrete."""
    field = "continuation_context"
    first_phrase: dict[int, str] = {}
    for offset, phrase in _filler_matches(text):
        first_phrase.setdefault(bisect_right(starts, offset) - 1, phrase)
    vague_words = 0
    vague: list[str] = []
    for index, phrase in sorted(first_phrase.items()):
        if index not in concrete and index >= 0:
            a, b = spans[index]
            vague_words += len(text[a:b].split())
            vague.append(phrase)
    if vague:
        quoted = ", ".join(f"'{p}'" for p in vague[:4])
        if vague_words / total_words >= FILLER_SHARE_ERROR:
            view.add(field, "error", f"carried by filler without an object: {quoted}",
                     "replace each vague phrase with what exactly remains: which file, function, test or error",
                     "context.filler")
            return True
        view.add(field, "warning", f"vague phrase(s) without an object: {quoted}",
                 "name the file, function, test or error each one is about", "context.filler_phrase")
    elif total_words < SHORT_CONTEXT_WORDS:
        view.add(field, "warning", f"only {total_words} words",
                 "add the state of partial work, error messages and key names", "context.short")
    return False


@lru_cache(maxsize=2048)
def _restates(sentence: str, task_stems: frozenset[str]) -> bool:
    stems = [stem(w) for w in content_words(sentence)]
    return len(stems) >= 2 and sum(s in task_stems for s in stems) >= RESTATE_SHARE * len(stems)


@lru_cache(maxsize=2048)
def _shows_state(sentence: str, things: tuple[str, ...]) -> bool:
    """The sentence shows what is done, broken or pending, with evidence (cached: the form asks again at
    every keystroke, and all but the sentence being typed are the same)."""
    lower = sentence.lower()
    return bool(
        has_evidence(sentence)
        or (things and PENDING.search(lower))  # "the resend view is a stub", "still uses DATABASE_URL"
        or (any(" " in t or "`" in sentence for t in things)
            and (RESULT_WORD.search(lower)  # "`make test` is green"
                 or _COUNT.search(CODE_SPAN.sub("", sentence))))  # a command and a count, in any language
    )


def _state(view: DraftView, text: str, spans: list[tuple[int, int]], starts: list[int],
           found: list[tuple[int, str]]) -> None:
    """Names alone are not state: some sentence must show what is done, broken or pending, with evidence."""
    task_stems = frozenset(stem(w) for w in content_words(view.task_text("assigned_task")))
    by_sentence: dict[int, list[str]] = {}
    for offset, thing in found:
        by_sentence.setdefault(bisect_right(starts, offset) - 1, []).append(thing)
    sentences = [text[a:b] for a, b in spans]
    for index, sentence in enumerate(sentences):
        if _shows_state(sentence, tuple(by_sentence.get(index, ()))) and not (task_stems and _restates(sentence, task_stems)):
            return
    restating_words = sum(len(s.split()) for s in sentences if task_stems and _restates(s, task_stems))
    field = "continuation_context"
    if restating_words * 2 >= len(text.split()):
        view.add(field, "error", "only restates the task",
                 "say what is done and what is broken or pending since the task was given, with evidence: "
                 "an error text, a test name, a command and its result, a file:line", "context.restates_task")
    else:
        view.add(field, "error", "names things but not their state",
                 "say what is done and what is broken or pending, with evidence: an error text, a test name, "
                 "a command and its result, a file:line", "context.no_state")
