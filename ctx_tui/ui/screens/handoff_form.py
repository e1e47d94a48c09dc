"""The handoff form (``h``): a pre-filled draft behind the live quality gate.

The draft is built in a thread worker (reading the whole transcript takes a
while on a long session) from the session (``handoff.prefill``) or, when this
session already wrote a handoff, from the newest of those (:mod:`ctx_tui.handoff.draft`).
Every edit re-runs ``handoff.gate.check_handoff`` after a short pause
(``GATE_DEBOUNCE_S``, at once when a field loses focus); each finding is shown
under its field with its hint; Save stays disabled while an error stands.
Saving goes through the append-only ``handoff.writer.write_handoff`` in a
worker; the form then closes with the written path.

Lists are edited one item per line; a decision is one line
``decision | rationale | file, file``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Input, Label, LoadingIndicator, Static, TextArea

from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.handoff.gate import MAX_CONTEXT_WORDS, Finding, check_handoff, passes
from ctx_tui.handoff.draft import StartingDraft, read_starting_draft
from ctx_tui.handoff.prefill import now_stamp
from ctx_tui.handoff.schema import HANDOFF_VERSION
from ctx_tui.handoff.writer import HandoffRefused, WrittenHandoff, write_handoff
from ctx_tui.paths import shown_path
from ctx_tui.ui.safe import clean, literal
from ctx_tui.ui.screens.confirm import ConfirmScreen

#: Pause after the last keystroke before the gate runs again.
GATE_DEBOUNCE_S = 0.3

Kind = Literal["text", "number", "lines", "decisions", "prose"]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    key: str  # dotted path in the handoff: "task_state.completion_pct"
    label: str
    kind: Kind

    @property
    def widget_id(self) -> str:
        return "hf-" + self.key.replace(".", "-").replace("_", "-")


#: The form's fields, what the user must write first; every schema field but the version.
FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("task_state.assigned_task", "Assigned task", "text"),
    FieldSpec("task_state.completion_pct", "Completion %", "number"),
    FieldSpec("continuation_context", "Continuation context", "prose"),
    FieldSpec("suggested_first_action", "Suggested first action", "text"),
    FieldSpec("task_state.completed_subtasks", "Completed subtasks (one per line)", "lines"),
    FieldSpec("task_state.remaining_subtasks", "Remaining subtasks (one per line)", "lines"),
    FieldSpec("task_state.blockers", "Blockers (one per line)", "lines"),
    FieldSpec("decisions_made", "Decisions (decision | rationale | file, file)", "decisions"),
    FieldSpec("files_modified", "Files modified (one per line)", "lines"),
    FieldSpec("files_created", "Files created (one per line)", "lines"),
    FieldSpec("contracts_consumed", "Contracts consumed (one per line)", "lines"),
    FieldSpec("agent_role", "Agent role", "text"),
    FieldSpec("session_id", "Session id", "text"),
    FieldSpec("timestamp", "Timestamp (ISO 8601)", "text"),
    FieldSpec("context_usage_pct", "Context usage %", "number"),
)
_BY_KEY = {spec.key: spec for spec in FIELDS}
GENERAL = "general"


# -- draft <-> field text (pure) -------------------------------------------------------------


def _get(data: Mapping[str, Any], key: str) -> Any:
    value: Any = data
    for part in key.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _number_text(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def decision_line(decision: Mapping[str, Any]) -> str:
    parts = [str(decision.get("decision", "")).strip(), str(decision.get("rationale", "")).strip()]
    files = [str(f) for f in decision.get("affects_files") or []]
    if files:
        parts.append(", ".join(files))
    return " | ".join(parts).removesuffix(" | ")


def field_text(data: Mapping[str, Any], spec: FieldSpec) -> str:
    """What the field's widget shows for the draft ``data``."""
    value = _get(data, spec.key)
    if spec.kind == "number":
        return _number_text(value)
    if spec.kind == "lines":
        return "\n".join(str(v) for v in value) if isinstance(value, list) else ""
    if spec.kind == "decisions":
        return "\n".join(decision_line(d) for d in value if isinstance(d, Mapping)) if isinstance(value, list) else ""
    return "" if value is None else str(value)


def parse_decision(line: str) -> dict[str, Any]:
    """``decision | rationale | a.py, b.py``; a missing rationale stays missing (the gate says so)."""
    parts = [p.strip() for p in line.split("|", 2)]
    out: dict[str, Any] = {"decision": parts[0]}
    if len(parts) > 1 and parts[1]:
        out["rationale"] = parts[1]
    out["affects_files"] = [f.strip() for f in parts[2].split(",") if f.strip()] if len(parts) > 2 else []
    return out


def _number(text: str) -> float | str | None:
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return text  # the gate says "must be a number"


def field_value(spec: FieldSpec, text: str) -> Any:
    """The draft value of a field's text (None: leave the key out)."""
    if spec.kind == "number":
        return _number(text)
    if spec.kind == "lines":
        return [line.strip() for line in text.splitlines() if line.strip()]
    if spec.kind == "decisions":
        return [parse_decision(line) for line in text.splitlines() if line.strip()]
    if spec.kind == "prose":
        return text.strip("\n")
    stripped = text.strip()
    if not stripped and spec.key == "session_id":
        return None  # optional: an empty one is left out
    return stripped


