"""Does this text mention that item? The one matcher of ctx-tui.

Decay (``memory.references``), compression's fact check and retrieval all ask
the same question of text, so they share this module: its terms, its stop
words, its stemmer and its scoring.

Usage::

    from ctx_tui.mentions import MentionIndex, Vocabulary

    vocab = Vocabulary()                  # IDF over the session (feed it what you read)
    index = MentionIndex(vocab)
    index.add("no-push", "Never push to main without a review")
    for sentence in sentences(text):
        vocab.add(sentence)
    found = index.find(text)              # {"no-push": Mention(score, sentence, matched, ...)}
    mention("Never push to main without a review", text)   # one-off, no index

**Terms** (:func:`terms`): every run of text becomes one or more terms —

* plain words, lower-cased and stemmed with the Snowball English stemmer
  (``deploys``/``deployed``/``deployment`` -> ``deploy``; ``applied`` ->
  ``appli``), minus :data:`STOP_WORDS` (function words of English grammar,
  never domain words);
* identifiers (``snake_case``, ``camelCase``, ``dotted.names``, ``A100``,
  ``ranker-v3``), paths and URLs, kept whole (key ``=...``) *and* split into
  their word parts (:data:`PART`: nearly the word written alone, and outside the
  sentence's norm: an identifier counts once);
* numbers of two or more digits, versions and addresses (key ``#...``; a
  dotted number also gives its prefixes, so ``10.42`` finds ``10.42.0.0/16``).
* the concepts of the lexicon (``concepts.txt``, read by :mod:`ctx_tui.concepts`):
  a word, identifier or run of words there also gives ``~concept``
  (*Keychain* and *secure storage* both give ``~secret_store``), and words
  written differently are one word (*production* is *prod*).

**Scoring** (:func:`similarity`): the cosine between the item's and the
sentence's term vectors, each term weighted by its IDF over the session
(:class:`Vocabulary`) times :data:`STRONG` for identifiers, paths and numbers.
Concepts are weaker evidence (:data:`CONCEPT`): one counts only where the two
sides name it through words the other does not have, and it adds to the dot
product without adding to the norms. So a distinctive identifier counts for much more than a common word, a short
follow-up that names the item's one rare term ("still on 5173?") scores high,
and a long sentence that shares one word with the item scores low. A mention
needs ``score >= threshold`` (:data:`THRESHOLD`) *and* at least one matched
term that is not common in the session (:data:`COMMON_SHARE`): common words
alone are never enough. Nor, outside a short question about just that, are the
alternative the item turns down ("..., not UserDefaults": :func:`_rejected`)
or a quantity alone (numbers, :data:`UNITS` and the words written next to a number: "28 days",
"6 attempts", "version 3": :func:`_counted`), or one distinctive term in a
sentence with :data:`OWN_WORDS` plain words of its own ("the iOS simulator crashes on launch"
against "Minimum iOS version stays 15": :func:`_another_subject`). A short question naming one of
the item's names (:func:`_names`: "Playwright suite green?") mentions it (:func:`_names_the_item`),
and so does a command line that runs one (:func:`_runs_the_item`: ``npx playwright test
--project=chromium``; what a command runs is :mod:`ctx_tui.command_lines`' to say).

**Sentences**: text is matched sentence by sentence (lines, then sentence
punctuation); the best sentence is the evidence. A short sentence that opens
an answer and points back with a pronoun ("yes, keep it that way") is a
*follow-up*: :meth:`MentionIndex.find` given the previous turn's mentions
passes them on to it (``Mention.followup``).

Cost: terms are cached per token; :class:`MentionIndex` keeps an inverted
index from term to items, so matching a sentence costs its own terms plus the
items sharing one of them (a term shared by more than :data:`MAX_POSTING`
items picks none by itself): O(sentence terms + candidates x item terms),
never O(all items) — 10,000 items are fine. Text is read linearly, at most
:data:`MAX_CHARS` per call.

Over 400 lines: the one matcher (terms, vocabulary, scoring, index) that decay, compression
and retrieval share, kept whole so that the three ask the same question.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import sys
from collections import Counter
from collections.abc import Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from operator import add as _add
from operator import attrgetter
from operator import mul as _mul
from pathlib import Path
from typing import Literal, Protocol

import snowballstemmer

from ctx_tui.command_lines import GENERIC, PRODUCTS, run_words
from ctx_tui.concepts import concept_entries, same_words
from ctx_tui import regex_cache, usercache
from ctx_tui.english import common_keys
from ctx_tui.english import source as english_source

TermKind = Literal["word", "part", "strong", "prefix", "concept", "run", "loose_run"]

#: Weight factor of identifiers, paths, URLs and numbers (a plain word is 1).
STRONG = 2.0
#: Weight factor of a word that is a part of an identifier or a path (``proration`` of
#: ``calculate_proration()``): nearly the word written alone, yet adding nothing to a sentence's
#: norm (the identifier counts once: see :class:`_Sentence`). Chosen on the tune split of
#: tests/eval (0.9 to 0.99 tie there; the middle taken).
PART = 0.95
#: Weight factor of a dotted number's prefix (``10.42`` of ``10.42.0.0/16``).
PREFIX = 1.0
#: Weight factor of a concept of the lexicon (``concepts.txt``: *Keychain* and *secure storage*
#: both give ``~secret_store``): weaker evidence than a shared word.
CONCEPT = 0.8
#: Weight factor of a concept both sides name only through words that are no everyday English
#: (*FTZ* / *denormals*, *minimap2* / *aligner*, *Qdrant* / *RAG*): two names of one technical thing
#: count as a shared word does. Everyday words (*slow* / *latency*, *store* of *vector store*) stay at
#: :data:`CONCEPT`. Chosen on the second tune split (1.0 to 2.0 tie on pairs there; the word's weight taken).
JARGON = 1.0
#: Shared concepts (none of them common) that make evidence without a shared word.
CONCEPT_EVIDENCE = 2
#: A *paraphrase* says part of the item in words of its own: it names one of the item's concepts
#: through other words (with one more piece of evidence: a shared word that is not common, or a
#: second concept). Its cosine counts ``1 / PARAPHRASE`` times: a sentence sharing the item's words
#: in another context ("keep the changelog in a separate file") shares no concept that way, a loose
#: paraphrase does so by definition ("credentials go to the secure storage now"). The lowest bar
#: that changes nothing on the tune split of tests/eval (0.75 let a filler sentence keep a silent
#: item alive there).
PARAPHRASE = 0.8
#: A sentence of at most this many content terms is *short* ("cents everywhere?"): its subject is
#: implicit, so it mentions an item when the item holds most of what it says (:data:`SHORT_SHARE`).
SHORT_TERMS = 4
#: Share of a short sentence's weight the item must hold.
SHORT_SHARE = 0.45
#: Plain words of its own a sentence needs, beside the one distinctive term it shares with an item,
#: to be about another subject (:func:`_another_subject`; chosen on the tune split of tests/eval).
OWN_WORDS = 3
#: Cosine an item and a sentence need for a mention (chosen on the tune split of tests/eval).
THRESHOLD = 0.28
#: A term found in more than this share of the session's sentences is common:
#: common terms alone never make a mention.
COMMON_SHARE = 0.2
#: Pseudo-sentences added to the session's count, so that early in a session
#: (few sentences read) IDF does not call every word rare or every word common.
PRIOR_SENTENCES = 30
#: A follow-up is a sentence of at most this many words that opens an answer ...
FOLLOWUP_WORDS = 12
#: ... and points back within its first words ("yes, leave that one alone", "nice, do the rest the
#: same way"): a pronoun further on refers inside the sentence ("... since the style guide forbids it").
FOLLOWUP_REACH = 6
#: A demonstrative before one of these names a time of its own ("two days this week"), not what was said.
_TIMES = frozenset("morning afternoon evening night today week weekend month quarter year sprint time".split())
#: What an answer says when it approves or acknowledges the turn before it as a whole ("good call, go
#: ahead", "sounds good", "lgtm, thanks"): English dialogue acts of assent, praise, thanks and go-ahead,
#: not words of any subject. Two-word acts first, then one-word ones.
APPROVAL_PHRASES = frozenset(
    tuple(p.split())
    for p in (
        "good call", "good idea", "good point", "good catch", "nice catch", "go ahead", "go on", "carry on",
        "sounds good", "sounds great", "sounds right", "looks good", "looks great", "looks right", "makes sense",
        "ship it", "fair enough", "of course", "will do", "works for me", "go for it", "do it", "thank you",
        "all good", "well done", "let's go", "keep going", "got it",
    )
)
APPROVALS = frozenset(
    """
    yes yeah yep yup ya ok okay k kk sure alright right correct exactly agreed agree absolutely definitely
    indeed fine good great perfect nice excellent awesome cool lovely brilliant neat sweet fantastic wonderful
    thanks thank thx ty cheers lgtm sgtm ack approved confirmed understood noted roger proceed continue please
    """.split()
)
#: Longest text matched per call; the rest of a pasted log is not read (linear cost, bounded).
MAX_CHARS = 100_000
#: A term more items than this share picks no candidates by itself: it cannot tell them
#: apart, and walking its posting list for every sentence would cost O(items).
MAX_POSTING = 512
#: Distinct sentences whose terms are kept (a session repeats commands, paths and code lines) ...
PARSED_CACHE = 4096
#: ... of at most this many characters (a long sentence seldom comes again, and its terms weigh
#: kilobytes: 4,096 sentences of 200 words held 26 MiB).
PARSED_CACHE_CHARS = 240
#: Longest sentence kept as evidence in a :class:`Mention`.
EVIDENCE_CHARS = 240
#: Key prefix of a word a command line runs (``$playwright`` of ``npx playwright test``).
RUN = "$"

#: English function words (articles, pronouns, auxiliaries, prepositions,
#: conjunctions, fillers) and the most generic verbs. Grammar, not domain: no
#: word here says what a project is about.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't done down during each
    few for from further had hadn't has hasn't have haven't having he her here hers herself him himself his how i
    if in into is isn't it it's its itself just let let's me more most mustn't my myself no nor not now of off on
    once only or other ought our ours ourselves out over own same shan't she should shouldn't so some such than
    that that's the their theirs them themselves then there there's these they this those through to too under
    until up very was wasn't we were weren't what when where which while who whom why will with won't would
    wouldn't you your yours yourself yourselves i'm i've i'd i'll we're we've we'll you're you've you'll
    none nobody everyone someone anyone everybody somebody anybody without within among upon onto toward towards despite
    unlike yet though although unless whether whereas already anyway stuff
    please pls plz thanks thank thx ok okay yes yeah sure really actually maybe might may must shall via per us
    use used using uses make makes made get gets got need needs want wants like way thing things
    one still even well every everything something anything nothing right new old good great nice instead
    """.split()
)

#: Words that point back to what the other speaker just said (English pronouns and demonstratives).
ANAPHORS = frozenset("it that this those these them same there".split())
_BE = frozenset("is are was were isn't aren't wasn't weren't 's".split())

