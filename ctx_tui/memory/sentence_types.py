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
"""

from __future__ import annotations

import re

from ctx_tui.memory.items import ItemType

MIN_SENTENCE = 8
_WORD = re.compile(r"\w+")

_PREFIX = re.compile(
    r"^(?:(?:and|but|also|so|then|please|pls|plz|oh|ok|okay|note|nb|ps|p\.s\.|btw|reminder|remember|great|good|nice|"
    r"thanks|fine|right|yes|yep|no|sure|cool|perfect|however|again|"
    r"important|crucial|critical)\b\s*[:,\-–—!]*\s*)+",
    re.I,
)
_LEAD_RULE = re.compile(r"^(?:important|crucial|critical|reminder|remember|rule)\s*[:!\-–—]", re.I)
_IMPERATIVE = re.compile(
    r"^(?:always|never|don'?t|do not|dont|doesn'?t|make sure|ensure|be sure to|avoid|only(?= \w+ )(?! (?:\d|one|two|three|a |an |the |it |this |that |when|if|after|before))|stop|no more|"
    r"under no circumstances|keep in mind|remember to|remember that|be careful|refrain from|no need to)\b",
    re.I,
)
_MODAL = re.compile(
    r"\b(?:must(?:n'?t| not)?|should(?:n'?t| not)?|shall not|(?:is|are) not allowed|not allowed to|(?:is|are) forbidden|"
    r"(?:is|are) required|required to|(?:is|are) mandatory|(?:is|are) (?:crucial|critical|essential|vital)|"
    r"(?:important|crucial|critical|essential|vital) (?:not )?to|important that|not (?:valid|acc?ep\w*|ok|okay|allowed)\b|"
    r"(?:there is|there's) a need (?:to|for)|(?:there is|there's) no need to|need(?:s)? to|ha(?:ve|s) to|"
    r"you (?:always|never)|we (?:always|never))\b",
    re.I,
)
_PREFERENCE = re.compile(
    r"\b(?:i|we) (?:prefer|'d prefer|would prefer|'d rather|would rather|like it when|like it better)\b|"
    r"\bi'd (?:prefer|rather)\b|\bi (?:really )?(?:like|love|hate|dislike) (?:it when|when|to|using)\b|\bprefer(?:ably|red)?\b|"
    r"\bfor (?:better|easier|more) (?:readab\w+|clarity|readability|review\w*|navigation|scanning)\b|"
    r"^(?:please )?(?:use|keep|write|put|format|name)\b.*\b(?:instead of|rather than)\b",
    re.I,
)
_ALTERNATIVE = re.compile(r"\b(?:instead of|rather than)\b", re.I)
#: Verbs after "let's" / "we'll" that explore or act rather than settle a choice.
_NOT_A_CHOICE = (
    "see|check|look|try|start|begin|run|examine|investigate|explore|find|analy[sz]e|review|debug|test|verify|"
    "discuss|talk|think|figure|continue|proceed|get|do|dive|move on|take|break|walk|dig|read|go through|go over|"
    "first|now|also|quickly|summari[sz]e|recap|write|create|update|fix|implement|add|build|make sure|wait|wrap|"
    "clean|commit|push|open|install|rebuild|rerun|retry|restart|compare|inspect|trace|profile|measure|plan|"
    "outline|sketch|brainstorm|step back|tackle|get started|be careful|tidy|double-check|doublecheck|confirm"
)
#: "it should work now": a hedge about the present, not a rule.
_HEDGE = re.compile(
    r"\b(?:it|this|that|which|everything|all)\s+should(?:\s+(?:now|still|already|probably|also|hopefully))?\s+"
    r"(?:work|be fine|be ok|be okay|be good|be enough|fix|pass|help|do it|be done|be there)\b",
    re.I,
)
_DECISION = re.compile(
    r"\b(?:let'?s|let us)\s+(?!(?:" + _NOT_A_CHOICE + r")\b)\w+|"
    r"\b(?:we|i)(?:'ll| will| shall| are going to|'re going to| am going to|'m going to)\s+"
    r"(?:go with|use|keep|store|pin|adopt|switch to|stick with|stick to|choose|pick|rely on|opt for|settle on|"
    r"move to|default to|cap|limit|standardi[sz]e on|represent|model|treat|drop|replace)\b|"
    r"\b(?:we|i)(?: have|'ve)? decided\b|\bdecided (?:to|on|that|against)\b|^(?:decided|decision)\b|\bwe(?:'re| are) going with\b|"
    r"\bgoing with\b|\bgo with\b|\bopted (?:for|to)\b|\bsettled on\b|\bchose to\b|\bthe plan is to\b|\bwe agreed\b",
    re.I,
)

#: "I'll use X to explore ...": a tool used for an action, not a choice.
_INSTRUMENTAL = re.compile(r"\buse\b.{0,80}?\bto (?:" + _NOT_A_CHOICE + r")\b", re.I)

_NOT_SELF = re.compile(r"^(?:i(?:'ve| have)? never|never mind|i don'?t (?:know|think|see|understand|get|remember))\b", re.I)

#: Words a sentence opens with that are not an imperative verb (for finding the ask of a prompt).
_NOT_IMPERATIVE = frozenset(
    "a an the this that these those there here it its it's i i'm i've i'd we we're you your he she they my our their "
    "is are was were be been am do does did has have had can could would will may might must should shall "
    "what why how when where which who whose if so and but or as in on at of for to from with by about after before "
    "currently now then also ok okay yes no not hi hello thanks thank great good nice cool perfect".split()
)

#: Every pattern of :func:`classify` needs one of these words (a fast pre-filter: most sentences state nothing).
_TRIGGER = re.compile(
    r"\b(?:always|never|don'?t|dont|do not|doesn'?t|make sure|ensure|be sure|avoid|only|stop|no more|under no|"
    r"keep in mind|remember|careful|refrain|needs?|must|mustn|should|shouldn|shall|allowed|forbidden|required|"
    r"mandatory|crucial|critical|essential|vital|important|valid|not acc|not ok|have to|has to|prefer\w*|rather|"
    r"like|love|hate|dislike|for better|for easier|for more|instead|let'?s|let us|\w+'ll|will|going|decid\w*|"
    r"decision|go with|opted|settled|chose|plan is|agreed|reminder|rule)\b"
)


def classify(sentence: str, role: str) -> ItemType | None:
    """The item type a sentence states (USER: constraint/preference/decision; ASSISTANT: decision)."""
    s = sentence.strip()
    if len(s) < MIN_SENTENCE or s.endswith(("?", "？")):
        return None
    if _TRIGGER.search(s.lower()) is None:
        return None
    if role == "user":
        if _NOT_SELF.match(s):
            return None
        body = _PREFIX.sub("", s)
        if _LEAD_RULE.match(s):
            return ItemType.USER_PREFERENCE if _PREFERENCE.search(body) and not _IMPERATIVE.match(body) else ItemType.CONSTRAINT
        if _DECISION.search(s) and not _IMPERATIVE.match(body):
            return ItemType.DECISION
        if _PREFERENCE.search(body):
            return ItemType.USER_PREFERENCE
        if _IMPERATIVE.match(body) or (_MODAL.search(s) and not _HEDGE.search(s)):
            return ItemType.CONSTRAINT
        if _ALTERNATIVE.search(body) and is_imperative(body):
            return ItemType.DECISION  # "Make the retries three instead of one": a setting chosen
        return None
    if _DECISION.search(s) and not _INSTRUMENTAL.search(s):
        return ItemType.DECISION
    return None


def is_imperative(sentence: str) -> bool:
    """True when a sentence opens with what reads as a verb in the imperative (no POS tagger: a closed-class test)."""
    words = _WORD.findall(sentence[:40].lower())
    if not words:
        return False
    first = words[0]
    return first.isalpha() and first.isascii() and first not in _NOT_IMPERATIVE and not first.endswith(("ing", "ed"))



def opens_with_rule(sentence: str) -> bool:
    """True when ``sentence`` (after ``Also:``, ``please``…) opens with the imperative of a rule (``never``, ``make sure``…)."""
    return _IMPERATIVE.match(_PREFIX.sub("", sentence)) is not None


def may_state(text: str) -> bool:
    """False when no sentence of ``text`` can state an item (a fast pre-filter: most text states nothing)."""
    return _TRIGGER.search(text.lower()) is not None


__all__ = ["MIN_SENTENCE", "classify", "is_imperative", "may_state", "opens_with_rule"]
