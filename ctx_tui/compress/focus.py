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

MAX_CHARS = 600
ITEM_CHARS = 140
_RANK = {
    "goal": 0, "constraint": 0, "user_preference": 0, "critical_info": 0,
    "decision": 1, "state": 1, "progress": 1,
}
_PREFIX = "/compact Keep these verbatim: "
_SUFFIX = " Summarise the rest briefly; keep file paths, commands and open errors."
_EMPTY = "/compact Keep the current goal, decisions, file paths, commands and open errors; summarise the rest briefly."


def _short(text: str) -> str:
    text = " ".join(text.split()).replace(";", ",")
    return text if len(text) <= ITEM_CHARS else text[: ITEM_CHARS - 1].rstrip() + "…"


def compact_line(items: Sequence[ItemLike]) -> str:
    """A one-line ``/compact`` instruction naming the critical items (at most ``MAX_CHARS``)."""
    live = [i for i in items if not getattr(i, "dismissed", False)]
    ordered = sorted(
        enumerate(live),
        key=lambda pair: (_RANK.get(str(getattr(pair[1].type, "value", pair[1].type)), 2), pair[0]),
    )
    parts: list[str] = []
    room = MAX_CHARS - len(_PREFIX) - len(_SUFFIX)
    for _, item in ordered:
        kind = getattr(item.type, "value", item.type)
        part = f"({kind}) {_short(item.content)}"
        if len(part) + 2 > room:
            continue
        parts.append(part)
        room -= len(part) + 2
    if not parts:
        return _EMPTY
    return _PREFIX + "; ".join(parts) + "." + _SUFFIX
