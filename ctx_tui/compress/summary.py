"""The ``summary`` strategy: a typed digest, most important and most recent first.

Each piece of the input becomes one bullet of a section:

* **Tracked items** — the items passed in, whole;
* **Decisions, constraints, preferences** — sentences that state one, whole;
* **Errors** — type and message, plus the resolution when a later assistant
  message gives one (a sentence with "fix", "because", "instead", ...);
* **Code** — file, symbols defined and the change (an edit's +/- lines); a
  small code or JSON block is kept whole (it stays a closed, parseable block);
* **Tool runs** — the command and its outcome (the last line that reports
  passed/failed/done/error/N items, else the last line);
* **Conversation** — single sentences, scored by the facts they carry, the
  first sentence of each user message and recency.

The first three are chosen first (by priority, then recency); the rest by how
many not-yet-covered key facts they add per token (``select``). Budget still left is spent on whole code blocks and tool outputs (up to
``WHOLE_BLOCK_TOKENS``) in place of their bullets, most recent first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ctx_tui import regex_cache
from ctx_tui.compress.blocks import Block, sentences, split_blocks
from ctx_tui.compress.facts import DECISION_RE, Fact, ItemLike, extract_facts, carried_facts, stated_type
from ctx_tui.compress.select import JOIN_TOKENS, Candidate, TokenEstimate, select
from ctx_tui.transcripts.render import fence, parse_sections

SECTIONS = (
    ("tracked", "Tracked items"),
    ("decisions", "Decisions, constraints, preferences"),
    ("errors", "Errors"),
    ("code", "Code"),
    ("tools", "Tool runs"),
    ("conversation", "Conversation"),
)
#: A code block up to this many tokens is kept whole instead of described.
SMALL_CODE_TOKENS = 48
SMALL_JSON_TOKENS = 64
#: A code block or tool output up to this many tokens may replace its bullet when budget is left.
WHOLE_BLOCK_TOKENS = 600
#: Base score of such a whole block: after every bullet (it only fills what is left).
WHOLE_BASE = 0.2
OUTCOME_CHARS = 160

_ERROR_LINE_RE = regex_cache.compile(r"\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Fault))\b[:\s]?(.*)")
_TRACEBACK_RE = regex_cache.compile(r"^Traceback \(most recent call last\)|^\w*(?:Error|Exception): ", re.M)
_FIX_RE = regex_cache.compile(r"\b(?:fix|fixed|fixes|resolv\w*|because|caused by|the issue|the problem|instead|solution|now passes?)\b", re.I)
_OUTCOME_RE = regex_cache.compile(
    r"\b(?:pass(?:ed|es)?|fail(?:ed|ures?|s)?|errors?|ok|success(?:ful)?|done|warnings?|skipped|created|"
    r"updated|deleted|\d+ (?:tests?|files?|lines?|items?|matches|changed))\b",
    re.I,
)
_SYMBOL_RE = regex_cache.compile(
    r"^\s*(?:async\s+)?def\s+(\w+)|^\s*class\s+(\w+)|\bfunction\s+(\w+)|^\s*(?:export\s+)?(?:const|let|var)\s+(\w+)\s*=|"
    r"\bfn\s+(\w+)|\bfunc\s+(\w+)|\binterface\s+(\w+)|^\s*(?:export\s+)?type\s+(\w+)\s*=",
    re.M,
)


@dataclass(slots=True)
class _Piece:
    """One typed piece of the input before it becomes a candidate."""

    role: str  # "user", "assistant", ... or "" for plain text
    block: Block
    tool: str = ""
    error: bool = False


def symbols(code: str, limit: int = 8) -> list[str]:
    """Names a piece of code defines (def, class, function, const, fn, func, interface, type)."""
    found: list[str] = []
    for m in _SYMBOL_RE.finditer(code):
        name = next(g for g in m.groups() if g)
        if name not in found:
            found.append(name)
        if len(found) >= limit:
            break
    return found


def error_line(text: str) -> str:
    """The ``Type: message`` line of an error output (the last such line), else its first line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("```")]
    for line in reversed(lines):
        if _ERROR_LINE_RE.search(line):
            return line[:200]
    return lines[0][:200] if lines else "error"


