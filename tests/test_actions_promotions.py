"""Promotions: proposed, approved by hand, written to MEMORY.md once, never against the user's edits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from actions_support import SESSION_ID, cli, register, write_transcript
from ctx_tui import audit
from ctx_tui.actions import promotions
from ctx_tui.actions.promotions import provenance_comment
from ctx_tui.config import Config
from ctx_tui.config_file import validate_config
from ctx_tui.errors import CtxError
from ctx_tui.memory.memory_md import read_memory
from ctx_tui.memory.session_store import load_session_memory

HAND_WRITTEN = (
    "# Project memory\n"
    "\n"
    "Some intro the user wrote.   \n"
    "\n"
    "## Preferences\n"
    "- Use tabs, not spaces\n"
    "<!-- the user's own comment -->\n"
    "\n"
    "## Unknown section\n"
    "* a star bullet\n"
    "  with a continuation"
)  # no final newline: it must stay that way around the user's text


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "MEMORY.md").write_text(HAND_WRITTEN)
    return root


def _memory(project: Path) -> str:
    return (project / "MEMORY.md").read_text()


def _entries(project: Path) -> list[tuple[str | None, str]]:
    return [(e.section, e.text) for e in read_memory(project / "MEMORY.md").entries]


def _sid(*args: str) -> list[str]:
    return [*args, "--session-id", SESSION_ID]


def test_approve_writes_one_entry_per_item_across_repeated_syncs(project: Path) -> None:
    register(project, "pref", "user_preference", "Answer in short sentences")
    register(project, "db", "decision", "Use SQLite for the cache")
    assert cli(project, *_sid("promote", "--id", "pref", "--id", "db")).returncode == 0
    pending = json.loads(cli(project, *_sid("pending", "--json")).stdout)
    assert [p["item_id"] for p in pending] == ["pref", "db"]

    done = cli(project, *_sid("approve", "pref", "db", "--json"))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["approved"] == ["pref", "db"] and result["written"] == ["pref", "db"]
    for _ in range(2):  # written once: a later sync has nothing left to write
        again = json.loads(cli(project, *_sid("sync", "--json")).stdout)
        assert again["written"] == [] and again["already_present"] == []

    entries = _entries(project)
    assert entries.count(("Preferences", "Answer in short sentences")) == 1
    assert entries.count(("Decisions", "Use SQLite for the cache")) == 1
    mark = f"<!-- {provenance_comment(SESSION_ID)} -->"
    assert _memory(project) == HAND_WRITTEN.replace(
        "<!-- the user's own comment -->\n",
        f"<!-- the user's own comment -->\n{mark}\n- Answer in short sentences\n",
    ) + f"\n\n## Decisions\n\n{mark}\n- Use SQLite for the cache"
    assert json.loads(cli(project, *_sid("pending", "--json")).stdout) == []
    actions = [e["action"] for e in audit.read_events(project)]
    assert actions.count("promotion.proposed") == 2 and actions.count("promotion.approved") == 2
    assert actions.count("promotion.written") == 1


def test_an_entry_deleted_by_hand_is_not_written_again(project: Path) -> None:
    register(project, "pref", "user_preference", "Answer in short sentences")
    register(project, "db", "decision", "Use SQLite for the cache")
    promotions.propose(project, SESSION_ID, ["pref", "db"], project / "MEMORY.md")
    assert promotions.approve(project, SESSION_ID, ["pref"], project / "MEMORY.md").written == ["pref"]
    written = {p.item_id: p for p in load_session_memory(project, SESSION_ID).promotions}
    assert written["pref"].written_at and written["pref"].written_to == str(project / "MEMORY.md")
    assert written["db"].written_at is None and written["db"].written_to is None

    # the user removes the entry (and its provenance comment) by hand
    mark = f"<!-- {provenance_comment(SESSION_ID)} -->\n"
    (project / "MEMORY.md").write_text(_memory(project).replace(f"{mark}- Answer in short sentences\n", ""))
    assert _memory(project) == HAND_WRITTEN
    for _ in range(2):
        done = json.loads(cli(project, *_sid("sync", "--json")).stdout)
        assert done["written"] == [] and done["already_present"] == []
    assert _memory(project) == HAND_WRITTEN

    # a new approval is still written, and only it
    done = json.loads(cli(project, *_sid("approve", "db", "--json")).stdout)
    assert done["written"] == ["db"]
    assert [t for _, t in _entries(project)].count("Answer in short sentences") == 0
    assert _entries(project).count(("Decisions", "Use SQLite for the cache")) == 1

    # an entry the user wrote by hand before the approval counts as written too
    register(project, "ci", "decision", "Keep CI under ten minutes")
    promotions.propose(project, SESSION_ID, ["ci"], project / "MEMORY.md")
    by_hand = _memory(project)
    (project / "MEMORY.md").write_text(by_hand + "\n- Keep CI under ten minutes\n")
    result = promotions.approve(project, SESSION_ID, ["ci"], project / "MEMORY.md")
    assert result.written == [] and result.already_present == ["ci"]
    assert load_session_memory(project, SESSION_ID).promotions[-1].written_at is not None
    (project / "MEMORY.md").write_text(by_hand)
    assert promotions.sync(project, SESSION_ID, project / "MEMORY.md").already_present == []
    assert _memory(project) == by_hand


def test_hand_edits_between_proposal_and_approval_survive(project: Path) -> None:
    register(project, "pref", "user_preference", "Run the linter before committing")
    assert cli(project, *_sid("promote", "--id", "pref")).returncode == 0
    edited = HAND_WRITTEN.replace("- Use tabs, not spaces\n", "- Use tabs, not spaces\n- Prefer pathlib\n") + "\n\n## Notes\n- edited by hand"
    (project / "MEMORY.md").write_text(edited)
    assert cli(project, *_sid("approve", "pref")).returncode == 0
    text = _memory(project)
    # every byte the user wrote is still there, in order; ctx-tui only inserted its lines
    inserted = f"<!-- {provenance_comment(SESSION_ID)} -->\n- Run the linter before committing\n"
    assert text.replace(inserted, "") == edited
    assert _entries(project).count(("Preferences", "Run the linter before committing")) == 1


def test_an_entry_already_written_by_hand_is_not_added_again(project: Path) -> None:
    register(project, "tabs", "user_preference", "use tabs, NOT spaces.")
    done = json.loads(cli(project, *_sid("promote", "--id", "tabs", "--json")).stdout)
    assert done[0]["status"] == "in_memory" and not done[0]["proposed"]
    assert _memory(project) == HAND_WRITTEN


def test_reject_prevents_re_proposal(project: Path) -> None:
    (project / ".ctx").mkdir()
    (project / ".ctx" / "config.yaml").write_text("sync:\n  auto_promote: true\n  promotion_threshold: high\n")
    register(project, "goal", "goal", "Ship the inventory CLI by Friday")
    register(project, "cfg", "project_config", "Tests run with `make test`")
    register(project, "state", "state", "The export command is half done")  # medium: below the threshold
    first = json.loads(cli(project, *_sid("pending", "--json")).stdout)
    assert sorted(p["item_id"] for p in first) == ["cfg", "goal"]
    assert all(p["reason"] == "auto" for p in first)

    assert cli(project, *_sid("reject", "goal")).returncode == 0
    memory_path = project / "MEMORY.md"
    config = validate_config({"sync": {"auto_promote": True}})
    assert promotions.auto_propose(project, SESSION_ID, config, memory_path) == []
    assert [p.item_id for p in promotions.pending(project, SESSION_ID)] == ["cfg"]
    again = promotions.propose(project, SESSION_ID, ["goal"], memory_path)
    assert again[0].status == "rejected" and not again[0].proposed
    assert load_session_memory(project, SESSION_ID).promotions[0].status == "rejected"
    # the user may still change their mind, explicitly
    assert promotions.propose(project, SESSION_ID, ["goal"], memory_path, again=True)[0].proposed
    assert "promotion.rejected" in [e["action"] for e in audit.read_events(project)]
    assert _memory(project) == HAND_WRITTEN  # nothing approved, nothing written


def test_hostile_content_stays_one_entry(project: Path) -> None:
    hostile = "## Not a heading\n- not a bullet\n<!-- not a comment -->\n```\nnot a fence"
    register(project, "evil", "critical_info", hostile)
    promotions.propose(project, SESSION_ID, ["evil"], project / "MEMORY.md")
    assert cli(project, *_sid("approve", "evil")).returncode == 0
    doc = read_memory(project / "MEMORY.md")
    assert doc.unclosed is None
    titles = [s.title for s in doc.sections]
    assert titles == ["Project memory", "Preferences", "Unknown section", "Critical information"]
    added = [e for e in doc.entries if e.section == "Critical information"]
    assert [e.text for e in added] == [" ".join(hostile.split())]
    # written as it reads back: writing it again finds it there
    promotion = load_session_memory(project, SESSION_ID).promotions[0]
    assert promotions.write_entries(project / "MEMORY.md", [promotion], SESSION_ID) == []


def test_errors_are_one_line_and_change_nothing(project: Path) -> None:
    register(project, "pref", "user_preference", "Answer in short sentences")
    unknown = cli(project, *_sid("approve", "pref"))
    assert unknown.returncode == 2 and unknown.stderr.count(b"\n") == 1
    assert unknown.stderr.startswith(b"ctx-tui: no promotion for 'pref'")
    with pytest.raises(CtxError, match="unknown item 'ghost'"):
        promotions.propose(project, SESSION_ID, ["ghost"], project / "MEMORY.md")
    promotions.propose(project, SESSION_ID, ["pref"], project / "MEMORY.md")
    with pytest.raises(CtxError, match="no promotion for 'ghost'"):
        promotions.approve(project, SESSION_ID, ["pref", "ghost"], project / "MEMORY.md")
    assert load_session_memory(project, SESSION_ID).promotions[0].status == "pending"  # all or nothing
    promotions.reject(project, SESSION_ID, ["pref"])
    promotions.approve(project, SESSION_ID, ["pref"], project / "MEMORY.md")  # a change of mind
    with pytest.raises(CtxError, match="already approved"):
        promotions.reject(project, SESSION_ID, ["pref"])
    assert _entries(project).count(("Preferences", "Answer in short sentences")) == 1


def test_session_from_the_transcript(project: Path) -> None:
    transcript = write_transcript(project, ["Build it. Always answer in English."])
    register(project, "pref", "user_preference", "Always answer in English")
    assert cli(project, "promote", "--id", "pref", str(transcript)).returncode == 0
    assert cli(project, "approve", "pref", "--transcript", str(transcript)).returncode == 0
    assert ("Preferences", "Always answer in English") in _entries(project)


def test_unclosed_fence_is_refused_and_sync_retries_later(project: Path) -> None:
    (project / "MEMORY.md").write_text("## Notes\n```\nopen fence")
    register(project, "goal", "goal", "Ship it")
    promotions.propose(project, SESSION_ID, ["goal"], project / "MEMORY.md")
    with pytest.raises(CtxError, match="never closed"):
        promotions.approve(project, SESSION_ID, ["goal"], project / "MEMORY.md")
    assert (project / "MEMORY.md").read_text() == "## Notes\n```\nopen fence"
    (project / "MEMORY.md").write_text("## Notes\n```\nclosed\n```\n")
    result = promotions.sync(project, SESSION_ID, project / "MEMORY.md")
    assert result.written == ["goal"]


def test_changed_meanwhile_is_reported(project: Path) -> None:
    register(project, "goal", "goal", "Ship it")
    promotions.propose(project, SESSION_ID, ["goal"], project / "MEMORY.md")
    seen = promotions.memory_digest(project / "MEMORY.md")
    (project / "MEMORY.md").write_text(HAND_WRITTEN + "\n- a late hand edit\n")
    result = promotions.approve(project, SESSION_ID, ["goal"], project / "MEMORY.md", seen_digest=seen)
    assert result.changed_meanwhile and result.written == ["goal"]
    assert "- a late hand edit\n" in _memory(project)


def test_auto_propose_is_off_by_default(project: Path) -> None:
    register(project, "goal", "goal", "Ship it")
    assert promotions.auto_propose(project, SESSION_ID, Config(), project / "MEMORY.md") == []
    config = validate_config({"sync": {"auto_promote": True, "promotion_threshold": "low"}})
    register(project, "note", "note", "The staging host is staging-2")
    proposed = promotions.auto_propose(project, SESSION_ID, config, project / "MEMORY.md")
    assert sorted(p.item_id for p in proposed) == ["goal", "note"]
    assert promotions.auto_propose(project, SESSION_ID, config, project / "MEMORY.md") == []


def test_twenty_concurrent_approve_and_sync_processes(project: Path) -> None:
    ids = [f"fact-{n}" for n in range(10)]
    for n, item_id in enumerate(ids):
        register(project, item_id, "critical_info" if n % 2 else "user_preference", f"Fact number {n} must be kept")
    promotions.propose(project, SESSION_ID, ids, project / "MEMORY.md")
    commands = []
    for n in range(20):
        if n % 2 == 0:
            commands.append(_sid("approve", ids[n // 2], ids[(n // 2 + 3) % 10]))
        else:
            commands.append(_sid("sync"))
    procs = [
        subprocess.Popen([sys.executable, "-m", "ctx_tui", *c], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for c in commands
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    entries = _entries(project)
    texts = [t for _, t in entries]
    for n in range(10):
        assert texts.count(f"Fact number {n} must be kept") == 1
    assert len(entries) == 2 + 10  # the user's two entries, and ten new ones
    assert _memory(project).count("<!-- ctx-tui: promoted") == 10
    assert all(p.status == "approved" for p in load_session_memory(project, SESSION_ID).promotions)
    # the user's text is intact
    assert "Some intro the user wrote.   \n" in _memory(project) and "  with a continuation" in _memory(project)


def test_an_extracted_item_can_be_promoted_from_the_transcript(project: Path) -> None:
    transcript = write_transcript(project, ["Build the exporter. Always run the linter before committing."])
    pending = json.loads(cli(project, "pending", "--json", str(transcript)).stdout)
    assert pending == []  # auto_promote is off
    items = load_session_memory(project, SESSION_ID).active_items()
    extracted = [i for i in items if i.source == "extracted" and "linter" in i.content]
    assert extracted, items
    done = cli(project, "promote", "--id", extracted[0].id, str(transcript))
    assert done.returncode == 0 and b"proposed" in done.stdout
