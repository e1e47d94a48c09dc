"""What the Claude Code hooks need of :mod:`ctx_tui.kinds`, without ``enum``.

The prompt hook sorts a restatement by importance, the ``SessionStart`` hook
drops repeated facts, and both time-stamp the audit event they write.
:mod:`ctx_tui.kinds` defines the kinds as ``StrEnum`` classes, and ``import
enum`` costs about half a bare Python start (~17M instructions; ``re``
imports it too): the hooks import this module instead (docs/performance.md,
the hooks section). :mod:`ctx_tui.kinds` re-exports all of it.
"""

from __future__ import annotations

import time

#: Each importance by name and its rank (:attr:`ctx_tui.kinds.Importance.rank`).
IMPORTANCE_RANKS: dict[str, int] = {"high": 2, "medium": 1, "low": 0}


def importance_rank(value: object) -> int:
    """The rank of an importance or its name (2 high, 1 medium, 0 low); -1 for anything else (sorts after low)."""
    return IMPORTANCE_RANKS.get(str(getattr(value, "value", value)), -1)


def now_iso() -> str:
    """The UTC time as ``datetime.now(timezone.utc).isoformat(timespec="seconds")`` writes it.

    From the time module: the prompt hook and the audit log do not import datetime
    (its module defines the pure-Python classes before loading the C ones: ~1.3 ms).
    """
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time_ns() // 1_000_000_000))


def now_iso_ms() -> str:
    """:func:`now_iso` with milliseconds, as ``isoformat(timespec="milliseconds")`` writes them."""
    ns = time.time_ns()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 1_000_000_000)) + f".{ns // 1_000_000 % 1000:03d}+00:00"


def normalise_content(text: str) -> str:
    """Content compared for duplicates: case-folded, whitespace collapsed, end punctuation dropped.

    ``str.split()`` splits at what ``re``'s ``\\s`` matches in a str (both ``str.isspace``).
    """
    return " ".join(text.split()).casefold().rstrip(".!;:, ")
