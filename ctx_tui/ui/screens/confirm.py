"""A yes/no question in a small modal: discard edits, approve a promotion."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ctx_tui.ui.tcss import FLOWS, tcss_path


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True (``y`` / the yes button) or False (``n`` / Escape / the no button)."""

    CSS_PATH = tcss_path(FLOWS)  # read when first shown (ctx_tui.ui.tcss)

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="ctx.confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="ctx.confirm.no"),
    ]

    def __init__(self, title: str, body: Text | str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__(classes="flow-modal")
        self._title = title
        self._body = body
        self._yes = yes
        self._no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="flow-box"):
            yield Static(self._body, id="confirm-body")
            with Horizontal(classes="flow-buttons"):
                yield Button(f"{self._yes} (y)", id="confirm-yes", variant="primary")
                yield Button(f"{self._no} (n)", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-box").border_title = self._title
        self.query_one("#confirm-yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
