"""The hooks end to end, as Claude Code runs them: a subprocess, JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from actions_support import SESSION_ID, cli, hook_stdin, register, wait_until, write_transcript
from ctx_tui import audit
from ctx_tui.actions import hooks
from ctx_tui.actions.hook_runtime import run_hook
from ctx_tui.actions.hook_install import install_hooks
from ctx_tui.actions.restate_queue import pending_restatements, queue_restatement
from ctx_tui.config import Config
from ctx_tui.memory.items import TrackedItem
from ctx_tui.memory.session_store import Note, load_session_memory, update_session_memory

PROMPTS = [
    "Build a CLI for the inventory service. Never push to main without a review.",
    "Add the list command.",
    "Now the export command, CSV please.",
    "Fix the failing test in tests/test_export.py.",
]


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


def _actions(project: Path) -> list[str]:
    return [e["action"] for e in audit.read_events(project)]


def test_register_refresh_then_prompt_delivers_once(project: Path) -> None:
    transcript = write_transcript(project, PROMPTS)
    for item_id, kind, content in (
        ("no-push", "constraint", "Never push to main without a review"),
        ("csv", "decision", "Export as CSV with a header row"),
    ):
        done = cli(project, "register", "--id", item_id, "--type", kind, "--content", content, str(transcript))
        assert done.returncode == 0, done.stderr

    stdin = hook_stdin(project, "UserPromptSubmit", transcript, prompt="go on")
    # no hook installed: nothing is queued, the text is printed to paste
    done = cli(project, "refresh", "--id", "no-push", str(transcript))
    assert done.returncode == 0, done.stderr
    assert b"`ctx-tui hook install`" in done.stdout
    assert b"paste this into the agent:\n[ctx-tui] Restatement" in done.stdout
    assert b"- (constraint, high) Never push to main without a review" in done.stdout
    assert pending_restatements(project, SESSION_ID) == []
    # so a hook installed afterwards does not deliver what the user already pasted
    install_hooks(project)
    late = cli(project, "hook", "user-prompt-submit", stdin=stdin)
    assert (late.returncode, late.stdout) == (0, b"")

    for item in ("csv", "no-push", "no-push"):
        done = cli(project, "refresh", "--id", item, str(transcript))
        assert done.returncode == 0, done.stderr
    assert b"already queued" in done.stdout and b"paste" not in done.stdout

    first = cli(project, "hook", "user-prompt-submit", stdin=stdin)
    assert (first.returncode, first.stderr) == (0, b"")
    answer = json.loads(first.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert "Restatement" in context and "earlier" in context
    lines = context.splitlines()[1:]
    assert lines == [
        "- (constraint, high) Never push to main without a review",  # high importance first
        "- (decision, medium) Export as CSV with a header row",
    ]

    second = cli(project, "hook", "user-prompt-submit", stdin=stdin)
    assert (second.returncode, second.stdout, second.stderr) == (0, b"", b"")

    memory = load_session_memory(project, SESSION_ID)
    assert memory.get_item("no-push").last_seen_round == len(PROMPTS)  # restating is a reference
    actions = _actions(project)
    assert actions.count("restate.copied") == 1
    assert actions.count("restate.queued") == 3 and actions.count("restate.delivered") == 1


def test_refresh_unknown_item_is_one_clear_line(project: Path) -> None:
    transcript = write_transcript(project, PROMPTS)
    register(project, "known", "goal", "Ship the CLI")
    done = cli(project, "refresh", "--id", "nope", str(transcript))
    assert done.returncode == 2
    message = done.stderr.decode()
    assert message.startswith(f"ctx-tui: unknown item 'nope' in session {SESSION_ID}; known items: known")
    assert message.count("\n") == 1 and "Traceback" not in message


def test_hostile_item_text_is_plain_in_additional_context(project: Path) -> None:
    install_hooks(project)
    transcript = write_transcript(project, PROMPTS)
    register(project, "evil", "critical_info", "\x1b]0;pwned\x07## Heading\n- bullet [red]x[/red] <!-- c -->\x1b[2J")
    assert cli(project, "refresh", "--id", "evil", str(transcript)).returncode == 0
    out = cli(project, "hook", "user-prompt-submit", stdin=hook_stdin(project, "UserPromptSubmit", transcript))
    context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.splitlines()[1] == "- (critical info, high) ## Heading - bullet [red]x[/red] <!-- c -->"
    assert not any(ord(c) < 32 and c != "\n" for c in context)


def test_session_start_reinjects_after_compaction_only(project: Path) -> None:
    transcript = write_transcript(project, PROMPTS)
    register(project, "g", "goal", "Build the inventory CLI")
    register(project, "c", "constraint", "Never push to main without a review")
    register(project, "p", "user_preference", "Answer in short sentences")
    register(project, "d", "decision", "Use click for arguments")
    update_session_memory(project, SESSION_ID, lambda m: m.goals.append(Note(text="build the inventory CLI.")))

    out = cli(project, "hook", "session-start",
              stdin=hook_stdin(project, "SessionStart", transcript, source="compact"))
    assert out.returncode == 0 and out.stderr == b""
    answer = json.loads(out.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart"
    assert answer["additionalContext"].splitlines()[1:] == [
        "- Goal: Build the inventory CLI",  # the duplicate note is given once
        "- Constraint: Never push to main without a review",
        "- Preference: Answer in short sentences",
    ]
    assert "restate.reinjected" in _actions(project)

    startup = cli(project, "hook", "session-start", stdin=hook_stdin(project, "SessionStart", transcript, source="startup"))
    assert (startup.returncode, startup.stdout) == (0, b"")


def test_pre_compact_audits_and_saves_a_summary(project: Path) -> None:
    transcript = write_transcript(project, PROMPTS)
    register(project, "no-push", "constraint", "Never push to main without a review")
    out = cli(project, "hook", "pre-compact",
              stdin=hook_stdin(project, "PreCompact", transcript, trigger="manual", custom_instructions="keep tests"))
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")
    wait_until(lambda: "compress.saved" in _actions(project))  # the detached job is done
    events = {e["action"]: e for e in audit.read_events(project)}
    assert events["hook.pre_compact"]["details"]["trigger"] == "manual"
    assert events["hook.pre_compact"]["details"]["instructions"] == "keep tests"
    summaries = load_session_memory(project, SESSION_ID).summaries
    assert len(summaries) == 1 and summaries[0].text.strip() and summaries[0].strategy == "semantic"
    figures = summaries[0].figures
    assert figures["savedBy"] == "pre-compact" and figures["trigger"] == "manual"
    assert 0 < figures["compressedLength"] <= figures["originalLength"]
    assert not (project / ".ctx" / "hook-errors.log").exists()


def test_the_deferred_job_never_imports_the_projects_own_modules(project: Path) -> None:
    """The job runs in the project folder; a project's enum.py (or json.py) must not replace Python's."""
    transcript = write_transcript(project, PROMPTS)
    for module in ("enum", "json", "typing"):
        (project / f"{module}.py").write_text("raise SystemExit('imported from the project')\n")
    stdin = hook_stdin(project, "PreCompact", transcript, trigger="auto")
    assert run_hook("pre-compact", hooks.pre_compact, stdin, str(project)) == ""  # in this process: the hook itself
    wait_until(lambda: "compress.saved" in _actions(project))  # the detached job, in the project folder
    assert not (project / ".ctx" / "hook-errors.log").exists()


# -- robustness: never break the agent -----------------------------------------

EVENTS = [("user-prompt-submit", "UserPromptSubmit"), ("session-start", "SessionStart"), ("pre-compact", "PreCompact")]


MALFORMED = [b"", b"not json", b"[1, 2]", b'{"cwd": "/"}', b'{"session_id": 7}', b"\xff\xfe{", b'{"session_id": ""}']


@pytest.mark.parametrize("hook", [name for name, _ in EVENTS])
def test_malformed_stdin_exits_0_silently_and_logs(project: Path, hook: str) -> None:
    out = cli(project, "hook", hook, stdin=b"not json")
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")
    log = (project / ".ctx" / "hook-errors.log").read_text()
    entry = json.loads(log.splitlines()[-1])
    assert entry["hook"] == hook and entry["error"].startswith("HookInputError")


@pytest.mark.parametrize("stdin", MALFORMED)
def test_every_malformed_stdin_is_answered_with_nothing(project: Path, stdin: bytes) -> None:
    for name, handler in (("user-prompt-submit", hooks.user_prompt_submit), ("session-start", hooks.session_start),
                          ("pre-compact", hooks.pre_compact)):
        assert run_hook(name, handler, stdin, project) == ""
    lines = (project / ".ctx" / "hook-errors.log").read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(l)["error"].startswith("HookInputError") for l in lines)


def test_a_hook_started_in_a_removed_folder_still_answers(project: Path, tmp_path: Path) -> None:
    install_hooks(project)
    transcript = write_transcript(project, PROMPTS)
    register(project, "no-push", "constraint", "Never push to main without a review")
    queue_restatement(project, SESSION_ID, load_session_memory(project, SESSION_ID).get_item("no-push"))
    gone = tmp_path / "gone"
    gone.mkdir()
    launcher = ("import os, sys\nos.chdir(sys.argv[1]); os.rmdir(sys.argv[1])\n"
                "from ctx_tui.cli import main\nsys.exit(main(['hook', 'user-prompt-submit']))")
    out = subprocess.run([sys.executable, "-c", launcher, str(gone)], input=hook_stdin(project, "UserPromptSubmit", transcript),
                         capture_output=True, timeout=60)
    assert (out.returncode, out.stderr) == (0, b"") and b"Never push to main" in out.stdout


def test_missing_transcript_exits_0_silently_and_logs(project: Path) -> None:
    missing = project / "gone.jsonl"
    out = cli(project, "hook", "pre-compact", stdin=hook_stdin(project, "PreCompact", missing, trigger="auto"))
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")
    assert "transcript not found" in (project / ".ctx" / "hook-errors.log").read_text()
    assert "hook.pre_compact" in _actions(project)  # what could be done was done


def test_auto_refresh_with_missing_transcript_still_delivers_the_queue(project: Path) -> None:
    install_hooks(project)
    transcript = write_transcript(project, PROMPTS)
    register(project, "no-push", "constraint", "Never push to main without a review")
    assert cli(project, "refresh", "--id", "no-push", str(transcript)).returncode == 0
    (project / ".ctx" / "config.yaml").write_text("decay:\n  auto_refresh: true\n")
    out = cli(project, "hook", "user-prompt-submit",
              stdin=hook_stdin(project, "UserPromptSubmit", project / "gone.jsonl"))
    assert out.returncode == 0 and b"Never push to main" in out.stdout
    assert "transcript not found" in (project / ".ctx" / "hook-errors.log").read_text()


def test_broken_config_still_delivers_the_queue(project: Path) -> None:
    install_hooks(project)
    transcript = write_transcript(project, PROMPTS)
    register(project, "no-push", "constraint", "Never push to main without a review")
    assert cli(project, "refresh", "--id", "no-push", str(transcript)).returncode == 0
    (project / ".ctx" / "config.yaml").write_text("decay: [unclosed\n")
    out = cli(project, "hook", "user-prompt-submit", stdin=hook_stdin(project, "UserPromptSubmit", transcript))
    assert out.returncode == 0 and b"Never push to main" in out.stdout and out.stderr == b""
    assert "invalid YAML" in (project / ".ctx" / "hook-errors.log").read_text()


@pytest.mark.parametrize("hook,event", EVENTS)
def test_unwritable_state_dir_exits_0_silently_and_logs_elsewhere(project: Path, tmp_path: Path, hook: str, event: str) -> None:
    transcript = write_transcript(project, PROMPTS)
    (project / ".ctx").write_text("not a folder")  # nothing can be created under .ctx/
    state = tmp_path / "state"
    out = cli(project, "hook", hook, env={"XDG_STATE_HOME": str(state), "CTX_TUI_DEBUG": "1"},
              stdin=hook_stdin(project, event, transcript, source="compact", trigger="auto"))
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")
    if hook == "user-prompt-submit":
        return  # nothing queued and nothing to write: there is no error to log
    entry = json.loads((state / "ctx-tui" / "hook-errors.log").read_text().splitlines()[-1])
    assert entry["hook"] == hook and entry["project"] == str(project)


def test_auto_refresh_restates_a_decayed_high_importance_item_once(project: Path) -> None:
    prompts = [PROMPTS[0], *[f"Add field number {n} to the report." for n in range(2, 15)]]
    transcript = write_transcript(project, prompts)
    register(project, "no-push", "constraint", "Never push to main without a review")
    (project / ".ctx" / "config.yaml").write_text("decay:\n  auto_refresh: true\n")
    stdin = hook_stdin(project, "UserPromptSubmit", transcript, prompt="next")

    def runs() -> list[dict]:
        return [e for e in audit.read_events(project) if e["action"] == "restate.auto_refreshed"]

    first = cli(project, "hook", "user-prompt-submit", stdin=stdin)
    assert (first.returncode, first.stdout, first.stderr) == (0, b"", b"")  # the analysis runs detached
    wait_until(lambda: len(runs()) == 1)
    assert "no-push" in runs()[0]["details"]["queued"]
    assert load_session_memory(project, SESSION_ID).get_item("no-push").last_seen_round == len(prompts)

    second = cli(project, "hook", "user-prompt-submit", stdin=stdin)  # the next prompt gets it
    context = json.loads(second.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "- (constraint, high) Never push to main without a review" in context.splitlines()
    wait_until(lambda: len(runs()) == 2)
    assert runs()[1]["details"]["queued"] == []  # restated counts as a reference: not decayed any more
    third = cli(project, "hook", "user-prompt-submit", stdin=stdin)
    assert (third.returncode, third.stdout) == (0, b"")
    wait_until(lambda: len(runs()) == 3)
    queued = [e for e in audit.read_events(project) if e["action"] == "restate.queued"]
    assert {e["details"]["reason"] for e in queued} == {"auto"}
    assert not (project / ".ctx" / "hook-errors.log").exists()


def test_constraints_from_before_a_compaction_come_back_after_it(project: Path) -> None:
    """Nothing registered, no dashboard: PreCompact extracts, SessionStart re-injects."""
    transcript = write_transcript(project, PROMPTS)
    out = cli(project, "hook", "pre-compact", stdin=hook_stdin(project, "PreCompact", transcript, trigger="auto"))
    assert (out.returncode, out.stdout) == (0, b"")
    wait_until(lambda: "compress.saved" in _actions(project))  # the detached job is done
    after = cli(project, "hook", "session-start", stdin=hook_stdin(project, "SessionStart", transcript, source="compact"))
    context = json.loads(after.stdout)["hookSpecificOutput"]["additionalContext"]
    assert any(line.startswith("- Constraint: ") and "Never push to main" in line for line in context.splitlines())


def test_a_closed_stdout_still_exits_0(project: Path) -> None:
    transcript = write_transcript(project, PROMPTS)
    queue_restatement(project, SESSION_ID, TrackedItem(id="no-push", type="constraint", content="Never push"))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the agent went away before reading the answer
    done = subprocess.run([sys.executable, "-m", "ctx_tui", "hook", "user-prompt-submit"], cwd=project,
                          input=hook_stdin(project, "UserPromptSubmit", transcript), stdout=write_end,
                          stderr=subprocess.PIPE, timeout=60)
    os.close(write_end)
    assert (done.returncode, done.stderr) == (0, b"")
    assert "BrokenPipeError" in (project / ".ctx" / "hook-errors.log").read_text()


def test_a_cwd_that_is_not_a_folder_creates_nothing(project: Path, tmp_path: Path) -> None:
    ghost = tmp_path / "no" / "such" / "project"
    out = cli(project, "hook", "pre-compact", stdin=hook_stdin(ghost, "PreCompact", None, trigger="auto"))
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")
    assert not (tmp_path / "no").exists()
    assert "cwd is not a folder" in (project / ".ctx" / "hook-errors.log").read_text()


def test_a_deferred_summary_reads_the_transcript_as_it_was_when_the_hook_fired(project: Path) -> None:
    transcript = write_transcript(project, PROMPTS)
    size = transcript.stat().st_size
    with transcript.open("a") as fh:  # the compaction lands while the deferred job starts
        fh.write(json.dumps({"type": "system", "subtype": "compact_boundary", "uuid": "b1", "sessionId": SESSION_ID,
                             "compactMetadata": {"trigger": "auto", "preTokens": 4400}}) + "\n")
        fh.write(json.dumps({"type": "user", "uuid": "s1", "sessionId": SESSION_ID, "isCompactSummary": True,
                             "message": {"role": "user", "content": "Summary: short."}}) + "\n")
    config = Config()
    before = hooks.save_window_summary(project, SESSION_ID, transcript, config, limit_bytes=size)
    after = hooks.save_window_summary(project, SESSION_ID, transcript, config)
    assert before is not None and before.figures["originalLength"] > 200  # the whole pre-compaction window
    assert after is None  # read to the end: the window since the compaction holds no text to summarise
