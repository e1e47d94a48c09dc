"""Automatic extraction of tracked items from a transcript: offline, deterministic, incremental.

Signals are structural first — who speaks, sentence boundaries, headings,
list items, ``Label: text`` lines, plan-tool calls — and lexical second
(the modal and imperative words that make a sentence binding, read one
sentence at a time by :func:`~ctx_tui.memory.sentence_types.classify`):

* **Goal** — the actual ask of the first substantive user prompt (three
  words or more): file-mention and IDE preambles, slash commands and
  thinking keywords ("ultrathink") are dropped, context sentences before the
  first sentence that asks are skipped; a prompt that only asks for
  information sets no task. A new task the user sets later (an ask first, no
  reply, rule or request for information, little in common with an earlier
  task's ask) updates a second goal item, the task in hand; a reply to the
  agent's "which way?" or to its plan is a decision instead. A prompt that
  redirects ("actually, …", "change of plan: …") sets the new task.
* **Constraints** (user) — a rule: an imperative opening (``never``,
  ``always``, ``don't``, ``make sure``, ``keep in mind``…, also after
  ``Also:``, ``Note:``, ``Important:``), a binding modal anywhere (``must``,
  ``should``, ``need to``, ``is not allowed``, ``not acceptable``,
  ``important not to``…); a request for work now ("please provide the
  commands required to …", "we need to fix …") is none.
* **Preferences** (user) — ``I prefer``, ``I'd rather``, ``X instead of Y``
  with a choice verb, ``please use``, ``for better readability``…
* **Decisions** (user and assistant) — ``let's/we'll/I'll use X``,
  ``decided``, ``going with``, ``settled on``…; in assistant text also
  ``Solution: X`` / ``Approach: X`` / ``Recommended Design: X`` labels and
  headings, and the items of a "Technical Decisions" list; an approval
  ("yes, go with option 2") becomes the option it names from the assistant's
  previous message, an answer to the agent's ``AskUserQuestion`` the option
  picked (not an answer giving a fact), a pick of a listed option ("7. C
  sounds best") and "yes, X" to the agent's offer the user's words; the
  agent's own pick ("My recommendation: X", "Recommended: X") and its
  announced way of working ("I'll merge them", "I'll spawn three agents",
  "X first, then Y") are kept; ``ExitPlanMode``'s plan and Codex's ``<proposed_plan>`` are read like
  assistant text, and their binding sentences ("X must not …", "never …") are constraints. A
  ``because``/``since``/``so that`` clause is the rationale, file paths the
  affected files.
* **Progress** — the latest plan of ``TodoWrite`` / ``update_plan``: in
  progress, next, done (one item, updated as the plan changes).
* **Memory notes** — a Claude Code ``<user-memory-input>`` note is a
  standing rule of the user's.

Never a source: tool results (but the user's answers), thinking, system text (but memory notes), a pasted agent
session inside a prompt (its reasoning, tool lines and output: the prompt's own words are typed below or above it),
compaction summaries, sub-agent traffic, questions (also without their mark), code blocks, quoted and
tagged blocks, pasted command output and agent UI, fixture/redaction placeholders.

Near-duplicates (same type, nearly the same words) merge into one item: the
later wording wins, the item keeps its first id and round and gains the later
round as a reference. Ids are stable (``<type>-<hash of the first wording>``),
so a dismissed item stays dismissed. :func:`extract_items` reads only the
entries appended since its last call on the same list.

Over 400 lines: the rules for every item type share one sentence and line model and one
incremental extractor; the rules are listed above.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple

from ctx_tui import regex_cache
from ctx_tui.memory.items import ItemType, TrackedItem, extracted_item_id, importance_for, normalise_content
from ctx_tui.memory.sentence_types import classify, is_imperative, may_state, opens_with_rule
from ctx_tui.transcripts.activity import PLAN_TOOLS
from ctx_tui.transcripts.model import Entry, Kind, key_text, text_key

MAX_CONTENT = 300
_GOAL_SENTENCES = 3
#: Words a prompt needs to be a goal ("show tools", "hi" are probes, not the session's task).
_GOAL_MIN_WORDS = 3
#: Token-set overlap at which two items of one type are the same fact.
_NEAR_DUPLICATE = 0.8

#: Placeholders some transcripts hold instead of text (redaction, images, fixture trimming).
_PLACEHOLDER = regex_cache.compile(
    r"\[(?:REDACTED[^\]]*|image[^\]]*|[^\]\n]{0,40}\b(?:trimmed|truncated|omitted|elided|redacted)\b[^\]\n]{0,40})\]", re.I
)
#: A fenced code block after a line break: its opening fence line, then the lines up to and with its closing fence
#: line, or to the end (a last line break left). Read line by line, not by a lazy ``.*?`` that tries the closing
#: line at every character, and opening with a plain character, which ``re`` finds without trying the pattern at
#: every position (see :func:`_unfenced`; extraction's texts of the grown Claude session: 11.7 -> 2.8 ms).
_FENCED = regex_cache.compile(r"\n[ \t]*(```|~~~)[^\n]*(?:\n(?![ \t]*\1)(?!\Z)[^\n]*)*(?:\n[ \t]*\1[^\n]*)?")
_TAGGED = regex_cache.compile(r"<([a-z][\w-]*)(\s[^>]*)?>.*?</\1>", re.S | re.I)
_MEMORY_NOTE = regex_cache.compile(r"<user-memory-input>(.*?)</user-memory-input>", re.S)
_SLASH_COMMAND = regex_cache.compile(r"^/[\w:.-]+\s*")
_THINK_WORD = regex_cache.compile(r"^(?:ultrathink|think harder|think hard|megathink|think)\b[\s,.:-]*", re.I)
_MENTION = regex_cache.compile(r'^@(?:"[^"\n]*"|\S+)\s*')
_TRAILING_THINK = regex_cache.compile(r"[\s,.;:-]+(?:ultrathink|think harder|think hard|megathink)[\s.!]*$", re.I)
#: Codex IDE / Desktop prompt preambles: the request follows the last of these headings.
_REQUEST_HEADING = regex_cache.compile(r"^#{1,3}\s*my request for codex:?\s*$", re.I | re.M)
_BULLET = regex_cache.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)]|[a-z][.)])\s+")
_HEADING = regex_cache.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BOLD_LINE = regex_cache.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*|__)([^.!?]{1,100}?)(?:\*\*|__)\s*:?\s*$")
_LABELLED = regex_cache.compile(r"^(?:\*\*|__)?([^:*_`\n]{2,48}?)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$")
_SENTENCE_END = regex_cache.compile(r"(?<=[.!?;。！？])\s+|(?<=[。！？])")
#: :data:`_SENTENCE_END` in a line without 。！？: the same matches, opening with the space, so that ``re`` goes from
#: one space to the next instead of trying the look-behinds at every character.
_SPACED_END = regex_cache.compile(r"\s(?<=[.!?;]\s)\s*")
_DECORATION = regex_cache.compile(r"^[^\w`\"'(\[@/<~.-]+")
_MARKUP = regex_cache.compile(r"\*\*|__")
_WORD = regex_cache.compile(r"\w+")
#: Lines that are pasted command output or logs, not prose (also a coding agent's terminal UI: ``⏺ Ran 1 stop hook``).
_OUTPUT_LINE = regex_cache.compile(
    r"^\s*(?:\$ |>>> |[⏺⎿✻✶✳│╭╰▐▝▘]|at \S+\(|File \"|Traceback|\d{4}-\d\d-\d\d[T ]\d\d:|\[\d+/\d+\]|npm (?:ERR|WARN)|"
    r"(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL)\b[:\] ]|[\w./-]+:\d+:\d+)"
)

#: Labels whose text is a decision ("Solution: X", "Recommended Design: X", "Final Plan: X").
_DECISION_NOUN = regex_cache.compile(r"\b(?:decision|decisions|decided|solution|approach|design|choice|resolution)\s*$", re.I)
#: The agent's own pick, kept whole ("My recommendation: yes, a fresh session", "Recommended: Option 2 (Askpass)");
#: a report's "Recommendation:" lines advise the reader and are not the session's choices.
_OWN_PICK = regex_cache.compile(r"^(?:my|our) recommendation$|^recommended$", re.I)
#: The words that mark an option as the one taken ("Recommended approach", "Chosen: ...").
_CHOICE_WORDS = ("recommended", "chosen", "selected", "agreed", "adopted")
_CHOICE_ALTERNATION = "|".join(_CHOICE_WORDS)
_CHOICE_QUALIFIER = regex_cache.compile(rf"^(?:final|{_CHOICE_ALTERNATION})\b", re.I)
_CHOSEN_IN_HEADING = regex_cache.compile(rf"\b(?:{_CHOICE_ALTERNATION})\s+(?:approach|solution|design|option|fix)\b\W*\w.*", re.I)
#: A section that presents one of several alternatives ("Approach 2: ...", "Option B", "Alternative: ...").
_ALTERNATIVE_SECTION = regex_cache.compile(r"\b(?:option|alternative|approach|variant)\s+#?\w{1,2}\b|^alternatives?\b", re.I)
_CHOSEN = regex_cache.compile(rf"\b(?:{_CHOICE_ALTERNATION}|final)\b", re.I)
#: A heading that opens a list of decisions ("Technical Decisions", "Key decisions made").
_DECISION_LIST = regex_cache.compile(r"^(?:[\w-]+\s+){0,2}decisions?(?:\s+made)?\s*:?$", re.I)
_APPROVAL = regex_cache.compile(
    r"\b(?:go with|use|pick|choose|take|prefer|let'?s do|do|implement|proceed with)\s+(?:the\s+)?"
    r"(option|approach|variant|alternative|plan|proposal|solution)\s+#?([\w]+)\b",
    re.I,
)
#: The agent announcing how it organises the work, not which step comes next: merging, splitting,
#: handing parts to agents, an order ("I'll handle X first"), a pace ("one command at a time").
_APPROACH = regex_cache.compile(
    r"^(?:(?:ok(?:ay)?|now|so|great|good|perfect|alright)[,!.]?\s+)?(?:i|we)(?:'ll| will|'m going to| am going to|'re going to| are going to)\s+"
    r"(?:merge|combine|consolidate|split|spawn|delegate|\w+\b[^.;:]{1,60}?\b(?:first, then|one (?:\w+ )?at a time)\b)",
    re.I,
)
#: The user's pick of a listed option: "7. C sounds best", "option 1 is reasonable", "B looks good".
_PICK = regex_cache.compile(
    r"(?:^|\s)((?:\d{1,2}[.)]\s*)?(?:(?i:option)\s+)?(?:[A-Z]|\d{1,2})\s+(?:sounds|seems|looks|is)\s+"
    r"(?:the\s+)?(?:best|good|great|right|fine|reasonable|perfect)\b[^.!?\n]*)",
)
_YES = regex_cache.compile(r"^(?:yes|yeah|yep|sure|ok(?:ay)?)\b[\s,.!]*", re.I)
#: (The patterns below kept as text are compiled when first needed, by re's cache: most sessions never need them.)
#: A prompt that only accepts what the agent proposed: "yes", "ok, go ahead", "sounds good, do it", "lgtm".
_ACCEPT = (
    r"^(?:(?:yes|yeah|yep|yup|ok(?:ay)?|sure|great|perfect|good|nice|cool|agreed|approved|fine|alright|absolutely|"
    r"definitely|lgtm|sounds (?:good|great|right|fine|perfect)|looks (?:good|great|right|fine)|makes sense|that works|"
    r"works for me|go ahead|go for it|do it|do that|let'?s do (?:it|that|this)|let'?s go|proceed|please|pls|ship it)"
    r"(?:[\s,.!]+|$))+$"
)
#: The agent's recommendation: "I'd recommend X", "I suggest X", "Option 1 (Recommended)", "the simplest fix is X",
#: "X is your best bet".
_RECOMMENDS = (
    r"\bI(?:'d| would)? (?:strongly )?(?:recommend|suggest)\b|\bmy (?:recommendation|suggestion)\b|\((?:recommended|suggested)\)|"
    r"\b(?:best|simplest|cleanest|safest) (?:option|approach|fix|choice|path|bet|solution)\b(?: here| for (?:you|this|now))? is\b|"
    r"\bis (?:the|your) best (?:bet|option|choice)\b"
)
#: A reply that picks nothing: yes / no / thanks alone, a wait, the choice left to the agent.
_BARE_REPLY = (
    r"^(?:yes|yeah|yep|no|nope|nah|ok(?:ay)?|sure|thanks?|thank you|hmm+|wait|later|not now|stop|continue|go on|idk|"
    r"dunno|not sure|i don'?t know|you decide|your call|up to you|you choose|you pick|whatever|either|any|none)\b[\s,.!]*$"
)
_REDIRECT = regex_cache.compile(
    r"^(?:actually|instead|change of plans?|new plan|forget (?:that|it|about)|scratch that|new task|different task|"
    r"switch(?:ing)? gears|pivot(?:ing)?)\b[\s,:;.-]*",
    re.I,
)
_RATIONALE = regex_cache.compile(r"\s*(?:,\s*)?\b(?:because|since|so that|as it|as this|given that)\b\s*", re.I)
_PATHS = regex_cache.compile(r"(?:[\w@.+-]+/)+[\w@.+-]+\.\w{1,6}|\b[\w-]+\.(?:py|ts|tsx|js|json|md|ya?ml|toml|rs|go|java|sh)\b")
_ASK = regex_cache.compile(
    r"\b(?:need to|needs to|want (?:you )?to|would like|i'd like|please|pls|can you|could you|would you|let'?s|help me|"
    r"have to|trying to|goal is|task is|should)\b",
    re.I,
)
#: A question that asks for information, not for work ("why is X", "what are Y", "do I need Z", "not sure if …").
_INFO_QUESTION = regex_cache.compile(
    r"^(?:(?:why|what|what's|whats|who|where|when|which|whose|how (?:much|many|long|come|is|are|does|did))\b|"
    r"(?:is|are|was|were|do|does|did|has|have|had|am|will|would|should|shall|can|could|may)\s+"
    r"(?:i|it|there|this|that|these|those|the|my|your|our|we|they|he|she|any)\b|"
    r"(?:i'?m |i am )?not sure (?:if|whether)|i wonder|wondering (?:if|whether))",
    re.I,
)
#: Openings the closed-class imperative test takes for a verb: a determiner, a contraction typed without its
#: apostrophe ("all three, privacy and remote access", "Im sure you can …").
_NOT_A_VERB = regex_cache.compile(r"^(?:all|both|each|every|some|any|none|most|im|ive|id|its|thats|theres|dont|cant)\b", re.I)
#: A pasted agent session: its reasoning lines ("Thinking: …", as coding agents' terminals show them) and the lines of
#: its interface (turn footers, tool calls, "Click to expand").
_PASTED_REASONING = r"^[ \t]*(?:[✻∴*]\s*)?Thinking(?::|…|\.\.\.)"
_PASTED_AGENT_LINE = r"^[ \t]*(?:▣|[✱→←⏺⎿]\s|\$ |Click to expand).*$"
#: A bare link: context for the ask, not one ("https://example.com/brief" above the request).
_LINK_ONLY = regex_cache.compile(r"^(?:https?://|www\.)\S+$", re.I)
#: Information asked for in the imperative ("tell me more about X", "show me the JSON"): no new task.
_INFO_REQUEST = regex_cache.compile(r"^(?:please\s+)?(?:(?:tell|show|give) me\b|explain|describe)\b", re.I)
#: Work asked for as a question ("can you …", "could we …", "how do we …").
_REQUEST_QUESTION = regex_cache.compile(r"^(?:(?:can|could|would|will) you|(?:can|could) we|how (?:do|can|should) (?:we|i|you))\b", re.I)
#: A want or need stated as the ask ("I want you to …", "I need a better understanding of …").
_WANT = regex_cache.compile(r"^(?:i|we)(?: really)? (?:want|need|would like|'d like)\b", re.I)
#: A reply to the agent rather than a new task: an answer word, a numbered or lettered pick.
_ANSWER_OPENING = regex_cache.compile(r"^(?:yes|yeah|yep|no|nope|nah|ok|okay|sure|\d{1,2}(?:[.)]|\s|$)|[a-z][.)]\s)", re.I)
#: A statement whose first word only looks like a verb: a subject and its verb ("performance is crucial", "X has Y").
_DECLARATIVE = regex_cache.compile(r"^\S+(?:\s+\S+)?\s+(?:is|are|was|were|has|have|had|will|can|could|would|should|must|does|did)\b|^\w+'s\b", re.I)
#: A parenthetical of three words or more: a clause of its own ("(no need to go into details)").
_ASIDE = regex_cache.compile(r"\s\(((?:[^()\s]+\s+){2,}[^()]*)\)")
#: Where a clause may start inside a sentence ("…, but be sure to …", "…, always …").
_CLAUSE_JOIN = regex_cache.compile(r",\s*(?:but\s+|and\s+)?")
_POLITE = regex_cache.compile(r"^(?:please|pls|plz|ok(?:ay)?|so|now|then|and|also)\b[\s,:]*", re.I)
#: Words that make a sentence a standing rule even when it asks for work.
_BINDING = regex_cache.compile(r"\b(?:must|mustn'?t|should|shouldn'?t|never|always|don'?t|do not|not allowed|forbidden|mandatory|only)\b", re.I)
#: The modals that make a request read as a rule ("do what you need to", "the commands required to").
_WEAK_MODAL = regex_cache.compile(r"\b(?:needs? to|required to|ha(?:ve|s) to)\b", re.I)
#: Openings of a request the closed-class imperative test misses ("we need to fix …", "do whatever it takes …");
#: "we need to keep / stay / be …" holds a state: a rule.
_REQUEST_OPENING = regex_cache.compile(
    r"^(?:(?:we|i) (?:really )?need to (?!(?:keep|stay|remain|maintain|preserve|support|be|avoid|stick)\b)|"
    r"i (?:want|need) you to|i'?d like you to|do (?!(?:you|we|i|they|it|not)\b)\w)",
    re.I,
)
#: The agent's closing question asks the user to choose a way or confirm it ("Which approach do you prefer?",
#: "… or would you prefer to review it first?", "Ready to proceed?"): the reply goes on with the current task.
_CHOICE_ASKED = regex_cache.compile(
    r"^(?:which\b|(?:are you )?ready (?:to|for)\b|shall i\b|should i (?:proceed|continue|go ahead)\b)|"
    r"\bor (?:would you prefer|should i|do you want|shall i)\b.*\?$",
    re.I,
)
#: Words a later prompt needs to set a new task ("commit!", "verify", "do sync" continue the work).
_LATER_GOAL_MIN_WORDS = 4
#: Term overlap with the ask of an earlier task at which a later ask is more of that task, not a new one.
_SAME_TASK = 0.5


@dataclass(frozen=True, slots=True)
class Extraction:
    """One extracted item and where it came from."""

    item: TrackedItem
    seq: int  # the entry it was (last) read from
    rationale: str = ""  # decisions only
    affects_files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision of the session, for the handoff's ``decisions_made``."""

    decision: str
    rationale: str
    affects_files: tuple[str, ...]
    item_id: str
    round: int


