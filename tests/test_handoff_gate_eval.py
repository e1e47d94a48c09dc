"""The gate against the labelled set of realistic handoffs pins its floor (issue 14 targets)."""

from __future__ import annotations

from gate_eval import SPLITS, figures, judge, load_cases, report

#: Issue 14's targets: at least this share of vague handoffs refused, at most this share of good ones.
#: Every split meets them (bench/eval_gate.py): blind2 first ran at 93.3% / 6.7% (2670a65), blind3 at
#: 79.2% / 0% (b432a21); blind3 measures 95.8% / 0% now, the others 100% / 0%.
MIN_VAGUE_REFUSED = 0.95
MAX_GOOD_REFUSED = 0.05


def test_the_set_is_big_and_varied() -> None:
    cases = load_cases()
    assert len(cases) >= 100
    assert len({c.domain for c in cases}) >= 6
    classes = {c.cls for c in cases}
    for wanted in ("ctx-names-only", "ctx-restates-task", "ctx-all-good", "act-review-continue",
                   "act-look-fix-them", "act-chain", "pct-gap", "rationale-empty", "blocker-collision",
                   "good-terse", "good-id-object", "good-bare-command", "vague-blockers", "good-blockers"):
        assert wanted in classes
    assert {c.label for c in cases} == {"good", "vague"}
    assert {c.split for c in cases} == set(SPLITS)


def test_gate_meets_the_targets_on_every_split() -> None:
    verdicts = judge(load_cases())
    text = report(verdicts)
    for split in SPLITS:
        part = figures([v for v in verdicts if v.case.split == split])
        assert part.vague_refused_share >= MIN_VAGUE_REFUSED, text
        assert part.good_refused_share <= MAX_GOOD_REFUSED, text
