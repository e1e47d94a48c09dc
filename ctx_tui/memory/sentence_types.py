"""What one sentence states: a constraint, a preference, a decision, or nothing (lexical signals).

:func:`classify` reads one sentence and its speaker. A user sentence is a
**constraint** when it opens with an imperative of a rule (``never``,
``always``, ``don't``, ``make sure``, ``keep in mind``…, also after ``Also:``,
``Note:``, ``Important:``) or holds a binding modal (``must``, ``should``,
``need to``, ``is not allowed``, ``not acceptable``…); a **preference** with
``I prefer``, ``I'd rather``, ``X instead of Y`` with a choice verb, ``for
better readability``…; a **decision** with ``let's / we'll / I'll use X``,
``decided``, ``going with``, ``settled on``…. An assistant sentence is only
ever a decision. Questions, hedges ("it should work now") and the user's
reports about themselves ("I never got the alert") state nothing.

Beyond those words, the frames of how people say them: :mod:`ctx_tui.memory.sentence_frames`.
"""
from __future__ import annotations

import re

from ctx_tui import regex_cache
from ctx_tui.memory.alternation import compile_grouped
from ctx_tui.memory.items import ItemType
from ctx_tui.memory.sentence_frames import (
    LINKED,
    NOT_IMPERATIVE,
    choice_frame,
    foreign_words,
    rule_frame,
    taste_frame,
    unsettled,
)

MIN_SENTENCE = 8
_WORD = regex_cache.compile(r"\w+")

