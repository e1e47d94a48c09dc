"""The new-item form (``n``): what to remember and its type; registered through the memory core.

The id is generated from the content by the caller (``memory.registry.new_item_id``):
people never have to invent or read one.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Input, Label, Select, Static

from ctx_tui.memory.items import ItemType, importance_for
from ctx_tui.ui.tcss import FLOWS, tcss_path


@dataclass(frozen=True, slots=True)
class NewItemRequest:
    """What the form returns: the caller registers it (``ctx_tui.memory.registry.register_item``)."""

    type: ItemType
    content: str


class ContentValidator(Validator):
    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.failure("say what the agent must not forget")
        return self.success()


def type_options() -> list[tuple[str, ItemType]]:
    """Every item type with the importance it implies, for the Select."""
    return [(f"{t.value} ({importance_for(t).value})", t) for t in ItemType]


class NewItemScreen(ModalScreen[NewItemRequest | None]):
    CSS_PATH = tcss_path(FLOWS)  # read when first shown (ctx_tui.ui.tcss)
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="ctx.new_item.cancel"),
        Binding("ctrl+s", "submit", "Register", id="ctx.new_item.submit"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="new-item-box", classes="flow-box"):
            yield Label("What must the agent not forget?", classes="field-label")
            yield Input(placeholder="Never push to main without a review", id="item-content",
                        validators=[ContentValidator()])
            yield Static(id="item-content-finding", classes="finding")
            yield Label("Type (sets its importance)", classes="field-label")
            yield Select(type_options(), value=ItemType.CONSTRAINT, allow_blank=False, id="item-type")
            with Horizontal(classes="flow-buttons"):
                yield Button("Register (^s)", id="item-register", variant="primary")
                yield Button("Cancel (esc)", id="item-cancel")

    def on_mount(self) -> None:
        self.query_one("#new-item-box").border_title = "Register a tracked item"
        self.query_one("#item-content", Input).focus()

    def validate_form(self) -> NewItemRequest | None:
        """The one validate path: shows the content's problem; the request when it is valid."""
        widget = self.query_one("#item-content", Input)
        result = widget.validate(widget.value)
        problem = result.failure_descriptions[0] if result is not None and not result.is_valid else ""
        finding = self.query_one("#item-content-finding", Static)
        finding.update(f"✖ {problem}" if problem else "")
        finding.set_class(bool(problem), "-shown")
        if problem:
            return None
        kind = self.query_one("#item-type", Select).value
        assert isinstance(kind, ItemType)
        return NewItemRequest(kind, " ".join(widget.value.split()))

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "item-content" and event.input.value:
            self.validate_form()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "item-register":
            self.action_submit()
        else:
            self.action_cancel()

    def action_submit(self) -> None:
        request = self.validate_form()
        if request is not None:
            self.dismiss(request)

    def action_cancel(self) -> None:
        self.dismiss(None)
