"""Build a cache file in a child process, so that a long-lived process does not keep the build's heap.

Building some of the user cache's files (:mod:`ctx_tui.tokens`' rank groups,
:mod:`ctx_tui.english`' everyday words) parses a large file into many small
objects. Freed, they leave the heap grown: a dashboard that built them on its
first start held ~24 MiB (rank groups) and ~7.6 MiB (everyday words) more for
hours than on any later start (returning the heap to the system recovers a
fifth). A child process builds the file instead, and the caller reads it as a
later start does; where no child can run, the caller builds it in place.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: The folder ``ctx_tui`` is imported from, put first on the child's path (a source checkout works too).
_ROOT = str(Path(__file__).resolve().parent.parent)


def built_apart(module: str, function: str, timeout: float = 60.0) -> bool:
    """Run ``module.function()`` (no arguments, returns an exit code) in a child Python; True when it returned 0.

    The child's standard streams go to ``/dev/null``: nothing reaches the
    dashboard's terminal. False when it cannot start, fails or takes longer
    than ``timeout`` seconds (it is then killed).
    """
    code = f"import sys; sys.path.insert(0, {_ROOT!r}); from {module} import {function}; sys.exit({function}())"
    try:
        done = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
