"""Every dashboard key in one table: the bindings, the command palette and the help screen read it."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True, slots=True)
class KeySpec:
    key: str  # Textual key name
    shown: str  # how the key is written in the footer and help
    action: str  # the App action (without "action_")
    label: str  # short description (footer, palette)
    help: str  # what it does, one sentence (help screen, palette)


#: Help comes first: on a narrow terminal the footer may not hold every key, and ``?`` lists them all.
DASHBOARD_KEYS: tuple[KeySpec, ...] = (
    KeySpec("question_mark", "?", "help", "Help", "Show every key, what each panel and column means and where the data comes from."),
    KeySpec("c", "c", "compress", "Compress", "Compress the live window into a dense summary, preview it, then save, copy or turn it into a /compact line."),
    KeySpec("r", "r", "restate", "Restate", "Queue the highlighted tracked item so the agent sees it again on the next prompt (without the hook: copy it to paste)."),
    KeySpec("p", "p", "promote", "Promote", "Propose the highlighted item for long-term memory (MEMORY.md); it waits for approval."),
    KeySpec("h", "h", "handoff", "Handoff", "Open the handoff form, pre-filled from the session, behind the quality gate."),
    KeySpec("slash", "/", "search", "Search", "Search every memory tier by relevance (BM25)."),
    KeySpec("n", "n", "new_item", "New item", "Register a new tracked item (goal, constraint, decision, ...)."),
    KeySpec("a", "a", "approve", "Approve", "Approve the first pending promotion: it is written to MEMORY.md."),
    KeySpec("x", "x", "reject", "Reject", "Reject the first pending promotion."),
    KeySpec("s", "s", "sessions", "Sessions", "Pick another Claude Code, Codex, Gemini CLI or pi session of this machine (type to filter, Enter opens it here)."),
    KeySpec("m", "m", "metrics", "Metrics", "Plot context per round and compactions; count decay, restatements, retrieval hits, promotions, handoffs."),
    KeySpec("l", "l", "layout", "Layout", "Switch the panels: by the terminal's width, one column, or a grid; saved in your user config."),
    KeySpec("q", "q", "quit", "Quit", "Leave the dashboard (the session and its files are untouched)."),
)


def bindings() -> list[BindingType]:
    """The dashboard's key bindings, each with an id so users can remap it in a keymap."""
    return [
        Binding(spec.key, spec.action, spec.label, key_display=spec.shown, id=f"ctx.{spec.action}")
        for spec in DASHBOARD_KEYS
    ]
