"""Checks for keyword options, shared by every public function.

Each public function turns its keywords into one frozen options object with
these helpers, so every bad option raises :class:`OptionError` with the same
wording: the option's name, the value given and what is allowed.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np

from .cost import check_max_seconds
from .errors import OptionError, agent_named, as_given, did_you_mean, other_value_said, shown
from .grammar import count

_N = TypeVar("_N", int, float)
P = ParamSpec("P")
R = TypeVar("R")


def check_choice(name: str, value: object, allowed: Collection[object], *,
                 renamed: Mapping[str, tuple[str, str]] | None = None) -> Any:
    """Return ``value`` if it is one of ``allowed``; raise OptionError otherwise.

    ``renamed`` maps an old value to ``(new value, why)``: the error names the new one.
    """
    if isinstance(value, str) and value in allowed:
        return value
    if isinstance(value, str) and value in (renamed or {}):
        new, why = (renamed or {})[value]
        raise OptionError(f"{name}={shown(value)} is now called {new!r} ({why}); pass {name}={new!r}")
    choices = ", ".join(repr(a) for a in allowed)
    raise OptionError(f"{name}={shown(value)} is not one of the allowed values: {choices}"
                      + (other_value_said(name, value, allowed, VALUE_HABITS.get(name, {}))
                         or did_you_mean(value, allowed)))


#: Options that public functions spell apart, each with the other spelling: ``mixed()`` says ``adjust=`` (emmeans'
#: name), the rank test and the task table ``adjustment=``. The house has no aliases: given the other spelling, a
#: function names its own in an OptionError (:func:`keywords_checked`) rather than Python's TypeError.
OTHER_SPELLINGS = {"adjust": "adjustment", "adjustment": "adjust",
                   # the band's half-width: equivalence's margin=, bayes' rope= (baycomp's name; audit s36 fixeq36)
                   "rope": "margin", "margin": "rope"}

#: Other packages' names of options (R's stats, boot and PMCMRplus, Python's numpy and scikit-learn), each with whose
#: spelling it is and the names an rlstats function may take for it: given one, a function that takes one of those
#: names names the first it takes in an OptionError (:func:`unknown_option_error`); it never accepts it. Only names
#: whose value means the same here or is said in rlstats' value (:data:`HABIT_VALUES`: ``exact=True`` is
#: ``pvalue="exact"``); R's ``na.rm=TRUE`` is ``na_action="drop"``, another value of another meaning, and is left out.
HABITS = {
    "exact": ("R's spelling, wilcox.test's and PMCMRplus'", ("pvalue",)),
    "conf.level": ("R's spelling", ("confidence_level", "alpha")),
    "conf_level": ("R's conf.level, spelled with an underscore", ("confidence_level", "alpha")),
    "level": ("the spelling of R's confint()", ("confidence_level", "alpha")),
    "p.adjust": ("R's spelling", ("adjustment", "adjust")),
    "p_adjust": ("R's p.adjust, spelled with an underscore", ("adjustment", "adjust")),
    "p.adjust.method": ("PMCMRplus' spelling", ("adjustment", "adjust")),
    "p_adjust_method": ("PMCMRplus' p.adjust.method, spelled with underscores", ("adjustment", "adjust")),
    "na.action": ("R's spelling", ("na_action",)), "R": ("the spelling of R's boot()", ("n_resamples",)),
    "n_boot": ("another package's spelling", ("n_resamples",)), "seed": ("another package's spelling", ("rng",)),
    "random_state": ("scikit-learn's spelling", ("rng",)),
    # R's pwr and power.t.test (new-user trial s33): their power= is the power wanted, n= the runs a group
    "power": ("the spelling of R's pwr and power.t.test", ("target_power",)),
    "sig.level": ("the spelling of R's pwr and power.t.test", ("alpha",)),
    "sig_level": ("R's sig.level, spelled with an underscore", ("alpha",)),
    "n": ("the spelling of R's pwr and power.t.test, runs a group", ("seeds",)),
    # the equivalence bound (audit s36 fixeq36): TOSTER's symmetric eqb=, R's equivalence::tost(epsilon=)
    "eqb": ("TOSTER's spelling, the symmetric bound of t_TOST and tsum_TOST", ("margin",)),
    "epsilon": ("the spelling of R's equivalence::tost", ("margin",)),
}


#: rlstats' own options that are one minus each other, each with the other and what it is: given to a function that
#: takes the other alone, it is named as that function takes it with its value offered (``mixed(alpha=0.1)``:
#: ``confidence_level=0.9``; audit s34, the command line listed the methods taking alpha= and not mixed's own)
OWN_COMPLEMENTS = {"alpha": ("confidence_level", "the error rate other rlstats functions take"),
                   "confidence_level": ("alpha", "the confidence level other rlstats functions take")}

#: The rlstats options that are one minus the other packages' (:data:`HABITS`) or the other of :data:`OWN_COMPLEMENTS`:
#: a function that takes ``alpha=`` and no ``confidence_level=`` is offered ``alpha = 1 - conf.level`` (R's
#: ``conf.level=0.9`` is ``alpha=0.1``).
COMPLEMENTS = {"alpha": ("conf.level", "conf_level", "level", "confidence_level"), "confidence_level": ("alpha",)}

#: The words of a count of random draws (``n_resamples=``) that are a bootstrap's, as R's ``boot(R=)`` is: a function
#: whose docstring says its count is anything else (permutations, relabellings, random splits or subsets) is told what
#: it counts when given ``R=`` or ``n_boot=`` (:func:`count_described`).
BOOTSTRAP_COUNTS = ("bootstrap resamples", "resamples")

#: Other packages' values of a :data:`HABITS` option that rlstats spells apart, said in rlstats' value in the way on
#: (R's ``na.action=na.omit`` is ``na_action="drop"``): the error never tells a user to pass a value it refuses.
HABIT_VALUES: dict[str, dict[object, str]] = {
    "na.action": {"na.omit": "drop", "na.exclude": "drop", "na.fail": "raise"},
    # R's exact=TRUE as Python (True, 1; numpy's bools and 1.0 hash and compare alike) or as the command line reads it
    # (TRUE, T): keys case-folded
    "exact": {True: "exact", False: "asymptotic", "true": "exact", "t": "exact", "false": "asymptotic",
              "f": "asymptotic"},
}

#: Other packages' values of an rlstats option (R's, PMCMRplus', lme4's), keyed by the option and the value case-folded,
#: each with the rlstats value that does it, what the other one is, and what goes with it: :func:`check_choice` names
#: the way on, where that value is allowed, rather than the list alone (:func:`errors.other_value_said`; ``method=``'s
#: are the back ends' declarations, ``Backend.other_names``). No aliases: the value is still refused (audit s31
#: rfix31e).
VALUE_HABITS: dict[str, dict[str, tuple[str | None, str, str]]] = {
    "posthoc": {
        "nemenyi": ("ranks", "Nemenyi's all-pairs mean-rank test (PMCMRplus::frdAllPairsNemenyiTest)",
                    ", with adjustment='tukey' (its \"auto\" on balanced designs; 'holm' with control=)"),
        "frdallpairsnemenyitest": ("ranks", "PMCMRplus::frdAllPairsNemenyiTest",
                                   ", with adjustment='tukey' (its \"auto\" on balanced designs; 'holm' with control=)"),
        "tukey": ("ranks", "Tukey's single step of the mean ranks, Nemenyi's test,",
                  ", with adjustment='tukey' (its \"auto\" on balanced designs; 'holm' with control=)"),
        "frdallpairsconovertest": ("conover", "PMCMRplus::frdAllPairsConoverTest",
                                   ", with adjustment='tukey' for its default single-step (Holm is this one's "
                                   "\"auto\")"),
        "frdallpairsexacttest": ("exact", "PMCMRplus::frdAllPairsExactTest", ""),
    },
    "adjustment": {
        "single-step": ("tukey", "PMCMRplus' single-step (its default)", " (all pairs; with control=, 'holm')"),
        "fdr": ("bh", "R's p.adjust 'fdr' (Benjamini-Hochberg)", ""),
    },
    # mixed()'s, emmeans' name (audit s32 rhabit32): its p.adjust values and its exact multivariate t
    "adjust": {
        "fdr": ("bh", "R's p.adjust 'fdr' (Benjamini-Hochberg)", ""),
        "mvt": ("tukey", "emmeans' 'mvt' (the multivariate t of the contrasts' correlations, by mvtnorm's random "
                "integration)", ": for all pairs of agents on a balanced design both are the studentized range, and "
                "agree to that integration's error; on an unbalanced one Tukey's, the studentized range at each "
                "pair's SE and df (Tukey-Kramer's), approximates what mvt integrates"),
    },
    # audit s32 rhabit32: R's chi-squared p-value (pchisq, PMCMRplus' dist="Chisquare") and coin's approximate()
    "pvalue": {
        **{key: ("asymptotic", "the chi-squared p-value (R's friedman.test's; PMCMRplus' dist=\"Chisquare\")", "")
           for key in ("chisq", "chisquare", "chi-squared", "chi2")},
        "approximate": ("monte_carlo", "coin's approximate() (random relabellings)",
                        " (n_resamples= relabellings, seeded by rng=)"),
    },
    "na_action": {str(key): (own, f"R's {key}", "") for key, own in HABIT_VALUES["na.action"].items()}
    | {"na.pass": (None, "R's na.pass (which hands the missing values on to the test)",
                   ": no rlstats test reads a missing score; na_action='raise' (the default) names the rows that hold "
                   "one, na_action='drop' drops them and says so")},
}

#: Other packages' options that no rlstats option sets, each with an option marking the functions concerned and what
#: such a function (``{where}``) does instead: given to one, its OptionError says so (:func:`unknown_option_error`).
UNOFFERED = {
    # TOSTER's two ends of the band (audit s36 fixeq36); the one way on of either
    **dict.fromkeys(("low_eqbound", "high_eqbound"), (
        "margin", "TOSTER's low_eqbound= and high_eqbound= are the two ends of the band; {where} takes its "
                  "half-width, margin=, the band -margin to margin: ends -0.1 and 0.1 are margin=0.1; ends of "
                  "different sizes are two one-sided tests, each alternative='noninferior' with its end's size as "
                  "margin= (higher_is_better=False for the upper end)")),
    "REML": ("ddf", "{where} fits by REML alone (lme4's default, REML=TRUE); REML=FALSE, maximum likelihood, serves "
                    "likelihood-ratio tests between models of different fixed effects, which rlstats does not run: "
                    "leave REML= out, and read the agents' F test and contrasts, made at the REML fit"),
    "specs": ("ddf", "emmeans' specs= (pairwise ~ agent) is what {where} always reports: the agents' means in "
                     "res.emmeans and every pair's contrast in res.tidy(), adjusted by adjust= (emmeans' adjust=); "
                     "leave specs= out"),
    # PMCMRplus' dist= (audit s32 rhabit32); the rank test alone takes posthoc=
    "dist": ("posthoc", "PMCMRplus' dist= picks a test's reference distribution, which {where} picks by pvalue= and "
                        "adjustment=: dist=\"Chisquare\" is pvalue='asymptotic' (the omnibus test's chi-squared p-value, R's "
                        "friedman.test's; a post hoc's chi-squared form is not offered), "
                        "dist=\"Tukey\" (the studentized range of an all-pairs post hoc) adjustment='tukey'; "
                        "dist=\"FDist\" (Iman and Davenport's F approximation) is not offered: pvalue='exact' or "
                        "'monte_carlo' is the small-sample p-value here (variant='quade' is Quade's F test); "
                        "dist=\"KruskalWallis\" belongs to kruskalTest, the one-way Kruskal-Wallis test of "
                        "independent samples, which rlstats does not offer ({where} ranks runs within tasks; "
                        "the task table with test='mannwhitney' compares a task's agents pair by pair); leave dist= out"),
}




#: the options that are levels or error rates, in (0, 1): another spelling's value outside it is not offered back
LEVELS = ("confidence_level", "alpha")


def _named_here(where: str, given: str, own: str, whose: str, way: str, aside: str = "") -> OptionError:
    """The one wording of an option given in another spelling: that ``where`` has no option ``given``=, the name
    ``own``= it has here (``given``= is ``whose``, then ``aside``), and the ``way`` on (audit s32: one home)."""
    return OptionError(f"{where} has no option {given}=: its name here is {own}= ({given}= is {whose}{aside}); {way}")


def other_spelling_error(where: str, given: str, own: str, value: object, whose: str,
                         values: Mapping[object, str] | None = None) -> OptionError:
    """The error of an option given in another spelling: ``where`` ("mixed()", "method='mixed'"), ``whose`` ("another
    rlstats function's spelling", "R's spelling"); where ``own`` is one minus ``given`` (:data:`COMPLEMENTS`), the
    value offered is one minus the value given.  ``values``: the other spelling's values, each with the value ``own``=
    takes for it (:data:`HABIT_VALUES`), given where ``value`` is none of them: each is offered, and the value given
    said (``exact=2``: review s31, never offer back a value the option refuses)."""
    if values is not None:
        ways: dict[str, str] = {}
        for other, mine in values.items():
            ways.setdefault(mine, repr(other))
        offered = "; ".join(f"pass {own}={mine!r} for {given}={other}" for mine, other in ways.items())
        # a value no rlstats value does (R's na.pass): said, with what to use (VALUE_HABITS; audit s32 rhabit32)
        unmatched = other_value_said(own, value, (), VALUE_HABITS.get(own, {}))
        return _named_here(where, given, own, whose, f"{offered} (it was {shown(value)}){unmatched}")
    if given in COMPLEMENTS.get(own, ()):
        # a level in (0, 1) only: conf.level=95 offered alpha=-94.0, a value alpha= refuses (audit s24 review24a)
        level = is_finite_number(value) and 0 < float(value) < 1  # type: ignore[arg-type]
        offered = (f"={shown(round(1 - float(value), 12))}" if level  # type: ignore[arg-type]
                   else f" = 1 - {given} with {given} between 0 and 1 (it was {shown(value)})"
                   if is_finite_number(value) else f" as 1 - {given}")
        return _named_here(where, given, own, whose, f"pass {own}{offered}", aside=f"; {own} = 1 - {given}")
    if own in LEVELS and is_finite_number(value) and not 0 < float(value) < 1:  # type: ignore[arg-type]
        # conf_level=95 was offered confidence_level=95, which confidence_level= refuses (audit s24 review24a)
        return _named_here(where, given, own, whose, f"pass {own} between 0 and 1 (it was {shown(value)})")
    return _named_here(where, given, own, whose, f"pass {own}={shown(value)}")


def count_described(function: Callable[..., Any], name: str = "n_resamples") -> str | None:
    """What ``function``'s count ``name`` counts, the first sentence of its docstring's entry ("permutations for
    pvalue="monte_carlo""), where that is not a bootstrap's (:data:`BOOTSTRAP_COUNTS`); else None."""
    doc = inspect.getdoc(function) or ""
    found = re.search(rf"^{name} : [^\n]*\n((?:[ \t]+[^\n]*\n?)+)", doc, re.M)
    if found is None:
        return None
    text = " ".join(found.group(1).split()).replace("``", "")
    sentence = re.split(r"(?<=[^.]{2})[.:;](?:\s|$)", text, maxsplit=1)[0]
    said = sentence[:1].lower() + sentence[1:]
    return None if said.startswith(BOOTSTRAP_COUNTS) else said


def option_names(function: Callable[..., Any]) -> list[str]:
    """The keyword options of a public function, as its errors list them: every parameter but ``eval_env`` (a
    programmer's option, documented apart) and, of a function that takes (data, formula, ...), those two."""
    parameters = list(inspect.signature(function).parameters.values())
    skipped = {"eval_env", *(("data", "formula") if [p.name for p in parameters[:2]] == ["data", "formula"] else ())}
    return [p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in skipped]


def own_spelling(given: str, options: Collection[str]) -> tuple[str, str] | None:
    """(the name among ``options``, whose spelling ``given`` is) where ``given`` is another rlstats function's
    spelling of one of them (:data:`OTHER_SPELLINGS`), its complement (:data:`OWN_COMPLEMENTS`) or another package's
    (:data:`HABITS`); else None."""
    own = OTHER_SPELLINGS.get(given)
    if own is not None and own in options:
        return own, "another rlstats function's spelling"
    own, what = OWN_COMPLEMENTS.get(given, (None, ""))
    if own is not None and own in options:
        return own, what
    whose, names = HABITS.get(given, ("", ()))
    own = next((name for name in names if name in options), None)
    return None if own is None else (own, whose)


def unknown_option_error(where: str, given: str, value: object, options: Sequence[str],
                         counts: str | None = None) -> OptionError:
    """The one error of a keyword a public function does not take, ``where`` ("bootstrap()", "method='bootstrap'"):
    another rlstats function's spelling of one of its ``options`` or another package's (:data:`HABITS`) is named as it
    is spelled here; else the close names (:func:`errors.did_you_mean`) and the list of its options. ``counts``: what
    its ``n_resamples=`` counts where that is not bootstrap resamples (:func:`count_described`), said where R's
    ``boot(R=)`` or ``n_boot=`` is given for it."""
    spelled = own_spelling(given, options)
    if spelled is not None:
        own, whose = spelled
        values = HABIT_VALUES.get(given)
        if values is not None:  # R's na.omit, exact=TRUE: the value rlstats takes for it (HABIT_VALUES)
            key = value.casefold() if isinstance(value, str) else value
            # numpy's bools and numbers (a column's value) and 1.0 are R's TRUE as True and 1 are (audit s32 rfix32)
            own_value = values.get(key) if isinstance(key, (str, bool, np.bool_, numbers.Real)) else None
            if own_value is None and isinstance(value, str) and value in values.values():
                own_value = value  # na.action='drop': rlstats' value already
            if own_value is None:  # exact=None or 2: never offer back a value the option refuses (review s31)
                return other_spelling_error(where, given, own, value, whose, values)
            value = own_value
        if own == "n_resamples" and counts and "n_resamples" in HABITS.get(given, ("", ()))[1]:
            # boot()'s R counts bootstrap resamples: a permutation test's count is its own (audit s24 small24)
            whose += f", a count of bootstrap resamples; here {own}= is: {counts}"
        return other_spelling_error(where, given, own, value, whose)
    listed = f"its options are: {', '.join(options)}" if options else "it takes no options"
    marker, instead = UNOFFERED.get(given, ("", ""))
    if marker in options:  # lme4's REML=, emmeans' specs=: what the function does instead (audit s31 rfix31e)
        return OptionError(f"{where} has no option {given}=: {instead.format(where=where)}")
    if given == "subset":  # R's subset= (compare() and curves() take it): the way to the rows wanted (audit s26)
        # no pandas query() in the hint: a condition given as text is read only by rlstats' restricted grammar
        from .connectivity import rows_way  # the one wording of the rows selected first (audit s35)

        function = f"rlstats.{where[:-2]}" if where.endswith("()") else "the call"
        return OptionError(f"{where} has no option 'subset'; select the rows first with "
                           f"{rows_way(function, takes_subset=False)}; {listed}")
    return OptionError(f"{where} has no option {given!r}{did_you_mean(given, options)}; {listed}")


def surplus_positional_error(where: str, by_position: Sequence[str], args: Sequence[object],
                             options: Sequence[str], *, passes_on: bool = False,
                             named: Collection[str] = ()) -> OptionError:
    """The error of a call giving more values by position than ``where`` takes so: R matches a value to the next
    argument whatever it is (``boot(df, f, 1000)``); here every option is named (audit s24). ``passes_on``: it
    takes ``**options`` too, which its help lists. The options listed are those left to name (not ``by_position``'s,
    each given already). ``named``: those of ``by_position`` given by name, whose places the values by position do not
    take, as R matches names first (``bootstrap("score ~ agent", 1000, data=df)``: 1000 is the surplus; audit s24
    review24a)."""
    surplus = args[len([name for name in by_position if name not in named]):]
    options = [name for name in options if name not in by_position]  # given by position: named too, a TypeError
    if passes_on:
        options = [*options, f"and those help({where[:-2]}) lists"]
    taken = (f"{count(len(by_position), 'value')} by position "
             f"({', '.join(by_position)})" if by_position else "no values by position")
    got = f"got {len(args)}" + (f" beside {', '.join(f'{name}=' for name in by_position if name in named)} by name"
                                 if named else "")
    if not options:  # parse(text): its one argument is by position, and it has no other
        return OptionError(f"{where} takes {taken}, {got}: it takes no {'other ' if by_position else ''}options")
    return OptionError(f"{where} takes {taken}, {got}: give {'each of ' if len(surplus) > 1 else ''}"
                       f"{', '.join(shown(v) for v in surplus)} by its option's name; its options are: "
                       f"{', '.join(options)}")


def keywords_checked(function: Callable[P, R]) -> Callable[P, R]:
    """``function``, a public function, refusing a keyword it does not take with :func:`unknown_option_error` and
    more values by position than it takes with :func:`surplus_positional_error`, rather than Python's TypeError (one
    that takes ``**options`` checks their names itself). The public functions that take (data, formula) have it
    through :func:`rlstats.design.public_function`; the others have it alone."""
    parameters = inspect.signature(function).parameters
    if any(p.kind is p.VAR_POSITIONAL for p in parameters.values()):
        return function
    # one that takes **options checks their names itself
    names = None if any(p.kind is p.VAR_KEYWORD for p in parameters.values()) else set(parameters)
    options = option_names(function)
    by_position = [p.name for p in parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    @functools.wraps(function)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        # R matches every argument by position, after those given by name; Python's TypeError names none
        named = [name for name in by_position if name in kwargs]
        if len(args) > len(by_position) - len(named):
            raise surplus_positional_error(f"{function.__name__}()", by_position, args, options,
                                           passes_on=names is None, named=named)
        unknown = None if names is None else next((name for name in kwargs if name not in names), None)
        if unknown is not None:
            raise unknown_option_error(f"{function.__name__}()", unknown, kwargs[unknown], options,
                                       count_described(function))
        return function(*args, **kwargs)

    return checked


#: the command line's 2,000, read as the tuple (2, 0): its numbers' texts as typed, 1-3 digits then groups of 3
_THOUSANDS = re.compile(r"\d{1,3}(,\d{3})+")


def echoed(value: object) -> str:
    """``value`` as an option's error echoes it: a number of the command line as typed (:func:`errors.as_given`:
    ``9.5e1``, not 95.0), the tuple the command line read from ``2,000`` as typed with what it was read as; else
    :func:`errors.shown` (audit s31 rfix31e)."""
    if isinstance(value, tuple) and _THOUSANDS.fullmatch(",".join(map(as_given, value))):
        return f"{','.join(map(as_given, value))} (read as the tuple {shown(value)})"
    return as_given(value) if isinstance(getattr(value, "typed", None), str) else shown(value)


def check_int(name: str, value: object, *, minimum: int | None = None) -> int:
    """Return ``value`` as an int, checking that it is integral and >= minimum (bounds above: :func:`check_at_most`).
    A whole float is offered back as the int only where that int would be taken (-1e2 to a count of at least 2 is
    told the minimum, not to pass -100); the value is echoed as given (:func:`echoed`)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        real = float(value) if is_finite_number(value) else None  # type: ignore[arg-type]  # a real number
        if real is not None and real.is_integer():  # 1e4: whole in value, a float in type
            if minimum is not None and real < minimum:
                raise OptionError(f"{name} must be at least {minimum}, got {echoed(value)}")
            raise OptionError(f"{name} must be an int, got the float {echoed(value)}; pass {name}={int(real)}")
        thousands = (f"; write {''.join(map(as_given, value))}, without the thousands separator"  # type: ignore
                     if "(read as the tuple" in echoed(value) else "")
        raise OptionError(f"{name} must be a whole number, got {echoed(value)}{thousands}")
    if minimum is not None and int(value) < minimum:
        raise OptionError(f"{name} must be at least {minimum}, got {echoed(value)}")
    return int(value)


#: The most resamples or permutations any procedure draws: one float each per statistic is kept, so
#: 10**7 is 80 MB a statistic, and the Monte Carlo error at 10**6 is already below 0.0005.
MAX_RESAMPLES = 10**7


def check_resamples(value: object, *, minimum: int = 1, name: str = "n_resamples", what: str = "resamples",
                    advice: str = "every resample is kept in memory, and 10,000 to 100,000 give Monte Carlo errors "
                                  "well below the differences that matter") -> int:
    """``n_resamples`` (or another count of random draws: ``what`` they are, ``advice`` the way on) as an int in
    [minimum, MAX_RESAMPLES]."""
    if is_finite_number(value) and not isinstance(value, numbers.Integral):  # 1e8: the bound first, not "pass an int"
        check_at_most(name, value, MAX_RESAMPLES, what, advice)  # type: ignore[type-var]  # a real number
    return check_at_most(name, check_int(name, value, minimum=minimum), MAX_RESAMPLES, what, advice)


def is_finite_number(value: object) -> bool:
    """Whether ``value`` is a real number (not a bool) and finite.

    Not numpy's isfinite, which raises TypeError on an int beyond int64 (a mistyped ``-o alpha=100...0``); an int
    beyond float's range is not finite here.

    >>> is_finite_number(10**21), is_finite_number(10**400), is_finite_number(True), is_finite_number(float("nan"))
    (True, False, False, False)
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def check_fraction(name: str, value: Any, *, open_interval: bool = True) -> float:
    """Return ``value`` as a float strictly between 0 and 1 (or within [0, 1])."""
    if not is_finite_number(value):
        raise OptionError(f"{name} must be a number between 0 and 1, got {echoed(value)}")
    given, value = value, float(value)
    inside = 0.0 < value < 1.0 if open_interval else 0.0 <= value <= 1.0
    if not inside:
        bounds = "strictly between 0 and 1" if open_interval else "between 0 and 1"
        raise OptionError(f"{name} must be {bounds}, got {echoed(given) if hasattr(given, 'typed') else value}")
    return value


def check_confidence_level(value: object, name: str = "confidence_level") -> float:
    """A confidence level between 0.5 and 1: a level below one half is almost surely alpha given by mistake, and
    one between 50 and 100 a percentage."""
    if is_finite_number(value) and 50 <= value < 100:  # type: ignore[operator]  # a real number, checked
        raise OptionError(f"{name} must be strictly between 0 and 1, got {echoed(value)}; for a {value:g}% interval "
                          f"pass {name}={value / 100:g}")  # type: ignore[operator]
    value = check_fraction(name, value)
    if value < 0.5:
        # 12 significant digits: %g's 6 rounded 1 - 1e-9 to 1, a level this function refuses
        raise OptionError(f"{name}={value:g} is below 0.5, so the interval would cover less often than it misses; "
                          f"for a {100 * (1 - value):.12g}% interval pass {name}={1 - value:.12g} (alpha is 1 - "
                          f"{name})")
    return value


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is a bool; raise OptionError otherwise."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise OptionError(f"{name} must be True or False, got {shown(value)}")


def check_cost_options(progress: object, max_seconds: object) -> tuple[bool, float]:
    """``progress=`` and ``max_seconds=``, with which a caller steers :mod:`rlstats.cost`, checked: the one home of
    their validation, which every back end's options class calls in ``checked()`` (a bad value is refused with the
    other options, before the data are read) and ``power()`` calls for its study.

    ``progress`` must be True or False (what the caller asked: a bar when the estimated work is long, or never; the
    result's options record it, not whether a bar was drawn); ``max_seconds`` None (the package's bound,
    :data:`rlstats.cost.MAX_SECONDS`) or a positive number of seconds (inf: no bound), returned as a float
    (:func:`rlstats.cost.check_max_seconds`, which :func:`rlstats.cost.admit` also applies to what it is given).

    >>> check_cost_options(False, None)
    (False, 3600.0)
    """
    return check_bool("progress", progress), check_max_seconds(max_seconds)


def check_pairs(name: str, pairs: object, agents: Sequence[str], *, where: str = "",
                left_out: dict[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """Validated (agent, agent) name pairs; None means every pair, in agent order.

    Raises OptionError for a malformed pair, an unknown agent, a pair of an
    agent with itself, a pair listed twice (in either order) or an empty list.
    ``where`` and ``left_out``: what the error says of the agents (:func:`rlstats.design.agents_said`).
    """
    if pairs is None:
        return tuple((a, b) for i, a in enumerate(agents) for b in agents[i + 1:])
    if not isinstance(pairs, Iterable) or isinstance(pairs, str):
        raise OptionError(f"{name} must be a list of (agent_1, agent_2) tuples, or None for every pair; got {pairs!r}")
    checked, seen = [], set()
    for pair in pairs:
        # not a Collection: an int of pairs=[1, 2], a TypeError of len() before (audit s21)
        if isinstance(pair, str) or not isinstance(pair, Collection) or len(pair) != 2:
            raise OptionError(f"{name} must be (agent_1, agent_2) tuples, got {pair!r}")
        # the design's labels: (0, 2) names the agents printed 0 and 2 (errors.label_named, audit s30)
        a, b = (agent_named(agents, name, agent, where, left_out, listed=True) for agent in pair)
        if a == b:
            raise OptionError(f"{name} entry {tuple(pair)!r} compares an agent with itself")
        if frozenset((a, b)) in seen:
            raise OptionError(f"{name} entry {tuple(pair)!r} is listed twice (in some order)")
        seen.add(frozenset((a, b)))
        checked.append((a, b))
    if not checked:
        raise OptionError(f"{name} is empty; pass None for all pairs")
    return tuple(checked)


#: Workers per core that n_jobs may ask for on this machine: each is a thread or a process started at once.
JOBS_PER_CORE = 4


def check_n_jobs(n_jobs: Any, *, local: bool = True) -> int:
    """Worker count: a positive whole number, or -1 for every core.

    On this machine (``local``) at most :data:`JOBS_PER_CORE` per core: more only queue, and a
    million threads or processes would exhaust it. A cluster backend (Dask) takes any count.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or (n_jobs < 1 and n_jobs != -1):
        raise OptionError(f"n_jobs must be a positive whole number or -1 (all cores), got {n_jobs!r}")
    cores = os.cpu_count() or 1
    if local and n_jobs > JOBS_PER_CORE * cores:  # type: ignore[operator]
        raise OptionError(f"n_jobs={n_jobs:,} is more than {JOBS_PER_CORE} workers per core of this machine "
                          f"({cores} cores); pass n_jobs=-1 for one per core")
    return int(n_jobs)


def check_at_most(name: str, value: _N, bound: float, what: str, advice: str) -> _N:
    """Return ``value`` if it is at most ``bound``: sizes are bounded before anything is allocated.

    The error names the option, the value, the bound (``what`` says what is counted) and ``advice``.

    >>> check_at_most("K", 6, 1000, "interims", "pass a smaller K")
    6
    """
    if value > bound:
        shown_value = echoed(value) if hasattr(value, "typed") else value  # the command line's 1e8 as typed
        raise OptionError(f"{name}={shown_value} is more than {bound:,} {what}, the most rlstats takes; {advice}")
    return value


#: How many times the scores' range a band's half-width must be for :func:`band_beyond_scores` to warn: the size of
#: a units slip (a percentage of scores that are fractions is 100 times), not of a margin wider than tight scores
UNITS_SLIP = 10.0


def band_beyond_scores(design: Any, name: str, value: float, others: Any = ()) -> Any:
    """``design`` with a note (and a warning, see below) where a band's half-width (equivalence's ``margin=``, bayes'
    ``rope=``) is at least the range of every score analysed (``others``: further values a difference may end at, a
    published table's means): no difference of these scores, nor of their means, reaches it, so the estimates all lie
    inside the band by construction (audit s19: margin=6895 on scores spanning 69 printed "equivalent" everywhere,
    unremarked). Not an error: a margin fixed before the data, as it should be, stays the caller's. A warning only from
    :data:`UNITS_SLIP` times the range: a correct margin may exceed scores that came out tight (a 10-point margin on
    success rates all within 0.947-1, review s19), where the note says the fact and a warning to rerun in other units
    would be false alarm. Scores that all tie (range 0) are left to the back ends' own notes."""
    import dataclasses

    from .errors import warn
    from .format import signif

    scores = np.r_[np.asarray(design.y, dtype=np.float64), np.asarray(others, dtype=np.float64)]
    low, high = float(scores.min()), float(scores.max())
    if not value >= high - low > 0:
        return design
    note = (f"{name}={signif(value)} is at least the range of all the scores analysed ({signif(high - low)}, from "
            f"{signif(low)} to {signif(high)}, in {design.units}): every difference of their means lies inside "
            f"\u00b1{signif(value)} by construction, so the data could not have shown a difference that large; if "
            f"{name}= was meant in other units (a percentage of scores that are fractions, raw scores against "
            "normalised ones), rerun with it in these")
    if value >= UNITS_SLIP * (high - low):
        warn(note)
    return dataclasses.replace(design, notes=(*design.notes, note))
