"""Acting on memory: ``refresh``, ``promote``, ``pending``, ``approve``, ``reject``, ``sync``.

``refresh --id ID`` queues an item for restatement on the agent's next prompt
(delivered by the ``UserPromptSubmit`` hook, see ``ctx-tui hook install``);
without the hook it queues nothing and prints the restatement to paste.
``promote --id ID`` proposes an item for MEMORY.md; ``pending`` lists the
proposals (adding automatic ones when ``sync.auto_promote`` is on);
``approve ID...`` / ``reject ID...`` decide; ``sync`` writes every approved one not written yet.
Each takes the session like ``stats`` (PATH, or the newest session of the
current directory); the promotion commands also accept ``--session-id``.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict

from ctx_tui.actions import promotions
from ctx_tui.actions.promotions import ApproveResult
from ctx_tui.actions.restate import restate_items
from ctx_tui.cli.common import add_session_args, load_project_config, open_session, print_json, project_root
from ctx_tui.config import Config
from ctx_tui.memory.session_store import Promotion
from ctx_tui.memory.view import build_memory_view
from ctx_tui.plain_text import one_line


def _session_and_config(args: argparse.Namespace) -> tuple[str, Config]:
    """The session's id and the config; a session read from its transcript is brought up to date first.

    (Extracted items and references are stored, so any id the dashboard or
    ``detect-decay`` shows can be promoted.) With ``--session-id`` the session
    memory is used as it is.
    """
    project = project_root()
    config = load_project_config()
    explicit: str | None = getattr(args, "session_id", None)
    if explicit:
        return explicit, config
    return build_memory_view(project, open_session(args, config), config).session_id, config


def _run_refresh(args: argparse.Namespace) -> int:
    project = project_root()
    config = load_project_config()
    session = open_session(args, config)
    # stores extracted items and references first, so any id the dashboard shows can be refreshed
    view = build_memory_view(project, session, config)
    result = restate_items(project, view.session_id, args.ids, view.current_round)
    if args.json:
        print_json(asdict(result))
        return 0
    if not result.hook_installed:
        print(
            "not queued: no UserPromptSubmit hook delivers restatements in this project "
            "(`ctx-tui hook install` wires it); paste this into the agent:"
        )
        print(result.text)
        return 0
    for item_id, queued in zip(result.item_ids, result.queued):
        verb = "queued" if queued else "already queued"
        print(f"{verb} {one_line(item_id, 80)} for restatement ({result.queue_length} waiting)")
    return 0


def _run_promote(args: argparse.Namespace) -> int:
    session_id, config = _session_and_config(args)
    project = project_root()
    ids = list(dict.fromkeys(args.ids))
    results = promotions.propose(project, session_id, ids, config.paths.memory_path(project), again=args.again)
    if args.json:
        print_json([asdict(r) for r in results])
        return 0
    for result in results:
        print(f"{one_line(result.item_id, 80)}: {result.message}")
    return 0


def _promotion_line(p: Promotion) -> str:
    return f"{one_line(p.item_id, 80)}  [{p.type.value}, {p.reason or 'manual'}]  {one_line(p.content, 200)}"


def _run_pending(args: argparse.Namespace) -> int:
    project = project_root()
    session_id, config = _session_and_config(args)
    promotions.auto_propose(project, session_id, config, config.paths.memory_path(project))
    waiting = promotions.pending(project, session_id)
    if args.json:
        print_json([p.dump() for p in waiting])
        return 0
    if not waiting:
        print("no pending promotions")
        return 0
    for promotion in waiting:
        print(_promotion_line(promotion))
    print(f"{len(waiting)} pending: `ctx-tui approve ID...` writes to MEMORY.md, `ctx-tui reject ID...` drops")
    return 0


def _print_written(result: ApproveResult) -> None:
    for item_id in result.written:
        print(f"wrote {one_line(item_id, 80)} to {result.memory_path}")
    for item_id in result.already_present:
        print(f"{one_line(item_id, 80)}: already in {result.memory_path.name}")
    if result.changed_meanwhile:
        print(f"note: {result.memory_path.name} changed on disk meanwhile; the change was kept")


def _run_approve(args: argparse.Namespace) -> int:
    project = project_root()
    session_id, config = _session_and_config(args)
    result = promotions.approve(project, session_id, list(dict.fromkeys(args.ids)), config.paths.memory_path(project))
    if args.json:
        print_json(asdict(result))
        return 0
    for item_id in result.approved:
        print(f"approved {one_line(item_id, 80)}")
    _print_written(result)
    return 0


def _run_reject(args: argparse.Namespace) -> int:
    session_id, _ = _session_and_config(args)
    rejected = promotions.reject(project_root(), session_id, list(dict.fromkeys(args.ids)))
    if args.json:
        print_json({"rejected": rejected})
        return 0
    for item_id in dict.fromkeys(args.ids):
        print(f"{'rejected' if item_id in rejected else 'already rejected'} {one_line(item_id, 80)}")
    return 0


def _run_sync(args: argparse.Namespace) -> int:
    project = project_root()
    session_id, config = _session_and_config(args)
    memory_path = config.paths.memory_path(project)
    proposed = promotions.auto_propose(project, session_id, config, memory_path)
    result = promotions.sync(project, session_id, memory_path)
    waiting = promotions.pending(project, session_id)
    if args.json:
        print_json(
            {**asdict(result), "proposed": [p.item_id for p in proposed], "pending": [p.item_id for p in waiting]}
        )
        return 0
    _print_written(result)
    if not (result.written or result.already_present):
        print("nothing approved left to write (an approved entry is written once)")
    if waiting:
        print(f"{len(waiting)} promotion(s) wait for a decision: see `ctx-tui pending`")
    return 0


def _add_common(parser: argparse.ArgumentParser, session_id: bool = True) -> None:
    add_session_args(parser)
    if session_id:
        parser.add_argument("--session-id", help="the session's id (instead of reading its transcript)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def _add_decision_args(parser: argparse.ArgumentParser) -> None:
    """IDs are positional here, so the transcript is ``--transcript PATH`` instead of ``PATH``."""
    parser.add_argument("ids", nargs="+", metavar="ID", help="item id of a promotion")
    add_session_args(parser, option="--transcript")
    parser.add_argument("--session-id", help="the session's id (instead of reading its transcript)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def register(subparsers: argparse._SubParsersAction) -> None:
    refresh = subparsers.add_parser(
        "refresh", help="queue an item for restatement on the next prompt (without the hook: print it to paste)"
    )
    refresh.add_argument("--id", dest="ids", action="append", required=True, help="item id (repeatable)")
    _add_common(refresh, session_id=False)
    refresh.set_defaults(func=_run_refresh)

    promote = subparsers.add_parser("promote", help="propose an item for MEMORY.md")
    promote.add_argument("--id", dest="ids", action="append", required=True, help="item id (repeatable)")
    promote.add_argument("--again", action="store_true", help="propose an item that was rejected earlier")
    _add_common(promote)
    promote.set_defaults(func=_run_promote)

    pending = subparsers.add_parser("pending", help="list promotions waiting for approval")
    _add_common(pending)
    pending.set_defaults(func=_run_pending)

    approve = subparsers.add_parser("approve", help="approve promotions and write them to MEMORY.md")
    _add_decision_args(approve)
    approve.set_defaults(func=_run_approve)

    reject = subparsers.add_parser("reject", help="reject promotions (not proposed again this session)")
    _add_decision_args(reject)
    reject.set_defaults(func=_run_reject)

    sync = subparsers.add_parser("sync", help="write every approved promotion to MEMORY.md")
    _add_common(sync)
    sync.set_defaults(func=_run_sync)
