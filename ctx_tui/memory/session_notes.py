"""What the hook and the status line need of a session memory file, read without its model.

Claude Code waits for the ``SessionStart`` hook (it re-injects goals,
constraints and preferences after ``/compact``) and runs ``ctx-tui
statusline`` after every message (it shows the flagged high-importance items
and the pending promotions). Reading the file through
:mod:`ctx_tui.memory.session_store` (PyYAML, then every item, summary and
promotion checked) costs several times Python's own start-up.

So whenever session_store writes ``.ctx/sessions/<id>.yaml`` (it validated the
memory just before) it also writes ``<id>.notes.json`` beside it: the SHA-256
of the YAML bytes it wrote, the texts of the three note lists and the status
line's :func:`status_summary`. A reader trusts the record only while the YAML
file still has exactly those bytes; a file edited by hand, written by an older
version, or too large for the bound below is read from its YAML as before
(the hook validated, with its error messages), so the answer is the same
either way.

Only :mod:`ctx_tui.json_light`, CPython's own SHA-256 and :mod:`ctx_tui.storage`
are imported here: no json (it imports ``re``, and ``re`` ``enum``), pathlib
or importlib. The ``SessionStart`` hook reads the record on string paths;
``json`` loads only where session_store writes the record (it has json
already).
"""

from __future__ import annotations

import os

from ctx_tui import json_light
from ctx_tui.storage import read_regular, write_atomic

TYPE_CHECKING = False  # typing is not imported at run time (~4 ms): the status line imports this module
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

#: The note lists carried, in the order they are re-injected.
NOTE_LISTS: tuple[str, ...] = ("goals", "constraints", "preferences")
#: Item types of high importance (ctx_tui.kinds.importance_for; not imported: it loads enum classes).
HIGH_TYPES = frozenset({"goal", "constraint", "user_preference", "critical_info"})
NOTES_SUFFIX = ".notes.json"
VERSION = 1
#: Larger YAML files are read through session_store. Below this bound a file
#: ctx-tui wrote is within every limit the validated read applies
#: (yaml_load.DEFAULT_LIMITS: 8 MB of text, scalars up to 4 MB, 1M nodes, and
#: a node of the dumper's block style takes at least 2 bytes).
MAX_BYTES = 1_000_000


def notes_file(memory_file: str) -> str:
    """``<id>.notes.json`` beside the session memory file ``<id>.yaml``, on a string path.

    The ``SessionStart`` hook reads the record on strings (no pathlib). For a
    session memory file (``paths.safe_name`` + ``.yaml``) this is pathlib's
    ``stem`` + the suffix in every Python version.
    """
    return os.path.splitext(memory_file)[0] + NOTES_SUFFIX


def notes_path(memory_path: Path) -> Path:
    """:func:`notes_file` as a Path (the writer's): the readers and the writer name the same file."""
    return memory_path.with_name(os.path.basename(notes_file(os.fspath(memory_path))))


def _digest(data: bytes) -> str:
    """The SHA-256 of ``data`` (hex) by CPython's own module, without loading OpenSSL (``import hashlib``: ~4 ms).

    The module is ``_sha2`` since Python 3.12, ``_sha256`` before; hashlib when neither exists.
    """
    for name in ("_sha2", "_sha256"):
        try:
            sha256 = __import__(name).sha256
            break
        except (ImportError, AttributeError):
            continue
    else:
        from hashlib import sha256
    return str(sha256(data).hexdigest())


def _max_round(rounds: Any) -> int:
    return max((r for r in rounds if isinstance(r, int)), default=0) if isinstance(rounds, list) else 0


