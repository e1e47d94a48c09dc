"""ctx_tui.mentions: the one matcher — its terms, its evidence, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_tui import mentions
from ctx_tui.concepts import concept_entries, parse_concepts, same_words
from ctx_tui.config import Config
from ctx_tui.memory.decay import analyze
from ctx_tui.memory.items import TrackedItem
from ctx_tui.mentions import THRESHOLD, MentionIndex, Vocabulary, is_followup, mention, search_terms, sentences, term_keys, terms
from ctx_tui.window import Session

SESSION_TEXTS = [
    "the build is green",
    "the build failed on lint",
    "the page renders slowly",
    "deploy the app to staging",
    "the tests pass locally",
    "fixed the flaky test in the checkout page",
    *(f"build {n} finished in {n} minutes" for n in range(12)),
]
SESSION = Vocabulary(SESSION_TEXTS)


def test_distinctive_terms_count_more_than_common_words() -> None:
    item = "The dev server must run on port 5173 because the OAuth callback is registered for it."
    assert mention(item, "still 5173?", SESSION)  # a number of the item, alone
    assert mention(item, "I started the dev server on 5173 so the OAuth callback works.", SESSION)
    assert not mention(item, "port the date helpers to TypeScript", SESSION)  # one word, other meaning
    assert not mention("Keep the build fast", "the build is green", SESSION)  # common words alone


def test_a_short_question_about_the_item_mentions_it() -> None:
    item = "Amounts are always integer cents; never use floats for money."
    assert mention(item, "cents everywhere?", SESSION)  # short: the item holds most of what it says
    assert not mention(item, "cents everywhere in the page layout and the build scripts?", SESSION)  # long: one shared word
    assert not mention("Keep the build fast", "build green?", SESSION)  # short, but common words alone


def test_naming_other_identifiers_does_not_hide_a_mention() -> None:
    item = "Goal: support proration when a customer upgrades mid-cycle."
    sentence = "calculate_proration() handles the upgrade case."
    assert mention(item, sentence, SESSION)
    assert not mention(item, "calculate_totals() handles the invoice case.", SESSION)


def test_an_identifier_counts_once_and_its_parts_as_words() -> None:
    """Parts of an identifier count (nearly) as the words written alone and do not lengthen the
    sentence; a part both hold only as parts of different identifiers is no evidence."""
    session = Vocabulary([*SESSION_TEXTS, "review the PR before lunch", "the orders page loads slowly"])
    assert mention("Store the API token in the OS keyring.", "KeyringClient.save_token() is wired into SettingsViewModel.", session)
    assert mention(
        "Failed webhooks are retried with exponential backoff.",
        "WebhookRetryPolicy.backoff_delay() is wired into EventDispatcher and QueueConsumer.",
        session,
    )
    item = "widget3 layout helper3 gizmo3.py"
    assert not mention(item, "rework the widget1 layout and the helper1 function in gizmo1.py, then report.", session)
    assert mention(item, "rework the widget3 layout and the helper3 function in gizmo3.py, then report.", session)


def test_a_file_inside_a_folder_the_item_names_mentions_it() -> None:
    assert "=docs/api" in term_keys("docs/api/auth.md") and "=mkdocs" in term_keys("mkdocs.yml")
    item = "Don't rename any heading in docs/api/, external sites deep-link to the anchors."
    assert mention(item, "docs/api/auth.md anchors unchanged?", SESSION)
    assert not mention(item, "docs/guide/intro.md typo fixed", SESSION)


def test_evidence_names_the_sentence_and_the_matched_words() -> None:
    found = mention(
        "Config is read from ~/.config/devtool/config.toml only.",
        "Tests pass. I moved the parser to ~/.config/devtool/config.toml as asked! Then lunch.",
        SESSION,
    )
    assert found is not None
    assert found.sentence == "I moved the parser to ~/.config/devtool/config.toml as asked!"
    assert "~/.config/devtool/config.toml" in found.matched and not found.followup


def test_pronoun_follow_up_needs_the_turn_it_answers() -> None:
    item = "We'll store the auth token in the Keychain, not UserDefaults."
    assert is_followup("perfect, keep it there") and not is_followup("ship the release notes today")
    assert not is_followup("there are no tests for the parser")  # an existential "there" points nowhere
    hit = mention(item, "perfect, keep it there", SESSION, previous=True)
    assert hit is not None and hit.followup
    assert not mention(item, "perfect, keep it there", SESSION, previous=False)


def test_other_languages_code_and_odd_text_do_not_break_it() -> None:
    index = MentionIndex(SESSION)
    index.add("zh", "部署前必须运行数据库迁移")
    index.add("de", "Bitte jedes Experiment in wandb tracken")
    index.add("code", "Use `retry_with_backoff(max_attempts=6)` for webhooks")
    text = "```python\nretry_with_backoff(max_attempts=6)\n```\n部署前必须运行数据库迁移\n\x1b[31m[bold]red[/bold]\x00"
    found = index.find(text)
    assert set(found) == {"zh", "code"}
    assert index.find("") == {} and index.find("\n\n  \t") == {}
    assert term_keys("🙂 ——— ... /// ===") == frozenset()
    assert sentences("one. two!\nthree") == ["one.", "two!", "three"]


def test_many_items_cost_only_the_items_sharing_a_term(monkeypatch) -> None:  # noqa: ANN001
    """10,000 items: a sentence is scored against the items that share one of its terms, not all."""
    index = MentionIndex(Vocabulary())
    for n in range(10_000):
        index.add(f"i{n}", f"service{n} must keep endpoint{n} stable")
    scored: list[str] = []
    original = mentions._score

    def counting(profile, *args):  # noqa: ANN001, ANN002, ANN202
        scored.append(profile.text)
        return original(profile, *args)

    monkeypatch.setattr(mentions, "_score", counting)
    assert set(index.find("is endpoint4242 of service4242 still stable?")) == {"i4242"}
    assert len(scored) == 1  # 'stable' is shared by every item: it picks no candidate by itself
    index.remove("i4242")
    assert "i4242" not in index and index.find("endpoint4242") == {}


def test_huge_tool_output_never_counts_and_tool_arguments_do(tmp_path: Path) -> None:
    item = TrackedItem(id="mig", type="constraint", content="Never run migrations against the shared staging database", entered_round=1)
    rows = [
        {"role": "user", "content": item.content},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "next"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "function": {"name": "bash", "arguments": json.dumps({"cmd": "ls", "note": "migrations skip the shared staging database"})}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": (item.content + "\n") * 20_000},
        {"role": "user", "content": "and now"},
        {"role": "tool", "tool_call_id": "c1", "content": (item.content + "\n") * 20_000},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    session = Session(path, Config())
    session.poll()
    state = session.state()
    (status,) = analyze([item], session.entries, state.live, state.rounds, Config())
    assert status.referenced_rounds == (2,)  # the tool call's argument in round 2; no tool output
    assert status.last_reference is not None and status.last_reference.kind == "tool_call"
    assert status.last_reference.sentence == "migrations skip the shared staging database"


def test_words_written_differently_are_one_term() -> None:
    assert term_keys("production") & term_keys("prod")
    assert term_keys("the repository") & term_keys("repo")
    assert "set" not in term_keys("settings") and term_keys("settings") == term_keys("setting")
    assert term_keys("end-to-end") & term_keys("e2e")
    # a numeronym is the word it shortens, not an identifier of its own
    assert "k8s" in term_keys("k8s") & term_keys("Kubernetes") and "i18n" in term_keys("i18n") & term_keys("internationalization")
    assert mention("Every service ships as a Kubernetes Deployment with resource limits.", "the k8s manifests lack limits", SESSION)
    assert not term_keys("production") & term_keys("product page")  # the stemmer would make both "product"


def test_british_and_american_spellings_are_one_term() -> None:
    for british, american in [
        ("organisation", "organization"), ("initialised", "initialized"), ("analyse", "analyze"), ("colours", "colors"),
        ("licence", "license"), ("centre", "center"), ("catalogue", "catalog"), ("behaviour", "behavior"), ("grey", "gray"),
    ]:
        assert term_keys(british) == term_keys(american), (british, american)
    # -ise that is no suffix stays itself
    assert term_keys("promise") != term_keys("promize") and term_keys("exercise") == {"exercis"}
    assert mention("Authorize every admin request against the tenant policy.", "is each admin call authorised yet?", SESSION)


def test_a_verb_and_its_particle_written_with_a_hyphen_are_one_word() -> None:
    assert term_keys("sign-in") == term_keys("signin") and "sign" not in term_keys("sign-in")
    assert "login" in term_keys("log-in") and "log" not in term_keys("log-in")
    assert term_keys("set-up") == term_keys("setup") and term_keys("roll-out") == term_keys("rollout")
    assert "~test_set" in term_keys("held-out")  # the lexicon's hyphenated entries are read the same way
    # a modifier after the hyphen is no particle: tailwind-only is still Tailwind
    assert "tailwind" in term_keys("tailwind-only")
    assert mention("Opt-out links must be in every marketing email.", "does every newsletter carry the optout link?", SESSION)


def test_the_lexicon_links_a_tool_to_what_people_call_it() -> None:
    item = "Keep the Sentry DSN and the Stripe secret key in Vault, never in the .env file."
    assert mention(item, "the Stripe credentials stay in the secrets manager", SESSION) is not None
    assert mention(item, "the vault in the bank downtown was robbed", SESSION) is None  # one shared word, no second link
    parsed = {(t.key, t.surface) for t in terms("credentials go to the secret manager")}
    assert {("~secret", "credentials"), ("~secret_store", "secret manager")} <= parsed


def test_one_shared_concept_alone_is_never_a_mention() -> None:
    item = "Use Playwright for the browser tests."
    assert mention(item, "Cypress is popular these days", SESSION) is None  # both e2e tools, nothing else shared


def test_a_paraphrase_in_other_words_needs_less_of_the_cosine() -> None:
    item = "Store the API tokens in Vault and never in the repository."
    # credentials / tokens and secrets manager / Vault: the item said in other words (cosine 0.27, under
    # the threshold, counted 1 / PARAPHRASE times)
    found = mention(item, "the credentials sit in the secrets manager now, nothing sensitive is checked in", SESSION)
    assert found is not None and "secrets manager" in found.matched and found.score >= THRESHOLD
    # the same words in another context, with no concept named through other words: no paraphrase
    assert mention(item, "the vault in the bank downtown was robbed", SESSION) is None
    assert mention("Use Playwright for the browser tests.", "Cypress is popular these days", SESSION) is None


def test_a_concept_named_through_several_words_counts_more() -> None:
    """Each side's words for one concept count as their norm (words of one phrase once): *p95*,
    *latency* and *slow* against *response times* and *sluggish* say more of latency than one word."""
    item = "Keep the p95 latency of checkout under 300 ms and alert when it is slow."
    assert mention(item, "checkout response times creep up, the pager should fire before it gets sluggish", SESSION) is not None
    # one concept alone is still no mention, however many words name it
    assert mention(item, "the search page is sluggish and laggy on old phones", SESSION) is None
    assert mention(item, "the search results lag, response times are sluggish on the admin page", SESSION) is None


def test_two_technical_names_of_one_thing_count_as_a_shared_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """A concept both sides name through words that are no everyday English (*pgvector* / *HNSW*)
    weighs as a shared word; one named through everyday words (*slow* / *latency*) stays weaker."""
    jargon = ("We store embeddings in pgvector next to the orders table.", "the orders similarity lookup should use the HNSW index now")
    everyday = ("Keep the app responsive on slow phones.", "the latency on the old phones is bad")
    found = [mention(item, sentence, SESSION) for item, sentence in (jargon, everyday)]
    assert found[0] is not None and found[1] is not None
    monkeypatch.setattr(mentions, "JARGON", mentions.CONCEPT)
    weaker = [mention(item, sentence, SESSION) for item, sentence in (jargon, everyday)]
    assert weaker[0] is not None and weaker[0].score < found[0].score
    assert weaker[1] is not None and weaker[1].score == found[1].score


def test_a_web_page_is_not_pagination() -> None:
    """*paging* is *page* to the stemmer: it left the lexicon (every web page was pagination and on-call)."""
    item = "Goal: add pagination to the /v2/invoices endpoint with cursor tokens."
    assert mention(item, "the invoices page shows the wrong currency", SESSION) is None
    assert "~pagination" not in term_keys("the settings page") and "~on_call" not in term_keys("the settings page")
    assert mention(item, "can the invoices list page through results without offsets yet?", SESSION) is not None


@pytest.mark.parametrize(
    ("item", "sentence"),
    [
        # databases: a transaction is what makes writes atomic
        ("Wrap every write to the ledger in one database transaction.", "the two updates to the ledger have to be atomic, commit or roll back together"),
        # git: to land on the trunk is to merge to main
        ("Nobody merges to main without an approved review.", "don't land your branch on the trunk before someone signs off"),
        # concurrency: a mutex is a lock, a data race is threads racing
        ("Guard the shared cache with a mutex; we saw a data race in the worker pool.", "the threads still race on the cache map, take the lock before writing"),
        # background work: a background job is a Celery task
        ("Resize uploaded images to thumbnails in a background job.", "the picture scaling happens in a Celery task after the upload"),
        # email deliverability: SPF / DKIM / DMARC are how mail stays out of spam
        ("Sign outbound mail with DKIM and publish an SPF record so we stay out of spam.", "our newsletters land in spam again, check the DMARC and sender reputation"),
        # real-time audio: underruns and crackling come from blocking the audio callback
        ("Keep the audio callback free of locks and allocations.", "the buffer underruns come from the mutex in the DSP thread, crackling on every beat"),
        # health data: medical records are PHI under HIPAA
        ("Patient records are PHI: never log them, and only store them in the HIPAA account.", "medical records showed up in the debug output, that breaks our business associate agreement"),
        # HTTP caching: max-age is a Cache-Control header, hashed names bust the cache
        ("Serve static assets with long max-age and hashed file names.", "the cache-control header is a year now, with cache busting by content hash"),
        # testing: an arbitrary delay is a sleep, polling is waiting for a condition
        ("Tests must not depend on sleeps; wait for the element instead.", "no arbitrary delay in the specs, poll until the button shows up"),
        # bioinformatics: minimap2 is an aligner, hg38 is GRCh38 (the reference genome)
        ("Align the reads with bwa-mem against GRCh38.", "minimap2 maps everything to hg38 now, the aligner change is done"),
        # LLM apps: RAG context is the retrieved passages, Qdrant a vector store
        ("Answer only from the retrieved passages in the vector store.", "the bot must stick to the RAG context, nothing beyond what Qdrant returns"),
        # web scraping: a spider is a scraper, a proxy pool is rotating residential proxies
        ("Rotate residential proxies so the scraper does not get banned.", "the spider hits captchas again, the proxy pool is exhausted"),
        # GIS: WGS84 and EPSG:3857 are coordinate reference systems
        ("Reproject every layer to EPSG:3857 before tiling.", "the shapefile is still in WGS84, convert the CRS before making vector tiles"),
    ],
)
def test_the_lexicon_covers_domains_beyond_the_evaluation_sets(item: str, sentence: str) -> None:
    assert mention(item, sentence, SESSION) is not None


@pytest.mark.parametrize(
    ("item", "sentence"),
    [
        ("Keep the audio callback free of locks and allocations.", "the callback URL of the payment provider changed"),
        ("Patient records are PHI: never log them, and only store them in the HIPAA account.", "the patient onboarding form needs a progress bar"),
        ("Serve static assets with long max-age and hashed file names.", "the static page of the company history is outdated"),
        ("Tests must not depend on sleeps; wait for the element instead.", "the delay on the payment provider side is about a day"),
        ("Sign outbound mail with DKIM and publish an SPF record so we stay out of spam.", "the spam filter of the support inbox is too strict"),
        ("Align the reads with bwa-mem against GRCh38.", "the reads table in the app needs an index"),
        ("Fuse wheel odometry and the IMU in an EKF.", "the IMU datasheet PDF is in the shared drive"),
        ("Rotate residential proxies so the scraper does not get banned.", "the corporate proxy blocks pip install on the build agents"),
        ("Reproject every layer to EPSG:3857 before tiling.", "the layer panel in the editor needs a reorder button"),
        ("No locks on the audio thread; talk to the UI through a lock-free FIFO.", "the audio settings screen needs a volume slider"),
    ],
)
def test_the_lexicon_beyond_the_sets_keeps_other_subjects_apart(item: str, sentence: str) -> None:
    assert mention(item, sentence, SESSION) is None


def test_the_new_kind_of_tool_is_the_tool_the_item_names() -> None:
    item = "We're replacing the event bus with NATS."
    # "the new broker" is NATS by what it is: the concept comes from the name, not from "event bus",
    # so the shared *event* does not make it a concept read from a shared word
    assert mention(item, "the new broker drops an event now and then under heavy load at night", SESSION) is not None
    assert mention(item, "the old broker dropped an event now and then under heavy load at night", SESSION) is not None
    # without the marker it is some broker, one shared word and a sentence of its own
    assert mention(item, "our broker drops an event now and then under heavy load at night", SESSION) is None


def test_bm25_terms_have_no_concepts() -> None:
    assert not any(k.startswith("~") for k in search_terms("credentials in the Keychain, run the Playwright suite"))


def test_the_packaged_lexicon_is_broad_and_well_formed() -> None:
    entries = concept_entries()
    assert len(entries) >= 700 and sum(len(t) for _, t in entries) >= 7000
    assert len({name for name, _ in entries}) == len(entries)  # one line per concept
    assert len(same_words()) >= 340
    with pytest.raises(ValueError, match="concepts.txt:2"):
        parse_concepts("# header\nno colon here\n")
    # a phrase of function words and one content word would stand for every use of that word: dropped
    assert "~login" not in {t.key for t in terms("the log rotation")}


def test_naming_only_the_alternative_the_item_turns_down_is_another_subject() -> None:
    item = "We'll keep sessions in Redis, not Memcached."
    assert mention(item, "Memcached on the old cluster is evicting the cart entries", SESSION) is None
    assert mention(item, "sessions are in Redis now, Memcached is gone", SESSION) is not None
    assert mention(item, "still no Memcached?", SESSION) is not None  # a short question about just that
    # an item that opens with the ban is about what it bans
    assert mention("No print statements in the library code.", "I removed the print statements from the loader", SESSION)
    # nor does one concept of the lexicon beside it ("squash" gives the item's *rebase*; *commits* is what it turns down)
    rebase = "I prefer rebasing feature branches onto main over merge commits."
    assert mention(rebase, "Can you squash the fixup commits?", SESSION) is None
    assert mention(rebase, "rebased the feature branch onto main, no merge commits", SESSION) is not None


def test_turning_down_the_same_alternative_restates_the_item() -> None:
    """A sentence that says no to what the item turns down agrees with it: the alternative is then
    the item's subject, not another one (a filler such as *pls* says nothing of its own)."""
    item = "We'll keep sessions in Redis, not Memcached."
    assert mention(item, "no Memcached in the new services pls", SESSION) is not None
    assert mention(item, "not Memcached for the new services either", SESSION) is not None
    # naming it without turning it down is still about the other thing
    assert mention(item, "Memcached in the new services evicts too much", SESSION) is None
    assert mention(item, "no Memcached for the cart service, it evicts entries under load", SESSION) is None  # its own subject


