"""The Claude Code hooks: what each one does with its :class:`HookInput`.

- ``UserPromptSubmit``: deliver the session's restatement queue as
  ``additionalContext`` (and empty it). It never reads the transcript; with
  ``decay.auto_refresh`` on it starts a detached job that queues decayed
  high-importance items (see :func:`auto_refresh`), delivered on the next prompt.
- ``SessionStart`` (matcher ``compact``): re-inject goals, constraints and
  preferences from session memory after a compaction.
- ``PreCompact``: audit the compaction, then a detached job brings session
  memory up to date and saves a compressed summary of the live window into it.

Each handler returns the JSON object to print, or None for no output. Claude
Code waits for a hook on every prompt, so a hook never reads the transcript
itself: the analysis costs a few hundred milliseconds of fixed start-up (the
tokenizer, the memory model) plus time in proportion to the transcript, and
runs in ``ctx-tui hook deferred JOB``, started in its own session with no pipe
back to the agent. Each hook then answers in the time it takes Python to start.
"""

from __future__ import annotations

import os

from ctx_tui.actions.hook_runtime import HookInput, HookInputError, disarm, log_hook_error
from ctx_tui.paths import config_files, file_exists, restate_queue_file, session_memory_file

TYPE_CHECKING = False  # typing is not imported at run time

# Claude Code starts a hook process on every prompt and
# waits for it, so at the top this module imports only what answering "nothing
# waits" needs (bench/bench_hooks.py; tests/test_startup_imports.py pins it). The
# queue's code and the audit log load when something waits; the config (pydantic,
# PyYAML) and the session-memory models only when a config file exists
# (:func:`_config`), or in session_start when its notes record does not match
# the memory file; the transcript engine, the memory view and compression in
# the detached jobs.

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import Any

    from ctx_tui.actions.hook_runtime import Handler
    from ctx_tui.config import Config
    from ctx_tui.memory.session_store import SavedSummary
    from ctx_tui.window import Session

#: The hook's stdin field that tells a deferred job how much of the transcript to read.
LIMIT_FIELD = "ctx_tui_limit_bytes"
DEFERRED_JOBS = ("pre-compact", "auto-refresh")
#: How long the prompt hook waits for the queue's lock; on a timeout the queue stays for the next prompt.
TAKE_LOCK_TIMEOUT_S = 0.3


def _config(hook: HookInput, name: str) -> Config | None:
    """The project's config; a broken one is logged and the hook goes on without it."""
    try:
        from ctx_tui.config import load_config  # see _heavy_imports_note

        return load_config(hook.cwd).config
    except Exception as exc:
        log_hook_error(hook.cwd, name, exc, hook.session_id)
        return None


