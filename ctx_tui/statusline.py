"""``ctx-tui statusline``: one line for Claude Code's status bar, fast on any transcript.

Claude Code runs the ``statusLine`` command after every message with a JSON
object on stdin (``session_id``, ``transcript_path``, ``cwd``, ``model``,
``workspace``, and in current versions ``context_window`` with
``context_window_size``, ``current_usage`` and ``used_percentage``; every field
optional here, unknown ones ignored) and shows the first line it prints.

What the line says, most important first (parts that do not fit the width are
shortened, then dropped, from the least important):

1. usage: ``ctx 47.6% 95.2k/200k`` and where the figure comes from. Claude
   Code's own figures are authoritative (it knows 1M windows and the tool
   definitions' overhead) and are recorded in the user cache
   (:func:`ctx_tui.usercache.record_claude_code_report`) so that the dashboard
   and ``stats`` use the same window; without them the transcript's last
   reported usage (read from its tail, :mod:`ctx_tui.transcripts.tail`), else
   an estimate (``~``);
2. a handoff hint once usage passes ``window.handoff_threshold``;
3. high-importance tracked items that are decayed or out of context, as the
   last analysis of the session recorded them (the dashboard, ``detect-decay``,
   the hooks' jobs): their count and the riskiest one, shortened, said to be
   "at last check". The status line does not analyse the transcript itself:
   finding references costs the analysis 0.5 s CPU on a 0.8 MB session and
   grows with it (``detect-decay``), 20x and more a Python start. Items
   referenced since the check are not counted (their references are
   recorded); items that decayed since appear after the next analysis;
4. promotions waiting for approval.

Speed: one small cache file per session (user cache dir) holds the transcript's
byte offset and identity (device, inode, size, mtime) with the figure read so
far, and the digest of the session memory and config files it summarised; a
call stats those files and reads only the bytes appended since. A file that
shrank, was replaced, or whose bytes before the offset changed is read cold
(from its tail). When the session memory file changed, its summary comes from
the notes record ctx-tui writes beside it (:mod:`ctx_tui.memory.session_notes`,
trusted only while the YAML has the bytes it was written for); YAML is
imported only for a file edited by hand or a changed config file. Nothing else
is imported: no pydantic, no Rich, no Textual, not even ``typing``.

Whatever goes wrong, the command prints a short neutral line and exits 0: a
status line must never break the status bar.

Over 400 lines: the whole status line in one module, because it runs on every Claude Code
prompt and imports as little as it can (each split module is one more import).
"""

from __future__ import annotations

import os
import stat
import sys
import time

TYPE_CHECKING = False  # typing is not imported at run time (~4 ms): ctx-tui statusline imports this module
if TYPE_CHECKING:
    from typing import Any

from ctx_tui import json_light, usercache
from ctx_tui.model_windows import table_window
from ctx_tui.plain_text import one_line
from ctx_tui.transcripts.tail import FORMAT_VALUES, USAGE_WINDOWS_CAP, TailScan, follow_tail

NEUTRAL = "ctx-tui"
STDIN_LIMIT = 1 << 20
CACHE_VERSION = 1
CACHE_DIR = "statusline"
DEFAULT_HANDOFF = 0.8
DEFAULT_WIDTH = 100
#: memory.session_notes.status_summary of no session memory (not imported for it).
NO_MEMORY = {"pending": 0, "flagged": 0, "top": None}
SEPARATOR = " · "
#: ANSI SGR codes per role.
COLORS = {"ok": "32", "warn": "33", "alert": "1;31", "dim": "2", "item": "33", "pending": "36"}


