"""What the agent's tool calls did: the one home of Claude Code and Codex tool-call knowledge.

* :func:`file_activity` — the project files the agent created, modified and
  read (Claude ``Write``/``Edit``/``MultiEdit``/``NotebookEdit``/``Read``,
  Codex ``apply_patch`` and shell reads such as ``cat``/``sed -n``), failed
  calls ignored; used by the handoff prefill.
* :func:`latest_plan` — the last plan the agent kept (Claude ``TodoWrite``,
  Codex ``update_plan``).
* :func:`tool_command` / :func:`tool_path` — the shell command or the file a
  call names (Claude ``Bash``, Codex ``shell``/``exec_command``); used by the
  rendering of the live window (:mod:`ctx_tui.transcripts.render`) and retrieval.

Readers (``claude.py``, ``codex.py``) turn rows into ``Entry`` objects; this
module reads those entries, never raw rows.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ctx_tui.transcripts.model import Entry, Kind

_COMMAND_KEYS = ("command", "cmd")
#: The keys of a tool call's input that name the file it reads or writes.
PATH_KEYS = ("file_path", "path", "notebook_path")
#: The tools that keep the agent's plan: the input key of the step list, the key of a step's text.
PLAN_TOOLS = {"TodoWrite": ("todos", "content"), "update_plan": ("plan", "step")}
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



# -- paths ----------------------------------------------------------------------------


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



# -- shell commands and paths of a call ---------------------------------------------------


def tool_command(tool_input: dict[str, Any] | None) -> str | None:
    """The shell command of a tool call, when it is one (Claude ``Bash``, Codex ``shell``/``exec_command``)."""
    if not tool_input:
        return None
    for key in _COMMAND_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            if len(value) >= 3 and value[0] in ("bash", "sh", "zsh") and value[1] in ("-c", "-lc"):
                return str(value[2]).strip()
            return " ".join(value)
    return None


def tool_path(tool_input: dict[str, Any] | None) -> str | None:
    """The file a tool call reads or writes, when it names one."""
    if not tool_input:
        return None
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None



# -- files ----------------------------------------------------------------------------


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
        import orjson  # here: rendering and compression import this module and never need it

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


@dataclass(frozen=True, slots=True)
class FileActivity:
    """What the agent did to the project's files, project-relative, in first-seen order."""

    created: list[str]
    modified: list[str]
    read: list[str]


def file_activity(entries: Sequence[Entry], root: Path) -> FileActivity:
    """What the agent changed (``modified``/``created``, in first-change order) and read, relative to ``root``.

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
    return FileActivity(created=ledger.created, modified=ledger.modified, read=reads)


def latest_plan(entries: Sequence[Entry]) -> tuple[list[str], list[str]] | None:
    """``(completed, remaining)`` of the last plan the agent wrote (TodoWrite / update_plan)."""
    for entry in reversed(entries):
        if entry.kind != Kind.TOOL_CALL or entry.is_sidechain:
            continue
        keys = PLAN_TOOLS.get(entry.tool_name or "")
        if keys is None:
            continue
        list_key, text_key = keys
        steps = (entry.tool_input or {}).get(list_key)
        if not isinstance(steps, list):
            continue
        done: list[str] = []
        todo: list[str] = []
        for step in steps:
            if isinstance(step, dict) and isinstance(step.get(text_key), str) and step[text_key].strip():
                (done if step.get("status") == "completed" else todo).append(step[text_key].strip())
        return done, todo
    return None
