"""The quality gate: a labelled set of good and vague handoffs, types, partial drafts."""

from __future__ import annotations

import copy
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_tui.handoff.gate import Finding, anchors, check_handoff, passes
from ctx_tui.handoff.schema import Handoff, dump_handoff, parse_handoff

BASE: dict[str, Any] = {
    "handoff_version": "1.0.0",
    "agent_role": "main",
    "timestamp": "2026-11-29T17:05:00+00:00",
    "session_id": "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
    "context_usage_pct": 81.5,
    "task_state": {
        "assigned_task": "Make the JSONL follower keep a partial last line until its newline arrives",
        "completion_pct": 50,
        "completed_subtasks": ["offset tracking in Follower.poll()", "inode-based rotation check"],
        "remaining_subtasks": ["hold the partial last line", "test a 10 MB single line"],
        "blockers": [],
    },
    "decisions_made": [
        {
            "decision": "detect rotation by inode, not by size",
            "rationale": "an editor's rename-over keeps the size but replaces the inode",
            "affects_files": ["ctx_tui/transcripts/follow.py"],
        }
    ],
    "files_modified": ["ctx_tui/transcripts/follow.py"],
    "files_created": ["tests/test_follow.py"],
    "contracts_consumed": [],
    "continuation_context": (
        "Follower.poll() in ctx_tui/transcripts/follow.py keeps self._offset and re-reads from zero when "
        "st_ino changes. The partial last line is still dropped: test_partial_line in tests/test_follow.py "
        "fails with AssertionError (expected 3 entries, got 2). Keep the bytes after the last newline in "
        "self._tail and prepend them on the next poll."
    ),
    "suggested_first_action": "Run `pytest tests/test_follow.py::test_partial_line -x` and read the assertion",
}


