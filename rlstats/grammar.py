"""English agreement for the package's prose: a noun's singular and plural, a count with its noun, a verb agreeing
with a count, an indefinite article by sound, a whole number with separators. No package imports: every module,
rlstats.errors included, words its messages through it (audit s34: errors -> format -> vocabulary -> methods ->
errors was an import cycle); :mod:`rlstats.format` says the same names."""

from __future__ import annotations

import re
from typing import SupportsInt


#: Nouns whose plural is not the regular one, (singular, plural): read both ways by :func:`singular` and
#: :func:`plural` (a column named "indices" is one "index"; "analysis" is two "analyses", not "analysises").
_IRREGULAR = (("analysis", "analyses"), ("axis", "axes"), ("crisis", "crises"), ("hypothesis", "hypotheses"),
              ("thesis", "theses"), ("index", "indices"), ("matrix", "matrices"), ("vertex", "vertices"),
              ("criterion", "criteria"), ("phenomenon", "phenomena"), ("person", "people"), ("child", "children"),
              ("man", "men"), ("woman", "women"), ("mouse", "mice"), ("foot", "feet"), ("tooth", "teeth"),
              ("life", "lives"), ("knife", "knives"), ("wife", "wives"), ("leaf", "leaves"), ("half", "halves"),
              ("wolf", "wolves"), ("shelf", "shelves"), ("self", "selves"), ("hero", "heroes"), ("echo", "echoes"),
              ("potato", "potatoes"), ("tomato", "tomatoes"), ("quiz", "quizzes"), ("cache", "caches"),
              ("niche", "niches"), ("movie", "movies"), ("cookie", "cookies"), ("zombie", "zombies"))
_SINGULAR_OF = {many: one for one, many in _IRREGULAR}
_PLURAL_OF = dict(_IRREGULAR)
#: Nouns ending in a single "s" that are one thing ("a bias", plural "biases"), and nouns the same in both numbers
#: ("a series", "two series"); beside them every word ending in "ss", "us" or "is" is one ("class", "status", "axis").
_ONE_WITH_S = frozenset({"alias", "atlas", "bias", "canvas", "gas", "lens", "chaos", "cosmos", "ethos", "kudos",
                         "pathos", "bus"})
_SAME_IN_BOTH = frozenset({"series", "species", "news", "means", "physics", "mathematics", "economics", "robotics",
                           "dynamics", "athletics", "ethics", "linguistics", "sheep", "fish", "deer", "aircraft"})
#: The plurals of _ONE_WITH_S and the "-us" nouns whose plural ends in "uses" (most such words drop the "s" alone:
#: "uses", "causes", "houses")
_ES_AFTER_S = {f"{w}es": w for w in ("alias", "atlas", "bias", "canvas", "gas", "lens", "bus", "status", "virus",
                                     "bonus", "campus", "corpus", "census", "focus", "radius", "chorus", "syllabus")}


def _last_word(word):
    """``word`` split before its last run of letters ("held-out ", "tasks"; "train_", "envs"): the part the number
    of a noun is read off; ("word", "") where it ends in no letter ("env2")."""
    found = re.search(r"[A-Za-z]+$", word)
    return (word[:found.start()], found.group()) if found else (word, "")


def _as_cased(replacement, like):
    """``replacement`` in the case of ``like``: "GAMES" -> "GAME", "Entries" -> "Entry"."""
    if like.isupper() and len(like) > 1:
        return replacement.upper()
    return replacement[:1].upper() + replacement[1:] if like[:1].isupper() else replacement


