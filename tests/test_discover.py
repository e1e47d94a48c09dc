"""Session discovery against a temporary HOME with Claude Code and Codex trees."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ctx_tui.errors import CtxError
from ctx_tui.transcripts.discover import claude_slug, find_session


def _touch(path: Path, text: str, mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))
    return path


def _codex(home: Path, name: str, cwd: Path, mtime: float) -> Path:
    meta = {"timestamp": "t", "type": "session_meta", "payload": {"id": name, "cwd": str(cwd)}}
    return _touch(home / ".codex" / "sessions" / "2026" / "05" / "11" / f"rollout-{name}.jsonl", json.dumps(meta) + "\n", mtime)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "work" / "my.app"
    cwd.mkdir(parents=True)
    return cwd


def test_claude_slug_replaces_slashes_and_dots() -> None:
    assert claude_slug(Path("/Users/me/my.app")) == "-Users-me-my-app"


def test_newest_claude_session_of_the_directory(project: Path) -> None:
    home = Path(os.environ["HOME"])
    folder = home / ".claude" / "projects" / claude_slug(project)
    _touch(folder / "old.jsonl", "{}\n", 1000)
    newest = _touch(folder / "new.jsonl", "{}\n", 2000)
    _touch(folder / "new" / "subagents" / "agent-1.jsonl", "{}\n", 3000)  # not a session
    _touch(folder / "agent-2.jsonl", "{}\n", 4000)  # old-style sidechain file: not a session
    _touch(home / ".claude" / "projects" / "-elsewhere" / "other.jsonl", "{}\n", 5000)
    assert find_session(project) == newest
    assert find_session(project, "claude") == newest


def test_claude_config_dir_is_honoured(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_dir = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    session = _touch(config_dir / "projects" / claude_slug(project) / "s.jsonl", "{}\n", 1000)
    assert find_session(project) == session


def test_codex_session_matched_by_session_meta_cwd(project: Path, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    mine = _codex(home, "a", project, 1000)
    _codex(home, "b", tmp_path / "other", 3000)  # newer, but another directory
    assert find_session(project) == mine
    assert find_session(project, "codex") == mine


def test_codex_home_is_honoured(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex_home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    session = _touch(
        codex_home / "sessions" / "2026" / "01" / "01" / "rollout-x.jsonl",
        json.dumps({"type": "session_meta", "payload": {"cwd": str(project)}}) + "\n",
        1000,
    )
    assert find_session(project) == session


def test_newest_across_agents_and_prefer_flag(project: Path) -> None:
    home = Path(os.environ["HOME"])
    claude = _touch(home / ".claude" / "projects" / claude_slug(project) / "c.jsonl", "{}\n", 1000)
    codex = _codex(home, "x", project, 2000)
    assert find_session(project) == codex
    assert find_session(project, "claude") == claude
    assert find_session(project, "codex") == codex


def test_nothing_found_names_the_folders(project: Path) -> None:
    with pytest.raises(CtxError) as err:
        find_session(project)
    message = str(err.value)
    assert claude_slug(project) in message and ".codex" in message and "\n" not in message
    with pytest.raises(CtxError) as err:
        find_session(project, "codex")
    assert ".claude" not in str(err.value)


def test_broken_codex_first_lines_are_ignored(project: Path) -> None:
    home = Path(os.environ["HOME"])
    _touch(home / ".codex" / "sessions" / "rollout-bad.jsonl", "not json\n", 1000)
    _touch(home / ".codex" / "sessions" / "rollout-empty.jsonl", "", 1000)
    with pytest.raises(CtxError):
        find_session(project, "codex")


def test_newer_claude_slug_with_other_characters(tmp_path: Path) -> None:
    cwd = tmp_path / "my_project dir"
    cwd.mkdir()
    home = Path(os.environ["HOME"])
    strict = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(cwd))
    session = _touch(home / ".claude" / "projects" / strict / "s.jsonl", "{}\n", 1000)
    assert find_session(cwd, "claude") == session
