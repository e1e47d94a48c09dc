"""The live context window of a followed session.

``Session(path, config)`` follows one transcript file; ``poll()`` reads what was
appended (only those bytes) and says what changed; ``state()`` builds a
:class:`~ctx_tui.window_state.WindowState`:

* ``context_tokens``: the reported usage (docs/transcripts.md#context-usage) when the transcript
  has one (Claude: ``input + cache_creation + cache_read`` of the last
  main-chain, non-error assistant row after the last compaction, once per
  ``message.id``; Codex: ``last_token_usage.total_tokens`` of the last
  ``token_count``); otherwise the sum of the live entries' token counts
  (``usage_source == "estimated"``).
  Right after a compaction, before the next reply, the estimate is the
  session's *baseline* (what the agent sends besides the conversation: system
  prompt, tools; learned from the first reported usage of the latest window
  that had one, minus the conversation it was sent with) plus the live entries,
  plus the files Claude Code re-attaches unwritten, our counts scaled to the
  agent's tokenizer (:meth:`Session._after_compaction`).
* ``context_window``: ``config.window.sizes[model]`` if set, else what the
  transcript states (Codex ``model_context_window``), else the model table
  (:func:`window_for_model`); 0 when nothing says (shown as "window unknown").
* ``live``: the entries the model sees now (main chain, in context, since the
  last compaction), each with a token offset and size calibrated so that they
  sum exactly to ``context_tokens``, and its midpoint's relative position 0..1.

Token counts: every entry starts with a cheap estimate made while reading; the
entries of the live window are counted with tiktoken the first time a state is
built (once per entry; a preview-only entry scales its preview's count to the
original length). The rest of the session keeps its estimates.

Over 400 lines: reading, counting, calibrating and estimating one live window
share the session's state and caches; a split would pass them between modules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING

from ctx_tui.model_windows import CLAUDE_1M_WINDOW, CLAUDE_WINDOW, UNKNOWN_WINDOW, table_window
from ctx_tui.tokens import count_tokens, token_source
from ctx_tui.transcripts.builder import USAGE_WINDOWS_CAP, Transcript
from ctx_tui.transcripts.discover import codex_reported_window
from ctx_tui.transcripts.model import Entry, Format, Kind, SessionMeta, UsagePoint, UsageSource
from ctx_tui.transcripts.reader import TranscriptReader
from ctx_tui.transcripts.reattach import attached_tokens, mentions_files, reattached_tokens
from ctx_tui.usercache import claude_code_report
from ctx_tui.window_state import AUTOCOMPACT_THRESHOLD, WindowEntry, WindowSource, WindowState

if TYPE_CHECKING:  # the model is built only when a config is given or asked for (Session.config)
    from ctx_tui.config import Config

#: The token ratio (agent's tokens per token counted here) is learned over at least this much
#: growth of a window, and trusted only within this range (``Session._token_ratio``).
RATIO_MIN_GROWTH = 2_000
RATIO_RANGE = (0.75, 1.75)
#: Re-exported: callers size a window through this module.
__all__ = ["CLAUDE_1M_WINDOW", "CLAUDE_WINDOW", "UNKNOWN_WINDOW", "Session", "SessionUpdate", "calibrate", "count_entry", "session_window", "window_for_model"]


def window_for_model(
    model: str | None,
    config: Config | None = None,
    stated: int | None = None,
    fmt: Format | None = None,
    peak: int = 0,
) -> int:
    """The context window of ``model``: config override, then transcript, then table; else UNKNOWN_WINDOW.

    A Codex rollout that does not state its window gets the latest
    ``model_context_window`` another rollout of that model reported under
    CODEX_HOME, else the table's share (:func:`ctx_tui.model_windows.table_window`,
    which also says how ``fmt`` and ``peak`` fill in what a model id does not).
    """
    if config is not None and model and model in config.window.sizes:
        return config.window.sizes[model]
    if stated:
        return stated
    if fmt == Format.CODEX and model:
        seen = codex_reported_window(model)
        if seen:
            return seen
    return table_window(model, fmt.value if fmt is not None else None, peak)


def session_window(meta: SessionMeta, path: Path, config: Config | None, peak: int = 0) -> tuple[int, WindowSource]:
    """The window of a session and where it came from.

    Claude Code's own figure, recorded by ``ctx-tui statusline`` for this
    session, is the authority (it knows 1M windows and what the tools take);
    then the config's ``window.sizes``, the transcript, the model table.
    """
    if meta.format == Format.CLAUDE_CODE:
        report = claude_code_report(meta.session_id or path.stem)
        if report is not None:
            return report["context_window_size"], "Claude Code"
    if config is not None and meta.model and meta.model in config.window.sizes:
        return config.window.sizes[meta.model], "config"
    if meta.context_window:
        return meta.context_window, "transcript"
    return window_for_model(meta.model, None, None, meta.format, peak), "model table"


@dataclass(slots=True)
class SessionUpdate:
    """What one ``poll()`` found."""

    new_entries: list[Entry] = field(default_factory=list)
    reset: bool = False  # the file shrank or was replaced: everything was re-read from zero
    compacted: bool = False  # a compaction happened in the new part
    skipped: int = 0  # lines skipped in the new part
    changed: bool = False  # anything at all changed (entries, usage, meta, reset)
    bytes_read: int = 0  # bytes this poll read from the file


def count_entry(entry: Entry, model: str | None) -> int:
    """Tokenize ``entry`` once (cached on it) and return its tokens."""
    if not entry.tokens_counted:
        counted = count_tokens(entry.text, model)
        if entry.truncated and entry.text:
            counted = round(counted * entry.chars / len(entry.text))
        entry.tokens = counted
        entry.tokens_counted = True
    return entry.tokens


def calibrate(entries: list[Entry], raw: list[int], total: int) -> list[WindowEntry]:
    """Scale ``raw`` token counts so they sum to ``total``; offsets and positions follow.

    Offsets are the rounded scaled running sums, so sizes add up to ``total``
    exactly. Runs on every state (once per live entry): kept lean.
    """
    if not entries:
        return []
    raw_sum = sum(raw)
    if not raw_sum:  # only empty entries: share the total evenly
        raw, raw_sum = [1] * len(entries), len(entries)
    scale = total / raw_sum
    inverse = 1.0 / total if total else 0.0
    out: list[WindowEntry] = []
    append = out.append
    offset = 0
    for entry, running in zip(entries, accumulate(raw)):
        end = round(running * scale)
        append(WindowEntry(entry, offset, end - offset, (offset + end) * 0.5 * inverse))
        offset = end
    return out


def _summary(t: Transcript) -> tuple[int | None, int, str | None, int | None, int]:
    """What can change without a new entry: usage, round (a Codex prompt confirmed late), model, window, a rewind."""
    return (t.last_usage.context_tokens if t.last_usage else None, t.round, t.meta.model, t.meta.context_window, t.rewinds)


class Session:
    """A transcript followed as it grows, and its context window."""

    def __init__(self, path: Path, config: Config | None = None) -> None:
        self.path = Path(path)
        self._config = config
        self._reader = TranscriptReader(self.path)
        self._version = 0  # bumped on every change (lets callers cache by it)
        # The live window, extended as entries arrive (rebuilt on a compaction or reset).
        self._live_of: tuple[Transcript, int, int] | None = None
        self._live: list[Entry] = []
        self._live_raw: list[int] = []
        self._live_scanned = 0
        self._after_compaction_of: tuple[tuple[object, ...], tuple[float, int]] | None = None

    @property
    def config(self) -> Config:
        """The config given, else the defaults (built on first use)."""
        if self._config is None:
            from ctx_tui.config import Config

            self._config = Config()
        return self._config

    @property
    def entries(self) -> list[Entry]:
        """The whole session in order (text bounded: see ``ctx_tui.transcripts.model``)."""
        return self._reader.transcript.entries

    @property
    def meta(self) -> SessionMeta:
        return self._reader.transcript.meta

    @property
    def format(self) -> Format:
        return self.meta.format

    @property
    def exists(self) -> bool:
        return self._reader.exists

    @property
    def problem(self) -> str | None:
        """Why the transcript cannot be read now (a FIFO, permission denied...), or None."""
        return self._reader.follower.problem

    @property
    def unsupported(self) -> str | None:
        """Why the file is not a transcript ctx-tui reads, or None (see ``TranscriptReader.unsupported``)."""
        return self._reader.unsupported

    @property
    def version(self) -> int:
        return self._version

    def poll(self) -> SessionUpdate:
        """Read what was appended since the last poll (everything, the first time)."""
        t = self._reader.transcript
        before = _summary(t)
        before_compactions = len(t.compactions)
        before_skipped = t.skipped
        reset, start = self._reader.poll()
        t = self._reader.transcript
        if reset:
            before_compactions, before_skipped, start = 0, 0, 0
        new_entries = t.entries[start:]
        update = SessionUpdate(
            new_entries=new_entries,
            reset=reset,
            compacted=len(t.compactions) > before_compactions,
            skipped=t.skipped - before_skipped,
            bytes_read=self._reader.follower.bytes_read,
        )
        update.changed = bool(
            reset or new_entries or update.compacted or update.skipped or _summary(t) != before
        )
        if update.changed:
            self._version += 1
        return update

    @property
    def bytes_read(self) -> int:
        """Bytes the last read took from the file."""
        return self._reader.follower.bytes_read

    def read_from(self, fmt: Format, lead: list[bytes], offset: int) -> int:
        """Read only the file's end, from byte ``offset``, after the ``lead`` rows (see ctx_tui.usage_tail).

        Returns the bytes read; :meth:`tail_decides` then says whether they give
        a whole read's figures, and :meth:`peak_decides_window` whether the
        window needs the peak reported before ``offset``.
        """
        read = self._reader.read_from(fmt, lead, offset)
        self._version += 1
        return read

    def peak_decides_window(self) -> bool:
        """Whether a larger context reported before the part read could change the window.

        Only a window from the model table depends on the session's peak, and
        only across CLAUDE_WINDOW and CLAUDE_1M_WINDOW (``table_window``): each
        window class a larger peak could reach is tried. Claude Code's own
        report, the config and a window the transcript states do not depend on it.
        """
        t = self._reader.transcript
        peaks = (t.peak_usage, max(t.peak_usage, CLAUDE_1M_WINDOW), max(t.peak_usage, CLAUDE_1M_WINDOW + 1))
        return len({session_window(t.meta, self.path, self._config, peak) for peak in peaks}) > 1

    def note_peak(self, peak: int) -> None:
        """Take ``peak``, a context reported before the part read (:meth:`read_from`), into the window's inference."""
        t = self._reader.transcript
        t.peak_usage = max(t.peak_usage, peak)
        self._version += 1

    def tail_decides(self) -> bool:
        """Whether a read of the file's end (:meth:`read_from`) gives the figures of a whole read.

        Yes with a plausible usage report in it (a later compaction would have
        voided it). With none since the last compaction the figure is an
        estimate of the live window plus the baseline learned from the first
        usage of the latest window that had one (:meth:`_after_compaction`): the read
        must then start at a compaction and hold that usage.
        """
        t = self._reader.transcript
        if self._plausible_usage() is not None:
            return True
        return bool(t.compactions) and t.compactions[0].seq == 0 and t.baseline_source is not None

    def live_entries(self) -> list[Entry]:
        """Main-chain entries the model sees now (since the last compaction)."""
        t = self._reader.transcript
        return [e for e in t.entries[t.live_start :] if e.in_context]

    def _live_window(self) -> tuple[list[Entry], list[int]]:
        """The live entries and their token counts, tokenizing only entries not seen before."""
        t = self._reader.transcript
        if self._live_of != (t, t.live_start, t.rewinds):
            self._live_of = (t, t.live_start, t.rewinds)
            self._live, self._live_raw, self._live_scanned = [], [], t.live_start
        model = t.meta.model
        for entry in t.entries[self._live_scanned :]:
            if entry.in_context:
                self._live.append(entry)
                self._live_raw.append(count_entry(entry, model))
        self._live_scanned = len(t.entries)
        return self._live, self._live_raw

    def state(self, positions: bool = True) -> WindowState:
        """A snapshot of the context window (cheap: the live window is counted once).

        ``positions=False`` is for callers that only need the totals (``stats``):
        when the usage is reported, nothing is tokenized and ``live`` is empty.
        """
        t = self._reader.transcript
        meta = t.meta
        usage = self._plausible_usage()
        if not positions and usage is not None:
            return self._state(usage, "reported", [], [], token_source(meta.model, load=False))
        live, raw = self._live_window()
        if usage is not None:
            context_tokens = usage
            source: UsageSource = "reported"
        else:
            if t.compactions:
                ratio, unwritten = self._after_compaction()
                context_tokens = round(ratio * sum(raw)) + unwritten
            else:
                context_tokens = sum(raw)
            source = "estimated"
        return self._state(context_tokens, source, live, raw, token_source(meta.model))

    def _plausible_usage(self) -> int | None:
        """The reported context tokens, unless above 10 windows of the model (then: estimate).

        The readers already drop figures outside [0, 10 x the stated window];
        this applies the model table's window, which they do not know.
        """
        t = self._reader.transcript
        if t.last_usage is None:
            return None
        window, _ = session_window(t.meta, self.path, self._config)
        if window and t.last_usage.context_tokens > USAGE_WINDOWS_CAP * window:
            return None
        return t.last_usage.context_tokens

    def _after_compaction(self) -> tuple[float, int]:
        """How to estimate the context right after a compaction: (token ratio, tokens sent besides the live entries).

        The estimate is ``ratio`` x the live entries' counts + the second figure.
        ``ratio`` turns our counts into the agent's tokens (:meth:`_token_ratio`).
        The *baseline* (system prompt, tools, memory files) is learned from the
        first usage reported in the latest window that had one: its context
        minus the conversation sent with it (the prompt; after an earlier
        compaction, that summary and the prompt). Learned after a compaction, it
        also holds what that compaction re-attached, which stands for what this
        one re-attaches. Learned from the session's first window, for Claude Code:
        when the prompts there @-mention files (sent, not written), their text is
        taken off too as the files are on disk now (never below the agent's own
        prefix as the API read it from its cache), and when a file cannot be
        read the baseline is at most that prefix (:meth:`_cached_prefix`); the
        files Claude Code re-attaches after this compaction are added
        (``ctx_tui.transcripts.reattach``). (1, 0) when no usage was reported.
        """
        t = self._reader.transcript
        key = (t, len(t.entries), len(t.compactions), t.rewinds, t.baseline_source)
        if self._after_compaction_of is not None and self._after_compaction_of[0] == key:
            return self._after_compaction_of[1]
        ratio, tokens = 1.0, 0
        if t.baseline_source is not None:
            start, end, reported = t.baseline_source
            model = t.meta.model
            ratio = self._token_ratio()
            sent = [e for e in t.entries[start:end] if e.in_context]
            tokens = max(0, round(reported - ratio * sum(count_entry(e, model) for e in sent)))
            first_window = not any(c.seq == start for c in t.compactions)
            if first_window and t.meta.format == Format.CLAUDE_CODE:
                prompts = [e.text for e in sent if e.kind == Kind.USER and mentions_files(e.text)]
                if prompts:
                    attached = attached_tokens(prompts, t.meta.cwd, lambda text: count_tokens(text, model))
                    if attached is None:
                        tokens = self._cached_prefix(tokens)
                    else:  # never below the prefix the API read from its cache
                        tokens = max(round(tokens - ratio * attached), self._cached_prefix(0))
                last = t.compactions[-1].seq
                before = t.compactions[-2].seq if len(t.compactions) > 1 else 0
                tokens += round(
                    ratio
                    * reattached_tokens(t.entries[before:last], lambda e: count_entry(e, model), lambda text: count_tokens(text, model))
                )
        self._after_compaction_of = (key, (ratio, tokens))
        return ratio, tokens

    def _token_ratio(self) -> float:
        """The agent's tokens per token we count, learned in the window the baseline comes from.

        Between the window's first and last usage reports the context grew by
        what was added in between: the reported growth over our count of those
        entries. The agent's tokenizer is not ours (Claude's counts about a
        fifth more than cl100k on code). 1.0 when the window grew by less than
        2,000 counted tokens, or the ratio is outside 0.75-1.75 (a window whose
        growth the count cannot explain).
        """
        t = self._reader.transcript
        if t.baseline_source is None:
            return 1.0
        start, end, first = t.baseline_source
        stop = min((c.seq for c in t.compactions if c.seq > start), default=len(t.entries))
        last = next((i for i in range(stop - 1, end - 1, -1) if t.entries[i].usage is not None), None)
        if last is None:
            return 1.0
        usage = t.entries[last].usage
        if usage is None:
            return 1.0
        model = t.meta.model
        grown = sum(count_entry(e, model) for e in t.entries[end:last] if e.in_context)
        if grown < RATIO_MIN_GROWTH:
            return 1.0
        ratio = (usage.context_tokens - first) / grown
        return ratio if RATIO_RANGE[0] <= ratio <= RATIO_RANGE[1] else 1.0

    def _cached_prefix(self, baseline: int) -> int:
        """The agent's own prefix (tools, system prompt) as the API read it from its cache; ``baseline`` if never.

        Before the first compaction every request starts with the whole first
        one, so a cache read shorter than the first request's cached part
        stopped inside what the agent sends before the conversation: the
        longest such read is that part (Claude Code sets a cache point at the
        end of its system prompt). With ``baseline`` > 0 the answer is at most
        ``baseline``; with 0 it is the read alone (0 when there is none).
        """
        t = self._reader.transcript
        end = t.compactions[0].seq if t.compactions else len(t.entries)
        usages = [u for e in t.entries[:end] if (u := e.usage) is not None and not e.is_sidechain]
        first = usages[0].cache_creation_input_tokens + usages[0].cache_read_input_tokens if usages else 0
        prefix = max((r for u in usages if 0 < (r := u.cache_read_input_tokens) < first), default=None)
        if prefix is None:
            return baseline
        return min(baseline, prefix) if baseline else prefix

    def _state(self, context_tokens: int, source: UsageSource, live: list[Entry], raw: list[int], tokens_by: str) -> WindowState:
        t = self._reader.transcript
        window, window_source = session_window(t.meta, self.path, self._config, t.peak_usage)
        return WindowState(
            path=self.path,
            meta=t.meta,
            context_tokens=context_tokens,
            context_window=window,
            window_source=window_source,
            usage_source=source,
            token_source=tokens_by,
            compactions=list(t.compactions),
            rounds=t.round,
            entries_total=len(t.entries),
            skipped_lines=t.skipped,
            unsupported=self._reader.unsupported,
            live=calibrate(live, raw, context_tokens),
            history=self._history(live, raw),
            autocompact_threshold=self._config.window.autocompact_threshold if self._config else AUTOCOMPACT_THRESHOLD,
            implausible_usage=t.implausible_usage + (t.last_usage is not None and source == "estimated"),
        )

    def _history(self, live: list[Entry], raw: list[int]) -> list[UsagePoint]:
        t = self._reader.transcript
        if t.ever_reported:
            return list(t.history)
        points: dict[int, int] = {}
        total = 0
        for entry, n in zip(live, raw):
            total += n
            points[entry.round] = total
        return [UsagePoint(round=r, tokens=n, source="estimated") for r, n in sorted(points.items())]
