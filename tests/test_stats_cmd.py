"""``ctx-tui stats``: JSON fields, the human summary, clear failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ALL_FIXTURES, CLAUDE_COMPACTED, CODEX_FULL, fixture
from ctx_tui.cli import main
from ctx_tui.transcripts.discover import claude_slug

FIELDS = {
    "format", "session_id", "model", "context_tokens", "context_window", "usage_pct", "usage_source",
    "handoff_suggested", "token_source", "headroom_tokens",
}
#: Only a whole read (--full) knows these.
FULL_FIELDS = {"compactions", "rounds", "entries", "live_entries", "skipped_lines", "implausible_usage"}


def _stats(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["stats", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_stats_json_claude(capsys: pytest.CaptureFixture[str]) -> None:
    data = _stats(capsys, str(fixture(CLAUDE_COMPACTED)), "--full")
    assert FIELDS | FULL_FIELDS <= set(data)
    assert data["format"] == "claude-code" and data["compactions"] == 1
    assert data["usage_source"] == "reported" and data["token_source"] == "tiktoken:cl100k_base"
    assert data["usage_pct"] == pytest.approx(100 * data["context_tokens"] / data["context_window"], abs=0.01)
    assert data["handoff_suggested"] is False


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_tail_first_stats_equal_the_whole_read(capsys: pytest.CaptureFixture[str], name: str) -> None:
    tail = _stats(capsys, str(fixture(name)))
    full = _stats(capsys, str(fixture(name)), "--full")
    assert FIELDS <= set(tail) and not FULL_FIELDS & set(tail)
    assert tail == {key: value for key, value in full.items() if key not in FULL_FIELDS}


def test_stats_json_codex(capsys: pytest.CaptureFixture[str]) -> None:
    data = _stats(capsys, str(fixture(CODEX_FULL)))
    assert data["format"] == "codex" and data["model"] == "gpt-5.5" and data["context_window"] == 258400


def test_handoff_suggested_follows_the_threshold(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".ctx").mkdir()
    (tmp_path / ".ctx" / "config.yaml").write_text("window:\n  handoff_threshold: 0.3\n")
    data = _stats(capsys, str(fixture(CLAUDE_COMPACTED)))
    assert data["usage_pct"] > 30 and data["handoff_suggested"] is True


def test_stats_finds_the_session_of_the_current_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    folder = Path(os.environ["HOME"]) / ".claude" / "projects" / claude_slug(project)
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_bytes(fixture(CLAUDE_COMPACTED).read_bytes())
    data = _stats(capsys, "--claude")
    assert data["session_id"] == "624a4a58-b34c-462d-a70d-13421c8125a8"


def test_stats_human_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(fixture(CLAUDE_COMPACTED))]) == 0
    out = capsys.readouterr().out
    assert "200,000 tokens" in out and "reported" in out and "compactions" not in out
    assert main(["stats", str(fixture(CLAUDE_COMPACTED)), "--full"]) == 0
    assert "compactions: 1" in capsys.readouterr().out


def test_missing_file_is_one_clear_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["stats", str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "no such file" in err


def test_folder_and_unreadable_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["stats", str(tmp_path)]) == 2
    assert "folder" in capsys.readouterr().err
    assert main(["stats", "/dev/null"]) == 2
    assert "not a regular file" in capsys.readouterr().err
    locked = tmp_path / "locked.jsonl"
    locked.write_text("{}\n")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as a user that can read any file")
        assert main(["stats", str(locked)]) == 2
        assert "not readable" in capsys.readouterr().err
    finally:
        locked.chmod(0o600)


def test_no_session_found_names_where_it_looked(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["stats", "--codex"]) == 2
    err = capsys.readouterr().err
    assert "no session found" in err and ".codex" in err


def test_stats_in_a_new_process_has_no_traceback(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ctx_tui", "stats", str(tmp_path / "missing.jsonl")],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr and out.stdout == ""
