"""What the dashboard's action keys do: read the selection, call the core, open a flow screen, say what happened.

Each ``DashboardApp.action_*`` method calls one function here. Every state
change goes through the core (``ctx_tui.actions``, ``ctx_tui.memory.registry``,
``ctx_tui.handoff``), which also writes the audit log; the UI never writes a
file itself. Core calls take file locks (up to ``storage.LOCK_TIMEOUT_S``), so
they run in a thread worker; the result comes back to the UI thread through
``call_from_thread`` and is shown as a notification (the dashboard itself
re-reads the changed files through its follow worker).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from rich.text import Text
from textual.css.query import NoMatches

from ctx_tui.actions.promotions import ApproveResult, ProposeResult, approve, memory_digest, propose, reject
from ctx_tui.actions.restate import Restatement, restate_items
from ctx_tui.compress import render_entries
from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.memory.memory_md import SECTION_FOR_TYPE
from ctx_tui.memory.registry import register_item
from ctx_tui.memory.session_store import Promotion
from ctx_tui.memory.view import MemoryView
from ctx_tui.paths import shown_path
from ctx_tui.ui.messages import Snapshot
from ctx_tui.ui.safe import clean, literal
from ctx_tui.ui.screens.compress_preview import CompressPreviewScreen
from ctx_tui.ui.screens.confirm import ConfirmScreen
from ctx_tui.ui.screens.handoff_form import HandoffFormScreen
from ctx_tui.ui.screens.new_item import NewItemRequest, NewItemScreen
from ctx_tui.ui.screens.search import SearchScreen
from ctx_tui.ui.widgets.decay_table import DecayPanel

if TYPE_CHECKING:
    from ctx_tui.ui.app import DashboardApp

T = TypeVar("T")

INSTALL_HINT = "run `ctx-tui hook install` in the project (it wires the hooks into .claude/settings.json)"


@dataclass(frozen=True, slots=True)
class FlowContext:
    """Where a flow acts: the project, its config, the session and the snapshot on screen."""

    project: Path
    config: Config
    transcript: Path
    session_id: str
    current_round: int
    snapshot: Snapshot

    @property
    def memory_path(self) -> Path:
        return self.config.paths.memory_path(self.project)

    @property
    def view(self) -> MemoryView | None:
        memory = self.snapshot.memory
        return memory if isinstance(memory, MemoryView) else None


def flow_context(app: DashboardApp) -> FlowContext | None:
    """The context of the session on screen; None (and a notice) before the first read."""
    if app.screen is not app.dashboard:
        return None  # a flow or the help is open: the dashboard's keys wait until it closes
    snapshot = app.snapshot
    if snapshot is None:
        app.notify("The session is still being read; try again in a moment.", title="Not ready", severity="warning")
        return None
    memory = snapshot.memory if isinstance(snapshot.memory, MemoryView) else None
    # the same id the memory model names the session memory file by (memory.view.session_id_of)
    session_id = memory.session_id if memory else (snapshot.state.meta.session_id or app.path.stem)
    current = memory.current_round if memory else snapshot.state.rounds
    return FlowContext(app.project, app.feed.config, app.path, session_id, current, snapshot)


def selected_item_id(app: DashboardApp) -> str | None:
    """The id of the item highlighted in the decayed-items table (``DecayPanel.selected``)."""
    try:
        row = app.dashboard.query_one(DecayPanel).selected
    except (NoMatches, AttributeError):
        return None
    return row.id if row is not None else None


def one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return clean(text, one_line=True)


def run_core(app: DashboardApp, title: str, job: Callable[[], T], done: Callable[[T], None]) -> None:
    """Run ``job`` (core calls: locks, file I/O) in a thread; ``done`` gets its result on the UI thread.

    A user-facing failure (``CtxError``, an OS error, a lock timeout) becomes one
    error notification; nothing else is changed.
    """

    def body() -> None:
        try:
            result = job()
        except (CtxError, OSError, ValueError) as exc:
            app.call_from_thread(app.notify, one_line(exc), title=title, severity="error", markup=False)
            return
        app.call_from_thread(done, result)

    app.run_worker(body, thread=True, group="flows", name=title, exit_on_error=False)


def _needs_item(app: DashboardApp, what: str) -> str | None:
    item_id = selected_item_id(app)
    if item_id is None:
        app.notify(f"Select an item in the decayed-items table (↑/↓) to {what} it.", title="No item selected",
                   severity="warning")
    return item_id


# -- restate (r) -------------------------------------------------------------------------


def restate(app: DashboardApp) -> None:
    """Queue the selected item for the next prompt; without the hook, copy the restatement instead."""
    ctx = flow_context(app)
    item_id = _needs_item(app, "restate") if ctx else None
    if ctx is None or item_id is None:
        return

    def done(result: Restatement) -> None:
        if result.hook_installed:
            state = "queued" if result.queued[0] else "already queued"
            app.notify(f"'{item_id}' {state}: the agent sees it again with your next prompt "
                       f"({result.queue_length} waiting).", title="Restate", markup=False)
            return
        app.copy_to_clipboard(result.text)
        app.notify(f"'{item_id}' is on the clipboard: paste it into the agent. No Claude Code hook delivers "
                   f"restatements in this project, so nothing was queued; to have them sent with your next prompt, "
                   f"{INSTALL_HINT}.",
                   title="Restate: copied to the clipboard", severity="warning", markup=False, timeout=12)

    run_core(app, "Restate", lambda: restate_items(ctx.project, ctx.session_id, [item_id], ctx.current_round), done)


# -- promotions (p, a, x) --------------------------------------------------------------------


def promote(app: DashboardApp, *, again: bool = False) -> None:
    """Propose the selected item for MEMORY.md (nothing is written until it is approved)."""
    ctx = flow_context(app)
    item_id = _needs_item(app, "promote") if ctx else None
    if ctx is None or item_id is None:
        return

    def done(results: list[ProposeResult]) -> None:
        result = results[0]
        if result.proposed:
            app.notify(f"'{item_id}' proposed for {ctx.memory_path.name}; it waits in Pending promotions: "
                       "a approves, x rejects.", title="Promote", markup=False)
        elif result.status == "rejected":
            question = Text.assemble("'", literal(item_id), "' was rejected earlier in this session. Propose it again?")
            app.push_screen(ConfirmScreen("Propose again?", question, "Propose again", "Leave it"),
                            lambda yes: promote(app, again=True) if yes else None)
        else:
            app.notify(f"'{item_id}': {result.message}.", title="Promote", markup=False)

    run_core(app, "Promote", lambda: propose(ctx.project, ctx.session_id, [item_id], ctx.memory_path, again=again),
             done)


def _first_pending(app: DashboardApp, ctx: FlowContext) -> Promotion | None:
    waiting = ctx.view.pending_promotions if ctx.view else ()
    if not waiting:
        app.notify("Nothing waits for approval (p proposes the selected item).", title="Pending promotions")
        return None
    return waiting[0]


def approve_first(app: DashboardApp) -> None:
    """Show the first pending promotion and where it goes; write it to MEMORY.md once the user says yes."""
    ctx = flow_context(app)
    promotion = _first_pending(app, ctx) if ctx else None
    if ctx is None or promotion is None:
        return
    path = ctx.memory_path
    seen = memory_digest(path)  # MEMORY.md as it is while the user reads the question
    section = SECTION_FOR_TYPE[promotion.type]
    body = Text.assemble(
        ("Write to long-term memory:\n\n", "bold"),
        "  - ", literal(promotion.content), "\n\n",
        "section ", (f"## {section}", "bold"), " of ", literal(str(path)),
    )

    def decided(yes: bool | None) -> None:
        if not yes:
            app.notify("Nothing written; the promotion still waits.", title="Approve")
            return
        run_core(app, "Approve",
                 lambda: approve(ctx.project, ctx.session_id, [promotion.item_id], path, seen_digest=seen),
                 lambda result: _approved(app, promotion, result))

    app.push_screen(ConfirmScreen(f"Approve '{promotion.item_id}'?", body, "Approve", "Not now"), decided)


def _approved(app: DashboardApp, promotion: Promotion, result: ApproveResult) -> None:
    where = str(result.memory_path)
    if result.changed_meanwhile:
        app.notify(f"{result.memory_path.name} had changed on disk since it was read; ctx-tui re-read it and "
                   "kept those changes.", title="Approve: file re-read", severity="warning", markup=False)
    if promotion.item_id in result.written:
        section = SECTION_FOR_TYPE[promotion.type]
        app.notify(f"'{promotion.item_id}' written to {where} under ## {section}.", title="Approved", markup=False)
    elif promotion.item_id in result.already_present:
        app.notify(f"'{promotion.item_id}' approved; its text was already in {where}, nothing added.",
                   title="Approved", markup=False)
    else:
        app.notify(f"'{promotion.item_id}' was already approved; {where} unchanged.", title="Approve", markup=False)


def reject_first(app: DashboardApp) -> None:
    """Reject the first pending promotion: nothing is written, it is not proposed again this session."""
    ctx = flow_context(app)
    promotion = _first_pending(app, ctx) if ctx else None
    if ctx is None or promotion is None:
        return

    def done(rejected: list[str]) -> None:
        if rejected:
            app.notify(f"'{promotion.item_id}' rejected; nothing written to {ctx.memory_path.name}.",
                       title="Rejected", markup=False)
        else:
            app.notify(f"'{promotion.item_id}' was already rejected.", title="Reject", markup=False)

    run_core(app, "Reject", lambda: reject(ctx.project, ctx.session_id, [promotion.item_id]), done)


# -- new item (n) ------------------------------------------------------------------------


def new_item(app: DashboardApp) -> None:
    """Open the new-item form; register what it returns through the memory core."""
    ctx = flow_context(app)
    if ctx is None:
        return
    known = frozenset(i.id for i in ctx.view.memory.items) if ctx.view else frozenset()

    def submitted(request: NewItemRequest | None) -> None:
        if request is None:
            return
        run_core(
            app, "New item",
            lambda: register_item(ctx.project, ctx.session_id, request.id, request.type, request.content,
                                  ctx.current_round),
            lambda out: app.notify(
                f"'{out[0].id}' {'registered' if out[1] else 'updated'} ({out[0].type.value}, "
                f"{out[0].importance.value} importance); it is tracked from round {out[0].entered_round}.",
                title="New item", markup=False),
        )

    app.push_screen(NewItemScreen(known), submitted)


# -- compress (c) ----------------------------------------------------------------------------


def compress(app: DashboardApp) -> None:
    """Open the compression preview on the live window of the snapshot on screen."""
    ctx = flow_context(app)
    if ctx is None:
        return
    live = [w.entry for w in ctx.snapshot.state.live]
    items = ctx.view.memory.active_items() if ctx.view else []
    app.push_screen(CompressPreviewScreen(lambda: render_entries(live), items, ctx.project, ctx.session_id,
                                          ctx.config))


# -- handoff (h) -----------------------------------------------------------------------------


def handoff(app: DashboardApp) -> None:
    """Open the handoff form; say where the handoff was written."""
    ctx = flow_context(app)
    if ctx is None:
        return

    def saved(path: Path | None) -> None:
        if path is not None:
            shown = shown_path(path, ctx.project)
            app.notify(f"Handoff written to {shown}. The next session starts from `ctx-tui handoff latest --prompt`.",
                       title="Handoff saved", markup=False, timeout=12)

    app.push_screen(HandoffFormScreen(ctx.transcript, ctx.project, ctx.config), saved)


# -- search (/) ------------------------------------------------------------------------------


def search(app: DashboardApp) -> None:
    """Open the search over every memory tier."""
    ctx = flow_context(app)
    if ctx is not None:
        app.push_screen(SearchScreen(ctx.transcript, ctx.project, ctx.config))
