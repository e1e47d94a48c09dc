"""The handoff form (``h``): a pre-filled draft behind the live quality gate.

The draft is built in a thread worker (reading the whole transcript takes a
while on a long session) from the session (``handoff.prefill``) or, when this
session already wrote a handoff, from the newest of those (:mod:`ctx_tui.handoff.draft`).
Every edit re-runs ``handoff.gate.check_handoff`` after a short pause
(``GATE_DEBOUNCE_S``, at once when a field loses focus); each finding is shown
under its field with its hint. The form opens helpful, not red: prefilled
fields are marked "filled", the ones the user must write "to fill", and a
field to fill shows its findings once the user types in it or tries to save
(``handoff_fields``). Saving is refused while an error stands; it goes
through the append-only ``handoff.writer.write_handoff`` in a worker, and the
form then closes with the written path.

Lists are edited one item per line; a decision is one line
``decision | rationale | file, file``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Input, Label, LoadingIndicator, Static, TextArea

from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.handoff.gate import MAX_CONTEXT_WORDS, Finding, check_handoff, passes
from ctx_tui.handoff.draft import StartingDraft, read_starting_draft
from ctx_tui.handoff.prefill import now_stamp
from ctx_tui.handoff.writer import HandoffRefused, WrittenHandoff, record_refusal, write_handoff
from ctx_tui.paths import shown_path
from ctx_tui.ui.safe import clean, input_value, literal
from ctx_tui.ui.screens.confirm import ConfirmScreen
from ctx_tui.ui.screens.handoff_fields import (
    BY_KEY,
    FIELDS,
    GENERAL,
    FieldSpec,
    build_draft,
    field_mark,
    field_of,
    field_text,
    fields_to_fill,
    finding_text,
    shown_findings,
)
from ctx_tui.ui.tcss import FLOWS, tcss_path

#: Pause after the last keystroke before the gate runs again.
GATE_DEBOUNCE_S = 0.3

class DraftReady(Message):
    def __init__(self, start: StartingDraft) -> None:
        super().__init__()
        self.start = start


class DraftFailed(Message):
    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class HandoffSaved(Message):
    def __init__(self, written: WrittenHandoff) -> None:
        super().__init__()
        self.written = written


class SaveFailed(Message):
    def __init__(self, reason: str, findings: list[Finding]) -> None:
        super().__init__()
        self.reason = reason
        self.findings = findings


class HandoffFormScreen(ModalScreen[Path | None]):
    """Dismisses with the written handoff's path, or None when closed without saving."""

    CSS_PATH = tcss_path(FLOWS)  # read when first shown (ctx_tui.ui.tcss)

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="ctx.handoff.save"),
        Binding("escape", "close", "Close", id="ctx.handoff.close"),
        # the dashboard's q (quit) must not drop an edited draft: it closes the form, asking first
        Binding("q", "close", "Close", show=False, id="ctx.handoff.quit"),
    ]

    def __init__(self, transcript: Path, project: Path, config: Config, *, start: StartingDraft | None = None) -> None:
        super().__init__(classes="flow-modal")
        self._transcript = transcript
        self._project = project
        self._config = config
        self._start = start
        self._initial: dict[str, str] | None = None
        self._timer: Timer | None = None
        self._saving = False
        self._save_tried = False
        self._to_fill: frozenset[str] = frozenset()
        self.findings: list[Finding] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="handoff-box", classes="flow-box"):
            with Vertical(id="hf-loading"):
                yield LoadingIndicator()
                yield Static("reading the session for the draft…", id="hf-loading-text")
            with VerticalScroll(id="hf-fields"):
                yield Static(id="hf-notes")
                yield Static(id="hf-general", classes="finding")
                for spec in FIELDS:
                    with Vertical(classes=f"hf-field hf-{spec.kind}"):
                        yield Label(spec.label, id=f"{spec.widget_id}-label", classes="field-label")
                        if spec.kind in ("lines", "decisions", "prose"):
                            yield TextArea(id=spec.widget_id, soft_wrap=True, tab_behavior="focus",
                                           show_line_numbers=False)
                        else:
                            yield Input(id=spec.widget_id, type="number" if spec.kind == "number" else "text")
                        yield Static(id=f"{spec.widget_id}-finding", classes="finding")
            with Horizontal(classes="flow-buttons"):
                yield Static(id="hf-status")
                yield Button("Save (^s)", id="hf-save", variant="primary", disabled=True)
                yield Button("Close (esc)", id="hf-close")

    def on_mount(self) -> None:
        self.query_one("#handoff-box").border_title = "Handoff for the next session"
        self.query_one("#hf-fields").display = False
        if self._start is not None:
            self.post_message(DraftReady(self._start))
        else:
            self.load_draft()

    @work(thread=True, exclusive=True, group="handoff-draft", exit_on_error=False)
    def load_draft(self) -> None:
        try:
            start = read_starting_draft(self._transcript, self._project, self._config)
        except (CtxError, OSError, ValueError) as exc:
            self.post_message(DraftFailed(clean(str(exc) or type(exc).__name__, one_line=True)))
            return
        self.post_message(DraftReady(start))

    def on_draft_failed(self, message: DraftFailed) -> None:
        self.query_one("#hf-loading LoadingIndicator").display = False
        self.query_one("#hf-loading-text", Static).update(
            Text.assemble(("✖ cannot build the draft: ", "bold red"), literal(message.reason))
        )

    def on_draft_ready(self, message: DraftReady) -> None:
        start = message.start
        for spec in FIELDS:
            self._set_text(spec, field_text(start.draft, spec))
        notes = [f"· {n}" for n in start.notes]
        notes_widget = self.query_one("#hf-notes", Static)
        notes_widget.update(literal("\n".join(notes), "dim"))
        notes_widget.display = bool(notes)
        self.query_one("#hf-loading").display = False
        self.query_one("#hf-fields").display = True
        self._initial = self.texts()
        self._to_fill = fields_to_fill(check_handoff(build_draft(self._initial), self._project))
        self.validate()
        self.call_after_refresh(self._focus_first_to_fill)

    def _focus_first_to_fill(self) -> None:
        """Focus the first field to fill (the continuation context when none), once laid out."""
        self._focus_field(next((spec.key for spec in FIELDS if spec.key in self._to_fill), "continuation_context"))

    def _focus_field(self, key: str) -> None:
        widget = self.query_one(f"#{BY_KEY[key].widget_id}")
        widget.focus(scroll_visible=False)
        if isinstance(widget.parent, Widget):  # the field with its label and findings, scrolled only as far as needed
            self.query_one("#hf-fields", VerticalScroll).scroll_to_widget(widget.parent, animate=False)

    # -- values --------------------------------------------------------------------------
    def _set_text(self, spec: FieldSpec, text: str) -> None:
        if spec.kind in ("lines", "decisions", "prose"):
            self.query_one(f"#{spec.widget_id}", TextArea).load_text(input_value(text, multiline=True))
        else:
            self.query_one(f"#{spec.widget_id}", Input).value = input_value(text)

    def _text(self, spec: FieldSpec) -> str:
        if spec.kind in ("lines", "decisions", "prose"):
            return self.query_one(f"#{spec.widget_id}", TextArea).text
        return self.query_one(f"#{spec.widget_id}", Input).value

    def texts(self) -> dict[str, str]:
        return {spec.key: self._text(spec) for spec in FIELDS}

    def draft(self) -> dict[str, Any]:
        return build_draft(self.texts())

    @property
    def dirty(self) -> bool:
        return self._initial is not None and self.texts() != self._initial

    # -- the gate --------------------------------------------------------------------------
    def validate(self) -> list[Finding]:
        """The one validate path: run the gate, show the findings each field shows, and the status."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        texts = self.texts()
        initial = self._initial or texts
        self.findings = check_handoff(build_draft(texts), self._project)
        shown = shown_findings(self.findings, self._to_fill, initial, texts, self._save_tried)
        for key in [*BY_KEY, GENERAL]:
            target = self.query_one("#hf-general" if key == GENERAL else f"#{BY_KEY[key].widget_id}-finding", Static)
            found = shown.get(key, [])
            target.update(Text("\n").join(finding_text(f) for f in found))
            target.set_class(bool(found), "-shown")
            if key != GENERAL:
                self.query_one(f"#{BY_KEY[key].widget_id}").set_class(any(f.is_error for f in found), "-invalid")
                self._show_label(BY_KEY[key], field_mark(key, self._to_fill, initial, texts, shown))
        self._show_status(shown)
        self.query_one("#hf-save", Button).disabled = self._saving
        return self.findings

    def _show_status(self, shown: dict[str, list[Finding]]) -> None:
        errors = sum(f.is_error for f in self.findings)
        warnings = len(self.findings) - errors
        shown_errors = sum(f.is_error for found in shown.values() for f in found)
        status = self.query_one("#hf-status", Static)
        if shown_errors:
            status.update(Text(f"✖ {errors} error(s), {warnings} warning(s): fix them to save", style="bold red"))
        elif errors:
            hidden = [spec.label.split(" (")[0] for spec in FIELDS if spec.key in self._to_fill
                      and any(field_of(f) == spec.key and f.is_error for f in self.findings)]
            status.update(Text(f"to fill: {', '.join(hidden)}", style="bold cyan"))
        else:
            status.update(Text(f"✔ passes the gate{f' ({warnings} warning(s))' if warnings else ''}", style="green"))

    def _show_label(self, spec: FieldSpec, mark: Text) -> None:
        label = self.query_one(f"#{spec.widget_id}-label", Label)
        if spec.key != "continuation_context":
            label.update(Text.assemble(spec.label, mark))
            return
        words = len(self._text(spec).split())
        over = words > MAX_CONTEXT_WORDS
        label.update(Text.assemble(spec.label, (f"  {words} / {MAX_CONTEXT_WORDS} words",
                                                "bold red" if over else "dim"), mark))

    def _schedule(self) -> None:
        if self._initial is None:
            return  # still loading: load_text posts Changed events
        spec = BY_KEY["continuation_context"]
        self._show_label(spec, field_mark(spec.key, self._to_fill, self._initial, self.texts(), {}))
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(GATE_DEBOUNCE_S, self.validate)

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _edited(self, event: Message) -> None:
        event.stop()
        self._schedule()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        """Leaving a field runs a pending gate check at once."""
        if self._initial is not None and self._timer is not None:
            self.validate()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    # -- saving / closing -------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "hf-save":
            self.action_save()
        else:
            self.action_close()

    def action_save(self) -> None:
        if self._initial is None or self._saving:
            return
        self._save_tried = True  # from now on every field shows its findings
        findings = self.validate()
        if not passes(findings):
            record_refusal(self._project, self.draft(), findings)
            self.notify("The handoff fails the quality gate; the findings are under their fields.",
                        title="Not saved", severity="error")
            self._focus_first_error()
            return
        self._saving = True
        self.query_one("#hf-save", Button).disabled = True
        draft = self.draft()
        if self._initial is not None and draft.get("timestamp") == self._initial.get("timestamp", "").strip():
            draft["timestamp"] = now_stamp()  # untouched: the time of saving, not of opening the form
        self.save_draft(draft)

    def _focus_first_error(self) -> None:
        wrong = {field_of(f) for f in self.findings if f.is_error}
        key = next((spec.key for spec in FIELDS if spec.key in wrong), None)
        if key is not None:
            self._focus_field(key)

    @work(thread=True, exclusive=True, group="handoff-save", exit_on_error=False)
    def save_draft(self, draft: dict[str, Any]) -> None:
        try:
            written = write_handoff(self._project, draft, self._config)
        except HandoffRefused as exc:
            self.post_message(SaveFailed(str(exc), exc.findings))
            return
        except (CtxError, OSError, ValueError) as exc:
            self.post_message(SaveFailed(clean(str(exc) or type(exc).__name__, one_line=True), []))
            return
        self.post_message(HandoffSaved(written))

    def on_save_failed(self, message: SaveFailed) -> None:
        self._saving = False
        self.validate()
        self.notify(message.reason, title="Handoff not saved", severity="error", markup=False)

    def on_handoff_saved(self, message: HandoffSaved) -> None:
        path = message.written.path
        shown = shown_path(path, self._project)
        self.query_one("#hf-status", Static).update(Text(f"✔ saved {shown}", style="green"))
        self.dismiss(path)

    def action_close(self) -> None:
        if not self.dirty:
            self.dismiss(None)
            return

        def answer(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(
            ConfirmScreen("Discard the handoff?", "The draft has unsaved edits. Discard them?", "Discard", "Keep editing"),
            answer,
        )
