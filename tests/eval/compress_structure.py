"""An independent check that compression leaves JSON and code whole (SPEC §5: structural integrity ≥ 95%).

Written apart from ``ctx_tui/compress/blocks.py`` (its own fence scanner and
rules), so the strategies are not checked by the splitter they use.

* A *structured* block of the input is a fenced block whose body parses as
  JSON (an object or array), or as Python holding a ``def``, ``class`` or
  ``import``; a *JSON line* is a line outside fences that parses as a JSON
  object or array on its own.
* In the output, each fenced block that is such a block, whole or in part
  (it shares at least two lines of 4+ characters, and half such lines, with one), is a
  unit; so is each line outside fences that begins like an input JSON line.
  A unit is *intact* when its fence is closed and its body is the whole body
  of an input block (a JSON line: the whole line). A fenced block of any
  kind left unclosed is a broken unit too.

``Structure.rate`` = intact units / units (1.0 when the output has none).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

_OPEN = re.compile(r"^(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True, slots=True)
class _Block:
    body: str
    closed: bool


@dataclass
class Structure:
    units: int = 0
    intact: int = 0

    @property
    def rate(self) -> float:
        return self.intact / self.units if self.units else 1.0


def _scan(text: str) -> tuple[list[_Block], list[str]]:
    """Fenced blocks of ``text`` (a closing fence: same character, at least as long) and the lines outside them."""
    blocks: list[_Block] = []
    outside: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m or (m.group(1)[0] == "`" and "`" in m.group(2)):
            outside.append(lines[i])
            i += 1
            continue
        marker = m.group(1)
        close = re.compile(rf"^{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), None)
        stop = len(lines) if end is None else end
        blocks.append(_Block("\n".join(lines[i + 1 : stop]), end is not None))
        i = stop + 1
    return blocks, outside


def _json(text: str) -> bool:
    try:
        return isinstance(json.loads(text), (dict, list))
    except ValueError:
        return False


def _python(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom))
               for n in tree.body)


def _structured(body: str) -> bool:
    return bool(body.strip()) and (_json(body) or _python(body))


def _lines(body: str) -> set[str]:
    """The lines of ``body`` that can tell blocks apart (a lone ``}`` cannot)."""
    return {ln.strip() for ln in body.split("\n") if len(ln.strip()) >= 4}


def check(window: str, output: str) -> Structure:
    """How many of ``output``'s JSON and code units are whole."""
    in_blocks, in_outside = _scan(window)
    structured = [b.body for b in in_blocks if _structured(b.body)]
    whole = set(structured)
    line_sets = [_lines(body) for body in structured]
    json_lines = {ln.strip() for ln in in_outside if ln.lstrip()[:1] in "{[" and _json(ln)}
    json_heads = {ln[:40] for ln in json_lines}
    result = Structure()
    out_blocks, out_outside = _scan(output)
    for block in out_blocks:
        lines = _lines(block.body)
        from_structured = block.body in whole or any(
            len(lines & s) >= min(2, len(lines)) and len(lines & s) * 2 >= len(lines) for s in line_sets if lines
        )
        if from_structured or not block.closed:
            result.units += 1
            result.intact += block.closed and block.body in whole
    for line in out_outside:
        line = line.strip()
        if line[:1] in "{[" and line[:40] in json_heads:
            result.units += 1
            result.intact += line in json_lines
    return result
