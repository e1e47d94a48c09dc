"""``ctx-tui statusline``: figures equal to ``stats``, the cache equal to a cold read, hostile input, install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ALL_FIXTURES, CLAUDE_COMPACTED, CODEX_FULL, fixture

from ctx_tui import statusline, usercache
from ctx_tui.actions.hook_install import install_statusline, merge_statusline
from ctx_tui.cli import main
from ctx_tui.config import Config
from ctx_tui.cli.stats_cmd import stats_dict
from ctx_tui.errors import CtxError
from ctx_tui.transcripts.tail import TailScan, follow_tail, read_tail
from ctx_tui.window import Session

ESC = "\x1b"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return cache


def _stats(path: Path) -> dict:
    session = Session(path, Config())
    session.poll()
    return stats_dict(session.state(positions=False), session.config, len(session.live_entries()))


def _run_cli(stdin: bytes, *args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ctx_tui", "statusline", *args],
        input=stdin, capture_output=True, timeout=60, env={**os.environ, **(env or {})}, cwd=cwd,
    )


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_real_transcripts_give_the_same_figure_as_stats(name: str, tmp_path: Path) -> None:
    path = fixture(name)
    status = statusline.compute({"transcript_path": str(path), "cwd": str(tmp_path)})
    expected = _stats(path)
    assert status["context_tokens"] == expected["context_tokens"]
    assert status["context_window"] == expected["context_window"]
    assert status["usage_pct"] == expected["usage_pct"]
    assert status["source"] == "transcript" and not status["estimated"]
    # a second call answers from the cache, the same
    assert statusline.compute({"transcript_path": str(path), "cwd": str(tmp_path)}) == status


def test_the_cli_prints_the_stats_percentage(tmp_path: Path) -> None:
    path = fixture(CLAUDE_COMPACTED)
    done = _run_cli(json.dumps({"transcript_path": str(path), "cwd": str(tmp_path)}).encode(), "--no-color",
                    env={"XDG_CACHE_HOME": str(tmp_path / "c")})
    assert done.returncode == 0 and done.stderr == b""
    line = done.stdout.decode()
    assert line.count("\n") == 1
    assert f"ctx {_stats(path)['usage_pct']:.1f}% 95.2k/200k reported" in line


def test_claude_codes_figures_are_authoritative_and_recorded_for_stats(tmp_path: Path) -> None:
    path = fixture(CLAUDE_COMPACTED)
    session_id = "624a4a58-b34c-462d-a70d-13421c8125a8"
    data = {
        "session_id": session_id,
        "transcript_path": str(path),
        "model": {"id": "claude-sonnet-4-5[1m]", "display_name": "Sonnet 4.5 (1M)"},
        "context_window": {
            "context_window_size": 1_000_000,
            "current_usage": {"input_tokens": 12, "cache_creation_input_tokens": 3_000, "cache_read_input_tokens": 95_000, "output_tokens": 900},
            "used_percentage": 9.8,
        },
    }
    status = statusline.compute(data)
    assert (status["context_tokens"], status["context_window"], status["source"]) == (98_012, 1_000_000, "Claude Code")
    assert "ctx 9.8% 98k/1M reported" in statusline.render(status, 120, color=False)
    stats = _stats(path)
    assert (stats["context_window"], stats["window_source"]) == (1_000_000, "Claude Code")
    assert stats["usage_pct"] == round(100 * 95_152 / 1_000_000, 2)
    # the transcript's figure with Claude Code's window (current_usage null before the first answer)
    status = statusline.compute({**data, "context_window": {"context_window_size": 1_000_000, "current_usage": None}})
    assert (status["context_tokens"], status["context_window"], status["source"]) == (95_152, 1_000_000, "transcript")


def _lines(name: str) -> list[bytes]:
    return fixture(name).read_bytes().splitlines(keepends=True)


def _figure(scan: TailScan) -> tuple:
    decided = scan.usage_seen or scan.compacted
    return (scan.format, scan.tokens if decided else None, scan.estimated, scan.model, scan.window, scan.session_id, scan.cwd)


class Cached:
    """The status line's transcript cache, carried from call to call as the command does."""

    def __init__(self) -> None:
        self.entry: dict | None = None

    def check(self, path: Path) -> None:
        scan, self.entry = follow_tail(str(path), self.entry)
        assert _figure(scan) == _figure(read_tail(path)[0])
        assert self.entry["offset"] == path.read_bytes().rfind(b"\n") + 1


