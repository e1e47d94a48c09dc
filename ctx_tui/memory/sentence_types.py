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

Beyond those words, frames of how people say them (each measured on a set
written blind by someone else; see docs/memory.md):

* rules — a prohibition opening any clause ("…, so don't bump it"), a
  standing scope ("from now on", "no exceptions"), a protected thing ("off
  limits", "leave X alone"), a kind of change ruled out ("no new deps",
  "nothing that phones home"), a version held ("stay on Python 3.9"), a limit
  with an amount ("budget is 16ms", "keep the pool under 1GB"), a change that
  cannot happen ("we cannot change the payload"), a warning ("…, X breaks
  otherwise");
* tastes — stated about oneself ("I like X", "big fan of", "easier for me",
  "I don't need the essays"), a habit asked for ("when you paste yaml, give
  me…"), plain answers ("keep the answers short"), bare options ("tabs not
  spaces");
* choices — conceded ("fine, ship it behind the flag", "ok option 2",
  "ok X, not Y"), closed ("ECS it is", "ppo then."), stated ("we take option
  B", "I went with X", "I'll do X rather than Y"); not one made long ago
  ("back in 2019") or put off ("not yet", "hold off");
* a few words of each in Spanish, Portuguese, French, German, Chinese and Japanese.
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
    r"you (?:always|never)|we (?:always|never)|(?:is|are) (?:banned|prohibited|disallowed|not permitted)|"
    r"(?:hard|strict) requirement|non-negotiable|not negotiable|(?:is|are) a must|(?:is|are) a no-go|(?:is|are) not an option|"
    r"not to be (?:touched|changed|modified|edited|deleted|removed|used))\b",
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
    r"\b(?:let'?s|let us)\s+(?:just\s+)?do\s+(?!(?:it|this|that|so|some|a|an|one|more|another|the same|the rest|the following)\b)\w+|"
    r"\b(?:(?:we|i)(?:'ll| will| shall| are going to|'re going to| am going to|'m going to)|ill)\s+"
    r"(?:go with|go for|use|keep|store|pin|adopt|switch to|stick with|stick to|choose|pick|rely on|opt for|settle on|"
    r"move to|default to|cap|limit|standardi[sz]e on|represent|model|treat|drop|replace)\b|"
    r"\b(?:we|i)(?: have|'ve)? decided\b|\bdecided (?:to|on|that|against)\b|^(?:decided|decision)\b|\bwe(?:'re| are) going with\b|"
    r"(?<!keep )\bgoing with\b|\bgo with\b|\bgo ahead with\b|\bopted (?:for|to)\b|\bsettled on\b|\bchose to\b|\bthe plan is to\b|\bwe agreed\b",
    re.I,
)

#: "I'll use X to explore ...": a tool used for an action, not a choice.
_INSTRUMENTAL = re.compile(r"\buse\b.{0,80}?\bto (?:" + _NOT_A_CHOICE + r")\b", re.I)

_NOT_SELF = re.compile(
    r"^(?:i(?:'ve| have)? never|never mind|(?:i )?(?:don'?t|dont|do not) (?:know|think|see|understand|get|remember))\b", re.I
)

#: Words a sentence opens with that are not an imperative verb (for finding the ask of a prompt).
_NOT_IMPERATIVE = frozenset(
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
_RULE_CLAUSE = re.compile(
    _CLAUSE + r"(?:please\s+|pls\s+)?(?:(?:don'?t|dont|do not|never|no need to)\s+"
    r"(?!(?:know|think|see|understand|get|remember|mind|worry|care|need|like|want|read)\b)[a-z]|"
    r"(?:always|make sure|be sure to|ensure|avoid|keep in mind|remember to|refrain from|under no circumstances|stick to|"
    r"stay (?:within|inside|out of|away from)|keep (?:out of|away from))\b)",
    re.I,
)
#: Scope of a standing rule ("from now on", "whatever you do", "no exceptions").
_STANDING = re.compile(
    r"\b(?:from now on|going forward|at all times|in all cases|in every case|whatever you (?:do|change|touch)|"
    r"no matter what|under any circumstances|without exceptions?|no exceptions)\b",
    re.I,
)
#: A thing declared protected: "X is off limits", "leave X alone", "keep X untouched".
_PROTECTED = re.compile(
    r"\b(?:off[- ]limits|untouchable|untouched|hands off)\b|\b(?:stays?|remains?) (?:as[- ]is|unchanged|the same)\b|"
    r"\bleave\s+(?:[\w./-]+\s+){0,5}?(?:alone|as[- ]is|as (?:it|they) (?:is|are)|untouched|be(?=\s*(?:[,.;!—–-]|$)))",
    re.I,
)
#: "no new deps", "no helm charts from random repos pls", "nothing that phones home": a kind of change ruled out.
_RULED_OUT = re.compile(
    _CLAUSE + r"(?:no|zero) (?!(?:new|more) (?:errors?|warnings?|failures?|issues?|bugs?|crash\w*|alerts?|complaints?|problems?|"
    r"regressions?|results?|messages?|output|news)\b)(?:new|more|extra|additional|external|direct|other|further|third[- ]party|giant|big|random|"
    r"hard[- ]?coded|touching|changing|editing|deleting|removing|pushing|force-pushing|adding|bumping|upgrading)\b|" + _CLAUSE + r"nothing (?:that|which) (?!(?:i|we|you|he|she|they|it)\b)|"
    + _CLAUSE + r"no \w+(?: [\w-]+){0,5}? (?:please|pls|plz|ever|whatsoever|anywhere|at all)\b",
    re.I,
)
#: "stay on Python 3.9", "pinned to k8s 1.26", "min target stays iOS 15": a version held.
_PINNED = re.compile(
    r"\b(?:stay|stays|stick|sticks|pinned|locked|remain|remains|keep)\s+(?:(?:on|to|with)\s+(?:[\w.+-]+\s+){0,3}?v?\d+|"
    r"(?:[\w.+-]+\s+){0,3}?v?\d+(?:[.-]\d+)+)(?![\w.%])|\b\w+==\d",
    re.I,
)
_AMOUNT = (
    r"(?:(?<![\w.])\d[\d,.]*\s*(?:%|(?:ms|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|days?|[kmgt]i?b|[kmgt]i|[kmgt]ibs?|gigs?|megs?|"
    r"fps|rps|qps|x|cores?|vcpus?|gpus?|nodes?|replicas|pods?|requests?|rows|items|connections|lines|loc|chars|characters|tokens|"
    r"credits|words)\b|\s*\w+ per (?:second|minute|hour|day|week|month|request|run|call))|"
    r"a (?:second|minute|hour|day|week|megabyte|gigabyte|gig))"
)
#: A limit: a limit word with an amount ("budget is 50ms", "512Mi maximum"), or a bound with an
#: amount held by a binding verb ("keep the pool under 1GB", "can't drop below 99.5%").
_LIMIT = re.compile(
    r"\b(?:budget|limit|capped|cap|max|maximum|min|minimum|quota|sla|ceiling|tops out)\b.{0,40}?" + _AMOUNT
    + r"|" + _AMOUNT + r".{0,12}?\b(?:max|maximum|min|minimum|budget|limit|tops)\b|"
    r"\b(?:keep|stay|stays|remain|can'?t|cannot|can not|mustn'?t|must not|may not|shouldn'?t|should not)\b.{0,50}?"
    r"\b(?:under|below|over|above|within|at most|at least|more than|less than|longer than|fewer than|beyond)\s+(?:~|like\s+)?"
    + _AMOUNT,
    re.I,
)
#: "we cannot change the payload", "crash-free rate cant drop": a change that may not happen (not "I can't": a report).
_CANNOT_CHANGE = re.compile(
    r"(?<!\bi )\b(?:can'?t|cannot|can not|may not)\s+(?:be\s+)?(?:touch|change|modify|edit|alter|break|remove|delete|drop|"
    r"rename|upgrade|bump|downgrade|exceed|grow|go (?:over|above|below|past))\w*\b",
    re.I,
)
#: "…, tableau breaks otherwise": a warning of what follows a broken rule; "…, period": a rule said with emphasis.
_OTHERWISE = re.compile(r"\b(?:otherwise|or else)\s*[.!]*$|,\s*(?:period|full stop|end of story|no ifs\b.*)\s*[.!]*$", re.I)

#: Tastes stated about oneself: "I like X", "big fan of", "I'd much rather", "easier for me", "I don't need the essays"
#: (not "I like your plan": an approval of the agent's proposal, not a taste).
_TASTE = re.compile(
    r"\bi (?:really |just |kind of |kinda |honestly |also |generally |usually )?(?:like|love|hate|dislike|enjoy)\s+"
    r"(?!(?:how|that|this|what|when|it|you|your|to|using|the new|these new|those new)\b)\w|"
    r"\bi (?:really |just |kind of |kinda |honestly |also )?(?:like|love|hate|prefer) it (?:\w+ )?(?:more|better|less)\b|"
    r"\b(?:i'?m|i am) (?:a |not a )?(?:big |huge |real )?fan of\b|\bi(?:'?d| would) (?:much |really |definitely |honestly |far )?rather\b|"
    r"\b(?:easier|nicer|better|clearer|simpler|faster|less painful|more readable)\b.{0,30}?\bfor me\b|"
    r"\bfor me\b.{0,60}?\b(?:easier|nicer|better|clearer|simpler|more readable)\b|"
    r"\bi (?:just |also |really )?find (?:\S+ ){1,4}?(?:much |way |a lot |far )?(?:nicer|easier|better|cleaner|clearer|more readable|"
    r"less \w+)\b|"
    r"\b(?:makes?|would make|'d make) me happy\b|"
    r"\bmy preference\b|\bi (?:can'?t|cannot) stand\b|"
    r"\bi (?:really |honestly |just |also )?(?:don'?t|do not|dont) (?:need|care (?:for|about)|read|like|want)\b(?! (?:to|you|it|this|that|them)\b)(?!.*\b(?:anymore|any more|any longer)\b)",
    re.I,
)
#: "when you paste yaml, give me the whole manifest": a habit asked for whenever something recurs.
_HABIT = re.compile(
    r"\bwhenever you\b.{3,80}?,\s*(?:pls |please |just )?[a-z]|"
    r"\bwhen you (?!(?:'re|are|get|have) )\w+ (?!(?:it|this|that|them)\b)(?:\S+ ){0,5}?(?:pls |please |just )?(?:give|show|tell|send) me\b",
    re.I,
)
#: How answers should read: an answer noun with a length or plainness word ("keep ur answers short").
_ANSWER_STYLE = re.compile(
    r"\b(?:use|with) (?:\w+ )?(?:short|shorter|brief|concise|terse|simple|plain) (?:\w+ )?"
    r"(?:answers?|repl(?:y|ies)|responses?|explanations?|summar(?:y|ies)|snippets?|text|wording|words|sentences)\b",
    re.I,
)
#: "keep the PRs small": "keep" with a plain quality of a named kind of thing (a taste; "keep X untouched" is a
#: rule; "keep it small" is about the task at hand, part of its ask).
_KEEP_QUALITY = re.compile(
    r"^keep (?!(?:it|this|that)\b)(?:\w+ ){1,3}?(?:short|brief|concise|simple|small|minimal|tight|focused|readable|clean|lean|boring|tidy|terse)\b", re.I
)
#: "tabs not spaces", "swiftui over uikit": two bare options, one preferred (the first word a name, not a verb or pronoun).
_BARE_CHOICE = re.compile(r"^([a-z][\w.+#-]*) (?:over|not) [a-z][\w.+#-]*\b", re.I)
#: Verbs that take "over" ("go over the logs", "hand over").
_OVER_VERBS = frozenset("go hand switch move take think look read run fall roll carry turn pass start get come hang check game".split())

#: A concession that settles a discussion ("fine, …", "ok, …").
_ASSENT = r"(?:ok(?:ay)?|fine|alright|all right|sure|yes|yeah|yep|agreed|deal|sounds good)"
#: A linking word a concession may follow ("also ok, …", "and fine, …").
_LINKED = r"(?:(?:also|and|so|but|then|please|pls)\b[\s,]*)?"
#: "ok option 2", "ok docusaurus, not mkdocs", "fine, ship it behind the flag": a choice made by conceding.
_CONCEDED = re.compile(
    r"^" + _LINKED + _ASSENT + r"\b[\s,.!:—–-]*(?:(?:option|variant|approach|plan) #?\w+\b|(?:(?!(?:is|was|are|were|be|been|has|have|had|does|did|it|that|this)\b)"
    r"[\w.+#-]+ ?){1,4},? not [\w.+#-]+)|"
    r"^" + _LINKED + r"(?:fine|alright|all right)\b[\s,.!:—–-]+(?:just )?(?:use|go|ship|keep|do|take|stick|switch|drop|skip|pick|choose|store|put|make)\b",
    re.I,
)
#: "ECS it is", "X then." — a choice closing the talk; "we're not moving to Y", "X stays" with a concession.
_SETTLED = re.compile(
    r"\b(?!(?:as|what|whatever|how|where|here|there|that|this|so|know|wherever|whoever|which)\b)\w+ it is"
    r"(?: for (?:the |our )?[\w-]+(?: [\w-]+)?)?\s*(?:[.!,;—–-]|$)|"
    r"^[\w.+#-]+(?: [\w.+#-]+){0,2} then\s*(?:[.!,;]|$)|"
    r"\b(?:we'?re not|we are not|we aren'?t)\s+(?:moving|switching|migrating|going) (?:to|back to)\b|"
    r"\b(?:we'?re|we are) (?:switching|migrating) to\b|\bis the way to go\b|^[\w.+#-]+(?: [\w.+#-]+){0,3} wins\s*[.!]*$",
    re.I,
)
#: "we take option B", "we go with kafka", "we decide: …", "we use parquet …, not csv": a present-tense choice.
_WE_CHOOSE = re.compile(
    r"\bwe decide\b|\bwe (?:take|pick|choose|use|adopt|keep)\b(?=.*(?:\b(?:not|instead of|rather than|over|anymore|no more|option)\b|:))",
    re.I,
)
#: Verbs of looking into something: "I'll run the tests instead of guessing" chooses nothing.
_EXPLORE = "see|check|look|try|run|examine|investigate|explore|find|read|test|verify|ask|wait|debug|inspect|search|grep"
#: "I'll implement X rather than Y", "I went with X", "I have chosen X", "I picked X": a choice of the speaker's.
_MY_CHOICE = re.compile(
    r"\b(?:i'?ll|we'll|(?:i|we) will|i'?m going to|i am going to|we'?re going to)\s+(?!(?:" + _EXPLORE + r")\b)\w+\b.{0,120}?\b(?:instead of|rather than)\b|"
    r"\b(?:i'?m|we'?re|i am|we are) using\b.{0,100}?\b(?:instead of|rather than)\b|"
    r"\b(?:we|i)(?: won'?t| will not|'re not going to| are not going to| am not going to|'m not going to) "
    r"(?:use|go with|adopt|switch to|add|pull in)\b|"
    r"\b(?:i|we) (?:went with|opted for)\b|\b(?:i|we) (?:picked|chose|selected)\b(?! up\b)"
    r"(?=.*\b(?:instead of|rather than|over|since|because|as it|so that|which)\b)|\b(?:i|we)(?:'ve| have) (?:chosen|picked|selected|gone with)\b|"
    r"^decided to\b",
    re.I,
)
#: Something that happened ("back in 2019", "yesterday", "in hindsight"): history, not this session's decision or rule.
_PAST = re.compile(
    r"\b(?:ago|yesterday|last (?:year|month|week|quarter|sprint|time|night)|back in|back then|in (?:19|20)\d\d|in hindsight|at the time|"
    r"originally|used to|previously)\b",
    re.I,
)
#: A choice made on an earlier piece of work ("we went with zephyr on the last product").
_EARLIER = re.compile(r"\b(?:on|in|for|at|with) the (?:last|previous) (?!(?:step|one|part|stage|phase)\b)\w+", re.I)
#: A choice imagined, not made ("if we went with X, …", "we could use Redis", "one option would be").
_HYPOTHETICAL = re.compile(
    r"^(?:if|what if|suppose|supposing|assuming|in case|were we to)\b|\b(?:we|i|you) (?:could|might|would) (?:just )?"
    r"(?:go with|use|pick|choose|switch|try|adopt|move)\b|\bone option (?:would be|is|could be)\b",
    re.I,
)
#: A choice put off ("not … yet", "hold off", "maybe later", "don't decide now").
_DEFERRED = re.compile(
    r"\b(?:yet|not now|later|someday|some day|hold off|postpone\w*|park it|(?:don'?t|not) decide|undecided|tbd)\b|^(?:maybe|perhaps)\b",
    re.I,
)
#: Other languages: a few rule, taste and choice words of the most common ones (es, pt, fr, de, zh, ja).
_FOREIGN_CLAUSE = r"(?:^|[,;:(—–]\s*|[.!。！]\s*)"
_FOREIGN_RULE = re.compile(
    # always / never opening a clause: es, pt, fr, de, it, nl, ru
    _FOREIGN_CLAUSE + r"(?:por favor,?\s*|bitte,?\s*|s'il te plaît,?\s*|per favore,?\s*)?(?:nunca|jamás|siempre|sempre|jamais|"
    r"toujours|niemals|nie|immer|mai|nooit|altijd|никогда|всегда)\b|"
    # don't <change>, may not, must
    r"\b(?:no (?:toques|modifiques|cambies|uses|subas|borres|edites|actualices|agregues|añadas|elimines|hagas)|no se puede|"
    r"hay que|tienes que|prohibido|não (?:mexa|toque|altere|mude|use|faça|apague|adicione|pode\w*|deve\w*)|"
    r"ne (?:touche|modifie|change|supprime|pousse|mets|ajoute|utilise)\w* (?:pas|jamais)|n'(?:ajoute|utilise|efface)\w* (?:pas|jamais)|"
    r"il ne faut pas|il faut|interdit|bitte (?:kein\w*|nichts)|keine? \w+änderung\w*|nichts (?:\S+ ){0,4}?(?:geändert|ändern)|darf (?:nicht|kein\w*)|dürfen nicht|"
    r"muss|müssen|finger weg|non (?:toccare|modificare|cambiare|usare|aggiungere|cancellare)|non si può|vietato|"
    r"niet (?:aanraken|wijzigen|aanpassen)|verboden|не (?:трогай|меняй|изменяй|удаляй|используй|добавляй)|нельзя|должн\w*)\b|"
    r"^keine?\b|不要|别|不能|不可以|禁止|必须|务必|不许|不准|一定要|千万|ないで|必ず|てはいけない|てはならない|なければならない|しないこと|"
    r"하지 마|마세요|절대|반드시",
    re.I,
)
_FOREIGN_TASTE = re.compile(
    r"\b(?:prefiero|prefiro|preferisco|me gusta(?:n)? más|gosto mais|je préfère|je préférerais|j'aime mieux|"
    r"ich (?:hätte|mag|bevorzuge)\b.*\bgerne?|lieber|ik heb liever|предпочитаю|мне больше нравится)\b|"
    r"比较喜欢|更喜欢|我喜欢|偏好|倾向于|助かります|てほしい|が好き|の方がいい|てもらえると|선호|좋겠",
    re.I,
)
_FOREIGN_CHOICE = re.compile(
    r"\b(?:vamos con|vamos com|vamos a usar|usemos|usamos|usaremos|nos quedamos con|elegimos|decidimos|optamos por|"
    r"on part sur|on garde|on prend|on utilise|on choisit|wir nehmen|wir bleiben bei|wir verwenden|wir nutzen|"
    r"usiamo|andiamo con|abbiamo deciso|we gaan voor|используем|решили)\b|我们(?:决定|用|选)|决定用|就用|采用|にします|に決め|"
    r"で行きます|을 사용|로 하죠|로 하자",
    re.I,
)
_FOREIGN = re.compile("|".join(p.pattern for p in (_FOREIGN_RULE, _FOREIGN_TASTE, _FOREIGN_CHOICE)), re.I)
#: Typographic apostrophes ("I’ll", "don’t", as macOS and phones type them) read as ASCII ones.
_QUOTES = str.maketrans({"’": "'", "‘": "'"})
#: Text after the last inner question ("should we …? feels like …") — a question states nothing.
_INNER_QUESTION = re.compile(r"^.*[?？]\s+")

#: Every pattern of :func:`classify` needs one of these words (a fast pre-filter: most sentences state nothing).
_TRIGGER = re.compile(
    r"\b(?:always|never|don'?t|dont|do not|doesn'?t|make sure|ensure|be sure|avoid|only|stop|no more|under no|"
    r"keep in mind|remember|careful|refrain|needs?|must|mustn|should|shouldn|shall|allowed|forbidden|required|"
    r"mandatory|crucial|critical|essential|vital|important|valid|not acc|not ok|have to|has to|prefer\w*|rather|"
    r"like|love|hate|dislike|for better|for easier|for more|instead|let'?s|let us|\w+'ll|will|going|decid\w*|"
    r"decision|go with|opted|settled|chose|plan is|agreed|reminder|rule|"
    # the frames above
    r"now on|forward|all times|all cases|every case|whatever|no matter|any circumstances|exceptions?|off[- ]limits|"
    r"untouch\w*|hands off|leave|no (?:new|more|extra|additional|external|direct|other|further|third|giant|big|random|hard)|"
    r"zero|nothing (?:that|which)|please|pls|plz|ever|anywhere|at all|stays?|stick\w*|pinned|locked|remains?|keep|"
    r"budget|limit|capped|cap|max|maximum|min|minimum|quota|sla|ceiling|tops|can'?t|cannot|can not|may not|otherwise|"
    r"or else|enjoy|fan of|for me|i (?:just |also )?find|me happy|whenever you|give me|show me|tell me|send me|short|"
    r"shorter|brief|concise|terse|simple|plain|it is|then|not (?:moving|switching|migrating|going)|"
    r"we (?:decide|take|pick|choose|use|adopt)|went with|picked|chose|chosen|selected|gone with|banned|prohibited|"
    r"disallowed|permitted|requirement|negotiable|a must|no-go|not an option|not to be|touching|changing|"
    r"editing|deleting|removing|pushing|adding|bumping|upgrading|preference|stand|go for|go ahead|"
    r"way to go|wins|switching|migrating|using|won'?t|not going to|"
    # the other languages' words in ASCII (the rest is looked for only in text that is not ASCII)
    r"nunca|no (?:toques|modifiques|cambies|uses|subas|borres|se puede)|hay que|tienes que|prohibido|jamais|ne \w+ (?:pas|jamais)|"
    r"il ne faut|interdit|bitte|keine?|niemals|nichts|darf|muss|prefiero|prefiro|me gusta\w*|gosto|lieber|vamos|usamos|"
    r"usaremos|quedamos|elegimos|decidimos|optamos|usemos|on part|on garde|on prend|on utilise|on choisit|wir|siempre|sempre|"
    r"toujours|nie|immer|mai|nooit|altijd|il faut|finger|non|vietato|niet|verboden|preferisco|ik heb|usiamo|andiamo|"
    r"abbiamo|we gaan)\b|==\d|"
    r"(?:^|[.!?;。！？]\s*)" + _LINKED + r"(?:[\w.+#-]+ (?:over|not) |(?:ok|okay|fine|alright|all right|right|sure|yes|yeah|yep|agreed|deal|sounds good)\b)"
)
def classify(sentence: str, role: str) -> ItemType | None:
    """The item type a sentence states (USER: constraint/preference/decision; ASSISTANT: decision)."""
    s = sentence.strip()
    if len(s) < MIN_SENTENCE or s.endswith(("?", "？")):
        return None
    s = _INNER_QUESTION.sub("", s.translate(_QUOTES))
    if not may_state(s):
        return None
    if role != "user":
        settled = _choice(s, s) and not (
            _INSTRUMENTAL.search(s) or _PAST.search(s) or _EARLIER.search(s) or _DEFERRED.search(s) or _HYPOTHETICAL.search(s)
        )
        return ItemType.DECISION if settled else None
    body = _PREFIX.sub("", s)
    if _NOT_SELF.match(s) or _NOT_SELF.match(body):
        return None
    if _LEAD_RULE.match(s):
        return ItemType.USER_PREFERENCE if _PREFERENCE.search(body) and not _IMPERATIVE.match(body) else ItemType.CONSTRAINT
    if not _IMPERATIVE.match(body) and _choice(s, body):
        made = not (_PAST.search(s) or _EARLIER.search(s) or _DEFERRED.search(s) or _HYPOTHETICAL.search(body))
        return ItemType.DECISION if made else None
    if _PREFERENCE.search(body) or _tasted(s, body):
        return ItemType.USER_PREFERENCE
    if _IMPERATIVE.match(body) or (_MODAL.search(s) and not _HEDGE.search(s)) or _ruled(s):
        return ItemType.CONSTRAINT
    if _ALTERNATIVE.search(body) and is_imperative(body):
        return ItemType.DECISION  # "Make the retries three instead of one": a setting chosen
    return None


def _choice(s: str, body: str) -> bool:
    """A choice is stated (one made long ago, or put off, is history or a plan: the caller asks)."""
    return bool(
        _DECISION.search(s) or _MY_CHOICE.search(s) or _CONCEDED.search(s) or _SETTLED.search(body)
        or _WE_CHOOSE.search(s) or _FOREIGN_CHOICE.search(s)
    )


def _tasted(s: str, body: str) -> bool:
    return bool(
        _TASTE.search(s) or _HABIT.search(s) or _ANSWER_STYLE.search(s) or _KEEP_QUALITY.match(body)
        or _bare_choice(body) or _FOREIGN_TASTE.search(s)
    )


def _bare_choice(body: str) -> bool:
    m = _BARE_CHOICE.match(body)
    return m is not None and m.group(1).lower() not in _NOT_IMPERATIVE and m.group(1).lower() not in _OVER_VERBS


def _ruled(s: str) -> bool:
    return not _PAST.search(s) and bool(
        _RULE_CLAUSE.search(s) or _STANDING.search(s) or _PROTECTED.search(s) or _RULED_OUT.search(s)
        or _PINNED.search(s) or _LIMIT.search(s) or _CANNOT_CHANGE.search(s)
        or _OTHERWISE.search(s) or _FOREIGN_RULE.search(s)
    )


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
    return _TRIGGER.search(text.lower().replace("’", "'")) is not None or (not text.isascii() and _FOREIGN.search(text) is not None)


__all__ = ["MIN_SENTENCE", "classify", "is_imperative", "may_state", "opens_with_rule"]