# -- text structure -------------------------------------------------------------------


def _prose(text: str) -> str:
    """``text`` without code blocks and tagged blocks (pasted logs, injected notes)."""
    text = _unfenced(text)
    return _TAGGED.sub(" ", text) if "</" in text else text  # (a tagged block closes with "</")


def _unfenced(text: str) -> str:
    """``text`` with each fenced code block (at its start or after a line break) replaced by a line break, as
    ``re.sub(r"(^|\\n)[ \\t]*(```|~~~).*?(\\n[ \\t]*\\2[^\\n]*|$)", "\\n", text, flags=re.S)`` replaces them
    (``tests/test_extract_prose.py``). :data:`_FENCED` reads a block after a line break, so it reads the text
    after one; a block that opens the text takes that line break with it."""
    if "```" not in text and "~~~" not in text:
        return text
    out = _FENCED.sub("\n", "\n" + text)
    return out if text.lstrip(" \t").startswith(("```", "~~~")) else out[1:]


def _clean_line(line: str) -> str:
    if line[:1].isalnum():
        return _MARKUP.sub("", line).strip() if "**" in line or "__" in line else line
    line = _DECORATION.sub("", line)
    return (_MARKUP.sub("", line) if "**" in line or "__" in line else line).strip()


def _split(line: str) -> list[str]:
    ends = _SENTENCE_END if "。" in line or "！" in line or "？" in line else _SPACED_END
    return [s.strip() for s in ends.split(line) if s and s.strip()]


