"""The dashboard app: live updates, notifications, keys, palette, help, hostile text."""

from __future__ import annotations

import json
import threading
from datetime import datetime
from pathlib import Path

import pytest
from conftest import CLAUDE_SHORT, fixture
from rich.text import Text

from ctx_tui.config import Config
from ctx_tui.demo.replay import demo_transcript
from ctx_tui.memory.decay import ItemStatus
from ctx_tui.memory.items import ItemType, TrackedItem
from ctx_tui.memory.session_store import Promotion, SessionMemory
from ctx_tui.memory.tiers import TierSummary
from ctx_tui.memory.view import ExtractionReport, MemoryView
from ctx_tui.transcripts.model import Compaction, Entry, Format, Kind, SessionMeta
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.commands import DashboardCommands
from ctx_tui.ui.events import notices
from ctx_tui.ui.feed import SessionFeed
from ctx_tui.ui.keys import DASHBOARD_KEYS
from ctx_tui.ui.messages import Snapshot, SnapshotReady
from ctx_tui.ui.safe import clean, literal
from ctx_tui.ui.screens.dashboard import DashboardScreen
from ctx_tui.ui.screens.help import HelpScreen
from ctx_tui.ui.widgets.decay_table import DecayPanel
from ctx_tui.ui.widgets.heatmap import HeatMap, fill_by_column
from ctx_tui.ui.widgets.promotions import PromotionsPanel
from ctx_tui.ui.widgets.session_bar import SessionBar
from ctx_tui.ui.widgets.tiers import TiersPanel
from ctx_tui.ui.widgets.usage import UsagePanel, level
from ctx_tui.window_state import WindowEntry, WindowState

FROZEN = datetime(2026, 3, 14, 9, 0, 0)
HOSTILE = "[bold red]boom[/] [link=https://evil.example]click[/link] \x1b[2J\x1b]0;pwned\x07 \x9b31m end"


def _state(tokens: int, *, window: int = 200_000, compactions: int = 0, kinds: list[Kind] | None = None) -> WindowState:
    kinds = kinds or [Kind.USER, Kind.ASSISTANT, Kind.TOOL_RESULT, Kind.TOOL_RESULT]
    share = tokens // len(kinds)
    live = [
        WindowEntry(Entry(seq=i, kind=k, role="user", text="t", tokens=share, round=1), offset=i * share, tokens=share, position=(i + 0.5) / len(kinds))
        for i, k in enumerate(kinds)
    ]
    return WindowState(
        path=Path("t.jsonl"),
        meta=SessionMeta(format=Format.CLAUDE_CODE, session_id="abcdef12-3456", model="claude-sonnet-4-5", cwd="/p"),
        context_tokens=tokens,
        context_window=window,
        usage_source="reported",
        token_source="tiktoken:cl100k_base",
        compactions=[Compaction(seq=0, trigger="auto", pre_tokens=150_000)] * compactions,
        rounds=3,
        entries_total=len(live),
        skipped_lines=0,
        live=live,
    )


def _snapshot(state: WindowState, **kw) -> Snapshot:
    values = dict(
        state=state, memory=None, memory_note="memory model not available", handoff_threshold=0.8,
        danger_zone=(0.3, 0.7), changed_at=FROZEN,
    )
    values.update(kw)
    return Snapshot(**values)


def _item(id: str, content: str, *, decayed: bool = False, position: float | None = 0.5) -> ItemStatus:
    item = TrackedItem(id=id, type=ItemType.CONSTRAINT, content=content, importance="high", entered_round=1)
    return ItemStatus(
        item=item, last_seen_round=1, rounds_since_reference=12 if decayed else 1, threshold=10,
        position=position, seq=0, in_danger_zone=position is not None and 0.3 <= position < 0.7,
        out_of_context=position is None, decayed=decayed,
        recommendation="restate now" if decayed else "ok", risk=0.9 if decayed else 0.1,
    )


def _view(*statuses: ItemStatus) -> MemoryView:
    return MemoryView(
        session_id="s", current_round=3, statuses=statuses, tiers=(), pending_promotions=(),
        extraction=ExtractionReport((), (), ()), memory=SessionMemory(session_id="s"),
        danger_zone=(0.3, 0.7), decay_enabled=True,
    )


def _app(path: Path, project: Path, **kw) -> DashboardApp:
    return DashboardApp(path, project, Config(), clock=lambda: FROZEN, **kw)


