"""A handoff draft pre-filled from the session and its session memory.

What is filled, and from where:

- ``session_id``, ``context_usage_pct`` — the transcript (``SessionMeta``,
  ``WindowState``); ``timestamp`` — now; ``agent_role`` — ``handoff.agent_role``.
- ``files_modified`` / ``files_created`` — the agent's *successful* edit calls
  (:func:`_ledger`), relative to the project root (the session's cwd);
  paths outside it are dropped.
- ``task_state`` — the latest plan the agent kept (Claude ``TodoWrite``, Codex
  ``update_plan``): completed and remaining steps, and the share done as
  ``completion_pct`` (without a plan it is left for the author); the first
  goal of session memory, else the goal extraction finds (the first real user
  request, :func:`~ctx_tui.memory.extract.goal_of`) as ``assigned_task``;
  progress notes of session memory join the completed list.
- ``decisions_made`` — decisions of session memory, then the decisions the
  extraction finds in the transcript (:func:`~ctx_tui.memory.extract.extract_items`),
  with their rationale (an empty rationale stays empty: the gate asks for it).
- ``contracts_consumed`` — files the agent read that match
  ``handoff.contracts`` globs.

``continuation_context`` and ``suggested_first_action`` are left for the
author: they are the judgement a transcript cannot supply.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import orjson

from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.handoff.schema import HANDOFF_VERSION
from ctx_tui.memory.extract import extract_items
from ctx_tui.memory.items import ItemType
from ctx_tui.memory.session_store import load_session_memory
from ctx_tui.transcripts.model import Entry, Kind, SessionMeta
from ctx_tui.window_model import WindowState

if TYPE_CHECKING:
    from ctx_tui.window import Session

#: Claude Code tools that change a file in place; the key that holds its path.
_CLAUDE_EDIT_TOOLS = {"Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}
#: Codex shell tools (a legacy ``shell`` call may run ``apply_patch`` as its argv).
_SHELL_TOOLS = frozenset({"shell", "exec_command", "local_shell", "container.exec"})
#: Shell programs whose path arguments count as "the agent read this file".
_READ_PROGRAMS = frozenset({"cat", "sed", "head", "tail", "nl", "less", "more", "bat", "view", "jq", "yq"})
#: Options of those programs that take a value (``head -n 20``, ``sed -e s/a/b/``).
_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "sed": frozenset({"-e", "-f", "-l", "--expression", "--file"}),
    "nl": frozenset({"-b", "-d", "-f", "-h", "-i", "-n", "-s", "-v", "-w"}),
    "bat": frozenset({"-l", "-r", "-H", "--language", "--line-range"}),
}
#: Programs whose first positional argument is a script or filter, not a file.
_SCRIPT_FIRST = frozenset({"sed", "jq", "yq"})
_PATCH_LINE = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$", re.MULTILINE)


@dataclass
class Prefill:
    """A draft handoff (a plain dict for the gate and the editor) and notes on what could not be filled."""

    draft: dict[str, Any]
    notes: list[str] = field(default_factory=list)


# -- paths ---------------------------------------------------------------------------


def relative_to_root(path: str, root: Path, base: Path | None = None) -> str | None:
    """``path`` (absolute, or relative to ``base``, default ``root``) as a POSIX path relative to ``root``.

    None when it lies outside ``root``. Purely lexical (the files may not exist here).
    """
    raw = path.strip()
    if not raw:
        return None
    joined = os.path.normpath(os.path.join(str(base or root), raw))
    top = os.path.normpath(str(root))
    try:
        rel = os.path.relpath(joined, top)
    except ValueError:  # another drive on Windows
        return None
    if rel == "." or rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        return None
    return PurePosixPath(*Path(rel).parts).as_posix()


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A project-relative glob: ``*`` and ``?`` stay within a folder, ``**`` spans folders.

    A pattern without ``/`` matches the file name at any depth (as in .gitignore).
    """
    pattern = pattern.strip().removeprefix("./")
    if "/" not in pattern:
        pattern = "**/" + pattern
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + r"\Z")


