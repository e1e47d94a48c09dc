"""What the bench scripts share: the project importable without installing it,
and the shared real transcripts (named as in ``tests/conftest.py``).

Each script runs as ``python bench/bench_<name>.py``, so this folder is on
``sys.path`` and ``import benchlib`` finds this module.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _folder in (ROOT, ROOT / "tests"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from conftest import (  # noqa: E402  (one list of fixture names, for the tests and the benches)
    CLAUDE_COMPACTED,
    CLAUDE_SIDECHAIN,
    CODEX_FULL,
    CODEX_REDACTED,
    FIXTURES,
)

__all__ = ["CLAUDE_COMPACTED", "CLAUDE_SIDECHAIN", "CODEX_FULL", "CODEX_REDACTED", "FIXTURES", "ROOT"]
