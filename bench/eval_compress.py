"""Evaluation: how many facts each compression strategy keeps *in sentences*, on real windows.

Run from the project root: ``python bench/eval_compress.py [--part fixtures|real2]``.
Two parts, printed apart: the shared fixtures' windows and ``real2``, eight
public Claude Code sessions kept in ``tests/data/compress/``. The facts are
found by an extractor independent of ``ctx_tui/compress/facts.py``
(``tests/eval/compress_facts.py``); each strategy is run at ratio 0.5 and
0.25 next to a TextRank baseline at the same token budget. Prints per window
and strategy: facts kept in sentences, named only (in lists), tracked items
kept, JSON/code units left whole (``tests/eval/compress_structure.py``),
the strategy's own ``retentionRate`` (its measure, SPEC §4), tokens against
the budget; then per part the mean per strategy, the ratio to the baseline,
the share of structure units left whole and the mean ``retentionRate``. Targets (issue 13): the default strategy ≥ 0.9 at 0.5 and
≥ 0.7 at 0.25, all tracked items at both, ≥ 1.5× the baseline at 0.25,
every output within budget.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from benchlib import ROOT

sys.path.insert(0, str(ROOT / "tests" / "eval"))

from compress_facts import judge  # noqa: E402
from compress_structure import check  # noqa: E402
from compress_windows import PARTS, textrank  # noqa: E402

from ctx_tui.compress import compress_text  # noqa: E402
from ctx_tui.compress.core import budget_for  # noqa: E402
from ctx_tui.config import Config  # noqa: E402
from ctx_tui.tokens import count_tokens  # noqa: E402

ALL_STRATEGIES = ("summary", "semantic", "truncate", "textrank")
RATIOS = (0.5, 0.25)


def run_part(part: str, strategies: tuple[str, ...]) -> None:
    """Print each window of ``part`` and the means over it."""
    rates: dict[tuple[str, float], list[float]] = {}
    item_rates: dict[tuple[str, float], list[float]] = {}
    structure: dict[tuple[str, float], list[int]] = {}
    reported: dict[tuple[str, float], list[float]] = {}
    over = 0
    for name, text, items in PARTS[part]():
        original = count_tokens(text)
        print(f"\n== [{part}] {name}: {original:,} tokens, {len(items)} tracked items")
        for ratio in RATIOS:
            budget = budget_for(original, ratio, None, None)
            for strategy in strategies:
                started = time.perf_counter()
                if strategy == "textrank":
                    out, own = textrank(text, budget), ""
                else:
                    result = compress_text(text, strategy, target_ratio=ratio, items=items)
                    out, own = result.text, f"  retentionRate {result.retention_rate:5.3f}"
                    reported.setdefault((strategy, ratio), []).append(result.retention_rate)
                ms = (time.perf_counter() - started) * 1000
                used = count_tokens(out)
                over += used > budget
                j = judge(text, out, [i.content for i in items])
                s = check(text, out)
                rates.setdefault((strategy, ratio), []).append(j.rate)
                item_rates.setdefault((strategy, ratio), []).append(j.items_rate)
                tally = structure.setdefault((strategy, ratio), [0, 0])
                tally[0] += s.intact
                tally[1] += s.units
                print(f"   {ratio:<4} {strategy:<9} in sentences {j.rate:5.3f} ({j.in_sentence}/{j.total})"
                      f"  named only {j.named_only:4d}  items {j.items_kept}/{j.items_total}"
                      f"  structure {s.intact}/{s.units}{own}"
                      f"  {used:,}/{budget:,} tokens{' OVER' if used > budget else ''}  {ms:6.0f} ms")
    print(f"\n== [{part}] mean over windows (default strategy: {Config().compression.strategy})")
    for ratio in RATIOS:
        base = statistics.mean(rates[("textrank", ratio)]) if ("textrank", ratio) in rates else 0.0
        for strategy in strategies:
            mean = statistics.mean(rates[(strategy, ratio)])
            items = statistics.mean(item_rates[(strategy, ratio)])
            intact, units = structure[(strategy, ratio)]
            own = reported.get((strategy, ratio))
            print(f"   {ratio:<4} {strategy:<9} in sentences {mean:5.3f}  items {items:5.3f}"
                  f"  × baseline {mean / base if base else float('nan'):4.2f}"
                  f"  structure {intact / units if units else 1.0:5.3f} ({intact}/{units})"
                  + (f"  retentionRate {statistics.mean(own):5.3f}" if own else ""))
    print(f"\n   [{part}] outputs over budget: {over}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Facts each compression strategy keeps, on real windows.")
    parser.add_argument("strategies", nargs="*", metavar="STRATEGY",
                        help=f"strategies to run (default: all of {', '.join(ALL_STRATEGIES)})")
    parser.add_argument("--part", choices=(*PARTS, "all"), default="all",
                        help="which windows: the shared fixtures, the real2 sessions, or all (default)")
    args = parser.parse_args()
    strategies = tuple(args.strategies) or ALL_STRATEGIES
    unknown = [s for s in strategies if s not in ALL_STRATEGIES]
    if unknown:
        parser.error(f"unknown strategy {', '.join(unknown)}; choose from {', '.join(ALL_STRATEGIES)}")
    for part in PARTS if args.part == "all" else (args.part,):
        run_part(part, strategies)


if __name__ == "__main__":
    main()
