"""Writes through symlinks, modes, temp names and leftovers; special files refused (issue 15, items 6-8).

The kill run (a writer killed with SIGKILL at random points, then one more
write) is also a script: ``python bench/bench_kill_writes.py --kills 250``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctx_tui.actions.hook_install import install_hooks
from ctx_tui.memory.memory_md import read_memory
from ctx_tui.storage import (
    STALE_TEMP_S,
    NotRegularFile,
    create_exclusive,
    open_regular,
    read_regular,
    remove_stale_temps,
    temp_name,
    write_atomic,
)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_symlinked_file_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "MEMORY.md"
    real.write_text("# Memory\n")
    link = tmp_path / "project" / "MEMORY.md"
    link.parent.mkdir()
    link.symlink_to(real)
    write_atomic(link, "# Memory\n\n- new\n")
    assert link.is_symlink() and real.read_text() == "# Memory\n\n- new\n"
    assert [p.name for p in link.parent.iterdir()] == ["MEMORY.md"]  # no temp beside the link


def test_a_chain_of_links_and_a_relative_link(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    real = tmp_path / "store" / "settings.json"
    real.write_text("{}")
    middle = tmp_path / "middle.json"
    middle.symlink_to("store/settings.json")
    first = tmp_path / "settings.json"
    first.symlink_to(middle)
    write_atomic(first, "{\"a\": 1}")
    assert first.is_symlink() and middle.is_symlink() and real.read_text() == "{\"a\": 1}"


def test_a_dangling_link_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "MEMORY.md"
    link.symlink_to(tmp_path / "elsewhere.md")
    write_atomic(link, "x")
    assert link.is_symlink() and (tmp_path / "elsewhere.md").read_text() == "x"


def test_hook_install_updates_a_symlinked_settings_file(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text('{"model": "opus"}\n')
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").symlink_to(real)
    install_hooks(tmp_path)
    assert (tmp_path / ".claude" / "settings.json").is_symlink()
    assert '"model": "opus"' in real.read_text() and "UserPromptSubmit" in real.read_text()


def test_memory_md_through_a_symlink_keeps_hand_edits(tmp_path: Path) -> None:
    from ctx_tui.memory.memory_md import NewEntry, append_entries

    real = tmp_path / "dotfiles" / "MEMORY.md"
    real.parent.mkdir()
    real.write_text("# Memory\n\n<!-- mine -->\n## Decisions\n- keep this\n")
    link = tmp_path / "MEMORY.md"
    link.symlink_to(real)
    append_entries(link, [NewEntry("Decisions", "use orjson")])
    text = real.read_text()
    assert link.is_symlink() and "<!-- mine -->" in text and "- keep this" in text and "use orjson" in text
    assert [e.text for e in read_memory(link).entries][-1] == "use orjson"


def test_mode_is_kept_and_new_files_follow_the_umask(tmp_path: Path) -> None:
    existing = tmp_path / "kept.md"
    existing.write_text("a")
    existing.chmod(0o640)
    write_atomic(existing, "b")
    assert existing.stat().st_mode & 0o777 == 0o640
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.md", "c")
        created = create_exclusive(tmp_path / "handoff.yaml", "d")
    finally:
        os.umask(old)
    assert (tmp_path / "new.md").stat().st_mode & 0o777 == 0o640
    assert created.stat().st_mode & 0o777 == 0o640


def test_temp_names_are_recognisable(tmp_path: Path) -> None:
    name = temp_name(tmp_path / "MEMORY.md").name
    assert name.startswith(".MEMORY.md.ctx-tui-") and name.endswith(".tmp") and str(os.getpid()) in name


def test_stale_temps_of_dead_writers_are_removed_by_the_next_write(tmp_path: Path) -> None:
    dead = tmp_path / f".MEMORY.md.ctx-tui-{_dead_pid()}-0123abcd.tmp"
    fresh_dead = tmp_path / f".other.yaml.ctx-tui-{_dead_pid()}-89abcdef.tmp"
    alive = tmp_path / f".MEMORY.md.ctx-tui-{os.getppid()}-deadbeef.tmp"
    unrelated = tmp_path / ".MEMORY.md.user-backup.tmp"
    for path in (dead, fresh_dead, alive, unrelated):
        path.write_text("partial")
    old = time.time() - STALE_TEMP_S - 5
    for path in (dead, alive, unrelated):
        os.utime(path, (old, old))
    write_atomic(tmp_path / "MEMORY.md", "# Memory\n")
    assert not dead.exists()
    assert fresh_dead.exists() and alive.exists() and unrelated.exists()
    assert remove_stale_temps(tmp_path, now=time.time() + STALE_TEMP_S + 5) == [fresh_dead]


def test_a_writer_killed_mid_write_leaves_the_file_whole_and_no_temp_for_long(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_text("A" * 100_000)
    code = (
        "import sys; from pathlib import Path; from ctx_tui.storage import write_atomic\n"
        "p = Path(sys.argv[1]); i = 0\n"
        "while True:\n    i += 1; write_atomic(p, chr(65 + i % 26) * 100_000)\n"
    )
    for _ in range(5):
        proc = subprocess.Popen([sys.executable, "-c", code, str(target)])
        time.sleep(0.4)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        text = target.read_text()
        assert len(text) == 100_000 and len(set(text)) == 1  # one whole version, never a mix
    leftovers = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    future = time.time() + STALE_TEMP_S + 1
    assert sorted(remove_stale_temps(tmp_path, now=future)) == sorted(leftovers)


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_special_files_are_refused_without_blocking(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "x"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path = Path("/dev/zero")
    with pytest.raises(NotRegularFile) as caught:
        read_regular(path)
    assert caught.value.strerror.startswith("not a regular file (")
    with pytest.raises(NotRegularFile):
        open_regular(path)
