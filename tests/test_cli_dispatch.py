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


@pytest.mark.parametrize("columns", ["40", "80", "200"])
def test_top_level_help_from_the_table_is_the_real_parsers(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    """`ctx-tui --help` lists the commands from COMMAND_HELP: it can never say other than the modules' parsers."""
    from ctx_tui.cli import COMMAND_HELP, build_parser, help_parser

    monkeypatch.setenv("COLUMNS", columns)  # argparse wraps the help to the terminal's width
    assert list(COMMAND_HELP) == list(COMMANDS)
    assert help_parser().format_help() == build_parser().format_help()


def test_top_level_help_imports_no_command_module(tmp_path) -> None:
    import json
    import subprocess
    import sys

    probe = ("import io, json, sys\nfrom ctx_tui.cli import main\nout, sys.stdout = sys.stdout, io.StringIO()\n"
             "try:\n    main(['--help'])\nexcept SystemExit as exc:\n    code = exc.code\n"
             "text, sys.stdout = sys.stdout.getvalue(), out\n"
             "print(json.dumps({'code': code, 'text': text, 'modules': sorted(sys.modules)}))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, timeout=60, check=True)
    run = json.loads(done.stdout)
    assert run["code"] == 0 and "summarize-session" in run["text"] and "statusline install" in run["text"]
    assert {m for m in run["modules"] if m.startswith("ctx_tui.cli.")} == set()
    assert {"pydantic", "yaml", "textual", "rich", "orjson"} & set(run["modules"]) == set()
