"""Evaluation: how many facts each compression strategy keeps *in sentences*, on real windows.

Run from the project root: ``python bench/eval_compress.py``. The facts are
found by an extractor independent of ``ctx_tui/compress/facts.py``
(``tests/eval/compress_facts.py``); each strategy is run at ratio 0.5 and
0.25 next to a TextRank baseline at the same token budget. Prints per window
and strategy: facts kept in sentences, named only (in lists), tracked items
kept, tokens against the budget; then the mean per strategy and the ratio to
the baseline. Targets (issue 13): the default strategy ≥ 0.9 at 0.5 and
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
from compress_windows import textrank, windows  # noqa: E402

from ctx_tui.compress import compress_text  # noqa: E402
from ctx_tui.compress.core import budget_for  # noqa: E402
from ctx_tui.config import Config  # noqa: E402
from ctx_tui.tokens import count_tokens  # noqa: E402

ALL_STRATEGIES = ("summary", "semantic", "truncate", "textrank")
RATIOS = (0.5, 0.25)


def main() -> None:
    parser = argparse.ArgumentParser(description="Facts each compression strategy keeps, on real windows.")
    parser.add_argument("strategies", nargs="*", metavar="STRATEGY",
                        help=f"strategies to run (default: all of {', '.join(ALL_STRATEGIES)})")
    strategies = tuple(parser.parse_args().strategies) or ALL_STRATEGIES
    unknown = [s for s in strategies if s not in ALL_STRATEGIES]
    if unknown:
        parser.error(f"unknown strategy {', '.join(unknown)}; choose from {', '.join(ALL_STRATEGIES)}")
    default = Config().compression.strategy
    rates: dict[tuple[str, float], list[float]] = {}
    item_rates: dict[tuple[str, float], list[float]] = {}
    over = 0
    for name, text, items in windows():
        original = count_tokens(text)
        print(f"\n== {name}: {original:,} tokens, {len(items)} tracked items")
        for ratio in RATIOS:
            budget = budget_for(original, ratio, None, None)
            for strategy in strategies:
                started = time.perf_counter()
                if strategy == "textrank":
                    out = textrank(text, budget)
                else:
                    out = compress_text(text, strategy, target_ratio=ratio, items=items).text
                ms = (time.perf_counter() - started) * 1000
                used = count_tokens(out)
                over += used > budget
                j = judge(text, out, [i.content for i in items])
                rates.setdefault((strategy, ratio), []).append(j.rate)
                item_rates.setdefault((strategy, ratio), []).append(j.items_rate)
                print(f"   {ratio:<4} {strategy:<9} in sentences {j.rate:5.3f} ({j.in_sentence}/{j.total})"
                      f"  named only {j.named_only:4d}  items {j.items_kept}/{j.items_total}"
                      f"  {used:,}/{budget:,} tokens{' OVER' if used > budget else ''}  {ms:6.0f} ms")
    print(f"\n== mean over windows (default strategy: {default})")
    for ratio in RATIOS:
        base = statistics.mean(rates[("textrank", ratio)]) if ("textrank", ratio) in rates else 0.0
        for strategy in strategies:
            mean = statistics.mean(rates[(strategy, ratio)])
            items = statistics.mean(item_rates[(strategy, ratio)])
            print(f"   {ratio:<4} {strategy:<9} in sentences {mean:5.3f}  items {items:5.3f}"
                  f"  × baseline {mean / base if base else float('nan'):4.2f}")
    print(f"\n   outputs over budget: {over}")


if __name__ == "__main__":
    main()
