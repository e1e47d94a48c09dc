"""The gauge right after a compaction, against the figure the next reply reports, on real sessions.

For every compaction in a real Claude Code, pi or Codex transcript that a
main-chain reply with usage follows, the transcript is cut just before that reply (what
ctx-tui has while the agent works on it) and read: the estimate is compared
with the context the reply then reports. Prints a Markdown table (the one in
docs/transcripts.md) and the largest error; tests/test_compaction_estimate.py
pins it at 15%.

Sources: the shared real fixtures (../shared/fixtures/transcripts/claude and
codex, skipped when absent), the real excerpts stored in tests/data/extract/excerpts
and the pi session in tests/fixtures/pi; or the files given.

A transcript whose texts were redacted (``[REDACTED_TEXT len=N sha=…]``: the
localpush Codex rollout, the only real Codex one with a compaction and a reply
after it found so far) has no text to estimate from, so it is not in that
table. A second table rebuilds it at its recorded lengths: each redacted text
becomes N characters taken in turn from the texts of another real Codex
rollout (the codemie one), an encrypted content N characters of base64. That
measures what the estimate counts (baseline, replacement history, encrypted
summary, the items after it) with real-looking text of the right sizes, not
the real text's tokens: an approximation, printed apart.

    python bench/eval_compaction.py [FILE ...]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctx_tui.transcripts.tail import codex_context_reading  # noqa: E402
from ctx_tui.window import Session  # noqa: E402

SHARED = ROOT.parent / "shared" / "fixtures" / "transcripts"
SOURCES = (
    SHARED / "claude",
    SHARED / "codex",
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
    """A Claude Code ``compact_boundary`` (main chain), a pi ``compaction`` or a Codex ``compacted`` row."""
    return (
        (row.get("subtype") == "compact_boundary" and not row.get("isSidechain"))
        or row.get("type") in ("compaction", "compacted")
    )


def _is_reply(row: dict) -> bool:
    """A main-chain Claude Code reply, a pi assistant message or a Codex ``token_count`` that reports usage."""
    payload = row.get("payload")
    if row.get("type") == "event_msg" and isinstance(payload, dict) and payload.get("type") == "token_count":
        info = payload.get("info")
        last = info.get("last_token_usage") if isinstance(info, dict) else None
        return isinstance(last, dict) and codex_context_reading(last)
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
                    if pre is None and before.compactions:  # Codex: the last report before it
                        pre = before.compactions[-1].pre_tokens
                    found.append(Case(path.stem, str(trigger or "?"), pre, after.context_tokens, before.context_tokens))
                break
    return found


def redacted(path: Path) -> bool:
    """Whether the transcript's texts were replaced by ``[REDACTED_… len=N sha=…]`` markers."""
    return b"[REDACTED_" in path.read_bytes()


def cases(paths: list[Path] | None = None) -> list[Case]:
    """Every case in ``paths``, by default in the real transcripts present (redacted ones left out)."""
    if paths is None:
        paths = [p for folder in SOURCES if folder.is_dir() for p in sorted(folder.glob("*.jsonl"))]
    paths = [p for p in paths if not redacted(p)]
    found: list[Case] = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / "cut.jsonl"
        for path in paths:
            found.extend(cases_of(path, scratch))
    return found


DONOR = SHARED / "codex" / "codemie-code__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
_MARK = re.compile(r"\[REDACTED_([A-Z_]+) len=(\d+) sha=[0-9a-f]+\]")


def _donor_text(donor: Path) -> Iterator[str]:
    """The texts of a real Codex rollout (messages, tool arguments and outputs), in order, endlessly."""
    texts: list[str] = []
    for line in donor.read_bytes().splitlines():
        row = _row(line)
        payload = row.get("payload") if row else None
        if not (row and row.get("type") == "response_item" and isinstance(payload, dict)):
            continue
        for part in payload.get("content") or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        texts += [payload[k] for k in ("arguments", "output", "input") if isinstance(payload.get(k), str)]
    text = "\n".join(texts)
    while True:
        yield text


def rebuilt(path: Path, donor: Path, target: Path) -> Path:
    """``path`` with each redacted text replaced by as many characters of ``donor``'s texts (see the module doc)."""
    source = _donor_text(donor)
    pool, at = next(source), 0

    def fill(match: re.Match[str]) -> str:
        nonlocal at
        kind, size = match.group(1), int(match.group(2))
        if kind == "ENCRYPTED_CONTENT":
            return "g" * size  # base64: only its length matters
        out = ""
        while len(out) < size:
            piece = pool[at : at + size - len(out)]
            out += piece
            at = (at + len(piece)) % len(pool)
        return out

    def walk(value: object) -> object:
        if isinstance(value, str):
            return _MARK.sub(fill, value) if "[REDACTED_" in value else value
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: v if k == "image_url" else walk(v) for k, v in value.items()}
        return value

    with target.open("wb") as out:
        for line in path.read_bytes().splitlines():
            row = _row(line)
            out.write((orjson.dumps(walk(row)) if row is not None else line) + b"\n")
    return target


def rebuilt_cases(paths: list[Path] | None = None) -> list[Case]:
    """The cases of the redacted transcripts, rebuilt at their recorded lengths (empty without the donor)."""
    if paths is None:
        paths = [p for folder in SOURCES if folder.is_dir() for p in sorted(folder.glob("*.jsonl"))]
    paths = [p for p in paths if redacted(p)]
    if not paths or not DONOR.is_file():
        return []
    found: list[Case] = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / "cut.jsonl"
        for path in paths:
            found.extend(cases_of(rebuilt(path, DONOR, Path(tmp) / path.name), scratch))
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
    parser = argparse.ArgumentParser(description="Usage estimate before a compaction against the next reported figure.")
    parser.add_argument("paths", nargs="*", type=Path, metavar="TRANSCRIPT",
                        help="transcripts to read (default: the real ones in the shared fixtures)")
    paths = parser.parse_args().paths or None
    missing = [str(p) for p in paths or () if not p.is_file()]
    if missing:
        parser.error(f"not a file: {', '.join(missing)}")
    found = cases(paths)
    print(table(found))
    if found:
        print(f"\n{len(found)} case(s); largest error {max(abs(c.error) for c in found):.1%}")
    else:
        print("\nno real transcript with a compaction followed by a reply found")
    again = rebuilt_cases(paths)
    if again:
        print("\nRedacted transcripts rebuilt at their recorded lengths (an approximation, see the module doc;"
              " preTokens: the last report before the compaction):\n")
        print(table(again))


if __name__ == "__main__":
    main()
