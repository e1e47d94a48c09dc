"""``ctx-tui stats [PATH] [--claude|--codex|--gemini|--pi] [--json] [--full]``: how full the context window is.

The usage figure needs only the end of the transcript, so ``stats`` reads it
tail-first (:mod:`ctx_tui.usage_tail`: the same figures as a whole read, from a
few rows at the end). ``--full`` reads the whole session and adds what only a
whole read knows: rounds, entries, compactions, skipped lines.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ctx_tui.cli.common import add_session_args, open_session, print_json, project_config_or_defaults, session_path
from ctx_tui.errors import CtxError
from ctx_tui.usage_tail import TailUsage, read_usage_tail
from ctx_tui.window_state import HANDOFF_THRESHOLD, WINDOW_SOURCE_TEXT, WindowState

if TYPE_CHECKING:
    from ctx_tui.config import Config


def stats_dict(state: WindowState | TailUsage, config: Config | None, live_entries: int | None = None) -> dict[str, Any]:
    """The ``stats --json`` object (also what other front ends can show).

    ``config`` None: the defaults. From a :class:`TailUsage` (the default, tail-first) it holds the usage
    figures; from a whole read's :class:`WindowState` it adds the session's
    counts (rounds, entries, live entries, compactions, skipped lines).
    """
    meta = state.meta
    known = state.window_known
    handoff_at = config.window.handoff_threshold if config is not None else HANDOFF_THRESHOLD
    data: dict[str, Any] = {
        "path": str(state.path),
        "format": meta.format.value,
        "session_id": meta.session_id,
        "model": meta.model,
        "cwd": meta.cwd,
        "agent_version": meta.agent_version,
        "context_tokens": state.context_tokens,
        "context_window": state.context_window if known else None,
        "window_source": state.window_source if known else None,
        "usage_pct": round(state.usage_pct, 2) if known else None,
        "usage_source": state.usage_source,
        "token_source": state.token_source,
        "estimated": state.estimated,
        "headroom_tokens": state.headroom_tokens if known else None,
        "autocompact_threshold": state.autocompact_threshold,
        "handoff_suggested": known
        and state.context_tokens >= handoff_at * state.context_window,
    }
    if isinstance(state, WindowState):
        data.update({
            "compactions": len(state.compactions),
            "rounds": state.rounds,
            "entries": state.entries_total,
            "live_entries": live_entries,
            "skipped_lines": state.skipped_lines,
            "implausible_usage": state.implausible_usage,
        })
    return data


def _print_human(data: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(highlight=False)
    mark = "reported" if data["usage_source"] == "reported" else "estimated"
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    table.add_row("session", escape(f"{data['session_id'] or '?'} ({data['format']})"))
    table.add_row("model", escape(str(data["model"] or "unknown")))
    if data["context_window"] is None:
        table.add_row("context", f"{data['context_tokens']:,} tokens ({mark}) · [yellow]window unknown[/] (set window.sizes for this model)")
    else:
        table.add_row(
            "context",
            f"{data['context_tokens']:,} / {data['context_window']:,} tokens  "
            f"[bold]{data['usage_pct']:.1f}%[/] ({mark})",
        )
        table.add_row("window", f"{data['context_window']:,} tokens, {WINDOW_SOURCE_TEXT[data['window_source']]}")
        table.add_row("headroom", f"{data['headroom_tokens']:,} tokens before auto-compaction at {data['autocompact_threshold']:.0%}")
    if "rounds" in data:
        table.add_row("rounds", f"{data['rounds']}   compactions: {data['compactions']}")
        table.add_row("entries", f"{data['entries']:,} ({data['live_entries']:,} in the live window)")
    table.add_row("tokens", escape(data["token_source"]))
    if data.get("skipped_lines"):
        table.add_row("skipped", f"[yellow]{data['skipped_lines']} unreadable line(s)[/]")
    if data.get("implausible_usage"):
        table.add_row("ignored", f"[yellow]{data['implausible_usage']} implausible usage report(s) (outside 0..10x the window)[/]")
    if data["handoff_suggested"]:
        table.add_row("handoff", "[yellow]context is past the handoff threshold: consider `ctx-tui handoff`[/]")
    console.print(table)


def _run(args: argparse.Namespace) -> int:
    if args.full:
        session = open_session(args)
        if session.unsupported:
            raise CtxError(f"{session.path}: {session.unsupported}")
        # Totals only: with reported usage nothing needs tokenizing.
        data = stats_dict(session.state(positions=False), session.config, len(session.live_entries()))
    else:
        path, config = session_path(args), project_config_or_defaults()
        try:
            usage = read_usage_tail(path, config)
        except OSError as exc:
            raise CtxError(f"{path}: cannot read ({exc.strerror or exc})") from None
        if usage.unsupported:
            raise CtxError(f"{path}: {usage.unsupported}")
        data = stats_dict(usage, config)
    if args.json:
        print_json(data)
    else:
        _print_human(data)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("stats", help="print context usage of a session", description=__doc__)
    add_session_args(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--full", action="store_true",
        help="read the whole session: also rounds, entries, compactions, skipped lines (slower on a long session)",
    )
    parser.set_defaults(func=_run)
