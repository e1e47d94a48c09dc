"""What changed between two snapshots that deserves a notification."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ctx_tui.ui.accounting import compaction_text
from ctx_tui.ui.messages import Snapshot
from ctx_tui.ui.safe import clean, shorten

Severity = Literal["information", "warning", "error"]

#: Items named in one "decayed" notice; the rest are counted.
MAX_LISTED = 3


@dataclass(frozen=True, slots=True)
class Notice:
    title: str
    text: str  # plain text; shown with markup off
    severity: Severity = "information"


def notices(prev: Snapshot | None, new: Snapshot) -> list[Notice]:
    """Events between ``prev`` and ``new``: compaction, handoff threshold crossed, items decayed
    (or dropped out of the context).

    Nothing is announced for the first snapshot (what was already true when the
    dashboard opened is on screen, not news).
    """
    if prev is None:
        return []
    out: list[Notice] = []
    if len(new.state.compactions) > len(prev.state.compactions):
        last = new.state.compactions[-1]
        before = f" ({compaction_text(last, new.state.context_window).plain})" if last.pre_tokens else ""
        out.append(Notice("Compaction", f"The agent compacted its context{before}; the live window restarts at the summary."))
    threshold = new.handoff_threshold * 100
    if prev.state.usage_pct < threshold <= new.state.usage_pct:
        out.append(
            Notice("Handoff threshold", f"Context at {new.state.usage_pct:.0f}% (threshold {threshold:.0f}%): press h to write a handoff.", "warning")
        )
    was = {s.id: s for s in prev.memory.statuses} if prev.memory else {}
    fresh = [
        s for s in (new.memory.statuses if new.memory else ())
        if s.flagged and not (s.id in was and was[s.id].flagged)
        # an item that is new in this batch (registered a moment ago, not said in the transcript yet)
        # has not faded: only one that decayed by rounds is news
        and (s.id in was or s.decayed)
    ]
    if fresh:
        # One notice per batch, however many items faded at once.
        lines = [
            f"{s.type.value}: {shorten(clean(s.content, one_line=True), 80)} — "
            f"{'out of context' if s.out_of_context else s.recommendation}"
            for s in fresh[:MAX_LISTED]
        ]
        if len(fresh) > MAX_LISTED:
            lines.append(f"… and {len(fresh) - MAX_LISTED} more in the Tracked items panel")
        title = "Item decayed" if len(fresh) == 1 else f"{len(fresh)} items decayed"
        out.append(Notice(title, "\n".join(lines), "warning"))
    return out
