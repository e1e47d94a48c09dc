"""Errors that reach the user as one clear line (never a traceback)."""


class CtxError(Exception):
    """A problem the user can act on; ``str(exc)`` is the whole message."""

    exit_code = 2
