"""Decision rules: each decision says what was decided and a reason that refers to something."""

from __future__ import annotations

from collections.abc import Mapping

from ctx_tui.handoff.gate.concrete import anchor_tokens
from ctx_tui.handoff.gate.draft_view import DraftView
from ctx_tui.handoff.gate.schema_rules import no_rationale
from ctx_tui.handoff.gate.text import content_words
from ctx_tui.handoff.gate.vocabulary import EMPTY_REASON_WORDS

#: A rationale without a concrete thing or number needs this many words of its own.
MIN_REASON_WORDS = 2


def reason_words(rationale: str) -> list[str]:
    """The words of a rationale that refer to something (not judgements, hedges or 'as discussed')."""
    return content_words(rationale, EMPTY_REASON_WORDS)


def refers_to_something(rationale: str) -> bool:
    """A reason names a constraint, a measurement, a failure or a requirement; "it is better" names nothing."""
    if any(ch.isdigit() for ch in rationale) or anchor_tokens(rationale):
        return True
    return len(set(reason_words(rationale))) >= MIN_REASON_WORDS


def check_decisions(view: DraftView) -> None:
    items = view.data.get("decisions_made")
    if "decisions_made" in view.bad or not isinstance(items, list):
        return
    for index, item in enumerate(items):
        base = f"decisions_made[{index}]"
        if base in view.bad or not isinstance(item, Mapping):
            continue
        decision = view.text(f"{base}.decision", item.get("decision"))
        if decision is not None and not decision.strip():
            view.add(f"{base}.decision", "error", "the decision is empty", "state what was decided", "decision.empty")
        rationale = view.text(f"{base}.rationale", item.get("rationale"))
        if rationale is None:
            continue
        if not rationale.strip():
            view.findings.append(no_rationale(f"{base}.rationale"))
        elif not refers_to_something(rationale):
            view.add(f"{base}.rationale", "error", f"the rationale gives no reason: {rationale.strip()!r}",
                     "name what it refers to: a constraint, a measurement, a failure or a requirement "
                     "(e.g. 'SMTP calls took 1.8 s and blocked signup')", "decision.empty_rationale")
