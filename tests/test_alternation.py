"""Alternations grouped by their first token match exactly what the written pattern matches."""

from __future__ import annotations

import random
import re

import pytest

from ctx_tui.memory.alternation import grouped


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (r"\bnever|\bnunca|niemals", r"\b(?:never|nunca)|niemals"),
        (r"\b(?:always|avoid|never)\b", r"\b(?:a(?:lways|void)|never)\b"),
        (r"ab?|ac", r"a(?:b?|c)"),  # the quantifier binds the b: the a is shared
        (r"a?|ab", r"a?|ab"),  # a quantified first character is not
        (r"\w+'ll|\wx|\x41|\x42", r"\w+'ll|\wx|\x41|\x42"),  # classes and longer escapes kept apart
        (r"[ab]c|[ab]d|^x|^y|.z|.w", r"[ab]c|[ab]d|^x|^y|.z|.w"),
        (r"(?<=ok |on )go|(?!no)n", r"(?<=o(?:k |n ))go|(?!no)n"),  # inside a lookbehind too (still one width)
        (r"\.x|\.y|a|", r"\.(?:x|y)|a|"),
    ],
)
def test_grouped_shares_first_tokens(written: str, expected: str) -> None:
    assert grouped(written) == expected


@pytest.mark.parametrize("written", [r"(a)|b", r"(?P<x>a)|b", r"(?i)a|b", r"a)|b", r"(?:a|b"])
def test_what_it_does_not_read_is_refused(written: str) -> None:
    with pytest.raises(ValueError):
        grouped(written)


def test_grouped_patterns_match_the_same_texts() -> None:
    rng = random.Random(16)
    words = ["no", "not", "never", "nunca", "ne pas", "let's", "lets", "go with", "go", "we", "we'll", "über", "nicht", "ok"]
    pieces = [*words, r"\w+", r"\s*", r"(?:a|an|the) ", r"[.,;]", r"\b", "?", "(?=x)", "(?!no)"]
    texts = [" ".join(rng.choice(words + ["x", "the", "We", "NEVER", "Über", ",", "."]) for _ in range(rng.randint(1, 8))) for _ in range(400)]
    for _ in range(300):
        alternatives = []
        for _ in range(rng.randint(2, 7)):
            parts = [rng.choice(words)] + [rng.choice(pieces) for _ in range(rng.randint(0, 2))]
            alternative = "".join(parts).replace("??", "?")
            if alternative.startswith("?") or "(?:?" in alternative:
                continue
            alternatives.append(alternative)
        written = r"\b(?:" + "|".join(alternatives) + r")\b|" + "|".join(rf"\b{a}" for a in alternatives[:2])
        try:
            original = re.compile(written, re.I)
        except re.error:
            continue
        fast = re.compile(grouped(written), re.I)
        for text in texts:
            assert (original.search(text) is None) == (fast.search(text) is None), (written, text)