def matching_contracts(paths: Iterable[str], patterns: Sequence[str]) -> list[str]:
    """The ``paths`` (project-relative) that match any contract glob, in first-seen order."""
    regexes = [_glob_regex(p) for p in patterns if p.strip()]
    out: list[str] = []
    for path in paths:
        if path not in out and any(r.match(path) for r in regexes):
            out.append(path)
    return out


# -- tool calls ----------------------------------------------------------------------


def _results(entries: Sequence[Entry]) -> dict[str, Entry]:
    return {e.tool_use_id: e for e in entries if e.kind == Kind.TOOL_RESULT and e.tool_use_id}


def _failed(result: Entry | None) -> bool:
    """Did the tool call fail? (Unknown — no result yet — counts as done.)"""
    if result is None:
        return False
    if result.is_error:
        return True
    text = result.text.lstrip()
    if text.startswith(("<tool_use_error>", "apply_patch verification failed")):
        return True
    if text.startswith("{"):
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            return False
        meta = data.get("metadata") if isinstance(data, dict) else None
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        return isinstance(code, int) and code != 0
    return False


def _patch_text(entry: Entry) -> str | None:
    """The patch of a Codex ``apply_patch`` call (custom tool, or argv of a legacy shell call)."""
    data = entry.tool_input or {}
    if entry.tool_name == "apply_patch":
        text = data.get("input", data.get("patch", data.get("raw")))
        return text if isinstance(text, str) else None
    if entry.tool_name in _SHELL_TOOLS:
        argv = data.get("command")
        if isinstance(argv, list) and len(argv) >= 2 and argv[0] == "apply_patch" and isinstance(argv[1], str):
            return argv[1]
        # `apply_patch <<'EOF' ... EOF` run through the shell is the same tool.
        script = _shell_command(data)
        if script and script.lstrip().startswith("apply_patch") and "*** Begin Patch" in script:
            return script
    return None


def _shell_command(data: dict[str, Any]) -> str | None:
    cmd = data.get("cmd", data.get("command"))
    if isinstance(cmd, list) and all(isinstance(c, str) for c in cmd):
        # ["bash", "-lc", "cat x"] runs its last argument as a script.
        return cmd[-1] if len(cmd) >= 3 and cmd[1] in ("-c", "-lc") else shlex.join(cmd)
    return cmd if isinstance(cmd, str) else None


def _shell_reads(command: str) -> list[str]:
    """Path arguments of simple read commands (``cat f``, ``sed -n '1,80p' f``) in a shell line."""
    found: list[str] = []
    for segment in re.split(r"&&|\|\||[;|\n]", command):
        try:
            argv = shlex.split(segment)
        except ValueError:
            continue
        if not argv or os.path.basename(argv[0]) not in _READ_PROGRAMS:
            continue
        program = os.path.basename(argv[0])
        positional: list[str] = []
        script_given = False
        args = iter(argv[1:])
        takes_value = _VALUE_OPTIONS.get(program, frozenset())
        for arg in args:
            if arg in takes_value:
                script_given |= arg in ("-e", "-f", "--expression", "--file")
                next(args, None)
            elif not arg.startswith("-"):
                positional.append(arg)
        if program in _SCRIPT_FIRST and not script_given:
            positional = positional[1:]  # sed's script, jq's filter
        found += [a for a in positional if not a.isdigit()]
    return found


@dataclass
class _FileLedger:
    """What the session did to each project file, in order."""

    created: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # read or written before

    def create(self, path: str) -> None:
        if path in self.modified:
            self.modified.remove(path)
        if path not in self.created:
            self.created.append(path)
        self.seen.add(path)

    def modify(self, path: str) -> None:
        if path not in self.created and path not in self.modified:
            self.modified.append(path)
        self.seen.add(path)

    def delete(self, path: str) -> None:
        for bucket in (self.created, self.modified):
            if path in bucket:
                bucket.remove(path)


