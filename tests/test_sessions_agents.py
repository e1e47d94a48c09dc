"""Gemini CLI and pi sessions in the picker, ``ctx-tui sessions`` and the default session, from a fake HOME holding the real fixtures."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from ctx_tui.catalog import Catalog, list_sessions
from ctx_tui.cli import main
from ctx_tui.usage_tail import read_usage_tail
from ctx_tui.window import Session

FIXTURES = Path(__file__).parent / "fixtures"
GEMINI_JSON = FIXTURES / "gemini" / "vibecodingtracker__session-eefc44a3.json"
GEMINI_JSONL = FIXTURES / "gemini" / "vibecodingtracker__session-0ab84937.jsonl"
PI_SESSION = FIXTURES / "pi" / "pi-mono__before-compaction-first-364-lines.jsonl"
PI_CWD = "/Users/badlogic/workspaces/pi-mono"  # the cwd its header row names


def _copy(source: Path, target: Path, age_s: float) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    when = time.time() - age_s
    os.utime(target, (when, when))
    return target


def _sha(cwd: Path | str) -> str:
    return hashlib.sha256(str(cwd).encode()).hexdigest()


@pytest.fixture()
def agent_home(tmp_path: Path) -> dict[str, Path]:
    """HOME (set by conftest) with the Gemini chats and the pi session where their CLIs write them.

    The older Gemini chat sits in a folder named by the SHA-256 of its cwd, the
    newer one in a named folder with a ``.project_root`` marker (and a sub-agent
    chat one folder deeper, which is no session); pi's folder is named from its cwd.
    """
    home = Path.home()
    old_project, new_project = tmp_path / "old-proj", tmp_path / "new-proj"
    old_project.mkdir()
    new_project.mkdir()
    tmp = home / ".gemini" / "tmp"
    made = {
        "old_project": old_project,
        "new_project": new_project,
        "gemini_json": _copy(GEMINI_JSON, tmp / _sha(old_project) / "chats" / "session-2025-10-05T07-11-eefc44a3.json", 3600),
        "gemini_jsonl": _copy(GEMINI_JSONL, tmp / "new-proj" / "chats" / "session-2026-04-23T12-52-0ab84937.jsonl", 600),
        "pi": _copy(PI_SESSION, home / ".pi" / "agent" / "sessions" / "--Users-badlogic-workspaces-pi-mono--"
                    / "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl", 1800),
    }
    (tmp / "new-proj" / ".project_root").write_text(f"{new_project}\n")
    _copy(GEMINI_JSONL, tmp / "new-proj" / "chats" / "0ab84937-9fe7-4284-986a-33c832af0b6a" / "sub-1.jsonl", 60)
    (home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {str(old_project): "old-proj"}}))
    return made


def test_gemini_and_pi_sessions_listed_with_the_stats_figure(agent_home: dict[str, Path]) -> None:
    listed = list_sessions()
    assert [i.path for i in listed] == [agent_home["gemini_jsonl"], agent_home["pi"], agent_home["gemini_json"]]
    expected = {
        agent_home["gemini_jsonl"]: ("gemini", str(agent_home["new_project"]), "0ab84937-9fe7-4284-986a-33c832af0b6a",
                                     "gemini-3.1-pro-preview", 40_238),
        agent_home["pi"]: ("pi", PI_CWD, "ffae836b-9420-4060-ac13-7745215f90ff", "claude-opus-4-5", 26_171),
        # the older chat's folder is the SHA-256 of its cwd, found among .gemini/projects.json's projects
        agent_home["gemini_json"]: ("gemini", str(agent_home["old_project"]), "eefc44a3-0832-4bc0-ac33-fa668f038213",
                                    "gemini-2.5-pro", 37_206),
    }
    for info in listed:
        assert (info.agent, info.project, info.session_id, info.model, info.context_tokens) == expected[info.path]
        session = Session(info.path)
        session.poll()
        state = session.state(positions=False)
        assert (info.context_tokens, info.context_window, info.usage_pct) == (
            state.context_tokens, state.context_window, round(state.usage_pct, 2))
        assert not info.estimated and info.error is None
        assert info.modified == info.path.stat().st_mtime and info.size == info.path.stat().st_size
    assert [i.agent for i in list_sessions("gemini")] == ["gemini", "gemini"]
    # a named folder without its .project_root marker: .gemini/projects.json names its cwd
    (agent_home["gemini_jsonl"].parent.parent / ".project_root").unlink()
    assert next(i for i in list_sessions("gemini") if i.path == agent_home["gemini_jsonl"]).project is None
    (Path.home() / ".gemini" / "projects.json").write_text(json.dumps({"projects": {
        str(agent_home["old_project"]): "old-proj", "/work/new": "new-proj"}}))
    assert next(i for i in list_sessions("gemini") if i.path == agent_home["gemini_jsonl"]).project == "/work/new"
    assert [i.path for i in list_sessions("pi")] == [agent_home["pi"]]


def test_listing_again_rereads_only_a_changed_chat(agent_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = Catalog()
    catalog.list()
    reads: list[Path] = []
    monkeypatch.setattr("ctx_tui.usage_tail.read_usage_tail", lambda path, *a, **k: reads.append(path) or read_usage_tail(path))
    catalog.list()
    assert reads == []
    path = agent_home["pi"]
    rows = path.read_bytes().splitlines(keepends=True)
    last = json.loads(rows[-1])
    assert last["message"]["usage"]["totalTokens"] == 26_171
    last["message"]["usage"]["totalTokens"] += 1_000
    with path.open("ab") as fh:
        fh.write(json.dumps(last).encode() + b"\n")
    again = {i.path: i for i in catalog.list()}
    assert reads == [path]
    assert again[path].context_tokens == read_usage_tail(path).context_tokens == 27_171


def test_a_resumed_json_chat_is_listed_once(agent_home: dict[str, Path]) -> None:
    """Resuming an older .json chat, Gemini CLI goes on in <name>.jsonl and leaves the .json behind."""
    old = agent_home["gemini_json"]
    resumed = _copy(GEMINI_JSONL, old.with_name(old.name + "l"), 5)
    listed = [i.path for i in list_sessions("gemini")]
    assert resumed in listed and old not in listed and len(listed) == 2
    from ctx_tui.transcripts.discover import gemini_sessions

    assert gemini_sessions(agent_home["old_project"]) == [resumed]


def test_gemini_cli_home_and_pi_agent_dir_are_honoured(agent_home: dict[str, Path], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """GEMINI_CLI_HOME replaces the home folder for Gemini CLI (``$GEMINI_CLI_HOME/.gemini``); PI_CODING_AGENT_DIR is pi's folder."""
    gemini_home, pi_dir = tmp_path / "gemini-profile", tmp_path / "pi-agent"
    chat = _copy(GEMINI_JSON, gemini_home / ".gemini" / "tmp" / "elsewhere" / "chats" / "session-x.json", 10)
    pi = _copy(PI_SESSION, pi_dir / "sessions" / "--x--" / "s.jsonl", 20)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini_home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(pi_dir))
    assert [i.path for i in list_sessions()] == [chat, pi]


