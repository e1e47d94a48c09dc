"""ctx-tui: a terminal cockpit that keeps a long AI coding-agent session's context healthy."""

__version__ = "0.1.0"
