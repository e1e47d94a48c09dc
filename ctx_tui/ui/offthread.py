"""One way to run blocking work (core calls: locks, file I/O, compression) off the UI thread.

``off_thread(node, job, done, failed)`` runs ``job`` in a thread worker and
calls ``done(result)`` or ``failed(reason)`` back on the UI thread. It replaces
the Done/Failed message pair each screen used to declare: the callbacks run
only while ``node`` is still mounted (a screen closed meanwhile gets nothing)
and, for an ``exclusive`` group, only for the newest request (a newer one
cancels the older, whose late result is dropped).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TypeVar

from textual.dom import DOMNode
from textual.worker import Worker, get_current_worker

from ctx_tui.errors import CtxError
from ctx_tui.ui.safe import clean

T = TypeVar("T")

#: What a job may raise that is the user's business (a bad file, a lock timeout, a bad value):
#: shown as one line. Anything else is a bug and reaches Textual's error handling.
USER_FAILURES = (CtxError, OSError, ValueError)


def reason(exc: BaseException) -> str:
    """A failure as one safe line: an OS error as ``path: reason``, else its message."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return clean(text, one_line=True)


def off_thread(
    node: DOMNode,
    job: Callable[[], T],
    done: Callable[[T], None],
    failed: Callable[[str], None],
    *,
    group: str,
    exclusive: bool = False,
) -> Worker[None]:
    """Run ``job`` in a thread; hand its result to ``done`` (or the reason to ``failed``) on the UI thread."""
    app = node.app

    def deliver(worker: Worker[None], outcome: Callable[[], None]) -> None:
        if node.is_attached and not worker.is_cancelled:
            outcome()

    def body() -> None:
        worker = get_current_worker()
        try:
            outcome = partial(done, job())
        except USER_FAILURES as exc:
            outcome = partial(failed, reason(exc))
        if worker.is_cancelled:
            return
        try:
            app.call_from_thread(deliver, worker, outcome)
        except RuntimeError:
            pass  # the app has shut down meanwhile: nobody to tell

    return node.run_worker(body, thread=True, group=group, name=group, exclusive=exclusive, exit_on_error=False)
