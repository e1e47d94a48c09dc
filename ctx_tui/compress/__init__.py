"""Compression of the live window or any text, with measured retention (SPEC 4).

Public entry points (documented in docs/compression.md):

* :func:`compress_text` — one text, one strategy, a token budget → :class:`CompressionResult`;
* :func:`compress_window` — the live window of a session, rendered as clean text first;
* :func:`compact_line` — a ``/compact <focus>`` instruction naming the critical items;
* :func:`render_entries` — transcript entries as clean text (what ``collect`` returns).
"""

from ctx_tui.compress.core import STRATEGIES, CompressionResult, compress_text
from ctx_tui.compress.facts import Fact, ItemLike, extract_facts, measure_retention
from ctx_tui.compress.focus import compact_line
from ctx_tui.compress.window import compress_window
from ctx_tui.compress.window_text import render_entries

__all__ = [
    "STRATEGIES",
    "CompressionResult",
    "Fact",
    "ItemLike",
    "compact_line",
    "compress_text",
    "compress_window",
    "extract_facts",
    "measure_retention",
    "render_entries",
]