def test_function_words_and_fillers_say_nothing_of_the_subject() -> None:
    """Indefinite pronouns, prepositions and conjunctions of grammar, and the filler noun *stuff*, are
    no terms: a paraphrase is not made longer by them (next to *thing*, *nothing*, *please*)."""
    assert search_terms("none of the stuff works without the flag, although nobody checked it yet") == ["work", "flag", "check"]
    item = "Keep minSdkVersion at 26 so the app runs on Android 8."
    # older devices / the minimum version beside Android: 0.27 with the function words counted
    assert mention(item, "the older devices still have to work, none of the new Android stuff yet", SESSION) is not None
    assert mention(item, "older phones must keep working, nobody upgrades their handsets", SESSION) is not None
    # older devices named in another context: one concept, nothing else of the item
    assert mention(item, "the older devices in the test lab need new batteries", SESSION) is None
    assert mention(item, "Android devices in the lab are all older", SESSION) is None


def test_a_shared_quantity_alone_is_another_subject() -> None:
    item = "Access logs are kept for 45 days, then deleted."
    assert mention(item, "the 45 days trial ends on Friday", SESSION) is None
    assert mention(item, "still 45 days?", SESSION) is not None
    assert mention(item, "access logs older than 45 days are gone now", SESSION) is not None


def test_a_short_question_about_the_items_quantity_in_its_own_words_mentions_it() -> None:
    """A short question about the item's number and the word the item writes beside it asks about
    the item ("still temperature 0?"), as "still 45 days?" does; a word of its own beside the number
    is another quantity ("version 3 of the trailer?", "6 attempts per quiz?")."""
    bot = "We'll keep temperature at 0 for the support bot so its answers are reproducible."
    assert mention(bot, "still temperature 0?", SESSION)
    assert not mention(bot, "server room temperature 0 degrees?", SESSION)
    saves = "Never break loading of version 3 saves."
    assert mention(saves, "still version 3?", SESSION)
    assert not mention(saves, "version 3 of the trailer?", SESSION)
    lock = "Lock the account after 6 attempts to log in."
    assert mention(lock, "6 attempts?", SESSION)
    assert not mention(lock, "6 attempts per quiz?", SESSION)
    slo = "The checkout SLO is 99.9% availability over 28 days."
    assert not mention(slo, "28 days of S3 retention?", SESSION)


