"""The dashboard in a browser: ``textual-serve`` runs a ctx-tui dashboard command for each tab that opens the page."""

from __future__ import annotations


def serve(command: str, host: str, port: int, public_url: str) -> None:
    """Serve ``command`` on ``host:port`` until interrupted (the checks on host and port are the caller's)."""
    from textual_serve.server import Server  # aiohttp loads only when serving

    Server(command, host=host, port=port, title="ctx-tui", public_url=public_url).serve()
