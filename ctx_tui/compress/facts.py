"""Key facts of a text and how many of them a compressed text still holds.

``retentionRate = facts kept in a sentence or block of the output / facts in
the input`` (docs/compression.md, "Retention").
It is measured on the text, never assumed. See docs/compression.md for the
rules; in short, the facts of a text are:

* ``item``: each tracked item passed in (its content);
* ``url``: ``http(s)://...``;
* ``path``: a token with a ``/`` that looks like a path, or a file name with a
  known extension (``api.py``, ``pyproject.toml``);
* ``error``: ``SomethingError`` / ``...Exception`` / ``...Warning``, errno
  names (``ENOENT``);
* ``command``: a ``$ ...`` line, a line of a ``bash``/``sh``/``console`` code
  block, or a backticked span starting with a known program (``git``, ``pytest``...);
* ``identifier``: snake_case, camelCase/PascalCase with an inner capital,
  dotted names (``os.path.join``), calls (``run()``), other backticked spans;
* ``number``: numbers of 3+ digits, decimals, versions, percentages, times
  (1- and 2-digit integers are too common to identify anything);
* ``decision``: a sentence that states a decision, constraint or preference
  ("decided", "we will use", "must", "never", "always", "prefer", ...).

A fact is *retained* only where it stands in a kept sentence or block of the
output (:func:`output_units`, :func:`is_sentence`): a name kept only in a
list of names is reported apart as *named only* and does not count. Matching
inside those units: items and decisions by their key terms (at least
``TERM_MATCH`` of the distinct content words in one sentence or block);
commands by whitespace-normalised substring; everything else as an exact,
case-sensitive token (not part of a longer word).

Over 400 lines: the fact kinds, how they are found in the input and how they are matched in
the output are one measure (retention); split, a kind would be changed in two places.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, Protocol

from ctx_tui import regex_cache
from ctx_tui.compress.blocks import Block, sentences, split_blocks
from ctx_tui.compress.scoring import terms

FactKind = Literal["item", "url", "path", "error", "command", "identifier", "number", "decision"]
#: Fraction of an item's / decision's key terms that must appear in the output.
TERM_MATCH = 0.8
#: Longest command kept as a fact (a longer one is matched on its start).
COMMAND_CHARS = 160


class ItemLike(Protocol):
    """The part of a tracked item compression needs (``ctx_tui.memory.items.TrackedItem`` fits).

    Read-only properties: compression never assigns them, and a protocol
    attribute would be mutable and invariant (rejecting ``TrackedItem.type: ItemType``).
    """

    @property
    def id(self) -> str: ...
    @property
    def type(self) -> object: ...
    @property
    def content(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Fact:
    kind: FactKind
    value: str  # what is matched
    label: str  # how it is shown (an item: "[constraint] ..."; a number: "port 8080")


@dataclass(frozen=True, slots=True)
class Retention:
    rate: float
    kept: list[Fact]  # in a sentence or block of the output
    lost: list[Fact]  # not in one (``named_only`` among them)
    named_only: list[Fact] = field(default_factory=list)  # found only in a list of names

    @property
    def total(self) -> int:
        return len(self.kept) + len(self.lost)


_URL_RE = regex_cache.compile(r"https?://[^\s<>\"'`)\]]+")
_EXT = (
    "py|pyi|js|jsx|ts|tsx|mjs|cjs|json|jsonl|yaml|yml|toml|ini|cfg|md|rst|txt|csv|"
    "html|css|scss|tcss|sh|bash|zsh|rs|go|java|kt|c|h|cc|cpp|hpp|rb|php|swift|sql|"
    "lock|env|xml|proto|vue|svelte|log|ipynb|gradle|tf"
)
_PATH_RE = regex_cache.compile(
    r"(?<![\w/.~-])(?:~|\.{1,2})?/?[\w.@+-]+(?:/[\w.@+-]+)+"  # something/with/slashes
    r"|(?<![\w/.-])[\w-]+(?:\.[\w-]+)*\.(?:" + _EXT + r")\b"  # file.ext
)
_ERROR_RE = regex_cache.compile(
    r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Fault)\b"
    r"|\bE(?:NOENT|ACCES|PERM|EXIST|ISDIR|NOTDIR|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|PIPE|NOSPC|INVAL|MFILE|NOTEMPTY|AGAIN)\b"
)
_BACKTICK_RE = regex_cache.compile(r"`([^`\n]{2,120})`")
_SNAKE_RE = regex_cache.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_CAMEL_RE = regex_cache.compile(r"\b[a-zA-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b|\b[A-Z]{2,}[a-z][A-Za-z0-9]*\b")
_DOTTED_RE = regex_cache.compile(r"\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?")
_CALL_RE = regex_cache.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\(\)")
_NUMBER_RE = regex_cache.compile(
    r"(?<![\w.])(?:v?\d+(?:\.\d+){2,}|\d+\.\d+%?|\d{1,3}(?:,\d{3})+|\d+%|\d{1,2}:\d{2}(?::\d{2})?|\d{3,})(?![\w.]*\w)"
)
_PROMPT_RE = regex_cache.compile(r"^\s*\$ (.+)$", re.M)
_SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh", "shell-session"}
COMMANDS = frozenset(
    """git python python3 pip pip3 pytest npm npx yarn pnpm node make cargo go docker
    kubectl uv uvx ctx-tui bash sh cd ls cat grep rg sed awk curl wget claude codex
    ruff mypy black tox poetry brew apt apt-get rm mv cp mkdir chmod find tar ssh
    java mvn gradle rustc gcc cmake deno bun""".split()
)
DECISION_RE = regex_cache.compile(
    r"\b(?:decided|decide to|decision|we(?:'ll| will| should) use|let's use|going with|chose|"
    r"chosen|opted|switch(?:ed)? to|instead of|agreed)\b",
    re.I,
)
RULE_RE = regex_cache.compile(
    r"\b(?:must(?: not)?|never|always|do not|don't|prefer(?:s|red)?|please use|make sure)\b", re.I
)
#: A longer sentence is prose that happens to contain "always", not a rule.
MAX_DECISION_WORDS = 40


def key_terms(text: str) -> set[str]:
    """The distinct content words of ``text`` (terms of 3+ characters)."""
    return {t for t in terms(text) if len(t) >= 3}


def _command_value(line: str) -> str:
    return " ".join(line.split())[:COMMAND_CHARS]


def _is_command(span: str) -> bool:
    head = span.split(None, 1)[0] if span.strip() else ""
    return head in COMMANDS


def _add(out: dict[tuple[str, str], Fact], kind: FactKind, value: str, label: str | None = None) -> None:
    value = value.strip()
    if value and (kind, value) not in out:
        out[(kind, value)] = Fact(kind, value, label or value)


_TOKEN_RE = regex_cache.compile(
    "|".join(
        f"(?P<{name}>{rx.pattern})"
        for name, rx in (
            ("url", _URL_RE),
            ("path", _PATH_RE),
            ("error", _ERROR_RE),
            ("dotted", _DOTTED_RE),
            ("call", _CALL_RE),
            ("snake", _SNAKE_RE),
            ("camel", _CAMEL_RE),
            ("number", _NUMBER_RE),
        )
    )
)


#: Whitespace-separated chunks that may hold a token fact: with a digit, ``_ / . : (``
#: or an inner capital. Plain words (most of any prose) are skipped without a look.
_CHUNK_RE = regex_cache.compile(r"(?<!\S)[^\s0-9_/.:(]*(?:[0-9_/.:(]|[^\s][A-Z])\S*")


def _prose_facts(text: str, out: dict[tuple[str, str], Fact]) -> None:
    """Token facts of one stretch of text.

    Backticked spans first (a command, or scanned like the rest); then every
    whitespace-separated chunk that could hold a fact, where at each position
    the first kind that matches wins: url, path, error, identifier, number.
    """
    if "`" in text:
        for m in _BACKTICK_RE.finditer(text):
            span = m.group(1).strip()
            if _is_command(span):
                _add(out, "command", _command_value(span))
            else:
                _chunk_facts(span, out)
        text = _BACKTICK_RE.sub(" ", text)
    _chunk_facts(text, out)


@lru_cache(maxsize=1 << 16)
def _chunk_tokens(chunk: str) -> tuple[tuple[tuple[str, str], Fact | None], ...]:
    """(key, fact) of the token facts in one chunk (cached: chunks repeat a lot).

    The fact is None for a number at the chunk's start: its label names the
    word before it in the text (``port 8080``), so it is made where the text is known.
    """
    out: list[tuple[tuple[str, str], Fact | None]] = []
    for m in _TOKEN_RE.finditer(chunk):
        kind = m.lastgroup or ""
        value = m.group(0)
        if kind == "url":
            value = value.rstrip(".,;:")
        elif kind == "path":
            value = value.rstrip(".")
            if "/" in value and not re.search(r"[A-Za-z]", value):
                continue  # 1/2, 10/20: a ratio, not a path
        elif kind == "dotted" and min(len(p) for p in value.removesuffix("()").split(".")) < 2:
            continue  # e.g, i.e, a.b: prose abbreviations
        elif kind in ("dotted", "call", "snake", "camel"):
            kind = "identifier"
        if not value:
            continue
        at_start_number = kind == "number" and m.start() == 0
        out.append(((kind, value), None if at_start_number else Fact(kind, value, value)))  # type: ignore[arg-type]  # _chunk_tokens yields FactKind names only
    return tuple(out)


def _chunk_facts(text: str, out: dict[tuple[str, str], Fact]) -> None:
    for cm in _CHUNK_RE.finditer(text):
        for key, fact in _chunk_tokens(cm.group(0)):
            if key in out:
                continue
            if fact is None:  # a number at the chunk's start: labelled with the word before it
                value = key[1]
                before = text[max(0, cm.start() - 24) : cm.start()].split()
                fact = Fact("number", value, f"{before[-1]} {value}" if before and before[-1].isalpha() else value)
            out[key] = fact


@lru_cache(maxsize=1 << 14)
def states_decision(sentence: str) -> bool:
    """True for a sentence that states a decision, constraint or preference (cached: extraction and the strategies ask of the same sentences)."""
    if not (DECISION_RE.search(sentence) or RULE_RE.search(sentence)):
        return False
    return len(sentence.split()) <= MAX_DECISION_WORDS and len(key_terms(sentence)) >= 2


PREFERENCE_RE = regex_cache.compile(r"\b(?:prefer(?:s|red)?|please use)\b", re.I)


def stated_type(sentence: str) -> str | None:
    """The item type a sentence states: "decision", "user_preference" or "constraint"; None for none.

    What ``compression.preserve_types`` is matched against: a stated sentence
    of a preserved type is kept whole (a ``must`` candidate) by the strategies.
    """
    if not states_decision(sentence):
        return None
    if DECISION_RE.search(sentence):
        return "decision"
    return "user_preference" if PREFERENCE_RE.search(sentence) else "constraint"


_LIST_MARK_RE = regex_cache.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")


def _decision_facts(block: Block, out: dict[tuple[str, str], Fact]) -> None:
    for sentence in sentences(block.text):
        sentence = _LIST_MARK_RE.sub("", sentence).strip()
        if states_decision(sentence):
            _add(out, "decision", sentence)


@lru_cache(maxsize=256)
def _whole_block_facts(kind: str, lang: str, text: str, closed: bool) -> tuple[Fact, ...]:
    """The facts of a code or JSON block, in order (cached: the semantic strategy asks again for each block it may keep)."""
    out: dict[tuple[str, str], Fact] = {}
    if kind == "json":
        for m in _PROMPT_RE.finditer(text):
            _add(out, "command", _command_value(m.group(1)))
        _prose_facts(_PROMPT_RE.sub("", text), out)
        return tuple(out.values())
    body = Block("code", text, lang, closed).body
    if lang.lower() in _SHELL_LANGS:
        for line in body.split("\n"):
            line = line.strip()
            if line and not line.startswith("#"):
                _add(out, "command", _command_value(line.removeprefix("$ ")))
    else:
        _prose_facts(body, out)
    return tuple(out.values())


def extract_facts(text: str, items: Sequence[ItemLike] = (), blocks: Sequence[Block] | None = None) -> list[Fact]:
    """The key facts of ``text`` (plus ``items``), each once, in order of appearance."""
    out: dict[tuple[str, str], Fact] = {}
    for item in items:
        kind = getattr(item.type, "value", item.type)
        _add(out, "item", item.content, f"[{kind}] {item.content}")
    for block in blocks if blocks is not None else split_blocks(text):
        if block.kind in ("code", "json"):
            for fact in _whole_block_facts(block.kind, block.lang, block.text, block.closed):
                out.setdefault((fact.kind, fact.value), fact)
            continue
        for m in _PROMPT_RE.finditer(block.text):
            _add(out, "command", _command_value(m.group(1)))
        _prose_facts(_PROMPT_RE.sub("", block.text), out)
        if block.kind in ("para", "list"):
            _decision_facts(block, out)
    return list(out.values())


def _has_token(haystack: str, needle: str) -> bool:
    """``needle`` occurs in ``haystack`` not glued to a longer word on either side."""
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = haystack[start - 1] if start else " "
        after = haystack[end] if end < len(haystack) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = haystack.find(needle, start + 1)
    return False


_WORD_RUN_RE = regex_cache.compile(r"\w+")


class _TokenIndex:
    """:func:`_has_token` over one text for many needles, without scanning the text for each.

    Every maximal word run (``\\w+``) of a needle found not glued to a longer
    word is a maximal word run of the text too; so the needle can only start
    where its first word run does, and only those places are checked.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: dict[str, list[int]] = {}
        for m in _WORD_RUN_RE.finditer(text):
            self.starts.setdefault(m.group(), []).append(m.start())

    def has(self, needle: str) -> bool:
        first = _WORD_RUN_RE.search(needle)
        if first is None:
            return _has_token(self.text, needle)
        text, offset, end = self.text, first.start(), len(needle)
        for run_start in self.starts.get(first.group(), ()):
            start = run_start - offset
            if start < 0 or not text.startswith(needle, start):
                continue
            before = text[start - 1] if start else " "
            after = text[start + end] if start + end < len(text) else " "
            if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
                return True
        return False


