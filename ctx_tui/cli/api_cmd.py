"""``ctx-tui api``: the JSON service contract on stdin/stdout (see ctx_tui.api)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctx_tui import tokens
from ctx_tui.api import handle_text
from ctx_tui.cli.common import project_root, read_input
from ctx_tui.plain_text import json_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "api",
        help="answer one JSON request (collect|compress|inject|clear) on stdin with one JSON response",
        description="Read one JSON request on stdin (or --request FILE) and print one JSON response. "
        "A bad request is answered with success:false and an error naming the field (exit 0).",
    )
    parser.add_argument("--request", type=Path, default=Path("-"), metavar="FILE",
                        help="read the request from FILE instead of stdin")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return answer(args.request)


def answer(request: Path) -> int:
    """Answer the request in ``request`` (``-``: stdin); ``ctx-tui api`` and ``api --request FILE`` come here without argparse."""
    # One request per process: exact counts from the piece table on disk, not a 70 ms tokenizer build.
    tokens.count_by_pieces()
    try:
        response = handle_text(read_input(request), project_root())
    finally:
        tokens.end_piece_counts()
    sys.stdout.write(json_text(response) + "\n")
    return 0