def test_unreadable_and_foreign_files_in_their_folders(agent_home: dict[str, Path]) -> None:
    chats = agent_home["gemini_jsonl"].parent
    (chats / "session-bad.json").write_bytes(b"\xff\xfe not a chat")
    os.mkfifo(chats / "session-fifo.jsonl")
    (agent_home["pi"].parent / "notes.jsonl").write_text('{"kind": "not a pi row"}\n' * 3)
    listed = {i.path.name: i for i in list_sessions()}
    assert listed["session-fifo.jsonl"].error and listed["session-fifo.jsonl"].usage_pct is None
    assert listed["session-bad.json"].usage_pct is None
    assert "not a transcript" in (listed["notes.jsonl"].error or "")  # rows no reader recognises: said, not 0%
    assert listed[agent_home["pi"].name].context_tokens == 26_171  # the others still read


def test_cli_lists_them_and_filters_by_agent(agent_home: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(d["agent"], d["context_tokens"]) for d in data] == [("gemini", 40_238), ("pi", 26_171), ("gemini", 37_206)]
    assert main(["sessions", "--pi"]) == 0
    out = capsys.readouterr().out
    assert "pi-mono" in out and "13.1%" in out and "gemini" not in out
    assert main(["sessions", "--gemini"]) == 0
    out = capsys.readouterr().out
    assert "3.8%" in out and "3.5%" in out and "claude-opus" not in out and " pi " not in out


