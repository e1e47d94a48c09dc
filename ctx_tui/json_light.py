"""The standard json module's answers from its C scanner and encoder, without ``import json``.

Claude Code waits for a hook on every prompt, and ``import json`` imports
``re`` (json.decoder and json.scanner compile patterns at import; ``re``
imports ``enum``): ~30M instructions, almost a whole bare Python start again
(docs/performance.md, the hooks section). The parsing and the writing
themselves are the C module ``_json`` that json calls (~0.5M to import). This
module calls it the way ``json.loads`` and ``json.dumps`` do, for the cases
the hooks and the status line meet: the hook's stdin, the restatement queue,
the notes record and the audit line; the status line's stdin (text), its
cache file and the transcript lines of its tail (UTF-8 JSON text; objects of
str, int, float, list, dict, None).
Anything else, and every error, goes to the json module itself, so the result
or the exception is json's own (tests/test_json_light.py compares them).
"""

from __future__ import annotations

import _json

TYPE_CHECKING = False  # typing is not imported at run time

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"  # what json.decoder.WHITESPACE matches between values


class _Decoder:
    """What ``_json.make_scanner`` reads from ``json.JSONDecoder()`` (the settings ``json.loads`` uses)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scan_once = _json.make_scanner(_Decoder())  # type: ignore[arg-type]  # typeshed: any object with these attributes


def loads(data: bytes | str) -> Any:
    """``json.loads(data)``: the same value, or the same exception."""
    # json.detect_encoding says UTF-8 for bytes that open with "{" and a non-NUL byte
    if data[:1] == "{" or (data[:1] == b"{" and data[1:2] != b"\x00"):
        try:
            text = data if isinstance(data, str) else data.decode("utf-8", "surrogatepass")
            value, end = _scan_once(text, 0)
            if not text[end:].strip(_WHITESPACE):
                return value
        except Exception:  # noqa: S110  (json.loads below raises json's own error)
            pass
    import json

    return json.loads(data)


def _refuse(value: object) -> Any:
    raise TypeError  # json.dumps is asked again below: its own error, with its own text


def dumps(value: Any, *, ensure_ascii: bool = True, default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(value, ensure_ascii=..., default=..., separators=(",", ":"))``: the same text or exception."""
    encode = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    try:
        # json.JSONEncoder.iterencode's call for a one-shot encode without indent
        chunks = _json.make_encoder({}, default or _refuse, encode, None, ":", ",", False, False, True)(value, 0)
        return "".join(chunks)
    except Exception:  # noqa: S110  (json.dumps below raises json's own error)
        pass
    import json

    return json.dumps(value, ensure_ascii=ensure_ascii, default=default, separators=(",", ":"))
