"""Reading agent transcripts: one reader per format, the follower, discovery.

``model`` (typed entries), ``builder`` (what readers write into), ``claude`` /
``codex`` / ``gemini`` / ``generic`` (one reader per format), ``formats`` (the
table from format to reader), ``reader`` (format detection and incremental
reading of one file), ``follow`` (appended bytes, partial
lines, rotation), ``discover`` (the newest session of a directory). The
context-window model built on them is ``ctx_tui.window``.
"""
