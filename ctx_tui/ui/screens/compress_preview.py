"""The compression preview (``c``): choose a strategy and a budget, read the result, then use it.

The text to compress comes from ``source`` (the dashboard passes the live
window rendered by ``compress.render_entries``); rendering and compressing
run in a thread worker, the newest request wins, and the result comes back through
``ui.offthread.off_thread``. Actions: copy the compressed text
(``App.copy_to_clipboard``: OSC 52, works over SSH), save it into the
session memory (``summaries``), copy the ``/compact`` focus line naming the
critical items (``compress.compact_line``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.validation import Integer, Number
from textual.widgets import Button, Input, Label, LoadingIndicator, Select, Static

from ctx_tui import audit
from ctx_tui.compress import STRATEGIES, CompressionResult, compact_line, compress_text
from ctx_tui.compress.session import save_summary
from ctx_tui.config import Config
from ctx_tui.memory.items import TrackedItem
from ctx_tui.ui.accounting import compress_scope
from ctx_tui.ui.offthread import off_thread
from ctx_tui.ui.safe import literal
from ctx_tui.ui.tcss import FLOWS, tcss_path

#: Pause after the last change of strategy or budget before compressing again.
DEBOUNCE_S = 0.25


@dataclass(frozen=True, slots=True)
class CompressRequest:
    strategy: str
    target_ratio: float | None
    max_length: int | None


def figures_text(result: CompressionResult, basis: tuple[int, int] | None = None) -> Text:
    """What was compressed (against the usage panel's figure), then
    ``48,213 → 9,870 tokens (20%) · retention 94% (47 of 50 key facts in sentences; 2 named only) · 132 ms``."""
    total = len(result.facts_kept) + len(result.facts_lost)
    retention_style = "green" if result.retention_rate >= 0.9 else ("yellow" if result.retention_rate >= 0.7 else "red")
    return Text.assemble(
        (compress_scope(result.original_length, basis), "dim"), "\n",
        (f"{result.original_length:,}", "bold"), " → ", (f"{result.compressed_length:,}", "bold"),
        f" tokens ({result.ratio:.0%} of the original, budget {result.budget:,}) · retention ",
        (f"{result.retention_rate:.0%}", f"bold {retention_style}"),
        f" ({len(result.facts_kept)} of {total} key facts in sentences"
        + (f"; {result.facts_named_only} named only" if result.facts_named_only else "")
        + f") · {result.duration_ms:,.0f} ms",
    )


def record_use(project: Path, session_id: str, result: CompressionResult, used: str) -> None:
    """Audit a compression the user used (copied or saved), as ``ctx-tui compress`` audits its own."""
    audit.record(project, "compress.ran", session=session_id, via="dashboard", used=used, strategy=result.strategy,
                 original=result.original_length, compressed=result.compressed_length,
                 retention=result.retention_rate)


class CompressPreviewScreen(ModalScreen[None]):
    CSS_PATH = tcss_path(FLOWS)  # read when first shown (ctx_tui.ui.tcss)
    BINDINGS = [
        Binding("ctrl+y", "copy_text", "Copy", id="ctx.compress.copy"),
        Binding("ctrl+s", "save", "Save", id="ctx.compress.save"),
        Binding("ctrl+t", "copy_compact", "/compact line", id="ctx.compress.compact"),
        Binding("escape", "close", "Close", id="ctx.compress.close"),
    ]

    def __init__(
        self,
        source: Callable[[], str],
        items: Sequence[TrackedItem],
        project: Path,
        session_id: str,
        config: Config,
        basis: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(classes="flow-modal")
        self._basis = basis  # the usage panel's (live-window text, in context), to say what part is compressed
        self._source = source
        self._text: str | None = None
        self._items = list(items)
        self._project = project
        self._session_id = session_id
        self._config = config
        self._timer: Timer | None = None
        self._requested: CompressRequest | None = None
        self.result: CompressionResult | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="compress-box", classes="flow-box"):
            with Horizontal(id="compress-options"):
                yield Label("Strategy", classes="inline-label")
                yield Select([(s, s) for s in STRATEGIES], value=self._config.compression.strategy,
                             allow_blank=False, id="compress-strategy")
                yield Label("Ratio", classes="inline-label")
                yield Input(str(self._config.compression.target_ratio), id="compress-ratio",
                            validators=[Number(minimum=0.01, maximum=1.0, failure_description=
                                               "the target ratio is a number from 0.01 to 1")])
                yield Label("Max tokens", classes="inline-label")
                yield Input(placeholder="none", id="compress-max", type="integer",
                            validators=[Integer(minimum=1, failure_description=
                                                "max tokens is a whole number of at least 1")])
            yield Static(id="compress-finding", classes="finding")
            yield Static("compressing…", id="compress-figures")
            with VerticalScroll(id="compress-preview"):
                yield LoadingIndicator(id="compress-busy")
                yield Static(id="compress-text")
            with Horizontal(classes="flow-buttons"):
                yield Button("Copy ^y", id="compress-copy", variant="primary", disabled=True)
                yield Button("Save ^s", id="compress-save", disabled=True)
                yield Button("/compact ^t", id="compress-compact")
                yield Button("Close", id="compress-close")

    def on_mount(self) -> None:
        self.query_one("#compress-box").border_title = "Compress the live window"
        self.query_one("#compress-preview").border_title = "preview"
        self.refresh_preview()

    # -- the request ------------------------------------------------------------------------
    def request(self) -> CompressRequest | None:
        """The one validate path: the options as a request, or None (and the reason shown)."""
        problems: list[str] = []
        values: dict[str, float | int | None] = {}
        for widget_id, cast in (("compress-ratio", float), ("compress-max", int)):
            widget = self.query_one(f"#{widget_id}", Input)
            text = widget.value.strip()
            if not text:
                values[widget_id] = None
                widget.remove_class("-invalid")
                continue
            result = widget.validate(text)
            if result is not None and not result.is_valid:
                problems += result.failure_descriptions[:1]
                widget.add_class("-invalid")
                continue
            widget.remove_class("-invalid")
            values[widget_id] = cast(text)
        notes: list[str] = []
        if not problems and values["compress-ratio"] is None and values["compress-max"] is None:
            # an emptied field is not silently a number: say which one applies
            notes.append(f"no ratio or max tokens given: the configured ratio "
                         f"{self._config.compression.target_ratio:g} (compression.target_ratio) applies")
        finding = self.query_one("#compress-finding", Static)
        finding.update(Text("\n").join([*(Text(f"✖ {p}", style="bold red") for p in problems),
                                         *(Text(f"• {n}", style="yellow") for n in notes)]))
        finding.set_class(bool(problems or notes), "-shown")
        if problems:
            return None
        strategy = self.query_one("#compress-strategy", Select).value
        ratio = values["compress-ratio"]
        limit = values["compress-max"]
        return CompressRequest(str(strategy), float(ratio) if ratio is not None else None,
                               int(limit) if limit is not None else None)

    def refresh_preview(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        request = self.request()
        if request is None or request == self._requested:
            return  # invalid, or the preview already shows (or is computing) this one
        self._requested = request
        self.query_one("#compress-busy").display = True
        self.compress(request)

    def compress(self, request: CompressRequest) -> None:
        """Render (once) and compress off the UI thread; the newest request wins."""

        def job() -> CompressionResult:
            if self._text is None:
                self._text = self._source()
            return compress_text(self._text, request.strategy, target_ratio=request.target_ratio,
                                 max_length=request.max_length, items=self._items, config=self._config)

        off_thread(self, job, lambda result: self.show_result(request, result), self.show_failure,
                   group="compress", exclusive=True)

    def show_result(self, request: CompressRequest, result: CompressionResult) -> None:
        if request != self._requested:
            return  # options changed meanwhile: a newer request is on its way
        self.result = result
        self.query_one("#compress-busy").display = False
        self.query_one("#compress-figures", Static).update(figures_text(result, self._basis))
        body = result.text if result.text.strip() else "(nothing fits this budget: raise the ratio or max tokens)"
        self.query_one("#compress-text", Static).update(literal(body))
        self.query_one("#compress-preview").border_subtitle = result.strategy
        for button in ("#compress-copy", "#compress-save"):
            self.query_one(button, Button).disabled = not result.text.strip()

    def show_failure(self, reason: str) -> None:
        self._requested = None  # the same options may be tried again
        self.query_one("#compress-busy").display = False
        self.query_one("#compress-figures", Static).update(
            Text.assemble(("✖ cannot compress: ", "bold red"), literal(reason)))

    @on(Input.Changed)
    @on(Select.Changed)
    def _options_changed(self, event: Message) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_S, self.refresh_preview)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.refresh_preview()

    # -- actions ---------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        action = {"compress-copy": self.action_copy_text, "compress-save": self.action_save,
                  "compress-compact": self.action_copy_compact, "compress-close": self.action_close}
        action[event.button.id or "compress-close"]()

    def _usable(self) -> CompressionResult | None:
        if self.result is None or not self.result.text.strip():
            self.notify("No compressed text yet.", title="Compress", severity="warning")
            return None
        return self.result

    def action_copy_text(self) -> None:
        result = self._usable()
        if result is not None:
            self.app.copy_to_clipboard(result.text)
            self.run_worker(partial(record_use, self._project, self._session_id, result, "clipboard"),
                            thread=True, group="compress-audit", exit_on_error=False)
            self.notify(f"Copied {result.compressed_length:,} tokens of {result.strategy} to the clipboard.",
                        title="Compress")

    def action_copy_compact(self) -> None:
        line = compact_line(self._items)
        self.app.copy_to_clipboard(line)
        self.notify("The /compact line is on the clipboard: paste it into the agent.", title="Compress")

    def action_save(self) -> None:
        result = self._usable()
        if result is not None:
            self.query_one("#compress-save", Button).disabled = True
            self.save(result)

    def save(self, result: CompressionResult) -> None:
        def job() -> None:
            record_use(self._project, self._session_id, result, "session memory")
            save_summary(self._project, self._session_id, result)

        off_thread(self, job, lambda _none: self.saved(result, None), lambda reason: self.saved(None, reason),
                   group="compress-save", exclusive=True)

    def saved(self, result: CompressionResult | None, reason: str | None) -> None:
        self.query_one("#compress-save", Button).disabled = False
        if result is None:
            self.notify(reason or "not saved", title="Not saved", severity="error", markup=False)
            return
        self.notify(f"Saved to the session memory (.ctx/sessions/, summaries) as a {result.strategy} "
                    "summary.", title="Compress", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
