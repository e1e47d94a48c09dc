"""The mention index gives what scoring every item against every sentence gives.

:class:`~ctx_tui.mentions.MentionIndex` skips work (candidate items through its
inverted index, sentences without candidates, per-sentence and per-item caches);
:func:`~ctx_tui.mentions.similarity` scores one item against one sentence with
none of it. On a real session, with items cut from its own sentences, both must
find the same items with the same scores and evidence, sentence by sentence,
while the vocabulary learns as the session is read.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ctx_tui.config import Config
from ctx_tui.memory.references import mentions as can_mention
from ctx_tui.memory.references import texts_of
from ctx_tui.mentions import THRESHOLD, MentionIndex, Profile, Vocabulary, sentences, similarity
from ctx_tui.transcripts.model import Kind
from ctx_tui.window import Session

from conftest import CLAUDE_COMPACTED, CODEX_FULL, fixture


def _texts(name: str) -> list[tuple[str, bool]]:
    """The texts the reference scan reads, in order, each with its ``strict`` flag."""
    session = Session(fixture(name), Config())
    session.poll()
    return [(text, entry.kind is Kind.TOOL_CALL) for entry in session.entries if can_mention(entry) for text in texts_of(entry)]


def _items(texts: list[tuple[str, bool]], count: int) -> dict[str, str]:
    """Items worded as the session words things: every n-th sentence of 4 to 25 words."""
    pool = [s for text, _ in texts for s in sentences(text) if 4 <= len(s.split()) <= 25]
    step = max(1, len(pool) // count)
    return {f"i{n}": pool[n * step] for n in range(min(count, len(pool)))}


def _compare(name: str, count: int, limit: int) -> int:
    texts = _texts(name)
    items = _items(texts, count)
    index = MentionIndex(Vocabulary())
    for key, text in items.items():
        index.add(key, text)
    profiles = {key: Profile(text) for key, text in items.items()}
    brute = Vocabulary()
    hits = 0
    for text, strict in texts[:limit]:
        for sentence in sentences(text):
            found = index.match_sentence(sentence, learn=True, strict=strict)
            brute.add_keys(Profile(sentence).factors)  # the same sentence, counted in a vocabulary of its own
            expected = {}
            for key, profile in profiles.items():
                score, matched = similarity(profile, sentence, brute, strict)
                if matched and score >= THRESHOLD:
                    expected[key] = (score, matched)
            assert {key: (hit.score, hit.matched) for key, hit in found.items()} == expected, sentence
            hits += len(found)
    return hits


def test_the_index_finds_what_scoring_every_item_finds_on_a_claude_session() -> None:
    assert _compare(CLAUDE_COMPACTED, 25, 120) > 500


def test_the_index_finds_what_scoring_every_item_finds_on_a_codex_session() -> None:
    assert _compare(CODEX_FULL, 40, 134) > 200


#: The sentence split as one regex (what :func:`~ctx_tui.mentions.sentences` did before it went line by line).
_ONE_REGEX = re.compile(r"(?<=[.!?])\s+|\n+")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?\n\r\t\x0b\x0c\x1c\x85\u2028")), max_size=40))
def test_sentences_split_as_the_one_regex_did(text: str) -> None:
    assert sentences(text) == [s.strip() for s in _ONE_REGEX.split(text) if s.strip()]
