"""Configuration: defaults, under the user's file, under the project's file.

``.ctx/config.yaml`` (project) overrides ``$XDG_CONFIG_HOME/ctx-tui/config.yaml``
(user, default ``~/.config``), which overrides the defaults below. Each layer is
validated on its own so an error names the file it came from; an unknown key,
a wrong type, an out-of-range value or invalid YAML raises :class:`ConfigError`
with one message naming the file, the key and what is allowed.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ctx_tui.errors import CtxError
from ctx_tui.kinds import PRESERVED_BY_DEFAULT, ItemType
from ctx_tui.paths import PROJECT_CONFIG, project_config_path, user_config_path
from ctx_tui.storage import read_regular
from ctx_tui.window_state import AUTOCOMPACT_THRESHOLD, HANDOFF_THRESHOLD
from ctx_tui.yaml_load import YamlLimits, YamlLoadError, load_yaml

__all__ = [
    "PROJECT_CONFIG",
    "Config",
    "ConfigError",
    "LoadedConfig",
    "effective_values",
    "load_config",
    "project_config_path",
    "resolve_path",
    "user_config_path",
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class DecayConfig(_Section):
    enabled: bool = True
    #: Rounds without a reference after which an item counts as decayed.
    threshold_rounds: int = Field(20, ge=1, le=10_000)
    #: The same for high-importance items (the smaller of the two applies to them).
    high_importance_threshold: int = Field(10, ge=1, le=10_000)
    #: Queue decayed high-importance items for restatement without a key press.
    auto_refresh: bool = False
    #: Score (cosine of IDF-weighted terms, ctx_tui.mentions) a later sentence needs to count as a reference.
    reference_threshold: float = Field(0.28, gt=0.0, le=1.0)


class CompressionConfig(_Section):
    target_ratio: float = Field(0.3, gt=0.0, le=1.0)
    #: Item types whose text compression keeps whole.
    preserve_types: list[ItemType] = Field(default_factory=lambda: list(PRESERVED_BY_DEFAULT))
    strategy: Literal["summary", "truncate", "semantic"] = "semantic"


class RetrievalConfig(_Section):
    top_k: int = Field(5, ge=1, le=100)
    relevance_threshold: float = Field(0.0, ge=0.0)
    enhance_position: Literal["start", "end"] = "start"


class SyncConfig(_Section):
    auto_promote: bool = False
    #: Minimum importance an item needs to be proposed automatically.
    promotion_threshold: Literal["high", "medium", "low"] = "high"


class PositionConfig(_Section):
    #: The middle of the live window, as fractions from its start, where attention is weakest.
    danger_zone: tuple[float, float] = (0.3, 0.7)

    @field_validator("danger_zone")
    @classmethod
    def _ordered(cls, value: tuple[float, float]) -> tuple[float, float]:
        lo, hi = value
        if not (0.0 <= lo < hi <= 1.0):
            raise ValueError("must be [start, end] with 0 <= start < end <= 1")
        return value


class WindowConfig(_Section):
    #: Context window per model id, overriding the built-in table.
    sizes: dict[str, int] = Field(default_factory=dict)
    handoff_threshold: float = Field(HANDOFF_THRESHOLD, gt=0.0, le=1.0)
    #: Usage fraction at which the agent compacts on its own (headroom is measured to it).
    autocompact_threshold: float = Field(AUTOCOMPACT_THRESHOLD, gt=0.0, le=1.0)

    @field_validator("sizes")
    @classmethod
    def _positive_sizes(cls, value: dict[str, int]) -> dict[str, int]:
        for model, size in value.items():
            if size <= 0:
                raise ValueError(f"the size of {model} must be a positive number of tokens")
        return value


class PathsConfig(_Section):
    #: MEMORY.md (may point at Claude Code's ~/.claude/projects/<slug>/memory/MEMORY.md).
    memory_file: str = Field("MEMORY.md", min_length=1)
    handoff_dir: str = Field(".claude/handoffs", min_length=1)

    def memory_path(self, project: Path) -> Path:
        return resolve_path(project, self.memory_file)

    def handoff_path(self, project: Path) -> Path:
        return resolve_path(project, self.handoff_dir)


def resolve_path(project: Path, value: str) -> Path:
    """A configured path: ``~`` expanded, relative paths taken from the project root."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else project / path


class HandoffConfig(_Section):
    agent_role: str = "main"
    #: Glob patterns (relative to the project) of files that count as contracts.
    contracts: list[str] = Field(default_factory=list)


#: Dashboard layouts: ``auto`` follows the terminal's width; ``stacked`` is one column; ``grid`` two.
Layout = Literal["auto", "stacked", "grid"]
LAYOUTS: tuple[Layout, ...] = ("auto", "stacked", "grid")


class UiConfig(_Section):
    """The dashboard's look; the dashboard saves what the user picks into the user config."""

    theme: str | None = None  # a Textual theme name (ctrl+p → theme); unknown names are ignored
    layout: Layout = "auto"


