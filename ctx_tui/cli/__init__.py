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

from ctx_tui import __version__
from ctx_tui.errors import CtxError  # config.ConfigError is one too

TYPE_CHECKING = False  # typing is not imported at run time (~4 ms of every start)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any, NoReturn

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
#: Each command's one-line help, in the order its module registers it: ``ctx-tui --help``
#: lists the commands from this table without importing a command module
#: (tests/test_cli_dispatch.py proves the help equal to the real parser's, whatever the width).
COMMAND_HELP: dict[str, str] = {
    "stats": "print context usage of a session",
    "hook": "Claude Code hooks (read the hook JSON on stdin) and their installer",
    "refresh": "queue an item for restatement on the next prompt (without the hook: print it to paste)",
    "promote": "propose an item for MEMORY.md",
    "pending": "list promotions waiting for approval",
    "approve": "approve promotions and write them to MEMORY.md",
    "reject": "reject promotions (not proposed again this session)",
    "sync": "write every approved promotion to MEMORY.md",
    "config": "show the effective configuration and the source of each value",
    "detect-decay": "list tracked items the agent is forgetting",
    "register": "track a critical item (an existing id is updated)",
    "dismiss": "stop tracking an item (an extracted one is not extracted again)",
    "check-position": "is an item in the middle of the context, where attention is weakest?",
    "summarize-session": "goals, decisions, constraints, progress and decayed items as Markdown",
    "tiers": "the four memory tiers: count, tokens, items",
    "handoff": "write, check and resume from handoffs for the next session",
    "compress": "compress the live window (or --input FILE) and report length and retention",
    "enhance": "print the memory most relevant to a query, as a block to put at the start of a context",
    "api": "answer one JSON request (collect|compress|inject|clear) on stdin with one JSON response",
    "statusline": "one line for Claude Code's status bar (reads its statusline JSON on stdin); "
    "`statusline install` wires it",
    "sessions": "list every Claude Code, Codex, Gemini CLI and pi session on this machine, newest first",
    "metrics": "context per round, compactions, decay, restatements, retrieval, promotions, handoffs",
    "serve": "serve the dashboard to a browser (localhost only by default)",
}