def test_a_number_in_a_commands_arguments_is_no_mention_by_itself() -> None:
    """In a tool call's arguments a shared number is a count, a flag's value or a line number."""
    item = "The checkout SLO is 99.9% availability over 28 days; page on-call when the budget burns."
    index = MentionIndex(SESSION)
    index.add("slo", item)
    for command in ("grep -rn todo src/ | head -28", "git log -n 28 --oneline", "sed -n 28,40p app.py", "sleep 28"):
        assert index.find(command, strict=True) == {}, command
    # an identifier or a path of the item still is, number or not
    assert set(index.find("promtool test rules slo/checkout-slo.yaml --for 28 days", strict=True)) == {"slo"}
    assert set(index.find("curl -s grafana/api/slo | jq .availability == 99.9", strict=True)) == {"slo"}


def test_a_names_conventional_short_form_mentions_it() -> None:
    """The lexicon's short forms of a name (OTEL, psql, kubectl) are the name, inside identifiers too."""
    otel = "We'll instrument the services with OpenTelemetry and send traces to Tempo instead of Jaeger."
    assert mention(otel, "OTEL_SERVICE_NAME is set per deployment now", SESSION) is not None
    assert mention(otel, "the service name is set per deployment now", SESSION) is None
    pg = "Reports read from the Postgres replica, never from the primary."
    assert mention(pg, "psql against the replica shows the same lag", SESSION) is not None
    k8s = "Every service ships as a Kubernetes Deployment with resource limits set."
    assert mention(k8s, "kubectl shows two pods without limits", SESSION) is not None
    # a part of another identifier that is no whole name of the item still counts for nothing
    assert mention("The widget1 panel is frozen.", "widget3_layout got a new margin", SESSION) is None


