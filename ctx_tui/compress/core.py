"""``compress_text``: one entry point for the three strategies, with measured figures.

The budget is in tokens (``ctx_tui.tokens.count_tokens``): ``max_length``,
or ``target_ratio`` x the original's tokens, or the smaller of the two when
both are given; with neither, ``compression.target_ratio`` from the config.
A text already within budget comes back unchanged. Otherwise the output is a
one-line header saying what it is, then the strategy's body; the whole output
(header included) is checked against the budget with the real tokenizer and
the body is rebuilt with a smaller budget until it fits (or once with a larger
one when it left more than 5% of the budget unused).

``retentionRate`` is measured on the body (the header's own numbers never
count): the key facts of the input (``facts.extract_facts``; on a rendered
window, system sections left out) that stand in a sentence or block of it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ctx_tui.compress.blocks import close_open_fence, split_blocks
from ctx_tui.compress.facts import Fact, ItemLike, extract_facts, measure_retention
from ctx_tui.compress.select import TokenEstimate
from ctx_tui.compress.semantic import plan_semantic
from ctx_tui.compress.summary import plan_summary
from ctx_tui.compress.truncate import truncate
from ctx_tui.transcripts.render import conversation_text
from ctx_tui.errors import CtxError
from ctx_tui.kinds import PRESERVED_BY_DEFAULT
from ctx_tui.tokens import count_tokens

if TYPE_CHECKING:  # the config module loads only where a caller gives one or a default is asked for
    from ctx_tui.config import Config

STRATEGIES = ("summary", "truncate", "semantic")
#: Rebuild attempts when the assembled output is still over budget.
_FIT_ATTEMPTS = 6
#: Share of the budget an output may leave unused before the body is rebuilt once with more room.
_SLACK = 0.05
#: Below this many tokens of budget the header is left out (it would be most of the output).
_MIN_HEADER_BUDGET = 48


@dataclass(slots=True)
class CompressionResult:
    text: str
    strategy: str
    original_length: int  # tokens of the input
    compressed_length: int  # tokens of ``text``
    retention_rate: float  # 0..1, key facts of the input kept in a sentence or block of the output
    duration_ms: float
    budget: int  # the token budget the output had to fit
    facts_kept: list[Fact] = field(default_factory=list)
    facts_lost: list[Fact] = field(default_factory=list)
    #: Facts found only in a list of names (no sentence around them): not counted as kept.
    facts_named_only: int = 0

    @property
    def ratio(self) -> float:
        return self.compressed_length / self.original_length if self.original_length else 1.0

    def metadata(self) -> dict[str, Any]:
        """The figures under the names of the service contract (docs/compression.md, "The service contract")."""
        return {
            "originalLength": self.original_length,
            "compressedLength": self.compressed_length,
            "retentionRate": self.retention_rate,
            "duration": round(self.duration_ms, 1),
            "strategy": self.strategy,
            "factsKept": len(self.facts_kept),
            "factsTotal": len(self.facts_kept) + len(self.facts_lost),
            "factsNamedOnly": self.facts_named_only,
        }


def budget_for(original: int, target_ratio: float | None, max_length: int | None, config: Config | None) -> int:
    """The output's token budget (see the module doc)."""
    if target_ratio is not None and not (0.0 < target_ratio <= 1.0):
        raise CtxError(f"target ratio must be in (0, 1], got {target_ratio}")
    if max_length is not None and max_length < 1:
        raise CtxError(f"max length must be a positive number of tokens, got {max_length}")
    if target_ratio is None and max_length is None:
        if config is None:
            from ctx_tui.config import Config

            config = Config()
        target_ratio = config.compression.target_ratio
    limits = []
    if target_ratio is not None:
        limits.append(math.floor(original * target_ratio))
    if max_length is not None:
        limits.append(max_length)
    return max(0, min(limits))


def header(strategy: str, original: int, kept: int, total: int) -> str:
    return f"[ctx-tui {strategy} of a {original:,}-token context; {kept} of {total} key facts kept]"


def _body_fn(
    strategy: str, text: str, facts: list[Fact], items: Sequence[ItemLike], tok: TokenEstimate, config: Config | None
) -> Callable[[int], str]:
    types = config.compression.preserve_types if config is not None else PRESERVED_BY_DEFAULT
    preserve = frozenset(str(t) for t in types)
    if strategy == "summary":
        return plan_summary(text, facts, items, tok, preserve)
    if strategy == "semantic":
        return plan_semantic(text, facts, items, tok, preserve)
    return lambda budget: truncate(text, budget, tok)


def _fit(make_body: Callable[[int], str], room: int, budget: int, header_text: str) -> str:
    """The body for the largest room whose output (with ``header_text``) fits ``budget``.

    The strategies choose by estimated tokens, so the real count lands a few %
    off: over budget, the room shrinks in proportion to the overshoot; more
    than ``_SLACK`` under it, the room grows once by what was left.
    """
    best = ""
    grown = False
    for _ in range(_FIT_ATTEMPTS):
        body = close_open_fence(make_body(room)) if room > 0 else ""
        length = count_tokens(f"{header_text}\n\n{body}" if header_text else body)
        if length > budget:  # shrink in proportion to the overshoot, by 1% at least
            room = min(room - max(room // 100, 1), int(room * budget / length))
            continue
        best = body
        if grown or budget - length <= budget * _SLACK:
            break
        grown = True
        room += int((budget - length) * 0.9)
    return best


def compress_text(
    text: str,
    strategy: str,
    target_ratio: float | None = None,
    max_length: int | None = None,
    items: Sequence[ItemLike] = (),
    config: Config | None = None,
) -> CompressionResult:
    """Compress ``text`` with ``strategy`` ("summary", "truncate" or "semantic") to the budget."""
    started = time.perf_counter()
    if strategy not in STRATEGIES:
        raise CtxError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    items = [i for i in items if not getattr(i, "dismissed", False)]
    original = count_tokens(text)
    budget = budget_for(original, target_ratio, max_length, config)
    counted = conversation_text(text)
    facts = extract_facts(counted, items, split_blocks(counted))
    if original <= budget:
        retention = measure_retention(facts, text)
        return CompressionResult(text, strategy, original, original, retention.rate,
                                 (time.perf_counter() - started) * 1000, budget, retention.kept, retention.lost,
                                 len(retention.named_only))

    make_body = _body_fn(strategy, text, facts, items, TokenEstimate(text, original), config)
    with_header = budget >= _MIN_HEADER_BUDGET
    # Fit with the header at its longest (kept = total); the real header is never longer.
    widest = header(strategy, original, len(facts), len(facts))
    room = budget - (count_tokens(widest) + 2 if with_header else 0)
    room -= room // 25  # the estimate-based choice lands within a few %: aim under so one pass usually fits
    body = _fit(make_body, room, budget, widest if with_header else "")
    retention = measure_retention(facts, body)
    out = f"{header(strategy, original, len(retention.kept), len(facts))}\n\n{body}" if with_header and body else body
    length = count_tokens(out)
    return CompressionResult(out, strategy, original, length, retention.rate,
                             (time.perf_counter() - started) * 1000, budget, retention.kept, retention.lost,
                             len(retention.named_only))
