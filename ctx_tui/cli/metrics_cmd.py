"""``ctx-tui metrics [PATH] [--claude|--codex] [--project] [--json]``: what ctx-tui saw and did, counted.

For a session (a transcript PATH, or the newest session of this directory):
context size per round and the compactions (from the transcript), then the
session's audit counts: decay events, restatements queued and delivered,
retrieval queries and hit rate, promotions, handoffs, compressions. With
``--project``: the audit counts of every session of this project.
"""

from __future__ import annotations

import argparse

from ctx_tui.cli.common import add_session_args, open_session, print_json, project_root
from ctx_tui.memory.session_store import session_id_of
from ctx_tui.metrics import AuditMetrics, SessionMetrics, audit_metrics, audit_rows, session_metrics, sparkline
from ctx_tui.plain_text import one_line

PLOT_WIDTH = 60


def _print_session(data: SessionMetrics) -> None:
    points = data.context_by_round
    print(f"session   {one_line(data.session_id)} ({data.format}), {data.rounds} round(s)")
    print(f"context   {data.context_tokens:,} / {data.context_window:,} tokens, {data.usage_pct:.1f}% ({data.usage_source})")
    if points:
        peak = max(points, key=lambda p: p.tokens)
        estimated = " (estimated)" if any(p.source == "estimated" for p in points) else ""
        print(f"per round {sparkline([p.tokens for p in points], PLOT_WIDTH)}  rounds {points[0].round}-{points[-1].round}, "
              f"peak {peak.tokens:,} in round {peak.round}{estimated}")
    if data.compactions:
        shown = ", ".join(
            f"round {c.round}" + (f" ({c.trigger}" + (f", {c.pre_tokens:,} before)" if c.pre_tokens else ")") if c.trigger else "")
            for c in data.compactions
        )
        print(f"compacted {len(data.compactions)}x: {one_line(shown)}")
    else:
        print("compacted 0x")


def _print_audit(m: AuditMetrics) -> None:
    for label, text in audit_rows(m):
        print(f"{label:<13} {one_line(text)}")
    if m.decayed_by_round:
        rounds = sorted(m.decayed_by_round)
        series = [m.decayed_by_round.get(r, 0) for r in range(rounds[0], rounds[-1] + 1)]
        print(f"{'decay/round':<13} {sparkline(series, PLOT_WIDTH)}  rounds {rounds[0]}-{rounds[-1]}")


def _run(args: argparse.Namespace) -> int:
    project = project_root()
    if args.project:
        counts = audit_metrics(project)
        if args.json:
            print_json({"project": str(project), "audit": counts.as_dict()})
        else:
            print(f"project   {one_line(str(project))}")
            _print_audit(counts)
        return 0
    session = open_session(args)
    data = session_metrics(project, session.state(positions=False), session_id_of(session))
    if args.json:
        print_json(data.as_dict())
    else:
        _print_session(data)
        _print_audit(data.audit)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "metrics", help="context per round, compactions, decay, restatements, retrieval, promotions, handoffs",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_session_args(parser)
    parser.add_argument("--project", action="store_true", help="the audit counts of every session of this project")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=_run)
