"""Path rules: listed files are relative, inside the project, listed once (and exist, when asked)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ctx_tui.handoff.gate.draft_view import DraftView

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_WINDOWS_ABS = re.compile(r"^[A-Za-z]:[\\/]")


def check_paths(view: DraftView) -> None:
    data = view.data
    lists: list[tuple[str, Any]] = [(name, data.get(name)) for name in
                                    ("files_modified", "files_created", "contracts_consumed")]
    decisions = data.get("decisions_made")
    if isinstance(decisions, list):
        lists += [(f"decisions_made[{i}].affects_files", d.get("affects_files"))
                  for i, d in enumerate(decisions) if isinstance(d, Mapping)]
    for field, value in lists:
        if field in view.bad or not isinstance(value, list):
            continue
        seen: set[str] = set()
        for index, path in enumerate(value):
            if isinstance(path, str):
                _path(view, f"{field}[{index}]", path, seen)
    modified = data.get("files_modified")
    created = data.get("files_created")
    if isinstance(modified, list) and isinstance(created, list):
        both = sorted({p for p in modified if isinstance(p, str)} & {p for p in created if isinstance(p, str)})
        if both:
            view.add("files_created", "warning", f"also listed in files_modified: {', '.join(both[:3])}",
                     "a file created in this session belongs in files_created only", "path.both_lists")


def _path(view: DraftView, field: str, path: str, seen: set[str]) -> None:
    if not path.strip():
        view.add(field, "error", "empty path", "remove the entry or write the path", "path.empty")
        return
    if _CONTROL.search(path):
        view.add(field, "error", "path contains control characters", "write the plain relative path", "path.control")
        return
    if path.startswith(("/", "\\", "~")) or _WINDOWS_ABS.match(path):
        view.add(field, "error", f"absolute path {path!r}",
                 "write it relative to the project root, e.g. src/app.py", "path.absolute")
        return
    if ".." in re.split(r"[\\/]", path):
        view.add(field, "error", f"path leaves the project: {path!r}",
                 "list only files inside the project, relative to its root", "path.parent")
        return
    if path in seen:
        view.add(field, "warning", f"listed twice: {path!r}", "remove the duplicate", "path.duplicate")
    seen.add(path)
    if view.project is not None and not (view.project / path).exists():
        view.add(field, "warning", f"does not exist in the project: {path!r}",
                 "check the spelling, or say in continuation_context that it was deleted", "path.missing")
