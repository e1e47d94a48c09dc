"""Command lines as mentions: a sentence that runs the item's tool names it (ctx_tui.command_lines)."""

from __future__ import annotations

import json
from pathlib import Path

from ctx_tui.command_lines import run_words
from ctx_tui.config import Config
from ctx_tui.memory.items import ItemType, TrackedItem
from ctx_tui.memory.latest_references import latest_occurrences
from ctx_tui.memory.references import occurrences
from ctx_tui.mentions import MentionIndex, Vocabulary, mention
from ctx_tui.window import Session

from test_mentions import SESSION


def _in_tool_call(item: str, command: str) -> bool:
    index = MentionIndex(SESSION)
    index.add("item", item)
    return "item" in index.find(command, strict=True)


def test_the_words_a_command_line_runs() -> None:
    certain, loose = run_words("npx -y playwright test --project=webkit passes.")
    assert {"npx", "playwright", "test"} <= certain and not loose  # a runner first: the program is the next word
    assert {"django", "manage.py", "migrate"} <= run_words("python manage.py migrate --plan")[0]
    assert {"kubernetes", "k8s"} <= run_words("$ kubectl rollout status deploy/web")[0]  # after a prompt
    assert {"docker", "compose"} <= run_words("bring it up with `docker compose up -d` first")[0]  # a code span
    assert {"playwright"} <= run_words("pnpm add -D @playwright/test")[0]  # the package an install names
    assert run_words("west build") == (frozenset(), frozenset({"west", "build", "zephyr"}))  # loose: no option
    # not a command: prose, a lone word, code, a quoted pattern, a file
    assert run_words("the west wing printer is jammed") == (frozenset(), frozenset())
    assert run_words("the `delta` field and `index = 4`") == (frozenset(), frozenset())
    assert run_words("stripe = Stripe(api_key)") == (frozenset(), frozenset())
    assert "compose" not in run_words("rg -n 'docker|compose' deploy/")[0]
    assert not run_words("Ran the API error handler -v")[0]  # programs are written in lower case


def test_a_command_running_the_items_tool_mentions_it() -> None:
    # the command's own rare words (targets, options, values) outweigh the shared name in the cosine
    item = "Schema migrations are written with Alembic; never edit tables by hand."
    assert mention(item, "poetry run alembic upgrade head -x tenant=eu-central finished cleanly.", SESSION)
    assert mention("We're moving the static site from Jekyll to Hugo.", "hugo server -D --disableFastRender renders the drafts", SESSION)
    # what the program belongs to: pio is PlatformIO's, tf Terraform's, gh GitHub's
    item = "Firmware builds use PlatformIO so every developer gets the same toolchain."
    assert mention(item, "pio run -e esp32dev --target upload hangs at 23%.", SESSION)
    item = "Infrastructure changes go through Terraform, reviewed before apply."
    assert mention(item, "`tf plan -target=module.vpc_peering -out=peer.plan` shows three replacements", SESSION)
    assert _in_tool_call("Releases are published with the GitHub CLI.", "gh release create v2.4.0 --generate-notes --draft")


def test_an_english_word_runs_a_tool_only_as_a_command() -> None:
    """*west* is Zephyr's tool and an English word: a command in a tool call, not in prose."""
    item = "The board firmware now targets Zephyr."
    assert _in_tool_call(item, "west flash")
    assert mention(item, "west flash --runner jlink went through", SESSION)  # prose shaped as a command
    assert not mention(item, "west flash", SESSION)  # two words of prose
    assert not mention(item, "the west wing printer is jammed -- again", SESSION)


def test_running_a_generic_program_or_the_turned_down_tool_is_no_mention() -> None:
    # every session runs git and python: the name needs its subcommand ("git lfs")
    assert not _in_tool_call("Large model checkpoints are stored with Git LFS.", "git status --short")
    assert not mention("Large model checkpoints are stored with Git LFS.", "git rebase -i HEAD~3 went fine", SESSION)
    assert not _in_tool_call("The tool must run on Python 3.9; no match statements.", "python -m pytest -q tests/unit")
    # the alternative the item moves away from
    assert not mention("We're moving the static site from Jekyll to Hugo.", "bundle exec jekyll build --incremental still takes 40s", SESSION)
    # code that names the tool is not a command running it
    assert not _in_tool_call("Card payments go through Stripe only.", "stripe = Stripe(api_key=settings.key)")


def test_a_command_inside_a_sentence_runs_its_program() -> None:
    """From a runner wherever it stands, or from a known program followed by an option."""
    item = "Browser checks are written with Playwright, not Cypress."
    assert mention(item, "I ran npx playwright test --headed on the login spec and it passed", SESSION)
    item = "The board firmware now targets Zephyr."
    assert mention(item, "After the rebase, west build -b nrf5340dk_nrf5340_cpuapp works again.", SESSION)
    assert not mention(item, "I think west is the better side of the office -- quieter", SESSION)
    assert run_words("we might run that later") == (frozenset(), frozenset())