def _claude_write(ledger: _FileLedger, path: str, result: Entry | None) -> None:
    """Claude ``Write``: the result says whether it created or overwrote the file.

    Without a result yet, a path the session never read or wrote counts as
    created (Claude Code refuses to overwrite a file it has not read).
    """
    text = result.text.lstrip() if result is not None else ""
    if text.startswith("File created"):
        ledger.create(path)
    elif "has been updated" in text or "has been overwritten" in text or path in ledger.seen:
        ledger.modify(path)
    else:
        ledger.create(path)


def _apply_patch(ledger: _FileLedger, patch: str, root: Path, base: Path) -> None:
    previous: str | None = None
    for action, raw in _PATCH_LINE.findall(patch):
        path = relative_to_root(raw, root, base)
        if action == "Move to":
            if previous is not None:
                was_created = previous in ledger.created
                ledger.delete(previous)
            else:
                was_created = False
            if path is not None:
                (ledger.create if was_created else ledger.modify)(path)
            previous = None
            continue
        previous = path
        if path is None:
            continue
        if action == "Add File":
            ledger.create(path)
        elif action == "Update File":
            ledger.modify(path)
        else:
            ledger.delete(path)


def _ledger(entries: Sequence[Entry], root: Path) -> tuple[_FileLedger, list[str]]:
    """What the agent changed (``modified``/``created``, project-relative, in first-change order) and read.

    A file created in the session and edited later is listed as created only;
    a deleted file is dropped from both lists; failed calls are ignored;
    shell commands are not edits (but ``cat``/``sed``/... count as reads).
    Sub-agent calls count (they change the same tree).
    """
    results = _results(entries)
    ledger = _FileLedger()
    reads: list[str] = []
    for entry in entries:
        if entry.kind != Kind.TOOL_CALL or not entry.tool_name:
            continue
        data = entry.tool_input or {}
        result = results.get(entry.tool_use_id) if entry.tool_use_id else None
        name = entry.tool_name
        if name == "Read":
            raw = data.get("file_path")
            rel = relative_to_root(raw, root) if isinstance(raw, str) else None
            if rel is not None and not _failed(result):
                ledger.seen.add(rel)
                reads.append(rel)
            continue
        if _failed(result):
            continue
        if name in _CLAUDE_EDIT_TOOLS or name == "Write":
            raw = data.get(_CLAUDE_EDIT_TOOLS.get(name, "file_path"))
            rel = relative_to_root(raw, root) if isinstance(raw, str) else None
            if rel is None:
                continue
            if name == "Write":
                _claude_write(ledger, rel, result)
            else:
                ledger.modify(rel)
            continue
        workdir = data.get("workdir")
        base = Path(workdir) if isinstance(workdir, str) and workdir else root
        patch = _patch_text(entry)
        if patch is not None:
            _apply_patch(ledger, patch, root, base)
        elif name in _SHELL_TOOLS:
            command = _shell_command(data)
            for raw in _shell_reads(command) if command else ():
                rel = relative_to_root(raw, root, base)
                if rel is not None:
                    reads.append(rel)
    return ledger, reads


def latest_plan(entries: Sequence[Entry]) -> tuple[list[str], list[str]] | None:
    """``(completed, remaining)`` of the last plan the agent wrote (TodoWrite / update_plan)."""
    for entry in reversed(entries):
        if entry.kind != Kind.TOOL_CALL or entry.is_sidechain:
            continue
        data = entry.tool_input or {}
        if entry.tool_name == "TodoWrite":
            steps, text_key = data.get("todos"), "content"
        elif entry.tool_name == "update_plan":
            steps, text_key = data.get("plan"), "step"
        else:
            continue
        if not isinstance(steps, list):
            continue
        done: list[str] = []
        todo: list[str] = []
        for step in steps:
            if isinstance(step, dict) and isinstance(step.get(text_key), str) and step[text_key].strip():
                (done if step.get("status") == "completed" else todo).append(step[text_key].strip())
        return done, todo
    return None


