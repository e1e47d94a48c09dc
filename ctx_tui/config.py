"""Configuration: defaults, under the user's file, under the project's file.

``.ctx/config.yaml`` (project) overrides ``$XDG_CONFIG_HOME/ctx-tui/config.yaml``
(user, default ``~/.config``), which overrides the defaults below. Each layer is
validated on its own so an error names the file it came from; an unknown key,
a wrong type, an out-of-range value or invalid YAML raises :class:`ConfigError`
with one message naming the file, the key and what is allowed.

The sections are plain frozen dataclasses, so the defaults (no config file:
the usual case) cost neither pydantic nor PyYAML. A file is read and validated
by :mod:`ctx_tui.config_file`, imported only then, with pydantic against these
same classes: the bounds are annotated-types constraints (:class:`Bounds`), a
section's own checks are its ``__post_init__`` (pydantic runs it and reports
its ``ValueError`` as a validation error), and ``__pydantic_config__`` forbids
unknown keys. docs/performance.md ("The config without pydantic") has the figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal

from ctx_tui.errors import CtxError
from ctx_tui.kinds import PRESERVED_BY_DEFAULT, ItemType
from ctx_tui.paths import PROJECT_CONFIG, project_config_path, user_config_path
from ctx_tui.window_state import AUTOCOMPACT_THRESHOLD, HANDOFF_THRESHOLD

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


class Bounds:
    """A field's bounds, as annotated-types constraints when pydantic asks for them.

    Implements annotated-types' ``GroupedMetadata`` protocol (a flag and
    ``__iter__``), which pydantic unpacks; ``annotated_types`` itself (~11 ms to
    import: it builds its own dataclasses) loads only then, with pydantic.
    """

    __slots__ = ("gt", "ge", "le", "min_length")
    __is_annotated_types_grouped_metadata__ = True

    def __init__(self, *, gt: float | None = None, ge: float | None = None, le: float | None = None,
                 min_length: int | None = None) -> None:
        self.gt, self.ge, self.le, self.min_length = gt, ge, le, min_length

    def __iter__(self) -> Iterator[object]:
        import annotated_types as at

        if self.gt is not None:
            yield at.Gt(self.gt)
        if self.ge is not None:
            yield at.Ge(self.ge)
        if self.le is not None:
            yield at.Le(self.le)
        if self.min_length is not None:
            yield at.MinLen(self.min_length)


class FieldInvalid(ValueError):
    """A section's own check refused ``field``'s value (the message gives the reason)."""

    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(reason)
        self.field_name = field_name


#: Read by pydantic when it validates a section: a key the section does not have is an error.
_FORBID_EXTRA = {"extra": "forbid"}

Rounds = Annotated[int, Bounds(ge=1, le=10_000)]
Fraction = Annotated[float, Bounds(gt=0.0, le=1.0)]


@dataclass(frozen=True)
class DecayConfig:
    __pydantic_config__ = _FORBID_EXTRA

    enabled: bool = True
    #: Rounds without a reference after which an item counts as decayed.
    threshold_rounds: Rounds = 20
    #: The same for high-importance items (the smaller of the two applies to them).
    high_importance_threshold: Rounds = 10
    #: Queue decayed high-importance items for restatement without a key press.
    auto_refresh: bool = False
    #: Score (cosine of IDF-weighted terms, ctx_tui.mentions) a later sentence needs to count as a reference.
    reference_threshold: Fraction = 0.28


@dataclass(frozen=True)
class CompressionConfig:
    __pydantic_config__ = _FORBID_EXTRA

    target_ratio: Fraction = 0.3
    #: Item types whose text compression keeps whole.
    preserve_types: list[ItemType] = field(default_factory=lambda: list(PRESERVED_BY_DEFAULT))
    strategy: Literal["summary", "truncate", "semantic"] = "semantic"


@dataclass(frozen=True)
class RetrievalConfig:
    __pydantic_config__ = _FORBID_EXTRA

    top_k: Annotated[int, Bounds(ge=1, le=100)] = 5
    relevance_threshold: Annotated[float, Bounds(ge=0.0)] = 0.0
    enhance_position: Literal["start", "end"] = "start"


@dataclass(frozen=True)
class SyncConfig:
    __pydantic_config__ = _FORBID_EXTRA

    auto_promote: bool = False
    #: Minimum importance an item needs to be proposed automatically.
    promotion_threshold: Literal["high", "medium", "low"] = "high"


@dataclass(frozen=True)
class PositionConfig:
    __pydantic_config__ = _FORBID_EXTRA

    #: The middle of the live window, as fractions from its start, where attention is weakest.
    danger_zone: tuple[float, float] = (0.3, 0.7)

    def __post_init__(self) -> None:
        lo, hi = self.danger_zone
        if not (0.0 <= lo < hi <= 1.0):
            raise FieldInvalid("danger_zone", "must be [start, end] with 0 <= start < end <= 1")


@dataclass(frozen=True)
class WindowConfig:
    __pydantic_config__ = _FORBID_EXTRA

    #: Context window per model id, overriding the built-in table.
    sizes: dict[str, int] = field(default_factory=dict)
    handoff_threshold: Fraction = HANDOFF_THRESHOLD
    #: Usage fraction at which the agent compacts on its own (headroom is measured to it).
    autocompact_threshold: Fraction = AUTOCOMPACT_THRESHOLD

    def __post_init__(self) -> None:
        for model, size in self.sizes.items():
            if size <= 0:
                raise FieldInvalid("sizes", f"the size of {model} must be a positive number of tokens")


@dataclass(frozen=True)
class PathsConfig:
    __pydantic_config__ = _FORBID_EXTRA

    #: MEMORY.md (may point at Claude Code's ~/.claude/projects/<slug>/memory/MEMORY.md).
    memory_file: Annotated[str, Bounds(min_length=1)] = "MEMORY.md"
    handoff_dir: Annotated[str, Bounds(min_length=1)] = ".claude/handoffs"

    def memory_path(self, project: Path) -> Path:
        return resolve_path(project, self.memory_file)

    def handoff_path(self, project: Path) -> Path:
        return resolve_path(project, self.handoff_dir)


def resolve_path(project: Path, value: str) -> Path:
    """A configured path: ``~`` expanded, relative paths taken from the project root."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else project / path


