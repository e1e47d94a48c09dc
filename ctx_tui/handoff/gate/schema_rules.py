"""Schema findings: the pydantic model's errors, said field by field in the user's words."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from ctx_tui.handoff.gate.draft_view import HINTS
from ctx_tui.handoff.gate.findings import Finding
from ctx_tui.handoff.schema import DecisionMade, Handoff, TaskState

_TYPE_NAMES = {
    "string_type": "text",
    "float_type": "a number",
    "int_type": "a whole number",
    "list_type": "a list",
    "model_type": "a mapping of fields",
    "model_attributes_type": "a mapping of fields",
    "dict_type": "a mapping",
}


def _loc(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(handoff)"


def _model_for(loc: tuple[Any, ...]) -> type[BaseModel]:
    if loc and loc[0] == "task_state":
        return TaskState
    if loc and loc[0] == "decisions_made":
        return DecisionMade
    return Handoff


def no_rationale(field: str) -> Finding:
    return Finding(field, "error", "a decision without a rationale",
                   "say why it was decided, so the next session does not undo it", "decision.no_rationale")


def schema_findings(data: Mapping[str, Any]) -> list[Finding]:
    try:
        Handoff.model_validate(dict(data))
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    else:
        return []
    findings: list[Finding] = []
    for err in errors:
        loc = tuple(err["loc"])
        field = _loc(loc)
        kind = err["type"]
        got = type(err.get("input")).__name__ if "input" in err else "nothing"
        empty = kind != "missing" and err.get("input", "") is None and kind in _TYPE_NAMES
        if (kind == "missing" or empty) and loc[-1] == "rationale":
            findings.append(no_rationale(field))
        elif empty:
            findings.append(Finding(field, "error", "required field is empty",
                                    HINTS.get(str(loc[-1]), "fill it in"), "schema.missing"))
        elif kind == "missing":
            findings.append(Finding(field, "error", "required field is missing",
                                    HINTS.get(str(loc[-1]), "add it"), "schema.missing"))
        elif kind == "extra_forbidden":
            allowed = sorted(_model_for(loc).model_fields)
            close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"allowed here: {', '.join(allowed)}"
            findings.append(Finding(field, "error", "unknown field", hint, "schema.unknown"))
        elif kind in ("greater_than_equal", "less_than_equal"):
            findings.append(Finding(field, "error", f"must be between 0 and 100 (got {err.get('input')!r})",
                                    "a percentage: a number from 0 to 100", "schema.range"))
        else:
            want = _TYPE_NAMES.get(kind, err["msg"].removeprefix("Input should be ").lower())
            findings.append(Finding(field, "error", f"must be {want} (got {got})",
                                    HINTS.get(str(loc[-1]), HINTS.get(str(loc[0]), "fix its type")), "schema.type"))
    return findings