def build_draft(texts: Mapping[str, str]) -> dict[str, Any]:
    """The handoff dict of the form's field texts (keys of :data:`FIELDS`)."""
    draft: dict[str, Any] = {"handoff_version": HANDOFF_VERSION}
    task: dict[str, Any] = {}
    for spec in FIELDS:
        value = field_value(spec, texts.get(spec.key, ""))
        if value is None:
            continue
        if spec.key.startswith("task_state."):
            task[spec.key.split(".", 1)[1]] = value
        else:
            draft[spec.key] = value
    draft["task_state"] = task
    return draft


def field_of(finding: Finding) -> str:
    """The form field a finding belongs to (``GENERAL`` when none matches)."""
    base = re.sub(r"\[\d+\].*$", "", finding.field)
    if base in _BY_KEY:
        return base
    if base == "task_state":
        return "task_state.assigned_task"
    return GENERAL


def finding_text(finding: Finding) -> Text:
    """``✖ message — hint`` (``▲`` for a warning); which line of a list it is about, when it is."""
    key = field_of(finding)
    where = finding.field[len(key):] if key != GENERAL and finding.field.startswith(key) else ""
    match = re.match(r"\[(\d+)\]\.?(.*)", where)
    prefix = ""
    if match:
        prefix = f"line {int(match.group(1)) + 1}{' ' + match.group(2) if match.group(2) else ''}: "
    elif key == GENERAL:
        prefix = f"{finding.field}: "
    mark, style = ("✖ ", "bold red") if finding.is_error else ("▲ ", "yellow")
    return Text.assemble((mark, style), literal(prefix + finding.message), (" — " + clean(finding.hint), "dim"))


# -- the screen ------------------------------------------------------------------------------


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
        self.validate()
        self.call_after_refresh(self._focus_first_problem)

    def _focus_first_problem(self) -> None:
        """Focus the first field with an error (the continuation context when none), once laid out."""
        wrong = {field_of(f) for f in self.findings if f.is_error}
        key = next((spec.key for spec in FIELDS if spec.key in wrong), "continuation_context")
        widget = self.query_one(f"#{_BY_KEY[key].widget_id}")
        widget.focus(scroll_visible=False)
        if widget.parent is not None:  # the field with its label and findings, scrolled only as far as needed
            self.query_one("#hf-fields", VerticalScroll).scroll_to_widget(widget.parent, animate=False)

    # -- values --------------------------------------------------------------------------
    def _set_text(self, spec: FieldSpec, text: str) -> None:
        if spec.kind in ("lines", "decisions", "prose"):
            self.query_one(f"#{spec.widget_id}", TextArea).load_text(text)
        else:
            self.query_one(f"#{spec.widget_id}", Input).value = text

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
        """The one validate path: run the gate, show each finding under its field, enable Save."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.findings = check_handoff(self.draft(), self._project)
        grouped: dict[str, list[Finding]] = {}
        for finding in self.findings:
            grouped.setdefault(field_of(finding), []).append(finding)
        for key in [*(_BY_KEY), GENERAL]:
            target = self.query_one("#hf-general" if key == GENERAL else f"#{_BY_KEY[key].widget_id}-finding", Static)
            found = grouped.get(key, [])
            target.update(Text("\n").join(finding_text(f) for f in found))
            target.set_class(bool(found), "-shown")
            if key != GENERAL:
                widget = self.query_one(f"#{_BY_KEY[key].widget_id}")
                widget.set_class(any(f.is_error for f in found), "-invalid")
        self._show_word_count()
        errors = sum(f.is_error for f in self.findings)
        warnings = len(self.findings) - errors
        status = self.query_one("#hf-status", Static)
        if errors:
            status.update(Text(f"✖ {errors} error(s), {warnings} warning(s): fix them to save", style="bold red"))
        else:
            status.update(Text(f"✔ passes the gate{f' ({warnings} warning(s))' if warnings else ''}", style="green"))
        self.query_one("#hf-save", Button).disabled = not passes(self.findings) or self._saving
        return self.findings

    def _show_word_count(self) -> None:
        spec = _BY_KEY["continuation_context"]
        words = len(self._text(spec).split())
        label = self.query_one(f"#{spec.widget_id}-label", Label)
        over = words > MAX_CONTEXT_WORDS
        label.update(Text.assemble(spec.label, (f"  {words} / {MAX_CONTEXT_WORDS} words",
                                                "bold red" if over else "dim")))

    def _schedule(self) -> None:
        if self._initial is None:
            return  # still loading: load_text posts Changed events
        self._show_word_count()
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
        if not passes(self.validate()):
            self.notify("The handoff fails the quality gate; the findings are under their fields.",
                        title="Not saved", severity="error")
            return
        self._saving = True
        self.query_one("#hf-save", Button).disabled = True
        draft = self.draft()
        if self._initial is not None and draft.get("timestamp") == self._initial.get("timestamp", "").strip():
            draft["timestamp"] = now_stamp()  # untouched: the time of saving, not of opening the form
        self.save_draft(draft)

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
