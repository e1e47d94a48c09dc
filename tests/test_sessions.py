"""The session picker's listing: every Claude Code and Codex session, newest first, from each file's tail."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from catalog_support import make_sessions
from conftest import CLAUDE_COMPACTED, CODEX_FULL, fixture

from ctx_tui.cli import main
from ctx_tui.catalog import Catalog, ago, human_size, list_sessions
from ctx_tui.usercache import record_claude_code_report
from ctx_tui.window import Session


@pytest.fixture()
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    claude, codex = tmp_path / "claude-config", tmp_path / "codex-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return claude, codex


def test_a_thousand_generated_sessions_newest_first(homes: tuple[Path, Path]) -> None:
    now = time.time()
    made = make_sessions(*homes, 1000, now)
    listed = list_sessions()
    assert [i.path for i in listed] == [m.path for m in made]
    for info, m in zip(listed, made):
        assert (info.agent, info.project, info.model, info.context_tokens, info.context_window) == (
            m.agent, m.project, m.model, m.tokens, m.window)
        assert info.usage_pct == round(100 * m.tokens / m.window, 2) and not info.estimated
    assert listed[0].live(now) and not listed[1].live(now)  # 5 s and 65 s old
    assert {i.agent for i in list_sessions("codex")} == {"codex"}
    assert len(list_sessions("claude")) == len([m for m in made if m.agent == "claude"])


def test_listing_again_reads_only_what_changed_and_sees_new_and_removed_files(homes: tuple[Path, Path]) -> None:
    made = make_sessions(*homes, 30, time.time())
    catalog = Catalog()
    first = catalog.list()
    claude, codex = made[4], made[5]
    assert (claude.agent, codex.agent) == ("claude", "codex")
    row = json.loads(claude.path.read_text().splitlines()[-2])  # the last main-chain answer
    row["message"]["usage"]["cache_read_input_tokens"] += 1000
    row["message"]["id"] = "later"
    with claude.path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")
    row = json.loads(codex.path.read_text().splitlines()[-2])  # the last token_count with info
    row["payload"]["info"]["last_token_usage"]["total_tokens"] += 500
    with codex.path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")
    os.utime(codex.path, (time.time() + 1, time.time() + 1))
    made[7].path.unlink()
    again = catalog.list()
    assert len(again) == len(first) - 1 and made[7].path not in {i.path for i in again}
    assert [i.path for i in again[:2]] == [codex.path, claude.path]
    assert (again[0].context_tokens, again[1].context_tokens) == (codex.tokens + 500, claude.tokens + 1000)


def test_real_transcripts_listed_with_the_stats_figure(homes: tuple[Path, Path]) -> None:
    claude, codex = homes
    folder = claude / "projects" / "-Users-user-repo"
    folder.mkdir(parents=True)
    (folder / "624a4a58-b34c-462d-a70d-13421c8125a8.jsonl").write_bytes(fixture(CLAUDE_COMPACTED).read_bytes())
    (folder / "agent-1234.jsonl").write_text("{}\n")  # a subagent file: not a session
    day = codex / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    (day / fixture(CODEX_FULL).name.split("__")[1]).write_bytes(fixture(CODEX_FULL).read_bytes())
    listed = {i.agent: i for i in list_sessions()}
    assert set(listed) == {"claude", "codex"}
    for info in listed.values():
        session = Session(info.path)
        session.poll()
        state = session.state(positions=False)
        assert info.context_tokens == state.context_tokens
        assert info.context_window == state.context_window
        assert info.usage_pct == round(state.usage_pct, 2)
        assert info.model == state.meta.model and info.project == state.meta.cwd
    # Claude Code's own window, once its status line reported it, sizes the row as it sizes stats
    record_claude_code_report("624a4a58-b34c-462d-a70d-13421c8125a8", {"context_window_size": 1_000_000})
    info = next(i for i in list_sessions() if i.agent == "claude")
    assert (info.context_window, info.window_source) == (1_000_000, "Claude Code")


def test_unreadable_and_hostile_files_do_not_stop_the_listing(homes: tuple[Path, Path]) -> None:
    claude, _ = homes
    folder = claude / "projects" / "-x"
    folder.mkdir(parents=True)
    (folder / "bad.jsonl").write_bytes(b"\xff\xfe not json\n{\"half\": ")
    (folder / "esc.jsonl").write_text(json.dumps({"type": "user", "sessionId": "e", "cwd": "/tmp/\x1b]52;c;aGk=\x07evil",
                                                  "message": {"role": "user", "content": "hi"}}) + "\n")
    os.mkfifo(folder / "fifo.jsonl")
    listed = {i.path.name: i for i in list_sessions()}
    assert listed["bad.jsonl"].usage_pct is None
    assert listed["fifo.jsonl"].error
    assert "\x1b" in (listed["esc.jsonl"].project or "")  # kept as data; every printer cleans it


def test_cli_table_and_json(homes: tuple[Path, Path], capsys, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    make_sessions(*homes, 4, time.time())
    claude = homes[0]
    (claude / "projects" / "-esc").mkdir()
    (claude / "projects" / "-esc" / "e.jsonl").write_text(json.dumps(
        {"type": "user", "sessionId": "e", "cwd": "/tmp/\x1b[31mred\x1b]52;c;aGk=\x07", "message": {"role": "user", "content": "hi"}}) + "\n")
    assert main(["sessions", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data) == 5 and {"path", "agent", "project", "model", "usage_pct", "modified", "size", "live"} <= set(data[0])
    assert main(["sessions"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "/home/dev/project-0" in out and "1.0%" in out and "●" in out


def test_nothing_found_says_where_it_looked(homes: tuple[Path, Path], capsys, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["sessions"]) == 0
    assert "no Claude Code, Codex, Gemini CLI or pi session found" in capsys.readouterr().out


def test_ago_and_sizes() -> None:
    assert [ago(100 - s, 100) for s in (1, 42, 300, 7200, 3 * 86400)] == ["now", "42s", "5m", "2h", "3d"]
    assert [human_size(n) for n in (812, 3400, 2_600_000, 1_200_000_000)] == ["812 B", "3.4 KB", "2.6 MB", "1.2 GB"]
