"""equivalence(): two one-sided tests (TOST) and non-inferiority, per task, across tasks and on an aggregate.

``equivalence(df, "score ~ agent | task", margin=0.1)`` asks, for each pair of agents (every pair, or each agent against
``control=``), whether their difference lies within +-margin: on each task (Welch's t of the two agents' runs), across
tasks (the mean of the paired task-level differences of means: the tasks at hand with Welch-Satterthwaite df, or
``across="paired_t"``, tasks as a sample) and on an aggregate (the IQM or mean over tasks, its difference's bootstrap-t
interval read off :func:`rlstats.bootstrap`'s own resamples and standard errors, reached through the registry).
``published=`` replaces the second agent by a published table of per-task means, SDs and run counts (a reproduction).
The numbers come from :mod:`._kernels`.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd

from ... import calibration
from ...bounds import SATURATED_FEWEST_OFF, bound_ties, pairs_bound_ties, saturated_withheld, variance_floor
from ...cost import admit, shows, timed_bar
from ...connectivity import tasks_way
from ...design import NA_ACTIONS, check_agent_named, design_of, public_function
from ...errors import DesignError, OptionError, agent_named, label_named, label_value, shown
from ...format import a_or_an, count, integer, join_and, listed, plural, signif, verb
from ...normalization import warn_raw_scales
from ...options import (MAX_RESAMPLES, UNITS_SLIP, band_beyond_scores, check_bool, check_choice,
                       check_cost_options, check_fraction, check_resamples, is_finite_number)
from ...resampling import check_rng, seed_sequence
from ...statistics import (STUDENTIZED_SE_FLOOR, WELCH_FLOOR_METRICS, WELCH_FLOOR_NAME, aggregate_tolerance,
                           block_ranges, difference_tolerance, floored_standard_errors, monte_carlo_se, near_ties,
                           noise_free, run_expansion, spread_and_magnitude, welch_floor)
from .._replication import verdict
from . import _kernels as kernels
from ._backend import cost
from ._result import EquivalenceResult
from ..._typing import Data, EvalEnv, FormulaLike, Label, NaAction, Normalizer, Seed

#: alternative= (kernels.ALTERNATIVES)
ALTERNATIVES = kernels.ALTERNATIVES
EquivalenceAlternative = Literal["equivalence", "noninferior"]
#: aggregate= besides None: the bootstrap's metric whose difference is tested
AGGREGATES = ("iqm", "mean")
EquivalenceAggregate = Literal["iqm", "mean"]
#: across= : the across-tasks test (tasks at hand, or tasks as a sample)
ACROSS = ("welch", "paired_t")
EquivalenceAcross = Literal["welch", "paired_t"]
#: the published table's columns besides the task's (named as the formula's block column)
PUBLISHED_COLUMNS = ("mean", "sd", "n")
#: the second agent of every pair with published=
PUBLISHED = "published"
#: the calibration table's rows of the tests' size at the margin (tests/reference/size_equivalence.py)
CALIBRATION = "equivalence.size"
#: the scopes of the tests, in tidy()'s order within a pair
SCOPES = ("task", "across tasks", "aggregate")
#: the interval= column of each test's calibration rows
_CALIBRATED = {"Welch t": "welch", "Welch-Satterthwaite over tasks": "welch_mean", "paired t over tasks": "paired_t",
               "bootstrap-t": "bootstrap_t", WELCH_FLOOR_NAME: "bootstrap_t"}
#: runs of one agent at least this many times the other's on a task make a pair's runs unequal, by alternative: the
#: smallest imbalance at which tests/reference/size_equivalence_unbalanced.py measured a size above alpha (seed 22,
#: 20,000 data sets a per-task row; audit s22, review22a): non-inferiority from 2 (capped scores, 5 vs 10 runs: 0.070),
#: equivalence from 4 (skewed, 20 vs 5: 0.056; at 5 vs 10 it held, 0.020 skewed and 0.002 capped)
UNEQUAL_RATIO = {"equivalence": 4, "noninferior": 2}
#: the across-tasks test is quoted where at least this share of the pair's tasks have runs unequal: with 5 vs 100 runs
#: on 1 of 5 tasks and on 1 of 26 it held alpha (0.054 at most), on 13 of 26 it did not (skewed 0.070, capped 0.069;
#: size_equivalence_unbalanced.py --partial, review22a)
UNEQUAL_ACROSS_SHARE = 0.5
#: the largest share of tests declaring their alternative at a true difference equal to the margin, at alpha = 0.05, with
#: unequal runs (tests/reference/size_equivalence_unbalanced.py; the calibration table's rows are of equal runs):
#: alternative -> scope -> family of scores -> (share, the design where it was measured); normal and heavy-tailed
#: scores at most 0.01 above alpha everywhere (0.060 at most)
#: Audit s22 (equivfix22) measured four tests to replace Welch's t there, each floored at it: the aggregate's
#: bootstrap-t rule (per task still up to 0.175), Hall's skewness-corrected t (0.109; at the true skewness 0.094) and
#: a bootstrap-t at one spread for both agents (within alpha's 2 Monte Carlo SE where the agents differ by a shift,
#: 0.130 where their spreads differ); none held alpha on every row, so Welch's t and this note stay
#: (``size_equivalence_unbalanced.py --candidates``).
UNEQUAL_SIZE = {
    "equivalence": {"task": {"skewed": (0.16, "5 vs 100 runs"), "capped": (0.023, "100 vs 10 runs")},
                    "across tasks": {"skewed": (0.13, "5 tasks, 3 vs 100 runs"),
                                     "capped": (0.076, "5 tasks, 100 vs 5 runs")}},
    "noninferior": {"task": {"skewed": (0.21, "100 runs of agent_1 against 3 of agent_2"),
                             "capped": (0.095, "3 runs of agent_1 against 100 of agent_2")},
                    "across tasks": {"skewed": (0.12, "5 tasks, 100 runs of agent_1 against 5 of agent_2"),
                                     "capped": (0.063, "5 tasks, 3 runs of agent_1 against 100 of agent_2")}},
}
#: the spreads of the calibration table's rows of equal runs and unlike spreads, agent 1's SD over agent 2's
#: (configuration "delta = -margin, spread 1/4"; tests/reference/size_equivalence_spread.py, audit s23)
UNLIKE_SPREADS = (0.125, 0.25, 0.5, 2.0, 4.0, 8.0)
#: the smallest spread ratio measured, above alpha with equal runs (audit s23: per task, skewed scores,
#: non-inferiority 0.082-0.105 at ratio 2, 0.150-0.183 at 4 and 8; capped 0.082-0.092 at 2): the note of unlike
#: spreads says "2 to 8 times"; it no longer gates the note (equivgate23: sample SDs cannot tell the true spreads)
UNLIKE_SPREAD = 2.0
#: the SD ratios the runs must rule out, either way, for the note of unlike spreads to leave a task out (audit s34
#: eqnote34): the calibration rows' spread factors 2 and 1/2 are SD ratios of 1.81 and 1/1.73 on capped scores (the
#: cap shortens the wider agent's spread), so the runs rule the rows' spreads out where the interval lies within
#: 1/1.7 to 1.7
SPREAD_ALIKE = 1.7
#: the level of that interval (Bonett's, ``kernels.sd_ratio_interval``): on normal, skewed (lognormal sigma 0.8 and
#: 1.2), heavy-tailed (t3) and capped scores at an SD ratio of 1.7 or 1/1.7 (and capped at the rows' factors 2 and
#: 1/2) it lay within 1/1.7 to 1.7 in at most 0.0001 of 20,000 data sets at 3-10 runs of each agent (and 5 vs 15,
#: 10 vs 30), 0.0052 at 20, 0.0094 at 30, 0.0119 at 100 (heavy-tailed; skewed 0.0056, capped 0.0050) and 0.013 of
#: 5,000 at 300: a 99% interval misses its side's 0.005 by up to 2.6 times on tails this heavy, so the level is
#: kept high (tests/reference/spread_ratio_interval.py, seed 343)
SPREAD_LEVEL = 0.99
#: the calibration rows of that decision where it is false (audit s36 calib36, tests/reference/spread_ruled_out.py,
#: seed 36, 20,000 data sets a row): agent 1's deviations times the equivalence.size rows' factors 1/8-8 ("spread r"),
#: equal runs 3-100, normal, skewed, heavy-tailed and capped scores; coverage the share not ruled out, level 0.995
#: (one side of the 99% interval). Nothing ruled out at 3-5 runs, 0.0001 at 10; capped scores' factor 1/2 (SD ratio
#: 1/1.73, just beyond 1/1.7) ruled out in 0.0048 at 20 runs, 0.0067 at 30 (a miss), 0.0063 at 50, 0.0028 at 100
SPREAD_RULED_OUT = "equivalence.spread_ruled_out"
#: what a note quoting a measured miss of each test suggests instead
_WAY_ON = {"paired_t": "; across='welch' held alpha on that grid",
           "paired_t_bounded": "; across='welch' held alpha on that grid",
           "bootstrap_t": "; the across-tasks test (across='welch') held alpha on that grid",
           "welch": "; add runs", "welch_mean": "; add runs"}
#: alternative= -> what a shown test declares, as the size notes quote it
_SHOWN_WORD = {"equivalence": "equivalent", "noninferior": "non-inferior"}
#: alternative= -> the ``test`` column of the calibration rows
_CALIBRATED_TESTS = {"equivalence": "tost", "noninferior": "noninferior"}


def _check_margin(margin, alternative="equivalence", higher_is_better=True):
    if margin is None:
        raise OptionError("equivalence needs margin=, the largest difference that counts as practically nothing, "
                          "in the score's units (or on normalised scores with normalize=), e.g. margin=0.1; "
                          "choose it before looking at the data")
    if np.ndim(margin) == 1 and np.size(margin) == 2:  # TOSTER's (low, high) bounds (audit s19)
        raise OptionError(f"margin= takes one number, the half-width of a symmetric band -margin < delta < margin; "
                          f"got {shown(margin)}; for bounds of different sizes, test each side at alpha with "
                          "alternative='noninferior': margin=-low tests delta > low, and margin=high with "
                          "higher_is_better=False tests delta < high (both shown: equivalent within them, at alpha)")
    if alternative == "noninferior" and is_finite_number(margin) and margin < 0:  # a lower bound written as such
        side = "delta > -margin, higher scores better" if higher_is_better else "delta < margin, lower scores better"
        raise OptionError(f"margin={margin!r} for non-inferiority: the margin is the loss allowed, a number above 0 "
                          f"({side}); write margin={-margin!r}")
    if not is_finite_number(margin) or margin <= 0:
        raise OptionError("margin must be a finite number above 0 (the band is -margin to +margin), got "
                          f"{shown(margin)}")
    return float(margin)


@dataclass(frozen=True)
class EquivalenceOptions:
    margin: float
    alternative: EquivalenceAlternative = "equivalence"
    alpha: float = 0.05
    higher_is_better: bool = True
    control: Label | None = None  # as given; the data's label once read (errors.label_named)
    across: EquivalenceAcross = "welch"
    aggregate: EquivalenceAggregate | None = "iqm"
    n_resamples: int = 2_000
    na_action: NaAction = "raise"
    progress: bool = True

    @classmethod
    def checked(cls, **options: Any) -> EquivalenceOptions:
        """Validate every option once (``control`` needs the agents: :meth:`for_agents`); raises OptionError."""
        control = options.get("control")
        control = None if control is None else label_value("control", control)  # read against the agents later
        aggregate = options.get("aggregate", "iqm")
        if aggregate is not None:
            aggregate = check_choice("aggregate", aggregate, AGGREGATES)
        alpha = check_fraction("alpha", options.get("alpha", 0.05))
        if alpha >= 0.5:
            raise OptionError(f"alpha={alpha} leaves no (1 - 2 alpha) interval; TOST uses alpha below 0.5, "
                              "usually 0.05 (a 90% interval)")
        alternative = check_choice("alternative", options.get("alternative", "equivalence"), ALTERNATIVES)
        higher_is_better = check_bool("higher_is_better", options.get("higher_is_better", True))
        return cls(margin=_check_margin(options.get("margin"), alternative, higher_is_better),
                   alternative=alternative, alpha=alpha, higher_is_better=higher_is_better,
                   control=control, aggregate=aggregate,
                   across=check_choice("across", options.get("across", "welch"), ACROSS),
                   n_resamples=check_resamples(options.get("n_resamples", 2_000), minimum=100),
                   na_action=check_choice("na_action", options.get("na_action", "raise"), NA_ACTIONS),
                   progress=check_cost_options(options.get("progress", True), options.get("max_seconds"))[0])

    def for_agents(self, agents: Sequence[str]) -> tuple[tuple[str, str], ...]:
        """The pairs compared, (agent_1, agent_2) each: every pair in order, or each agent against ``control``."""
        if self.control is None:
            return tuple((a, b) for i, a in enumerate(agents) for b in agents[i + 1:])
        control = agent_named(agents, "control", self.control)  # with the column's name first: check_agent_named
        return tuple((a, control) for a in agents if a != control)

    def record(self) -> dict[str, Any]:
        """The options as stored in the result."""
        return dataclasses.asdict(self)


@public_function
def equivalence(data: Data, formula: FormulaLike | None = None, *, margin: float | None = None,
                alternative: EquivalenceAlternative = "equivalence", alpha: float = 0.05,
                higher_is_better: bool = True, control: Label | None = None, published: pd.DataFrame | None = None,
                across: EquivalenceAcross = "welch", aggregate: EquivalenceAggregate | None = "iqm",
                n_resamples: int = 2_000,
                normalize: Normalizer = None, na_action: NaAction = "raise", rng: Seed = None,
                progress: bool = True, max_seconds: float | None = None,
                eval_env: EvalEnv = None) -> EquivalenceResult:
    """Equivalence (TOST) or non-inferiority of agents within a margin: per task, across tasks and on an aggregate.

    A non-significant difference is not evidence of sameness; these tests put the burden the other way. For each
    pair (agent_1, agent_2) and each scope the difference agent_1 - agent_2 is tested against H0: ``|delta| >= margin``
    by two one-sided tests at level ``alpha`` each (Schuirmann 1987), which is the same as asking whether the
    (1 - 2 alpha) interval lies inside (-margin, margin): the answer is "equivalent within +-margin" or "not shown
    equivalent", never "equal". With ``alternative="noninferior"`` only the side of "worse" is tested.

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` (``| task/seed`` names the replicate column).
    margin : float
        The equivalence margin, > 0, in the response's units, or on the normalised scale with ``normalize=``
        (the result says which). Required: fix it before seeing the data. One number: the band is symmetric (for
        bounds of different sizes, test each side with ``alternative="noninferior"``). A margin at least the range of
        every score analysed (with ``published=``, and its means) is a note: every difference of means lies inside
        it by construction; a warning too from 10 times that range, the size of a units slip (a percentage of scores
        that are fractions).
    alternative : {"equivalence", "noninferior"}
        ``"equivalence"``: -margin < delta < margin (TOST). ``"noninferior"``: agent_1 is not worse than agent_2 by
        margin or more, delta > -margin (delta < margin with ``higher_is_better=False``), one one-sided test; it
        needs ``control=`` (the reference, agent_2 of every pair) or ``published=``: the agents' order is no
        reference (an OptionError).
    alpha : float
        Level of each one-sided test; the deciding interval is the (1 - 2 alpha) one (90% at 0.05).
    higher_is_better : bool
        Which side is "worse" for ``alternative="noninferior"``.
    control : str, int or float, optional
        Named as the data write it (an agent coded 9: 9 or "9"). Compare each other agent with this one
        (agent - control); default every pair, in the agents' order (TOST, which is symmetric, only).
    published : DataFrame, optional
        A published table of per-task numbers: the formula's task column plus ``mean``, ``sd`` (standard
        deviation over runs) and ``n`` (runs). Each agent of the data is then compared with it (pairs (agent,
        "published")): per task by Welch's t from the summaries, across tasks by the mean of the task differences
        (``across=``); a published table has no runs to bootstrap, so there is no aggregate row. Every
        task of the data must be in it, each row's task named as an option names one (1, 1.0 and "1" name the
        task printed 1).
    across : {"welch", "paired_t"}
        The across-tasks test of the mean over tasks of the task-level differences of means. ``"welch"``: the
        tasks at hand, its standard error from the runs within each task, sqrt(sum_t (s_1t^2 / n_1t + s_2t^2 /
        n_2t)) / T, on Welch-Satterthwaite df (every cell needs 2 runs; withheld otherwise, with a note), each s^2
        of runs that mostly sit at a score cap bounded from below (Notes): a claim about these tasks only, printed
        "across these 8 tasks"; where ``"paired_t"`` gives another verdict, a note quotes it (audit s32).
        ``"paired_t"``: tasks as a sample from a population of tasks, the one-sample t of the T differences on T - 1
        df (one run per cell is enough); it assumes the differences alike in spread, which tasks on different scales
        are not. Where a cell's runs mostly sit at a score cap, where the plain test missed alpha (up to 0.11 at 5
        tasks: the ``saturated`` rows of ``interval="paired_t"``), its variance is bounded from below by the
        within-task variance of the mean difference, as ``"welch"`` bounds it (Notes; ``interval="paired_t_bounded"``
        rows, within alpha's 3 Monte Carlo standard errors).
    aggregate : {"iqm", "mean"} or None
        The aggregate whose difference is tested, from :func:`rlstats.bootstrap` (its default studentised
        resamples, at confidence level 1 - 2 alpha): bootstrap-t interval of the difference, each agent resampled
        on its own stream; the mean's takes on each side the wider of that bound and the Welch t bound (the
        aggregate's standard error on the difference's Welch-Satterthwaite df), as the bootstrap's own interval of
        the mean does, and each one-sided p-value the larger of the two (audit s20: the bootstrap-t alone
        declared non-inferiority at the margin in 0.0575 of 9,600 data sets of 5 tasks x 10 skewed runs).
        Each pair's reads the tasks both its agents ran, as its per-task and across-tasks tests do (``n_tasks`` in
        tidy(); the pair's line says "over the 3 tasks both ran" where fewer than the data's), its bootstrap drawn on
        those tasks only, each agent from its own stream keyed by its label, so that its numbers are those of a run on
        the pair's rows alone. Given where the pair shares 2 or more tasks with at least 3 runs of each agent on each
        (the bootstrap's own rule); otherwise withheld with a note naming the pair. It is also withheld where the
        bootstrap
        withholds either agent's interval (resamples with standard error 0, or runs mostly at a score cap: Notes),
        or where its interval reaches beyond
        the range the difference takes in any resample (each agent's IQM or mean lies within its scores): an end
        there comes from near-zero standard errors, not from the data, and is withheld rather than clipped, since a
        clipped end would be a bound of the range, not a confidence bound, and the p-values read the same t*.
        None leaves it out.
    n_resamples : int
        Bootstrap resamples of the aggregate (at least 100).
    normalize : DataFrame, str, dict or False, optional
        Normalise the response per task first (:func:`rlstats.normalize`); the margin is then in normalised units.
        Not with ``published=`` (normalise the data and the table yourself, with the same reference). False (the
        scores are on one scale already) leaves them as they are: the margin is in the response's units. None
        (default) leaves them too, with a warning and a note where the tasks' ranges (largest minus smallest score)
        differ tenfold (the across-tasks test and the aggregate average over tasks, so the wide tasks decide them).
    na_action : {"raise", "drop", "omit"}
        Missing values: an error, or drop those rows and say so. Each pair's tests, per task, across tasks and in
        aggregate, read the tasks both its agents ran, whatever the option (a note names the pairs that did not share
        every task).
    rng : None, int or numpy.random.Generator
        Seed of the aggregate's bootstrap (checked and recorded even without one).
    progress : bool
        A progress bar over the estimated seconds (tqdm: on a terminal, or a notebook's widget) when the work is
        estimated to take more than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    eval_env : patsy.EvalEnvironment, optional
        Where names in the response expression are looked up; by default the caller's frame.

    Returns
    -------
    EquivalenceResult
        ``tidy()`` has one row per pair and scope (each task, "across tasks", "aggregate"), with the estimate, its
        (1 - 2 alpha) interval, both one-sided p-values and the conclusion in words.

    Raises
    ------
    FormulaError, DesignError, OptionError

    Notes
    -----
    Per task, Welch's t needs 2 runs of each agent (withheld otherwise, with a note); across tasks and in aggregate, 2
    shared tasks. The notes that quote a measured size count the pair's own tasks and fewest runs. The across-tasks and
    aggregate tests of pairs that shared 2, 4 or 8 of a design's tasks (3 agents on 5 tasks, 4 on 8; 3-10 runs; audit
    s32, the rows of ``configuration`` "..., A vs B: 2 of 5 tasks shared") held alpha at the margin: non-inferiority
    declared in at most 0.067 of 1,000 tests across tasks and 0.07 of 100 in aggregate, TOST in 0.054 and 0.08
    (pooled 0.024 and 0.0195).
    Each per-task decision is at level alpha; "equivalent on every task" is an intersection-union test and holds
    level alpha without adjustment (Berger 1982), while "equivalent on some task" would need one. The size at the
    margin (the rate of declaring equivalence when the true difference is exactly +-margin) was measured on the
    calibration grid (``equivalence.size`` rows of ``calibration.csv``); where a design misses alpha by more than 3
    Monte Carlo standard errors, pooled or in its worst draw of the tasks' offsets and scales, a note quotes it and
    says which. Those rows give both agents one spread. With as many runs but spreads unlike, the two means'
    skewness no longer cancels in their difference: at a spread ratio of 2 to 8 Welch's t declared its alternative
    at the margin in up to 0.18 of simulated tests per task on skewed scores (the agent claimed non-inferior the
    narrower) and 0.22 on capped ones (it the wider), up to 0.14 across tasks; heavy-tailed at most 0.063. Welch's
    t on min(n) - 1 df, Hall's skewness-corrected t and the bootstrap-t, each floored at Welch's t, still missed
    (0.10-0.20), and so did a test declaring only where all three declare (audit s29: up to 0.11 per task, 0.088
    across 5 tasks). A few runs cannot tell the true spreads (on skewed scores the false declarations came mostly where
    the wider agent's runs missed its tail, their SDs alike), so wherever a test declares its alternative with the
    pair's runs alike in number (the larger under 4 times the smaller for equivalence, 2 for non-inferiority), whatever
    their SDs, a note says, as a condition, what Welch's t declared if the spreads differ: the table's worst rows of
    the design's runs on skewed and capped scores (``configuration`` "..., spread r"; audit s23,
    ``tests/reference/size_equivalence_spread.py``), the data's runs and the rows' (measured at 3, 5 or 10 of each
    agent) said apart; where the aggregate's test declared, its own measurement there (the IQM's held alpha, at most
    0.056 of 500 tests at 5 tasks and a spread ratio of 4; the mean's, ``aggregate="mean"``, up to 0.084). Many runs
    can rule those spreads out: a task whose runs give Bonett's (2006) 99% interval of the SD ratio within 1/1.7 to
    1.7 is named as ruled out instead (the across-tasks and aggregate quotes only where every task is so); at a true
    ratio of 1.7 that happened in at most 0.0001 of 20,000 simulated data sets at 3-10 runs of each agent and 0.012
    at 100 (skewed, capped, heavy-tailed scores; audit s34, ``tests/reference/spread_ratio_interval.py``). At the
    rows' own spreads it ruled them out in at most 0.0067 of 20,000 (capped scores, factor 1/2, an SD ratio of 1/1.73;
    30 runs, above 0.005, one side of the interval, by more than 3 Monte Carlo SE), none at 3-5 runs: the
    ``equivalence.spread_ruled_out`` rows, which the note quotes (audit s36, ``tests/reference/spread_ruled_out.py``).

    Where half or more of an agent's runs on a task (2 or more) sit at the largest or smallest score of the pair's runs
    there, as at a score cap often reached (only the pair's runs are read, so other agents change nothing), Welch's t
    missed alpha: with 70-85% of a baseline agent's runs at the cap it declared non-inferiority in up to 0.12 and
    equivalence in up to 0.09 of simulated tests at alpha = 0.05, and the across-tasks test in up to 0.075 where every
    task was so. There the per-task test is withheld (NaN, with a note naming the cases): a floor on the runs' variance
    (the Bernoulli bound of a score at the cap or off it, the share off it at its Wilson 95% upper bound, by the
    observed range or the mean distance off the cap), Welch's t on min(n) - 1 df and the Bhatia-Davis bound each still
    missed alpha at 5 runs (0.06-0.11), and the floor that came nearest declared alike agents non-inferior in 0.06-0.13
    of data sets (Welch's t: 0.09-0.49). The across-tasks test (``across="welch"``) bounds such a cell's run variance
    from below by p (1 - p) d^2, p the Wilson 95% upper bound of the share of its runs off the bound (at most 1/2), d
    the mean distance off the bound of the pair's runs: it held alpha on the grid's ``saturated`` scores (85% of a
    baseline's runs at the cap, 3-20 runs, 5 and 26 tasks) and at 70% and 90%. Where both agents' runs of a task all sit
    at one bound, nothing bounds their spread and the across-tasks test is withheld with a note. Runs with no such ties
    give the former numbers bit for bit. With ``published=`` the rule reads each agent's own runs (the table has none).
    ``across="paired_t"`` read the spread of the tasks' differences alone and declared non-inferiority or equivalence
    at the margin in up to 0.11 of simulated tests on such scores (the grid's ``saturated`` rows of
    ``interval="paired_t"``, kept as measured); since audit s11 its variance sd(d)^2 / T is at least the within-task
    variance of the mean difference, sum_t (s_1t^2 / n_1t + s_2t^2 / n_2t) / T^2 with each saturated cell's s^2 bounded
    as above, and the two are added where both agents' runs of a task all sit at the bound (the larger alone reached
    0.098 at 5 tasks x 3 runs there), on T - 1 df: 0.002-0.063 on the grid (``interval="paired_t_bounded"`` rows, worst
    draw 0.076); its power to declare alike agents non-inferior at 5 tasks fell from 0.39-0.78 to 0.15-0.66. The
    aggregate's bootstrap-t declared non-inferiority at the margin in up to 0.080 of tests on such scores at 5 tasks
    (800-1,600 data sets a measurement; audit s10 quoted 0.051-0.067). Since audit s11 it is withheld, with a note,
    where the bootstrap withholds an agent's studentised interval for runs at a cap
    (:func:`rlstats.bounds.saturated_withheld`: three quarters or more of its runs at a task's largest or smallest
    score, fewer than 8 (IQM) or 6 (mean) off it), read from the pair's runs; where still given there, the IQM's test
    declared non-inferiority in at most 0.051 (5 tasks, 800-1,600 a design; 26 tasks: at most 0.050 of 200), equivalence
    in at most 0.040. Its power to declare alike agents non-inferior at 5 tasks fell from 0.15-0.72 to 0-0.69 (0 at 3-5
    runs, where the bootstrap withholds nearly every interval). A count of 6 rather than 8 gave more (0.30 against 0.085
    at 10 runs) but declared in 0.055 and 0.056 of 800 and 1,600 tests at 10 runs, above alpha in both measurements, and
    was not taken. The mean's test (``aggregate="mean"``) was not measured on such scores, as its note says.

    See Also
    --------
    rlstats.bootstrap : The aggregates and their stratified bootstrap, whose resamples the aggregate test reads.
    rlstats.task_table : Per-task means with Welch's tests of each agent against the task's best.
    rlstats.compare : Tests of a difference (the blocked rank test), not of sameness.

    References
    ----------
    Schuirmann, D. J. (1987), A comparison of the two one-sided tests procedure and the power approach for assessing
    the equivalence of average bioavailability, J. Pharmacokinet. Biopharm. 15(6), 657-680.
    Berger, R. L. (1982), Multiparameter hypothesis testing and acceptance sampling, Technometrics 24(4), 295-300.
    Lakens, D. (2017), Equivalence tests: a practical primer for t tests, correlations, and meta-analyses, Soc.
    Psychol. Personal. Sci. 8(4), 355-362.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=2, tasks=6, seeds=10, effect=0.0, rng=0)
    >>> res = rlstats.equivalence(df, "score ~ agent | task", margin=1.0, n_resamples=500, rng=0)
    >>> res.tidy()["scope"].unique().tolist()
    ['task', 'across tasks', 'aggregate']
    """
    options = EquivalenceOptions.checked(margin=margin, alternative=alternative, alpha=alpha,
                                         higher_is_better=higher_is_better, control=control, across=across,
                                         aggregate=aggregate,
                                         n_resamples=n_resamples, na_action=na_action, progress=progress,
                                         max_seconds=max_seconds)
    check_rng(rng)
    if published is not None and normalize is not None and normalize is not False:
        raise OptionError("normalize= with published= would normalise the runs but not the published table; "
                          "normalise both yourself with the same reference (rlstats.normalize(df, ...), and the "
                          "table's mean and sd), then pass margin= in normalised units")
    design = design_of(data, formula, na_action=options.na_action, eval_env=eval_env, normalize=normalize,
                       min_agents=1 if published is not None else 2)
    if not design.has_blocks:
        raise DesignError(f"equivalence compares agents task by task: write '{design.formula.text} | task'")
    if published is None and options.control is not None:  # the design's label: 9 and "9" name the agent 9
        options = dataclasses.replace(options, control=check_agent_named(design, "control", options.control))
    if published is None and options.control is None and options.alternative == "noninferior":
        raise _noninferior_without_control(design)
    # the pairs' tests alone first, a bound below the whole call's, before the passes list every pair (audit s37
    # bounds37: 1,500 agents' 1.1 million pairs were listed for minutes, 10,000 agents' ended in MemoryError)
    admit(cost, design, dataclasses.replace(options, aggregate=None), max_seconds, "equivalence()")
    # each bootstrap the aggregate makes: one per distinct set of tasks a pair shares (audit s31 equivplot31); none
    # against a published table, which has no runs (audit s40: its 100,000 runs priced a bootstrap never made)
    passes = ([] if published is not None else None if options.aggregate is None
              else _passes(design, options.for_agents(design.agents)))
    work = admit(functools.partial(cost, passes=passes), design, options, max_seconds, "equivalence()")  # issue 43
    scale = _scale(design)
    # each cell's runs in one order whatever the rows' (audit s16: a shuffle moved a mean by an ulp: 108.6 or 108.61)
    design = design.runs_by_score()
    table = None if published is None else _published_table(published, design)
    # a published table's means are differences' other ends: they count in the range the margin must stay inside
    design = band_beyond_scores(design, "margin", options.margin, () if table is None else table[0])
    if table is not None:
        design = _published_units(design, table[0])
        design = warn_raw_scales(design, normalize)
        return _run_published(design, options, table, scale)
    with timed_bar(work, shows(work, options.progress), "equivalence"):
        return _cautioned(_run(design, options, rng, scale), design, normalize)


def _noninferior_without_control(design):
    """The OptionError of ``alternative="noninferior"`` without ``control=`` (audit s35 small35): non-inferiority is
    of an agent against a named reference, and the pairs' order by default, the agents' sort order, made the question
    depend on their names (A - B, "is A not worse than B", became B - A once A was renamed Z)."""
    agents = list(design.agents)
    agent = design.arm_word
    said = f"the {plural(agent)} are: {listed([shown(a) for a in agents], 12)}"
    if len(agents) == 2:
        first, second = agents
        way = (f"pass control={shown(second)} to test that {first} is not worse than {second} by margin or more, or "
               f"control={shown(first)} the other way round")
    else:
        way = (f"pass control= naming the reference, e.g. control={shown(agents[0])}, to test each other {agent} "
               "against it")
    return OptionError(f"alternative='noninferior' needs control=, the {agent} the others must not be worse than "
                       f"(delta = {agent} - control): without it the pairs would follow the {plural(agent)}' "
                       f"order, and renaming one would change the question; {said}; {way}")


def _cautioned(result, design, normalize):
    """``result`` with the raw-scales caution (a warning and a note, after the design's notes) where a test averaged
    the tasks: the across-tasks test averages their differences, so raw scales let the large tasks decide it, with
    or without the aggregate (audit s13: the caution came only from the aggregate's bootstrap, and normalize=False,
    which it offers, did not silence it). Where every such test is withheld (a chain, groups apart, one run per
    cell), nothing was averaged and nothing is said (audit s19: "scores of 2 tasks were aggregated" of none)."""
    table = result.comparisons
    averaged = table["scope"].isin(("across tasks", "aggregate")) & np.isfinite(table["p_value"].to_numpy(float))
    if not averaged.any():
        return result
    caution = warn_raw_scales(design, normalize).notes[len(design.notes):]
    k = len(design.notes)
    return dataclasses.replace(result, notes=(*result.notes[:k], *caution, *result.notes[k:])) if caution else result


def _scale(design):
    """What the margin's units are, in words, as every result says them (:attr:`rlstats.design.Design.units`)."""
    return design.units


# ----------------------------------------------------------------------------- per-cell summaries


def _cell_ranges(design):
    """(low, high), each (tasks, agents): each cell's smallest and largest finite score (inf, -inf: none)."""
    size = design.n_tasks * design.n_agents
    low, high = block_ranges(design.y, design.task * design.n_agents + design.agent, size)
    return low.reshape(design.n_tasks, design.n_agents), high.reshape(design.n_tasks, design.n_agents)


def _pair_scale(low_a, high_a, low_b, high_b):
    """(spread, magnitude), each (tasks,): of the two sides' scores on each task (a published side: its mean),
    statistics.spread_and_magnitude of their common range; a missing side (NaN, inf) adds nothing."""
    return spread_and_magnitude(np.fmin(low_a, low_b), np.fmax(high_a, high_b))


def _cells(design):
    """(means, sds, runs), each (tasks, agents); NaN where a cell is empty (sd: where it has fewer than 2 runs); a
    cell whose runs all tie has their value as mean and sd 0, as Welch's tests and the flat-task note read it."""
    y = design.y
    cell = design.task * design.n_agents + design.agent
    size = design.n_tasks * design.n_agents
    n = np.bincount(cell, minlength=size).astype(np.float64)
    low = block_ranges(y, cell, size)[0]
    # runs that all tie: a sum / n can miss their value in the last bit (audit s9); tie by the package's rule
    # (statistics.near_ties within the task), not exactly, so that 0.3 and 0.1 + 0.2 tie whatever the origin (s22)
    snapped_low, snapped_high = block_ranges(near_ties(y, design.task)[0], cell, size)
    flat = snapped_low == snapped_high
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(flat, low, np.bincount(cell, y, minlength=size) / n)
        # deviations from each cell's own mean keep the variance exact for shifted scores
        deviation = y - mean[cell]
        variance = np.bincount(cell, deviation ** 2, minlength=size) / (n - 1)
    variance = np.where(n >= 2, np.where(flat, 0.0, variance), np.nan)
    shape = (design.n_tasks, design.n_agents)
    return mean.reshape(shape), np.sqrt(variance).reshape(shape), n.reshape(shape)


def _published_table(table, design):
    """(means, sds, runs), each (tasks,), of the published table in the design's task order; errors name what is
    missing or wrong, and a note lists published tasks the data do not have."""
    from ...interop import as_pandas

    task = design.formula.blocks
    if not isinstance(table, pd.DataFrame):
        published = table
        try:
            table = as_pandas(table)
        except Exception:
            table = None
        if not isinstance(table, pd.DataFrame):
            # text is no table: read a file first (the command line's -o published=FILE reads it; audit s36)
            got = (f"got the text {published!r}; read a file with pandas.read_csv(...) first (on the command line "
                   "-o published= takes a CSV, TSV or Parquet file, e.g. -o published=paper.csv)"
                   if isinstance(published, str) else f"got {type(published).__name__}")
            raise OptionError(f"published= must be a table with columns {task!r}, 'mean', 'sd' and 'n' (one row per "
                              f"task), {got}")
    missing = [c for c in (task, *PUBLISHED_COLUMNS) if c not in table.columns]
    if missing:
        raise OptionError(f"published= lacks {plural('column', len(missing))} {', '.join(map(repr, missing))}: it "
                          f"needs {task!r} (the "
                          "formula's task column), 'mean', 'sd' (standard deviation over runs) and 'n' (runs) per "
                          "task; rename its columns, e.g. table.rename(columns={'std': 'sd'})")
    # each row's task read as an option naming a task is (errors.label_named, the one rule: 1, 1.0 and "1" name the
    # task printed 1; audit s35 meta35: matched by str(), a float task column's 1.0 was no published 1)
    named = [label_named(design.tasks, "published", value, what="task", listed=True) for value in table[task].tolist()]
    labels = pd.Series([str(value) if label is None else label for value, label in zip(table[task].tolist(), named)])
    repeated = sorted(set(labels[labels.duplicated()]))
    if repeated:
        raise OptionError(f"published= lists {plural('task', len(repeated))} {', '.join(map(repr, repeated[:5]))} "
                          "more than once; give one "
                          "row per task")
    absent = [t for t in design.tasks if t not in set(labels)]
    if absent:
        raise DesignError(f"the published table has no row for {count(len(absent), 'task')} of the data: "
                          f"{', '.join(map(repr, absent[:5]))}{' ...' if len(absent) > 5 else ''}; add them, or "
                          "keep to the published tasks with rlstats.compare's subset=")
    rows = table.reset_index(drop=True).set_axis(labels.to_numpy(), axis=0).loc[list(design.tasks)]
    values = {}
    for column in PUBLISHED_COLUMNS:
        try:
            values[column] = rows[column].to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise OptionError(f"published= column {column!r} must hold numbers") from None
    bad = ~np.isfinite(values["mean"]) | ~(values["sd"] >= 0) | ~np.isfinite(values["sd"]) \
        | ~(values["n"] >= 2) | (values["n"] != np.round(values["n"]))
    if bad.any():
        which = [t for t, b in zip(design.tasks, bad) if b]
        raise OptionError(f"published= {plural('row', len(which))} for {', '.join(map(repr, which[:5]))} "
                          f"{verb(len(which), 'needs')} a finite mean, an sd >= 0 "
                          "and a whole number of runs n >= 2 (with one run an sd is undefined)")
    extra = sorted(set(labels) - set(design.tasks))
    note = ([f"{count(len(extra), 'task')} of the published table not in the data left out: "
             f"{', '.join(extra[:5])}{' ...' if len(extra) > 5 else ''}"] if extra else [])
    return values["mean"], values["sd"], values["n"], note


def _published_units(design, means):
    """``design`` with a warning and a note where published means lie outside the range of the task's runs at
    :data:`rlstats.options.UNITS_SLIP` times the size of its largest score or more, or, on the runs' side of 0, at
    that part of its smallest or less (audit s36 fixeq36: a paper's table x100 against raw runs printed "shown below
    -50 ... mean difference over tasks -18040" unremarked), naming those tasks and each one's ratio: the size of a
    units slip, as the margin's check (:func:`rlstats.options.band_beyond_scores`) reads it. A mean inside the runs'
    range is never said, nor one of 0 or of the other sign than runs that are all positive or all negative (a table
    of a weaker agent, not of other units)."""
    import dataclasses

    from ...errors import warn

    low, high = block_ranges(design.y, design.task, design.n_tasks)
    largest, smallest = np.maximum(np.abs(low), np.abs(high)), np.minimum(np.abs(low), np.abs(high))
    with np.errstate(divide="ignore", invalid="ignore"):
        over, under = np.abs(means) / largest, np.abs(means) / smallest
    outside = np.isfinite(means) & np.isfinite(largest) & ((means < low) | (means > high))
    larger = outside & (largest > 0) & (over >= UNITS_SLIP)
    smaller = outside & (means * low > 0) & (under <= 1 / UNITS_SLIP)  # between 0 and the runs, on their side
    if not (larger | smaller).any():
        return design

    def said(mask, ratio, end):
        which = np.flatnonzero(mask)
        if not which.size:
            return []
        def times(r):
            return f"{signif(r, 2)}" if r >= 1 else f"1/{signif(1 / r, 2)}"

        span = sorted(ratio[which])
        spread = times(span[0]) if len(span) == 1 else f"{times(span[0])} to {times(span[-1])}"
        each = listed([f"{design.tasks[t]} {times(ratio[t])}" for t in which], 8)
        return [f"at {spread} times the size of the runs' {end} score there ({each})"]
    k = int((larger | smaller).sum())
    note = (f"published= means lie outside the range of the runs on {k} of {count(design.n_tasks, design.block_word)}"
            f", {'; '.join(said(larger, over, 'largest') + said(smaller, under, 'smallest'))}: the table looks to be "
            f"in other units than the runs ({design.units}: a percentage of scores that are fractions, a table of "
            "another scale); if so, rerun with its means and sds in these")
    warn(note)
    return dataclasses.replace(design, notes=(*design.notes, note))


# ----------------------------------------------------------------------------- the tests


def _rows(scope, a, b, task, method, estimate, se, df, test, margin, n_tasks=1):
    """Table rows of one scope of one pair, from arrays; ``n_tasks``: the tasks each test read (the pair's shared
    tasks across tasks and in aggregate, 1 per task)."""
    estimate, se, df = (np.atleast_1d(np.asarray(v, dtype=np.float64)) for v in (estimate, se, df))
    tasks = task if isinstance(task, (list, tuple)) else [task] * estimate.size
    out = []
    for i in range(estimate.size):
        # a test is given where it has a p-value (a bootstrap-t with too few resamples for alpha has an infinite
        # interval and is not shown, by its own rule)
        given = np.isfinite(np.atleast_1d(test["p_value"])[i])
        pick = (lambda v: float(np.atleast_1d(v)[i]))
        # the p-value of the one-sided test past the bound the interval lies wholly past (NaN past neither): the
        # one that supports a verdict beyond the margin, printed beside it in place of the TOST p (audit s19)
        beyond = (pick(test["p_below"]) if pick(test["conf_high"]) < -margin else
                  pick(test["p_above"]) if pick(test["conf_low"]) > margin else np.nan)
        errors = test.get("mc_se")  # the aggregate's: each p-value's Monte Carlo SE (0 where Welch's t gave it)
        mc = {}
        if errors is not None:
            # the one-sided test whose p-value is the test's (equivalence: the larger; non-inferiority: its side)
            side = next((key for key in ("p_lower", "p_upper") if pick(test[key]) == pick(test["p_value"])),
                        "p_lower")
            away = ("p_below" if pick(test["conf_high"]) < -margin else "p_above" if pick(test["conf_low"]) > margin
                    else None)
            mc = {"p_mc_se": pick(errors[side]), "p_beyond_mc_se": pick(errors[away]) if away else np.nan}
        out.append({"scope": scope, "agent_1": a, "agent_2": b, "task": tasks[i], "n_tasks": int(n_tasks),
                    "method": method,
                    "estimate": float(estimate[i]), "std_error": float(se[i]), "df": float(df[i]),
                    "statistic": pick(test["statistic"]), "p_value": pick(test["p_value"]),
                    "p_lower": pick(test["p_lower"]), "p_upper": pick(test["p_upper"]), "p_beyond": beyond,
                    "conf_low": pick(test["conf_low"]), "conf_high": pick(test["conf_high"]), "margin": margin,
                    "shown": bool(np.atleast_1d(test["shown"])[i]) if given else None, **mc})
    return out


def _test(options, estimate, se, df):
    return kernels.tost(estimate, se, df, options.margin, options.alpha, options.alternative,
                        options.higher_is_better)


def _pair_tests(options, task_names, mean_a, sd_a, n_a, mean_b, sd_b, n_b, saturation, scale):
    """(tests, changed, paired): the per-task Welch tests and the across-tasks test of one pair, on the tasks both
    ran, as :data:`Tested` before their t tests (``tests``; :func:`_tested` tests every pair's in one call, audit s39
    eq39), and with across='welch' the paired t over tasks too (``paired``, for :func:`_as_a_sample`; else None).

    ``scale`` (spread, magnitude), each (tasks,): the range and largest ``|score|`` of the pair's own scores on each
    task (:func:`_pair_scale`), whose :func:`rlstats.statistics.difference_tolerance` is the rounding of a difference
    of the two means: a task's difference within it of 0 is 0 (``noise_free``), the mean over tasks within the mean
    of the tasks' (its rounding), and the paired t over tasks has no spread where every task's difference lies within
    its tolerance of one value (audit s36 meta36: means that tie exactly, untied by the rounding of a change of units,
    0, 0, 2.8e-14, ... at x 7.3, read as a spread and declared equivalent at p < 2.2e-16 where the data withheld the
    test; review s36 rv36a: read of every agent's scores and of the largest task's, a third agent's run at 1e9 zeroed
    A - B's difference of 1e-4 and withheld the paired t).

    ``saturation`` (tied_a, floor_a, tied_b, floor_b), each (tasks,) (``_saturation``; a published table has no
    runs to read, so its side is never tied): the per-task tests are withheld on the tasks
    where either agent's runs mostly sit at a bound, and across='welch' bounds those cells' variance from below;
    ``changed`` names those tasks ("withheld"), and says whether the across-tasks test was bounded ("floored") or
    withheld because both sides' runs all tie there ("still"). Elsewhere the numbers are the plain Welch tests' bit
    for bit."""
    shared = (n_a > 0) & (n_b > 0)
    names = [t for t, s in zip(task_names, shared) if s]
    tied_a, floor_a, tied_b, floor_b = saturation
    tied = (tied_a | tied_b)[shared]
    estimate, se, df = kernels.welch(mean_a[shared], sd_a[shared], n_a[shared], mean_b[shared], sd_b[shared],
                                     n_b[shared])
    spread, magnitude = scale[0][shared], scale[1][shared]
    estimate = noise_free(estimate, spread, magnitude)  # rounding of tied means, shown as 0
    given = np.isfinite(se)
    changed = {"withheld": [t for t, w, g in zip(names, tied, given) if w and g], "floored": False, "still": []}
    se, df = np.where(tied, np.nan, se), np.where(tied, np.nan, df)
    tests = [Tested("task", names, "Welch t", estimate, se, df, 1)]
    always = []
    if tied.any():  # a cap often reached: each such cell's variance at least its floor (bounds.variance_floor)
        sd_a = np.where(tied_a, np.sqrt(np.maximum(sd_a ** 2, floor_a)), sd_a)
        sd_b = np.where(tied_b, np.sqrt(np.maximum(sd_b ** 2, floor_b)), sd_b)
        # both agents' runs all at one bound: no run off it to bound their spread by
        always = [w and x == 0 and y == 0 for w, x, y in zip(tied, sd_a[shared], sd_b[shared])]
    cells = shared, tied, always, spread, magnitude, (mean_a, sd_a, n_a, mean_b, sd_b, n_b)
    across, floored = _across_test(options.across, estimate, cells, names, changed)
    # a bound on a test that is withheld bounds nothing: no note of it (audit s19)
    changed["floored"] = floored and bool(np.isfinite(across.se).all())
    tests.append(across)
    paired = _across_test("paired_t", estimate, cells, names, {})[0] if options.across == "welch" else None
    return tests, changed, paired


#: one scope's tests of a pair before their t tests: (scope, tasks (a list, or None), method, estimate, se, df,
#: n_tasks), estimate, se and df arrays or numbers (:func:`_pair_tests`, :func:`_tested`)
Tested = collections.namedtuple("Tested", "scope tasks method estimate se df n_tasks")


def _across_test(across, estimate, cells, names, changed):
    """(the across-tasks test as :data:`Tested`, whether its variance was bounded) of one pair by ``across``, from
    the per-task differences ``estimate`` and ``cells`` (:func:`_pair_tests`); ``changed``: the tied tasks that
    withhold it are said there ("still")."""
    shared, tied, always, spread, magnitude, (mean_a, sd_a, n_a, mean_b, sd_b, n_b) = cells
    floored = False
    if across == "paired_t":
        difference = estimate[None, :]  # the differences of means, their rounding around 0 shown as 0
        estimate, se, df = kernels.paired(difference)
        method = "paired t over tasks"
        if tied.any():  # audit s11: the spread of the tasks' differences alone missed alpha there (up to 0.11)
            # a cell of one run has no spread to read: it adds nothing to the bound (the bound stays a lower one)
            within = np.nan_to_num(sd_a[shared] ** 2 / n_a[shared]) + np.nan_to_num(sd_b[shared] ** 2 / n_b[shared])
            estimate, se, df = kernels.paired_bounded(difference, within, any(always))
            method += " (capped runs' variance bounded)"
            floored = True
        tolerance = difference_tolerance(spread, magnitude)
        if difference.size > 1 and np.max(difference - tolerance) <= np.min(difference + tolerance):
            se = np.full_like(se, np.nan)  # all one value but for rounding, as kernels.paired gives equal ones
        if spread.size:  # the mean of the tasks' differences: within the mean of their tolerances (linear) of 0, 0
            estimate = noise_free(estimate, spread.mean(), magnitude.mean())
    else:
        method = "Welch-Satterthwaite over tasks"
        still = []
        if tied.any():
            method += " (capped runs' variance bounded)"
            still = changed["still"] = [t for t, w in zip(names, always) if w]
            floored = not still
        estimate, se, df = kernels.welch_mean(mean_a[shared], sd_a[shared], n_a[shared], mean_b[shared], sd_b[shared],
                                              n_b[shared])
        if spread.size:  # as the paired t's
            estimate = noise_free(estimate, spread.mean(), magnitude.mean())
        if shared.sum() < 2 or still:  # one task: the per-task test says it all
            se = df = np.nan
    return Tested("across tasks", None, method, estimate, se, df, shared.sum()), floored


def _tested(options, tests):
    """The t tests (:func:`_test`) of each of ``tests`` (:data:`Tested`), in one kernels.tost call over all of them
    (audit s39 eq39: a call a pair and scope took a third of equivalence()'s time on 40 agents); its functions act
    element by element, so each number is the one a call of its own gives."""
    sizes = [np.size(test.estimate) for test in tests]
    if not tests:
        return []
    estimate, se, df = (np.concatenate([np.atleast_1d(np.asarray(getattr(test, key), dtype=np.float64))
                                        for test in tests]) for key in ("estimate", "se", "df"))
    whole = _test(options, estimate, se, df)
    ends = np.cumsum(sizes)
    return [{key: value[end - size:end] for key, value in whole.items()} for size, end in zip(sizes, ends)]


def _tested_rows(options, a, b, tests, results):
    """The table rows of one pair's ``tests`` (:data:`Tested`) and their t tests (``results``, :func:`_tested`)."""
    return [row for test, result in zip(tests, results)
            for row in _rows(test.scope, a, b, test.tasks, test.method, test.estimate, test.se, test.df, result,
                             options.margin, test.n_tasks)]


def _pairs_rows(options, pairs, tests):
    """(rows, paired rows): every pair's table rows and, with across='welch', the row of its paired t over tasks
    (:func:`_as_a_sample`; else None), from each pair's :func:`_pair_tests` (``tests``: (tests, changed, paired) a
    pair, in ``pairs``' order), their t tests made in one call (:func:`_tested`)."""
    flat = [test for mine, _, paired in tests for test in (*mine, *([paired] if paired is not None else []))]
    results = iter(_tested(options, flat))
    rows, sample = [], []
    for (a, b), (mine, _, paired) in zip(pairs, tests):
        rows.append(_tested_rows(options, a, b, mine, [next(results) for _ in mine]))
        sample.append(None if paired is None else _tested_rows(options, a, b, [paired], [next(results)])[0])
    return rows, sample


def _as_a_sample(options, rows, paired):
    """[(row of across='welch', row of across='paired_t')] of one pair where both tests are given and their verdicts
    differ (audit s32: the default's "shown below -0.05" of these 8 Atari games read as of games in general, where the
    paired t over tasks, tasks as a sample, did not show equivalence); ``rows``: the pair's rows of ``options``,
    ``paired``: its row of the paired t over tasks (:func:`_pairs_rows`). Empty with across='paired_t' (the question
    asked)."""
    if options.across != "welch":
        return []
    welch = next(row for row in rows if row["scope"] == "across tasks")
    if welch["shown"] is None or paired["shown"] is None:
        return []
    words = [_verdict(row["shown"], row["conf_low"], row["conf_high"], options) for row in (welch, paired)]
    if words[0] == words[1]:
        return []
    if words[0].startswith("shown ") and not paired["shown"]:
        # audit s36 fixeq36: "X vs Y is not shown equivalent" beside the default's "shown above 0.1" read as a
        # contradiction; the paired t shows neither the alternative nor the verdict past the bound
        past = words[0].split(", beyond")[0]
        side = "above" if welch["conf_low"] > options.margin else "below"
        level = f"{signif(100 * (1 - 2 * options.alpha), 3)}%"
        alternative = "equivalent" if options.alternative == "equivalence" else "non-inferior"
        words[1] = (f"neither shown {alternative} nor {past} (its {level} interval reaches across the margin, where "
                    f"across='welch''s lies wholly {side} it)")
    return [(welch, paired, words[1])]


def _sample_note(options, sample, n_tasks, words=("task", "agent")):
    """The note of the pairs whose across-tasks verdict differs with the tasks taken as a sample (:func:`_as_a_sample`):
    across='welch' is an inference about the tasks at hand, its standard error from the runs within them; ``words``:
    the blocks' and arms' nouns (audit s32 block32)."""
    if not sample:
        return []
    task = words[0]
    tasks = plural(task)
    shared = {int(welch["n_tasks"]) for welch, _, _ in sample}
    these = f"these {count(n_tasks, task)}" if shared == {n_tasks} else f"the {tasks} each pair shares"
    # the verdicts alone: a note is the same in any units (its numbers are across='paired_t''s print)
    pairs = [f"{p['agent_1']} vs {p['agent_2']} is {said}" for _, p, said in sample]
    return [f"across='welch' (the default) is an inference about {these} only, its standard error from the runs "
            f"within each {task}; with the {tasks} taken as a sample of {tasks} (across='paired_t'), "
            f"{listed(pairs, 6)}"]


def _run(design, options, rng, scale):
    notes = list(design.notes)
    pairs = options.for_agents(design.agents)
    means, sds, runs = _cells(design)
    index = {name: j for j, name in enumerate(design.agents)}
    withheld = verdict("equivalence", design.counts, options=options, agents=design.agents, tasks=design.tasks,
                       words=design.words, formula=design.formula)
    notes += withheld.lines
    short, flat, still, capped, floored, tied, sample, tests = {}, [], {}, [], [], {}, [], []
    low, high = _cell_ranges(design)
    saturated, floors = _pairs_saturation(design, [(index[a], index[b]) for a, b in pairs])
    for p, (a, b) in enumerate(pairs):
        i, j = index[a], index[b]
        pair_scale = _pair_scale(low[:, i], high[:, i], low[:, j], high[:, j])
        tied[a, b], floor = saturated[p], floors[p]
        tied[a, b] &= ((runs[:, i] > 0) & (runs[:, j] > 0))[:, None]  # the tasks the pair shares
        tests.append(_pair_tests(options, design.tasks, means[:, i], sds[:, i], runs[:, i], means[:, j], sds[:, j],
                                 runs[:, j], (tied[a, b][:, 0], floor[:, 0], tied[a, b][:, 1], floor[:, 1]),
                                 pair_scale))
        changed = tests[-1][1]
        short[a, b], still[a, b] = _short_tasks(design.tasks, runs[:, i], runs[:, j]), changed["still"]
        flat += [f"{t}/{a} vs {b}" for t in _flat_tasks(design.tasks, sds[:, i], runs[:, i], sds[:, j], runs[:, j])]
        capped += [f"{t}/{a} vs {b}" for t in changed["withheld"]]
        floored += [f"{a} vs {b}"] if changed["floored"] else []
    by_pair, paired = _pairs_rows(options, pairs, tests)
    rows = [row for mine in by_pair for row in mine]
    for mine, other in zip(by_pair, paired):
        sample += _as_a_sample(options, mine, other)
    notes += _flat_note(flat) + _saturated_notes(capped, floored, options.across)
    table = pd.DataFrame(rows)
    seed = None
    if options.aggregate is not None:
        across_given = {(r["agent_1"], r["agent_2"]) for r in rows
                        if r["scope"] == "across tasks" and np.isfinite(r["p_value"])}
        aggregate, seed, more = _aggregate(design, options, pairs, rng, across_given)
        notes += more + _saturated_aggregate_note(aggregate, tied, options.aggregate)
        table = pd.concat([table, pd.DataFrame(aggregate)], ignore_index=True) if aggregate else table
    table = _ordered(table, pairs)
    words = design.words
    notes += (_partial_note(table, design.n_tasks, words)
              + _across_notes(table, options.across, short, still, words, design.formula)
              + _sample_note(options, sample, design.n_tasks, words) + _size_notes(design, options, table)
              + _unequal_runs_note(design, options, table) + _unlike_spreads_note(design, options, table, sds, runs))
    given = table[(table["scope"] == "aggregate") & table["shown"].notna()]
    fewer = {(a, b): tuple(t for t, s in zip(design.tasks, (runs[:, index[a]] > 0) & (runs[:, index[b]] > 0)) if s)
             for a, b, n in zip(given["agent_1"], given["agent_2"], given["n_tasks"]) if n < design.n_tasks}
    return _result(design, options, pairs, table, notes, seed, scale, published=False,
                   aggregate_tasks=fewer or None)


def _saturated_aggregate_note(rows, tied, aggregate):
    """The note of the mean's aggregate tests given on runs that mostly sit at a task's bound, which were not
    measured there (the IQM's given there held since audit s11 withholds it by the bootstrap's rule: no note)."""
    pairs = [f"{r['agent_1']} vs {r['agent_2']}" for r in rows if r["shown"] is not None
             and tied[r["agent_1"], r["agent_2"]].any()]
    if not pairs or aggregate == "iqm":
        return []
    return [f"the aggregate test of {listed(pairs, 8)} reads runs of which half or more sit at the pair's largest or "
            "smallest score of a task (a cap): the mean's bootstrap-t was not measured on such scores; the IQM's, "
            "withheld by the same rule where the bootstrap withholds its interval, held where given (non-inferiority "
            "declared at the margin in at most 0.051 of simulated tests at alpha = 0.05; 85% of a baseline agent's "
            "runs at the cap, 5 and 26 tasks, 3-20 runs); read a shown result there with that in mind, or the "
            "across-tasks test, which held alpha = 0.05 there (the level measured)"]


#: audit s11: why the aggregate test is withheld on runs mostly at a cap (the bootstrap's own rule for its interval)
_CAPPED_AGGREGATE = ("{who}: three quarters or more of them sit at the largest or smallest score of the pair's "
                     "runs of their task, fewer than {fewest} off it, as at a score cap, where the bootstrap "
                     "withholds its own studentised interval of the {label}; {measured}")
#: what was measured of that rule (the IQM's test; the mean's was not measured on such runs)
_CAPPED_MEASURED = {
    "iqm": ("given there, this test declared non-inferiority at the margin in up to 0.080 of simulated tests at "
            "alpha = 0.05 (5 tasks, 85% of a baseline agent's runs at the cap), and where the rule still gives it, "
            "in at most 0.051"),
    "mean": ("the mean's test was not measured on such runs; the IQM's, given there, declared non-inferiority at the "
             "margin in up to 0.080 of simulated tests at alpha = 0.05")}


def _capped_pair(design, pair, metric, at_bound=None):
    """(2,) bool: where the bootstrap's saturation rule (:func:`rlstats.bounds.saturated_withheld`) holds for each
    agent of ``pair`` (codes), its runs' bounds read from the pair's runs alone (``at_bound``: their
    :func:`rlstats.bounds.bound_ties` counts, where the caller has them)."""
    at_bound = bound_ties(design, pair)[0] if at_bound is None else at_bound
    return saturated_withheld(at_bound, design.counts[:, list(pair)], [metric])[:, 0]


def _read_instead(pairs, across_given):
    """What a note withholding the aggregate of ``pairs`` sends the reader to: the per-task tests, and the
    across-tasks tests of those pairs only where they are given (``across_given``, the pairs whose across-tasks test
    has a p-value; None: all). Audit s25: on one task, where the across-tasks test is withheld too, the note said
    "read the per-task and across-tasks tests"."""
    given = [pair for pair in pairs if across_given is None or pair in across_given]
    if len(given) == len(pairs):
        return "read the per-task and across-tasks tests"
    return "read the per-task tests" + (", and the across-tasks tests where given" if given else "")


def _groups(design, pairs):
    """({shared-task mask: [pairs]}, short, few): the pairs whose aggregate is bootstrapped, grouped by the tasks both
    agents ran (one bootstrap a group), and those withheld for fewer than 3 runs in a shared cell (``short``) or
    fewer than 2 shared tasks (``few``), each {pair: why}. One home for :func:`_aggregate` and the cost estimate."""
    index = {name: j for j, name in enumerate(design.agents)}
    groups, short, few = {}, {}, {}
    for a, b in pairs:
        i, j = index[a], index[b]
        shared = (design.counts[:, i] > 0) & (design.counts[:, j] > 0)
        runs = design.counts[shared][:, [i, j]]
        if shared.sum() < 2:  # its per-task test is the answer there
            only = [t for t, s in zip(design.tasks, shared) if s]
            few[a, b] = f"{a} vs {b} ({f'only {only[0]}' if only else f'no {design.block_word} shared'})"
        elif runs.min() < 3:
            t, k = np.argwhere(runs == runs.min())[0]
            short[a, b] = (f"{a} vs {b} ({(a, b)[k]} has {count(int(runs.min()), 'run')} on "
                           f"{np.asarray(design.tasks)[shared][t]})")
        else:
            groups.setdefault(tuple(shared), []).append((a, b))
    return groups, short, few


def _passes(design, pairs):
    """(runs, agents, pairs) of each bootstrap the aggregate makes (:func:`_groups`), for the cost estimate: an
    incomplete design bootstraps each distinct set of shared tasks once (audit s31 equivplot31: one pass was counted),
    for its pairs' aggregates (each read again alone where there are several sets, audit s32 rfix32)."""
    index = {name: j for j, name in enumerate(design.agents)}
    out = []
    for key, members in _groups(design, pairs)[0].items():
        agents = sorted({index[name] for pair in members for name in pair})
        out.append((int(design.counts[np.asarray(key)][:, agents].sum()), len(agents), len(members)))
    return out


def _aggregate(design, options, pairs, rng, across_given=None):
    """(rows, seed, notes): each pair's aggregate difference from the bootstrap's resamples of the pair's runs on the
    tasks both its agents ran, or none and why. ``across_given``: the pairs whose across-tasks test is given (None:
    all), for the notes' way on.

    A pair's aggregate reads the tasks both its agents ran, as its per-task and across-tasks tests do, whatever
    na_action= (audit s31 equiv31: it was withheld for every pair unless every agent ran every task, or with
    na_action="drop" read only the tasks every agent ran, 3 of the 4 that A and B shared). The pairs sharing one set of
    tasks are read from one bootstrap of their agents there: each agent's resamples come from its own stream, keyed by
    its label (:func:`rlstats.bootstrap`), so a pair's estimate, standard error and resamples are those of a run on the
    pair's rows alone, whatever the other agents and the rows' order. Where several task sets are bootstrapped, each
    pair's intervals and notes are those the bootstrap gives on the pair's rows alone (the operation
    "bootstrap.agents_alone", from the group's resamples), each note naming the pairs it concerns (audit s31 rfix31c:
    a group's notes were put before each of its pairs, B vs D told of A's 5 runs); where one task set is
    bootstrapped, its notes are given once, as before."""
    task, agent = design.block_word, design.arm_word  # the data's columns by their names (audit s32 block32)
    label = {"iqm": "IQM", "mean": f"mean over {plural(task)}"}[options.aggregate]
    groups, short, few = _groups(design, pairs)
    notes = []
    if few:
        one = any("(only " in item for item in few.values())
        notes.append(f"the aggregate ({label}) difference is withheld for {listed(few.values(), 6)}: it is read from a "
                     f"studentised bootstrap of the pair's runs on the {plural(task)} both its {plural(agent)} ran, "
                     f"which needs 2 or more of them; add {plural(task)} both {plural(agent)} run"
                     + (", or read the per-task tests" if one else ""))
    if short:
        notes.append(f"the aggregate ({label}) difference is withheld for {listed(short.values(), 6)}: it is read "
                     f"from a studentised bootstrap of the pair's runs on the {plural(task)} both its {plural(agent)} "
                     f"ran, which needs 3 runs or more of each {agent} on each; add runs, or "
                     f"{_read_instead(list(short), across_given)}")
    if not groups:
        return [], None, notes
    seed = seed_sequence(rng)[1]  # one seed for every group's bootstrap: each agent's stream keyed by its label
    rows, said, apart = [], {}, len(groups) > 1
    for key, members in groups.items():
        shared = np.asarray(key)
        agents = [name for name in design.agents if any(name in pair for pair in members)]
        sub = design
        if not shared.all() or len(agents) < design.n_agents:  # the pairs' own rows (notes: the data's, said above)
            sub = dataclasses.replace(design.select_tasks([t for t, s in zip(design.tasks, shared) if s])
                                      .select_agents(agents), notes=design.notes)
        more, fresh, own = _aggregate_group(sub, options, members, seed, across_given, label, apart)
        rows += more
        for note, whose in fresh.items():  # the bootstrap's own notes, each with the pairs whose runs it concerns
            said.setdefault(note, []).extend(whose)
        notes += [note for note in own if note not in notes]  # each names its pair, or holds for every group
    if apart:  # several task sets: each note says whose aggregate it concerns (audit s31 equivplot31, rfix31c)
        order = {pair: k for k, pair in enumerate(pairs)}
        tested = sum(len(members) for members in groups.values())
        said = {(f"the aggregate tests of all {tested} pairs: " if len(whose) == tested and tested == len(pairs) else
                 f"the aggregate tests of {join_and([f'{a} vs {b}' for a, b in sorted(whose, key=order.get)])}: ")
                + note: whose for note, whose in said.items()}
    return rows, seed, notes + list(said)


def _bootstrap_notes(result, design):
    """The notes of a bootstrap ``result`` of ``design`` that this test prints: not the design's, and not its
    withholding notes, which point at its options (the pairs' note says it for this test)."""
    # nor its notes of its nominal 95% intervals' coverage: this test reads its 1 - 2 alpha interval, whose rows of
    # its own decision :func:`_decision_rows_note` quotes (audit s32)
    return [n for n in result.notes if n not in design.notes and n not in result.withheld_notes
            and n not in result.coverage_notes]


def _aggregate_group(design, options, pairs, seed, across_given, label, apart=False):
    """(rows, bootstrap notes, own notes): the aggregate difference of each of ``pairs`` from one bootstrap of
    ``design``, every agent of which ran every task of it with 3 runs or more (the pairs' shared tasks); the
    bootstrap's notes, each with the pairs it concerns ({note: [pairs]}: with ``apart``, several task sets
    bootstrapped, those of each pair's rows alone, its intervals too; else the group's, of every pair) and this
    test's (each naming its pair, or true of every group)."""
    from .. import backend, operation

    result = backend("bootstrap")(design, metrics=[options.aggregate], n_resamples=options.n_resamples,
                                  confidence_level=1 - 2 * options.alpha, rng=seed, normalize=False,  # said above
                                  progress=False, max_seconds=float("inf"),  # equivalence() estimated it and shows it
                                  higher_is_better=options.higher_is_better)  # said by equivalence(), not read again
    index = {name: j for j, name in enumerate(result.agents)}
    # each agent's scores bound its resampled IQM or mean: a difference's end beyond them is t* blown up by
    # standard errors near 0, which the bootstrap-t cannot support (withheld: a clipped end is no confidence bound)
    low, high = block_ranges(design.y, design.agent, design.n_agents)
    cell_low, cell_high = (v.reshape(design.n_tasks, design.n_agents) for v in block_ranges(
        design.y, design.task * design.n_agents + design.agent, design.n_tasks * design.n_agents))
    rows, lost, reaches, close, covered = [], {}, options.alpha * (options.n_resamples + 1) >= 1, [], []
    # as the bootstrap's own studentised interval: each agent's standard error scaled by sqrt(c / (c - 1)) for its
    # fewest runs c in a task, and each resample's difference SE floored at a share of the resamples' spread
    expansion = run_expansion(design.counts.min(axis=0))
    # the bootstrap withholds its own interval on runs mostly at a cap (audit s10); audit s11 withholds this test by
    # the same rule, read from the pair's own runs (a third agent changes nothing), below; not as "own"
    cells = _cells(design) if options.aggregate in WELCH_FLOOR_METRICS else None
    fresh, reuse = {}, {}  # reuse: what each agent's interval reads of its own runs, computed once for the group
    at_bounds = pairs_bound_ties(design, [(index[a], index[b]) for a, b in pairs])[0]  # each pair's, in one pass
    for number, (a, b) in enumerate(pairs):
        i, j = index[a], index[b]
        # the pair's own bootstrap, read from the group's resamples: its intervals and caps, and its notes
        mine = (operation("bootstrap.agents_alone")(result, [n for n in result.agents if n in (a, b)], reuse)
                if apart and design.n_agents > 2 else result)
        for note in _bootstrap_notes(mine, design):
            fresh.setdefault(note, []).append((a, b))
        covered += [(a, b)] if mine.coverage_notes else []
        p, q = mine.agents.index(a), mine.agents.index(b)
        capped = (np.zeros(2, dtype=bool) if mine.saturated is None else mine.saturated[[p, q], 0])
        delta = result.estimates[i, 0] - result.estimates[j, 0]
        se = float(np.hypot(result.standard_errors[i, 0] * expansion[i],  # the result keeps the design's agents
                            result.standard_errors[j, 0] * expansion[j]))
        draws = result.bootstrap_distribution[i, 0] - result.bootstrap_distribution[j, 0]
        draw_se = floored_standard_errors(np.hypot(result.resampled_standard_errors[i, 0],
                                                   result.resampled_standard_errors[j, 0]),
                                          draws, STUDENTIZED_SE_FLOOR, axis=-1)
        # the rounding of a difference of the two agents' aggregates, read of their own scores (audit s37 meta37),
        # each task's at its own scale, combined as the aggregate weighs the tasks (review s37 rv37a: read of the
        # scores pooled over tasks, a task at 1e9 made a difference of 1.3e-4 on the others a tie, p 1.0)
        tolerance = aggregate_tolerance(difference_tolerance(*spread_and_magnitude(
            np.fmin(cell_low[:, i], cell_low[:, j]), np.fmax(cell_high[:, i], cell_high[:, j]))), options.aggregate)
        test = kernels.bootstrap_t(delta, se, draws, draw_se, options.margin, options.alpha, options.alternative,
                                   options.higher_is_better, tolerance)
        resampled = test
        if options.aggregate in WELCH_FLOOR_METRICS:
            test = _welch_floored(test, delta, se, cells, (i, j), options)
        # each p-value's Monte Carlo SE, sqrt(p (1 - p) / B) where the resamples gave it, 0 where Welch's t's floor
        # did (audit s32: the print gave no seed, count or error, and three seeds gave 0.0245, 0.0255, 0.0240)
        test["mc_se"] = {key: np.where(test[key] == resampled[key],
                                       monte_carlo_se(test[key], options.n_resamples), 0.0)
                         for key in ("p_lower", "p_upper", "p_below", "p_above")}
        # (too few resamples for alpha: an infinite interval and nothing shown, by that rule's note below)
        at_cap = [n for n, k in zip((a, b), _capped_pair(design, (i, j), options.aggregate, at_bounds[number])) if k]
        # an agent at the pair's cap whose runs vary is withheld as such, whether its interval was withheld or given
        # (its IQM's standard error of runs winsorised to one value: 0, or rounding as the score's units fell, audit
        # s38 meta38); one whose runs are one value in every task keeps the bootstrap's reason
        varied = [n for n, k in ((a, i), (b, j)) if n in at_cap and (cell_high[:, k] > cell_low[:, k]).any()]
        own = [n for n, k, c in ((a, p, capped[0]), (b, q, capped[1]))
               if reaches and not np.isfinite(mine.intervals[k, 0]).all() and not c and n not in varied]
        beyond = reaches and ((test["conf_low"] < low[i] - high[j]) | (test["conf_high"] > high[i] - low[j]))
        if own or beyond:
            lost[a, b] = (f"the bootstrap withholds the studentised interval of {' and '.join(own)} (too "
                                   "many resamples repeat one score in a task: standard error 0)" if own else
                                   "its bootstrap-t interval reaches beyond the range the difference takes in any "
                                   "resample of these scores (resamples with standard errors near 0)")
        elif at_cap:  # audit s11: given there, the IQM's declared non-inferiority at the margin in up to 0.080
            lost[a, b] = _CAPPED_AGGREGATE.format(
                who=" and ".join(f"{n}'s runs" for n in at_cap), fewest=SATURATED_FEWEST_OFF[options.aggregate],
                label=label, measured=_CAPPED_MEASURED[options.aggregate])
        if at_cap or own or beyond:
            test = {key: np.nan if key != "shown" else False for key in test if key != "mc_se"}
        else:
            close += _near_alpha(test, options, f"{a} vs {b}")
        name = WELCH_FLOOR_NAME if options.aggregate in WELCH_FLOOR_METRICS else "bootstrap-t"
        rows += _rows("aggregate", a, b, None, f"{name} ({label})", delta, se, np.nan, test, options.margin,
                      design.n_tasks)
    own = [f"the aggregate ({label}) difference is withheld for {a} vs {b}: {why}; add runs, or "
              f"{_read_instead([(a, b)], across_given)}" for (a, b), why in lost.items()]
    own += _near_alpha_note(close, options)
    given = {(r["agent_1"], r["agent_2"]) for r in rows if r["shown"] is not None}
    own += _decision_rows_note(design, options, [pair for pair in covered if pair in given])
    if not reaches:  # no (hits + 1) / (B + 1) reaches alpha
        own.append(f"the aggregate's bootstrap-t cannot show anything at alpha = {signif(options.alpha)} with "
                     f"{options.n_resamples} resamples (its smallest p-value is 1 / {options.n_resamples + 1}); "
                     f"raise n_resamples to {int(np.ceil(1 / options.alpha))} or more")
    return rows, fresh, own


#: a p-value this many Monte Carlo SE from alpha or nearer is said to be one that another seed can turn
MC_CLOSE_SE = 2


def _near_alpha(test, options, pair):
    """[(pair, p, se)] of the aggregate's p-value that decides its verdict, where it lies within :data:`MC_CLOSE_SE`
    Monte Carlo standard errors of alpha: the test's own (shown or not) and the reverse tests' of the verdicts the
    alternative prints (:func:`_verdict`: equivalence's both, shown beyond the margin or not; non-inferiority's past
    the lower bound alone, the upper where lower is better), the nearest; empty where none does or the error is 0
    (Welch's t's floor). Audit s36 fixeq36: non-inferiority's note quoted the test past the far bound (0.054 beside
    the verdict's 0.006), a test it never reports."""
    side = "p_lower" if test["p_value"] == test["p_lower"] else "p_upper"
    reverse = (("p_below", "p_above") if options.alternative == "equivalence" else
               ("p_below",) if options.higher_is_better else ("p_above",))
    near = [(abs(float(test[key]) - options.alpha) / float(test["mc_se"][key]), float(test[key]),
             float(test["mc_se"][key])) for key in (side, *reverse)
            if float(test["mc_se"][key]) > 0 and abs(float(test[key]) - options.alpha) <= MC_CLOSE_SE *
            float(test["mc_se"][key])]
    return [(pair, *min(near)[1:])] if near else []


def _near_alpha_note(close, options):
    """The note of the aggregate tests whose deciding p-value lies within :data:`MC_CLOSE_SE` Monte Carlo SE of
    alpha (:func:`_near_alpha`): another seed can turn the verdict; the n_resamples putting that p-value MC_CLOSE_SE
    standard errors from alpha, B = MC_CLOSE_SE^2 p (1 - p) / (p - alpha)^2, a guide read at this seed's p."""
    if not close:
        return []
    parts, needs = [], []
    for pair, p, se in close:
        parts.append(f"{pair}: its p-value {signif(p, 3)} lies within {MC_CLOSE_SE} Monte Carlo standard errors "
                     f"({signif(se, 2)}) of alpha = {signif(options.alpha)}")
        if p != options.alpha:
            needs.append(int(np.ceil(MC_CLOSE_SE ** 2 * p * (1 - p) / (p - options.alpha) ** 2)))
    # a count beyond the most n_resamples= takes is no way on (rt32b: it was advised, and then refused)
    beyond = bool(needs) and max(needs) > MAX_RESAMPLES
    it = "it" if len(close) == 1 else "them"
    its = "its verdict" if len(close) == 1 else "their verdicts"
    text = f"the aggregate test of {'; '.join(parts)}, so another seed can turn {its}"
    if beyond:
        text += (f"; no n_resamples= up to {MAX_RESAMPLES:_} would put {it} {MC_CLOSE_SE} standard errors from "
                 "alpha: the seed, not the count, decides it")
    elif needs:
        # review32c: at seed 79 of a design whose p is at alpha on average, p = 0.0764 asked for 405 resamples,
        # which left 38 of 100 seeds on the other verdict: the count holds only if the p-value is where this seed's is
        text += (f"; n_resamples={max(needs):_} would put {it} {MC_CLOSE_SE} standard errors from alpha if "
                 f"{'its p-value is' if len(close) == 1 else 'their p-values are'} where this seed's "
                 f"{verb(len(close), 'is')} (the error falls as 1 / sqrt(n_resamples)); a p-value nearer "
                 "alpha needs more, and this seed's is itself within the error")
    if len(needs) < len(close):
        text += "; a p-value at alpha itself no count settles: the seed, not the data, decides it"
    return [text]


def _welch_floored(test, delta, se, cells, pair, options):
    """``test`` (:func:`kernels.bootstrap_t`) with each end of its interval moved out to the Welch t bound where that
    is wider, as the bootstrap's own default interval of the mean is (its one home, ``welch_floor``), and each
    one-sided p-value the larger of the bootstrap-t's and Welch t's, so the p-value, the interval and ``shown``
    still agree: an end lies past a margin exactly when both tests' do. The Welch t reads the aggregate's standard
    error ``se`` (already scaled by sqrt(c / (c - 1))) on the Welch-Satterthwaite df of the difference of the two
    agents' means over tasks (the across-tasks test's, ``kernels.welch_mean``).

    Why (audit s20): on skewed runs the bootstrap-t alone declared non-inferiority at -margin in 0.0575 of 9,600 data
    sets at 5 tasks x 10 runs (coverage 0.9425, below 0.95 by more than 3 SE) and in 0.067 of 1,920 at 5 x 20
    (tests/reference/size_equivalence_mean.py, docs/calibration.md).
    """
    means, sds, runs = cells
    i, j = pair
    df = kernels.welch_mean(means[:, i], sds[:, i], runs[:, i], means[:, j], sds[:, j], runs[:, j])[2]
    level = 1 - 2 * options.alpha
    bounds, _, _ = welch_floor(np.array([[[test["conf_low"], test["conf_high"]]]], dtype=float), np.zeros((1, 1, 2)),
                               np.array([[delta]]), np.array([[se]]), np.array([df]), level, [options.aggregate])
    welch = kernels.tost(delta, se, df, options.margin, options.alpha, options.alternative, options.higher_is_better)
    out = dict(test, conf_low=bounds[0, 0, 0], conf_high=bounds[0, 0, 1])
    for key in ("p_lower", "p_upper", "p_below", "p_above"):  # a Welch p-value NaN (no df): the bootstrap-t's alone
        out[key] = np.where(np.isnan(test[key]), np.nan, np.fmax(test[key], welch[key]))
    if options.alternative == "equivalence":
        upper = out["p_upper"] >= out["p_lower"]
        out["p_value"] = np.maximum(out["p_lower"], out["p_upper"])
        out["statistic"] = np.where(upper, test["t_upper"], test["t_lower"])
    else:
        out["p_value"] = out["p_lower"] if options.higher_is_better else out["p_upper"]
    out["shown"] = test["shown"] & (out["p_value"] <= options.alpha)
    return out


def _ordered(table, pairs):
    """Rows grouped by pair in the pairs' order, each pair's tasks, then across tasks, then the aggregate."""
    # no task: None, not NaN (an object column: pandas' string dtype would turn None into NaN)
    table["task"] = pd.Series([t if isinstance(t, str) else None for t in table["task"]], index=table.index,
                              dtype=object)
    order = {pair: k for k, pair in enumerate(pairs)}
    scopes = {scope: k for k, scope in enumerate(SCOPES)}
    key = [order[(a, b)] * 10 + scopes[s] for a, b, s in zip(table["agent_1"], table["agent_2"], table["scope"])]
    return table.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)


def _short_tasks(tasks, n_a, n_b):
    """The tasks both agents ran where one has fewer than 2 runs: no spread to read there (across='welch')."""
    n_a, n_b = np.asarray(n_a), np.asarray(n_b)
    return [t for t, x, y in zip(tasks, n_a, n_b) if x > 0 and y > 0 and min(x, y) < 2]


def _flat_tasks(tasks, sd_a, n_a, sd_b, n_b):
    """The tasks where both agents have 2 runs or more and neither's runs vary: Welch's t has no spread to read
    (the one-run case is the replication rule's note)."""
    return [t for t, s, x, u, y in zip(tasks, np.asarray(sd_a), np.asarray(n_a), np.asarray(sd_b), np.asarray(n_b))
            if x >= 2 and y >= 2 and not s > 0 and not u > 0]


def _flat_note(flat):
    """The note of the per-task tests withheld because neither agent's runs vary there (audit s8: they were
    withheld with no word why)."""
    if not flat:
        return []
    shown = listed(flat, 8)
    return [f"per-task equivalence tests are withheld in {count(len(flat), 'case')} where neither agent's runs vary "
            f"({shown}): Welch's t has no spread to read there, and a difference of runs that all tie says nothing "
            "of runs not yet seen; the difference of means is in tidy()"]


def _saturation(design, agents):
    """(tied, floor), each (tasks, 2): for the agents ``agents`` (two codes, or one for a published table's pair),
    where an agent's runs mostly sit at the largest or smallest score of the pair's runs of a task
    (``kernels.saturated``: a cap often reached), and the lower bound of such a cell's run variance
    (``rlstats.bounds.variance_floor``) from the mean distance of the pair's runs off the bound the cell sits at
    (``rlstats.bounds.bound_ties``). Only the pair's runs are read, so that a third agent of the data changes nothing
    of the pair's tests."""
    agents = np.atleast_1d(np.asarray(agents, dtype=np.intp))
    at_bound, distance = bound_ties(design, agents)
    counts = design.counts[:, agents]
    if agents.size == 1:  # a published table's side: no runs, never tied
        at_bound, distance, counts = (np.pad(v, ((0, 0), (0, 1))) for v in (at_bound, distance, counts))
    return kernels.saturated(at_bound, counts), variance_floor(at_bound, counts, distance)


def _pairs_saturation(design, pairs):
    """(tied, floor), each (pairs, tasks, 2): :func:`_saturation` of each pair (codes), bit for bit, read in one pass
    (:func:`rlstats.bounds.pairs_bound_ties`; audit s39 eq39)."""
    at_bound, distance = pairs_bound_ties(design, pairs)
    counts = np.moveaxis(design.counts[:, np.asarray(pairs, dtype=np.intp).reshape(-1, 2)], 0, 1)
    return kernels.saturated(at_bound, counts), variance_floor(at_bound, counts, distance)


def _saturated_notes(withheld, floored, across="welch"):
    """The notes of the tests changed where an agent's runs mostly sit at a score cap (audit s10): the per-task
    tests withheld there, and the across-tasks tests whose standard error bounds those cells' variance
    (across='paired_t': since audit s11)."""
    notes = []
    if withheld:
        notes.append(f"per-task tests are withheld in {count(len(withheld), 'case')} where half or more of an agent's "
                     f"runs tie at the pair's largest or smallest score of the task, as at a score cap "
                     f"({listed(withheld, 8)}): "
                     "there Welch's t declared non-inferiority in up to 0.12 and equivalence in up to 0.09 of "
                     "simulated tests at alpha = 0.05 (70-85% of a baseline agent's runs at the cap, 3-20 runs, a "
                     "true difference equal to the margin), and no bound on the runs' variance tried held "
                     "alpha = 0.05 at 5 runs; the difference of means is in tidy(); read the across-tasks test, or "
                     "compare how often each agent reaches the cap (a test of two proportions)")
    if floored and across == "paired_t":
        notes.append(f"the across-tasks test of {listed(floored, 8)} (paired t over tasks) bounds its variance from "
                     "below, where runs mostly sit at the pair's largest or smallest score of a task (a cap), by the "
                     "variance of the mean difference within tasks, each such cell's run variance at least that of a "
                     "run at the cap or off it by the mean distance of the pair's runs off it, off it at the Wilson "
                     "95% upper bound of the share seen (the bound added, not the larger taken, where both agents' "
                     "runs of a task all sit at the bound): the spread of the tasks' differences alone declared in up "
                     "to 0.11 of simulated tests at alpha = 0.05 there, the bounded test in at most 0.052")
    elif floored:
        notes.append(f"the across-tasks test of {listed(floored, 8)} bounds from below the variance of the runs that "
                     "mostly sit at the pair's largest or smallest score of a task (a cap): by that of a run at the "
                     "cap or off it by the mean distance of the pair's runs off it, off it at the Wilson 95% upper "
                     "bound of the share seen "
                     "(Welch-Satterthwaite on the runs' own spread declared in up to 0.075 of simulated tests at "
                     "alpha = 0.05 there)")
    return notes


class _ByPair:
    """The table's rows indexed once by pair (audit s39 eq39: each note selected each pair's rows with pandas, a
    boolean mask of the whole table a pair, three seconds of equivalence() on 40 agents' 780 pairs): ``pairs``, (agent_1,
    agent_2, row positions) in the order of their first row (``groupby(sort=False)``'s), and the columns the notes
    read as arrays."""

    def __init__(self, table):
        found = {}
        for k, key in enumerate(zip(table["agent_1"].tolist(), table["agent_2"].tolist())):
            found.setdefault(key, []).append(k)
        self.pairs = [(a, b, np.asarray(rows, dtype=np.intp)) for (a, b), rows in found.items()]
        self.scope = table["scope"].to_numpy(dtype=object)
        self.task = table["task"].to_numpy(dtype=object)
        self.shown = table["shown"].to_numpy(dtype=object)
        self.conf_low = table["conf_low"].to_numpy(dtype=float)

    def of(self, rows, scope):
        """The positions among ``rows`` of the rows of ``scope``."""
        return rows[self.scope[rows] == scope]


def _partial_note(table, n_tasks, words=("task", "agent")):
    """The note of the pairs that share some tasks only (2 or more: one task has no across-tasks test): each one's
    across-tasks test, and its aggregate (audit s31), reads the tasks both ran, so two pairs' "across tasks" may be
    different tasks (audit s19: A vs C over t0 and t1 and B vs C over t2 and t3 printed as alike). ``words``: the
    blocks and the arms as the data call them (``Design.block_word``, ``Design.arm_word``; audit s32 block32)."""
    task = words[0]
    shared = table[table["scope"] == "task"].groupby(["agent_1", "agent_2"], sort=False).size()
    partial = [(a, b, n) for (a, b), n in shared.items() if 2 <= n < n_tasks]
    if not partial:
        return []
    aggregate = table[table["scope"] == "aggregate"]
    aggregated = set(zip(aggregate["agent_1"], aggregate["agent_2"]))
    tests = ("across-tasks and aggregate tests" if any((a, b) in aggregated for a, b, _ in partial) else
             "across-tasks test")
    verb = "read" if tests.endswith("tests") else "reads"
    return [f"the {tests} of {count(len(partial), 'pair')} that did not share every {task} {verb} only the "
            f"{plural(task)} both ran, not all {n_tasks} of the data: "
            f"{listed([f'{a} vs {b} ({n} of {count(n_tasks, task)})' for a, b, n in partial], 8)}"]


def _across_notes(table, across, short, still, words=("task", "agent"), formula=None):
    """One note per pair whose across-tasks test is withheld, naming its reason: the tasks the pair shares, the
    shared tasks where an agent has fewer than 2 runs (``short``, by pair; across='welch'), or task-level spreads
    or differences that do not vary, or (``still``, by pair; across='welch') tasks where the runs of both sides all
    tie at the pair's largest or smallest score of the task: since audit s10 such a task withholds the test (a cap
    always reached, whose spread no run bounds), where audit s7b had it add no spread and withhold nothing.
    ``words``: the blocks and the arms as the data call them (audit s32 block32); "across-tasks test" is the test's
    name, as its scope in tidy(). ``formula``: the design's, whose blocks' column the tied tasks are left out by
    (:func:`rlstats.connectivity.tasks_way`; review s35b: through compare the way on read "with subset=", no
    condition)."""
    by_pair = _ByPair(table)
    withheld = {}  # reason -> the pairs it withholds (pairs of one reason share a note)
    for a, b, mine in by_pair.pairs:
        for row in by_pair.of(mine, "across tasks"):
            if not np.isfinite(by_pair.conf_low[row]):
                why = _across_withheld(a, b, by_pair.task[by_pair.of(mine, "task")], short, still, across, words,
                                       formula)
                withheld.setdefault(why, []).append(f"{a} vs {b}")
    return [f"the across-tasks test is withheld for {'; '.join(pairs)}: {why}" for why, pairs in withheld.items()]


def _across_withheld(a, b, shared, short, still, across, words, formula):
    """:func:`_across_notes`' reason for one pair's withheld test (``shared``: the tasks of its per-task rows)."""
    task, agent = words
    tasks = plural(task)
    flat = short.get((a, b), [])
    if len(shared) < 2:
        why = (f"they share only one {task} ({shared[0]}), and a test across {tasks} needs 2 or "
               "more; its per-task test is the answer there" if len(shared) else
               f"they share no {task} where both ran")
    elif across == "welch" and (flat or still.get((a, b))):
        tied, reasons = still.get((a, b), []), []
        if flat:
            reasons.append(f"across='welch' reads the spread of the runs within every shared {task}, and "
                           f"{count(len(flat), task)} of {len(shared)} ({', '.join(flat[:5])}"
                           f"{' ...' if len(flat) > 5 else ''}) {verb(len(flat), 'lacks')} one "
                           f"(fewer than 2 runs of {a_or_an(agent)}); add runs, or use across='paired_t' ({tasks} "
                           "as a sample, one run per cell is enough)")
        if tied:  # audit s10: a cap always reached; before, such a task counted as a difference known exactly
            # equivalence() takes no subset=: the rows are left out before the call, or by compare()'s
            reasons.append(f"the runs of both sides all tie at one score in {count(len(tied), task)} "
                           f"({listed(tied, 5)}), as at a cap every run reaches, so no run off it bounds their "
                           "spread there; to test the other tasks, saying so, leave those out of the data with "
                           f"{tasks_way(formula, tied)}")
        why = "; and ".join(reasons)
    else:
        why = (f"their differences on the {len(shared)} shared {tasks} are all the same, so the paired t over "
               f"{tasks} has no spread to read" if across == "paired_t" else
               f"the runs of every shared {task} score the same, so there is no spread to read")
    return why


def _size_notes(design, options, table):
    """The measured size at the margin where the calibration table shows it above alpha by more than 3 Monte Carlo
    SE (pooled or in its worst design draw) at the design of a pair's test (two agents' rows at the runs measured
    nearest the pair's fewest on the tasks it read, and the worse of the task counts bracketing the tasks it read
    among the test's rows there, :func:`rlstats.calibration.bracketing_rows`), for each test given. Audit s31
    (equiv31): every count is the pair's own; the note read the design's task count and the fewest runs of any agent
    (review s30 had the aggregate's read its own tasks under na_action="drop"). A note names its pairs where it is not
    of every pair whose test of that kind was given."""
    if not np.isclose(options.alpha, 0.05) or not len(calibration.rows(CALIBRATION)):
        return []
    index = {name: j for j, name in enumerate(design.agents)}
    given = table[np.isfinite(table["conf_low"].to_numpy(dtype=float))]
    notes = []
    table_rows = [row for row in calibration.rows(CALIBRATION) if not _unlike_spread_row(row)]
    for (scope, method), tests in given.groupby(["scope", "method"], sort=False):
        name, _, detail = method.partition(" (")
        interval = _CALIBRATED[name]
        rows = table_rows
        if interval == "paired_t":  # audit s11: on saturated runs the paired t runs bounded, with rows of its own;
            # the plain one's rows of the saturated family describe a test no longer run on such runs
            interval = "paired_t_bounded" if detail.startswith("capped") else interval
            rows = [r for r in rows if interval == "paired_t_bounded" or r["distribution"] != "saturated"]
        columns = {"test": _CALIBRATED_TESTS[options.alternative], "interval": interval}
        if interval == "bootstrap_t":
            columns["metric"] = options.aggregate
        rows = [r for r in rows if all(r[key] == str(value) for key, value in columns.items())]
        found, pairs, read = {}, list(dict.fromkeys(zip(tests["agent_1"], tests["agent_2"]))), {}
        for a, b in pairs:
            # the pair's tasks (those both ran) and its fewest runs on them (a published table's side: its own n)
            shared = (design.counts[:, index[a]] > 0) & (
                True if b == PUBLISHED else design.counts[:, index[b]] > 0)
            cells = design.counts[shared][:, [index[a]] + ([] if b == PUBLISHED else [index[b]])]
            key = int(shared.sum()), int(cells.min())
            if key not in read:  # the rows of each design read once (audit s39 eq39: once a pair)
                matched, bracket, runs = _design_rows(rows, *key)
                read[key] = calibration.shortfall(matched, 0.95), bracket
            row, bracket = read[key]
            if row is not None:
                found.setdefault((tuple(sorted(row.items())), bracket), []).append(f"{a} vs {b}")
        for (items, bracket), named in found.items():
            row = dict(items)
            of = "" if len(named) == len(pairs) else f" of {join_and(named)}"
            notes.append(f"measured size at the margin of the {scope} test ({method}){of} at "
                         f"{calibration.bracket_words(bracket, row['tasks'])} and "
                         f"{row['runs']} runs per agent: {1 - float(row['coverage']):.3f}"
                         f"{calibration.worst_draw_clause(row, size=True)} ("
                         f"{row['distribution'].replace('_', '-')} scores, {row['configuration']}; {row['n_sim']} "
                         f"simulated tests), {calibration.miss_clause(row, 0.95, size=True)}, so its "
                         f"'{_SHOWN_WORD[options.alternative]}' comes too easily there"
                         + _WAY_ON[interval])
    return notes


def _design_rows(rows, tasks, fewest):
    """(rows, bracket, runs): the test's calibration ``rows`` at the runs measured nearest a pair's ``fewest`` and the
    task counts bracketing its ``tasks`` among them (review23d: the mean's bootstrap-t has 5-task rows alone at 10
    runs, and a 12-task design was told it read 5 and 26 tasks); the one reading of :func:`_size_notes` and
    :func:`_decision_rows_note`."""
    runs = calibration.nearest_count((3, 5, 10, 20), fewest)
    matched, bracket = calibration.bracketing_rows([r for r in rows if r["runs"] == str(runs)], tasks)
    return matched, bracket, runs


def _decision_rows_note(design, options, pairs):
    """The notes of the aggregate tests of ``pairs`` whose bootstrap noted its nominal 95% intervals' coverage at few
    runs (``BootstrapResult.coverage_notes``, left out: audit s32, "nominal 95% intervals covered 0.93 to 0.96" beside
    a decision read off the 90% interval): the calibration table has no coverage rows of the bootstrap's 1 - 2 alpha
    interval, so each quotes the rows of this test's own decision, its size at the margin (``equivalence.size``) at the
    design nearest the pair's (:func:`_design_rows`: ``design`` is the pairs' shared tasks), and says so; pairs whose
    words are alike share a note. Where those rows miss alpha, :func:`_size_notes` quotes them and nothing more is
    said; at alpha other than 0.05, where they were not measured, that is said."""
    index = {name: j for j, name in enumerate(design.agents)}
    level = f"{signif(100 * (1 - 2 * options.alpha), 3)}%"
    rows = [r for r in calibration.rows(CALIBRATION) if not _unlike_spread_row(r)
            and r["test"] == _CALIBRATED_TESTS[options.alternative] and r["interval"] == "bootstrap_t"
            and r["metric"] == options.aggregate]
    label = {"iqm": "IQM", "mean": "mean over tasks"}[options.aggregate]
    said = {}
    for a, b in pairs:
        fewest = int(design.counts[:, [index[a], index[b]]].min())
        text = (f"reads the bootstrap's {level} interval, of which the calibration table has no coverage rows "
                f"(bootstrap() quotes its nominal 95% intervals' coverage at {count(design.n_tasks, 'task')} and "
                f"{count(fewest, 'run')}, short of 95%: rows of another level)")
        matched, bracket, runs = _design_rows(rows, design.n_tasks, fewest)
        if not np.isclose(options.alpha, 0.05):
            text += (f"; its rows of this test's size at the margin are at alpha = 0.05 alone, not "
                     f"{signif(options.alpha)}")
        elif not matched:
            text += f"; nor rows of this test's size at the margin at {count(runs, 'run')} (equivalence.size)"
        elif calibration.shortfall(matched, 0.95) is not None:
            continue  # _size_notes quotes the rows that miss
        else:
            # the families of runs off a cap (the saturated rows are of runs mostly at one, where the bootstrap's own
            # rule withholds most of these tests: a note of its own says so where it applies)
            plain = [r for r in matched if r["distribution"] != "saturated"] or matched
            worst = min(plain, key=lambda r: (float(r["coverage"]), calibration.worst_coverage(r)))
            size = 1 - float(worst["coverage"])
            families = join_and(list(dict.fromkeys(r["distribution"].replace("_", "-") for r in plain)))
            side = "below the fewest" if design.n_tasks < min(bracket) else "beyond the most"
            text += (f"; its rows of this test's size at the margin (equivalence.size), at "
                     f"{calibration.counts_words(bracket)} and {runs} runs per agent, "
                     + ("held alpha" if size <= 0.05 else "were within 3 Monte Carlo standard errors of alpha")
                     + f": at most {size:.3f} of {worst['n_sim']} simulated tests declared "
                     f"{_SHOWN_WORD[options.alternative]} at alpha = 0.05 ({families} scores)"
                     f"{calibration.worst_draw_clause(worst, size=True)}"
                     + ("" if design.n_tasks in bracket else
                        f"; these {count(design.n_tasks, 'task')} lie {side} simulated"))
        said.setdefault(text, []).append(f"{a} vs {b}")
    return [f"the aggregate ({label}) test of {join_and(named)} {text}" for text, named in said.items()]


def _unequal_runs_note(design, options, table, published_n=None):
    """The note of the tests given on runs unequal in number (audit s22): where a pair's two agents (or an agent and a
    published table) have runs differing by :data:`UNEQUAL_RATIO` (by alternative) times or more on a task, the
    difference of means keeps the skewness of the fewer runs' mean (with equal runs the two cancel), which Welch's t
    reads as symmetric; the calibration table measures equal runs only, so the note quotes :data:`UNEQUAL_SIZE`, the
    capped scores' figures of the tests given, and the across-tasks test's where :data:`UNEQUAL_ACROSS_SHARE` of the
    pair's tasks or more have runs so (review22a). At alpha = 0.05 only, where
    those were measured, as :func:`_size_notes`."""
    if not np.isclose(options.alpha, 0.05):
        return []
    index = {name: j for j, name in enumerate(design.agents)}
    task_index = {name: t for t, name in enumerate(design.tasks)}
    pairs, scopes, aggregate = [], set(), False
    by_pair = _ByPair(table)
    for a, b, rows in by_pair.pairs:
        tasks = by_pair.task[by_pair.of(rows, "task")]
        t = np.array([task_index[x] for x in tasks], dtype=np.intp)
        n_a = design.counts[t, index[a]]
        n_b = np.asarray(published_n, dtype=float)[t] if b == PUBLISHED else design.counts[t, index[b]]
        unequal = ((np.maximum(n_a, n_b) >= UNEQUAL_RATIO[options.alternative] * np.minimum(n_a, n_b))
                   & (np.minimum(n_a, n_b) > 0))
        shown = np.isfinite(by_pair.conf_low[rows])
        scope = by_pair.scope[rows]
        task_given = shown[scope == "task"] & unequal
        # measured of across='welch' only (the paired t over tasks reads the tasks' differences, not the runs), and
        # where many of the tasks' runs differ (runs unequal on 1 task of 5 or 26 held alpha: review22a)
        across_given = (options.across == "welch" and unequal.sum() >= UNEQUAL_ACROSS_SHARE * len(t) > 0
                        and bool(shown[scope == "across tasks"].any()))
        if not (task_given.any() or across_given):
            continue
        scopes.update(["task"] if task_given.any() else [])
        scopes.update(["across tasks"] if across_given else [])
        aggregate = aggregate or bool(shown[scope == "aggregate"].any())
        kinds = sorted({(int(x), int(y)) for x, y in zip(n_a[unequal], n_b[unequal])})
        where = f"on {unequal.sum()} of {count(len(t), 'task')}"
        if len(kinds) == 1:
            runs = f"{kinds[0][0]} vs {kinds[0][1]} runs {where}"
        else:
            first = int(np.flatnonzero(unequal)[0])
            runs = f"{where}, e.g. {int(n_a[first])} vs {int(n_b[first])} runs on {tasks[first]}"
        pairs.append(f"{a} vs {b} ({runs})")
    if not pairs:
        return []
    word = {"equivalence": "equivalence", "noninferior": "non-inferiority"}[options.alternative]
    size = UNEQUAL_SIZE[options.alternative]
    given = [scope for scope in ("task", "across tasks") if scope in scopes]
    test = {"task": "the per-task test", "across tasks": "the across-tasks test"}
    measured = " and ".join(f"{test[scope]} in up to {size[scope]['skewed'][0]:.2f} (skewed scores, "
                            f"{size[scope]['skewed'][1]})" for scope in given)
    # capped scores by the tests given: the per-task TOST held alpha there (audit s22, review22a)
    capped = [size[scope]["capped"] + (scope,) for scope in given]
    missed = [c for c in capped if c[0] > 0.05]
    capped_text = "; ".join(f"{test[scope]} {'up to' if share > 0.05 else 'at most'} {share:.3f} ({at})"
                            + ("" if share > 0.05 else ", within alpha") for share, at, scope in capped)
    return [f"runs differing in number: {listed(pairs, 6)}; the calibration table measured both agents with as many "
            f"runs, and with one agent's runs {UNEQUAL_RATIO[options.alternative]} or more times the other's the "
            "difference of means keeps the skewness of the mean of fewer runs, which Welch's t reads as symmetric: at "
            f"a true difference of exactly the margin, of simulated tests at alpha = 0.05 {measured} declared {word} "
            f"(capped scores: {capped_text}; normal and heavy-tailed scores at most 0.01 above alpha; "
            "tests/reference/size_equivalence_unbalanced.py), so "
            f"'{_SHOWN_WORD[options.alternative]}' there comes too easily on skewed{' or capped' if missed else ''} "
            "scores"
            + (("; the IQM's bootstrap-t (the aggregate) held alpha there in a reduced measurement (5 tasks, skewed "
                "scores, 5 vs 100 runs: 0.024-0.028 of 250 simulated tests)" if options.aggregate == "iqm" else
                "; the mean's bootstrap-t (the aggregate) was not measured with runs differing in number")
               if aggregate else "")
            + "; add runs to the agent with fewer"]


def _unlike_spread_row(row):
    """Whether an ``equivalence.size`` row is of equal runs and unlike spreads (``configuration`` "..., spread 1/4"),
    which :func:`_unlike_spreads_note` quotes and :func:`_size_notes` does not (the others are of alike spreads)."""
    return ", spread " in row["configuration"]


def _unlike_spread_quote(options, interval, runs, tasks, family):
    """The calibration row of equal runs and unlike spreads that misses alpha worst on ``family``'s scores, over every
    measured spread (:data:`UNLIKE_SPREADS`, either agent the wider: a few runs cannot tell the true spreads, so none
    is ruled out) and, for TOST, both margins, at the runs measured nearest and the task counts bracketing ``tasks``
    (:func:`rlstats.calibration.bracketing_counts`, the worse); None where none misses. The spreads are symmetric, so
    the test of agent 2 against agent 1 (non-inferiority with lower scores better) has the same worst row, read
    mirrored."""
    bracket = (1,) if interval == "welch" else calibration.bracketing_counts((5, 26), tasks)
    rows = [row for row in calibration.rows(CALIBRATION) if _unlike_spread_row(row) and int(row["tasks"]) in bracket]
    return calibration.shortfall(rows, 0.95, test=_CALIBRATED_TESTS[options.alternative], interval=interval,
                                 distribution=family, runs=calibration.nearest_count((3, 5, 10), runs))


#: the families of scores whose rows of unlike spreads missed alpha (heavy-tailed: at most 0.063, which the note says)
_UNLIKE_FAMILIES = ("skewed", "capped")
#: alternative= -> the claim a shown test makes, as the note of unlike spreads words it
_CLAIM = {"equivalence": "equivalence", "noninferior": "non-inferiority"}
#: the aggregate's test at 5 tasks where agent 1's spread is 1/4 or 4 times agent 2's, equal runs (3, 5, 10 of each),
#: at -margin: alternative -> aggregate -> (held alpha within 3 Monte Carlo SE, the largest share declaring over
#: skewed and capped scores, data sets a point) (tests/reference/size_equivalence_spread.py --aggregate, seed 2323;
#: audit s23 equivgate23)
UNLIKE_AGGREGATE = {"noninferior": {"iqm": (True, 0.056, 500), "mean": (False, 0.084, 500)},
                    "equivalence": {"iqm": (True, 0.040, 500), "mean": (False, 0.084, 500)}}


def _spread_ruled_out_words(runs):
    """``"; wrongly, at the rows' spreads, in up to 0.0067 of 20,000 simulated tasks: ..."``: the worst
    :data:`SPREAD_RULED_OUT` row at the runs measured nearest each ruled-out task's fewest (``runs``,
    :func:`rlstats.calibration.nearest_count`), the one missing its level where one does (:func:`calibration.shortfall`,
    worded by :func:`calibration.miss_clause`); empty where the table has no such rows (audit s36 calib36).  The row
    is worded as it was simulated, one agent's deviations times its factor ("deviations x 1/2"): on capped scores the
    cap makes that another SD ratio (1/2 is 1/1.73; audit s36 rv36b: the note said "SD ratio 1/2")."""
    rows = calibration.rows(SPREAD_RULED_OUT)
    if not rows or not runs:
        return ""
    measured = {int(row["runs"]) for row in rows}
    at = {calibration.nearest_count(measured, n) for n in runs}
    rows = [row for row in rows if int(row["runs"]) in at]
    level = float(rows[0]["level"])
    row = calibration.shortfall(rows, level) or min(rows, key=calibration.worst_coverage)
    n = int(row["runs"])
    beyond = (", the most simulated" if max(runs) > n == max(measured) else
              ", the fewest simulated" if min(runs) < n == min(measured) else "")
    share = 1 - float(row["coverage"])
    missed = (", " + calibration.miss_clause(row, level, size=True, target=f"{1 - level:g}")
              if calibration.misses(row, level) else "")
    return (f"; wrongly, at the rows' spreads, in up to {signif(share, 2)} of {integer(row['n_sim'])} simulated "
            f"tasks: {row['distribution'].replace('_', '-')} scores, deviations x "
            f"{row['configuration'].removeprefix('spread ')}, "
            f"{count(n, 'run')} of each agent{beyond}{missed}; the calibration table's '{SPREAD_RULED_OUT}' rows")


def _apart(first, second, what="SDs"):
    """``"SDs 5.3 times apart"``, ``"SDs alike"`` (under 1.05 times) or ``"SDs: one 0"``: how far apart two spreads
    are, unchanged by the data's units."""
    low, high = sorted((float(first), float(second)))
    if not low > 0:
        return f"{what}: one 0"
    ratio = high / low
    return f"{what} alike" if ratio < 1.05 else f"{what} {signif(ratio, 2)} times apart"


def _runs_apart(pairs):
    """``"5 vs 15 runs"`` (or ``"3-5 vs 10-15 runs"`` where the tasks' differ): the data's runs of two agents, the
    1st's then the 2nd's, over ``pairs`` of (n_1, n_2) (audit s34 eqnote34: the rows' runs were printed as the
    data's)."""
    def span(values):
        return f"{min(values)}" if min(values) == max(values) else f"{min(values)}-{max(values)}"

    first, second = zip(*pairs)
    return f"{span(first)} vs {span(second)} runs"


def _unlike_spreads_note(design, options, table, sds, runs, published=None):
    """The note of a test that declared its alternative where the pair's runs are alike in number (under
    :data:`UNEQUAL_RATIO`: those have :func:`_unequal_runs_note`), whatever their SDs (audit s23, review23a): with
    equal runs the two means' skewness cancels in their difference only where the true spreads are alike, and Welch's t
    declared the alternative at the margin above alpha on skewed and capped scores where they were 2 to 8 times apart
    (the ``equivalence.size`` rows of ``configuration`` "..., spread r"). A few runs cannot tell the true spreads:
    on skewed scores the false declarations came mostly where the wider agent's runs missed its tail, so that the
    sample SDs looked alike (a gate on sample SDs 2 or more times apart missed 61% of them at 5 vs 5 runs, true ratio
    4). So the note is a conditional, true of the data: if the spreads differ, the worst row of each family at the
    design nearest (:func:`_unlike_spread_quote`), per task and (``across="welch"``) across tasks, with each declared
    task's two SDs' ratio (per task; across tasks the agents' parts of the standard error, sqrt(sum_t s_1t^2 / n_1t)
    against sqrt(sum_t s_2t^2 / n_2t)), unchanged by units. Where the aggregate's test declared, the aggregate's own
    measurement (:data:`UNLIKE_AGGREGATE`). Each quoted row's share is said once, with its SD ratio; the margin's side
    and the rows' runs once where the rows share them, the runs named the most or fewest simulated where the design's
    lie beyond them (review23d), apart from the data's runs ("5 vs 15 runs"; audit s34 eqnote34). A declared task
    whose runs rule the rows' spreads out (Bonett's interval of the SD ratio, ``kernels.sd_ratio_interval`` at
    :data:`SPREAD_LEVEL`, within 1/:data:`SPREAD_ALIKE` to :data:`SPREAD_ALIKE`) is named as ruled out, not quoted;
    across tasks and in aggregate every shared task's spreads count, so those are quoted unless all are ruled out.
    ``published``: the table's (sd, n), agent 2 of every pair (its runs are not here: nothing ruled out). At alpha =
    0.05 only, as :func:`_size_notes`."""
    if not np.isclose(options.alpha, 0.05):
        return []
    index = {name: j for j, name in enumerate(design.agents)}
    task_index = {name: t for t, name in enumerate(design.tasks)}
    found, quotes, fewest, aggregate, ruled_out, ruled_runs = [], {}, [], False, [], []
    sums = None
    by_pair, memo = _ByPair(table), {}

    def quote(interval, runs, tasks, family):  # _unlike_spread_quote, each read once a call
        key = (interval, runs, tasks, family)
        if key not in memo:
            memo[key] = _unlike_spread_quote(options, interval, runs, tasks, family)
        return memo[key]

    for a, b, rows in by_pair.pairs:
        mine = by_pair.of(rows, "task")
        tasks = by_pair.task[mine]
        t = np.array([task_index[x] for x in tasks], dtype=np.intp)
        s_a, n_a = sds[t, index[a]], runs[t, index[a]]
        s_b, n_b = ((np.asarray(published[0], dtype=float)[t], np.asarray(published[1], dtype=float)[t])
                    if b == PUBLISHED else (sds[t, index[b]], runs[t, index[b]]))
        alike = np.maximum(n_a, n_b) < UNEQUAL_RATIO[options.alternative] * np.minimum(n_a, n_b)
        declared = alike & np.array([v == True for v in by_pair.shown[mine]], dtype=bool)  # noqa: E712 (None: withheld)
        # whether the pair's runs of each task rule out the rows' spreads (audit s34 eqnote34): Bonett's interval of
        # the SD ratio within 1/SPREAD_ALIKE to SPREAD_ALIKE; a published table's runs are not here
        alike_spread = np.zeros(len(t), dtype=bool)
        if b != PUBLISHED and declared.any():
            if sums is None:
                sums = [v.reshape(design.n_tasks, design.n_agents) for v in kernels.spread_sums(
                    design.y, design.task * design.n_agents + design.agent, design.n_tasks * design.n_agents)]
            low, high = kernels.sd_ratio_interval(*([v[t, j] for v in sums] for j in (index[a], index[b])),
                                                  level=SPREAD_LEVEL)
            alike_spread = (low > 1 / SPREAD_ALIKE) & (high < SPREAD_ALIKE)
        where, shown_runs, out = [], [], []
        for k in np.flatnonzero(declared):  # only where the measured design nearest missed alpha
            rows_k = [quote("welch", min(n_a[k], n_b[k]), 1, f) for f in _UNLIKE_FAMILIES]
            if any(row is not None for row in rows_k) and alike_spread[k]:
                out.append(str(tasks[k]))
                ruled_runs.append(int(min(n_a[k], n_b[k])))
            elif any(row is not None for row in rows_k):
                where.append(f"{tasks[k]}: {_apart(s_a[k], s_b[k])}")
                shown_runs.append((int(n_a[k]), int(n_b[k])))
                fewest.append(int(min(n_a[k], n_b[k])))
                for family, row in zip(_UNLIKE_FAMILIES, rows_k):
                    if row is not None:
                        key = ("task", family)
                        quotes[key] = min(row, quotes.get(key, row), key=lambda r: float(r["coverage"]))
        across = by_pair.shown[by_pair.of(rows, "across tasks")]
        many = alike.sum() > (1 - UNEQUAL_ACROSS_SHARE) * len(t)
        # across tasks and in aggregate every task's spreads count: ruled out only where they are on every task
        many = many and not alike_spread[(n_a >= 2) & (n_b >= 2)].all()
        if options.across == "welch" and len(across) and across[0] is not None and bool(across[0]) and many:
            rows_x = [quote("welch_mean", int(min(n_a.min(), n_b.min())), len(t), f) for f in _UNLIKE_FAMILIES]
            if any(row is not None for row in rows_x):
                parts = np.sqrt(np.sum(s_a ** 2 / n_a)), np.sqrt(np.sum(s_b ** 2 / n_b))
                where.insert(0, "across tasks: " + _apart(*parts, "the agents' parts of its standard error"))
                shown_runs += list(zip(n_a.astype(int).tolist(), n_b.astype(int).tolist()))
                fewest.append(int(min(n_a.min(), n_b.min())))
                for family, row in zip(_UNLIKE_FAMILIES, rows_x):
                    if row is not None:
                        key = ("across", family)
                        quotes[key] = min(row, quotes.get(key, row), key=lambda r: float(r["coverage"]))
        shown_aggregate = by_pair.shown[by_pair.of(rows, "aggregate")]
        if len(shown_aggregate) and shown_aggregate[0] == True and many:  # noqa: E712
            where.insert(int(bool(where) and where[0].startswith("across")), f"the aggregate ({options.aggregate})")
            shown_runs += list(zip(n_a.astype(int).tolist(), n_b.astype(int).tolist()))
            fewest.append(int(min(n_a.min(), n_b.min())))
            aggregate = True
        if where:
            found.append(f"{a} vs {b}, {_runs_apart(shown_runs)} ({listed(where, 3)})")
        if out:
            ruled_out.append(f"{listed(out, 3)} ({a} vs {b})")
    measured_aggregate = UNLIKE_AGGREGATE[options.alternative]
    held, worst, n_sim = measured_aggregate[options.aggregate] if aggregate else (True, 0.0, 0)
    word, claim = _SHOWN_WORD[options.alternative], _CLAIM[options.alternative]
    alike_words = f"'{word}' with runs alike in number (the larger under {UNEQUAL_RATIO[options.alternative]} times " \
        "the smaller)"
    low, high = signif(UNLIKE_SPREAD, 2), signif(max(UNLIKE_SPREADS), 2)
    band = signif(SPREAD_ALIKE, 2)
    ruled = (f"ruled out on {'; '.join(ruled_out)} by the runs (Bonett's {SPREAD_LEVEL:.0%} interval of the SD "
             f"ratio within 1/{band} to {band}{_spread_ruled_out_words(ruled_runs)})") if ruled_out else ""
    if not quotes and (not aggregate or held):  # the IQM's held alpha: nothing to say of it alone
        if not ruled_out:
            return []
        return [f"{alike_words}: the spreads at which Welch's t missed alpha (SD ratio 1/{high} to 1/{low} or {low} "
                f"to {high}; the calibration table's 'spread' rows) are {ruled}"]

    # non-inferiority with lower scores better was read off the rows of agent 2 against agent 1 (mirrored)
    mirrored = options.alternative == "noninferior" and not options.higher_is_better

    # the pair's order in the printed header's words ("delta = 1st agent - 2nd agent"), not the tidy columns' names,
    # which are agents' own names in data named as simulate() names them (audit s30 design30)
    first, second = ("2nd", "1st") if mirrored else ("1st", "2nd")

    def side(row):
        side = row["configuration"].partition(", ")[0]
        return side.replace("-margin", "+margin") if mirrored else side

    def runs_words(runs):
        # the rows' runs beside the design's: 3, 5 and 10 were simulated (review23d: 50 runs read the 10-run rows);
        # the simulated design said as such, never as the data's (audit s34 eqnote34)
        beyond = (", the most simulated" if max(fewest) > runs == 10 else
                  ", the fewest simulated" if min(fewest) < runs == 3 else "")
        return f"measured at {count(runs, 'run')} of each agent{beyond}"

    rows_quoted = list(quotes.values())
    # said once where every quoted row shares it, else beside each row's share (review23d: the note was one
    # sentence of 170-260 words, each row's share said twice and its design spelled out each time)
    common = {what: len({how(row) for row in rows_quoted}) == 1
              for what, how in (("runs", lambda row: row["runs"]), ("side", side))}

    def share(scope, family, lead):
        row = quotes[scope, family]
        # the row as simulated: one agent's deviations times r, an SD ratio of r but on capped scores (8 is 6.7: the
        # cap shortens the wider spread; audit s36 rv36b)
        details = [f"deviations x {row['configuration'].partition(', spread ')[2]}"] + \
            ([] if common["side"] else [side(row)]) + ([] if common["runs"] else [runs_words(int(row["runs"]))])
        where = (" simulated tests per task" if scope == "task" else f" across {row['tasks']} tasks") if lead else ""
        of = f" of {integer(row['n_sim'])}" if lead else ""
        return f"{1 - float(row['coverage']):.3f}{of}{where} on {family.replace('_', '-')} scores ({', '.join(details)})"

    def scope_words(scope):
        families = [f for f in _UNLIKE_FAMILIES if (scope, f) in quotes]
        return " and ".join(share(scope, f, k == 0) for k, f in enumerate(families))

    label = {"iqm": "the IQM's", "mean": "the mean's"}.get(options.aggregate)
    aggregate_text = (f"{label} aggregate test in up to {worst:.3f} of {integer(n_sim)} (5 tasks, 3-10 runs of each "
                      "agent, deviations x 1/4 and 4, skewed and capped scores; "
                      + ("within alpha's 3 Monte Carlo standard errors)" if held else
                         "above alpha by more than 3 Monte Carlo standard errors; aggregate='iqm' there at most "
                         f"{measured_aggregate['iqm'][1]:.3f})")) if aggregate else ""
    condition = (f"{alike_words}: {listed(found, 6)}; if the two agents' true spreads differ there "
                 f"(SD ratio, the {first} agent's over the {second}'s, 1/{high} to 1/{low} or {low} to {high}; "
                 f"their runs do not rule it out: Bonett's {SPREAD_LEVEL:.0%} interval of the SD ratio reaches past "
                 f"1/{band} to {band}), ")
    ruled = f"; those spreads are {ruled}" if ruled else ""
    at_margin = f"declared {claim} falsely, at a true difference of exactly the margin and alpha = 0.05, in up to "
    if not quotes:  # the mean's aggregate alone declared
        return [condition + aggregate_text.replace(" in up to ", " " + at_margin, 1) + ruled]
    once = [side(rows_quoted[0])] * common["side"] + [runs_words(int(rows_quoted[0]["runs"]))] * common["runs"]
    return [f"{condition}Welch's t {at_margin}"
            + ", ".join(scope_words(scope) for scope in ("task", "across") if any(k[0] == scope for k in quotes))
            + f" ({', '.join(once) + '; ' if once else ''}heavy-tailed scores at most 0.063; the calibration "
            "table's 'spread' rows)" + ("; " + aggregate_text if aggregate else "")
            + "; no test tried in Welch's place held alpha there (a bootstrap-t, Hall's t, Welch's t on fewer df)"
            + ruled]


def _run_published(design, options, table, scale):
    mean_p, sd_p, n_p, notes = table
    notes = list(design.notes) + notes
    if options.control is not None:
        raise OptionError("control= names an agent of the data; with published= every agent is compared with the "
                          "published table: leave control out")
    means, sds, runs = _cells(design)
    pairs = tuple((a, PUBLISHED) for a in design.agents)
    withheld = verdict("equivalence", design.counts, options=options, agents=design.agents, tasks=design.tasks,
                       words=design.words, formula=design.formula)
    notes += withheld.lines
    none = np.zeros(design.n_tasks, dtype=bool)
    low, high = _cell_ranges(design)
    short, flat, still, capped, floored, sample, tests = {}, [], {}, [], [], [], []
    for j, a in enumerate(design.agents):
        tied, floor = _saturation(design, j)  # the agent's runs (the table has none to read)
        pair_scale = _pair_scale(low[:, j], high[:, j], mean_p, mean_p)  # the agent's runs and the table's mean
        tests.append(_pair_tests(options, design.tasks, means[:, j], sds[:, j], runs[:, j], mean_p, sd_p, n_p,
                                 (tied[:, 0], floor[:, 0], none, 0.0), pair_scale))
        changed = tests[-1][1]
        short[a, PUBLISHED], still[a, PUBLISHED] = _short_tasks(design.tasks, runs[:, j], n_p), changed["still"]
        flat += [f"{t}/{a} vs {PUBLISHED}" for t in _flat_tasks(design.tasks, sds[:, j], runs[:, j], sd_p, n_p)]
        capped += [f"{t}/{a} vs {PUBLISHED}" for t in changed["withheld"]]
        floored += [f"{a} vs {PUBLISHED}"] if changed["floored"] else []
    by_pair, paired = _pairs_rows(options, pairs, tests)
    rows = [row for mine in by_pair for row in mine]
    for mine, other in zip(by_pair, paired):
        sample += _as_a_sample(options, mine, other)
    notes += _flat_note(flat) + _saturated_notes(capped, floored, options.across)
    if options.aggregate is not None:
        notes.append(f"no aggregate ({options.aggregate}) row: a published table holds per-task means and SDs, not "
                     "runs to bootstrap; the across-tasks test is of the mean over tasks")
    frame = _ordered(pd.DataFrame(rows), pairs)
    words = design.words
    notes += (_partial_note(frame, design.n_tasks, words)
              + _across_notes(frame, options.across, short, still, words, design.formula)
              + _sample_note(options, sample, design.n_tasks, words) + _size_notes(design, options, frame)
              + _unequal_runs_note(design, options, frame, n_p)
              + _unlike_spreads_note(design, options, frame, sds, runs, (sd_p, n_p)))
    return _result(design, options, pairs, frame, notes, None, scale, published=True)


def _result(design, options, pairs, table, notes, seed, scale, published, aggregate_tasks=None):
    level = 1 - 2 * options.alpha
    table["conclusion"] = [_verdict(shown, low, high, options)
                           for shown, low, high in zip(table["shown"], table["conf_low"], table["conf_high"])]
    title = ("Two one-sided tests (TOST) of equivalence" if options.alternative == "equivalence" else
             "One-sided test of non-inferiority")
    if published:
        title += " against a published table"
    return EquivalenceResult(
        method=title, formula=design.formula, data_name=design.data_name, nobs=design.nobs, notes=tuple(notes),
        options={**options.record(), "published": published}, seed=seed, margin=options.margin, margin_scale=scale,
        alternative=options.alternative, alpha=options.alpha, confidence_level=level,
        higher_is_better=options.higher_is_better, agents=design.agents, tasks=design.tasks, counts=design.counts,
        pairs=pairs, comparisons=table, aggregate=None if published else options.aggregate, across=options.across,
        # the aggregate's bootstrap drew them (its seed); none where it was left out or withheld (audit s30 w2fix30)
        published=published, n_resamples=options.n_resamples if seed is not None else None,
        aggregate_tasks=aggregate_tasks)


def _verdict(shown, low, high, options):
    """The answer in words, never "equal". An interval wholly beyond a bound is said so: the (1 - 2 alpha) interval
    below -margin (above +margin) is the one-sided test at alpha of delta < -margin (delta > +margin), so that
    difference is shown, not merely equivalence left unshown (audit s19). Only these verdicts open with "shown"
    (the result's prose counts them so)."""
    if shown is None:
        return "withheld"
    m = signif(options.margin)
    below, above = high < -options.margin, low > options.margin
    if options.alternative == "equivalence":
        if shown:
            return f"equivalent within \u00b1{m}"
        return (f"shown below -{m}, beyond the margin" if below else f"shown above {m}, beyond the margin" if above
                else "not shown equivalent")
    if shown:
        return f"non-inferior by margin {m}"
    return (f"shown inferior by more than the margin {m}" if (below if options.higher_is_better else above)
            else "not shown non-inferior")