_PREFIX = regex_cache.compile(
    r"^(?:(?:and|but|also|so|then|please|pls|plz|oh|ok|okay|note|nb|ps|p\.s\.|btw|reminder|remember|great|good|nice|"
    r"thanks|fine|right|yes|yep|no|sure|cool|perfect|however|again|"
    r"important|crucial|critical)\b\s*[:,\-–—!]*\s*)+",
    re.I,
)
_LEAD_RULE = regex_cache.compile(r"^(?:important|crucial|critical|reminder|remember|rule)\s*[:!\-–—]", re.I)
_IMPERATIVE = regex_cache.compile(
    r"^(?:always|never|don'?t|do not|dont|doesn'?t|make sure|ensure|be sure to|avoid|only(?= \w+ )(?! (?:\d|one|two|three|a |an |the |it |this |that |when|if|after|before))|stop|no more|"
    r"under no circumstances|keep in mind|remember to|remember that|be careful|refrain from|no need to)\b",
    re.I,
)
_MODAL = compile_grouped(
    r"\b(?:must(?:n'?t| not)?|should(?:n'?t| not)?|shall not|(?:is|are) not allowed|not allowed to|(?:is|are) forbidden|"
    r"(?:is|are) required|required to|(?:is|are) mandatory|(?:is|are) (?:crucial|critical|essential|vital)|"
    r"(?:important|crucial|critical|essential|vital) (?:not )?to|important that|not (?:valid|acc?ep\w*|ok|okay|allowed)\b|"
    r"(?:there is|there's) a need (?:to|for)|(?:there is|there's) no need to|need(?:s)? to|ha(?:ve|s) to|"
    r"you (?:always|never)|we (?:always|never)|(?:is|are) (?:banned|prohibited|disallowed|not permitted)|"
    r"(?:hard|strict) requirement|non-negotiable|not negotiable|(?:is|are) a must|(?:is|are) a no-go|(?:is|are) not an option|"
    r"not to be (?:touched|changed|modified|edited|deleted|removed|used))\b",
    re.I,
)
_PREFERENCE = compile_grouped(
    r"\b(?:i|we) (?:prefer|'d prefer|would prefer|'d rather|would rather|like it when|like it better)\b|"
    r"\bi'd (?:prefer|rather)\b|\bi (?:really )?(?:like|love|hate|dislike) (?:it when|when|to|using)\b|\bprefer(?:ably|red)?\b|"
    r"\bfor (?:better|easier|more) (?:readab\w+|clarity|readability|review\w*|navigation|scanning)\b|"
    r"^(?:please )?(?:use|keep|write|put|format|name)\b.*\b(?:instead of|rather than)\b",
    re.I,
)
_ALTERNATIVE = regex_cache.compile(r"\b(?:instead of|rather than)\b", re.I)
#: Verbs after "let's" / "we'll" that explore or act rather than settle a choice.
_NOT_A_CHOICE = (
    "see|check|look|try|start|begin|run|examine|investigate|explore|find|analy[sz]e|review|debug|test|verify|"
    "discuss|talk|think|figure|continue|proceed|get|do|dive|move on|take|break|walk|dig|read|go through|go over|"
    "first|now|also|quickly|summari[sz]e|recap|write|create|update|fix|implement|add|build|make sure|wait|wrap|"
    "clean|commit|push|open|install|rebuild|rerun|retry|restart|compare|inspect|trace|profile|measure|plan|"
    "outline|sketch|brainstorm|step back|tackle|get started|be careful|tidy|double-check|doublecheck|confirm"
)
#: "it should work now": a hedge about the present, not a rule.
_HEDGE = regex_cache.compile(
    r"\b(?:it|this|that|which|everything|all)\s+should(?:\s+(?:now|still|already|probably|also|hopefully))?\s+"
    r"(?:work|be fine|be ok|be okay|be good|be enough|fix|pass|help|do it|be done|be there)\b",
    re.I,
)
#: "let's", and "lets" written without its apostrophe where it opens a clause ("The approach lets us …" is a verb).
_LETS = (
    r"(?:let's|let us|(?:^|(?<=[,;:.!(] )|(?<=ok )|(?<=so )|(?<=yes )|(?<=fine )|(?<=then )|(?<=and )|(?<=now )|"
    r"(?<=alright ))lets)"
)
_DECISION = compile_grouped(
    r"\b" + _LETS + r"\s+(?!(?:" + _NOT_A_CHOICE + r"|be)\b)\w+|"
    r"\b" + _LETS + r"\s+(?:just\s+)?do\s+(?!(?:it|this|that|so|some|a|an|one|more|another|the same|the rest|the following)\b)\w+|"
    r"\b(?:(?:we|i)(?:'ll| will| shall| are going to|'re going to| am going to|'m going to)|ill)\s+"
    r"(?:go with|go for|use|keep|store|pin|adopt|switch to|stick with|stick to|choose|pick|rely on|opt for|settle on|"
    r"move to|default to|cap|limit|standardi[sz]e on|represent|model|treat|drop|replace)\b|"
    r"\b(?:" + _LETS + r"|(?:we|i)(?:'ll| will))\s+(?:just\s+)?start (?:fresh|over|from scratch|anew)\b|"
    r"\b(?:we|i)(?: have|'ve)? decided\b|\bdecided (?:to|on|that|against)\b|^(?:decided|decision)\b|\bwe(?:'re| are) going with\b|"
    r"(?<!keep )\bgoing with\b|\bgo with\b|\bgo ahead with\b|\bopted (?:for|to)\b|\bsettled on\b|\bchose to\b|\bthe plan is to\b|\bwe agreed\b",
    re.I,
)

#: "… what should i build, give some ideas", "not sure how we should store it": a question without its mark; its modal
#: binds nothing (compiled when first needed: most sentences hold no modal).
_ASKED = (
    r"\b(?:what|which|how|where|when|why|whether)\s+(?:\w+\s+)?(?:(?:should|shall)\s+(?:i|we|you)|(?:i|we|you)\s+(?:should|shall))\b"
)

#: "I'll use X to explore ...": a tool used for an action, not a choice.
_INSTRUMENTAL = regex_cache.compile(r"\buse\b.{0,80}?\bto (?:" + _NOT_A_CHOICE + r")\b", re.I)

_NOT_SELF = regex_cache.compile(
    r"^(?:i(?:'ve| have)? never|never mind|(?:i )?(?:don'?t|dont|do not) (?:know|think|see|understand|get|remember))\b", re.I
)


