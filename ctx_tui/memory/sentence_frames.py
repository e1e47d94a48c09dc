"""Frames of how people say rules, tastes and choices beyond the trigger words of
:mod:`ctx_tui.memory.sentence_types` (each measured on sets written by others;
the figures and what was declined: docs/memory.md):

* rules — a rule opening any clause ("…, so don't bump it", "…, always
  verify"), a standing scope ("from now on", "no exceptions"), a protected
  thing ("off limits", "leave X alone"), a kind of change ruled out ("no new
  deps", "nothing that phones home"), a version held ("stay on Python 3.9"), a
  limit with an amount ("budget is 16ms", "keep the pool under 1GB"), a state
  held or a bound set ("keep it backward compatible", "limit retries to 3"), a
  change that cannot happen ("we cannot change the payload"), a warning ("…, X
  breaks otherwise");
* tastes — stated about oneself ("I like X", "big fan of", "easier for me",
  "I don't need the essays"), a habit asked for ("when you paste yaml, give
  me…"), plain answers ("keep the answers short"), bare options ("tabs not
  spaces");
* choices — conceded ("fine, ship it behind the flag", "ok option 2",
  "ok X, not Y"), closed ("ECS it is", "ppo then."), stated ("we take option
  B", "I went with X", "I'll do X rather than Y"); not one made long ago
  ("back in 2019"), put off ("not yet") or imagined ("if we went with X");
* other languages — a negative imperative has no subject (French "ne … pas",
  Italian "non" + infinitive opening a clause), and a few words of each kind
  in Spanish, Portuguese, German, Dutch, Russian, Chinese, Japanese and Korean.
"""

from __future__ import annotations

import re
from functools import cache

from ctx_tui import regex_cache
from ctx_tui.memory.alternation import compile_grouped

#: Words a sentence opens with that are not an imperative verb (for finding the ask of a prompt).
NOT_IMPERATIVE = frozenset(
    "a an the this that these those there here it its it's i i'm i've i'd we we're you your he she they my our their "
    "is are was were be been am do does did has have had can could would will may might must should shall "
    "what why how when where which who whose if so and but or as in on at of for to from with by about after before "
    "currently now then also ok okay yes no not hi hello thanks thank great good nice cool perfect".split()
)

# -- how people say rules, tastes and choices beyond the trigger words ------------------------
# Frames, not topics: each names a way of speaking (a scope, a protected state, a limit with an
# amount, a taste stated about oneself, a concession that settles a choice), so a rule about
# tile caches reads like one about ledgers.

