"""Search (``/``): a query over every memory tier (``ctx_tui.retrieve``), results with tier, source and score.

The query runs as you type (after a pause of ``DEBOUNCE_S``; Enter runs it at
once and moves to the results), off the UI thread, the newest query winning: ``retrieve.search``
reads the tiers (the session's transcript is read once, on the first query)
and counts the search in the audit log. Enter on a result copies the enhance
block of the results (``retrieve.enhance_block``, at the position of
``retrieval.enhance_position``) to the clipboard.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, DataTable, Input, Static

from ctx_tui.config import Config
from ctx_tui.retrieve import Hit, enhance_block, search
from ctx_tui.ui.offthread import off_thread
from ctx_tui.ui.safe import literal
from ctx_tui.ui.tcss import FLOWS, tcss_path
from ctx_tui.window import Session


#: Pause after the last keystroke before the query runs.
DEBOUNCE_S = 0.3


class SearchScreen(ModalScreen[None]):
    CSS_PATH = tcss_path(FLOWS)  # read when first shown (ctx_tui.ui.tcss)
    BINDINGS = [
        Binding("escape", "close", "Close", id="ctx.search.close"),
        Binding("ctrl+y", "copy_block", "Copy enhance block", id="ctx.search.copy"),
    ]

    def __init__(self, transcript: Path | None, project: Path, config: Config) -> None:
        super().__init__(classes="flow-modal")
        self._transcript = transcript
        self._project = project
        self._config = config
        self._session: Session | None = None  # read on the first query, in the worker
        self.hits: list[Hit] = []
        self._timer: Timer | None = None
        self._focus_results = False  # Enter was pressed: the results take the focus when they arrive

    def compose(self) -> ComposeResult:
        with Vertical(id="search-box", classes="flow-box"):
            yield Input(placeholder="type what to look for (e.g. export csv header): results as you type", id="search-query")
            yield Static("every tier: working, short-term (this session), medium-term (.ctx/sessions), "
                         "long-term (MEMORY.md, CLAUDE.md, handoffs)", id="search-summary")
            yield DataTable(id="search-results", cursor_type="row", zebra_stripes=True)
            yield Static(id="search-detail")
            with Horizontal(classes="flow-buttons"):
                yield Button("Copy enhance block (⏎ on a result, ^y)", id="search-copy", variant="primary",
                             disabled=True)
                yield Button("Close (esc)", id="search-close")

    def _source_width(self) -> int:
        """The source column: 18 characters on an 80-column terminal, up to 36 on a wide one."""
        return max(18, min(36, self.app.size.width // 4))

    def on_mount(self) -> None:
        self.query_one("#search-box").border_title = "Search memory"
        table = self.query_one(DataTable)
        table.add_column("tier", key="tier", width=11)
        table.add_column("source", key="source", width=self._source_width())
        table.add_column("score", key="score", width=6)
        table.add_column("text", key="text")
        self.query_one("#search-detail").display = False
        self.query_one("#search-query", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_S, self._search_now)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._focus_results = True
        self._search_now()

    def _search_now(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        query = self.query_one("#search-query", Input).value.strip()
        if not query:
            self.query_one("#search-summary", Static).update(Text("type a few words to search every tier", "dim"))
            return
        self.query_one("#search-summary", Static).update(Text("searching…", style="dim"))
        self.run_search(query)

    def run_search(self, query: str) -> None:
        """Search off the UI thread; the newest query wins."""
        started = time.perf_counter()

        def job() -> list[Hit]:
            if self._session is None and self._transcript is not None and self._transcript.is_file():
                session = Session(self._transcript, self._config)
                session.poll()
                self._session = session
            return search(self._project, query, session=self._session, config=self._config)

        off_thread(self, job, lambda hits: self.show_hits(query, hits, (time.perf_counter() - started) * 1000),
                   self.show_failure, group="search", exclusive=True)

    def show_failure(self, reason: str) -> None:
        self.query_one("#search-summary", Static).update(
            Text.assemble(("✖ search failed: ", "bold red"), literal(reason)))

    def show_hits(self, query: str, hits: list[Hit], duration_ms: float) -> None:
        self.hits = hits
        table = self.query_one(DataTable)
        table.clear()
        source_width = self._source_width()
        width = max(16, (table.size.width or 80) - 11 - source_width - 6 - 10)
        for index, hit in enumerate(hits):
            table.add_row(
                Text(hit.tier),
                literal(hit.source, one_line=True, limit=source_width),
                Text(f"{hit.score:.2f}", justify="right"),
                literal(hit.text, one_line=True, limit=width),
                key=str(index),
            )
        retrieval = self._config.retrieval
        found = f"{len(hits)} hit(s)" if hits else "no match"
        self.query_one("#search-summary", Static).update(literal(
            f"{found} for {query!r} · top {retrieval.top_k}, BM25 score > {retrieval.relevance_threshold:g} "
            f"· {duration_ms:,.0f} ms", "dim"))
        self.query_one("#search-copy", Button).disabled = not hits
        focus, self._focus_results = self._focus_results, False
        if hits:
            self._show_detail(0)
            if focus:
                table.focus()
        else:
            self.query_one("#search-detail").display = False

    def _show_detail(self, index: int) -> None:
        if not 0 <= index < len(self.hits):
            return
        hit = self.hits[index]
        detail = self.query_one("#search-detail", Static)
        detail.display = True
        detail.update(Text.assemble((f"{hit.tier} · ", "bold"), literal(hit.source, "bold"), "\n",
                                    literal(hit.text)))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail(int(event.row_key.value or 0))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_copy_block()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "search-copy":
            self.action_copy_block()
        else:
            self.action_close()

    def action_copy_block(self) -> None:
        if not self.hits:
            self.notify("Nothing found yet: type what to look for.", title="Search", severity="warning")
            return
        position = self._config.retrieval.enhance_position
        self.app.copy_to_clipboard(enhance_block(self.hits, position))
        self.notify(f"The enhance block ({len(self.hits)} hit(s)) is on the clipboard: put it at the {position} "
                    "of the agent's context.", title="Search")

    def action_close(self) -> None:
        self.dismiss(None)
