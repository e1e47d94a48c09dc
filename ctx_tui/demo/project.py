"""A throw-away project folder for ``ctx-tui --demo``: an empty transcript and a small MEMORY.md."""

from __future__ import annotations

from pathlib import Path

from ctx_tui.storage import write_atomic

TRANSCRIPT_NAME = "demo-session.jsonl"

#: Long-term memory a team would have curated before this session (shown in the tiers panel).
DEMO_MEMORY_MD = """\
# Project memory

## Conventions
- Every change ships with its tests; run `pytest -q` before committing.
- Settings come from environment variables read in src/shopfront/settings.py.

## Architecture
- The API is a Starlette app; cross-cutting concerns are middleware built in build_middleware().
- Redis db 0 is the session store; other databases are free for features.

## Lessons
- Load tests run with locust from bench/locustfile.py; compare p95 and p99, not averages.
"""


def prepare_demo_project(folder: Path) -> Path:
    """Write the demo's MEMORY.md into ``folder`` and return the (empty) transcript path to replay into."""
    write_atomic(folder / "MEMORY.md", DEMO_MEMORY_MD)
    transcript = folder / TRANSCRIPT_NAME
    transcript.write_bytes(b"")
    return transcript
