"""Header and task-state rules: version, role, time, the task, an honest completion_pct."""

from __future__ import annotations

import re
from datetime import datetime

from ctx_tui.handoff.gate.draft_view import HINTS, DraftView
from ctx_tui.handoff.schema import HANDOFF_VERSION

#: Subtasks differ in size, but not without bound: completion_pct must be reachable if no
#: subtask is more than this many times the size of another ...
SUBTASK_SIZE_RATIO = 3.0
#: ... give or take this many points for a subtask that is partly done.
IN_PROGRESS_SLACK = 10.0
#: Inside that range, a gap larger than this from the plain share still gets a warning.
COMPLETION_GAP_WARN = 30.0

_BLOCKED_TEXT = re.compile(
    r"\b(?:is|are|am|remains?|currently|still|got) blocked\b|\bblocked (?:by|on)\b"
    r"|\b(?:waiting|wait) (?:for|on) (?:review|approval|access|credentials|the (?:api|team|vendor|client))\b",
    re.IGNORECASE,
)
_BLOCKED_TASK = re.compile(r"\bblocked\b|\bwaiting (?:for|on)\b|\bneeds? (?:approval|access)\b", re.IGNORECASE)


def check_header(view: DraftView) -> None:
    data = view.data
    version = view.text("handoff_version", data.get("handoff_version", HANDOFF_VERSION))
    if version is not None and version != HANDOFF_VERSION:
        view.add("handoff_version", "error", f"unsupported version {version!r}",
                 f"this ctx-tui reads handoff_version {HANDOFF_VERSION!r}", "header.version")
    role = view.text("agent_role", data.get("agent_role"))
    if role is not None and not role.strip():
        view.add("agent_role", "error", "agent_role is empty", HINTS["agent_role"], "header.role")
    stamp = data.get("timestamp")
    stamp = view.text("timestamp", stamp.isoformat() if isinstance(stamp, datetime) else stamp)
    if stamp is not None:
        try:
            datetime.fromisoformat(stamp.strip())
        except ValueError:
            view.add("timestamp", "error", f"not an ISO 8601 timestamp: {stamp!r}", HINTS["timestamp"],
                     "header.timestamp")
    if "session_id" not in view.bad and not data.get("session_id"):
        view.add("session_id", "warning", "no session_id",
                 "name the session so the next one can find its transcript", "header.session")


def plausible_range(done: int, todo: int) -> tuple[float, float]:
    """The completion_pct a list of ``done`` and ``todo`` subtasks allows.

    The extremes are reached when every done subtask is ``SUBTASK_SIZE_RATIO``
    times the size of every remaining one (or the reverse), widened by
    ``IN_PROGRESS_SLACK`` for a remaining subtask that is partly done.
    """
    r = SUBTASK_SIZE_RATIO
    low = 100.0 * done / (done + r * todo)
    high = 100.0 * r * done / (r * done + todo)
    return max(0.0, low - IN_PROGRESS_SLACK), min(100.0, high + IN_PROGRESS_SLACK)


def check_task_state(view: DraftView) -> None:
    task = view.text("task_state.assigned_task", view.task.get("assigned_task"))
    if task is not None and not task.strip():
        view.add("task_state.assigned_task", "error", "assigned_task is empty", HINTS["assigned_task"],
                 "task.assigned_empty")
    done = view.task_list("completed_subtasks")
    todo = view.task_list("remaining_subtasks")
    blockers = view.task_list("blockers")
    pct = view.task.get("completion_pct")
    if "task_state.completion_pct" not in view.bad and isinstance(pct, (int, float)) and not isinstance(pct, bool):
        _completion(view, float(pct), done, todo, blockers)
    if blockers or "task_state.blockers" in view.bad:
        return
    hint = "list each blocker: what blocks which subtask, and who or what can unblock it"
    blocked = [t for t in todo if _BLOCKED_TASK.search(t)]
    if blocked:
        view.add("task_state.blockers", "error", f"a remaining subtask is blocked but no blocker is listed: {blocked[0]!r}",
                 hint, "task.blocked_unlisted")
        return
    # Prose may say "blocked" about code ("the read blocked on the socket"): only ask.
    match = _BLOCKED_TEXT.search(view.context())
    if match:
        view.add("task_state.blockers", "warning",
                 f"continuation_context says {match.group(0)!r} but no blocker is listed",
                 hint + " (if the remaining work waits on it)", "task.blocked_in_context")


def _completion(view: DraftView, pct: float, done: list[str], todo: list[str], blockers: list[str]) -> None:
    field = "task_state.completion_pct"
    if pct >= 100 and todo:
        view.add(field, "error", f"100% complete but {len(todo)} remaining subtask(s) listed",
                 "lower completion_pct or move the finished subtasks to completed_subtasks", "pct.done_with_remaining")
    elif pct <= 0 and done:
        view.add(field, "error", f"0% complete but {len(done)} completed subtask(s) listed",
                 "give the share of the work that is done", "pct.zero_with_completed")
    elif done or todo:
        total = len(done) + len(todo)
        share = 100.0 * len(done) / total
        low, high = plausible_range(len(done), len(todo))
        if not low <= pct <= high:
            view.add(field, "error",
                     f"{pct:g}% does not fit {len(done)} of {total} subtasks done: even if subtasks differ "
                     f"{SUBTASK_SIZE_RATIO:g}x in size, it lies between {low:.0f}% and {high:.0f}%",
                     "give the honest share, or split the subtasks so their sizes are comparable",
                     "pct.implausible")
        elif abs(pct - share) > COMPLETION_GAP_WARN:
            view.add(field, "warning", f"{pct:g}% but {len(done)} of {total} subtasks are done ({share:.0f}%)",
                     "is the estimate honest? subtasks differ in size; say why in continuation_context "
                     "or adjust the number", "pct.gap")
    else:
        view.add("task_state.remaining_subtasks", "warning", "no completed or remaining subtasks listed",
                 "list them so the next session (and this gate) can check completion_pct", "task.no_subtasks")
    if pct >= 100 and blockers:
        view.add(field, "warning", "100% complete but blockers are listed",
                 "remove resolved blockers or lower completion_pct", "pct.done_with_blockers")