def _top_parser(width: int | None = None, **subparsers: Any) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The top-level parser; ``width``: the columns its help wraps to (argparse's own choice when None)."""
    import argparse  # not at the top: `hook EVENT` and --version answer without it (main)

    parser = argparse.ArgumentParser(
        prog="ctx-tui",
        formatter_class=(lambda prog: argparse.HelpFormatter(prog, width=width)) if width else argparse.HelpFormatter,
        description="A terminal cockpit for a long AI coding-agent session's context.",
        epilog="Without a COMMAND it opens the live dashboard: ctx-tui [PATH] [--claude|--codex|--gemini|--pi] "
        "[--demo [--speed X]] (PATH defaults to the newest session of this directory; "
        "`ctx-tui --demo --help` shows its options).",
    )
    parser.add_argument("--version", action="version", version=f"ctx-tui {__version__}")
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND", **subparsers)


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    """The parser with the commands of ``modules`` (each module registers its own)."""
    import importlib

    parser, sub = _top_parser()
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


def help_parser(width: int | None = None) -> argparse.ArgumentParser:
    """The parser as ``ctx-tui --help`` shows it: every command with its :data:`COMMAND_HELP` line, no module imported.

    Its help is all it is for, and that shows each command's help line, never
    the command's own parser: ``add_parser`` builds ``parser_class(prog=...)``,
    so a dict stands in for each (23 ArgumentParsers were ~60% of the time
    ``ctx-tui --help`` spent in ctx-tui). ``ctx-tui CMD`` parses with :func:`build_parser`.
    """
    parser, sub = _top_parser(width, parser_class=dict)
    for name, text in COMMAND_HELP.items():
        sub.add_parser(name, help=text)
    return parser


#: ``ctx-tui --help``'s text as argparse wrote it, in the user's cache (:mod:`ctx_tui.usercache`).
HELP_FILE = "help.json"


def print_top_help() -> int:
    """Print ``ctx-tui --help``: :func:`help_parser`'s help, kept in the user's cache.

    The text follows from the terminal's width, this module (the table, the top
    parser), the Python version (argparse's layout) and the locale (gettext's
    translations of argparse's words). Kept by those, a later ``--help`` prints
    it without importing argparse, gettext, locale, textwrap and shutil with its
    compression modules: ~5 ms, half of what ``--help`` cost as installed.
    """
    from ctx_tui import usercache

    columns = _terminal_columns()
    try:
        source = os.stat(__file__)
    except OSError:
        key = None
    else:
        locale = [os.environ.get(name, "") for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")]
        key = f"{__version__}|{sys.version}|{columns}|{source.st_mtime_ns}|{source.st_size}|{'|'.join(locale)}"
    kept_at = os.path.join(usercache.cache_dir(), HELP_FILE)
    text = usercache.kept(kept_at, key) if key else None
    if not isinstance(text, str):
        text = help_parser(width=columns - 2).format_help()  # argparse's own width: the columns less 2
        if key:
            usercache.keep(kept_at, key, text)
    sys.stdout.write(text)
    return 0


def _terminal_columns() -> int:
    """The columns argparse wraps its help to, as ``shutil.get_terminal_size`` finds them (without
    importing shutil, which imports bz2, lzma and zlib): ``COLUMNS``, else standard output's
    terminal, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0 and sys.__stdout__ is not None:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (ValueError, OSError):  # not a terminal, or closed
            columns = 0
    return columns or 80


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
    one_shot_api = argv is None and args_list[:1] == ["api"]
    if one_shot_api:  # one request, then _exit_at_once: collecting cycles would only cost time (~20 ms)
        import gc

        gc.disable()
    dashboard = not args_list or args_list[0] not in COMMANDS.keys() | {"-h", "--help", "--version"}
    if dashboard:  # Textual draws the screen (its widgets show text with ctx_tui.ui.safe)
        return _run(args_list, dashboard)
    from ctx_tui.plain_text import GuardedStream

    saved = sys.stdout, sys.stderr
    # The output boundary: whatever a command prints crosses GuardedStream.
    sys.stdout, sys.stderr = GuardedStream(sys.stdout), GuardedStream(sys.stderr)
    try:
        code = _run(args_list, dashboard)
    finally:
        sys.stdout, sys.stderr = saved
    if one_shot_api:
        _exit_at_once(code)
    return code


def _exit_at_once(code: int) -> NoReturn:
    """End a one-shot ``ctx-tui api`` process without freeing what it built.

    Freeing the tokenizer's tables (100k ranks, in Python and in tiktoken's
    encoder) and the caches took ~50 ms of a ~250 ms call. Everything the call writes is
    written and closed by now (atomic writes); only the streams are flushed.
    """
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a reader that went away: nothing left to say
        pass
    os._exit(code)


def _run(args_list: list[str], dashboard: bool) -> int:
    try:
        if dashboard:
            from ctx_tui.cli.dashboard_cmd import run_dashboard

            return run_dashboard(args_list)
        if _plain_api_call(args_list):  # no parser to build (~4 ms of a one-request process)
            from pathlib import Path

            from ctx_tui.cli.api_cmd import answer

            return answer(Path(args_list[2] if len(args_list) == 3 else "-"))
        if args_list in (["-h"], ["--help"]):
            return print_top_help()
        only = COMMANDS.get(args_list[0])
        args = build_parser([only] if only else COMMAND_MODULES).parse_args(args_list)
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


def _plain_api_call(args_list: list[str]) -> bool:
    """``api`` or ``api --request FILE``: what argparse would read the same way without being asked."""
    if args_list == ["api"]:
        return True
    return (len(args_list) == 3 and args_list[:2] == ["api", "--request"]
            and (args_list[2] == "-" or not args_list[2].startswith("-")))


def _plain(text: str) -> str:
    """An error line as it may reach the terminal (the dashboard's errors do not cross GuardedStream)."""
    from ctx_tui.plain_text import terminal_text

    return terminal_text(text)
