"""The gauge right after a compaction, against the figure the next reply reports, on real sessions.

For every compaction in a real Claude Code transcript that a main-chain reply
with usage follows, the transcript is cut just before that reply (what
ctx-tui has while the agent works on it) and read: the estimate is compared
with the context the reply then reports. Prints a Markdown table (the one in
docs/transcripts.md) and the largest error; tests/test_compaction_estimate.py
pins it at 15%.

Sources: the shared real fixtures (../shared/fixtures/transcripts/claude,
skipped when absent) and the real excerpts stored in tests/data/extract/excerpts.

    python bench/eval_compaction.py
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

SOURCES = (ROOT.parent / "shared" / "fixtures" / "transcripts" / "claude", ROOT / "tests" / "data" / "extract" / "excerpts")


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


def _is_reply(row: dict) -> bool:
    message = row.get("message")
    return (
        row.get("type") == "assistant"
        and not row.get("isSidechain")
        and not row.get("isApiErrorMessage")
        and isinstance(message, dict)
        and isinstance(message.get("usage"), dict)
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
        if not row or row.get("subtype") != "compact_boundary" or row.get("isSidechain"):
            continue
        for nxt in range(at + 1, len(rows)):
            later = rows[nxt]
            if later and later.get("subtype") == "compact_boundary":
                break
            if later and _is_reply(later):
                before, after = _state(lines[:nxt], scratch), _state(lines[: nxt + 1], scratch)
                if before.usage_source == "estimated" and after.usage_source == "reported":
                    meta = row.get("compactMetadata") if isinstance(row.get("compactMetadata"), dict) else {}
                    found.append(
                        Case(path.stem, str(meta.get("trigger") or "?"), meta.get("preTokens"), after.context_tokens, before.context_tokens)
                    )
                break
    return found


def cases() -> list[Case]:
    """Every case in the real transcripts present."""
    found: list[Case] = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / "cut.jsonl"
        for folder in SOURCES:
            for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
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
    found = cases()
    print(table(found))
    if found:
        print(f"\n{len(found)} case(s); largest error {max(abs(c.error) for c in found):.1%}")
    else:
        print("\nno real transcript with a compaction followed by a reply found")


if __name__ == "__main__":
    main()
