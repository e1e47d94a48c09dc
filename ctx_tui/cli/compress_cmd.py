"""``ctx-tui compress`` and ``ctx-tui enhance``: compression and retrieval from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctx_tui import audit
from ctx_tui.cli.common import add_session_args, load_project_config, open_session, print_json, project_root, read_input, session_path
from ctx_tui.compress import STRATEGIES, compact_line, compress_text
from ctx_tui.compress.session import memory_text, save_summary, session_items, window_text
from ctx_tui.errors import CtxError
from ctx_tui.memory.session_store import load_session_memory, session_id_of
from ctx_tui.retrieve import enhance_block, search
from ctx_tui.window import Session


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be greater than 0 and at most 1, got {value}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "compress",
        help="compress the live window (or --input FILE) and report length and retention",
        description="Compress the session's live window, or a given text, with a strategy, to a target "
        "ratio or a maximum length in tokens. Prints the compressed text; the figures go to stderr.",
    )
    add_session_args(p)
    p.add_argument("--strategy", choices=STRATEGIES, help="default: compression.strategy from the config")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--target-ratio", type=_ratio, metavar="R", help="output tokens / input tokens (0-1]")
    size.add_argument("--max-length", type=_positive, metavar="N", help="at most N tokens")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--input", type=Path, metavar="FILE", help="compress this text file ('-' for stdin) instead of the window")
    source.add_argument("--session-memory", action="store_true",
                        help="compress the session's memory (.ctx/sessions/<id>.yaml) instead of the window")
    p.add_argument("--json", action="store_true", help="print the text and the figures as JSON")
    p.add_argument("--save", action="store_true", help="keep the result in the session memory (summaries)")
    p.add_argument("--compact-line", action="store_true",
                   help="print a /compact instruction naming the session's critical items, and nothing else")
    p.set_defaults(func=run_compress)

    e = subparsers.add_parser(
        "enhance",
        help="print the memory most relevant to a query, as a block to put at the start of a context",
        description="Search every tier (live window, transcript, session memory, MEMORY.md, CLAUDE.md/AGENTS.md, "
        "handoffs) with BM25 and print the best hits as one block.",
    )
    add_session_args(e)
    e.add_argument("--query", "-q", required=True, help="what the context is about")
    e.add_argument("--top-k", type=_positive, metavar="K", help="default: retrieval.top_k from the config")
    e.add_argument("--position", choices=("start", "end"), help="default: retrieval.enhance_position from the config")
    e.add_argument("--json", action="store_true", help="print the hits as JSON")
    e.set_defaults(func=run_enhance)


def run_compress(args: argparse.Namespace) -> int:
    project = project_root()
    config = load_project_config()
    session: Session | None = None
    if args.input is None or args.compact_line or args.save:
        session = open_session(args, config)
    items = session_items(project, session) if session is not None else []
    if args.compact_line:
        print(compact_line(items))
        return 0
    if args.input is not None:
        text = read_input(args.input)
    else:
        assert session is not None  # opened above whenever --input is not given
        if args.session_memory:
            text = memory_text(load_session_memory(project, session_id_of(session)))
        else:
            text = window_text(session)
    if not text.strip():
        raise CtxError("nothing to compress: the text is empty")
    result = compress_text(text, args.strategy or config.compression.strategy, target_ratio=args.target_ratio,
                           max_length=args.max_length, items=items, config=config)
    sid = session_id_of(session) if session is not None else None
    audit.record(project, "compress.ran", session=sid, via="cli", strategy=result.strategy,
                 original=result.original_length, compressed=result.compressed_length,
                 retention=result.retention_rate)
    if args.save and sid is not None:
        save_summary(project, sid, result, via="cli")
    if args.json:
        print_json({"context": result.text, "metadata": result.metadata(),
                    "factsLost": [f"{f.kind}: {f.label}" for f in result.facts_lost]})
        return 0
    sys.stdout.write(result.text.rstrip("\n") + "\n")
    m = result.metadata()
    print(
        f"{m['strategy']}: {m['originalLength']:,} -> {m['compressedLength']:,} tokens "
        f"(budget {result.budget:,}), retention {m['retentionRate']:.2f} "
        f"({m['factsKept']}/{m['factsTotal']} key facts in sentences"
        + (f", {m['factsNamedOnly']} named only" if m["factsNamedOnly"] else "")
        + f"), {m['duration']:.0f} ms"
        + ("; saved to session memory" if args.save and sid else ""),
        file=sys.stderr,
    )
    return 0


def run_enhance(args: argparse.Namespace) -> int:
    project = project_root()
    config = load_project_config()
    session: Session | None = None
    try:
        session_path(args)
    except CtxError:
        if args.path is not None:
            raise
    else:
        session = open_session(args, config)
    hits = search(project, args.query, args.top_k, session=session, config=config)
    if args.json:
        print_json([{"tier": h.tier, "source": h.source, "score": h.score, "text": h.text} for h in hits])
        return 0
    if not hits:
        print(f"no memory matches {args.query!r}", file=sys.stderr)
        return 0
    # The rule stays on the side that meets the context: --position start puts it after the block.
    sys.stdout.write(enhance_block(hits, args.position or config.retrieval.enhance_position).strip("\n") + "\n")
    return 0
