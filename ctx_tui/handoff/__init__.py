"""Handoffs for the next session (SPEC section 6).

- :mod:`~ctx_tui.handoff.schema` — the YAML format as a pydantic model; safe
  reading and stable, readable writing.
- :mod:`~ctx_tui.handoff.gate` — the quality gate :func:`check_handoff`, one
  pure function shared by the CLI and the TUI form.
- :mod:`~ctx_tui.handoff.prefill` — a draft built from the session (edits,
  plan, usage) and its session memory (decisions).
- :mod:`~ctx_tui.handoff.writer` — append-only, collision-free writing.
- :mod:`~ctx_tui.handoff.resume` — listing handoffs and the resume prompt.
"""
