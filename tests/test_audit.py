"""The append-only audit log under concurrent writers."""

from __future__ import annotations

import multiprocessing
import re
from pathlib import Path

import orjson

from ctx_tui.audit import audit_path, read_events, record

ROOT = Path(__file__).resolve().parents[1]
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
    event = record(tmp_path, "memory.registered", session="abc", item_id="goal-1")
    assert set(event) == {"time", "session", "action", "details"}
    with audit_path(tmp_path).open("ab") as fh:
        fh.write(b'{"half": \n')
    record(tmp_path, "memory.decayed", session="abc", items=["goal-1"])
    assert [e["action"] for e in read_events(tmp_path)] == ["memory.registered", "memory.decayed"]


def _recorded_actions() -> set[str]:
    """Every action name passed to ``audit.record`` in the package source."""
    names: set[str] = set()
    for path in ROOT.joinpath("ctx_tui").rglob("*.py"):
        for call in path.read_text(encoding="utf-8").split("audit.record(")[1:]:
            head = call.split("session=", 1)[0]
            names.update(re.findall(r'"([^"]+)"', head))
    return names


def test_every_action_is_area_dot_verb_and_documented() -> None:
    actions = _recorded_actions()
    assert {"compress.saved", "hook.pre_compact", "handoff.written", "handoff.forced"} <= actions
    doc = ROOT.joinpath("docs", "audit.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z_]+\.[a-z_]+)` \|", doc, re.M))
    assert all(re.fullmatch(r"[a-z]+\.[a-z_]+", a) for a in actions), actions
    assert actions == documented
