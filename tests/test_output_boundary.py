"""No escape, control or invisible character from a hostile project reaches the terminal (issue 15, items 1-2).

Every CLI command runs in-process on the project of ``tests/hostile.py``; its
stdout and stderr must hold none of ``hostile.FORBIDDEN``, and no command may
fail with an internal error. The dashboard side is in ``test_ui_boundary.py``.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from hostile import ATTACK, FORBIDDEN, leaks, write_project

from ctx_tui.cli import main
from ctx_tui.plain_text import GuardedStream, json_text, terminal_text

HOOK_INPUT = json.dumps({"session_id": "hostile-session", "transcript_path": "session.jsonl", "cwd": ".", "prompt": ATTACK})
API_COLLECT = json.dumps({"action": "collect", "context": ATTACK, "options": {"sources": ["session", "tools"]}})
API_COMPRESS = json.dumps({"action": "compress", "context": ATTACK * 20, "options": {"strategy": "semantic"}})

#: Every command and the forms that print something different, in an order where each finds what it needs.
COMMANDS: list[tuple[list[str], str | None]] = [
    (["stats", "session.jsonl"], None),
    (["stats", "session.jsonl", "--json"], None),
    (["register", "session.jsonl", "--id", "hx", "--type", "constraint", "--content", f"Never delete data/ {ATTACK}"], None),
    (["register", "session.jsonl", "--id", "hy", "--type", "decision", "--content", f"Use orjson {ATTACK}", "--json"], None),
    (["detect-decay", "session.jsonl"], None),
    (["detect-decay", "session.jsonl", "--json", "--current-round", "60"], None),
    (["check-position", "session.jsonl", "--id", "hx"], None),
    (["check-position", "session.jsonl", "--id", "hx", "--json"], None),
    (["summarize-session", "session.jsonl"], None),
    (["summarize-session", "session.jsonl", "--json"], None),
    (["tiers", "session.jsonl"], None),
    (["tiers", "session.jsonl", "--json"], None),
    (["refresh", "session.jsonl", "--id", "hx"], None),
    (["refresh", "session.jsonl", "--id", "hy", "--json"], None),
    (["promote", "session.jsonl", "--id", "hx"], None),
    (["promote", "session.jsonl", "--id", "hy", "--json"], None),
    (["pending", "session.jsonl"], None),
    (["pending", "session.jsonl", "--json"], None),
    (["approve", "--transcript", "session.jsonl", "hx"], None),
    (["reject", "--transcript", "session.jsonl", "hy", "--json"], None),
    (["sync", "session.jsonl"], None),
    (["dismiss", "session.jsonl", "--id", "hy"], None),
    (["config"], None),
    (["config", "--json"], None),
    (["compress", "session.jsonl"], None),
    (["compress", "session.jsonl", "--strategy", "truncate"], None),
    (["compress", "session.jsonl", "--strategy", "semantic", "--json"], None),
    (["compress", "session.jsonl", "--compact-line"], None),
    (["compress", "--input", "-", "--strategy", "summary"], ATTACK * 30),
    (["compress", "session.jsonl", "--session-memory"], None),
    (["enhance", "session.jsonl", "--query", "export csv header"], None),
    (["enhance", "session.jsonl", "--query", "export csv header", "--json"], None),
    (["enhance", "session.jsonl", "--query", f"nothing matches {ATTACK}"], None),
    (["handoff", "list"], None),
    (["handoff", "latest"], None),
    (["handoff", "latest", "--prompt"], None),
    (["handoff", "check", ".claude/handoffs/backend-20260101T000000Z.yaml"], None),
    (["handoff", "check", "-"], f"agent_role: {ATTACK}\n"),
    (["handoff", "new", "session.jsonl", "--task", ATTACK, "--context", ATTACK, "--first-action", ATTACK], None),
    (["api"], API_COLLECT),
    (["api"], API_COMPRESS),
    (["hook", "user-prompt-submit"], HOOK_INPUT),
    (["hook", "session-start"], HOOK_INPUT),
    (["hook", "install", "--print"], None),
    (["statusline", "--no-color"], json.dumps({"session_id": "hostile-session", "transcript_path": "session.jsonl", "cwd": ".",
                                               "model": {"id": ATTACK}})),
    (["statusline", "--json"], json.dumps({"transcript_path": "session.jsonl", "model": {"id": ATTACK}})),
    (["statusline", "install", "--print"], None),
    (["sessions"], None),
    (["sessions", "--json"], None),
    (["metrics", "session.jsonl"], None),
    (["metrics", "session.jsonl", "--json"], None),
    (["metrics", "--project"], None),
    (["serve", "--demo", "--host", f"10.0.0.1{ATTACK}"], None),
    (["stats", f"missing{ATTACK}.jsonl"], None),
    (["register", "session.jsonl", "--id", f"bad{ATTACK}", "--type", "constraint", "--content", "x"], None),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    write_project(root)
    return root


def _run(project: Path, args: list[str], stdin: str | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((stdin or "").encode())))
    capsys.readouterr()
    code = main(args)
    out = capsys.readouterr()
    return code, out.out + out.err


def test_every_command_prints_no_escape(project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    found = {}
    for args, stdin in COMMANDS:
        code, output = _run(project, args, stdin, monkeypatch, capsys)
        assert "internal error" not in output and "Traceback" not in output, (args, output)
        assert code in (0, 1, 2), (args, code)
        if leaks(output):
            found[" ".join(args)[:60]] = leaks(output)[:3]
    assert not found


def test_every_command_is_walked() -> None:
    from ctx_tui.cli import COMMANDS as ALL

    walked = {args[0] for args, _ in COMMANDS}
    assert walked >= set(ALL)


def test_json_output_escapes_c1_and_invisible_characters(project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, output = _run(project, ["stats", "session.jsonl", "--json"], None, monkeypatch, capsys)
    data = json.loads(output)
    assert code == 0 and data["model"].startswith("claude-sonnet-4-5") and "\x9b" in data["model"] and "\u202e" in data["model"]
    assert json.loads(json_text({"v": ATTACK})) == {"v": ATTACK} and not FORBIDDEN.search(json_text({"v": ATTACK}))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_guard_passes_colour_on_a_terminal_and_nothing_else() -> None:
    terminal = _Terminal()
    guarded = GuardedStream(terminal)
    guarded.write(f"\x1b[1;33mwarning\x1b[0m {ATTACK}\n")
    assert terminal.getvalue().startswith("\x1b[1;33mwarning\x1b[0m ")
    rest = terminal.getvalue().replace("\x1b[1;33m", "").replace("\x1b[0m", "")
    assert not FORBIDDEN.search(rest) and "TITLE" not in rest and "link" in rest
    piped = io.StringIO()
    GuardedStream(piped).write("\x1b[1;33mwarning\x1b[0m\n")
    assert piped.getvalue() == "warning\n"


def test_guard_keeps_ordinary_text() -> None:
    text = "naïve café — 日本語 עברית\ttab\nline ✓\n"
    assert terminal_text(text) == text
    out = io.StringIO()
    GuardedStream(out).write(text)
    assert out.getvalue() == text
