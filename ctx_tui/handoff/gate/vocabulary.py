"""The gate's word lists, all in one place: general English, not any project's vocabulary.

Structure carries most of the judgement (see :mod:`.concrete` and
:mod:`.evidence`); these lists name the few word classes structure cannot
see: verbs that name no step, phrases that say nothing, and the adjectives a
rationale uses when it gives no reason.
"""

from __future__ import annotations

import re

# -- vague phrases (matched on lower-cased text, at word starts) --------------------------------

_FILLER_PATTERNS: tuple[str, ...] = (
    r"(?:continue|keep) (?:working|going|on|with)\b(?: (?:it|this|that|the \w+))?",
    r"continue (?:the|this|that|it|where)\b(?: \w+)?",
    r"(?:carry on|pick up where|proceed as|go on with)\b(?: \w+)?",
    r"fix(?:ing)? (?:the |any |all )?(?:remaining|other|outstanding|open|last|few|rest)\b(?: \w+)?",
    r"(?:some|a few|various|several|misc(?:ellaneous)?|minor|remaining|other|outstanding) "
    r"(?:bugs?|issues?|problems?|things?|stuff|changes?|fixes|tweaks|cleanup|errors?|tests?|work|tasks?|bits)\b",
    r"etc\b\.?",
    r"and so (?:on|forth)\b",
    r"as (?:discussed|mentioned|agreed|planned|before|usual|we said|noted)\b",
    r"(?:everything|it|all|things|most of it|the code|the work|the rest|this) (?:is|are|was|looks?|seems?) "
    r"(?:mostly |almost |basically |nearly |pretty much |kind of |more or less )?"
    r"(?:done|finished|complete|working|fine|ok|okay|good|there)\b",
    r"(?:mostly|almost|basically|nearly|pretty much|more or less) (?:done|finished|complete|there|working)\b",
    r"(?:clean|tidy|wrap|finish) (?:it |things |stuff |everything |the rest )?up\b",
    r"look(?:ing)? into (?:it|this|that|things|stuff|the (?:issue|problem|bug|rest))\b",
    r"(?:make|get) (?:it|things|everything|this) (?:work|working|done)\b",
    r"(?:the )?(?:rest of the|remaining|other) (?:stuff|things|work|bits)\b",
    r"(?:see above|same as before|the usual|you know what|to be determined|tbd)\b",
    r"stuff\b",
)
#: Every phrase starts with a lower-case letter: ``\b(?=[a-z])`` finds word starts faster than ``(?<!\w)``.
FILLER = re.compile(r"\b(?=[a-z])(?:" + "|".join(f"(?:{p})" for p in _FILLER_PATTERNS) + ")")

#: What a blocker says when it names nothing: "something weird", "some issues", "not working yet",
#: "perf isn't great" (on lower-cased text; the filler phrases above count too).
VAGUE_TROUBLE = re.compile(
    r"\b(?:something|anything)(?: (?:weird|strange|odd|off|wrong|funny))?\b|\b(?:issues?|problems?|trouble|things?|stuff)\b"
    r"|\bnot (?:working|great|ideal|right)\b|\b(?:is|are)n'?t (?:working|great|ideal|right)\b|\bdo(?:es)? ?n[o']t work\b"
    r"|\b(?:weird|strange|odd|wonky)\b"
)
#: A day a blocker may name: a weekday, a month, tomorrow (dates written with digits are numbers).
DAY_NAME = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:january|february|march|april|may|june|july|august"
    r"|september|october|november|december|tomorrow|tonight)\b",
    re.IGNORECASE,
)

#: Words that follow a command word's English sense ("make sure", "go ahead", "make sense"), besides the
#: function words: after one, ``make`` or ``go`` is a verb, not the command.
COMMAND_IDIOMS = frozenset({"sure", "certain", "ahead", "sense", "progress"})

# -- first actions ------------------------------------------------------------------------------

