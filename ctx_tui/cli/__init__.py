"""The ``ctx-tui`` command line.

``ctx-tui [PATH]`` opens the dashboard; ``ctx-tui COMMAND ...`` runs a headless
command. Each command group lives in its own module listed in
``COMMAND_MODULES``; a module exposes ``register(subparsers)`` which adds its
parsers and sets ``func`` (called with the parsed args, returns an exit code).
Commands are thin: parse, call the core, print.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from ctx_tui import __version__
from ctx_tui.config import ConfigError
from ctx_tui.errors import CtxError

COMMAND_MODULES: list[str] = [
    "ctx_tui.cli.stats_cmd",
    "ctx_tui.cli.hook_cmd",
    "ctx_tui.cli.actions_cmd",
    "ctx_tui.cli.config_cmd",
    "ctx_tui.cli.memory_cmd",
    "ctx_tui.cli.handoff_cmd",
    "ctx_tui.cli.compress_cmd",
    "ctx_tui.cli.api_cmd",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctx-tui",
        description="A terminal cockpit for a long AI coding-agent session's context.",
    )
    parser.add_argument("--version", action="version", version=f"ctx-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _command_names(parser: argparse.ArgumentParser) -> set[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    return set()


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        if not args_list or args_list[0] not in _command_names(parser) | {"-h", "--help", "--version"}:
            from ctx_tui.cli.dashboard_cmd import run_dashboard

            return run_dashboard(args_list)
        args = parser.parse_args(args_list)
        return int(args.func(args) or 0)
    except (CtxError, ConfigError) as exc:
        print(f"ctx-tui: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: never a traceback
        if os.environ.get("CTX_TUI_DEBUG"):
            raise
        print(f"ctx-tui: internal error: {type(exc).__name__}: {exc} (set CTX_TUI_DEBUG=1 for details)", file=sys.stderr)
        return 1
