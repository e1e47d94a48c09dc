"""The ``/compact <focus>`` line: tells the agent's own compaction what to keep.

Claude Code's ``/compact`` takes free-text instructions. The line names the
critical items — high importance first (goal, constraint, user preference,
critical info), then medium (decision, state, progress), then the rest — each
shortened to ``ITEM_CHARS``, as many as fit in ``MAX_CHARS`` so it stays
short enough to paste.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctx_tui.compress.facts import ItemLike
from ctx_tui.memory.items import importance_for

MAX_CHARS = 600
ITEM_CHARS = 140
_PREFIX = "/compact Keep these verbatim: "
_SUFFIX = " Summarise the rest briefly; keep file paths, commands and open errors."
_EMPTY = "/compact Keep the current goal, decisions, file paths, commands and open errors; summarise the rest briefly."


def _short(text: str) -> str:
    text = " ".join(text.split()).replace(";", ",")
    return text if len(text) <= ITEM_CHARS else text[: ITEM_CHARS - 1].rstrip() + "…"


def _type_rank(item: ItemLike) -> int:
    """The importance rank the item's type implies (an unknown type ranks as low)."""
    try:
        return importance_for(item.type).rank  # type: ignore[arg-type]
    except ValueError:
        return 0


def compact_line(items: Sequence[ItemLike]) -> str:
    """A one-line ``/compact`` instruction naming the critical items (at most ``MAX_CHARS``)."""
    live = [i for i in items if not getattr(i, "dismissed", False)]
    parts: list[str] = []
    room = MAX_CHARS - len(_PREFIX) - len(_SUFFIX)
    for item in sorted(live, key=lambda item: -_type_rank(item)):  # stable: given order within a rank
        kind = getattr(item.type, "value", item.type)
        part = f"({kind}) {_short(item.content)}"
        if len(part) + 2 > room:
            continue
        parts.append(part)
        room -= len(part) + 2
    if not parts:
        return _EMPTY
    return _PREFIX + "; ".join(parts) + "." + _SUFFIX