def test_a_name_written_as_a_modifier_needs_its_noun_run_too() -> None:
    """"Helm values" is about the values files: ``helm lint`` runs Helm, not them; "Playwright
    tests" are what ``playwright test`` runs."""
    item = "Keep the Helm values per region in separate files."
    assert not mention(item, "helm lint ./charts/api --strict passes now", SESSION)
    assert mention("Use Playwright tests for the checkout flow.", "npx playwright test --project=webkit --retries=3", SESSION)


def test_a_tools_configuration_file_names_it() -> None:
    """A path to a tool's own configuration file, in prose or a tool call, is the tool at work."""
    assert mention("Component tests run on Vitest with jsdom.", "vitest.config.mts now excludes the e2e folder", SESSION)
    assert _in_tool_call("CSS is linted with Stylelint before every merge.", "/home/dev/shop/.stylelintrc.json")
    assert mention("The board firmware now targets Zephyr.", "west.yml now pins the hal_nordic module", SESSION)  # west's
    assert mention("The API runs on Cloudflare Workers.", "wrangler.toml sets the compatibility date", SESSION)
    assert not run_words("see package.json and tsconfig.json")[0]  # every JS project's, not a tool's


def test_an_acronym_the_item_talks_about_is_no_tool() -> None:
    """*CI* and *API* are what an item talks about; ``ci.yml`` and ``npm run ci`` run no such item."""
    item = "Coverage of the api package must stay above 85%; CI blocks merges under it."
    assert not _in_tool_call(item, ".github/workflows/ci.yml")
    assert not mention(item, "npm run ci -- --reporter=dot", SESSION)
    assert _in_tool_call("Buckets are created with the AWS CLI only.", "aws s3 mb s3://acme-exports --region eu-west-1")


def test_a_line_of_prose_in_a_written_file_runs_nothing() -> None:
    """A tool call's line without an option is a command only when short and not prose: a file's
    line that opens with an English word that is a program ("next", "kind") is prose."""
    assert run_words("next we update the docs")[1] == frozenset() and run_words("kind of slow on arm")[1] == frozenset()
    assert "cocoapods" in run_words("pod install")[1]
    assert not _in_tool_call("The storefront is built on Next.js.", "next we move the banner under the fold")
    assert _in_tool_call("The storefront is built on Next.js.", "next build")


def test_a_command_run_in_most_sentences_is_no_evidence() -> None:
    """Where nearly every sentence runs the tool it tells no item apart (common, as a common word)."""
    busy = Vocabulary([f"npx playwright test --shard={n}/40" for n in range(40)])
    item = "We'll write the browser checks with Playwright."
    assert mention(item, "npx playwright test --project=webkit --retries=3", SESSION)
    assert not mention(item, "npx playwright test --project=webkit --retries=3", busy)


def _row(role: str, content: str) -> dict:
    return {"role": role, "content": content}


def _call(n: int, command: str) -> list[dict]:
    call = {"id": f"c{n}", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"cmd": command})}}
    return [{"role": "assistant", "content": "", "tool_calls": [call]}, {"role": "tool", "tool_call_id": f"c{n}", "content": "ok"}]


def test_the_backward_scan_finds_the_same_command_mentions(tmp_path: Path) -> None:
    rows = [_row("user", "The sensor firmware now targets Zephyr."), _row("assistant", "Noted, Zephyr it is.")]
    rows += [_row("user", "We'll keep the rollout manifests for Kubernetes in deploy/."), _row("assistant", "ok")]
    for n in range(3, 30):
        rows += [_row("user", f"status of ticket {n}?"), _row("assistant", f"ticket {n} is in review")]
        if n in (9, 17):
            rows += _call(n, "west flash --runner jlink")
        if n == 12:
            rows += _call(n, "kubectl rollout status deploy/web -n prod")
        if n == 21:
            rows += _call(n, "west build")
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    session = Session(path, Config())
    session.poll()
    items = [
        TrackedItem(id="zephyr", type=ItemType.DECISION, content="The sensor firmware now targets Zephyr.", entered_round=1),
        TrackedItem(id="k8s", type=ItemType.DECISION, content="We'll keep the rollout manifests for Kubernetes in deploy/.", entered_round=2),
    ]
    forward = occurrences(items, session.entries)
    assert {r.round for r in forward["zephyr"] if r.kind == "tool_call"} == {9, 17, 21}
    assert 12 in {r.round for r in forward["k8s"]}
    state = session.state()
    live_from = state.live[0].entry.seq
    backward = latest_occurrences(items, session.entries, live_from, state.rounds, 0.28, 50)
    for item in items:
        full = [  # before the live window, the backward scan looks for the latest reference of each round only
            r for n, r in enumerate(forward[item.id])
            if r.seq >= live_from or n + 1 == len(forward[item.id]) or forward[item.id][n + 1].round != r.round
        ]
        assert backward[item.id] == full[len(full) - len(backward[item.id]) :]
