"""The shortcuts that make fact extraction and retention fast give the same answers as the plain way."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctx_tui.compress.blocks import split_blocks
from ctx_tui.compress.facts import _has_token, _TokenIndex, _whole_block_facts, extract_facts

# Texts made of word characters, separators that glue (_) or do not (. / - space newline), and a non-ASCII letter.
_TEXT = st.text(alphabet="ab1_./- \né", max_size=60)


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.lists(_TEXT, max_size=8))
def test_token_index_answers_as_a_scan_of_the_text(text: str, needles: list[str]) -> None:
    index = _TokenIndex(text)
    # needles cut from the text itself (found and glued occurrences), and free ones
    cut = [text[i:j] for i in range(0, len(text), 3) for j in (i + 1, i + 4, i + 9) if j <= len(text)]
    for needle in needles + cut + ["", ".", "a", "a.b"]:
        assert index.has(needle) == _has_token(text, needle), (text, needle)


def test_token_index_finds_a_token_only_where_it_is_not_part_of_a_longer_word() -> None:
    index = _TokenIndex("see src/app.py and os.path.join(), not my_app.pyc or xmain.py")
    assert index.has("src/app.py") and index.has("app.py") and index.has("os.path.join") and index.has("my_app")
    assert not index.has("main.py")  # only inside xmain.py
    assert not index.has("_app.py") and not index.has("pp.py") and not index.has("app.pyc.x")


def test_a_code_block_has_the_same_facts_whether_cached_or_not() -> None:
    text = (
        "We call `parse_rows()` in src/io.py.\n\n"
        "```python\nfrom os.path import join\nraise ValueError('port 8080')\n```\n\n"
        "```bash\n$ pytest -q tests/test_io.py\ngit status\n```\n\n"
        '{"file": "src/io.py", "line": 1234}\n'
    )
    _whole_block_facts.cache_clear()
    cold = extract_facts(text)
    warm = extract_facts(text)
    assert cold == warm and [f.label for f in cold] == [f.label for f in warm]
    values = {(f.kind, f.value) for f in cold}
    assert {("identifier", "os.path"), ("error", "ValueError"), ("command", "pytest -q tests/test_io.py"),
            ("command", "git status"), ("number", "1234"), ("path", "src/io.py")} <= values
    # a block asked for alone (as the semantic strategy asks for a block it may keep) has the facts found in it
    code = split_blocks(text)[1]
    alone = {(f.kind, f.value) for f in extract_facts(code.text)}
    assert alone and alone <= values
