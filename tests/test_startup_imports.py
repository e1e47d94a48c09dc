"""What the Claude Code hooks, `--version` and `stats` import: only what they need.

Claude Code waits for `hook user-prompt-submit` on every prompt, so its start-up
is the user's wait (bench/bench_hooks.py prints it against a bare `python -c
pass`). These tests pin the behaviour that keeps it short: which modules a run
loads, asserted in a fresh interpreter, next to the answer it gives. No timings.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import CLAUDE_COMPACTED, fixture
from actions_support import SESSION_ID, hook_stdin, register, write_transcript
from ctx_tui.actions.restate_queue import QueuedItem, enqueue
from ctx_tui.memory import session_notes
from ctx_tui.paths import session_memory_path
from ctx_tui.yaml_load import DEFAULT_LIMITS

#: Runs ctx-tui's main with the given arguments in this fresh process, then
#: prints its stdout and the modules it loaded (before the probe's own json) as one JSON object.
PROBE = """
import io, sys
out, sys.stdout = sys.stdout, io.StringIO()
from ctx_tui.cli import main
code = main(sys.argv[1:])
answer, sys.stdout = sys.stdout.getvalue(), out
modules = sorted(sys.modules)
import json
print(json.dumps({"code": code, "stdout": answer, "modules": modules}))
"""

#: Never on the prompt hook's path: model building, YAML, the fast JSON parser
#: for transcripts, the lock library, argparse and dataclasses (inspect).
HEAVY = {"pydantic", "yaml", "orjson", "filelock", "argparse", "dataclasses", "textual", "rich", "tiktoken"}
#: Nor, when nothing waits, the standard modules that made half of its start-up beyond Python's
#: own: pathlib (urllib.parse, ipaddress, fnmatch), typing, contextlib; nor datetime; nor json
#: (it imports re, and re enum: ctx_tui.json_light calls json's C code) and signal (its enums).
STDLIB_SKIPPED = {"pathlib", "urllib.parse", "ipaddress", "fnmatch", "typing", "contextlib", "datetime",
                  "json", "re", "enum", "signal"}
ROOT = Path(__file__).resolve().parents[1]


def _probe(project: Path, *args: str, stdin: bytes = b"", bare: bool = False) -> dict:
    """Run PROBE; ``bare``: without site (-S), ctx_tui found on PYTHONPATH, as an installed
    ctx-tui's process loads nothing before it (an editable install's finder imports pathlib at start-up)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(project), "XDG_CONFIG_HOME": str(project / "xdg")}
    if bare:
        env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, *(["-S"] if bare else []), "-c", PROBE, *args], cwd=project, input=stdin,
        capture_output=True, timeout=60, env=env,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return json.loads(done.stdout)


def _ctx_modules(modules: list[str]) -> set[str]:
    return {m for m in modules if m.startswith("ctx_tui")}


def test_prompt_hook_with_nothing_queued_loads_no_model_and_no_queue_code(tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path, ["Build the exporter."])
    run = _probe(tmp_path, "hook", "user-prompt-submit",
                 stdin=hook_stdin(tmp_path, "UserPromptSubmit", transcript, prompt="next"))
    assert run["code"] == 0 and run["stdout"] == ""
    assert HEAVY & set(run["modules"]) == set()
    assert _ctx_modules(run["modules"]) == {
        "ctx_tui", "ctx_tui.cli", "ctx_tui.errors", "ctx_tui.cli.hook_cmd", "ctx_tui.actions",
        "ctx_tui.actions.hooks", "ctx_tui.actions.hook_runtime", "ctx_tui.paths", "ctx_tui.json_light",
    }
    assert not (tmp_path / ".ctx").exists()  # nothing created either


def test_hooks_with_nothing_to_do_import_no_pathlib_typing_or_contextlib(tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path, ["Build the exporter."])
    for event, fields in (("UserPromptSubmit", {"prompt": "next"}), ("SessionStart", {"source": "compact"})):
        name = "user-prompt-submit" if event == "UserPromptSubmit" else "session-start"
        run = _probe(tmp_path, "hook", name, stdin=hook_stdin(tmp_path, event, transcript, **fields), bare=True)
        assert run["code"] == 0 and run["stdout"] == ""
        assert STDLIB_SKIPPED & set(run["modules"]) == set(), name
    version = _probe(tmp_path, "--version", bare=True)
    assert version["stdout"].startswith("ctx-tui ") and STDLIB_SKIPPED & set(version["modules"]) == set()
    assert not (tmp_path / ".ctx").exists()


