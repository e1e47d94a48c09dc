"""The session picker (``s``): every Claude Code, Codex, Gemini CLI and pi session on the machine, newest first.

Typing filters the list (every word must appear in the agent, project, model,
session id or file name); the arrows move; Enter opens the highlighted session
in the dashboard (the app switches the followed session without restarting);
Escape goes back. The list is read in a thread worker
(:class:`ctx_tui.catalog.Catalog`: a Claude Code or Codex file's tail only) and refreshed every
``REFRESH_S`` seconds, reading only files that changed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from ctx_tui.catalog import Catalog, SessionInfo, ago, human_size
from ctx_tui.ui.safe import literal
from ctx_tui.ui.tcss import PICKER, tcss_path

REFRESH_S = 2.0
COLUMNS = ("", "active", "agent", "project", "model", "usage", "size")


def usage_cell(info: SessionInfo) -> Text:
    if info.error is not None:
        return Text("unreadable", style="red")
    if info.usage_pct is None:
        return Text("–", style="dim")
    style = "bold red" if info.usage_pct >= 80 else ("yellow" if info.usage_pct >= 60 else "")
    return Text(f"{'~' if info.estimated else ''}{info.usage_pct:.1f}%", style=style)


def matches(info: SessionInfo, words: list[str]) -> bool:
    """Whether every word of the filter appears in the session's agent, project, model, id or file name."""
    hay = " ".join(str(x) for x in (info.agent, info.project, info.model, info.session_id, info.path.name) if x).lower()
    return all(word in hay for word in words)


class SessionsListed(Message):
    """The worker read the list of sessions."""

    def __init__(self, sessions: list[SessionInfo]) -> None:
        super().__init__()
        self.sessions = sessions


class SessionsScreen(Screen["SessionInfo | None"]):
    """Dismisses with the chosen session, or None."""

    CSS_PATH = tcss_path(PICKER)  # read when first shown (ctx_tui.ui.tcss)

    BINDINGS: ClassVar = [
        Binding("escape", "back", "Back", id="ctx.sessions.back"),
        Binding("down", "move(1)", "Down", show=False, id="ctx.sessions.down"),
        Binding("up", "move(-1)", "Up", show=False, id="ctx.sessions.up"),
        Binding("pagedown", "move(10)", "Page down", show=False, id="ctx.sessions.pagedown"),
        Binding("pageup", "move(-10)", "Page up", show=False, id="ctx.sessions.pageup"),
    ]

    def __init__(self, current: Path | None = None, sizes: Mapping[str, int] | None = None) -> None:
        super().__init__()
        self.current = current.absolute() if current else None  # the followed session, marked ▸
        self.catalog = Catalog(sizes)
        self.sessions: list[SessionInfo] = []
        self.shown: list[SessionInfo] = []
        self._shown_key: object = None  # what the table shows, to rebuild it only when that changes
        self.title_bar = Static(id="sessions-title")
        self.filter = Input(placeholder="type to filter (project, model, agent, id); ↑↓ move, Enter opens, Esc back",
                            id="sessions-filter")
        self.table: DataTable[Text] = DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)

    def compose(self) -> ComposeResult:
        yield self.title_bar
        yield self.filter
        yield self.table
        yield Footer()

    def on_mount(self) -> None:
        self.table.add_columns(*COLUMNS)
        self.title_bar.update(Text("Sessions on this machine: reading…", style="bold"))
        self.filter.focus()
        self.read_sessions()
        self.set_interval(REFRESH_S, self.read_sessions)

    # -- reading (thread worker: posts a message, never touches widgets) ----------------------
    @work(thread=True, exclusive=True, group="sessions", name="list sessions")
    def read_sessions(self) -> None:
        self.post_message(SessionsListed(self.catalog.list()))

    def on_sessions_listed(self, message: SessionsListed) -> None:
        self.sessions = message.sessions
        self._show()

    # -- showing --------------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        self._show()

    def _show(self) -> None:
        words = self.filter.value.lower().split()
        now = time.time()
        shown = [s for s in self.sessions if matches(s, words)]
        key = (tuple((s.path, s.modified, s.size, s.usage_pct, s.live(now)) for s in shown), int(now // 30))
        if key == self._shown_key:
            return
        self._shown_key = key
        selected = self.selected()
        self.shown = shown
        table = self.table
        table.clear()
        for info in self.shown:
            current = self.current is not None and info.path.absolute() == self.current
            table.add_row(
                Text("●", style="bold green") if info.live(now) else Text(""),
                Text(ago(info.modified, now)),
                Text(info.agent + (" ▸" if current else ""), style="bold" if current else ""),
                literal(info.project or "?", one_line=True, limit=60),
                literal(info.model or "?", one_line=True, limit=32),
                usage_cell(info),
                Text(human_size(info.size)),
                key=str(info.path),
            )
        target = selected.path if selected else self.current
        index = next((i for i, s in enumerate(self.shown) if s.path.absolute() == target), 0) if target else 0
        if self.shown:
            table.move_cursor(row=index, animate=False)
        live = sum(1 for s in self.sessions if s.live(now))
        self.title_bar.update(Text.assemble(
            ("Sessions on this machine", "bold"),
            f": {len(self.shown)} of {len(self.sessions)} shown · {live} live (written in the last minute)",
        ))

    def selected(self) -> SessionInfo | None:
        row = self.table.cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    # -- keys -----------------------------------------------------------------------------
    def action_move(self, step: int) -> None:
        if self.shown:
            row = max(0, min(len(self.shown) - 1, self.table.cursor_row + step))
            self.table.move_cursor(row=row)

    def action_back(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._open()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self._open()

    def _open(self) -> None:
        chosen = self.selected()
        if chosen is not None and chosen.error is None:
            self.dismiss(chosen)
        elif chosen is not None:
            self.notify(f"cannot open {chosen.path.name}: {chosen.error}", severity="error", markup=False)