# -- input ------------------------------------------------------------------------------
def parse_input(raw: bytes) -> dict[str, Any]:
    """The statusline JSON as a dict; anything else (empty, not JSON, not an object) is ``{}``."""
    try:
        data = json_light.loads(raw.decode("utf-8", "replace")) if raw.strip() else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value and "\x00" not in value else None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value == value and 0 <= value < 1e12 else None  # NaN, negatives, absurd sizes


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def claude_code_figures(data: dict[str, Any]) -> tuple[int | None, int | None, float | None]:
    """(window size, context tokens, used %) as Claude Code states them; None for what it does not state.

    Context tokens are ``input + cache_creation + cache_read`` of ``current_usage``
    (output tokens are not context), the same rule as the transcript's.
    """
    cw = _dict(data.get("context_window"))
    size = _num(cw.get("context_window_size"))
    window = int(size) if size and size >= 1 else None
    usage = cw.get("current_usage")
    tokens = None
    if isinstance(usage, dict):
        parts = [_num(usage.get(k)) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
        if any(p is not None for p in parts):
            tokens = int(sum(p or 0 for p in parts))
    pct = _num(cw.get("used_percentage"))
    if pct is not None and pct > 100_000:
        pct = None
    return window, tokens, pct


def project_of(data: dict[str, Any]) -> str:
    workspace = _dict(data.get("workspace"))
    for candidate in (workspace.get("project_dir"), workspace.get("current_dir"), data.get("cwd")):
        path = _str(candidate)
        if path and os.path.isdir(path):
            return path
    return os.getcwd()


# -- session memory and config, summarised when they change ---------------------------------
def _file_stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _load_yaml(path: str) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, encoding="utf-8", errors="replace") as fh:
        return yaml.load(fh.read(4 << 20), Loader=loader)  # noqa: S506 - a safe loader


def summarise_config(layers: list[Any]) -> dict[str, Any]:
    """``window.handoff_threshold`` and ``window.sizes`` from the config layers (later wins); bad values ignored.

    The full validation (and its error messages) is ``ctx-tui config``'s job; a
    status line shows what it can.
    """
    threshold = DEFAULT_HANDOFF
    sizes: dict[str, int] = {}
    for layer in layers:
        window = _dict(_dict(layer).get("window"))
        value = _num(window.get("handoff_threshold"))
        if value is not None and 0 < value <= 1:
            threshold = value
        for model, size in _dict(window.get("sizes")).items():
            if isinstance(model, str) and isinstance(size, int) and not isinstance(size, bool) and size > 0:
                sizes[model] = size
    return {"handoff_threshold": threshold, "sizes": sizes}


def _cached_summary(cached: Any, stamp: Any, build: Any) -> dict[str, Any]:
    if isinstance(cached, dict) and cached.get("stamp") == stamp and isinstance(cached.get("summary"), dict):
        return cached
    return {"stamp": stamp, "summary": build()}


def _memory_entry(project: str, session_id: str | None, cached: Any) -> dict[str, Any]:
    if not session_id:
        return {"stamp": None, "summary": dict(NO_MEMORY)}
    path = os.path.join(project, ".ctx", "sessions", usercache.safe_stem(session_id) + ".yaml")
    stamp = _file_stamp(path)

    def build() -> dict[str, Any]:
        if stamp is None:
            return dict(NO_MEMORY)
        from ctx_tui.memory.session_notes import read_status, status_summary

        recorded = read_status(path)  # written by ctx-tui: its notes record, no YAML (nor pathlib)
        if recorded is not None:
            return recorded
        try:
            return status_summary(_load_yaml(path))
        except Exception:  # a damaged file: the dashboard says why; the status line shows nothing of it
            return dict(NO_MEMORY)

    return _cached_summary(cached, [path, stamp], build)


def _config_paths(project: str) -> list[str]:
    user = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return [os.path.join(user, "ctx-tui", "config.yaml"), os.path.join(project, ".ctx", "config.yaml")]


def _config_entry(project: str, cached: Any) -> dict[str, Any]:
    paths = _config_paths(project)
    stamps = [_file_stamp(p) for p in paths]
    stamp = [[p, s] for p, s in zip(paths, stamps)]

    def build() -> dict[str, Any]:
        layers = []
        for path, st in zip(paths, stamps):
            if st is not None:
                try:
                    layers.append(_load_yaml(path))
                except Exception:  # noqa: BLE001 - an invalid config: defaults (`ctx-tui config` explains)
                    continue
        return summarise_config(layers)

    return _cached_summary(cached, stamp, build)


# -- the status ---------------------------------------------------------------------------
def transcript_window(scan: TailScan, sizes: dict[str, int]) -> int:
    """The window ``stats`` gives the transcript: config ``window.sizes``, stated, else the model table (0: unknown)."""
    if scan.model and scan.model in sizes:
        return sizes[scan.model]
    return scan.window or table_window(scan.model, FORMAT_VALUES.get(scan.format or ""), scan.peak)


