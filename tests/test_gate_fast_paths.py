"""The gate's faster paths find what the plain ones find."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctx_tui.handoff.gate.vocabulary import FOLDS_APART, PROSE_BLOCKER, PROSE_BLOCKER_LOWER

_WORDS = st.sampled_from([
    "nothing", "can", "go", "to", "staging", "until", "the", "review", "is", "signed", "off", "No", "deploys", "allowed",
    "before", "QA", "CANNOT", "merge", "while", "Code", "freeze", "Waiting", "on", "blocked", "by", "İstanbul", "ſtill",
    "ı", "Ωmega", "straße", "—", ".", ";", "\n", "must", "not", "ship", "unless", "Kelvin", "K",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=30).map(" ".join))
def test_prose_blockers_found_in_lower_case_text_are_those_found_ignoring_case(text: str) -> None:
    expected = [m.span() for m in PROSE_BLOCKER.finditer(text)]
    if FOLDS_APART.search(text) is None:  # the letters lower-casing does not fold as IGNORECASE does
        assert [m.span() for m in PROSE_BLOCKER_LOWER.finditer(text.lower())] == expected
