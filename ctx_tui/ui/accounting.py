"""One accounting of tokens for every panel: what each figure counts, said next to it.

The figures the dashboard shows come from three different counts, and a panel
that shows one without saying which made them look contradictory:

* **in context** — what the agent reports it sent (Claude: input + cache
  tokens of the last reply; Codex: the last ``token_count``): system prompt,
  tool definitions and the live window's messages. Estimated with tiktoken
  when the transcript reports nothing.
* **live-window text** — the transcript text of the live window (since the
  last compaction) counted with tiktoken. The compression preview compresses
  it rendered as text (thinking left out, long tool outputs as the reader
  keeps them), so its figure is smaller and it says so. The rest of "in context" is the system prompt, tool
  definitions and what the transcript does not record.
* **whole transcript** — the text of the whole session, compacted parts
  included (the short-term tier).

A reported figure that cannot be true (a compaction of more than
``IMPLAUSIBLE_FACTOR`` times the window) is flagged, never shown bare.
"""

from __future__ import annotations

from rich.text import Text

from ctx_tui.transcripts.model import Compaction
from ctx_tui.window_state import WindowState

#: A reported "tokens before compaction" above this multiple of the window cannot be a context size.
IMPLAUSIBLE_FACTOR = 2


def live_text_tokens(state: WindowState) -> int:
    """The tiktoken count of the live window's transcript text (before scaling to the reported total)."""
    return sum(w.entry.tokens for w in state.live)


def overhead_tokens(state: WindowState) -> int:
    """What the context holds beyond the transcript's text: system prompt, tool definitions, images."""
    return max(0, state.context_tokens - live_text_tokens(state))


def implausible(pre_tokens: int | None, window: int) -> bool:
    return bool(pre_tokens and window and pre_tokens > IMPLAUSIBLE_FACTOR * window)


def compaction_text(compaction: Compaction, window: int) -> Text:
    """``auto, 155,979 tokens before``, or the figure flagged when it cannot be a context size."""
    text = Text(end="")
    if compaction.trigger:
        text.append(compaction.trigger)
    pre = compaction.pre_tokens
    if pre:
        if text:
            text.append(", ")
        if implausible(pre, window):
            text.append(f"⚠ reported {pre:,} before: more than {IMPLAUSIBLE_FACTOR}× the window, not a context size",
                        style="bold yellow")
        else:
            text.append(f"{pre:,} tokens before")
    return text


def context_source(state: WindowState) -> str:
    """Who made the in-context figure."""
    return "estimated with tiktoken" if state.estimated else "reported by the agent"


def compress_scope(original_tokens: int, basis: tuple[int, int] | None) -> str:
    """What the compression preview's first figure counts, against the usage panel's two figures.

    ``basis`` is (live-window transcript text, in context) as the usage panel shows them. The
    compressed text is smaller than the first: thinking is left out and long tool outputs are
    taken as the reader keeps them.
    """
    scope = (f"compressing the live window as text, without system prompt, tools and thinking: "
             f"{original_tokens:,} tokens")
    if basis:
        live_text, context = basis
        return f"{scope} (usage panel: {live_text:,} live-window text of {context:,} in context)"
    return scope