@pytest.mark.parametrize("name", [CLAUDE_COMPACTED, CODEX_FULL])
def test_the_cache_gives_what_a_cold_read_gives_after_appends(name: str, tmp_path: Path) -> None:
    lines = _lines(name)
    data = b"".join(lines)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"")
    cache = Cached()
    # appends cut anywhere, half-written lines included
    cuts = sorted({0, len(data), *range(0, len(data), max(1, len(data) // 37)), len(b"".join(lines[:3])) + 7})
    for start, end in zip(cuts, cuts[1:]):
        with path.open("ab") as fh:
            fh.write(data[start:end])
        cache.check(path)
    full = _stats(fixture(name))
    status = statusline.compute({"transcript_path": str(path), "cwd": str(tmp_path)})
    assert status["usage_pct"] == full["usage_pct"]


def test_the_cache_sees_truncation_replacement_and_rewrites(tmp_path: Path) -> None:
    lines = _lines(CLAUDE_COMPACTED)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines))
    cache = Cached()
    cache.check(path)
    # truncated: back to an earlier state (before the compaction's usage)
    path.write_bytes(b"".join(lines[:60]))
    cache.check(path)
    assert statusline.compute({"transcript_path": str(path)})["context_tokens"] == _stats(path)["context_tokens"]
    # replaced by another file (a new inode), then a same-size rewrite in place
    other = tmp_path / "other.jsonl"
    other.write_bytes(b"".join(lines[:120]))
    os.replace(other, path)
    cache.check(path)
    raw = bytearray(path.read_bytes())
    at = raw.rfind(b'"cache_read_input_tokens":') + len(b'"cache_read_input_tokens":')
    raw[at] = ord("1") if raw[at] != ord("1") else ord("2")
    with path.open("r+b") as fh:  # same size, same inode: the fingerprint catches it
        fh.write(bytes(raw))
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 1))
    cache.check(path)
    assert statusline.compute({"transcript_path": str(path)})["context_tokens"] == _stats(path)["context_tokens"]


def test_after_a_compaction_without_usage_the_figure_is_an_estimate(tmp_path: Path) -> None:
    lines = _lines(CLAUDE_COMPACTED)
    boundary = next(i for i, line in enumerate(lines) if b'"compact_boundary"' in line)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines[: boundary + 2]))
    status = statusline.compute({"transcript_path": str(path)})
    assert status["estimated"] and status["source"] == "estimated"
    assert 0 < status["context_tokens"] < 20_000
    assert "~" in statusline.render(status, 100, color=False)
    assert _stats(path)["usage_source"] == "estimated"


HOSTILE = [
    b"",
    b"not json",
    b"\xff\xfe\x00garbage",
    b"[1, 2, 3]",
    b"null",
    b'{"transcript_path": 5, "cwd": ["x"], "context_window": "big"}',
    b'{"transcript_path": "/dev/null"}',
    b'{"transcript_path": "/"}',
    b'{"transcript_path": "/no/such/file.jsonl", "session_id": "../../etc/passwd"}',
    b'{"context_window": {"context_window_size": -5, "current_usage": {"input_tokens": "x"}, "used_percentage": NaN}}',
    b'{"context_window": {"context_window_size": 1e400, "current_usage": {"input_tokens": 1e300}}}',
    b'{"model": {"id": "\\u001b]52;c;aGk=\\u0007evil\\u001b[31m"}, "session_id": "\\u001b[2J"}',
    b"[" * 100_000,
    b'{"a": "' + b"x" * (2 << 20) + b'"}',
]


