"""Command lines in text: which program a line runs, and what that program belongs to.

A sentence that *runs* a tool names it as surely as an identifier does:
``npx playwright test --project=chromium`` is about Playwright however many rare
words of its own it adds, and ``west build -b <board>`` is about Zephyr (``west``
is Zephyr's meta-tool). The matcher (:mod:`ctx_tui.mentions`) asks this module for
the words a sentence *runs*: the program of each command (after runners such as
``npx``, ``uv run``, ``python -m`` or ``sudo``), its first subcommand, the
packages an install step names, and the product the program belongs to
(:data:`OWNERS`).

Where a command is: a code span of two words or more (`` `west flash` ``), a
line after a ``$ `` prompt, or a sentence that opens with a lower-case program
name and has the shape of a command (an option such as ``-b`` or
``--project=x``, or a runner first), or a command inside a sentence from a
runner (``npx``, ``uv run``...) or from a known program followed by an option
("I ran npx playwright test, all green"): *certain* commands. In a tool call's
argument (text that is no conversational turn) a line of two words or more that
opens with a known program (:data:`OWNERS`, :data:`GENERIC`) is one too: a
*loose* command, used only there (``west flash`` without an option). Quoted
arguments are blanked (a pattern's ``|`` splits nothing), code is no command
(``stripe = Stripe(key)``).

A tool's own configuration file names it too, wherever it is written (a path in
prose or in a tool call): ``playwright.config.ts``, ``.eslintrc.cjs``,
``alembic.ini``, ``docker-compose.override.yml`` (:func:`config_words`).

English words are programs too (``west``, ``make``, ``kind``): they count only
in such command positions, never in prose ("the west wing").

Cost: a sentence that opens with a capital and holds no code span is left at
once; a line whose first word is no known program and that has no option is
not split (most code and prose).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctx_tui import regex_cache

#: Words that run the next word as the program (``sudo make``, ``npx playwright``, ``python manage.py``).
RUNNERS = frozenset("sudo env time nohup exec command npx pnpx bunx uvx doas python python3 node ruby perl bash sh".split())
#: Two-word runners: ``<tool> run <program>``, ``python -m <module>``.
RUNNER_PAIRS = frozenset(
    tuple(pair.split())
    for pair in (
        "uv run", "poetry run", "pdm run", "hatch run", "pipenv run", "conda run", "pipx run", "rye run",
        "npm exec", "npm run", "pnpm exec", "pnpm dlx", "pnpm run", "yarn dlx", "yarn run", "yarn exec",
        "bun run", "bun x", "bundle exec", "python -m", "python3 -m", "py -m", "dotnet tool", "go tool",
    )
)
#: Programs that read files, text or a shell's state: what follows them is an argument (a pattern, a
#: file), never a subcommand (``rg opencode`` searches for the word, it does not run it).
UTILITIES = frozenset(
    """
    cd ls cat less more head tail grep rg egrep fgrep ag find fd sed awk echo printf curl wget mkdir rm rmdir cp mv
    ln touch chmod chown tar zip unzip gzip diff wc sort uniq xargs tee which whoami pwd export source set unset
    true false test sleep kill ps top htop open code vim vi nano emacs ssh scp rsync jq yq du df stat file tree
    """.split()
)
#: Programs every session runs whatever it is about (shells, version control, package managers of a
#: language, interpreters, and :data:`UTILITIES`): running one names no item by itself, only with a
#: subcommand that completes a name ("docker compose", "git lfs").
GENERIC = UTILITIES | frozenset(
    "git npm yarn pnpm pip pip3 python python3 py node deno bun ruby perl php java javac go bash sh zsh fish docker make cmake".split()
)
#: Programs whose name is not the name people give what they belong to: program -> the owners'
#: names (lower-case words as written); a program that is its own name is listed to be known (its
#: subcommand counts in a tool call). General knowledge of the tools, not of any example. A
#: language's own toolchain (cargo, pip, go, dotnet) is no owner of the language's name: a
#: language is the platform of everything a session runs, as :data:`GENERIC` says of Python.
OWNERS: dict[str, tuple[str, ...]] = {
    "west": ("zephyr",),
    "idf.py": ("esp-idf", "esp32"),
    "pio": ("platformio",),
    "arduino-cli": ("arduino",),
    "kubectl": ("kubernetes", "k8s"),
    "k9s": ("kubernetes", "k8s"),
    "kubectx": ("kubernetes", "k8s"),
    "minikube": ("kubernetes", "k8s"),
    "kind": ("kubernetes", "k8s"),
    "k3d": ("kubernetes", "k8s"),
    "eksctl": ("eks",),
    "gh": ("github",),
    "glab": ("gitlab",),
    "gcloud": ("gcp", "google cloud"),
    "gsutil": ("gcs", "gcp"),
    "bq": ("bigquery",),
    "az": ("azure",),
    "tf": ("terraform",),
    "tofu": ("opentofu", "terraform"),
    "psql": ("postgres", "postgresql"),
    "pg_dump": ("postgres", "postgresql"),
    "pg_restore": ("postgres", "postgresql"),
    "createdb": ("postgres", "postgresql"),
    "mysqldump": ("mysql",),
    "redis-cli": ("redis",),
    "mongosh": ("mongodb", "mongo"),
    "mongodump": ("mongodb", "mongo"),
    "sqlite3": ("sqlite",),
    "docker-compose": ("docker compose",),
    "xcodebuild": ("xcode",),
    "xcrun": ("xcode",),
    "pod": ("cocoapods",),
    "adb": ("android",),
    "sdkmanager": ("android",),
    "gradlew": ("gradle",),
    "mvn": ("maven",),
    "mvnw": ("maven",),
    "cargo": ("cargo",),
    "eas": ("expo",),
    "wrangler": ("cloudflare", "cloudflare workers"),
    "flyctl": ("fly.io",),
    "fly": ("fly.io",),
    "ansible-playbook": ("ansible",),
    "ansible-galaxy": ("ansible",),
    "huggingface-cli": ("hugging face",),
    "hf": ("hugging face",),
    "wandb": ("weights & biases", "w&b"),
    "sphinx-build": ("sphinx",),
    "sphinx-autobuild": ("sphinx",),
    "manage.py": ("django",),
    "django-admin": ("django",),
    "spark-submit": ("spark",),
    "pyspark": ("spark",),
    "kafka-topics": ("kafka",),
    "kcat": ("kafka",),
    "tsc": ("typescript",),
    "ng": ("angular",),
    "nuxi": ("nuxt",),
    "next": ("next.js",),
    "commitlint": ("conventional commits",),
    "cz": ("commitizen", "conventional commits"),
    "ollama": ("ollama",),
    "firebase": ("firebase",),
    "supabase": ("supabase",),
    "argocd": ("argo cd", "argocd"),
    "flutter": ("flutter",),
    "aws": ("aws",),
}
#: The programs and products of :data:`OWNERS`: an acronym among them is a tool's name (*GCP*, *EKS*),
#: other acronyms an item writes are things it talks about (*CI*, *API*, *SQL*), not tools it runs.
PRODUCTS = frozenset(OWNERS) | frozenset(w for owners in OWNERS.values() for owner in owners for w in owner.split())
#: Subcommands that install packages: the packages they name are run words too (``npm i -D @playwright/test``).
INSTALLS = frozenset("install i add remove uninstall upgrade".split())

_PROGRAM = regex_cache.compile(r"^[a-z0-9][a-z0-9._+-]*$")
_SUBCOMMAND = regex_cache.compile(r"^[a-z][a-z0-9-]*$")
_OPTION = regex_cache.compile(r"^--?[A-Za-z]")
_ASSIGNMENT = regex_cache.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SPAN = regex_cache.compile(r"`([^`\n]+)`")
_SEPARATOR = regex_cache.compile(r"\s*(?:&&|\|\||[;|])\s*")
_PACKAGE = regex_cache.compile(r"[@/=<>~^\[\],:]+")
_STRIP = "'\"()[]{},"
#: A tool's configuration file: ``<tool>.config.<ext>``, ``.<tool>rc[.<ext>]``, ``<tool>[.<variant>].<yml|yaml|toml|ini|cfg|hcl>``
#: (``docker-compose.override.yml``); group 1 or 2 is the tool. Not ``.json`` (``package.json``, ``tsconfig.json``).
_CONFIG = regex_cache.compile(
    r"(?:^|[\s/`'\"(])(?:\.([a-z][a-z0-9_-]*?)rc(?:\.[a-z]+)?|([a-z][a-z0-9_-]*)(?:\.config\.[a-z]+|(?:\.[a-z]+)?\.(?:ya?ml|toml|ini|cfg|hcl)))"
    r"(?=$|[\s`'\",;:)])"
)
#: What a configuration file can end with: a sentence holding none has no :func:`config_words` (most sentences).
_CONFIG_END = regex_cache.compile(r"\.(?:[a-z0-9_-]*rc\b|config\.|(?:ya?ml|toml|ini|cfg|hcl)\b)", re.I)


@dataclass(frozen=True, slots=True)
class Command:
    """One command: the words it runs (program, runners, subcommand, packages, owners), lower-case as written."""

    program: str
    words: frozenset[str]


def _program_name(token: str) -> str:
    """``./gradlew`` -> ``gradlew``, ``/usr/bin/python3`` -> ``python3``; '' if not a program name
    (programs are written in lower case: ``API error:`` opens no command)."""
    if "/" in token:
        if not token.startswith(("./", "../", "/", "~/")):
            return ""  # src/app.py: a file, not a program run
        token = token.rsplit("/", 1)[-1]
    for suffix in (".exe", ".cmd", ".bat"):
        if token.endswith(suffix):
            token = token[: -len(suffix)]
    return token if _PROGRAM.match(token) and any(c.isalpha() for c in token) else ""


def read_command(segment: str) -> Command | None:
    """The command ``segment`` runs (one pipeline step), or None when it opens with no program name."""
    tokens = [t.strip(_STRIP) for t in segment.split()]
    tokens = [t for t in tokens if t]
    n = 0
    while n < len(tokens) and _ASSIGNMENT.match(tokens[n]):
        n += 1  # FOO=1 BAR=2 program ...
    words: set[str] = set()
    while n < len(tokens):
        low = tokens[n].lower()
        pair = (low, tokens[n + 1].lower()) if n + 1 < len(tokens) else None
        if pair in RUNNER_PAIRS:
            words.add(low)
            n += 2
        elif low in RUNNERS:
            words.add(low)
            n += 1
        else:
            break
        while n < len(tokens) and (_OPTION.match(tokens[n]) or _ASSIGNMENT.match(tokens[n])):
            n += 1  # npx -y playwright, sudo -E make
    if n >= len(tokens):
        return None
    program = _program_name(tokens[n])
    if not program:
        return None
    words.add(program)
    stem = program.rsplit(".", 1)[0] if "." in program else program
    words.add(stem)  # idf.py names idf, deploy.sh deploy
    for owner in OWNERS.get(program, ()):
        words.update(owner.split())
    rest = tokens[n + 1 :]
    if rest and _SUBCOMMAND.match(rest[0]) and program not in UTILITIES:
        sub = rest[0]
        words.add(sub)
        if sub in INSTALLS:
            for token in rest[1:]:
                if not _OPTION.match(token):
                    words.update(p for p in _PACKAGE.split(token.lower()) if p and any(c.isalpha() for c in p))
    return Command(program, frozenset(words - {""}))


#: Code, not a command: an assignment, a call, a block (``stripe = Stripe(key)``, ``const flow = 1``).
_CODE = regex_cache.compile(r"\s[-+*/:]?=\s|[(){}]")
#: A quoted argument (a pattern, a message): its words are not run, and its ``|`` or ``;`` split nothing.
_QUOTED = regex_cache.compile(r"'[^']*'|\"[^\"]*\"")


def _commands_in(span: str) -> list[Command]:
    """The commands of a code span (`` `git lfs track` ``): of two words or more (`` `delta` `` is a
    name), and not code (`` `index = 4` ``)."""
    out: list[Command] = []
    for segment in _SEPARATOR.split(span):
        if len(segment.split()) > 1 and not _CODE.search(segment):
            command = read_command(segment)
            if command is not None:
                out.append(command)
    return out


def config_words(sentence: str) -> frozenset[str]:
    """The tools whose configuration files ``sentence`` names, and what they belong to (:data:`OWNERS`):
    ``playwright.config.ts`` names playwright, ``west.yml`` zephyr (west's), ``wrangler.toml``
    Cloudflare Workers."""
    if _CONFIG_END.search(sentence) is None:
        return frozenset()
    words: set[str] = set()
    for dotted, plain in _CONFIG.findall(sentence.lower()):
        name = dotted or plain
        words.add(name)
        for owner in OWNERS.get(name, ()):
            words.update(owner.split())
    return frozenset(words)


def _shaped(segment: str) -> bool:
    """Whether a segment of prose opening with a program-like word has a command's shape: an option
    (``-b``, ``--project=x``) among its words, or a runner first (``npx playwright test passes``)."""
    tokens = segment.split()
    if not tokens:
        return False
    first = tokens[0]
    if first in RUNNERS or (len(tokens) > 1 and (first, tokens[1]) in RUNNER_PAIRS):
        return True
    return any(_OPTION.match(t) for t in tokens[1:])


_NOTHING: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
#: A loose command (no option, no runner) has at most this many words and none of :data:`_PROSE`:
#: a line of a file the agent writes that opens with an English word that is a program ("next we
#: update the docs", "kind of slow") is prose.
LOOSE_WORDS = 5
_PROSE = frozenset("a an the of to in on for with and or but is are was were be it this that we you i our my not no as at by".split())
#: The first word of a line, and an option anywhere in it: a line whose first word is no known
#: program and that has no option cannot hold a command :func:`run_words` reads (most code and prose).
_HEAD = regex_cache.compile(r"[a-z0-9][a-z0-9._+-]*(?=\s|$)")
_ANY_OPTION = regex_cache.compile(r"\s--?[A-Za-z]")
_KNOWN = RUNNERS | GENERIC | OWNERS.keys() | {pair[0] for pair in RUNNER_PAIRS}
_OPENERS = frozenset("./~$")


#: Runners that open a command wherever they stand in a sentence ("I ran npx playwright test, all
#: green"): words no English sentence uses otherwise (and the pairs of :data:`RUNNER_PAIRS`).
INNER_RUNNERS = frozenset("npx pnpx bunx uvx".split())
#: A sentence holding none of these has no command inside it (:func:`_inner_words`).
_INNER_HINT = regex_cache.compile(r"\s(?:npx|pnpx|bunx|uvx|run|-m|exec|dlx|tool)\s|\s--?[A-Za-z]")
_CLAUSE_END = (",", ".", ";", ":", "!", "?", ")")


def _may_hold_inner(sentence: str) -> bool:
    """Substring tests first (a few C scans): most sentences hold neither an option nor a runner."""
    return (
        " -" in sentence or "npx" in sentence or "uvx" in sentence or " run " in sentence or " exec " in sentence
        or " dlx " in sentence or " tool " in sentence
    ) and _INNER_HINT.search(sentence) is not None


def _inner_words(sentence: str) -> set[str]:
    """The words of commands that start inside a sentence ("I ran npx playwright test and it
    passed", "after the rebase west build -b nrf5340dk works"): at a runner of
    :data:`INNER_RUNNERS` or :data:`RUNNER_PAIRS`, or at a known program (:data:`OWNERS`, or
    :data:`GENERIC` but a file tool) with an option among its next three words; up to the end
    of the clause."""
    tokens = _QUOTED.sub(" '' ", sentence).split()
    words: set[str] = set()
    for n in range(1, len(tokens)):
        token = tokens[n]
        if not (
            token in INNER_RUNNERS
            or (n + 1 < len(tokens) and (token, tokens[n + 1]) in RUNNER_PAIRS)
            or ((token in OWNERS or (token in GENERIC and token not in UTILITIES)) and any(_OPTION.match(t) for t in tokens[n + 1 : n + 4]))
        ):
            continue
        end = n
        while end < len(tokens) - 1 and not tokens[end].endswith(_CLAUSE_END):
            end += 1
        run = read_command(" ".join(tokens[n : end + 1]).rstrip("".join(_CLAUSE_END)))
        if run is not None:
            words |= run.words
    return words


def run_words(sentence: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words ``sentence`` runs: (in certain commands, in loose ones only), as the module's
    docstring says: loose ones count in a tool call's argument only."""
    configs = config_words(sentence)
    inner = _inner_words(sentence) if _may_hold_inner(sentence) else set()
    first = sentence[:1]
    if not first.islower() and first not in _OPENERS and "`" not in sentence:
        # most sentences: prose opening with a capital, no code span
        return (configs | inner, frozenset()) if configs or inner else _NOTHING
    certain: set[str] = set(configs) | inner
    if "`" in sentence:
        for span in _SPAN.findall(sentence):
            for command in _commands_in(_QUOTED.sub(" '' ", span)):
                certain |= command.words
    text = sentence.lstrip()
    if text.startswith("$ "):
        text = text[2:]
        for command in _commands_in(_QUOTED.sub(" '' ", text)):
            certain |= command.words
    loose: set[str] = set()
    head = _HEAD.match(text)
    if head is None and text[:1] in _OPENERS and " " in text:  # ./gradlew build, /usr/bin/make all
        head = _HEAD.match(_program_name(text.split(None, 1)[0]))
    if (head and head.group() in _KNOWN) or ((head or _ASSIGNMENT.match(text)) and _ANY_OPTION.search(text)):
        for segment in _SEPARATOR.split(_QUOTED.sub(" '' ", text)):
            run = read_command(segment)
            if run is None:
                continue
            if _shaped(segment):
                certain |= run.words
            elif run.program in OWNERS or run.program in GENERIC:
                words = segment.split()
                if 1 < len(words) <= LOOSE_WORDS and _PROSE.isdisjoint(words) and not _CODE.search(segment):
                    loose |= run.words  # not a lone word (a value), a sentence of prose or code
    return frozenset(certain), frozenset(loose - certain)