_STEMMER = snowballstemmer.stemmer("english")
if hasattr(_STEMMER, "maxCacheSize"):
    # PyStemmer's own cache (10,000 words, ~230 bytes each) under :func:`stem`'s: 1.5 MiB of a dashboard
    _STEMMER.maxCacheSize = 0

#: A run of text without spaces, brackets or quotes: one candidate term.
_CHUNK = regex_cache.compile(r"[^\s,;!?()\[\]{}<>\"`|*\u2018\u2019\u201c\u201d]+")
_URL = regex_cache.compile(r"^[a-z][a-z0-9+.-]*://", re.I)
_NUMBER = regex_cache.compile(r"^v?\d+(?:[.,:]\d+)*(?:/\d+)?%?$")
_EXTENSION = regex_cache.compile(
    r"\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|rst|ya?ml|toml|ini|cfg|conf|rs|go|java|kt|kts|rb|php|c|h|cc|cpp|hpp|"
    r"cs|swift|sh|bash|zsh|sql|css|scss|tcss|html|txt|lock|env|xml|csv|proto|tf|ipynb|gradle|log|vue|svelte)$",
    re.I,
)
_CAMEL = regex_cache.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# The complement of [0-9A-Za-z\u00c0-\uffff], spelled out: the negated class compiled a 64k-entry map (~2-4 ms of every start).
_SPLIT = regex_cache.compile(r"[\x00-/:-@\[-`{-\xbf\U00010000-\U0010ffff]+")
_WORD = regex_cache.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+")
#: The space after a sentence's ``. ! ?``: ``(?<=[.!?])\s+`` (the same matches), opening with the space so that ``re``
#: goes from one space to the next instead of trying the look-behind at every character.
_SENTENCE_END = regex_cache.compile(r"\s(?<=[.!?]\s)\s*")
_EDGE = "'\"-=:.,+"
_PARTS = regex_cache.compile(r"[\s/-]+")
_LABEL = regex_cache.compile(r"^\s*[A-Za-z]+:\s+")
_CLAUSE = regex_cache.compile(r"[;,.:()!?\u2014]+(?:\s|$)|\s[-\u2013]\s")
_MOVING = regex_cache.compile(r"\b(?:mov(?:e|es|ed|ing)|migrat\w*|switch\w*|port(?:s|ed|ing)?|go(?:ing)? with|replac\w*)\b")
#: Adverb particles that make one word of the verb before them (*sign-in*, *set-up*, *opt-out*).
_PARTICLES = frozenset("in out up down on off over through by".split())
_ARTICLES = frozenset("the a an one any our its their this that".split())
#: Measurement units: a number with its unit names a quantity, not what it is about ("28 days").
UNITS = frozenset("day hour minut min sec ms week month year kb mb gb tb px hz rps percent time".split())


_ONES, _TWOS = repeat(1), repeat(2)
_KEY = attrgetter("key")
#: A bound is trusted only this far below what it bounds (floating-point rounding).
_MARGIN = 1.0 - 1e-9

_FACTORS: dict[str, float] = {
    "word": 1.0, "part": PART, "strong": STRONG, "prefix": PREFIX, "concept": CONCEPT, "run": 0.0, "loose_run": 0.0}


@dataclass(frozen=True, slots=True)
class Term:
    """One term of a text: ``key`` is what is compared, ``surface`` how it was written.

    ``factor`` (from ``kind``) is set once here: the hot loops read it per term.
    """

    key: str
    kind: TermKind
    surface: str
    source: str = field(default="", compare=False)  # a concept's: the key (or phrase) it was read from
    factor: float = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "factor", _FACTORS[self.kind])


#: British spellings the stemmer keeps apart from the American ones: *-ise* / *-isation* (but for the
#: words where *-ise* is no suffix), *-yse*, and a few whole stems (*colour*, *licence*, *centre*).
_BRITISH_SUFFIX = regex_cache.compile(r"(?<=[a-z]{3})(is|ys)(e|es|ed|ing|er|ers|ation|ations|able)$")
_NOT_ISE = frozenset(
    """advertise advise apprise arise chastise circumcise comprise compromise concise demise despise devise disguise
    enterprise excise exercise expertise franchise improvise incise likewise merchandise noise otherwise paradise
    poise praise precise premise promise raise reprise revise rise supervise surprise televise treatise wise
    clockwise cruise bruise guise turquoise tortoise porpoise valise""".split()
)
_BRITISH_STEMS = (
    ("colour", "color"), ("flavour", "flavor"), ("behaviour", "behavior"), ("favour", "favor"), ("honour", "honor"),
    ("labour", "labor"), ("neighbour", "neighbor"), ("humour", "humor"), ("harbour", "harbor"), ("armour", "armor"),
    ("licenc", "licens"), ("defenc", "defens"), ("offenc", "offens"), ("centre", "center"), ("metre", "meter"),
    ("litre", "liter"), ("fibre", "fiber"), ("catalogue", "catalog"), ("dialogue", "dialog"), ("analogue", "analog"),
    ("programme", "program"), ("artefact", "artifact"), ("judgement", "judgment"), ("acknowledgement", "acknowledgment"),
    ("fulfil", "fulfill"), ("enrol", "enroll"), ("instalment", "installment"), ("grey", "gray"),
)


#: The British stems as one pattern (no two of them start the same word): one match per word
#: instead of a test per stem.
_BRITISH_START = regex_cache.compile("|".join(re.escape(british) for british, _ in _BRITISH_STEMS))
_AMERICAN_OF = dict(_BRITISH_STEMS)


