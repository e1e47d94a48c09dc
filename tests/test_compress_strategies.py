"""The three strategies: budgets, planted facts, structural integrity, real fixtures."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ALL_FIXTURES, CLAUDE_COMPACTED, fixture
from ctx_tui.compress import compress_text, compress_window
from ctx_tui.compress.blocks import split_blocks
from ctx_tui.compress.core import budget_for
from ctx_tui.compress.truncate import cut_marker
from ctx_tui.errors import CtxError
from ctx_tui.memory.items import TrackedItem
from ctx_tui.tokens import count_tokens
from ctx_tui.window import Session

FILLER = [
    "The build ran again and the output looked much like the previous attempt.",
    "We read the logs for a while without finding anything new there.",
    "Nothing else changed in this part of the conversation at all.",
    "The assistant summarised what it had seen so far and moved on to the next step.",
    "Some of the earlier discussion was about naming and formatting only.",
]


def planted_text(seed: int = 7, n: int = 24) -> tuple[str, list[str], list[str]]:
    """A conversation-like text with planted facts; returns (text, planted tokens, decision sentences)."""
    rng = random.Random(seed)
    planted: list[str] = []
    decisions: list[str] = []
    parts: list[str] = []
    for i in range(n):
        parts.append(" ".join(rng.sample(FILLER, 3)))
        kind = i % 6
        if kind == 0:
            path, ident = f"src/pkg_{i}/handler_{i}.py", f"load_settings_{i}"
            parts.append(f"The handler in {path} calls {ident}() before it starts.")
            planted += [path, ident + "()"]
        elif kind == 1:
            parts.append(f"It listens on port {9000 + i} and retries {300 + i} times.")
            planted += [str(9000 + i), str(300 + i)]
        elif kind == 2:
            url = f"https://docs.example.org/guide/{i}"
            parts.append(f"The reference is {url} for this part.")
            planted.append(url)
        elif kind == 3:
            err = f"Quota{i}ExceededError"
            parts.append(f"The run failed with {err} while uploading.")
            planted.append(err)
        elif kind == 4:
            cmd = f"pytest -q tests/test_case_{i}.py"
            parts.append(f"Run `{cmd}` to check it.")
            planted.append(cmd)
        else:
            sentence = f"We decided to cache the index number {i} on disk instead of rebuilding it."
            parts.append(sentence)
            decisions.append(sentence)
        parts.append(rng.choice(FILLER) + " " + rng.choice(FILLER))
    return "\n\n".join(parts), planted, decisions


@pytest.mark.parametrize("strategy", ["summary", "semantic"])
def test_planted_facts_survive_half_compression(strategy: str) -> None:
    text, planted, decisions = planted_text()
    items = [TrackedItem(id="g1", type="goal", content="Make the uploader resumable after quota errors")]
    result = compress_text(text, strategy, target_ratio=0.5, items=items)
    assert result.compressed_length <= result.budget <= result.original_length // 2
    found = [p for p in planted if p in result.text]
    assert len(found) / len(planted) >= 0.9, sorted(set(planted) - set(found))
    assert result.retention_rate >= 0.9
    assert "Make the uploader resumable after quota errors" in result.text  # a tracked item, whole
    assert sum(d in result.text for d in decisions) / len(decisions) >= 0.9  # decisions kept whole
    assert result.text.startswith(f"[ctx-tui {strategy} of a ")


def test_summary_types_its_pieces() -> None:
    text = (
        "### [session] user · round 1\nPlease make the sync incremental. We must never drop a message.\n\n"
        "### [tools] tool call: Bash\n$ pytest -q tests/test_sync.py\n\n"
        "### [tools] tool result: Bash (error)\n```\nTraceback (most recent call last):\n"
        '  File "sync.py", line 3\nKeyError: \'last_uuid\'\n```\n\n'
        "### [session] assistant\nThe failure is because last_uuid is missing on first sync. I fixed it with a default.\n\n"
        "### [tools] tool call: Edit\nedit src/sync.py\n```old\nx = 1\n```\n```\ndef sync_once():\n    return 2\n```\n\n"
        "### [tools] tool call: Bash\n$ pytest -q\n\n"
        "### [tools] tool result: Bash\n```\n12 passed in 0.3s\n```\n\n"
        + "### [session] assistant\n" + " ".join(FILLER * 30)
    )
    result = compress_text(text, "summary", target_ratio=0.5)
    out = result.text
    assert "Decisions, constraints, preferences:\n- user: We must never drop a message." in out
    assert "KeyError: 'last_uuid'" in out and "resolution: The failure is because last_uuid is missing" in out
    assert "edit src/sync.py (+2/-1 lines; defines sync_once)" in out
    # the outcome line, or (budget left over) the whole output in place of the bullet
    assert "`pytest -q` → 12 passed in 0.3s" in out or "`pytest -q` →\n\n```\n12 passed in 0.3s\n```" in out
    assert out.index("Decisions") < out.index("Errors:") < out.index("Code:") < out.index("Tool runs:")


def test_truncate_keeps_head_and_tail_whole_lines_and_marks_the_cut() -> None:
    lines = [f"line {i:04d} " + "word " * 12 for i in range(300)]
    text = "\n".join(lines)
    result = compress_text(text, "truncate", max_length=1000)
    assert result.compressed_length <= 1000
    body = result.text.split("\n\n", 1)[1]
    kept = [ln for ln in body.split("\n") if ln.strip()]
    marker = next(ln for ln in kept if ln.startswith("[… "))
    assert marker.endswith("tokens cut …]")
    head, tail = kept[: kept.index(marker)], kept[kept.index(marker) + 1 :]
    assert head == lines[: len(head)] and tail == lines[len(lines) - len(tail) :]  # whole lines, in order
    assert head and tail
    assert cut_marker(1234) == "[… 1,234 tokens cut …]"


def _corpus(seed: int) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    for k in range(rng.randint(6, 14)):
        choice = rng.random()
        if choice < 0.3:
            body = "\n".join(f"    value_{k}_{j} = compute({j}, '{rng.choice(FILLER)[:20]}')" for j in range(rng.randint(2, 25)))
            parts.append(f"```python\ndef block_{k}():\n{body}\n```")
        elif choice < 0.45:
            obj = {f"key_{k}_{j}": [rng.randint(0, 999) for _ in range(rng.randint(1, 6))] for j in range(rng.randint(1, 12))}
            parts.append(json.dumps(obj, indent=2 if rng.random() < 0.7 else None))
        elif choice < 0.55:
            parts.append("````markdown\nExample:\n```bash\nmake test\n```\n````")
        elif choice < 0.65:
            parts.append("\n".join(f"- step {j}: {rng.choice(FILLER)}" for j in range(rng.randint(2, 6))))
        else:
            parts.append(" ".join(rng.choice(FILLER) for _ in range(rng.randint(2, 8))))
    return "\n\n".join(parts)


_JSON_DEBRIS = re.compile(r'^\s*(?:[{}\]]|\[\s*$|\[[\d"{\[]|"[^"]*"\s*:)')


def _intact(output: str) -> bool:
    """Every code block of the output is closed and every JSON block parses.

    A JSON value cut in half stops being a JSON block: its lines then show up
    in prose as debris (a line starting with ``{``, ``}``, ``]`` or ``"key":``).
    """
    for block in split_blocks(output):
        if block.kind == "code" and not block.closed:
            return False
        if block.kind == "json":
            json.loads(block.text)
        elif block.kind != "code" and any(_JSON_DEBRIS.match(line) for line in block.text.split("\n")):
            return False
    return True


@pytest.mark.parametrize("strategy", ["summary", "semantic", "truncate"])
def test_structures_survive_whole_on_a_generated_corpus(strategy: str) -> None:
    results = []
    for seed in range(40):
        text = _corpus(seed)
        for ratio in (0.5, 0.25):
            out = compress_text(text, strategy, target_ratio=ratio)
            assert out.compressed_length <= out.budget
            results.append(_intact(out.text))
    assert sum(results) / len(results) >= 0.95
    assert all(results)  # what we aim for: nothing broken at all


def test_budget_rules() -> None:
    assert budget_for(1000, 0.5, None, None) == 500
    assert budget_for(1000, 0.5, 300, None) == 300
    assert budget_for(1000, None, 2000, None) == 2000
    assert budget_for(1000, None, None, None) == 300  # compression.target_ratio default 0.3
    with pytest.raises(CtxError, match="target ratio"):
        budget_for(1000, 1.5, None, None)
    with pytest.raises(CtxError, match="unknown strategy"):
        compress_text("x", "zip")


def test_short_text_comes_back_unchanged_and_tiny_budgets_hold() -> None:
    assert compress_text("a short note", "summary", max_length=100).text == "a short note"
    text, _, _ = planted_text()
    for strategy in ("summary", "semantic", "truncate"):
        for limit in (1, 10, 60):
            result = compress_text(text, strategy, max_length=limit)
            assert count_tokens(result.text) == result.compressed_length <= limit


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_real_windows_keep_their_facts_at_half(name: str) -> None:
    session = Session(fixture(name))
    session.poll()
    for strategy in ("summary", "semantic"):
        result = compress_window(session, strategy=strategy, target_ratio=0.5)
        assert result.original_length > 1000
        assert result.compressed_length <= result.budget
        if strategy == "semantic":  # the default (floors over all windows: tests/test_compress_eval.py)
            assert result.retention_rate >= 0.65, (strategy, result.retention_rate)
        kept = {(f.kind, f.value) for f in result.facts_kept}
        for kind, value in list(kept)[:50]:  # spot-check the report against the text itself
            if kind in ("path", "url", "error", "number"):
                assert value in result.text
        assert _intact(result.text)


def test_compress_window_uses_tracked_items(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ctx_tui.memory.session_store import session_id_of
    from ctx_tui.memory.session_store import update_session_memory

    session = Session(fixture(CLAUDE_COMPACTED))
    session.poll()
    item = TrackedItem(id="k1", type="constraint", content="Keep conversationId equal to sessionId")
    update_session_memory(tmp_path, session_id_of(session), lambda m: m.upsert_item(item))
    result = compress_window(session, strategy="summary", max_length=2000, project=tmp_path)
    assert "Tracked items:\n- [constraint] Keep conversationId equal to sessionId" in result.text


_PIECES = st.sampled_from([
    "```", "````", "~~~", "```python\n", "{", "}", "[", "]", '{"a": [1, 2]}', '"k": 1,', "\n", "\n\n", "- ", "# ",
    "| a | b |", "$ git status", "`pytest -q`", "src/a.py", "ValueError: bad", "We decided to use X.", "never",
    "日本語のテキスト。", "\x1b[31m", "\t", "1234", "https://e.org/x", "word ", "Sentence. ",
])


@settings(max_examples=40, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=120), st.sampled_from(["summary", "semantic", "truncate"]),
       st.sampled_from([0.1, 0.3, 0.5, 0.9]))
def test_any_text_stays_within_budget_with_closed_fences(pieces: list[str], strategy: str, ratio: float) -> None:
    text = "".join(pieces)
    result = compress_text(text, strategy, target_ratio=ratio)
    assert result.compressed_length == count_tokens(result.text)
    assert result.compressed_length <= max(result.budget, 0) or result.text == text
    assert 0.0 <= result.retention_rate <= 1.0
    if result.text != text:  # what the compressor wrote has no open fence
        assert all(b.closed for b in split_blocks(result.text) if b.kind == "code")
