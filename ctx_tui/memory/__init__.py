"""The memory model: tracked items, extraction, references, decay, the four tiers.

``items`` (what an item is), ``session_store`` (the medium-term tier),
``memory_md`` (the long-term tier), ``extract`` / ``references`` / ``decay``
(what the transcript says about the items), ``tiers`` and ``view`` (what the
CLI and the dashboard show).
"""
