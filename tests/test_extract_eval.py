"""The extraction eval (bench/eval_extract.py) on the labelled real transcripts: floors a little under today's figures.

Today (all 13 transcripts available): recall 0.92, precision 0.87, decision recall 0.84 (precision was 0.92
before a later task became the task in hand: labels.yaml leaves most later tasks unlabelled, so they count
as false positives there; docs/memory.md has the measurement);
real2 (labels_real2.yaml, 8 excerpts labelled blind; first run 0.17 / 0.52): recall 0.54, precision 0.93,
goal recall 0.50, decision recall 0.67;
real4 (labels_real4.yaml, 6 excerpts labelled blind; first run 0.18 / 0.16): recall 0.53, precision 0.80;
sentences: base 109/109, tune2 239/240 (items recall 0.99, precision 1.00, 108/108 negatives rejected).
A regression fails here; an honest improvement never needs this file changed.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache

import pytest

from conftest import FIXTURES, ROOT


@cache
def _report():
    return _eval_module().evaluate()


def _eval_module():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("eval_extract", ROOT / "bench" / "eval_extract.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["eval_extract"] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "bench"))


def test_extraction_floor_on_real_transcripts() -> None:
    report = _report()
    overall = report.overall
    # the eight stored excerpts always count; the five shared fixtures when ../shared is present
    assert len(report.by_transcript) >= 8
    assert overall.recall >= 0.85, report.errors
    # 0.87 with the shared fixtures, 0.84 on the eight excerpts alone
    assert overall.precision >= (0.85 if FIXTURES.is_dir() else 0.82), report.errors
    assert report.by_type["decision"].recall >= 0.72, report.errors
    assert report.by_type["goal"].recall >= 0.9, report.errors
    if not FIXTURES.is_dir():
        pytest.skip("shared fixtures absent: scored on the stored excerpts only")


def test_extraction_floor_on_the_blind_real_split() -> None:
    part = _report().transcripts["real2"]
    assert len(part.by_transcript) == 8  # stored excerpts: always all there
    assert part.overall.recall >= 0.5, part.errors
    assert part.overall.precision >= 0.9, part.errors
    assert part.by_type["goal"].recall >= 0.42, part.errors
    assert part.by_type["decision"].recall >= 0.62, part.errors


def test_extraction_floor_on_the_third_blind_real_split() -> None:
    """real4: six public sessions labelled blind by a third author (first run on 2480ce9: recall 0.18, precision 0.16)."""
    part = _report().transcripts["real4"]
    assert len(part.by_transcript) == 6  # stored excerpts: always all there
    assert part.overall.recall >= 0.5, part.errors
    assert part.overall.precision >= 0.75, part.errors
    assert part.by_type["decision"].recall >= 0.35, part.errors


def test_sentence_cases_floor() -> None:
    base = _report().parts["base"]
    assert base.cases >= 100
    assert base.correct / base.cases >= 0.85, base.errors


def test_tune2_sentences_floor() -> None:
    """The set another helper wrote blind (its first run: 147/240, items recall 0.33, precision 0.90)."""
    tune2 = _report().parts["tune2"]
    items = tune2.items
    assert tune2.cases == 240
    assert tune2.correct / tune2.cases >= 0.95, tune2.errors
    assert items.recall >= 0.93 and items.precision >= 0.95, tune2.errors
    assert tune2.rejected / tune2.negatives >= 0.95, tune2.errors


def test_fresh_sentences_floor() -> None:
    """The held-out set written blind by a third author and kept sealed until committed.

    Its first run on 2670a65 (before any change of this round): 154/240, items recall 0.38,
    precision 0.93. Its errors are never read while writing rules (eval_extract prints them
    only with --show-fresh-errors), so this floor measures generalisation.
    """
    fresh = _report().parts["fresh"]
    items = fresh.items
    assert fresh.cases == 240
    assert fresh.correct / fresh.cases >= 0.78, "fresh: correct share under its floor"
    assert items.recall >= 0.66 and items.precision >= 0.9, "fresh: items under their floor"
