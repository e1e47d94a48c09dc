"""The append-only writer: exclusive names, concurrency, traversal, refusal, --force, audit."""

from __future__ import annotations

import multiprocessing
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from ctx_tui.audit import read_events
from ctx_tui.config import Config
from ctx_tui.config_file import validate_config
from ctx_tui.errors import CtxError
from ctx_tui.handoff.resume import latest_handoff, list_handoffs, resume_prompt
from ctx_tui.handoff.schema import read_handoff
from ctx_tui.handoff.writer import HandoffRefused, file_stem, handoff_dir, write_handoff
from test_handoff_gate import BASE, make

NOW = datetime(2026, 11, 29, 17, 5, 0, tzinfo=timezone.utc)


def _write_one(project: str, start: Any, queue: Any, index: int) -> None:
    start.wait(10)
    data = make(continuation_context=BASE["continuation_context"] + f" Writer {index}.")
    written = write_handoff(Path(project), data, Config(), now=NOW)
    queue.put(written.path.name)


def test_fifty_concurrent_writers_in_one_second_get_fifty_files(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    start = ctx.Event()
    queue = ctx.Queue()
    procs = [ctx.Process(target=_write_one, args=(str(tmp_path), start, queue, i)) for i in range(50)]
    for p in procs:
        p.start()
    start.set()
    names = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    folder = handoff_dir(tmp_path, Config())
    files = sorted(p.name for p in folder.iterdir())
    assert len(set(names)) == 50
    assert sorted(names) == files  # no temp file left behind
    assert "main-20261129T170500Z.yaml" in files and "main-20261129T170500Z-50.yaml" in files
    contexts = {read_handoff(folder / name)["continuation_context"] for name in files}
    assert len(contexts) == 50  # every writer's own content, none overwritten
    events = [e for e in read_events(tmp_path) if e["action"] == "handoff.written"]
    assert len(events) == 50


def test_an_existing_file_is_never_modified(tmp_path: Path) -> None:
    folder = handoff_dir(tmp_path, Config())
    folder.mkdir(parents=True)
    taken = folder / "main-20261129T170500Z.yaml"
    taken.write_bytes(b"hand-written, not ours\n")
    os.chmod(taken, 0o444)
    before = (taken.read_bytes(), taken.stat().st_mtime_ns, taken.stat().st_ino)
    written = write_handoff(tmp_path, make(), Config(), now=NOW)
    assert written.path.name == "main-20261129T170500Z-2.yaml"
    assert (taken.read_bytes(), taken.stat().st_mtime_ns, taken.stat().st_ino) == before
    again = write_handoff(tmp_path, make(), Config(), now=NOW)
    assert again.path.name == "main-20261129T170500Z-3.yaml"
    assert read_handoff(written.path) == read_handoff(again.path)


@pytest.mark.parametrize("role", ["../../etc/x", "/etc/passwd", "..", "a/../../b", "x\x00y", "C:\\Windows\\x", ""])
def test_role_cannot_leave_the_folder(tmp_path: Path, role: str) -> None:
    written = write_handoff(tmp_path, make(agent_role=role) if role.strip() else make(agent_role="  "),
                            Config(), now=NOW, force=not role.strip())
    folder = handoff_dir(tmp_path, Config()).resolve()
    assert written.path.resolve().parent == folder
    assert "/" not in written.path.name and ".." not in written.path.name
    assert [p.name for p in folder.iterdir()] == [written.path.name]


def test_name_falls_back_to_session_then_handoff() -> None:
    assert file_stem({"agent_role": "", "session_id": "abc/def"}, NOW) == "abc-def-20261129T170500Z"
    assert file_stem({}, NOW) == "handoff-20261129T170500Z"


def test_refuses_a_failing_handoff(tmp_path: Path) -> None:
    with pytest.raises(HandoffRefused) as info:
        write_handoff(tmp_path, make(suggested_first_action="Continue"), Config(), now=NOW)
    assert info.value.exit_code == 1
    assert {f.field for f in info.value.findings if f.is_error} == {"suggested_first_action"}
    assert not handoff_dir(tmp_path, Config()).exists()
    # nothing written; the refusal itself is audited (ctx-tui metrics counts refused handoffs)
    assert [e["action"] for e in read_events(tmp_path) if e["action"].startswith("handoff")] == ["handoff.refused"]


def test_force_records_findings_in_the_file_and_the_audit(tmp_path: Path) -> None:
    data = make(suggested_first_action="Continue\nworking", task={"completion_pct": "half"})
    written = write_handoff(tmp_path, data, Config(), now=NOW, force=True)
    assert written.forced
    text = written.path.read_text(encoding="utf-8")
    head = text.split("handoff_version")[0]
    assert head.startswith("# ctx-tui: written with --force")
    assert "# - suggested_first_action:" in head and "# - task_state.completion_pct:" in head
    assert read_handoff(written.path)["task_state"]["completion_pct"] == "half"  # nothing lost
    (event,) = [e for e in read_events(tmp_path) if e["action"] == "handoff.forced"]
    assert event["session"] == BASE["session_id"]
    assert event["details"]["forced"] is True
    assert {f["field"] for f in event["details"]["findings"]} >= {"suggested_first_action", "task_state.completion_pct"}


def test_configured_folder_and_audit_of_a_good_handoff(tmp_path: Path) -> None:
    config = validate_config({"paths": {"handoff_dir": "notes/handoffs"}})
    written = write_handoff(tmp_path, make(), config, now=NOW)
    assert written.path.parent == tmp_path / "notes" / "handoffs"
    (event,) = [e for e in read_events(tmp_path) if e["action"] == "handoff.written"]
    assert event["details"]["path"] == "notes/handoffs/main-20261129T170500Z.yaml"
    assert event["details"]["forced"] is False and "findings" not in event["details"]


def test_list_latest_and_resume_prompt(tmp_path: Path) -> None:
    config = Config()
    older = write_handoff(tmp_path, make(timestamp="2026-11-28T09:00:00+00:00"), config, now=NOW)
    newer = write_handoff(tmp_path, make(timestamp="2026-11-29T18:00:00+00:00", agent_role="reviewer"), config, now=NOW)
    forced = write_handoff(tmp_path, make(timestamp="2026-11-27T09:00:00+00:00", suggested_first_action="Continue"),
                           config, now=NOW, force=True)
    (handoff_dir(tmp_path, config) / "broken.yaml").write_text("task_state: [unclosed", encoding="utf-8")
    listed = list_handoffs(tmp_path, config)
    assert [h.path for h in listed if h.data is not None] == [newer.path, older.path, forced.path]
    assert {h.path.name: h.status for h in listed}["broken.yaml"] == "unreadable"
    assert [h.status for h in listed if h.data is not None] == ["warn", "warn", "FAIL"]  # files are missing: warnings
    latest = latest_handoff(tmp_path, config)
    assert latest is not None and latest.path == newer.path
    prompt = resume_prompt(latest, tmp_path)
    assert prompt.startswith("You are continuing")
    assert "role reviewer" in prompt
    assert f"the handoff itself: {newer.path.relative_to(tmp_path)}" in prompt
    assert "  - ctx_tui/transcripts/follow.py" in prompt
    assert "detect rotation by inode, not by size — because" in prompt
    assert prompt.rstrip().endswith("First action: " + BASE["suggested_first_action"])
    failing = next(h for h in listed if h.path == forced.path)
    assert "failed the quality gate" in resume_prompt(failing, tmp_path)


def test_a_folder_that_cannot_be_made_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "blocked").write_text("a file where the folder should be", encoding="utf-8")
    config = validate_config({"paths": {"handoff_dir": "blocked/handoffs"}})
    with pytest.raises(CtxError, match="cannot create the handoff folder"):
        write_handoff(tmp_path, make(), config, now=NOW)
    assert (tmp_path / "blocked").read_text(encoding="utf-8") == "a file where the folder should be"
