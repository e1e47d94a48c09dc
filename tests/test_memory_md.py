"""MEMORY.md: byte-preserving parse / append, safe entry text, concurrent edits."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_tui.errors import CtxError
from ctx_tui.memory import memory_md
from ctx_tui.memory.items import normalise_content
from ctx_tui.memory.memory_md import (
    NewEntry,
    add_entries,
    append_entries,
    entry_markdown,
    parse_memory,
    read_memory,
    unescape,
)

SAMPLE = """# Project memory
Kept by hand. <!-- inline comment -->

<!-- a block comment
## not a section
- not an entry
-->

## Constraints

- Never push to main
- Run the tests
  with `pytest -q` before committing
  and say so

- A loose entry after a blank line

  with a second paragraph

## Unknown section of mine
Some prose.

```text
## fenced heading
- fenced bullet
```

### A subheading
* star bullet
## Decisions
- use sqlite"""


def test_sections_and_entries() -> None:
    doc = parse_memory(SAMPLE)
    assert doc.render() == SAMPLE
    assert [(s.title, s.level) for s in doc.sections] == [
        ("Project memory", 1),
        ("Constraints", 2),
        ("Unknown section of mine", 2),
        ("Decisions", 2),
    ]
    by = {s.title: [e.text for e in s.entries] for s in doc.sections}
    assert by["Constraints"] == [
        "Never push to main",
        "Run the tests with `pytest -q` before committing and say so",
        "A loose entry after a blank line with a second paragraph",
    ]
    assert by["Unknown section of mine"] == ["star bullet"]
    assert by["Project memory"] == []
    assert by["Decisions"] == ["use sqlite"]
    assert doc.unclosed is None


def _only_insertions(old: str, new: str) -> bool:
    """True when ``new`` is ``old`` with text inserted (``old`` is a subsequence of ``new``).

    A subsequence test, not a diff: difflib's alignment is not minimal and
    reports a replacement for some pure insertions (repeated identical headings).
    """
    rest = iter(new)
    return all(char in rest for char in old)


def test_append_keeps_every_byte_and_follows_the_style() -> None:
    new, added = add_entries(
        SAMPLE,
        [
            NewEntry("Constraints", "never push to MAIN."),  # already there
            NewEntry("constraints", "Keep the API stable"),
            NewEntry("Decisions", "use WAL mode"),
            NewEntry("Findings", "the cache is cold after restart"),
        ],
    )
    assert [e.text for e in added] == ["Keep the API stable", "use WAL mode", "the cache is cold after restart"]
    assert _only_insertions(SAMPLE, new)
    # the loose list gets a blank line before the new entry, the tight one none
    assert "  with a second paragraph\n\n- Keep the API stable\n\n## Unknown" in new
    # the file had no final newline: still none, the new section is at the end
    assert new.endswith("- use sqlite\n- use WAL mode\n\n## Findings\n\n- the cache is cold after restart")
    by = {s.title: [e.text for e in s.entries] for s in parse_memory(new).sections}
    assert by["Findings"] == ["the cache is cold after restart"]
    assert add_entries(new, added) == (new, [])  # never twice


@pytest.mark.parametrize(
    "text",
    [
        "## Heading inside\n- and a bullet\n<!-- comment",
        "# one\n\n```python\nx = 1\n```",
        "--> closes nothing",
        "1. ordered",
        "---",
        "> quote",
        "<div>html</div>",
        "\x1b[31mred\x1b[0m and [bold]rich[/bold]",
    ],
)
def test_hostile_entry_text_is_one_entry(text: str) -> None:
    new, added = add_entries(SAMPLE, [NewEntry("Constraints", text)])
    assert added
    doc = parse_memory(new)
    constraints = doc.find_section("Constraints")
    assert constraints is not None and len(constraints.entries) == 4
    assert [s.title for s in doc.sections] == [s.title for s in parse_memory(SAMPLE).sections]
    assert "\x1b" not in new
    assert normalise_content(constraints.entries[-1].text) == normalise_content(unescape(entry_markdown(text)))


def test_empty_entry_is_refused() -> None:
    with pytest.raises(CtxError):
        entry_markdown(" \n\t")


def test_crlf_file_gets_crlf_entries() -> None:
    text = "## Notes\r\n- one\r\n"
    new, _ = add_entries(text, [NewEntry("Notes", "two")])
    assert new == "## Notes\r\n- one\r\n- two\r\n"


def test_unclosed_fence_is_reported_not_swallowed() -> None:
    text = "## Notes\n- one\n```\n## Later\n"
    with pytest.raises(CtxError, match="never closed"):
        add_entries(text, [NewEntry("Elsewhere", "x")])


def test_new_file_is_created(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    assert append_entries(path, [NewEntry("Notes", "first")]) == [NewEntry("Notes", "first")]
    assert path.read_text() == "## Notes\n\n- first\n"
    assert [e.text for e in read_memory(path).entries] == ["first"]


def test_non_utf8_bytes_survive(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    original = b"## Notes\n- caf\xe9 latin-1\n"
    path.write_bytes(original)
    append_entries(path, [NewEntry("Notes", "second")])
    assert path.read_bytes() == original + b"- second\n"


def test_external_edit_between_read_and_write_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor that does not take the lock writes while ctx-tui prepares its change."""
    path = tmp_path / "MEMORY.md"
    path.write_text("## Notes\n- one\n")
    real_read = memory_md._read_bytes
    calls = {"n": 0}

    def racing_read(p: Path) -> bytes:
        calls["n"] += 1
        if calls["n"] == 2:  # the check just before the replace
            p.write_text("## Notes\n- one\n- typed by hand\n")
        return real_read(p)

    monkeypatch.setattr(memory_md, "_read_bytes", racing_read)
    assert append_entries(path, [NewEntry("Notes", "added")]) == [NewEntry("Notes", "added")]
    assert path.read_text() == "## Notes\n- one\n- typed by hand\n- added\n"


