"""The everyday English words are found once per user, not in every process (see ctx_tui.english)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctx_tui import english
from ctx_tui.mentions import word_key


def test_the_everyday_words_are_kept_in_the_user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first process reads the word counts and keeps the words found; a later one takes them from
    there (the counts not read: same words, same keys); a damaged file, or one kept for other counts,
    is not taken."""
    if english.source() == "":
        pytest.skip("pyspellchecker's word counts are not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    english.common_keys.cache_clear()
    words = english.everyday_words()
    keys = english.common_keys(word_key)
    assert len(words) >= english.COMMON_RANK // 2 and {"fast", "next"} <= keys
    kept = tmp_path / "ctx-tui" / english.EVERYDAY_WORDS
    assert json.loads(kept.read_text())["value"] == words

    def unread(data: bytes) -> bytes:
        raise OSError("the counts were read again")

    monkeypatch.setattr(gzip, "decompress", unread)
    english.common_keys.cache_clear()
    assert english.everyday_words() == words and english.common_keys(word_key) == keys
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))  # no child: the counts are read here
    for other in ("{", json.dumps({"source": "1:2:5000", "value": ["fast"]}), json.dumps({"source": f"{english.source()}:{english.COMMON_RANK}", "value": [1]})):
        kept.write_text(other)
        assert english.everyday_words() == []  # not taken: the counts read again (here, unreadable)
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert english.everyday_words() == words
    english.common_keys.cache_clear()


def test_the_first_ranking_is_done_in_a_child_process(tmp_path: Path) -> None:
    """A process that finds no everyday words in the cache leaves the ranking to a child (the counts'
    parse would stay in its heap): it never reads the counts, and takes the same words."""
    if english.source() == "":
        pytest.skip("pyspellchecker's word counts are not installed")
    probe = ("import sys, json; from ctx_tui import english; words = english.everyday_words(); "
             "print(json.dumps([words, 'gzip' in sys.modules]))")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    words, parsed_here = json.loads(run.stdout)
    assert not parsed_here
    assert words == english._ranked(english._counts_file(), str(tmp_path / "again.json"), "k")  # type: ignore[arg-type]
    assert json.loads((tmp_path / "ctx-tui" / english.EVERYDAY_WORDS).read_text())["value"] == words
