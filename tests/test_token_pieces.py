"""Counting cl100k by cached piece counts (ctx_tui.token_pieces): exact, and a cache that cannot mislead."""

from __future__ import annotations

import marshal
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ALL_FIXTURES, fixture
from ctx_tui import tokens
from ctx_tui.token_pieces import (
    MAX_PIECE_CHARS,
    UNICODE_PATTERN,
    PieceCounter,
    byte_pair_count,
    cache_path,
    cut,
    pattern_applies,
)
from ctx_tui.transcripts.render import render_entries
from ctx_tui.window import Session


@pytest.fixture(scope="module")
def encoding() -> Any:
    enc = tokens._encoding(tokens.CL100K)
    assert enc is not None
    return enc


@pytest.fixture(scope="module")
def ranks() -> dict[bytes, int]:
    ranks = tokens._cl100k_spec()["mergeable_ranks"]
    assert isinstance(ranks, dict)
    return ranks


def _no_ranks() -> dict[bytes, int]:
    raise AssertionError("the ranks were read although every piece was in the table")


def _same_as_tiktoken(text: str, encoding: Any, ranks: dict[bytes, int], counter: PieceCounter) -> None:
    """The pieces' tokens are tiktoken's tokens of the text, in order, and the counts agree."""
    pieces = cut(text)
    assert pieces is not None and "".join(pieces) == text
    expected = encoding.encode_ordinary(text)
    assert [t for p in pieces for t in encoding._encode_single_piece(p.encode("utf-8"))] == expected
    assert sum(byte_pair_count(p.encode("utf-8"), ranks) for p in set(pieces)) == sum(
        len(encoding._encode_single_piece(p.encode("utf-8"))) for p in set(pieces))
    assert counter.count(text) == len(expected)


def test_the_unicode_pattern_is_tiktokens() -> None:
    assert tokens._cl100k_spec()["pat_str"] == UNICODE_PATTERN


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_counts_equal_tiktoken_on_the_real_windows(name: str, encoding: Any, ranks: dict[bytes, int], tmp_path: Path) -> None:
    session = Session(fixture(name))
    session.poll()
    text = render_entries(w.entry for w in session.state().live)
    counter = PieceCounter(tmp_path / "pieces", lambda: ranks)
    for start in range(0, min(len(text), 600_000), 150_000):
        _same_as_tiktoken(text[start : start + 150_000], encoding, ranks, counter)