#: A plain word of prose: lower-case letters (an identifier, path or number is a fact, not prose).
_PLAIN_WORD_RE = regex_cache.compile(r"(?<![\w./-])[A-Za-z][a-z'-]*[a-z](?![\w/(-]|\.\w)")
#: A unit is a sentence when it has at least this many plain words ("Run `make` to check it." has four).
SENTENCE_WORDS = 3


def is_sentence(text: str, facts: Sequence[Fact] | None = None) -> bool:
    """True for prose that says something about the names in it, False for a list of names.

    A unit of text is a sentence when it has at least ``SENTENCE_WORDS`` plain
    words (words of 2+ letters, lower-case but for the first, that are not part of a fact) and no
    fewer plain words than token facts: ``Also: a.py, b.py, c.py, run()`` is a list of
    names, ``The loader in a.py now retries on ETIMEDOUT`` is a sentence.
    ``facts``: the text's facts when already known (from :func:`extract_facts`).
    """
    if facts is None:
        found: dict[tuple[str, str], Fact] = {}
        _prose_facts(text, found)
        values = [value for _, value in found]
    else:
        values = [f.value for f in facts if f.kind not in ("item", "decision")]
    bare = text
    for value in sorted(values, key=len, reverse=True):
        bare = bare.replace(value, " ")
    words = len(_PLAIN_WORD_RE.findall(bare))
    return words >= SENTENCE_WORDS and words >= len(values)


