"""What counts as a concrete thing: paths, identifiers, commands, errors, ids, URLs, measurements.

:func:`anchor_tokens` reads text token by token in one pass. A thing is
recognised by its *shape* (a path has a ``/``, an identifier has ``_`` or
humps, an id mixes letters and digits, a run or ticket is a noun followed by
its number), not by a list of any project's names.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from ctx_tui.handoff.gate.text import STOPWORDS, TOKEN, trim
from ctx_tui.handoff.gate.vocabulary import COMMAND_IDIOMS

_EXTENSIONS = (
    "py|pyi|js|jsx|ts|tsx|mjs|cjs|md|rst|txt|yaml|yml|json|jsonl|toml|ini|cfg|conf|lock|"
    "rs|go|java|kt|kts|scala|swift|c|h|cc|cpp|hpp|cs|rb|php|pl|lua|sh|bash|zsh|ps1|sql|"
    "html|htm|css|scss|sass|less|tcss|vue|svelte|xml|proto|gradle|tf|ipynb|csv|env|dockerfile|dart|hcl"
)
_FILE_EXT = re.compile(rf"\w\.(?:{_EXTENSIONS})(?::\d+)*$", re.IGNORECASE)  # a file name (with :line)
_WORD_SHAPES = re.compile(
    r"[A-Za-z_]\w*\.[A-Za-z_]\w+"  # attribute / dotted name: self._offset, os.path (not e.g / i.e)
    r"|\w\("  # a call: parse_rows(
    r"|[a-z][A-Z]"  # camelCase, PascalCase humps
    r"|[A-Za-z0-9]_|_[A-Za-z0-9]"  # snake_case, CONSTANT_CASE, _private
    r"|^[A-Z]{1,4}\d{2,5}$"  # error codes: E501, TS2345
    r"|^--?[A-Za-z][\w-]*(?:=\S*)?$"  # command-line flags: --force, -k, --replicas=0
    r"|^#\d+$"  # issue / PR numbers
    r"|^[A-Z][A-Z0-9]+-\d+(?:-[A-Z0-9]+)?$"  # tickets: OPS-1234, FW-903-R
    r"|\d+\.\d+\.\d+"  # versions 1.2.3
    r"|\w(?:Error|Exception|Warning|Failure)$"  # error names: KeyError
    r"|^@\w"  # decorators, handles: @Observable, @dana
)
#: An id mixes letters and digits: a hash (3f9a2c1), a run or job id (j-2K9QF1, api-7c9f), a size (1.3B).
_MIXED_ID = re.compile(r"^(?=[^/]*[A-Za-z])(?=[^/]*\d)[A-Za-z0-9][\w.:%-]*$")
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$", re.IGNORECASE)
#: A number the way a measurement or id is written: 0.42, 12%, 2/20, 9812, 101-106.
_NUMBER = re.compile(r"^#?\d[\d,]*(?:\.\d+)?(?:%|[-–/]\d+)?$")
_FILE_NAMES = frozenset({"makefile", "dockerfile", "justfile", "procfile", "gemfile", "rakefile", "readme"})
#: A command word and its first argument name a command: "npm test", "git rebase".
COMMANDS = frozenset(
    """pytest npm npx pnpm yarn git cargo pip uv python python3 docker kubectl ruff mypy tox nox gradle mvn
    dotnet bundle rake rspec jest vitest make go node deno bun gh terraform helm ansible dbt psql mysql
    curl wget ssh scp rsync sbatch srun gsutil aws gcloud az fastlane xcodebuild flutter west idf.py
    promtool vale lychee mkdocs sphinx-build tsc eslint prettier black bash sh""".split()
)
#: After a command word these make it an English verb, not a command and its argument: "make sure",
#: "go through", "make the tests pass" (a command's argument is a target, a subcommand, a flag or a path).
_NOT_ARGUMENTS = STOPWORDS | COMMAND_IDIOMS
#: Before a number these words do not name a numbered thing ("to 40", "the last 3", "for 30 min").
_NOT_ID_HEAD = frozenset(
    """a an the to of in at by for from with than about around over under after before and or but top first
    last every each per only just all some any most least nearly almost roughly approx approximately ~ is are
    was were be been takes took within into onto up down since until till between""".split()
)
#: Prose slash pairs that are not paths.
_NOT_PATHS = frozenset({"and/or", "either/or", "yes/no", "on/off", "read/write", "input/output",
                        "client/server", "true/false", "w/o", "n/a", "i/o", "his/her", "he/she"})


def is_number(word: str) -> bool:
    return bool(_NUMBER.match(word))


class _Token(NamedTuple):
    """What one token names by itself, and what it tells the token before it (see :func:`anchor_tokens`)."""

    word: str  # trimmed; "" for a code span
    thing: str  # what it names alone ("" for nothing, or for a plain word whose meaning depends on the next)
    alpha: bool  # a plain word: it may start a command ("npm test") or name a numbered thing ("run 48")
    command: bool  # a command word as written ("npm", not "npm,")
    id_head: bool  # may name a numbered thing: not "to", "the", "last"...
    number: bool  # the word is a number
    plural: bool  # a lower-case plural ("tests"): after a number it counts ("3 tests") rather than names


@lru_cache(maxsize=8192)
def _token(token: str) -> _Token:
    """The token's shape, cached: a handoff repeats its words, and the form calls the gate on every keystroke."""
    if token.startswith("`"):
        return _Token("", token.strip("`").strip().lower(), False, False, False, False, False)
    word = trim(token)
    lower = word.lower()
    if word.isalpha():  # letters only: no digit, so not a number
        plural = word.islower() and word.endswith("s") and len(word) > 3
        if lower in _FILE_NAMES:
            return _Token(word, lower, False, False, False, False, plural)
        command = lower in COMMANDS and token == word and not word.isupper()
        # a shape names a thing alone, but a command word with an argument names the command first;
        # a lower-case word has none (every shape needs a capital, a digit or punctuation)
        shape = lower if not word.islower() and _WORD_SHAPES.search(word) else ""
        return _Token(word, shape, True, command, lower not in _NOT_ID_HEAD, False, plural)
    number = is_number(word)
    if not word:
        return _Token(word, "", False, False, False, number, False)
    if lower in _NOT_PATHS or _ORDINAL.match(word):
        return _Token(word, "", False, False, False, number, False)
    if (("/" in word and any(c.isalpha() for c in word)) or _FILE_EXT.search(word)
            or _WORD_SHAPES.search(word) or _MIXED_ID.match(word)):
        return _Token(word, lower, False, False, False, number, False)
    return _Token(word, "", False, False, False, number, False)


