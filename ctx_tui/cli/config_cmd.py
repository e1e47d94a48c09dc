"""``ctx-tui config``: the effective configuration and where each value came from."""

from __future__ import annotations

import argparse
import json

from ctx_tui.cli.common import print_json, project_root
from ctx_tui.config import effective_values, load_config, project_config_path, user_config_path


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "config",
        help="show the effective configuration and the source of each value",
        description="Print every setting with its value and where it came from: the project file "
        "(.ctx/config.yaml), the user file ($XDG_CONFIG_HOME/ctx-tui/config.yaml) or the default.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = project_root()
    loaded = load_config(project)
    rows = effective_values(loaded)
    if args.json:
        print_json(
            {
                "files": [str(f) for f in loaded.files],
                "values": {key: {"value": value, "source": source} for key, value, source in rows},
            }
        )
        return 0
    for label, path in (("project", project_config_path(project)), ("user", user_config_path())):
        state = "used" if path in loaded.files else "not present"
        print(f"{label} config: {path} ({state})")
    print()
    width = max(len(key) for key, _, _ in rows)
    value_width = min(40, max(len(json.dumps(value)) for _, value, _ in rows))
    for key, value, source in rows:
        print(f"{key:<{width}}  {json.dumps(value):<{value_width}}  {source}")
    return 0
