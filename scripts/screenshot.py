"""Export an SVG screenshot of the dashboard on a transcript (used for docs/screenshot.svg).

``python scripts/screenshot.py OUT.svg [TRANSCRIPT] [--size 160x48]``; without a
transcript it shows the whole bundled demo session. The clock is frozen so the
same input gives the same picture.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from datetime import datetime
from pathlib import Path

from ctx_tui.config import load_config
from ctx_tui.demo.project import prepare_demo_project
from ctx_tui.demo.replay import demo_transcript
from ctx_tui.ui.app import DashboardApp

FROZEN = datetime(2026, 3, 14, 9, 42, 0)


async def export_screenshot(transcript: Path, project: Path, out: Path, size: tuple[int, int]) -> Path:
    """Render the dashboard once (no following) at ``size`` and write it to ``out`` as SVG."""
    app = DashboardApp(transcript, project, load_config(project).config, follow=False, clock=lambda: FROZEN)
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        out.write_text(app.export_screenshot(title="ctx-tui"), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/screenshot.py")
    parser.add_argument("out", type=Path)
    parser.add_argument("transcript", type=Path, nargs="?")
    parser.add_argument("--size", default="160x48", help="COLUMNSxROWS")
    args = parser.parse_args(argv)
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory(prefix="ctx-tui-shot-") as tmp:
        if args.transcript is None:
            project = Path(tmp)
            transcript = prepare_demo_project(project)
            transcript.write_text(demo_transcript(), encoding="utf-8")
        else:
            transcript, project = args.transcript, Path.cwd()
        asyncio.run(export_screenshot(transcript, project, args.out, (cols, rows)))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
