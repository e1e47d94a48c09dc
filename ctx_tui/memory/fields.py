"""The field checks of the session memory's models (:mod:`ctx_tui.memory.items`, :mod:`ctx_tui.memory.session_store`).

The models are plain dataclasses: each checks and normalises its fields in
``__post_init__``, so an object built in code and one read from a file pass
the same checks. A failed check raises :class:`InvalidField`, which names the
key path (``items.3.type``) as pydantic did, with its messages, so the error
a broken session memory file gives reads as before.

What a file may hold, decided field by field (tests/test_memory_fields.py):

* text: a ``str`` (a ``str`` subclass, such as a ``StrEnum`` member, becomes a
  plain ``str``); ``!!binary`` bytes and numbers are refused;
* a whole number: an ``int``, or a float or text that is exactly one
  (``3.0``, ``"3"``, ``" 3 "``, ``"1_000"``, as pydantic read them);
  booleans are refused (pydantic took ``yes`` as 1);
* a flag: a boolean, or 0/1 (1.0...) and pydantic's words for one (``"true"``, ``"no"``...);
* a kind (``type``, ``importance``, ``status``, ``source``): its exact value;
* a list: a list or tuple (a YAML ``!!set`` is refused); a mapping: a dict.

Only ``re`` and ``math`` are imported: the dashboard, the pre-compact job and the CLI load a
session memory on every start, and pydantic with its models cost them ~0.1 s.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any, TypeVar

E = TypeVar("E", bound=Enum)
T = TypeVar("T")


class InvalidField(ValueError):
    """A field that fails its check: ``loc`` is its key path, ``msg`` what is wrong."""

    def __init__(self, loc: tuple[str | int, ...], msg: str) -> None:
        super().__init__(f"{'.'.join(map(str, loc))}: {msg}")
        self.loc = loc
        self.msg = msg

    @property
    def key(self) -> str:
        """The key path, ``items.3.type``; ``(top level)`` for the whole document."""
        return ".".join(map(str, self.loc)) or "(top level)"

    def within(self, *outer: str | int) -> InvalidField:
        """The same error, its path prefixed with ``outer`` (the list or model that holds the field)."""
        return InvalidField((*outer, *self.loc), self.msg)


def from_mapping(kind: Callable[..., T], data: object, known: frozenset[str], required: tuple[str, ...]) -> T:
    """``kind`` built from the mapping ``data``: every ``required`` key, no key but the ``known`` (pydantic's ``extra="forbid"``).

    With an unknown key, an error in a known field is reported first, as pydantic did.
    """
    if type(data) is not dict:
        raise InvalidField((), f"Input should be a valid dictionary or instance of {getattr(kind, '__name__', kind)}")
    for key in required:
        if key not in data:
            raise InvalidField((key,), "Field required")
    if known.issuperset(data):
        return kind(**data)
    kind(**{key: value for key, value in data.items() if key in known})
    extra = next(key for key in data if key not in known)
    raise InvalidField((extra,), "Extra inputs are not permitted")


def text(value: object, key: str) -> str:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    raise InvalidField((key,), "Input should be a valid string")


def nonempty_text(value: object, key: str) -> str:
    value = text(value, key)
    if not value:
        raise InvalidField((key,), "String should have at least 1 character")
    return value


def optional_text(value: object, key: str) -> str | None:
    return None if value is None else text(value, key)


#: A whole number as text, as pydantic read one: ``" 3 "``, ``"+3"``, ``"1_000"``, ``"3.0"``.
_WHOLE = re.compile(r"\s*([+-]?[0-9]+(?:_[0-9]+)*)(?:\.0*)?\s*")
#: Longest whole number read from text (sign and '_' included); a round number needs a handful.
_MAX_DIGITS = 4_000


def whole(value: object, key: str | int) -> int:
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    if type(value) is str and (match := _WHOLE.fullmatch(value)):
        if len(match[1]) > _MAX_DIGITS:  # int() refuses over 4,300 digits (ValueError, not a bad field)
            raise InvalidField((key,), "Unable to parse input string as an integer, exceeded maximum size")
        return int(match[1])
    if type(value) is float:
        if not math.isfinite(value):
            raise InvalidField((key,), "Input should be a finite number")
        raise InvalidField((key,), "Input should be a valid integer, got a number with a fractional part")
    if type(value) is str:
        raise InvalidField((key,), "Input should be a valid integer, unable to parse string as an integer")
    raise InvalidField((key,), "Input should be a valid integer")


def optional_whole(value: object, key: str) -> int | None:
    return None if value is None else whole(value, key)


_FLAGS = {
    **dict.fromkeys(("1", "on", "t", "true", "y", "yes"), True),
    **dict.fromkeys(("0", "off", "f", "false", "n", "no"), False),
}


def flag(value: object, key: str) -> bool:
    if type(value) is bool:
        return value
    if (type(value) is int or type(value) is float) and value in (0, 1):
        return bool(value)
    if type(value) is str and value.strip().lower() in _FLAGS:
        return _FLAGS[value.strip().lower()]
    if isinstance(value, (str, int)) or (type(value) is float and value.is_integer()):
        raise InvalidField((key,), "Input should be a valid boolean, unable to interpret input")
    raise InvalidField((key,), "Input should be a valid boolean")


def member(kind: type[E], value: object, key: str) -> E:
    """The member of ``kind`` that ``value`` is, or whose value it is (exactly: ``"Goal"`` is no ``goal``)."""
    if value.__class__ is kind:
        return value
    found = kind._value2member_map_.get(value) if isinstance(value, str) else None
    if found is None:
        raise InvalidField((key,), f"Input should be {_choices(str(m.value) for m in kind)}")
    return found  # type: ignore[return-value]  # _value2member_map_ is typed with Enum, not E


def one_of(choices: tuple[str, ...], value: object, key: str) -> str:
    """``value`` when it is one of ``choices`` (a ``Literal`` of strings), as a plain str."""
    if type(value) is str and value in choices:
        return value
    if isinstance(value, str) and value in choices:
        return str.__str__(value)
    raise InvalidField((key,), f"Input should be {_choices(choices)}")


def _choices(values: Iterable[str]) -> str:
    quoted = [f"'{v}'" for v in values]
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}" if len(quoted) > 1 else quoted[0]


def sequence(value: object, key: str) -> list[Any] | tuple[Any, ...]:
    if type(value) is list or type(value) is tuple:
        return value
    raise InvalidField((key,), "Input should be a valid list")


def texts(value: object, key: str) -> list[str]:
    """A new list of the strings in ``value``."""
    items = sequence(value, key)
    if all(type(v) is str for v in items):
        return list(items)
    return [_at(text, v, index, key) for index, v in enumerate(items)]


def mapping(value: object, key: str) -> Mapping[Any, Any]:
    if type(value) is dict:
        return value
    raise InvalidField((key,), "Input should be a valid dictionary")


def text_map(value: object, key: str, check: Callable[[object, str], T]) -> dict[str, T]:
    """A new dict of ``value``'s string keys, each value passed through ``check``."""
    result: dict[str, T] = {}
    for k, v in mapping(value, key).items():
        if type(k) is not str:
            raise InvalidField((key, k, "[key]"), "Input should be a valid string")
        try:
            result[k] = check(v, k)
        except InvalidField as exc:
            raise exc.within(key) from None
    return result


def _at(check: Callable[[object, str], T], value: object, index: int, key: str) -> T:
    try:
        return check(value, str(index))
    except InvalidField as exc:
        raise InvalidField((key, index, *exc.loc[1:]), exc.msg) from None


def models(value: object, key: str, kind: type[T], build: Callable[[object], T]) -> list[T]:
    """A new list of ``kind`` objects: those in ``value`` as they are, a dict built by ``build`` (its errors under ``key.index``)."""
    result: list[T] = []
    for index, item in enumerate(sequence(value, key)):
        if item.__class__ is kind:
            result.append(item)
            continue
        try:
            result.append(build(item))
        except InvalidField as exc:
            raise exc.within(key, index) from None
    return result