def output_units(text: str) -> list[tuple[str, bool]]:
    """The units of a text and whether each holds its facts *in context*.

    Code and JSON blocks count whole (a kept block); prose is cut into
    sentences (each list item and table row is one), each judged by
    :func:`is_sentence`; headings never count.
    """
    out: list[tuple[str, bool]] = []
    for block in split_blocks(text):
        if block.kind in ("code", "json"):
            out.append((block.text, True))
        elif block.kind == "heading":
            out.append((block.text, False))
        elif block.kind == "table":
            out.extend((row, is_sentence(row)) for row in block.text.split("\n"))
        else:
            out.extend((s, is_sentence(s)) for s in sentences(block.text))
    return out


class FactMatcher:
    """Answers "does ``output`` keep this fact, in a sentence or only by name?" with the output indexed once."""

    def __init__(self, output: str) -> None:
        units = output_units(output)
        self._prose = "\n".join(u for u, ok in units if ok)
        self._names = "\n".join(u for u, ok in units if not ok)
        self._prose_spaced = " ".join(self._prose.split())
        self._names_spaced = " ".join(self._names.split())
        self._prose_tokens = _TokenIndex(self._prose)
        self._names_tokens = _TokenIndex(self._names)
        self._unit_terms = [key_terms(u) for u, ok in units if ok]
        self._term_units: dict[str, list[int]] = {}
        for i, unit_terms in enumerate(self._unit_terms):
            for term in unit_terms:
                self._term_units.setdefault(term, []).append(i)

    def _terms_in_one_unit(self, wanted: set[str], span: int = 1) -> bool:
        """≥ ``TERM_MATCH`` of ``wanted`` stand together in one sentence or block, or in ``span`` in a row.

        An item of several sentences kept whole is cut into its sentences like
        any output: ``span`` (its sentence count) units in a row may hold it.
        """
        need = TERM_MATCH * len(wanted)
        counts: dict[int, int] = {}
        for term in wanted:
            for i in self._term_units.get(term, ()):
                counts[i] = counts.get(i, 0) + 1
        if any(n >= need for n in counts.values()):
            return True
        if span < 2:
            return False
        starts = {s for i in counts for s in range(max(0, i - span + 1), i + 1)}
        return any(len(wanted.intersection(set().union(*self._unit_terms[s : s + span]))) >= need for s in starts)

    def where(self, fact: Fact) -> str:
        """``"sentence"`` (kept in a sentence or block), ``"named"`` (only in a list of names) or ``"lost"``."""
        if fact.kind in ("item", "decision"):
            wanted = key_terms(fact.value)
            if not wanted:
                return "sentence" if " ".join(fact.value.split()) in self._prose_spaced else "lost"
            span = len(sentences(fact.value)) if fact.kind == "item" else 1
            return "sentence" if self._terms_in_one_unit(wanted, span) else "lost"
        if fact.kind == "command":
            if fact.value in self._prose_spaced:
                return "sentence"
            return "named" if fact.value in self._names_spaced else "lost"
        if self._prose_tokens.has(fact.value):
            return "sentence"
        return "named" if self._names_tokens.has(fact.value) else "lost"

    def has(self, fact: Fact) -> bool:
        return self.where(fact) == "sentence"


