"""The dispatcher's command map matches what the command modules register."""

import argparse
import importlib

import pytest

from ctx_tui.cli import COMMANDS, COMMAND_MODULES, main


def _registered(module: str) -> set[str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    importlib.import_module(module).register(sub)
    return set(sub.choices)


def test_command_map_matches_the_modules() -> None:
    for module in COMMAND_MODULES:
        assert _registered(module) == {name for name, mod in COMMANDS.items() if mod == module}, module


def test_unknown_option_of_a_command_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["stats", "--no-such-option"])
    assert exc.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err
