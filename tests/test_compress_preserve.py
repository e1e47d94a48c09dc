"""`compression.preserve_types` decides which stated sentences survive a tight budget whole."""

import pytest

from ctx_tui.compress import compress_text
from ctx_tui.compress.facts import stated_type
from ctx_tui.config import Config
from ctx_tui.config_file import validate_config

#: A long rule with few key facts: without preservation, cheaper fact-rich sentences beat it.
RULE = ("Never push anything to the main branch without a careful review from at least one other person "
        "on the team, even when the change looks small, obvious and safe to everybody who reads it.")
TEXT = "\n\n".join(
    [f"user: please look at module_{n}.py: function handler_{n}() returns code {400 + n} for /api/v{n}/items."
     for n in range(40)] + [f"user: {RULE}"]
)


def _config(*types: str) -> Config:
    return validate_config({"compression": {"preserve_types": list(types)}})


@pytest.mark.parametrize("strategy", ["summary", "semantic"])
def test_a_preserved_constraint_is_kept_whole_and_an_unpreserved_one_competes(strategy: str) -> None:
    kept = compress_text(TEXT, strategy, max_length=200, config=_config("constraint"))
    assert RULE in kept.text
    dropped = compress_text(TEXT, strategy, max_length=200, config=_config("decision"))
    assert RULE not in dropped.text


def test_stated_type_classifies_decisions_preferences_and_constraints() -> None:
    assert stated_type("We decided to use Redis for the rate limiter.") == "decision"
    assert stated_type("I prefer small commits with their tests.") == "user_preference"
    assert stated_type("Never touch the migrations folder db/migrations.") == "constraint"
    assert stated_type("The build took four minutes today.") is None