class _Line(NamedTuple):  # a tuple: built once per line of every message, a frozen dataclass costs 5x
    text: str  # markup removed
    kind: str  # "heading" | "bullet" | "para"
    section: str  # the heading it sits under ("" before any)


_BULLET_STARTS = frozenset("-*+•0123456789")


def _lines(text: str) -> list[_Line]:
    """The prose lines of ``text`` with their structure: headings, list items, paragraphs.

    The hot path of extraction (every line of every message): each regex runs
    only where the line's first character allows it to match.
    """
    out: list[_Line] = []
    section = ""
    for raw in _prose(text).splitlines():
        stripped = raw.strip()
        first = stripped[:1]
        if not first or first in ">|" or _OUTPUT_LINE.match(stripped):
            continue
        heading = _HEADING.match(stripped) if first == "#" else _BOLD_LINE.match(stripped) if first in "*_-+" else None
        if heading:
            section = _clean_line(heading.group(1)).rstrip(":").strip()
            out.append(_Line(section, "heading", section))
            continue
        bullet = _BULLET.match(stripped) if first in _BULLET_STARTS or stripped[1:2] in (".", ")") else None
        line = _clean_line(stripped[bullet.end() :] if bullet else stripped)
        if line:
            out.append(_Line(line, "bullet" if bullet else "para", section))
    return out


