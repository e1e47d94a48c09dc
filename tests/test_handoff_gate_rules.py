"""The gate rules of issue 14, one behaviour each (the labelled set measures them together)."""

from __future__ import annotations

from typing import Any

import pytest

from ctx_tui.handoff.gate import check_handoff, passes
from ctx_tui.handoff.gate.blocker_rules import blockers_of
from ctx_tui.handoff.gate.concrete import anchors
from ctx_tui.handoff.gate.draft_view import DraftView
from ctx_tui.handoff.gate.task_rules import plausible_range
from ctx_tui.handoff.gate.text import stem
from test_handoff_gate import make


def errors(data: dict[str, Any]) -> set[str]:
    return {f.rule for f in check_handoff(data) if f.is_error}


# -- the first action ------------------------------------------------------------------------


@pytest.mark.parametrize("action", [
    "`pytest tests/test_follow.py::test_partial_line -x`",
    "go test -race ./server -run TestServerShutdown -count=200",
    "kubectl scale deploy/clickstream-v1 --replicas=0 -n data",
    "./tools/profile.sh --level forest --frames 600",
    "Compare run 48 with run 47 in W&B on the grad-norm panel",
    "Revert 3f9a2c1",
    "Answer the review comment on https://github.com/acme/web/pull/4471",
    "Ask ops for an ETA on INFRA-771",
    "Run `pytest tests/test_io.py` and read the assertion",
    "Review the diff of a1b2c3d for the missing index on orders.user_id",
    "Wrap the OrderDao.all() call in withContext(Dispatchers.IO)",
])
def test_one_executable_step_passes(action: str) -> None:
    assert not errors(make(suggested_first_action=action)) & {
        "action.multiple", "action.stall_verb", "action.not_imperative", "action.no_object", "action.no_change"}


@pytest.mark.parametrize(("action", "rule"), [
    ("Review src/checkout/validation.ts and continue from there", "action.stall_verb"),
    ("Have a look at SettingsStore.swift and carry on", "action.stall_verb"),
    ("Look at the failing tests under tests/api/ and fix them", "action.no_change"),
    ("Go over the tests in app/src/androidTest/ and get them passing", "action.no_change"),
    ("Review src/api/orders.py", "action.no_change"),
    ("Wire useDebounce into SearchBox.tsx, delete the lodash import and update the snapshots", "action.multiple"),
    ("Write the tests, update docs/cli.md and bump the version", "action.multiple"),
    ("Wrap up src/io.py", "action.stall_verb"),
])
def test_vague_or_chained_steps_are_refused(action: str, rule: str) -> None:
    assert rule in errors(make(suggested_first_action=action))


# -- completion honesty ------------------------------------------------------------------------


def test_plausible_range_allows_three_times_bigger_subtasks_and_ten_points() -> None:
    low, high = plausible_range(1, 2)  # 1 of 3 done
    assert round(low) == 4 and round(high) == 70


@pytest.mark.parametrize(("pct", "done", "todo"), [(90, 1, 5), (20, 6, 1), (95, 1, 4), (30, 0, 4)])
def test_a_completion_far_from_the_subtasks_is_an_error(pct: float, done: int, todo: int) -> None:
    task = {"completion_pct": pct, "completed_subtasks": [f"d{i}" for i in range(done)],
            "remaining_subtasks": [f"r{i}" for i in range(todo)]}
    assert "pct.implausible" in errors(make(task=task))


def test_an_uneven_but_plausible_completion_only_warns() -> None:
    findings = check_handoff(make(task={"completion_pct": 65, "completed_subtasks": ["big one"],
                                        "remaining_subtasks": ["small", "small"]}))
    assert passes(findings) and "pct.gap" in {f.rule for f in findings}


# -- rationales --------------------------------------------------------------------------------


@pytest.mark.parametrize("rationale", [
    "it is better", "as discussed", "cleaner and best practice", "seems like the right choice",
    "we agreed it makes more sense", "obviously the right way to do it",
])
def test_an_empty_rationale_is_refused(rationale: str) -> None:
    data = make(decisions_made=[{"decision": "use inode for rotation", "rationale": rationale}])
    assert "decision.empty_rationale" in errors(data)


@pytest.mark.parametrize("rationale", [
    "an editor's rename-over keeps the size but replaces the inode",
    "no network, 5 ms per query",
    "support tickets show 80% of verifications happen within 2 h",
    "the marketing funnel report counts anonymous sessions (requirement in DATA-412)",
    "users on Safari cannot paste into the field",
])
def test_a_rationale_that_refers_to_something_passes(rationale: str) -> None:
    data = make(decisions_made=[{"decision": "use inode for rotation", "rationale": rationale}])
    assert "decision.empty_rationale" not in errors(data)


