"""Floors for compression on real windows, judged by an extractor independent of ``compress/facts.py``.

The figures come from ``bench/eval_compress.py`` (which prints them per
window with the TextRank baseline), per part: the shared fixtures' windows
and ``real2`` (eight public sessions in ``tests/data/compress/``, never used
to build the compressor). The floors sit a little under the figures, so a
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
from compress_structure import check  # noqa: E402
from compress_windows import PARTS, textrank  # noqa: E402

from ctx_tui.compress import compress_text  # noqa: E402
from ctx_tui.config import Config  # noqa: E402

#: Per part, (ratio → floor of the mean facts kept in sentences by the default strategy), the least
#: number of windows, and the floor of the mean share of tracked items kept.
#: Measured: fixtures 0.939 / 0.764, items 1.0; real2 0.947 / 0.755, items 1.0 (real2's items come
#: from an extraction still changing: a little room there).
FLOORS = {
    "fixtures": ({0.5: 0.91, 0.25: 0.74}, 6, {0.5: 1.0, 0.25: 1.0}),
    "real2": ({0.5: 0.90, 0.25: 0.73}, 8, {0.5: 0.95, 0.25: 0.95}),
}
#: SPEC §5: JSON and code blocks parse after compression in at least 95% of cases.
STRUCTURE = 0.95
#: SPEC §5: retentionRate (the strategy's own measure) >= 0.9 at ratio 0.5, as a mean over a part's
#: windows; measured fixtures 0.928, real2 0.935 (0.900 before commands counted as the measure counts them).
OWN_RETENTION = {"fixtures": 0.91, "real2": 0.91}

Row = tuple[float, float, float, bool, int, int, float]


@pytest.fixture(scope="module", params=list(FLOORS))
def evaluated(request: pytest.FixtureRequest) -> tuple[str, dict[float, list[Row]]]:
    """Per ratio and window: (kept in sentences, tracked items kept, baseline kept, within budget, intact units,
    units, the strategy's own retentionRate)."""
    part = request.param
    if part == "fixtures" and not FIXTURES.exists():
        pytest.skip("shared fixtures absent")
    strategy = Config().compression.strategy
    out: dict[float, list[Row]] = {}
    for _, text, items in PARTS[part]():
        for ratio in FLOORS[part][0]:
            result = compress_text(text, strategy, target_ratio=ratio, items=items)
            judged = judge(text, result.text, [i.content for i in items])
            baseline = judge(text, textrank(text, result.budget), [])
            structure = check(text, result.text)
            out.setdefault(ratio, []).append((judged.rate, judged.items_rate, baseline.rate,
                                              result.compressed_length <= result.budget,
                                              structure.intact, structure.units, result.retention_rate))
    return part, out


def test_the_default_keeps_facts_in_sentences(evaluated: tuple[str, dict]) -> None:
    part, rows_by_ratio = evaluated
    floors, least, _ = FLOORS[part]
    for ratio, floor in floors.items():
        rows = rows_by_ratio[ratio]
        assert len(rows) >= least
        assert statistics.mean(r[0] for r in rows) >= floor, (part, ratio)


def test_tracked_items_survive_and_every_output_fits(evaluated: tuple[str, dict]) -> None:
    part, rows_by_ratio = evaluated
    for ratio, rows in rows_by_ratio.items():
        assert statistics.mean(r[1] for r in rows) >= FLOORS[part][2][ratio], (part, ratio)
        assert all(r[3] for r in rows), (part, ratio)


def test_json_and_code_stay_whole(evaluated: tuple[str, dict]) -> None:
    part, rows_by_ratio = evaluated
    for ratio, rows in rows_by_ratio.items():
        units = sum(r[5] for r in rows)
        assert units and sum(r[4] for r in rows) >= STRUCTURE * units, (part, ratio)


def test_own_retention_at_half_meets_the_spec(evaluated: tuple[str, dict]) -> None:
    part, rows_by_ratio = evaluated
    assert statistics.mean(r[6] for r in rows_by_ratio[0.5]) >= OWN_RETENTION[part]


def test_ahead_of_the_extractive_baseline_at_a_quarter(evaluated: tuple[str, dict]) -> None:
    _, rows_by_ratio = evaluated
    rows = rows_by_ratio[0.25]
    assert statistics.mean(r[0] for r in rows) >= 1.5 * statistics.mean(r[2] for r in rows)
