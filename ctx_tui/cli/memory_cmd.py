"""Memory commands: ``detect-decay``, ``register``, ``dismiss``, ``check-position``,
``summarize-session`` and ``tiers``.

Each takes the session like ``stats`` (an optional transcript PATH, else the
newest session of the current directory) and prints a readable report, or
JSON with ``--json``. All of them read the memory model through
:func:`ctx_tui.memory.view.build_memory_view`, the same call the dashboard makes.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctx_tui.cli.common import add_session_args, load_project_config, open_session, print_json, project_root
from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.memory.decay import ItemStatus, attention, in_danger_zone
from ctx_tui.memory.items import ItemType, parse_item_type
from ctx_tui.memory.registry import dismiss_item, register_item
from ctx_tui.memory.view import MemoryView, build_memory_view, session_id_of
from ctx_tui.plain_text import one_line
from ctx_tui.window import Session


@dataclass(frozen=True, slots=True)
class _Opened:
    project: Path
    config: Config
    session: Session
    view: MemoryView


def _open(args: argparse.Namespace, current_round: int | None = None) -> _Opened:
    project = project_root()
    config = load_project_config()
    session = open_session(args, config)
    view = build_memory_view(project, session, config, current_round=current_round)
    return _Opened(project, config, session, view)


def _where(status: ItemStatus) -> str:
    if status.out_of_context:
        return "out of context (not in the live window)"
    assert status.position is not None
    zone = " — in the danger zone" if status.in_danger_zone else ""
    return f"at {status.position:.0%} of the live window{zone}"


def _last_seen(status: ItemStatus) -> str:
    if status.last_seen_round is None:
        return f"never mentioned; registered {status.rounds_since_reference} rounds ago"
    return f"last referenced {status.rounds_since_reference} rounds ago (round {status.last_seen_round})"


# -- detect-decay -------------------------------------------------------------


def _run_detect_decay(args: argparse.Namespace) -> int:
    if args.current_round is not None and args.current_round < 1:
        raise CtxError("--current-round must be 1 or more (rounds are 1-based)")
    opened = _open(args, args.current_round)
    view = opened.view
    if args.json:
        print_json([s.as_dict() for s in view.flagged])
        return 0
    print(f"Decay detection report — session {one_line(view.session_id, 600)}")
    print(f"Current round: {view.current_round} · tracked items: {len(view.statuses)}")
    if not view.decay_enabled:
        print("Decay detection is off (decay.enabled: false in the config).")
        return 0
    print()
    if not view.flagged:
        print("No decayed items.")
    for status in view.flagged:
        print(f"[{status.importance.value.capitalize()} importance] {status.type.value} {status.id}: {one_line(status.content, 600)}")
        print(f"  {_last_seen(status)} (threshold {status.threshold}); {_where(status)}")
        print(f"  Last reference: {one_line(status.why, 600)}")
        print(f"  Suggestion: {status.recommendation}")
    warnings = [s for s in view.statuses if s.in_danger_zone and not s.flagged]
    if warnings:
        print()
        print("Position warnings:")
        for status in warnings:
            print(f"  {status.id}: {one_line(status.content, 80)} — {_where(status)}; suggestion: {status.recommendation}")
    return 0


# -- register / dismiss --------------------------------------------------------


def _session_id_and_round(args: argparse.Namespace) -> tuple[str, int]:
    """``--session-id`` as given (round 0: not read), else the transcript's id and current round."""
    if args.session_id:
        return args.session_id, 0
    session = open_session(args, load_project_config())
    return session_id_of(session), session.state().rounds


def _run_register(args: argparse.Namespace) -> int:
    item_type = parse_item_type(args.type)
    project = project_root()
    session_id, current_round = _session_id_and_round(args)
    item, created = register_item(project, session_id, args.id, item_type, args.content, current_round)
    if args.json:
        print_json({"created": created, "session_id": session_id, "item": item.dump()})
        return 0
    verb = "registered" if created else "updated"
    print(
        f"{verb} {item.type.value} {item.id} ({item.importance.value} importance, round {item.entered_round}) "
        f"in session {one_line(session_id, 600)}: {one_line(item.content, 600)}"
    )
    return 0