def test_a_short_question_naming_the_items_tool_mentions_it() -> None:
    item = "We'll render the charts with Vega-Lite and drop matplotlib."
    # the words beside the name say how it goes, however rare they are in the session
    dagster = "The nightly reports and the warehouse backfills are orchestrated by Dagster from now on."
    assert mention(dagster, "Dagster schedules healthy?", SESSION)
    assert mention("No sleep() in the retry loop of the uploader; back off on the response headers instead.", "any sleeps left?", SESSION)
    assert mention(item, "Vega-Lite charts done?", SESSION)
    # a statement with its own claim, a word of a longer name, or a plain word capitalised at the start: not a name
    assert not mention("The service must run on Python 3.9 for the old hosts.", "Python 3.12 starts faster", SESSION)
    assert not mention("Commit messages follow Conventional Commits so the changelog is generated.", "squash the fixup commits?", SESSION)
    assert not mention("Dagster owns the reports; nothing else schedules them.", "owns the domain name?", SESSION)


def test_a_number_labelling_other_things_is_no_evidence() -> None:
    """The same number next to other words on each side ("API level 34" / "34 results") shares a
    number, not what it counts; next to the same word it still does."""
    item = "Android builds target API level 34."
    assert mention(item, "the API returns 34 results per page", SESSION) is None
    assert mention(item, "API level 34 is set in the Gradle file", SESSION) is not None
    assert mention("Uploads are capped at 25 MB per file.", "a 25 MB upload went through", SESSION) is not None
    assert mention("Uploads are capped at 25 MB per file.", "uploads still capped at 25?", SESSION) is not None


