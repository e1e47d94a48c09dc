"""Extraction against hand labels: recall and precision per type, per transcript, every error.

    python bench/eval_extract.py [--part all|real|real2|real4|base|tune2|fresh] [--quiet] [--show-fresh-errors]

The parts (``tests/data/extract/``, see its README):

* ``real`` — ``labels.yaml``, real transcripts (the shared fixtures, read from
  ``../shared/fixtures``, skipped when absent; excerpts of public sessions
  stored with their licence). An item found is a true positive when it
  contains a label's phrase and has one of the label's types; a required
  label no item matches is a miss; an item no label matches is a false
  positive. Optional labels count neither way.
* ``real2`` — ``labels_real2.yaml``, excerpts of eight more public Claude Code
  sessions, labelled blind by someone who never saw the extractor; scored
  the same way, printed apart.
* ``real4`` — ``labels_real4.yaml``, excerpts of six more public sessions (two
  Claude Code, four Codex), labelled blind by a third author; scored the same way.
* sentence sets — ``classify(sentence, role)`` must give the expected type or
  none: ``base`` (``sentences.yaml``, synthetic, six domains, hard negatives;
  tuned on), ``tune2`` (``sentences_tune2.yaml``, written blind by another
  author, each case with a ``style``), ``fresh`` (``sentences_fresh.yaml``, a
  held-out set when present: its errors print only with
  ``--show-fresh-errors``, so that nobody tunes on them by accident).

``--part all`` (the default) prints every part. Nothing here is tuned on:
thresholds do not exist; the figures are what the extractor does.
``tests/test_extract_eval.py`` pins a floor under them.
"""

from __future__ import annotations

import argparse
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
#: The sentence sets, by part name.
SENTENCE_PARTS = {"base": "sentences.yaml", "tune2": "sentences_tune2.yaml", "fresh": "sentences_fresh.yaml"}
#: The labelled transcript sets, by part name.
TRANSCRIPT_PARTS = {"real": "labels.yaml", "real2": "labels_real2.yaml", "real4": "labels_real4.yaml"}
PARTS = (*TRANSCRIPT_PARTS, *SENTENCE_PARTS)


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

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def add(self, other: Score) -> None:
        self.tp += other.tp
        self.found_labels += other.found_labels
        self.required += other.required
        self.fp += other.fp


@dataclass
class SentencePart:
    """The scores of one sentence set: per expected type, per style, every error.

    Per type, ``required`` counts the cases of that type, ``found_labels`` those
    classified as it, ``tp`` / ``fp`` the sentences classified as it rightly / wrongly.
    """

    name: str
    cases: int = 0
    correct: int = 0
    negatives: int = 0
    rejected: int = 0  # negatives classified as no item
    by_type: dict[str, Score] = field(default_factory=lambda: defaultdict(Score))
    by_style: dict[str, Score] = field(default_factory=lambda: defaultdict(Score))  # items of each style
    style_negatives: Counter = field(default_factory=Counter)  # style -> negatives
    style_fp: Counter = field(default_factory=Counter)  # style -> negatives taken as an item
    errors: list[str] = field(default_factory=list)

    @property
    def items(self) -> Score:
        total = Score()
        for score in self.by_type.values():
            total.add(score)
        return total


@dataclass
class TranscriptPart:
    """The scores of one labelled transcript set: per type, per transcript, every error."""

    name: str
    by_type: dict[str, Score] = field(default_factory=lambda: defaultdict(Score))
    by_transcript: dict[str, Score] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def overall(self) -> Score:
        total = Score()
        for score in self.by_type.values():
            total.add(score)
        return total


@dataclass
class Report:
    transcripts: dict[str, TranscriptPart] = field(default_factory=dict)  # the transcript sets scored
    parts: dict[str, SentencePart] = field(default_factory=dict)  # the sentence sets present

    @property
    def real(self) -> TranscriptPart:
        """The ``real`` part (``labels.yaml``), empty when it was not scored."""
        return self.transcripts.get("real") or TranscriptPart("real")

    # the real part's figures, as the floors in tests/test_extract_eval.py read them
    @property
    def by_type(self) -> dict[str, Score]:
        return self.real.by_type

    @property
    def by_transcript(self) -> dict[str, Score]:
        return self.real.by_transcript

    @property
    def errors(self) -> list[str]:
        return self.real.errors

    @property
    def overall(self) -> Score:
        return self.real.overall


