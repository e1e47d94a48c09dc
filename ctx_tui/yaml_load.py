"""YAML from files the user (or anyone) can edit, loaded with limits.

``yaml.safe_load`` runs no code, but it still trusts the *size* of what it
reads: a 700-byte alias bomb (``a: &a [x, x, ...]``, ``b: &b [*a, *a, ...]``,
nine levels deep) is a tree of 10^9 nodes once anything walks it (a pydantic
error message's ``repr`` took 50 s and 5.9 GB); nesting 3,000 levels deep
exhausts the recursion limit; ``2026-13-45`` is a date PyYAML cannot build and
a 5,000-digit integer one Python will not convert (both raise ``ValueError``,
not ``YAMLError``).

:func:`load_yaml` first walks the parser's *events* (iteratively: no
recursion, no object built) and refuses, with one line naming the file, the
line and the key:

* text longer than ``max_bytes``; a scalar longer than ``max_scalar``;
* nesting deeper than ``max_depth``; more than ``max_aliases`` aliases, or a
  document whose size with every alias expanded exceeds ``max_nodes``;
* a plain scalar that would resolve to an integer of more than ``max_digits``
  digits, or to a timestamp that is no date (``2026-13-45``).

Only then is the text loaded, with the safe loader (libyaml's when present);
anything it still raises becomes the same kind of one-line :class:`YamlLoadError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode

from ctx_tui.errors import CtxError

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_INT_TAG = "tag:yaml.org,2002:int"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


@dataclass(frozen=True, slots=True)
class YamlLimits:
    max_bytes: int = 8_000_000
    max_scalar: int = 4_000_000
    max_depth: int = 64
    max_aliases: int = 1_000
    #: Nodes of the document with every alias expanded (each scalar, sequence and mapping is one).
    max_nodes: int = 1_000_000
    max_digits: int = 100


DEFAULT_LIMITS = YamlLimits()


class YamlLoadError(CtxError):
    """One line: the file, where in it, which key, what is wrong."""


class _Walk:
    """The event pass: depth, aliases, expanded size, scalar checks, and the key path for messages."""

    def __init__(self, source: str, limits: YamlLimits) -> None:
        self.source = source
        self.limits = limits
        self.resolver = yaml.resolver.Resolver()
        self.constructor = SafeConstructor()
        self.aliases = 0
        self.anchors: dict[str, int] = {}  # anchor -> expanded size of its node
        # one frame per open collection: [is_mapping, expecting_key, key, size, anchor]
        self.stack: list[list[Any]] = []
        self.total = 0

    def fail(self, event: Any, problem: str) -> YamlLoadError:
        mark = getattr(event, "start_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "?"
        keys = ".".join(str(frame[2]) for frame in self.stack if frame[0] and frame[2] is not None)
        if len(keys) > 60:
            keys = "…" + keys[-59:]  # the innermost keys say where
        key = f", key '{_short(keys)}'" if keys else ""
        return YamlLoadError(f"{self.source}: {where}{key}: {problem}")

    def _node_done(self, size: int, anchor: str | None, event: Any, key_text: str | None = None) -> None:
        if anchor is not None:
            self.anchors[anchor] = size
        if not self.stack:
            self.total += size
            grown = self.total
        else:
            frame = self.stack[-1]
            frame[3] += size
            grown = frame[3]
            if frame[0]:
                if frame[1]:
                    frame[2] = key_text if key_text is not None else "?"
                frame[1] = not frame[1]
        if grown > self.limits.max_nodes:
            raise self.fail(event, f"more than {self.limits.max_nodes:,} values once its aliases are expanded (an alias bomb?)")

    def scalar(self, event: Any) -> None:
        value = event.value
        if len(value) > self.limits.max_scalar:
            raise self.fail(event, f"a value of {len(value):,} characters (at most {self.limits.max_scalar:,})")
        if event.tag not in (None, "!"):
            tag = event.tag
        elif event.implicit[0]:
            tag = self.resolver.resolve(ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]  # untyped in types-PyYAML
        else:
            tag = None
        if tag == _INT_TAG:
            digits = sum(c.isalnum() for c in value)
            if digits > self.limits.max_digits:
                raise self.fail(event, f"an integer of {digits:,} digits (at most {self.limits.max_digits})")
        elif tag == _TIMESTAMP_TAG:
            try:
                self.constructor.construct_yaml_timestamp(ScalarNode(tag, value))
            except (ValueError, TypeError, OverflowError, AttributeError):  # AttributeError: not even date-shaped
                raise self.fail(event, f"'{_short(value)}' is not a valid date") from None
        self._node_done(1, event.anchor, event, value)

    def alias(self, event: Any) -> None:
        self.aliases += 1
        if self.aliases > self.limits.max_aliases:
            raise self.fail(event, f"more than {self.limits.max_aliases:,} aliases")
        self._node_done(self.anchors.get(event.anchor, 1), None, event, f"*{event.anchor}")

    def start(self, event: Any, mapping: bool) -> None:
        if len(self.stack) >= self.limits.max_depth:
            raise self.fail(event, f"nested more than {self.limits.max_depth} levels deep")
        self.stack.append([mapping, True, None, 1, event.anchor])

    def end(self, event: Any) -> None:
        frame = self.stack.pop()
        self._node_done(frame[3], frame[4], event)


def _short(text: str, limit: int = 60) -> str:
    shown = text if text.isprintable() else text.encode("unicode_escape").decode("ascii")
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def check_yaml(text: str, source: str, limits: YamlLimits = DEFAULT_LIMITS) -> None:
    """Raise :class:`YamlLoadError` when ``text`` breaks one of ``limits`` (see the module doc)."""
    if len(text) > limits.max_bytes:
        raise YamlLoadError(f"{source}: {len(text):,} characters of YAML (at most {limits.max_bytes:,})")
    walk = _Walk(source, limits)
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            kind = type(event)
            if kind is yaml.ScalarEvent:
                walk.scalar(event)
            elif kind is yaml.MappingStartEvent:
                walk.start(event, True)
            elif kind is yaml.SequenceStartEvent:
                walk.start(event, False)
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                walk.end(event)
            elif kind is yaml.AliasEvent:
                walk.alias(event)
            elif kind is yaml.DocumentEndEvent:
                walk.anchors.clear()
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, source) from None


def _syntax_error(exc: yaml.YAMLError, source: str) -> YamlLoadError:
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return YamlLoadError(f"{source}: invalid YAML{where}: {_short(str(problem), 120)}")


def load_yaml(text: str, source: str, limits: YamlLimits = DEFAULT_LIMITS) -> Any:
    """The YAML document in ``text`` (safe loader), checked against ``limits`` first.

    Every failure is a :class:`YamlLoadError` whose message is one line
    starting with ``source``.
    """
    check_yaml(text, source, limits)
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, source) from None
    except (ValueError, TypeError, OverflowError, RecursionError, AttributeError, KeyError, IndexError) as exc:
        raise YamlLoadError(f"{source}: cannot be loaded: {_short(str(exc) or type(exc).__name__, 120)}") from None