def _plain(widget) -> str:
    rendered = widget.render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


async def _until(pilot, condition, tries: int = 250) -> None:
    """Let the app run until ``condition()`` holds (file events arrive from the watcher thread)."""
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not reached")


# -- pure helpers ------------------------------------------------------------------------
def test_clean_shows_control_characters_and_keeps_markup_literal() -> None:
    shown = clean(HOSTILE)
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
    assert "␛[2J" in shown and "[bold red]boom[/]" in shown and "<U+009B>" in shown
    text = literal(HOSTILE)
    assert text.plain == shown and not text.spans  # never parsed as markup


def test_usage_levels_follow_the_thresholds() -> None:
    assert [level(f, 0.8) for f in (0.1, 0.59, 0.6, 0.79, 0.8, 0.95)] == ["calm", "calm", "warn", "warn", "alert", "alert"]


def test_fill_by_column_picks_the_kind_that_holds_each_slice() -> None:
    state = _state(400, kinds=[Kind.USER, Kind.TOOL_RESULT, Kind.TOOL_RESULT, Kind.THINKING])
    columns = fill_by_column(state.live, state.context_tokens, 8)
    assert columns == [0, 0, 2, 2, 2, 2, 3, 3]


def test_notices_for_compaction_threshold_and_decay() -> None:
    before = _snapshot(_state(150_000), memory=_view(_item("a", "never touch db/migrations")))
    after = _snapshot(_state(170_000, compactions=1), memory=_view(_item("a", "never touch db/migrations", decayed=True)))
    titles = [n.title for n in notices(before, after)]
    assert titles == ["Compaction", "Handoff threshold", "Item decayed"]
    assert notices(None, after) == []  # nothing is news on the first read
    assert notices(after, after) == []


