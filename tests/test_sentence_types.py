"""How rules, tastes and choices are said beyond the trigger words (memory/sentence_types.py).

One sentence per frame, in wording of its own (not the eval sets'), and beside each
frame the near miss it must leave alone: a report, a one-off task, a choice made long ago.
"""

from __future__ import annotations

import pytest

from ctx_tui.memory.extract import extract_items
from ctx_tui.memory.items import ItemType
from ctx_tui.memory.sentence_types import classify, may_state
from ctx_tui.transcripts.model import Entry, Kind

C, P, D = ItemType.CONSTRAINT, ItemType.USER_PREFERENCE, ItemType.DECISION


@pytest.mark.parametrize(
    "sentence, role, expected",
    [
        # a rule opening a later clause
        ("the cache layer is shared, so don't rename its keys", "user", C),
        ("merge the branch, but make sure the changelog is updated", "user", C),
        ("tag the release, always sign the tags", "user", C),
        # typographic apostrophes and left-out ones read like ASCII ones
        ("we’re pinned to a vendor SDK, so don’t bump it", "user", C),
        ("I’ll keep the parser hand-written rather than generated.", "assistant", D),
        ("id rather you ask before deleting files", "user", P),
        ("also ok gRPC, not REST", "user", D),
        ("I like your plan, go ahead", "user", None),
        ("the tests don't pass on arm64", "user", None),
        # scope of a standing rule
        ("from now on run the formatter before each commit", "user", C),
        # a thing declared protected
        ("the generated client is off limits", "user", C),
        ("hands off the billing module", "user", C),
        ("leave the old migrations alone", "user", C),
        ("leave a note in the PR description", "user", None),
        # a kind of change ruled out
        ("no new tables, extend the existing ones", "user", C),
        ("no raw SQL anywhere, go through the ORM", "user", C),
        ("no errors in the log this time", "user", None),
        ("nothing that I tried worked", "user", None),
        # a version held
        ("we're locked to node 16 on the build agents", "user", C),
        ("we stayed on Python 3.8 last year because of the cluster", "user", None),
        # a limit with an amount
        ("the docker image can't grow past 500MB", "user", C),
        ("cold start budget is 800ms on the cheapest phone", "user", C),
        ("keep the bundle under 300kb", "user", C),
        ("the page loaded in under 2 seconds on my laptop", "user", None),
        ("we hit the rate limit at 100 requests per minute yesterday", "user", None),
        ("the budget report for Q3 is in the shared drive", "user", None),
        ("max 5 retries per job, the queue can't take more", "user", C),
        ("keep each migration under 500 statements", "user", C),
        ("the limit seems to be 100 by default", "user", None),
        ("the budget was $200 last quarter", "user", None),
        ("I can't upgrade pip, it errors out", "user", None),
        # a warning of what follows a broken rule
        ("the public ids stay stable, the mobile app crashes otherwise", "user", C),
        # tastes stated about oneself
        ("i really like small commits with clear messages", "user", P),
        ("i'm not a fan of magic numbers, name your constants", "user", P),
        ("whenever you change a function, show me the whole function", "user", P),
        ("composition over inheritance please", "user", P),
        ("keep the functions small", "user", P),
        ("tables are easier for me to scan than paragraphs", "user", P),
        ("I like it, thanks!", "user", None),
        ("i love how the cache never invalidates, great stuff", "user", None),
        ("when you run it, paste the output here", "user", None),
        ("I don't need it anymore, delete the branch", "user", None),
        ("write a short summary of the PR for the release notes", "user", None),
        # choices settled by conceding, closing, or stating them
        ("ok, postgres it is", "user", D),
        ("alright, go ahead with the queue-based design then", "user", D),
        ("fine, use the vendor SDK and skip our own client", "user", D),
        ("ok gRPC, not REST", "user", D),
        ("we pick redis for the sessions, not memcached", "user", D),
        ("I went with a trie for the prefix lookups since the keys share long prefixes.", "assistant", D),
        ("I'll model the states as an enum rather than string constants.", "assistant", D),
        ("alright, let me know when it's done", "user", None),
        ("ok lets use the queue for the uploads", "user", D),
        ("The hybrid approach lets us work with stubborn apps.", "assistant", None),
        ("it is what it is", "user", None),
        ("keep going with the migration", "user", None),
        ("we're moving to the new office next week", "user", None),
        ("I'll run the tests instead of guessing.", "assistant", None),
        ("I picked up the change from the main branch.", "assistant", None),
        # history and choices put off
        ("we went with mongo back in 2017 and regret it", "user", None),
        ("let's not pick a queue yet", "user", None),
        ("maybe we decide about the CDN later", "user", None),
        # a question before a remark states nothing
        ("should we always pin the versions? nobody remembers why", "user", None),
        # rule, taste and choice words with no sentence in the sets (kept as vocabulary; see docs/memory.md)
        ("force pushes are banned on shared branches", "user", C),
        ("backwards compatibility is non-negotiable", "user", C),
        ("no touching the CI config", "user", C),
        ("the wire format stays as is", "user", C),
        ("stick to the standard library for this tool", "user", C),
        ("my preference is snake_case for file names", "user", P),
        ("we're switching to pnpm for the monorepo", "user", D),
        ("I'm using a bounded queue instead of an unbounded channel so memory stays flat.", "assistant", D),
        ("we won't use an ORM for this service", "user", D),
        ("if we went with Kafka, ordering would come from the partition key", "user", None),
        ("One option would be to go with SQS, though it adds cost.", "assistant", None),
        ("I'm using the staging cluster right now, so wait a bit", "user", None),
        # near misses found by sentences written after the frames (see docs/memory.md)
        ("our budget for the offsite is 5k", "user", None),
        ("the image stays at 1.2GB even after the cleanup", "user", None),
        ("no new errors since the fix, looks good", "user", None),
        ("right, the test was wrong not the code", "user", None),
        ("I don't need the logs anymore, you can delete them", "user", None),
        ("I picked the failing test from the CI log and reproduced it locally.", "assistant", None),
        ("dont know why the ISR fires twice", "user", None),
        ("we went with zephyr on the last product and it was painful", "user", None),
        ("i like the new plot colors", "user", None),
        ("i find early returns much easier to follow", "user", P),
        ("for me type annotations everywhere make review so much easier", "user", P),
        ("ISR handlers can't allocate, period", "user", C),
        ("parquet it is for the exports", "user", D),
        ("Bitte nichts an der CI-Pipeline ändern.", "user", C),
        # states held, bounds set, options approved
        ("keep it backward compatible with the 2.x clients", "user", C),
        ("keep the old endpoint working until Q3", "user", C),
        ("limit retries to 3", "user", C),
        ("we have a schema freeze until the release", "user", C),
        ("only the release bot may push tags", "user", C),
        ("keep me posted on the deploy", "user", None),
        ("keep an eye on the logs while it deploys", "user", None),
        ("i'm used to pytest, so use that for the new tests", "user", P),
        ("i'm used to this error by now", "user", None),
        ("ok, approve option 3", "user", D),
        ("ok, the option 2 output looks weird", "user", None),
        ("we'll do it with a cron job, not a daemon", "user", D),
        ("I'll fix it tomorrow, not today", "user", None),
        ("sqlite is enough, skip postgres", "user", D),
        # other languages
        ("Non toccare il file di configurazione, è condiviso.", "user", C),
        ("N'ajoute pas de nouvelles dépendances.", "user", C),
        ("El job siempre falla a las 3am.", "user", None),
        ("Ne pas toucher au dossier vendor.", "user", C),
        ("Non cambiare la firma delle funzioni pubbliche.", "user", C),
        ("Ça ne marche pas après le redémarrage.", "user", None),
        ("Il test non funziona su Windows.", "user", None),
        ("No renombres las columnas, el BI depende de ellas.", "user", C),
        ("Wir haben uns für Kafka entschieden.", "user", D),
        ("J'aime bien les messages de commit courts.", "user", P),
        ("Debes mantener la API compatible con la versión 1.", "user", C),
        ("Debe ser un problema de permisos.", "user", None),
        ("Vermeide neue Abhängigkeiten.", "user", C),
        ("Eu gostaria que os commits fossem pequenos.", "user", P),
        ("Eu gostaria de saber por que o build falhou.", "user", None),
        ("Dann nehmen wir Redis für den Cache.", "user", D),
        ("Dann starten wir den Server neu.", "user", None),
        ("Nunca hagas push directo a main.", "user", C),
        ("不要修改数据库的表结构。", "user", C),
        ("Je préfère les noms de variables en anglais.", "user", P),
        ("Vamos con Postgres para la cola.", "user", D),
        ("haz el deploy de staging porfa", "user", None),
    ],
)
def test_frames(sentence: str, role: str, expected: ItemType | None) -> None:
    assert classify(sentence, role) is expected


def test_assistant_text_is_prefiltered_by_choice_words_only() -> None:
    line = "Keep in mind you must never block the event loop; no new threads."
    assert may_state(line, "user") and classify(line, "user") is C
    assert not may_state(line, "assistant") and classify(line, "assistant") is None
    assert may_state("I went with a trie since the keys share prefixes.", "assistant")


def test_the_line_prefilter_keeps_every_sentence_classify_takes() -> None:
    """Extraction skips a line ``may_state`` rejects: it passes every line holding a sentence that states an item."""
    sentence = "ok gRPC, not REST"
    assert classify(sentence, "user") is D
    for line in (sentence, f"Thanks. {sentence}", f"Is that it? {sentence}", f"分かった。{sentence}"):
        assert may_state(line), line
    prompt = "Compare gRPC and REST for the internal API."
    entries = [
        Entry(seq=0, kind=Kind.USER, role="user", text=prompt, tokens=5, round=1),
        Entry(seq=1, kind=Kind.USER, role="user", text=f"Thanks for the table. {sentence}", tokens=5, round=2),
    ]
    assert [(x.item.type, x.item.content) for x in extract_items(entries)] == [(ItemType.GOAL, prompt), (D, sentence)]
