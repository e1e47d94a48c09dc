"""Acting on memory: the restatement queue, promotions into MEMORY.md, Claude Code hooks.

Every function here is plain core code (no Textual): the CLI commands and the
dashboard's keys (``r``, ``p``, ``a``, ``x``) call the same functions.
"""