# -- the app -----------------------------------------------------------------------------
async def test_posted_snapshots_update_the_panels(tmp_path: Path) -> None:
    """Memray style: post the worker's message and look at the widgets."""
    path = tmp_path / "s.jsonl"
    path.write_text("")
    app = _app(path, tmp_path, follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        app.post_message(SnapshotReady(_snapshot(_state(60_000))))
        await pilot.pause()
        usage = app.screen.query_one(UsagePanel)
        assert usage.has_class("-calm") and not usage.query_one("#handoff-banner").display
        assert "60,000" in str(usage.query_one("#usage-figures").render())
        app.post_message(SnapshotReady(_snapshot(_state(170_000, compactions=1))))
        await pilot.pause()
        assert usage.has_class("-alert") and usage.query_one("#handoff-banner").display
        titles = [n.title for n in app._notifications]
        assert "Compaction" in titles and "Handoff threshold" in titles


async def test_the_heap_goes_back_once_the_first_snapshot_is_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session's whole read on screen: the C heap's freed pages go back (ctx_tui.heap); later snapshots do not."""
    from ctx_tui.ui import app as app_module

    calls: list[int] = []
    monkeypatch.setattr(app_module, "release_free_heap", lambda: calls.append(1) or True)
    lines = demo_transcript().splitlines()
    path = tmp_path / "live.jsonl"
    path.write_text("\n".join(lines[:10]) + "\n")
    app = _app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: app.snapshot is not None and calls == [1])
        first = app.snapshot.state
        with path.open("a") as fh:
            fh.write("\n".join(lines[10:60]) + "\n")
        await _until(pilot, lambda: app.snapshot.state.entries_total > first.entries_total)
        await pilot.pause()
        assert calls == [1]


async def test_appended_rows_reach_the_screen(tmp_path: Path) -> None:
    """Follow a file that grows: the worker reads the new rows and the panels change."""
    lines = demo_transcript().splitlines()
    path = tmp_path / "live.jsonl"
    path.write_text("\n".join(lines[:10]) + "\n")
    app = _app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: app.snapshot is not None)
        first = app.snapshot.state
        with path.open("a") as fh:
            fh.write("\n".join(lines[10:60]) + "\n")
        await _until(pilot, lambda: app.snapshot.state.entries_total > first.entries_total)
        assert app.snapshot.state.context_tokens > first.context_tokens
        figures = str(app.screen.query_one("#usage-figures").render())
        assert f"{app.snapshot.state.context_tokens:,}" in figures


async def test_the_watcher_rests_and_wakes_up_for_changes(tmp_path: Path, monkeypatch) -> None:
    """Caught up, the watcher checks at IDLE_STEP_MS and wakes up rarely; rows appended at rest reach the
    screen and the watcher watches closely again (STEP_MS, CATCH_UP_MS) until they stop."""
    import watchfiles

    from ctx_tui.ui import app as app_module

    real_awatch = watchfiles.awatch
    watches: list[tuple[int, int]] = []

    def recorded_awatch(*paths, step, rust_timeout, **kw):
        watches.append((step, rust_timeout))
        return real_awatch(*paths, step=step, rust_timeout=rust_timeout, **kw)

    monkeypatch.setattr(watchfiles, "awatch", recorded_awatch)
    busy = (app_module.STEP_MS, app_module.CATCH_UP_MS)
    rest = (app_module.IDLE_STEP_MS, app_module.IDLE_WAKE_MS)
    lines = demo_transcript().splitlines()
    path = tmp_path / "live.jsonl"
    path.write_text("\n".join(lines[:10]) + "\n")
    app = _app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: app.snapshot is not None and watches[-1:] == [rest])
        assert watches[0] == busy
        first = app.snapshot.state.entries_total
        with path.open("a") as fh:
            fh.write("\n".join(lines[10:40]) + "\n")
        await _until(pilot, lambda: app.snapshot.state.entries_total > first and rest in watches[1:] and watches[-1] == busy)
        await _until(pilot, lambda: watches[-1] == rest)  # quiet again


async def test_watcher_failure_falls_back_to_polling(tmp_path: Path, monkeypatch) -> None:
    import watchfiles

    real_awatch = watchfiles.awatch

    def flaky_awatch(*paths, force_polling=False, **kw):
        if not force_polling:
            raise OSError(28, "inotify watch limit reached")
        return real_awatch(*paths, force_polling=True, **kw)

    monkeypatch.setattr(watchfiles, "awatch", flaky_awatch)
    lines = demo_transcript().splitlines()
    path = tmp_path / "live.jsonl"
    path.write_text("\n".join(lines[:10]) + "\n")
    app = _app(path, tmp_path)
    async with app.run_test() as pilot:
        await _until(pilot, lambda: app.snapshot is not None and any("polling" in n.message for n in app._notifications))
        first = app.snapshot.state.entries_total
        with path.open("a") as fh:
            fh.write("\n".join(lines[10:30]) + "\n")
        await _until(pilot, lambda: app.snapshot.state.entries_total > first)


async def test_missing_file_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "gone.jsonl"
    app = _app(path, tmp_path, follow=False)
    async with app.run_test() as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert any(n.title == "Unreadable" for n in app._notifications)
        assert "gone.jsonl is missing" in _plain(app.screen.query_one(SessionBar))


def test_feed_keeps_the_last_snapshot_when_the_file_goes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(demo_transcript().splitlines()[:20]) + "\n")
    feed = SessionFeed(path, tmp_path, Config(), clock=lambda: FROZEN)
    first = feed.read()
    assert first.snapshot is not None and not first.problems
    assert feed.read().snapshot is first.snapshot  # nothing new: no new snapshot to post
    path.unlink()
    second = feed.read({path})
    assert second.snapshot is first.snapshot and "missing" in second.problems[0]


def test_the_free_heap_goes_back_only_where_the_c_library_can(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes
    import platform

    from ctx_tui.heap import release_free_heap

    assert release_free_heap() is (platform.libc_ver()[0] == "glibc")

    class NoTrim:
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoTrim)
    assert release_free_heap() is False


@pytest.mark.parametrize("one_arena", [True, False])
def test_with_one_arena_the_threads_allocate_from_the_main_heap(one_arena: bool) -> None:
    """glibc gives each new thread that allocates an arena of its own; after ``use_one_arena`` they share the main one."""
    import platform
    import subprocess
    import sys

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("glibc's arenas")
    probe = (
        "import ctypes, threading; from ctx_tui.heap import use_one_arena\n"
        f"print(use_one_arena() if {one_arena} else 'off', flush=True)\n"
        "held = []\n"
        "def work():\n"
        "    held.extend(bytes(1000 + n) for n in range(200))\n"
        "threads = [threading.Thread(target=work) for _ in range(3)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "ctypes.CDLL(None).malloc_stats()\n"
    )
    got = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    arenas = got.stderr.count("Arena ")
    assert got.stdout.split() == (["True"] if one_arena else ["off"])
    assert arenas == 1 if one_arena else arenas > 1


def test_one_arena_only_where_the_c_library_can(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    from ctx_tui.heap import use_one_arena

    class NoMallopt:
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert use_one_arena() is False


def test_feed_matches_events_for_a_relative_path(tmp_path: Path, monkeypatch) -> None:
    """File events carry absolute paths; ``ctx-tui some.jsonl`` gives a relative one."""
    monkeypatch.chdir(tmp_path)
    feed = SessionFeed(Path("s.jsonl"), Path("."), Config())
    assert feed.is_relevant(tmp_path / "s.jsonl") and feed.is_relevant(tmp_path / "MEMORY.md")
    assert tmp_path in feed.watched_dirs()


def test_feed_reloads_config_and_reports_a_bad_one(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(demo_transcript().splitlines()[:20]) + "\n")
    feed = SessionFeed(path, tmp_path, Config())
    assert feed.read().snapshot.handoff_threshold == 0.8
    config = tmp_path / ".ctx" / "config.yaml"
    config.parent.mkdir(exist_ok=True)
    config.write_text("window:\n  handoff_threshold: 0.5\n")
    assert feed.read({config}).snapshot.handoff_threshold == 0.5
    config.write_text("window: [unclosed\n")
    result = feed.read({config})
    assert result.snapshot.handoff_threshold == 0.5 and "config not reloaded" in result.problems[0]


def test_feed_watches_memory_config_and_handoffs_but_not_temp_files(tmp_path: Path) -> None:
    feed = SessionFeed(tmp_path / "s.jsonl", tmp_path, Config())
    sessions = tmp_path / ".ctx" / "sessions"
    assert feed.is_relevant(tmp_path / "MEMORY.md") and feed.is_relevant(tmp_path / ".ctx" / "config.yaml")
    assert feed.is_relevant(sessions / "abc.yaml") and feed.is_relevant(tmp_path / ".claude" / "handoffs" / "h.yaml")
    assert not feed.is_relevant(sessions / "abc.yaml.lock") and not feed.is_relevant(sessions / ".abc.yaml.x.tmp")
    assert not feed.is_relevant(tmp_path / ".ctx" / "audit.jsonl")


async def test_hostile_text_is_shown_literally(tmp_path: Path) -> None:
    """Rich markup and terminal escapes from a transcript are displayed as characters."""
    row = {
        "type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z",
        "cwd": f"/tmp/{HOSTILE}", "message": {"role": "user", "content": HOSTILE},
    }
    path = tmp_path / "hostile.jsonl"
    path.write_text(json.dumps(row) + "\n")
    app = _app(path, tmp_path, follow=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        screen.query_one(DecayPanel).show([_item("h", HOSTILE, decayed=True)], None)
        screen.query_one(TiersPanel).show([TierSummary("working", "transcript", 1, 10, (HOSTILE,))], None)
        screen.query_one(PromotionsPanel).show([Promotion(item_id="p", type=ItemType.FINDING, content=HOSTILE)], None)
        screen.query_one(HeatMap).show(_state(100).live, 100, (0.3, 0.7), [_item("h", HOSTILE)], None)
        await pilot.pause()
        svg = app.export_screenshot()
        for widget in (screen.query_one(SessionBar), screen.query_one(HeatMap)):
            shown = _plain(widget)
            assert "[bold red]boom[/]" in shown and "␛" in shown and "\x1b" not in shown
        assert "\x1b" not in svg and "boom[/]" in svg.replace("&#160;", " ")
        detail = screen.query_one("#decay-detail").render()
        assert "[link=https://evil.example]click[/link]" in detail.plain


async def test_palette_lists_every_action_and_help_opens(tmp_path: Path) -> None:
    path = fixture(CLAUDE_SHORT)
    app = _app(path, tmp_path, follow=False)
    assert DashboardCommands in DashboardScreen.COMMANDS  # beside Textual's own (App.COMMANDS)
    async with app.run_test() as pilot:
        await app.workers.wait_for_complete()
        provider = DashboardCommands(app.screen)
        found = [hit.text async for hit in provider.discover()]
        assert len(found) == len(DASHBOARD_KEYS)
        hits = [hit async for hit in provider.search("handoff")]
        assert hits and "Handoff" in str(hits[0].text)
        shown = {binding.key: binding.action for _, binding, *_ in app.active_bindings.values()}
        for spec in DASHBOARD_KEYS:
            assert shown[spec.key] == spec.action
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


def test_every_key_has_an_action_method_on_the_dashboard_screen() -> None:
    for spec in DASHBOARD_KEYS:
        assert hasattr(DashboardScreen, f"action_{spec.action}"), spec.action
    assert not hasattr(DashboardApp, "action_restate")  # on the screen, so that modal screens block them
    ids = [b.id for b in DashboardScreen.BINDINGS]
    assert len(set(ids)) == len(DASHBOARD_KEYS) and all(ids)


async def test_layouts_at_80_120_and_200_columns(tmp_path: Path) -> None:
    """80x24: one column, ? (which lists every key) in the footer; 120x40: nothing behind a horizontal
    scrollbar; 200x60: the panels grow into the height."""
    from textual.widgets._footer import FooterKey

    path = fixture(CLAUDE_SHORT)
    for size, cls in (((80, 24), "-narrow"), ((120, 40), "-wide"), ((200, 60), "-xwide")):
        app = _app(path, tmp_path, follow=False)
        async with app.run_test(size=size) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.pause()  # the footer recomposes once it turns compact
            screen = app.screen
            assert screen.has_class(cls)
            for panel in screen.query(".panel"):
                assert panel.region.right <= size[0], panel.id
            table = screen.query_one("#decay-table")
            assert table.virtual_size.width <= table.scrollable_content_region.width, size  # no sideways scroll
            footer_keys = [k for k in screen.query(FooterKey) if k.region.right <= size[0] and k.region.width]
            assert "?" in {k.key_display for k in footer_keys}, size
            if size == (200, 60):
                assert screen.query_one("#usage-trend").size.height >= 15
                assert screen.query_one(HeatMap).size.height >= 15


async def test_cold_open_shows_progress_until_the_first_snapshot(tmp_path: Path, monkeypatch) -> None:
    """The first read runs in a thread: the screen shows a loading view meanwhile."""
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(demo_transcript().splitlines()[:20]) + "\n")
    release = threading.Event()
    slow_read = SessionFeed.read

    def read(self, changed=()):
        release.wait(10)
        return slow_read(self, changed)

    monkeypatch.setattr(SessionFeed, "read", read)
    app = _app(path, tmp_path, follow=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#loading").display and not screen.query_one("#body").display
        assert "MB" in str(screen.query_one("#loading-text").render())
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.query_one("#loading").display and screen.query_one("#body").display
        # at rest nothing redraws by itself (the hidden spinner's 16 refreshes a second went with it)
        assert [w for w in screen.walk_children() if w.auto_refresh] == []


def test_snapshot_is_immutable() -> None:
    snap = _snapshot(_state(10))
    with pytest.raises(AttributeError):
        snap.memory_note = "changed by a widget"  # type: ignore[misc]


def test_flows_know_only_their_host_protocol() -> None:
    """ui/flows.py imports neither the app nor the dashboard screen (no app <-> flows import loop)."""
    import ast

    from conftest import ROOT

    tree = ast.parse((ROOT / "ctx_tui" / "ui" / "flows.py").read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "ctx_tui.ui.app" not in imported and "ctx_tui.ui.screens.dashboard" not in imported


async def test_off_thread_hands_results_and_failures_back_and_drops_stale_ones(tmp_path: Path) -> None:
    import threading as th

    from textual.app import App

    from ctx_tui.ui.offthread import off_thread

    seen: list[object] = []
    gate = th.Event()

    class Host(App[None]):
        pass

    app = Host()
    async with app.run_test() as pilot:
        screen = app.screen
        on_ui = []
        off_thread(screen, lambda: th.get_ident(), lambda r: on_ui.append(th.get_ident() != r), seen.append,
                   group="t")
        off_thread(screen, lambda: (_ for _ in ()).throw(OSError(2, "No such file", "x.yaml")), seen.append,
                   seen.append, group="t2")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert on_ui == [True] and seen == ["x.yaml: No such file"]
        # exclusive: a newer request cancels the older; the older's late result is dropped
        seen.clear()
        off_thread(screen, lambda: gate.wait(5) and "old", seen.append, seen.append, group="q", exclusive=True)
        off_thread(screen, lambda: "new", seen.append, seen.append, group="q", exclusive=True)
        await _until(pilot, lambda: seen == ["new"])
        gate.set()
        await pilot.pause(0.1)
        assert seen == ["new"]
