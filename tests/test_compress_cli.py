"""``ctx-tui compress`` and ``ctx-tui enhance`` (in process, through the dispatcher)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import CLAUDE_COMPACTED, fixture
from ctx_tui.audit import read_events
from ctx_tui.cli import main
from ctx_tui.memory.items import TrackedItem
from ctx_tui.memory.session_store import load_session_memory, update_session_memory
from ctx_tui.tokens import count_tokens


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_compress_window_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compress", str(fixture(CLAUDE_COMPACTED)), "--strategy", "semantic", "--max-length", "400", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metadata"]["compressedLength"] == count_tokens(out["context"]) <= 400
    assert out["metadata"]["strategy"] == "semantic" and isinstance(out["factsLost"], list)
    assert [e["action"] for e in read_events(project)] == ["compress.ran"]


def test_compress_input_file_prints_text_and_figures(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "\n\n".join(f"Paragraph {i} mentions src/mod_{i}.py and nothing else of note here." for i in range(80))
    (project / "notes.txt").write_text(text, encoding="utf-8")
    assert main(["compress", "--input", "notes.txt", "--strategy", "truncate", "--target-ratio", "0.3"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("[ctx-tui truncate of a ") and "tokens cut" in captured.out
    assert "truncate:" in captured.err and "retention" in captured.err


def test_compress_save_and_compact_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = fixture(CLAUDE_COMPACTED)
    from ctx_tui.memory.session_store import session_id_of
    from ctx_tui.window import Session

    session = Session(path)
    session.poll()
    sid = session_id_of(session)
    item = TrackedItem(id="p1", type="user_preference", content="Do not overcomplicate the sync")
    update_session_memory(project, sid, lambda m: m.upsert_item(item))
    assert main(["compress", str(path), "--compact-line"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("/compact ") and "Do not overcomplicate the sync" in line
    assert main(["compress", str(path), "--max-length", "500", "--save"]) == 0
    saved = load_session_memory(project, sid).summaries
    assert len(saved) == 1 and saved[0].figures["compressedLength"] <= 500


def test_compress_rejects_bad_arguments(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["compress", "--input", "x", "--target-ratio", "1.5"])
    assert "at most 1" in capsys.readouterr().err
    assert main(["compress", "--input", "missing.txt"]) == 2
    assert "missing.txt: cannot read" in capsys.readouterr().err


def test_enhance_prints_the_block(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "MEMORY.md").write_text("## Decisions\n- Keep conversationId equal to sessionId\n", encoding="utf-8")
    assert main(["enhance", "-q", "conversationId"]) == 0  # no session here: memory tiers only
    out = capsys.readouterr().out
    assert out.startswith("## Relevant context") and "[long-term · MEMORY.md § Decisions]" in out
    assert main(["enhance", str(fixture(CLAUDE_COMPACTED)), "-q", "conversationId sessionId", "--json", "--top-k", "3"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 3 and {"tier", "source", "score", "text"} <= set(hits[0])
    assert main(["enhance", "-q", "zzzz qqqq"]) == 0
    assert "no memory matches" in capsys.readouterr().err


def test_compress_session_memory(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ctx_tui.compress.session import memory_text
    from ctx_tui.memory.session_store import session_id_of
    from ctx_tui.memory.session_store import Decision, Note
    from ctx_tui.window import Session

    path = fixture(CLAUDE_COMPACTED)
    session = Session(path)
    session.poll()

    def fill(memory):  # type: ignore[no-untyped-def]
        memory.decisions.append(Decision(decision="Use sessionId as conversationId", rationale="stable",
                                         affects_files=["src/sync.ts"]))
        memory.progress.extend(Note(text=f"Step {i} of the sync refactor is done in module_{i}.ts") for i in range(40))

    update_session_memory(project, session_id_of(session), fill)
    text = memory_text(load_session_memory(project, session_id_of(session)))
    assert "## Decisions\n- Use sessionId as conversationId (because stable) [files: src/sync.ts]" in text
    assert main(["compress", str(path), "--session-memory", "--strategy", "summary", "--target-ratio", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "Use sessionId as conversationId (because stable) [files: src/sync.ts]" in out
