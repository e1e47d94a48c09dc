"""Prefill: edited files from tool calls, plan, session memory, contracts; real transcripts."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from conftest import CLAUDE_COMPACTED, CLAUDE_SHORT, CLAUDE_SIDECHAIN, CODEX_FULL, fixture
from ctx_tui.config import Config
from ctx_tui.config_file import validate_config
from ctx_tui.handoff.gate import check_handoff
from ctx_tui.handoff.prefill import matching_contracts, prefill_from_session, prefill_handoff
from ctx_tui.memory.session_store import Decision, Note, session_memory_path, update_session_memory
from ctx_tui.transcripts.activity import latest_plan, relative_to_root
from ctx_tui.transcripts.model import Entry, Format, Kind, SessionMeta
from ctx_tui.window import Session

ROOT = Path("/work/proj")


class Log:
    """Builds a synthetic session: tool calls and their results."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def _add(self, kind: Kind, **kw: Any) -> Entry:
        entry = Entry(seq=len(self.entries), kind=kind, role=kw.pop("role", "assistant"), text=kw.pop("text", ""),
                      tokens=1, round=1, **kw)
        self.entries.append(entry)
        return entry

    def user(self, text: str) -> None:
        self._add(Kind.USER, role="user", text=text)

    def call(self, name: str, result: str | None = None, error: bool = False, **tool_input: Any) -> None:
        cid = f"c{len(self.entries)}"
        self._add(Kind.TOOL_CALL, tool_name=name, tool_input=tool_input, tool_use_id=cid)
        if result is not None:
            self._add(Kind.TOOL_RESULT, role="tool", text=result, tool_use_id=cid, is_error=error)


def _draft(log: Log, contracts: list[str] | None = None) -> dict[str, Any]:
    """The draft prefill makes of ``log`` for a session run in ROOT (no session memory)."""
    meta = SessionMeta(format=Format.CLAUDE_CODE, cwd=str(ROOT))
    config = validate_config({"handoff": {"contracts": contracts or []}})
    return prefill_handoff(log.entries, meta, None, ROOT, config).draft


def _edits(log: Log) -> tuple[list[str], list[str]]:
    draft = _draft(log)
    return draft["files_modified"], draft["files_created"]


def test_claude_edit_write_and_failures() -> None:
    log = Log()
    log.call("Read", "1\tx", file_path=f"{ROOT}/src/a.py")
    log.call("Edit", "The file has been updated.", file_path=f"{ROOT}/src/a.py")
    log.call("Write", f"File created successfully at: {ROOT}/src/new.py", file_path=f"{ROOT}/src/new.py")
    log.call("Edit", "The file has been updated.", file_path=f"{ROOT}/src/new.py")  # still "created"
    log.call("Edit", "<tool_use_error>File has not been read yet.</tool_use_error>", error=True,
             file_path=f"{ROOT}/src/failed.py")
    log.call("Write", "The file /x has been updated. Here's the result", file_path=f"{ROOT}/README.md")
    log.call("MultiEdit", "Applied 2 edits", file_path="src/relative.py")  # relative to the root
    log.call("NotebookEdit", "Updated cell", notebook_path=f"{ROOT}/nb/analysis.ipynb")
    log.call("Edit", "The file has been updated.", file_path="/elsewhere/outside.py")  # outside: dropped
    log.call("Bash", "ok", command="sed -i s/a/b/ src/a.py > src/shell.py")  # shell is not an edit
    modified, created = _edits(log)
    assert modified == ["src/a.py", "README.md", "src/relative.py", "nb/analysis.ipynb"]
    assert created == ["src/new.py"]


def test_write_without_a_result_uses_what_the_session_saw() -> None:
    log = Log()
    log.call("Write", None, file_path=f"{ROOT}/fresh.py")  # never read: created
    log.call("Read", "content", file_path=f"{ROOT}/old.py")
    log.call("Write", None, file_path=f"{ROOT}/old.py")  # read before: an overwrite
    modified, created = _edits(log)
    assert (modified, created) == (["old.py"], ["fresh.py"])


def test_codex_apply_patch_add_update_delete_move() -> None:
    log = Log()
    patch = (
        "*** Begin Patch\n"
        "*** Add File: src/added.py\n+x\n"
        "*** Update File: src/changed.py\n@@\n-a\n+b\n"
        "*** Update File: src/old_name.py\n*** Move to: src/new_name.py\n@@\n"
        "*** Delete File: src/gone.py\n"
        "*** End Patch"
    )
    log.call("apply_patch", '{"output":"Success.","metadata":{"exit_code":0}}', input=patch)
    failed = "*** Begin Patch\n*** Update File: src/never.py\n*** End Patch"
    log.call("apply_patch", '{"output":"apply_patch verification failed","metadata":{"exit_code":1}}', input=failed)
    log.call("apply_patch", None, input="*** Begin Patch\n*** Add File: tmp.txt\n*** Delete File: tmp.txt\n*** End Patch")
    log.call("shell", "ok", command=["apply_patch", "*** Begin Patch\n*** Update File: legacy.py\n*** End Patch"])
    log.call("exec_command", "ok", cmd="git apply x.diff && rm src/changed.py")  # shell: not an edit
    log.call("exec_command", "Success", cmd="apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: heredoc.py\n+x\n"
             "*** End Patch\nEOF", workdir=str(ROOT))
    log.call("apply_patch", "Success", input=f"*** Begin Patch\n*** Update File: {ROOT}/abs/inside.py\n*** End Patch")
    modified, created = _edits(log)
    assert created == ["src/added.py", "heredoc.py"]
    assert modified == ["src/changed.py", "src/new_name.py", "legacy.py", "abs/inside.py"]


