"""The append-only audit log under concurrent writers."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import orjson

from ctx_tui.audit import audit_path, read_events, record

WRITERS = 6
EVENTS = 150


def _writer(project: Path, n: int) -> None:
    for k in range(EVENTS):
        # a large payload makes a torn or interleaved write visible
        record(project, "test.event", session=f"s{n}", writer=n, seq=k, payload="x" * (2000 + 97 * n))


def test_concurrent_processes_lose_and_tear_no_line(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(tmp_path, n)) for n in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert all(p.exitcode == 0 for p in procs)
    lines = audit_path(tmp_path).read_bytes().split(b"\n")
    assert lines[-1] == b""
    events = [orjson.loads(line) for line in lines[:-1]]  # every line parses whole
    assert len(events) == WRITERS * EVENTS
    for n in range(WRITERS):
        seqs = [e["details"]["seq"] for e in events if e["details"]["writer"] == n]
        assert seqs == list(range(EVENTS))  # each writer's events in its order
        assert all(len(e["details"]["payload"]) == 2000 + 97 * n for e in events if e["details"]["writer"] == n)


def test_event_shape_and_damaged_line_skipped(tmp_path: Path) -> None:
    event = record(tmp_path, "register", session="abc", item_id="goal-1")
    assert set(event) == {"time", "session", "action", "details"}
    with audit_path(tmp_path).open("ab") as fh:
        fh.write(b'{"half": \n')
    record(tmp_path, "decay", session="abc", items=["goal-1"])
    assert [e["action"] for e in read_events(tmp_path)] == ["register", "decay"]
