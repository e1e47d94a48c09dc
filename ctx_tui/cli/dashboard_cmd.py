"""``ctx-tui [PATH] [--claude|--codex|--gemini|--pi] [--demo [--speed X]]``: open the live dashboard."""

from __future__ import annotations

import argparse
import tempfile
import threading
from pathlib import Path

from ctx_tui.cli.common import add_session_args, project_root, session_path
from ctx_tui.demo.project import prepare_demo_project
from ctx_tui.demo.replay import demo_transcript, plan, replay
from ctx_tui.errors import CtxError
from ctx_tui.paths import config_files


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctx-tui",
        description="Open the live dashboard on a transcript (default: the newest session of this directory). "
        "Run `ctx-tui --help` for the other commands.",
    )
    add_session_args(parser)
    parser.add_argument("--demo", action="store_true", help="replay a bundled session live (no agent needed)")
    parser.add_argument("--speed", type=float, default=1.0, help="demo replay speed (2 = twice as fast; default 1)")
    return parser


def run_dashboard(argv: list[str]) -> int:
    """Parse the dashboard's arguments and run it until the user quits; returns the exit code."""
    args = build_parser().parse_args(argv)
    if args.speed <= 0:
        raise CtxError(f"--speed must be a positive number, got {args.speed}")
    if args.demo:
        if args.path or args.agent:
            raise CtxError("--demo replays the bundled session; it takes no PATH, --claude or --codex")
        return _run_demo(args.speed)
    if args.path is None and not args.agent:
        # A first run on a machine with no agent session shows the bundled demo
        # instead of an error; an explicit PATH or --claude/--codex still fails.
        try:
            path = session_path(args)
        except CtxError as exc:
            return _run_demo(args.speed, notice=f"{exc}. Showing the bundled demo session instead.")
        return _run(path, project_root())
    return _run(session_path(args), project_root())


def _run(path: Path, project: Path, notice: str | None = None) -> int:
    from ctx_tui import tokens
    from ctx_tui.heap import use_one_arena
    from ctx_tui.ui.app import DashboardApp  # Textual loads only when the dashboard runs

    use_one_arena()  # before any thread starts: its reads' leftovers in one C heap, not one per thread

    config = None  # without a config file the app builds the defaults after the first figure
    if config_files(project):
        from ctx_tui.config import load_config

        config = load_config(project).config
    # The same cl100k counts from the piece table, without tiktoken's encoder: ~28 MiB
    # less for as long as the dashboard runs; what it learnt is kept for the next start.
    tokens.count_by_pieces()
    try:
        DashboardApp(path, project, config, notice=notice).run()
    finally:
        tokens.end_piece_counts()
    return 0


def _run_demo(speed: float, notice: str | None = None) -> int:
    from ctx_tui.heap import use_one_arena

    use_one_arena()  # before the replay thread starts (see _run)
    with tempfile.TemporaryDirectory(prefix="ctx-tui-demo-") as tmp:
        project = Path(tmp)
        target = prepare_demo_project(project)
        stop = threading.Event()
        steps = plan(demo_transcript(), speed)
        writer = threading.Thread(target=replay, args=(steps, target, stop), name="demo replay", daemon=True)
        writer.start()
        try:
            return _run(target, project, notice)
        finally:
            stop.set()
            writer.join(timeout=2)
