"""Write the bundled demo transcript ctx_tui/demo/demo_session.jsonl: ``python scripts/generate_demo.py``.

A realistic, deterministic Claude Code session (the same bytes on every run):
a developer asks the agent to add per-client rate limiting to a web shop's
API. It carries what the dashboard is about: a goal, constraints and a
preference in the first prompt, a critical fact early on that is never
mentioned again (it fades), a design decision in the middle of the session
(it ends up mid-window), tool calls with growing tool output, and reported
usage that climbs past the 80% handoff threshold of a 200k window.
"""

from __future__ import annotations

import json
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

OUTPUT = Path(__file__).resolve().parents[1] / "ctx_tui" / "demo" / "demo_session.jsonl"
SESSION_ID = "d3e0c0de-7a1e-4c0d-8e5f-00000000c7a1"
MODEL = "claude-sonnet-4-5-20250929"
CWD = "/home/dev/shopfront"
START = datetime(2026, 3, 14, 9, 0, 0, tzinfo=timezone.utc)
BASELINE_TOKENS = 18_500  # system prompt + tool definitions, not in the transcript
FINAL_TOKENS = 171_000  # ~86% of 200k: past the handoff threshold

_NS = uuid.UUID("6f1d3c2e-8a4b-4c1d-9e2f-0a1b2c3d4e5f")

FIRST_PROMPT = (
    "Add per-client rate limiting to the shopfront REST API (src/shopfront/api/) so one "
    "client cannot starve the others. Always keep the public API backwards compatible. "
    "Never touch the migrations folder (db/migrations/); the DBA owns it. "
    "I prefer small commits, each with its tests."
)
FADING_FACT = (
    "Remember: the rate limiter must use the staging Redis at redis://staging-cache:6380/2 "
    "— never the default port 6379, that one is the session store."
)
DECISION = (
    "We'll go with a sliding-window log in a Redis sorted set per client (ZADD + ZREMRANGEBYSCORE "
    "in one MULTI), because a fixed window lets a client burst twice the limit across the "
    "window boundary."
)