@dataclass(frozen=True)
class HandoffConfig:
    __pydantic_config__ = _FORBID_EXTRA

    agent_role: str = "main"
    #: Glob patterns (relative to the project) of files that count as contracts.
    contracts: list[str] = field(default_factory=list)


#: Dashboard layouts: ``auto`` follows the terminal's width; ``stacked`` is one column; ``grid`` two.
Layout = Literal["auto", "stacked", "grid"]
LAYOUTS: tuple[Layout, ...] = ("auto", "stacked", "grid")


@dataclass(frozen=True)
class UiConfig:
    """The dashboard's look; the dashboard saves what the user picks into the user config."""

    __pydantic_config__ = _FORBID_EXTRA

    theme: str | None = None  # a Textual theme name (ctrl+p → theme); unknown names are ignored
    layout: Layout = "auto"


@dataclass(frozen=True)
class Config:
    __pydantic_config__ = _FORBID_EXTRA

    decay: DecayConfig = field(default_factory=DecayConfig)
    compression: CompressionConfig = field(default_factory=CompressionConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    sync: SyncConfig = field(default_factory=SyncConfig)
    position: PositionConfig = field(default_factory=PositionConfig)
    window: WindowConfig = field(default_factory=WindowConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    handoff: HandoffConfig = field(default_factory=HandoffConfig)
    ui: UiConfig = field(default_factory=UiConfig)


class ConfigError(CtxError):
    """A config file that cannot be used; the message names file, key and what is allowed."""


@dataclass(frozen=True)
class LoadedConfig:
    config: Config
    #: dotted key -> where its value came from ("default" or a file path)
    sources: dict[str, str]
    files: list[Path]


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
    sources = {key: "default" for key in _leaf_keys(asdict(Config()))}
    files: list[Path] = []
    for path in (user_config_path(), project_config_path(project)):
        if not path.exists():
            continue
        if not path.is_file():
            raise ConfigError(f"{path}: is not a file; the config must be a YAML file")
        from ctx_tui.config_file import read_layer  # pydantic and PyYAML: only when a file exists

        layer = read_layer(path)
        merged = _merge(merged, layer)
        files.append(path)
        for key in _leaf_keys(layer):
            sources[key] = str(path)
    config = Config()
    if files:
        from ctx_tui.config_file import validate_config

        config = validate_config(merged, " < ".join(map(str, files)))
    return LoadedConfig(config=config, sources=sources, files=files)


def effective_values(loaded: LoadedConfig) -> list[tuple[str, Any, str]]:
    """Every effective setting as (dotted key, value, where it came from), in model order."""
    values = _plain(asdict(loaded.config))
    rows: list[tuple[str, Any, str]] = []
    for key in _leaf_keys(values):
        value: Any = values
        for part in key.split("."):
            value = value[part]
        rows.append((key, value, loaded.sources.get(key, "default")))
    return rows


def _plain(value: Any) -> Any:
    """``value`` in JSON's types: tuples as lists, enum members as their values."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value.value if isinstance(value, Enum) else value