def status_summary(data: Any) -> dict[str, Any]:
    """From a session memory mapping: pending promotions and the flagged high-importance items.

    An item counts as flagged when the last analysis recorded it decayed or out
    of context (``decay_reported``: ``"<state>@<last seen round>"``) and no
    reference was recorded after that round (a restatement is one). Returns
    ``{"pending": n, "flagged": n, "top": the riskiest one's content or None}``.
    """
    data = data if isinstance(data, dict) else {}
    promotions = data.get("promotions")
    pending = sum(1 for p in promotions if isinstance(p, dict) and p.get("status", "pending") == "pending") if isinstance(promotions, list) else 0
    reported = data.get("decay_reported")
    if not isinstance(reported, dict):
        reported = {}
    flagged: list[dict[str, Any]] = []
    items = data.get("items") if isinstance(data.get("items"), list) else []
    for item in items:
        if not isinstance(item, dict) or item.get("dismissed") or not isinstance(item.get("content"), str):
            continue
        importance = item.get("importance") or ("high" if item.get("type") in HIGH_TYPES else None)
        state = reported.get(item.get("id"))
        if importance != "high" or not isinstance(state, str) or "@" not in state:
            continue
        kind, _, seen = state.partition("@")
        seen_round = int(seen) if seen.isdigit() else 0
        if _max_round(item.get("referenced_rounds")) > seen_round:
            continue  # referenced (or restated) since it was flagged
        flagged.append({"content": item["content"], "out_of_context": kind == "out-of-context", "seen": seen_round})
    # Riskiest first: out of context, then the longest unseen.
    flagged.sort(key=lambda f: (not f["out_of_context"], f["seen"]))
    return {"pending": pending, "flagged": len(flagged), "top": flagged[0]["content"] if flagged else None}


def write_notes(memory_path: Path, text: str, data: dict[str, Any]) -> None:
    """Record what the light readers need of the validated memory ``data`` whose YAML ``text`` was just written.

    ``data`` is the memory's JSON-mode dump (what ``text`` loads back to).
    Called under the memory file's lock. When the record cannot be written the
    stale one is removed (its digest would not match anyway): the readers
    then read the YAML.
    """
    path = notes_path(memory_path)
    record: dict[str, Any] = {"v": VERSION, "sha256": _digest(text.encode("utf-8"))}
    record.update({name: [note["text"] for note in data.get(name, ())] for name in NOTE_LISTS})
    record["status"] = status_summary(data)
    import json  # session_store, the writer, has it already; the readers use json_light

    try:
        write_atomic(path, json.dumps(record, ensure_ascii=False))
    except OSError:
        try:
            os.unlink(path)
        except OSError:
            pass


def _record(memory_path: Path | str) -> dict[str, Any] | None:
    """The notes record when it was written for the YAML file's current bytes, else None."""
    try:
        data = read_regular(memory_path, MAX_BYTES)
        record = json_light.loads(read_regular(notes_file(os.fspath(memory_path)), 4 * MAX_BYTES))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or record.get("v") != VERSION or record.get("sha256") != _digest(data):
        return None
    return record


def read_notes(memory_path: Path | str) -> dict[str, list[str]] | None:
    """The note texts recorded for the YAML file's current bytes; None when they cannot be vouched for.

    None: no record, a damaged record, a YAML file that changed since (or is
    larger than :data:`MAX_BYTES`), or anything unreadable: the caller reads
    the file through session_store, which says what is wrong.
    """
    record = _record(memory_path)
    if record is None:
        return None
    notes: dict[str, list[str]] = {}
    for name in NOTE_LISTS:
        texts = record.get(name)
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return None
        notes[name] = texts
    return notes


def read_status(memory_path: Path | str) -> dict[str, Any] | None:
    """:func:`status_summary` as recorded for the YAML file's current bytes; None as for :func:`read_notes`."""
    record = _record(memory_path)
    status = record.get("status") if record is not None else None
    if not isinstance(status, dict) or set(status) != {"pending", "flagged", "top"}:
        return None
    counts_ok = all(isinstance(status[k], int) and not isinstance(status[k], bool) and status[k] >= 0 for k in ("pending", "flagged"))
    return status if counts_ok and (status["top"] is None or isinstance(status["top"], str)) else None
