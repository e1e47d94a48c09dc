"""``ctx-tui handoff``: exit codes (subprocess), new/list/latest, --edit, --from-session."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from conftest import CODEX_FULL, fixture
from ctx_tui.cli import main
from ctx_tui.handoff.schema import dump_handoff, read_handoff
from test_handoff_gate import BASE, make

GOOD_ARGS = [
    "--task", "Make the follower keep partial lines",
    "--completion", "50", "--done", "offset tracking", "--todo", "partial line",
    "--context", BASE["continuation_context"],
    "--first-action", BASE["suggested_first_action"],
]


def subprocess_run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command in a child process (exit codes as a shell sees them)."""
    return subprocess.run([sys.executable, "-m", "ctx_tui", "handoff", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60)


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """The command in-process (fast): same dispatcher, same exit codes, captured output."""

    def call(cwd: Path, *args: str, stdin: str | None = None) -> Result:
        monkeypatch.chdir(cwd)
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        capsys.readouterr()
        code = main(["handoff", *args])
        out = capsys.readouterr()
        return Result(code, out.out, out.err)

    return call


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def test_check_exit_codes(tmp_path: Path, run: Callable[..., Result]) -> None:
    (tmp_path / "good.yaml").write_text(dump_handoff(make()), encoding="utf-8")
    (tmp_path / "vague.yaml").write_text(dump_handoff(make(suggested_first_action="Continue the work")), encoding="utf-8")
    (tmp_path / "types.yaml").write_text(dump_handoff(make(task={"completion_pct": "about half"})), encoding="utf-8")
    (tmp_path / "invalid.yaml").write_text("task_state: [unclosed\n", encoding="utf-8")
    (tmp_path / "list.yaml").write_text("- a\n- b\n", encoding="utf-8")
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00bad")

    good = subprocess_run(tmp_path, "check", "good.yaml")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "PASS" in good.stdout
    vague = subprocess_run(tmp_path, "check", "vague.yaml")
    assert vague.returncode == 1
    assert "suggested_first_action" in vague.stdout and "FAIL" in vague.stdout
    unreadable = subprocess_run(tmp_path, "check", "invalid.yaml")
    assert unreadable.returncode == 2
    assert "invalid YAML at line" in unreadable.stderr and "Traceback" not in unreadable.stderr

    types = run(tmp_path, "check", "types.yaml")
    assert types.returncode == 1
    assert "task_state.completion_pct: must be a number (got str)" in types.stdout
    for name, words in (("missing.yaml", "no such file"), ("list.yaml", "got list"), ("binary.yaml", "not UTF-8"),
                        (".", "is a folder")):
        bad = run(tmp_path, "check", name)
        assert bad.returncode == 2, name
        assert words in bad.stderr
    as_json = run(tmp_path, "check", "vague.yaml", "--json")
    assert as_json.returncode == 1
    assert "suggested_first_action" in {f["field"] for f in yaml.safe_load(as_json.stdout)["findings"]}


def test_new_writes_or_refuses_and_keeps_the_draft(tmp_path: Path, run: Callable[..., Result]) -> None:
    written = run(tmp_path, "new", *GOOD_ARGS)
    assert written.returncode == 0, written.stdout + written.stderr
    (path,) = (tmp_path / ".claude" / "handoffs").iterdir()
    data = read_handoff(path)
    assert data["task_state"]["completed_subtasks"] == ["offset tracking"]
    assert data["suggested_first_action"] == BASE["suggested_first_action"]

    refused = run(tmp_path, "new", "--task", "x", "--completion", "10", "--context", "Continue working on it, etc.",
                  "--first-action", "Continue")
    assert refused.returncode == 1
    assert "refused" in refused.stdout and "continuation_context" in refused.stdout
    (draft,) = (tmp_path / ".ctx" / "handoff-drafts").iterdir()
    assert read_handoff(draft)["continuation_context"] == "Continue working on it, etc."
    assert "# The gate refused the last version:" in draft.read_text(encoding="utf-8")
    assert len(list((tmp_path / ".claude" / "handoffs").iterdir())) == 1

    # The kept draft, fixed by options, goes through.
    fixed = run(tmp_path, "new", "--from", str(draft), "--context", BASE["continuation_context"],
                "--first-action", BASE["suggested_first_action"], "--json")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert yaml.safe_load(fixed.stdout)["passed"] is True

    forced = run(tmp_path, "new", "--first-action", "Continue", "--force")
    assert forced.returncode == 0
    assert "despite failing the gate" in forced.stdout
    assert len(list((tmp_path / ".claude" / "handoffs").iterdir())) == 3


def test_new_context_from_stdin_and_dry_run(tmp_path: Path, run: Callable[..., Result]) -> None:
    args = [a for a in GOOD_ARGS]
    i = args.index("--context")
    args[i:i + 2] = ["--context-file", "-"]
    dry = run(tmp_path, "new", *args, "--dry-run", stdin=BASE["continuation_context"])
    assert dry.returncode == 0, dry.stderr
    assert yaml.safe_load(dry.stdout)["continuation_context"] == BASE["continuation_context"]
    assert not (tmp_path / ".claude").exists()


def test_latest_and_list(tmp_path: Path, run: Callable[..., Result]) -> None:
    none = run(tmp_path, "latest")
    assert none.returncode == 2 and "no readable handoff" in none.stderr
    assert run(tmp_path, "list").stdout.startswith("no handoffs")
    assert run(tmp_path, "new", *GOOD_ARGS, "--role", "backend").returncode == 0
    assert run(tmp_path, "new", *GOOD_ARGS, "--role", "reviewer").returncode == 0
    listing = run(tmp_path, "list")
    assert listing.returncode == 0
    lines = listing.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("warn") for line in lines)  # no session_id: a warning
    prompt = run(tmp_path, "latest", "--prompt")
    assert prompt.returncode == 0
    assert "First action: " + BASE["suggested_first_action"] in prompt.stdout
    raw = run(tmp_path, "latest")
    assert raw.stdout.startswith("# ") and "handoff_version" in raw.stdout
    as_json = yaml.safe_load(run(tmp_path, "latest", "--json").stdout)
    assert as_json["status"] == "warn" and as_json["handoff"]["agent_role"] in ("backend", "reviewer")


