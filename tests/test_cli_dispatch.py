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


def _help_run(tmp_path, *, columns: str = "100") -> dict:
    """``ctx-tui --help`` in a fresh process whose user cache is in ``tmp_path``: its exit code, text and modules."""
    import json
    import os
    import subprocess
    import sys

    probe = ("import io, json, sys\nfrom ctx_tui.cli import main\nout, sys.stdout = sys.stdout, io.StringIO()\n"
             "code = main(['--help'])\ntext, sys.stdout = sys.stdout.getvalue(), out\n"
             "print(json.dumps({'code': code, 'text': text, 'modules': sorted(sys.modules)}))")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": columns}
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_top_level_help_imports_no_command_module(tmp_path) -> None:
    run = _help_run(tmp_path)
    assert run["code"] == 0 and "summarize-session" in run["text"] and "statusline install" in run["text"]
    assert {m for m in run["modules"] if m.startswith("ctx_tui.cli.")} == set()
    assert {"pydantic", "yaml", "textual", "rich", "orjson", "shutil"} & set(run["modules"]) == set()


def test_top_level_help_kept_is_printed_without_argparse(tmp_path) -> None:
    """The second ``--help`` prints the text the first rendered, from the user's cache, importing no argparse;
    another width renders (and keeps) its own."""
    first, second = _help_run(tmp_path), _help_run(tmp_path)
    assert "argparse" in first["modules"] and "argparse" not in second["modules"]
    assert {"gettext", "textwrap"} & set(second["modules"]) == set()
    assert second["text"] == first["text"] and second["code"] == 0
    narrow = _help_run(tmp_path, columns="50")
    assert "argparse" in narrow["modules"] and narrow["text"] != first["text"]
    assert "argparse" not in _help_run(tmp_path, columns="50")["modules"]


@pytest.mark.parametrize("columns", ["1", "30", "80", "133"])
def test_top_level_help_kept_or_not_is_argparses_at_every_width(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path, columns: str
) -> None:
    from ctx_tui.cli import build_parser

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", columns)
    expected = build_parser().format_help()
    for _ in range(2):  # rendered, then kept
        assert main(["--help"]) == 0
        assert capsys.readouterr().out == expected
    assert main(["-h"]) == 0 and capsys.readouterr().out == expected


def test_top_level_help_from_a_damaged_or_stale_cache_is_rendered_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    import json

    from ctx_tui.cli import HELP_FILE, build_parser

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "90")
    expected = build_parser().format_help()
    kept = tmp_path / "ctx-tui" / HELP_FILE
    assert main(["--help"]) == 0 and capsys.readouterr().out == expected
    key = json.loads(kept.read_text())["source"]
    for damaged in ("{not json", json.dumps([1]), json.dumps({"source": key, "value": 3}),
                    json.dumps({"source": key.replace("|90|", "|91|"), "value": "planted"})):
        kept.write_text(damaged)
        assert main(["--help"]) == 0 and capsys.readouterr().out == expected
    kept.unlink()
    kept.mkdir()  # a cache that cannot be written: the help is printed all the same
    assert main(["--help"]) == 0 and capsys.readouterr().out == expected
