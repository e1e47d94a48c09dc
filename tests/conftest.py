"""Shared test helpers: the real transcripts in ../shared/fixtures (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"

CLAUDE_COMPACTED = "claude/codemie-code__session-624a4a58.jsonl"
CLAUDE_SIDECHAIN = "claude/claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
CLAUDE_SHORT = "claude/claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
CODEX_REDACTED = "codex/localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
CODEX_FULL = "codex/codemie-code__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
ALL_FIXTURES = [CLAUDE_COMPACTED, CLAUDE_SIDECHAIN, CLAUDE_SHORT, CODEX_REDACTED, CODEX_FULL]


def fixture(name: str) -> Path:
    """The path of a shared real transcript; skips the test when shared/ is absent."""
    path = FIXTURES / name
    if not path.is_file():
        pytest.skip(f"shared fixture not available: {path}")
    return path


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's config or agent sessions."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if any test wrote state next to the shared (read-only) transcripts."""
    if FIXTURES.is_dir():
        written = [str(p) for p in FIXTURES.rglob(".ctx")]
        if written:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            print(f"\nA test wrote state into the shared fixtures: {written}")