#: What an assistant's sentence needs to state a choice (its only kind): the pre-filter of assistant text.
_CHOICE_TRIGGER = regex_cache.compile(
    r"\b(?:let'?s|let us|\w+'ll|will|going|decid\w*|decision|go with|go for|go ahead|opted|settled|chose|chosen|picked|"
    r"selected|went with|gone with|plan is|agreed|instead|rather|using|switching|migrating|won'?t|not going to|enough|"
    r"it is|then|wins|way to go|we (?:decide|take|pick|choose|use|adopt)|not (?:moving|switching|migrating|going))\b|"
    r"(?:^|[.!?;。！？]\s*)" + LINKED + r"(?:ok|okay|fine|alright|all right|sure|yes|yeah|yep|agreed|deal|sounds good)\b"
)
#: The other languages' words of :mod:`~ctx_tui.memory.sentence_frames` written in ASCII: their frames are read only
#: in a sentence that holds one of these or is not ASCII (they cost as much as all the English ones).
_FOREIGN_ASCII = compile_grouped(
    r"\b(?:nunca|no (?:toques|modifiques|cambies|uses|subas|borres|se puede)|hay que|tienes que|prohibido|jamais|ne \w+ (?:pas|jamais)|"
    r"il ne faut|interdit|bitte|keine?|niemals|nichts|darf|muss|prefiero|prefiro|me gusta\w*|gosto|lieber|vamos|usamos|"
    r"usaremos|quedamos|elegimos|decidimos|optamos|usemos|on part|on garde|on prend|on utilise|on choisit|wir|siempre|sempre|"
    r"toujours|nie|immer|mai|nooit|altijd|il faut|finger|non|vietato|niet|verboden|preferisco|ik heb|usiamo|andiamo|"
    r"abbiamo|we gaan|ne|pas|auf keinen|proibido|aime|piace|ficamos|on va|on reste|entschieden|no \w+(?:es|as)|evita|evite|evitad|evitez|vermeide|vermeiden|debes|debe|debemos|"
    r"deben|tienes|tiene|tenemos|tienen|deve|devemos|devem|tem que|temos que|dois|devez|doit|devons|musst|sollst|solltest|"
    r"devi|dobbiamo|bisogna|bitte|nicht|lass|gustaria|gostaria|aimerais|voudrais|vorrei|bevorzuge|lieber|fande|va pour|"
    r"nehmen|bleiben|verwenden|gehen mit|scegliamo|escolhemos|nos vamos|no se|choisi|gern|gerne)\b",
)
#: Typographic apostrophes ("I’ll", "don’t", as macOS and phones type them) read as ASCII ones.
_QUOTES = str.maketrans({"’": "'", "‘": "'"})
#: Text after the last inner question ("should we …? feels like …") — a question states nothing.
_INNER_QUESTION = regex_cache.compile(r"^.*[?？]\s+")