def test_a_number_with_the_word_it_counts_is_a_quantity() -> None:
    item = "Uploads are retried with backoff, at most 5 retries per file."
    assert mention(item, "5 retries of the password lock the account", SESSION) is None  # an amount of another thing
    assert mention(item, "version 5 of the logo is in the shared drive", SESSION) is None
    assert mention(item, "the upload backoff stops after 5 retries now", SESSION) is not None
    # an address is no amount: the words beside it still count
    subnet = "The office VPN is 10.8.0.0/16; the new VPC must not overlap it."
    assert mention(subnet, "Took 10.9.0.0/16 for the VPC, clear of 10.8.0.0/16.", SESSION) is not None


def test_a_follow_up_points_back_near_its_start() -> None:
    assert is_followup("nice, do the rest the same way")
    assert not is_followup("the nightly build took an hour this morning")  # a time of its own
    assert not is_followup("I renamed the module since the linter kept flagging it")  # points inside the sentence


def test_an_everyday_word_as_a_part_of_a_name_never_counts_alone() -> None:
    """*Fast* of ``FastAPI``, *Next* of ``NextAuth``: everyday English, no evidence of the name by
    themselves; *Rx* of ``RxJava``, *Keychain* of ``KeychainHelper``, *Tailwind* of ``TailwindCSS`` name it."""
    from ctx_tui.english import common_keys, source
    from ctx_tui.mentions import word_key

    everyday = common_keys(word_key)
    assert source() and {"fast", "next", word_key("payment")} <= everyday
    assert not {"rx", "keychain", "tailwind", word_key("uvicorn")} & everyday
    fastapi = "Serve the API with FastAPI behind uvicorn."
    assert not mention(fastapi, "make it fast", SESSION)
    assert not mention(fastapi, "Fast enough?", SESSION)
    assert not mention("Auth goes through NextAuth with the GitHub provider.", "Next done?", SESSION)
    assert not mention("Use the PaymentIntent API, not Charges.", "payment done?", SESSION)
    assert not mention("Keep the test suite fast.", "FastAPI startup regressed", SESSION)  # the other way round
    # beside other evidence, or the whole name: counted
    assert mention(fastapi, "fast startup on uvicorn now?", SESSION)
    assert mention(fastapi, "is FastAPI still behind uvicorn?", SESSION)
    # a part that is no everyday word names it
    assert mention("We use RxJava for the event bus in the Android app.", "Rx is fine there", SESSION)
    assert mention("Keep the KeychainHelper as the only place tokens are written.", "keychain ok?", SESSION)
    assert mention("Style everything with TailwindCSS utility classes.", "tailwind only?", SESSION)


