"""Textual stylesheets, shipped in the wheel as the data package ``ctx_tui.styles``."""
