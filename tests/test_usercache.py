"""The per-user cache never blocks on, nor writes through, what is planted at its paths."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from ctx_tui import usercache


def test_a_fifo_at_a_cache_path_reads_as_no_cache(tmp_path: Path) -> None:
    """Opening a FIFO for reading waits for a writer: the status line and the hooks would hang."""
    fifo = tmp_path / "everyday-words.json"
    os.mkfifo(fifo)
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(usercache.read_json(str(fifo))), daemon=True)
    reader.start()
    reader.join(timeout=5)
    if reader.is_alive():  # unblock the thread so the test process can end
        with open(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK), "wb"):
            pass
    assert got == [None]
    assert usercache.read_json(str(tmp_path)) is None  # a folder
    assert usercache.read_json(str(tmp_path / "missing.json")) is None


def test_writes_never_go_through_a_planted_link(tmp_path: Path) -> None:
    """A link at the file's own path is replaced, one at the temporary name is removed: the user's file stays."""
    precious = tmp_path / "precious.txt"
    precious.write_text("mine")
    path = tmp_path / "cache" / "report.json"
    path.parent.mkdir()
    path.symlink_to(precious)
    (path.parent / f"report.json.{os.getpid()}.{threading.get_ident()}.tmp").symlink_to(precious)
    usercache.write_json(str(path), {"a": 1})
    assert precious.read_text() == "mine"
    assert not path.is_symlink() and usercache.read_json(str(path)) == {"a": 1}
    assert sorted(p.name for p in path.parent.iterdir()) == ["report.json"]


def test_json_nested_past_the_recursion_limit_reads_as_no_cache(tmp_path: Path) -> None:
    """``json.loads`` raises RecursionError, not ValueError, on deep nesting: a damaged or planted
    cache file (lexicon.json, everyday-words.json) must read as no cache, not end the command."""
    for opener in ("[", '{"a":'):
        path = tmp_path / "lexicon.json"
        path.write_text(opener * 200_000)
        assert usercache.read_json(str(path)) is None


def test_two_threads_writing_one_file_each_write_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads of one process (a dashboard's workers compiling the lexicon at once) each write
    their own temporary file: neither removes nor renames the other's half-written one."""
    import json

    path = str(tmp_path / "lexicon.json")
    dump = json.dump
    errors: list[BaseException] = []

    def second_writer_meanwhile(data: object, fh: object, **kwargs: object) -> None:
        if data == {"n": 1}:  # the first writer, its file open: the second writes whole meanwhile
            def write() -> None:
                try:
                    usercache.write_json(path, {"n": 2})
                except BaseException as exc:  # noqa: BLE001 - reported below
                    errors.append(exc)

            other = threading.Thread(target=write)
            other.start()
            other.join()
        dump(data, fh, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(json, "dump", second_writer_meanwhile)
    usercache.write_json(path, {"n": 1})
    assert errors == []
    assert usercache.read_json(path) == {"n": 1}  # the last rename wins, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lexicon.json"]