def _run_dismiss(args: argparse.Namespace) -> int:
    project = project_root()
    session_id, _ = _session_id_and_round(args)
    item = dismiss_item(project, session_id, args.id)
    if args.json:
        print_json({"dismissed": item.dump()})
    else:
        print(f"dismissed {item.source} {item.type.value} {item.id}: {one_line(item.content, 600)}")
    return 0


# -- check-position --------------------------------------------------------------


def _run_check_position(args: argparse.Namespace) -> int:
    if (args.position is None) != (args.total is None):
        raise CtxError("give --position and --total together (or neither, to use the item's place in the live window)")
    opened = _open(args)
    status = opened.view.status(args.id)
    if status is None:
        known = ", ".join(s.id for s in opened.view.statuses) or "none"
        raise CtxError(f"no active item {args.id!r} in session {opened.view.session_id}; known items: {known}")
    zone = opened.config.position.danger_zone
    if args.position is not None:
        if args.total <= 0 or not 0 <= args.position <= args.total:
            raise CtxError("--total must be positive and --position between 0 and --total")
        fraction: float | None = args.position / args.total
    else:
        fraction = status.position
    danger = fraction is not None and in_danger_zone(fraction, zone)
    data: dict[str, Any] = {
        "id": status.id,
        "position": args.position,
        "total": args.total,
        "fraction": None if fraction is None else round(fraction, 4),
        "danger_zone": list(zone),
        "in_danger_zone": danger,
        "attention": None if fraction is None else round(attention(fraction), 3),
        "out_of_context": fraction is None,
    }
    if args.json:
        print_json(data)
        return 0
    if fraction is None:
        print(f"{status.id}: out of context — no entry of the live window states it; suggestion: {status.recommendation}")
    elif danger:
        where = f"{args.position}/{args.total}" if args.position is not None else f"{fraction:.0%} of the live window"
        print(
            f"⚠ Position warning: {status.id} is in the middle of the context ({where}, danger zone "
            f"{zone[0]:.0%}–{zone[1]:.0%}); attention there is {attention(fraction):.0%} of the ends. "
            "Suggestion: restate it so it sits at the end."
        )
    else:
        print(f"{status.id}: at {fraction:.0%} — outside the danger zone {zone[0]:.0%}–{zone[1]:.0%}")
    return 0


# -- summarize-session -------------------------------------------------------------


#: What the summary shows of a decision (not its item id or time).
_DECISION_SHOWN = frozenset(("decision", "rationale", "affects_files", "round"))


def session_summary(view: MemoryView, session: Session) -> dict[str, Any]:
    """Goals, decisions, constraints, preferences, progress and the decayed items of a session."""
    memory = view.memory
    state = session.state()
    return {
        "session_id": view.session_id,
        "round": view.current_round,
        "usage_pct": round(state.usage_pct, 1) if state.window_known else None,
        "context_tokens": state.context_tokens,
        "usage_source": state.usage_source,
        "compactions": len(state.compactions),
        "goals": [n.text for n in memory.goals],
        "decisions": [{k: v for k, v in d.dump().items() if k in _DECISION_SHOWN} for d in memory.decisions],
        "constraints": [n.text for n in memory.constraints],
        "preferences": [n.text for n in memory.preferences],
        "findings": [n.text for n in memory.findings],
        "progress": [n.text for n in memory.progress],
        "decayed": [s.as_dict() for s in view.flagged],
    }