# -- blockers ----------------------------------------------------------------------------------

_STAGING = ("settings/base.py sets SESSION_COOKIE_SAMESITE = 'Lax'; `pytest tests/security` passes (41 passed). "
            "Nothing can go to staging until the security review SEC-318 is signed off.")


def test_an_action_doing_what_a_prose_blocker_forbids_is_refused() -> None:
    data = make(continuation_context=_STAGING,
                suggested_first_action="Deploy the branch to staging with `make deploy ENV=staging`")
    found = [f for f in check_handoff(data) if f.rule == "action.blocked"]
    assert found and "staging" in found[0].message


def test_a_listed_blocker_is_checked_too() -> None:
    data = make(task={"blockers": ["legal approval of the privacy manifest before any App Store submission"]},
                suggested_first_action="Submit build 812 to the App Store with `fastlane ios release`")
    assert "action.blocked" in errors(data)


@pytest.mark.parametrize("action", [
    "Send Lena the diff of settings/base.py for the SEC-318 review",
    "Deploy to staging with `make deploy ENV=staging` once SEC-318 is signed off",
    "Run `pytest tests/security -k cookie`",
])
def test_unblocking_or_conditional_or_unrelated_actions_pass(action: str) -> None:
    data = make(continuation_context=_STAGING, suggested_first_action=action)
    assert "action.blocked" not in errors(data)


def test_a_capability_statement_is_not_a_blocker() -> None:
    text = ("`terraform plan` wants to destroy aws_s3_bucket.logs (1 to destroy). A `moved` block cannot rename "
            "an S3 bucket.")
    data = make(continuation_context=text, suggested_first_action="Point aws_s3_bucket.logs.bucket at var.legacy")
    assert "action.blocked" not in errors(data)


@pytest.mark.parametrize("how_it_runs", [
    "BatchRunner opens each scene with OpenScene(path), calls BakeAsync, waits on isRunning, saves, moves on.",
    "Follower.poll() waits for a newline before it yields a line; test_partial_line fails (expected 3, got 2).",
])
def test_a_context_telling_how_code_runs_is_not_a_blocker(how_it_runs: str) -> None:
    data = make(continuation_context=how_it_runs + " The queue in BatchRunner.cs is lost on reload (3 of 5 runs).",
                suggested_first_action="Run BatchRunner.cs on scenes/Level_01.unity and save queue.log")
    assert blockers_of(DraftView(data, set(), None)) == []
    assert "action.blocked" not in errors(data)


def test_work_waiting_on_someone_is_still_a_blocker() -> None:
    data = make(continuation_context="`terraform plan` shows 1 to change. The DNS change waits for the freeze "
                "to end (CHG-5521); we're waiting on Ops for the window.",
                suggested_first_action="Apply the DNS change in infra/dns/records.tf with `terraform apply`")
    assert [b[:14] for b in blockers_of(DraftView(data, set(), None))] == ["The DNS change", "we're waiting "]
    assert "action.blocked" in errors(data)


_LEGAL = {"blockers": ["Legal (Herr Brandt) has to confirm which licence 'Nutzung frei' is, asked 05-14",
                       "No re-import of the 402 datasets before both licence questions are settled"]}


@pytest.mark.parametrize("action", [
    "Add a --report-unmapped flag to scripts/import_bmdv.py that writes unmapped rows to a CSV for legal",
    "Write a test in tests/test_import.py for rows whose licence is still unmapped",
])
def test_a_step_that_prepares_beside_the_blocker_passes(action: str) -> None:
    assert "action.blocked" not in errors(make(task=_LEGAL, suggested_first_action=action))


@pytest.mark.parametrize(("blockers", "action"), [
    (_LEGAL["blockers"], "Run the re-import of the 402 datasets with `python scripts/import_bmdv.py`"),
    # writing, but not into a file: it carries something out
    (["legal has to approve the licence before any re-import"], "Add the 402 datasets to the portal re-import queue"),
    # the blocker forbids the writing itself
    (["no edits to scripts/import_bmdv.py until the legal review is done"],
     "Add a --report-unmapped flag to scripts/import_bmdv.py"),
])
def test_a_step_that_needs_the_blocker_lifted_is_still_refused(blockers: list[str], action: str) -> None:
    assert "action.blocked" in errors(make(task={"blockers": blockers}, suggested_first_action=action))


@pytest.mark.parametrize(("blocker", "phrase"), [
    ("something weird with source maps", "something weird"),
    ("tests are having some issues since the switch", "some issues"),
    ("test run not working yet", "not working"),
    ("some AWS permission things", "things"),
])
def test_a_blocker_that_names_nothing_is_refused(blocker: str, phrase: str) -> None:
    found = [f for f in check_handoff(make(task={"blockers": ["legal approval (Tom)", blocker]}))
             if f.rule == "blocker.vague"]
    assert [(f.field, f.severity) for f in found] == [("task_state.blockers[1]", "error")]
    assert f"'{phrase}'" in found[0].message and blocker in found[0].message


