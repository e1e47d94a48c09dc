"""`ctx-tui hook install`: merges into .claude/settings.json without losing anything."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ctx_tui.actions.hook_install import (
    ENTRY_CODE,
    HOOKS,
    ctx_tui_command,
    install_hooks,
    is_hook_installed,
    merge_settings,
    settings_block,
)
from ctx_tui.errors import CtxError

BASE = "/opt/ctx/bin/ctx-tui"


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctx_tui", *args], cwd=project, capture_output=True, text=True, timeout=60
    )


EXISTING = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo mine"}]}],
        "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier -w"}]}],
    },
}


def test_install_keeps_other_keys_and_hooks(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(EXISTING, indent=4))
    result = _cli(tmp_path, "hook", "install")
    assert result.returncode == 0, result.stderr
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["permissions"] == EXISTING["permissions"]
    assert data["hooks"]["PostToolUse"] == EXISTING["hooks"]["PostToolUse"]
    ups = [h["command"] for g in data["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert ups[0] == "echo mine" and ups[1] == f"{ctx_tui_command()} hook user-prompt-submit"
    assert data["hooks"]["SessionStart"][0]["matcher"] == "compact"
    assert data["hooks"]["PreCompact"][0]["hooks"][0]["command"].endswith("hook pre-compact")
    assert is_hook_installed(tmp_path)
    # idempotent: the second run leaves every byte as it was
    before = settings.read_bytes()
    again = _cli(tmp_path, "hook", "install")
    assert again.returncode == 0 and "already installed" in again.stdout
    assert settings.read_bytes() == before


def test_the_command_runs_this_ctx_tui(tmp_path: Path) -> None:
    install_hooks(tmp_path)
    data = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    stdin = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit"})
    done = subprocess.run(command, shell=True, input=stdin, capture_output=True, text=True, cwd="/", timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_command_is_this_interpreter_on_main_quoted_for_the_shell(monkeypatch) -> None:
    """No console script (pip's template imports re), -P (the project's own json.py is not imported)."""
    monkeypatch.setattr(sys, "executable", "/home/o'neil/my venvs/ctx $HOME/bin/python")
    command = settings_block()["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert shlex.split(command) == [sys.executable, "-P", "-c", ENTRY_CODE, "hook", "user-prompt-submit"]


def test_the_project_folder_is_not_on_the_hooks_path(tmp_path: Path) -> None:
    install_hooks(tmp_path)
    data = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    for module in ("json", "enum", "ctx_tui"):  # a project's own modules, in the folder the hook runs in
        (tmp_path / f"{module}.py").write_text("raise SystemExit('imported from the project')\n")
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    stdin = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit"})
    done = subprocess.run(command, shell=True, input=stdin, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_console_script_command_is_ours_and_the_next_install_rewrites_it(tmp_path: Path) -> None:
    """What earlier versions wrote (the ``ctx-tui`` script's path, a path with a space quoted)."""
    old = "'/home/me/my venv/bin/ctx-tui'"
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings_block(old)))
    assert is_hook_installed(tmp_path)
    result = install_hooks(tmp_path)
    assert result.added == [] and sorted(result.updated) == sorted(s.event for s in HOOKS)
    assert result.settings == settings_block()
    assert not install_hooks(tmp_path).changed


def test_print_writes_nothing(tmp_path: Path) -> None:
    result = _cli(tmp_path, "hook", "install", "--print")
    assert result.returncode == 0
    block = json.loads(result.stdout)
    assert set(block["hooks"]) == {spec.event for spec in HOOKS}
    assert not (tmp_path / ".claude").exists() and not (tmp_path / ".ctx").exists()


def test_invalid_json_is_not_overwritten(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus",,}')
    result = _cli(tmp_path, "hook", "install")
    assert result.returncode == 2
    assert "not valid JSON" in result.stderr and "Traceback" not in result.stderr
    assert settings.read_text() == '{"model": "opus",,}'


@pytest.mark.parametrize("bad", ['{"hooks": []}', '{"hooks": {"PreCompact": {}}}', "[1, 2]"])
def test_wrong_shapes_are_refused(tmp_path: Path, bad: str) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(bad)
    with pytest.raises(CtxError):
        install_hooks(tmp_path, BASE)
    assert settings.read_text() == bad


def test_a_moved_executable_updates_the_command_in_place() -> None:
    first, added, _ = merge_settings({}, "/old/ctx-tui")
    assert len(added) == 3
    first["hooks"]["SessionStart"][0]["matcher"] = "compact|resume"  # the user's own choice
    second, added, updated = merge_settings(first, BASE)
    assert added == [] and sorted(updated) == sorted(s.event for s in HOOKS)
    assert second["hooks"]["SessionStart"][0]["matcher"] == "compact|resume"
    assert second["hooks"]["SessionStart"][0]["hooks"][0]["command"] == f"{BASE} hook session-start"
    assert first["hooks"]["SessionStart"][0]["hooks"][0]["command"].startswith("/old/")  # input untouched


def test_block_shape() -> None:
    block = settings_block(BASE)["hooks"]
    assert "matcher" not in block["UserPromptSubmit"][0]
    assert block["SessionStart"][0]["matcher"] == "compact"
    assert block["UserPromptSubmit"][0]["hooks"][0] == {
        "type": "command",
        "command": f"{BASE} hook user-prompt-submit",
        "timeout": 10,
    }


def test_not_installed_when_absent_or_broken(tmp_path: Path) -> None:
    assert not is_hook_installed(tmp_path)
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{nope")
    assert not is_hook_installed(tmp_path)
    (tmp_path / ".claude" / "settings.local.json").write_text(json.dumps(settings_block(BASE)))
    assert is_hook_installed(tmp_path)
