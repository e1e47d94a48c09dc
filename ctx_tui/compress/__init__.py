"""Compression of the live window or any text, with measured retention (docs/compression.md).

Public entry points:

* :func:`compress_text` — one text, one strategy, a token budget → :class:`CompressionResult`;
* :func:`compress_window` — the live window of a session, rendered as clean text first;
* :func:`compact_line` — a ``/compact <focus>`` instruction naming the critical items;
* :func:`render_entries` — transcript entries as clean text (what ``collect`` returns).

The names are imported when first used (PEP 562), so ``import ctx_tui.compress.core``
— what a fresh ``ctx-tui api`` call needs — does not load the session and
config models behind ``compress_window`` and ``compact_line``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_HOMES = {
    "STRATEGIES": "core",
    "CompressionResult": "core",
    "compress_text": "core",
    "Fact": "facts",
    "ItemLike": "facts",
    "extract_facts": "facts",
    "measure_retention": "facts",
    "compact_line": "focus",
    "compress_window": "session",
    "render_entries": "ctx_tui.transcripts.render",
}
__all__ = sorted(_HOMES)

if TYPE_CHECKING:  # `X as X`: re-exported for the type checker too
    from ctx_tui.compress.core import STRATEGIES as STRATEGIES
    from ctx_tui.compress.core import CompressionResult as CompressionResult
    from ctx_tui.compress.core import compress_text as compress_text
    from ctx_tui.compress.facts import Fact as Fact
    from ctx_tui.compress.facts import ItemLike as ItemLike
    from ctx_tui.compress.facts import extract_facts as extract_facts
    from ctx_tui.compress.facts import measure_retention as measure_retention
    from ctx_tui.compress.focus import compact_line as compact_line
    from ctx_tui.compress.session import compress_window as compress_window
    from ctx_tui.transcripts.render import render_entries as render_entries


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'ctx_tui.compress' has no attribute {name!r}")
    value = getattr(import_module(home if "." in home else f"ctx_tui.compress.{home}"), name)
    globals()[name] = value
    return value