#: (user prompt, [(tool name, input, output lines), ...], assistant reply), one per round.
ROUNDS: list[tuple[str, list[tuple[str, dict[str, Any], int]], str]] = [
    (FIRST_PROMPT, [("Glob", {"pattern": "src/shopfront/api/**/*.py"}, 30), ("Read", {"file_path": "src/shopfront/api/app.py"}, 700)],
     "The API is a Starlette app; requests pass through `build_middleware()` in app.py. I'll add the limiter as middleware."),
    (FADING_FACT, [("Read", {"file_path": "src/shopfront/settings.py"}, 600)],
     "Noted. settings.py reads REDIS_URL; I'll add RATE_LIMIT_REDIS_URL for the limiter."),
    ("What does a request to /orders cost today? Check the handlers.", [("Grep", {"pattern": "async def .*order", "path": "src/shopfront/api"}, 40), ("Read", {"file_path": "src/shopfront/api/orders.py"}, 800)],
     "/orders does two queries and one Redis read; a limiter check adds one round trip."),
    ("Sketch the limiter interface first.", [("Write", {"file_path": "src/shopfront/ratelimit/limiter.py"}, 12)],
     "Added `RateLimiter.check(client_id) -> Decision` with a Protocol so storage can be swapped in tests."),
    ("Run the existing tests before we change anything.", [("Bash", {"command": "pytest -q tests/api"}, 500)],
     "118 passed, 2 skipped in 14.2s. Baseline is green."),
    ("How should we count requests?", [("Read", {"file_path": "docs/adr/0007-caching.md"}, 600)],
     "Two options: a fixed window counter (INCR + EXPIRE) or a sliding-window log (sorted set). Trade-offs below."),
    ("Go with the one that cannot be gamed at the boundary.", [],
     DECISION),
    ("Implement it.", [("Write", {"file_path": "src/shopfront/ratelimit/redis_store.py"}, 14), ("Bash", {"command": "pytest -q tests/ratelimit"}, 60)],
     "Sliding-window store written; 9 new tests pass."),
    ("Wire it into the middleware.", [("Edit", {"file_path": "src/shopfront/api/app.py"}, 10), ("Bash", {"command": "pytest -q tests/api"}, 140)],
     "3 failures: tests call the API without an X-Client-Id header."),
    ("Unauthenticated clients should be limited by IP.", [("Edit", {"file_path": "src/shopfront/ratelimit/middleware.py"}, 10), ("Bash", {"command": "pytest -q tests/api"}, 95)],
     "Fallback to the client IP; all 121 API tests pass."),
    ("Return a proper 429 with Retry-After.", [("Edit", {"file_path": "src/shopfront/ratelimit/middleware.py"}, 10), ("Read", {"file_path": "src/shopfront/api/errors.py"}, 180)],
     "429 now carries Retry-After (seconds until the oldest entry leaves the window) and the usual error body."),
    ("Add per-route limits: checkout is stricter.", [("Edit", {"file_path": "src/shopfront/ratelimit/config.py"}, 10), ("Bash", {"command": "pytest -q tests/ratelimit"}, 70)],
     "Per-route limits from config; /checkout allows 10/min, the rest 120/min."),
    ("Load test it locally.", [("Bash", {"command": "locust -f bench/locustfile.py --headless -u 200 -r 50 -t 60s"}, 260)],
     "p95 latency grew 1.8 ms with the limiter on; no errors besides the expected 429s."),
    ("Why is p99 worse on /search?", [("Read", {"file_path": "src/shopfront/api/search.py"}, 240), ("Grep", {"pattern": "await redis", "path": "src/shopfront"}, 55)],
     "/search makes its own Redis call before the limiter's; I'll pipeline them."),
    ("Pipeline them.", [("Edit", {"file_path": "src/shopfront/api/search.py"}, 10), ("Bash", {"command": "pytest -q tests/api/test_search.py"}, 80)],
     "Pipelined; p99 back to baseline."),
    ("Document the headers for the public API.", [("Read", {"file_path": "docs/api/README.md"}, 260), ("Edit", {"file_path": "docs/api/README.md"}, 10)],
     "Documented X-RateLimit-Limit / -Remaining / Retry-After; existing responses keep their shape, so the public API stays backwards compatible."),
    ("Add metrics for rejected requests.", [("Edit", {"file_path": "src/shopfront/ratelimit/middleware.py"}, 10), ("Bash", {"command": "pytest -q"}, 160)],
     "Counter `ratelimit_rejected_total{route}` added; full suite green (412 passed)."),
    ("The CI run failed on the integration job.", [("Bash", {"command": "gh run view 8812 --log-failed"}, 320)],
     "Integration tests start Redis without the limiter database; the job's service definition needs updating."),
    ("Fix the CI service definition.", [("Edit", {"file_path": ".github/workflows/ci.yml"}, 10), ("Bash", {"command": "act -j integration"}, 280)],
     "Integration job passes locally with the extra Redis database."),
    ("Review the whole diff for anything risky.", [("Bash", {"command": "git diff main --stat"}, 40), ("Bash", {"command": "git diff main"}, 420)],
     "One risk: the limiter fails closed if Redis is down. I suggest fail-open with a warning log."),
    ("Agreed, fail open.", [("Edit", {"file_path": "src/shopfront/ratelimit/middleware.py"}, 10), ("Bash", {"command": "pytest -q tests/ratelimit"}, 75)],
     "Fail-open on Redis errors with a rate-limited warning log; tests cover it."),
    ("Split this into the small commits I asked for.", [("Bash", {"command": "git log --oneline main..HEAD"}, 20)],
     "Six commits, each with its tests: interface, store, middleware, 429, per-route limits, metrics."),
    ("What is left before we can ship?", [("Read", {"file_path": "docs/runbooks/deploy.md"}, 300)],
     "Left: staging deploy, a dashboard panel for the rejection counter, and the on-call runbook entry."),
    ("Write the runbook entry.", [("Write", {"file_path": "docs/runbooks/rate-limiting.md"}, 12), ("Read", {"file_path": "docs/runbooks/redis.md"}, 280)],
     "Runbook entry written: how to raise a client's limit, how to disable the limiter per route."),
    ("Prepare the staging deploy.", [("Bash", {"command": "make deploy-plan ENV=staging"}, 360)],
     "The plan adds RATE_LIMIT_REDIS_URL to the staging config; review it before applying."),
]


def _uid(n: int) -> str:
    return str(uuid.uuid5(_NS, str(n)))


