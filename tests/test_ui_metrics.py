"""The metrics screen (m): plots of the followed session and the audit counts of its project."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from conftest import CLAUDE_COMPACTED, fixture

from ctx_tui import audit
from ctx_tui.config import Config
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.screens.dashboard import DashboardScreen
from ctx_tui.ui.screens.metrics import MetricsScreen

SESSION = "624a4a58-b34c-462d-a70d-13421c8125a8"


async def _until(pilot, condition, tries: int = 400) -> None:
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not reached")


async def test_metrics_screen_plots_the_session_and_counts_its_audit_events(tmp_path: Path) -> None:
    audit.record(tmp_path, "retrieve.searched", session=SESSION, query="redis", hits=2)
    audit.record(tmp_path, "retrieve.searched", session=SESSION, query="zebra", hits=0)
    audit.record(tmp_path, "retrieve.searched", session="another", query="x", hits=1)
    audit.record(tmp_path, "handoff.refused", session=SESSION, errors=1, findings=[])
    app = DashboardApp(fixture(CLAUDE_COMPACTED), tmp_path, Config(), follow=False)
    async with app.run_test(size=(140, 50)) as pilot:
        await _until(pilot, lambda: app.snapshot is not None)
        await pilot.press("m")
        screen = app.screen
        assert isinstance(screen, MetricsScreen)
        await _until(pilot, lambda: screen.metrics is not None)
        m = screen.metrics
        assert [p.round for p in m.context_by_round] == list(range(1, 15))
        assert [c.round for c in m.compactions] == [10]
        assert (m.audit.retrieval_queries, m.audit.retrieval_hits, m.audit.handoffs_refused) == (2, 1, 1)
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(screen.counts_table)
        counts = console.export_text()
        assert "2 queries, 1 hit, 1 missed (hit rate 50%)" in counts
        assert "1 refused by the gate" in counts
        console.print(screen.title_bar.render())
        assert "14 round(s), 1 compaction(s), now 47.6% (reported)" in console.export_text()
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)
