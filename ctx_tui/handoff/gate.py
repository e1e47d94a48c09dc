"""The handoff quality gate: one pure function shared by the CLI and the TUI form.

:func:`check_handoff` takes a :class:`~ctx_tui.handoff.schema.Handoff` or a
(possibly half-filled) dict and returns :class:`Finding` objects, field by
field. A handoff passes when no finding is an error. It never raises on a
draft, reads nothing but ``stat`` of the listed files (and only when a project
is given), and takes well under a millisecond for a typical handoff, so the
form can call it on every (debounced) keystroke.

The rules, with their ids, are documented in ``docs/handoff.md``; the word
lists below are the whole of the "concrete" and "vague" heuristics.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from ctx_tui.handoff.schema import HANDOFF_VERSION, DecisionMade, Handoff, TaskState

Severity = Literal["error", "warning"]

MAX_CONTEXT_WORDS = 500
#: continuation_context must name at least this many distinct concrete things.
MIN_CONTEXT_ANCHORS = 2
#: Below this many words the context gets a warning (it may still pass).
SHORT_CONTEXT_WORDS = 20
#: Filler sentences carrying at least this share of the words make the context fail.
FILLER_SHARE_ERROR = 0.5
#: Longer than this, a "first action" is a plan, not a step (warning).
LONG_ACTION_WORDS = 40
#: completion_pct further than this from completed/(completed+remaining) gets a warning.
COMPLETION_GAP_WARN = 30.0


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem of one field. ``field`` is a dotted path, e.g. ``decisions_made[0].rationale``."""

    field: str
    severity: Severity
    message: str
    hint: str
    rule: str  # stable id of the rule, documented in docs/handoff.md

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def passes(findings: Iterable[Finding]) -> bool:
    """True when no finding is an error (warnings do not block a handoff)."""
    return not any(f.is_error for f in findings)


# -- what counts as concrete ---------------------------------------------------------

_EXTENSIONS = (
    "py|pyi|js|jsx|ts|tsx|mjs|cjs|md|rst|txt|yaml|yml|json|jsonl|toml|ini|cfg|conf|lock|"
    "rs|go|java|kt|kts|scala|swift|c|h|cc|cpp|hpp|cs|rb|php|pl|lua|sh|bash|zsh|ps1|sql|"
    "html|htm|css|scss|sass|less|tcss|vue|svelte|xml|proto|gradle|tf|ipynb|csv|env|dockerfile"
)
#: A token: a `code span` (may hold spaces) or a run of non-space characters.
_TOKEN = re.compile(r"`[^`\n]+`|[^\s`]+")
_EDGE_PUNCT = ".,;:!?\"'[]{}<>*"
_FILE_EXT = re.compile(rf"\w\.(?:{_EXTENSIONS})(?::\d+)*$", re.IGNORECASE)  # a file name (with :line)
_WORD_SHAPES = re.compile(
    r"[A-Za-z_]\w*\.[A-Za-z_]\w+"  # attribute / dotted name: self._offset, os.path (not e.g / i.e)
    r"|\w\("  # a call: parse_rows(
    r"|[a-z][A-Z]"  # camelCase, PascalCase humps
    r"|[A-Za-z0-9]_|_[A-Za-z0-9]"  # snake_case, CONSTANT_CASE, _private
    r"|^[A-Z]{1,4}\d{2,5}$"  # error codes: E501, TS2345
    r"|^--?[A-Za-z][\w-]*$"  # command-line flags: --force, -k
    r"|^#\d+$"  # issue / PR numbers
    r"|^[A-Z][A-Z0-9]+-\d+$"  # tickets: OPS-1234
    r"|\d+\.\d+\.\d+"  # versions 1.2.3
    r"|\w(?:Error|Exception|Warning|Failure)$"  # error names: KeyError
)
_FILE_NAMES = frozenset({"makefile", "dockerfile", "justfile", "procfile", "gemfile", "rakefile", "readme"})
#: "line 42", "exit code 1", "status 500", "port 8080": the word and the number name one thing.
_NUMBERED = frozenset({"line", "lines", "code", "status", "http", "port", "pid", "commit", "issue", "pr"})
#: A command word and its first argument name a command: "npm test", "git rebase".
_COMMANDS = frozenset(
    """pytest npm npx pnpm yarn git cargo pip uv python python3 docker kubectl ruff mypy tox nox gradle mvn
    dotnet bundle rake rspec jest vitest make go node deno bun gh""".split()
)

