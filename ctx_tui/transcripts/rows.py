"""The shape a parsed row must have before any reader sees it.

Transcripts are untrusted: a line may be valid JSON of any shape (``{"type": []}``,
a ``message`` that is a number, a ``payload`` that is a list). Readers compare
``type`` against sets and index into ``message`` / ``payload``; a row of the
wrong shape would raise deep inside them, after part of it was already added.
:func:`row_shape_ok` is checked once where rows enter the readers
(``ctx_tui.transcripts.reader``): a row that fails it is a skipped line,
counted, and no reader is ever called with it.

Only the keys every reader dispatches on are checked; values deeper down are
read defensively by each reader (``isinstance`` before use).
"""

from __future__ import annotations

from typing import Any

def _keys_ok(obj: dict[str, Any]) -> bool:
    kind = obj.get("type")
    if kind is not None and type(kind) is not str:
        return False
    role = obj.get("role")
    return role is None or type(role) is str


def row_shape_ok(row: Any) -> bool:
    """True when ``row`` is an object whose dispatch keys have the expected types.

    ``type`` and ``role`` are strings (or absent); ``message`` and ``payload``
    are objects (or absent) whose own ``type`` and ``role`` are strings (or
    absent). Runs once per row of a 100 MB transcript: written flat.
    """
    if type(row) is not dict or not _keys_ok(row):
        return False
    inner = row.get("payload")
    if inner is not None and (type(inner) is not dict or not _keys_ok(inner)):
        return False
    inner = row.get("message")
    return inner is None or (type(inner) is dict and _keys_ok(inner))
