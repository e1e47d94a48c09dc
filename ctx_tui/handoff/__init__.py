"""Handoffs for the next session (docs/handoff.md).

- :mod:`~ctx_tui.handoff.schema` — the YAML format as a pydantic model; safe
  reading and stable, readable writing.
- :mod:`~ctx_tui.handoff.gate` — the quality gate :func:`check_handoff`, one
  pure function shared by the CLI and the TUI form (a package: one module per part).
- :mod:`~ctx_tui.handoff.prefill` — a draft built from the session (edits,
  plan, usage, goal and decisions of the extraction) and its session memory.
- :mod:`~ctx_tui.handoff.draft` — the one starting draft of the form and the
  CLI: the prefill, continued from the session's last handoff.
- :mod:`~ctx_tui.handoff.writer` — append-only, collision-free writing.
- :mod:`~ctx_tui.handoff.resume` — listing handoffs and the resume prompt.
"""
