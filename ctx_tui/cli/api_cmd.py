"""``ctx-tui api``: the JSON service contract on stdin/stdout (see ctx_tui.api)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ctx_tui.api import handle_text
from ctx_tui.cli.common import project_root
from ctx_tui.errors import CtxError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "api",
        help="answer one JSON request (collect|compress|inject|clear) on stdin with one JSON response",
        description="Read one JSON request on stdin (or --request FILE) and print one JSON response. "
        "A bad request is answered with success:false and an error naming the field (exit 0).",
    )
    parser.add_argument("--request", type=Path, metavar="FILE", help="read the request from FILE instead of stdin")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.request is not None:
        try:
            raw = args.request.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CtxError(f"{args.request}: cannot read the request ({exc})") from None
    else:
        raw = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    response = handle_text(raw, project_root())
    sys.stdout.write(json.dumps(response, ensure_ascii=False) + "\n")
    return 0
