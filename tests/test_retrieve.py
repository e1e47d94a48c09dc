"""Retrieval across tiers, the enhance block, hit/miss accounting."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conftest import CLAUDE_COMPACTED, fixture
from ctx_tui.audit import read_events
from ctx_tui.compress.scoring import BM25, terms
from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.memory.items import TrackedItem
from ctx_tui.memory.session_store import Decision, update_session_memory
from ctx_tui.retrieve import Hit, build_index, enhance, enhance_block, retrieval_counts, search
from ctx_tui.window import Session


def _project(tmp_path: Path) -> Path:
    (tmp_path / "MEMORY.md").write_text(
        "# Memory\n\n## Decisions\n- Use orjson for every JSON dump in the hot path\n\n"
        "## Preferences\n- Answer in short sentences\n",
        encoding="utf-8",
    )
    (tmp_path / "CLAUDE.md").write_text(
        "# Project\n\n## Testing\n\nRun the suite with pytest -q before every commit.\n\n"
        "## Style\n\nType hints on every public function.\n",
        encoding="utf-8",
    )
    (tmp_path / "AGENTS.md").write_text("Codex agents must never edit generated files.\n", encoding="utf-8")
    handoffs = tmp_path / ".claude" / "handoffs"
    handoffs.mkdir(parents=True)
    (handoffs / "main-20260101T000000.yaml").write_text(
        "handoff_version: '1.0.0'\ntask_state:\n  assigned_task: Make the uploader resumable\n"
        "  blockers: [S3 multipart quota]\n  remaining_subtasks: [retry with backoff]\n"
        "decisions_made:\n  - {decision: Store upload offsets in sqlite, rationale: survives restarts}\n"
        "continuation_context: The offset table lives in uploader/state.py.\n"
        "suggested_first_action: Run pytest tests/test_uploader.py\n",
        encoding="utf-8",
    )
    (handoffs / "broken.yaml").write_text("task_state: [unclosed\n", encoding="utf-8")

    def fill(memory):  # type: ignore[no-untyped-def]
        memory.upsert_item(TrackedItem(id="c1", type="constraint", content="Never rotate the signing keys by hand"))
        memory.decisions.append(Decision(decision="Cache the BM25 index per process", rationale="rebuild is cheap"))

    update_session_memory(tmp_path, "sess-1", fill)
    return tmp_path


def test_an_item_decision_is_found_by_its_rationale(tmp_path: Path) -> None:
    """Extraction stores a decision's "because" clause on its note; a search for the reason finds the decision."""

    def fill(memory):  # type: ignore[no-untyped-def]
        memory.upsert_item(TrackedItem(id="d1", type="decision", content="Keep the queue in one JSON file"))
        memory.decisions[0] = replace(memory.decisions[0], rationale="the hooks append concurrently")

    update_session_memory(tmp_path, "sess-2", fill)
    hits = search(tmp_path, "concurrently appending hooks", config=Config(), record=False)
    assert [h.text for h in hits] == ["Keep the queue in one JSON file (because the hooks append concurrently)"]


def test_every_long_and_medium_tier_is_indexed(tmp_path: Path) -> None:
    project = _project(tmp_path)
    index = build_index(project, Config())
    sources = {(d.tier, d.source.split(" ")[0]) for d in index.docs}
    assert ("long-term", "MEMORY.md") in sources
    assert ("long-term", "CLAUDE.md") in sources and ("long-term", "AGENTS.md") in sources
    assert ("long-term", ".claude/handoffs/main-20260101T000000.yaml") in sources
    assert ("medium-term", "session") in sources
    assert any("broken.yaml" in s for s in index.skipped)  # skipped and named, not fatal
    texts = [d.text for d in index.docs]
    assert "Store upload offsets in sqlite (because survives restarts)" in texts
    assert texts.count("Never rotate the signing keys by hand") == 1  # the item, not its mirrored note too


@pytest.mark.parametrize(
    ("query", "tier", "needle"),
    [
        ("orjson json dump", "long-term", "orjson"),
        ("signing keys rotate", "medium-term", "signing keys"),
        ("uploader offsets sqlite", "long-term", "sqlite"),
        ("pytest before commit", "long-term", "pytest -q"),
        ("bm25 index cache", "medium-term", "BM25"),
    ],
)
def test_search_finds_the_right_entry_first(tmp_path: Path, query: str, tier: str, needle: str) -> None:
    hits = search(_project(tmp_path), query, top_k=3, config=Config())
    assert hits and hits[0].tier == tier and needle in hits[0].text
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_threshold_top_k_and_misses_are_counted(tmp_path: Path) -> None:
    project = _project(tmp_path)
    config = Config()
    assert search(project, "zebra quantum", config=config) == []
    assert len(search(project, "the uploader", top_k=1, config=config)) == 1
    config = replace(config, retrieval=replace(config.retrieval, relevance_threshold=1000.0))
    assert search(project, "orjson", config=config) == []
    events = [e for e in read_events(project) if e["action"] == "retrieve.searched"]
    assert [e["details"]["hits"] for e in events] == [0, 1, 0]
    assert retrieval_counts(project) == {"searches": 3, "hits": 1, "misses": 2}


def test_transcript_entries_are_working_or_short_term(tmp_path: Path) -> None:
    session = Session(fixture(CLAUDE_COMPACTED))
    session.poll()
    index = build_index(tmp_path, Config(), session)
    tiers = {d.tier for d in index.docs}
    assert {"working", "short-term"} <= tiers  # live window vs compacted away
    hits = search(tmp_path, "conversationId sessionId", session=session, config=Config())
    assert hits and hits[0].tier in ("working", "short-term")


def test_enhance_block_positions() -> None:
    hits = [Hit("long-term", "MEMORY.md § Decisions", 2.5, "Use orjson " + "x" * 1000)]
    start = enhance_block(hits, "start")
    assert start.startswith("## Relevant context") and start.endswith("---\n\n")
    assert "[long-term · MEMORY.md § Decisions]" in start and "…" in start
    assert enhance("CTX", hits, "end").startswith("CTX\n\n---")
    assert enhance("CTX", hits, "start").endswith("CTX")
    assert enhance_block([], "start") == ""
    with pytest.raises(CtxError):
        enhance_block(hits, "middle")


def test_bm25_prefers_rare_terms_and_splits_compounds() -> None:
    # the terms of ctx_tui.mentions: identifiers and paths whole (=...) and in stemmed parts
    assert {"=src/ctx_tui/api.py", "ctx", "tui", "api"} <= set(terms("see src/ctx_tui/api.py"))
    assert {"=trackeditem", "track", "item"} <= set(terms("TrackedItem"))
    bm25 = BM25([terms("common word rare"), terms("common word"), terms("common")])
    scores = bm25.scores(terms("rare common"))
    assert scores[0] > scores[1] > 0 and scores[2] > 0


def test_index_is_reused_until_a_source_changes(tmp_path: Path) -> None:
    from ctx_tui.retrieve import cached_index

    project = _project(tmp_path)
    config = Config()
    first = cached_index(project, config)
    assert cached_index(project, config) is first
    memory = project / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "- Prefer ripgrep over grep for searching\n", encoding="utf-8")
    second = cached_index(project, config)
    assert second is not first
    assert search(project, "ripgrep", config=config)[0].text == "Prefer ripgrep over grep for searching"
