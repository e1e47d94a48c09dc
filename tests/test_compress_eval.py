"""Floors for compression on real windows, judged by an extractor independent of ``compress/facts.py``.

The figures come from ``bench/eval_compress.py`` (which prints them per
window with the TextRank baseline); the floors sit a little under them, so a
regression fails here while an improvement never needs this file changed.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES

sys.path.insert(0, str(Path(__file__).parent / "eval"))

from compress_facts import judge  # noqa: E402
from compress_windows import textrank, windows  # noqa: E402

from ctx_tui.compress import compress_text  # noqa: E402
from ctx_tui.config import Config  # noqa: E402

pytestmark = pytest.mark.skipif(not FIXTURES.exists(), reason="shared fixtures absent")

#: (ratio, mean facts kept in sentences by the default strategy, floor); measured 0.939 / 0.765.
FLOORS = {0.5: 0.91, 0.25: 0.74}


@pytest.fixture(scope="module")
def evaluated() -> dict[float, list[tuple[float, float, float, bool]]]:
    """Per ratio: (kept in sentences, tracked items kept, baseline kept, within budget) for each window."""
    strategy = Config().compression.strategy
    out: dict[float, list[tuple[float, float, float, bool]]] = {}
    for _, text, items in windows():
        for ratio in FLOORS:
            result = compress_text(text, strategy, target_ratio=ratio, items=items)
            judged = judge(text, result.text, [i.content for i in items])
            baseline = judge(text, textrank(text, result.budget), [])
            out.setdefault(ratio, []).append(
                (judged.rate, judged.items_rate, baseline.rate, result.compressed_length <= result.budget)
            )
    return out


def test_the_default_keeps_facts_in_sentences(evaluated: dict) -> None:
    for ratio, floor in FLOORS.items():
        rows = evaluated[ratio]
        assert len(rows) >= 6
        assert statistics.mean(r[0] for r in rows) >= floor, ratio


def test_every_tracked_item_survives_and_every_output_fits(evaluated: dict) -> None:
    for rows in evaluated.values():
        assert all(items == 1.0 and fits for _, items, _, fits in rows)


def test_ahead_of_the_extractive_baseline_at_a_quarter(evaluated: dict) -> None:
    rows = evaluated[0.25]
    assert statistics.mean(r[0] for r in rows) >= 1.5 * statistics.mean(r[2] for r in rows)
