"""Snapshot tests of the flow screens (pytest-textual-snapshot) at 80x24 and 160x48.

Each screen runs alone in a small host app with the real stylesheet, on fixed
input: a fresh prefilled handoff draft (fields marked "filled" / "to fill",
no findings yet), a vague one after a save was tried (the gate's findings under
their fields) and a pinned compression result. Update with
``pytest --snapshot-update`` after looking at the new SVGs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Input

from ctx_tui.compress import CompressionResult, Fact
from ctx_tui.config import Config
from ctx_tui.handoff.draft import StartingDraft
from ctx_tui.memory.items import ItemType, TrackedItem
from ctx_tui.ui.app import stylesheet
from ctx_tui.ui.screens import compress_preview
from ctx_tui.ui.screens.compress_preview import CompressPreviewScreen
from ctx_tui.ui.screens.handoff_form import HandoffFormScreen

SIZES = [(80, 24), (160, 48)]

VAGUE_DRAFT = {
    "handoff_version": "1.0.0",
    "agent_role": "main",
    "timestamp": "2026-03-14T09:00:00+00:00",
    "session_id": "5f0c1c2e-8a8b-4d7e-9a51-0c4f7e2b9d10",
    "context_usage_pct": 82.5,
    "task_state": {
        "assigned_task": "Build a CLI for the inventory service",
        "completion_pct": 90,
        "completed_subtasks": ["list command"],
        "remaining_subtasks": ["export command", "fix test_header"],
        "blockers": [],
    },
    "decisions_made": [{"decision": "Export as CSV", "affects_files": []}],
    "files_modified": ["src/inventory/cli.py"],
    "files_created": [],
    "contracts_consumed": [],
    "continuation_context": "Continue the work and fix remaining issues, it is mostly done.",
    "suggested_first_action": "Continue",
}

#: What the form opens with on a session without a plan: the author's fields are empty.
FRESH_DRAFT = {
    **VAGUE_DRAFT,
    "task_state": {"assigned_task": "Build a CLI for the inventory service", "completion_pct": None,
                   "completed_subtasks": [], "remaining_subtasks": [], "blockers": []},
    "continuation_context": "",
    "suggested_first_action": "",
}

ITEMS = [
    TrackedItem(id="no-push", type=ItemType.CONSTRAINT, content="Never push to main without a review"),
    TrackedItem(id="csv", type=ItemType.DECISION, content="Export as CSV with a header row"),
]
#: The engine's output is pinned (it has its own tests and is still tuned): the picture is of the screen.
PINNED_TEXT = "\n".join([
    "[ctx-tui semantic of a 2,015-token context; 37 of 41 key facts kept]",
    "",
    "Tracked items:",
    "- [constraint] Never push to main without a review",
    "- [decision] Export as CSV with a header row",
    "",
    "Files: src/inventory/io.py, src/inventory/export.py, data/stock.csv, tests/test_io.py",
    "Commands: `pytest tests/test_io.py -k row_1` ... `-k row_24` (all passed)",
    "",
    *[f"- round {n}: parse_rows() read row {n} (sku=A{n:04d}, qty={n * 7})" for n in range(1, 25)],
])
FACTS = [Fact("identifier", f"A{n:04d}", f"sku A{n:04d}") for n in range(41)]


def pinned_compression(text: str, strategy: str, target_ratio: float | None = None, max_length: int | None = None,
                       items=(), config=None) -> CompressionResult:
    return CompressionResult(PINNED_TEXT, strategy, original_length=2015, compressed_length=587,
                             retention_rate=37 / 41, duration_ms=12.0, budget=604,
                             facts_kept=FACTS[:37], facts_lost=FACTS[37:])


class FlowHost(App[None]):
    """Shows one flow screen over an empty screen, with the app's stylesheet."""

    CSS = stylesheet()

    def __init__(self, make: Callable[[], Screen]) -> None:
        super().__init__()
        self._make = make

    def on_mount(self) -> None:
        self.push_screen(self._make())


async def _ready(pilot) -> None:
    """Workers done, the focus placed (the form focuses its first problem after a refresh) and the
    cursor steady: under load the picture was sometimes taken a refresh early, or mid-blink."""
    for _ in range(2):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    for _ in range(40):
        if pilot.app.focused is not None:
            break
        await pilot.pause(0.05)
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def _form(tmp_path: Path, draft: dict, notes: list[str]) -> FlowHost:
    (tmp_path / "src" / "inventory").mkdir(parents=True)
    (tmp_path / "src" / "inventory" / "cli.py").write_text("")
    start = StartingDraft(draft, notes)
    return FlowHost(lambda: HandoffFormScreen(tmp_path / "s.jsonl", tmp_path, Config(), start=start))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_handoff_form_opens_to_fill(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    """Prefilled fields marked filled, the author's marked "to fill", nothing red before they type."""
    app = _form(tmp_path, FRESH_DRAFT, [])
    assert snap_compare(app, terminal_size=size, run_before=_ready)


async def _save_tried(pilot) -> None:
    await _ready(pilot)
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False  # the picture is taken after a while: a blinking cursor would make it flaky
    await pilot.press("ctrl+s")
    await _ready(pilot)
    pilot.app.clear_notifications()  # the "Not saved" toast comes and goes on a timer: keep the picture stable
    await _ready(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_handoff_form_with_findings(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    """After a save was tried every field shows its findings."""
    app = _form(tmp_path, VAGUE_DRAFT, ["started from this session's last handoff main-20260314T080000Z.yaml"])
    assert snap_compare(app, terminal_size=size, run_before=_save_tried)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compression_preview(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             size: tuple[int, int]) -> None:
    monkeypatch.setattr(compress_preview, "compress_text", pinned_compression)
    app = FlowHost(lambda: CompressPreviewScreen(lambda: "the live window", ITEMS, tmp_path, "s", Config()))
    assert snap_compare(app, terminal_size=size, run_before=_ready)
