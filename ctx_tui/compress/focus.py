"""The ``/compact <focus>`` line: tells the agent's own compaction what to keep.

Claude Code's ``/compact`` takes free-text instructions. The line names the
tracked items — high importance first (goal, constraint, user preference,
critical info), then medium (decision, state, progress), then the rest; the
given order within a rank — each *whole*: an item never is cut, and one that
does not fit in what is left of ``MAX_CHARS`` is passed over for the next
(shorter) one. The line stays one line, short enough to paste and to leave
the compaction most of its room.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctx_tui.compress.facts import ItemLike
from ctx_tui.memory.items import importance_for
from ctx_tui.plain_text import one_line

MAX_CHARS = 1000
_PREFIX = "/compact Keep these verbatim: "
_SUFFIX = " Summarise the rest briefly; keep file paths, commands and open errors."
_EMPTY = "/compact Keep the current goal, decisions, file paths, commands and open errors; summarise the rest briefly."


def _type_rank(item: ItemLike) -> int:
    """The importance rank the item's type implies (an unknown type ranks as low)."""
    try:
        return importance_for(str(item.type)).rank
    except ValueError:
        return 0


def _part(item: ItemLike) -> str:
    """``(type) content`` on one line; ``;`` inside becomes ``,`` (it separates items), a closing ``.`` goes."""
    kind = getattr(item.type, "value", item.type)
    return f"({kind}) {one_line(item.content).replace(';', ',').rstrip(' ;,.')}"


def compact_line(items: Sequence[ItemLike]) -> str:
    """A one-line ``/compact`` instruction naming the critical items, each whole (at most ``MAX_CHARS``)."""
    live = [i for i in items if not getattr(i, "dismissed", False)]
    parts: list[str] = []
    room = MAX_CHARS - len(_PREFIX) - len(_SUFFIX) - 1  # the closing full stop
    for item in sorted(live, key=lambda item: -_type_rank(item)):  # stable: given order within a rank
        part = _part(item)
        cost = len(part) + (2 if parts else 0)
        if cost > room:
            continue
        parts.append(part)
        room -= cost
    if not parts:
        return _EMPTY
    body = "; ".join(parts)
    return _PREFIX + body + ("" if body.endswith(("!", "?", "…")) else ".") + _SUFFIX
