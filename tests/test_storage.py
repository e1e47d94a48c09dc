"""storage.create_exclusive: a new file every time, never an overwrite."""

from __future__ import annotations

import errno
import multiprocessing
import os
from pathlib import Path

import pytest

from ctx_tui import storage
from ctx_tui.errors import CtxError
from ctx_tui.storage import create_exclusive


def test_free_name_is_used_as_given(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "note.yaml"
    assert create_exclusive(target, "a: 1\n") == target
    assert target.read_text() == "a: 1\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["note.yaml"]  # no temp file left


def test_collisions_get_numbered_names_and_nothing_is_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "note.yaml"
    target.write_bytes(b"mine")
    (tmp_path / "note-2.yaml").write_bytes(b"mine too")
    assert create_exclusive(target, b"new") == tmp_path / "note-3.yaml"
    assert create_exclusive(target, b"newer") == tmp_path / "note-4.yaml"
    assert target.read_bytes() == b"mine" and (tmp_path / "note-2.yaml").read_bytes() == b"mine too"
    assert (tmp_path / "note-3.yaml").read_bytes() == b"new"
    assert (tmp_path / "note-4.yaml").read_bytes() == b"newer"


def test_dots_in_the_name_keep_the_extension(tmp_path: Path) -> None:
    target = tmp_path / "v1.2-role.yaml"
    create_exclusive(target, "x")
    assert create_exclusive(target, "y").name == "v1.2-role-2.yaml"


def _create(folder: str, n: int) -> str:
    return str(create_exclusive(Path(folder) / "race.txt", f"writer {n}"))


def test_concurrent_creators_each_get_their_own_file(tmp_path: Path) -> None:
    with multiprocessing.get_context("fork").Pool(8) as pool:
        paths = pool.starmap(_create, [(str(tmp_path), n) for n in range(40)])
    assert len(set(paths)) == 40
    assert sorted(Path(p).read_text() for p in paths) == sorted(f"writer {n}" for n in range(40))
    assert len(list(tmp_path.iterdir())) == 40


def test_without_hard_links_it_falls_back_to_exclusive_create(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_link(src: str, dst: Path) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    target = tmp_path / "note.yaml"
    target.write_text("taken")
    monkeypatch.setattr(os, "link", no_link)
    assert create_exclusive(target, "fallback") == tmp_path / "note-2.yaml"
    assert (tmp_path / "note-2.yaml").read_text() == "fallback" and target.read_text() == "taken"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note-2.yaml", "note.yaml"]


def test_other_link_errors_are_raised_and_leave_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(src: str, dst: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "link", full)
    with pytest.raises(OSError):
        create_exclusive(tmp_path / "note.yaml", "x")
    assert list(tmp_path.iterdir()) == []


def test_gives_up_after_max_suffix_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "MAX_SUFFIX", 3)
    target = tmp_path / "note.yaml"
    for _ in range(3):
        create_exclusive(target, "x")
    with pytest.raises(CtxError, match="more than 3 files named note"):
        create_exclusive(target, "x")
    assert len(list(tmp_path.iterdir())) == 3
