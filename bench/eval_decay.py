"""Reference detection and decay, measured on the labelled set in tests/eval/.

Two measurements:

1. **Reference pairs** (``tests/eval/references.yaml``): for each (item, later
   sentence) pair, does the matcher say the sentence refers to the item? Per
   style: count, true/false positives, recall; precision and F1 over all
   pairs. A style's F1 is the harmonic mean of its recall and the precision
   over all pairs (negatives are not of one positive style). Pronoun
   follow-ups are matched with the previous turn (``ctx``) as context.
2. **Planted sessions** (three per domain, 40–60 rounds, generated from the
   same file with a fixed seed): the items are stated in rounds 1–4, then a
   conversation of the domain's filler and hard negatives, with the item's
   labelled mentions planted at known rounds — recently, near the decay
   threshold, long ago, or never. Tool results repeat item texts word for
   word (they must never count). Ground truth: decayed when
   ``current round - last planted mention >= threshold`` (10 high, 20 else).
   ``analyze`` runs on the real transcript reader's entries; decayed
   precision/recall per session.

Every wrong case is printed with its id. Split (fixed, by domain):
``tune`` = web, data, infra, mobile (thresholds were chosen there);
``report`` = ml, docs, billing, cli. ``--part tune|report|all`` (default all,
each part printed apart). ``fresh`` = the domains of
``tests/eval/references_fresh.yaml`` (security, observability, gamedev,
embedded, ecommerce, analytics, git, testing), written before the concept
lexicon and never tuned on: the generalisation check (its IDF is its own).
``tune2`` = the domains of ``tests/eval/references_tune2.yaml``
(bioinformatics, robotics, llm apps, audio plugins, scraping), a second tuning
split written before the rules of issue 11's fifth round, mostly loose
paraphrases and hard negatives of the same topic (its IDF is its own).

Usage: ``python bench/eval_decay.py [--part tune|tune2|report|fresh] [--quiet]``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import benchlib  # noqa: F401  (puts the project on sys.path)
import yaml

from ctx_tui.config import Config
from ctx_tui.memory.decay import analyze, threshold_for
from ctx_tui.memory.items import ItemType, TrackedItem, importance_for
from ctx_tui.mentions import Vocabulary, mention
from ctx_tui.window import Session

EVAL_FILE = benchlib.ROOT / "tests" / "eval" / "references.yaml"
FRESH_FILE = benchlib.ROOT / "tests" / "eval" / "references_fresh.yaml"
TUNE2_FILE = benchlib.ROOT / "tests" / "eval" / "references_tune2.yaml"
TUNE = ("web", "data", "infra", "mobile")
REPORT = ("ml", "docs", "billing", "cli")
POSITIVE_STYLES = ("verbatim", "close", "loose", "identifier", "short", "pronoun")


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    domain: str
    item: dict
    style: str
    who: str
    text: str
    ctx: str | None
    ref: bool


def load(path: Path = EVAL_FILE) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def pairs_of(data: dict, domains: tuple[str, ...]) -> list[Pair]:
    out: list[Pair] = []
    for domain in domains:
        for item in data[domain]["items"]:
            for n, m in enumerate(item["mentions"]):
                out.append(Pair(f"{item['id']}#{n}", domain, item, m["s"], m["who"], m["text"], m.get("ctx"), bool(m["ref"])))
    return out


def vocabulary(data: dict) -> Vocabulary:
    """IDF for the pairs: every sentence of the set (all domains), as a session of about 400 sentences."""
    vocab = Vocabulary()
    for spec in data.values():
        for line in spec["filler"]:
            vocab.add(line)
        for item in spec["items"]:
            vocab.add(item["text"])
            for m in item["mentions"]:
                vocab.add(m["text"])
                if m.get("ctx"):
                    vocab.add(m["ctx"])
    return vocab


_VOCAB: Vocabulary | None = None


def prepare(data: dict) -> None:
    """Build the IDF of the pairs once (before :func:`measure_pairs`)."""
    global _VOCAB
    _VOCAB = vocabulary(data)


def refers(item_text: str, text: str, ctx: str | None) -> bool:
    """The method under test: does ``text`` (answering ``ctx``) refer to the item? (threshold: the config default)"""
    assert _VOCAB is not None
    previous = ctx is not None and mention(item_text, ctx, _VOCAB) is not None
    return mention(item_text, text, _VOCAB, previous=previous) is not None


# ---------------------------------------------------------------- pairs


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(slots=True)
class PairFigures:
    precision: float
    recall: float
    f1: float
    by_style: dict[str, tuple[int, int, float, float]]  # style -> (count, correct, recall or specificity, f1)
    wrong: list[tuple[Pair, bool]]


def measure_pairs(pairs: list[Pair]) -> PairFigures:
    got = [(p, refers(p.item["text"], p.text, p.ctx)) for p in pairs]
    tp = sum(1 for p, g in got if g and p.ref)
    fp = sum(1 for p, g in got if g and not p.ref)
    fn = sum(1 for p, g in got if not g and p.ref)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    by_style: dict[str, tuple[int, int, float, float]] = {}
    for style in (*POSITIVE_STYLES, "negative"):
        for ref in (True, False):
            cases = [(p, g) for p, g in got if p.style == style and p.ref is ref]
            if not cases:
                continue
            correct = sum(1 for p, g in cases if g == p.ref)
            rate = correct / len(cases)
            name = style if ref else f"{style} (neg)" if style != "negative" else "negative"
            by_style[name] = (len(cases), correct, rate, f1(precision, rate) if ref else rate)
    wrong = [(p, g) for p, g in got if g != p.ref]
    return PairFigures(precision, recall, f1(precision, recall), by_style, wrong)


def print_pairs(title: str, figures: PairFigures, quiet: bool) -> None:
    print(f"\n== reference pairs: {title}")
    print(f"   precision {figures.precision:.3f}  recall {figures.recall:.3f}  F1 {figures.f1:.3f}")
    print(f"   {'style':<16}{'n':>4}{'ok':>5}  {'recall/spec':>11}  {'F1':>6}")
    for style, (n, ok, rate, style_f1) in figures.by_style.items():
        print(f"   {style:<16}{n:>4}{ok:>5}  {rate:>11.3f}  {style_f1:>6.3f}")
    if not quiet:
        for p, g in figures.wrong:
            kind = "missed" if p.ref else "false "
            ctx = f"  [ctx: {p.ctx}]" if p.ctx else ""
            print(f"   {kind} {p.id:<26} {p.style:<10} item: {p.item['text'][:60]!r}\n          sentence: {p.text!r}{ctx}")


# ---------------------------------------------------------------- planted sessions


@dataclass(slots=True)
class Planted:
    domain: str
    path: Path
    rounds: int
    items: list[TrackedItem]
    truth_last: dict[str, int]  # item id -> last round it was really mentioned (or stated)
    scenario: dict[str, str]


SCENARIOS = ("recent", "near", "silent", "middle")
#: Each domain is planted with these seeds (a different length, scenario per item and mentions each).
SEEDS = (11, 12, 13)


def _tool_rows(r: int, text: str) -> list[dict]:
    call = {"id": f"call{r}", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"cmd": f"grep -rn todo src/ | head -{r}"})}}
    return [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"call{r}", "content": text},
    ]


def plant_session(data: dict, domain: str, folder: Path, seed: int = 11) -> Planted:
    """One planted session for ``domain`` (deterministic for a seed)."""
    rng = random.Random(f"{domain}-{seed}")
    config = Config()
    spec = data[domain]
    items_spec = spec["items"]
    rounds = 40 + rng.randint(0, 20)
    scenarios = list(SCENARIOS)
    rng.shuffle(scenarios)
    filler: list[str] = list(spec["filler"])
    for item in items_spec:
        filler += [m["text"] for m in item["mentions"] if not m["ref"] and m["s"] == "negative"]
    # round -> list of (speaker, text); ctx lines go to the assistant turn before
    user: dict[int, list[str]] = {r: [] for r in range(1, rounds + 1)}
    assistant: dict[int, list[str]] = {r: [] for r in range(1, rounds + 1)}
    tracked: list[TrackedItem] = []
    truth_last: dict[str, int] = {}
    scenario_of: dict[str, str] = {}
    for k, item in enumerate(items_spec):
        stated = k + 1
        kind = ItemType(item["type"])
        (user if kind is not ItemType.DECISION else assistant)[stated].append(item["text"])
        tracked.append(TrackedItem(id=item["id"], type=kind, content=item["text"], entered_round=stated))
        threshold = threshold_for(importance_for(kind), config)
        scenario = scenarios[k % len(scenarios)]
        scenario_of[item["id"]] = scenario
        positives = [m for m in item["mentions"] if m["ref"]]
        rng.shuffle(positives)
        if scenario == "recent":
            plant_rounds = sorted(rng.sample(range(rounds - 9, rounds + 1), 2))
        elif scenario == "near":  # just inside the threshold: not decayed
            plant_rounds = [rounds - threshold + 1 + rng.randint(0, 2)]
        elif scenario == "middle":  # long enough ago: decayed
            plant_rounds = [rounds - threshold - rng.randint(0, 4)]
        else:
            plant_rounds = []
        last = stated
        for r, mention in zip(plant_rounds, positives):
            if mention.get("ctx"):
                assistant[r - 1].append(mention["ctx"])
                user[r].insert(0, mention["text"])
            else:
                (user if mention["who"] == "user" else assistant)[r].append(mention["text"])
            last = max(last, r)
        truth_last[item["id"]] = last
    rows: list[dict] = []
    for r in range(1, rounds + 1):
        u = user[r] or [rng.choice(filler)]
        a = assistant[r] or [rng.choice(filler)]
        rows.append({"role": "user", "content": " ".join(u)})
        rows.append({"role": "assistant", "content": " ".join(a)})
        dump = "\n".join(i["text"] for i in items_spec) if r % 7 == 0 else rng.choice(filler)
        rows.extend(_tool_rows(r, f"src/app.py:{r}: # {dump}"))
    path = folder / f"planted-{domain}-{seed}.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return Planted(f"{domain}-{seed}", path, rounds, tracked, truth_last, scenario_of)


@dataclass(slots=True)
class SessionFigures:
    domain: str
    rounds: int
    tp: int
    fp: int
    fn: int
    tn: int
    wrong: list[str]


def measure_session(planted: Planted) -> SessionFigures:
    config = Config()
    session = Session(planted.path, config)
    session.poll()
    state = session.state()
    statuses = analyze(planted.items, session.entries, state.live, state.rounds, config)
    tp = fp = fn = tn = 0
    wrong: list[str] = []
    for status in statuses:
        truth_since = state.rounds - planted.truth_last[status.id]
        truth = truth_since >= status.threshold
        got = status.decayed
        tp += got and truth
        fp += got and not truth
        fn += truth and not got
        tn += not got and not truth
        if got != truth:
            wrong.append(
                f"{status.id} ({planted.scenario[status.id]}): truth last mention r{planted.truth_last[status.id]}, "
                f"detected last r{status.last_seen_round}, threshold {status.threshold}, round {state.rounds}"
            )
    return SessionFigures(planted.domain, state.rounds, tp, fp, fn, tn, wrong)


def print_sessions(title: str, figures: list[SessionFigures], quiet: bool) -> tuple[float, float]:
    print(f"\n== planted sessions: {title}")
    print(f"   {'session':<12}{'rounds':>7}{'tp':>4}{'fp':>4}{'fn':>4}{'tn':>4}  {'precision':>9}  {'recall':>6}")
    for s in figures:
        p = s.tp / (s.tp + s.fp) if s.tp + s.fp else 1.0
        r = s.tp / (s.tp + s.fn) if s.tp + s.fn else 1.0
        print(f"   {s.domain:<12}{s.rounds:>7}{s.tp:>4}{s.fp:>4}{s.fn:>4}{s.tn:>4}  {p:>9.3f}  {r:>6.3f}")
    tp, fp, fn = (sum(getattr(s, k) for s in figures) for k in ("tp", "fp", "fn"))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(f"   decayed precision {precision:.3f}  recall {recall:.3f}")
    if not quiet:
        for s in figures:
            for line in s.wrong:
                print(f"   wrong  {s.domain}: {line}")
    return precision, recall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("tune", "tune2", "report", "fresh", "all"), default="all")
    parser.add_argument("--quiet", action="store_true", help="figures only, no wrong cases")
    args = parser.parse_args(argv)
    main_set, tune2, fresh = load(), load(TUNE2_FILE), load(FRESH_FILE)
    parts = {
        "tune": (main_set, TUNE),
        "tune2": (tune2, tuple(tune2)),
        "report": (main_set, REPORT),
        "fresh": (fresh, tuple(fresh)),
    }
    chosen = parts if args.part == "all" else {args.part: parts[args.part]}
    with tempfile.TemporaryDirectory(prefix="ctx-eval-decay-") as tmp:
        for name, (data, domains) in chosen.items():
            prepare(data)
            print_pairs(f"{name} ({', '.join(domains)})", measure_pairs(pairs_of(data, domains)), args.quiet)
            planted = [plant_session(data, d, Path(tmp), seed) for d in domains for seed in SEEDS]
            print_sessions(f"{name} ({', '.join(domains)})", [measure_session(p) for p in planted], args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
