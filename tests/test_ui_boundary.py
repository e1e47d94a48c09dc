"""No escape, control or invisible character reaches the dashboard's screen or the clipboard (issue 15, items 1-2).

The app runs on the project of ``tests/hostile.py``; every screen a key opens
is drawn, and each drawn segment, every notification and every clipboard
payload is checked against ``hostile.FORBIDDEN``. The handoff form's input
fields (pre-filled from the hostile first prompt) were the hole: an Input
draws its value as it is.
"""

from __future__ import annotations

from pathlib import Path

from hostile import ATTACK, leaks, write_project
from textual.widgets import Input, TextArea

from ctx_tui.config import Config
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.safe import clean, input_value
from ctx_tui.ui.screens.compress_preview import CompressPreviewScreen
from ctx_tui.ui.screens.handoff_form import HandoffFormScreen
from ctx_tui.ui.screens.search import SearchScreen


def _screen_text(app: DashboardApp) -> str:
    """Every character the compositor would send for the current screen (segments of all strips)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def _settle(app: DashboardApp, pilot) -> None:
    for _ in range(2):
        await app.workers.wait_for_complete()
        await pilot.pause()


async def test_every_screen_and_the_clipboard_stay_clean(tmp_path: Path) -> None:
    transcript = write_project(tmp_path)
    (tmp_path / "MEMORY.md").write_text(f"# Memory\n\n## Decisions\n- The export writes csv headers {ATTACK}\n", encoding="utf-8")
    app = DashboardApp(transcript, tmp_path, Config(), follow=False)
    seen: dict[str, list[str]] = {}

    def check(where: str) -> None:
        found = leaks(_screen_text(app)) + leaks(app.clipboard) + [m for n in app._notifications for m in leaks(n.message + n.title)]
        if found:
            seen[where] = found[:3]

    async with app.run_test(size=(160, 48)) as pilot:
        await _settle(app, pilot)
        check("dashboard")
        for key in ("question_mark", "n"):
            await pilot.press(key)
            await _settle(app, pilot)
            check(key)
            await pilot.press("escape")
            await _settle(app, pilot)

        await pilot.press("h")
        await _settle(app, pilot)
        form = app.screen
        assert isinstance(form, HandoffFormScreen)
        task = form.query_one("#hf-task-state-assigned-task", Input).value
        assert "Fix the export in src/export.py" in task and "TITLE" not in task
        assert not leaks(task) and all(not leaks(t.text) for t in form.query(TextArea))
        check("handoff form")
        await pilot.press("escape")
        await _settle(app, pilot)
        if not isinstance(app.screen, type(app.dashboard)):
            await pilot.press("y")  # discard edits, if it asks
            await _settle(app, pilot)

        await pilot.press("c")
        await _settle(app, pilot)
        assert isinstance(app.screen, CompressPreviewScreen)
        check("compress preview")
        await pilot.press("ctrl+y")
        check("compress copy")
        await pilot.press("ctrl+t")
        check("compact line")
        await pilot.press("escape")
        await _settle(app, pilot)

        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)
        await pilot.press(*"export csv headers", "enter")
        await _settle(app, pilot)
        check("search results")
        await pilot.press("enter")
        await pilot.pause()
        assert app.clipboard.startswith("## Relevant context")
        check("search copy")
        await pilot.press("escape")
        await _settle(app, pilot)

        for key in ("r", "p", "a"):
            await pilot.press(key)
            await _settle(app, pilot)
            check(key)
    assert not seen


def test_field_values_and_shown_text() -> None:
    assert input_value(ATTACK) == input_value(input_value(ATTACK)) and not leaks(input_value(ATTACK))
    assert not leaks(input_value(f"a\n{ATTACK}\nb", multiline=True)) and input_value("a\nb", multiline=True) == "a\nb"
    shown = clean("bidi \u202eevil\u202c zero\u200bwidth")
    assert shown == "bidi <U+202E>evil<U+202C> zero<U+200B>width"
