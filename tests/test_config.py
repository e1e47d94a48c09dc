"""Config layering (defaults < user < project) and error messages naming file and key."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path

import pytest

from ctx_tui.cli import main
from ctx_tui.config import (
    Config,
    ConfigError,
    PositionConfig,
    WindowConfig,
    effective_values,
    load_config,
    project_config_path,
    user_config_path,
)
from ctx_tui.config_file import validate_config


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults_follow_the_spec(tmp_path: Path) -> None:
    loaded = load_config(tmp_path)
    c = loaded.config
    assert loaded.files == []
    assert (c.decay.enabled, c.decay.threshold_rounds, c.decay.high_importance_threshold) == (True, 20, 10)
    assert c.compression.target_ratio == 0.3
    assert c.compression.preserve_types == ["decision", "constraint", "user_preference"]
    assert (c.retrieval.top_k, c.retrieval.enhance_position) == (5, "start")
    assert c.position.danger_zone == (0.3, 0.7)
    assert c.window.handoff_threshold == 0.8
    assert (c.paths.memory_file, c.paths.handoff_dir) == ("MEMORY.md", ".claude/handoffs")
    assert set(loaded.sources.values()) == {"default"}


def test_project_over_user_over_default(tmp_path: Path) -> None:
    user = _write(user_config_path(), "decay:\n  threshold_rounds: 30\n  auto_refresh: true\nwindow:\n  sizes: {m1: 5000}\n")
    project = _write(project_config_path(tmp_path), "decay:\n  threshold_rounds: 12\nwindow:\n  sizes: {m2: 7000}\n")
    loaded = load_config(tmp_path)
    assert loaded.files == [user, project]
    assert loaded.config.decay.threshold_rounds == 12
    assert loaded.config.decay.auto_refresh is True
    assert loaded.config.decay.high_importance_threshold == 10
    assert loaded.config.window.sizes == {"m2": 7000}  # a map is replaced whole, not merged
    assert loaded.sources["decay.threshold_rounds"] == str(project)
    assert loaded.sources["decay.auto_refresh"] == str(user)
    assert loaded.sources["decay.enabled"] == "default"
    rows = {key: (value, source) for key, value, source in effective_values(loaded)}
    assert rows["decay.threshold_rounds"] == (12, str(project))


def test_user_file_honours_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_config_path() == tmp_path / "xdg" / "ctx-tui" / "config.yaml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert user_config_path() == Path.home() / ".config" / "ctx-tui" / "config.yaml"


@pytest.mark.parametrize(
    "text, key, allowed",
    [
        ("decay:\n  treshold_rounds: 5\n", "decay.treshold_rounds", "threshold_rounds"),
        ("decays: {}\n", "decays", "decay"),
        ("decay:\n  threshold_rounds: soon\n", "decay.threshold_rounds", "integer"),
        ("decay:\n  threshold_rounds: 0\n", "decay.threshold_rounds", "greater than or equal to 1"),
        ("compression:\n  target_ratio: 1.5\n", "compression.target_ratio", "less than or equal to 1"),
        ("position:\n  danger_zone: [0.8, 0.2]\n", "position.danger_zone", "0 <= start < end <= 1"),
        ("retrieval:\n  enhance_position: middle\n", "retrieval.enhance_position", "'start' or 'end'"),
        ("compression:\n  preserve_types: [wish]\n", "compression.preserve_types.0", "user_preference"),
        ("window:\n  sizes: {claude-x: -5}\n", "window.sizes", "positive"),
        ("decay: 5\n", "decay", "dictionary"),
    ],
)
@pytest.mark.parametrize("layer", ["project", "user"])
def test_bad_values_name_file_key_and_what_is_allowed(
    tmp_path: Path, text: str, key: str, allowed: str, layer: str
) -> None:
    path = project_config_path(tmp_path) if layer == "project" else user_config_path()
    _write(path, text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    message = str(info.value)
    assert str(path) in message and f"'{key}'" in message and allowed in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "text, expected",
    [
        ("decay:\n  enabled: [true\n", "invalid YAML at line"),
        ("- just\n- a list\n", "top level must be a mapping"),
        (b"\xff\xfe bad", "not UTF-8"),
    ],
)
def test_unreadable_files_name_the_file(tmp_path: Path, text: str | bytes, expected: str) -> None:
    path = project_config_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert str(path) in str(info.value) and expected in str(info.value)


def test_empty_file_is_all_defaults(tmp_path: Path) -> None:
    _write(project_config_path(tmp_path), "# nothing yet\n")
    assert load_config(tmp_path).config == Config()


def test_memory_path_resolution(tmp_path: Path) -> None:
    c = validate_config({"paths": {"memory_file": "~/notes/MEMORY.md", "handoff_dir": "hand"}})
    assert c.paths.memory_path(tmp_path) == Path.home() / "notes" / "MEMORY.md"
    assert c.paths.handoff_path(tmp_path) == tmp_path / "hand"


def test_config_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    project = _write(project_config_path(tmp_path), "decay:\n  threshold_rounds: 12\n")
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    line = next(l for l in out.splitlines() if l.startswith("decay.threshold_rounds"))
    assert "12" in line and str(project) in line
    assert main(["config", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["values"]["decay.threshold_rounds"] == {"value": 12, "source": str(project)}
    assert data["values"]["decay.enabled"]["source"] == "default"
    _write(project, "decay:\n  bogus: 1\n")
    assert main(["config"]) == 2
    err = capsys.readouterr().err
    assert str(project) in err and "decay.bogus" in err and "Traceback" not in err


def test_documented_config_is_the_default() -> None:
    """docs/memory.md shows every key with its default: keep it true."""
    import yaml

    doc = (Path(__file__).resolve().parents[1] / "docs" / "memory.md").read_text()
    block = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert validate_config(yaml.safe_load(block)) == Config()
    assert set(yaml.safe_load(block)) == {f.name for f in fields(Config)}


def test_hostile_keys_and_values_are_quoted_inert(tmp_path: Path) -> None:
    _write(project_config_path(tmp_path), 'decay:\n  "\\e[2Jevil": 1\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert "\x1b" not in str(info.value) and "evil" in str(info.value)
    _write(project_config_path(tmp_path), "retrieval:\n  top_k: [" + ", ".join(["1"] * 200) + "]\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert len(str(info.value)) < 300


#: Loads the config of the project in the working directory in this fresh process and prints
#: the effective values and which of the validation libraries it imported, as one JSON object.
DEFAULTS_PROBE = """
import json, sys
from pathlib import Path
from ctx_tui.config import Config, effective_values, load_config
loaded = load_config(Path.cwd())
assert loaded.config == Config()
print(json.dumps({"values": effective_values(loaded),
                  "loaded": sorted({m.split(".")[0] for m in sys.modules} & {"pydantic", "yaml", "annotated_types"})}))