#: Verbs that do not name a step: "continue", "finish", "keep going" say nothing about what.
STALL_VERBS = frozenset({"continue", "resume", "proceed", "keep", "carry", "finish", "work", "go"})
#: "... and take it from there": the rest of the step is left to the reader.
FROM_THERE = re.compile(
    r"\b(?:from there|from here|where (?:it|we|i|you) left off|(?:wrap|finish|tidy) (?:\w+ )?up)\b", re.IGNORECASE
)
#: Verbs of looking: a step only when they say what to look for.
LOOK_VERBS = frozenset(
    {"review", "look", "check", "investigate", "inspect", "examine", "explore", "study", "skim", "browse",
     "have", "take", "dig", "scan", "go", "read", "audit", "analyse", "analyze", "understand", "figure"}
)
#: After a looking verb, words that say what to look for (a purpose) make it a step.
LOOK_PURPOSE = re.compile(
    r"\b(?:for|whether|if|why|how|where|which|what|that|to (?:see|find|confirm|check|learn))\b", re.IGNORECASE
)
#: "fix them", "get them passing": the object is a pronoun for things not named in the step.
PRONOUN_FIX = re.compile(
    r"\b(?:fix|repair|resolve|address|handle|solve|tackle|sort(?: out)?|clean up|deal with|update|patch|correct)"
    r" (?:them|it|those|these|that|this|everything|all(?: of them)?|the rest|whatever)\b"
    r"|\b(?:get|make|have) (?:them|it|those|these|everything|all of them) "
    r"(?:pass|passing|green|work|working|run|running|compile|compiling|right)\b",
    re.IGNORECASE,
)
#: First words that show the action is not written as an imperative.
NOT_IMPERATIVE = frozenset(
    """the a an this that these those we i you it they he she there here next then now first
    maybe perhaps probably possibly should must need needs would could will can might to
    my our your its their some all any everything nothing something
    why what how when where which who whether is are was were does did has have""".split()
)
IMPERATIVE_VERBS = frozenset(
    """add adjust align allow annotate answer append apply archive ask assert attach audit backfill backport benchmark
    bisect bump build cache call cancel capture change check cherry-pick clean clear clone close
    collect commit compare compile compute configure confirm connect convert copy correct create cut debug
    declare decouple define delete deploy deprecate describe diff disable document download drop
    dump edit email emit enable ensure escape examine execute expand export expose extend extract fetch
    file fill filter find fix flag flash format generate grep guard handle implement import inline insert
    inspect install instrument introduce invert investigate isolate join label launch lint list
    load locate lock log lower make mark measure merge migrate mock modify move name normalise
    normalize note open optimise optimize parametrize parameterize parse patch pin ping point port print
    profile publish pull push put query raise read rebase rebuild record reduce refactor regenerate
    register reinstall release reload remove renew rename reorder repair replace reply report reproduce
    request rerun reset resolve restart restore restructure retry return revert review rewrite roll run
    save scale scan schedule search send separate serialize set ship silence simplify skip sort split squash start
    stop store strip stub submit swap switch sync tag test time trace translate trim type uncomment undo
    uninstall unpin unskip update upgrade upload use validate verify view wire wrap write""".split()
)
#: Verbs that work towards lifting a blocker rather than doing what it blocks.
UNBLOCKING_VERBS = frozenset(
    """ask request email send ping message contact escalate remind chase notify follow attach schedule
    prepare draft book wait file raise share forward submit-for""".split()
)
#: Verbs that write into the working copy without carrying anything out: a step made of these, naming
#: the file it writes, prepares or works around a blocker (a guard, a fallback, a test, a report).
PREPARING_VERBS = frozenset(
    """add write create implement stub mock guard wrap hide extract refactor document annotate rename
    parametrize parameterize declare define inline split""".split()
)
#: In a blocked activity, these say the writing itself is blocked ("don't touch ledger.py until ...").
WRITING_VERBS = PREPARING_VERBS | frozenset({"edit", "touch", "modify"})
#: A clause of the first action from here on is conditional: "... once STRIPE_API_KEY is set".
CONDITION = re.compile(r"\b(?:once|after|when|as soon as|if|unless)\b", re.IGNORECASE)

# -- blockers in prose --------------------------------------------------------------------------

#: A prohibition with a condition ("nothing can go to staging until ...") or a freeze / wait.
_PROSE_BLOCKER = (
    r"(?:(?:can(?:no|')?t|can not|cannot|must ?n[o']t|do ?n[o']t|should ?n[o']t|may not|(?:is|are) not allowed"
    r"|nothing (?:can|may|should|is allowed to)|no(?: \S+){1,4}? (?:is |are )?(?:allowed|permitted)"
    r"|^no\b|\bno(?= \w+ \w+ until))"
    r"[^.;]*?\b(?:until|before|unless|till|pending|while)\b"
    r"|(?:is|are|stays?|remains?) (?:blocked|frozen|on hold)|blocked (?:by|on|until)|(?:code|write|deploy|release|change) freeze"
    r"|not allowed|waits? (?:for|on)|waiting (?:for|on))"
)
PROSE_BLOCKER = re.compile(r"\b" + _PROSE_BLOCKER, re.IGNORECASE | re.MULTILINE)
#: The same matches, found in the lower-cased text twice as fast (every phrase starts with a letter;
#: IGNORECASE folds case at every step). Lower-casing matches as IGNORECASE does but for İ, ı and ſ.
PROSE_BLOCKER_LOWER = re.compile(r"\b(?=[a-z])" + _PROSE_BLOCKER, re.MULTILINE)
#: Letters IGNORECASE matches to a-z where lower-casing does not (İ, ı, ſ).
FOLDS_APART = re.compile("[\u0130\u0131\u017f]")
#: Where the condition of a prohibition starts: the blocked activity comes before it.
CONDITION_START = re.compile(r"\b(?:until|before|unless|till|pending|while|waits? (?:for|on)|waiting (?:for|on)|blocked (?:by|on|until)|:)\s", re.IGNORECASE)
#: Words too common to say that two texts are about the same thing.
GENERIC_WORDS = frozenset(
    """run runs use make file files code test tests change changes new old first next step steps thing things
    work task tasks get set put add also time way one two three done need needs allowed nothing anything
    something everything""".split()
)

# -- rationales ---------------------------------------------------------------------------------

#: Words a rationale uses when it gives no reason: judgements, hedges, appeals to agreement.
EMPTY_REASON_WORDS = frozenset(
    """better best good great nice nicer cleaner clean cleanest simpler simple simplest easier easy easiest
    faster fast slower safer safe sorry elegant robust robustness maintainable maintainability scalable
    readable readability modern standard idiomatic proper properly correct right wrong preferred prefer
    recommended practice practices approach way option solution choice choices sense obviously clearly
    basically just really much more less seems seem seemed looks look looked feels feel like think thought
    believe probably generally usually overall discussed agreed decided mentioned said talked suggested
    team everyone everybody people folks meeting call standup yesterday earlier before previously somebody
    someone makes make made go going works work working fine ok okay nicely reasons reason because since
    due performs perform performance quality thing things stuff lot lots way ways kind sort bit""".split()
)