def outcome(text: str) -> str:
    """The line of a tool's output that says how it went."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith(("```", "~~~"))]
    if not lines or lines == ["(no output)"]:
        return "no output"
    for line in reversed(lines):
        if _OUTCOME_RE.search(line):
            return line[:OUTCOME_CHARS]
    return lines[-1][:OUTCOME_CHARS]


def _pieces(text: str) -> list[_Piece]:
    """Rendered window text: one piece per tool section, one per block of a message; plain text: its blocks."""
    sections = parse_sections(text)
    if sections is None:
        return [_Piece("", b) for b in split_blocks(text)]
    pieces: list[_Piece] = []
    for sec in sections:
        if sec.kind in ("tool call", "tool result"):
            pieces.append(_Piece(sec.kind, Block("para", sec.body), sec.tool, sec.error))
        else:
            pieces.extend(_Piece(sec.kind, block) for block in split_blocks(sec.body))
    return pieces


class _Builder:
    def __init__(self, facts: Sequence[Fact], tok: TokenEstimate) -> None:
        self.index = {(f.kind, f.value): i for i, f in enumerate(facts)}
        self.tok = tok
        self.candidates: list[Candidate] = []
        self._seen: set[str] = set()
        #: id of a whole-block candidate -> the bullet it replaces when chosen
        self.upgrades: dict[int, Candidate] = {}

    def fact_ids(self, text: str) -> frozenset[int]:
        """The input's facts ``text`` carries in context (none for a bullet that only lists names)."""
        return frozenset(
            i for f in carried_facts(text) if (i := self.index.get((f.kind, f.value))) is not None
        )

    def add(
        self, order: int, text: str, base: float, section: str, must: bool = False, carries: str | None = None
    ) -> Candidate | None:
        """Add a bullet unless the same text is already one (a repeated line is said once)."""
        key = " ".join(text.split()).casefold()
        if key in self._seen:
            return None
        self._seen.add(key)
        cand = Candidate(order, text, base, self.tok(text) + JOIN_TOKENS,
                         self.fact_ids(carries if carries is not None else text), section, must)
        self.candidates.append(cand)
        return cand

    def upgrade(self, short: Candidate | None, order: int, text: str, base: float) -> None:
        """Offer ``text`` (a whole block) in place of the bullet ``short``, for budget left over."""
        if short is None or self.tok(text) > WHOLE_BLOCK_TOKENS:
            return
        whole = self.add(order, text, base, short.section)
        if whole is not None:
            self.upgrades[id(whole)] = short


def _resolution(pieces: list[_Piece], start: int) -> str:
    seen_assistant = 0
    for piece in pieces[start + 1 : start + 40]:
        if piece.role != "assistant" or piece.block.kind == "code":
            continue
        seen_assistant += 1
        for sentence in sentences(piece.block.text):
            if _FIX_RE.search(sentence):
                return sentence[:240]
        if seen_assistant >= 3:
            break
    return "none seen yet"


def _code_bullet(block: Block, hint: str) -> str:
    body = block.body
    n = body.count("\n") + 1 if body else 0
    names = symbols(body)
    lang = f"{block.lang} " if block.lang else ""
    where = f" in {hint}" if hint else ""
    what = f": defines {', '.join(names)}" if names else ""
    return f"- {lang}code{where} ({n} lines){what}"


def _json_bullet(block: Block) -> str:
    value = json.loads(block.text)
    if isinstance(value, dict):
        keys = list(value)[:10]
        return f"- JSON object with keys {', '.join(map(str, keys))}" + (" …" if len(value) > 10 else "")
    return f"- JSON array of {len(value)} items"