def singular(word: str) -> str:
    """The noun ``word`` (its last word) as one thing: a column named "games" is "a game", "envs" "an env",
    "entries" "an entry", "batches" "a batch"; a word that already is one stays as it is: "task", "bus", "status",
    "class", "axis", "series", "ss" (audit s33 words33: a column "games" read "1 games", "every algos"). The one rule
    of a column's name as a noun (:attr:`rlstats.formula.Formula.block_word` and ``arm_word``, :func:`count` of 1).

    >>> [singular(w) for w in ("games", "envs", "algos", "seeds", "entries", "batches", "boxes", "classes", "cases")]
    ['game', 'env', 'algo', 'seed', 'entry', 'batch', 'box', 'class', 'case']
    >>> [singular(w) for w in ("task", "bus", "status", "class", "ss", "s", "series", "bias", "Train_Envs", "env2")]
    ['task', 'bus', 'status', 'class', 'ss', 's', 'series', 'bias', 'Train_Env', 'env2']
    """
    head, last = _last_word(word)
    low = last.lower()
    if low in _SINGULAR_OF or low in _ES_AFTER_S:
        return head + _as_cased(_SINGULAR_OF.get(low) or _ES_AFTER_S[low], last)
    if (len(low) < 3 or not low.endswith("s") or low.endswith(("ss", "us", "is")) or low in _ONE_WITH_S
            or low in _SAME_IN_BOTH):
        return word
    if low.endswith("ies") and len(low) > 4:
        return head + last[:-3] + _as_cased("y", last[-3:])
    if low.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return head + last[:-2]
    return head + last[:-1]


def plural(word: str, n: SupportsInt | None = None) -> str:
    """The English plural of ``word`` (its last word): "runs", "batches", "entries", "analyses"; the one rule of the
    package's prose (:func:`count`'s default, a column's name as a noun in a note). A word that is already plural
    (:func:`singular` reads it as more than one: a column named "games" or "envs") is said as it is (audit s32
    block32: "gameses"), as is one the same in both numbers ("series"). With ``n``, the noun as ``n`` things are
    said before their names, without the number (:func:`count` says it): ``plural("column", 1)`` -> "column",
    ``plural("column", 2)`` -> "columns", not "column(s)" (audit s34 words34).

    >>> [plural(w) for w in ("run", "batch", "match", "box", "entry", "day", "held-out task", "class", "games")]
    ['runs', 'batches', 'matches', 'boxes', 'entries', 'days', 'held-out tasks', 'classes', 'games']
    >>> [plural(w) for w in ("bus", "status", "bias", "ss", "series", "axis", "index", "env", "IQM")]
    ['buses', 'statuses', 'biases', 'sses', 'series', 'axes', 'indices', 'envs', 'IQMs']
    >>> plural("column", 1), plural("column", 2), plural("task", 0), plural("games", 1)
    ('column', 'columns', 'tasks', 'game')
    """
    if n is not None and int(n) == 1:
        return singular(word)
    head, last = _last_word(word)
    low = last.lower()
    if low in _PLURAL_OF:
        return head + _as_cased(_PLURAL_OF[low], last)
    if low in _SAME_IN_BOTH or singular(word) != word:
        return word
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if len(low) > 1 and low.endswith("y") and low[-2] not in "aeiouy":
        return word[:-1] + "ies"
    return word + "s"  # "IQMs": an abbreviation's plural in lower case


#: Words beginning with a vowel letter said with a consonant ("a unit", "a user", "a one-shot", "a European"), and
#: with a consonant letter said with a vowel ("an hour"); capitals alone are read letter by letter ("an MDP").
_A_BEFORE = ("uni", "use", "usa", "usu", "uti", "ure", "uro", "eu", "ewe", "once")
_AN_BEFORE = ("hour", "honest", "honor", "honour", "heir")


