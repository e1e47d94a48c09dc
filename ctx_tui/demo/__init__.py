"""The bundled demo: a generated Claude Code session (``demo_session.jsonl``) and its live replay."""
