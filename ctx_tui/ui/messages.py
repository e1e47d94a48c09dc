"""What the follow worker posts to the app: immutable snapshots, never widgets."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from textual.message import Message

from ctx_tui.usage_tail import TailUsage
from ctx_tui.window_state import WindowState

if TYPE_CHECKING:
    from ctx_tui.memory.view import MemoryView


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything the panels show, read in one batch off the UI thread."""

    state: WindowState
    #: The memory model's view of the session, or None with ``memory_note`` saying why.
    memory: MemoryView | None
    memory_note: str | None
    handoff_threshold: float  # fraction of the window at which a handoff is suggested
    danger_zone: tuple[float, float]
    changed_at: datetime  # when the worker last saw the session change


class Loading(Message):
    """The first read of a (possibly long) transcript has started."""

    def __init__(self, size_bytes: int) -> None:
        super().__init__()
        self.size_bytes = size_bytes


class UsageKnown(Message):
    """The usage figure, read from the transcript's end while the whole file is still being read."""

    def __init__(self, usage: TailUsage, handoff_threshold: float) -> None:
        super().__init__()
        self.usage = usage
        self.handoff_threshold = handoff_threshold


class SnapshotReady(Message):
    """One batch of changes has been read (``source``: the feed that read it, to drop it after a session switch)."""

    def __init__(self, snapshot: Snapshot, source: object | None = None) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.source = source


class SourceProblem(Message):
    """A watched file could not be read (missing, unreadable, invalid); the last good data stays on screen."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