def sentences(text: str) -> list[str]:
    """Sentences of the prose of ``text``: one per line (headings too), lines split at sentence ends."""
    return [s for line in _lines(text) for s in _split(line.text)]


def _bounded(text: str, limit: int = MAX_CONTENT) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"


def _clean(sentence: str) -> str:
    return _bounded(sentence.strip().rstrip(";").strip())


def _label_decision(text: str) -> str | None:
    """The decision of a ``Solution: X`` / ``Recommended Design: X`` line, or None."""
    m = _LABELLED.match(text) if ":" in text else None
    if m:
        label, rest = m.group(1).strip(), m.group(2).strip()
        qualified = _CHOICE_QUALIFIER.match(label) and re.search(r"\bplan\s*$", label, re.I)
        if rest and (_DECISION_NOUN.search(label) or qualified) and not rest.endswith("?"):
            return rest
        if rest and _OWN_PICK.match(label) and not rest.endswith("?"):
            return f"{label}: {rest}"
        if not rest:
            return None
    low = text.lower()
    if not any(word in low for word in _CHOICE_WORDS):
        return None
    chosen = _CHOSEN_IN_HEADING.search(text)
    return chosen.group(0).strip() if chosen else None


def _user_clauses(line: str) -> list[str]:
    """The sentences of a user's line, a rule in a clause of its own split off.

    "move the files, but be sure to keep X apart" holds a task and a rule; "write
    the README (no need to go into details)" a task and a rule in parentheses.
    """
    out: list[str] = []
    for sentence in _split(line):
        for part in _ASIDE.split(sentence):
            part = part.strip()
            cut = next(
                (m for m in _CLAUSE_JOIN.finditer(part) if len(_WORD.findall(part[: m.start()])) >= 3 and opens_with_rule(part[m.end() :])),
                None,
            )  # a clause of its own before the rule: "again, never …" is one rule
            if cut:
                out += [part[: cut.start()].strip(), part[cut.end() :].strip()]
            elif part:
                out.append(part)
    return [p for p in out if p]


def _is_request(sentence: str) -> bool:
    """True when a user's sentence asks for work now ("please provide X required to Y", "we need to fix Z").

    Such a sentence reads as a constraint by its "need to" / "required to" alone;
    one with a word that binds (must, should, never, always, only…) stays a rule.
    """
    body = _POLITE.sub("", sentence)
    if _BINDING.search(body) or opens_with_rule(body):
        return False
    if not _WEAK_MODAL.search(body):
        return False
    return (is_imperative(body) and not _DECLARATIVE.match(body)) or _REQUEST_OPENING.match(body) is not None


def _decision(sentence: str) -> tuple[str, str]:
    parts = _RATIONALE.split(sentence, maxsplit=1)
    if len(parts) == 2 and parts[0].strip() and parts[1].strip():
        return _clean(parts[0]).rstrip(","), _clean(parts[1])
    return _clean(sentence), ""


Statement = tuple[ItemType, str, str, tuple[str, ...]]