def compute(data: dict[str, Any], now: float | None = None) -> dict[str, Any]:
    """Everything the line shows, as a dict (also ``statusline --json``)."""
    now = time.time() if now is None else now
    session_id = _str(data.get("session_id"))
    transcript = _str(data.get("transcript_path"))
    project = project_of(data)
    cc_window, cc_tokens, cc_pct = claude_code_figures(data)
    key = usercache.file_key(f"{transcript or ''}\x00{session_id or ''}\x00{project}")
    cache_path = os.path.join(usercache.cache_dir(), CACHE_DIR, key + ".json")
    cache = usercache.read_json(cache_path)
    cache = cache if isinstance(cache, dict) and cache.get("v") == CACHE_VERSION else {}
    new_cache: dict[str, Any] = {"v": CACHE_VERSION}

    scan: TailScan | None = None
    if transcript and cc_tokens is None:
        try:
            scan, new_cache["transcript"] = follow_tail(transcript, cache.get("transcript"))
        except OSError:
            scan = None
    elif transcript and isinstance(cache.get("transcript"), dict):
        new_cache["transcript"] = cache["transcript"]  # kept for the calls that will need it
    session_id = session_id or (scan.session_id if scan else None)
    new_cache["config"] = _config_entry(project, cache.get("config"))
    new_cache["memory"] = _memory_entry(project, session_id, cache.get("memory"))
    config = new_cache["config"]["summary"]
    memory = new_cache["memory"]["summary"]
    model_info = _dict(data.get("model"))
    model = _str(model_info.get("id")) or (scan.model if scan else None)

    tokens: int | None
    window: int | None
    if cc_tokens is not None and cc_window:
        tokens, window, source = cc_tokens, cc_window, "Claude Code"
    elif cc_pct is not None and cc_window:
        tokens, window, source = round(cc_window * cc_pct / 100), cc_window, "Claude Code"
    elif scan is not None and scan.format is not None and (scan.usage_seen or scan.compacted):
        tokens = scan.tokens
        window = cc_window or transcript_window(scan, config["sizes"])
        source = "estimated" if scan.estimated else "transcript"
        if window and tokens > USAGE_WINDOWS_CAP * window:  # implausible for this model, as stats judges it
            tokens, source = None, "unknown"
    else:
        tokens, window, source = None, cc_window, "unknown"
    if cc_window and session_id:
        report = {
            "context_window_size": cc_window,
            "context_tokens": tokens if source == "Claude Code" else None,
            "used_percentage": cc_pct,
            "model": model,
            "transcript_path": transcript,
            "recorded_at": int(now),
        }
        try:
            usercache.record_claude_code_report(session_id, report)
        except OSError:
            pass
    if new_cache != cache:
        try:
            usercache.write_json(cache_path, new_cache)
        except OSError:
            pass
    pct = 100.0 * tokens / window if tokens is not None and window else None
    return {
        "session_id": session_id,
        "model": model,
        "model_name": _str(model_info.get("display_name")),
        "context_tokens": tokens,
        "context_window": window,
        "usage_pct": None if pct is None else round(pct, 2),
        "source": source,
        "estimated": source == "estimated",
        "handoff_threshold": config["handoff_threshold"],
        "handoff_suggested": pct is not None and pct >= 100 * config["handoff_threshold"],
        "decayed_high": memory["flagged"],
        "top_decayed": memory["top"],
        "pending_promotions": memory["pending"],
    }


# -- the line -------------------------------------------------------------------------------
def human_tokens(n: int) -> str:
    """``95.2k``, ``200k``, ``1M``, ``1.2M``, ``512``."""
    if n >= 1_000_000:
        text, unit = f"{n / 1_000_000:.1f}", "M"
    elif n >= 1_000:
        text, unit = f"{n / 1_000:.1f}", "k"
    else:
        return str(n)
    return (text[:-2] if text.endswith(".0") else text) + unit