# Vague phrases, matched on lower-cased text (faster than IGNORECASE), at word starts.
_FILLER_PATTERNS: tuple[str, ...] = (
    r"(?:continue|keep) (?:working|going|on|with)\b(?: (?:it|this|that|the \w+))?",
    r"continue (?:the|this|that|it|where)\b(?: \w+)?",
    r"(?:carry on|pick up where|proceed as|go on with)\b(?: \w+)?",
    r"fix(?:ing)? (?:the |any |all )?(?:remaining|other|outstanding|open|last|few|rest)\b(?: \w+)?",
    r"(?:some|a few|various|several|misc(?:ellaneous)?|minor|remaining|other|outstanding) "
    r"(?:bugs?|issues?|problems?|things?|stuff|changes?|fixes|tweaks|cleanup|errors?|tests?|work|tasks?|bits)\b",
    r"etc\b\.?",
    r"and so (?:on|forth)\b",
    r"as (?:discussed|mentioned|agreed|planned|before|usual|we said|noted)\b",
    r"(?:everything|it|all|things|most of it|the code|the work|the rest|this) (?:is|are|was|looks?|seems?) "
    r"(?:mostly |almost |basically |nearly |pretty much |kind of |more or less )?"
    r"(?:done|finished|complete|working|fine|ok|okay|good|there)\b",
    r"(?:mostly|almost|basically|nearly|pretty much|more or less) (?:done|finished|complete|there|working)\b",
    r"(?:clean|tidy|wrap|finish) (?:it |things |stuff |everything |the rest )?up\b",
    r"look(?:ing)? into (?:it|this|that|things|stuff|the (?:issue|problem|bug|rest))\b",
    r"(?:make|get) (?:it|things|everything|this) (?:work|working|done)\b",
    r"(?:the )?(?:rest of the|remaining|other) (?:stuff|things|work|bits)\b",
    r"(?:see above|same as before|the usual|you know what|to be determined|tbd)\b",
    r"stuff\b",
)
_FILLER = re.compile(r"(?<!\w)(?:" + "|".join(f"(?:{p})" for p in _FILLER_PATTERNS) + ")")