def test_every_assigned_code_point_is_cut_as_tiktoken_cuts_it(encoding: Any, ranks: dict[bytes, int], tmp_path: Path) -> None:
    """One in twenty assigned non-ASCII code points (all of them in Latin-1), in four contexts.

    Every one of the 282,102 (Python 3.11's Unicode 14), in eight contexts,
    was checked once the same way (16 s: too slow for the suite).
    """
    import unicodedata

    chars = [chr(c) for c in range(0x80, 0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Cs")]
    sample = [c for i, c in enumerate(chars) if i % 20 == 0 or ord(c) < 0x100]
    counter = PieceCounter(tmp_path / "pieces", lambda: ranks)
    for context in ("a{0}b ", " {0}1 ", "'{0}s {0}{0}\n", " {0} \n\n"):
        for start in range(0, len(sample), 4000):
            _same_as_tiktoken("".join(context.format(c) for c in sample[start : start + 4000]), encoding, ranks, counter)


_ALPHABET = st.sampled_from(
    list("abcXYZ sdmtlvreSDMTLVRE019'\"_-.,;:!?()[]{}<>/\\|=+*#@$%^&~`")
    + ["\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x00", "\x7f", "  ", "\n\n", " \n", "'s", "'LL", "'Ve"]
    + ["—", "…", "→", "✓", "😀", "\u0301", "\u200b", "€", "©", "«", "·", "═", "\U000e0100", "\ufe0f"]
    + ["é", "ß", "Ä", "日本", "٣", "²", "\u00a0", "\u3000", "\u2028", "\u0085"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_counts_equal_tiktoken_on_random_text(encoding: Any, ranks: dict[bytes, int], tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    _same_as_tiktoken(text, encoding, ranks, PieceCounter(tmp_path_factory.mktemp("p") / "pieces", lambda: ranks))


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.binary(min_size=1, max_size=300),  # (tiktoken panics on an empty piece, which no text cuts)
    st.text(alphabet="日本語のテキスト処理関数データベースをにはabcXYZ_=-", min_size=1, max_size=120).map(lambda t: t.encode("utf-8")),
))
def test_the_byte_pair_merge_of_long_pieces_is_tiktokens(encoding: Any, ranks: dict[bytes, int], piece: bytes) -> None:
    """Long pieces too (a clause of Japanese, a run of '=', an identifier): the merge keeps the pairs' ranks."""
    assert byte_pair_count(piece, ranks) == len(encoding._encode_single_piece(piece))


@pytest.mark.parametrize("piece", ["=" * 200, "-" * 57 + "\n", "日本語のテキストを処理するために関数データベースを更新します",
                                   "ThisIsAVeryLongIdentifierWithoutAnySpacesAtAllInIt", "\U0001f389" * 30])
def test_long_pieces_count_as_tiktoken_counts_them(encoding: Any, ranks: dict[bytes, int], piece: str) -> None:
    data = piece.encode("utf-8")
    assert byte_pair_count(data, ranks) == len(encoding._encode_single_piece(data))


@pytest.mark.parametrize("text", ["café", "naïve", "日本語のテキスト", "x²", "٣ items", "a\u00a0b", "line\u2028next", "Ünïcödé 'S"])
def test_letters_digits_and_spaces_beyond_ascii_take_tiktokens_own_pattern(text: str, encoding: Any, ranks: dict[bytes, int], tmp_path: Path) -> None:
    assert not pattern_applies(text)
    _same_as_tiktoken(text, encoding, ranks, PieceCounter(tmp_path / "pieces", lambda: ranks))


@pytest.mark.parametrize("text", ["\U0003ffff", "half \ud83d emoji", "café \U000e01f0"])
def test_unassigned_code_points_and_lone_surrogates_are_left_to_tiktoken(text: str, tmp_path: Path) -> None:
    assert cut(text) is None
    assert PieceCounter(tmp_path / "pieces", _no_ranks).count(text) is None


def test_a_lone_surrogate_is_counted_as_tiktoken_counts_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, encoding: Any) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(tokens, "_pieces", None)
    tokens.count_by_pieces()
    text = "a JSON escape cut in half: \ud83d, then text"
    assert tokens.count_tokens(text) == len(encoding.encode_ordinary(text))
    tokens.end_piece_counts()


def test_the_table_is_kept_and_read_back_without_the_ranks(ranks: dict[bytes, int], encoding: Any, tmp_path: Path) -> None:
    text = "The loader in src/app/sync.py retries on ETIMEDOUT — 3 times, then gives up.\n\n" * 3
    path = cache_path(tmp_path / "cache")
    first = PieceCounter(path, lambda: ranks)
    assert first.count(text) == len(encoding.encode_ordinary(text))
    first.save()
    assert path.is_file() and not list(path.parent.glob("*.tmp"))
    again = PieceCounter(path, _no_ranks)
    assert again.count(text) == len(encoding.encode_ordinary(text))
    assert again.count(text * 2) == 2 * len(encoding.encode_ordinary(text))  # the same pieces, twice
    mtime = path.stat().st_mtime_ns
    again.save()  # nothing learnt: not written
    assert path.stat().st_mtime_ns == mtime


def test_rank_groups_count_as_all_the_ranks(ranks: dict[bytes, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from ctx_tui.token_pieces import RankGroups

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = tokens._cl100k_ranks()  # no groups file yet: all the ranks read, grouped, and the file written
    assert isinstance(first, RankGroups)  # the groups are kept, not the dict of all ranks (a dashboard holds them for hours)
    (path,) = tokens.cache_dir().glob("cl100k_base-groups-*.marshal")
    groups = tokens._cl100k_ranks()
    assert isinstance(groups, RankGroups)
    session = Session(fixture(ALL_FIXTURES[0]))
    session.poll()
    pieces = set(cut(render_entries(w.entry for w in session.state().live)[:200_000]) or [])
    pieces |= {"日本語のテキスト", " naïve", "\U0001f389\U0001f389", "=" * 60, "a", "ab", "abc"}
    assert len(pieces) > 1000
    for piece in pieces:
        data = piece.encode("utf-8")
        assert byte_pair_count(data, groups) == byte_pair_count(data, first) == byte_pair_count(data, ranks), piece
    assert path.is_file()
    assert all(groups.get(token) == rank for token, rank in ranks.items() if len(token) > 1)  # every rank, read back
    assert groups.get(b"\xff\xfe\xfd\xfc") is None and groups.get(b"\x00\x00") is None


@pytest.mark.parametrize("damage", ["old format", "format 2", "parts that do not fit", "not a whole array", "cut short"])
def test_a_rank_groups_file_of_another_format_or_damaged_is_made_again(damage: str, ranks: dict[bytes, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert tokens._cl100k_ranks() is not None
    (path,) = tokens.cache_dir().glob("cl100k_base-groups-*.marshal")
    pairs, prefixes, ends, blob = tokens.rank_groups(ranks)
    if damage == "old format":
        path.write_bytes(marshal.dumps(("ctx-tui cl100k rank groups 1", pairs, {b"ing": blob[:10]})))
    elif damage == "format 2":  # the blobs inside the marshal-ed tuple
        path.write_bytes(marshal.dumps((f"ctx-tui cl100k rank groups 2 {sys.byteorder}", pairs, prefixes, ends, blob)))
    elif damage == "parts that do not fit":
        tokens._write_groups(path, pairs, prefixes, ends, blob[:-1])
    elif damage == "not a whole array":
        tokens._write_groups(path, pairs, prefixes[:-1], ends, blob)
    else:
        tokens._write_groups(path, pairs, prefixes, ends, blob)
        path.write_bytes(path.read_bytes()[: -len(blob)])
    assert tokens._read_groups(path) is None
    groups = tokens._cl100k_ranks()  # made again (by a child process), then read
    assert groups is not None and groups.get(b"ing") == ranks[b"ing"]
    assert tokens._read_groups(path) is not None


def test_the_rank_groups_blobs_stay_in_their_file(ranks: dict[bytes, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A dashboard holds the groups it decoded, not the whole 1.6 MB of blobs; they are read from the file when asked for."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert tokens._cl100k_ranks() is not None
    (path,) = tokens.cache_dir().glob("cl100k_base-groups-*.marshal")
    groups = tokens._read_groups(path)
    assert groups is not None and isinstance(groups._blob, tokens._BlobsInFile)
    assert all(groups.get(token) == rank for token, rank in ranks.items() if len(token) > 1)


def test_rank_groups_are_read_where_os_has_no_pread(ranks: dict[bytes, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without ``os.pread`` (Windows) the groups file is read whole, its blobs held: the same ranks, no AttributeError."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert tokens._cl100k_ranks() is not None
    (path,) = tokens.cache_dir().glob("cl100k_base-groups-*.marshal")
    monkeypatch.delattr(os, "pread")
    groups = tokens._read_groups(path)
    assert groups is not None and type(groups._blob) is bytes
    assert all(groups.get(token) == rank for token, rank in ranks.items() if len(token) > 1)
    path.write_bytes(path.read_bytes()[:-1000])  # cut short: not a groups file, as with pread
    assert tokens._read_groups(path) is None


def test_the_first_rank_groups_are_built_in_a_child_process(tmp_path: Path) -> None:
    """A first start (no groups file) leaves the ranks' reading to a child: tiktoken never loads here (~24 MiB RSS kept)."""
    import subprocess
    import sys

    probe = ("import sys; from ctx_tui import tokens; from ctx_tui.token_pieces import RankGroups; "
             "groups = tokens._cl100k_ranks(); "
             "print(isinstance(groups, RankGroups), 'tiktoken.load' in sys.modules, 'hashlib' in sys.modules, groups.get(b'ing'))")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert first.stdout.split() == ["True", "False", "False", str(tokens._cl100k_spec()["mergeable_ranks"][b"ing"])]
    assert len(list((tmp_path / "ctx-tui").glob("cl100k_base-groups-*.marshal"))) == 1


def test_a_gpt_model_without_o200k_cached_does_not_import_tiktoken(tmp_path: Path) -> None:
    """A Codex session's texts counted by pieces: tiktoken is not imported to learn that o200k is not cached."""
    import subprocess
    import sys

    probe = ("import sys; from ctx_tui import tokens; tokens.count_by_pieces(); "
             "print(tokens.count_tokens('the reader keeps offsets', 'gpt-5.1-codex'), 'tiktoken' in sys.modules)")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken")}
    got = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert got.stdout.split() == ["4", "False"]


def test_rank_groups_are_built_here_when_no_child_can_run(ranks: dict[bytes, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sys

    from ctx_tui.token_pieces import RankGroups

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    groups = tokens._cl100k_ranks()
    assert isinstance(groups, RankGroups)
    assert groups.get(b"ing") == ranks[b"ing"] and groups.get(b"in") == ranks[b"in"]
    assert len(list((tmp_path / "ctx-tui").glob("cl100k_base-groups-*.marshal"))) == 1


def test_rank_groups_keep_a_bounded_number_decoded(ranks: dict[bytes, int], monkeypatch: pytest.MonkeyPatch) -> None:
    from ctx_tui import token_pieces
    from ctx_tui.token_pieces import RankGroups
    from ctx_tui.tokens import rank_groups

    monkeypatch.setattr(token_pieces, "MAX_DECODED_GROUPS", 8)
    groups = RankGroups(*rank_groups(ranks))
    text = render_entries(_live(ALL_FIXTURES[0]))[:50_000]
    pieces = set(cut(text) or [])
    assert len(pieces) > 500
    for piece in pieces:
        data = piece.encode("utf-8")
        assert byte_pair_count(data, groups) == byte_pair_count(data, ranks), piece
        assert len(groups._groups) <= 8


def _live(name: str) -> list[Any]:
    session = Session(fixture(name))
    session.poll()
    return [w.entry for w in session.state().live]


def test_a_damaged_rank_group_leaves_the_count_to_tiktoken_and_the_file_is_made_again(ranks: dict[bytes, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, encoding: Any) -> None:
    from ctx_tui.token_pieces import RankGroups
    from ctx_tui.tokens import rank_groups

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    pairs, prefixes, ends, blob = rank_groups(ranks)
    blob = b"\x00" * len(blob)  # every group damaged
    path = tmp_path / "groups.marshal"
    path.write_bytes(b"x")
    counter = PieceCounter(tmp_path / "pieces", lambda: RankGroups(pairs, prefixes, ends, blob, path))
    assert counter.count("hello world, unseen pieces") is None and not path.exists()
    assert not counter.can_count()
    monkeypatch.setattr(tokens, "_pieces", counter)
    assert tokens.count_tokens("hello world, unseen pieces") == len(encoding.encode_ordinary("hello world, unseen pieces"))


def test_a_read_error_on_the_held_groups_file_leaves_the_count_to_tiktoken(ranks: dict[bytes, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The blobs are read when a group is first asked for: an I/O error then (EIO, NFS's ESTALE on a
    file replaced from another machine) is a group that cannot be read, not an error out of the count."""
    import errno

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert tokens._cl100k_ranks() is not None
    (path,) = tokens.cache_dir().glob("cl100k_base-groups-*.marshal")
    groups = tokens._read_groups(path)
    assert groups is not None

    def stale(fd: int, size: int, offset: int) -> bytes:
        raise OSError(errno.ESTALE, "Stale file handle")

    monkeypatch.setattr(os, "pread", stale)
    counter = PieceCounter(tmp_path / "pieces", lambda: groups)
    assert counter.count("hello world, unseen pieces") is None  # tiktoken counts it
    assert counter.count("other unseen words") is None


@pytest.mark.parametrize("content", [
    b"",
    b"\x00garbage\xff" * 50,
    marshal.dumps({"the": 1}),
    marshal.dumps(("ctx-tui piece counts 1", "another pattern", ("the",), b"\x01")),
    "pieces",  # replaced below by a table whose counts are wrong in shape
])
def test_a_damaged_or_foreign_table_is_ignored_and_replaced(content: bytes | str, ranks: dict[bytes, int], encoding: Any, tmp_path: Path) -> None:
    from ctx_tui.token_pieces import _FORMAT, PATTERN

    path = cache_path(tmp_path)
    if content == "pieces":
        content = marshal.dumps((_FORMAT, PATTERN, (" the", " cat"), b"\x05"))  # two pieces, one count
    assert isinstance(content, bytes)
    path.write_bytes(content)
    counter = PieceCounter(path, lambda: ranks)
    text = "the cat sat on the mat"
    assert counter.count(text) == len(encoding.encode_ordinary(text))
    counter.save()
    assert PieceCounter(path, _no_ranks).count(text) == len(encoding.encode_ordinary(text))


def test_a_zero_count_in_the_table_is_refused(ranks: dict[bytes, int], tmp_path: Path) -> None:
    from ctx_tui.token_pieces import _FORMAT, PATTERN

    path = cache_path(tmp_path)
    path.write_bytes(marshal.dumps((_FORMAT, PATTERN, ("the",), b"\x00")))
    assert PieceCounter(path, lambda: ranks).count("the") == 1


def test_the_table_is_bounded_and_keeps_the_recent_pieces(ranks: dict[bytes, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from ctx_tui import token_pieces

    monkeypatch.setattr(token_pieces, "MAX_PIECES", 50)
    path = cache_path(tmp_path)
    letters = "abcdefghij"

    def words(batch: int) -> list[str]:  # 40 pieces of letters, none shared between batches
        return [f" q{letters[batch]}{letters[i // 10]}{letters[i % 10]}z" for i in range(40)]

    for batch in range(4):
        counter = PieceCounter(path, lambda: ranks)
        counter.count("".join(words(batch)))
        counter.save()
    (_, _, pieces, counts) = marshal.loads(path.read_bytes())
    assert len(pieces) == len(counts) == 50
    assert set(words(3)) <= set(pieces)  # the last call's pieces survive
    long = "=" * (MAX_PIECE_CHARS + 1)
    counter = PieceCounter(path, lambda: ranks)
    assert counter.count(long) == byte_pair_count(long.encode(), ranks)
    counter.save()
    assert long not in marshal.loads(path.read_bytes())[2]


def test_a_long_lived_counter_holds_a_bounded_table(ranks: dict[bytes, int], encoding: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The dashboard counts for hours: what it holds stays under MAX_HELD, the recent pieces kept, every count exact."""
    from ctx_tui import token_pieces

    monkeypatch.setattr(token_pieces, "MAX_PIECES", 50)
    monkeypatch.setattr(token_pieces, "MAX_HELD", 60)
    counter = PieceCounter(cache_path(tmp_path), lambda: ranks)
    letters = "abcdefghij"
    for batch in range(10):
        text = "".join(f" q{letters[batch]}{letters[i // 10]}{letters[i % 10]}z" for i in range(30)) + " the cat"
        assert counter.count(text) == len(encoding.encode_ordinary(text))
        assert counter._counts is not None
        assert len(counter._counts) <= 60 and len(counter._used) <= 60
    assert " qjaaz" in counter._counts and " the" in counter._counts  # the last text's pieces survive
    counter.save()
    (_, _, pieces, _) = marshal.loads(cache_path(tmp_path).read_bytes())
    assert len(pieces) <= 50 and " qaaaz" not in pieces and " qjcjz" in pieces


def test_counting_from_several_threads_is_exact(ranks: dict[bytes, int], encoding: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import threading

    from ctx_tui import token_pieces

    monkeypatch.setattr(token_pieces, "MAX_PIECES", 40)
    monkeypatch.setattr(token_pieces, "MAX_HELD", 50)  # trimmed all the time, while the other thread counts
    counter = PieceCounter(cache_path(tmp_path), lambda: ranks)
    texts = [f"item {n}: the loader retries {n * 7} times (src/x{n % 13}.py)\n" * 3 for n in range(300)]
    expected = [len(encoding.encode_ordinary(text)) for text in texts]
    got: dict[int, list[int | None]] = {}

    def work(name: int) -> None:
        got[name] = [counter.count(text) for text in texts]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == {n: expected for n in range(3)}
    counter.save()
    assert PieceCounter(cache_path(tmp_path), lambda: ranks).count(texts[-1]) == expected[-1]


def test_gpt_models_count_by_pieces_when_they_count_cl100k(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, encoding: Any) -> None:
    """A Codex session (gpt-*) without o200k in tiktoken's cache is counted in cl100k: by pieces, no encoder built."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(tokens, "_o200k_cached", lambda: False)
    monkeypatch.setattr(tokens, "_pieces", None)
    built: list[str] = []
    real = tokens._encoding

    def recording(name: str) -> Any:
        built.append(name)
        return real(name)

    monkeypatch.setattr(tokens, "_encoding", recording)
    tokens.count_by_pieces()
    text = "apply_patch: the reader keeps offsets — 42 rows\n"
    assert tokens.count_tokens(text, "gpt-5.1-codex") == len(encoding.encode_ordinary(text))
    assert tokens.token_source("gpt-5.1-codex") == "tiktoken:cl100k_base"
    assert tokens.CL100K not in built
    tokens.end_piece_counts()


def test_the_dashboard_counts_by_pieces_while_it_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, encoding: Any) -> None:
    """`ctx-tui FILE` counts without tiktoken's encoder (~28 MiB less) and keeps what it learnt for the next start."""
    from ctx_tui import heap
    from ctx_tui.cli import dashboard_cmd
    from ctx_tui.ui.app import DashboardApp

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(tokens, "_pieces", None)
    seen: list[int] = []

    def run(self: DashboardApp) -> None:
        assert tokens._pieces is not None
        seen.append(tokens.count_tokens("the dashboard counts — by pieces"))

    monkeypatch.setattr(DashboardApp, "run", run)
    monkeypatch.setattr(heap, "use_one_arena", lambda: True)  # not in the test process: its threads keep their arenas
    path = fixture(ALL_FIXTURES[0])
    assert dashboard_cmd._run(path, tmp_path) == 0
    assert seen == [len(encoding.encode_ordinary("the dashboard counts — by pieces"))]
    assert tokens._pieces is None and cache_path(tmp_path / "cache" / "ctx-tui").is_file()


def test_past_the_merge_budget_new_pieces_are_left_to_tiktoken(ranks: dict[bytes, int], encoding: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A long Chinese or Japanese session would keep the dashboard merging in Python: past the budget tiktoken counts."""
    from ctx_tui import token_pieces

    monkeypatch.setattr(token_pieces, "MERGE_BUDGET_S", 0.0)
    counter = PieceCounter(cache_path(tmp_path), lambda: ranks)
    first, other = "日本語のテキストを処理する関数", "データベースを更新しました"
    assert counter.count(first) == len(encoding.encode_ordinary(first))  # the budget is spent by this merge
    assert counter.count(other) is None  # a new piece: not merged here
    assert counter.count(first) == len(encoding.encode_ordinary(first))  # known pieces still are
    monkeypatch.setattr(tokens, "_pieces", counter)
    assert tokens.count_tokens(other) == len(encoding.encode_ordinary(other))
    assert tokens.token_source() == "tiktoken:cl100k_base"


def test_an_unwritable_cache_folder_only_costs_time(ranks: dict[bytes, int], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    counter = PieceCounter(cache_path(blocker / "cache"), lambda: ranks)
    assert counter.count("hello world") == 2
    counter.save()  # no exception, nothing written
    assert blocker.read_text() == "not a folder"


def test_without_ranks_the_count_is_left_to_the_caller(tmp_path: Path) -> None:
    counter = PieceCounter(tmp_path / "pieces", lambda: None)
    assert counter.count("hello world") is None and not counter.can_count()


def test_the_api_command_counts_by_pieces_only_while_it_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from ctx_tui.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"action": "compress", "context": "The loader retries. " * 400, "options": {"maxLength": 100}}))
    assert main(["api", "--request", str(request)]) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply["success"] and reply["metadata"]["compressedLength"] == tokens.count_tokens(reply["context"])
    assert tokens._pieces is None  # the test process counts with tiktoken again
    assert cache_path(tmp_path / "cache" / "ctx-tui").is_file()


def test_unreadable_ranks_make_estimates_and_say_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(tokens, "_pieces", None)
    monkeypatch.setattr(tokens, "_cl100k_ranks", lambda: None)  # the bundled file is there but broken
    monkeypatch.setattr(tokens, "_encoding", lambda name: None)
    tokens.count_by_pieces()
    assert tokens._pieces is not None
    assert tokens.count_tokens("abcdefgh") == tokens.estimate_tokens("abcdefgh")
    assert tokens.token_source() == "estimate"


def test_count_tokens_by_pieces_is_exact_and_says_tiktoken(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, encoding: Any) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(tokens, "_pieces", None)
    tokens.count_by_pieces()
    assert tokens._pieces is not None
    for text in ("hello world — done", "café crème", "x" * 100):
        assert tokens.count_tokens(text) == len(encoding.encode_ordinary(text))
    tokens._encoding.cache_clear()
    try:
        assert tokens.token_source() == "tiktoken:cl100k_base"
        assert tokens._encoding.cache_info().currsize == 0  # said without building the encoder
    finally:
        tokens._encoding.cache_clear()
    tokens.end_piece_counts()
    assert cache_path(tokens.cache_dir()).is_file() and tokens._pieces is None


def test_no_bundled_encoding_means_estimates_and_no_table(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(tokens, "_pieces", None)
    monkeypatch.setattr(tokens, "_cl100k_source", lambda: None)
    monkeypatch.setattr(tokens, "_encoding", lambda name: None)
    tokens.count_by_pieces()
    assert tokens._pieces is None
    assert tokens.count_tokens("abcdefgh") == tokens.estimate_tokens("abcdefgh")
    assert tokens.token_source() == "estimate"
    tokens.end_piece_counts()
    assert not os.path.exists(cache_path(tokens.cache_dir()))


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_the_dashboards_figures_are_the_same_with_piece_counts(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """What the dashboard shows from token counts (the live window, the heat-map's positions, the
    tiers, the tracked items) is the same counted by pieces (`ctx-tui FILE`) as by tiktoken."""
    from ctx_tui.config import Config
    from ctx_tui.memory.view import build_memory_view

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def figures(project: Path) -> tuple[Any, ...]:
        session = Session(fixture(name), Config())
        session.poll()
        state = session.state()
        view = build_memory_view(project, session, Config(), state=state)
        live = [(w.entry.seq, w.offset, w.tokens, w.position) for w in state.live]
        tiers = [(t.name, t.count, t.tokens, t.items) for t in view.tiers]
        statuses = re.sub(r"created_at='[^']*'", "", repr(view.statuses).replace(str(project), "PROJECT"))
        return state.context_tokens, state.token_source, live, tiers, statuses

    monkeypatch.setattr(tokens, "_pieces", None)
    by_tiktoken = figures(tmp_path / "a")
    tokens.count_by_pieces()
    try:
        by_pieces = figures(tmp_path / "b")
    finally:
        tokens.end_piece_counts()
    assert by_pieces == by_tiktoken


@pytest.mark.parametrize("name", [ALL_FIXTURES[0], ALL_FIXTURES[2], ALL_FIXTURES[4]])
def test_api_answers_are_the_same_with_piece_counts(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """compress and inject on a real window (the Japanese one included): byte for byte, metadata too."""
    from ctx_tui.api import handle

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(tokens, "_pieces", None)
    session = Session(fixture(name))
    session.poll()
    text = render_entries(w.entry for w in session.state().live)[-40_000:]
    requests = [{"action": "compress", "context": text, "options": {"strategy": s, "compressionRatio": 0.25}}
                for s in ("semantic", "summary", "truncate")]
    requests.append({"action": "inject", "context": text, "options": {"maxLength": 3000, "query": "error"}})
    for n, request in enumerate(requests):
        answers = []
        for by_pieces in (False, True):
            if by_pieces:
                tokens.count_by_pieces()
            answer = handle(request, tmp_path / f"project-{n}-{by_pieces}")
            tokens.end_piece_counts()
            answer["metadata"].pop("duration")
            answers.append(answer)
        assert answers[0]["success"] and answers[0] == answers[1], request["options"]
