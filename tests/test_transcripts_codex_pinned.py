"""The whole-file read of each Codex fixture, pinned: speed work on the reader must not change a result.

The expected digests were computed by the reader before the Codex hot path was
optimised (commit f6ed017). Each digest covers every field of every entry
(``tokens`` as read: the estimate, before any tokenizer count), the session
meta, the compactions, the rounds, the usage history and the skipped lines, and
the stats a cold ``ctx-tui stats`` reports. A change that alters any of them
fails here; if the change is intended, recompute the digest and say why.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from pathlib import Path

import orjson
import pytest

from conftest import CODEX_FULL, CODEX_REDACTED, fixture
from ctx_tui.transcripts.builder import Transcript
from ctx_tui.transcripts.codex import CodexReader
from ctx_tui.transcripts.model import Entry, Format
from ctx_tui.transcripts.rows import row_shape_ok
from ctx_tui.window import Session

EXPECTED = {
    # Recomputed when the token_count Codex writes as it compacts (total 940,499, no input or output)
    # stopped counting as a context reading: the compaction's pre_tokens is now 212,134, the last real one.
    CODEX_REDACTED: ("80689ec5c3dc5d75e2d4cdf2dac5ec5ff4c995e7f3a7030d7883ed61e4ce9b8f", 1303),
    CODEX_FULL: ("87d8efbb8598bccd8bdbb860354baddf43043a0d30e9e273565c0f15cd5b6325", 249),
}


def _entry_row(entry: Entry) -> list:
    row = []
    for f in fields(Entry):
        value = getattr(entry, f.name)
        if f.name == "usage" and value is not None:
            value = [getattr(value, u.name) for u in fields(value)]
        row.append(value)
    return row


def read_digest(path: Path) -> tuple[str, int]:
    """A digest of everything a whole-file read yields, and the number of entries."""
    session = Session(path)
    session.poll()
    t = session._reader.transcript
    stats = session.state(positions=False)
    whole = {
        "entries": [_entry_row(e) for e in session.entries],
        "meta": [getattr(t.meta, f.name) for f in fields(t.meta)],
        "compactions": [[c.seq, c.timestamp, c.trigger, c.pre_tokens] for c in t.compactions],
        "round": t.round,
        "live_start": t.live_start,
        "skipped": t.skipped,
        "history": [[p.round, p.tokens, p.source] for p in t.history],
        "stats": [stats.context_tokens, stats.context_window, stats.usage_source, stats.rounds, stats.entries_total],
    }
    data = orjson.dumps(whole, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(data).hexdigest(), len(session.entries)


@pytest.mark.parametrize("name", [CODEX_REDACTED, CODEX_FULL])
def test_codex_whole_read_is_unchanged(name: str) -> None:
    assert read_digest(fixture(name)) == EXPECTED[name]


def _token_count_line(info: dict | None, rate_limits_first: bool = False, with_limits: bool = True) -> bytes:
    payload: dict = {"type": "token_count"}
    limits = {"primary": {"used_percent": 1.0}}
    if with_limits and rate_limits_first:
        payload["rate_limits"] = limits
    payload["info"] = info
    if with_limits and not rate_limits_first:
        payload["rate_limits"] = limits
    return orjson.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "event_msg", "payload": payload})


@pytest.mark.parametrize(
    "layout", [{}, {"rate_limits_first": True}, {"with_limits": False}], ids=["info-first", "limits-first", "no-limits"]
)
def test_token_count_read_from_its_info_bytes_or_whole_row(tmp_path: Path, layout: dict) -> None:
    """The info-only read of a token_count and the whole-row parse give the same usage."""
    usage = {"total_tokens": 1500, "input_tokens": 1400, "cached_input_tokens": 700, "output_tokens": 100}
    info = {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": 258_400}
    rows = [
        orjson.dumps({"type": "session_meta", "payload": {"id": "s1", "cwd": "/p"}}),
        orjson.dumps({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": "hi"}}),
        _token_count_line(None, **layout),
        _token_count_line(info, **layout),
        _token_count_line(info, **layout),  # the same info again in the same round: not a second report
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"\n".join(rows) + b"\n")
    session = Session(path)
    session.poll()
    state = session.state(positions=False)
    assert (state.context_tokens, state.context_window, state.usage_source) == (1500, 258_400, "reported")
    entry = session.entries[-1]
    assert entry.usage is not None
    assert (entry.usage.context_tokens, entry.usage.input_tokens, entry.usage.cache_read_input_tokens) == (1500, 1400, 700)
    assert entry.usage.output_tokens == 100 and state.skipped_lines == 0


def _turn_context(turn: str, model: str, cwd: str) -> bytes:
    payload = {"turn_id": turn, "cwd": cwd, "approval_policy": "on-request", "model": model, "effort": "high"}
    return orjson.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "turn_context", "payload": payload})


def test_turn_contexts_alike_but_for_their_turn_id_keep_model_and_cwd(tmp_path: Path) -> None:
    """A turn_context equal to the last one but for its turn_id is skipped, and still ends in the right meta."""
    path = tmp_path / "rollout.jsonl"
    rows = [
        orjson.dumps({"type": "session_meta", "payload": {"id": "s1", "cwd": "/meta"}}),
        _turn_context("t1", "gpt-5", "/a"),
        orjson.dumps({"type": "session_meta", "payload": {"id": "s1", "cwd": "/meta"}}),
        _turn_context("t2", "gpt-5", "/a"),  # same settings: must set the cwd again after session_meta
    ]
    path.write_bytes(b"\n".join(rows) + b"\n")
    session = Session(path)
    session.poll()
    assert (session.meta.model, session.meta.cwd) == ("gpt-5", "/a")
    with path.open("ab") as fh:
        fh.write(_turn_context("t3", "gpt-5", "/a") + b"\n" + _turn_context("t4", "gpt-5.1", "/b") + b"\n")
    session.poll()
    assert (session.meta.model, session.meta.cwd) == ("gpt-5.1", "/b")
    with path.open("ab") as fh:
        escaped = orjson.dumps({"type": "turn_context", "payload": {"turn_id": "t5", "cwd": "/c\\d", "model": "m2"}})
        fh.write(escaped + b"\n" + _turn_context("t6", "gpt-5.1", "/b") + b"\n")
    session.poll()
    assert (session.meta.model, session.meta.cwd) == ("gpt-5.1", "/b")
    with path.open("ab") as fh:  # keys in another order: parsed whole, then the same settings as t6 again
        reordered = orjson.dumps({"payload": {"turn_id": "t7", "cwd": "/e", "model": "m3"}, "type": "turn_context"})
        fh.write(reordered + b"\n" + _turn_context("t8", "gpt-5.1", "/b") + b"\n")
    session.poll()
    assert (session.meta.model, session.meta.cwd) == ("gpt-5.1", "/b")


def _spaced(line: bytes) -> bytes:
    """``line`` as JSON with a space after ``,`` and ``:`` (how Python's json module and some tools write)."""
    return json.dumps(orjson.loads(line), ensure_ascii=False).encode()


@pytest.mark.parametrize("name", [CODEX_REDACTED, CODEX_FULL])
def test_spaced_json_reads_as_the_compact_file(tmp_path: Path, name: str) -> None:
    """The same rollout rewritten as spaced JSON yields the same pinned digest."""
    path = tmp_path / "rollout.jsonl"
    lines = fixture(name).read_bytes().splitlines()
    path.write_bytes(b"\n".join(_spaced(line) if line.strip() else line for line in lines) + b"\n")
    assert read_digest(path) == EXPECTED[name]


def _whole_parses(monkeypatch: pytest.MonkeyPatch, lines: list[bytes]) -> tuple[CodexReader, int]:
    """Feed ``lines`` through ``feed_lines``; also count the lines it parsed whole."""
    parsed = set(lines)
    calls = []
    loads = orjson.loads

    def counting(data: bytes | str) -> object:
        calls.append(data in parsed)
        return loads(data)

    monkeypatch.setattr(orjson, "loads", counting)
    reader = CodexReader(Transcript(Format.CODEX))
    reader.feed_lines(lines)
    monkeypatch.setattr(orjson, "loads", loads)
    return reader, sum(calls)


def test_token_counts_and_turn_contexts_are_read_from_their_bytes_compact_or_spaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Token counts and repeated turn contexts are not parsed whole, compact or spaced; what they set is the same."""
    usage = {"total_tokens": 10, "input_tokens": 9, "cached_input_tokens": 0, "output_tokens": 1}
    info = {"last_token_usage": usage, "model_context_window": 1000}
    item = orjson.dumps({"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": "x"}})
    for spell in (lambda line: line, _spaced):
        lines = [spell(line) for line in (
            item,
            _token_count_line(info),
            _token_count_line(info),  # a repeat
            _token_count_line(None),
            _turn_context("t1", "gpt-5", "/a"),  # the first is parsed whole
            _turn_context("t2", "gpt-5", "/a"),
            _turn_context("t3", "gpt-5", "/a"),
        )]
        reader, whole = _whole_parses(monkeypatch, lines)
        assert whole == 2  # the item and the first turn_context
        assert reader.t.last_usage is not None and reader.t.last_usage.context_tokens == 10
        assert reader.t.entries[-1].usage == reader.t.last_usage and len(reader.t.history) == 1
        assert (reader.t.meta.model, reader.t.meta.cwd) == ("gpt-5", "/a")


def _escape_first(line: bytes, key: bytes) -> bytes:
    """``line`` with the first ``"key"`` spelled with a JSON escape (``"\\u0069nfo"``): the same JSON."""
    return line.replace(b'"%s"' % key, b'"\\u%04x%s"' % (key[0], key[1:]), 1)


def _after_turn_id(line: bytes, insert: bytes) -> bytes:
    """``insert`` right after a turn_context row's turn id (``line`` as it is when it has none)."""
    at = line.find(b'"turn_id":"')
    end = line.find(b'"', at + 11) + 1 if at >= 0 else 0
    return line[:end] + insert + line[end:] if end else line


#: Spellings of a token_count or turn_context row: the same JSON written otherwise, or other JSON that
#: looks alike in its first bytes. Each must read as its parse does (or be skipped as its parse is).
_ODD_SPELLINGS = [
    lambda line: _spaced(line),
    lambda line: orjson.dumps(dict(reversed(list(orjson.loads(line).items())))),  # row keys reordered
    lambda line: orjson.dumps({**(r := orjson.loads(line)), "payload": dict(reversed(list(r["payload"].items())))}),
    lambda line: _escape_first(line, b"info"),
    lambda line: _escape_first(line, b"type"),
    lambda line: _escape_first(line, b"rate_limits"),
    lambda line: _escape_first(line, b"turn_id"),
    lambda line: line.replace(b'"timestamp":"2', b'"timestamp":"\\u0032', 1),  # an escape in a plain-looking string
    lambda line: line.replace(b'"timestamp":"2', b'"timestamp":"\x012', 1),  # a raw control byte: not JSON
    lambda line: line.replace(b'"timestamp":"2', b'"timestamp":"\xc3\xa92', 1),  # non-ASCII
    lambda line: line.replace(b'"turn_id":"', b'"turn_id":"\xff', 1),  # not UTF-8: not JSON
    lambda line: line.replace(b'"type":"', b'"type":\t"', 1),  # other white space
    lambda line: line.rstrip(b"\n")[:-1] + b',"type":"response_item"}',  # a row type given twice
    lambda line: line.rstrip(b"\n")[:-2] + b',"info":null}}',  # a payload key given twice
    lambda line: line.rstrip(b"\n")[:-2] + b',"model":"other"}}',
    lambda line: line.rstrip(b"\n")[:-2] + b',"extra":1}}',
    lambda line: line.rstrip(b"\n")[:-2] + b'}}}',  # one brace too many: not JSON
    lambda line: line.replace(b'"rate_limits":{', b'"rate_limits":{{', 1),  # not JSON
    lambda line: line.replace(b'"rate_limits":', b'"rate_limits":[1],"more":', 1),
    lambda line: line.replace(b',"rate_limits"', b',"info":null,"rate_limits"', 1),  # info given twice
    lambda line: line.replace(b',"rate_limits"', b',"role":5,"rate_limits"', 1),  # a role of the wrong type
    lambda line: line.replace(b'"info":{', b'"info":{"rate_limits":1,', 1),  # the key inside info
    lambda line: line.replace(b'"info":null', b'"info":5', 1).replace(b'"info":{', b'"info":[{', 1).replace(b',"rate_limits"', b'],"rate_limits"', 1),
    lambda line: line.replace(b'"cwd":"', b'"cwd":"\\"', 1),  # an escaped quote in the cwd
    lambda line: _after_turn_id(line, b',"role":5'),  # a payload role of the wrong type: skipped
    lambda line: line.replace(b'"model":"', b'"model":"x', 1),
    lambda line: line.rstrip(b"\n") + b"  \r\n",  # trailing white space
    lambda line: b" " + line,  # leading white space
    lambda line: line[: len(line) * 2 // 3],  # cut short
]


def _odd_lines(lines: list[bytes], used: set[int] | None = None) -> list[bytes]:
    """``lines`` with every other token_count and turn_context row spelled in one of the odd ways, in turn.

    ``used`` collects the spellings that changed a line.
    """
    out, seen = [], [0, 0]  # token_count rows, turn_context rows
    for line in lines:
        kind = 1 if b'"turn_context"' in line[:80] else 0 if b'"token_count"' in line[:200] else -1
        if kind >= 0:
            seen[kind] += 1
            n = seen[kind]
            if n % 2 == 0:
                which = (n // 2) % len(_ODD_SPELLINGS)
                odd = _ODD_SPELLINGS[which](line)
                if used is not None and odd != line:
                    used.add(which)
                line = odd
        out.append(line)
    return out


def _transcript_digest(t: Transcript, read: int, skipped: int) -> str:
    whole = {
        "entries": [_entry_row(e) for e in t.entries],
        "meta": [getattr(t.meta, f.name) for f in fields(t.meta)],
        "compactions": [[c.seq, c.timestamp, c.trigger, c.pre_tokens, c.round] for c in t.compactions],
        "state": [t.round, t.live_start, t.implausible_usage, t.peak_usage, t.baseline_source, read, skipped],
        "history": [[p.round, p.tokens, p.source] for p in t.history],
    }
    return hashlib.sha256(orjson.dumps(whole, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _full_parse(lines: list[bytes]) -> str:
    """Each line through ``orjson.loads``, ``row_shape_ok`` and ``feed``: every line parsed whole."""
    reader = CodexReader(Transcript(Format.CODEX))
    read = skipped = 0
    for line in lines:
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            skipped += bool(line.strip())
            continue
        if not row_shape_ok(row):
            skipped += 1
            continue
        try:
            reader.feed(row)
            read += 1
        except (TypeError, ValueError, AttributeError, KeyError):
            skipped += 1
    return _transcript_digest(reader.t, read, skipped)


def _variants(line: bytes, i: int) -> bytes:
    """Spellings and shapes a rollout line may take: spaced, keys reordered, a type key twice, odd payloads."""
    row = orjson.loads(line)
    match i % 9:
        case 0:
            return _spaced(line)
        case 1:
            return orjson.dumps(dict(reversed(list(row.items()))))
        case 2:
            return line.rstrip(b"\n")[:-1] + b',"type":"event_msg"}'  # the parsed row is no response item
        case 3:
            return orjson.dumps({**row, "role": "user"})  # a top-level role: the general path
        case 4:
            return orjson.dumps({**row, "payload": {**row["payload"], "role": None}})
        case 5:
            return orjson.dumps({**row, "payload": [row["payload"]]})  # a payload of the wrong shape: skipped
        case 6:
            return orjson.dumps({**row, "timestamp": 5})
        case 7:
            return line[: len(line) // 2]  # cut short: malformed
        case _:
            return line


@pytest.mark.parametrize("name", [CODEX_REDACTED, CODEX_FULL])
def test_line_loop_reads_as_the_full_parse(name: str) -> None:
    """``CodexReader.feed_lines`` (the whole-file loop, with its byte shortcuts) gives what parsing every line gives.

    Everything the transcript holds and the lines read and skipped, on the
    rollout as written, spaced, with rows of other shapes (keys reordered, a
    type key twice, odd payloads, cut lines), and with token_count and
    turn_context rows spelled in every odd way of ``_ODD_SPELLINGS``.
    """
    lines = [line for line in fixture(name).read_bytes().split(b"\n") if line.strip()]
    varied = [_variants(line, i) if i % 3 == 0 else line for i, line in enumerate(lines)]
    spaced = [_spaced(line) for line in lines]
    used: set[int] = set()
    odd = _odd_lines(lines, used)
    assert name == CODEX_FULL or used == set(range(len(_ODD_SPELLINGS)))  # the longer rollout: every spelling
    for sample in (lines, varied, spaced, odd, _odd_lines(spaced)):
        reader = CodexReader(Transcript(Format.CODEX))
        read, skipped = reader.feed_lines(sample)
        assert _transcript_digest(reader.t, read, skipped) == _full_parse(sample)