@lru_cache(maxsize=16384)
def _statements(role: str, key: str | bytes) -> tuple[Statement, ...]:
    """(type, content, rationale, files) of each item one text states (cached: polls repeat texts).

    ``key`` is the text, or an entry's :func:`~ctx_tui.transcripts.model.text_key`
    (the cache then holds the entry's stored text, not a decoded copy).
    """
    text = key_text(key)
    if not _has_text(text):
        return ()
    if role == "user" and "Thinking" in text:
        text = _own_words(text)
    out: list[Statement] = []
    section, alternative, decision_list = "", False, False
    for line in _lines(_PLACEHOLDER.sub(" ", text)):
        if role == "assistant":
            if line.section != section:
                section = line.section
                alternative = bool(_ALTERNATIVE_SECTION.search(section)) and not _CHOSEN.search(section)
                decision_list = _DECISION_LIST.match(section) is not None
            chosen = _label_decision(line.text) if not alternative and (line.kind != "para" or ":" in line.text[:50]) else None
            if chosen is None and line.kind == "bullet" and decision_list:
                chosen = line.text
            if chosen:
                content, rationale = _decision(chosen)
                out.append((ItemType.DECISION, content, rationale, _files(chosen)))
                continue
            if line.kind == "heading":
                continue
        if not may_state(line.text, role):
            continue  # no sentence of this line can state an item
        for sentence in _split(line.text) if role == "assistant" else _user_clauses(line.text):
            if role == "user" and _INFO_QUESTION.match(sentence):
                continue  # a question without its mark ("not sure if we should fork or start fresh")
            kind = classify(sentence, role)
            if kind is None and role == "assistant" and _APPROACH.match(sentence):
                kind = ItemType.DECISION  # "I'll merge them", "I'll spawn three agents": how the work is organised
            if kind is None or (kind is ItemType.CONSTRAINT and role == "user" and _is_request(sentence)):
                continue  # a request to do something now is a task, not a standing rule
            if kind is ItemType.DECISION:
                content, rationale = _decision(sentence)
            else:
                content, rationale = _clean(sentence), ""
            out.append((kind, content, rationale, _files(sentence)))
    return tuple(out)


class Statements:
    """What each text states, kept by a digest of its speaker and text across processes.

    The statements of a text depend on nothing else, so a one-off job takes those an
    earlier job of the session found (``known``, from :mod:`~ctx_tui.memory.scan_cache`)
    instead of reading the text again; :attr:`found` holds those of every text this
    extraction read, for the next job.
    """

    __slots__ = ("known", "found", "_by_key")

    def __init__(self, known: Mapping[str, tuple[Statement, ...]] | None = None) -> None:
        self.known = known or {}
        self.found: dict[str, tuple[Statement, ...]] = {}
        self._by_key: dict[tuple[str, str | bytes], tuple[Statement, ...]] = {}  # each text digested once

    def __call__(self, role: str, key: str | bytes) -> tuple[Statement, ...]:
        """:func:`_statements` of ``role`` and ``key``."""
        found = self._by_key.get((role, key))
        if found is None:
            digest = statements_digest(role, key)
            found = self.known.get(digest)
            if found is None:
                found = _statements(role, key)
            self.found[digest] = self._by_key[(role, key)] = found
        return found


def statements_digest(role: str, key: str | bytes) -> str:
    """The digest :class:`Statements` keeps a text's statements by (the text's UTF-8, as stored)."""
    data = key if isinstance(key, bytes) else key.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16, person=role.encode()).hexdigest()


def _files(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_PATHS.findall(text)))


# -- the goal -----------------------------------------------------------------------


def _has_text(text: str) -> bool:
    """True when ``text`` says something beyond placeholders and punctuation."""
    return any(c.isalnum() for c in _PLACEHOLDER.sub(" ", text))


def _own_words(text: str) -> str:
    """A prompt's own words when it holds a pasted agent session (its reasoning lines, "Thinking: …"): what was typed
    below the paste, or else above it. The pasted agent's reasoning, tool calls and output are not the user's."""
    reasoning = [m.start() for m in re.compile(_PASTED_REASONING, re.M).finditer(text)]
    if len(reasoning) < 2:
        return text
    end = text.find("\n", reasoning[-1])  # the paste ends with the last reasoning line or the agent's lines after it
    for m in re.compile(_PASTED_AGENT_LINE, re.M).finditer(text, reasoning[-1]):
        end = m.end()
    after = text[end:] if end >= 0 else ""
    return after if _has_text(after) else text[: reasoning[0]]


def _request_text(text: str) -> str:
    """A prompt without its preamble: IDE context, slash command, file mentions, thinking keywords."""
    heading = None
    for heading in _REQUEST_HEADING.finditer(text):
        pass
    if heading is not None:
        text = text[heading.end() :]
    if "Thinking" in text:
        text = _own_words(text)
    text = _prose(_PLACEHOLDER.sub(" ", text)).strip()
    for _ in range(4):
        before = text
        text = _SLASH_COMMAND.sub("", text, count=1)
        text = _THINK_WORD.sub("", text, count=1)
        mention = _MENTION.match(text)
        if mention:
            rest = text[mention.end() :]
            # "@file review it" drops the mention; "@CLAUDE.md を更新" keeps what it names
            keep = rest[:1].isascii() and rest[:1].isalpha()
            text = rest if keep else mention.group(0).lstrip("@").strip().strip('"') + " " + rest
        text = _TRAILING_THINK.sub("", text).strip()
        if text == before:
            break
    return text


def _asks(sentence: str) -> bool:
    """True when ``sentence`` asks for work: an imperative, a want, a request (also put as a question)."""
    if _REQUEST_QUESTION.match(sentence):
        return True
    if _is_question(sentence) or not sentence[:1].isalpha() or _NOT_A_VERB.match(sentence) or _LINK_ONLY.match(sentence):
        return False
    return (is_imperative(sentence) and not _DECLARATIVE.match(sentence)) or _ASK.search(sentence) is not None or _WANT.match(sentence) is not None


def _is_question(sentence: str) -> bool:
    """True when ``sentence`` asks for information (a question mark, or the form of a question without one)."""
    return _REQUEST_QUESTION.match(sentence) is None and (sentence.endswith(("?", "？")) or _INFO_QUESTION.match(sentence) is not None)


def _goal_content(text: str, later: bool = False) -> tuple[str, frozenset[str]]:
    """The ask of a prompt and the sentences it used; empty when the prompt is no task.

    A prompt that only asks questions ("why does brew say it is up to date?") sets
    no task. ``later``: a prompt after the session's first task, which sets a new
    one only when a sentence asks for work and it is no reply ("yes, …", "2").
    """
    return _ask(_request_text(text), later)