def test_reads_and_contracts() -> None:
    log = Log()
    log.call("Read", "x", file_path=f"{ROOT}/contracts/api.yaml")
    log.call("Read", "<tool_use_error>no</tool_use_error>", error=True, file_path=f"{ROOT}/contracts/failed.yaml")
    log.call("exec_command", "x", cmd="sed -n '1,80p' docs/spec/auth.md && cat src/x.py | head", workdir=str(ROOT))
    log.call("shell", "x", command=["bash", "-lc", "nl -ba proto/user.proto"], workdir=str(ROOT))
    log.call("exec_command", "x", cmd="cat ../outside/contract.yaml", workdir=str(ROOT))
    log.call("exec_command", "x", cmd="head -n 20 Makefile; sed -e 's/a/b/' sub/c.txt; jq .name package.json")
    reads = _draft(log, contracts=["**"])["contracts_consumed"]  # every file read
    assert reads == ["contracts/api.yaml", "docs/spec/auth.md", "src/x.py", "proto/user.proto",
                     "Makefile", "sub/c.txt", "package.json"]
    assert matching_contracts(reads, ["contracts/*.yaml", "docs/**/*.md", "*.proto"]) == [
        "contracts/api.yaml", "docs/spec/auth.md", "proto/user.proto"]
    assert matching_contracts(reads, ["*.py"]) == ["src/x.py"]
    assert matching_contracts(reads, []) == []


def test_relative_to_root() -> None:
    assert relative_to_root("/work/proj/a/b.py", ROOT) == "a/b.py"
    assert relative_to_root("a/./b.py", ROOT) == "a/b.py"
    assert relative_to_root("../x.py", ROOT) is None
    assert relative_to_root("/work/project2/x.py", ROOT) is None
    assert relative_to_root("/work/proj", ROOT) is None
    assert relative_to_root("sub/x.py", ROOT, base=ROOT / "pkg") == "pkg/sub/x.py"


def test_latest_plan_todowrite_and_update_plan() -> None:
    log = Log()
    log.call("TodoWrite", "ok", todos=[{"content": "old", "status": "pending"}])
    log.call("update_plan", "ok", plan=[
        {"step": "write schema", "status": "completed"},
        {"step": "write gate", "status": "in_progress"},
        {"step": "docs", "status": "pending"},
    ])
    assert latest_plan(log.entries) == (["write schema"], ["write gate", "docs"])
    assert latest_plan([]) is None


def _meta(session_id: str = "s-1", cwd: str | None = None) -> SessionMeta:
    return SessionMeta(format=Format.CLAUDE_CODE, session_id=session_id, cwd=cwd)


def test_prefill_uses_session_memory(tmp_path: Path) -> None:
    log = Log()
    log.user("Make the follower keep partial lines")
    log.call("Write", "File created successfully", file_path=str(tmp_path / "src" / "f.py"))
    log.call("TodoWrite", "ok", todos=[{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}])

    def fill(memory: Any) -> None:
        memory.goals.append(Note(text="Partial-line handling in the JSONL follower"))
        memory.decisions.append(Decision(decision="inode check", rationale="rename-over", affects_files=["src/f.py"]))
        memory.decisions.append(Decision(decision="no rationale yet"))
        memory.progress.append(Note(text="offset tracking done"))

    update_session_memory(tmp_path, "s-1", fill)
    config = validate_config({"handoff": {"agent_role": "backend"}})
    now = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
    result = prefill_handoff(log.entries, _meta(cwd=str(tmp_path)), None, tmp_path, config, now=now)
    draft = result.draft
    assert result.notes == []
    assert draft["agent_role"] == "backend"
    assert draft["timestamp"] == "2026-11-29T12:00:00+00:00"
    assert draft["session_id"] == "s-1"
    assert draft["context_usage_pct"] is None  # no window state given
    assert draft["files_created"] == ["src/f.py"]
    assert draft["task_state"] == {
        "assigned_task": "Partial-line handling in the JSONL follower",
        "completion_pct": 67,
        "completed_subtasks": ["a", "offset tracking done"],
        "remaining_subtasks": ["b"],
        "blockers": [],
    }
    assert draft["decisions_made"][0] == {"decision": "inode check", "rationale": "rename-over", "affects_files": ["src/f.py"]}
    # The gate asks for what prefill cannot know, and for the missing rationale.
    errors = {(f.field, f.rule) for f in check_handoff(draft, tmp_path) if f.is_error}
    assert ("decisions_made[1].rationale", "decision.no_rationale") in errors
    assert ("continuation_context", "context.empty") in errors
    assert ("suggested_first_action", "action.empty") in errors


