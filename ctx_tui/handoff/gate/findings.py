"""What the gate answers: one :class:`Finding` per problem of one field."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem of one field. ``field`` is a dotted path, e.g. ``decisions_made[0].rationale``."""

    field: str
    severity: Severity
    message: str
    hint: str
    rule: str  # stable id of the rule, documented in docs/handoff.md

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def passes(findings: Iterable[Finding]) -> bool:
    """True when no finding is an error (warnings do not block a handoff)."""
    return not any(f.is_error for f in findings)
