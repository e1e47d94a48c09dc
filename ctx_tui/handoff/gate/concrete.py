"""What counts as a concrete thing: paths, identifiers, commands, errors, ids, URLs, measurements.

:func:`anchor_tokens` reads text token by token in one pass. A thing is
recognised by its *shape* (a path has a ``/``, an identifier has ``_`` or
humps, an id mixes letters and digits, a run or ticket is a noun followed by
its number), not by a list of any project's names.
"""

from __future__ import annotations

import re

from ctx_tui.handoff.gate.text import TOKEN, trim

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


def anchor_tokens(text: str) -> list[tuple[int, str]]:
    """``(offset, thing)`` for every concrete thing ``text`` names, in order."""
    found: list[tuple[int, str]] = []
    tokens = list(TOKEN.finditer(text))
    words = [trim(m.group(0)) if not m.group(0).startswith("`") else "" for m in tokens]
    for index, match in enumerate(tokens):
        token = match.group(0)
        if token.startswith("`"):
            inner = token.strip("`").strip()
            if inner:
                found.append((match.start(), inner.lower()))
            continue
        word = words[index]
        if not word:
            continue
        lower = word.lower()
        nxt = words[index + 1] if index + 1 < len(words) else ""
        if word.isalpha():
            if lower in _FILE_NAMES:
                found.append((match.start(), lower))
            elif lower in COMMANDS and nxt and (nxt[0].isalnum() or nxt[0] in "-./") and token == word:
                found.append((match.start(), f"{lower} {nxt.lower()}"))
            elif _WORD_SHAPES.search(word):
                found.append((match.start(), lower))
            elif lower not in _NOT_ID_HEAD and is_number(nxt) and _names_one(words, index + 1):
                found.append((match.start(), f"{lower} {nxt.lstrip('#')}"))  # run 48, build 812, stage 14
            continue
        if lower in _NOT_PATHS or _ORDINAL.match(word):
            continue
        if (("/" in word and any(c.isalpha() for c in word)) or _FILE_EXT.search(word)
                or _WORD_SHAPES.search(word) or _MIXED_ID.match(word)):
            found.append((match.start(), lower))
    return found


def _names_one(words: list[str], number_at: int) -> bool:
    """True when the number names one thing ("run 48 with") rather than counts ("3 tests")."""
    after = words[number_at + 1] if number_at + 1 < len(words) else ""
    return not (after.isalpha() and after.islower() and after.endswith("s") and len(after) > 3)


def anchors(text: str) -> set[str]:
    """The distinct concrete things ``text`` names (paths, identifiers, commands, errors, ids...)."""
    return {thing for _, thing in anchor_tokens(text)}