#: Every pattern of :func:`classify` needs one of these words (a fast pre-filter: most sentences state nothing).
_TRIGGER = compile_grouped(
    r"\b(?:always|never|don'?t|dont|do not|doesn'?t|make sure|ensure|be sure|avoid|only|stop|no more|under no|"
    r"keep in mind|remember|careful|refrain|needs?|must|mustn|should|shouldn|shall|allowed|forbidden|required|"
    r"mandatory|crucial|critical|essential|vital|important|valid|not acc|not ok|have to|has to|prefer\w*|rather|"
    r"like|love|hate|dislike|for better|for easier|for more|instead|let'?s|let us|\w+'ll|will|going|decid\w*|"
    r"decision|go with|opted|settled|chose|plan is|agreed|reminder|rule|"
    # the frames of sentence_frames
    r"now on|forward|all times|all cases|every case|whatever|no matter|any circumstances|exceptions?|off[- ]limits|"
    r"untouch\w*|hands off|leave|no (?:new|more|extra|additional|external|direct|other|further|third|giant|big|random|hard)|"
    r"zero|nothing (?:that|which)|please|pls|plz|ever|anywhere|at all|stays?|stick\w*|pinned|locked|remains?|keep|"
    r"budget|limit|capped|cap|max|maximum|min|minimum|quota|sla|ceiling|tops|can'?t|cannot|can not|may not|otherwise|"
    r"or else|enjoy|fan of|for me|i (?:just |also )?find|me happy|whenever you|give me|show me|tell me|send me|short|"
    r"shorter|brief|concise|terse|simple|plain|it is|then|not (?:moving|switching|migrating|going)|"
    r"we (?:decide|take|pick|choose|use|adopt)|went with|picked|chose|chosen|selected|gone with|banned|freeze|used to|approve|enough|prohibited|"
    r"disallowed|permitted|requirement|negotiable|a must|no-go|not an option|not to be|touching|changing|"
    r"editing|deleting|removing|pushing|adding|bumping|upgrading|preference|stand|go for|go ahead|"
    r"way to go|wins|switching|migrating|using|won'?t|not going to|prioriti[sz]e|favou?r|optimi[sz]e for|emphasi[sz]e|"
    r"would be (?:even |much |far |way |a lot )?(?:better|nicer|ideal|preferable)|comfortable|uncomfortable|wary|suspicious|"
    r"trust|(?:in|into|as|within) (?:a single|one|the same|a separate|separate|its own|their own))\b|==\d|"
    r"(?:^|[.!?;。！？]\s*)" + LINKED + r"(?:[\w.+#-]+ (?:over|not) |(?:ok|okay|fine|alright|all right|right|sure|yes|yeah|yep|agreed|deal|sounds good)\b)"
)
def classify(sentence: str, role: str) -> ItemType | None:
    """The item type a sentence states (USER: constraint/preference/decision; ASSISTANT: decision)."""
    s = sentence.strip()
    if len(s) < MIN_SENTENCE or s.endswith(("?", "？")):
        return None
    s = _INNER_QUESTION.sub("", s.translate(_QUOTES))
    if not may_state(s, role):
        return None
    foreign = not s.isascii() or _FOREIGN_ASCII.search(s.lower()) is not None
    if role != "user":
        return ItemType.DECISION if _choice(s, s, foreign) and not (_INSTRUMENTAL.search(s) or unsettled(s, s)) else None
    body = _PREFIX.sub("", s)
    if _NOT_SELF.match(s) or _NOT_SELF.match(body):
        return None
    if _LEAD_RULE.match(s):
        return ItemType.USER_PREFERENCE if _PREFERENCE.search(body) and not _IMPERATIVE.match(body) else ItemType.CONSTRAINT
    if not _IMPERATIVE.match(body) and _choice(s, body, foreign):
        return None if unsettled(s, body) else ItemType.DECISION  # a choice of long ago, put off or imagined: none
    if _PREFERENCE.search(body) or taste_frame(s, body, foreign):
        return ItemType.USER_PREFERENCE
    if _IMPERATIVE.match(body) or (_MODAL.search(s) and not _HEDGE.search(s) and _MODAL.search(re.sub(_ASKED, " ", s, flags=re.I))) or rule_frame(s, body, foreign):
        return ItemType.CONSTRAINT
    if _ALTERNATIVE.search(body) and is_imperative(body):
        return ItemType.DECISION  # "Make the retries three instead of one": a setting chosen
    return None


def _choice(s: str, body: str, foreign: bool) -> bool:
    return _DECISION.search(s) is not None or choice_frame(s, body, foreign)


def is_imperative(sentence: str) -> bool:
    """True when a sentence opens with what reads as a verb in the imperative (no POS tagger: a closed-class test)."""
    words = _WORD.findall(sentence[:40].lower())
    if not words:
        return False
    first = words[0]
    return first.isalpha() and first.isascii() and first not in NOT_IMPERATIVE and not first.endswith(("ing", "ed"))


def opens_with_rule(sentence: str) -> bool:
    """True when ``sentence`` (after ``Also:``, ``please``…) opens with the imperative of a rule (``never``, ``make sure``…)."""
    return _IMPERATIVE.match(_PREFIX.sub("", sentence)) is not None


def may_state(text: str, role: str = "user") -> bool:
    """False when no sentence of ``text`` can state an item (a fast pre-filter: most text states nothing).

    An assistant's text can state only a decision, so it needs only the choice words.
    """
    low = text.lower().replace("’", "'")
    trigger = _TRIGGER if role == "user" else _CHOICE_TRIGGER
    return trigger.search(low) is not None or _FOREIGN_ASCII.search(low) is not None or (not text.isascii() and foreign_words(text))


__all__ = ["MIN_SENTENCE", "classify", "is_imperative", "may_state", "opens_with_rule"]