#: Verbs that do not name a step: "continue", "finish", "keep going" say nothing about what.
_STALL_VERBS = frozenset({"continue", "resume", "proceed", "keep", "carry", "finish", "wrap", "work", "go"})
#: First words that show the action is not written as an imperative.
_NOT_IMPERATIVE = frozenset(
    """the a an this that these those we i you it they he she there here next then now first
    maybe perhaps probably possibly should must need needs would could will can might to
    my our your its their some all any everything nothing something
    why what how when where which who whether is are was were does did has have""".split()
)
_IMPERATIVE_VERBS = frozenset(
    """add adjust align allow annotate append apply archive assert attach audit backport benchmark
    bisect bump build cache call cancel capture change check cherry-pick clean clear clone close
    commit compare compile compute configure confirm connect convert copy correct create cut debug
    declare decouple define delete deploy deprecate describe diff disable document download drop
    dump edit emit enable ensure escape examine execute expand export expose extend extract fetch
    fill filter find fix flag format generate grep guard handle implement import inline insert
    inspect install instrument introduce invert investigate isolate join label launch lint list
    load locate lock log lower make mark measure merge migrate mock modify move name normalise
    normalize note open optimise optimize parametrize parameterize parse patch pin port print
    profile publish pull push put query raise read rebase rebuild record reduce refactor regenerate
    register reinstall release reload remove renew rename reorder repair replace reply report reproduce
    request rerun reset resolve restart restore restructure retry return revert review rewrite run
    save scan search separate serialize set ship simplify skip sort split squash start stop store
    strip stub submit swap switch sync tag test time trace translate trim type uncomment undo
    uninstall unpin unskip update upgrade upload use validate verify view wire wrap write""".split()
)

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"(\[])|\n+")
#: Word pairs with a slash that are prose, not paths.
_NOT_PATHS = frozenset({"and/or", "either/or", "yes/no", "on/off", "read/write", "input/output",
                        "client/server", "true/false", "w/o", "n/a", "i/o", "his/her", "he/she"})
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+", re.MULTILINE)
_SEQUENCE = re.compile(r"(?:,|;)?\s+(?:and )?then\b|;|\bafter that\b|\bfollowed by\b", re.IGNORECASE)
_BLOCKED_TEXT = re.compile(
    r"\b(?:is|are|am|remains?|currently|still|got) blocked\b|\bblocked (?:by|on)\b"
    r"|\b(?:waiting|wait) (?:for|on) (?:review|approval|access|credentials|the (?:api|team|vendor|client))\b",
    re.IGNORECASE,
)
_BLOCKED_TASK = re.compile(r"\bblocked\b|\bwaiting (?:for|on)\b|\bneeds? (?:approval|access)\b", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_WINDOWS_ABS = re.compile(r"^[A-Za-z]:[\\/]")


def _anchor_tokens(text: str) -> list[tuple[int, str]]:
    """``(offset, thing)`` for every concrete thing ``text`` names, in order.

    Token by token (one cheap pass; the form calls this on every keystroke):
    code spans, paths, file names, identifiers of every casing, calls, error
    names and codes, flags, issue numbers, versions, URLs, "line 42", "npm test".
    """
    found: list[tuple[int, str]] = []
    tokens = list(_TOKEN.finditer(text))
    for index, match in enumerate(tokens):
        token = match.group(0)
        if token.startswith("`"):
            inner = token.strip("`").strip()
            if inner:
                found.append((match.start(), inner.lower()))
            continue
        word = _trim(token)
        if not word:
            continue
        lower = word.lower()
        if word.isalpha():
            nxt = _trim(tokens[index + 1].group(0)) if index + 1 < len(tokens) else ""
            if lower in _FILE_NAMES:
                found.append((match.start(), lower))
            elif lower in _NUMBERED and nxt.isdigit():
                found.append((match.start(), f"{lower} {nxt}"))
            elif lower in _COMMANDS and nxt and (nxt[0].isalnum() or nxt[0] in "-./"):
                found.append((match.start(), f"{lower} {nxt.lower()}"))
            elif _WORD_SHAPES.search(word):
                found.append((match.start(), lower))
            continue
        if lower in _NOT_PATHS:
            continue
        if ("/" in word and any(c.isalpha() for c in word)) or _FILE_EXT.search(word) or _WORD_SHAPES.search(word):
            found.append((match.start(), lower))
    return found


def _trim(token: str) -> str:
    """A token without the punctuation around it; ``parse()`` keeps its parentheses."""
    word = token.strip(_EDGE_PUNCT)
    if word.startswith("(") and word.endswith(")"):
        word = word[1:-1].strip(_EDGE_PUNCT)
    if word.endswith(")") and "(" not in word:
        word = word.rstrip(")").strip(_EDGE_PUNCT)
    if word.startswith("(") and ")" not in word:
        word = word.lstrip("(").strip(_EDGE_PUNCT)
    return word


def anchors(text: str) -> set[str]:
    """The distinct concrete things ``text`` names (paths, identifiers, commands, errors...)."""
    return {thing for _, thing in _anchor_tokens(text)}


def _filler_matches(text: str) -> list[tuple[int, str]]:
    """``(offset, phrase as written)`` for every vague phrase of ``text``."""
    lower = text.lower()
    same = len(lower) == len(text)  # lower() may change the length of some non-ASCII text
    return [(m.start(), text[m.start():m.end()] if same else m.group(0)) for m in _FILLER.finditer(lower)]


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for sep in _SENTENCE_SPLIT.finditer(text):
        spans.append((start, sep.start()))
        start = sep.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip(" \t-*•")]


def _sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in _sentence_spans(text)]


# -- the gate ------------------------------------------------------------------------


