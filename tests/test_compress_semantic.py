"""What the semantic strategy keeps first on a rendered window: user turns, open errors, the plan; boilerplate last."""

from __future__ import annotations

from ctx_tui.compress import compress_text
from ctx_tui.memory.items import TrackedItem

FILLER = (
    "I looked through the module again and the structure seems reasonable overall, "
    "though a few of the helper functions could probably be tidied up later on."
)


def _window() -> str:
    parts = [
        "### [session] system\n"
        + "<system-reminder>DO NOT respond to these messages or otherwise consider them in your response. "
        + "The sandbox permits writes under /workspace only. " * 20
        + "</system-reminder>",
    ]
    for r in range(1, 9):
        parts.append(f"### [session] user · round {r}\nPlease make the importer handle batch_{r}.csv next. Thanks.")
        parts.append("### [session] assistant\n" + " ".join([FILLER] * 12))
    parts.append('### [tools] tool call: TodoWrite\n{"todos": [{"content": "parse batch files", "status": "completed"}, '
                 '{"content": "retry on ETIMEDOUT", "status": "in_progress"}]}')
    parts.append("### [tools] tool call: Bash\n$ pytest tests/test_import.py")
    parts.append("### [tools] tool result: Bash (error)\n```\ncollected 12 items\n"
                 "E   ImportTimeoutError: batch_7.csv took 31.5 s\n1 failed, 11 passed\n```")
    parts.append("### [session] assistant\n" + " ".join([FILLER] * 12))
    return "\n\n".join(parts)


def test_user_turns_open_errors_and_the_plan_survive_strong_compression() -> None:
    text = _window()
    items = [TrackedItem(id="g", type="goal", content="Make the importer resumable after timeouts")]
    result = compress_text(text, "semantic", target_ratio=0.25, items=items)
    assert result.compressed_length <= result.budget
    for r in range(1, 9):  # every user request, though assistant prose is most of the window
        assert f"Please make the importer handle batch_{r}.csv next." in result.text
    assert "Bash failed: E   ImportTimeoutError: batch_7.csv took 31.5 s" in result.text  # no later run: still open
    assert '"retry on ETIMEDOUT", "status": "in_progress"' in result.text  # the latest plan, whole
    assert "Make the importer resumable after timeouts" in result.text
    assert "DO NOT respond to these messages" not in result.text  # boilerplate goes first
    assert "[…]" in result.text


def test_an_error_a_later_run_of_the_same_tool_followed_is_not_kept_first() -> None:
    text = _window() + ("\n\n### [tools] tool call: Bash\n$ pytest tests/test_import.py\n\n"
                        "### [tools] tool result: Bash\n```\n12 passed\n```")
    result = compress_text(text, "semantic", target_ratio=0.25)
    assert "Bash failed:" not in result.text


def test_a_long_tool_output_is_cut_by_lines_inside_its_fence() -> None:
    lines = [f"src/pkg/module_{n}.py:{n * 3}: def handler_{n}(request) -> Response" for n in range(80)]
    text = ("### [session] user · round 1\nWhere is handler_41 defined?\n\n"
            "### [tools] tool call: Bash\n$ grep -rn 'def handler_' src\n\n"
            "### [tools] tool result: Bash\n```\n" + "\n".join(lines) + "\n```")
    result = compress_text(text, "semantic", target_ratio=0.4)
    body = result.text.split("### [tools] tool result: Bash", 1)[1]
    assert body.count("```") == 2 and "\n…\n" in body  # one fence, closed, with the cut marked
    kept = [line for line in lines if line in body]
    assert 0 < len(kept) < len(lines)
    assert lines[41] in body  # the line about what the user asked
    assert result.facts_named_only == 0 and result.retention_rate > 0.3



def test_a_command_the_agent_ran_counts_as_the_measure_counts_it() -> None:
    """A ``$ command`` line whose words read as a statement keeps its command in context
    (``facts.output_units``); choosing must see that too, or commands lose to longer prose
    carrying as few facts (before: 1 of the 12 commands kept, retention 0.29)."""
    commands = [f"$ brew install tool{n} --cask with retries" for n in range(12)]
    parts = ["### [session] user · round 1\nPlease install the tools we listed."]
    for n, command in enumerate(commands):
        parts.append("### [tools] tool call: Bash\n" + command)
        parts.append(f"### [session] assistant\nThat step took {300 + n} ms, and " + FILLER[0].lower() + FILLER[1:])
    result = compress_text("\n\n".join(parts), "semantic", target_ratio=0.4)
    assert all(c in result.text for c in commands)
    assert result.retention_rate >= 0.5