class Config(_Section):
    decay: DecayConfig = Field(default_factory=DecayConfig)
    compression: CompressionConfig = Field(default_factory=CompressionConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    sync: SyncConfig = Field(default_factory=SyncConfig)
    position: PositionConfig = Field(default_factory=PositionConfig)
    window: WindowConfig = Field(default_factory=WindowConfig)
    paths: PathsConfig = Field(default_factory=PathsConfig)
    handoff: HandoffConfig = Field(default_factory=HandoffConfig)
    ui: UiConfig = Field(default_factory=UiConfig)


class ConfigError(CtxError):
    """A config file that cannot be used; the message names file, key and what is allowed."""


@dataclass(frozen=True)
class LoadedConfig:
    config: Config
    #: dotted key -> where its value came from ("default" or a file path)
    sources: dict[str, str]
    files: list[Path]


#: A config file is a few dozen keys: anything much bigger is a mistake or an attack.
CONFIG_LIMITS = YamlLimits(max_bytes=1_000_000, max_scalar=100_000, max_depth=16, max_aliases=100, max_nodes=10_000)


def _read_layer(path: Path) -> dict[str, Any]:
    try:
        raw = read_regular(path, CONFIG_LIMITS.max_bytes).decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; save the config file as UTF-8") from None
    try:
        data = load_yaml(raw, str(path), CONFIG_LIMITS)
    except YamlLoadError as exc:
        raise ConfigError(str(exc)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections, got {type(data).__name__}")
    _validate(data, path)
    return data


#: How much of a bad value an error message quotes.
_QUOTE_CHARS = 80


def _shown(text: str) -> str:
    """``text`` safe for a one-line message: control characters escaped, bounded."""
    if text.isprintable():
        shown = text
    else:
        shown = text.encode("unicode_escape").decode("ascii")
    return shown if len(shown) <= _QUOTE_CHARS else shown[: _QUOTE_CHARS - 1] + "…"


def _validate(data: dict[str, Any], path: Path) -> None:
    try:
        Config.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = _shown(".".join(str(p) for p in err["loc"])) or "(top level)"
        if err["type"] == "extra_forbidden":
            allowed = _allowed_keys(err["loc"][:-1])
            msg = f"unknown key; allowed here: {', '.join(allowed)}"
        else:
            msg = err["msg"]
            if err["type"] == "value_error" and err.get("ctx"):
                msg = str(err["ctx"].get("error", msg))
            if err.get("input") is not None:
                msg += f" (got {_shown(reprlib.repr(err['input']))})"
        raise ConfigError(f"{path}: key '{key}': {msg}") from None


def _allowed_keys(loc: tuple[Any, ...]) -> list[str]:
    model: type[BaseModel] = Config
    for part in loc:
        field = model.model_fields.get(str(part))
        ann = field.annotation if field else None
        if not (isinstance(ann, type) and issubclass(ann, BaseModel)):
            return []
        model = ann
    return sorted(model.model_fields)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key != "sizes":
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _leaf_keys(data: dict[str, Any], prefix: str = "") -> list[str]:
    keys: list[str] = []
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and key != "sizes":
            keys.extend(_leaf_keys(value, dotted + "."))
        else:
            keys.append(dotted)
    return keys


def load_config(project: Path | None = None) -> LoadedConfig:
    """Load defaults < user file < project file; raise ConfigError on bad input."""
    project = project or Path.cwd()
    merged: dict[str, Any] = {}
    sources = {key: "default" for key in _leaf_keys(Config().model_dump())}
    files: list[Path] = []
    for path in (user_config_path(), project_config_path(project)):
        if not path.exists():
            continue
        if not path.is_file():
            raise ConfigError(f"{path}: is not a file; the config must be a YAML file")
        layer = _read_layer(path)
        merged = _merge(merged, layer)
        files.append(path)
        for key in _leaf_keys(layer):
            sources[key] = str(path)
    return LoadedConfig(config=Config.model_validate(merged), sources=sources, files=files)


def effective_values(loaded: LoadedConfig) -> list[tuple[str, Any, str]]:
    """Every effective setting as (dotted key, value, where it came from), in model order."""
    values = loaded.config.model_dump(mode="json")
    rows: list[tuple[str, Any, str]] = []
    for key in _leaf_keys(values):
        value: Any = values
        for part in key.split("."):
            value = value[part]
        rows.append((key, value, loaded.sources.get(key, "default")))
    return rows


def save_user_section(section: str, values: dict[str, Any]) -> Path:
    """Set ``section`` of the user config to ``values`` and keep every other byte of the file.

    Only the top-level ``section:`` block is replaced (or appended); comments and
    other sections survive. The result is validated before it is written
    (atomically, under the file's lock); a user config that does not parse is
    an error that names it, and is left as it is.
    """
    import re  # only the dashboard saves settings: keep the CLI's and the hooks' import light

    import yaml

    from ctx_tui.storage import locked, read_regular, write_atomic

    path = user_config_path()
    block = yaml.safe_dump({section: values}, sort_keys=False, allow_unicode=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path):
        text = read_regular(path).decode("utf-8") if path.exists() else ""
        kept: list[str] = []
        inside = False
        for line in text.splitlines(keepends=True):
            if re.match(rf"{re.escape(section)}\s*:", line):
                inside = True
                continue
            if inside and (not line.strip() or line[0] in " \t"):
                continue  # the old block's body
            inside = False
            kept.append(line)
        new = "".join(kept)
        if new and not new.endswith("\n"):
            new += "\n"
        new += block
        try:
            data = load_yaml(new, str(path), CONFIG_LIMITS)
        except YamlLoadError as exc:
            raise ConfigError(f"{path}: not changed: {exc}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of sections, not changed")
        _validate(data, path)
        write_atomic(path, new)
    return path
