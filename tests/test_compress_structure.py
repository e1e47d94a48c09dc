"""Structure-aware splitting, key-fact extraction and matching, window rendering."""

from __future__ import annotations

import json

from ctx_tui.compress.blocks import sentences, split_blocks
from ctx_tui.compress.facts import extract_facts, measure_retention
from ctx_tui.compress.focus import MAX_CHARS, compact_line
from ctx_tui.transcripts.render import fence, parse_sections, render_entries
from ctx_tui.memory.items import TrackedItem
from ctx_tui.transcripts.model import Entry, Kind


def test_blocks_keep_code_json_and_prose_apart() -> None:
    text = (
        "# Title\nFirst sentence. Second one!\n\n"
        "```python\ndef f():\n\n    return 1\n```\n"
        '{"a": 1,\n "b": [1, 2]}\n'
        "- item one\n  continued\n- item two\n"
        "| a | b |\n| 1 | 2 |\n"
        "[link] is prose\n"
    )
    kinds = [b.kind for b in split_blocks(text)]
    assert kinds == ["heading", "para", "code", "json", "list", "list", "table", "para"]
    code = split_blocks(text)[2]
    assert code.lang == "python" and "\n\n    return 1" in code.text  # a blank line does not end a fence
    assert json.loads(split_blocks(text)[3].text) == {"a": 1, "b": [1, 2]}


def test_longer_fence_contains_shorter_fences_and_unclosed_fence_is_closed_on_output() -> None:
    text = "````md\n```\ninner\n```\n````\nafter\n\n```\nnever closed\n"
    blocks = split_blocks(text)
    assert [b.kind for b in blocks] == ["code", "para", "code"]
    assert blocks[0].text.endswith("````") and "inner" in blocks[0].text
    assert not blocks[2].closed and blocks[2].rendered().endswith("\n```")


def test_sentences_split_at_sentence_ends_and_lines() -> None:
    assert sentences("One is here. Two uses src/a.py now!\nThree") == ["One is here.", "Two uses src/a.py now!", "Three"]


def test_fact_kinds() -> None:
    text = (
        "We decided to use orjson instead of json for speed.\n"
        "Run `pytest -q tests/test_api.py` and read https://example.com/a?b=1 today.\n"
        "FileNotFoundError in src/ctx_tui/api.py at line 123 (port 8080, v3.11.2, 95%).\n"
        "compress_text() calls os.path.join and TrackedItem; see config.yaml, e.g. ratio 1/2.\n"
        "$ git status\n"
    )
    facts = {(f.kind, f.value) for f in extract_facts(text)}
    for expected in [
        ("decision", "We decided to use orjson instead of json for speed."),
        ("command", "pytest -q tests/test_api.py"),
        ("command", "git status"),
        ("url", "https://example.com/a?b=1"),
        ("error", "FileNotFoundError"),
        ("path", "src/ctx_tui/api.py"),
        ("path", "config.yaml"),
        ("number", "123"),
        ("number", "8080"),
        ("number", "95%"),
        ("identifier", "compress_text()"),
        ("identifier", "os.path.join"),
        ("identifier", "TrackedItem"),
    ]:
        assert expected in facts, expected
    values = {v for _, v in facts}
    assert "1/2" not in values and "e.g" not in values  # a ratio and an abbreviation are no facts


def test_matching_rules() -> None:
    facts = extract_facts("Port 8080 serves src/app.py. We decided to keep the cache warm always.")
    kept = measure_retention(facts, "The server in src/app.py now listens on 80801.")  # 8080 only inside a longer number
    assert {f.value for f in kept.kept} == {"src/app.py"}
    listed = measure_retention(facts, "Files: src/app.py, 8080")  # named in a list, no sentence around them
    assert listed.kept == [] and {f.value for f in listed.named_only} == {"src/app.py", "8080"}
    decision = next(f for f in facts if f.kind == "decision")
    assert measure_retention([decision], "We decided: keep the cache warm, always.").rate == 1.0
    assert measure_retention([decision], "the cache").rate == 0.0
    assert measure_retention([], "anything").rate == 1.0


def test_items_are_facts_matched_by_key_terms() -> None:
    item = TrackedItem(id="c1", type="constraint", content="Never push directly to the main branch")
    facts = extract_facts("unrelated text", [item])
    assert facts[0].kind == "item"
    assert measure_retention(facts, "Constraint: never push directly to main branch.").rate == 1.0
    assert measure_retention(facts, "push to main").rate == 0.0


