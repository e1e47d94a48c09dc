"""What a newcomer sees first (issue 19): focus, what each figure counts, empty states, charts with scales."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from actions_support import SESSION_ID, register, write_transcript
from conftest import CLAUDE_COMPACTED, CODEX_REDACTED, fixture

from ctx_tui.config import Config
from ctx_tui.memory.session_store import load_session_memory
from ctx_tui.transcripts.model import Compaction
from ctx_tui.ui.accounting import compaction_text
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.events import notices
from ctx_tui.ui.messages import SnapshotReady
from ctx_tui.ui.screens.help import SYMBOLS, HelpScreen
from ctx_tui.ui.widgets.decay_table import DecayPanel, needs_attention
from ctx_tui.ui.widgets.heatmap import FILL_GROUPS, HeatMap
from ctx_tui.ui.widgets.usage import UsageTrend

PROMPTS = [
    "Build a CLI for the inventory service in src/inventory/cli.py. Never push to main without a review.",
    "Add the list command; it reads data/stock.csv with parse_rows().",
    "Now the export command, CSV please, written by export_csv() in src/inventory/export.py.",
]
FROZEN = datetime(2026, 3, 14, 9, 0, 0)


def _app(path: Path, project: Path) -> DashboardApp:
    return DashboardApp(path, project, Config(), follow=False, clock=lambda: FROZEN)


async def _settle(app: DashboardApp, pilot) -> None:
    for _ in range(2):
        await app.workers.wait_for_complete()
        await pilot.pause()


def _text(widget) -> str:
    return str(widget.render())


async def test_the_items_table_has_the_focus_and_down_then_p_proposes_the_second_row(tmp_path: Path) -> None:
    register(tmp_path, "no-push", "constraint", "Never push to main without a review")
    register(tmp_path, "csv", "decision", "Export as CSV with a header row")
    app = _app(write_transcript(tmp_path, PROMPTS), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        panel = app.screen.query_one(DecayPanel)
        assert app.focused is panel.table
        rows = panel._rows
        assert len(rows) >= 2
        await pilot.press("down", "p")
        await _settle(app, pilot)
        promotions = load_session_memory(tmp_path, SESSION_ID).promotions
        assert [p.item_id for p in promotions] == [rows[1].id]
        # the notice names the item by its content, never by its id
        messages = [n.message for n in app._notifications]
        assert any(rows[1].content[:20] in m and "proposed" in m for m in messages)
        assert not any(rows[1].id in m for m in messages)


async def test_empty_states_name_the_key(tmp_path: Path) -> None:
    """A real Codex rollout in which nothing is tracked (its prompts are redacted)."""
    source = fixture(CODEX_REDACTED)
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    app = _app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        screen = app.screen
        assert "Press n to register one" in _text(screen.query_one("#decay-detail"))
        assert "press p to propose" in _text(screen.query_one("#promotions"))
        assert "n registers an item" in HeatMap.render(screen.query_one(HeatMap)).plain
        await pilot.press("r")  # nothing to restate: the notice says which key makes one
        await pilot.press("a")
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any("press n to register one" in m for m in messages)
        assert any("press p" in m or "p proposes" in m for m in messages)


async def test_every_figure_says_what_it_counts_on_a_real_transcript(tmp_path: Path) -> None:
    source = fixture(CLAUDE_COMPACTED)
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    app = _app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        screen = app.screen
        state = app.snapshot.state
        figures = _text(screen.query_one("#usage-figures"))
        assert f"{state.context_tokens:,} in context · reported by the agent" in figures
        accounting = _text(screen.query_one("#usage-accounting"))
        text_tokens = sum(w.entry.tokens for w in state.live)
        # one accounting: the in-context figure = the live window's text + what the transcript does not hold
        assert f"= {text_tokens:,} transcript text of the live window + " \
               f"{state.context_tokens - text_tokens:,} system prompt, tools and other" in accounting
        assert "tokens before" in accounting  # the compaction's figure says what it is
        tiers = app.export_screenshot().replace("&#160;", " ")
        assert "whole transcript text" in tiers and "session memory file" in tiers
        await pilot.press("c")
        await _settle(app, pilot)
        figures = _text(app.screen.query_one("#compress-figures"))
        assert "compressing the live window as text, without system prompt, tools and thinking" in figures
        # the same two figures the usage panel shows, so the numbers never disagree without a word
        assert f"(usage panel: {text_tokens:,} live-window text of {state.context_tokens:,} in context)" in figures


def test_a_compaction_larger_than_twice_the_window_is_flagged() -> None:
    shown = compaction_text(Compaction(seq=0, trigger="auto", pre_tokens=940_499), 258_400).plain
    assert "⚠" in shown and "not a context size" in shown
    assert compaction_text(Compaction(seq=0, trigger="auto", pre_tokens=155_979), 200_000).plain == \
        "auto, 155,979 tokens before"


async def test_a_fresh_item_does_not_toast_decayed(tmp_path: Path) -> None:
    app = _app(write_transcript(tmp_path, PROMPTS), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        before = app.snapshot
        register(tmp_path, "utc", "constraint", "Store every timestamp in UTC")
        after = app.feed.read({app.path}).snapshot
        fresh = next(s for s in after.memory.statuses if s.id == "utc")
        assert fresh.out_of_context  # not said in the transcript yet...
        assert not [n for n in notices(before, after) if "decayed" in n.title]  # ...but nothing faded
        app.post_message(SnapshotReady(after))
        await pilot.pause()
        row = app.screen.query_one(DecayPanel).table.get_row("utc")
        assert [str(c) for c in row][0] == "–" and "new" in [str(c).strip() for c in row]


async def test_items_panel_lists_flagged_first_and_its_title_counts_them(tmp_path: Path) -> None:
    source = fixture(CLAUDE_COMPACTED)
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    app = _app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        panel = app.screen.query_one(DecayPanel)
        flags = [needs_attention(s) for s in panel._rows]
        assert flags == sorted(flags, reverse=True)  # the flagged ones first
        assert panel.border_title == f"Tracked items · {sum(flags)} flagged"
        assert "danger zone" in _text(panel.legend)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        explained = {symbol for symbol, _ in SYMBOLS}
        for word in ("risk", "type", "since", "where", "advice", "item", "⚠", "out / new", "+", "░"):
            assert word in explained, word


def test_trend_uses_the_window_scale_and_draws_both_thresholds() -> None:
    trend = UsageTrend()
    trend.show([0.05, 0.108], 0.8, 0.92)
    assert trend.columns(4) == [0.05, 0.05, 0.108, 0.108]
    assert trend._row_of(0.108, 10) == 8  # a 10.8% session stays near the bottom, not a full bar
    assert trend._row_of(0.8, 10) != trend._row_of(0.92, 10)


async def test_each_kind_has_its_own_colour_in_every_theme(tmp_path: Path) -> None:
    app = _app(write_transcript(tmp_path, PROMPTS), tmp_path)
    async with app.run_test() as pilot:
        for theme in sorted(app.available_themes):
            app.theme = theme
            await pilot.pause()
            heat = app.screen.query_one(HeatMap)
            colours = [heat.get_component_rich_style(cls).color for _, cls, _ in FILL_GROUPS]
            assert len(set(colours)) == len(FILL_GROUPS), theme


async def test_theme_and_layout_are_kept_in_the_user_config(tmp_path: Path) -> None:
    from ctx_tui.config import load_config, user_config_path

    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("# my settings\ndecay:\n  threshold_rounds: 30\n")
    path = write_transcript(tmp_path, PROMPTS)
    app = _app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        app.theme = "nord"
        await _settle(app, pilot)
        await pilot.press("l")  # auto -> stacked
        await _settle(app, pilot)
        assert app.screen.has_class("-narrow")
    assert user.read_text().startswith("# my settings\ndecay:\n  threshold_rounds: 30\n")  # the rest is kept
    ui = load_config(tmp_path).config.ui
    assert (ui.theme, ui.layout) == ("nord", "stacked")
    again = DashboardApp(path, tmp_path, load_config(tmp_path).config, follow=False)
    async with again.run_test(size=(120, 40)) as pilot:
        await _settle(again, pilot)
        assert again.theme == "nord" and again.screen.has_class("-narrow")


async def test_a_screenshot_goes_into_a_folder_that_exists_and_says_where(tmp_path: Path) -> None:
    app = _app(write_transcript(tmp_path, PROMPTS), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(app, pilot)
        app.deliver_screenshot()  # what palette → Screenshot runs
        await pilot.pause()
    shots = list((tmp_path / ".ctx" / "screenshots").glob("*.svg"))
    assert len(shots) == 1
    assert any(str(shots[0]) in n.message for n in app._notifications)


async def test_compression_inputs_say_what_applies(tmp_path: Path) -> None:
    from textual.widgets import Input

    app = _app(write_transcript(tmp_path, PROMPTS), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        await pilot.press("c")
        await _settle(app, pilot)
        preview = app.screen
        ratio = preview.query_one("#compress-ratio", Input)
        finding = preview.query_one("#compress-finding")
        ratio.value = "7"
        preview.refresh_preview()
        assert finding.has_class("-shown") and "from 0.01 to 1" in _text(finding)
        ratio.value = ""
        preview.refresh_preview()
        assert finding.has_class("-shown") and "configured ratio 0.3" in _text(finding)


#: Runs the dashboard headless on the session at argv[1] until its items table is filled, then prints
#: the table's column labels and the modules loaded by then as JSON.
FILLED_PROBE = """
import asyncio, json, sys
from pathlib import Path
from ctx_tui.config import Config
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.widgets.decay_table import DecayPanel
path = Path(sys.argv[1])
async def main():
    app = DashboardApp(path, path.parent, Config(), follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(1000):
            await pilot.pause()
            panels = app.screen.query(DecayPanel)
            if app.snapshot is not None and panels and panels.first().table.row_count:
                break
            await asyncio.sleep(0.01)
        table = app.screen.query_one(DecayPanel).table
        labels = [str(column.label) for column in table.columns.values()]
        print(json.dumps({"labels": labels, "rows": table.row_count, "modules": sorted(sys.modules)}))
asyncio.run(main())
"""


def test_the_items_table_loads_no_emoji_names(tmp_path: Path) -> None:
    """Its column labels are Text, not markup: Rich's emoji names (~0.7 MiB held at rest) are never loaded."""
    import json
    import subprocess
    import sys

    register(tmp_path, "no-push", "constraint", "Never push to main without a review")
    path = write_transcript(tmp_path, PROMPTS)
    done = subprocess.run([sys.executable, "-c", FILLED_PROBE, str(path)], capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    assert run["rows"] >= 1 and run["labels"][:3] == ["risk", "type", "item"]
    assert "rich._emoji_codes" not in run["modules"]
