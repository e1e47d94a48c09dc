"""The handoff quality gate: one pure function shared by the CLI, the writer and the TUI form.

:func:`check_handoff` takes a :class:`~ctx_tui.handoff.schema.Handoff` or a
(possibly half-filled) dict and returns :class:`Finding` objects, field by
field. A handoff passes when no finding is an error. It never raises on a
draft, reads nothing but ``stat`` of the listed files (and only when a project
is given), and takes about a millisecond for a 500-word context
(``bench/bench_handoff.py``), so the form can call it on every debounced keystroke.

Modules: :mod:`.findings` (what it answers), :mod:`.text` (tokens, sentences),
:mod:`.concrete` (what names a thing), :mod:`.evidence` (what shows state),
:mod:`.vocabulary` (the few word lists), one ``*_rules`` module per part of
the handoff, and :mod:`.check` (the order they run in). The rules and their
ids are documented in ``docs/handoff.md``.
"""

from ctx_tui.handoff.gate.check import check_handoff
from ctx_tui.handoff.gate.concrete import anchors
from ctx_tui.handoff.gate.context_rules import MAX_CONTEXT_WORDS
from ctx_tui.handoff.gate.findings import Finding, Severity, passes

__all__ = ["MAX_CONTEXT_WORDS", "Finding", "Severity", "anchors", "check_handoff", "passes"]
