"""What every command shares: the session arguments and how a session is opened.

``add_session_args(parser)`` gives a command the same ``[PATH] [--claude |
--codex]`` arguments; ``open_session(args)`` resolves them (an explicit path,
else the newest session of the current directory), checks the file and returns
a polled :class:`~ctx_tui.window.Session`. Every failure is a
:class:`~ctx_tui.errors.CtxError` with one line the dispatcher prints.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctx_tui.errors import CtxError
from ctx_tui.paths import config_files
from ctx_tui.plain_text import json_text
from ctx_tui.storage import read_regular

if TYPE_CHECKING:  # the config model and the readers load only when a command uses them
    from ctx_tui.config import Config
    from ctx_tui.window import Session


def project_root() -> Path:
    """The project a command works on: the current working directory."""
    return Path.cwd()


def add_session_args(parser: argparse.ArgumentParser, path_help: str | None = None, *, option: str | None = None) -> None:
    """``[PATH] [--claude | --codex | --gemini | --pi]``: which transcript the command reads.

    With ``option`` (e.g. ``"--transcript"``) the path is that option instead of
    a positional argument, for commands whose positional arguments are ids.
    """
    names = [option] if option else ["path"]
    extra: dict[str, Any] = {"dest": "path"} if option else {"nargs": "?"}
    parser.add_argument(
        *names,
        **extra,
        type=Path,
        metavar="PATH",
        help=path_help or "transcript file (default: the newest session of the current directory)",
    )
    agent = parser.add_mutually_exclusive_group()
    from ctx_tui.transcripts.discover import CLAUDE, CODEX, GEMINI, PI  # here: `api` never builds these arguments

    agent.add_argument("--claude", dest="agent", action="store_const", const=CLAUDE, help="only look for Claude Code sessions")
    agent.add_argument("--codex", dest="agent", action="store_const", const=CODEX, help="only look for Codex sessions")
    agent.add_argument("--gemini", dest="agent", action="store_const", const=GEMINI, help="only look for Gemini CLI sessions")
    agent.add_argument("--pi", dest="agent", action="store_const", const=PI, help="only look for pi sessions")


def session_path(args: argparse.Namespace) -> Path:
    """The transcript the arguments name, checked to be a readable file."""
    path: Path | None = getattr(args, "path", None)
    if path is None:
        from ctx_tui.transcripts.discover import find_session

        return find_session(project_root(), getattr(args, "agent", None))
    path = path.expanduser()
    if not path.exists():
        raise CtxError(f"{path}: no such file")
    if path.is_dir():
        raise CtxError(f"{path}: is a folder, not a transcript file")
    if not path.is_file():
        raise CtxError(f"{path}: not a regular file")
    if not os.access(path, os.R_OK):
        raise CtxError(f"{path}: not readable (permission denied)")
    return path


def load_project_config() -> Config:
    from ctx_tui.config import load_config

    return load_config(project_root()).config


def project_config_or_defaults() -> Config | None:
    """The project's config, or None when no config file exists (the defaults, without building the model)."""
    return load_project_config() if config_files(project_root()) else None


def open_session(args: argparse.Namespace, config: Config | None = None) -> Session:
    """Open the session the arguments name and read it once."""
    from ctx_tui.window import Session

    path = session_path(args)
    session = Session(path, config or load_project_config())
    try:
        session.poll()
    except OSError as exc:
        raise CtxError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return session


def read_input(path: Path) -> str:
    """The text of ``path``, or of stdin for ``-``; bytes that are not UTF-8 become U+FFFD."""
    if str(path) == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    try:
        return read_regular(path).decode("utf-8", errors="replace")
    except OSError as exc:
        raise CtxError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _jsonable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return str(obj)


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON (dataclasses, enums, paths, pydantic models allowed)."""
    sys.stdout.write(json_text(obj, default=_jsonable, indent=2) + "\n")