def _parts(status: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(colour role, variants from the longest to the shortest) per part, most important first."""
    parts: list[tuple[str, list[str]]] = []
    pct = status["usage_pct"]
    if pct is None and status["context_tokens"] is not None:
        mark = "~" if status["estimated"] else ""
        tokens = f"ctx {mark}{human_tokens(status['context_tokens'])}"
        parts.append(("dim", [f"{tokens} (window unknown: set window.sizes)", f"{tokens} (window?)", tokens]))
    elif pct is None:
        parts.append(("dim", ["ctx: no usage yet", "ctx: –"]))
    else:
        mark = "~" if status["estimated"] else ""
        source = {"Claude Code": "reported", "transcript": "reported", "estimated": "estimated"}.get(status["source"], "")
        tokens = f"{mark}{human_tokens(status['context_tokens'])}/{human_tokens(status['context_window'])}"
        role = "alert" if status["handoff_suggested"] else ("warn" if pct >= 50 else "ok")
        parts.append((role, [f"ctx {mark}{pct:.1f}% {tokens} {source}", f"ctx {mark}{pct:.1f}% {tokens}", f"ctx {mark}{pct:.0f}%"]))
    if status["handoff_suggested"]:
        parts.append(("alert", ["handoff suggested: ctx-tui handoff", "handoff!"]))
    flagged = status["decayed_high"]
    if flagged:
        top = one_line(status["top_decayed"] or "")
        # as the last analysis recorded them: the status line does not analyse (see the module doc)
        parts.append(("item", [f"{flagged} fading at last check: {top}", f"{flagged} fading at last check"]))
    pending = status["pending_promotions"]
    if pending:
        noun = "promotion" if pending == 1 else "promotions"
        parts.append(("pending", [f"{pending} {noun} pending", f"{pending} pending"]))
    return parts


def render(status: dict[str, Any], width: int = DEFAULT_WIDTH, color: bool = True) -> str:
    """One line at most ``width`` cells (characters) wide, plain or with ANSI colours."""
    width = max(8, width)
    parts = _parts(status)
    chosen = [0] * len(parts)
    keep = len(parts)

    def length() -> int:
        texts = [parts[i][1][chosen[i]] for i in range(keep)]
        return sum(map(len, texts)) + len(SEPARATOR) * (keep - 1)

    # Shorten from the least important part, then drop it; the usage part is never dropped.
    i = keep - 1
    while length() > width and i >= 0:
        role, variants = parts[i]
        if role == "item" and chosen[i] == 0:  # first cut the fading item's text, keeping 12 characters of it
            room = width - (length() - len(variants[0]))
            if room >= len(variants[1]) + len(": ") + 12:
                variants[0] = one_line(variants[0], room)
                continue
        if chosen[i] < len(variants) - 1:
            chosen[i] += 1
        elif i > 0:
            keep -= 1
            i -= 1
        else:
            break
    texts = [one_line(parts[j][1][chosen[j]], width) for j in range(keep)]
    if not color:
        return one_line(SEPARATOR.join(texts), width)
    sep = f"\x1b[{COLORS['dim']}m{SEPARATOR}\x1b[0m"
    return sep.join(f"\x1b[{COLORS[parts[j][0]]}m{texts[j]}\x1b[0m" for j in range(keep))


# -- the command ------------------------------------------------------------------------------
def _terminal_width() -> int:
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    for fd in (2, 0, 1):
        try:
            return os.get_terminal_size(fd).columns
        except OSError:
            continue
    return DEFAULT_WIDTH


USAGE = """usage: ctx-tui statusline [--no-color] [--width N] [--json]
       ctx-tui statusline install [--print] [--user] [--force]

Reads Claude Code's statusline JSON on stdin and prints one line: context usage,
fading high-importance items, pending promotions, a handoff hint.
  --no-color   plain text (also when NO_COLOR is set)
  --width N    fit the line in N columns (default: $COLUMNS, the terminal, or 100)
  --json       print what the line shows as a JSON object
"""


def _read_stdin() -> bytes:
    stdin = sys.stdin
    if stdin is None or stdin.isatty():
        return b""
    return stdin.buffer.read(STDIN_LIMIT)


def main(argv: list[str]) -> int:
    """Run ``ctx-tui statusline ARGV``; always returns 0."""
    try:
        if "-h" in argv or "--help" in argv:
            sys.stdout.write(USAGE)
            return 0
        color = "--no-color" not in argv and not os.environ.get("NO_COLOR")
        width = _terminal_width()
        if "--width" in argv:
            at = argv.index("--width")
            value = argv[at + 1] if at + 1 < len(argv) else ""
            width = int(value) if value.isdigit() and int(value) > 0 else width
        status = compute(parse_input(_read_stdin()))
        if "--json" in argv:
            import json  # its spaced text, as before; json_light writes compact text

            line = json.dumps(status)  # ASCII: no control, C1 or bidi character leaves raw
        else:
            line = render(status, width, color)
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    except BaseException as exc:  # noqa: BLE001 - never break the status bar
        if os.environ.get("CTX_TUI_DEBUG"):
            raise
        _neutral(exc)
    return 0


def _neutral(exc: BaseException) -> None:
    try:
        sys.stdout.write(NEUTRAL + "\n")
        sys.stdout.flush()
    except BaseException:  # noqa: BLE001 - stdout is gone: nothing more to do
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        except OSError:
            pass