_LIST_MARK_RE = regex_cache.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_PATCH_FILE_RE = regex_cache.compile(r"^\*\*\* (Update|Add|Delete) File: (.+)$", re.M)


def _describe_call(build: "_Builder", order: int, piece: _Piece, recency: float) -> None:
    """A bullet for a tool call that is not a shell command (a command is described with its result)."""
    body = piece.block.text
    first = body.split("\n", 1)[0]
    if first.startswith("$ "):
        return
    blocks = split_blocks(body)
    if first.startswith(("edit ", "write ")):
        new = next((b for b in blocks if b.kind == "code" and b.lang != "old"), None)
        old = next((b for b in blocks if b.kind == "code" and b.lang == "old"), None)
        new_body = new.body if new else ""
        names = symbols(new_body)
        added = new_body.count("\n") + 1 if new_body else 0
        change = f"+{added}/-{old.body.count(chr(10)) + 1} lines" if old else f"{added} lines"
        defines = f"; defines {', '.join(names)}" if names else ""
        build.add(order, f"- {first} ({change}{defines})", 0.8 + 0.2 * recency, "code",
                  carries=f"{first} {' '.join(names)}")
        return
    patched = _PATCH_FILE_RE.findall(body)
    if patched:
        files = ", ".join(f"{verb.lower()} {path.strip()}" for verb, path in patched)
        build.add(order, f"- {piece.tool or 'patch'}: {files}", 0.8 + 0.2 * recency, "code",
                  carries=" ".join(path for _, path in patched))
        return
    build.add(order, f"- {piece.tool}: {first[:OUTCOME_CHARS]}", 0.5 + 0.2 * recency, "tools")