#: Where a clause opens: the start, after , ; : — ( or a full stop, or after a linking word.
_CLAUSE = r"(?:^|[,;:(—–]\s*|[.!]\s+|\s-\s+|\b(?:so|and|but|then|just|also|please|pls|plz|and pls|and please)\s+)"
#: "…, so don't bump it", "complete the commit, always verify", "…, but be sure to …": a rule opening any clause,
#: not only the sentence.
_RULE_CLAUSE = regex_cache.compile(
    _CLAUSE + r"(?:please\s+|pls\s+)?(?:(?:don'?t|dont|do not|never|no need to)\s+"
    r"(?!(?:know|think|see|understand|get|remember|mind|worry|care|need|like|want|read)\b)[a-z]|"
    r"(?:always|make sure|be sure to|ensure|avoid|keep in mind|remember to|refrain from|under no circumstances|stick to|stick with|"
    r"stay (?:within|inside|out of|away from)|keep (?:out of|away from))\b)",
    re.I,
)
#: Scope of a standing rule ("from now on", "whatever you do", "no exceptions").
_STANDING = regex_cache.compile(
    r"\b(?:from now on|going forward|at all times|in all cases|in every case|whatever you (?:do|change|touch)|"
    r"no matter what|under any circumstances|without exceptions?|no exceptions)\b",
    re.I,
)
#: A thing declared protected: "X is off limits", "leave X alone", "keep X untouched".
_PROTECTED = regex_cache.compile(
    r"\b(?:off[- ]limits|untouchable|untouched|hands off)\b|\b(?:stays?|remains?) (?:as[- ]is|unchanged|the same)\b|"
    r"\bleave\s+(?:[\w./-]+\s+){0,5}?(?:alone|as[- ]is|as (?:it|they) (?:is|are)|untouched|be(?=\s*(?:[,.;!—–-]|$)))",
    re.I,
)
#: "no new deps", "no helm charts from random repos pls", "nothing that phones home": a kind of change ruled out.
_RULED_OUT = regex_cache.compile(
    _CLAUSE + r"(?:(?:no|zero) (?!(?:new|more) (?:errors?|warnings?|failures?|issues?|bugs?|crash\w*|alerts?|complaints?|problems?|"
    r"regressions?|results?|messages?|output|news)\b)(?:new|more|extra|additional|external|direct|other|further|third[- ]party|giant|big|random|"
    r"hard[- ]?coded|touching|changing|editing|deleting|removing|pushing|force-pushing|adding|bumping|upgrading)\b|nothing (?:that|which) (?!(?:i|we|you|he|she|they|it)\b)|"
    r"no \w+(?: [\w-]+){0,5}? (?:please|pls|plz|ever|whatsoever|anywhere|at all)\b)",
    re.I,
)
#: "stay on Python 3.9", "pinned to k8s 1.26", "min target stays iOS 15": a version held.
_PINNED = regex_cache.compile(
    r"\b(?:stay|stays|stick|sticks|pinned|locked|remain|remains|keep)\s+(?:(?:on|to|with)\s+(?:[\w.+-]+\s+){0,3}?v?\d+|"
    r"(?:[\w.+-]+\s+){0,3}?v?\d+(?:[.-]\d+)+)(?![\w.%])|\b\w+==\d",
    re.I,
)
_AMOUNT = (
    r"(?:(?<![\w.$€£])\d[\d,.]*\s*(?:%|(?!(?:k|m|bn|usd|eur|gbp|dollars?|euros?|bucks|by|in|on|at|for|to|of|and|or|the|an?|is|was|are|from|with|if|when|so|but|as|than)\b)[a-zµ]+\b)|"
    r"a (?:second|minute|hour|day|week|megabyte|gigabyte|gig))"
)
#: A limit: a limit word with an amount ("budget is 50ms", "512Mi maximum"), or a bound with an
#: amount held by a binding verb ("keep the pool under 1GB", "can't drop below 99.5%").
_LIMIT = compile_grouped(
    r"\b(?:budget|limit|capped|cap|max|maximum|min|minimum|quota|sla|ceiling|tops out)\b.{0,40}?" + _AMOUNT
    + r"|" + _AMOUNT + r".{0,12}?\b(?:max|maximum|min|minimum|budget|limit|tops)\b|"
    r"\b(?:keep|stay|stays|remain|can'?t|cannot|can not|mustn'?t|must not|may not|shouldn'?t|should not)\b.{0,50}?"
    r"\b(?:under|below|over|above|within|at most|at least|more than|less than|longer than|fewer than|beyond)\s+(?:~|like\s+)?"
    + _AMOUNT,
    re.I,
)
#: "we cannot change the payload", "crash-free rate cant drop": a change that may not happen (not "I can't": a report).
_CANNOT_CHANGE = regex_cache.compile(
    r"(?<!\bi )\b(?:can'?t|cannot|can not|may not)\s+(?:be\s+)?(?:touch|change|modify|edit|alter|break|remove|delete|drop|"
    r"rename|upgrade|bump|downgrade|exceed|grow|go (?:over|above|below|past))\w*\b",
    re.I,
)
#: A state to hold ("keep it backward compatible", "keep the old endpoint working", "keep the models incremental"),
#: a bound set ("limit retries to 3", "cap the pool at 8"), a freeze, a sole permission ("only the bot may push tags").
_HOLD = regex_cache.compile(
    r"^keep (?!(?:going|trying|it up|an eye|me|us|in mind|track|looking|at it|on)\b)(?:\S+ ){1,4}?"
    r"(?:\w+ing|\w+ed|\w*compatible|stable|intact|unchanged|incremental|green|deterministic|reproducible|idempotent|"
    r"private|internal|offline|in sync|up to date|the same)\b|"
    r"^(?:limit|cap|restrict|throttle)\b.{0,40}?\b(?:to|at)\s+\d|"
    r"\b(?:schema|code|feature|hard|release|api|dependency|merge) freeze\b|\bfreeze on\b|"
    r"^only (?!(?:you|i|we|he|she|they|it|this|that)\b).{0,40}?\b(?:may|can|is allowed|are allowed|gets? to)\b",
    re.I,
)
#: "…, tableau breaks otherwise": a warning of what follows a broken rule; "…, period": a rule said with emphasis.
_OTHERWISE = regex_cache.compile(r"\b(?:otherwise|or else)\s*[.!]*$|,\s*(?:period|full stop|end of story|no ifs\b.*)\s*[.!]*$", re.I)

