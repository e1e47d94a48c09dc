"""The gauge right after a compaction, against the figure the next reply reports, on real sessions.

For every compaction in a real Claude Code or pi transcript that a
main-chain reply with usage follows, the transcript is cut just before that reply (what
ctx-tui has while the agent works on it) and read: the estimate is compared
with the context the reply then reports. Prints a Markdown table (the one in
docs/transcripts.md) and the largest error; tests/test_compaction_estimate.py
pins it at 15%.

Sources: the shared real fixtures (../shared/fixtures/transcripts/claude,
skipped when absent), the real excerpts stored in tests/data/extract/excerpts
and the pi session in tests/fixtures/pi; or the files given.

    python bench/eval_compaction.py [FILE ...]
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctx_tui.window import Session  # noqa: E402

SOURCES = (
    ROOT.parent / "shared" / "fixtures" / "transcripts" / "claude",
    ROOT / "tests" / "data" / "extract" / "excerpts",
    ROOT / "tests" / "fixtures" / "pi",
)


@dataclass(frozen=True)
class Case:
    session: str
    trigger: str
    pre_tokens: int | None
    reported: int  # what the first reply after the compaction reports
    estimated: int  # ctx-tui's figure just before that reply

    @property
    def error(self) -> float:
        return (self.estimated - self.reported) / self.reported


def _row(line: bytes) -> dict | None:
    try:
        row = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return row if isinstance(row, dict) else None


def _is_compaction(row: dict) -> bool:
    """A Claude Code ``compact_boundary`` (main chain) or a pi ``compaction`` row."""
    return (row.get("subtype") == "compact_boundary" and not row.get("isSidechain")) or row.get("type") == "compaction"


def _is_reply(row: dict) -> bool:
    """A main-chain Claude Code reply, or a pi assistant message, that reports usage."""
    message = row.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
        return False
    if row.get("type") == "message":  # pi
        return message.get("role") == "assistant" and message.get("stopReason") not in ("aborted", "error")
    return (
        row.get("type") == "assistant"
        and not row.get("isSidechain")
        and not row.get("isApiErrorMessage")
        and message.get("model") != "<synthetic>"
    )


def _state(lines: list[bytes], scratch: Path):
    scratch.write_bytes(b"".join(lines))
    session = Session(scratch)
    session.poll()
    return session.state()


def cases_of(path: Path, scratch: Path) -> list[Case]:
    """One case per compaction of ``path`` that a reply with usage follows."""
    lines = path.read_bytes().splitlines(keepends=True)
    rows = [_row(line) for line in lines]
    found: list[Case] = []
    for at, row in enumerate(rows):
        if not row or not _is_compaction(row):
            continue
        for nxt in range(at + 1, len(rows)):
            later = rows[nxt]
            if later and _is_compaction(later):
                break
            if later and _is_reply(later):
                before, after = _state(lines[:nxt], scratch), _state(lines[: nxt + 1], scratch)
                if before.usage_source == "estimated" and after.usage_source == "reported":
                    meta = row.get("compactMetadata") if isinstance(row.get("compactMetadata"), dict) else {}
                    trigger, pre = (meta.get("trigger"), meta.get("preTokens")) if meta else ("auto", row.get("tokensBefore"))
                    found.append(Case(path.stem, str(trigger or "?"), pre, after.context_tokens, before.context_tokens))
                break
    return found


def cases(paths: list[Path] | None = None) -> list[Case]:
    """Every case in ``paths``, by default in the real transcripts present."""
    if paths is None:
        paths = [p for folder in SOURCES if folder.is_dir() for p in sorted(folder.glob("*.jsonl"))]
    found: list[Case] = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / "cut.jsonl"
        for path in paths:
            found.extend(cases_of(path, scratch))
    return found


def table(found: list[Case]) -> str:
    lines = [
        "| session | compaction (trigger, preTokens) | next reply reports | estimate before it | error |",
        "|---|---|---|---|---|",
    ]
    for case in found:
        pre = f"{case.pre_tokens:,}" if isinstance(case.pre_tokens, int) else "?"
        lines.append(f"| {case.session} | {case.trigger}, {pre} | {case.reported:,} | {case.estimated:,} | {case.error:+.1%} |")
    return "\n".join(lines)


def main() -> None:
    found = cases([Path(a) for a in sys.argv[1:]] or None)
    print(table(found))
    if found:
        print(f"\n{len(found)} case(s); largest error {max(abs(c.error) for c in found):.1%}")
    else:
        print("\nno real transcript with a compaction followed by a reply found")


if __name__ == "__main__":
    main()