@pytest.mark.parametrize("blocker", [
    "waiting on Dana for the new PAT",
    "some issues with `npm run test:unit` (exit 1)",
    "the vendor SDK does not work on arm64 yet",
    "permission problems with the deploy role, the platform team is on it",
    "staging is down until Thursday",
    "legal approval of the privacy manifest",
])
def test_a_blocker_that_names_what_blocks_passes(blocker: str) -> None:
    assert "blocker.vague" not in errors(make(task={"blockers": [blocker]}))


# -- state in the context ----------------------------------------------------------------------


def test_names_without_state_are_refused() -> None:
    text = ("The refund flow goes through shop/api/views.py, shop/api/serializers.py and shop/payments/stripe.py. "
            "RefundSerializer and OrderViewSet are the main classes involved.")
    assert "context.no_state" in errors(make(continuation_context=text))


def test_a_context_that_restates_the_task_is_refused() -> None:
    data = make(task={"assigned_task": "Fix the frame drops in the forest level on Switch"},
                continuation_context="The forest level has frame drops on Switch; we need to fix the frame drops. "
                "The level is Content/Levels/Forest.umap and FoliageSystem.cpp renders it.")
    assert "context.restates_task" in errors(data)


@pytest.mark.parametrize("text", [
    "SHT40 on I2C1 returns 0xFF: i2c_init() in drivers/i2c.c:23 hardcodes 400000.",
    "`dbt test -s fct_revenue`: unique_fct_revenue_invoice_id FAIL 37.",
    "Run 48 diverges at step 2.1k (loss 2.9 → NaN); run 47 is stable at 2.41.",
    "resend view in accounts/views.py is a stub; verify_email() works.",
    "docs/fr/install.md traduit; `mkdocs build` OK. docs/fr/config.md pas commencé: 14 clés dans CONFIG_KEYS.",
])
def test_terse_state_with_evidence_passes(text: str) -> None:
    assert not errors(make(continuation_context=text)) & {"context.no_state", "context.restates_task",
                                                           "context.not_concrete"}


# -- what names a thing ------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["then make sure everything passes", "go through the rest of it",
                                  "make the tests pass", "go ahead with the plan", "it should make sense"])
def test_a_command_word_used_as_an_english_verb_names_nothing(text: str) -> None:
    assert not anchors(text)


@pytest.mark.parametrize("text, thing", [("run make test first", "make test"), ("go test ./server", "go test"),
                                         ("make deploy env=staging", "make deploy"), ("then git rebase main", "git rebase")])
def test_a_command_word_with_its_argument_names_the_command(text: str, thing: str) -> None:
    assert thing in anchors(text)


def test_filler_held_up_by_make_sure_is_refused() -> None:
    text = ("Cleaned up the importer in etl/load.py and it looks a lot better now. Next just continue the work on the "
            "exporter and fix remaining issues, then make sure everything passes.")
    assert not passes(check_handoff(make(continuation_context=text)))


@pytest.mark.parametrize("forms", [("isolate", "isolated", "isolates", "isolating"), ("enable", "enabled", "enables"),
                                   ("release", "released", "releasing"), ("cache", "caches", "cached")])
def test_a_verb_ending_in_e_has_one_stem(forms: tuple[str, ...]) -> None:
    assert len({stem(word) for word in forms}) == 1


def test_an_action_doing_what_a_blocker_forbids_is_refused_in_another_form_of_the_verb() -> None:
    data = make(task={"blockers": ["Deprecating the old endpoints is blocked until the mobile team ships 4.12"]},
                suggested_first_action="Run scripts/deprecate_old_api.py --apply on prod")
    assert "action.blocked" in errors(data)


@pytest.mark.parametrize("text", ['Changed web/src/Settings.tsx (the "Theme" dropdown) and web/src/theme.ts. '
                                  'Related: ThemeProvider, docs/theming.md.',
                                  "Touched app/forms.py (the 'Save' button) and app/views.py."])
def test_a_one_word_quote_is_a_name_not_a_message(text: str) -> None:
    assert "context.no_state" in errors(make(continuation_context=text))


@pytest.mark.parametrize("text", ['sync/client.py: login fails with "connection refused" on the staging host.',
                                  "worker/jobs.py logs 'queue full, dropping' under load."])
def test_a_quoted_message_is_evidence(text: str) -> None:
    assert "context.no_state" not in errors(make(continuation_context=text))