def check_handoff(handoff: Handoff | Mapping[str, Any] | Any, project: Path | None = None) -> list[Finding]:
    """Every finding of the quality gate for a handoff or a partial draft.

    ``project`` is the folder listed paths are relative to; without it the
    existence of files is not checked (everything else is).
    """
    if isinstance(handoff, Handoff):
        data: Mapping[str, Any] = handoff.model_dump()
    elif isinstance(handoff, Mapping):
        data = handoff
    else:
        return [
            Finding("(handoff)", "error", f"a handoff is a mapping of fields, got {type(handoff).__name__}",
                    "write the fields of docs/handoff.md as `key: value` lines", "schema.not_mapping")
        ]
    findings = _schema_findings(data)
    bad = {f.field for f in findings}
    checker = _Checker(data, bad, project)
    checker.run()
    return findings + checker.findings


def _loc(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(handoff)"


_TYPE_NAMES = {
    "string_type": "text",
    "float_type": "a number",
    "int_type": "a whole number",
    "list_type": "a list",
    "model_type": "a mapping of fields",
    "model_attributes_type": "a mapping of fields",
    "dict_type": "a mapping",
}


def _model_for(loc: tuple[Any, ...]) -> type[BaseModel]:
    if loc and loc[0] == "task_state":
        return TaskState
    if loc and loc[0] == "decisions_made":
        return DecisionMade
    return Handoff


def _schema_findings(data: Mapping[str, Any]) -> list[Finding]:
    try:
        Handoff.model_validate(dict(data))
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    else:
        return []
    findings: list[Finding] = []
    for err in errors:
        loc = tuple(err["loc"])
        field = _loc(loc)
        kind = err["type"]
        got = type(err.get("input")).__name__ if "input" in err else "nothing"
        empty = kind != "missing" and err.get("input", "") is None and kind in _TYPE_NAMES
        if (kind == "missing" or empty) and loc[-1] == "rationale":
            findings.append(_no_rationale(field))
        elif empty:
            findings.append(Finding(field, "error", "required field is empty",
                                    _HINTS.get(str(loc[-1]), "fill it in"), "schema.missing"))
        elif kind == "missing":
            findings.append(Finding(field, "error", "required field is missing",
                                    _HINTS.get(str(loc[-1]), "add it"), "schema.missing"))
        elif kind == "extra_forbidden":
            allowed = sorted(_model_for(loc).model_fields)
            close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"allowed here: {', '.join(allowed)}"
            findings.append(Finding(field, "error", "unknown field", hint, "schema.unknown"))
        elif kind in ("greater_than_equal", "less_than_equal"):
            findings.append(Finding(field, "error", f"must be between 0 and 100 (got {err.get('input')!r})",
                                    "a percentage: a number from 0 to 100", "schema.range"))
        else:
            want = _TYPE_NAMES.get(kind, err["msg"].removeprefix("Input should be ").lower())
            findings.append(Finding(field, "error", f"must be {want} (got {got})",
                                    _HINTS.get(str(loc[-1]), _HINTS.get(str(loc[0]), "fix its type")), "schema.type"))
    return findings


def _no_rationale(field: str) -> Finding:
    return Finding(field, "error", "a decision without a rationale",
                   "say why it was decided, so the next session does not undo it", "decision.no_rationale")


_HINTS: dict[str, str] = {
    "agent_role": "the role of the agent writing it, e.g. main, backend, reviewer",
    "timestamp": "ISO 8601, e.g. 2026-01-31T17:05:00+00:00",
    "task_state": "a mapping with assigned_task, completion_pct and the subtask lists",
    "assigned_task": "one line: what this session was asked to do",
    "completion_pct": "an honest number from 0 to 100",
    "continuation_context": "what the next session must know: files, identifiers, commands, errors (<= 500 words)",
    "suggested_first_action": "one imperative step naming its object, e.g. Run `pytest tests/test_io.py -k partial`",
    "files_modified": "a list of paths relative to the project",
    "files_created": "a list of paths relative to the project",
    "contracts_consumed": "a list of paths relative to the project",
    "affects_files": "a list of paths relative to the project",
    "completed_subtasks": "a list of one-line subtasks",
    "remaining_subtasks": "a list of one-line subtasks",
    "blockers": "a list of what blocks the remaining work",
    "decisions_made": "a list of {decision, rationale, affects_files}",
    "context_usage_pct": "the context window usage, 0 to 100",
}


class _Checker:
    """The semantic rules; each skips a field whose type is already wrong."""

    def __init__(self, data: Mapping[str, Any], bad: set[str], project: Path | None) -> None:
        self.data = data
        self.bad = bad
        self.project = project
        self.findings: list[Finding] = []
        ts = data.get("task_state")
        self.task: Mapping[str, Any] = ts if isinstance(ts, Mapping) else {}

    def add(self, field: str, severity: Severity, message: str, hint: str, rule: str) -> None:
        self.findings.append(Finding(field, severity, message, hint, rule))

    def text(self, field: str, value: Any) -> str | None:
        """``value`` when it is usable text of a field without a schema error."""
        if field in self.bad or not isinstance(value, str):
            return None
        return value

    def run(self) -> None:
        self.header()
        self.task_state()
        self.decisions()
        self.paths()
        self.continuation_context()
        self.first_action()

    # -- header fields -----------------------------------------------------------

    def header(self) -> None:
        version = self.text("handoff_version", self.data.get("handoff_version", HANDOFF_VERSION))
        if version is not None and version != HANDOFF_VERSION:
            self.add("handoff_version", "error", f"unsupported version {version!r}",
                     f"this ctx-tui reads handoff_version {HANDOFF_VERSION!r}", "header.version")
        role = self.text("agent_role", self.data.get("agent_role"))
        if role is not None and not role.strip():
            self.add("agent_role", "error", "agent_role is empty", _HINTS["agent_role"], "header.role")
        stamp = self.data.get("timestamp")
        stamp = stamp.isoformat() if isinstance(stamp, datetime) else stamp
        stamp = self.text("timestamp", stamp)
        if stamp is not None:
            try:
                datetime.fromisoformat(stamp.strip())
            except ValueError:
                self.add("timestamp", "error", f"not an ISO 8601 timestamp: {stamp!r}", _HINTS["timestamp"],
                         "header.timestamp")
        if "session_id" not in self.bad and not self.data.get("session_id"):
            self.add("session_id", "warning", "no session_id",
                     "name the session so the next one can find its transcript", "header.session")

    # -- task state --------------------------------------------------------------

    def _list(self, field: str, value: Any) -> list[str]:
        if field in self.bad or not isinstance(value, list):
            return []
        return [v for v in value if isinstance(v, str) and v.strip()]

    def task_state(self) -> None:
        task = self.text("task_state.assigned_task", self.task.get("assigned_task"))
        if task is not None and not task.strip():
            self.add("task_state.assigned_task", "error", "assigned_task is empty", _HINTS["assigned_task"],
                     "task.assigned_empty")
        done = self._list("task_state.completed_subtasks", self.task.get("completed_subtasks"))
        todo = self._list("task_state.remaining_subtasks", self.task.get("remaining_subtasks"))
        blockers = self._list("task_state.blockers", self.task.get("blockers"))
        pct_field = "task_state.completion_pct"
        pct = self.task.get("completion_pct")
        if pct_field not in self.bad and isinstance(pct, (int, float)) and not isinstance(pct, bool):
            self._completion(float(pct), done, todo, blockers)
        if blockers or "task_state.blockers" in self.bad:
            return
        hint = "list each blocker: what blocks which subtask, and who or what can unblock it"
        blocked = [t for t in todo if _BLOCKED_TASK.search(t)]
        if blocked:
            self.add("task_state.blockers", "error", f"a remaining subtask is blocked but no blocker is listed: {blocked[0]!r}",
                     hint, "task.blocked_unlisted")
            return
        # Prose may say "blocked" about code ("the read blocked on the socket"): only ask.
        context = self.data.get("continuation_context")
        match = _BLOCKED_TEXT.search(context) if isinstance(context, str) else None
        if match:
            self.add("task_state.blockers", "warning",
                     f"continuation_context says {match.group(0)!r} but no blocker is listed",
                     hint + " (if the remaining work waits on it)", "task.blocked_in_context")

    def _completion(self, pct: float, done: list[str], todo: list[str], blockers: list[str]) -> None:
        field = "task_state.completion_pct"
        if pct >= 100 and todo:
            self.add(field, "error", f"100% complete but {len(todo)} remaining subtask(s) listed",
                     "lower completion_pct or move the finished subtasks to completed_subtasks", "pct.done_with_remaining")
        elif pct <= 0 and done:
            self.add(field, "error", f"0% complete but {len(done)} completed subtask(s) listed",
                     "give the share of the work that is done", "pct.zero_with_completed")
        elif done or todo:
            share = 100.0 * len(done) / (len(done) + len(todo))
            if abs(pct - share) > COMPLETION_GAP_WARN:
                self.add(field, "warning",
                         f"{pct:g}% but {len(done)} of {len(done) + len(todo)} subtasks are done ({share:.0f}%)",
                         "is the estimate honest? subtasks differ in size; say why in continuation_context "
                         "or adjust the number", "pct.gap")
        else:
            self.add("task_state.remaining_subtasks", "warning", "no completed or remaining subtasks listed",
                     "list them so the next session (and this gate) can check completion_pct", "task.no_subtasks")
        if pct >= 100 and blockers:
            self.add(field, "warning", "100% complete but blockers are listed",
                     "remove resolved blockers or lower completion_pct", "pct.done_with_blockers")

    # -- decisions -----------------------------------------------------------------

    def decisions(self) -> None:
        items = self.data.get("decisions_made")
        if "decisions_made" in self.bad or not isinstance(items, list):
            return
        for index, item in enumerate(items):
            base = f"decisions_made[{index}]"
            if base in self.bad or not isinstance(item, Mapping):
                continue
            decision = self.text(f"{base}.decision", item.get("decision"))
            if decision is not None and not decision.strip():
                self.add(f"{base}.decision", "error", "the decision is empty", "state what was decided", "decision.empty")
            rationale = self.text(f"{base}.rationale", item.get("rationale"))
            if rationale is not None and not rationale.strip():
                self.findings.append(_no_rationale(f"{base}.rationale"))

    # -- paths ---------------------------------------------------------------------

    def paths(self) -> None:
        lists: list[tuple[str, Any]] = [(name, self.data.get(name)) for name in
                                        ("files_modified", "files_created", "contracts_consumed")]
        decisions = self.data.get("decisions_made")
        if isinstance(decisions, list):
            lists += [(f"decisions_made[{i}].affects_files", d.get("affects_files"))
                      for i, d in enumerate(decisions) if isinstance(d, Mapping)]
        for field, value in lists:
            if field in self.bad or not isinstance(value, list):
                continue
            seen: set[str] = set()
            for index, path in enumerate(value):
                if isinstance(path, str):
                    self._path(f"{field}[{index}]", path, seen)
        modified = self.data.get("files_modified")
        created = self.data.get("files_created")
        if isinstance(modified, list) and isinstance(created, list):
            both = sorted({p for p in modified if isinstance(p, str)} & {p for p in created if isinstance(p, str)})
            if both:
                self.add("files_created", "warning", f"also listed in files_modified: {', '.join(both[:3])}",
                         "a file created in this session belongs in files_created only", "path.both_lists")

    def _path(self, field: str, path: str, seen: set[str]) -> None:
        if not path.strip():
            self.add(field, "error", "empty path", "remove the entry or write the path", "path.empty")
            return
        if _CONTROL.search(path):
            self.add(field, "error", "path contains control characters", "write the plain relative path", "path.control")
            return
        if path.startswith(("/", "\\", "~")) or _WINDOWS_ABS.match(path):
            self.add(field, "error", f"absolute path {path!r}",
                     "write it relative to the project root, e.g. src/app.py", "path.absolute")
            return
        if ".." in re.split(r"[\\/]", path):
            self.add(field, "error", f"path leaves the project: {path!r}",
                     "list only files inside the project, relative to its root", "path.parent")
            return
        if path in seen:
            self.add(field, "warning", f"listed twice: {path!r}", "remove the duplicate", "path.duplicate")
        seen.add(path)
        if self.project is not None and not (self.project / path).exists():
            self.add(field, "warning", f"does not exist in the project: {path!r}",
                     "check the spelling, or say in continuation_context that it was deleted", "path.missing")

    # -- free text -----------------------------------------------------------------

    def continuation_context(self) -> None:
        field = "continuation_context"
        text = self.text(field, self.data.get(field))
        if text is None:
            return
        words = text.split()
        if not words:
            self.add(field, "error", "continuation_context is empty", _HINTS[field], "context.empty")
            return
        if len(words) > MAX_CONTEXT_WORDS:
            self.add(field, "error", f"{len(words)} words; at most {MAX_CONTEXT_WORDS}",
                     "keep what the next session cannot find by reading the files", "context.too_long")
        found = _anchor_tokens(text)
        named = {thing for _, thing in found}
        if len(named) < MIN_CONTEXT_ANCHORS:
            self.add(field, "error",
                     "names nothing concrete the next session can act on" if not named
                     else f"names only one concrete thing ({next(iter(named))})",
                     "name files, identifiers, commands, test names or error messages (at least "
                     f"{MIN_CONTEXT_ANCHORS}), e.g. `src/io.py`, parse_rows(), `pytest -k partial`, KeyError",
                     "context.not_concrete")
        # A sentence is filler when it holds a vague phrase and names nothing concrete.
        spans = _sentence_spans(text)
        starts = [a for a, _ in spans]
        concrete = {bisect_right(starts, offset) - 1 for offset, _ in found}
        first_phrase: dict[int, str] = {}
        for offset, phrase in _filler_matches(text):
            first_phrase.setdefault(bisect_right(starts, offset) - 1, phrase)
        vague_words = 0
        vague: list[str] = []
        for index, phrase in sorted(first_phrase.items()):
            if index not in concrete and index >= 0:
                a, b = spans[index]
                vague_words += len(text[a:b].split())
                vague.append(phrase)
        if vague:
            quoted = ", ".join(f"'{p}'" for p in vague[:4])
            if vague_words / len(words) >= FILLER_SHARE_ERROR:
                self.add(field, "error", f"carried by filler without an object: {quoted}",
                         "replace each vague phrase with what exactly remains: which file, function, test or error",
                         "context.filler")
            else:
                self.add(field, "warning", f"vague phrase(s) without an object: {quoted}",
                         "name the file, function, test or error each one is about", "context.filler_phrase")
        elif len(words) < SHORT_CONTEXT_WORDS:
            self.add(field, "warning", f"only {len(words)} words",
                     "add the state of partial work, error messages and key names", "context.short")

    def first_action(self) -> None:
        field = "suggested_first_action"
        text = self.text(field, self.data.get(field))
        if text is None:
            return
        action = text.strip()
        if not action:
            self.add(field, "error", "suggested_first_action is empty", _HINTS[field], "action.empty")
            return
        prose = _CODE_SPAN.sub("`code`", action)
        lines = [line for line in action.splitlines() if line.strip()]
        if len(lines) > 1 or _LIST_MARKER.match(action) or len(_sentences(prose)) > 1 or _SEQUENCE.search(prose):
            self.add(field, "error", "more than one step",
                     "keep only the first step; put the rest in task_state.remaining_subtasks", "action.multiple")
        first = re.sub(r"^(?:please|first|next|now)\b[,:]?\s*", "", _LIST_MARKER.sub("", action, count=1),
                       flags=re.IGNORECASE)
        word_match = re.match(r"[A-Za-z][A-Za-z-]*", first)
        word = word_match.group(0).lower() if word_match else ""
        named = anchors(action)
        if word in _STALL_VERBS:
            self.add(field, "error", f"'{word}' is not a step: it does not say what to do",
                     "name the exact action, e.g. Run `pytest tests/test_io.py::test_partial`", "action.stall_verb")
        elif not word or word in _NOT_IMPERATIVE or word.endswith("ing") or prose.rstrip().endswith("?"):
            self.add(field, "error", "does not start with an imperative verb",
                     "start with the verb: Run ..., Open ..., Fix ..., Add ...", "action.not_imperative")
        elif word not in _IMPERATIVE_VERBS:
            self.add(field, "warning", f"'{word}' is not a verb this gate knows",
                     "start with an imperative verb such as Run, Open, Fix, Add, Edit", "action.unknown_verb")
        if not named:
            self.add(field, "error", "names no concrete object",
                     "name the file, command, test or function it acts on", "action.no_object")
        if len(action.split()) > LONG_ACTION_WORDS:
            self.add(field, "warning", f"{len(action.split())} words for one step",
                     "one step fits in a sentence; move detail to continuation_context", "action.long")
