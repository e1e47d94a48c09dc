"""``ctx-tui enhance``: the printed block keeps hit text whole and its rule on the --position side."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctx_tui.cli import main


def test_enhance_position_and_hit_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "MEMORY.md").write_text("## Decisions\n- Keep conversationId equal to sessionId -\n", encoding="utf-8")
    assert main(["enhance", "-q", "conversationId", "--position", "start"]) == 0
    start = capsys.readouterr().out
    assert start.startswith("## Relevant context") and start.endswith("\n\n---\n")
    assert "conversationId equal to sessionId -\n" in start  # a hit ending in a dash keeps it
    assert main(["enhance", "-q", "conversationId", "--position", "end"]) == 0
    end = capsys.readouterr().out
    assert end.startswith("---\n\n## Relevant context") and end.endswith("sessionId -\n")
