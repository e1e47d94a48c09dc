"""Alternations regrouped by their first token, for patterns only ever tested for a match.

Python's ``re`` tries the alternatives of ``a|b|c`` one after the other at
every position where the pattern may start; with ``re.IGNORECASE``, or when
an alternative opens with ``\\b``, it cannot pass an alternative over by its
first character without entering it. The word lists of
:mod:`~ctx_tui.memory.sentence_types` and :mod:`~ctx_tui.memory.sentence_frames`
are written flat for people to read (``\\b(?:nunca|no toques|niemals|…)\\b``,
``\\bwe decide\\b|\\bwe take\\b``); :func:`grouped` rewrites each alternation
(in every group) so that the alternatives sharing a first token — a plain
character, or an escape such as ``\\b`` — sit behind it once:
``n(?:unca|o toques|iemals)``, ``\\b(?:we decide\\b|we take\\b)``. A position
is then left after one test of that token instead of one per alternative.

A text matches the grouped pattern exactly when it matches the written one
(``tX|tY`` and ``t(?:X|Y)`` match the same strings at the same place); only
which alternative wins, and so a match's span, may differ — so only patterns
read as a yes or no are grouped. Grouping costs ~0.2 ms per pattern at import;
the patterns grouped are those where it pays (measured: docs/performance.md).
"""

from __future__ import annotations

import re

from ctx_tui import regex_cache

#: One token of a pattern: an escape, a character class, a group opening, ``)``, ``|``, a quantifier, or a run of
#: plain characters (a quantifier after a run binds its last character only: see :func:`_first`).
_TOKEN = re.compile(r"\\.|\[\^?\]?(?:\\.|[^\]\\])*\]|\((?:\?(?::|=|!|<=|<!))?|[)|]|[?*+]\??|\{[\d,]*\}\??|[^\\\[()|?*+{]+|\{")
#: Group openings read (their body is grouped too): non-capturing and lookaround groups.
_OPENINGS = frozenset(("(?:", "(?=", "(?!", "(?<=", "(?<!"))
_QUANTIFIERS = frozenset("?*+{")


def grouped(pattern: str) -> str:
    """``pattern`` with each alternation's alternatives grouped by their first token (the same matches).

    Raises ``ValueError`` on what it does not read (a capturing or named group,
    inline flags): such a pattern is compiled as written."""
    tokens = _TOKEN.findall(pattern)
    if "".join(tokens) != pattern:
        raise ValueError(f"unreadable pattern {pattern[:60]!r}")
    alternatives, end = _alternation(tokens, 0)
    if end != len(tokens):
        raise ValueError(f"unbalanced ')' in {pattern[:60]!r}")
    return "|".join(alternatives)


def compile_grouped(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(grouped(pattern), flags)`` (its program kept: :mod:`ctx_tui.regex_cache`): for a pattern only
    ever tested for a match."""
    return regex_cache.compile(grouped(pattern), flags)


def _alternation(tokens: list[str], i: int) -> tuple[list[str], int]:
    """The alternatives from token ``i`` to the ``)`` that closes their group (or the end), grouped; where they end."""
    alternatives: list[list[str]] = [[]]
    while i < len(tokens):
        token = tokens[i]
        if token == ")":
            break
        if token == "|":
            alternatives.append([])
            i += 1
        elif token[0] == "(":
            if token not in _OPENINGS:
                raise ValueError(f"unsupported group {token!r}")
            body, end = _alternation(tokens, i + 1)
            if end >= len(tokens):
                raise ValueError("unclosed group")
            alternatives[-1].append(token + "|".join(body) + ")")
            i = end + 1
        else:
            alternatives[-1].append(token)
            i += 1
    return _by_first_token(alternatives), i


def _first(alternative: list[str]) -> tuple[str, str]:
    """An alternative's first token and the rest; no token ('') when it opens with a class, a group, an
    anchor, a character class escape (``\\w``) or a quantified character."""
    text = "".join(alternative)
    if not alternative:
        return "", text
    head = alternative[0]
    after = alternative[1][:1] if len(alternative) > 1 else ""
    if head[0] == "\\":
        if (head[1].isalnum() and head[1] not in "bB") or after in _QUANTIFIERS:
            return "", text
        return head, text[2:]
    if head[0] in "[(.^$?*+{" or (len(head) == 1 and after in _QUANTIFIERS):
        return "", text
    return head[0], text[1:]


def _by_first_token(alternatives: list[list[str]]) -> list[str]:
    """The alternatives, those sharing a first token behind it once (where the first of them stood)."""
    tails: dict[str, list[str]] = {}
    order: list[str] = []  # tokens, and alternatives kept whole (prefixed by "\0")
    for alternative in alternatives:
        token, rest = _first(alternative)
        if not token:
            order.append("\0" + rest)
        elif token in tails:
            tails[token].append(rest)
        else:
            tails[token] = [rest]
            order.append(token)
    return [
        entry[1:] if entry.startswith("\0") else entry + (tails[entry][0] if len(tails[entry]) == 1 else "(?:" + "|".join(tails[entry]) + ")")
        for entry in order
    ]
