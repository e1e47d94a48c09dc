"""The header line: which session, which file, and whether it is live."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual.widget import Widget

from ctx_tui.transcripts.model import SessionMeta
from ctx_tui.ui.safe import literal


def display_path(path: Path, project: Path) -> str:
    """``path`` relative to the project or the home folder when it is under one of them."""
    for base, prefix in ((project, ""), (Path.home(), "~/")):
        try:
            return prefix + str(path.resolve().relative_to(base.resolve()))
        except (ValueError, OSError):
            continue
    return str(path)


class SessionBar(Widget):
    DEFAULT_CSS = "SessionBar { height: 2; text-wrap: nowrap; text-overflow: ellipsis; }"

    def __init__(self, path: Path, project: Path, **kwargs) -> None:
        super().__init__(**kwargs)
        self._path = path
        self._project = project
        self._meta: SessionMeta | None = None
        self._changed_at: datetime | None = None
        self._problem: str | None = None
        self._following = True

    def show(self, meta: SessionMeta, changed_at: datetime, following: bool) -> None:
        self._meta, self._changed_at, self._following = meta, changed_at, following
        self._problem = None
        self.refresh()

    def show_problem(self, text: str) -> None:
        self._problem = text
        self.refresh()

    def render(self) -> Text:
        meta = self._meta
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        line.append(" ctx-tui ", style="bold reverse")
        line.append(" ")
        if meta is None:
            line.append("reading…", style="italic")
        else:
            sid = (meta.session_id or "no id")[:8]
            parts = [str(meta.format), sid, meta.model or "model unknown", meta.cwd or str(self._project)]
            line.append_text(literal(" · ".join(parts), one_line=True))
        status = Text(no_wrap=True, overflow="ellipsis", end="")
        if self._problem:
            status.append("✖ ", style="bold red")
            status.append_text(literal(self._problem, "red", one_line=True))
        elif self._changed_at is not None:
            dot, label = ("●", "live") if self._following else ("◌", "snapshot")
            status.append(f"{dot} {label}", style="bold green" if self._following else "bold")
            status.append(f" · last change {self._changed_at:%H:%M:%S}", style="dim")
        status.append("  ")
        status.append_text(literal(display_path(self._path, self._project), "dim", one_line=True))
        return Text("\n", no_wrap=True, overflow="ellipsis", end="").join([line, status])
