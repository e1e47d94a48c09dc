"""ctx_tui.kinds_plain: what the hooks use of kinds, without enum, answering as kinds did."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from ctx_tui.kinds import Importance
from ctx_tui.kinds_plain import importance_rank, normalise_content


@given(st.lists(st.text() | st.sampled_from([" ", "\n", "\x1c", "\u2003", "\u00a0", "\u200b", ".", "!;:, "])).map("".join))
def test_normalise_content_collapses_what_re_s_matches(text: str) -> None:
    assert normalise_content(text) == re.sub(r"\s+", " ", text).strip().casefold().rstrip(".!;:, ")


def test_importance_rank_is_the_enums_rank() -> None:
    for member in Importance:
        assert importance_rank(member) == importance_rank(member.value) == member.rank
    assert [importance_rank(v) for v in ("HIGH", "urgent", "", None, 2)] == [-1] * 5