def plan_summary(
    text: str, facts: Sequence[Fact], items: Sequence[ItemLike], tok: TokenEstimate, preserve: frozenset[str]
) -> Callable[[int], str]:
    """Build the candidates once; the returned function renders the summary for a token budget.

    Tracked items and stated decisions / constraints / preferences whose type
    is in ``preserve`` are kept whole before anything else; the others compete
    on their (high) priority.
    """
    pieces = _pieces(text)
    build = _Builder(facts, tok)
    total = max(len(pieces), 1)
    for n, item in enumerate(items):
        kind = getattr(item.type, "value", item.type)
        build.add(-len(items) + n, f"- [{kind}] {item.content}", 3.0, "tracked", must=kind in preserve)
    item_texts = {" ".join(i.content.lower().split()) for i in items}

    pending_calls: list[tuple[int, str]] = []
    for order, piece in enumerate(pieces):
        recency = order / total
        block = piece.block
        if piece.role == "tool call":
            pending_calls.append((order, piece.tool))
            _describe_call(build, order, piece, recency)
            continue
        if piece.role == "tool result":
            # its call: the oldest open call of the same tool (results can come in a batch)
            match = next((k for k, (_, tool) in enumerate(pending_calls) if tool == piece.tool), 0)
            call_order = pending_calls.pop(match)[0] if pending_calls else order
            call_text = pieces[call_order].block.text if call_order != order else ""
            command = call_text.split("\n", 1)[0][2:] if call_text.startswith("$ ") else ""
            inner = split_blocks(block.text)
            body = inner[0].body if len(inner) == 1 and inner[0].kind == "code" else block.text
            label = f"`{command}`" if command else (piece.tool or "tool")
            if piece.error or _TRACEBACK_RE.search(body):
                line = error_line(body)
                build.add(order, f"- {line} (from {label}); resolution: {_resolution(pieces, order)}",
                          2.0 + 0.2 * recency, "errors", must=True, carries=f"{line} {command}")
                if command:
                    build.add(order, f"- {label} → failed", 0.6 + 0.2 * recency, "tools", carries=f"$ {command}")
            elif command:
                short = build.add(order, f"- {label} → {outcome(body)}", 0.6 + 0.2 * recency, "tools",
                                  carries=f"$ {command}\n{outcome(body)}")
                if body.strip():
                    build.upgrade(short, order, f"- {label} →\n\n{fence(body)}", WHOLE_BASE + 0.2 * recency)
            continue
        if block.kind == "code":
            body = block.body
            small = tok(block.text) <= SMALL_CODE_TOKENS
            if small:
                build.add(order, block.rendered(), 0.7 + 0.2 * recency, "code")
            else:
                hint = next((f.value for f in extract_facts(body[:400]) if f.kind == "path"), "")
                short = build.add(order, _code_bullet(block, hint), 0.7 + 0.2 * recency, "code")
                build.upgrade(short, order, block.rendered(), WHOLE_BASE + 0.2 * recency)
            if block.lang.lower() in ("bash", "sh", "shell", "console", "zsh") and not small:
                for line in body.splitlines():
                    if line.strip() and not line.strip().startswith("#"):
                        build.add(order, f"- `{line.strip().removeprefix('$ ')}`", 0.5 + 0.2 * recency, "tools")
            continue
        if block.kind == "json":
            if tok(block.text) <= SMALL_JSON_TOKENS:
                build.add(order, block.text, 0.7 + 0.2 * recency, "code")
            else:
                build.add(order, _json_bullet(block), 0.6 + 0.2 * recency, "code", carries="")
            continue
        if _TRACEBACK_RE.search(block.text):
            line = error_line(block.text)
            build.add(order, f"- {line}; resolution: {_resolution(pieces, order)}", 2.0 + 0.2 * recency,
                      "errors", must=True, carries=line)
            continue
        prefix = f"{piece.role}: " if piece.role else ""
        for k, sentence in enumerate(sentences(block.text) if block.kind != "heading" else [block.text]):
            clean = _LIST_MARK_RE.sub("", sentence).strip()
            if not clean or " ".join(clean.lower().split()) in item_texts:
                continue
            # an assistant's "always"/"never" is mostly prose; its decisions count
            stated = stated_type(clean)
            rule = stated and (piece.role != "assistant" or DECISION_RE.search(clean))
            if block.kind != "heading" and rule:
                build.add(order, f"- {prefix}{clean}", 2.5 + 0.2 * recency, "decisions", must=stated in preserve)
                continue
            first_of_request = piece.role == "user" and k == 0
            build.add(order, f"- {prefix}{clean}", 0.5 + 0.2 * recency + (0.5 if first_of_request else 0.0),
                      "conversation")

    return lambda budget: _render(build.candidates, build.upgrades, budget, tok)


def _join_bullets(texts: Iterable[str]) -> str:
    """Bullets one per line; a whole code or JSON block stands apart (blank lines), so it stays a block."""
    out = ""
    for text in texts:
        if not out:
            out = text
        elif text.startswith("- ") and not out.endswith(("```", "~~~", "}", "]")):
            out += "\n" + text
        else:
            out += "\n\n" + text
    return out


def _render(candidates: list[Candidate], upgrades: dict[int, Candidate], budget: int, tok: TokenEstimate) -> str:
    titles = dict(SECTIONS)
    overhead = sum(tok(f"{t}:") + 2 for t in titles.values())
    chosen, _ = select(candidates, max(0, budget - overhead), fill=False)
    used = sum(c.tokens for c in chosen) + overhead
    chosen_ids = {id(c) for c in chosen}
    extra, _ = select([c for c in candidates if id(c) not in chosen_ids], max(0, budget - used), fill=True)
    chosen += extra
    replaced = {id(upgrades[id(c)]) for c in chosen if id(c) in upgrades}
    chosen = [c for c in chosen if id(c) not in replaced]

    out: list[str] = []
    for key, title in SECTIONS:
        part = sorted((c for c in chosen if c.section == key), key=lambda c: c.order)
        if part:
            out.append(f"{title}:\n" + _join_bullets(c.text for c in part))
    return "\n\n".join(out)
