"""The command palette provider: every dashboard action by name (Textual's own commands stay).

It is a command source of ``DashboardScreen`` (its ``COMMANDS``), so it runs the
actions on that screen and is not offered over a flow form.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ctx_tui.ui.keys import DASHBOARD_KEYS


class DashboardCommands(Provider):
    """Lists the actions of :data:`ctx_tui.ui.keys.DASHBOARD_KEYS` with their keys and help."""

    def _commands(self) -> list[tuple[str, str, str]]:
        return [(f"{spec.label} ({spec.shown})", spec.action, spec.help) for spec in DASHBOARD_KEYS]

    async def discover(self) -> Hits:
        for name, action, help_text in self._commands():
            yield DiscoveryHit(name, partial(self.screen.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action, help_text in self._commands():
            score = matcher.match(f"{name} {action}")
            if score > 0:
                yield Hit(score, matcher.highlight(name), partial(self.screen.run_action, action), help=help_text)
