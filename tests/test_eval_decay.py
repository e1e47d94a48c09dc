"""Floors on the labelled reference set (tests/eval/references.yaml), report part.

The figures come from ``bench/eval_decay.py`` (run it to see every wrong
case). Each floor sits a little under today's figure, so a regression fails
here while an honest improvement never needs this file changed. The report
part (ml, docs, billing, cli) was not used to choose the threshold; the
fresh split (tests/eval/references_fresh.yaml) was written before the concept
lexicon and is never tuned on.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def evaluation():  # noqa: ANN201  (the bench module)
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("eval_decay", BENCH / "eval_decay.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["eval_decay"] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    module.prepare(module.load())
    return module


def test_the_set_is_big_and_varied(evaluation) -> None:  # noqa: ANN001
    data = evaluation.load()
    pairs = evaluation.pairs_of(data, tuple(data))
    assert len(data) >= 6 and len(pairs) >= 200
    positives = sum(p.ref for p in pairs)
    assert len(pairs) - positives >= 0.7 * positives  # hard negatives about as many as positives
    assert {p.style for p in pairs} >= {*evaluation.POSITIVE_STYLES, "negative"}


def test_reference_pairs_floor(evaluation) -> None:  # noqa: ANN001
    figures = evaluation.measure_pairs(evaluation.pairs_of(evaluation.load(), evaluation.REPORT))
    assert figures.precision >= 0.95 and figures.f1 >= 0.92, (figures.precision, figures.recall, figures.f1)
    recall = {style: rate for style, (_, _, rate, _) in figures.by_style.items()}
    assert recall["verbatim"] == 1.0 and recall["close"] >= 0.9 and recall["loose"] >= 0.66
    assert recall["identifier"] >= 0.85 and recall["short"] >= 0.9 and recall["pronoun"] >= 0.6
    assert recall["negative"] >= 0.93  # hard negatives rejected


def test_tune_loose_paraphrases_floor(evaluation) -> None:  # noqa: ANN001
    """The tune part's paraphrases in other words (the rules were chosen there: a regression shows first)."""
    figures = evaluation.measure_pairs(evaluation.pairs_of(evaluation.load(), evaluation.TUNE))
    assert figures.precision >= 0.96 and figures.f1 >= 0.955, (figures.precision, figures.recall, figures.f1)
    assert figures.by_style["loose"][2] >= 0.87 and figures.by_style["negative"][2] >= 0.95  # 14/16, 45/47
    assert figures.by_style["pronoun"][2] >= 0.85 and figures.by_style["pronoun (neg)"][2] == 1.0  # 6/7, 3/3
    assert figures.by_style["identifier"][2] == 1.0  # 10/10 (values-prod.yaml: a file name as one of the item's files)


def test_fresh_split_floor(evaluation) -> None:  # noqa: ANN001
    """The fresh split (tests/eval/references_fresh.yaml): domains written before the lexicon, never tuned on."""
    fresh = evaluation.load(evaluation.FRESH_FILE)
    evaluation.prepare(fresh)
    try:
        figures = evaluation.measure_pairs(evaluation.pairs_of(fresh, tuple(fresh)))
    finally:
        evaluation.prepare(evaluation.load())
    assert len(fresh) >= 8 and len(figures.wrong) < 0.35 * sum(n for n, *_ in figures.by_style.values())
    assert figures.precision >= 0.95 and figures.f1 >= 0.905, (figures.precision, figures.recall, figures.f1)
    assert figures.by_style["identifier"][2] >= 0.8  # command lines running the item's tool
    assert figures.by_style["loose"][2] >= 0.5  # 12/24 paraphrases in other words


def test_fresh_planted_sessions_floor(evaluation) -> None:  # noqa: ANN001
    fresh = evaluation.load(evaluation.FRESH_FILE)
    with tempfile.TemporaryDirectory() as tmp:
        figures = [
            evaluation.measure_session(evaluation.plant_session(fresh, domain, Path(tmp), seed))
            for domain in fresh
            for seed in evaluation.SEEDS
        ]
    tp, fp, fn = (sum(getattr(s, k) for s in figures) for k in ("tp", "fp", "fn"))
    assert tp / (tp + fp) >= 0.9 and tp / (tp + fn) >= 0.97, [s.wrong for s in figures]


def test_planted_sessions_floor(evaluation) -> None:  # noqa: ANN001
    data = evaluation.load()
    with tempfile.TemporaryDirectory() as tmp:
        figures = [
            evaluation.measure_session(evaluation.plant_session(data, domain, Path(tmp), seed))
            for domain in evaluation.REPORT
            for seed in evaluation.SEEDS
        ]
    tp, fp, fn = (sum(getattr(s, k) for s in figures) for k in ("tp", "fp", "fn"))
    assert tp / (tp + fp) >= 0.9 and tp / (tp + fn) >= 0.93, [s.wrong for s in figures]


def test_second_tune_set_floor(evaluation) -> None:  # noqa: ANN001
    """tests/eval/references_tune2.yaml: loose paraphrases and same-topic hard negatives in five more domains."""
    tune2 = evaluation.load(evaluation.TUNE2_FILE)
    evaluation.prepare(tune2)
    try:
        pairs = evaluation.pairs_of(tune2, tuple(tune2))
        figures = evaluation.measure_pairs(pairs)
    finally:
        evaluation.prepare(evaluation.load())
    assert len(tune2) >= 4 and len(pairs) >= 80
    assert not set(tune2) & {*evaluation.TUNE, *evaluation.REPORT, *evaluation.load(evaluation.FRESH_FILE)}
    assert figures.precision >= 0.95, (figures.precision, figures.recall, figures.f1)
    assert figures.by_style["negative"][2] >= 0.97  # 40/41 hard negatives rejected
    assert figures.by_style["loose"][2] >= 6 / 42


def test_second_tune_set_planted_sessions_floor(evaluation) -> None:  # noqa: ANN001
    """The second tune set's planted sessions: a silent item stays flagged (recall); precision is low
    today because loose paraphrases in its domains are missed (see docs/memory.md)."""
    tune2 = evaluation.load(evaluation.TUNE2_FILE)
    with tempfile.TemporaryDirectory() as tmp:
        figures = [
            evaluation.measure_session(evaluation.plant_session(tune2, domain, Path(tmp), seed))
            for domain in tune2
            for seed in evaluation.SEEDS
        ]
    tp, fp, fn = (sum(getattr(s, k) for s in figures) for k in ("tp", "fp", "fn"))
    assert tp / (tp + fp) >= 0.55 and tp / (tp + fn) >= 0.86, [s.wrong for s in figures]
