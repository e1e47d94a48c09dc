"""ctx_tui.json_light answers as the json module does: the same value or text, or the same exception."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from ctx_tui import json_light

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _outcome(call, *args, **kwargs) -> tuple[str, object]:
    try:
        return "value", call(*args, **kwargs)
    except Exception as exc:  # the exception's type and text are the outcome
        return type(exc).__name__, str(exc)


def _same_loads(data: bytes) -> None:
    mine, theirs = _outcome(json_light.loads, data), _outcome(json.loads, data)
    # NaN != NaN: compare the values through their repr
    assert (mine[0], repr(mine[1])) == (theirs[0], repr(theirs[1]))


@given(JSON_VALUES, st.sampled_from(["", " ", "\n", " \t\r\n"]))
def test_valid_text_reads_as_json_reads_it(value, pad) -> None:
    for text in (json.dumps({"v": value}), json.dumps({"v": value}, ensure_ascii=False), json.dumps(value)):
        _same_loads((text + pad).encode("utf-8", "surrogatepass"))


@given(JSON_VALUES, st.text(max_size=8))
def test_text_reads_as_json_reads_it(value, junk: str) -> None:
    """A str too (the status line decodes its stdin first): json.loads(str) has no encoding to detect."""
    for text in (json.dumps({"v": value}, ensure_ascii=False), "\ufeff{}", "{" + junk, "{}" + junk, junk):
        mine, theirs = _outcome(json_light.loads, text), _outcome(json.loads, text)
        assert (mine[0], repr(mine[1])) == (theirs[0], repr(theirs[1]))


@given(st.binary(max_size=40))
def test_any_bytes_read_or_fail_as_json_does(data: bytes) -> None:
    _same_loads(data)
    _same_loads(b"{" + data)
    _same_loads(b'{"a":' + data)


def test_hostile_inputs() -> None:
    for data in (b"", b"{", b"{}", b"{} x", b"{}\x00", b'{"a":1,}', b'{"a":NaN,"b":-Infinity}', b"{\x00}\x00",
                 b'{"a":"\xff"}', b'{"a":"\\ud800"}', b"\xef\xbb\xbf{}", b'{"a":1}{"b":2}', b"[" * 100_000,
                 b'{"a":' * 100_000, b'{"a":1' + b"0" * 5000 + b"}", b'{"a":"\x01"}', "{\"é\":\"ü\"}".encode("utf-16")):
        _same_loads(data)


@given(JSON_VALUES, st.booleans())
def test_writes_the_text_json_writes(value, ensure_ascii: bool) -> None:
    assert json_light.dumps(value, ensure_ascii=ensure_ascii) == json.dumps(
        value, ensure_ascii=ensure_ascii, separators=(",", ":"))


def test_what_json_cannot_write_fails_as_json_fails() -> None:
    circular: list = []
    circular.append(circular)
    for value, default in ((object(), None), ({1j: 1}, None), ({"a": {1, 2}}, None), (circular, None),
                           ({"a": float("nan"), (1, 2): "x"}, None)):
        assert _outcome(json_light.dumps, value, default=default) == _outcome(
            json.dumps, value, default=default, separators=(",", ":"))
    assert json_light.dumps({"at": {1, 2}, "n": 1.5}, ensure_ascii=False, default=str) == '{"at":"{1, 2}","n":1.5}'


def test_imports_neither_json_nor_re() -> None:
    code = ("import sys\nfrom ctx_tui import json_light\n"
            "v = json_light.loads(b'{\"a\": [1, 2.5, null, \"\\\\u00e9\"]}')\n"
            "print(json_light.dumps(v), json_light.dumps(v, ensure_ascii=False), 'json' in sys.modules, 're' in sys.modules)")
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(__import__("pathlib").Path(__file__).resolve().parents[1])})
    assert done.stdout == '{"a":[1,2.5,null,"\\u00e9"]} {"a":[1,2.5,null,"é"]} False False\n', done.stderr