def _path(case: dict) -> Path:
    if case["source"] == "shared":
        return benchlib.FIXTURES / case["path"]
    return DATA / "excerpts" / case["path"]


def score_transcript(case: dict, report: TranscriptPart) -> None:
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


def score_sentences(name: str) -> SentencePart | None:
    """The scores of sentence set ``name``, or None when its file is absent."""
    path = DATA / SENTENCE_PARTS[name]
    if not path.is_file():
        return None
    part = SentencePart(name)
    for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]:
        got = classify(case["text"], case.get("role", "user"))
        got_name = got.value if isinstance(got, ItemType) else None
        want = case.get("type")
        style = str(case.get("style") or "-")
        ok = got_name == want
        part.cases += 1
        part.correct += ok
        if want:
            for score in (part.by_type[want], part.by_style[style]):
                score.required += 1
                score.found_labels += ok
        else:
            part.negatives += 1
            part.rejected += ok
            part.style_negatives[style] += 1
            part.style_fp[style] += not ok
        if got_name:
            score = part.by_type[got_name]
            score.tp += ok
            score.fp += not ok
            style_score = part.by_style[style]
            style_score.tp += ok
            style_score.fp += not ok
        if not ok:
            part.errors.append(f"{case['id']} [{style}] want {want} got {got_name}: {case['text']!r}")
    return part


def evaluate(parts: tuple[str, ...] = PARTS) -> Report:
    report = Report()
    for name, labels in TRANSCRIPT_PARTS.items():
        if name in parts:
            part = report.transcripts[name] = TranscriptPart(name)
            for case in yaml.safe_load((DATA / labels).read_text(encoding="utf-8"))["transcripts"]:
                score_transcript(case, part)
    for name in parts:
        if name in SENTENCE_PARTS:
            part = score_sentences(name)
            if part is not None:
                report.parts[name] = part
    return report


def _line(name: str, s: Score) -> str:
    return (
        f"  {name:32} required {s.required:3}  found {s.found_labels:3}  recall {s.recall:.2f}   "
        f"items {s.tp + s.fp:3}  precision {s.precision:.2f}  F1 {s.f1:.2f}"
    )


def _print_transcripts(part: TranscriptPart) -> None:
    skipped = f"  (skipped, not available: {', '.join(part.skipped)})" if part.skipped else ""
    print(f"{part.name} ({TRANSCRIPT_PARTS[part.name]}): transcripts scored: {len(part.by_transcript)}{skipped}")
    print("per type:")
    for name in SCORED:
        print(_line(name, part.by_type[name]))
    print(_line("OVERALL", part.overall))
    print("per transcript:")
    for name, s in part.by_transcript.items():
        print(_line(name, s))


def _print_part(part: SentencePart) -> None:
    items = part.items
    print(
        f"{part.name}: {part.correct}/{part.cases} correct ({part.correct / part.cases:.2f}); items recall {items.recall:.2f} "
        f"precision {items.precision:.2f} F1 {items.f1:.2f}; negatives {part.rejected}/{part.negatives} rejected"
    )
    for name in SCORED:
        if name in part.by_type:
            print(_line(name, part.by_type[name]))
    styles = sorted(set(part.by_style) | set(part.style_negatives))
    if styles != ["-"]:
        for style in styles:
            s = part.by_style[style]
            print(
                f"  style {style:26} items {s.required:3}  recall {s.recall:.2f}  precision {s.precision:.2f}  F1 {s.f1:.2f}"
                f"   negatives {part.style_negatives[style]:3}  taken as items {part.style_fp[style]:3}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=("all", *PARTS), default="all")
    parser.add_argument("--quiet", action="store_true", help="figures only, no errors")
    parser.add_argument("--show-fresh-errors", action="store_true", help="also print the errors of the held-out fresh set")
    args = parser.parse_args()
    report = evaluate(PARTS if args.part == "all" else (args.part,))
    for transcripts in report.transcripts.values():
        _print_transcripts(transcripts)
    for part in report.parts.values():
        _print_part(part)
    if args.part in SENTENCE_PARTS and args.part not in report.parts:
        print(f"{args.part}: {SENTENCE_PARTS[args.part]} is absent")
    if not args.quiet:
        print("errors:")
        for transcripts in report.transcripts.values():
            for line in transcripts.errors:
                print(f"  {transcripts.name} {line}")
        for part in report.parts.values():
            if part.name != "fresh" or args.show_fresh_errors:
                for line in part.errors:
                    print(f"  {part.name} {line}")


if __name__ == "__main__":
    main()