def test_new_from_a_real_session(tmp_path: Path, run: Callable[..., Result]) -> None:
    result = run(tmp_path, "new", str(fixture(CODEX_FULL)), "--context", BASE["continuation_context"],
                 "--first-action", "Run `npm test -- --run src/agents/plugins/__tests__/codemie-code-reasoning.test.ts`")
    assert result.returncode == 0, result.stdout + result.stderr
    (path,) = (tmp_path / ".claude" / "handoffs").iterdir()
    data = read_handoff(path)
    assert data["session_id"] == "019e1625-789d-76c0-80ab-3724b5ddb799"
    assert "src/agents/plugins/codemie-code.plugin.ts" in data["files_modified"]
    assert "note: paths are relative to the session's directory" in result.stderr


def test_edit_without_a_terminal_explains(tmp_path: Path, run: Callable[..., Result]) -> None:
    result = run(tmp_path, "new", "--edit")
    assert result.returncode == 2
    assert "--edit needs an interactive terminal" in result.stderr and "--from FILE" in result.stderr


FAKE_EDITOR = textwrap.dedent(
    """
    import os, sys, yaml
    path = sys.argv[1]
    data = yaml.safe_load(open(path, encoding="utf-8"))
    data.update(yaml.safe_load(open(os.environ["HANDOFF_FILL"], encoding="utf-8")))
    open(path, "w", encoding="utf-8").write(yaml.safe_dump(data))
    """
)


def _tty(monkeypatch: pytest.MonkeyPatch, editor: str | None) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("VISUAL", raising=False)
    if editor is None:
        monkeypatch.delenv("EDITOR", raising=False)
    else:
        monkeypatch.setenv("EDITOR", editor)


def test_edit_opens_the_editor_then_gates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "editor.py").write_text(FAKE_EDITOR, encoding="utf-8")
    fill = tmp_path / "fill.yaml"
    fill.write_text(yaml.safe_dump({k: v for k, v in BASE.items() if k != "timestamp"}), encoding="utf-8")
    monkeypatch.setenv("HANDOFF_FILL", str(fill))
    _tty(monkeypatch, f"{sys.executable} {tmp_path / 'editor.py'}")
    monkeypatch.setattr("builtins.input", lambda prompt="": pytest.fail("asked to edit again"))
    assert main(["handoff", "new", "--edit"]) == 0
    (path,) = (tmp_path / ".claude" / "handoffs").iterdir()
    assert read_handoff(path)["continuation_context"] == BASE["continuation_context"]
    assert list((tmp_path / ".ctx" / "handoff-drafts").iterdir()) == []  # the draft is gone once written


def test_edit_refused_keeps_the_draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    _tty(monkeypatch, "true")  # an editor that changes nothing
    monkeypatch.setattr("builtins.input", lambda prompt="": "n")
    assert main(["handoff", "new", "--edit", "--task", "Write the parser"]) == 1
    out = capsys.readouterr().out
    assert "refused" in out and "draft kept at" in out
    (draft,) = (tmp_path / ".ctx" / "handoff-drafts").iterdir()
    assert read_handoff(draft)["task_state"]["assigned_task"] == "Write the parser"
    assert not (tmp_path / ".claude").exists()


def test_edit_without_editor_explains(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    _tty(monkeypatch, None)
    assert main(["handoff", "new", "--edit"]) == 2
    assert "needs $VISUAL or $EDITOR" in capsys.readouterr().err


def test_stats_suggests_a_handoff_at_the_threshold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The real Codex session sits at about 51% of its window."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".ctx").mkdir()
    for threshold, expected in ((0.5, True), (0.6, False)):
        (tmp_path / ".ctx" / "config.yaml").write_text(f"window:\n  handoff_threshold: {threshold}\n", encoding="utf-8")
        capsys.readouterr()
        assert main(["stats", str(fixture(CODEX_FULL)), "--json"]) == 0
        assert yaml.safe_load(capsys.readouterr().out)["handoff_suggested"] is expected


def test_latest_and_list_print_no_terminal_escapes(tmp_path: Path, run: Callable[..., Result]) -> None:
    hostile = make(agent_role="back\x1b[31mend", continuation_context=BASE["continuation_context"] + " \x1b]52;c;aGk=\x07")
    folder = tmp_path / ".claude" / "handoffs"
    folder.mkdir(parents=True)
    (folder / "h.yaml").write_text(dump_handoff(hostile), encoding="utf-8")
    for args in (("latest",), ("latest", "--prompt"), ("list",)):
        result = run(tmp_path, *args)
        assert result.returncode == 0, args
        assert "\x1b" not in result.stdout and "\x07" not in result.stdout, args
    assert "backend" in run(tmp_path, "list").stdout
