"""An independent judge of what a compressed window kept (for ``bench/eval_compress.py`` and its floor test).

Written apart from ``ctx_tui/compress/facts.py`` on purpose (its own rules, its
own code): the strategies must not be measured by the extractor they optimise.

Facts of a window:

* ``identifier`` — backticked spans, ``snake_case``, ``camelCase``/``PascalCase``
  with an inner capital, dotted names of two or more parts;
* ``path`` — a token with a ``/`` between word characters, or ``name.ext``;
* ``number`` — integers of 3+ digits, decimals, versions, percentages;
* ``error`` — ``...Error``/``...Exception`` names and ``error:``/``failed`` lines' first words;
* ``rule`` — a sentence *the user* wrote with must/never/always/don't/do not/only/avoid/prefer;
* ``item`` — each tracked item handed to the compressor (goal, constraints, ...).

Facts are taken from the conversation: a rendered window's system sections
(agent instructions, reminders, environment wrappers the agent is sent again
anyway) are left out, so a fact found only there is not one.

Kept *in a sentence*: the output is cut into units (sentences of prose, list
items, table rows, whole code blocks); a unit counts as a sentence when it has
at least ``PROSE_WORDS`` plain lower-case words besides the facts it names
("Run `make` to check it." is a sentence),
and no fewer plain words than facts (a list of names is not a sentence), or
when it is a code block. A token fact is kept when it stands in such a unit;
one found only in name lists (units that are little more than names) is
*named only*. Rules and items are kept when one unit holds ≥ 70% of their
content words; an item of n sentences, when n units in a row do (an item
printed whole is cut into n units like any text).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

PROSE_WORDS = 3
ITEM_SHARE = 0.7

_OPENER = re.compile(r"`{3,}|~{3,}")
_CLOSER = re.compile(r"(`{3,}|~{3,})\s*")
_TICK = re.compile(r"`([^`\n]{2,80})`")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b", re.I)
_CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z0-9]+\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b")
_DOTTED = re.compile(r"\b[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+\b")
_PATHISH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:py|ts|tsx|js|json|md|yaml|yml|toml|rs|go|sql|sh|txt|css|html)\b")
_NUM = re.compile(r"\b\d+\.\d+(?:\.\d+)*\b|\b\d{3,}\b|\b\d+%")
_ERR = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")
_RULE = re.compile(r"\b(?:must|never|always|don't|do not|only|avoid|prefer|important)\b", re.I)
_WORD = re.compile(r"[a-z]{2,}")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])|\n")
_USER_SECTION = re.compile(r"^### \[session\] user[^\n]*\n(.*?)(?=^### \[|\Z)", re.M | re.S)
_SYSTEM_SECTION = re.compile(r"^### \[session\] system[^\n]*\n.*?(?=^### \[|\Z)", re.M | re.S)
_STOP = frozenset("the a an and or of to in on for is are be it this that with as at by we you i not".split())


@dataclass
class Judgement:
    total: int = 0
    in_sentence: int = 0
    named_only: int = 0
    items_total: int = 0
    items_kept: int = 0
    lost: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.in_sentence / self.total if self.total else 1.0

    @property
    def items_rate(self) -> float:
        return self.items_kept / self.items_total if self.items_total else 1.0


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def token_facts(text: str) -> set[str]:
    """Identifiers, paths, numbers and error names of ``text``."""
    found: set[str] = set()
    for m in _TICK.finditer(text):
        found.add(m.group(1).strip())
    for rx in (_PATHISH, _SNAKE, _CAMEL, _DOTTED, _NUM, _ERR):
        for m in rx.finditer(text):
            value = m.group(0).strip(".")
            if len(value) >= 3:
                found.add(value)
    return found


def user_rules(window: str) -> list[str]:
    """Sentences the user wrote that state a rule."""
    rules = []
    for m in _USER_SECTION.finditer(window):
        for sentence in _SPLIT.split(m.group(1)):
            sentence = sentence.strip()
            if _RULE.search(sentence) and 3 <= len(sentence.split()) <= 45 and len(_content_words(sentence)) >= 2:
                rules.append(sentence)
    return rules


def fenced_spans(text: str) -> list[tuple[int, int]]:
    r"""The (start, end) of each fenced block of ``text``, found line by line.

    The same spans as ``re.finditer(r"^(`{3,}|~{3,}).*?$.*?^\1\s*$", text, re.M | re.S)``
    (this judge's rule since it was written: an opener's run is tried at its
    full length, then shorter, each time against the first later line that
    is exactly that run and whitespace; the match runs on over whitespace to
    the end of a line), without the regex's scan to the end of the text for
    every fence left unclosed (quadratic on an output cut at random, as
    TextRank's is).
    """
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    lines = text.split("\n")
    closers: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        m = _CLOSER.fullmatch(line)
        if m:
            closers.setdefault(m.group(1), []).append(i)
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        m = _OPENER.match(lines[i])
        close = None
        if m:
            run = m.group(0)
            for k in range(len(run), 2, -1):
                later = closers.get(run[:k], [])
                at = bisect.bisect_right(later, i)
                if at < len(later):
                    close = later[at]
                    break
        if close is None:
            i += 1
            continue
        end = starts[close] + len(lines[close])
        ws = end
        while ws < len(text) and text[ws].isspace():
            ws += 1
        while ws > end and ws < len(text) and text[ws] != "\n":
            ws -= 1
        spans.append((starts[i], ws))
        i = close + 1
        while i < len(lines) and starts[i] < ws:
            i += 1
    return spans


def units(output: str) -> list[tuple[str, bool]]:
    """(unit text, is a sentence or block) for each unit of ``output``."""
    out: list[tuple[str, bool]] = []
    spans = fenced_spans(output)
    for start, end in spans:
        out.append((output[start:end], True))
    cuts = [0, *(x for span in spans for x in span), len(output)]
    rest = "\n".join(output[cuts[j]:cuts[j + 1]] for j in range(0, len(cuts), 2))
    for piece in _SPLIT.split(rest):
        piece = piece.strip()
        if not piece:
            continue
        bare = piece
        facts = token_facts(piece)
        for fact in sorted(facts, key=len, reverse=True):
            bare = bare.replace(fact, " ")
        words = _WORD.findall(bare)
        out.append((piece, len(words) >= max(PROSE_WORDS, len(facts))))
    return out


def judge(window: str, output: str, items: list[str]) -> Judgement:
    """How many of ``window``'s facts ``output`` keeps in sentences, and how many only by name."""
    result = Judgement()
    cut = units(output)
    prose = [u for u, ok in cut if ok]
    lists = [u for u, ok in cut if not ok]
    conversation = _SYSTEM_SECTION.sub("", window)
    for fact in sorted(token_facts(conversation)):
        result.total += 1
        if any(fact in u for u in prose):
            result.in_sentence += 1
        elif any(fact in u for u in lists):
            result.named_only += 1
        else:
            result.lost.append(fact)
    unit_words = [_content_words(u) for u, _ in cut]
    for rule in user_rules(window):
        result.total += 1
        want = _content_words(rule)
        if want and any(len(want & w) / len(want) >= ITEM_SHARE for w in unit_words):
            result.in_sentence += 1
        else:
            result.lost.append(rule)
    for item in items:
        result.items_total += 1
        want = _content_words(item)
        span = max(1, sum(1 for piece in _SPLIT.split(item) if piece.strip()))
        runs = [set().union(*unit_words[i : i + span]) for i in range(len(unit_words))] if span > 1 else unit_words
        if not want or any(len(want & w) / len(want) >= ITEM_SHARE for w in runs):
            result.items_kept += 1
    return result
