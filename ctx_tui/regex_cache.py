"""Regular expressions compiled once per Python build, their programs kept in the user's cache.

``re.compile`` parses a pattern and generates its program in Python code, in every process. The
~200 patterns that extraction, the matcher and compression compile at import (the long word lists
of :mod:`~ctx_tui.memory.sentence_frames` and :mod:`~ctx_tui.memory.sentence_types` most) cost a
pre-compact job ~35 ms, ~0.4 G instructions of the ~9 G of its first job at 100 MB. A program
depends only on the pattern, its flags and the regular expression engine, so :func:`compile` keeps
each pattern's (:data:`FILE` in :func:`~ctx_tui.usercache.cache_dir`, under Python's version and the
engine's magic number) and a later process hands it to ``_sre.compile`` as ``re.compile`` itself
does: the same pattern object (``==`` on two compares their pattern, flags and program).

A program is kept only when the pattern object made from it equals the one ``re.compile`` made
(checked when the pattern is first compiled, so a Python whose internals differ just compiles as
written); a file that does not read as a table of programs for this Python is no cache, and
``_sre.compile`` checks the program it is given (it raises on one it cannot run, and the pattern is
then compiled as written). A process that compiled a pattern the file did not hold rewrites the
file at its exit, merged with what the file holds then (processes that compile other patterns do
not undo each other's).
"""

from __future__ import annotations

import atexit
import marshal
import os
import re
import sys

from ctx_tui import usercache

import _sre  # type: ignore[import-not-found]  # the engine re.compile hands a program to (no stub)
from re import _compiler, _parser  # type: ignore[attr-defined]  # what re.compile runs (private: no stub)

#: The file of programs in the user's cache.
FILE = "regex.marshal"
#: What a kept program is valid for: the interpreter's version and build, and the engine's.
_VERSION = (sys.version, sys.implementation.cache_tag, _sre.MAGIC, _sre.CODESIZE)
#: The file's largest size read.
MAX_BYTES = 8 << 20

#: What ``_sre.compile`` takes after the pattern: flags, program, groups, name -> group, group -> name.
Program = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

_kept: dict[tuple[str, int], Program] | None = None  # the file's programs, read when first asked
_new: dict[tuple[str, int], Program] = {}  # this process's, written at its exit


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:  # noqa: A001 - re.compile's name, as a drop-in
    """``re.compile(pattern, flags)``, from the program kept for it when there is one."""
    flags = int(flags)
    kept = _kept if _kept is not None else _load()
    program = kept.get((pattern, flags))
    if program is not None:
        try:
            compiled: re.Pattern[str] = _sre.compile(pattern, *program)
            return compiled
        except (RuntimeError, TypeError, ValueError, OverflowError):  # not a program it runs: compile as written
            pass
    compiled = re.compile(pattern, flags)
    program = _program(pattern, flags, compiled)
    if program is not None:
        if not _new:
            atexit.register(_save)
        _new[pattern, flags] = program
    return compiled


def _program(pattern: str, flags: int, compiled: re.Pattern[str]) -> Program | None:
    """What ``re.compile`` hands ``_sre.compile`` for ``pattern``; None unless the pattern object
    made from it equals ``compiled`` (another Python's internals)."""
    if type(pattern) is not str:
        return None
    try:
        parsed = _parser.parse(pattern, flags)
        state = parsed.state
        groupindex = dict(state.groupdict)
        indexgroup: list[str | None] = [None] * state.groups
        for name, group in groupindex.items():
            indexgroup[group] = name
        program = (int(flags | state.flags), list(map(int, _compiler._code(parsed, flags))), state.groups - 1, groupindex, tuple(indexgroup))
        made = _sre.compile(pattern, *program)
    except Exception:  # noqa: BLE001 - internals of another Python: nothing kept
        return None
    same = made == compiled and made.groups == compiled.groups and made.groupindex == compiled.groupindex
    return program if same else None


def _path() -> str:
    return os.path.join(usercache.cache_dir(), FILE)


def _read() -> dict[tuple[str, int], Program]:
    """The programs the file holds for this Python; none from a missing, damaged or foreign file."""
    data = usercache.read_bytes(_path(), MAX_BYTES)
    if data is None:
        return {}
    try:
        version, table = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return {}
    return table if version == _VERSION and type(table) is dict else {}


def _load() -> dict[tuple[str, int], Program]:
    global _kept
    _kept = _read()
    return _kept


def _save() -> None:
    """Write this process's programs with the file's (at exit; a cache: a failed write is skipped)."""
    try:
        usercache.write_bytes(_path(), marshal.dumps((_VERSION, {**_read(), **_new})))
    except (OSError, ValueError):
        pass