_NO_TOKEN = _Token("", "", False, False, False, False, False)


def anchor_tokens(text: str) -> list[tuple[int, str]]:
    """``(offset, thing)`` for every concrete thing ``text`` names, in order."""
    found: list[tuple[int, str]] = []
    matches = list(TOKEN.finditer(text))
    tokens = [_token(m.group(0)) for m in matches] + [_NO_TOKEN, _NO_TOKEN]
    for index, match in enumerate(matches):
        tok = tokens[index]
        if not tok.alpha:
            if tok.thing:
                found.append((match.start(), tok.thing))
            continue
        nxt = tokens[index + 1].word
        if tok.command and nxt and (nxt[0].isalnum() or nxt[0] in "-./") and nxt.lower() not in _NOT_ARGUMENTS:
            found.append((match.start(), f"{tok.word.lower()} {nxt.lower()}"))
        elif tok.thing:
            found.append((match.start(), tok.thing))
        elif tok.id_head and tokens[index + 1].number and not tokens[index + 2].plural:
            found.append((match.start(), f"{tok.word.lower()} {nxt.lstrip('#')}"))  # run 48, build 812, stage 14
    return found


def names_file(text: str) -> bool:
    """``text`` names a file or folder of the project: a path (not a URL) or a file name with its extension."""
    return any(("/" in thing and "://" not in thing) or _FILE_EXT.search(thing)
               for _, thing in anchor_tokens(text))


def anchors(text: str) -> set[str]:
    """The distinct concrete things ``text`` names (paths, identifiers, commands, errors, ids...)."""
    return {thing for _, thing in anchor_tokens(text)}
