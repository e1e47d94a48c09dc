"""The append-only audit log ``.ctx/audit.jsonl``: one JSON object per event.

Action names are ``area.verb`` (``memory.registered``, ``restate.queued``,
``compress.saved``, ``promotion.approved``, ``handoff.written``,
``hook.pre_compact``...); docs/audit.md lists every one with its meaning.
Each line is written with a single ``write`` under the file lock, so several
processes appending at once never lose or interleave a line.
"""

from __future__ import annotations

import os

from ctx_tui import json_light
from ctx_tui.kinds_plain import now_iso_ms
from ctx_tui.paths import STATE_DIR, state_dir
from ctx_tui.storage import append_line, open_regular

TYPE_CHECKING = False  # typing is not imported at run time: the hooks record events (nor pathlib)

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import Any

AUDIT_FILE = "audit.jsonl"


def audit_path(project: Path) -> Path:
    return state_dir(project) / AUDIT_FILE


def record(project: Path | str, action: str, session: str | None = None, **details: Any) -> dict[str, Any]:
    """Append one event and return it.

    The line is the standard json module's text (json_light): an event is
    small, and the prompt hook records one each time it delivers a
    restatement, where importing orjson (and the dataclasses and inspect it
    loads), or json itself (re, enum), would cost more than the interpreter's
    own start-up. ``project`` may be a string (the hooks' folder).
    """
    event = {
        "time": now_iso_ms(),
        "session": session,
        "action": action,
        "details": details,
    }
    append_line(os.path.join(project, STATE_DIR, AUDIT_FILE), json_light.dumps(event, ensure_ascii=False, default=str))
    return event


def read_events(project: Path) -> Iterator[dict[str, Any]]:
    """Every well-formed event in order; a damaged line is skipped."""
    import orjson

    path = audit_path(project)
    try:
        fh = open_regular(path)
    except FileNotFoundError:
        return
    with fh:
        for line in fh:
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(event, dict):
                yield event