def _context(event: str, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def _transcript(hook: HookInput) -> Path:
    path = hook.transcript_path
    if path is None:
        raise HookInputError("stdin has no transcript_path")
    if not path.is_file():
        raise HookInputError(f"transcript not found: {path}")
    return path


def _limit(hook: HookInput) -> int | None:
    value = hook.raw.get(LIMIT_FIELD)
    return value if isinstance(value, int) and value >= 0 else None


def spawn_deferred(job: str, hook: HookInput, limit_bytes: int) -> None:
    """Start ``ctx-tui hook deferred JOB`` detached (own session, no pipes left to the agent).

    ``-P``: the job runs in the project folder, which stays off ``sys.path`` (a
    project's own ``json.py`` or ``enum.py`` is not imported instead of Python's).
    """
    import subprocess
    import sys

    import orjson

    payload = orjson.dumps({**hook.raw, "cwd": str(hook.cwd), LIMIT_FIELD: limit_bytes})
    proc = subprocess.Popen(
        [sys.executable, "-P", "-m", "ctx_tui", "hook", "deferred", job],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=hook.cwd,
        start_new_session=True,
        close_fds=True,
    )
    assert proc.stdin is not None
    proc.stdin.write(payload)
    proc.stdin.close()


def _session_at(path: Path, config: Config, limit_bytes: int | None, folder: str) -> Session:
    """The session as it was when the hook fired: only its first ``limit_bytes`` are read.

    The agent appends to the transcript (a compaction boundary, say) while a
    deferred job runs, so the job reads a copy of that prefix, written in
    ``folder`` (a temporary folder the caller removes when done with the session).
    """
    from pathlib import Path

    from ctx_tui.storage import open_regular
    from ctx_tui.window import Session  # see _heavy_imports_note

    if limit_bytes is not None and path.stat().st_size > limit_bytes:
        copy = Path(folder) / path.name
        with open_regular(path) as src, copy.open("wb") as dst:
            remaining = limit_bytes
            while remaining > 0:
                chunk = src.read(min(remaining, 1 << 20))
                if not chunk:
                    break
                dst.write(chunk)
                remaining -= len(chunk)
        path = copy
    session = Session(path, config)
    session.poll()
    return session


# -- UserPromptSubmit -------------------------------------------------------


def auto_refresh(
    project: Path, session_id: str, transcript: Path, config: Config, limit_bytes: int | None = None
) -> list[str]:
    """Queue every decayed (or out-of-context) high-importance item not already waiting.

    Returns the ids queued. Each counts as referenced in the current round
    (``restate_items``), so the same item is not restated again on the next prompt.
    This runs inside the prompt hook, so the queue is delivered: it always queues.
    """
    import tempfile

    from ctx_tui import audit  # see _heavy_imports_note
    from ctx_tui.actions.restate import restate_items
    from ctx_tui.actions.restate_queue import pending_restatements
    from ctx_tui.kinds import Importance
    from ctx_tui.memory.view import build_memory_view

    with tempfile.TemporaryDirectory(prefix="ctx-tui-hook-") as folder:
        session = _session_at(transcript, config, limit_bytes, folder)
        view = build_memory_view(project, session, config, latest_only=True)
    waiting = {q.id for q in pending_restatements(project, session_id)}
    queued = [s.id for s in view.flagged if s.importance is Importance.HIGH and s.id not in waiting]
    if queued:
        restate_items(project, session_id, queued, view.current_round, reason="auto", hook_installed=True)
    audit.record(project, "restate.auto_refreshed", session=session_id, current_round=view.current_round, queued=queued)
    return queued


def _auto_refresh_job(hook: HookInput, config: Config) -> None:
    """Run one auto-refresh unless another one is running for this session."""
    from ctx_tui.paths import restate_queue_path
    from ctx_tui.storage import LockTimeout, locked

    try:
        with locked(restate_queue_path(hook.cwd, hook.session_id).with_suffix(".auto"), timeout=0):
            auto_refresh(hook.cwd, hook.session_id, _transcript(hook), config, _limit(hook))
    except LockTimeout:
        return


def user_prompt_submit(hook: HookInput) -> dict[str, Any] | None:
    """Deliver (and empty) the restatement queue; None when nothing waits.

    Without a config file the defaults apply, and auto-refresh is off by
    default: the config is then not loaded at all (see _heavy_imports_note).
    """
    config = _config(hook, "user-prompt-submit") if config_files(hook.folder) else None
    if config is not None and config.decay.enabled and config.decay.auto_refresh:
        try:
            spawn_deferred("auto-refresh", hook, _transcript(hook).stat().st_size)
        except Exception as exc:  # the queue is still delivered
            log_hook_error(hook.cwd, "user-prompt-submit", exc, hook.session_id)
    if not file_exists(restate_queue_file(hook.folder, hook.session_id)):
        return None  # the common case: answered without loading the queue's code, or pathlib
    from ctx_tui import audit  # see _heavy_imports_note
    from ctx_tui.actions.restate_queue import restatement_text, take_restatements

    disarm()  # the commit point: what is taken from the queue is printed
    items = take_restatements(hook.folder, hook.session_id, lock_timeout=TAKE_LOCK_TIMEOUT_S)
    text = restatement_text(items)
    if not text:
        return None
    audit.record(
        hook.folder,  # a string: the delivery imports no pathlib
        "restate.delivered",
        session=hook.session_id,
        items=[i.id for i in items],
        via="UserPromptSubmit",
    )
    return _context("UserPromptSubmit", text)


# -- SessionStart -------------------------------------------------------------


def session_start(hook: HookInput) -> dict[str, Any] | None:
    """After a compaction, re-inject goals, constraints and preferences; None otherwise.

    No session memory file: nothing to re-inject, answered at once. A file
    ctx-tui wrote is read through its notes record (memory.session_notes: no
    YAML, no model); any other file through session_store, validated.
    """
    if hook.source not in (None, "compact"):
        return None
    path = session_memory_file(hook.folder, hook.session_id)
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None  # any other error (.ctx/ not a folder, say) is reported by session_store below
    except OSError:
        pass
    from ctx_tui.memory.session_notes import NOTE_LISTS, read_notes  # see _heavy_imports_note

    notes = read_notes(path)
    if notes is None:
        from ctx_tui.memory.session_store import load_session_memory

        memory = load_session_memory(hook.cwd, hook.session_id)
        notes = {name: [note.text for note in getattr(memory, name)] for name in NOTE_LISTS}
    from ctx_tui import audit
    from ctx_tui.actions.restate_queue import reinjection_text

    text = reinjection_text(notes["goals"], notes["constraints"], notes["preferences"])
    if not text:
        return None
    audit.record(
        hook.folder,
        "restate.reinjected",
        session=hook.session_id,
        via="SessionStart",
        source=hook.source,
        goals=len(notes["goals"]),
        constraints=len(notes["constraints"]),
        preferences=len(notes["preferences"]),
    )
    return _context("SessionStart", text)


# -- PreCompact ---------------------------------------------------------------


def save_window_summary(
    project: Path,
    session_id: str,
    transcript: Path,
    config: Config,
    limit_bytes: int | None = None,
    trigger: str | None = None,
) -> SavedSummary | None:
    """Bring session memory up to date, then keep a compressed summary of the live window in it.

    The update (extraction, references) comes first so that what the session
    established before the compaction (its goal, the user's constraints and
    preferences) is in session memory for the ``SessionStart`` hook to re-inject,
    even when no dashboard ran. The summary uses the config's strategy and ratio,
    with the tracked items kept whole.
    """
    import tempfile

    from ctx_tui import audit  # see _heavy_imports_note
    from ctx_tui.compress import compress_window
    from ctx_tui.memory.session_store import SavedSummary, update_session_memory
    from ctx_tui.memory.tracker import refresh

    with tempfile.TemporaryDirectory(prefix="ctx-tui-hook-") as folder:
        session = _session_at(transcript, config, limit_bytes, folder)
        refresh(project, session, config, latest_only=True)  # the write step: no view is read here
        result = compress_window(session, config, project=project)
    if not result.text.strip():
        return None
    figures: dict[str, float | int | str] = {**result.metadata(), "savedBy": "pre-compact"}
    if trigger:
        figures["trigger"] = trigger
    summary = SavedSummary(strategy=result.strategy, text=result.text, figures=figures)
    update_session_memory(project, session_id, lambda m: m.summaries.append(summary))
    audit.record(project, "compress.saved", session=session_id, via="PreCompact", **result.metadata())
    return summary


def pre_compact(hook: HookInput) -> None:
    """Audit the compaction, then summarise the live window into session memory."""
    from ctx_tui import audit  # see _heavy_imports_note
    from ctx_tui.plain_text import one_line

    audit.record(
        hook.cwd,
        "hook.pre_compact",
        session=hook.session_id,
        trigger=hook.trigger,
        instructions=one_line(hook.custom_instructions or "", 300) or None,
        transcript=str(hook.transcript_path) if hook.transcript_path else None,
    )
    spawn_deferred("pre-compact", hook, _transcript(hook).stat().st_size)
    return None


# -- deferred jobs --------------------------------------------------------------


def deferred_handler(job: str) -> Handler:
    """The handler of ``hook deferred JOB``: the slow half of a hook, run detached."""

    def run(hook: HookInput) -> None:
        import gc

        from ctx_tui import tokens
        from ctx_tui.config import Config  # see _heavy_imports_note

        if job not in DEFERRED_JOBS:
            raise HookInputError(f"unknown deferred job {job!r}; known: {', '.join(DEFERRED_JOBS)}")
        config = _config(hook, f"deferred {job}") or Config()
        # a one-shot process, as `ctx-tui api`: the same cl100k counts from the piece table on
        # disk, without building tiktoken's encoder; what it learns is kept for the next process
        tokens.count_by_pieces()
        # nor does it collect cycles: the job makes almost none (peak RSS +0.5 MiB at 100 MB without
        # the collector), and each pass over the session's entries cost ~0.1-0.2 s of the job
        paused = gc.isenabled()
        gc.disable()
        try:
            if job == "pre-compact":
                save_window_summary(hook.cwd, hook.session_id, _transcript(hook), config, _limit(hook), hook.trigger)
            else:
                _auto_refresh_job(hook, config)
        finally:
            tokens.end_piece_counts()
            if paused:
                # `hook deferred` is a one-shot process that exits after the job, so what is left alive
                # is frozen, never collected: the collection the next allocation starts would otherwise
                # walk every object made since the pause (~50 ms at 100 MB) just before the exit. An
                # in-process caller of this handler would keep those objects: there is none.
                gc.freeze()
                gc.enable()
        return None

    return run