def test_prefill_without_memory_and_with_a_broken_memory_file(tmp_path: Path) -> None:
    log = Log()
    log.user("Fix the login redirect")
    draft = prefill_handoff(log.entries, _meta(cwd=str(tmp_path)), None, tmp_path, Config()).draft
    assert draft["task_state"]["assigned_task"] == "Fix the login redirect"
    assert draft["decisions_made"] == []
    path = session_memory_path(tmp_path, "s-1")
    path.parent.mkdir(parents=True)
    path.write_text("decisions: [unclosed", encoding="utf-8")
    result = prefill_handoff(log.entries, _meta(cwd=str(tmp_path)), None, tmp_path, Config())
    assert result.draft["task_state"]["assigned_task"] == "Fix the login redirect"
    assert any("session memory not used" in n for n in result.notes)


# -- the real transcripts -----------------------------------------------------------------


def _prefill(name: str, tmp_path: Path, config: Config | None = None) -> dict[str, Any]:
    session = Session(fixture(name))
    session.poll()
    return prefill_from_session(session, tmp_path, config or Config()).draft


def test_the_assigned_task_is_the_session_goal_and_the_task_in_hand() -> None:
    log = Log()
    log.user("Fix the login redirect")
    log._add(Kind.ASSISTANT, text="Done: the redirect keeps the next= parameter now.")
    assert _draft(log)["task_state"]["assigned_task"] == "Fix the login redirect"
    log.user("Add rate limiting to the public API")
    assert _draft(log)["task_state"]["assigned_task"] == "Fix the login redirect — now: Add rate limiting to the public API"


def test_real_claude_compacted_session(tmp_path: Path) -> None:
    config = validate_config({"handoff": {"contracts": ["src/**/session-store.ts"]}})
    draft = _prefill(CLAUDE_COMPACTED, tmp_path, config)
    assert draft["session_id"].startswith("624a4a58")
    assert draft["files_created"] == ["CONVERSATION-INCREMENTAL-TRACKING-DESIGN.md", "UNIFIED-TRACKING-DESIGN.md"]
    assert draft["files_modified"] == ["src/providers/plugins/sso/ARCHITECTURE-REFACTORING.md"]
    assert draft["contracts_consumed"] == ["src/providers/plugins/sso/session/utils/session-store.ts"]
    assert 0 < draft["context_usage_pct"] <= 100


def test_real_claude_sidechain_session(tmp_path: Path) -> None:
    draft = _prefill(CLAUDE_SIDECHAIN, tmp_path)
    # Sub-agents wrote these; failed writes ("File has not been read yet") are not counted.
    assert {"todo-app/src/hooks/useTodos.ts", "todo-app/src/components/TodoApp.tsx", "types/todo.ts"} <= set(
        draft["files_created"])
    assert draft["files_modified"] == ["todo-app/src/app/page.tsx"]
    assert not set(draft["files_created"]) & set(draft["files_modified"])
    # The last TodoWrite: all five steps completed.
    assert len(draft["task_state"]["completed_subtasks"]) == 5 and draft["task_state"]["remaining_subtasks"] == []
    assert draft["task_state"]["completion_pct"] == 100


def test_real_claude_short_session(tmp_path: Path) -> None:
    draft = _prefill(CLAUDE_SHORT, tmp_path)
    # The first Edit failed (file not read); the MultiEdit after it succeeded.
    assert draft["files_modified"] == ["CLAUDE.md"]
    assert draft["files_created"] == []


def test_real_codex_session(tmp_path: Path) -> None:
    config = validate_config({"handoff": {"contracts": ["docs/*.md"]}})
    draft = _prefill(CODEX_FULL, tmp_path, config)
    assert draft["files_modified"] == [
        "src/agents/plugins/__tests__/codemie-code-reasoning.test.ts",
        "src/agents/plugins/codemie-code.plugin.ts",
        "src/agents/plugins/opencode/opencode.plugin.ts",
    ]
    assert draft["files_created"] == []
    assert draft["contracts_consumed"] == ["docs/AGENTS.md"]  # read with sed -n
    assert draft["session_id"] == "019e1625-789d-76c0-80ab-3724b5ddb799"
    # The last update_plan: two steps completed, one pending.
    task = draft["task_state"]
    assert len(task["completed_subtasks"]) == 2 and task["remaining_subtasks"] == ["Run focused verification"]
    assert task["completion_pct"] == 67
