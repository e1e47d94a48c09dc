"""Blockers: each names what blocks, and the first action must not do what one forbids.

A listed blocker that names nothing concrete -- no file, identifier, command,
error, number, date, person or team -- and says only "some issues",
"something weird" or "not working yet" is filler, as such a context sentence is.

Blockers come from ``task_state.blockers`` and from the context's prose
("nothing can go to staging until the review is signed off"). Each gives the
*activity* it blocks: the part before its condition ("X until Y", "can't X
before Y", "X blocked by Y") or after it ("Y before any X"). A first action
that shares a content word with a blocked activity collides — unless its verb
works towards lifting the blocker (ask, send, schedule...), it is itself
conditional ("... once the key is set"), or it only writes into a file it
names (add, write, guard, stub...): such a step prepares or works around the
blocker (a fallback, a guard, a report for legal) and needs nothing lifted,
unless the blocker forbids that writing ("don't touch ledger.py until ...").

A context sentence is a blocker when it constrains the *work*, not when it
tells how the code runs: "Prod backfill waits for the freeze to end" is one,
"the runner opens each scene, calls BakeAsync, waits on isRunning, saves" is
not. A wait whose subject is left out (one verb of a series) or is only code
(``poll() waits for a newline``) describes the program, so it is skipped.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ctx_tui.handoff.gate.action_rules import first_verb, step_verbs
from ctx_tui.handoff.gate.concrete import anchor_tokens, anchors, names_file
from ctx_tui.handoff.gate.draft_view import DraftView
from ctx_tui.handoff.gate.evidence import has_evidence
from ctx_tui.handoff.gate.text import CODE_SPAN, TOKEN, content_words, stem
from ctx_tui.handoff.gate.vocabulary import (
    CONDITION,
    CONDITION_START,
    DAY_NAME,
    FILLER,
    FOLDS_APART,
    GENERIC_WORDS,
    PROSE_BLOCKER,
    PROSE_BLOCKER_LOWER,
    PREPARING_VERBS,
    UNBLOCKING_VERBS,
    VAGUE_TROUBLE,
    WRITING_VERBS,
)

#: Every prose blocker holds one of these words: a cheap test before reading sentence by sentence.
_ANY_BLOCKER_WORD = re.compile(r"\b(?:until|before|unless|till|pending|while|block|froz|freeze|hold|allowed|permitted|wait)",
                               re.IGNORECASE)
#: Where a clause ends: sentence punctuation, a colon or semicolon, a spaced dash.
_CLAUSE_END = re.compile(r"[.!?:;](?=\s|$)|\s[—–-](?=\s)")
#: A wait: its subject (the words before it, back to a comma or the clause start) says who or what waits.
_WAIT = re.compile(r"\bwait(?:s|ing)? (?:for|on)\b", re.IGNORECASE)
#: Words that join the verbs of a series ("..., saves and waits on x") rather than name a subject.
_JOINERS = frozenset({"and", "then", "also", "so", "or", "but"})
#: Who can lift a blocker: a capitalised name after the first word ("waiting on Dana"), a team, a handle.
_WHO = re.compile(r"(?<=\s)[A-Z][a-z]+\b|\bteams?\b|@\w")
_NEGATION = re.compile(r"\b(?:can(?:no|')?t|can not|cannot|must ?n[o']t|do ?n[o']t|should ?n[o']t|may not|nothing|no)\b",
                       re.IGNORECASE)


def blocked_activity(text: str) -> str:
    """The part of a blocker's text that names what it blocks."""
    cut = CONDITION_START.search(text)
    if cut is None:
        return text
    before, after = text[: cut.start()], text[cut.end():]
    if cut.group(0).strip().lower() == "before" and not _NEGATION.search(before):
        return after  # "security review before any staging deploy"
    return before if content_words(before) else text


_WRITING_STEMS = frozenset(stem(v) for v in WRITING_VERBS)


def waits_without_subject(clause: str) -> bool:
    """The clause's wait has no subject but code: "..., calls BakeAsync, waits on isRunning" (a verb of a
    series) or "poll() waits for a newline" -- it tells how the program runs, not what the work waits for."""
    wait = _WAIT.search(clause)
    if wait is None:
        return False
    subject = clause[: wait.start()].rsplit(",", 1)[-1]
    code = {offset for offset, _ in anchor_tokens(subject)}
    words = [m.group(0) for m in TOKEN.finditer(subject) if m.start() not in code]
    return all(w.strip("()[]'\"").lower() in _JOINERS or not any(c.isalpha() for c in w) for w in words)


def _stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)} - {stem(w) for w in GENERIC_WORDS}


def blockers_of(view: DraftView) -> list[str]:
    """Listed blockers, then the clauses of the context that state one."""
    found = list(view.task_list("blockers"))
    context = view.context()
    if not _ANY_BLOCKER_WORD.search(context):
        return found
    flat = " ".join(context.split())  # a hard-wrapped line break is a space
    ends = [m.start() for m in _CLAUSE_END.finditer(flat)]
    seen: set[int] = set()
    lower = FOLDS_APART.search(flat) is None  # then the lower-cased text gives the same matches, faster
    for match in (PROSE_BLOCKER_LOWER.finditer(flat.lower()) if lower else PROSE_BLOCKER.finditer(flat)):
        at = bisect_right(ends, match.start())
        if at in seen:
            continue
        seen.add(at)
        start = ends[at - 1] + 1 if at else 0
        end = ends[at] if at < len(ends) else len(flat)
        clause = flat[start:end].strip(" -—–")
        if not waits_without_subject(clause):
            found.append(clause)
    return found


def check_blocker_collision(view: DraftView) -> None:
    action = view.action()
    verb = first_verb(action)
    if not action or verb in UNBLOCKING_VERBS or CONDITION.search(action):
        return
    blockers = blockers_of(view)
    if not blockers:
        return
    doing = _stems(action)
    verbs = step_verbs(CODE_SPAN.sub("`code`", action))
    preparing = all(v in PREPARING_VERBS for v in verbs) and names_file(action)
    for blocker in blockers:
        activity = blocked_activity(blocker)
        if preparing and not {stem(w) for w in content_words(activity)} & _WRITING_STEMS:
            continue
        shared = doing & _stems(activity)
        if shared:
            view.add("suggested_first_action", "error",
                     f"collides with a blocker ({', '.join(sorted(shared))}): {blocker.strip()!r}",
                     "start with what lifts the blocker (ask, request, prepare), or remove the blocker if it is "
                     "resolved", "action.blocked")
            return


def vague_phrase(blocker: str) -> str | None:
    """The vague phrase of a blocker that names nothing concrete, else None."""
    lower = blocker.lower()
    match = FILLER.search(lower) or VAGUE_TROUBLE.search(lower)
    if match is None or any(c.isdigit() for c in blocker) or _WHO.search(blocker) or DAY_NAME.search(blocker):
        return None
    return None if anchors(blocker) or has_evidence(blocker) else match.group(0)


def check_blockers(view: DraftView) -> None:
    listed = view.task.get("blockers")
    if "task_state.blockers" in view.bad or not isinstance(listed, list):
        return
    for index, blocker in enumerate(listed):
        phrase = vague_phrase(blocker) if isinstance(blocker, str) else None
        if phrase:
            view.add(f"task_state.blockers[{index}]", "error",
                     f"says only '{phrase}' and names nothing concrete: {blocker.strip()!r}",
                     "say what blocks and who or what can lift it: the failing test or error message, the missing "
                     "permission and who grants it, a ticket, a date", "blocker.vague")