def american(word: str) -> str:
    """``word`` (lower-case) in American spelling where the stemmer would keep the two apart."""
    start = _BRITISH_START.match(word)
    if start:
        british = start.group()
        us = _AMERICAN_OF[british]
        if not (us.startswith(british) and word.startswith(us)):  # fulfill is American
            return us + word[len(british) :]
    match = _BRITISH_SUFFIX.search(word)
    if match and (word[: match.start()] + match.group(1) + "e") not in _NOT_ISE:
        return word[: match.start()] + match.group(1).replace("s", "z") + match.group(2)
    return word


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The Snowball (Porter 2) English stem of a lower-cased word, British spellings read as American."""
    stemmed: str = _STEMMER.stemWord(american(word))
    return stemmed


def word_key(word: str) -> str:
    """The term key of one plain lower-cased word (its lexicon spelling, else its stem)."""
    return same_words().get(word) or stem(word)


class _Lexicon:
    """The lexicon's concepts compiled to term keys (see ``concepts.txt``).

    ``single``: a term key -> its concepts; ``phrases``: consecutive word keys -> their concepts;
    ``heads``: the first key of a phrase -> the longest phrase starting with it.
    """

    __slots__ = ("single", "phrases", "heads")

    def __init__(self) -> None:
        self.single: dict[str, tuple[str, ...]] = {}
        self.phrases: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.heads: dict[str, int] = {}


#: The compiled lexicon in the user's cache (:mod:`ctx_tui.usercache`), by :func:`_lexicon_source`.
LEXICON_FILE = "lexicon.json"


@lru_cache(maxsize=1)
def _lexicon() -> _Lexicon:
    """The concepts compiled on first use: their words read as :func:`terms` reads text. Only
    matching needs them (BM25's :func:`search_terms` does not). Compiling takes ~30 ms (5,000
    words stemmed); what it gives is kept in the user's cache, by a digest of all it reads, and
    a later process takes it from there (~5 ms)."""
    source = _lexicon_source()
    kept_at = os.path.join(usercache.cache_dir(), LEXICON_FILE)
    if source is not None:
        kept = _kept_lexicon(usercache.kept(kept_at, source))
        if kept is not None:
            return kept
    lexicon = _compiled_lexicon()
    if source is not None:
        usercache.keep(kept_at, source, {"single": lexicon.single, "phrases": list(lexicon.phrases.items())})
    return lexicon


def _lexicon_source() -> str | None:
    """A digest of what compiling the lexicon reads: this module (the terms, the stemmer's use),
    the lexicon and its reader, the stemmer's version and Python's (its regular expressions and
    Unicode tables); None where a file cannot be read."""
    here = Path(__file__).parent
    digest = hashlib.blake2b(digest_size=16)
    try:
        for name in ("mentions.py", "concepts.py", "concepts.txt"):
            digest.update(b"\x00%b\x00" % name.encode())
            digest.update((here / name).read_bytes())
    except OSError:
        return None
    stemmer = sys.modules.get("Stemmer") or snowballstemmer
    digest.update(f"{getattr(stemmer, '__version__', '')}\x00{sys.version}".encode())
    return digest.hexdigest()


def _kept_lexicon(data: object) -> _Lexicon | None:
    """The lexicon in ``data`` (what :data:`LEXICON_FILE` keeps); None when it holds none."""
    if not isinstance(data, dict):
        return None
    single, phrases = data.get("single"), data.get("phrases")
    if not isinstance(single, dict) or not isinstance(phrases, list):
        return None
    lexicon = _Lexicon()
    for key, concepts in single.items():
        if not (isinstance(concepts, list) and concepts and all(type(c) is str for c in concepts)):
            return None
        lexicon.single[key] = tuple(concepts)
    for pair in phrases:
        if not (isinstance(pair, list) and len(pair) == 2):
            return None
        keys, concepts = pair
        if not (
            isinstance(keys, list) and len(keys) > 1 and all(type(k) is str for k in keys)
            and isinstance(concepts, list) and concepts and all(type(c) is str for c in concepts)
        ):
            return None
        lexicon.phrases[tuple(keys)] = tuple(concepts)
    _add_heads(lexicon)
    return lexicon


#: The everyday words' term keys (:func:`_everyday_keys`) in the user's cache.
EVERYDAY_KEYS_FILE = "everyday-keys.json"


@lru_cache(maxsize=1)
def _everyday_keys() -> frozenset[str]:
    """:func:`~ctx_tui.english.common_keys` of :func:`word_key`: the everyday words' term keys. Stemming the
    ~5,000 words cost every matching process ~5 ms (66M instructions); the keys follow from the word counts and
    from what :func:`word_key` reads (:func:`_lexicon_source`), so they are kept in the user's cache by both
    and a later process reads them back (not kept where those files cannot be read)."""
    lexicon = _lexicon_source()
    source = None if lexicon is None else f"{lexicon}:{english_source()}"
    kept_at = os.path.join(usercache.cache_dir(), EVERYDAY_KEYS_FILE)
    if source is not None:
        keys = usercache.kept(kept_at, source)
        if isinstance(keys, list) and all(type(k) is str for k in keys):
            return frozenset(keys)
    found = common_keys(word_key)
    if source is not None:
        usercache.keep(kept_at, source, sorted(found))
    return found


def _add_heads(lexicon: _Lexicon) -> None:
    for key in lexicon.phrases:
        lexicon.heads[key[0]] = max(lexicon.heads.get(key[0], 0), len(key))


def _compiled_lexicon() -> _Lexicon:
    """The lexicon compiled from ``concepts.txt`` (see :func:`_lexicon`)."""
    lexicon = _Lexicon()
    same = same_words()
    single: dict[str, list[str]] = {}
    phrases: dict[tuple[str, ...], list[str]] = {}
    for name, entries in concept_entries():
        concept = "~" + name
        for entry in entries:
            if entry.isalpha():  # one plain word (most entries): no need to read it as text
                if entry in STOP_WORDS or len(entry) < 2:
                    continue
                keys: tuple[str, ...] = (same.get(entry) or stem(entry),)
            elif " " in entry and entry.replace(" ", "").isalpha():  # plain words (most phrases): as terms() reads them
                keys = tuple(same.get(w) or stem(w) for w in entry.split() if len(w) >= 2 and w not in STOP_WORDS)
                if not keys or (len(keys) == 1 and entry not in same):
                    continue  # an entry of function words only ("log in" is "log"): it would stand for any use
            else:
                found = terms(entry, concepts=False)
                strong = [t.key for t in found if t.kind == "strong"]
                words = tuple(t.key for t in found if t.kind == "word")
                if strong and " " not in entry:
                    keys = (strong[0],)  # an identifier or a file name, as a whole
                elif strong or not words or (
                    len(words) == 1 and len(_PARTS.split(entry)) > 1 and entry not in same and words[0] != stem(_PARTS.sub("", entry))
                ):  # (one word of the whole entry, held-out as heldout, is kept)
                    continue  # an entry of function words only ("log in" is "log"): it would stand for any use
                else:
                    keys = words
            table = single.setdefault(keys[0], []) if len(keys) == 1 else phrases.setdefault(keys, [])
            if concept not in table:
                table.append(concept)
    lexicon.single = {k: tuple(v) for k, v in single.items()}
    lexicon.phrases = {k: tuple(v) for k, v in phrases.items()}
    _add_heads(lexicon)
    return lexicon


@lru_cache(maxsize=1 << 16)
def _concept_terms(key: str, surface: str, concepts: tuple[str, ...]) -> tuple[Term, ...]:
    return tuple(Term(c, "concept", surface, key) for c in concepts)


#: The concept a file name gives (``values-prod.yaml`` is a file; the lexicon's *file* is this concept).
FILE_KIND = "~file"


def _with_concepts(out: list[Term]) -> list[Term]:
    """``out`` and the lexicon's concepts of its terms and of its runs of words."""
    lexicon = _lexicon()
    single, heads = lexicon.single, lexicon.heads
    extra: list[Term] = []
    words: list[Term] = []
    filed = False
    for term in out:
        concepts = single.get(term.key)
        if concepts:
            extra.extend(_concept_terms(term.key, term.surface, concepts))
        if term.kind == "word":
            words.append(term)
        elif term.kind == "strong" and not filed and _EXTENSION.search(term.key):
            extra.append(Term(FILE_KIND, "concept", term.surface, term.key))  # a file name is a file: its kind
            filed = True
    for n, first in enumerate(words):
        longest = heads.get(first.key)
        for length in range(2, (longest or 0) + 1):
            run = words[n : n + length]
            concepts = lexicon.phrases.get(tuple(t.key for t in run))
            if concepts:
                source = " ".join(t.key for t in run)
                extra.extend(_concept_terms(source, " ".join(t.surface for t in run), concepts))
    out.extend(extra)
    return out


def _word_terms(text: str, kind: TermKind, source: str = "") -> Iterator[Term]:
    same = same_words()
    for match in _WORD.finditer(text):
        raw = match.group()
        low = raw.lower()
        if low.endswith("'s"):
            low = low[:-2]
        if low.isdigit():
            if len(low) >= 2 and kind == "word":
                yield Term("#" + low, "strong", raw)
            continue
        if len(low) < 2 or low in STOP_WORDS:
            continue
        yield Term(same.get(low) or stem(low), kind, raw, source)


def _number_terms(token: str) -> Iterator[Term]:
    value = token.lower().lstrip("v").rstrip("%")
    yield Term("#" + value, "strong", token)
    main = value.split("/", 1)[0]
    parts = re.split(r"[.,:]", main)
    if len(parts) > 1 and "," not in main:
        if all(p == "0" for p in parts[1:]):
            yield Term("#" + parts[0], "strong", token)  # 15.0 is 15
        for n in range(2, len(parts)):
            yield Term("#" + ".".join(parts[:n]), "prefix", token)
    if main != value:
        yield Term("#" + main, "prefix", token)


def _is_identifier(token: str) -> bool:
    if "_" in token or _CAMEL.search(token):
        return True
    letters = any(c.isalpha() for c in token)
    digits = any(c.isdigit() for c in token)
    if "." in token.strip("."):
        return letters  # dotted.name (a dotted number is a number)
    return letters and digits  # A100, v2, 7F3A9C21, ranker-v3, 40GB


@lru_cache(maxsize=1 << 17)
def _chunk_terms(chunk: str) -> tuple[Term, ...]:
    """The terms of one run of non-space text (cached: a session's vocabulary is small next to its text)."""
    token = chunk.strip(_EDGE) if not chunk.startswith((".", "~", "/")) else chunk.rstrip(_EDGE)
    if not token:
        return ()
    if "=" in token:
        return tuple(t for part in token.split("=") for t in _chunk_terms(part))
    same = same_words().get(token.lower()) if "-" in token or "/" in token or not token.isalpha() else None
    if same is not None:  # ci/cd, end-to-end, e-mail: one word written apart; k8s, i18n, e2e: a numeronym, not an identifier
        return (Term(same, "word", token),)
    if _URL.match(token) or ("/" in token.strip("/") and not _NUMBER.match(token)) or _EXTENSION.search(token):
        if not any(c.isalnum() for c in token):
            return ()
        whole = token.lower().strip("./~")
        out = [Term("=" + whole, "strong", token)]
        base = whole.rsplit("/", 1)[-1]
        if base and base != whole:
            out.append(Term("=" + base, "strong", token))
        steps = whole.split("/")
        for n in range(2, len(steps)):
            out.append(Term("=" + "/".join(steps[:n]), "prefix", token))  # docs/api/auth.md is in docs/api
        name = _EXTENSION.sub("", base)
        if name and name != base and any(c.isalpha() for c in name):
            out.append(Term("=" + name, "strong", token))  # mkdocs.yml names mkdocs
        out.extend(_word_terms(" ".join(_SPLIT.split(token)), "part", out[0].key))
        out.extend(_word_terms(" ".join(_SPLIT.split(_CAMEL.sub(" ", token))), "part", out[0].key))
        return tuple(out)
    if _NUMBER.match(token):
        return tuple(_number_terms(token))
    if _is_identifier(token):
        out = [Term("=" + token.lower().strip("."), "strong", token)]
        # the parts as written (MkDocs -> mkdocs) and split at case changes (mk, docs)
        out.extend(_word_terms(" ".join(_SPLIT.split(token)), "part", out[0].key))
        out.extend(_word_terms(" ".join(_SPLIT.split(_CAMEL.sub(" ", token))), "part", out[0].key))
        return tuple(out)
    head, dash, tail = token.lower().partition("-")
    if dash and tail in _PARTICLES and head.isalpha() and head not in STOP_WORDS:
        # a verb and its particle are one word, as written without the hyphen: sign-in is signin, not
        # sign; log-in, set-up, roll-out, opt-out, built-in, held-out
        return tuple(_word_terms(head + tail, "word"))
    return tuple(_word_terms(token.replace("-", " "), "word"))


def terms(text: str, concepts: bool = True) -> list[Term]:
    """Every term of ``text`` in order (repeats kept: BM25 counts them), then the lexicon's concepts
    of them and the words its command lines run (:func:`~ctx_tui.command_lines.run_words`, key
    ``$word``; ``concepts=False``: neither)."""
    out: list[Term] = []
    for chunk in _CHUNK.findall(text[:MAX_CHARS]):
        out.extend(_chunk_terms(chunk))
    if not concepts:
        return out
    out = _with_concepts(out)
    certain, loose = run_words(text[:MAX_CHARS])
    if certain or loose:
        out.extend(Term(RUN + w, "run", w) for w in certain)
        out.extend(Term(RUN + w, "loose_run", w) for w in loose)
    return out


def term_keys(text: str) -> frozenset[str]:
    """The distinct term keys of ``text``."""
    return frozenset(t.key for t in terms(text))


def search_terms(text: str) -> list[str]:
    """Term keys of ``text`` in order, for BM25 (retrieval, compression): the same terms as mentions,
    without the lexicon's concepts (BM25 has no weaker kind of evidence)."""
    return [t.key for t in terms(text, concepts=False)]


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences: at line breaks, and after ``. ! ?`` followed by a space.

    Line by line: the look-behind of :data:`_SENTENCE_END` runs only on a line holding one of
    ``. ! ?`` (tried at every character of a long text, it cost 10x the rest of the split).
    """
    out: list[str] = []
    for line in text[:MAX_CHARS].split("\n"):
        if "." in line or "!" in line or "?" in line:
            out.extend(_SENTENCE_END.split(line))
        else:
            out.append(line)
    return [s for s in map(str.strip, out) if s]


def is_approval(words: list[str]) -> bool:
    """``words`` (lower case) approve or acknowledge and say nothing else: every word belongs to an act of
    :data:`APPROVAL_PHRASES` / :data:`APPROVALS` or is a function word, and the first opens an act
    ("good call, go ahead"; not "ok, now update the changelog": *update* and *changelog* say something new)."""
    n, acts = 0, 0
    while n < len(words):
        if tuple(words[n : n + 2]) in APPROVAL_PHRASES:
            n, acts = n + 2, acts + 1
        elif words[n] in APPROVALS:
            n, acts = n + 1, acts + 1
        elif words[n] in STOP_WORDS and acts:
            n += 1
        else:
            return False
    return acts > 0


def is_followup(sentence: str) -> bool:
    """A short sentence that answers the previous turn: it approves of it and says nothing else
    (:func:`is_approval`), or it points back (it, that, those, same... among its first
    :data:`FOLLOWUP_REACH` words)."""
    words = re.findall(r"[\w']+", sentence.lower())
    if not 0 < len(words) <= FOLLOWUP_WORDS:
        return False
    if is_approval(words):
        return True
    # "there is/are ..." introduces something new: that "there" points nowhere
    after = [*words[1 : FOLLOWUP_REACH + 1], ""]
    return any(
        w in ANAPHORS and not (w == "there" and nxt in _BE) and nxt not in _TIMES
        for w, nxt in zip(words[:FOLLOWUP_REACH], after)
    )


class Vocabulary:
    """Sentence frequencies of terms over a session: the IDF of :func:`similarity`.

    Feed it every sentence read (:meth:`add`); an empty vocabulary treats
    every term alike (plain cosine over the terms).
    """

    __slots__ = ("df", "n")

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self.df: Counter[str] = Counter()
        self.n = 0
        for text in texts:
            self.add(text)

    def add(self, text: str) -> None:
        """Count each sentence of ``text`` once per distinct term."""
        for sentence in sentences(text):
            self.add_keys(term_keys(sentence))

    def add_keys(self, keys: Iterable[str]) -> None:
        """Count one sentence of these term keys (each distinct key once)."""
        self.df.update(keys if isinstance(keys, frozenset) else set(keys))
        self.n += 1


@dataclass(frozen=True, slots=True)
class Mention:
    """Why a text counts as mentioning an item: the evidence the user is shown."""

    score: float  # cosine, 0..1
    sentence: str  # the sentence that mentions it (cut to EVIDENCE_CHARS)
    matched: tuple[str, ...]  # the item's words it shares, as the sentence writes them
    followup: bool = False  # a pronoun follow-up of a turn that mentioned the item

    def as_dict(self) -> dict[str, object]:
        return {"score": round(self.score, 3), "sentence": self.sentence, "matched": list(self.matched), "followup": self.followup}


class Profile:
    """An item's terms, each key once with its strongest factor.

    ``keys`` are its keys in order and ``weak`` their factors capped at a plain word's (the item's
    norm counts identifiers so, see :class:`_Sentence`); ``norm_at`` caches that
    norm for one state of the vocabulary (:meth:`_Idf.base`). ``concepts``: each concept of the
    lexicon the item names -> the keys or phrases of the item that give it.
    """

    __slots__ = (
        "text", "factors", "keys", "weak", "length", "norm_at", "concepts", "rejected", "names", "places", "whole_words", "tools",
        "aged",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.factors: dict[str, float] = {}
        self.concepts: dict[str, list[str]] = {}
        # where each key is written: the index of its run of text (function words count), so
        # that two keys written side by side make a phrase of the item (:func:`_one_phrase`)
        self.places: dict[str, list[int]] = {}
        for place, chunk in enumerate(_CHUNK.findall(text[:MAX_CHARS])):
            for term in _chunk_terms(chunk):
                self.places.setdefault(term.key, []).append(place)
        # the parts that are a whole identifier read as one word (*OpenTelemetry* -> ``otel``): see _kin
        self.whole_words: set[str] = set()
        for term in terms(text):
            if term.kind == "part" and term.source == "=" + term.surface.lower().strip("."):
                self.whole_words.add(term.key)
            if term.kind == "concept":
                sources = self.concepts.setdefault(term.key, [])
                if term.source not in sources:
                    sources.append(term.source)
            elif term.factor > self.factors.get(term.key, 0.0):
                self.factors[term.key] = term.factor
        self.keys = tuple(self.factors)
        self.weak = tuple(f if f < 1.0 else 1.0 for f in self.factors.values())
        self.length = math.sqrt(sum(w * w for w in self.weak))
        self.norm_at: tuple[Vocabulary | None, int, float, int] = (None, 0, 0.0, 0)
        self.rejected = _rejected(text)
        self.aged = _aged(text) if _AGE.search(text) else {}
        runs = _name_runs(text)
        self.names = _names(runs)
        self.tools = _tool_names(runs, text, self.rejected)

    def index_keys(self) -> Iterator[str]:
        """Every key the item can be found by: its terms, its concepts and its names as run words."""
        yield from self.factors
        yield from self.concepts
        yield from dict.fromkeys(RUN + w for name, _ in self.tools for w in name)


_TOKEN = regex_cache.compile(r"\S+")
_CLAUSE_END = regex_cache.compile(r"[.;:!?\u2014]['\")\]]*$")


_Run = tuple[list[str], bool, str]


def _name_runs(text: str) -> list[_Run]:
    """The names the item writes as written, each with whether it is a function and the noun it
    modifies ('' if none): a word capitalised inside a sentence (*Playwright*, *Metabase*,
    *Keychain*), an acronym (*DAG*, *VAT*), a function (``sleep()``); consecutive capitalised plain
    words are one name (*Conventional Commits*: *commits* alone is a word). The noun: the plain
    word written right after the name (*values* of "Keep Helm values per environment", stemmed)."""
    runs: list[_Run] = []
    ends: list[int] = []  # the index of each run's last token
    start = True
    joined = False  # the previous token was a name and no punctuation ends it
    tokens = _TOKEN.findall(text)
    for n, token in enumerate(tokens):
        core = token.strip("'\"`*()[]{},;:.!?\u2018\u2019\u201c\u201d")
        letters = [c for c in core if c.isalpha()]
        acronym = len(letters) > 1 and all(c.isupper() for c in letters)
        if letters and ((not start and core[0].isupper()) or acronym or token.lstrip("`'\"").startswith(core + "(")):
            word = core.isalpha() and not acronym and not _CAMEL.search(core)
            if joined and word:
                runs[-1][0].append(core)
                ends[-1] = n
            else:
                runs.append(([core], token.lstrip("`'\"").startswith(core + "("), ""))
                ends.append(n)
            joined = word and core == token.strip("'\"`*")
        else:
            joined = False
        start = _CLAUSE_END.search(token) is not None
    for i, end in enumerate(ends):
        last, following = tokens[end], tokens[end + 1] if end + 1 < len(tokens) else ""
        noun = following.rstrip(",;:.!?)'\"")
        if last[-1:].isalnum() and noun.isalpha() and noun.islower() and noun not in STOP_WORDS:
            runs[i] = (runs[i][0], runs[i][1], stem(noun))
    return runs


def _names(runs: list[_Run]) -> tuple[frozenset[str], ...]:
    """The item's names (:func:`_name_runs`), each as its term keys. A short question naming one
    ("Playwright suite green?") is about the item (:func:`_names_the_item`)."""
    names = (frozenset(t.key for t in terms(" ".join(run), concepts=False) if t.kind in ("word", "strong")) for run, _, _ in runs)
    return tuple(dict.fromkeys(name for name in names if name))


_CODE_WORD = regex_cache.compile(r"`([a-z][a-z0-9._-]*)`")


def _tool_names(runs: list[_Run], text: str, rejected: frozenset[str]) -> tuple[tuple[frozenset[str], str], ...]:
    """The item's names a command line can run, each as its lower-case words: the names of
    :func:`_name_runs` but functions (``sleep()`` is no program) and acronyms that name no known
    product (*CI*, *API*: ``.github/workflows/ci.yml`` runs no item about CI; *AWS*, *GCP* are
    products), and a bare word in backticks (`` `uv` ``). Not a name the item turns down
    (:func:`_rejected`: *Sphinx* of "moving from Sphinx to MkDocs"), nor one of programs every
    session runs alone (:data:`~ctx_tui.command_lines.GENERIC`: *Python* of "must run on Python
    3.9", *Git*; *Docker Compose* is a name).

    Each with the noun the name modifies ('' if none): the item is about that thing of the tool
    (*Helm values*, *Stripe test mode key*), so a command runs the item only where it also runs
    that word (``helm lint`` is about the chart, not the values files; ``npx playwright test``
    runs "Playwright tests")."""
    found: list[tuple[frozenset[str], str]] = []
    written = [(run, noun) for run, function, noun in runs if not function] + [([w], "") for w in _CODE_WORD.findall(text)]
    for run, noun in written:
        words = frozenset(w.lower().removesuffix("'s").removesuffix("\u2019s") for w in run)
        if len(run) == 1 and run[0].isupper() and not words <= PRODUCTS:
            continue  # an acronym: a thing the item talks about
        if words <= GENERIC or (rejected and set(search_terms(" ".join(run))) <= rejected):
            continue
        found.append((words, noun))
    return tuple(dict.fromkeys(found))


def _rejected(text: str, opening: bool = False) -> frozenset[str]:
    """The keys the item names only as the alternative it turns down: *UserDefaults* in "store the
    token in the Keychain, not UserDefaults", *click* in "prefer argparse over click", *Sphinx* in
    "moving from Sphinx to MkDocs". A sentence naming only those talks about the other thing.

    The phrase after a contrast (``not``, ``no``, ``instead of``, ``rather than``; ``over`` after
    *prefer*; ``from ... to`` after a verb of moving), up to the next function word. An item that
    opens with the ban ("No sleep() in tests") is about what it bans: that is its subject;
    ``opening``: the ban it opens with is turned down too (what a sentence says no to, see
    :func:`_agrees_on_rejected`).
    """
    body = _LABEL.sub("", text, count=1)
    low = body.lower()
    prefer = "prefer" in low
    moving = _MOVING.search(low) is not None
    spans: list[str] = []
    kept: list[str] = []
    for clause in _CLAUSE.split(body):
        words = clause.split()
        n = 0
        while n < len(words):
            word = words[n].lower().strip("'\"")
            after = words[n + 1].lower() if n + 1 < len(words) else ""
            if (word, after) in (("instead", "of"), ("rather", "than")):
                start = n + 2
            elif word in ("not", "no") or (word == "over" and prefer) or (word == "from" and moving and " to " in f" {clause.lower()} "):
                start = n + 1
            else:
                kept.append(words[n])
                n += 1
                continue
            if not opening and not kept and not spans and n == 0 and body.lstrip().startswith(words[0]):
                kept.append(words[n])  # the item opens with it: what it bans is its subject
                n += 1
                continue
            end = start
            while end < len(words) and words[end].lower().strip("'\"") in _ARTICLES:
                end += 1
            while end < len(words) and words[end].lower().strip("'\"") not in STOP_WORDS and words[end].lower() != "to":
                end += 1
            spans.append(" ".join(words[start:end]))
            n = max(end, n + 1)
    if not spans:
        return frozenset()
    return frozenset(term_keys(" ".join(spans))) - term_keys(" ".join(kept))


class _Parsed:
    """What a sentence's text alone says (cached per text: :func:`_parse`): its distinct term keys
    (what the vocabulary counts, the lexicon's concepts included) and, once asked (:meth:`weighted`:
    only a sentence with candidate items is), each key's strongest factor and first surface, whether
    it is short, its concepts (concept -> {source key or phrase: how it was written}) and the words
    its command lines run (``runs``; ``loose_runs``: of segments only a tool call's text reads as commands)."""

    __slots__ = (
        "terms", "keys", "_weighted", "concepts", "owners", "question", "_counted", "plain", "normed", "runs", "loose_runs",
        "_marked", "text", "_turned_down", "_aged",
    )

    def __init__(self, sentence_terms: list[Term], text: str = "") -> None:
        self.terms = sentence_terms
        self.text = text
        self._turned_down: frozenset[str] | None = None
        self.question = text.rstrip().endswith("?")
        self.keys = frozenset(map(_KEY, sentence_terms))
        self._weighted: tuple[dict[str, float], dict[str, str], bool] | None = None
        self.concepts: dict[str, dict[str, str]] = {}
        self.owners: dict[str, str] = {}
        # what only scoring reads (:attr:`counted`, :attr:`marked`, :attr:`aged`): worked out when
        # first asked (a scan parses every distinct sentence of a session and scores few of them)
        self._counted: frozenset[str] | None = None
        self._marked: frozenset[str] | None = None
        self._aged: dict[str, int] | None = None
        # once weighted: the plain words, and the keys in :class:`_Sentence`'s ``base`` with their weights there
        self.plain: list[str] = []
        self.normed: tuple[list[str], list[float]] = ([], [])
        self.runs: frozenset[str] = frozenset()
        self.loose_runs: frozenset[str] = frozenset()

    def weighted(self) -> tuple[dict[str, float], dict[str, str], bool]:
        if self._weighted is not None:
            return self._weighted
        weights: dict[str, float] = {}
        surfaces: dict[str, str] = {}
        concepts = self.concepts
        for term in self.terms:
            key = term.key
            if term.kind == "concept":
                concepts.setdefault(key, {})[term.source] = term.surface
            elif term.kind == "run":  # a word a command line runs
                self.runs |= {term.surface}
            elif term.kind == "loose_run":
                self.loose_runs |= {term.surface}
            elif term.factor > weights.get(key, 0.0):
                weights[key] = term.factor
                if key not in surfaces:
                    surfaces[key] = term.surface
                if term.kind == "part":
                    self.owners[key] = term.source
                else:
                    self.owners.pop(key, None)
        # content terms as written (an identifier's parts and a number's prefixes are not counted again)
        short = 0 < sum(1 for f in weights.values() if f in (1.0, STRONG)) <= SHORT_TERMS
        self.plain = [k for k, f in weights.items() if f == 1.0]
        normed = [(k, f if f < 1.0 else 1.0) for k, f in weights.items() if f != PART]
        self.normed = ([k for k, _ in normed], [w for _, w in normed])
        self._weighted = (weights, surfaces, short)
        self.terms = []  # no longer needed
        return self._weighted

    @property
    def counted(self) -> frozenset[str]:
        """The words a quantity of the sentence counts or labels (:func:`_counted`)."""
        if self._counted is None:
            text = self.text
            self._counted = _counted(text) if any(map(str.isdigit, text)) else frozenset()
        return self._counted

    @property
    def marked(self) -> frozenset[str]:
        """The words after a kind marker (:func:`_marked`)."""
        if self._marked is None:
            self._marked = _marked(self.text) if _KIND_MARKER.search(self.text) else frozenset()
        return self._marked

    @property
    def aged(self) -> dict[str, int]:
        """The words after an age adjective, by side (:func:`_aged`)."""
        if self._aged is None:
            self._aged = _aged(self.text) if _AGE.search(self.text) else {}
        return self._aged

    @property
    def turned_down(self) -> frozenset[str]:
        """The keys the sentence says no to (:func:`_rejected`, the ban it opens with included: "no Rx in
        the new screens"); worked out once asked (only where an item's evidence is what it turns down)."""
        if self._turned_down is None:
            self._turned_down = _rejected(self.text, opening=True)
        return self._turned_down


#: Words that make the next words a definite reference by kind: "the new node provisioner", "the old
#: tracing backend" name the tool the conversation is about by what it is (see :func:`_concept_matches`).
KIND_MARKERS = ("new", "old", "former", "previous", "current")
#: Words after a marker that still belong to its noun phrase ("the new node provisioner").
KIND_REACH = 3
_KIND_MARKER = regex_cache.compile(r"\b(?:" + "|".join(KIND_MARKERS) + r")\b", re.I)
_LOWER_WORD = regex_cache.compile(r"[\w.+-]+")


def _marked(text: str) -> frozenset[str]:
    """The lower-cased words within :data:`KIND_REACH` words after a kind marker (:data:`KIND_MARKERS`)."""
    words = _LOWER_WORD.findall(text.lower())
    out: set[str] = set()
    for n, word in enumerate(words):
        if word in KIND_MARKERS:
            out.update(words[n + 1 : n + 1 + KIND_REACH])
    return frozenset(out)


#: Age adjectives, by side: what the item says of *new* code is not said of *old* code ("no RxJava in new
#: Android code" against "the old RxJava code in payments crashes").
AGES = {"new": 1, "newer": 1, "old": -1, "older": -1, "legacy": -1, "existing": -1}
_AGE = regex_cache.compile(r"\b(?:" + "|".join(AGES) + r")\b", re.I)


def _aged(text: str) -> dict[str, int]:
    """The term keys of the words within :data:`KIND_REACH` words after an age adjective (:data:`AGES`),
    up to a punctuation mark ("no new messages, API failure": *API* is not new), each with its side
    (+1 new, -1 old; 0 where the text writes both)."""
    tokens = text.lower().split()
    out: dict[str, int] = {}
    for n, token in enumerate(tokens):
        side = AGES.get(token)
        if side is None:
            continue
        for after in tokens[n + 1 : n + 1 + KIND_REACH]:  # the noun phrase: up to a punctuation mark
            word = after.strip(_EDGE + "!?()[]")
            if word in AGES:
                break
            for term in _word_terms(word, "word"):
                out[term.key] = side if out.get(term.key, side) == side else 0
            if after[-1:] in ",;:.!?)]":
                break
    return out


_QUANTITY = regex_cache.compile(r"^\d+(?:[.,]\d+)?%?$")


@lru_cache(maxsize=PARSED_CACHE)
def _number_words(text: str) -> dict[str, frozenset[str]]:
    """Each plain number of ``text`` (its key, ``#16``) -> the words written next to it ("iOS 16",
    "16 items"): what it counts or labels (as :func:`_counted`, per number)."""
    tokens = [t.strip(_EDGE + "!?()") for t in text.split()]
    out: dict[str, set[str]] = {}
    for n, token in enumerate(tokens):
        if _QUANTITY.match(token):
            words = out.setdefault("#" + token.lower().rstrip("%"), set())
            for m in (n - 1, n + 1):
                if 0 <= m < len(tokens) and tokens[m].isalpha():
                    words.update(t.key for t in _word_terms(tokens[m], "word"))
    return {k: frozenset(v) for k, v in out.items()}


def _labels_other_things(profile: Profile, sentence: _Sentence, key: str) -> bool:
    """Whether the number ``key`` both write labels or counts different things on the two sides: "16
    items per page" shares a number with "APIs that need iOS 16", not what it is of."""
    mine = _number_words(profile.text).get(key, frozenset())
    theirs = _number_words(sentence.parsed.text).get(key, frozenset())
    return bool(mine) and bool(theirs) and mine.isdisjoint(theirs)


def _counted(text: str) -> frozenset[str]:
    """The words a quantity counts or labels, written next to it ("6 attempts", "500 steps",
    "version 3"): with the number they name an amount, not what the amount is of."""
    tokens = [t.strip(_EDGE + "!?()") for t in text.split()]
    out: set[str] = set()
    for n, token in enumerate(tokens):
        if _QUANTITY.match(token):
            for m in (n - 1, n + 1):
                if 0 <= m < len(tokens) and tokens[m].isalpha():
                    out.update(t.key for t in _word_terms(tokens[m], "word"))
    return frozenset(out)


def _parse(sentence: str) -> _Parsed:
    """A sentence's :class:`_Parsed`, cached when short: a session repeats many (commands, paths, code lines)."""
    return _parse_short(sentence) if len(sentence) <= PARSED_CACHE_CHARS else _Parsed(terms(sentence), sentence)


@lru_cache(maxsize=PARSED_CACHE)
def _parse_short(sentence: str) -> _Parsed:
    return _Parsed(terms(sentence), sentence)


class _Sentence:
    """One sentence as the matcher sees it: weighted terms, how they were written, and whether it is short.

    ``base`` is the squared norm with every identifier, path and number at the weight of a plain
    word and without the parts of identifiers (the identifier counts once): :data:`STRONG` rewards
    sharing one, it does not punish a sentence for naming others ("calculate_proration() handles
    the upgrade case" mentions "support proration on upgrades"). ``owners``: each key that is
    only a part -> the identifier it is a part of.
    ``idfs`` holds the IDF of each of its keys (the scoring reads them again per candidate item);
    ``plain`` its plain words (:func:`_own_words` counts them per candidate item). ``strict`` text
    matches no concept (:func:`_score`): its ``concepts`` are not worked out.
    """

    __slots__ = (
        "weights", "idfs", "vector", "surfaces", "base", "own", "short", "question", "concepts", "owners", "counted", "plain",
        "runs", "marked", "parsed",
    )

    def __init__(self, parsed: _Parsed, idf: _Idf, strict: bool = False) -> None:
        self.parsed = parsed
        weights, self.surfaces, self.short = parsed.weighted()
        self.question = self.short and parsed.question
        self.owners = parsed.owners
        self.counted = parsed.counted
        self.weights = weights
        idfs = self.idfs = dict(zip(weights, idf.of(weights)))
        self.vector: dict[str, float] = dict(zip(weights, map(_mul, weights.values(), idfs.values())))
        # an identifier counts once: its parts add nothing to the norm (a sentence naming
        # KeychainHelper.save is not four words longer for it)
        keys, weak = parsed.normed
        self.base: float = sum(map(pow, map(_mul, weak, map(idfs.__getitem__, keys)), _TWOS))
        self.own = sum(self.vector.values())
        self.plain = parsed.plain
        # the words its commands run; in a tool call's text also those of segments read as commands there
        self.runs = parsed.runs | parsed.loose_runs if strict else parsed.runs
        self.marked = parsed.marked
        # concept -> {source: (its weight as a plain word, how it was written)}
        self.concepts = {} if strict else {
            c: {src: (_source_weight(src, idf), surface) for src, surface in sources.items()}
            for c, sources in parsed.concepts.items()
        }

    def can_reach(self, keys: Iterable[str], strict: bool, floor: float) -> bool:
        """Whether an item sharing no key but ``keys`` with the sentence may score ``floor``.

        At best the item is the sentence's own part over those keys (Cauchy-Schwarz): the cosine is
        at most that part's norm over the sentence's; a short sentence also needs that part to be
        :data:`SHORT_SHARE` of its weight. Bounds are trusted :data:`_MARGIN` below (rounding).
        """
        idfs, weights, vector = self.idfs, self.weights, self.vector
        if self.question and not strict:
            return True  # a short question may name an item (see _names_the_item)
        keys = [k for k in keys if k in vector]  # a concept adds to no bound here: see match_sentence
        strong = sum([idfs[k] ** 2 * (STRONG * STRONG - 1.0) for k in keys if weights[k] >= STRONG])
        part = sum([vector[k] ** 2 for k in keys])
        if part >= floor * floor * _MARGIN * (self.base + strong):
            return True
        # identifiers' parts are not in ``base``: an item sharing fewer of the identifiers may score more
        weak = sum([vector[k] ** 2 for k in keys if weights[k] < STRONG])
        return weak >= floor * floor * _MARGIN * self.base


def _source_weight(source: str, idf: _Idf) -> float:
    """The weight a concept's source carries: a key's IDF, a phrase's rarest word's."""
    return max(idf.of(source.split(" ")))


class Frequencies(Protocol):
    """What the matcher reads of sentence frequencies: a term key's count, 0 for a key never seen
    (a ``Counter``, or a backward scan's view of the frequencies at one sentence)."""

    def __getitem__(self, key: str, /) -> int: ...


def _common_cut(n: int) -> float:
    """A term in more sentences than this, of ``n`` read, is common (:data:`COMMON_SHARE`)."""
    return COMMON_SHARE * (n + PRIOR_SENTENCES)


class _Idf:
    """The vocabulary's IDF frozen for one sentence: ``log(n + PRIOR_SENTENCES + 1) - log(df + 1)``.

    A mention needs a shared term that is not :meth:`common`, so a sentence is
    checked for candidate items with the frequencies alone; the logarithms are
    taken only for a sentence that has candidates (its own keys once, in
    :class:`_Sentence`) and for their items' norms (:meth:`base`, cached per
    item while the vocabulary does not change: an item first asked for later is
    matched against every sentence already read with one vocabulary).
    """

    __slots__ = ("vocab", "df", "n", "log_n", "cut")

    def __init__(self, vocab: Vocabulary, df: Frequencies | None = None, n: int | None = None) -> None:
        """``df`` and ``n``: the frequencies and sentence count to use instead of ``vocab``'s own (a
        scan that reads the session backwards: :mod:`ctx_tui.memory.latest_references`); ``vocab``
        then only names the state the items' norms are cached for."""
        self.vocab = vocab
        self.df = vocab.df if df is None else df
        self.n = vocab.n if n is None else n
        self.log_n = math.log(self.n + PRIOR_SENTENCES + 1)
        self.cut = _common_cut(self.n)

    def of(self, keys: Iterable[str]) -> Iterator[float]:
        """The IDF of each key, in order: each step a C-level map (no Python frame per key)."""
        return map(self.log_n.__sub__, map(math.log, map(_add, map(self.df.__getitem__, keys), _ONES)))

    def common(self, key: str) -> bool:
        return self.df[key] > self.cut

    def base(self, profile: Profile) -> float:
        """The item's squared norm, identifiers at a plain word's weight (see :class:`_Sentence`)."""
        vocab, n, cached, _ = profile.norm_at
        if vocab is self.vocab and n == self.n:
            return cached
        # (w * idf) ** 2 summed in the item's order
        value: float = sum(map(pow, map(_mul, profile.weak, self.of(profile.keys)), _TWOS))
        profile.norm_at = (self.vocab, self.n, value, min(map(self.df.__getitem__, profile.keys), default=0))
        return value

    def norm_floor(self, profile: Profile) -> float:
        """A lower bound of the item's norm (the root of :meth:`base`) from the one last computed, 0 if none.

        Since then ``d`` sentences were counted: the sentence count only grew, and no key's
        frequency grew by more than ``d``, so no key's IDF fell by more than
        ``log1p(d / (least frequency then + 1))``; the norm fell by at most that times the
        norm of the item's weights. A norm computed at a later state (a scan that reads the session
        backwards): ``d`` sentences fewer now, frequencies no higher, so no key's IDF is lower by
        more than the sentence count's part, ``log1p(d / (sentences now + PRIOR_SENTENCES + 1))``.
        """
        vocab, n, cached, least = profile.norm_at
        if vocab is not self.vocab:
            return 0.0
        root = math.sqrt(cached)
        if n == self.n:
            return root
        if n > self.n:
            return max(0.0, root - math.log1p((n - self.n) / (self.n + PRIOR_SENTENCES + 1)) * profile.length)
        return max(0.0, root - math.log1p((self.n - n) / (least + 1)) * profile.length)


def similarity(
    profile: Profile, sentence: str, vocab: Vocabulary | None = None, strict: bool = False
) -> tuple[float, tuple[str, ...]]:
    """The score of ``profile`` against ``sentence`` and the matched surfaces (empty when common words
    alone); ``strict`` as for :meth:`MentionIndex.match_sentence`. No index, no cache: what the index must give."""
    idf = _Idf(vocab if vocab is not None else Vocabulary())
    scored = _Sentence(_Parsed(terms(sentence), sentence), idf, strict)
    score, matched = _score(profile, scored, idf, strict)
    if score < THRESHOLD and profile.tools and scored.runs:
        return _runs_the_item(profile, scored, idf, score, matched)
    return score, matched


def _has(source: str, keys: Mapping[str, float]) -> bool:
    return all(k in keys for k in source.split(" "))


def _concept_matches(profile: Profile, sentence: _Sentence, idf: _Idf) -> tuple[float, list[str], list[str]]:
    """What the lexicon adds: for each concept both name only through words the other does not
    have (*Keychain* / *secure storage*), :data:`CONCEPT` x the item's and the sentence's weights
    of those words; each of the item's words counts once. Returns the sum, the sentence's words as
    written, and for each match the item's words that give it (keys; a phrase's joined by a space).

    A concept the sentence names by its kind after *new* or *old* ("the new node provisioner") and the
    item through one of its names (*Karpenter*) refers to that name: the item's other words for it
    ("node scaling") are not what gives the match (see the shared-word rule of :func:`_score`)."""
    total = 0.0
    surfaces: list[str] = []
    keys: list[str] = []
    used: set[str] = set()
    for concept, sources in profile.concepts.items():
        theirs = sentence.concepts.get(concept)
        if not theirs or idf.common(concept):
            continue
        if concept == FILE_KIND:
            # the sentence's file name is a file of the item's only where it carries one of the
            # item's words (``values-prod.yaml`` for "Helm values per environment in separate
            # files"); the item's own file names are things of their own, not its word *file*
            owners = sentence.owners
            theirs = {src: v for src, v in theirs.items() if src[0] != "=" or any(
                owner == src and k in profile.factors for k, owner in owners.items())}
            sources = [src for src in sources if src[0] != "="]
            if not theirs or not sources:
                continue
        if any(_has(src, sentence.vector) for src in sources) or any(_has(src, profile.factors) for src in theirs):
            continue  # a word both name already links them there ("Android ... Kotlin" / "Android ... Gradle")
        mine = [src for src in sources if src not in used]
        if not mine:
            continue
        surface = max(theirs.values())[1]
        used.update(mine)
        weight = _several([(w, src) for src, (w, _) in theirs.items()])
        factor = JARGON if not any(map(_everyday_source, mine)) and not any(map(_everyday_source, theirs)) else CONCEPT
        total += factor * _several([(_source_weight(src, idf), src) for src in mine]) * weight
        surfaces.append(surface)
        named = _named_by_kind(profile, sentence, theirs, mine)
        keys.append(" ".join(named or mine))
    return total, surfaces, keys


@lru_cache(maxsize=1 << 14)
def _everyday_source(source: str) -> bool:
    """Whether a concept's source (a key, or a phrase's keys joined by a space) holds an everyday
    English word (:func:`~ctx_tui.english.common_keys`); identifiers and numbers are none."""
    everyday = _everyday_keys()
    return any(key in everyday for key in source.split(" "))


def _several(weighted: list[tuple[float, str]]) -> float:
    """The weight of a concept one side names through ``weighted`` (each source's weight and key or
    phrase): the norm of the weights of the sources that share no word, heaviest first (a phrase and
    a word of it are one naming). A text that names the concept through two words of its own ("page
    through the results without offsets") says more of it than one word does, as two shared words
    count more than one; the same on both sides, as the cosine is symmetric."""
    if len(weighted) == 1:
        return weighted[0][0]
    taken: set[str] = set()
    total = 0.0
    for weight, source in sorted(weighted, reverse=True):
        words = source.split(" ")
        if taken.isdisjoint(words):
            taken.update(words)
            total += weight * weight
    return math.sqrt(total)


def _named_by_kind(profile: Profile, sentence: _Sentence, theirs: Mapping[str, tuple[float, str]], mine: list[str]) -> list[str]:
    """The item's names among ``mine`` when the sentence writes the concept after a kind marker."""
    marked = sentence.marked
    if not marked or not any(all(w in marked for w in surface.lower().split()) for _, surface in theirs.values()):
        return []
    return [src for src in mine if any(set(src.split(" ")) <= name for name in profile.names)]


def _another_subject(profile: Profile, sentence: _Sentence, evidence: list[str]) -> bool:
    """Whether the sentence shares one distinctive term with the item and talks about something else.

    One term (an identifier counts once with its parts, shared whole or through them) names the
    topic, not what the item says of it: "the iOS simulator crashes on launch" shares *iOS* with
    "Minimum iOS version stays 15", "the A100 node is reserved for the other team" shares *A100*
    with "Batch size 256 OOMs on the A100".
    When the sentence also says :data:`OWN_WORDS` or more plain words of its own (words the item
    does not have, a word naming one of its concepts included), it has its own subject around the term and shares none
    of the item's context. A short question about just the term ("Karpenter limits ok?", "still
    5173?") says too little of its own; identifiers, paths and numbers beside it are not counted
    ("mkdocs.yml has the nav for all 40 pages" is about the MkDocs move).
    """
    owners = sentence.owners
    if len(evidence) > 1 and len({owners.get(k, k) for k in evidence}) > 1 and not _one_phrase(profile, evidence):
        return False
    return _own_words(profile, sentence) >= OWN_WORDS


def _other_age(key: str, profile: Profile, sentence: _Sentence) -> bool:
    """Whether the item and the sentence say ``key`` of things of opposite ages (:data:`AGES`): the
    item's "new Android code" and the sentence's "old RxJava code" share *code*, not what is said of it."""
    mine = profile.aged.get(key)
    if not mine:
        return False
    theirs = sentence.parsed.aged.get(key)
    return theirs is not None and theirs == -mine


def _everyday_part(profile: Profile, sentence: _Sentence, evidence: list[str]) -> bool:
    """Whether all the evidence is a part of a name on one side written as a plain word on the
    other, and an everyday English word (:func:`~ctx_tui.english.common_keys`): *Fast* of
    ``FastAPI`` in "make it fast", *Next* of ``NextAuth`` in "Next done?". Such a word says nothing
    of the name by itself; a part that is no everyday word does (*Rx* of ``RxJava``, *Keychain* of
    ``KeychainHelper``), and so does the everyday part beside any other evidence."""
    if not evidence:
        return False
    factors, weights = profile.factors, sentence.weights
    for key in evidence:
        if key[0] in "=#~$" or (factors[key] == PART) == (weights[key] == PART):
            return False  # an identifier, number or concept; or a word (or a part) on both sides
    everyday = _everyday_keys()
    return all(key in everyday for key in evidence)


def _agrees(sentence: _Sentence, rejected: list[str]) -> bool:
    """Whether the sentence turns down the same alternative the item does ("no Rx in the new screens"
    for "Use Kotlin coroutines with Flow, no RxJava in new Android code"): it restates the rule,
    it does not talk about the other thing."""
    if not rejected:
        return False
    turned_down = sentence.parsed.turned_down
    return all(k in turned_down for k in rejected)


def _one_phrase(profile: Profile, keys: list[str]) -> bool:
    """Whether ``keys`` are two plain words the item writes side by side ("business hours", "CI
    fails", "learning rate") and at most a third of its words: such a phrase names one thing of the
    item, as an identifier does. (Longer runs, or a phrase of a short item, share most of what it
    says: "small commits" of "I prefer small commits, each with its tests"; identifiers and numbers
    are things of their own.)"""
    factors = profile.factors
    if any(factors.get(k, 0.0) > 1.0 for k in keys) or sum(1 for f in factors.values() if f == 1.0) < 6:
        return False
    places = sorted({p for k in keys for p in profile.places.get(k, ())})
    return len(places) == 2 and places[1] - places[0] == 1


def _own_words(profile: Profile, sentence: _Sentence) -> int:
    """The sentence's plain words the item does not have. (A word naming one of the item's concepts
    counts too: leaving those out moved no figure on tune and lowered fresh decayed recall, see
    docs/memory.md.)"""
    factors = profile.factors
    return len([k for k in sentence.plain if k not in factors])


def _names_the_item(profile: Profile, sentence: _Sentence, shared: list[str], idf: _Idf) -> bool:
    """Whether a short sentence asks about a name the item writes ("Playwright suite green?",
    "Metabase move on track?", "no sleeps left?"): it shares one of the item's names
    (:func:`_names`, not common, not the alternative the item turns down) and says fewer than
    :data:`OWN_WORDS` plain words of its own. The words beside the name say how it is going,
    not what else it is about, however rare they are in the session."""
    rejected, said = profile.rejected, set(shared)
    if not any(name <= said and not name & rejected and not all(idf.common(k) for k in name) for name in profile.names):
        return False
    return _own_words(profile, sentence) < OWN_WORDS


def _runs_the_item(
    profile: Profile, sentence: _Sentence, idf: _Idf, score: float, matched: tuple[str, ...]
) -> tuple[float, tuple[str, ...]]:
    """``score`` and ``matched``, or the threshold and the name where the sentence's command line runs
    one of the item's names (:func:`_tool_names`): its program, subcommand, an installed package or
    what the program belongs to (``npx playwright test --project=chromium`` runs *Playwright*;
    ``west build -b <board>`` runs *Zephyr*; ``docker compose up`` *Docker Compose*) — however rare
    its other words are. Not where every such command of the session runs it (:data:`COMMON_SHARE`), and
    for a name written as a modifier ("Helm values") only where the command also runs the noun."""
    runs, df, cut = sentence.runs, idf.df, idf.cut
    for name, noun in profile.tools:
        if name <= runs and any(df[RUN + w] <= cut for w in name) and (not noun or any(stem(w) == noun for w in runs)):
            return THRESHOLD, tuple(sorted(name))  # the shared words alone (a bound may have cut them short)
    return score, matched


def _kin(key: str, profile: Profile, sentence: _Sentence) -> float:
    """1, or 0 for a part both sides hold only as a part of different identifiers: ``widget1`` is not
    ``widget3``, ``UserDefaultsStore`` not ``UserDefaults`` (a part counts where the item writes the
    word, or names the very identifier the sentence does). A name written as one word in CamelCase
    is that word wherever it is a part: *WebAuthn* of the item in ``REQUIRE_WEBAUTHN_FOR_ADMINS``,
    and so is its short form of the lexicon (*OpenTelemetry* is ``otel``: ``OTEL_EXPORTER_OTLP_ENDPOINT``)."""
    factors = profile.factors
    if factors[key] == PART and sentence.weights[key] == PART and sentence.owners.get(key) not in factors:
        whole = "=" + key
        return 1.0 if whole in factors or whole in sentence.weights or key in profile.whole_words else 0.0
    return 1.0


def strict_may_mention(profile: Profile, keys: Container[str]) -> bool:
    """Whether ``strict`` text holding the term ``keys`` (its words, not its concepts) can mention the
    item whatever the frequencies: :func:`_score` needs a shared identifier, path or number there, or
    two shared terms (strict text matches no concept), or a command running one of its names
    (:func:`_runs_the_item`). A scan that sees a sentence many times asks once."""
    shared = [k for k in profile.keys if k in keys]
    if len(shared) > 1 or (len(shared) == 1 and profile.factors[shared[0]] >= STRONG):
        return True
    return any(all(RUN + w in keys for w in name) for name, _ in profile.tools)  # a command running its name


def _score(
    profile: Profile, sentence: _Sentence, idf: _Idf, strict: bool = False, floor: float = 0.0
) -> tuple[float, tuple[str, ...]]:
    """Cosine of the item's and the sentence's weighted terms (identifiers :data:`STRONG` where
    shared), plus the lexicon's concept matches between words they do not share
    (:func:`_concept_matches`, not in ``strict`` text); for a short sentence, at least its share of
    weight the item holds ("cents everywhere?" is mostly about cents), scaled so that
    :data:`SHORT_SHARE` scores :data:`THRESHOLD`. Evidence: a shared term that is not common, or
    :data:`CONCEPT_EVIDENCE` concept matches.

    ``floor``: the caller keeps no score below it, so a score that provably cannot reach it
    (:meth:`_Idf.norm_floor`) is returned as 0 without computing the item's norm."""
    vector = sentence.vector
    factors = profile.factors
    shared = list(filter(vector.__contains__, profile.keys))
    concepts = sentence.concepts
    soft_surfaces: list[str]
    soft_keys: list[str]
    if strict or not concepts or concepts.keys().isdisjoint(profile.concepts):
        soft, soft_surfaces, soft_keys = 0.0, [], []  # no concept both name
    else:
        soft, soft_surfaces, soft_keys = _concept_matches(profile, sentence, idf)
    if not shared:
        if len(soft_surfaces) < CONCEPT_EVIDENCE:
            return 0.0, ()
        shared_norm = math.sqrt(sentence.base)
        item_norm = math.sqrt(idf.base(profile))
        if not item_norm or not shared_norm:
            return 0.0, ()
        return min(1.0, soft / (item_norm * shared_norm) / PARAPHRASE), tuple(dict.fromkeys(soft_surfaces))
    idfs, weights = sentence.idfs, sentence.weights
    df, cut = idf.df, idf.cut  # idf.common(k) is df[k] > cut
    short = sentence.short and not strict and sentence.own
    if len(shared) == 1:  # most candidates: the sums below of one term, without building lists
        key = shared[0]
        factor = factors[key]
        if (df[key] > cut and len(soft_surfaces) < CONCEPT_EVIDENCE) or (strict and factor < STRONG):
            return 0.0, ()
        strong = idfs[key] ** 2 * (STRONG * STRONG - 1.0)
        item_strong: float = strong if factor >= STRONG else 0
        sentence_norm = math.sqrt(sentence.base + (strong if weights[key] >= STRONG else 0))
        dot = factor * idfs[key] * vector[key] * (_kin(key, profile, sentence) if factor == PART else 1.0)
        share = vector[key] / sentence.own if short else 0.0
        matched: tuple[str, ...] = (sentence.surfaces[key],)
    else:
        if all(df[k] > cut for k in shared) and len(soft_surfaces) < CONCEPT_EVIDENCE:
            return 0.0, ()  # common words alone are never enough, nor one concept
        strongs = [idfs[k] ** 2 * (STRONG * STRONG - 1.0) for k in shared]
        item_strong = sum(b for k, b in zip(shared, strongs) if factors[k] >= STRONG)
        sentence_norm = math.sqrt(sentence.base + sum(b for k, b in zip(shared, strongs) if weights[k] >= STRONG))
        dot = sum([factors[k] * idfs[k] * vector[k] * (_kin(k, profile, sentence) if factors[k] == PART else 1.0) for k in shared])
        share = sum([vector[k] for k in shared]) / sentence.own if short else 0.0
        matched = ()
    if short and sentence.question and share < SHORT_SHARE and _names_the_item(profile, sentence, shared, idf):
        share = SHORT_SHARE
    dot += soft
    if soft_surfaces:
        floor *= PARAPHRASE  # the paraphrase's cosine counts more (below)
    if floor and share < SHORT_SHARE and sentence_norm:
        # below the floor even with the item's norm at its lowest since it was last computed: not worth
        # computing it, nor going through the rules below (all they can do is turn the score to 0)
        low = idf.norm_floor(profile)
        if low and dot < floor * _MARGIN * math.sqrt(low * low + item_strong) * sentence_norm:
            return 0.0, ()
    if not strict and not soft_surfaces:
        # only the alternative the item turns down, or only a quantity ("28 days"): another subject,
        # unless the sentence is a short question about just that ("still no click?", "still 5173?"),
        # the item's own words beside the number included ("still temperature 0?", "6 attempts?")
        evidence = [k for k in shared if df[k] <= cut and not _other_age(k, profile, sentence)]
        if not evidence:
            return 0.0, ()  # all it shares is said of something of the other age
        if share < SHORT_SHARE and all(k in profile.rejected for k in evidence) and not _agrees(sentence, evidence):
            return 0.0, ()
        counted = sentence.counted
        if any(k[0] == "#" for k in evidence) and all(k[0] == "#" or k in UNITS or k in counted for k in evidence) and (
            share < SHORT_SHARE or any(k[0] != "#" and k not in UNITS and df[k] <= cut and k not in factors for k in weights)
        ):
            return 0.0, ()
        if share < SHORT_SHARE and any(k[0] == "#" for k in evidence):
            # a number that labels or counts other things on each side is no evidence ("16 items per
            # page" against "APIs that need iOS 16")
            evidence = [k for k in evidence if k[0] != "#" or not _labels_other_things(profile, sentence, k)]
            if not evidence:
                return 0.0, ()
        if _another_subject(profile, sentence, evidence) or _everyday_part(profile, sentence, evidence):
            return 0.0, ()
    elif strict:
        # the quantity rule in a command's arguments, where no short question asks about a number:
        # a count, a flag's value or a line number ("head -28") is no mention of "... over 28 days"
        counted = sentence.counted
        if all(k[0] == "#" or k in UNITS or k in counted for k in shared if df[k] <= cut):
            return 0.0, ()
    elif not strict:
        # a concept the item gives through a word the sentence shares ("pull request" / "merge
        # request" beside *request*) adds no evidence of its own
        evidence = [k for k in shared if df[k] <= cut]
        if (
            share < SHORT_SHARE and len(soft_surfaces) < CONCEPT_EVIDENCE and all(k in profile.rejected for k in evidence)
            and not _agrees(sentence, evidence)
        ):
            return 0.0, ()  # one concept beside the alternative the item turns down: no more than that alone
        if all(set(source.split(" ")) & set(evidence) for source in soft_keys) and _another_subject(profile, sentence, evidence):
            return 0.0, ()
    if soft_surfaces:
        matched = tuple(dict.fromkeys([*(sentence.surfaces[k] for k in shared), *soft_surfaces]))
    item_norm = math.sqrt(idf.base(profile) + item_strong)
    if not item_norm or not sentence_norm:
        return 0.0, ()
    score = dot / (item_norm * sentence_norm)
    if soft_surfaces:
        score = min(1.0, score / PARAPHRASE)  # a paraphrase (see PARAPHRASE)
    if share >= SHORT_SHARE:
        score = max(score, share * THRESHOLD / SHORT_SHARE)
    return score, matched or tuple(dict.fromkeys([sentence.surfaces[k] for k in shared]))


class ScoreBound:
    """What :meth:`MentionIndex.score_sentence` can give an item at most for one sentence, where the
    frequencies are known only in part: ``high`` gives an upper bound of the IDF of a key (its exact
    IDF at one sentence: a read asks the frequencies; over a stretch of sentences, from the fewest
    sentences holding it there and the most sentences read), ``low`` a lower bound (a scan that knows
    each term's count in the whole session: the count at a sentence is no higher). The sentence's
    and the item's norms are taken at the lower bounds; what the item shares with the sentence and
    the sources of the concepts both name, at the upper ones (``exact``: those are exact, so the
    norms take them too).

    Every score :func:`_score` gives is the cosine of the item and the sentence (plus the concept
    matches, over :data:`PARAPHRASE`) or 0, unless a short sentence's share of weight or a short
    question lifts it, or a command line runs the item (:func:`_runs_the_item`): :meth:`of` works out
    no bound (``math.inf``) where those may apply. A rule added to :func:`_score` that can raise a
    score must be added here too (``tests/test_latest_references.py`` compares the scan that uses
    this with the forward scan, which does not).
    """

    __slots__ = ("weights", "short", "question", "concepts", "runs", "base", "own", "high", "low", "exact")

    def __init__(self, parsed: _Parsed, high: Mapping[str, float], low: Mapping[str, float], strict: bool, exact: bool) -> None:
        weights, _, short = parsed.weighted()
        self.weights = weights
        self.short = short and not strict
        self.question = self.short and parsed.question
        self.concepts = {} if strict else parsed.concepts
        self.runs = parsed.runs | parsed.loose_runs if strict else parsed.runs
        keys, weak = parsed.normed
        lows = low.__getitem__
        #: lower bounds of :class:`_Sentence`'s ``base`` and ``own``
        self.base: float = sum(map(pow, map(_mul, weak, map(lows, keys)), _TWOS))
        self.own: float = sum(map(_mul, weights.values(), map(lows, weights)))
        self.high = high
        self.low = low
        self.exact = exact

    def item_base(self, profile: Profile) -> float:
        """A lower bound of the item's squared norm (:meth:`_Idf.base`)."""
        base: float = sum(map(pow, map(_mul, profile.weak, map(self.low.__getitem__, profile.keys)), _TWOS))
        return base

    def may_reach(self, profile: Profile, item_base: float, floor: float, plan: BoundPlan | None = None) -> bool:
        """Whether the item may score ``floor`` (``item_base``: :meth:`item_base`; ``plan``: its
        :meth:`plan`, if known), rounding allowed for."""
        return self.of(profile, item_base, plan) >= floor * _MARGIN

    def plan(self, profile: Profile) -> BoundPlan:
        """What :meth:`of` reads of the item and the sentence whatever the frequencies (a scan that
        bounds one sentence at many positions works it out once): a bound already known (``math.inf``
        where none is worked out, 0 where nothing is shared), or the shared terms (key, item factor
        times sentence weight, sentence weight, whether each side writes it as an identifier) and,
        where both name concepts, the concept matches that count (their factor, the item's sources
        and the sentence's, each as its keys)."""
        if self.question or (profile.tools and self.runs):
            return math.inf  # a short question about a name, a command running it: see the class
        weights, factors, concepts = self.weights, profile.factors, self.concepts
        shared = [k for k in profile.keys if k in weights]
        overlap = concepts.keys() & profile.concepts.keys() if concepts else ()
        if not shared and len(overlap) < CONCEPT_EVIDENCE:
            return 0.0  # no shared term, and too few concepts both name to be evidence
        terms = tuple((k, factors[k] * weights[k], weights[k], weights[k] >= STRONG, factors[k] >= STRONG) for k in shared)
        if not overlap:
            return terms, None
        soft: list[tuple[float, tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]] = []
        for concept in overlap:  # _several is at most the norm of all the sources' weights, on each side
            mine, theirs = profile.concepts[concept], concepts[concept]
            if concept != FILE_KIND and (any(_has(src, weights) for src in mine) or any(_has(src, factors) for src in theirs)):
                continue  # a word both name links them there: no match (see _concept_matches)
            # JARGON where a match could be made of technical words only (at least the factor used)
            jargon = not all(map(_everyday_source, mine)) and not all(map(_everyday_source, theirs))
            factor = max(JARGON, CONCEPT) if jargon else CONCEPT
            soft.append((factor, tuple(tuple(s.split(" ")) for s in mine), tuple(tuple(s.split(" ")) for s in theirs)))
        return terms, tuple(soft)

    def of(self, profile: Profile, item_base: float, plan: BoundPlan | None = None) -> float:
        """An upper bound of the item's score (``item_base``: :meth:`item_base`; ``plan``: its
        :meth:`plan`, if known); ``math.inf`` where none is worked out."""
        if plan is None:
            plan = self.plan(profile)
        if isinstance(plan, float):
            return plan
        shared, concepts = plan
        high, low = self.high, self.low
        lows = high if self.exact else low
        dot = said = sentence_strong = item_strong = 0.0
        for key, factor_weight, weight, sentence_strongly, item_strongly in shared:
            value = high[key]
            dot += factor_weight * value * value
            said += weight * value
            if sentence_strongly:
                sentence_strong += lows[key] ** 2 * (STRONG * STRONG - 1.0)
            if item_strongly:
                item_strong += lows[key] ** 2 * (STRONG * STRONG - 1.0)
        if self.short and shared:
            rest = self.own - sum([weight * low[key] for key, _, weight, _, _ in shared])  # the other words' part, at least
            if said >= SHORT_SHARE * _MARGIN * (said + rest):
                return math.inf  # its share of weight may lift the score
        if concepts is not None:
            soft = 0.0
            highs = high.__getitem__
            for factor, mine, theirs in concepts:
                soft += factor * math.sqrt(
                    sum([max(map(highs, s)) ** 2 for s in mine]) * sum([max(map(highs, s)) ** 2 for s in theirs])
                )
            dot = (dot + soft) / PARAPHRASE
        norms = (self.base + sentence_strong) * (item_base + item_strong)
        return dot / math.sqrt(norms) if norms > 0.0 else math.inf


#: :meth:`ScoreBound.plan`: a bound, or the shared terms and the concept matches (None where both name no concept in common).
BoundPlan = float | tuple[
    tuple[tuple[str, float, float, bool, bool], ...],
    tuple[tuple[float, tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]], ...] | None,
]


def _evidence(sentence: str) -> str:
    one = " ".join(sentence.split())
    return one if len(one) <= EVIDENCE_CHARS else one[: EVIDENCE_CHARS - 1] + "…"


def mention(
    item_text: str,
    text: str,
    vocab: Vocabulary | None = None,
    previous: bool = False,
    threshold: float = THRESHOLD,
) -> Mention | None:
    """Does ``text`` mention the item? ``previous``: the turn ``text`` answers mentioned it."""
    index = MentionIndex(vocab, threshold)
    index.add("item", item_text)
    prior = {"item": Mention(1.0, "", ())} if previous else None
    return index.find(text, prior).get("item")


class MentionIndex:
    """Many items, matched against text through an inverted index (term -> items).

    ``find`` costs the text's terms plus the items sharing one of them, so it
    stays flat with the number of items. Keys are any hashable the caller
    chooses (item ids).
    """

    def __init__(self, vocab: Vocabulary | None = None, threshold: float = THRESHOLD) -> None:
        self.vocab = vocab if vocab is not None else Vocabulary()
        self.threshold = threshold
        self.profiles: dict[str, Profile] = {}
        self._postings: dict[str, set[str]] = {}

    def __len__(self) -> int:
        return len(self.profiles)

    def __contains__(self, key: object) -> bool:
        return key in self.profiles

    def add(self, key: str, text: str) -> None:
        """Track ``text`` under ``key`` (replacing what the key held)."""
        self.remove(key)
        profile = Profile(text)
        self.profiles[key] = profile
        for term_key in profile.index_keys():
            self._postings.setdefault(term_key, set()).add(key)

    def remove(self, key: str) -> None:
        old = self.profiles.pop(key, None)
        if old is None:
            return
        for term_key in old.index_keys():
            holders = self._postings.get(term_key)
            if holders is not None:
                holders.discard(key)
                if not holders:
                    del self._postings[term_key]

    def match_sentence(self, sentence: str, learn: bool = False, strict: bool = False) -> dict[str, Mention]:
        """The items ``sentence`` mentions (score at or above the threshold).

        ``learn``: count the sentence in the vocabulary first (IDF over the session as it is read).
        ``strict``: for text that is not a conversational turn (tool-call arguments, code): one
        shared plain word is not enough there ("processors: {}," is no follow-up), an identifier,
        path or number still is.
        """
        parsed = _parse(sentence)
        vocab = self.vocab
        if learn:
            vocab.add_keys(parsed.keys)
        held = parsed.keys & self._postings.keys()
        if not held:
            return {}
        candidates = self.candidates(held, vocab.df, vocab.n)
        if not candidates:
            return {}
        return self.score_sentence(sentence, parsed, held, candidates, _Idf(vocab), strict)

    def candidates(self, held: Iterable[str], df: Frequencies, n: int) -> set[str]:
        """The items that share a term of ``held`` that is not common (of ``n`` sentences read with
        frequencies ``df``): a mention needs one, so only such terms pick candidates."""
        candidates: set[str] = set()
        postings, cut = self._postings, _common_cut(n)
        for key in held:
            holders = postings[key]
            if len(holders) <= MAX_POSTING and df[key] <= cut:
                candidates |= holders
        return candidates

    def score_sentence(
        self, sentence: str, parsed: _Parsed, held: Iterable[str], candidates: Iterable[str], idf: _Idf, strict: bool
    ) -> dict[str, Mention]:
        """The ``candidates`` that ``sentence`` (its terms ``parsed``; ``held``: those some item
        holds) mentions, scored with ``idf``."""
        scored = _Sentence(parsed, idf, strict)
        runs = scored.runs and any(RUN + w in self._postings for w in scored.runs)
        if not (scored.concepts and not strict) and not runs and not scored.can_reach(held, strict, self.threshold):
            return {}  # no item can share enough of it (concept matches and run names are not bounded there)
        found: dict[str, Mention] = {}
        for item in candidates:
            profile = self.profiles[item]
            score, matched = _score(profile, scored, idf, strict, self.threshold)
            if score < THRESHOLD and profile.tools and scored.runs:
                score, matched = _runs_the_item(profile, scored, idf, score, matched)
            if matched and score >= self.threshold:
                found[item] = Mention(score, _evidence(sentence), matched)
        return found

    def find(
        self, text: str, previous: Mapping[str, Mention] | None = None, learn: bool = False, strict: bool = False
    ) -> dict[str, Mention]:
        """The items ``text`` mentions, each with its best sentence.

        ``previous``: what the turn ``text`` answers mentioned; a follow-up
        sentence opening ``text`` ("yes, keep it that way") mentions those too.
        ``learn`` and ``strict``: as for :meth:`match_sentence`.
        """
        found: dict[str, Mention] = {}
        for n, sentence in enumerate(sentences(text)):
            if n == 0 and previous and is_followup(sentence):
                for item in previous:
                    if item in self.profiles:
                        found[item] = Mention(self.threshold, _evidence(sentence), (), followup=True)
            for item, hit in self.match_sentence(sentence, learn, strict).items():
                best = found.get(item)
                if best is None or hit.score > best.score:
                    found[item] = hit
        return found
