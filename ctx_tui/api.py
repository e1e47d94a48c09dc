"""The service contract ``ctx-tui api``: one JSON request in, one JSON response out (docs/compression.md, "The service contract").

Request::

    {"action": "collect|compress|inject|clear", "context": ...,
     "options": {"maxLength": 8192, "compressionRatio": 0.5, "strategy": "semantic",
                 "sources": ["session", "tools"], "sessionId": "...",
                 "transcript": "path (collect)", "query": "text (inject)"}}

Response: ``{"success": true, "context": "...", "metadata": {..., "duration", "action"}}``;
a bad request gets ``{"success": false, "error": "<field>: <problem>", "context": "",
"metadata": {"duration", "action"}}``. Lengths are tokens (``ctx_tui.tokens``).
:func:`handle` never raises. See docs/compression.md for every action.

Cached state (what ``clear`` drops): ``.ctx/cache/<key>.json`` holds the last
``collect``, ``compress`` and ``inject`` result of a session, keyed by
``options.sessionId``, else the transcript's file name without ``.jsonl``,
else ``default``. ``inject`` without ``context`` uses the cached ``collect``.
Session memory (``.ctx/sessions``), MEMORY.md and the audit log are never
touched by ``clear``.

Over 400 lines: the request parser and the four actions of one contract, each short, with
the start-up imports (:func:`_load_modules`) decided in one place.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctx_tui import audit
from ctx_tui.compress.core import STRATEGIES, compress_text
from ctx_tui.compress.facts import ItemLike
from ctx_tui.transcripts.render import SOURCES, parse_sections, render_entries
from ctx_tui.errors import CtxError
from ctx_tui.paths import config_files, safe_name, state_dir
from ctx_tui.storage import locked, read_regular, write_atomic
from ctx_tui.tokens import count_tokens
from ctx_tui.tokens import prepare as prepare_tokens
from ctx_tui.transcripts.model import Entry, Format

if TYPE_CHECKING:
    from ctx_tui.config import Config

# What only some actions need (the session and config models, retrieval, the
# readers) is imported where it is used: a fresh process answering one
# ``compress`` loads neither pydantic nor the transcript readers.

ACTIONS = ("collect", "compress", "inject", "clear")
DEFAULT_MAX_LENGTH = 8192
DEFAULT_RATIO = 0.5
DEFAULT_STRATEGY = "semantic"
OPTIONS = ("maxLength", "compressionRatio", "strategy", "sources", "sessionId", "transcript", "query")
TOP_LEVEL = ("action", "context", "options")
CACHE_DIR = "cache"
DEFAULT_KEY = "default"
#: The retrieved block may take at most this share of an injected context.
INJECT_MEMORY_SHARE = 0.5
#: Words of the context's end used as the retrieval query when none is given.
QUERY_WORDS = 60


class RequestError(Exception):
    """A request the contract rejects; the message starts with the field it names."""


@dataclass(slots=True)
class Request:
    action: str
    context: str | list[Any] | None
    max_length: int = DEFAULT_MAX_LENGTH
    ratio: float = DEFAULT_RATIO
    strategy: str = DEFAULT_STRATEGY
    sources: tuple[str, ...] = SOURCES
    session_id: str | None = None
    transcript: str | None = None
    query: str | None = None


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RequestError(f"options.{name}: must be a number, got {json.dumps(value)}")
    return float(value)


def parse_request(data: Any) -> Request:
    """Check a decoded request against the contract and fill the defaults."""
    if not isinstance(data, dict):
        raise RequestError(f"request: must be a JSON object, got {type(data).__name__}")
    for key in data:
        if key not in TOP_LEVEL:
            raise RequestError(f"{key}: unknown field; the request has {', '.join(TOP_LEVEL)}")
    action = data.get("action")
    if action is None:
        raise RequestError(f"action: required, one of {', '.join(ACTIONS)}")
    if action not in ACTIONS:
        raise RequestError(f"action: unknown action {json.dumps(action)}; one of {', '.join(ACTIONS)}")
    context = data.get("context")
    if context is not None and not isinstance(context, (str, list)):
        raise RequestError("context: must be a string or a list of {role, content} messages")
    options = data.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RequestError(f"options: must be an object, got {type(options).__name__}")
    for key in options:
        if key not in OPTIONS:
            raise RequestError(f"options.{key}: unknown option; known: {', '.join(OPTIONS)}")
    req = Request(action=action, context=context)
    if "maxLength" in options:
        value = _number("maxLength", options["maxLength"])
        if value != int(value) or value < 1:
            raise RequestError(f"options.maxLength: must be a positive whole number of tokens, got {options['maxLength']}")
        req.max_length = int(value)
    if "compressionRatio" in options:
        value = _number("compressionRatio", options["compressionRatio"])
        if not (0.0 < value <= 1.0):
            raise RequestError(f"options.compressionRatio: must be greater than 0 and at most 1, got {options['compressionRatio']}")
        req.ratio = value
    if "strategy" in options:
        if options["strategy"] not in STRATEGIES:
            raise RequestError(f"options.strategy: unknown strategy {json.dumps(options['strategy'])}; one of {', '.join(STRATEGIES)}")
        req.strategy = options["strategy"]
    if "sources" in options:
        sources = options["sources"]
        if not isinstance(sources, list) or not sources or any(s not in SOURCES for s in sources):
            raise RequestError(f"options.sources: must be a non-empty list of {', '.join(map(json.dumps, SOURCES))}, got {json.dumps(sources)}")
        req.sources = tuple(dict.fromkeys(sources))
    for name in ("sessionId", "transcript", "query"):
        if name in options and options[name] is not None:
            if not isinstance(options[name], str) or not options[name].strip():
                raise RequestError(f"options.{name}: must be a non-empty string")
    req.session_id = options.get("sessionId")
    req.transcript = options.get("transcript")
    req.query = options.get("query")
    return req


# -- the cache ---------------------------------------------------------------


def cache_path(project: Path, key: str) -> Path:
    return state_dir(project) / CACHE_DIR / f"{safe_name(key, DEFAULT_KEY)}.json"


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_regular(path).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}  # a damaged cache is only a cache: start again
    return data if isinstance(data, dict) else {}


def _remember(project: Path, key: str, action: str, context: str, metadata: dict[str, Any]) -> None:
    path = cache_path(project, key)
    with locked(path):
        data = _read_cache(path)
        entries = data.get("entries")
        if not isinstance(entries, dict):
            entries = {}
        entries[action] = {"context": context, "metadata": metadata}
        data = {
            "sessionId": key,
            "updatedAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "entries": entries,
        }
        write_atomic(path, json.dumps(data, ensure_ascii=False))


def _current_key(project: Path) -> str:
    """The current session's cache key: the newest transcript of the project, else ``default``."""
    from ctx_tui.transcripts.discover import find_session

    try:
        return _transcript_key(find_session(project))
    except CtxError:
        return DEFAULT_KEY