#: Tastes stated about oneself: "I like X", "big fan of", "I'd much rather", "easier for me", "I don't need the essays"
#: (not "I like your plan": an approval of the agent's proposal, not a taste).
_TASTE = regex_cache.compile(
    r"\bi (?:really |just |kind of |kinda |honestly |also |generally |usually )?(?:like|love|hate|dislike|enjoy)\s+"
    r"(?!(?:how|that|this|what|when|it|you|your|to|using|the new|these new|those new)\b)\w|"
    r"\bi (?:really |just |kind of |kinda |honestly |also )?(?:like|love|hate|prefer) it (?:\w+ )?(?:more|better|less)\b|"
    r"\b(?:i'?m|i am) (?:a |not a )?(?:big |huge |real )?fan of\b|\bi(?:'?d| would) (?:much |really |definitely |honestly |far )?rather\b|"
    r"\b(?:easier|nicer|better|clearer|simpler|faster|less painful|more readable)\b.{0,30}?\bfor me\b|"
    r"\bfor me\b.{0,60}?\b(?:easier|nicer|better|clearer|simpler|more readable)\b|"
    r"\bi (?:just |also |really )?find (?:\S+ ){1,4}?(?:much |way |a lot |far )?(?:nicer|easier|better|cleaner|clearer|more readable|"
    r"less \w+)\b|"
    r"\b(?:makes?|would make|'d make) me happy\b|"
    r"\bmy preference\b|\bi(?:'?m| am) (?:so |very )?used to (?!(?:this|that|it|these|those|them)\b)|\bi (?:can'?t|cannot) stand\b|"
    r"\bi (?:really |honestly |just |also )?(?:don'?t|do not|dont) (?:need|care (?:for|about)|read|like|want)\b(?! (?:to|you|it|this|that|them)\b)(?!.*\b(?:anymore|any more|any longer)\b)",
    re.I,
)
#: A manner of working asked for ("lets be cautious and verify at each step"), an unease or a distrust stated
#: ("im not entirely comfortable with X", "I'm wary of auto-updates", "I don't trust that library"), a sole want
#: ("I only want one install of it"; not "I only want to know why": a question).
_MANNER = regex_cache.compile(
    r"\blet'?s be\b|\b(?:i'?m|i am) (?:not )?(?:\w+ )?(?:comfortable|uncomfortable|wary|suspicious) (?:with|of|about)\b|"
    r"\bi (?:don'?t|dont|do not|never) (?:really |fully |entirely )?trust\b|\bi only want (?!(?:to|you)\b)",
    re.I,
)
#: A priority set: "prioritize systems design over AI wrappers", "optimize for latency", "favor composition"
#: (not the order of today's work: "prioritize the login bug today").
_PRIORITY = regex_cache.compile(
    r"(?:prioriti[sz]e|favou?r|optimi[sz]e for|emphasi[sz]e)\b"
    r"(?!.*\b(?:today|tonight|right now|first|next|this (?:week|sprint|time|morning|afternoon|run))\b)",
    re.I,
)
#: "X would be even better", "a CLI would be nicer": a taste stated by comparison.
_BETTER = regex_cache.compile(r"\bwould be (?:even |much |far |way |a lot )?(?:better|nicer|ideal|preferable)\b", re.I)
#: "when you paste yaml, give me the whole manifest": a habit asked for whenever something recurs.
_HABIT = regex_cache.compile(
    r"\bwhenever you\b.{3,80}?,\s*(?:pls |please |just )?[a-z]|"
    r"\bwhen you (?!(?:'re|are|get|have) )\w+ (?!(?:it|this|that|them)\b)(?:\S+ ){0,5}?(?:pls |please |just )?(?:give|show|tell|send) me\b",
    re.I,
)
#: How answers should read: an answer noun with a length or plainness word ("keep ur answers short").
_ANSWER_STYLE = regex_cache.compile(
    r"\b(?:use|with) (?:\w+ )?(?:short|shorter|brief|concise|terse|simple|plain) (?:\w+ )?"
    r"(?:answers?|repl(?:y|ies)|responses?|explanations?|summar(?:y|ies)|snippets?|text|wording|words|sentences)\b",
    re.I,
)
#: "keep the PRs small": "keep" with a plain quality of a named kind of thing (a taste; "keep X untouched" is a
#: rule; "keep it small" is about the task at hand, part of its ask).
_KEEP_QUALITY = regex_cache.compile(
    r"^keep (?!(?:it|this|that)\b)(?:\w+ ){1,3}?(?:short|brief|concise|simple|small|minimal|tight|focused|readable|clean|lean|boring|tidy|terse)\b", re.I
)
#: "tabs not spaces", "swiftui over uikit": two bare options, one preferred (the first word a name, not a verb or pronoun).
_BARE_CHOICE = regex_cache.compile(r"^([a-z][\w.+#-]*) (?:over|not) [a-z][\w.+#-]*\b", re.I)
#: Verbs that take "over" ("go over the logs", "hand over").
_OVER_VERBS = frozenset("go hand switch move take think look read run fall roll carry turn pass start get come hang check game".split())

