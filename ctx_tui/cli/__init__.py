"""The ``ctx-tui`` command line.

``ctx-tui [PATH]`` opens the dashboard; ``ctx-tui COMMAND ...`` runs a headless
command. Each command group lives in its own module listed in
``COMMAND_MODULES``; a module exposes ``register(subparsers)`` which adds its
parsers and sets ``func`` (called with the parsed args, returns an exit code).
Commands are thin: parse, call the core, print.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ctx_tui import __version__
from ctx_tui.errors import CtxError  # config.ConfigError is one too

if TYPE_CHECKING:
    import argparse

if TYPE_CHECKING:
    import argparse

#: Each command name -> the module that registers it. Only the module of the
#: command being run is imported, so a hook answers without loading the rest
#: (tests/test_cli_dispatch.py checks this map against what modules register).
COMMANDS: dict[str, str] = {
    "stats": "ctx_tui.cli.stats_cmd",
    "hook": "ctx_tui.cli.hook_cmd",
    **dict.fromkeys(
        ["refresh", "promote", "pending", "approve", "reject", "sync"], "ctx_tui.cli.actions_cmd"
    ),
    "config": "ctx_tui.cli.config_cmd",
    **dict.fromkeys(
        ["detect-decay", "register", "dismiss", "check-position", "summarize-session", "tiers"],
        "ctx_tui.cli.memory_cmd",
    ),
    "handoff": "ctx_tui.cli.handoff_cmd",
    **dict.fromkeys(["compress", "enhance"], "ctx_tui.cli.compress_cmd"),
    "api": "ctx_tui.cli.api_cmd",
    "statusline": "ctx_tui.cli.statusline_cmd",
    "sessions": "ctx_tui.cli.sessions_cmd",
    "metrics": "ctx_tui.cli.metrics_cmd",
    "serve": "ctx_tui.cli.serve_cmd",
}
COMMAND_MODULES: list[str] = list(dict.fromkeys(COMMANDS.values()))


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    import argparse  # not at the top: `hook EVENT` and --version answer without it (main)
    import importlib

    parser = argparse.ArgumentParser(
        prog="ctx-tui",
        description="A terminal cockpit for a long AI coding-agent session's context.",
        epilog="Without a COMMAND it opens the live dashboard: ctx-tui [PATH] [--claude|--codex|--gemini|--pi] "
        "[--demo [--speed X]] (PATH defaults to the newest session of this directory; "
        "`ctx-tui --demo --help` shows its options).",
    )
    parser.add_argument("--version", action="version", version=f"ctx-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list == ["--version"]:  # without building the parser: no command module is imported
        print(f"ctx-tui {__version__}")
        return 0
    if len(args_list) == 2 and args_list[0] == "hook":  # Claude Code waits for this on every prompt
        from ctx_tui.cli.hook_cmd import EVENT_HOOKS, run_event

        if args_list[1] in EVENT_HOOKS:
            return run_event(args_list[1])
    if args_list[:1] == ["statusline"] and args_list[1:2] != ["install"]:
        # Claude Code runs this after every message: straight to the module, no parser.
        from ctx_tui.statusline import main as statusline

        return statusline(args_list[1:])
    dashboard = not args_list or args_list[0] not in COMMANDS.keys() | {"-h", "--help", "--version"}
    if dashboard:  # Textual draws the screen (its widgets show text with ctx_tui.ui.safe)
        return _run(args_list, dashboard)
    from ctx_tui.plain_text import GuardedStream

    saved = sys.stdout, sys.stderr
    # The output boundary: whatever a command prints crosses GuardedStream.
    sys.stdout, sys.stderr = GuardedStream(sys.stdout), GuardedStream(sys.stderr)
    try:
        return _run(args_list, dashboard)
    finally:
        sys.stdout, sys.stderr = saved


def _run(args_list: list[str], dashboard: bool) -> int:
    try:
        if dashboard:
            from ctx_tui.cli.dashboard_cmd import run_dashboard

            return run_dashboard(args_list)
        only = COMMANDS.get(args_list[0])
        parser = build_parser([only] if only else COMMAND_MODULES)
        args = parser.parse_args(args_list)
        return int(args.func(args) or 0)
    except CtxError as exc:
        print(f"ctx-tui: {_plain(str(exc))}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: never a traceback
        if os.environ.get("CTX_TUI_DEBUG"):
            raise
        print(f"ctx-tui: internal error: {type(exc).__name__}: {_plain(str(exc))} (set CTX_TUI_DEBUG=1 for details)", file=sys.stderr)
        return 1


def _plain(text: str) -> str:
    """An error line as it may reach the terminal (the dashboard's errors do not cross GuardedStream)."""
    from ctx_tui.plain_text import terminal_text

    return terminal_text(text)
