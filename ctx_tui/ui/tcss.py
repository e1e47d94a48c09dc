"""Where the TCSS files of the package ``ctx_tui.styles`` are.

The dashboard app's own stylesheet is ``app.tcss``. The flow screens
(``flows.tcss``) and the session picker and metrics screens (``picker.tcss``)
name theirs in ``CSS_PATH``: Textual reads a screen's file when the screen is
first shown, so the first frame neither parses their rules nor matches every
widget against them.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

FLOWS = "flows.tcss"
PICKER = "picker.tcss"


def tcss_path(name: str) -> Path:
    """The path of the TCSS file ``name`` of ``ctx_tui.styles``."""
    return Path(str(files("ctx_tui.styles") / name))