#: A concession that settles a discussion ("fine, …", "ok, …").
_ASSENT = r"(?:ok(?:ay)?|fine|alright|all right|sure|yes|yeah|yep|agreed|deal|sounds good)"
#: A linking word a concession may follow ("also ok, …", "and fine, …").
LINKED = r"(?:(?:also|and|so|but|then|please|pls)\b[\s,]*)?"
#: "ok option 2", "ok docusaurus, not mkdocs", "fine, ship it behind the flag": a choice made by conceding.
_CONCEDED = regex_cache.compile(
    r"^" + LINKED + _ASSENT + r"\b[\s,.!:—–-]*(?:(?:(?:go with|take|approve|pick|choose|stick with)\s+)?(?:the\s+)?(?:option|variant|approach|plan) #?\w+\b(?=\s*(?:then\b|[,.;!—–-]|$))|(?:(?!(?:is|was|are|were|be|been|has|have|had|does|did|it|that|this)\b)"
    r"[\w.+#-]+ ?){1,4},? not [\w.+#-]+)|"
    r"^" + LINKED + r"(?:fine|alright|all right)\b[\s,.!:—–-]+(?:just )?(?:use|go|ship|keep|do|take|stick|switch|drop|skip|pick|choose|store|put|make)\b",
    re.I,
)
#: "ECS it is", "X then." — a choice closing the talk; "we're not moving to Y", "X stays" with a concession.
_SETTLED = compile_grouped(
    r"\b(?!(?:as|what|whatever|how|where|here|there|that|this|so|know|wherever|whoever|which)\b)\w+ it is"
    r"(?: for (?:the |our )?[\w-]+(?: [\w-]+)?)?\s*(?:[.!,;—–-]|$)|"
    r"^[\w.+#-]+(?: [\w.+#-]+){0,2} then\s*(?:[.!,;]|$)|"
    r"\b(?:we'?re not|we are not|we aren'?t)\s+(?:moving|switching|migrating|going) (?:to|back to)\b|"
    r"\b(?:we'?re|we are) (?:switching|migrating) to\b|\bis the way to go\b|^[\w.+#-]+(?: [\w.+#-]+){0,3} wins\s*[.!]*$",
    re.I,
)
#: "we take option B", "we go with kafka", "we decide: …", "we use parquet …, not csv": a present-tense choice.
_WE_CHOOSE = regex_cache.compile(
    r"\bwe decide\b|\bwe (?:take|pick|choose|use|adopt|keep)\b(?=.*(?:\b(?:not|instead of|rather than|over|anymore|no more|option)\b|:))",
    re.I,
)
#: Verbs of looking into something: "I'll run the tests instead of guessing" chooses nothing.
_EXPLORE = "see|check|look|try|run|examine|investigate|explore|find|read|test|verify|ask|wait|debug|inspect|search|grep"
#: "I'll implement X rather than Y", "I went with X", "I have chosen X", "I picked X": a choice of the speaker's.
_MY_CHOICE = compile_grouped(
    r"\b(?:i'?ll|we'll|(?:i|we) will|i'?m going to|i am going to|we'?re going to)\s+(?!(?:" + _EXPLORE + r")\b)\w+\b.{0,120}?"
    r"(?:\b(?:instead of|rather than)\b|, not (?!(?:today|now|tomorrow|tonight|yet|later|this|next)\b)(?:a |an |the )?\w)|"
    r"\b(?:is|are) (?:enough|good enough|plenty)\b[\s,;:—–-]+(?:so )?(?:skip|drop|forget|ditch|no need for|no)\b|"
    r"\b(?:i'?m|we'?re|i am|we are) using\b.{0,100}?\b(?:instead of|rather than)\b|"
    r"\b(?:we|i)(?: won'?t| will not|'re not going to| are not going to| am not going to|'m not going to) "
    r"(?:use|go with|adopt|switch to|add|pull in)\b|"
    r"\b(?:i|we) (?:went with|opted for)\b|\b(?:i|we) (?:picked|chose|selected)\b(?! up\b)"
    r"(?=.*\b(?:instead of|rather than|over|since|because|as it|so that|which)\b)|\b(?:i|we)(?:'ve| have) (?:chosen|picked|selected|gone with)\b|"
    r"^decided to\b",
    re.I,
)
#: Something that happened ("back in 2019", "yesterday", "in hindsight"): history, not this session's decision or rule.
_PAST = regex_cache.compile(
    r"\b(?:ago|yesterday|last (?:year|month|week|quarter|sprint|time|night)|back in|back then|in (?:19|20)\d\d|in hindsight|at the time|"
    r"originally|used to|previously)\b",
    re.I,
)
#: A choice made on an earlier piece of work ("we went with zephyr on the last product").
_EARLIER = regex_cache.compile(r"\b(?:on|in|for|at|with) the (?:last|previous) (?!(?:step|one|part|stage|phase)\b)\w+", re.I)
#: A choice imagined, not made ("if we went with X, …", "we could use Redis", "one option would be").
_HYPOTHETICAL = regex_cache.compile(
    r"^(?:if|what if|suppose|supposing|assuming|in case|were we to)\b|\b(?:we|i|you) (?:could|might|would) (?:just )?"
    r"(?:go with|use|pick|choose|switch|try|adopt|move)\b|\bone option (?:would be|is|could be)\b",
    re.I,
)
#: A choice put off ("not … yet", "hold off", "maybe later", "don't decide now").
_DEFERRED = regex_cache.compile(
    r"\b(?:yet|not now|later|someday|some day|hold off|postpone\w*|park it|(?:don'?t|not) decide|undecided|tbd)\b|^(?:maybe|perhaps)\b",
    re.I,
)
#: Other languages: a few rule, taste and choice words of the most common ones (es, pt, fr, de, zh, ja).
_FOREIGN_CLAUSE = r"(?:^|[,;:(—–]\s*|[.!。！]\s*)"
_FOREIGN_RULE = (
    # always / never opening a clause: es, pt, fr, de, it, nl, ru
    _FOREIGN_CLAUSE + r"(?:por favor,?\s*|bitte,?\s*|s'il te plaît,?\s*|per favore,?\s*)?(?:nunca|jamás|siempre|sempre|jamais|"
    r"toujours|niemals|nie|immer|mai|nooit|altijd|никогда|всегда)\b|"
    # avoid … opening a clause
    + _FOREIGN_CLAUSE + r"(?:evita|evite|evitad|évite|évitez|vermeide|vermeiden sie|evitare)\b|"
    # must / have to (not "debe ser …": a guess)
    r"\b(?:debes|deb(?:e|emos|en) (?!ser\b|estar\b|de\b)|tienes que|tiene que|tenemos que|tienen que|devemos|devem|deve (?!ser\b|estar\b)|"
    r"tem que|temos que|tu dois|vous devez|on doit|nous devons|musst|sollst|solltest|devi|dobbiamo|bisogna|"
    r"bitte nicht|nicht (?:\S+ ){0,3}?(?:anfassen|ändern|verändern|löschen|anrühren)|lass (?:\S+ ){1,4}?in ruhe)\b|"
    # don't <change>, may not, must
    # a negative imperative has no subject: French "ne … pas" and Italian "non" + infinitive opening a clause
    + _FOREIGN_CLAUSE + r"(?:s'il (?:te|vous) plaît,?\s*|per favore,?\s*)?(?:ne pas \w|(?:ne |n')\w+ (?:pas|jamais|plus)\b|"
    r"non \w+(?:are|ere|ire)\b)|"
    r"\b(?:no (?:toques|modifiques|cambies|uses|subas|borres|edites|actualices|agregues|añadas|elimines|hagas|muevas|renombres|"
    r"publiques|instales|desactives|rompas|quites|despliegues)|no se (?:puede|debe|permite)|"
    r"hay que|tienes que|prohibido|não (?:mexa|toque|altere|mude|use|faça|apague|adicione|remova|mova|renomeie|publique|"
    r"instale|quebre|suba|atualize|exclua|edite|pode\w*|deve\w*)|não se pode|proibido|"
    r"il ne faut pas|il faut|interdit|bitte (?:kein\w*|nichts)|keine? \w+änderung\w*|nichts (?:\S+ ){0,4}?(?:geändert|ändern)|"
    r"darf (?:nicht|kein\w*)|dürfen nicht|auf keinen fall|"
    r"muss|müssen|finger weg|non si può|vietato|"
    r"niet (?:aanraken|wijzigen|aanpassen)|verboden|не (?:трогай|меняй|изменяй|удаляй|используй|добавляй)|нельзя|должн\w*)\b|"
    r"^keine?\b|不要|别|不能|不可以|禁止|必须|务必|不许|不准|一定要|千万|请勿|切勿|严禁|不得|ないで|ないように|必ず|てはいけない|てはならない|なければならない|しないこと|"
    r"하지 마|마세요|절대|반드시"
)
_FOREIGN_TASTE = (
    r"\b(?:prefiero|prefiro|preferisco|me gusta(?:n)? más|gosto mais|je préfère|je préférerais|j'aime (?:mieux|bien|plutôt)|"
    r"mi piace (?:di più|più)|me gustaría que|gostaria que|j'aimerais que|je voudrais que|vorrei che|ich bevorzuge|"
    r"wäre mir lieber|ich fände es (?:gut|besser|schön)|"
    r"ich (?:hätte|mag|bevorzuge)\b.*\bgerne?|lieber|ik heb liever|предпочитаю|мне больше нравится)\b|"
    r"比较喜欢|更喜欢|我喜欢|偏好|倾向于|希望你|助かります|てほしい|が好き|の方がいい|てもらえると|선호|좋겠"
)
_FOREIGN_CHOICE = (
    r"\b(?:vamos con|vamos com|vamos a usar|vamos usar|usemos|usamos|usaremos|nos quedamos con|ficamos com|elegimos|"
    r"decidimos|optamos por|on part sur|on garde|on prend|on utilise|on choisit|on va (?:utiliser|prendre|partir sur|garder)|"
    r"on reste sur|(?:haben|hab|habe) (?:uns|mich) (?:\S+ ){0,3}?entschieden|wir nehmen|wir bleiben bei|wir verwenden|wir nutzen|"
    r"usiamo|andiamo con|abbiamo deciso|scegliamo|we gaan voor|используем|решили|nos vamos con|escolhemos|va pour|"
    r"c'est décidé|nous avons choisi|nehmen wir|bleiben wir bei|verwenden wir|wir gehen mit)\b|我们(?:决定|用|选)|决定用|就用|定了|"
    r"那就(?:用|选)|采用|にします|に決め|で行きます|で行きましょう|でいきましょう|にしましょう|を使いましょう|で行こう|にしよう|을 사용|로 하죠|로 하자"
)
_FOREIGN = compile_grouped("|".join((_FOREIGN_RULE, _FOREIGN_TASTE, _FOREIGN_CHOICE)), re.I)