def make(*, task: dict[str, Any] | None = None, drop: tuple[str, ...] = (), **fields: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(fields)
    if task:
        data["task_state"].update(task)
    for key in drop:
        data.pop(key)
    return data


# Good handoffs: concrete, one exact first step, honest numbers (varied domains and styles).
GOOD: list[tuple[str, dict[str, Any]]] = [
    ("base", make()),
    ("python-traceback", make(
        continuation_context="`ctx-tui stats` crashes on Codex rollouts with KeyError: 'info' in "
        "ctx_tui/transcripts/codex.py _usage(). token_count events can carry info: null; guard it and "
        "add a case to tests/test_codex.py.",
        suggested_first_action="Open ctx_tui/transcripts/codex.py and guard `info` in _usage()")),
    ("js-build", make(
        continuation_context="The Next.js build fails: `npm run build` reports TS2345 in "
        "src/components/TodoList.tsx line 42 (onToggle expects a string id, gets a number). "
        "useTodos.ts already uses string ids.",
        suggested_first_action="Change the onToggle prop type in src/components/TodoList.tsx to (id: string) => void")),
    ("rust", make(
        continuation_context="Parser rewrite in src/parser.rs: parse_expr() handles binary operators; "
        "unary minus still panics with 'unexpected token Minus' in cargo test parse_unary. Precedence "
        "table lives in PRECEDENCE in src/precedence.rs.",
        suggested_first_action="Add a Minus arm to parse_prefix() in src/parser.rs")),
    ("go-race", make(
        continuation_context="go test -race ./internal/cache reports a DATA RACE between Cache.Get and "
        "Cache.evict (internal/cache/lru.go:88 and :131). The mutex is taken in Get but not in evict().",
        suggested_first_action="Run `go test -race ./internal/cache -run TestEvictConcurrent`")),
    ("sql-migration", make(
        continuation_context="Migration 0042_add_user_email.sql adds users.email NOT NULL; it fails on "
        "staging with IntegrityError because 17 rows have no email. Backfill query is in "
        "scripts/backfill_email.sql, not yet run.",
        suggested_first_action="Run `psql -f scripts/backfill_email.sql` against the staging database")),
    ("docs", make(
        task={"completion_pct": 75, "completed_subtasks": ["install", "usage", "config"],
              "remaining_subtasks": ["troubleshooting"]},
        continuation_context="docs/handoff.md sections Install, Usage and Config are written; the "
        "Troubleshooting section should cover HandoffRefused (exit code 1) and the --force flag.",
        suggested_first_action="Write the Troubleshooting section of docs/handoff.md")),
    ("blocked-listed", make(
        task={"blockers": ["STRIPE_API_KEY for the test account is missing (asked ops in #412)"]},
        continuation_context="Payment webhook handler in app/webhooks/stripe.py verifies signatures with "
        "verify_signature(); the integration test test_webhook_paid is blocked by the missing "
        "STRIPE_API_KEY. Everything else in app/webhooks/ passes pytest.",
        suggested_first_action="Run `pytest tests/test_webhooks.py -k signature` once STRIPE_API_KEY is set")),
    ("done", make(
        task={"completion_pct": 100, "completed_subtasks": ["a", "b", "c"], "remaining_subtasks": []},
        continuation_context="All three endpoints (GET /items, POST /items, DELETE /items/{id}) are in "
        "api/routes/items.py with tests in tests/api/test_items.py; `make test` is green. Only the PR "
        "description is missing.",
        suggested_first_action="Open a pull request from branch feat/items-api with `gh pr create`")),
    ("zero-progress", make(
        task={"completion_pct": 0, "completed_subtasks": [], "remaining_subtasks": ["reproduce", "fix"]},
        continuation_context="Not started the fix yet. The bug report says exporting a board with 500+ "
        "cards times out in export_board() (services/export.py); the timeout is EXPORT_TIMEOUT_S = 30 in "
        "settings.py.",
        suggested_first_action="Reproduce with `python -m services.export --board 7 --cards 600`")),
    ("multiline", make(
        continuation_context="State:\n- ctx_tui/handoff/gate.py: check_handoff() done\n"
        "- ctx_tui/handoff/writer.py: write_handoff() links a temp file (os.link) for exclusive create\n"
        "Open question: whether handoff_dir may be absolute; PathsConfig allows it.",
        suggested_first_action="Write tests/test_handoff_writer.py::test_concurrent_writers")),
    ("decisions", make(
        decisions_made=[
            {"decision": "keep BM25 (bm25s) instead of embeddings", "rationale": "no network, 5 ms per query",
             "affects_files": ["ctx_tui/retrieve.py"]},
            {"decision": "tokenise on \\w+", "rationale": "identifiers like parse_rows stay whole", "affects_files": []},
        ],
        continuation_context="retrieve.py builds one bm25s index per tier in build_index(); "
        "search(query, k) merges tiers by score. test_retrieve_ranks_exact_identifier fails: parse_rows "
        "ranks below parse.",
        suggested_first_action="Debug the tokeniser in ctx_tui/retrieve.py with `pytest -k exact_identifier -s`")),
    ("infra", make(
        continuation_context="Terraform plan in infra/prod/main.tf wants to destroy aws_s3_bucket.logs "
        "because the bucket name changed in variables.tf (logs_bucket_name). Do not apply; rename back "
        "or add a moved block.",
        suggested_first_action="Add a moved block for aws_s3_bucket.logs in infra/prod/main.tf")),
    ("config-key", make(
        continuation_context="New config key window.autocompact_threshold (default 0.92) is read in "
        "WindowState.headroom_tokens; `ctx-tui config` lists it. The dashboard's UsagePanel still uses "
        "a hard-coded 0.9.",
        suggested_first_action="Replace the hard-coded 0.9 in ctx_tui/ui/widgets/usage.py with the config value")),
    ("commit-revert", make(
        continuation_context="Commit a1b2c3d broke the Windows CI job: test_paths.py::test_safe_name fails "
        "on backslashes (safe_name keeps them). Linux jobs pass.",
        suggested_first_action="Revert commit a1b2c3d with `git revert a1b2c3d`")),
    ("warning-only", make(
        task={"completion_pct": 65, "completed_subtasks": ["one"], "remaining_subtasks": ["two", "three"]},
        continuation_context="Most of the effort was the first subtask: the schema in "
        "ctx_tui/handoff/schema.py. Subtasks two and three are small edits to docs/handoff.md: its rule "
        "table still lacks pct.gap.",
        suggested_first_action="Edit docs/handoff.md to add the rule table")),
]

# Vague handoffs: each fails, and for its own reason (the rule id it must trigger).
VAGUE: list[tuple[str, str, dict[str, Any]]] = [
    ("context-filler", "context.filler", make(
        continuation_context="Continue working on it. Fix the remaining issues. Everything is mostly done, "
        "etc. As discussed, some bugs are left in parse_rows().")),
    ("context-not-concrete", "context.not_concrete", make(
        continuation_context="The refactor went well and the new approach is cleaner than the old one. "
        "The tests are green again after the changes we made this afternoon to the parsing layer.")),
    ("context-empty", "context.empty", make(continuation_context="   ")),
    ("context-too-long", "context.too_long", make(
        continuation_context=("parse_rows() in src/io.py reads rows. " * 110))),
    ("context-missing", "schema.missing", make(drop=("continuation_context",))),
    ("action-stall", "action.stall_verb", make(suggested_first_action="Continue the work on src/io.py")),
    ("action-empty", "action.empty", make(suggested_first_action="")),
    ("action-sequence", "action.multiple", make(
        suggested_first_action="Run `pytest tests/test_io.py`, then fix parse_rows() and then commit")),
    ("action-review-code", "action.no_object", make(suggested_first_action="Review the code")),
    ("action-not-imperative", "action.not_imperative", make(
        suggested_first_action="The next step is to look at src/io.py")),
    ("pct-done-with-remaining", "pct.done_with_remaining", make(task={"completion_pct": 100})),
    ("pct-zero-with-completed", "pct.zero_with_completed", make(task={"completion_pct": 0})),
    ("pct-out-of-range", "schema.range", make(task={"completion_pct": 140})),
    ("blocked-unlisted", "task.blocked_unlisted", make(
        task={"remaining_subtasks": ["deploy to staging (blocked: waiting for credentials)"]})),
    ("absolute-path", "path.absolute", make(files_modified=["/home/me/project/src/io.py"])),
    ("parent-path", "path.parent", make(files_created=["../other-repo/src/io.py"])),
    ("decision-no-rationale", "decision.no_rationale", make(
        decisions_made=[{"decision": "use inode for rotation", "affects_files": []}])),
    ("wrong-type", "schema.type", make(task={"completion_pct": "half"})),
    ("unknown-field", "schema.unknown", make(continuation_contxt="typo")),
    ("bad-timestamp", "header.timestamp", make(timestamp="yesterday evening")),
    ("no-assigned-task", "task.assigned_empty", make(task={"assigned_task": ""})),
]


def _rules(findings: list[Finding]) -> set[str]:
    return {f.rule for f in findings if f.is_error}


def test_labelled_set_confusion_matrix(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(GOOD) >= 15 and len(VAGUE) >= 15
    matrix = {("good", "pass"): 0, ("good", "fail"): 0, ("vague", "pass"): 0, ("vague", "fail"): 0}
    wrong: list[str] = []
    for name, data in GOOD:
        findings = check_handoff(data)
        verdict = "pass" if passes(findings) else "fail"
        matrix[("good", verdict)] += 1
        if verdict == "fail":
            wrong.append(f"good {name}: {[(f.field, f.message) for f in findings if f.is_error]}")
    for name, rule, data in VAGUE:
        findings = check_handoff(data)
        verdict = "pass" if passes(findings) else "fail"
        matrix[("vague", verdict)] += 1
        if rule not in _rules(findings):
            wrong.append(f"vague {name}: expected {rule}, got {sorted(_rules(findings))}")
    table = (
        "confusion matrix (rows: label, columns: gate)\n"
        f"           pass  fail\n"
        f"  good    {matrix[('good', 'pass')]:5d} {matrix[('good', 'fail')]:5d}\n"
        f"  vague   {matrix[('vague', 'pass')]:5d} {matrix[('vague', 'fail')]:5d}"
    )
    with capsys.disabled():  # shown whether or not pytest captures output
        print("\n" + table)
    assert not wrong, table + "\n" + "\n".join(wrong)
    assert matrix[("good", "fail")] == 0 and matrix[("vague", "pass")] == 0, table


def test_vague_reasons_are_distinct() -> None:
    """Each vague handoff fails for a different reason: no two share the same set of errors."""
    signatures = [
        frozenset((f.field, f.rule) for f in check_handoff(data) if f.is_error) for _, _, data in VAGUE
    ]
    assert len(set(signatures)) == len(VAGUE)
    assert len({rule for _, rule, _ in VAGUE}) >= 15


def test_warnings_do_not_block() -> None:
    findings = check_handoff(dict(GOOD)["warning-only"])
    assert passes(findings)
    assert "pct.gap" in {f.rule for f in findings}


def test_wrong_types_name_the_field() -> None:
    text = """
handoff_version: "1.0.0"
agent_role: main
timestamp: 2026-11-29T17:05:00Z
task_state:
  assigned_task: [not, text]
  completion_pct: true
  remaining_subtasks: "one string"
decisions_made:
  - decision: 7
    rationale: because
files_modified: [src/ok.py, 12]
continuation_context: {a: 1}
suggested_first_action: Run `pytest`
"""
    findings = check_handoff(parse_handoff(text))
    by_field = {f.field: f for f in findings if f.rule == "schema.type"}
    assert set(by_field) == {
        "task_state.assigned_task",
        "task_state.completion_pct",
        "task_state.remaining_subtasks",
        "decisions_made[0].decision",
        "files_modified[1]",
        "continuation_context",
    }
    assert "got bool" in by_field["task_state.completion_pct"].message
    # The unquoted timestamp (a YAML datetime) is accepted as a timestamp.
    assert not any(f.field == "timestamp" for f in findings)


@pytest.mark.parametrize(
    "draft",
    [
        {},
        {"continuation_context": "Fix"},
        {"task_state": None},
        {"task_state": {"completion_pct": 50}},
        {"decisions_made": "x"},
        {"decisions_made": [None, {"decision": ""}]},
        {"files_modified": [None, "", "  "]},
        {"suggested_first_action": ""},
        {"timestamp": datetime.now(timezone.utc)},
    ],
)
def test_partial_drafts_never_raise(draft: dict[str, Any]) -> None:
    findings = check_handoff(draft)
    assert not passes(findings)
    assert all(isinstance(f, Finding) and f.field and f.message and f.hint for f in findings)


def test_non_mapping_is_one_finding() -> None:
    findings = check_handoff(["a", "list"])
    assert [f.rule for f in findings] == ["schema.not_mapping"]


def test_accepts_a_model_and_round_trips_through_yaml() -> None:
    model = Handoff.model_validate(BASE)
    assert passes(check_handoff(model))
    text = dump_handoff(model)
    assert list(yaml.safe_load(text)) == list(Handoff.model_fields)
    assert "continuation_context: |" in text
    assert parse_handoff(text) == Handoff.model_validate(parse_handoff(text)).model_dump()
    assert passes(check_handoff(parse_handoff(text)))


def test_paths_checked_against_the_project(tmp_path: Path) -> None:
    (tmp_path / "ctx_tui" / "transcripts").mkdir(parents=True)
    (tmp_path / "ctx_tui" / "transcripts" / "follow.py").write_text("")
    findings = check_handoff(make(files_modified=["ctx_tui/transcripts/follow.py", "C:\\x\\y.py", "a/../../b"]), tmp_path)
    rules = {(f.field, f.rule) for f in findings}
    assert ("files_created[0]", "path.missing") in rules  # tests/test_follow.py is not there
    assert ("files_modified[1]", "path.absolute") in rules
    assert ("files_modified[2]", "path.parent") in rules
    assert not any(f.field == "files_modified[0]" for f in findings)
    # Without a project nothing is looked up on disk.
    assert not any(f.rule == "path.missing" for f in check_handoff(make()))


def test_filler_without_object_warns_when_the_text_is_concrete() -> None:
    text = BASE["continuation_context"] + " Clean up stuff."
    findings = check_handoff(make(continuation_context=text))
    assert passes(findings)
    assert "context.filler_phrase" in {f.rule for f in findings}


def test_a_filler_phrase_with_an_object_is_fine() -> None:
    text = "Continue the refactor of parse_rows() in src/io.py: the KeyError path in read_header() is left."
    assert not {f.rule for f in check_handoff(make(continuation_context=text))} & {"context.filler", "context.filler_phrase"}


def test_anchors_do_not_double_count_one_path() -> None:
    assert anchors("Fix the bug in src/app.py") == {"src/app.py"}
    assert anchors("and/or yes/no e.g. this") == set()
    assert {"follower.poll()", "keyerror"} <= anchors("Follower.poll() raises KeyError")


def test_a_command_word_in_capitals_is_a_name_not_a_command() -> None:
    assert anchors("some AWS permission things, moved to AWS Batch") == set()
    assert anchors("`aws s3 ls` works; aws batch describe-jobs shows RUNNABLE") >= {"aws batch"}


def test_a_list_is_not_one_step() -> None:
    findings = check_handoff(make(suggested_first_action="- Run `pytest`\n- fix test_partial_line\n- commit"))
    assert {f.rule for f in findings if f.is_error} == {"action.multiple"}


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
_fields = st.sampled_from(
    ["agent_role", "timestamp", "session_id", "context_usage_pct", "task_state", "decisions_made",
     "files_modified", "files_created", "contracts_consumed", "continuation_context", "suggested_first_action"]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_fields, _json, max_size=8), st.dictionaries(_fields, _json, max_size=3))
def test_gate_never_raises_on_any_draft(draft: dict[str, Any], task: dict[str, Any]) -> None:
    """Whatever a half-typed form or a hand-edited YAML holds, the gate answers with findings."""
    draft = dict(draft)
    if task:
        draft["task_state"] = {"completion_pct": 50, "completed_subtasks": [], **task}
    findings = check_handoff(draft, Path("/nonexistent-project"))
    assert all(f.severity in ("error", "warning") and f.field for f in findings)


def test_blocked_in_prose_only_asks() -> None:
    text = BASE["continuation_context"] + " The old reader blocked on socket reads; select() fixed it."
    findings = check_handoff(make(continuation_context=text))
    assert passes(findings)
    assert "task.blocked_in_context" in {f.rule for f in findings}
    listed = check_handoff(make(continuation_context=text, task={"blockers": ["none really"]}))
    assert "task.blocked_in_context" not in {f.rule for f in listed}
