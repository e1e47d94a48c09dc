"""``ctx-tui api``: the acceptance cases TC-01..TC-10 of the service contract, through a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctx_tui.api import handle_text
from ctx_tui.compress.blocks import split_blocks
from ctx_tui.tokens import count_tokens
from ctx_tui.transcripts.discover import claude_project_dir
from test_compress_strategies import _corpus, _intact, planted_text

MINI = [
    {"type": "user", "sessionId": "mini-1", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z",
     "message": {"role": "user", "content": "Please fix the failing test in tests/test_sync.py"}},
    {"type": "assistant", "sessionId": "mini-1", "uuid": "a1", "timestamp": "2026-01-01T00:00:01Z",
     "message": {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "text", "text": "Running the tests first."},
                             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q tests/test_sync.py"}}],
                 "usage": {"input_tokens": 100, "output_tokens": 20}}},
    {"type": "user", "sessionId": "mini-1", "uuid": "u2", "timestamp": "2026-01-01T00:00:02Z",
     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1 failed, 11 passed"}]}},
    {"type": "assistant", "sessionId": "mini-1", "uuid": "a2", "timestamp": "2026-01-01T00:00:03Z",
     "message": {"id": "m2", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "text", "text": "One test fails on KeyError in sync_state."}],
                 "usage": {"input_tokens": 150, "output_tokens": 10}}},
]


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A project folder whose newest Claude Code session is the small transcript above."""
    project = tmp_path / "proj"
    project.mkdir()
    sessions = claude_project_dir(project)
    sessions.mkdir(parents=True)
    (sessions / "mini-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in MINI), encoding="utf-8")
    (project / "MEMORY.md").write_text("## Decisions\n- The sync state lives in sync_state.json\n", encoding="utf-8")
    return project


def local(request: Any, cwd: Path) -> dict[str, Any]:
    """The same request in process (set-up and follow-up steps; the case itself goes through ``api``)."""
    return handle_text(request if isinstance(request, str) else json.dumps(request), cwd)


def api(request: Any, cwd: Path) -> dict[str, Any]:
    raw = request if isinstance(request, str) else json.dumps(request)
    done = subprocess.run(
        [sys.executable, "-m", "ctx_tui", "api"], input=raw, capture_output=True, text=True, cwd=cwd,
        env=os.environ.copy(), timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.strip().split("\n")
    assert len(lines) == 1  # one JSON response
    return json.loads(lines[0])


def test_tc01_collect_session_and_tools(project: Path) -> None:
    out = api({"action": "collect", "options": {"sources": ["session", "tools"]}}, project)
    assert out["success"] is True
    ctx = out["context"]
    assert "### [session] user · round 1\nPlease fix the failing test" in ctx
    assert "### [tools] tool call: Bash\n$ pytest -q tests/test_sync.py" in ctx
    assert "1 failed, 11 passed" in ctx
    assert ctx.index("Please fix") < ctx.index("$ pytest") < ctx.index("1 failed") < ctx.index("KeyError")  # in order
    assert out["metadata"]["counts"] == {"session": 3, "tools": 2}
    assert out["metadata"]["action"] == "collect" and out["metadata"]["duration"] < 200


def test_tc02_collect_session_only(project: Path) -> None:
    out = api({"action": "collect", "options": {"sources": ["session"]}}, project)
    assert out["success"] is True
    assert "[tools]" not in out["context"] and "pytest -q" not in out["context"]
    assert "KeyError" in out["context"]


def test_tc03_compress_summary(project: Path) -> None:
    text, _, _ = planted_text()
    out = api({"action": "compress", "context": text, "options": {"strategy": "summary"}}, project)
    meta = out["metadata"]
    assert out["success"] is True
    assert meta["compressedLength"] <= meta["originalLength"] // 2  # default ratio 0.5
    assert meta["compressedLength"] == count_tokens(out["context"])
    assert meta["retentionRate"] >= 0.9 and meta["duration"] < 200 and meta["action"] == "compress"


def test_tc04_compress_truncate_max_length(project: Path) -> None:
    text = _corpus(3) * 6
    out = api({"action": "compress", "context": text, "options": {"strategy": "truncate", "maxLength": 1000}}, project)
    assert out["success"] is True
    assert out["metadata"]["compressedLength"] <= 1000
    assert _intact(out["context"])


def test_tc05_key_facts_stay_recognisable(project: Path) -> None:
    text, planted, decisions = planted_text(seed=11)
    out = api({"action": "compress", "context": text, "options": {"strategy": "semantic"}}, project)
    assert out["metadata"]["retentionRate"] >= 0.9
    found = [p for p in planted + decisions if p in out["context"]]
    assert len(found) / len(planted + decisions) >= 0.9


def test_tc06_inject_within_max_length(project: Path) -> None:
    compressed = local({"action": "compress", "context": planted_text()[0]}, project)["context"]
    out = api({"action": "inject", "context": compressed, "options": {"maxLength": 8192}}, project)
    assert out["success"] is True and out["metadata"]["duration"] < 200
    assert count_tokens(out["context"]) <= 8192 and compressed in out["context"]
    small = local({"action": "inject", "context": planted_text()[0],
                 "options": {"maxLength": 300, "query": "where does the sync state live"}}, project)
    assert count_tokens(small["context"]) <= 300 and small["metadata"]["injectedLength"] <= 300
    assert small["context"].startswith("## Relevant context")  # retrieved memory first
    assert "sync_state.json" in small["context"]


def test_tc07_clear_by_session_id(project: Path) -> None:
    local({"action": "collect", "options": {"sessionId": "abc-1"}}, project)
    cache = project / ".ctx" / "cache" / "abc-1.json"
    assert cache.is_file()
    out = api({"action": "clear", "options": {"sessionId": "abc-1"}}, project)
    assert out["success"] is True and not cache.exists()
    assert out["metadata"]["clearedKeys"] == ["collect"] and out["metadata"]["clearedSize"] > 0
    assert out["metadata"]["duration"] < 200
    again = local({"action": "clear", "options": {"sessionId": "abc-1"}}, project)
    assert again["success"] is True and again["metadata"]["clearedKeys"] == []


def test_tc08_clear_current_session(project: Path) -> None:
    local({"action": "collect"}, project)
    cache = project / ".ctx" / "cache" / "mini-1.json"
    assert cache.is_file()
    local({"action": "collect", "options": {"sessionId": "other"}}, project)
    out = api({"action": "clear"}, project)
    assert out["success"] is True and out["metadata"]["sessionId"] == "mini-1"
    assert not cache.exists() and (project / ".ctx" / "cache" / "other.json").exists()  # only the current one


def test_tc09_structure_survives_every_strategy(project: Path) -> None:
    text = "\n\n".join(_corpus(seed) for seed in range(4))
    results = []
    for strategy, call in (("summary", api), ("semantic", local), ("truncate", local)):
        out = call({"action": "compress", "context": text, "options": {"strategy": strategy, "compressionRatio": 0.3}}, project)
        results.append(_intact(out["context"]))
        assert all(b.closed for b in split_blocks(out["context"]) if b.kind == "code")
    assert sum(results) / len(results) >= 0.95


def test_tc10_every_action_under_200_ms(project: Path) -> None:
    text = planted_text()[0]
    for request in (
        {"action": "collect"},
        {"action": "compress", "context": text},
        {"action": "inject", "context": text},
        {"action": "clear"},
    ):
        out = api(request, project)
        assert out["success"] is True, out
        assert out["metadata"]["duration"] < 200, (request["action"], out["metadata"])


def test_inject_without_context_uses_the_collected_one(project: Path) -> None:
    local({"action": "collect"}, project)
    out = local({"action": "inject"}, project)
    assert out["success"] is True and "Please fix the failing test" in out["context"]


@pytest.mark.parametrize(
    ("request_text", "field"),
    [
        ("", "request"),
        ("{not json", "request"),
        ("[1, 2]", "request"),
        ('{"context": "x"}', "action"),
        ('{"action": "explode"}', "action"),
        ('{"action": "compress", "context": "x", "options": {"strategy": "zip"}}', "options.strategy"),
        ('{"action": "compress", "context": "x", "options": {"compressionRatio": -0.5}}', "options.compressionRatio"),
        ('{"action": "compress", "context": "x", "options": {"compressionRatio": 1.5}}', "options.compressionRatio"),
        ('{"action": "compress", "context": "x", "options": {"compressionRatio": "half"}}', "options.compressionRatio"),
        ('{"action": "compress", "context": "x", "options": {"maxLength": 0}}', "options.maxLength"),
        ('{"action": "compress", "context": "x", "options": {"maxLenght": 10}}', "options.maxLenght"),
        ('{"action": "collect", "options": {"sources": ["email"]}}', "options.sources"),
        ('{"action": "compress", "options": {}}', "context"),
        ('{"action": "compress", "context": 42}', "context"),
        ('{"action": "compress", "context": [{"nope": 1}]}', "context[0]"),
        ('{"action": "clear", "options": []}', "options"),
        ('{"action": "clear", "extra": 1}', "extra"),
    ],
)
def test_bad_requests_name_the_field(tmp_path: Path, request_text: str, field: str) -> None:
    out = handle_text(request_text, tmp_path)
    assert out["success"] is False and out["error"].startswith(field + ":"), out["error"]
    assert out["context"] == "" and "duration" in out["metadata"]


def test_bad_request_through_the_command_exits_zero(project: Path) -> None:
    out = api('{"action": "compress", "context": "x", "options": {"compressionRatio": 2}}', project)
    assert out["success"] is False and "options.compressionRatio" in out["error"]


def test_collect_without_any_session_names_context(tmp_path: Path) -> None:
    out = handle_text('{"action": "collect"}', tmp_path)
    assert out["success"] is False and out["error"].startswith("context:")


def test_collect_given_messages_marks_sources(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "run the tests"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "{\"command\": \"make test\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    out = handle_text(json.dumps({"action": "collect", "context": messages}), tmp_path)
    assert out["success"] is True
    assert "### [session] user · round 1\nrun the tests" in out["context"]
    assert "### [tools] tool result" in out["context"]
    assert out["metadata"]["counts"]["tools"] >= 1


def test_an_unexpected_failure_is_still_a_json_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctx_tui import api as api_module

    def boom(*_: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.delenv("CTX_TUI_DEBUG", raising=False)
    monkeypatch.setitem(api_module.HANDLERS, "clear", boom)
    out = handle_text('{"action": "clear"}', tmp_path)
    assert out["success"] is False and out["error"] == "clear: internal error: RuntimeError: disk on fire"


def test_collect_given_collected_text_keeps_the_wanted_sources(project: Path) -> None:
    whole = local({"action": "collect"}, project)["context"]
    only_tools = local({"action": "collect", "context": whole, "options": {"sources": ["tools"]}}, project)
    assert only_tools["success"] and "[session]" not in only_tools["context"] and "$ pytest -q" in only_tools["context"]
    assert only_tools["metadata"]["counts"] == {"tools": 2}
    plain = local({"action": "collect", "context": "just some notes"}, project)
    assert plain["context"] == "just some notes" and plain["metadata"]["counts"] == {"session": 1, "tools": 0}


@pytest.mark.parametrize("form", ["--request FILE", "--request=FILE", "stdin"])
def test_the_request_reaches_api_by_every_form(form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``api`` and ``api --request FILE`` skip argparse (cli._plain_api_call); ``--request=FILE`` goes through it."""
    import io

    from ctx_tui.cli import _plain_api_call, main

    monkeypatch.chdir(tmp_path)
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"action": "compress", "context": "The loader retries. " * 300, "options": {"maxLength": 80}}))
    args = {"--request FILE": ["api", "--request", str(request)], "--request=FILE": ["api", f"--request={request}"],
            "stdin": ["api"]}[form]
    if form == "stdin":
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(request.read_bytes())))
    assert _plain_api_call(args) == (form != "--request=FILE")
    assert main(args) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply["success"] and reply["metadata"]["compressedLength"] <= 80
    assert main(["api", "--request", str(tmp_path / "missing.json")]) == 2  # the same error either way
    assert "cannot read" in capsys.readouterr().err
    assert not _plain_api_call(["api", "--request", "--help"])