@pytest.mark.parametrize("stdin", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_stdin_exits_0_with_a_short_line(stdin: bytes, tmp_path: Path) -> None:
    done = _run_cli(stdin, "--no-color", env={"XDG_CACHE_HOME": str(tmp_path / "c")}, cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr == b""
    out = done.stdout.decode()
    assert out.endswith("\n") and out.count("\n") == 1
    assert 0 < len(out) <= 101
    assert ESC not in out and "\x07" not in out


def test_a_fifo_as_transcript_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    done = _run_cli(json.dumps({"transcript_path": str(fifo)}).encode(), "--no-color",
                    env={"XDG_CACHE_HOME": str(tmp_path / "c")}, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.decode().strip()


def test_escapes_in_the_memory_file_never_reach_the_bar(tmp_path: Path) -> None:
    sessions = tmp_path / ".ctx" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "s1.yaml").write_text(
        "session_id: s1\nitems:\n"
        "- {id: a, type: constraint, importance: high, content: \"Never \\e]52;c;aGk=\\a push \\e[31mred\", entered_round: 1}\n"
        "decay_reported: {a: decayed@1}\n",
        encoding="utf-8",
    )
    status = statusline.compute({"session_id": "s1", "cwd": str(tmp_path)})
    line = statusline.render(status, 100, color=True)
    assert "]52" not in line and "\x07" not in line and "[31m" not in line
    assert "1 fading at last check: Never push red" in line


def test_fading_items_and_pending_promotions(tmp_path: Path) -> None:
    path = fixture(CLAUDE_COMPACTED)
    sessions = tmp_path / ".ctx" / "sessions"
    sessions.mkdir(parents=True)
    memory = sessions / "624a4a58-b34c-462d-a70d-13421c8125a8.yaml"

    def write(extra_refs: str) -> None:
        memory.write_text(
            "session_id: 624a4a58-b34c-462d-a70d-13421c8125a8\nitems:\n"
            "- {id: goal-1, type: goal, importance: high, content: Ship the sync engine for conversations, entered_round: 1}\n"
            f"- {{id: no-push, type: constraint, importance: high, content: Never push to main without a review, entered_round: 2, referenced_rounds: [{extra_refs}]}}\n"
            "- {id: d1, type: decision, importance: medium, content: Use SQLite, entered_round: 2}\n"
            "- {id: gone, type: constraint, importance: high, content: Dismissed one, entered_round: 1, dismissed: true}\n"
            "decay_reported: {goal-1: decayed@1, no-push: out-of-context@3, d1: decayed@2, gone: decayed@1}\n"
            "promotions:\n- {item_id: d1, type: decision, content: Use SQLite, status: pending}\n"
            "- {item_id: goal-1, type: goal, content: x, status: rejected}\n",
            encoding="utf-8",
        )

    write("3")
    data = {"session_id": "624a4a58-b34c-462d-a70d-13421c8125a8", "transcript_path": str(path), "cwd": str(tmp_path)}
    status = statusline.compute(data)
    assert (status["decayed_high"], status["top_decayed"], status["pending_promotions"]) == (2, "Never push to main without a review", 1)
    assert statusline.render(status, 200, color=False) == (
        "ctx 47.6% 95.2k/200k reported · 2 fading at last check: Never push to main without a review · 1 promotion pending"
    )
    write("3, 9")  # referenced after it was flagged: no longer fading
    status = statusline.compute(data)
    assert (status["decayed_high"], status["top_decayed"]) == (1, "Ship the sync engine for conversations")


def test_the_line_fits_the_width_and_keeps_the_usage() -> None:
    status = {
        "usage_pct": 85.3, "context_tokens": 170_600, "context_window": 200_000, "source": "transcript",
        "estimated": False, "handoff_suggested": True, "decayed_high": 3,
        "top_decayed": "Never push to main without a review by someone from the platform team",
        "pending_promotions": 2,
    }
    full = statusline.render(status, 500, color=False)
    assert full == (
        "ctx 85.3% 170.6k/200k reported · handoff suggested: ctx-tui handoff · "
        "3 fading at last check: Never push to main without a review by someone from the platform team · 2 promotions pending"
    )
    for width in (10, 20, 30, 45, 60, 80, 100, 140):
        line = statusline.render(status, width, color=False)
        assert len(line) <= max(width, 8), (width, line)
        assert line.startswith("ctx 85"), line
    assert "fading at last check: Never push" in statusline.render(status, 120, color=False)
    coloured = statusline.render(status, 500, color=True)
    assert ESC in coloured and "\x1b[1;31m" in coloured  # past the handoff threshold: alert colour


def test_no_color_env_and_flag(tmp_path: Path) -> None:
    stdin = json.dumps({"transcript_path": str(fixture(CLAUDE_COMPACTED))}).encode()
    env = {"XDG_CACHE_HOME": str(tmp_path / "c")}
    assert ESC in _run_cli(stdin, env=env).stdout.decode()
    assert ESC not in _run_cli(stdin, env={**env, "NO_COLOR": "1"}).stdout.decode()
    assert ESC not in _run_cli(stdin, "--no-color", env=env).stdout.decode()
    assert len(_run_cli(stdin, "--no-color", "--width", "12", env=env).stdout.decode().strip()) <= 12


HEAVY = ("pydantic", "yaml", "rich", "textual", "tiktoken", "orjson", "argparse", "typing", "ctx_tui.config")


def _heavy_modules(stdin: bytes, cache: Path, cwd: Path | None = None) -> list[str]:
    code = (
        "import sys; from ctx_tui.cli import main; main(['statusline', '--no-color']); "
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]; "
        "print('HEAVY', heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, timeout=60, cwd=cwd,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    last = done.stdout.decode().splitlines()[-1]
    assert last.startswith("HEAVY "), done.stdout + done.stderr
    return json.loads(last.removeprefix("HEAVY ").replace("'", '"'))


def test_the_fast_path_imports_nothing_heavy(tmp_path: Path) -> None:
    stdin = json.dumps({"transcript_path": str(fixture(CLAUDE_COMPACTED))}).encode()
    assert _heavy_modules(stdin, tmp_path / "c") == []


def test_a_memory_file_written_by_ctx_tui_is_summarised_without_yaml(tmp_path: Path) -> None:
    """The notes record session_store writes gives the summary the YAML gives, without PyYAML."""
    import yaml

    from ctx_tui.memory import session_notes
    from ctx_tui.memory.items import TrackedItem
    from ctx_tui.memory.session_store import Promotion, update_session_memory
    from ctx_tui.paths import session_memory_path

    def change(memory) -> None:
        for item_id, kind, content in (("g", "goal", "Ship the sync engine"), ("c", "constraint", "Never push to main"),
                                       ("d", "decision", "Use SQLite")):
            memory.upsert_item(TrackedItem(id=item_id, type=kind, content=content, entered_round=1))
        memory.decay_reported.update({"g": "decayed@1", "c": "out-of-context@2", "d": "decayed@1"})
        memory.promotions.append(Promotion(item_id="d", type="decision", content="Use SQLite"))

    update_session_memory(tmp_path, "s1", change)
    path = session_memory_path(tmp_path, "s1")
    expected = {"pending": 1, "flagged": 2, "top": "Never push to main"}
    assert session_notes.status_summary(yaml.safe_load(path.read_text())) == expected
    assert session_notes.read_status(path) == expected
    stdin = json.dumps({"session_id": "s1", "cwd": str(tmp_path)}).encode()
    assert _heavy_modules(stdin, tmp_path / "c") == []
    assert statusline.compute({"session_id": "s1", "cwd": str(tmp_path)})["decayed_high"] == 2

    path.write_text(path.read_text().replace("status: pending", "status: approved"))  # by hand: the YAML is read
    assert session_notes.read_status(path) is None
    assert _heavy_modules(stdin, tmp_path / "c2") == ["yaml"]
    assert statusline.compute({"session_id": "s1", "cwd": str(tmp_path)})["pending_promotions"] == 0


def test_the_high_types_are_the_vocabularys() -> None:
    from ctx_tui.kinds import Importance, ItemType, importance_for
    from ctx_tui.memory.session_notes import HIGH_TYPES

    assert HIGH_TYPES == {t.value for t in ItemType if importance_for(t) is Importance.HIGH}


def test_no_memory_is_the_summary_of_nothing() -> None:
    from ctx_tui.memory.session_notes import status_summary

    assert statusline.NO_MEMORY == status_summary(None) == status_summary({"items": "x", "promotions": 3})


# -- install ------------------------------------------------------------------------------------
def test_install_merges_and_is_idempotent(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}))
    result = install_statusline(tmp_path, base="/opt/ctx-tui")
    assert result.action == "added"
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["hooks"]["Stop"][0]["hooks"][0]["command"] == "x"
    assert data["statusLine"] == {"type": "command", "command": "/opt/ctx-tui statusline", "padding": 0}
    before = settings.read_bytes()
    assert install_statusline(tmp_path, base="/opt/ctx-tui").action == "unchanged"
    assert settings.read_bytes() == before
    # the executable moved: the command is updated, the user's padding kept
    data["statusLine"]["padding"] = 2
    settings.write_text(json.dumps(data))
    assert install_statusline(tmp_path, base="/new/ctx-tui").action == "updated"
    assert json.loads(settings.read_text())["statusLine"] == {"type": "command", "command": "/new/ctx-tui statusline", "padding": 2}


