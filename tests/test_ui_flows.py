"""The flows behind the dashboard's keys, driven with Pilot on a synthetic Claude Code session.

The app runs with ``follow=False``; where a flow changes files, :func:`_reread`
posts a fresh snapshot the way the follow worker would after a file event.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from actions_support import SESSION_ID, cli, hook_stdin, register, write_transcript
from textual.widgets import Button, Input, Select, Static, TextArea

from ctx_tui import audit
from ctx_tui.actions.hook_install import install_hooks
from ctx_tui.actions.restate_queue import pending_restatements
from ctx_tui.config import Config
from ctx_tui.handoff.gate import check_handoff, passes
from ctx_tui.handoff.schema import read_handoff
from ctx_tui.memory.items import ItemType
from ctx_tui.memory.memory_md import read_memory
from ctx_tui.memory.session_store import load_session_memory
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.flows import item_label
from ctx_tui.ui.messages import SnapshotReady
from ctx_tui.ui.screens.compress_preview import CompressPreviewScreen
from ctx_tui.ui.screens.confirm import ConfirmScreen
from ctx_tui.ui.screens.handoff_form import HandoffFormScreen
from ctx_tui.ui.screens.new_item import NewItemScreen
from ctx_tui.ui.screens.search import SearchScreen

PROMPTS = [
    "Build a CLI for the inventory service in src/inventory/cli.py. Never push to main without a review.",
    "Add the list command; it reads data/stock.csv with parse_rows().",
    "Now the export command, CSV please, written by export_csv() in src/inventory/export.py.",
    "Fix the failing test tests/test_export.py::test_header, it raises KeyError: 'sku'.",
]
TOOL_OUTPUT = "\n".join(
    f"line {n}: parse_rows() read row {n} of data/stock.csv, sku=A{n:04d}, qty={n * 7}, status=ok" for n in range(60)
)
GOOD_CONTEXT = (
    "The export command lives in src/inventory/export.py; export_csv() writes the header row from HEADER_FIELDS. "
    "tests/test_export.py::test_header still fails with KeyError: 'sku' because parse_rows() lower-cases the keys. "
    "Run `pytest tests/test_export.py -k header` to see it."
)
GOOD_ACTION = "Run `pytest tests/test_export.py -k header` and fix the key case in parse_rows()"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "src" / "inventory").mkdir(parents=True)
    (root / "src" / "inventory" / "export.py").write_text("HEADER_FIELDS = ['sku']\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_export.py").write_text("def test_header(): pass\n")
    return root


def _transcript(project: Path) -> Path:
    path = write_transcript(project, PROMPTS)
    from actions_support import claude_rows  # the same rows, with a long tool output to compress

    path.write_text("".join(json.dumps(r) + "\n" for r in claude_rows(SESSION_ID, project, PROMPTS, TOOL_OUTPUT)))
    return path


def _app(project: Path) -> DashboardApp:
    return DashboardApp(_transcript(project), project, Config(), follow=False)


async def _settle(app: DashboardApp, pilot) -> None:
    """Let workers finish and their messages be handled (no sleeps)."""
    for _ in range(2):
        await app.workers.wait_for_complete()
        await pilot.pause()


async def _reread(app: DashboardApp, pilot) -> None:
    """What the follow worker does after a file event: read again and post the snapshot."""
    result = app.feed.read({app.path})
    assert result.snapshot is not None
    app.post_message(SnapshotReady(result.snapshot))
    await pilot.pause()


def selected_item_id(app: DashboardApp) -> str | None:
    """The id of the item highlighted in the Tracked items table (what r and p act on)."""
    item = app.dashboard.selected_item()
    return item.id if item is not None else None


def _messages(app: DashboardApp) -> list[str]:
    return [n.message for n in app._notifications]


def _actions(project: Path) -> list[str]:
    return [e["action"] for e in audit.read_events(project)]


# -- handoff ---------------------------------------------------------------------------------


async def _open_handoff(app: DashboardApp, pilot) -> HandoffFormScreen:
    await pilot.press("h")
    await _settle(app, pilot)
    form = app.screen
    assert isinstance(form, HandoffFormScreen)
    return form


async def test_handoff_form_refuses_a_vague_handoff_and_saves_a_good_one(project: Path) -> None:
    app = _app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        form = await _open_handoff(app, pilot)
        # pre-filled from the session
        assert "inventory service" in form.query_one("#hf-task-state-assigned-task", Input).value
        assert form.query_one("#hf-session-id", Input).value == SESSION_ID
        # it opens helpful, not red: prefilled fields are "filled", the author's ones "to fill", no finding yet
        assert "filled" in str(form.query_one("#hf-task-state-assigned-task-label").render())
        assert "to fill" in str(form.query_one("#hf-continuation-context-label").render())
        assert "to fill" in str(form.query_one("#hf-suggested-first-action-label").render())
        assert not form.query_one("#hf-continuation-context-finding", Static).has_class("-shown")
        assert not form.query_one("#hf-continuation-context", TextArea).has_class("-invalid")
        assert "to fill" in str(form.query_one("#hf-status").render())
        assert form.focused is form.query_one("#hf-task-state-completion-pct", Input)  # the first to fill

        # a vague handoff, typed: the gate runs when the field is left; its findings appear
        form.query_one("#hf-continuation-context", TextArea).focus()
        await pilot.press(*"Fix stuff.")
        await pilot.press("tab")
        await pilot.press(*"Continue")
        await pilot.press("tab")
        await pilot.pause()
        save = form.query_one("#hf-save", Button)
        assert "to fill" not in str(form.query_one("#hf-continuation-context-label").render())
        context_finding = form.query_one("#hf-continuation-context-finding", Static)
        assert context_finding.has_class("-shown")
        shown = str(context_finding.render())
        assert "names nothing concrete" in shown  # "Fix stuff." names no file, identifier or command
        assert "name files, identifiers, commands" in shown  # the hint is there too
        assert form.query_one("#hf-suggested-first-action-finding", Static).has_class("-shown")
        assert "words" in str(form.query_one("#hf-continuation-context-label").render())
        # completion % was not typed in: its finding shows once a save is tried, and nothing is written
        assert not form.query_one("#hf-task-state-completion-pct-finding", Static).has_class("-shown")
        await pilot.press("ctrl+s")
        await _settle(app, pilot)
        assert isinstance(app.screen, HandoffFormScreen)
        assert not list((project / ".claude" / "handoffs").glob("*.yaml"))
        assert form.query_one("#hf-task-state-completion-pct-finding", Static).has_class("-shown")
        assert "error(s)" in str(form.query_one("#hf-status").render())

        # a good one passes and is written through the append-only writer
        form.query_one("#hf-task-state-completion-pct", Input).value = "75"
        form.query_one("#hf-continuation-context", TextArea).load_text(GOOD_CONTEXT)
        form.query_one("#hf-suggested-first-action", Input).value = GOOD_ACTION
        form.query_one("#hf-task-state-completed-subtasks", TextArea).load_text("list command\nexport command")
        form.query_one("#hf-task-state-remaining-subtasks", TextArea).load_text("fix test_header")
        form.query_one("#hf-decisions-made", TextArea).load_text(
            "Export CSV with a header row | the import tool needs column names | src/inventory/export.py")
        assert passes(form.validate())
        await pilot.pause()
        assert not save.disabled
        await pilot.press("ctrl+s")
        await _settle(app, pilot)
        assert not isinstance(app.screen, HandoffFormScreen)
        written = list((project / ".claude" / "handoffs").glob("*.yaml"))
        assert len(written) == 1
        data = read_handoff(written[0])
        assert passes(check_handoff(data, project))
        assert data["decisions_made"][0]["affects_files"] == ["src/inventory/export.py"]
        assert any(written[0].name in m for m in _messages(app))
        checked = cli(project, "handoff", "check", str(written[0]))
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "handoff.written" in _actions(project)

        # a second handoff in the same session starts from the last one
        form = await _open_handoff(app, pilot)
        assert form.query_one("#hf-continuation-context", TextArea).text == GOOD_CONTEXT
        assert form.query_one("#hf-task-state-completion-pct", Input).value == "75"
        assert written[0].name in str(form.query_one("#hf-notes").render())


async def test_escape_asks_before_discarding_edits(project: Path) -> None:
    app = _app(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(app, pilot)
        form = await _open_handoff(app, pilot)
        await pilot.press("escape")  # no edits: closes at once
        await pilot.pause()
        assert not isinstance(app.screen, HandoffFormScreen)

        form = await _open_handoff(app, pilot)
        form.query_one("#hf-continuation-context", TextArea).focus()
        await pilot.press("x")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is form and form.dirty
        form.query_one("#hf-close", Button).focus()
        await pilot.press("q")  # the dashboard's quit key asks too, it does not drop the draft
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert not isinstance(app.screen, (HandoffFormScreen, ConfirmScreen))
        assert not (project / ".claude" / "handoffs").exists()


# -- compression -----------------------------------------------------------------------------


async def test_compression_preview_shows_figures_copies_and_saves(project: Path) -> None:
    app = _app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        await pilot.press("c")
        await _settle(app, pilot)
        preview = app.screen
        assert isinstance(preview, CompressPreviewScreen)
        result = preview.result
        assert result is not None and 0 < result.compressed_length < result.original_length
        figures = str(preview.query_one("#compress-figures").render())
        assert f"{result.original_length:,}" in figures and "retention" in figures and " ms" in figures

        await pilot.press("ctrl+y")
        assert app.clipboard == result.text
        await pilot.press("ctrl+t")
        assert app.clipboard.startswith("/compact ") and "Never push to main" in app.clipboard

        # a bad ratio is refused next to the input; nothing is recompressed
        ratio = preview.query_one("#compress-ratio", Input)
        ratio.value = "2"
        preview.refresh_preview()
        await _settle(app, pilot)
        assert preview.query_one("#compress-finding").has_class("-shown") and ratio.has_class("-invalid")
        assert preview.result is result

        ratio.value = "0.5"
        preview.query_one("#compress-strategy", Select).value = "truncate"
        preview.refresh_preview()
        await _settle(app, pilot)
        assert preview.result is not result and preview.result.strategy == "truncate"
        assert preview.result.budget == int(result.original_length * 0.5)

        await pilot.press("ctrl+s")
        await _settle(app, pilot)
        summaries = load_session_memory(project, SESSION_ID).summaries
        assert [s.strategy for s in summaries] == ["truncate"] and summaries[0].text == preview.result.text
        events = [e for e in audit.read_events(project) if e["action"].startswith("compress")]
        assert [(e["action"], e["details"].get("used")) for e in events] == [
            ("compress.ran", "clipboard"), ("compress.ran", "session memory"), ("compress.saved", None)]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CompressPreviewScreen)


# -- restate ---------------------------------------------------------------------------------


async def test_restate_queues_and_the_hook_delivers_it(project: Path) -> None:
    install_hooks(project)
    app = _app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        item_id = selected_item_id(app)
        assert item_id is not None
        label = item_label(app.dashboard.selected_item().content)
        await pilot.press("r")
        await _settle(app, pilot)
        assert any(f"“{label}” queued" in m and "next prompt" in m for m in _messages(app))
        assert not any(item_id in m for m in _messages(app))  # people see the content, never the id
        assert [q.id for q in pending_restatements(project, SESSION_ID)] == [item_id]
        assert app.clipboard == ""  # the hook delivers it; nothing to paste

    content = load_session_memory(project, SESSION_ID).get_item(item_id).content
    stdin = hook_stdin(project, "UserPromptSubmit", app.path, prompt="go on")
    delivered = cli(project, "hook", "user-prompt-submit", stdin=stdin)
    assert delivered.returncode == 0, delivered.stderr
    context = json.loads(delivered.stdout)["hookSpecificOutput"]["additionalContext"]
    assert content in context
    assert pending_restatements(project, SESSION_ID) == []
    actions = _actions(project)
    assert actions.count("restate.queued") == 1 and actions.count("restate.delivered") == 1


async def test_restate_without_the_hook_copies_and_says_how_to_install(project: Path) -> None:
    app = _app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        item_id = selected_item_id(app)
        await pilot.press("r")
        await _settle(app, pilot)
        content = load_session_memory(project, SESSION_ID).get_item(item_id).content
        assert content in app.clipboard and app.clipboard.startswith("[ctx-tui] Restatement")
        assert any("ctx-tui hook install" in m and "nothing was queued" in m for m in _messages(app))
        # copied INSTEAD of queued: a hook installed later must not deliver it a second time
        assert pending_restatements(project, SESSION_ID) == []
    events = [e for e in audit.read_events(project) if e["action"].startswith("restate.")]
    assert [(e["action"], e["details"]["item"]) for e in events] == [("restate.copied", item_id)]
    assert load_session_memory(project, SESSION_ID).get_item(item_id).last_seen_round == len(PROMPTS)


# -- promotions ------------------------------------------------------------------------------


def _entries(project: Path) -> list[str]:
    path = Config().paths.memory_path(project)
    return [e.text for e in read_memory(path).entries] if path.exists() else []


async def test_approve_writes_exactly_one_entry_and_reject_writes_none(project: Path) -> None:
    register(project, "no-push", "constraint", "Never push to main without a review")
    register(project, "csv", "decision", "Export as CSV with a header row")
    app = _app(project)
    memory_md = Config().paths.memory_path(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        await pilot.press("a")  # nothing pending yet
        await pilot.pause()
        assert any("Nothing waits" in m for m in _messages(app))

        first = selected_item_id(app)
        await pilot.press("p")
        await _settle(app, pilot)
        assert not memory_md.exists()  # proposing writes nothing
        await _reread(app, pilot)
        assert [p.item_id for p in app.snapshot.memory.pending_promotions] == [first]

        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # not now: nothing written
        await _settle(app, pilot)
        assert not memory_md.exists()
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("y")
        await _settle(app, pilot)
        content = load_session_memory(project, SESSION_ID).get_item(first).content
        assert _entries(project) == [content]
        assert any(str(memory_md) in m and "written" in m for m in _messages(app))

        # the next item: proposed, then rejected; MEMORY.md keeps its bytes
        await _reread(app, pilot)
        table = app.dashboard.query_one("#decay-table")
        table.move_cursor(row=1)
        second = selected_item_id(app)
        assert second != first
        await pilot.press("p")
        await _settle(app, pilot)
        await _reread(app, pilot)
        before = memory_md.read_bytes()
        await pilot.press("x")
        await _settle(app, pilot)
        assert memory_md.read_bytes() == before and _entries(project) == [content]
        statuses = {p.item_id: p.status for p in load_session_memory(project, SESSION_ID).promotions}
        assert statuses == {first: "approved", second: "rejected"}
    actions = _actions(project)
    assert actions.count("promotion.proposed") == 2 and actions.count("promotion.approved") == 1
    assert actions.count("promotion.written") == 1 and actions.count("promotion.rejected") == 1


async def test_approval_after_a_hand_edit_rereads_memory_md(project: Path) -> None:
    register(project, "no-push", "constraint", "Never push to main without a review")
    memory_md = Config().paths.memory_path(project)
    memory_md.write_text("# Memory\n\n## Notes\n- kept by hand\n")
    app = _app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        item = selected_item_id(app)
        await pilot.press("p")
        await _settle(app, pilot)
        await _reread(app, pilot)
        await pilot.press("a")
        await pilot.pause()
        with memory_md.open("a") as fh:  # the user edits MEMORY.md while the question is open
            fh.write("- added while the question was open\n")
        await pilot.press("y")
        await _settle(app, pilot)
        assert any("re-read" in m for m in _messages(app))
    text = memory_md.read_text()
    assert "- kept by hand\n- added while the question was open\n" in text
    assert load_session_memory(project, SESSION_ID).get_item(item).content in text


# -- new item --------------------------------------------------------------------------------


async def test_new_item_registers_through_the_memory_core(project: Path) -> None:
    app = _app(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, NewItemScreen)
        await pilot.press("ctrl+s")  # nothing typed: refused, and the form says why
        await pilot.pause()
        assert isinstance(app.screen, NewItemScreen)
        assert form.query_one("#item-content-finding").has_class("-shown")
        assert "must not forget" in str(form.query_one("#item-content-finding").render())
        form.query_one("#item-type", Select).value = ItemType.USER_PREFERENCE
        form.query_one("#item-content", Input).value = "Store every timestamp in UTC"
        await pilot.press("ctrl+s")
        await _settle(app, pilot)
        assert not isinstance(app.screen, NewItemScreen)
        assert any("“Store every timestamp in UTC” registered" in m for m in _messages(app))
    # nobody typed an id: it is generated from the content
    item = load_session_memory(project, SESSION_ID).get_item("store-every-timestamp-utc")
    assert item is not None and item.type is ItemType.USER_PREFERENCE and item.source == "registered"
    assert "memory.registered" in _actions(project)


# -- search ----------------------------------------------------------------------------------


async def test_search_finds_a_planted_memory_entry_and_copies_the_enhance_block(project: Path) -> None:
    memory_md = Config().paths.memory_path(project)
    memory_md.write_text("# Memory\n\n## Decisions\n- The warehouse sync talks gRPC on port 7443\n"
                         "- Invoices are rendered by invoice_pdf()\n")
    app = _app(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(app, pilot)
        await pilot.press("slash")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await pilot.press(*"warehouse grpc", "enter")
        await _settle(app, pilot)
        assert screen.hits, "the planted entry is found"
        best = screen.hits[0]
        assert "warehouse sync" in best.text and best.tier == "long-term" and "MEMORY.md" in best.source
        table = screen.query_one("#search-results")
        assert table.row_count == len(screen.hits) and "long-term" in str(table.get_row_at(0)[0])
        await pilot.press("enter")  # on the highlighted result
        await pilot.pause()
        assert app.clipboard.startswith("## Relevant context") and "warehouse sync talks gRPC" in app.clipboard
        screen.query_one("#search-query", Input).value = "zzzz nothing"
        screen.query_one("#search-query", Input).focus()
        await pilot.press("enter")
        await _settle(app, pilot)
        assert screen.hits == [] and "no match" in str(screen.query_one("#search-summary").render())
    events = [e for e in audit.read_events(project) if e["action"] == "retrieve.searched"]
    assert [e["details"]["hits"] > 0 for e in events] == [True, False]


# -- every flow from the palette, at 80x24 ---------------------------------------------------


async def test_flows_open_from_the_palette_and_fit_80x24(project: Path) -> None:
    app = _app(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(app, pilot)
        for action, screen in [("handoff", HandoffFormScreen), ("compress", CompressPreviewScreen),
                               ("new_item", NewItemScreen), ("search", SearchScreen)]:
            await app.screen.run_action(action)  # what a palette hit runs
            await _settle(app, pilot)
            assert isinstance(app.screen, screen)
            buttons = list(app.screen.query(Button))
            assert buttons
            for button in buttons:  # every button is on screen, none cut off
                region = button.region
                assert region.width > 0 and region.right <= 80 and region.bottom <= 24, (action, button.id)
            buttons[-1].focus()  # Close / Cancel: the dashboard's keys must not open a second flow
            await pilot.press("h")
            await _settle(app, pilot)
            assert isinstance(app.screen, screen) and sum(isinstance(s, HandoffFormScreen) for s in app.screen_stack) \
                == (action == "handoff")
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is app.dashboard
