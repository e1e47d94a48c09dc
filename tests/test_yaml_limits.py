"""Hostile YAML in config, handoff and session memory files (issue 15, items 4-5).

An alias bomb, nesting 3,000 deep, ``2026-13-45``, a 5,000-digit integer: each
is refused in milliseconds with one line naming the file, the line and the
key; ``handoff check`` exits 2 for unreadable input (1 stays "refused"); a bad
file in the handoff folder is reported and skipped by ``list`` and ``latest``;
a hook answers quickly whatever the config holds.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from actions_support import cli, hook_stdin, register, write_transcript
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hostile import handoff_data

from ctx_tui.actions.hook_install import install_hooks
from ctx_tui.config import ConfigError, load_config
from ctx_tui.errors import CtxError
from ctx_tui.handoff.schema import dump_handoff
from ctx_tui.memory.session_store import load_session_memory, session_memory_path
from ctx_tui.yaml_load import YamlLimits, YamlLoadError, load_yaml

LEVELS = "abcdefghi"
PROMPTS = ["Build the export in src/export.py. Never push to main without a review.", "Add the CSV header."]


def alias_bomb(width: int = 9) -> str:
    lines = [f"{LEVELS[0]}: &{LEVELS[0]} [" + ", ".join(['"lol"'] * width) + "]"]
    for prev, name in zip(LEVELS, LEVELS[1:]):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * width) + "]")
    return "\n".join(lines) + "\n"


HOSTILE_YAML = {
    "alias bomb": (alias_bomb(), "alias bomb"),
    "invalid date": ("decay:\n  threshold_rounds: 2026-13-45\n", "'2026-13-45' is not a valid date"),
    "huge integer": ("decay:\n  threshold_rounds: " + "9" * 5000 + "\n", "an integer of 5,000 digits"),
    "deep nesting": ("decay: " + "[" * 3000 + "]" * 3000 + "\n", "nest"),
    "deep mapping": "".join(" " * i + f"k{i}:\n" for i in range(200)),
    "python tag": ("decay: !!python/object/apply:os.system [echo pwned]\n", "python/object"),
}


def test_alias_bomb_is_small_but_refused_fast() -> None:
    assert len(alias_bomb()) < 700
    started = time.perf_counter()
    with pytest.raises(YamlLoadError, match=r"^cfg\.yaml: line \d+, key '[a-i]': .*alias bomb"):
        load_yaml(alias_bomb(), "cfg.yaml")
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize("name", sorted(HOSTILE_YAML))
def test_hostile_config_is_one_line_naming_file(tmp_path: Path, name: str) -> None:
    case = HOSTILE_YAML[name]
    text, words = case if isinstance(case, tuple) else (case, "nested more than")
    config = tmp_path / ".ctx" / "config.yaml"
    config.parent.mkdir()
    config.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    message = str(caught.value)
    assert message.startswith(str(config)) and "\n" not in message and len(message) < 300
    assert words in message


@pytest.mark.parametrize("name", ["alias bomb", "invalid date", "huge integer", "deep nesting"])
def test_every_command_reports_a_hostile_config_in_one_line(tmp_path: Path, name: str) -> None:
    (tmp_path / ".ctx").mkdir()
    (tmp_path / ".ctx" / "config.yaml").write_text(HOSTILE_YAML[name][0])
    transcript = write_transcript(tmp_path, PROMPTS)
    out = cli(tmp_path, "stats", str(transcript), timeout=30)
    err = out.stderr.decode()
    assert out.returncode == 2 and err.count("\n") == 1 and "config.yaml" in err and "internal error" not in err


@pytest.mark.parametrize("name", ["alias bomb", "deep nesting", "huge integer"])
def test_a_hook_answers_fast_whatever_the_config_holds(tmp_path: Path, name: str) -> None:
    install_hooks(tmp_path)
    transcript = write_transcript(tmp_path, PROMPTS)
    register(tmp_path, "no-push", "constraint", "Never push to main without a review")
    assert cli(tmp_path, "refresh", "--id", "no-push", str(transcript)).returncode == 0
    (tmp_path / ".ctx" / "config.yaml").write_text(HOSTILE_YAML[name][0])
    started = time.monotonic()
    out = cli(tmp_path, "hook", "user-prompt-submit", stdin=hook_stdin(tmp_path, "UserPromptSubmit", transcript), timeout=10)
    # the bound is generous for a loaded machine; bench/bench_hostile.py measures the real figure
    assert time.monotonic() - started < 8
    assert out.returncode == 0 and b"Never push to main" in out.stdout and out.stderr == b""


# -- handoffs --------------------------------------------------------------------------------


def _handoff_with(value_yaml: str) -> str:
    return dump_handoff(handoff_data()) + f"extra_field: {value_yaml}\n"


@pytest.mark.parametrize("value", ["2026-13-45", "9" * 5000, "[" * 3000 + "]" * 3000])
def test_handoff_check_exits_2_for_unreadable_yaml(tmp_path: Path, value: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(_handoff_with(value))
    out = cli(tmp_path, "handoff", "check", "bad.yaml")
    err = out.stderr.decode()
    assert out.returncode == 2 and err.startswith("ctx-tui: bad.yaml") and err.count("\n") == 1


def test_handoff_check_exit_codes_stay_apart(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text(alias_bomb())
    (tmp_path / "vague.yaml").write_text(dump_handoff({**handoff_data(), "suggested_first_action": "Continue the work"}))
    assert cli(tmp_path, "handoff", "check", "bomb.yaml").returncode == 2
    assert cli(tmp_path, "handoff", "check", "vague.yaml").returncode == 1


def test_a_bad_handoff_is_reported_and_skipped_by_list_and_latest(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "handoffs"
    folder.mkdir(parents=True)
    good = {**handoff_data(), "agent_role": "backend", "timestamp": "2026-01-01T00:00:00Z"}
    (folder / "backend-1.yaml").write_text(dump_handoff(good))
    (folder / "zz-date.yaml").write_text(_handoff_with("2026-13-45"))
    (folder / "zz-bomb.yaml").write_text(alias_bomb())
    (folder / "zz-deep.yaml").write_text("a: " + "[" * 3000 + "]" * 3000 + "\n")
    listed = cli(tmp_path, "handoff", "list")
    text = listed.stdout.decode()
    assert listed.returncode == 0 and text.count("unreadable") == 3 and "backend-1.yaml" in text
    latest = cli(tmp_path, "handoff", "latest")
    assert latest.returncode == 0 and "backend-1.yaml" in latest.stdout.decode()
    assert b"internal error" not in latest.stderr + listed.stderr


# -- session memory --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["alias bomb", "invalid date", "huge integer", "deep nesting"])
def test_hostile_session_memory_is_a_clear_error(tmp_path: Path, name: str) -> None:
    path = session_memory_path(tmp_path, "s1")
    path.parent.mkdir(parents=True)
    path.write_text(HOSTILE_YAML[name][0])
    with pytest.raises(CtxError, match="fix or remove the file") as caught:
        load_session_memory(tmp_path, "s1")
    assert "\n" not in str(caught.value)


# -- any YAML --------------------------------------------------------------------------------

_scalars = st.one_of(
    st.sampled_from(["2026-13-45", "2026-01-02", "2026-02-30 10:00:00", "0x1f", "1_000", "190:20:30", "~", "yes", ".inf", "-.nan", "'q'", '"d\\x1b"', "9" * 150]),
    st.integers(-(10**30), 10**30).map(str),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8).map(lambda s: yaml.safe_dump(s).strip().removesuffix("...").strip()),
)


@st.composite
def yaml_documents(draw) -> str:
    """YAML text with anchors, aliases, tags, flow and block nesting: often odd, sometimes invalid."""
    anchors: list[str] = []

    def node(depth: int) -> str:
        kind = draw(st.integers(0, 5 if depth < 6 else 1))
        if kind == 0 or kind == 1:
            value = draw(_scalars)
            tag = draw(st.sampled_from(["", "", "", "!!str ", "!!int ", "!!timestamp ", "!!float ", "!!binary ", "!!python/name:os.system "]))
            text = tag + value
        elif kind == 2 and anchors:
            return "*" + draw(st.sampled_from(anchors))
        elif kind in (2, 3):
            text = "[" + ", ".join(node(depth + 1) for _ in range(draw(st.integers(0, 4)))) + "]"
        else:
            text = "{" + ", ".join(f"k{i}: {node(depth + 1)}" for i in range(draw(st.integers(0, 4)))) + "}"
        if draw(st.booleans()) and draw(st.booleans()):
            name = f"a{len(anchors)}"
            anchors.append(name)
            return f"&{name} {text}"
        return text

    return "\n".join(f"key{i}: {node(0)}" for i in range(draw(st.integers(1, 4)))) + "\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=yaml_documents())
def test_any_yaml_loads_like_safe_load_or_is_one_clear_line(text: str) -> None:
    limits = YamlLimits(max_nodes=2_000, max_digits=100)
    try:
        data = load_yaml(text, "f.yaml", limits)
    except YamlLoadError as exc:
        assert str(exc).startswith("f.yaml: ") and "\n" not in str(exc)
        return
    assert data == yaml.safe_load(text) or data != data  # (NaN is never equal to itself)
