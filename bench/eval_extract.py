"""Extraction against hand labels: recall and precision per type, per transcript, every error.

    python bench/eval_extract.py [--quiet]

Two sets (``tests/data/extract/``, see its README):

* ``labels.yaml`` — real transcripts (the shared fixtures, read from
  ``../shared/fixtures``, skipped when absent; excerpts of public sessions
  stored with their licence). An item found is a true positive when it
  contains a label's phrase and has one of the label's types; a required
  label no item matches is a miss; an item no label matches is a false
  positive. Optional labels count neither way.
* ``sentences.yaml`` — single sentences (synthetic, six domains, hard
  negatives): ``classify(sentence, role)`` must give the expected type or none.

Nothing here is tuned on: thresholds do not exist; the figures are what the
extractor does. ``tests/test_extract_eval.py`` pins a floor under them.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

import benchlib

from ctx_tui.memory.extract import classify, extract_items
from ctx_tui.memory.items import ItemType
from ctx_tui.window import Session

DATA = benchlib.ROOT / "tests" / "data" / "extract"
SCORED = ("goal", "constraint", "user_preference", "decision")


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("’", "'").split())


@dataclass
class Score:
    """Counts of one class: true positives, misses (required labels not found), false positives."""

    tp: int = 0
    found_labels: int = 0
    required: int = 0
    fp: int = 0

    @property
    def recall(self) -> float:
        return self.found_labels / self.required if self.required else 1.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    def add(self, other: Score) -> None:
        self.tp += other.tp
        self.found_labels += other.found_labels
        self.required += other.required
        self.fp += other.fp


@dataclass
class Report:
    by_type: dict[str, Score] = field(default_factory=lambda: defaultdict(Score))
    by_transcript: dict[str, Score] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    sentences: Counter = field(default_factory=Counter)
    sentence_errors: list[str] = field(default_factory=list)

    @property
    def overall(self) -> Score:
        total = Score()
        for score in self.by_type.values():
            total.add(score)
        return total


def _path(case: dict) -> Path:
    if case["source"] == "shared":
        return benchlib.FIXTURES / case["path"]
    return DATA / "excerpts" / case["path"]


def score_transcript(case: dict, report: Report) -> None:
    path = _path(case)
    if not path.is_file():
        report.skipped.append(case["id"])
        return
    session = Session(path)
    session.poll()
    found = [x for x in extract_items(session.entries) if x.item.type.value in SCORED]
    labels = case.get("items") or []
    texts = [_norm(x.item.content + " " + x.rationale) for x in found]
    per = Score()
    matched_items: set[int] = set()
    for label in labels:
        phrase, types = _norm(label["match"]), label["types"]
        hits = [i for i, x in enumerate(found) if phrase in texts[i] and x.item.type.value in types]
        matched_items.update(hits)
        if label.get("optional"):
            continue
        kind = report.by_type[types[0]]
        kind.required += 1
        per.required += 1
        if hits:
            kind.found_labels += 1
            per.found_labels += 1
        else:
            near = [f"{found[i].item.type.value}: {found[i].item.content[:90]!r}" for i, t in enumerate(texts) if phrase in t]
            report.errors.append(f"MISS {case['id']} [{types[0]}] {label['match']!r}" + (f" (found as {near[0]})" if near else ""))
    for i, x in enumerate(found):
        kind = report.by_type[x.item.type.value]
        if i in matched_items:
            kind.tp += 1
            per.tp += 1
        else:
            kind.fp += 1
            per.fp += 1
            report.errors.append(f"FP   {case['id']} [{x.item.type.value}] {x.item.content[:160]!r}")
    report.by_transcript[case["id"]] = per


def score_sentences(report: Report) -> None:
    path = DATA / "sentences.yaml"
    if not path.is_file():
        return
    for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]:
        got = classify(case["text"], case.get("role", "user"))
        got_name = got.value if isinstance(got, ItemType) else None
        want = case.get("type")
        ok = got_name == want
        report.sentences["total"] += 1
        report.sentences["correct"] += ok
        key = want or "none"
        report.sentences[f"{key}:n"] += 1
        report.sentences[f"{key}:ok"] += ok
        if got_name:
            report.sentences[f"{got_name}:predicted"] += 1
            report.sentences[f"{got_name}:predicted_ok"] += ok
        if not ok:
            report.sentence_errors.append(f"{case['id']} want {want} got {got_name}: {case['text']!r}")


def evaluate() -> Report:
    report = Report()
    for case in yaml.safe_load((DATA / "labels.yaml").read_text(encoding="utf-8"))["transcripts"]:
        score_transcript(case, report)
    score_sentences(report)
    return report


def _line(name: str, s: Score) -> str:
    return f"  {name:32} required {s.required:3}  found {s.found_labels:3}  recall {s.recall:.2f}   items {s.tp + s.fp:3}  precision {s.precision:.2f}"


def main() -> None:
    report = evaluate()
    print(f"transcripts scored: {len(report.by_transcript)}" + (f"  (skipped, not available: {', '.join(report.skipped)})" if report.skipped else ""))
    print("per type:")
    for name in SCORED:
        print(_line(name, report.by_type[name]))
    print(_line("OVERALL", report.overall))
    print("per transcript:")
    for name, s in report.by_transcript.items():
        print(_line(name, s))
    s = report.sentences
    if s["total"]:
        print(f"sentences: {s['correct']}/{s['total']} correct ({s['correct'] / s['total']:.2f})")
        for key in (*SCORED, "none"):
            n, ok = s[f"{key}:n"], s[f"{key}:ok"]
            pred, pred_ok = s[f"{key}:predicted"], s[f"{key}:predicted_ok"]
            if n or pred:
                prec = f"{pred_ok / pred:.2f}" if pred else "  - "
                print(f"  {key:16} cases {n:3}  recall {ok / n if n else 1:.2f}  predicted {pred:3}  precision {prec}")
    if "--quiet" not in sys.argv:
        print("errors:")
        for line in report.errors + report.sentence_errors:
            print("  " + line)


if __name__ == "__main__":
    main()