@lru_cache(maxsize=1024)
def _ask(request: str, later: bool) -> tuple[str, frozenset[str]]:
    """:func:`_goal_content` of a prompt without its preamble (cached: a session repeats its prompts, and
    each later prompt is read for a new task)."""
    if later and (_ANSWER_OPENING.match(request) or len(_WORD.findall(request)) < _LATER_GOAL_MIN_WORDS):
        return "", frozenset()  # a reply, or too short to set a new task (checked first: most later prompts)
    parts = sentences(request)
    if not parts or sum(len(_WORD.findall(p)) for p in parts) < _GOAL_MIN_WORDS and len(parts[0]) < 12:
        return "", frozenset()
    if later:
        # the ask comes first, after questions at most ("what is faster, X or Y? I need the trade-offs")
        start = next((i for i, p in enumerate(parts) if not _is_question(p)), len(parts))
        if start == len(parts):
            return "", frozenset()
        first = parts[start]
        kind = classify(first, "user")
        if _INFO_REQUEST.match(first) or not _asks(first) or (kind is not None and not (kind is ItemType.CONSTRAINT and _is_request(first))):
            return "", frozenset()  # no new task first: a rule, a choice, a report about the current one
    else:
        asked = next((i for i, p in enumerate(parts) if _asks(p)), None)
        if asked is None and all(_is_question(p) for p in parts):
            return "", frozenset()
        start = asked or 0
    chosen = [parts[start]]
    for p in parts[start + 1 : start + _GOAL_SENTENCES]:
        kind = classify(p, "user")
        if kind is ItemType.CONSTRAINT and _ASK.search(p) and not opens_with_rule(p):
            if _BINDING.search(p):
                continue  # "each agent should search the web first": a rule of the task, an item of its own
        elif kind is not None:
            break  # a rule or a choice of its own, not more of the ask
        chosen.append(p)
    return _bounded(" ".join(chosen)), frozenset(chosen)


def goal_of(entries: Iterable[Entry]) -> Extraction | None:
    """The session goal: the ask of the first substantive user prompt."""
    for entry in entries:
        if _is_prompt(entry):
            content, _ = _goal_content(entry.text)
            if content:
                return _make(ItemType.GOAL, content, entry)
    return None


def _is_prompt(entry: Entry) -> bool:
    return entry.kind is _USER and not entry.is_sidechain and entry.in_context and _has_text(entry.text)


def _make(kind: ItemType, content: str, entry: Entry, rationale: str = "", files: tuple[str, ...] = ()) -> Extraction:
    item = TrackedItem(
        id=extracted_item_id(kind, content),
        type=kind,
        content=content,
        importance=importance_for(kind),
        entered_round=max(entry.round, 0),
        source="extracted",
    )
    return Extraction(item=item, seq=entry.seq, rationale=rationale, affects_files=files)


# -- plans -------------------------------------------------------------------------------

_DONE, _ACTIVE = frozenset({"completed", "done", "complete"}), frozenset({"in_progress", "in progress", "active"})


def _plan_progress(entry: Entry) -> str | None:
    """``in progress: X — next: Y; Z — done: A; B`` from a TodoWrite / update_plan call, or None.

    The steps' own words, no counts: a plan is then "mentioned" where its call
    stands (the references matcher weighs numbers as identifiers), and what is
    in progress comes first so a long plan's bound keeps it.
    """
    keys = PLAN_TOOLS.get(entry.tool_name or "")
    if keys is None:
        return None
    list_key, text_key = keys
    steps = (entry.tool_input or {}).get(list_key)
    if not isinstance(steps, list) or not steps:
        return None
    done: list[str] = []
    active: list[str] = []
    todo: list[str] = []
    for step in steps:
        if not isinstance(step, dict) or not isinstance(step.get(text_key), str):
            continue
        status = str(step.get("status", "")).lower()
        (done if status in _DONE else active if status in _ACTIVE else todo).append(" ".join(step[text_key].split()))
    parts = [f"{label}: {'; '.join(steps)}" for label, steps in (("in progress", active), ("next", todo), ("done", done)) if steps]
    return _bounded(" — ".join(parts)) if parts else None


#: Claude Code's AskUserQuestion result: the user's own choices, as ``"question"="answer"`` pairs.
_ANSWERS_HEAD = "User has answered your questions:"
#: Enum members as module constants: ``Kind.X`` is an enum attribute lookup (a descriptor call on Python 3.11),
#: and :meth:`_Extractor._entry` tests up to eight per entry (a Codex session of 100 MB has 125,000 entries).
_USER, _ASSISTANT, _TOOL_CALL, _TOOL_RESULT, _SYSTEM = Kind.USER, Kind.ASSISTANT, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.SYSTEM


def _opens_with(key: str | bytes, head: str) -> bool:
    """``key_text(key).startswith(head)`` without decoding the text (UTF-8 keeps a prefix a prefix)."""
    return key.startswith(head) if isinstance(key, str) else key.startswith(head.encode())


def _holds(key: str | bytes, marker: str) -> bool:
    """``marker in key_text(key)`` without decoding the text (an ASCII marker is the same bytes in UTF-8)."""
    return marker in key if isinstance(key, str) else marker.encode() in key


#: A question of the agent's that asks the user for a fact ("What is the server's IP?", "Do you have SSH access?"),
#: not for a choice ("Which tools should we set up?", "Do you want me to re-pair it?").
_FACT_QUESTION = (
    r"^(?:what(?:'s| is| are| was)|(?:is|are|was|were|does|did|has|have)\s|do (?:you|they|we) (?!want|prefer|need me)\w|"
    r"what (?:\w+ )?can you\b)|\bdo (?:you|they|we) (?:\w+ )?have\b"
)
_PROPOSED_PLAN_TAG = "<proposed_plan>"
_PROPOSED_PLAN = r"<proposed_plan>(.*?)(?:</proposed_plan>|$)"
#: Codex's ``request_user_input``: the user's picks (option labels) and notes (``user_note: …``) by question id.
_USER_INPUT_TOOL = "request_user_input"
_NOTE_HEAD = "user_note:"
_ANSWER = regex_cache.compile(r'"((?:[^"\\]|\\.){1,400}?)"="((?:[^"\\]|\\.){1,400}?)"')

# -- the incremental extractor ----------------------------------------------------------


