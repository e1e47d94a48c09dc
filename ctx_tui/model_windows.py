"""Context window sizes by model: the table used when neither Claude Code, the config nor the transcript says.

Kept apart from :mod:`ctx_tui.window` (which needs the config and the readers) so that
``ctx-tui statusline`` and the session picker size a window by the same rule
as ``stats`` without importing more than this module.
"""

from __future__ import annotations

#: The window is not known: no config entry, nothing in the transcript, a model not in the table.
UNKNOWN_WINDOW = 0
CLAUDE_WINDOW = 200_000
CLAUDE_1M_WINDOW = 1_000_000
#: Model id prefix -> context window, for transcripts that do not state it.
MODEL_WINDOWS: tuple[tuple[str, int], ...] = (
    ("claude", CLAUDE_WINDOW),
    ("gpt-5", 272_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("gemini", 1_048_576),
)
#: Codex keeps a share of the model's window for itself and reports the rest
#: (``model_context_window``: 258,400 of gpt-5's 272,000).
CODEX_WINDOW_SHARE = 0.95
#: ``ctx_tui.transcripts.model.Format`` values (not imported: see the module doc).
CLAUDE_CODE_FORMAT = "claude-code"
CODEX_FORMAT = "codex"


def table_window(model: str | None, fmt: str | None = None, peak: int = 0) -> int:
    """The table's window of ``model`` (``fmt``: the transcript format's value), or UNKNOWN_WINDOW.

    ``fmt`` and ``peak`` (the largest context reported) fill in what the model
    id does not say: a Claude Code session is 200,000 (1,000,000 once its
    context went past 200,000, up to 1,000,000: more is no evidence of a
    window); a Codex rollout gets 95% of the table's window (what Codex itself
    reports of it).
    """
    size = UNKNOWN_WINDOW
    if model:
        lowered = model.lower()
        if lowered.endswith("[1m]"):
            size = CLAUDE_1M_WINDOW
        else:
            size = next((s for prefix, s in MODEL_WINDOWS if lowered.startswith(prefix)), UNKNOWN_WINDOW)
    if fmt == CLAUDE_CODE_FORMAT and size in (UNKNOWN_WINDOW, CLAUDE_WINDOW):
        size = CLAUDE_1M_WINDOW if CLAUDE_WINDOW < peak <= CLAUDE_1M_WINDOW else CLAUDE_WINDOW
    if fmt == CODEX_FORMAT and size:
        size = round(size * CODEX_WINDOW_SHARE)
    return size