def _tool_output(name: str, args: dict[str, Any], lines: int, seed: int) -> str:
    """Plausible tool output of a given length (source listings, test logs, diffs)."""
    target = args.get("file_path") or args.get("command") or args.get("pattern") or name
    if name in ("Edit", "Write"):
        return f"The file {target} has been updated successfully."
    out = []
    for i in range(1, lines + 1):
        k = (seed * 31 + i * 17) % 97
        if name == "Read":
            body = [
                f"def handler_{k}(request: Request) -> Response:",
                "    client = request.headers.get('X-Client-Id', request.client.host)",
                f"    limit = settings.route_limit('{target}', default={60 + k})",
                f"    return await call_next(request)  # line {i}",
                f"# {target}: keep the public response shape unchanged ({k})",
            ][i % 5]
            out.append(f"{i:6}\u2192{body}")
        elif name == "Bash":
            out.append(
                [
                    f"tests/api/test_{k:02d}.py::test_case_{i} PASSED",
                    f"INFO  request_id={seed:04d}-{i:04d} route=/orders status=200 latency_ms={3 + k % 11}.{k % 10}",
                    f"+    limiter = RateLimiter(store, limit={k}, window_s=60)",
                    f"  {i:3d} | {target} | ok",
                ][i % 4]
            )
        else:
            out.append(f"src/shopfront/api/module_{k:02d}.py:{i * 3}: match in {target}")
    return "\n".join(out)


def _thinking(r: int, prompt: str, tools: list[tuple[str, dict[str, Any], int]], reply: str) -> str:
    """The agent's reasoning for a round: what was asked, which tools, what to check."""
    steps = "; ".join(f"{name} {next(iter(args.values()))}" for name, args, _ in tools) or "no tool needed"
    return (
        f"Round {r}. The user asks: {prompt}\n"
        f"Plan: {steps}. Keep the change small and covered by tests; re-check that responses keep "
        f"their current shape and that nothing outside src/shopfront/ratelimit/ changes without a reason.\n"
        f"Expected outcome: {reply}"
    )


class _Writer:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.n = 0
        self.clock = START
        self.parent: str | None = None
        self.msg = 0

    def _base(self, kind: str, seconds: float) -> dict[str, Any]:
        self.n += 1
        self.clock += timedelta(seconds=seconds)
        row: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SESSION_ID,
            "version": "2.0.76",
            "gitBranch": "feature/rate-limit",
            "type": kind,
            "uuid": _uid(self.n),
            "timestamp": self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.n % 1000:03d}Z",
        }
        self.parent = row["uuid"]
        return row

    def user(self, content: Any, seconds: float = 40.0) -> None:
        row = self._base("user", seconds)
        row["message"] = {"role": "user", "content": content}
        self.rows.append(row)

    def assistant(self, blocks: list[dict[str, Any]], context: int, previous: int) -> None:
        """One assistant message, written as one row per content block sharing a message id."""
        self.msg += 1
        message_id = f"msg_demo_{self.msg:04d}"
        usage = {
            "input_tokens": 6,
            "cache_creation_input_tokens": max(0, context - previous - 6),
            "cache_read_input_tokens": previous,
            "output_tokens": 40 + (self.msg * 37) % 400,
        }
        for block in blocks:
            row = self._base("assistant", 6.0)
            row["message"] = {
                "model": MODEL,
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            }
            self.rows.append(row)


def build_rows() -> list[dict[str, Any]]:
    """The demo session's rows, in order."""
    w = _Writer()
    calls = sum(len(tools) + 1 for _, tools, _ in ROUNDS)
    step = (FINAL_TOKENS - BASELINE_TOKENS) / calls
    context = BASELINE_TOKENS
    made = 0
    for r, (prompt, tools, reply) in enumerate(ROUNDS, start=1):
        w.user(prompt)
        thinking = {"type": "thinking", "thinking": _thinking(r, prompt, tools, reply), "signature": "demo"}
        for t, (name, args, lines) in enumerate(tools):
            made += 1
            previous, context = context, int(BASELINE_TOKENS + step * made)
            tool_id = f"toolu_demo_{r:02d}{t}"
            blocks: list[dict[str, Any]] = [{"type": "tool_use", "id": tool_id, "name": name, "input": args}]
            if t == 0:
                blocks.insert(0, thinking)
            w.assistant(blocks, context, previous)
            output = _tool_output(name, args, max(3, lines // 5), r * 10 + t)
            w.user([{"tool_use_id": tool_id, "type": "tool_result", "content": output}], seconds=3.0)
        made += 1
        previous, context = context, int(BASELINE_TOKENS + step * made)
        blocks = [{"type": "text", "text": reply}]
        if not tools:
            blocks.insert(0, thinking)
        w.assistant(blocks, context, previous)
    return w.rows


def main(argv: list[str] | None = None) -> int:
    target = Path(argv[0]) if argv else OUTPUT
    with target.open("w", encoding="utf-8", newline="\n") as fh:
        for row in build_rows():
            fh.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
