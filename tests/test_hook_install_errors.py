"""``hook install`` on hostile settings files: one clear line, the file untouched (issue 15, item 11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ctx_tui.actions.hook_install as hook_install
from ctx_tui.actions.hook_install import install_hooks
from ctx_tui.cli import main
from ctx_tui.errors import CtxError

HOSTILE_SETTINGS = {
    "huge number": ('{"n": ' + "9" * 5000 + "}", "more than 4,300 digits"),
    "deep nesting": ("[" * 5000 + "]" * 5000, "nested too deeply"),
    "not JSON": ('{"a": ', "not valid JSON"),
    "not an object": ("[1, 2]", "top level must be a JSON object"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_SETTINGS))
def test_hostile_settings_are_one_line_and_untouched(tmp_path: Path, name: str, monkeypatch, capsys) -> None:
    text, words = HOSTILE_SETTINGS[name]
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["hook", "install"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "internal error" not in err
    assert settings.read_text() == text


def test_a_lone_surrogate_survives_as_an_escape(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"note": "\\ud800 caf\\u00e9", "other": "café"}')
    result = install_hooks(tmp_path)
    data = json.loads(settings.read_text())
    assert result.changed and data["note"] == "\ud800 café" and data["other"] == "café" and "hooks" in data


def test_an_unwritable_claude_folder_is_a_clear_error(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{}")

    def refuse(path, data):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(hook_install, "write_atomic", refuse)
    with pytest.raises(CtxError, match=r"settings\.json: cannot write \(Permission denied\); .* was not changed"):
        install_hooks(tmp_path)
    assert (tmp_path / ".claude" / "settings.json").read_text() == "{}"


def test_a_fifo_settings_file_is_refused(tmp_path: Path) -> None:
    import os

    (tmp_path / ".claude").mkdir()
    os.mkfifo(tmp_path / ".claude" / "settings.json")
    with pytest.raises(CtxError, match="not a regular file"):
        install_hooks(tmp_path)