def measure_retention(facts: Sequence[Fact], output: str) -> Retention:
    """Which of ``facts`` ``output`` still holds in a sentence or block; rate 1.0 when there are none.

    A fact found only in a list of names is not kept: it is counted apart in
    ``Retention.named_only`` (and is also in ``lost``).
    """
    matcher = FactMatcher(output)
    kept: list[Fact] = []
    lost: list[Fact] = []
    named: list[Fact] = []
    for fact in facts:
        where = matcher.where(fact)
        if where == "sentence":
            kept.append(fact)
        else:
            lost.append(fact)
            if where == "named":
                named.append(fact)
    rate = len(kept) / len(facts) if facts else 1.0
    return Retention(round(rate, 4), kept, lost, named)


def token_facts(text: str) -> list[Fact]:
    """The facts of one line or sentence but its decision: commands, urls, paths, errors, identifiers, numbers."""
    out: dict[tuple[str, str], Fact] = {}
    if "$ " in text:
        for m in _PROMPT_RE.finditer(text):
            _add(out, "command", _command_value(m.group(1)))
        text = _PROMPT_RE.sub("", text)
    _prose_facts(text, out)
    return list(out.values())


def decision_fact(sentence: str) -> Fact | None:
    """The ``decision`` fact a sentence states (as :func:`extract_facts` finds it), or None."""
    sentence = _LIST_MARK_RE.sub("", sentence).strip()
    return Fact("decision", sentence, sentence) if states_decision(sentence) else None


def carried_facts(text: str) -> list[Fact]:
    """The facts a piece of output (a sentence, a bullet, a block) carries in context.

    Those of its sentences and blocks (:func:`output_units`); a part that is
    only a list of names carries none, as :func:`measure_retention` counts.
    """
    out: dict[tuple[str, str], Fact] = {}
    for unit, in_context in output_units(text):
        if in_context:
            for fact in extract_facts(unit):
                out.setdefault((fact.kind, fact.value), fact)
    return list(out.values())