def test_install_never_replaces_another_status_line_without_force(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"statusLine": {"type": "command", "command": "npx ccstatusline"}}))
    before = settings.read_bytes()
    with pytest.raises(CtxError, match="already has a status line.*--force"):
        install_statusline(tmp_path, base="/opt/ctx-tui")
    assert settings.read_bytes() == before
    result = install_statusline(tmp_path, base="/opt/ctx-tui", force=True)
    assert result.action == "replaced" and result.previous == {"type": "command", "command": "npx ccstatusline"}
    assert json.loads(settings.read_text())["statusLine"]["command"] == "/opt/ctx-tui statusline"


def test_install_refuses_invalid_json_and_writes_nothing(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus",')
    monkeypatch.chdir(tmp_path)
    assert main(["statusline", "install"]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert settings.read_text() == '{"model": "opus",'


def test_install_cli_user_and_print(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    claude_home = tmp_path / "claude-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude_home))
    monkeypatch.chdir(tmp_path)
    assert main(["statusline", "install", "--print"]) == 0
    assert json.loads(capsys.readouterr().out)["statusLine"]["command"].endswith(" statusline")
    assert not (claude_home / "settings.json").exists()
    assert main(["statusline", "install", "--user"]) == 0
    assert "statusLine" in json.loads((claude_home / "settings.json").read_text())
    assert not (tmp_path / ".claude").exists()


def test_merge_does_not_modify_its_argument() -> None:
    settings = {"statusLine": {"type": "command", "command": "/a/ctx-tui statusline"}}
    merged, action = merge_statusline(settings, base="/b/ctx-tui")
    assert action == "updated" and settings["statusLine"]["command"] == "/a/ctx-tui statusline"
    assert merged["statusLine"]["command"] == "/b/ctx-tui statusline"


def test_reports_are_kept_per_session(tmp_path: Path) -> None:
    assert usercache.claude_code_report("nope") is None
    assert usercache.record_claude_code_report("s/1", {"context_window_size": 1000, "recorded_at": 1})
    assert not usercache.record_claude_code_report("s/1", {"context_window_size": 1000, "recorded_at": 2})
    assert usercache.claude_code_report("s/1")["context_window_size"] == 1000


@pytest.mark.parametrize("bad", [-500_000, 2**64 - 1])
def test_implausible_usage_is_ignored_as_stats_ignores_it(bad: int, tmp_path: Path) -> None:
    lines = _lines(CLAUDE_COMPACTED)
    last = json.loads(next(line for line in reversed(lines) if b'"usage"' in line))
    last["message"]["usage"]["cache_read_input_tokens"] = bad
    last["message"]["id"] = "msg_bad"
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines) + json.dumps(last).encode() + b"\n")
    status = statusline.compute({"transcript_path": str(path)})
    assert status["context_tokens"] == _stats(path)["context_tokens"] == 95_152


def test_a_window_nobody_states_is_said_unknown() -> None:
    status = {"usage_pct": None, "context_tokens": 95_152, "context_window": 0, "source": "transcript", "estimated": False,
              "handoff_suggested": False, "decayed_high": 0, "top_decayed": None, "pending_promotions": 0}
    assert statusline.render(status, 100, color=False) == "ctx 95.2k (window unknown: set window.sizes)"
    assert statusline.render(status, 12, color=False) == "ctx 95.2k"
