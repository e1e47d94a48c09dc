"""suggested_first_action rules: one executable step — a command, or an edit naming its target.

A bare command (`` `pytest -x` ``, ``kubectl scale ...``) is a step. So is an
imperative naming its object. Refused: a chain of steps, a verb that names no
step ("continue", "... and take it from there"), "fix them" with nothing
named, and looking at something without saying what to look for.
"""

from __future__ import annotations

import re

from ctx_tui.handoff.gate.concrete import COMMANDS, anchors
from ctx_tui.handoff.gate.draft_view import HINTS, DraftView
from ctx_tui.handoff.gate.evidence import evidence_kinds
from ctx_tui.handoff.gate.text import CODE_SPAN, sentences
from ctx_tui.handoff.gate.vocabulary import (
    FROM_THERE,
    IMPERATIVE_VERBS,
    LOOK_PURPOSE,
    LOOK_VERBS,
    NOT_IMPERATIVE,
    PRONOUN_FIX,
    STALL_VERBS,
)

#: Longer than this, a "first action" is a plan, not a step (warning).
LONG_ACTION_WORDS = 40
#: This many steps joined by commas and "and" are a chain, not one step.
CHAIN_STEPS = 3

_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+", re.MULTILINE)
_SEQUENCE = re.compile(r"(?:,|;)?\s+(?:and )?then\b|;|\bafter that\b|\bfollowed by\b", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(r",\s*(?:and\s+|or\s+|then\s+)?|\s+(?:and|&|or)\s+(?:then\s+)?", re.IGNORECASE)
_LEAD = re.compile(r"^(?:please|first|next|now|also|then)\b[,:]?\s*", re.IGNORECASE)
_FIRST_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")
_LOOK_PHRASE = re.compile(r"^(?:(?:have|take) a (?:quick |closer )?look|go (?:over|through))\b", re.IGNORECASE)
_FLAG_OR_PATH = re.compile(r"(?:^|\s)(?:--?[A-Za-z]|\.{0,2}/|\S+/\S)")


def first_verb(clause: str) -> str:
    """The lower-cased verb a step starts with ("have a look" reads as "look")."""
    clause = _LEAD.sub("", _LIST_MARKER.sub("", clause.strip(), count=1))
    if _LOOK_PHRASE.match(clause):
        return "look"
    match = _FIRST_WORD.match(clause)
    return match.group(0).lower() if match else ""


def is_command(action: str) -> bool:
    """A bare command line: a code span that is the whole step, or a shell line (``go test -race ./x``)."""
    stripped = action.strip()
    if stripped.startswith("`"):
        rest = CODE_SPAN.sub("", stripped, count=1)
        return len(rest.split()) <= 3
    first = stripped.split(maxsplit=1)[0] if stripped else ""
    if first.startswith(("./", "../")) or (first in COMMANDS and len(stripped.split()) > 1):
        return True
    word = first.lower()
    return (first.islower() and word not in IMPERATIVE_VERBS | STALL_VERBS | NOT_IMPERATIVE | LOOK_VERBS
            and bool(_FLAG_OR_PATH.search(stripped)) and not stripped.endswith("."))


def step_verbs(prose: str) -> list[str]:
    """The verbs that start the clauses of the step (a clause without a verb continues the one before)."""
    verbs = []
    for index, clause in enumerate(_CLAUSE_SPLIT.split(prose)):
        verb = first_verb(clause)
        if index == 0 or verb in IMPERATIVE_VERBS or verb in STALL_VERBS or verb in LOOK_VERBS:
            verbs.append(verb)
    return verbs


def check_action(view: DraftView) -> None:
    field = "suggested_first_action"
    text = view.text(field, view.data.get(field))
    if text is None:
        return
    action = text.strip()
    if not action:
        view.add(field, "error", "suggested_first_action is empty", HINTS[field], "action.empty")
        return
    command = is_command(action)
    prose = CODE_SPAN.sub("`code`", action)
    steps = [] if command else step_verbs(prose)
    lines = [line for line in action.splitlines() if line.strip()]
    if (len(lines) > 1 or _LIST_MARKER.match(action) or len(sentences(prose)) > 1 or _SEQUENCE.search(prose)
            or len(steps) >= CHAIN_STEPS):
        view.add(field, "error", "more than one step" + (f" ({', '.join(steps)})" if len(steps) >= CHAIN_STEPS else ""),
                 "keep only the first step; put the rest in task_state.remaining_subtasks", "action.multiple")
    named = anchors(action)
    if not command:
        _verb_rules(view, field, prose, steps, named, action)
    if not named and not command:
        view.add(field, "error", "names no concrete object",
                 "name the file, command, test, run or ticket it acts on", "action.no_object")
    if len(action.split()) > LONG_ACTION_WORDS:
        view.add(field, "warning", f"{len(action.split())} words for one step",
                 "one step fits in a sentence; move detail to continuation_context", "action.long")


def _verb_rules(view: DraftView, field: str, prose: str, steps: list[str], named: set[str], action: str) -> None:
    word = steps[0] if steps else ""
    stall = next((s for s in steps if s in STALL_VERBS), None)
    if stall or FROM_THERE.search(prose):
        said = f"'{stall}'" if stall else "'from there'"
        view.add(field, "error", f"{said} is not a step: it does not say what to do",
                 "name the exact action, e.g. Run `pytest tests/test_io.py::test_partial`", "action.stall_verb")
        return
    if not word or word in NOT_IMPERATIVE or word.endswith("ing") or prose.rstrip().endswith("?"):
        view.add(field, "error", "does not start with an imperative verb",
                 "start with the verb: Run ..., Open ..., Fix ..., Add ...", "action.not_imperative")
        return
    if word not in IMPERATIVE_VERBS and word not in LOOK_VERBS:
        view.add(field, "warning", f"'{word}' is not a verb this gate knows",
                 "start with an imperative verb such as Run, Open, Fix, Add, Edit", "action.unknown_verb")
    pronoun = PRONOUN_FIX.search(prose)
    if pronoun:
        view.add(field, "error", f"'{pronoun.group(0)}' does not say which or what change",
                 "name the one test, error or file to fix and the change, e.g. Fix test_refund in "
                 "tests/test_api.py: accept amount_cents", "action.no_change")
        return
    if word in LOOK_VERBS and all(s in LOOK_VERBS for s in steps) and named:
        if not LOOK_PURPOSE.search(prose) and not evidence_kinds(action) & {"test", "place", "error", "quote"}:
            view.add(field, "error", f"'{word}' only looks: it names no change and nothing to look for",
                     "say what to change, or what to look for (e.g. Review the diff of a1b2c3d for the "
                     "missing index on orders.user_id)", "action.no_change")
