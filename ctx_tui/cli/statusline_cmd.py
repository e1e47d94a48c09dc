"""``ctx-tui statusline``: the line for Claude Code's status bar, and its installer.

``ctx-tui statusline`` itself is dispatched straight to :mod:`ctx_tui.statusline`
by ``ctx_tui.cli.main`` (no parser is built: Claude Code runs it after every
message); the parser below documents it and runs ``statusline install``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ctx_tui.actions.hook_install import install_statusline, statusline_block
from ctx_tui.plain_text import one_line


def _status(args: argparse.Namespace) -> int:
    from ctx_tui.statusline import main

    argv = (["--no-color"] if args.no_color else []) + (["--json"] if args.json else [])
    return main(argv + (["--width", str(args.width)] if args.width else []))


def _install(args: argparse.Namespace) -> int:
    if args.print_only:
        print(json.dumps(statusline_block(), indent=2))
        return 0
    result = install_statusline(Path.cwd(), user=args.user, force=args.force)
    where = one_line(str(result.path))
    if result.action == "unchanged":
        print(f"ctx-tui status line already installed in {where}")
        return 0
    if result.action == "replaced":
        previous = result.previous.get("command") if isinstance(result.previous, dict) else result.previous
        print(f"replaced the status line {one_line(json.dumps(previous, ensure_ascii=False), 200)}")
    else:
        print(f"{result.action} the ctx-tui status line")
    print(f"wrote {where}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "statusline",
        help="one line for Claude Code's status bar (reads its statusline JSON on stdin); `statusline install` wires it",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--no-color", action="store_true", help="plain text (also when NO_COLOR is set)")
    parser.add_argument("--width", type=int, help="fit the line in N columns (default: $COLUMNS, the terminal, or 100)")
    parser.add_argument("--json", action="store_true", help="print what the line shows as one JSON object")
    parser.set_defaults(func=_status)
    sub = parser.add_subparsers(dest="statusline_command", metavar="install")
    install = sub.add_parser("install", help="wire the status line into .claude/settings.json")
    install.add_argument("--print", dest="print_only", action="store_true", help="print the settings block; change nothing")
    install.add_argument("--user", action="store_true", help="your user settings ($CLAUDE_CONFIG_DIR or ~/.claude/settings.json)")
    install.add_argument("--force", action="store_true", help="replace a status line that is not ctx-tui's")
    install.set_defaults(func=_install)