def summary_markdown(data: dict[str, Any]) -> str:
    lines = [
        f"# Session {one_line(data['session_id'], 600)}",
        "",
        f"Round {data['round']} · context "
        + (f"{data['usage_pct']}%" if data["usage_pct"] is not None else f"{data['context_tokens']:,} tokens, window unknown")
        + f" ({data['usage_source']}) · {data['compactions']} compactions",
    ]

    def section(title: str, bullets: list[str]) -> None:
        lines.extend(["", f"## {title}", ""])
        lines.extend(f"- {b}" for b in bullets) if bullets else lines.append("_none_")

    section("Goals", [one_line(t, 500) for t in data["goals"]])
    decisions = []
    for d in data["decisions"]:
        text = one_line(d["decision"], 500)
        if d["rationale"]:
            text += f" — because {one_line(d['rationale'], 300)}"
        if d["affects_files"]:
            text += " (files: " + ", ".join(f"`{one_line(f, 200)}`" for f in d["affects_files"]) + ")"
        decisions.append(text)
    section("Decisions", decisions)
    section("Constraints", [one_line(t, 500) for t in data["constraints"]])
    section("Preferences", [one_line(t, 500) for t in data["preferences"]])
    if data["findings"]:
        section("Findings", [one_line(t, 500) for t in data["findings"]])
    section("Progress", [one_line(t, 500) for t in data["progress"]])
    section(
        "Decayed items",
        [
            f"[{d['importance']}] {d['type']} `{d['id']}`: {one_line(d['content'], 300)} — "
            + ("out of context" if d["out_of_context"] else f"{d['rounds_since_reference']} rounds since reference")
            + f" — {d['recommendation']}"
            for d in data["decayed"]
        ],
    )
    return "\n".join(lines) + "\n"


def _run_summarize(args: argparse.Namespace) -> int:
    opened = _open(args)
    data = session_summary(opened.view, opened.session)
    if args.json:
        print_json(data)
    else:
        print(summary_markdown(data), end="")
    return 0


# -- tiers -----------------------------------------------------------------------


def _run_tiers(args: argparse.Namespace) -> int:
    opened = _open(args)
    tiers = opened.view.tiers
    if args.json:
        print_json(tiers)  # each TierSummary as its fields
        return 0
    for tier in tiers:
        print(f"{tier.name:<12} {tier.count:>6,} items {tier.tokens:>10,} tokens   {one_line(tier.location, 100)}")
        for label in tier.items:
            print(f"    {one_line(label, 110)}")
        if tier.problem:
            print(f"    ! {one_line(tier.problem, 200)}")
    return 0


# -- parsers -----------------------------------------------------------------------


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("detect-decay", help="list tracked items the agent is forgetting")
    add_session_args(p)
    p.add_argument("--current-round", type=int, metavar="N", help="judge decay as of round N (default: the last round)")
    _json_flag(p)
    p.set_defaults(func=_run_detect_decay)

    p = sub.add_parser("register", help="track a critical item (an existing id is updated)")
    add_session_args(p)
    p.add_argument("--id", required=True, help="the item's id (letters, digits, _ - . :)")
    p.add_argument("--type", required=True, help=", ".join(t.value for t in ItemType))
    p.add_argument("--content", required=True, help="what must not be forgotten")
    p.add_argument("--session-id", help="the session's id (instead of reading its transcript)")
    _json_flag(p)
    p.set_defaults(func=_run_register)

    p = sub.add_parser("dismiss", help="stop tracking an item (an extracted one is not extracted again)")
    add_session_args(p)
    p.add_argument("--id", required=True)
    p.add_argument("--session-id", help="the session's id (instead of reading its transcript)")
    _json_flag(p)
    p.set_defaults(func=_run_dismiss)

    p = sub.add_parser("check-position", help="is an item in the middle of the context, where attention is weakest?")
    add_session_args(p)
    p.add_argument("--id", required=True)
    p.add_argument("--position", type=int, help="a token position to check instead of the item's place in the live window")
    p.add_argument("--total", type=int, help="the total length the position is measured in")
    _json_flag(p)
    p.set_defaults(func=_run_check_position)

    p = sub.add_parser("summarize-session", help="goals, decisions, constraints, progress and decayed items as Markdown")
    add_session_args(p)
    _json_flag(p)
    p.set_defaults(func=_run_summarize)

    p = sub.add_parser("tiers", help="the four memory tiers: count, tokens, items")
    add_session_args(p)
    _json_flag(p)
    p.set_defaults(func=_run_tiers)