def _terms(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.casefold()) if len(w) > 2 or not w.isascii())


class _Extractor:
    """Items of one entry list, read in order; ``feed`` takes only the entries after the last one read."""

    def __init__(self, statements: Statements | None = None) -> None:
        self.statements = statements or _statements
        self.read = 0
        self.items: dict[str, Extraction] = {}  # id -> latest form, in order of first appearance
        self.terms: dict[str, frozenset[str]] = {}
        self.asks: list[frozenset[str]] = []  # the terms of each task's ask, in order
        self.task_id = extracted_item_id(ItemType.GOAL, "task in hand")
        self.last_assistant = ""
        self.last_asked = False  # the agent's last message ends with a question to the user
        self.choice_asked = False  # … one that asks the user to choose or confirm a way
        self.question = ""  # … that question
        self.questions: dict[str, str] = {}  # request_user_input's questions by id
        self.progress_id = extracted_item_id(ItemType.PROGRESS, "plan")

    def feed(self, entries: Sequence[Entry]) -> None:
        for entry in entries[self.read :]:
            self._entry(entry)
        self.read = len(entries)

    def result(self) -> list[Extraction]:
        return list(self.items.values())

    def _entry(self, entry: Entry) -> None:
        if entry.is_sidechain or not entry.in_context:
            return
        kind = entry.kind
        if kind is _USER:
            self._user(entry)
        elif kind is _ASSISTANT:
            for statement in self.statements("assistant", text_key(entry)):
                self._add(_make(statement[0], statement[1], entry, statement[2], statement[3]))
            text = self.last_assistant = entry.text  # decoded once (see text_key)
            last = _split(_clean_line(text.rstrip().rpartition("\n")[2].strip()))[-1:]  # the closing sentence
            self.last_asked = bool(last) and last[0].endswith("?")
            self.choice_asked = self.last_asked and _CHOICE_ASKED.search(last[0]) is not None
            self.question = last[0] if self.choice_asked else ""
            if _PROPOSED_PLAN_TAG in text:  # Codex plan mode: the plan the user is asked to approve
                for plan in re.findall(_PROPOSED_PLAN, text, re.S):
                    self._plan(plan, entry)
        elif kind is _TOOL_CALL and entry.tool_name in PLAN_TOOLS:
            progress = _plan_progress(entry)
            if progress:
                self._replace(self.progress_id, ItemType.PROGRESS, progress, entry)
        elif kind is _TOOL_CALL and entry.tool_name == "ExitPlanMode":
            plan = (entry.tool_input or {}).get("plan")
            if isinstance(plan, str):
                self._plan(plan, entry)
        elif kind is _TOOL_CALL and entry.tool_name == _USER_INPUT_TOOL:
            questions = (entry.tool_input or {}).get("questions")
            if isinstance(questions, list):
                for q in questions:
                    if isinstance(q, dict) and isinstance(q.get("id"), str) and isinstance(q.get("question"), str):
                        self.questions[q["id"]] = q["question"]
        elif kind is _TOOL_RESULT and entry.tool_name == _USER_INPUT_TOOL:
            self._user_input(entry)
        elif kind is _TOOL_RESULT and _opens_with(text_key(entry), _ANSWERS_HEAD):
            for question, answer in _ANSWER.findall(entry.text[len(_ANSWERS_HEAD) :]):
                if not re.search(_FACT_QUESTION, question, re.I):  # "Is the router on?" = "Yes" is a fact, not a choice
                    self._add(_make(ItemType.DECISION, _clean(f"{answer} — {question}"), entry))
        elif kind is _SYSTEM and _holds(text_key(entry), "<user-memory-input>"):
            for note in _MEMORY_NOTE.findall(entry.text):
                note = _clean(note)
                if _has_text(note):
                    note_type = classify(note, "user") or ItemType.CONSTRAINT
                    self._add(_make(note_type, note, entry))

    def _plan(self, plan: str, entry: Entry) -> None:
        """The plan the user is asked to approve (``ExitPlanMode``, Codex's ``<proposed_plan>``): its decisions are the
        assistant's, and the reply to it is the user's way chosen."""
        self.choice_asked = True
        for statement in self.statements("assistant", plan):
            self._add(_make(statement[0], statement[1], entry, statement[2], statement[3]))
        for statement in self.statements("user", plan):
            if statement[0] is ItemType.CONSTRAINT:  # "Floating-point values must not enter …": a rule of the plan
                self._add(_make(statement[0], statement[1], entry, statement[2], statement[3]))

    def _user_input(self, entry: Entry) -> None:
        """The user's answers to Codex's ``request_user_input``: each option picked a decision (not the answer to a
        question of fact), each note the user's own words, read as a prompt's."""
        try:
            answers = json.loads(entry.text).get("answers")
        except (ValueError, AttributeError):
            return  # "request_user_input is unavailable in Default mode"
        if not isinstance(answers, dict):
            return
        for qid, answer in answers.items():
            picked = answer.get("answers") if isinstance(answer, dict) else None
            if not isinstance(picked, list):
                continue
            question = self.questions.get(qid, "")
            for text in picked:
                if not isinstance(text, str) or not _has_text(text):
                    continue
                if text.startswith(_NOTE_HEAD):
                    for statement in self.statements("user", text[len(_NOTE_HEAD) :].strip()):
                        self._add(_make(statement[0], statement[1], entry, statement[2], statement[3]))
                elif not re.search(_FACT_QUESTION, question, re.I):
                    self._add(_make(ItemType.DECISION, _clean(f"{text} — {question}" if question else text), entry))

    def _user(self, entry: Entry) -> None:
        text = entry.text
        if not _has_text(text):
            return
        used: frozenset[str] = frozenset()
        statements = self.statements("user", text_key(entry))
        request = _request_text(text)
        redirect = _REDIRECT.match(request)
        if redirect:
            content, used = _goal_content(_REDIRECT.sub("", request, count=1))
        elif not self.asks:
            content, used = _ask(request, False)
        else:
            content, used = _ask(request, True)
            if content and any(_overlap(_terms(min(used, key=content.find)), ask) >= _SAME_TASK for ask in self.asks):
                content, used = "", frozenset()  # more of the current task, not a new one
            elif content and self.choice_asked:
                # the agent asked which way to go ("Which approach?", "Ready to proceed?") or to approve its
                # plan: each line of the reply that asks is the way picked, a change to the plan
                for line in _lines(request):
                    first = _split(line.text)[:1]
                    if first and _asks(first[0]) and classify(first[0], "user") is None:
                        self._add(_make(ItemType.DECISION, _clean(first[0]), entry))
                content, used = "", frozenset()
        if not content and self.question and not statements and _is_pick(request):
            # "local", "the second one", "postgres for now" to "Which one?": the way picked
            self._add(_make(ItemType.DECISION, _clean(f"{request} — {self.question}"), entry))
        if content:
            later = bool(self.asks)
            self.asks.append(_terms(min(used, key=content.find)))
            if later:  # the task in hand: one item, its wording the latest task's, each new task a reference
                self._replace(self.task_id, ItemType.GOAL, content, entry, restated=True)
            else:  # the session's goal
                self._add(_make(ItemType.GOAL, content, entry))
        accepted = bool(self.last_assistant) and len(request) < 60 and re.match(_ACCEPT, request, re.I) is not None
        if accepted:
            advice = _recommendation(self.last_assistant)
            if advice:  # "yes" / "go ahead" to the agent's "I'd recommend X": X is decided
                self._add(_make(ItemType.DECISION, advice, entry))
        pick = _PICK.search(text) if self.last_assistant else None
        if pick:  # "7. C sounds best": the user picks one of the options the agent listed
            self._add(_make(ItemType.DECISION, _clean(pick.group(1)), entry))
        elif self.last_asked and not accepted and _YES.match(text) and len(_WORD.findall(text)) >= 3:
            first = sentences(text)[:1]  # "yes install ccusage" to "Want me to install ccusage?": the offer taken
            if first and classify(first[0], "user") is None:
                self._add(_make(ItemType.DECISION, _clean(first[0]), entry))
        approval = _APPROVAL.search(text)
        named = self._option(approval.group(1), approval.group(2)) if approval and self.last_assistant else None
        approved = approval.group(0).casefold() if named and approval else None
        if named:
            self._add(_make(ItemType.DECISION, named, entry))
        for kind, content, rationale, files in statements:
            if content in used or (approved and approved in content.casefold()):
                continue  # the goal's own sentences; the approval, stored as the option it names
            self._add(_make(kind, content, entry, rationale, files))

    def _option(self, noun: str, name: str) -> str | None:
        """The line of the assistant's last message that presents ``<noun> <name>``."""
        pattern = re.compile(rf"\b{re.escape(noun)}\s+#?{re.escape(name)}\b", re.I)
        for line in _lines(self.last_assistant):
            if pattern.search(line.text):
                return _clean(line.text)
        return None

    def _add(self, found: Extraction) -> None:
        item = found.item
        if item.id in self.items:
            return
        terms = _terms(item.content)
        for known_id, known in self.items.items():
            if known.item.type is item.type and _similar(terms, self.terms[known_id]):
                merged = replace(
                    known.item,
                    content=item.content,
                    referenced_rounds=sorted({*known.item.referenced_rounds, item.entered_round} - {known.item.entered_round}),
                )
                self.items[known_id] = replace(found, item=merged)
                self.terms[known_id] = terms
                return
        self.items[item.id] = found
        self.terms[item.id] = terms

    def _replace(self, item_id: str, kind: ItemType, content: str, entry: Entry, restated: bool = False) -> None:
        """Item ``item_id`` now says ``content``; ``restated``: its round counts as a reference (a new task)."""
        known = self.items.pop(item_id, None)
        first = known.item.entered_round if known else max(entry.round, 0)
        rounds = sorted({*known.item.referenced_rounds, max(entry.round, 0)} - {first}) if known and restated else []
        item = TrackedItem(
            id=item_id, type=kind, content=content, importance=importance_for(kind), entered_round=first,
            referenced_rounds=rounds, source="extracted",
        )
        self.items[item_id] = Extraction(item=item, seq=entry.seq)
        self.terms[item_id] = frozenset()