def test_concurrent_appenders_lose_nothing(tmp_path: Path) -> None:
    import multiprocessing

    path = tmp_path / "MEMORY.md"
    path.write_text("# Mine\n")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_append_many, args=(path, n)) for n in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert all(p.exitcode == 0 for p in procs)
    text = path.read_text()
    assert text.startswith("# Mine\n")
    assert {e.text for e in parse_memory(text).entries} == {f"entry {n}-{k}" for n in range(4) for k in range(8)}


def _append_many(path: Path, n: int) -> None:
    for k in range(8):
        append_entries(path, [NewEntry(f"Worker {n % 2}", f"entry {n}-{k}")])


# -- properties -------------------------------------------------------------

_LINES = st.one_of(
    st.sampled_from(
        [
            "# Title",
            "## Constraints",
            "## Decisions",
            "##",
            "### sub",
            "- bullet",
            "-",
            "* star",
            "+ plus",
            "  indented continuation",
            "    - nested",
            "lazy text",
            "",
            "   ",
            "```",
            "~~~~",
            "<!-- open",
            "-->",
            "<!-- one line -->",
            "---",
            "\t- tabbed",
            "\ufeff## bom",
        ]
    ),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=20),
)


@st.composite
def memory_texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(_LINES, max_size=25))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(lines)
    if lines and draw(st.booleans()):
        text += ending
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memory_texts())
def test_parse_then_render_is_byte_identical(text: str) -> None:
    assert parse_memory(text).render() == text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    memory_texts(),
    st.lists(
        st.tuples(
            st.sampled_from(["Constraints", "Decisions", "New one", "1. Odd", "C#"]),
            st.text(min_size=1, max_size=30).filter(lambda s: entry_markdown_ok(s)),
        ),
        min_size=1,
        max_size=3,
    ),
    st.one_of(st.none(), st.text(max_size=20)),
)
def test_append_only_inserts_and_is_found_again(
    text: str, raw_entries: list[tuple[str, str]], comment: str | None
) -> None:
    entries = [NewEntry(section, body) for section, body in raw_entries]
    doc = parse_memory(text)
    try:
        new, added = add_entries(text, entries, comment)
    except CtxError:
        assert doc.unclosed is not None
        return
    assert _only_insertions(text, new)
    after = parse_memory(new)
    keys = {e.key for e in after.entries}
    for entry in entries:
        assert normalise_content(unescape(entry_markdown(entry.text))) in keys
    for entry in added:
        section = after.find_section(entry.section)
        assert section is not None
        assert normalise_content(unescape(entry_markdown(entry.text))) in {e.key for e in section.entries}
    # entries that were there stay there, in their sections, with the same text
    before = Counter((e.section, e.text) for e in doc.entries)
    assert not before - Counter((e.section, e.text) for e in after.entries)
    assert len(after.entries) == len(doc.entries) + len(added)
    assert add_entries(new, entries)[1] == []


def entry_markdown_ok(text: str) -> bool:
    try:
        entry_markdown(text)
    except CtxError:
        return False
    return True


@pytest.mark.parametrize("title", ["1. Intro", "C#", "# Hash", "  Spaced   title ", "<!-- odd -->"])
def test_awkward_section_titles_are_found_again(title: str) -> None:
    text, added = add_entries("# Mine\n", [NewEntry(title, "first")])
    text, added_again = add_entries(text, [NewEntry(title, "second")])
    assert added and added_again
    sections = [s for s in parse_memory(text).sections if s.level == 2]
    assert len(sections) == 1 and [e.text for e in sections[0].entries] == ["first", "second"]


def test_comment_above_each_new_entry(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("## Notes\n- one\n")
    note = "promoted from session abc --> sneaky\n## not a heading"
    added = append_entries(path, [NewEntry("Notes", "two"), NewEntry("Other", "three")], comment=note)
    assert len(added) == 2
    text = path.read_text()
    assert text.startswith("## Notes\n- one\n<!-- promoted from session abc - -> sneaky ## not a heading -->\n- two\n")
    doc = parse_memory(text)
    assert [(e.section, e.text) for e in doc.entries] == [("Notes", "one"), ("Notes", "two"), ("Other", "three")]
    assert text.count("<!--") == 2 and doc.unclosed is None