"""


CONFIG_COMMAND = "import sys; from ctx_tui.cli import main; sys.exit(main(['config', *sys.argv[1:]]))"


def _fresh(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(project / "home"), "XDG_CONFIG_HOME": str(project / "xdg")}
    return subprocess.run([sys.executable, *args], cwd=project, env=env, capture_output=True, text=True, timeout=60)


def test_the_defaults_load_without_pydantic_or_yaml(tmp_path: Path) -> None:
    """No config file (the usual case): the defaults are plain dataclasses, nothing to validate."""
    done = _fresh(tmp_path, "-c", DEFAULTS_PROBE)
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    assert run["loaded"] == []
    assert {key: value for key, value, _ in run["values"]}["position.danger_zone"] == [0.3, 0.7]
    # A file is validated by pydantic, and still refuses a bad value or an unknown key, naming both.
    project = _write(project_config_path(tmp_path), "retrieval:\n  top_k: 0\n")
    done = _fresh(tmp_path, "-c", CONFIG_COMMAND)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{project}: key 'retrieval.top_k': Input should be greater than or equal to 1 (got 0)" in done.stderr
    _write(project, "retrieval:\n  top_k: 3\n  bottom_k: 1\n")
    done = _fresh(tmp_path, "-c", CONFIG_COMMAND)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "key 'retrieval.bottom_k': unknown key; allowed here: enhance_position, relevance_threshold, top_k" in done.stderr
    _write(project, "retrieval:\n  top_k: 3\n")
    done = _fresh(tmp_path, "-c", CONFIG_COMMAND, "--json")
    assert json.loads(done.stdout)["values"]["retrieval.top_k"] == {"value": 3, "source": str(project)}


def test_a_sections_own_check_names_its_key_in_code_too() -> None:
    with pytest.raises(ValueError, match="0 <= start < end <= 1"):
        PositionConfig(danger_zone=(0.8, 0.2))
    with pytest.raises(ValueError, match="positive"):
        WindowConfig(sizes={"m": 0})
    assert replace(Config().window, sizes={"m": 5}).sizes == {"m": 5}