def test_a_file_name_that_carries_the_items_words_is_one_of_its_files() -> None:
    """``values-prod.yaml`` is a values file: the item's *values* and its *files* (the file name's
    kind), so it mentions "Keep Helm values per environment in separate files" however much the
    sentence says of its own; a file name that carries none of the item's words is no file of it."""
    helm = "Keep Helm values per environment in separate files, not one file with if-blocks."
    assert mention(helm, "values-prod.yaml now only holds the prod overrides, nice", SESSION)
    assert mention(helm, "values-staging.yaml is in", SESSION)
    assert not mention(helm, "main.py now only holds the prod overrides", SESSION)
    assert not mention(helm, "README.md has a typo in the intro", SESSION)
    assert not mention(helm, "the values in config.py are wrong", SESSION)
    assert not mention(helm, "docs/values.md explains the pricing values", SESSION)  # values of another thing
    assert "~file" in term_keys("see values-prod.yaml") and "~file" not in term_keys("see docs/api")


def test_what_the_item_says_of_new_things_is_not_said_of_old_ones() -> None:
    """A word the item writes after *new* and the sentence after *old* (or *legacy*, *existing*) is
    said of other things: no evidence there; the same age, or none, still counts."""
    coroutines = "Use Kotlin coroutines with Flow, no RxJava in new Android code."
    assert not mention(coroutines, "the old RxJava code in payments crashes on rotation", SESSION)
    assert mention(coroutines, "the new Android code uses Flow only", SESSION)
    assert mention(coroutines, "RxJava crept into the new Android code again", SESSION)
    checkout = "Don't touch the legacy jQuery checkout in static/js/checkout_old.js"
    assert not mention(checkout, "the new checkout needs a spinner", SESSION)
    assert not mention(checkout, "new checkout?", SESSION)
    assert mention(checkout, "the legacy checkout is untouched", SESSION)
    assert mention(checkout, "checkout_old.js is untouched, the new checkout lives beside it", SESSION)


