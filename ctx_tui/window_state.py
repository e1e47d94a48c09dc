"""The context window's state as data (``WindowState`` and its parts), handed to everything above.

``ctx_tui.window`` builds these from a transcript (see ``Session``); the memory
model, compression, handoff prefill, the CLI and the dashboard only read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from ctx_tui.transcripts.model import Compaction, Entry, SessionMeta, UsagePoint, UsageSource

#: Where the window size came from: Claude Code's status line report (the
#: authority), the config's ``window.sizes``, the transcript, or the model table.
WindowSource = Literal["Claude Code", "config", "transcript", "model table"]
#: How a window source is said to the user.
WINDOW_SOURCE_TEXT: dict[str, str] = {
    "Claude Code": "reported by Claude Code",
    "config": "from the config (window.sizes)",
    "transcript": "stated by the transcript",
    "model table": "from the model table",
}


#: Defaults of ``window.autocompact_threshold`` and ``window.handoff_threshold`` (config.py):
#: here so that a command reading no config file needs no config model.
AUTOCOMPACT_THRESHOLD = 0.92
HANDOFF_THRESHOLD = 0.8


@dataclass(slots=True)
class WindowEntry:
    """An entry of the live window with its calibrated place in it."""

    entry: Entry
    offset: int  # token offset of its start in the live window (calibrated)
    tokens: int  # calibrated tokens, so that the live entries sum to context_tokens
    position: float  # relative position of its midpoint, 0.0 (start) .. 1.0 (end)


class UsageFigures:
    """The figures derived from a usage reading, shared by :class:`WindowState` and ``usage_tail.TailUsage``.

    The class using it has ``context_window``, ``context_tokens``,
    ``autocompact_threshold``, ``usage_source`` and ``token_source``.
    """

    __slots__ = ()
    context_window: int
    context_tokens: int
    autocompact_threshold: float
    usage_source: str
    token_source: str

    @property
    def window_known(self) -> bool:
        return self.context_window > 0

    @property
    def usage_pct(self) -> float:
        return 100.0 * self.context_tokens / self.context_window if self.context_window else 0.0

    @property
    def headroom_tokens(self) -> int:
        """Tokens left before the agent compacts on its own."""
        return max(0, int(self.context_window * self.autocompact_threshold) - self.context_tokens)

    @property
    def estimated(self) -> bool:
        return self.usage_source == "estimated" or self.token_source == "estimate"


@dataclass(slots=True)
class WindowState(UsageFigures):
    """A snapshot of the session's context window; cheap to hand to the UI."""

    path: Path
    meta: SessionMeta
    context_tokens: int
    context_window: int  # 0: not known (no config entry, nothing in the transcript, model not in the table)
    usage_source: UsageSource
    #: How entry token counts were made: e.g. "tiktoken:cl100k_base" or "estimate".
    token_source: str
    compactions: list[Compaction]
    rounds: int  # the current (last) round number
    entries_total: int  # entries read in the whole session
    skipped_lines: int  # lines that could not be parsed
    live: list[WindowEntry]  # main-chain entries since the last compaction, in order
    history: list[UsagePoint] = field(default_factory=list)
    autocompact_threshold: float = AUTOCOMPACT_THRESHOLD
    implausible_usage: int = 0  # usage reports ignored as outside [0, 10 x window]
    window_source: WindowSource = "model table"
    #: Why the file is not a transcript ctx-tui reads (every figure is then empty), or None.
    unsupported: str | None = None


class SessionLike(Protocol):
    """What the memory model needs of a session (``ctx_tui.window.Session`` has it)."""

    path: Path

    @property
    def entries(self) -> list[Entry]: ...

    @property
    def meta(self) -> SessionMeta: ...

    def state(self) -> WindowState: ...