def a_or_an(word: str) -> str:
    """``word`` after its indefinite article by its first sound: "a task", "an env", "an episode", "a unit", "an
    update", "an hour", "an MDP"; the one rule of a column's name as a noun after "a" (audit s32 block32: "a run of a
    env").

    >>> a_or_an("task"), a_or_an("env"), a_or_an("game"), a_or_an("unit"), a_or_an("update"), a_or_an("MDP")
    ('a task', 'an env', 'a game', 'a unit', 'an update', 'an MDP')
    >>> a_or_an("algo"), a_or_an("hour"), a_or_an("PPO"), a_or_an("SB3"), a_or_an("one-shot task"), a_or_an("")
    ('an algo', 'an hour', 'a PPO', 'an SB3', 'a one-shot task', 'a ')
    >>> a_or_an("UCB"), a_or_an("URL"), a_or_an("onerous task"), a_or_an("one")
    ('a UCB', 'a URL', 'an onerous task', 'a one')
    """
    low = word.lower()
    if word.isupper() and word.isalnum() and (not re.search("[AEIOUY]", word) or re.search("[0-9]", word)):
        return f"{'an' if word[0] in 'AEFHILMNORSX' else 'a'} {word}"  # letter by letter: "an RL", "a DQN", "an A2C"
    vowel = low[:1] in "aeiou" and bool(low)
    if low.startswith(_A_BEFORE) or (word.isupper() and word[:1] == "U") or re.match(r"one\b", low):
        vowel = False  # "a unit", "a UCB" (you-), "a one-shot task" (won-), not "a onerous"
    elif low.startswith(_AN_BEFORE):
        vowel = True
    return f"{'an' if vowel else 'a'} {word}"


def integer(n: SupportsInt) -> str:
    """A whole number as a result prints it in its header's ``name = value``, its lines, prose and notes alike: with
    thousands separators (audit s26: a tuning result's "configurations = 10000" beside its "10,000 configurations";
    tables and tidy() keep the number).

    >>> integer(10000), integer(999), integer(-1500)
    ('10,000', '999', '-1,500')
    """
    return f"{int(n):,}"


#: the ordinal words :func:`ordinal` writes out
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def ordinal(n: SupportsInt) -> str:
    """The ordinal of ``n``: a word to the tenth, then digits with their suffix ("every 21st task named"); the one
    home of ordinals (review s35 rv35a: the command line's places and the selection plot's labels had one each).

    >>> ordinal(1), ordinal(2), ordinal(10), ordinal(11), ordinal(21), ordinal(112), ordinal(123)
    ('first', 'second', 'tenth', '11th', '21st', '112th', '123rd')
    """
    n = int(n)
    if 1 <= n <= len(_ORDINALS):
        return _ORDINALS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{integer(n)}{suffix}"


def count(n: SupportsInt, word: str, irregular: str | None = None) -> str:
    """``count(1, "task")`` -> "1 task", ``count(3, "task")`` -> "3 tasks", ``count(2, "batch")`` -> "2 batches":
    prose without "task(s)"; ``irregular``: a plural the rule does not give ("axes"), else :func:`plural`'s. The
    number has thousands separators, as every integer printed in prose ("12,000 runs", as :func:`listed`'s "1,202
    more").

    >>> count(12000, "run"), count(1, "batch"), count(-1500, "step")
    ('12,000 runs', '1 batch', '-1,500 steps')
    """
    n = int(n)
    return f"{integer(n)} {singular(word) if n == 1 else (irregular or plural(word))}"


#: Verbs whose form after a plural subject is not their singular's, "s" taken off (:func:`verb`)
_VERB_PLURAL = {"has": "have", "is": "are", "was": "were", "does": "do", "goes": "go"}


def verb(n: SupportsInt, one: str, several: str | None = None) -> str:
    """The verb ``one`` (its form after one thing: "has", "is", "was", "lies") agreeing with ``n`` things: itself
    where ``n`` is 1, else ``several`` or its form after several ("have", "are", "were", "lie"; the rule of
    :func:`singular`, "s" or "es" taken off: "matches" -> "match"). The one rule of a verb after a count (audit s34
    words34: some fifty hand-built ``"has" if n == 1 else "have"``); 0 things take the plural, as "0 runs have".

    >>> verb(1, "has"), verb(3, "has"), verb(0, "is"), verb(2, "was"), verb(2, "lies"), verb(2, "does"), verb(1, "do")
    ('has', 'have', 'are', 'were', 'lie', 'do', 'do')
    >>> f"{count(1, 'run')} {verb(1, 'lacks')} a tag", f"{count(4, 'run')} {verb(4, 'lacks')} a tag"
    ('1 run lacks a tag', '4 runs lack a tag')
    """
    if int(n) == 1:
        return one
    head, last = _last_word(one)
    return several or (head + _VERB_PLURAL[last] if last in _VERB_PLURAL else singular(one))
