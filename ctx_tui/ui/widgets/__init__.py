"""Dashboard panels: each takes immutable data through ``show(...)`` and renders it."""
