"""The Textual dashboard: the only package (with ``cli/dashboard_cmd.py``) that imports Textual.

Data flows one way: a worker reads the transcript and memory files through the
core (``ctx_tui.window``, ``ctx_tui.memory.view``) off the UI thread and posts
one :class:`~ctx_tui.ui.messages.SnapshotReady` per batch; the app's handlers
keep the latest snapshot and hand it to the widgets.
"""
