"""The handoff file format (docs/handoff.md, "The file") as a pydantic model, read and written as YAML.

The model states the types and which fields are required; the quality gate
(:mod:`ctx_tui.handoff.gate`) adds what makes a handoff *useful* (concrete
text, one exact first step, an honest completion). Reading uses the safe
loader with limits (:mod:`ctx_tui.yaml_load`); writing emits the fields in the documented order,
multi-line text as ``|`` blocks, so a handoff reads top to bottom like a note.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from ctx_tui.errors import CtxError
from ctx_tui.storage import FileTooLarge, NotRegularFile, read_regular
from ctx_tui.yaml_load import YamlLimits, YamlLoadError, load_yaml

HANDOFF_VERSION = "1.0.0"
#: A handoff is a note, not a data dump: refuse to parse anything larger.
MAX_HANDOFF_BYTES = 1_000_000
#: A handoff is a page of fields: limits well above any real one, far below an attack.
HANDOFF_LIMITS = YamlLimits(max_bytes=MAX_HANDOFF_BYTES, max_scalar=MAX_HANDOFF_BYTES, max_depth=16, max_aliases=100, max_nodes=100_000)

StrList = list[str]
#: Fields holding lists; ``None`` (an empty YAML value) reads as an empty list.
_LIST_FIELDS = frozenset({
    "completed_subtasks", "remaining_subtasks", "blockers", "affects_files",
    "decisions_made", "files_modified", "files_created", "contracts_consumed",
})


def _iso(value: Any) -> Any:
    """YAML turns an unquoted ISO timestamp into a datetime; keep it as text."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value


class _Strict(BaseModel):
    # strict: "40" is not a number and 7 is not a file name; unknown keys are typos.
    model_config = ConfigDict(extra="forbid", strict=True)

    @field_validator("*", mode="before")
    @classmethod
    def _empty_list(cls, value: Any, info: ValidationInfo) -> Any:
        """A list key left empty in YAML (``blockers:``) is an empty list."""
        if value is None and info.field_name in _LIST_FIELDS:
            return []
        return value


class DecisionMade(_Strict):
    decision: str
    rationale: str
    affects_files: StrList = Field(default_factory=list)


class TaskState(_Strict):
    assigned_task: str
    completion_pct: float = Field(ge=0, le=100)
    completed_subtasks: StrList = Field(default_factory=list)
    remaining_subtasks: StrList = Field(default_factory=list)
    blockers: StrList = Field(default_factory=list)


class Handoff(_Strict):
    """One handoff. Field order here is the order in the written file."""

    handoff_version: str = HANDOFF_VERSION
    agent_role: str
    timestamp: str  # ISO 8601
    session_id: str | None = None
    context_usage_pct: float | None = Field(default=None, ge=0, le=100)
    task_state: TaskState
    decisions_made: list[DecisionMade] = Field(default_factory=list)
    files_modified: StrList = Field(default_factory=list)
    files_created: StrList = Field(default_factory=list)
    contracts_consumed: StrList = Field(default_factory=list)
    continuation_context: str
    suggested_first_action: str

    @field_validator("timestamp", mode="before")
    @classmethod
    def _timestamp_text(cls, value: Any) -> Any:
        return _iso(value)


#: Top-level keys in written order (unknown keys of a forced draft follow them).
FIELD_ORDER: tuple[str, ...] = tuple(Handoff.model_fields)
TASK_STATE_ORDER: tuple[str, ...] = tuple(TaskState.model_fields)
DECISION_ORDER: tuple[str, ...] = tuple(DecisionMade.model_fields)


class HandoffReadError(CtxError):
    """A handoff file that cannot be read or parsed (exit code 2)."""


# -- writing -------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes multi-line text as a ``|`` block."""


class _Block(str):
    """Text always written as a ``|`` block (continuation_context, as docs/handoff.md shows it)."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value or (isinstance(value, _Block) and value.strip()) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style=style)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(_Block, _represent_str)


def _ordered(value: Any, order: tuple[str, ...]) -> Any:
    if not isinstance(value, Mapping):
        return _plain(value)
    keys = [k for k in order if k in value] + [k for k in value if k not in order]
    return {k: _plain(value[k]) for k in keys}


def _plain(value: Any) -> Any:
    """Integral floats as ints (``40`` not ``40.0``); text stays text."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return _iso(value)


def ordered_handoff(data: Handoff | Mapping[str, Any]) -> dict[str, Any]:
    """The handoff as a plain dict in the written field order (works on partial drafts)."""
    raw: Mapping[str, Any] = data.model_dump() if isinstance(data, Handoff) else data
    out: dict[str, Any] = _ordered(raw, FIELD_ORDER)
    if isinstance(raw.get("task_state"), Mapping):
        out["task_state"] = _ordered(raw["task_state"], TASK_STATE_ORDER)
    if isinstance(raw.get("decisions_made"), list):
        out["decisions_made"] = [_ordered(d, DECISION_ORDER) for d in raw["decisions_made"]]
    if isinstance(out.get("continuation_context"), str):
        out["continuation_context"] = _Block(out["continuation_context"])
    return out


def dump_handoff(data: Handoff | Mapping[str, Any], comment: str | None = None) -> str:
    """YAML text of a handoff (or a draft), optionally preceded by ``# comment`` lines."""
    body = yaml.dump(
        ordered_handoff(data), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
    )
    if not comment:
        return body
    lines = "".join(f"# {line}".rstrip() + "\n" for line in comment.splitlines())
    return lines + body


# -- reading -------------------------------------------------------------------


def parse_handoff(text: str, source: str = "<handoff>") -> dict[str, Any]:
    """The mapping in a handoff's YAML text; :class:`HandoffReadError` when it is not one."""
    try:
        data = load_yaml(text, source, HANDOFF_LIMITS)
    except YamlLoadError as exc:
        raise HandoffReadError(str(exc)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise HandoffReadError(f"{source}: a handoff is a mapping of fields, got {type(data).__name__}")
    return data


def read_handoff(path: Path) -> dict[str, Any]:
    """Read and parse one handoff file; :class:`HandoffReadError` names what is wrong."""
    try:
        raw = read_regular(path, MAX_HANDOFF_BYTES)
    except FileNotFoundError:
        raise HandoffReadError(f"{path}: no such file") from None
    except NotRegularFile as exc:
        raise HandoffReadError(f"{path}: is {exc.kind}, not a handoff file") from None
    except FileTooLarge:
        raise HandoffReadError(f"{path}: larger than {MAX_HANDOFF_BYTES} bytes; not a handoff") from None
    except OSError as exc:
        raise HandoffReadError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HandoffReadError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_handoff(text, str(path))
