"""ctx-tui hook ...: the Claude Code hook entry points and their installer.

hook user-prompt-submit | session-start | pre-compact read the hook's JSON on
stdin and print the hook's answer (or nothing); they always exit 0 and never
write to stderr, whatever happens (errors go to .ctx/hook-errors.log).
hook install [--print] wires them into .claude/settings.json.
"""

from __future__ import annotations

import os
import sys

from ctx_tui.actions import hooks
from ctx_tui.actions.hook_runtime import HOOK_BUDGET_S, log_hook_error, run_hook

TYPE_CHECKING = False  # typing is not imported at run time (a hook answers without it)

if TYPE_CHECKING:
    import argparse

    from ctx_tui.actions.hook_runtime import Handler

EVENT_HOOKS: dict[str, tuple[Handler, str]] = {
    "user-prompt-submit": (hooks.user_prompt_submit, "deliver queued restatements as additionalContext"),
    "session-start": (hooks.session_start, "after /compact: re-inject goals, constraints, preferences"),
    "pre-compact": (hooks.pre_compact, "audit the compaction and save a summary into session memory"),
}


def _read_stdin() -> bytes:
    stdin = sys.stdin
    if stdin is None or stdin.isatty():
        return b""
    return stdin.buffer.read()


def _run_event(args: argparse.Namespace) -> int:
    return run_event(args.hook_name, getattr(args, "job", None))


def run_event(name: str, job: str | None = None) -> int:
    """Run hook ``name`` (``deferred`` runs ``job``) on stdin; always 0.

    ``ctx-tui hook EVENT`` comes here without argparse (cli.main): Claude Code
    waits for it on every prompt.
    """
    try:
        cwd = os.getcwd()
    except OSError:  # the folder Claude Code started in was removed; the hook's stdin names the project
        cwd = os.curdir
    try:
        handler = hooks.deferred_handler(job or "") if name == "deferred" else EVENT_HOOKS[name][0]
        # a detached deferred job may take its time; a hook Claude Code waits for may not
        output = run_hook(name, handler, _read_stdin(), cwd, budget=None if name == "deferred" else HOOK_BUDGET_S)
        if output:
            sys.stdout.write(output + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # reading stdin or writing stdout failed: still exit 0, silently
        log_hook_error(cwd, name, exc)
        _silence_stdout()
    return 0


def _silence_stdout() -> None:
    """Point stdout at /dev/null: a closed pipe would fail again when Python flushes it at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _install(args: argparse.Namespace) -> int:
    from ctx_tui.actions.hook_install import install_hooks, settings_block  # the hooks themselves need neither

    if args.print_only:
        import json

        print(json.dumps(settings_block(), indent=2))
        return 0
    from pathlib import Path

    result = install_hooks(Path.cwd())
    if not result.changed:
        print(f"ctx-tui hooks already installed in {result.path}")
        return 0
    for event in result.added:
        print(f"added {event} hook")
    for event in result.updated:
        print(f"updated {event} hook command")
    print(f"wrote {result.path}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    import argparse  # not at the top: cli.main runs a hook event without argparse

    parser = subparsers.add_parser(
        "hook",
        help="Claude Code hooks (read the hook JSON on stdin) and their installer",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    hook_sub = parser.add_subparsers(dest="hook_command", metavar="HOOK", required=True)
    for name, (_, help_text) in EVENT_HOOKS.items():
        hook_sub.add_parser(name, help=help_text).set_defaults(func=_run_event, hook_name=name)
    deferred = hook_sub.add_parser(
        "deferred", help="internal: the slow part of a hook on a large transcript, started detached by the hook"
    )
    deferred.add_argument("job", choices=hooks.DEFERRED_JOBS)
    deferred.set_defaults(func=_run_event, hook_name="deferred")
    install = hook_sub.add_parser("install", help="wire the hooks into .claude/settings.json")
    install.add_argument(
        "--print", dest="print_only", action="store_true", help="print the settings block; change nothing"
    )
    install.set_defaults(func=_install)
