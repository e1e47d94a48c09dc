"""``ctx-tui handoff new|check|latest|list``: write, check and resume from handoffs.

Exit codes: ``check`` 0 pass / 1 fail / 2 unreadable; ``new`` 0 written / 1
refused by the gate (the draft is kept under ``.ctx/handoff-drafts/``) / 2
error; ``latest`` and ``list`` 0, or 2 when there is nothing to show.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ctx_tui.cli.common import (
    add_session_args,
    load_project_config,
    open_session,
    print_json,
    project_root,
    read_input,
)
from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.handoff.gate import Finding, check_handoff, passes
from ctx_tui.handoff.draft import draft_from_session, merge
from ctx_tui.handoff.prefill import base_draft
from ctx_tui.handoff.resume import list_handoffs, resume_prompt
from ctx_tui.handoff.schema import HandoffReadError, dump_handoff, parse_handoff, read_handoff
from ctx_tui.handoff.writer import HandoffRefused, WrittenHandoff, handoff_dir, write_handoff
from ctx_tui.paths import shown_path, state_dir
from ctx_tui.plain_text import clean_block, one_line
from ctx_tui.storage import write_atomic

DRAFTS_DIR = "handoff-drafts"
_EDIT_HEADER = """\
Handoff draft: fill it in, save and close the editor; ctx-tui then checks it.
continuation_context: <= 500 words naming files, identifiers, commands, errors.
suggested_first_action: ONE imperative step naming its object (Run `pytest ...`).
completion_pct: 0-100, consistent with completed vs remaining subtasks.
Delete everything to abort. Rules: docs/handoff.md."""


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("handoff", help="write, check and resume from handoffs for the next session",
                            description="Handoffs are YAML files in .claude/handoffs/ (paths.handoff_dir) "
                            "that pass a quality gate; see docs/handoff.md.")
    hsub = parser.add_subparsers(dest="handoff_command", metavar="SUBCOMMAND", required=True)

    new = hsub.add_parser("new", help="pre-fill, check and write a new handoff",
                          description="Build a draft (from the session with --from-session, from a draft file "
                          "with --from, and from the options), check it and write it. Options replace the "
                          "draft's value of their field.")
    add_session_args(new, path_help="transcript to pre-fill from (implies --from-session)")
    new.add_argument("--from-session", action="store_true",
                     help="pre-fill from the session: id, usage, edited files, plan, decisions")
    new.add_argument("--from", dest="from_file", type=Path, metavar="FILE", help="start from a draft YAML file")
    new.add_argument("--edit", action="store_true", help="open $VISUAL / $EDITOR on the draft before checking it")
    new.add_argument("--force", action="store_true",
                     help="write even if the gate fails (the findings go into the file and the audit log)")
    new.add_argument("--dry-run", action="store_true", help="print the draft and its findings; write nothing")
    new.add_argument("--json", action="store_true", help="print the result as JSON")
    new.add_argument("--role", help="agent_role (default: handoff.agent_role of the config)")
    new.add_argument("--task", help="task_state.assigned_task")
    new.add_argument("--completion", type=float, metavar="PCT", help="task_state.completion_pct (0-100)")
    new.add_argument("--done", action="append", metavar="TEXT", help="a completed subtask (repeatable)")
    new.add_argument("--todo", action="append", metavar="TEXT", help="a remaining subtask (repeatable)")
    new.add_argument("--blocker", action="append", metavar="TEXT", help="a blocker (repeatable)")
    context = new.add_mutually_exclusive_group()
    context.add_argument("--context", help="continuation_context")
    context.add_argument("--context-file", type=Path, metavar="FILE", help="read continuation_context from FILE (- for stdin)")
    new.add_argument("--first-action", help="suggested_first_action")
    new.set_defaults(func=run_new)

    check = hsub.add_parser("check", help="apply the quality gate to a handoff file",
                            description="Print the gate's findings. Exit 0 pass, 1 fail, 2 unreadable.")
    check.add_argument("file", type=Path, metavar="FILE")
    check.add_argument("--json", action="store_true", help="print the findings as JSON")
    check.set_defaults(func=run_check)

    latest = hsub.add_parser("latest", help="print the newest handoff (or a resume prompt)")
    latest.add_argument("--prompt", action="store_true", help="print it as a prompt to start the next session with")
    latest.add_argument("--json", action="store_true", help="print path, gate status and fields as JSON")
    latest.set_defaults(func=run_latest)

    listing = hsub.add_parser("list", help="list the handoffs, newest first, with their gate status")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=run_list)


# -- output ----------------------------------------------------------------------------


def _finding_json(f: Finding) -> dict[str, str]:
    return {"field": f.field, "severity": f.severity, "message": f.message, "hint": f.hint, "rule": f.rule}


def print_findings(findings: list[Finding], stream: Any = None) -> None:
    out = stream or sys.stdout
    for f in sorted(findings, key=lambda f: (not f.is_error, f.field)):
        mark = "✗ error  " if f.is_error else "! warning"
        out.write(f"{mark} {one_line(f.field)}: {one_line(f.message)}\n")
        out.write(f"          → {one_line(f.hint)}\n")


def _summary(findings: list[Finding]) -> str:
    errors = sum(f.is_error for f in findings)
    warnings = len(findings) - errors
    verdict = "PASS" if not errors else "FAIL"
    return f"{verdict}: {errors} error(s), {warnings} warning(s)"


# -- check / latest / list -------------------------------------------------------------------


def run_check(args: argparse.Namespace) -> int:
    data = read_handoff(args.file)
    findings = check_handoff(data, project_root())
    if args.json:
        print_json({"file": str(args.file), "passed": passes(findings), "findings": [_finding_json(f) for f in findings]})
    else:
        print_findings(findings)
        print(f"{one_line(str(args.file))}: {_summary(findings)}")
    return 0 if passes(findings) else 1


def run_latest(args: argparse.Namespace) -> int:
    project = project_root()
    config = load_project_config()
    handoffs = list_handoffs(project, config)
    latest = next((h for h in handoffs if h.data is not None), None)
    for skipped in handoffs:
        if skipped is latest:
            break
        print(f"note: skipped {one_line(skipped.error or str(skipped.path))}", file=sys.stderr)
    if latest is None:
        raise CtxError(f"no readable handoff in {handoff_dir(project, config)}")
    if args.json:
        print_json({"path": str(latest.path), "status": latest.status, "handoff": latest.data,
                    "findings": [_finding_json(f) for f in latest.findings]})
    elif args.prompt:
        sys.stdout.write(clean_block(resume_prompt(latest, project)))
    else:
        text = read_input(latest.path)
        print(f"# {one_line(str(latest.path))} ({latest.status})")
        sys.stdout.write(clean_block(text))
    return 0


def run_list(args: argparse.Namespace) -> int:
    project = project_root()
    config = load_project_config()
    handoffs = list_handoffs(project, config)
    if args.json:
        print_json([
            {"path": str(h.path), "status": h.status, "timestamp": h.written_at, "error": h.error,
             "agent_role": (h.data or {}).get("agent_role"), "session_id": (h.data or {}).get("session_id"),
             "errors": sum(f.is_error for f in h.findings), "warnings": sum(not f.is_error for f in h.findings)}
            for h in handoffs
        ])
        return 0
    if not handoffs:
        print(f"no handoffs in {one_line(str(handoff_dir(project, config)))}")
        return 0
    for h in handoffs:
        data = h.data or {}
        task = data.get("task_state")
        if not isinstance(task, Mapping):
            task = {}
        pct = task.get("completion_pct")
        pct_text = f"{pct:g}%" if isinstance(pct, (int, float)) and not isinstance(pct, bool) else "-"
        when = h.written_at.strftime("%Y-%m-%d %H:%M:%S") if h.written_at else "-"
        role = data.get("agent_role")
        if not isinstance(role, str):
            role = "-"
        print(f"{h.status:<10} {when}  {one_line(role, 20):<20} {pct_text:>5}  {one_line(h.path.name)}")
        if h.error:
            print(f"           {one_line(h.error)}")
    return 0


# -- new ---------------------------------------------------------------------------------------


def _option_fields(args: argparse.Namespace) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    task: dict[str, Any] = {}
    if args.role is not None:
        fields["agent_role"] = args.role
    for key, value in (("assigned_task", args.task), ("completion_pct", args.completion),
                       ("completed_subtasks", args.done), ("remaining_subtasks", args.todo),
                       ("blockers", args.blocker)):
        if value is not None:
            task[key] = value
    if task:
        fields["task_state"] = task
    if args.context is not None:
        fields["continuation_context"] = args.context
    elif args.context_file is not None:
        fields["continuation_context"] = read_input(args.context_file)
    if args.first_action is not None:
        fields["suggested_first_action"] = args.first_action
    return fields


def build_draft(args: argparse.Namespace, project: Path, config: Config) -> dict[str, Any]:
    """The draft from the session (when asked; continued from its last handoff), then the draft file, then the options."""
    draft = base_draft(config)
    if args.from_session or args.path is not None or args.agent is not None:
        start = draft_from_session(open_session(args, config), project, config)
        for note in start.notes:
            print(f"note: {one_line(note)}", file=sys.stderr)
        draft = start.draft
    if args.from_file is not None:
        draft = merge(draft, read_handoff(args.from_file))
    return merge(draft, _option_fields(args))


def _save_draft(project: Path, draft: Mapping[str, Any], findings: list[Finding] | None = None) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = state_dir(project) / DRAFTS_DIR / f"draft-{stamp}-{os.getpid()}.yaml"
    write_atomic(path, _draft_text(draft, findings))
    return path


def _draft_text(draft: Mapping[str, Any], findings: list[Finding] | None) -> str:
    comment = _EDIT_HEADER
    if findings:
        comment += "\n\nThe gate refused the last version:\n" + "\n".join(
            f"- {f.field}: {f.message} ({f.hint})" for f in findings if f.is_error
        )
    return dump_handoff(draft, comment=comment)


def _report(written: WrittenHandoff, project: Path, as_json: bool) -> int:
    shown = shown_path(written.path, project)
    if as_json:
        print_json({"path": str(written.path), "passed": not written.forced, "forced": written.forced,
                    "findings": [_finding_json(f) for f in written.findings]})
        return 0
    print_findings(written.findings)
    verdict = "written despite failing the gate (--force)" if written.forced else "written"
    print(f"{one_line(str(shown))}: {verdict}; resume with `ctx-tui handoff latest --prompt`")
    return 0


def _refused(exc: HandoffRefused, project: Path, draft: Mapping[str, Any], as_json: bool) -> int:
    kept = _save_draft(project, draft, exc.findings)
    if as_json:
        print_json({"path": None, "passed": False, "draft": str(kept),
                    "findings": [_finding_json(f) for f in exc.findings]})
    else:
        print_findings(exc.findings)
        print(f"refused: {_summary(exc.findings)}; nothing was written.")
        print(f"draft kept at {one_line(str(kept))}: fix it, then `ctx-tui handoff new --from {shlex.quote(str(kept))}`")
    return 1


def _editor() -> list[str]:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CtxError("--edit needs an interactive terminal; without one, write a draft YAML and pass it with "
                       "--from FILE (check it first with `ctx-tui handoff check FILE`)")
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise CtxError("--edit needs $VISUAL or $EDITOR (e.g. export EDITOR=nano); or write a draft YAML "
                       "and pass it with --from FILE")
    try:
        return shlex.split(editor)
    except ValueError:
        raise CtxError(f"cannot parse $VISUAL/$EDITOR: {editor!r}") from None


def _edit_loop(args: argparse.Namespace, project: Path, config: Config, draft: dict[str, Any]) -> int:
    """Open the editor until the draft passes (or the user stops); the draft file survives a refusal."""
    command = _editor()
    path = _save_draft(project, draft)
    while True:
        try:
            status = subprocess.run([*command, str(path)]).returncode
        except OSError as exc:
            raise CtxError(f"cannot start the editor {command[0]!r}: {exc.strerror or exc}; draft kept at {path}") from None
        if status != 0:
            raise CtxError(f"the editor exited with status {status}; draft kept at {path}")
        text = read_input(path)  # the editor may have removed it or saved other bytes than UTF-8
        if not text.strip() or all(line.lstrip().startswith("#") or not line.strip() for line in text.splitlines()):
            path.unlink(missing_ok=True)
            print("empty draft: aborted, nothing written")
            return 1
        try:
            draft = parse_handoff(text, str(path))
        except HandoffReadError as exc:
            print(clean_block(str(exc)), file=sys.stderr)
            if _again():
                continue
            print(f"draft kept at {one_line(str(path))}")
            return 1
        try:
            written = write_handoff(project, draft, config, force=args.force)
        except HandoffRefused as exc:
            findings = exc.findings
            print_findings(findings)
            print(f"refused: {_summary(findings)}")
            write_atomic(path, _draft_text(draft, findings))
            if _again():
                continue
            print(f"draft kept at {one_line(str(path))}: `ctx-tui handoff new --from {shlex.quote(str(path))} --edit`")
            return 1
        path.unlink(missing_ok=True)
        return _report(written, project, args.json)


def _again() -> bool:
    try:
        answer = input("Edit again? [Y/n] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("", "y", "yes")


def run_new(args: argparse.Namespace) -> int:
    project = project_root()
    config = load_project_config()
    draft = build_draft(args, project, config)
    if args.dry_run:
        findings = check_handoff(draft, project)
        sys.stdout.write(clean_block(dump_handoff(draft)))
        print_findings(findings, sys.stderr)
        print(_summary(findings), file=sys.stderr)
        return 0 if passes(findings) else 1
    if args.edit:
        return _edit_loop(args, project, config, draft)
    try:
        written = write_handoff(project, draft, config, force=args.force)
    except HandoffRefused as exc:
        return _refused(exc, project, draft, args.json)
    return _report(written, project, args.json)
