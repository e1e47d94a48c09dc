"""A config file read and validated (and the dashboard's choices saved into the user's file).

Imported only when a config file exists (:func:`ctx_tui.config.load_config`):
it loads pydantic and PyYAML, which the defaults do not need. pydantic
validates a file's mapping against the config's dataclasses; an error becomes
one :class:`ConfigError` line naming the file, the key and what is allowed.
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from ctx_tui.config import Config, ConfigError, FieldInvalid, user_config_path
from ctx_tui.storage import locked, read_regular, write_atomic
from ctx_tui.yaml_load import YamlLimits, YamlLoadError, load_yaml

#: A config file is a few dozen keys: anything much bigger is a mistake or an attack.
CONFIG_LIMITS = YamlLimits(max_bytes=1_000_000, max_scalar=100_000, max_depth=16, max_aliases=100, max_nodes=10_000)


def read_layer(path: Path) -> dict[str, Any]:
    """The mapping of the config file at ``path``, validated; ConfigError naming the file otherwise."""
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
    validate_config(data, path)
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


#: Builds pydantic's validator for the config dataclasses (~20 ms, once per process).
_CONFIG: TypeAdapter[Config] = TypeAdapter(Config)


def validate_config(data: Mapping[str, Any], source: Path | str = "config") -> Config:
    """``data`` (a config file's mapping) as a Config; ConfigError naming ``source``, the key and what is allowed."""
    try:
        return _CONFIG.validate_python(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc, given = list(err["loc"]), err.get("input")
        problem = err.get("ctx", {}).get("error")
        if isinstance(problem, FieldInvalid):  # a section's __post_init__: pydantic names the section
            loc.append(problem.field_name)
            given = given.get(problem.field_name) if isinstance(given, dict) else None
        key = _shown(".".join(str(p) for p in loc)) or "(top level)"
        if err["type"] == "unexpected_keyword_argument":
            allowed = _allowed_keys(loc[:-1])
            msg = f"unknown key; allowed here: {', '.join(allowed)}"
        else:
            msg = str(problem) if err["type"] == "value_error" and problem is not None else err["msg"]
            if given is not None:
                msg += f" (got {_shown(reprlib.repr(given))})"
        raise ConfigError(f"{source}: key '{key}': {msg}") from None


def _allowed_keys(loc: list[Any]) -> list[str]:
    """The keys of the section at ``loc`` (a path of keys from the top)."""
    node: Any = Config()
    for part in loc:
        node = getattr(node, str(part), None)
        if not is_dataclass(node):
            return []
    return sorted(f.name for f in fields(node))


def save_user_section(section: str, values: dict[str, Any]) -> Path:
    """Set ``section`` of the user config to ``values`` and keep every other byte of the file.

    Only the top-level ``section:`` block is replaced (or appended); comments and
    other sections survive. The result is validated before it is written
    (atomically, under the file's lock); a user config that does not parse is
    an error that names it, and is left as it is.
    """
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
        validate_config(data, path)
        write_atomic(path, new)
    return path
