"""The new-item form (``n``): id, type from a list, content; registered through the memory core."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Input, Label, Select, Static

from ctx_tui.memory.items import ItemType, TrackedItem, importance_for


@dataclass(frozen=True, slots=True)
class NewItemRequest:
    """What the form returns: the caller registers it (``ctx_tui.memory.registry.register_item``)."""

    id: str
    type: ItemType
    content: str


class ItemIdValidator(Validator):
    """The id rule of :class:`~ctx_tui.memory.items.TrackedItem`, asked of the model itself."""

    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.failure("give the item an id, e.g. no-push-main")
        try:
            TrackedItem(id=value.strip(), type=ItemType.NOTE, content="x")
        except ValidationError as exc:
            return self.failure(exc.errors()[0]["msg"].removeprefix("Value error, "))
        return self.success()


class ContentValidator(Validator):
    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.failure("say what the agent must not forget")
        return self.success()


def type_options() -> list[tuple[str, ItemType]]:
    """Every item type with the importance it implies, for the Select."""
    return [(f"{t.value} ({importance_for(t).value})", t) for t in ItemType]


class NewItemScreen(ModalScreen[NewItemRequest | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="ctx.new_item.cancel"),
        Binding("ctrl+s", "submit", "Register", id="ctx.new_item.submit"),
    ]

    def __init__(self, known_ids: frozenset[str] = frozenset()) -> None:
        super().__init__(classes="flow-modal")
        self._known = known_ids

    def compose(self) -> ComposeResult:
        with Vertical(id="new-item-box", classes="flow-box"):
            yield Label("Id", classes="field-label")
            yield Input(placeholder="no-push-main", id="item-id", validators=[ItemIdValidator()])
            yield Static(id="item-id-finding", classes="finding")
            yield Label("Type", classes="field-label")
            yield Select(type_options(), value=ItemType.CONSTRAINT, allow_blank=False, id="item-type")
            yield Label("Content", classes="field-label")
            yield Input(placeholder="Never push to main without a review", id="item-content",
                        validators=[ContentValidator()])
            yield Static(id="item-content-finding", classes="finding")
            with Horizontal(classes="flow-buttons"):
                yield Button("Register (^s)", id="item-register", variant="primary")
                yield Button("Cancel (esc)", id="item-cancel")

    def on_mount(self) -> None:
        self.query_one("#new-item-box").border_title = "Register a tracked item"
        self.query_one("#item-id", Input).focus()

    def validate_form(self) -> NewItemRequest | None:
        """The one validate path: shows each field's problem; the request when all are valid."""
        ok = True
        for field in ("item-id", "item-content"):
            widget = self.query_one(f"#{field}", Input)
            result = widget.validate(widget.value)
            problem = result.failure_descriptions[0] if result is not None and not result.is_valid else ""
            if field == "item-id" and not problem and widget.value.strip() in self._known:
                problem = "this id exists: registering updates that item"
                self._show(field, problem, error=False)
                continue
            self._show(field, problem, error=True)
            ok = ok and not problem
        if not ok:
            return None
        kind = self.query_one("#item-type", Select).value
        assert isinstance(kind, ItemType)
        return NewItemRequest(
            self.query_one("#item-id", Input).value.strip(),
            kind,
            self.query_one("#item-content", Input).value.strip(),
        )

    def _show(self, field: str, problem: str, *, error: bool) -> None:
        finding = self.query_one(f"#{field}-finding", Static)
        finding.update(f"{'✖' if error else '•'} {problem}" if problem else "")
        finding.set_class(bool(problem), "-shown")
        finding.set_class(not error, "-warning")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id in ("item-id", "item-content") and event.input.value:
            self.validate_form()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "item-id":
            self.query_one("#item-type", Select).focus()
        else:
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