def test_hooks_with_something_to_say_import_none_of_them_either(tmp_path: Path) -> None:
    """Delivering a restatement and re-injecting from the notes record import none of the modules
    the empty prompt hook skips either (the record is read by json_light on string paths), nor
    importlib (SHA-256 from CPython's own module) or hashlib (OpenSSL)."""
    transcript = write_transcript(tmp_path, ["Build the exporter."])
    enqueue(tmp_path, SESSION_ID, [QueuedItem("no-push", "constraint", "high", "Never push to main without a review")])
    register(tmp_path, "g", "goal", "Build the inventory CLI")
    prompt = _probe(tmp_path, "hook", "user-prompt-submit", bare=True,
                    stdin=hook_stdin(tmp_path, "UserPromptSubmit", transcript, prompt="next"))
    start = _probe(tmp_path, "hook", "session-start", bare=True,
                   stdin=hook_stdin(tmp_path, "SessionStart", transcript, source="compact"))
    assert "Never push to main" in prompt["stdout"] and "Build the inventory CLI" in start["stdout"]
    for run in (prompt, start):
        assert STDLIB_SKIPPED & set(run["modules"]) == set()
    assert {"importlib", "hashlib"} & set(start["modules"]) == set()


def test_the_time_stamps_are_datetimes(monkeypatch) -> None:
    from datetime import datetime, timezone

    from ctx_tui import kinds, kinds_plain

    for ns in (0, 1_764_650_191_999_999_999, 1_764_650_191_000_500_000, 1_764_650_191_123_456_789):
        monkeypatch.setattr(kinds_plain.time, "time_ns", lambda ns=ns: ns)
        when = datetime.fromtimestamp(ns // 1000 / 1_000_000, timezone.utc)
        assert kinds.now_iso_ms() == when.isoformat(timespec="milliseconds")
        assert kinds.now_iso() == when.isoformat(timespec="seconds")


def test_prompt_hook_delivering_a_restatement_builds_no_model(tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path, ["Build the exporter."])
    enqueue(tmp_path, SESSION_ID, [QueuedItem("no-push", "constraint", "high", "Never push to main without a review")])
    run = _probe(tmp_path, "hook", "user-prompt-submit",
                 stdin=hook_stdin(tmp_path, "UserPromptSubmit", transcript, prompt="next"))
    answer = json.loads(run["stdout"])["hookSpecificOutput"]
    assert "Never push to main without a review" in answer["additionalContext"]
    assert HEAVY & set(run["modules"]) == set()
    assert "ctx_tui.config" not in run["modules"] and "ctx_tui.memory.items" not in run["modules"]


def test_prompt_hook_loads_the_config_only_when_a_file_exists(tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path, ["Build the exporter."])
    (tmp_path / ".ctx").mkdir()
    (tmp_path / ".ctx" / "config.yaml").write_text("decay:\n  threshold_rounds: 30\n")
    run = _probe(tmp_path, "hook", "user-prompt-submit",
                 stdin=hook_stdin(tmp_path, "UserPromptSubmit", transcript, prompt="next"))
    assert run["code"] == 0 and run["stdout"] == ""
    assert {"ctx_tui.config", "pydantic", "yaml"} <= set(run["modules"])  # read and validated as before
    assert not (tmp_path / ".ctx" / "hook-errors.log").exists()


#: What `hook session-start` loads when no session memory exists: the prompt hook's modules.
SESSION_START_NOTHING = {
    "ctx_tui", "ctx_tui.cli", "ctx_tui.errors", "ctx_tui.cli.hook_cmd", "ctx_tui.actions",
    "ctx_tui.actions.hooks", "ctx_tui.actions.hook_runtime", "ctx_tui.paths", "ctx_tui.json_light",
}
#: ... and when it re-injects from the notes record ctx-tui wrote beside the memory file.
SESSION_START_NOTES = SESSION_START_NOTHING | {
    "ctx_tui.memory", "ctx_tui.memory.session_notes", "ctx_tui.kinds_plain", "ctx_tui.storage",
    "ctx_tui.audit", "ctx_tui.actions.restate_queue", "ctx_tui.plain_text",
}


def _session_start(project: Path) -> dict:
    transcript = write_transcript(project, ["Build the exporter."])
    return _probe(project, "hook", "session-start",
                  stdin=hook_stdin(project, "SessionStart", transcript, source="compact"))


def _reinjected(project: Path) -> list[dict]:
    from ctx_tui import audit

    return [e for e in audit.read_events(project) if e["action"] == "restate.reinjected"]


def test_session_start_without_session_memory_answers_before_loading_anything(tmp_path: Path) -> None:
    run = _session_start(tmp_path)
    assert run["code"] == 0 and run["stdout"] == ""
    assert HEAVY & set(run["modules"]) == set()
    assert _ctx_modules(run["modules"]) == SESSION_START_NOTHING
    assert not (tmp_path / ".ctx").exists()


def test_session_start_reads_the_notes_record_without_yaml_or_model(tmp_path: Path) -> None:
    register(tmp_path, "g", "goal", "Build the inventory CLI")
    register(tmp_path, "c", "constraint", "Never push to main without a review")
    register(tmp_path, "d", "decision", "Use click for arguments")
    fast = _session_start(tmp_path)
    assert HEAVY & set(fast["modules"]) == set()
    assert _ctx_modules(fast["modules"]) == SESSION_START_NOTES
    context = json.loads(fast["stdout"])["hookSpecificOutput"]["additionalContext"]
    assert context.splitlines()[1:] == ["- Goal: Build the inventory CLI", "- Constraint: Never push to main without a review"]

    # Without the record the validated read gives the same answer (and the same audit event).
    session_notes.notes_path(session_memory_path(tmp_path, SESSION_ID)).unlink()
    slow = _session_start(tmp_path)
    assert {"yaml", "ctx_tui.memory.session_store"} <= set(slow["modules"])
    assert "pydantic" not in slow["modules"]  # the session memory's models are plain classes
    assert slow["stdout"] == fast["stdout"]
    first, second = _reinjected(tmp_path)
    assert first["details"] == second["details"] == {
        "via": "SessionStart", "source": "compact", "goals": 1, "constraints": 1, "preferences": 0}


def test_session_start_never_trusts_a_record_of_other_bytes(tmp_path: Path) -> None:
    register(tmp_path, "g", "goal", "Build the inventory CLI")
    memory = session_memory_path(tmp_path, SESSION_ID)
    # edited by hand: a new constraint; the record no longer matches and the YAML is read
    memory.write_text(memory.read_text().replace("constraints: []", "constraints:\n- text: Keep the API stable"))
    run = _session_start(tmp_path)
    assert "ctx_tui.memory.session_store" in run["modules"]
    assert "- Constraint: Keep the API stable" in json.loads(run["stdout"])["hookSpecificOutput"]["additionalContext"]
    # edited into something invalid: the validated read refuses it, as it always did
    memory.write_text(memory.read_text().replace("text: Keep the API stable", "text: ''"))
    run = _session_start(tmp_path)
    assert run["stdout"] == "" and "constraints.0.text" in (tmp_path / ".ctx" / "hook-errors.log").read_text()
    # a damaged record is no record
    memory.unlink()
    register(tmp_path, "g", "goal", "Build the inventory CLI, in Rust")
    notes = session_notes.notes_path(memory)
    for damaged in ("{", "[" * 100_000, '{"v": 1, "sha256": "0", "goals": []}', "null"):
        notes.write_text(damaged)
        run = _session_start(tmp_path)
        assert "Build the inventory CLI, in Rust" in run["stdout"] and "ctx_tui.memory.session_store" in run["modules"]


def test_the_notes_record_digest_is_sha256() -> None:
    import hashlib

    for data in (b"", b"goals: []\n", "é".encode() * 10_000):
        assert session_notes._digest(data) == hashlib.sha256(data).hexdigest()


def test_the_notes_record_bound_keeps_within_the_yaml_limits() -> None:
    """A file below MAX_BYTES passes every limit of the validated read (see session_notes)."""
    assert session_notes.MAX_BYTES <= min(DEFAULT_LIMITS.max_bytes, DEFAULT_LIMITS.max_scalar)
    assert session_notes.MAX_BYTES // 2 <= DEFAULT_LIMITS.max_nodes


def test_the_status_line_imports_no_json_re_or_pathlib(tmp_path: Path) -> None:
    """Claude Code runs `statusline` after every message: cold (the transcript's tail) and warm (its cache),
    with a session memory summarised from its notes record, it reads its JSON with json_light."""
    register(tmp_path, "g", "goal", "Build the inventory CLI")
    stdin = json.dumps({"session_id": SESSION_ID, "cwd": str(tmp_path),
                        "transcript_path": str(fixture(CLAUDE_COMPACTED))}).encode()
    cold = _probe(tmp_path, "statusline", "--no-color", stdin=stdin, bare=True)
    warm = _probe(tmp_path, "statusline", "--no-color", stdin=stdin, bare=True)
    assert cold["stdout"] == warm["stdout"] and cold["stdout"].startswith("ctx ")
    for run in (cold, warm):
        assert STDLIB_SKIPPED & set(run["modules"]) == set()
        assert HEAVY & set(run["modules"]) == set()


def test_version_imports_no_command_module(tmp_path: Path) -> None:
    run = _probe(tmp_path, "--version")
    assert run["code"] == 0 and run["stdout"].startswith("ctx-tui ")
    assert _ctx_modules(run["modules"]) == {"ctx_tui", "ctx_tui.cli", "ctx_tui.errors"}
    assert HEAVY & set(run["modules"]) == set()


def test_stats_without_a_config_file_builds_no_config_model(tmp_path: Path) -> None:
    run = _probe(tmp_path, "stats", str(fixture(CLAUDE_COMPACTED)), "--json")
    assert run["code"] == 0 and json.loads(run["stdout"])["context_tokens"] > 0
    assert {"pydantic", "yaml", "ctx_tui.config", "textual", "rich"} & set(run["modules"]) == set()
    (tmp_path / ".ctx").mkdir()
    (tmp_path / ".ctx" / "config.yaml").write_text("window:\n  handoff_threshold: 0.3\n")
    run = _probe(tmp_path, "stats", str(fixture(CLAUDE_COMPACTED)), "--json")
    assert json.loads(run["stdout"])["handoff_suggested"] is True and "pydantic" in run["modules"]


def test_an_api_compress_call_loads_no_config_session_or_reader_models(tmp_path: Path) -> None:
    request = json.dumps({"action": "compress", "context": "We decided to keep the cache warm. " * 200,
                          "options": {"maxLength": 100}})
    run = _probe(tmp_path, "api", stdin=request.encode())
    answer = json.loads(run["stdout"])
    assert run["code"] == 0 and answer["success"] is True and answer["metadata"]["compressedLength"] <= 100
    assert {"pydantic", "yaml", "textual"} & set(run["modules"]) == set()
    assert not {"ctx_tui.config", "ctx_tui.window", "ctx_tui.retrieve", "ctx_tui.memory.session_store",
                "ctx_tui.transcripts.claude"} & _ctx_modules(run["modules"])


def test_the_hooks_string_paths_are_the_paths_of_the_rest(tmp_path: Path, monkeypatch) -> None:
    from ctx_tui import paths

    for session in (SESSION_ID, "../etc/passwd", "a/b\x1bc", ""):
        assert Path(paths.restate_queue_file(str(tmp_path), session)) == paths.restate_queue_path(tmp_path, session)
        assert Path(paths.session_memory_file(str(tmp_path), session)) == paths.session_memory_path(tmp_path, session)
        memory = paths.session_memory_path(tmp_path, session)
        beside = memory.with_name(memory.stem + ".notes.json")  # what the record was named before notes_file
        assert session_notes.notes_path(memory) == beside
        assert session_notes.notes_file(paths.session_memory_file(str(tmp_path), session)) == str(beside)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path) + "/")
    assert paths.user_config_path() == Path.home() / ".config" / "ctx-tui" / "config.yaml"
    assert paths.config_files(tmp_path) == []
    paths.project_config_path(tmp_path).parent.mkdir()
    paths.project_config_path(tmp_path).symlink_to(tmp_path / "nowhere")  # lexists: a dangling link counts
    assert [Path(p) for p in paths.config_files(str(tmp_path))] == [paths.project_config_path(tmp_path)]


def test_the_prompt_hooks_exists_is_pathlibs(tmp_path: Path) -> None:
    from ctx_tui.paths import file_exists as _exists

    (tmp_path / "file").write_text("")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for name in ("file", "missing", "file/under-a-file", "loop", "nul\0byte", "."):
        assert _exists(str(tmp_path / name)) == (tmp_path / name).exists(), name
