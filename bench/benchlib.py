"""What the bench scripts share: the project importable without installing it,
and the shared real transcripts (named as in ``tests/conftest.py``).

Each script runs as ``python bench/bench_<name>.py``, so this folder is on
``sys.path`` and ``import benchlib`` finds this module.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _folder in (ROOT, ROOT / "tests"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from conftest import (  # noqa: E402  (one list of fixture names, for the tests and the benches)
    CLAUDE_COMPACTED,
    CLAUDE_SHORT,
    CLAUDE_SIDECHAIN,
    CODEX_FULL,
    CODEX_REDACTED,
    FIXTURES,
)

__all__ = ["CLAUDE_COMPACTED", "CLAUDE_SHORT", "CLAUDE_SIDECHAIN", "CODEX_FULL", "CODEX_REDACTED", "FIXTURES", "ROOT", "child_env", "installed_ctx_tui"]


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a timed child process: ``os.environ`` plus ``extra``, bytecode written.

    With ``PYTHONDONTWRITEBYTECODE`` set (the shell these benches were first
    run in had it, and a fresh worktree has no ``__pycache__``), a child
    compiles every ctx_tui module it imports from source on every run, while
    the reference ``python -c pass`` loads the standard library's compiled
    bytecode. An installed ctx-tui has its bytecode (pip compiles it; an
    editable install writes it on first use), so the variable is dropped and
    the caller's first, untimed run writes the bytecode.
    """
    env = {**os.environ, **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def installed_ctx_tui(folder: Path) -> tuple[str, str]:
    """A venv in ``folder`` that runs this tree's ctx_tui as a wheel install does: its python and its ``ctx-tui``.

    The development venv has ctx-tui installed in editable mode, and the
    finder that install puts in site-packages imports pathlib, importlib.util
    (contextlib) and fnmatch (re, enum) at every start of that interpreter,
    ``python -c pass`` included: the reference then carries ~10 ms that a
    user's start does not, and the command whatever it imports of those for
    free. Here ctx_tui and its dependencies are plain ``sys.path`` entries (a
    ``.pth`` file of folder names, as site-packages is for a wheel: no code
    runs at start-up) and ``bin/ctx-tui`` is the console script pip writes.
    Claude Code's settings point at that script (``hook install``).
    """
    import sysconfig
    import venv

    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)  # POSIX, as the benches' resource module
    python = folder / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    deps = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    Path(site, "ctx_tui_bench.pth").write_text("".join(f"{p}\n" for p in (str(ROOT), *deps)))
    script = folder / "bin" / "ctx-tui"
    script.write_text(  # pip's console script (distlib's template) for ctx-tui = "ctx_tui.cli:main"
        f"#!{python}\n# -*- coding: utf-8 -*-\nimport re\nimport sys\nfrom ctx_tui.cli import main\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(main())\n"
    )
    script.chmod(0o755)
    return str(python), str(script)