def test_an_approval_answers_the_turn_before_it_as_a_whole() -> None:
    """An answer that only approves ("good call, go ahead") follows up the previous turn, pronoun or not."""
    for approval in ("good call, go ahead", "sounds good!", "lgtm, thanks", "yes please", "ok", "Perfect, ship it.", "got it, will do"):
        assert is_followup(approval), approval
    # an acknowledgement that goes on to say something new is not about the turn before
    for other in ("Now update the changelog.", "ok, now update the changelog", "thanks, bump the version too", "good, the call to the API is slow"):
        assert not is_followup(other), other
    # the words of an act, outside one, say something of their own
    for other in ("fine-tuning diverged again", "call the endpoint twice", "continue the migration on staging", "go"):
        assert not is_followup(other), other
    item = "We're going with Karpenter instead of the cluster autoscaler for node scaling."
    hit = mention(item, "good call, go ahead", SESSION, previous=True)
    assert hit is not None and hit.followup
    # approving a turn about something else says nothing of the item
    assert not mention(item, "good call, go ahead", SESSION, previous=False)


def test_an_approval_counts_through_the_other_speakers_turn() -> None:
    """In a transcript: the user's "sounds good" after the assistant's turn that mentions the item is a
    reference in the user's round; after a turn about something else, none."""
    from ctx_tui.memory.references import occurrences
    from ctx_tui.transcripts.model import Entry, Kind

    def entry(seq: int, role: str, text: str, rnd: int) -> Entry:
        return Entry(seq=seq, kind=Kind(role), role=role, text=text, tokens=10, round=rnd)

    item = TrackedItem(id="k", type="decision", content="Karpenter replaces the cluster autoscaler for node scaling.", entered_round=1)
    entries = [
        entry(0, "user", "The nodes take five minutes to come up.", 1),
        entry(1, "assistant", "Switching node scaling to Karpenter and removing the cluster autoscaler.", 1),
        entry(2, "user", "good call, go ahead", 2),
        entry(3, "assistant", "The header overlaps the search bar on narrow screens.", 2),
        entry(4, "user", "sounds good", 3),
    ]
    refs = occurrences([item], entries)["k"]
    assert [(r.round, r.followup) for r in refs] == [(1, False), (2, True)]


