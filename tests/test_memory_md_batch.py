"""Approving a backlog parses MEMORY.md once and writes it once (issue 15, item 11).

``add_entries`` inserts every entry into one parsed document; the result must
be exactly what adding them one at a time (parse, insert, render, repeat) gives.
``bench/bench_memory.py``-style figures: 30 entries into an 11.9 MB file took
221 s with a re-parse per entry on the loaded test machine, 8.1 s parsed once.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ctx_tui.memory.memory_md import NewEntry, add_entries, append_entries

_line = st.sampled_from([
    "# Memory", "## Decisions", "## Notes", "## decisions ", "### Sub", "- use orjson", "- keep   the header",
    "  continued line", "", "", "<!-- a comment -->", "<!-- open", "-->", "```", "text paragraph", "* star bullet",
    "1. ordered", "## Constraints", "- Never push to main",
])
_docs = st.lists(_line, max_size=14).map(lambda lines: "\n".join(lines)) | st.lists(_line, max_size=14).map(lambda lines: "\r\n".join(lines) + "\r\n")
_entries = st.lists(
    st.builds(NewEntry, section=st.sampled_from(["Decisions", "Notes", "Constraints", "New one", "decisions"]),
              text=st.sampled_from(["use orjson", "keep the header", "a new fact", "- dash first", "## not a heading", "another"])),
    max_size=6,
)


def _one_by_one(text: str, entries: list[NewEntry], comment: str | None) -> tuple[str, list[NewEntry]]:
    added: list[NewEntry] = []
    for entry in entries:
        try:
            text, new = add_entries(text, [entry], comment)
        except Exception as exc:  # the batch must fail the same way
            return type(exc).__name__, added
        added += new
    return text, added


@settings(max_examples=300, deadline=None)
@given(text=_docs, entries=_entries, comment=st.sampled_from([None, "ctx-tui: promoted from session s on 2026-01-01"]))
def test_batch_insert_equals_one_at_a_time(text: str, entries: list[NewEntry], comment: str | None) -> None:
    expected = _one_by_one(text, entries, comment)
    try:
        got = add_entries(text, entries, comment)
    except Exception as exc:
        got = (type(exc).__name__, [])
        assert expected[0] == got[0]
        return
    assert got == expected


def test_a_backlog_is_one_write(tmp_path: Path, monkeypatch) -> None:
    import ctx_tui.memory.memory_md as memory_md

    path = tmp_path / "MEMORY.md"
    path.write_text("# Memory\n\n## Decisions\n- old\n")
    writes: list[bytes] = []
    real = memory_md.write_atomic
    monkeypatch.setattr(memory_md, "write_atomic", lambda p, data: (writes.append(data), real(p, data)))
    added = append_entries(path, [NewEntry("Decisions", f"entry {n}") for n in range(30)])
    assert len(added) == 30 and len(writes) == 1