def _is_pick(request: str) -> bool:
    """A short reply that names a way (1-6 words, no question, no request for information, no yes/no alone)."""
    words = _WORD.findall(request)
    return (
        0 < len(words) <= 6 and "\n" not in request.strip() and not _is_question(request) and not _INFO_REQUEST.match(request)
        and re.match(_BARE_REPLY, request, re.I) is None and re.match(_ACCEPT, request, re.I) is None
    )


def _recommendation(text: str) -> str | None:
    """The agent's last recommendation in ``text`` ("I'd recommend X", "Option 2 (Recommended)"), or None."""
    found = None
    for line in _lines(text):
        if "ecommend" in line.text or "ugges" in line.text or "best" in line.text:
            for sentence in _split(line.text):
                if re.search(_RECOMMENDS, sentence, re.I) and not sentence.endswith("?") and len(_WORD.findall(sentence)) >= 4:
                    found = sentence
    return _clean(found) if found else None


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return False
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    shared = len(small & large)
    return shared / len(a | b) >= _NEAR_DUPLICATE or (len(small) >= 4 and shared == len(small) and len(small) / len(large) >= 0.6)


class _Cache:
    entries: Sequence[Entry] | None = None
    extractor: _Extractor | None = None


_CACHE = _Cache()


def extract_items(entries: Iterable[Entry], statements: Statements | None = None) -> list[Extraction]:
    """Goal, constraints, preferences, decisions, progress of a transcript, in order, near-duplicates merged.

    Called again with the same (grown) list, only the appended entries are read.
    ``statements``: what texts state, kept across processes (a one-off job's; the
    list is then read whole, so that it learns every text's).
    """
    if not isinstance(entries, list):
        entries = list(entries)
    cache = _CACHE
    extractor = cache.extractor
    if cache.entries is not entries or extractor is None or len(entries) < extractor.read or statements is not None:
        extractor = _Extractor(statements)
        cache.entries, cache.extractor = entries, extractor
    extractor.feed(entries)
    return extractor.result()


def decisions_of(entries: Iterable[Entry]) -> list[Decision]:
    """The decisions of a session, in order, each with its rationale and the files it names (for the handoff)."""
    return [
        Decision(x.item.content, x.rationale, x.affects_files, x.item.id, x.item.entered_round)
        for x in extract_items(entries)
        if x.item.type is ItemType.DECISION
    ]


__all__ = [
    "Decision",
    "Extraction",
    "Statements",
    "classify",
    "decisions_of",
    "extract_items",
    "goal_of",
    "normalise_content",
    "sentences",
]
