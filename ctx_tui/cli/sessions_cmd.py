"""``ctx-tui sessions [--claude|--codex|--gemini|--pi] [--json]``: every agent session on the machine, newest first."""

from __future__ import annotations

import argparse
import time

from ctx_tui.cli.common import load_project_config, print_json
from ctx_tui.plain_text import one_line
from ctx_tui.catalog import SessionInfo, ago, human_size, list_sessions
from ctx_tui.transcripts.discover import CLAUDE, CODEX, GEMINI, PI, claude_home, codex_home, gemini_home, pi_home


def usage_text(info: SessionInfo) -> str:
    if info.usage_pct is None:
        return "–"
    return f"{'~' if info.estimated else ''}{info.usage_pct:.1f}%"


def _print_table(infos: list[SessionInfo], now: float) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    if not infos:
        console.print(Text(f"no Claude Code, Codex, Gemini CLI or pi session found (looked in {claude_home() / 'projects'}, "
                           f"{codex_home() / 'sessions'}, {gemini_home() / 'tmp'}/*/chats and {pi_home() / 'sessions'})"), soft_wrap=True)
        return
    if not console.is_terminal:
        console.width = max(console.width, 200)  # piped: whole lines rather than wrapped cells
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column("", width=1)
    table.add_column("active", justify="right", no_wrap=True)
    table.add_column("agent", no_wrap=True)
    table.add_column("project", min_width=16, ratio=2, overflow="fold")
    table.add_column("model", no_wrap=True, max_width=28)
    table.add_column("usage", justify="right", no_wrap=True)
    table.add_column("size", justify="right", no_wrap=True)
    table.add_column("file", ratio=3, overflow="fold", style="dim")
    for info in infos:
        table.add_row(
            Text("●", style="bold green") if info.live(now) else Text(""),
            Text(ago(info.modified, now)),
            Text(info.agent),
            Text(one_line(info.project or "?", 200)),
            Text(one_line(info.model or "?", 60)),
            Text(usage_text(info)) if info.error is None else Text("unreadable", style="red"),
            Text(human_size(info.size)),
            Text(one_line(str(info.path), 400)),
        )
    console.print(table)


def _run(args: argparse.Namespace) -> int:
    infos = list_sessions(args.agent, load_project_config().window.sizes)
    if args.limit:
        infos = infos[: args.limit]
    now = time.time()
    if args.json:
        print_json([info.as_dict(now) for info in infos])
    else:
        _print_table(infos, now)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sessions", help="list every Claude Code, Codex, Gemini CLI and pi session on this machine, newest first", description=__doc__
    )
    agent = parser.add_mutually_exclusive_group()
    agent.add_argument("--claude", dest="agent", action="store_const", const=CLAUDE, help="only Claude Code sessions")
    agent.add_argument("--codex", dest="agent", action="store_const", const=CODEX, help="only Codex sessions")
    agent.add_argument("--gemini", dest="agent", action="store_const", const=GEMINI, help="only Gemini CLI sessions")
    agent.add_argument("--pi", dest="agent", action="store_const", const=PI, help="only pi sessions")
    parser.add_argument("--limit", type=int, metavar="N", help="only the N newest")
    parser.add_argument("--json", action="store_true", help="print a JSON array")
    parser.set_defaults(func=_run)
