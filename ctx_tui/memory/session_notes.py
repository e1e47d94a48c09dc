"""The goals, constraints and preferences of a session memory file, read without its model.

The ``SessionStart`` hook re-injects them after ``/compact`` and Claude Code
waits for it: reading them through :mod:`ctx_tui.memory.session_store`
(PyYAML, then pydantic validating every item, summary and promotion) costs
several times Python's own start-up.

So whenever session_store writes ``.ctx/sessions/<id>.yaml`` (it validated the
memory just before) it also writes ``<id>.notes.json`` beside it: the SHA-256
of the YAML bytes it wrote and the texts of the three note lists. The hook
trusts those texts only while the YAML file still has exactly those bytes; a
file edited by hand, written by an older version, or too large for the bound
below is read through session_store as before (validated, with its error
messages), so the answer is the same either way.

Only ``json``, CPython's own SHA-256 and :mod:`ctx_tui.storage` are imported here.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from ctx_tui.storage import read_regular, write_atomic

#: The note lists carried, in the order they are re-injected.
NOTE_LISTS: tuple[str, ...] = ("goals", "constraints", "preferences")
NOTES_SUFFIX = ".notes.json"
VERSION = 1
#: Larger YAML files are read through session_store. Below this bound a file
#: ctx-tui wrote is within every limit the validated read applies
#: (yaml_load.DEFAULT_LIMITS: 8 MB of text, scalars up to 4 MB, 1M nodes, and
#: a node of the dumper's block style takes at least 2 bytes).
MAX_BYTES = 1_000_000


def notes_path(memory_path: Path) -> Path:
    """``<id>.notes.json`` beside the session memory file ``<id>.yaml``."""
    return memory_path.with_name(memory_path.stem + NOTES_SUFFIX)


def _digest(data: bytes) -> str:
    """The SHA-256 of ``data`` (hex) by CPython's own module, without loading OpenSSL (``import hashlib``: ~4 ms).

    The module is ``_sha2`` since Python 3.12, ``_sha256`` before; hashlib when neither exists.
    """
    for name in ("_sha2", "_sha256"):
        try:
            sha256 = importlib.import_module(name).sha256
            break
        except (ImportError, AttributeError):
            continue
    else:
        from hashlib import sha256
    return str(sha256(data).hexdigest())


def write_notes(memory_path: Path, text: str, notes: Mapping[str, Sequence[str]]) -> None:
    """Record the note texts of the validated memory whose YAML ``text`` was just written.

    Called under the memory file's lock. When the record cannot be written the
    stale one is removed (its digest would not match anyway): the hook then
    reads the YAML.
    """
    path = notes_path(memory_path)
    record = {"v": VERSION, "sha256": _digest(text.encode("utf-8"))}
    record.update({name: list(notes.get(name, ())) for name in NOTE_LISTS})
    try:
        write_atomic(path, json.dumps(record, ensure_ascii=False))
    except OSError:
        try:
            os.unlink(path)
        except OSError:
            pass


def read_notes(memory_path: Path) -> dict[str, list[str]] | None:
    """The note texts recorded for the YAML file's current bytes; None when they cannot be vouched for.

    None: no record, a damaged record, a YAML file that changed since (or is
    larger than :data:`MAX_BYTES`), or anything unreadable: the caller reads
    the file through session_store, which says what is wrong.
    """
    try:
        data = read_regular(memory_path, MAX_BYTES)
        record = json.loads(read_regular(notes_path(memory_path), 4 * MAX_BYTES))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or record.get("v") != VERSION or record.get("sha256") != _digest(data):
        return None
    notes: dict[str, list[str]] = {}
    for name in NOTE_LISTS:
        texts = record.get(name)
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return None
        notes[name] = texts
    return notes