def _entry(seq: int, kind: Kind, text: str, **kw: object) -> Entry:
    role = {"user": "user", "tool_result": "tool"}.get(kind.value, "assistant")
    return Entry(seq, kind, role, text, len(text) // 4, 1, **kw)  # type: ignore[arg-type]


def test_render_marks_sources_and_round_trips() -> None:
    entries = [
        _entry(0, Kind.USER, "Fix the failing test in tests/test_x.py"),
        _entry(1, Kind.THINKING, "private reasoning"),
        _entry(2, Kind.TOOL_CALL, "", tool_name="Bash", tool_input={"command": "pytest -q"}, tool_use_id="t1"),
        _entry(3, Kind.TOOL_RESULT, "```\n1 failed\n```", tool_use_id="t1", is_error=True),
        _entry(4, Kind.ASSISTANT, "Fixed it."),
    ]
    text = render_entries(entries)
    assert "private reasoning" not in text
    sections = parse_sections(text)
    assert sections is not None
    assert [(s.source, s.kind) for s in sections] == [
        ("session", "user"), ("tools", "tool call"), ("tools", "tool result"), ("session", "assistant")
    ]
    assert sections[1].body == "$ pytest -q"
    assert sections[2].tool == "Bash" and sections[2].error
    inner = split_blocks(sections[2].body)
    assert len(inner) == 1 and inner[0].kind == "code" and inner[0].closed  # the fence inside stays inside
    only_session = parse_sections(render_entries(entries, ["session"]))
    assert only_session is not None and {s.source for s in only_session} == {"session"}
    assert parse_sections("plain text\n### [session] user") is None


def test_fence_is_longer_than_any_backtick_run() -> None:
    assert fence("a ```` b").startswith("`````")


def test_compact_line_names_high_importance_first_and_stays_short() -> None:
    items = [
        TrackedItem(id=f"n{i}", type="note", content=f"note number {i} " + "x" * 200) for i in range(5)
    ] + [
        TrackedItem(id="d1", type="decision", content="Use orjson for all JSON"),
        TrackedItem(id="p1", type="user_preference", content="Answer in short sentences; no emojis"),
        TrackedItem(id="gone", type="constraint", content="dismissed one", dismissed=True),
    ]
    line = compact_line(items)
    assert line.startswith("/compact ") and len(line) <= MAX_CHARS and "\n" not in line
    assert line.index("short sentences") < line.index("orjson")
    assert "dismissed one" not in line
    assert compact_line([]).startswith("/compact ")


def test_compact_line_never_cuts_a_word_or_an_item() -> None:
    goal = "Rewrite the importer so it streams rows instead of loading the file, similar to how the exporter works instead."
    long = TrackedItem(id="c9", type="constraint", content="Keep every public endpoint stable " + "and documented " * 80)
    items = [
        TrackedItem(id="g1", type="goal", content=goal),
        long,
        TrackedItem(id="d1", type="decision", content="Use csv.DictWriter for the export."),
    ]
    line = compact_line(items)
    assert goal.rstrip(".") in line  # whole, its full stop replaced by the separator
    assert "and documented" not in line  # too long to fit whole: left out, not cut
    assert "(decision) Use csv.DictWriter for the export. Summarise" in line
    assert ".." not in line and "…" not in line and len(line) <= MAX_CHARS
    assert line.index("(goal)") < line.index("(decision)")


def test_rendered_text_drops_terminal_escapes() -> None:
    entries = [_entry(0, Kind.TOOL_RESULT, "\x1b[31mFAILED\x1b[0m test_x\x07\r\ndone", tool_use_id="t")]
    text = render_entries(entries)
    assert "\x1b" not in text and "\x07" not in text and "FAILED test_x\ndone" in text


def test_an_item_of_several_sentences_kept_whole_is_kept() -> None:
    """The output is cut into sentences, so an item of three is held by three units in a row, not one."""
    item = TrackedItem(id="g", type="goal", content=(
        "Spawn agents to write poems about curry. Each agent should search the web first. "
        "Run them in the background while you write a sushi poem."))
    facts = extract_facts("", [item])
    assert measure_retention(facts, f"Tracked items:\n- [goal] {item.content}\n\nNothing else here.").rate == 1.0
    assert measure_retention(facts, "- [goal] Spawn agents to write poems about curry.").rate == 0.0
