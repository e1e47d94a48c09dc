"""Evidence of state: what shows that something is done, broken or pending.

Names alone are not state ("the work is in src/io.py"). Evidence is what a
reader could check: an error (its name, code or message), a test name, a
place (file:line), a measurement, or a command with its result. A sentence
that names a thing and says it is still pending or broken ("the resend view
is a stub", "worker still uses DATABASE_URL") carries state too.
"""

from __future__ import annotations

import re

_UNITS = (
    r"%|ms|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|x|×|[kmgt]i?b|bytes?|fps|rps|qps"
    r"|tokens?|rows?|docs?|documents?|records?|items?|lines?|files?|tests?|passed|failed|errors?|warnings?"
    r"|steps?|epochs?|requests?|calls?|events?|pairs?|users?|accounts?|sessions?|devices?|units?|nodes?|pods?"
    r"|instances?|replicas?|targets?|runs?|times|issues|duplicates?|dups"
)
_RESULT = (
    r"pass(?:es|ed)?|fail(?:s|ed)?|green|red|ok|succeed(?:s|ed)?|works|worked|returns?|returned|prints?|printed"
    r"|reports?|reported|shows?|showed|shown|lists?|listed|outputs?|exits?|exited|errors?|errored|crash(?:es|ed)?"
    r"|hangs?|hung|times? out|timed out|throws?|threw|raises?|raised|warns?|finds?|found|removes?|removed"
    r"|gives?|gave|yields?|produces?|produced|emits?|logs?|logged|says?|said|complains?|rejects?|rejected"
    r"|accepts?|accepted|scores?|scored|reaches|reached|drops?|dropped|takes|took|peaks?|peaked|costs?"
    r"|wants? to|plans?|applied|finishes|finished|stays?|remains?|diverges?|spikes?|fires?|fired"
)
#: One pattern per kind of evidence, cheapest first (separate patterns are several times
#: faster than one alternation with look-behinds). Kinds written in lower case run on the
#: lower-cased text (three times faster than IGNORECASE); the others need the case.
_CASED_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # a quoted message: two words at least (a one-word quote names a thing: the "OS" box, the 'Save' button)
    ("quote", re.compile(r"\"[^\"\n ]{0,119} [^\"\n]{1,119}\"|“[^”\n ]{0,119} [^”\n]{1,119}”"
                         r"|(?<![\w'])'[^'\n ]{0,119} [^'\n]{1,119}'(?![\w'])")),
    # a test by name (a test *file* alone is a name, not a result)
    ("test", re.compile(r"\btest_\w+(?![\w.]*\.\w{1,5}\b)|\b\w+_test\b(?!\.)|\bTest[A-Z]\w*|\w\.\w{1,5}::\w+")),
    # an error by name, code or constant; an exit / HTTP status; a failure by its kind
    ("error", re.compile(
        r"\w(?:Error|Exception|Failure|Fault)\b|\b[A-Z][A-Z0-9]*_(?:[A-Z0-9_]*_)?(?:ERR|ERROR|FAIL|FAILED|TIMEOUT"
        r"|NOT_FOUND|DENIED|INVALID|REFUSED|ABORTED?|ESTABLISHED|VIOLATION)\w*|\b[A-Z]{1,4}\d{3,5}\b"
        r"|\b(?i:exit(?:ed)?(?: (?:code|status))?|status|http|errno|signal|code) ?:? ?\d{1,3}\b"
        r"|\b(?i:traceback|panic(?:ked|s)?|segfault|segmentation fault|stack ?trace|core dumped|out of memory"
        r"|data race|deadlock(?:ed)?)\b|\b(?:NaN|OOM\w*|CrashLoopBackOff)\b")),
)
_LOWER_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # a place: file:line, line 42
    ("place", re.compile(r"\w\.\w{1,10}:\d+|\blines? \d+\b|:\d+\b")),
    # a measurement: a number with a unit, a decimal, a ratio, N of M, a before/after
    ("measure", re.compile(
        rf"(?<![\w.])\d[\d,]*(?:\.\d+)? ?(?:{_UNITS})(?!\w)|(?<![\w.])(?:0\.\d+|\d+\.\d\d+)(?![.\d])"
        r"|(?<![\w.])\d+ ?/ ?\d+(?![\w/])|\b\d+ (?:of|out of) \d+\b|\bexpected\b[^.\n]{1,80}\bgot\b"
        r"|!=|==|→|->|=>|\b(?:was|from) \S+ (?:to|→) \S+")),
    # a result with its value: "returns 500", "reports 37 errors", "prints {...}", "fails: ..."
    ("result", re.compile(rf"\b(?:{_RESULT})\b:?(?: \S+){{0,3}}? ?(?:\d|`|\"|'|\(\d)")),
)


#: A result word (on lower-cased text): with a command in the same sentence it is evidence ("`make test` is green").
RESULT_WORD = re.compile(rf"\b(?:{_RESULT})\b|[✓✗✔✘]")
#: A thing named as still pending or broken (on lower-cased text).
PENDING = re.compile(
    r"\b(?:still|not yet|yet to|missing|stub(?:bed)?|todo|pending|unimplemented|not (?:started|written|done|run|wired|"
    r"implemented|merged|deployed|validated|tested|finished|covered)|no longer|broken|wrong|stale|dead|"
    r"hard-?code[sd]?|does ?n[o']t|is ?n[o']t|are ?n[o']t|never|lacks?|only (?:the|a|one)|left|remains?|"
    r"fails?|failing|flaky|red|skipped|commented out|disabled|waits?|blocked|needs?|empty|nowhere|"
    r"without|instead of|rather than|not|open question|whether|unclear|unknown|undecided|in progress|wip|half)\b",
)


def has_evidence(text: str) -> bool:
    """True when ``text`` holds any evidence (stops at the first)."""
    if any(pattern.search(text) for _, pattern in _CASED_KINDS):
        return True
    lower = text.lower()
    return any(pattern.search(lower) for _, pattern in _LOWER_KINDS)


def evidence_kinds(text: str) -> set[str]:
    """The kinds of evidence ``text`` holds: place, quote, test, error, measure, result."""
    lower = text.lower()
    return ({kind for kind, pattern in _CASED_KINDS if pattern.search(text)}
            | {kind for kind, pattern in _LOWER_KINDS if pattern.search(lower)})
