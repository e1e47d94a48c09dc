"""The labelled handoff set (``tests/data/handoff_gate/``) and its confusion matrix.

Each file is a handoff as a user would write it, with three comment lines on
top: ``# label: good|vague``, ``# class: ...`` (the vagueness class, or the
kind of good handoff it twins) and ``# domain: ...``. The split is fixed by
domain: the rules were tuned on ``TUNE_DOMAINS`` and are reported on the
others (``REPORT_DOMAINS``), which were written before tuning and not looked
at while tuning; ``FRESH_DOMAINS`` were written after the rules were done;
``BLIND2_DOMAINS`` were written blind, by someone who never saw the gate. The
``blind3/`` folder is a second blind set, kept as its author wrote it (its
``security`` domain is not the fresh split's), so its split is its folder.
Shared by ``bench/eval_gate.py`` and the test that pins the floor.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctx_tui.handoff.gate import Finding, check_handoff, passes
from ctx_tui.handoff.schema import parse_handoff

SET_DIR = Path(__file__).parent / "data" / "handoff_gate"
TUNE_DOMAINS = frozenset({"web", "infra", "ml", "docs"})
REPORT_DOMAINS = frozenset({"data", "mobile", "cli", "embedded"})
#: Written after the rules were done, as a check of how they carry to new text (never tuned on).
FRESH_DOMAINS = frozenset({"security", "backend", "desktop"})
#: Written blind (the author never saw the gate), 30 good and 30 vague. First run, on 2670a65:
#: 28/30 vague refused (93.3%), 2/30 good refused (6.7%); then seen while fixing those four.
BLIND2_DOMAINS = frozenset({"robotics", "fintech", "gamedev", "bioinfo", "devtools", "govdata"})
#: A second blind set (``blind3/``; healthcare, logistics, edtech, ecommerce, security, audio), 24 good and
#: 24 vague, files unchanged. First run, on 2670a65: 19/24 vague refused (79.2%), 2/24 good refused (8.3%);
#: on b432a21 (after the blind2 fixes): 19/24 vague (79.2%), 0/24 good. Then seen while fixing the five.
BLIND3_DIR = "blind3"
#: The splits in the order they are reported.
SPLITS = ("tune", "report", "fresh", "blind2", "blind3")
_SPLIT_OF = {domain: split for split, domains in (("tune", TUNE_DOMAINS), ("report", REPORT_DOMAINS),
                                                   ("fresh", FRESH_DOMAINS), ("blind2", BLIND2_DOMAINS))
             for domain in domains}
_LABEL = re.compile(r"^#\s*(label|class|domain):\s*(\S+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Case:
    name: str
    label: str  # "good" or "vague"
    cls: str
    domain: str
    split: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Verdict:
    case: Case
    findings: list[Finding]

    @property
    def refused(self) -> bool:
        return not passes(self.findings)

    @property
    def wrong(self) -> bool:
        return self.refused != (self.case.label == "vague")


def load_cases(folder: Path = SET_DIR) -> list[Case]:
    cases = []
    for path in [*sorted(folder.glob("*.yaml")), *sorted((folder / BLIND3_DIR).glob("*.yaml"))]:
        text = path.read_text(encoding="utf-8")
        tags = dict(_LABEL.findall(text))
        split = BLIND3_DIR if path.parent.name == BLIND3_DIR else _SPLIT_OF[tags["domain"]]
        cases.append(Case(path.stem, tags["label"], tags["class"], tags["domain"], split,
                          parse_handoff(text, path.name)))
    return cases


def judge(cases: list[Case]) -> list[Verdict]:
    return [Verdict(case, check_handoff(case.data)) for case in cases]


@dataclass(frozen=True)
class Figures:
    good: int
    good_refused: int
    vague: int
    vague_refused: int

    @property
    def vague_refused_share(self) -> float:
        return self.vague_refused / self.vague if self.vague else 1.0

    @property
    def good_refused_share(self) -> float:
        return self.good_refused / self.good if self.good else 0.0


def figures(verdicts: list[Verdict]) -> Figures:
    good = [v for v in verdicts if v.case.label == "good"]
    vague = [v for v in verdicts if v.case.label == "vague"]
    return Figures(len(good), sum(v.refused for v in good), len(vague), sum(v.refused for v in vague))


def report(verdicts: list[Verdict]) -> str:
    """Confusion matrix per split and overall, per class, then every misclassified file."""
    lines: list[str] = []
    parts = [(split, [v for v in verdicts if v.case.split == split]) for split in SPLITS]
    for title, part in [*parts, ("all", verdicts)]:
        f = figures(part)
        lines += [
            f"{title} split ({len(part)} handoffs)        gate: pass  refuse",
            f"  good  {f.good:3d}                          {f.good - f.good_refused:4d}  {f.good_refused:6d}"
            f"   good refused  {100 * f.good_refused_share:5.1f}%",
            f"  vague {f.vague:3d}                          {f.vague - f.vague_refused:4d}  {f.vague_refused:6d}"
            f"   vague refused {100 * f.vague_refused_share:5.1f}%",
            "",
        ]
    per_class: Counter[tuple[str, str]] = Counter()
    right: Counter[tuple[str, str]] = Counter()
    for v in verdicts:
        key = (v.case.label, v.case.cls)
        per_class[key] += 1
        right[key] += not v.wrong
    lines.append("per class (right / count):")
    for key in sorted(per_class):
        lines.append(f"  {key[0]:<5} {key[1]:<24} {right[key]:3d} / {per_class[key]:3d}")
    wrong = [v for v in verdicts if v.wrong]
    lines.append("")
    lines.append(f"misclassified ({len(wrong)}):")
    for v in wrong:
        errors = [f"{f.field}: {f.rule} ({f.message})" for f in v.findings if f.is_error]
        verdict = "refused" if v.refused else "passed"
        lines.append(f"  {v.case.name}.yaml [{v.case.split}] {v.case.label}/{v.case.cls} {verdict}")
        lines += [f"      {e}" for e in errors]
    return "\n".join(lines)