@cache
def _foreign(source: str) -> re.Pattern[str]:
    """The other languages' rule, taste or choice pattern, compiled when a sentence first needs it (one
    that is not ASCII or holds one of their words: an English session may need none of the three)."""
    return compile_grouped(source, re.I)


#: Where the work goes, held: "keep it in one file", "do it in a single commit", "put everything in the same module".
_ONE_PLACE = regex_cache.compile(
    r"^(?:keep|put|do|write|make|track)\s+(?:it|them|this|everything|all(?: of (?:it|them))?|the \w+(?: \w+)?)\s+"
    r"(?:in|into|as|within)\s+(?:a single|one|the same|a separate|separate|its own|their own)\s+"
    r"(?!(?:of|go|sec|second|minute|moment|day|shot|sitting|piece|way|time)\b)\w+",
    re.I,
)


def rule_frame(s: str, body: str, foreign: bool = True) -> bool:
    """A user's sentence says a rule by a frame (``body``: ``s`` without its "ok, also, please" opening;
    ``foreign``: read the other languages' frames too)."""
    return not _PAST.search(s) and bool(
        _RULE_CLAUSE.search(s) or _STANDING.search(s) or _PROTECTED.search(s) or _RULED_OUT.search(s)
        or _PINNED.search(s) or _LIMIT.search(s) or _CANNOT_CHANGE.search(s) or _HOLD.search(body)
        or _OTHERWISE.search(s) or _ONE_PLACE.match(body) or (foreign and _foreign(_FOREIGN_RULE).search(s))
    )