def _transcript_key(path: Path) -> str:
    name = path.name
    for suffix in (".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name


# -- context helpers -----------------------------------------------------------


def entries_of_messages(messages: list[Any]) -> list[Entry]:
    """``{role, content}`` messages (OpenAI style, ``tool_calls`` and ``tool`` role included) as entries."""
    from ctx_tui.transcripts.builder import Transcript
    from ctx_tui.transcripts.generic import GenericReader

    transcript = Transcript(Format.GENERIC)
    reader = GenericReader(transcript)
    for n, message in enumerate(messages):
        if not isinstance(message, dict) or not reader.feed(message):
            raise RequestError(f"context[{n}]: not a message; expected an object with 'role' and 'content'")
    return transcript.entries


def context_text(context: str | list[Any], sources: tuple[str, ...] = SOURCES) -> str:
    """The request's context as text: messages are rendered like a collected session."""
    if isinstance(context, list):
        from ctx_tui.transcripts.generic import messages_of

        messages = messages_of(context)
        return render_entries(entries_of_messages(messages or []), sources)
    return context


def _items(project: Path, req: Request) -> list[ItemLike]:
    if not req.session_id:
        return []
    from ctx_tui.memory.session_store import load_session_memory

    return list(load_session_memory(project, req.session_id).active_items())


def _default_query(text: str) -> str:
    sections = parse_sections(text)
    if sections:
        users = [s.body for s in sections if s.kind == "user"]
        if users:
            return users[-1]
    return " ".join(text.split()[-QUERY_WORDS:])


# -- the actions -------------------------------------------------------------------


Result = tuple[str, dict[str, Any]]


def _collect(project: Path, config: Config | None, req: Request) -> Result:
    if req.context is not None:
        text = context_text(req.context, req.sources)
        sections = parse_sections(text)
        if sections is not None:  # text collected before: keep the wanted sources
            sections = [s for s in sections if s.source in req.sources]
            text = "\n\n".join(s.text for s in sections)
        elif isinstance(req.context, str):  # plain text: the session's own words
            text = text if "session" in req.sources else ""
        key = req.session_id or DEFAULT_KEY
        origin = "context"
    else:
        path = Path(req.transcript).expanduser() if req.transcript else None
        if path is not None and not path.is_file():
            raise RequestError(f"options.transcript: {path}: " + ("is a folder, not a transcript file" if path.is_dir() else "no such file"))
        from ctx_tui.transcripts.discover import find_session
        from ctx_tui.window import Session

        try:
            path = path or find_session(project)
        except CtxError as exc:
            raise RequestError(f"context: none given and {exc}") from None
        session = Session(path, config)
        session.poll()
        text = render_entries((w.entry for w in session.state().live), req.sources)
        key = req.session_id or _transcript_key(path)
        origin = str(path)
        sections = parse_sections(text)
    if sections is None:
        counts = {src: int(src == "session" and bool(text.strip())) for src in req.sources}
    else:
        counts = {src: sum(1 for s in sections if s.source == src) for src in req.sources}
    metadata = {"originalLength": count_tokens(text), "sources": list(req.sources), "counts": counts,
                "origin": origin, "sessionId": key}
    _remember(project, key, "collect", text, metadata)
    return text, metadata


def _compress(project: Path, config: Config | None, req: Request) -> Result:
    if req.context is None or (isinstance(req.context, str) and not req.context.strip()):
        raise RequestError("context: required for compress (the text to compress)")
    text = context_text(req.context)
    result = compress_text(text, req.strategy, target_ratio=req.ratio, max_length=req.max_length,
                           items=_items(project, req), config=config)
    metadata = result.metadata()
    metadata.pop("duration")
    _remember(project, req.session_id or DEFAULT_KEY, "compress", result.text, metadata)
    audit.record(project, "compress.ran", session=req.session_id, via="api", strategy=req.strategy,
                 original=result.original_length, compressed=result.compressed_length,
                 retention=result.retention_rate)
    return result.text, metadata


def _inject(project: Path, config: Config | None, req: Request) -> Result:
    from ctx_tui.config import Config
    from ctx_tui.retrieve import enhance, enhance_block, search

    config = config or Config()
    key = req.session_id or (DEFAULT_KEY if req.context is not None else _current_key(project))
    if req.context is None:
        cached = _read_cache(cache_path(project, key)).get("entries", {}).get("collect")
        if not cached:
            raise RequestError("context: required for inject (or run collect first for this session)")
        text = cached["context"]
    else:
        text = context_text(req.context)
    position = config.retrieval.enhance_position
    hits = search(project, req.query or _default_query(text), config=config)
    block = enhance_block(hits, position)
    while hits and count_tokens(block) > req.max_length * INJECT_MEMORY_SHARE:
        hits.pop()
        block = enhance_block(hits, position)
    original = count_tokens(text)
    room = req.max_length - count_tokens(block)
    retention: float | None = None
    if original > room:
        result = compress_text(text, req.strategy, max_length=room, items=_items(project, req), config=config)
        text, retention = result.text, result.retention_rate
    final = enhance(text, hits, position)
    if count_tokens(final) > req.max_length:  # the second cut the contract allows
        final = compress_text(final, "truncate", max_length=req.max_length, config=config).text
    metadata: dict[str, Any] = {
        "originalLength": original,
        "injectedLength": count_tokens(final),
        "maxLength": req.max_length,
        "retrieved": [{"tier": h.tier, "source": h.source, "score": h.score} for h in hits],
        "compressed": retention is not None,
        "position": position,
    }
    if retention is not None:
        metadata["retentionRate"] = retention
    _remember(project, key, "inject", final, metadata)
    return final, metadata


def _clear(project: Path, config: Config | None, req: Request) -> Result:
    key = req.session_id or _current_key(project)
    path = cache_path(project, key)
    with locked(path):
        data = _read_cache(path)
        size = path.stat().st_size if path.exists() else 0
        entries = data.get("entries")
        if not isinstance(entries, dict):
            entries = {}
        if path.exists():
            os.unlink(path)
    audit.record(project, "api.cache_cleared", session=key, cleared=sorted(entries), size=size)
    return "", {"sessionId": key, "clearedKeys": sorted(entries), "clearedSize": size, "cleared": size > 0}


HANDLERS: dict[str, Callable[[Path, "Config | None", Request], Result]] = {
    "collect": _collect,
    "compress": _compress,
    "inject": _inject,
    "clear": _clear,
}


def _failure(error: str, action: Any, started: float) -> dict[str, Any]:
    return {
        "success": False,
        "error": error,
        "context": "",
        "metadata": {"duration": round((time.perf_counter() - started) * 1000, 1),
                     "action": action if isinstance(action, str) else None},
    }


def _load_modules(req: Request) -> None:
    """Import what ``req``'s action needs (the imports inside the handlers then cost nothing)."""
    if req.action == "inject":
        import ctx_tui.config
        import ctx_tui.retrieve  # noqa: F401
    if req.session_id:
        import ctx_tui.memory.session_store  # noqa: F401
    if req.action == "collect" and req.context is None:
        import ctx_tui.transcripts.discover
        import ctx_tui.window  # noqa: F401


def _project_config(project: Path) -> Config | None:
    """The project's config, or None for the defaults when no config file exists (nothing to validate)."""
    if not config_files(project):
        return None
    from ctx_tui.config import load_config

    return load_config(project).config


def handle(data: Any, project: Path) -> dict[str, Any]:
    """Run one decoded request; every failure becomes ``success: false`` with an error naming the field."""
    started = time.perf_counter()
    action = data.get("action") if isinstance(data, dict) else None
    try:
        req = parse_request(data)
        config = _project_config(project)
        _load_modules(req)
        started = time.perf_counter()  # the call itself: one-time imports are start-up, like the tokenizer
        context, metadata = HANDLERS[req.action](project, config, req)
    except RequestError as exc:
        return _failure(str(exc), action, started)
    except CtxError as exc:
        return _failure(f"{action}: {exc}", action, started)
    except OSError as exc:
        return _failure(f"{action}: {exc.strerror or exc}", action, started)
    except Exception as exc:  # the contract's last line of defence: always a JSON answer, never a traceback
        if os.environ.get("CTX_TUI_DEBUG"):
            raise
        return _failure(f"{action}: internal error: {type(exc).__name__}: {exc}", action, started)
    metadata["duration"] = round((time.perf_counter() - started) * 1000, 1)
    metadata["action"] = req.action
    return {"success": True, "context": context, "metadata": metadata}


def handle_text(raw: str, project: Path) -> dict[str, Any]:
    """Decode one request (JSON text) and run it.

    The tokenizer (or, in a ``ctx-tui api`` process, the table of piece
    counts: ``ctx_tui.tokens.count_by_pieces``) is loaded before the clock
    starts: ``duration`` is the time of the call itself, as in a long-running
    service, not the one-time cost of starting a process
    (``bench/bench_api_start.py`` measures that). Pieces never counted before
    are counted inside the call (the ranks are read then, ~15 ms).
    """
    prepare_tokens()
    if not raw.strip():
        return _failure("request: empty input; send one JSON object on stdin", None, time.perf_counter())
    try:
        data = json.loads(raw)
    except ValueError as exc:
        return _failure(f"request: not valid JSON ({exc})", None, time.perf_counter())
    return handle(data, project)