# -- the draft -------------------------------------------------------------------------


def now_stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="seconds")


def base_draft(config: Config, now: datetime | None = None) -> dict[str, Any]:
    """A draft with every field: role and time filled, the rest empty for the author."""
    return {
        "handoff_version": HANDOFF_VERSION,
        "agent_role": config.handoff.agent_role,
        "timestamp": now_stamp(now),
        "session_id": None,
        "context_usage_pct": None,
        "task_state": {
            "assigned_task": "",
            "completion_pct": None,
            "completed_subtasks": [],
            "remaining_subtasks": [],
            "blockers": [],
        },
        "decisions_made": [],
        "files_modified": [],
        "files_created": [],
        "contracts_consumed": [],
        "continuation_context": "",
        "suggested_first_action": "",
    }


def prefill_handoff(
    entries: Sequence[Entry],
    meta: SessionMeta,
    state: WindowState | None,
    project: Path,
    config: Config,
    *,
    session_id: str | None = None,
    now: datetime | None = None,
) -> Prefill:
    """A draft from a session's entries; ``project`` holds ``.ctx/`` (session memory)."""
    notes: list[str] = []
    draft = base_draft(config, now)
    sid = meta.session_id or session_id
    draft["session_id"] = sid
    if state is not None and state.context_window:
        draft["context_usage_pct"] = round(state.usage_pct, 1)
    root = Path(meta.cwd) if meta.cwd else project
    ledger, reads = _ledger(entries, root)

    task: dict[str, Any] = draft["task_state"]
    extracted = extract_items(entries)
    goal = next((e.item.content for e in extracted if e.item.type is ItemType.GOAL), None)
    decisions: list[dict[str, Any]] = []
    progress: list[str] = []
    if sid:
        try:
            memory = load_session_memory(project, sid)
        except CtxError as exc:
            notes.append(f"session memory not used: {exc}")
        else:
            goals = [g.text for g in memory.goals if g.text.strip()]
            goal = goals[0] if goals else goal
            decisions = [
                {"decision": d.decision, "rationale": d.rationale, "affects_files": list(d.affects_files)}
                for d in memory.decisions
            ]
            progress = [p.text for p in memory.progress if p.text.strip()]
    if goal:
        task["assigned_task"] = goal
    known = {" ".join(str(d["decision"]).lower().split()) for d in decisions}
    for found in extracted:
        key = " ".join(found.item.content.lower().split())
        if found.item.type is ItemType.DECISION and key not in known:
            known.add(key)
            decisions.append({"decision": found.item.content, "rationale": found.rationale,
                              "affects_files": list(found.affects_files)})
    plan = latest_plan(entries)
    done, todo = plan if plan is not None else ([], [])
    done += [p for p in progress if p not in done]
    # From the plan's share; without a plan (progress notes alone say nothing of what remains)
    # the author states it (the key is there, empty, for the editor).
    task["completion_pct"] = (round(100 * len(done) / (len(done) + len(todo)))
                              if (plan is not None or todo) and (done or todo) else None)
    task.update({"completed_subtasks": done, "remaining_subtasks": todo})
    draft["decisions_made"] = decisions
    draft["files_modified"] = ledger.modified
    draft["files_created"] = ledger.created
    draft["contracts_consumed"] = matching_contracts(reads, config.handoff.contracts)
    if root.resolve() != project.resolve():
        notes.append(f"paths are relative to the session's directory {root}")
    return Prefill(draft=draft, notes=notes)


def prefill_from_session(session: Session, project: Path, config: Config, now: datetime | None = None) -> Prefill:
    """:func:`prefill_handoff` for a polled :class:`~ctx_tui.window.Session`."""
    return prefill_handoff(
        session.entries, session.meta, session.state(), project, config,
        session_id=session.path.stem, now=now,
    )