def taste_frame(s: str, body: str, foreign: bool = True) -> bool:
    """A user's sentence says a taste by a frame."""
    return bool(
        _TASTE.search(s) or _HABIT.search(s) or _ANSWER_STYLE.search(s) or _KEEP_QUALITY.match(body)
        or _PRIORITY.match(body) or _BETTER.search(s) or _MANNER.search(s) or _bare_choice(body) or (foreign and _foreign(_FOREIGN_TASTE).search(s))
    )


def _bare_choice(body: str) -> bool:
    m = _BARE_CHOICE.match(body)
    return m is not None and m.group(1).lower() not in NOT_IMPERATIVE and m.group(1).lower() not in _OVER_VERBS


def choice_frame(s: str, body: str, foreign: bool = True) -> bool:
    """A sentence says a choice by a frame (whether it is settled now: :func:`unsettled`)."""
    return bool(
        _MY_CHOICE.search(s) or _CONCEDED.search(s) or _SETTLED.search(body) or _WE_CHOOSE.search(s)
        or (foreign and _foreign(_FOREIGN_CHOICE).search(s))
    )


def unsettled(s: str, body: str) -> bool:
    """A choice made long ago or on earlier work, put off, or only imagined: no decision of the session's."""
    return bool(_PAST.search(s) or _EARLIER.search(s) or _DEFERRED.search(s) or _HYPOTHETICAL.search(body))


def foreign_words(text: str) -> bool:
    """The text holds a rule, taste or choice word of another language (for the pre-filter of text that is not ASCII)."""
    return _FOREIGN.search(text) is not None


__all__ = ["LINKED", "NOT_IMPERATIVE", "choice_frame", "foreign_words", "rule_frame", "taste_frame", "unsettled"]
