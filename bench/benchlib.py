"""What the bench scripts share: the project importable without installing it,
and the shared real transcripts (named as in ``tests/conftest.py``).

Each script runs as ``python bench/bench_<name>.py``, so this folder is on
``sys.path`` and ``import benchlib`` finds this module.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _folder in (ROOT, ROOT / "tests"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from conftest import (  # noqa: E402  (one list of fixture names, for the tests and the benches)
    CLAUDE_COMPACTED,
    CLAUDE_SHORT,
    CLAUDE_SIDECHAIN,
    CODEX_FULL,
    CODEX_REDACTED,
    FIXTURES,
)

__all__ = ["CLAUDE_COMPACTED", "CLAUDE_SHORT", "CLAUDE_SIDECHAIN", "CODEX_FULL", "CODEX_REDACTED", "FIXTURES", "ROOT", "child_env"]


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a timed child process: ``os.environ`` plus ``extra``, bytecode written.

    With ``PYTHONDONTWRITEBYTECODE`` set (the shell these benches were first
    run in had it, and a fresh worktree has no ``__pycache__``), a child
    compiles every ctx_tui module it imports from source on every run, while
    the reference ``python -c pass`` loads the standard library's compiled
    bytecode. An installed ctx-tui has its bytecode (pip compiles it; an
    editable install writes it on first use), so the variable is dropped and
    the caller's first, untimed run writes the bytecode.
    """
    env = {**os.environ, **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env
