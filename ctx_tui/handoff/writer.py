"""Append-only handoff writing: every handoff is a new file, never a changed one.

``<handoff_dir>/{role-or-session}-{YYYYmmddTHHMMSSZ}.yaml``; a name already
taken (another handoff in the same second, from this or another process) gets
``-2``, ``-3``, ... (``storage.create_exclusive``: written complete, then
linked to a free name, so creating is exclusive and a reader never sees half a
handoff; ``storage.write_atomic`` replaces its target, which is exactly what a
handoff must never do).

A handoff that fails the gate is refused (:class:`HandoffRefused`) unless
``force`` is given; a forced handoff carries its findings as a comment at the
top of the file. Every written handoff, and every refusal, is recorded in the audit log.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ctx_tui import audit
from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.handoff.gate import Finding, check_handoff, passes
from ctx_tui.handoff.schema import Handoff, dump_handoff
from ctx_tui.paths import safe_name, shown_path
from ctx_tui.storage import create_exclusive


class HandoffRefused(CtxError):
    """The gate failed and ``force`` was not given. ``findings`` says why, field by field."""

    exit_code = 1

    def __init__(self, findings: list[Finding]) -> None:
        errors = [f for f in findings if f.is_error]
        super().__init__(f"the handoff fails the quality gate ({len(errors)} error(s)); nothing was written")
        self.findings = findings


@dataclass(frozen=True)
class WrittenHandoff:
    path: Path
    findings: list[Finding]
    forced: bool  # written although the gate failed


def handoff_dir(project: Path, config: Config) -> Path:
    """The handoff folder (``paths.handoff_dir``; ``~`` expanded, relative to the project unless absolute)."""
    return config.paths.handoff_path(project)


def file_stem(data: Mapping[str, Any], now: datetime) -> str:
    """``{role-or-session}-{UTC timestamp}``: a safe name whatever the role says."""
    who = data.get("agent_role")
    if not isinstance(who, str) or not who.strip():
        who = data.get("session_id")
    who = who if isinstance(who, str) else ""
    stamp = now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{safe_name(who, fallback='handoff')}-{stamp}"


def _forced_comment(findings: list[Finding]) -> str:
    lines = ["ctx-tui: written with --force although the quality gate failed:"]
    for f in findings:
        if f.is_error:
            lines.append(f"- {f.field}: {f.message}")
    # A comment is one line per finding; a newline inside a message must not end the comment.
    return "\n".join(" ".join(line.split()) for line in lines)


def record_refusal(project: Path, data: Mapping[str, Any], findings: list[Finding]) -> None:
    """Log ``handoff.refused``: a save the quality gate stopped (the CLI and the dashboard's form)."""
    session = data.get("session_id") if isinstance(data.get("session_id"), str) else None
    errors = [{"field": f.field, "rule": f.rule} for f in findings if f.is_error]
    audit.record(project, "handoff.refused", session=session, errors=len(errors), findings=errors)


def write_handoff(
    project: Path,
    handoff: Handoff | Mapping[str, Any],
    config: Config,
    *,
    force: bool = False,
    now: datetime | None = None,
) -> WrittenHandoff:
    """Gate ``handoff`` and write it as a new file; :class:`HandoffRefused` when it fails and not ``force``."""
    data: Mapping[str, Any] = handoff.model_dump() if isinstance(handoff, Handoff) else handoff
    findings = check_handoff(data, project)
    ok = passes(findings)
    if not ok and not force:
        record_refusal(project, data, findings)
        raise HandoffRefused(findings)
    folder = handoff_dir(project, config)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CtxError(f"{folder}: cannot create the handoff folder ({exc.strerror or exc})") from None
    text = dump_handoff(data, comment=None if ok else _forced_comment(findings))
    stem = file_stem(data, now or datetime.now(timezone.utc))
    try:
        path = create_exclusive(folder / f"{stem}.yaml", text)
    except OSError as exc:
        raise CtxError(f"{folder}: cannot write the handoff ({exc.strerror or exc})") from None
    session = data.get("session_id") if isinstance(data.get("session_id"), str) else None
    details: dict[str, Any] = {
        "path": str(shown_path(path, project)),
        "role": data.get("agent_role") if isinstance(data.get("agent_role"), str) else None,
        "forced": not ok,
        "errors": sum(f.is_error for f in findings),
        "warnings": sum(not f.is_error for f in findings),
    }
    if not ok:
        details["findings"] = [{"field": f.field, "rule": f.rule, "message": f.message} for f in findings if f.is_error]
    audit.record(project, "handoff.forced" if not ok else "handoff.written", session=session, **details)
    return WrittenHandoff(path=path, findings=findings, forced=not ok)