def test_nothing_found_names_every_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions"]) == 0
    out = capsys.readouterr().out
    assert "no Claude Code, Codex, Gemini CLI or pi session found" in out
    assert ".gemini/tmp" in out and ".pi/agent/sessions" in out


def test_the_default_session_is_the_newest_of_any_agent(agent_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``ctx-tui`` / ``stats`` with no file: the newest session of the directory, Gemini CLI and pi included."""
    project = agent_home["new_project"]
    newer_pi = _copy(PI_SESSION, Path.home() / ".pi" / "agent" / "sessions" / ("--" + str(project).lstrip("/").replace("/", "-") + "--")
                     / "s.jsonl", 300)
    monkeypatch.chdir(project)
    assert main(["stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == str(newer_pi)  # 5 min old; the Gemini chat is 10 min old
    os.utime(agent_home["gemini_jsonl"])
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["path"], data["format"], data["context_tokens"]) == (str(agent_home["gemini_jsonl"]), "gemini", 40_238)


async def test_the_picker_lists_and_opens_them(agent_home: dict[str, Path], tmp_path: Path) -> None:
    from ctx_tui.config import Config
    from ctx_tui.ui.app import DashboardApp
    from ctx_tui.ui.screens.dashboard import DashboardScreen
    from ctx_tui.ui.screens.sessions import SessionsScreen

    async def until(pilot, condition) -> None:  # noqa: ANN001
        for _ in range(400):
            if condition():
                return
            await pilot.pause(0.02)
        raise AssertionError("condition not reached")

    app = DashboardApp(agent_home["gemini_json"], tmp_path, Config())
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: app.snapshot is not None)
        await pilot.press("s")
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await until(pilot, lambda: len(screen.shown) == 3)
        assert screen.selected().path == agent_home["gemini_json"]  # the followed session
        assert [str(screen.table.get_row_at(i)[2]) for i in range(3)] == ["gemini", "pi", "gemini ▸"]
        assert str(screen.table.get_row_at(1)[5]) == "13.1%"
        await pilot.press(*"opus")
        await until(pilot, lambda: len(screen.shown) == 1)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen) and app.snapshot is not None
                    and app.snapshot.state.path == agent_home["pi"])
        assert app.snapshot.state.context_tokens == 26_171 and app.snapshot.state.meta.format.value == "pi"
        await pilot.press("s")
        screen = app.screen
        await until(pilot, lambda: len(screen.shown) == 3)
        await pilot.press(*"new")
        await until(pilot, lambda: len(screen.shown) == 1)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen) and app.snapshot is not None
                    and app.snapshot.state.path == agent_home["gemini_jsonl"])
        assert app.snapshot.state.context_tokens == 40_238


def test_a_codex_session_just_compacted_shows_the_dashboards_estimate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between a compaction and the next report the row is the post-compaction estimate a whole read gives, not 82%."""
    from conftest import CODEX_REDACTED, fixture

    lines = fixture(CODEX_REDACTED).read_bytes().splitlines(keepends=True)
    cut = next(n for n, line in enumerate(lines) if b'"context_compacted"' in line) + 1
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    path = tmp_path / "codex" / "sessions" / "2026" / "02" / "23" / "rollout-2026-02-23T12-54-34-x.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(lines[:cut]))
    catalog = Catalog()
    (info,) = catalog.list()
    session = Session(path)
    session.poll()
    state = session.state(positions=False)
    assert info.estimated and state.usage_source == "estimated"
    assert info.context_tokens == state.context_tokens < 212_134 / 4  # the last report before it: 212,134 (82%)
    reply = next(n for n in range(cut, len(lines)) if b'"input_tokens":48297' in lines[n])
    with path.open("ab") as fh:
        fh.write(b"".join(lines[cut : reply + 1]))
    (info,) = catalog.list()
    assert (info.context_tokens, info.estimated) == (48_687, False)
