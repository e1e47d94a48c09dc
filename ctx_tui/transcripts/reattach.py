"""What Claude Code sends the model without writing it to the transcript.

Two things make a context bigger than the rows of a Claude Code transcript
say, and both matter for the estimate right after a compaction (see
``ctx_tui.window``):

* **@-mentioned files.** A prompt ``@src/app.py explain this`` makes Claude
  Code read the file and send it with the prompt; the transcript holds the
  prompt text only. The first reply's reported usage minus the prompt then
  overstates what the agent sends besides the conversation by the whole file
  (:func:`mentions_files`); :func:`attached_tokens` counts the files as they
  are on disk now, when they can be read.
* **Files re-attached after a compaction.** Claude Code (read in the
  published ``@anthropic-ai/claude-code`` 2.0.76 ``cli.js``: three constants
  next to the compaction code) sends again, after the summary, up to 5 of the
  files it read or wrote most recently, each whole when it is at most 5,000
  tokens, else as a one-line note that it is too large, 50,000 tokens in all;
  it does not write them (:func:`reattached_tokens`). A file's size is known
  from a whole ``Read`` of it (no ``offset``/``limit``) or a ``Write``; a file
  seen only in parts counts as a note (an agent reads parts of large files).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ctx_tui.storage import FileTooLarge, read_regular
from ctx_tui.transcripts.builder import cut_from
from ctx_tui.transcripts.model import Entry, Kind

#: Claude Code's limits on the files it re-attaches after a compaction.
REATTACH_FILES = 5
REATTACH_FILE_TOKENS = 5_000
REATTACH_TOTAL_TOKENS = 50_000
#: The note sent in place of a file too large to re-attach, and the Read call
#: wrapped around one re-attached whole (both in tokens, measured on the text
#: Claude Code sends).
NOTE_TOKENS = 45
READ_CALL_TOKENS = 30

#: What Claude Code attaches of an @-mentioned file: a Read of it (numbered lines), at most
#: 2,000 lines; nothing for a file over 256 KiB or whose lines come to more than 25,000 tokens.
ATTACH_MAX_BYTES = 262_144
ATTACH_MAX_LINES = 2_000
ATTACH_MAX_TOKENS = 25_000

#: Tools whose ``file_path`` (``notebook_path``) Claude Code remembers as read.
_FILE_TOOLS = frozenset({"Read", "Write", "Edit", "MultiEdit", "NotebookEdit"})
#: ``@path`` at the start of a word, naming a file (a ``.`` or ``/`` in it; ``@"a b.py"`` quoted).
_MENTION_RE = re.compile(r'(?:^|\s)@(?:"[^"\n]+"|[^\s"@]*[./][^\s"@]*)')


def mentions_files(text: str) -> bool:
    """Whether a prompt @-mentions a file (whose content Claude Code sends but does not write)."""
    return "@" in text and _MENTION_RE.search(text) is not None


def mentioned_paths(text: str) -> list[str]:
    """The paths a prompt @-mentions (quotes and a ``#L10-20`` line range taken off)."""
    found = []
    for match in _MENTION_RE.finditer(text):
        raw = match.group(0).strip()[1:].strip('"')
        found.append(raw.split("#", 1)[0].rstrip(",.;:!?)"))
    return [p for p in found if p]


def attached_tokens(texts: Iterable[str], cwd: str | None, count_text: Callable[[str], int]) -> int | None:
    """Tokens of the files ``texts`` @-mention, as Claude Code sends them, read from disk now.

    Relative paths are taken from ``cwd`` (the session's). None when a file
    cannot be read (gone, a folder, not allowed): the caller cannot know what
    was sent. A file changed since is counted as it is now.
    """
    total = 0
    for text in texts:
        for raw in mentioned_paths(text):
            path = Path(raw).expanduser()
            if not path.is_absolute():
                if not cwd:
                    return None
                path = Path(cwd) / path
            try:
                data = read_regular(path, ATTACH_MAX_BYTES)
            except FileTooLarge:
                continue  # Claude Code attaches nothing
            except OSError:
                return None
            lines = data.decode("utf-8", "replace").splitlines()[:ATTACH_MAX_LINES]
            tokens = count_text("\n".join(f"{n:>6}\u2192{line}" for n, line in enumerate(lines, 1)))
            if tokens <= ATTACH_MAX_TOKENS:
                total += tokens + READ_CALL_TOKENS
    return total


def _path(entry: Entry) -> str | None:
    data = entry.tool_input or {}
    path = data.get("file_path", data.get("notebook_path"))
    return path if isinstance(path, str) and path else None


def _written_tokens(entry: Entry, count_text: Callable[[str], int]) -> int | None:
    """Tokens of the file a ``Write`` call wrote (its ``content``, scaled from the kept preview)."""
    content = (entry.tool_input or {}).get("content")
    if not isinstance(content, str):
        return None
    kept, length = cut_from(content)
    return round(count_text(kept) * length / len(kept)) if kept else 0


def reattached_tokens(entries: Sequence[Entry], count: Callable[[Entry], int], count_text: Callable[[str], int]) -> int:
    """Tokens Claude Code re-attaches after a compaction, from the window ``entries`` before it.

    Claude Code takes the files newest first by their modification time: the
    files the agent wrote or edited (by the last write), then those it only
    read (modified before the session: by the last read, a guess). ``count``
    gives an entry's tokens, ``count_text`` a text's (the caller's tokenizer).
    """
    results = {e.tool_use_id: e for e in entries if e.kind is Kind.TOOL_RESULT and e.tool_use_id and not e.is_sidechain}
    order: dict[str, tuple[bool, int]] = {}  # path -> (written, seq of the last write or read)
    size: dict[str, int | None] = {}
    for entry in entries:
        if entry.kind is not Kind.TOOL_CALL or entry.is_sidechain or entry.tool_name not in _FILE_TOOLS:
            continue
        path = _path(entry)
        if path is None:
            continue
        data = entry.tool_input or {}
        if entry.tool_name == "Read":
            if not order.get(path, (False, 0))[0]:  # a read does not change a written file's time
                order[path] = (False, entry.seq)
            result = results.get(entry.tool_use_id) if entry.tool_use_id else None
            if "offset" not in data and "limit" not in data and result is not None and not result.is_error:
                size[path] = count(result)
            else:
                size.setdefault(path, None)
        else:
            order[path] = (True, entry.seq)
            if entry.tool_name == "Write":
                size[path] = _written_tokens(entry, count_text)
            else:
                size.setdefault(path, None)
    total = 0
    for path in sorted(order, key=order.__getitem__, reverse=True)[:REATTACH_FILES]:
        known = size.get(path)
        tokens = known + READ_CALL_TOKENS if known is not None and known <= REATTACH_FILE_TOKENS else NOTE_TOKENS
        if total + tokens <= REATTACH_TOTAL_TOKENS:
            total += tokens
    return total
