"""What the dashboard's action keys do: read the selection, call the core, open a flow screen, say what happened.

Each ``DashboardScreen.action_*`` method calls one function here with itself
as the :class:`FlowHost`: the little a flow needs (the session on screen, the
selection, notify, open a screen, the clipboard, work off the UI thread), so
the flows import neither the app nor the dashboard screen. Every state change
goes through the core (``ctx_tui.actions``, ``ctx_tui.memory.registry``,
``ctx_tui.handoff``), which also writes the audit log; the UI never writes a
file itself. Core calls take file locks (up to ``storage.LOCK_TIMEOUT_S``), so
they run off the UI thread (``FlowHost.off_thread``); the result is shown as a
notification (the dashboard re-reads the changed files through its follow worker).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from rich.text import Text
from textual.screen import Screen

from ctx_tui.actions.promotions import ApproveResult, ProposeResult, approve, memory_digest, propose, reject
from ctx_tui.actions.restate import Restatement, restate_items
from ctx_tui.compress import render_entries
from ctx_tui.config import Config
from ctx_tui.memory.decay import ItemStatus
from ctx_tui.memory.memory_md import SECTION_FOR_TYPE
from ctx_tui.memory.registry import new_item_id, register_item
from ctx_tui.memory.session_store import Promotion
from ctx_tui.memory.view import MemoryView
from ctx_tui.paths import shown_path
from ctx_tui.ui.accounting import live_text_tokens
from ctx_tui.ui.messages import Snapshot
from ctx_tui.ui.safe import clean, literal, shorten
from ctx_tui.ui.screens.compress_preview import CompressPreviewScreen
from ctx_tui.ui.screens.confirm import ConfirmScreen
from ctx_tui.ui.screens.handoff_form import HandoffFormScreen
from ctx_tui.ui.screens.new_item import NewItemRequest, NewItemScreen
from ctx_tui.ui.screens.search import SearchScreen

T = TypeVar("T")

INSTALL_HINT = "run `ctx-tui hook install` in the project (it wires the hooks into .claude/settings.json)"


class FlowHost(Protocol):
    """What a flow needs from the screen its key was pressed on (``DashboardScreen`` implements it)."""

    project: Path
    transcript: Path

    @property
    def config(self) -> Config: ...

    @property
    def snapshot(self) -> Snapshot | None: ...

    def selected_item(self) -> ItemStatus | None: ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def open(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> None: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def run_core(self, title: str, job: Callable[[], T], done: Callable[[T], None]) -> None:
        """Run ``job`` off the UI thread; ``done`` gets its result; a failure becomes one error notice."""
        ...


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


def flow_context(host: FlowHost) -> FlowContext | None:
    """The context of the session on screen; None (and a notice) before the first read."""
    snapshot = host.snapshot
    if snapshot is None:
        host.notify("The session is still being read; try again in a moment.", title="Not ready", severity="warning")
        return None
    memory = snapshot.memory if isinstance(snapshot.memory, MemoryView) else None
    # the same id the memory model names the session memory file by (memory.view.session_id_of)
    session_id = memory.session_id if memory else (snapshot.state.meta.session_id or host.transcript.stem)
    current = memory.current_round if memory else snapshot.state.rounds
    return FlowContext(host.project, host.config, host.transcript, session_id, current, snapshot)


def item_label(content: str, limit: int = 48) -> str:
    """An item as people know it: its content, on one line, shortened (never its internal id)."""
    return shorten(clean(content, one_line=True), limit)


def _needs_item(host: FlowHost, ctx: FlowContext, what: str) -> ItemStatus | None:
    item = host.selected_item()
    if item is None:
        if ctx.view is None or not ctx.view.statuses:
            host.notify(f"No tracked items yet: press n to register one, then {what} it.",
                        title="No item to " + what, severity="warning")
        else:
            host.notify(f"Highlight an item in the Tracked items table (↑/↓) to {what} it.",
                        title="No item selected", severity="warning")
    return item


# -- restate (r) -------------------------------------------------------------------------


def restate(host: FlowHost) -> None:
    """Queue the selected item for the next prompt; without the hook, copy the restatement instead."""
    ctx = flow_context(host)
    item = _needs_item(host, ctx, "restate") if ctx else None
    if ctx is None or item is None:
        return
    label = item_label(item.content)

    def done(result: Restatement) -> None:
        if result.hook_installed:
            state = "queued" if result.queued[0] else "already queued"
            host.notify(f"“{label}” {state}: the agent sees it again with your next prompt "
                        f"({result.queue_length} waiting).", title="Restate", markup=False)
            return
        host.copy_to_clipboard(result.text)
        host.notify(f"“{label}” is on the clipboard: paste it into the agent. No Claude Code hook delivers "
                    f"restatements in this project, so nothing was queued; to have them sent with your next prompt, "
                    f"{INSTALL_HINT}.",
                    title="Restate: copied to the clipboard", severity="warning", markup=False, timeout=12)

    host.run_core("Restate", lambda: restate_items(ctx.project, ctx.session_id, [item.id], ctx.current_round), done)


# -- promotions (p, a, x) --------------------------------------------------------------------


def promote(host: FlowHost, *, again: bool = False, item: ItemStatus | None = None) -> None:
    """Propose the selected item for MEMORY.md (nothing is written until it is approved)."""
    ctx = flow_context(host)
    item = item or (_needs_item(host, ctx, "promote") if ctx else None)
    if ctx is None or item is None:
        return
    label = item_label(item.content)
    chosen = item

    def done(results: list[ProposeResult]) -> None:
        result = results[0]
        if result.proposed:
            host.notify(f"“{label}” proposed for {ctx.memory_path.name}; it waits in Pending promotions: "
                        "a approves, x rejects.", title="Promote", markup=False)
        elif result.status == "rejected":
            question = Text.assemble("“", literal(label), "” was rejected earlier in this session. Propose it again?")
            host.open(ConfirmScreen("Propose again?", question, "Propose again", "Leave it"),
                      lambda yes: promote(host, again=True, item=chosen) if yes else None)
        else:
            host.notify(f"“{label}”: {result.message}.", title="Promote", markup=False)

    host.run_core("Promote",
                  lambda: propose(ctx.project, ctx.session_id, [item.id], ctx.memory_path, again=again), done)


def _first_pending(host: FlowHost, ctx: FlowContext) -> Promotion | None:
    waiting = ctx.view.pending_promotions if ctx.view else ()
    if not waiting:
        host.notify("Nothing waits for approval: p proposes the highlighted item.", title="Pending promotions")
        return None
    return waiting[0]


def approve_first(host: FlowHost) -> None:
    """Show the first pending promotion and where it goes; write it to MEMORY.md once the user says yes."""
    ctx = flow_context(host)
    promotion = _first_pending(host, ctx) if ctx else None
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
            host.notify("Nothing written; the promotion still waits.", title="Approve")
            return
        host.run_core("Approve",
                      lambda: approve(ctx.project, ctx.session_id, [promotion.item_id], path, seen_digest=seen),
                      lambda result: _approved(host, promotion, result))

    host.open(ConfirmScreen(f"Approve this {promotion.type.value}?", body, "Approve", "Not now"), decided)


def _approved(host: FlowHost, promotion: Promotion, result: ApproveResult) -> None:
    where = str(result.memory_path)
    label = item_label(promotion.content)
    if result.changed_meanwhile:
        host.notify(f"{result.memory_path.name} had changed on disk since it was read; ctx-tui re-read it and "
                    "kept those changes.", title="Approve: file re-read", severity="warning", markup=False)
    if promotion.item_id in result.written:
        section = SECTION_FOR_TYPE[promotion.type]
        host.notify(f"“{label}” written to {where} under ## {section}.", title="Approved", markup=False)
    elif promotion.item_id in result.already_present:
        host.notify(f"“{label}” approved; its text was already in {where}, nothing added.",
                    title="Approved", markup=False)
    else:
        host.notify(f"“{label}” was already approved; {where} unchanged.", title="Approve", markup=False)


def reject_first(host: FlowHost) -> None:
    """Reject the first pending promotion: nothing is written, it is not proposed again this session."""
    ctx = flow_context(host)
    promotion = _first_pending(host, ctx) if ctx else None
    if ctx is None or promotion is None:
        return
    label = item_label(promotion.content)

    def done(rejected: list[str]) -> None:
        if rejected:
            host.notify(f"“{label}” rejected; nothing written to {ctx.memory_path.name}.",
                        title="Rejected", markup=False)
        else:
            host.notify(f"“{label}” was already rejected.", title="Reject", markup=False)

    host.run_core("Reject", lambda: reject(ctx.project, ctx.session_id, [promotion.item_id]), done)


# -- new item (n) ------------------------------------------------------------------------


def new_item(host: FlowHost) -> None:
    """Open the new-item form; register what it returns through the memory core (the id is generated)."""
    ctx = flow_context(host)
    if ctx is None:
        return
    known = frozenset(i.id for i in ctx.view.memory.items) if ctx.view else frozenset()

    def submitted(request: NewItemRequest | None) -> None:
        if request is None:
            return
        host.run_core(
            "New item",
            lambda: register_item(ctx.project, ctx.session_id, new_item_id(request.content, known), request.type,
                                  request.content, ctx.current_round),
            lambda out: host.notify(
                f"“{item_label(out[0].content)}” {'registered' if out[1] else 'updated'} ({out[0].type.value}, "
                f"{out[0].importance.value} importance); it is tracked from round {out[0].entered_round}.",
                title="New item", markup=False),
        )

    host.open(NewItemScreen(), submitted)


# -- compress (c) ----------------------------------------------------------------------------


def compress(host: FlowHost) -> None:
    """Open the compression preview on the live window of the snapshot on screen."""
    ctx = flow_context(host)
    if ctx is None:
        return
    live = [w.entry for w in ctx.snapshot.state.live]
    items = ctx.view.memory.active_items() if ctx.view else []
    host.open(CompressPreviewScreen(lambda: render_entries(live), items, ctx.project, ctx.session_id, ctx.config,
                                    (live_text_tokens(ctx.snapshot.state), ctx.snapshot.state.context_tokens)))


# -- handoff (h) -----------------------------------------------------------------------------


def handoff(host: FlowHost) -> None:
    """Open the handoff form; say where the handoff was written."""
    ctx = flow_context(host)
    if ctx is None:
        return

    def saved(path: Path | None) -> None:
        if path is not None:
            shown = shown_path(path, ctx.project)
            host.notify(f"Handoff written to {shown}. The next session starts from `ctx-tui handoff latest --prompt`.",
                        title="Handoff saved", markup=False, timeout=12)

    host.open(HandoffFormScreen(ctx.transcript, ctx.project, ctx.config), saved)


# -- search (/) ------------------------------------------------------------------------------


def search(host: FlowHost) -> None:
    """Open the search over every memory tier."""
    ctx = flow_context(host)
    if ctx is not None:
        host.open(SearchScreen(ctx.transcript, ctx.project, ctx.config))