def test_a_two_word_phrase_of_the_item_counts_once() -> None:
    item = "Never restart the primary database during business hours; schedule it for the night window."
    # "business hours" names one thing, said of another subject
    assert mention(item, "business hours on the contact page show the wrong timezone", SESSION) is None
    assert mention(item, "I moved the database restart out of business hours", SESSION) is not None
    # two names side by side are two things
    assert mention("We're moving the scheduler from Celery to Dramatiq.", "Ported the mail queue to Dramatiq, Celery is out.", SESSION)


def test_a_camel_case_name_is_its_word_inside_another_identifier() -> None:
    item = "Staff accounts must use hardware keys with WebAuthn for every sign-in; no SMS codes."
    assert mention(item, "ENFORCE_WEBAUTHN=1 on the staff portal", SESSION) is not None
    # parts of two different identifiers are still no evidence
    assert mention("Keep the token in UserDefaults only for the demo build.", "UserDefaultsStore.swift holds the theme flag", SESSION) is None


def test_a_concept_read_from_the_shared_word_adds_no_evidence() -> None:
    item = "We'll keep the auth token in the Keychain, not in UserDefaults."
    # *auth* is shared, and the login concept the item gives through that very word adds nothing:
    # one term, and a sentence with its own subject
    assert mention(item, "The auth screen needs a forgot-password link.", SESSION) is None
    assert mention(item, "the auth token sits in the keychain now", SESSION) is not None
