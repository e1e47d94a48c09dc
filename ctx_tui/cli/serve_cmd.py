"""``ctx-tui serve [PATH] [--claude|--codex] [--demo] [--port N] [--host ADDR --allow-remote]``: the dashboard in a browser.

The dashboard is served with ``textual-serve``: each browser tab that opens the
page starts its own ``ctx-tui`` dashboard process, driven over a websocket. By
default it listens on the loopback address only (127.0.0.1): the page shows the
agent's transcript and its keys write your memory files, so nobody else on the
network may reach it. Another address needs ``--host ADDR --allow-remote``, and
the command says loudly what that exposes.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys
from pathlib import Path

from ctx_tui.actions.hook_install import ctx_tui_command
from ctx_tui.cli.common import add_session_args, session_path
from ctx_tui.errors import CtxError
from ctx_tui.plain_text import one_line

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8000


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def dashboard_command(args: argparse.Namespace) -> str:
    """The shell command each browser session runs: this ctx-tui's dashboard on the chosen session."""
    base = ctx_tui_command()
    if args.demo:
        if args.path or args.agent:
            raise CtxError("--demo serves the bundled session; it takes no PATH, --claude or --codex")
        return f"{base} --demo --speed {args.speed:g}"
    path = session_path(args)  # checked now: an error here beats a broken page
    return f"{base} {shlex.quote(str(path.resolve()))}"


def _warn_remote(host: str, port: int) -> None:
    bar = "!" * 78
    sys.stderr.write(
        f"\x1b[1;31m{bar}\n"
        f"WARNING: serving the ctx-tui dashboard on {one_line(host)}:{port}, not only on this machine.\n"
        "Anyone who can reach this address can read the agent's transcript and use every\n"
        "dashboard key (restate into the agent, approve writes to MEMORY.md, write handoffs).\n"
        "There is no login. Stop it with Ctrl+C when you are done.\n"
        f"{bar}\x1b[0m\n"
        if sys.stderr.isatty()
        else f"{bar}\nWARNING: serving the ctx-tui dashboard on {one_line(host)}:{port}, not only on this machine: "
        "anyone who can reach this address can read the agent's transcript and use every dashboard key "
        "(restate into the agent, approve writes to MEMORY.md, write handoffs). There is no login.\n"
        f"{bar}\n"
    )


def _run(args: argparse.Namespace) -> int:
    host: str = args.host
    if not is_loopback(host) and not args.allow_remote:
        raise CtxError(
            f"--host {one_line(host)} would serve the dashboard beyond this machine (the transcript, and keys that "
            "write your memory files, with no login); add --allow-remote to do it anyway"
        )
    if not 0 < args.port < 65536:
        raise CtxError(f"--port must be 1-65535, got {args.port}")
    if args.speed <= 0:
        raise CtxError(f"--speed must be a positive number, got {args.speed}")
    command = dashboard_command(args)
    from ctx_tui.ui.serve import serve  # textual-serve and aiohttp load only when serving

    if not is_loopback(host):
        _warn_remote(host, args.port)
    shown_host = "localhost" if host in (LOOPBACK, "localhost") else host
    url = args.public_url or f"http://{shown_host}:{args.port}"
    print(f"ctx-tui: serving the dashboard on {one_line(url)} (Ctrl+C to stop)", flush=True)
    serve(command, host, args.port, url.rstrip("/"))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve the dashboard to a browser (localhost only by default)", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_session_args(parser)
    parser.add_argument("--demo", action="store_true", help="serve the bundled demo session")
    parser.add_argument("--speed", type=float, default=1.0, help="demo replay speed (default 1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})")
    parser.add_argument("--host", default=LOOPBACK, help=f"address to listen on (default {LOOPBACK}: this machine only)")
    parser.add_argument("--allow-remote", action="store_true", help="allow --host to be an address other machines reach")
    parser.add_argument("--public-url", help="the URL browsers use to reach it (behind a proxy; default http://HOST:PORT)")
    parser.set_defaults(func=_run)
