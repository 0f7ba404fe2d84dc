"""Bayesian comparisons of agents with a region of practical equivalence (ROPE).

``bayes(df, "score ~ agent | task/seed", rope=...)`` gives, for each pair of agents, the posterior probabilities that
the first is practically better, practically equivalent (the difference within +-rope) or practically worse than the
second, the posterior of the difference across tasks (the signed-rank model's mean, the hierarchical model's centre
delta0) and, with the hierarchical model, per task, and the probability of each ordering of the agents (the
signed-rank model by default; the hierarchical model with ``orderings=True``, from a joint fit of all agents).  Two
models from the literature:

* ``model="signed_rank"``: the Bayesian signed-rank test on the task-level mean differences (Benavoli et al. 2014,
  2017): a Dirichlet process posterior with a pseudo-observation at 0 of weight ``prior``, whose draws are Dirichlet
  weights over the tasks; the probabilities are those baycomp's ``SignedRankTest`` gives (the share of posterior
  draws in which each region holds the largest mass).
* ``model="hierarchical"``: the hierarchical model of the per-task differences with the runs as replicates (Corani,
  Benavoli et al. 2017), fitted by the Gibbs sampler of :mod:`._kernels`, with R-hat and effective sample sizes.

Nothing here needs Stan, PyMC or JAX.  This module checks the options, builds the design, forms each pair's inputs and
wraps the kernels' numbers in :class:`BayesResult`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ... import calibration
from ...bounds import bound_ties, mostly_at_bound
from ..._typing import BayesModel, Data, EvalEnv, FormulaLike, Label, NaAction, Normalizer, Seed
from ...cost import admit, check_max_seconds, shows, timed_bar
from ...design import NA_ACTIONS, check_agent_named, design_of, public_function
from ...errors import DesignError, OptionError, label_value, shown, warn
from ...format import a_or_an, count, listed, names_shown, plural, signif, verb
from ...normalization import warn_raw_scales
from ...options import (band_beyond_scores, check_at_most, check_bool, check_choice, check_confidence_level,
                        check_cost_options, check_int, check_n_jobs, check_resamples)
from ...resampling import (agent_seed_sequence, cell_seed_sequence, child_stream, chunk_seeds, pair_seed_sequence,
                           parallel_map, seed_sequence)
from ...statistics import TIE_TOLERANCE, block_ranges, monte_carlo_se, near_ties, tie_tolerance
from . import _kernels as kernels
from ._backend import cost
from ._result import ACROSS, DECISION_THRESHOLD, RUN_AGAIN, WITHHELD_REASON, BayesResult

MODELS = ("signed_rank", "hierarchical")
#: the thresholds below which the chains' diagnostics are printed with a warning (Vehtari et al. 2021)
RHAT_LIMIT = 1.01
ESS_LIMIT = 400
#: the hierarchical model's chains that miss those thresholds are run again, with their warm-up and draws multiplied
#: by a power of 2 up to this (32: 32,000 draws a chain by default), as far as max_seconds= and the memory bound allow
MAX_EXTENSION = 32
#: the most bytes one run of the sampler may hold in per-task draws (chains x draws x tasks x pairs of a group)
MAX_DRAW_BYTES = 500e6
#: audit s21: below this many paired runs on a task a note says what the hierarchical model's probabilities rest on.
#: On Atari 100k (CURL vs DrQ(eps), human-normalised, rope 0.05; tests/reference/bayes_few_runs.py) disjoint sets of 3
#: runs gave P(rope) 0.56-1.00 (>= 0.92 in 8 of 10) and intervals of delta0 missing the 100 runs' estimate (-0.136,
#: P(worse) 0.92) in 9 of 10, sets of 5 runs P(rope) 0.23-1.00 (4 of 6 missing it), sets of 10 P(worse) 0.77-0.98
#: (none missing it)
FEW_PAIRED_RUNS = 10
#: audit s29 (minmax29, tests/reference/bayes_hierarchical_saturated.py): on the ``saturated`` family (85% of a
#: baseline agent's runs at the cap; one agent half a noise unit above, at or below the others; 5-26 tasks, 400 data
#: sets a design) the hierarchical model could not fit a pair with a task whose paired differences do not vary (both
#: agents' runs there all at the cap): agents -> (% of pairs withheld at 3 runs, % of data sets refused, no pair
#: fitted, with every pair compared, at 3 runs, the same two at 10 runs), each (lowest, highest). Audit s11 measured
#: two agents alone, where the one pair withheld refuses the call, and its "64-99% at 3 runs" was printed for any
#: number of agents; with more agents a pair is withheld more often (more pairs of agents at the baseline) and the
#: call refused less (every pair must fail)
HIERARCHICAL_SATURATED = {
    2: ((69, 100), (69, 100), (3, 95), (3, 95)),
    3: ((76, 100), (57, 100), (7, 83), (0, 60)),
    4: ((80, 100), (42, 100), (10, 80), (0, 32)),
    5: ((83, 100), (36, 100), (12, 77), (0, 13)),
    6: ((83, 100), (27, 100), (12, 73), (0, 3)),
    7: ((86, 100), (22, 100), (13, 72), (0, 0)),
    8: ((85, 100), (16, 100), (14, 71), (0, 0)),
}
#: audit s21 (bayescal21): the decisions read from the probabilities, and their measured errors in the package table
#: (the ``bayes.decision`` rows of rlstats/calibration.csv, tests/reference/bayes_decisions.py): "practically
#: equivalent" where P(rope) reaches DECISION_THRESHOLD, "better" or "worse" where P(better) or P(worse) does
DECISION_PROCEDURE = "bayes.decision"
#: the tasks and runs per cell the rows measured, by model (a design is read at the task counts bracketing its own and
#: the nearest runs; bayescal21b added 10 tasks and 5 runs; audit s22 the signed-rank model's 1 and 2 runs, per-task means as a paper's tables give them)
DECISION_TASKS = (5, 10, 26)
DECISION_RUNS = {"signed_rank": (1, 2, 3, 5, 10), "hierarchical": (3, 5, 10)}
#: the most orderings an ordering table may list (k! grows fast; the draws only ever show some)
MAX_ORDERING_AGENTS = 8


@dataclass(frozen=True)
class BayesOptions:
    rope: float = 0.0
    model: BayesModel = "signed_rank"
    control: Label | None = None  # as given; the data's label once read (errors.label_named)
    higher_is_better: bool = True
    prior: float = 0.5
    n_samples: int = 50_000
    chains: int = 8
    warmup: int = 300
    draws: int = 1_000
    confidence_level: float = 0.95
    na_action: NaAction = "raise"
    n_jobs: int = 1
    orderings: bool | None = None
    progress: bool = True

    @classmethod
    def checked(cls, **options: Any) -> BayesOptions:
        """Validate every option once; raises OptionError naming the bad one."""
        rope = options["rope"]
        if isinstance(rope, bool) or not isinstance(rope, numbers.Real) or not math.isfinite(float(rope)) \
                or float(rope) < 0:
            raise OptionError(f"rope must be a finite number >= 0 (the half-width of the region of practical "
                              f"equivalence, in the response's units), got {shown(rope)}")
        prior = options["prior"]
        if isinstance(prior, bool) or not isinstance(prior, numbers.Real) or not math.isfinite(float(prior)) \
                or float(prior) <= 0:
            raise OptionError(f"prior must be a finite number > 0 (the weight of the pseudo-observation at 0; "
                              f"Benavoli et al. use 0.5), got {shown(prior)}")
        orderings = options.get("orderings")
        if orderings is not None and not isinstance(orderings, (bool, np.bool_)):
            raise OptionError(f"orderings= is True, False or None (the model's default: the signed-rank model's "
                              "orderings on complete designs, none from the hierarchical model), got "
                              f"{shown(orderings)}")
        control = options["control"]
        control = None if control is None else label_value("control", control)  # read against the agents later
        return cls(
            rope=float(rope), model=check_choice("model", options["model"], MODELS), control=control,
            higher_is_better=check_bool("higher_is_better", options["higher_is_better"]), prior=float(prior),
            n_samples=check_resamples(options["n_samples"], minimum=100, name="n_samples", what="posterior draws",
                                      advice="every draw is kept in memory, and 10,000 to 100,000 give Monte Carlo "
                                             "errors well below the differences that matter"),
            chains=check_at_most("chains", check_int("chains", options["chains"], minimum=2), 64, "chains",
                                 "4 to 8 chains are enough for R-hat"),
            warmup=check_resamples(options["warmup"], minimum=100, name="warmup", what="warm-up iterations",
                                   advice="they are not kept (the default is 300, and chains that miss R-hat or ESS "
                                          "are run again longer); pass a smaller warmup"),
            draws=check_resamples(options["draws"], minimum=100, name="draws", what="draws a chain",
                                  advice="each is kept in memory; pass a smaller draws (the default is 1,000)"),
            confidence_level=check_confidence_level(options["confidence_level"]),
            na_action=check_choice("na_action", options["na_action"], NA_ACTIONS),
            n_jobs=check_n_jobs(options["n_jobs"]), orderings=None if orderings is None else bool(orderings),
            progress=check_cost_options(options.get("progress", True), options.get("max_seconds"))[0])


@public_function
def bayes(data: Data, formula: FormulaLike | None = None, *, rope: float = 0.0, model: BayesModel = "signed_rank",
          control: Label | None = None, higher_is_better: bool = True, prior: float = 0.5, n_samples: int = 50_000,
          chains: int = 8, warmup: int = 300, draws: int = 1_000, confidence_level: float = 0.95,
          normalize: Normalizer = None, na_action: NaAction = "raise", rng: Seed = None, n_jobs: int = 1,
          progress: bool = True, max_seconds: float | None = None,
          eval_env: EvalEnv = None, orderings: bool | None = None) -> BayesResult:
    """Posterior probabilities that one agent is practically better, equivalent or worse than another.

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` or ``"score ~ agent | task/seed"`` (the tasks are needed: the models compare the
        agents task by task).
    rope : float
        Half-width of the region of practical equivalence: differences within ``[-rope, rope]`` count as practically
        none.  In the response's units, that is on normalised scores when ``normalize=`` is given or the data were
        normalised (the result's ``rope_scale`` says which).  0 (the default, as in baycomp) gives no such region:
        the print, summary, LaTeX, report and figures then give P(better) and P(worse) alone, which sum to 1, as
        baycomp gives (p_left, p_right) at rope=0, and say "better / worse", not "practically" (``tidy()`` keeps
        ``p_rope``, 0); the default figure is then the posterior of the difference, as baycomp's ``plot()`` draws a
        histogram where the ROPE holds no mass.
        A rope at least the range of every score analysed is a note (every difference lies inside it), and a warning
        from 10 times that range (a units slip).
    model : {"signed_rank", "hierarchical"}
        The Bayesian signed-rank test on the task-level mean differences (any number of runs per cell), or the
        hierarchical model of the per-task differences with the runs as replicates (at least 2 runs of each agent,
        paired by seed, on every task the pair shares, and 2 shared tasks; a pair without is withheld with a note).
    control : str, int or float, optional
        Named as the data write it (an agent coded 9: 9 or "9"). Compare every other agent with this one
        (``agent_1`` = the other agent, ``agent_2`` = the control); by default every pair of agents, in the agents'
        order.
    higher_is_better : bool
        Whether a higher score is better (False: lower scores are better, e.g. regret or cost).
    prior : float
        Signed-rank model: weight ``s`` of the Dirichlet process's pseudo-observation at 0 (Benavoli et al. use 0.5).
    n_samples : int
        Signed-rank model: Dirichlet draws of the posterior (baycomp's default, 50,000).
    chains, warmup, draws : int
        Hierarchical model: chains of the Gibbs sampler (run side by side as arrays, so 8 cost little more than 4),
        warm-up iterations discarded (they also learn the Metropolis proposal of sigma0 and nu), draws kept per
        chain.  On Atari 100k (15 pairs of 6 agents, 26 games, 100 runs) the defaults gave every R-hat of the 435
        parameters below 1.007 and every bulk ESS above 1,450 over six seeds, in 2.7-4.1 s CPU
        (benchmarks/README.md, benchmarks/bench_bayes.py).  With fewer runs or tasks they need not (sigma0 and nu
        mix slowly: R-hat up to 1.12 and ESS down to 45 on 11 of 90 designs of 2-26 tasks x 3-10 runs,
        tests/reference/bayes_convergence.py), so the pairs whose chains miss R-hat <= 1.01 or ESS >= 400 are run
        again, without the others, with warm-up and draws multiplied by a power of 2 (at least 4, from the ESS's
        shortfall, doubling while they miss) up to 32 times: a bound fixed before any fit, lowered until the call's
        estimated work with the runs again (at most 65 times the first run's) is within ``max_seconds=`` and a run's
        draws within 500 MB; a note gives the warm-up and draws used.  That grid then converged everywhere, in up to
        37 s CPU for one pair (DER vs DrQ, 26 games x 10 runs, 32 times); on DER, DrQ, DrQ(eps), SPR, CURL and
        OTRainbow on raw scores (not normalised as in the benchmark), 26 games x 100 runs, rng=0, where 2 of the 15
        pairs missed (largest R-hat 1.014), the call took 10 s instead of 2.8.  Pairs that converge on the first run
        are as before.
    confidence_level : float
        Level of the equal-tailed credible intervals.
    orderings : bool, optional
        The posterior probability of each ordering of the agents (``result.orderings``, a table in ``summary()``),
        on complete designs of at most 8 agents (8! = 40,320 orderings; the table lists those the draws show, most
        probable first).  None (default): given by the signed-rank model (its Dirichlet weights are shared by every
        pair), not by the hierarchical model, whose orderings need a joint fit of all agents that costs about a
        third of the pairs' fits again.  True: also with the hierarchical model (refused beyond 8 agents or on an
        incomplete design); False: none.  An ordering ranks the agents by value in each posterior draw: the ROPE
        plays no part (two agents within it are still ordered), so with two agents the ordering's probability is
        P(difference > 0) (the signed-rank model's mean difference, the hierarchical joint fit's centre delta0),
        which equals p_better + p_rope / 2 only when the posterior is symmetric within the ROPE.  The orderings are
        weak: agents whose values are equal in a draw are tied there, ``"A = B > C"`` (tied agents in the agents'
        order), never ordered by their labels, and the probabilities of all orderings, tied or not, sum to 1.  Values
        within 1e-12 of the draw's range of values (``rlstats.statistics.tie_tolerance``) plus the rounding of its
        scale of each other count as equal, so that rounding cannot order them and a map a * y + b of the scores
        leaves the ties: with the signed-rank model the scale is the number of tasks times the draw's largest
        Dirichlet-weighted mean of absolute task means (agents with the same task means, e.g. both at a score cap
        on every task, tie in every draw); with the hierarchical joint fit, whose delta0 draws are continuous, the
        draw's largest absolute delta0.  A note counts the draws with a tie.  From one task no ordering is given
        (every draw weighs that task alone, so its means' ordering would come with probability 1).
    normalize : DataFrame, str or dict, optional
        Per-task normalisation first (:func:`rlstats.normalize`), stated in the notes; the ROPE is then on the
        normalised scale.
    na_action : {"raise", "drop", "omit"}
        Missing values: an error, or drop those rows and say so.
    rng : None, int or numpy.random.Generator
        Seed of the posterior draws (recorded in the result): the signed-rank model's Dirichlet draws come in blocks of
        10,000, each from its own stream (a task's weights from a stream below it keyed by the task's name, so a
        pair's posterior does not move with the names of tasks it did not run), and each pair's chains from a stream keyed by its two agents' names (the
        pairs sharing the same tasks are sampled together, one group in a complete design, but draw nothing of each
        other's), so the numbers do not depend on ``n_jobs``, and a pair's hierarchical posterior is the same whatever
        other agents are in the data (but where ``max_seconds=`` or the memory bound, which count every pair, cap how
        far its chains are run again; the orderings' joint fit keys each agent's draws by its name).
    n_jobs : int
        Threads over the blocks of Dirichlet draws and over the groups of pairs (-1: one per core).
    progress : bool
        A progress bar over the estimated seconds (tqdm: on a terminal, or a notebook's widget) when the work is
        estimated to take more than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up; by default the caller's frame.

    Returns
    -------
    BayesResult

    Raises
    ------
    FormulaError, DesignError, OptionError
        A DesignError for the hierarchical model without a seed column (``| task``), and where it can fit no pair:
        none shares 2 tasks, or each has a task with fewer than 2 runs paired by seed (none: no seed in common) or
        with differences that do not vary (the message names the first such pair and task and the way on).  A pair
        that never ran on a common task is not an error, nor, with the hierarchical model, one sharing a single task
        or with such a task while other pairs can be fitted: its row is withheld (NaN; "withheld" in the print and
        the tables, a panel saying why in the figures) with a note naming it (and its tasks), and every other pair
        is compared (audit s28).  The hierarchical model does not fit such a pair without the task, which would
        compare it on tasks chosen by its runs (a task where both agents sit at a cap has differences 0): dropping
        that task's rows does so where the reader chooses it.

    See Also
    --------
    rlstats.skillings_mack : The blocked rank test: is any agent different, without a ROPE.
    rlstats.probability_of_improvement : P(X > Y) of runs, with bootstrap intervals.
    rlstats.compare : Picks a back end by name: ``method="bayes"``.

    Notes
    -----
    Signed-rank model (Benavoli et al. 2014, section 3; 2017, section 5.2): with task-level mean differences
    d_1..d_q of a pair and d_0 = 0 the pseudo-observation, a posterior draw is a Dirichlet weight vector
    w ~ Dir(prior, 1, ..., 1); the posterior masses of "worse", "equivalent" and "better" are the weighted shares
    sum_ij w_i w_j of the Walsh averages (d_i + d_j)/2 below -rope, within the ROPE and above it (1/2 on a bound; a
    Walsh average within 1e-12 of the range of the pair's differences, plus 4 eps of its largest ``|score|``, of a
    bound is on it, the tie rule of ``rlstats.statistics.near_ties``, so shifted or rescaled scores give the same
    result), and
    ``p_worse``, ``p_rope``, ``p_better`` are the shares of draws in which each mass is the largest (baycomp's
    ``probs``; a draw where two or three masses tie for the largest is split equally between them, where baycomp gives
    it to the first, so identical agents get p_worse = p_better = 1/2 with rope=0).  Those masses are of the Walsh
    averages, whose weighted median in a draw is its pseudo-median: ``pseudo_median`` is the posterior median of it,
    the quantity the probabilities are about.  The posterior of the mean difference (``estimate``, with the credible
    interval) is sum_i w_i d_i, another quantity: a far-off task moves it more, so it can have the other sign (audit
    s38: Atari 100k's DrQ(eps) vs SPR on 6 games, P(better) 0.656, pseudo-median 0.065, mean -0.184).  All pairs share the Dirichlet weights of the
    tasks (a pair on fewer tasks uses its tasks' weights renormalised: the Dirichlet posterior of its tasks), so the
    draws are joint and the orderings of the agents by their weighted mean over tasks have a posterior probability.
    A pair sharing one task has no probabilities and no credible interval (NaN, with a note): its posterior mean
    difference is that task's difference times the task's weight against d_0, so they would read the sign of that
    difference and the prior's weight alone (with rope=0, a probability of 1 whenever the difference is not 0).

    Hierarchical model (Corani et al. 2017, section 4, with uncorrelated runs): each pair's runs on a task are paired
    by seed label (``| task/seed`` is required; runs without a partner of the same seed are left out of that pair and
    named in the notes); the differences x_ij of task i are
    N(delta_i, sigma_i^2), delta_i ~ Student-t(nu, delta0, sigma0), and the priors are those of the paper as baycomp
    sets them, on the differences divided by the mean over tasks of their standard deviation: delta0 ~
    U(-max|x|, max|x|), sigma0 ~ U(0, 1000 sd(task means)), sigma_i ~ U(0, 1000), nu - 1 ~ Gamma(alpha, beta) with
    alpha ~ U(1, 2), beta ~ U(0.01, 0.1).  ``p_better``, ``p_rope`` and ``p_worse`` are the posterior probabilities
    that delta0 (the centre, or location, of the tasks' differences: not their mean, which a far-off task moves
    more) lies above, within and below the ROPE; the per-task ones those of
    delta_i; ``p_better_next``, ``p_rope_next`` and ``p_worse_next`` are those of Corani et al. and baycomp's
    ``HierarchicalTest``: the share of posterior draws in which a next task's difference, t(nu, delta0, sigma0), has
    its largest mass above, within or below the ROPE (the simplex of ``plot(kind="simplex")``).  R-hat (rank-normalised split R-hat, the larger of bulk and tail) and the bulk effective sample size of
    delta0, sigma0, nu and every delta_i are reported; chains that miss R-hat <= 1.01 or an effective sample size of
    400 are run again longer (``chains, warmup, draws`` above), and a pair that still misses is a warning and a note.
    With n paired runs on a task and sigma_i flat a priori, the task's difference has a likelihood as heavy-tailed as a
    t with n - 2 degrees of freedom (a Cauchy at 3 runs), so the model draws the tasks' differences towards delta0 and
    P(rope) can read an equivalence the runs do not show: a pair with fewer than 10 paired runs on some task gets a
    note with what was measured (audit s21, tests/reference/bayes_few_runs.py: on Atari 100k, CURL vs DrQ(eps)
    human-normalised with rope 0.05, sets of 3 runs gave P(rope) at least 0.92 in 8 of 10 where all 100 runs give
    P(worse) 0.92; without a ROPE, where P(rope) is 0, the note speaks of delta0: its intervals from those sets of 3
    runs missed the 100 runs' delta0 in 9 of 10).
    The joint fit of ``orderings=True`` is not run again: its warning asks for more draws.  The sampler reads the
    standardised sums and squares (the joint fit: each task's runs less the reference agent's mean there) and the
    priors' bounds on a grid of 2^-20 of the scale (about 1e-6 of it, far below the Monte Carlo error), so scores
    shifted or rescaled give the same draws with the same ``rng`` (audit s36: a shift's rounding, 1e-12 of the scale,
    otherwise parted the chains).

    The decisions these probabilities invite, "practically equivalent" at P(rope) >= 0.95 and "better" or "worse" at
    P(better) or P(worse) >= 0.95, are posterior decisions, not tests; their frequentist errors are measured in the
    ``bayes.decision`` rows of :func:`rlstats.calibration_table` (audit s21, tests/reference/bayes_decisions.py: two
    agents, 5, 10 or 26 tasks, 3, 5 or 10 runs, and for the signed-rank model 1 and 2 runs too (audit s22: a paper's
    per-task means), four score families, 80 data sets a row, the ROPE the true mean difference at half a noise
    unit).  With the true mean difference on the ROPE's edge, the signed-rank model read
    "equivalent" in 0.025-0.21 of the data sets and the hierarchical model in none at 5 tasks, 0.01-0.23 at 10 and
    0.26-0.63 at 26 (delta0 is the tasks' centre: in two of the four design draws of 26 tasks the tasks' median
    difference was 0.75 to 0.78 of their mean, and the worst draw read "equivalent" in 0.80-0.95 at 10 runs); at
    1.5 times the ROPE in at most 0.09; alike agents were never read "better" or "worse".  At 1 and 2 runs the
    signed-rank model read "equivalent" on the ROPE's edge in 0.0125-0.10, at 1.5 times it in at most 0.025, and alike
    agents "better" or "worse" in up to 0.0375 (capped scores, 5 tasks x 2 runs).  Where a decision is read at a design
    whose rate is above 0.05 by more than 3 Monte Carlo SE, a note quotes the measured rate; one read outside the
    measured designs (fewer than 5 or more than 26 shared tasks, fewer than 3 (the signed-rank model: 1) or more than
    10 runs) is a note that its
    error is not measured there (at 2 tasks x 3 runs the signed-rank model read "equivalent" on the ROPE's edge in
    11 of 60 data sets, tests/reference/bayes_decision_two_tasks.py).

    Every probability is a share of posterior draws, with Monte Carlo error: a note gives the largest standard error
    of the printed ones, sqrt(p (1 - p) / n) with n the signed-rank model's independent draws or, for the chains,
    the effective sample size of that share's indicator (audit s19: over 30 seeds the hierarchical model's shares
    moved by sd 0.0096 where the note said at most 0.0091-0.011; over 20, the signed-rank model's by 0.00195 against
    0.00193).

    The probabilities and credible intervals are Bayesian statements under these models, not tests or confidence
    intervals at a level. Read as ones (audit s9, 300 simulated data sets per design): the signed-rank model's 95%
    interval held the true mean difference across tasks in 0.81-0.83 of data sets at 5 tasks, 0.87 at 10 and
    0.92-0.96 at 26 (a note says so at 10 tasks or fewer), and its P(better) reached 0.95 with no difference in
    0.09-0.10 at 5-10 tasks; the hierarchical model's interval held 0.95-1.00 at 5-10 tasks, and its P(better)
    reached 0.95 in at most 0.03. On runs that mostly sit at a score cap on every task (audit s11: the calibration
    grid's ``saturated`` family, 85% of a baseline agent's runs at the cap, 400 data sets a design) the signed-rank
    interval held 0.62-0.81 at 5 tasks, 0.77-0.84 at 10 and 0.89-0.94 at 26, and with no difference P(better) or
    P(worse) reached 0.95 in up to 0.18 (0.12 at 10 tasks, 0.07 at 26): a note says so for the pairs whose runs
    mostly sit at a task's bound, at any number of tasks, naming those tasks and whose runs (a cap on some tasks
    only was not measured), and where both agents' runs of a task all sit at it, that the task's difference is 0. The
    hierarchical model cannot fit a pair with a task whose paired differences do not vary, and withholds it (audit
    s29: 69-100% of such pairs at 3 runs and 3-95% at 10 on two agents, 5-26 tasks, where that refuses the call; with
    more agents more pairs are withheld, 85-100% at 3 runs at 8 agents, and fewer calls refused, 16-100% at 3 runs and
    none at 10: the note quotes the design's agent count, ``HIERARCHICAL_SATURATED``,
    ``tests/reference/bayes_hierarchical_saturated.py``); its interval of delta0 held the mean difference in 0.99-1.00 at 5
    tasks x 10 runs but 0.68 at 10 tasks x 10 runs with a difference (delta0 is the tasks' centre, not their mean;
    96 data sets), which the note says too.

    References
    ----------
    Benavoli, A., Corani, G., Mangili, F., Zaffalon, M. and Ruggeri, F. (2014), A Bayesian Wilcoxon signed-rank test
    based on the Dirichlet process, ICML, PMLR 32(2), 1026-1034.
    Benavoli, A., Corani, G., Demšar, J. and Zaffalon, M. (2017), Time for a change: a tutorial for comparing multiple
    classifiers through Bayesian analysis, JMLR 18(77), 1-36.
    Corani, G., Benavoli, A., Demšar, J., Mangili, F. and Zaffalon, M. (2017), Statistical comparison of classifiers
    through Bayesian hierarchical modelling, Machine Learning 106, 1817-1837.
    Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner, P.-C. (2021), Rank-normalization, folding, and
    localization: an improved R-hat, Bayesian Analysis 16(2), 667-718.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=10, seeds=5, effect=1.0, rng=0)
    >>> res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.1, rng=0)
    >>> list(res.tidy().columns[:5])
    ['agent_1', 'agent_2', 'p_better', 'p_rope', 'p_worse']
    """
    options = BayesOptions.checked(rope=rope, model=model, control=control, higher_is_better=higher_is_better,
                                   prior=prior, n_samples=n_samples, chains=chains, warmup=warmup, draws=draws,
                                   confidence_level=confidence_level, na_action=na_action, n_jobs=n_jobs,
                                   orderings=orderings, progress=progress, max_seconds=max_seconds)
    ss, record = seed_sequence(rng)
    design = design_of(data, formula, na_action=options.na_action, eval_env=eval_env, normalize=normalize)
    if not design.has_blocks:
        raise DesignError(f"the Bayesian comparisons work task by task: write '{design.formula.text} | task'")
    if design.n_agents < 2:
        raise DesignError("rlstats.bayes compares agents: the data hold one agent; it needs two agents or more")
    if options.control is not None:  # the design's label: 9, np.int64(9) and "9" name the agent printed 9
        options = dataclasses.replace(options, control=check_agent_named(design, "control", options.control))
    if options.orderings and design.n_agents > MAX_ORDERING_AGENTS:
        raise OptionError(f"orderings=True lists the orderings of at most {MAX_ORDERING_AGENTS} agents "
                          f"({MAX_ORDERING_AGENTS}! = {math.factorial(MAX_ORDERING_AGENTS)}); the data hold "
                          f"{design.n_agents}: keep fewer agents with rlstats.compare's subset=, or pass "
                          "orderings=None")
    if options.orderings and not design.is_complete:
        empty = int((design.counts == 0).sum())
        raise DesignError("orderings=True needs every agent on every task (a joint posterior of all agents): "
                          f"{count(empty, 'cell')} of this design {verb(empty, 'is')} empty; keep the "
                          "tasks every agent ran with rlstats.compare's subset=, or pass orderings=None")
    design = warn_raw_scales(design, normalize).runs_by_score()  # sums in one order (audit s16)
    design = band_beyond_scores(design, "rope", options.rope)
    if options.model == "hierarchical" and design.seeds is None:
        raise _unpaired_error(design, getattr(data, "columns", ()))
    # the hierarchical model's pairing by seed, before the estimate: it counts the pairs fitted (audit s28, hier28)
    pairing = _pairing(design, options) if options.model == "hierarchical" else None
    fitted = None if pairing is None else int(pairing[1].sum())
    work = admit(functools.partial(cost, pairs=fitted), design, options, max_seconds, "bayes()")  # issue 43 item 2
    extension = _extension_bound(design, options, work, max_seconds, fitted) if pairing is not None else 1
    with timed_bar(work, shows(work, options.progress), "bayes"):
        return _run(design, options, ss, record, extension, pairing)


def _pairing(design, options):
    """The hierarchical model's :func:`_paired_statistics` of every pair, and which pairs it fits: those sharing 2
    tasks or more, each with 2 paired runs or more that vary (the others are withheld with a note)."""
    first, second = _pairs(design, options)
    sign = 1.0 if options.higher_is_better else -1.0
    means = design.cell_matrix("mean")
    present = ~np.isnan(means[:, first] - means[:, second]).T  # as _run reads it
    stats = _paired_statistics(design, first, second, present, sign)
    fitted = (present.sum(axis=1) >= 2) & np.array([not bad for bad in stats[-1]])
    return stats, fitted


def _extension_bound(design, options, work, max_seconds, fitted=None):
    """The largest factor (a power of 2, at most MAX_EXTENSION) by which the hierarchical model's chains may be run
    again when they miss RHAT_LIMIT or ESS_LIMIT, fixed before any fit: the further runs' factors at least double up to
    it, so they sum to less than twice it, and the call's estimated work with them (1 + 2 factor times the first
    run's) stays within max_seconds=, and the longest run's per-task draws within MAX_DRAW_BYTES (``fitted``: the
    pairs fitted, by default all)."""
    bound = check_max_seconds(max_seconds)
    pairs = design.n_agents - 1 if options.control is not None else design.n_agents * (design.n_agents - 1) // 2
    pairs = pairs if fitted is None else fitted
    size = 8.0 * options.chains * options.draws * design.n_tasks * pairs
    factor = MAX_EXTENSION
    while factor > 1 and ((1 + 2 * factor) * work.seconds > bound or factor * size > MAX_DRAW_BYTES):
        factor //= 2
    return factor


def _pairs(design, options):
    """(first, second) agent indices: every pair i < j, or each other agent against the control."""
    if options.control is None:
        pairs = [(i, j) for i in range(design.n_agents) for j in range(i + 1, design.n_agents)]
    else:
        c = design.agents.index(options.control)
        pairs = [(i, c) for i in range(design.n_agents) if i != c]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def _run(design, options, ss, record, extension=1, pairing=None):
    notes = list(design.notes)
    first, second = _pairs(design, options)
    sign = 1.0 if options.higher_is_better else -1.0
    means = design.cell_matrix("mean")                              # (tasks, agents)
    differences = sign * (means[:, first] - means[:, second]).T     # (pairs, tasks)
    present = ~np.isnan(differences)
    # the design keeps only tasks with runs of 2 agents or more, so some pair compared here met (with control=
    # too: the control's tasks hold another agent)
    met = present.any(axis=1)
    # audit s28 (bayespair28): a pair that never met is withheld, as rlstats.equivalence withholds its across-tasks
    # test, and every other pair compared (before, one such pair refused the call)
    notes += _never_met_note(design, options, first, second, met)
    partial = met & ~present.all(axis=1)
    if partial.any():
        # "compared" where some pairs never met, which share no task and are not counted here (audit s38 claims38:
        # "2 pairs of agents did not share every task" of 6 pairs that did not, 4 of them never met)
        compared = " compared" if not met.all() else ""
        notes.append(f"{count(int(partial.sum()), 'pair')} of {plural(design.arm_word)}{compared} did not share every "
                     f"{design.block_word}: each pair is compared on the {plural(design.block_word)} where both ran "
                     "(n_tasks in tidy())")
    if design.max_runs_per_cell > 1:  # the data's columns by their names (audit s32 block32)
        task = a_or_an(design.block_word)
        notes.append(f"each {design.arm_word}'s runs on {task} are averaged first for the signed-rank model's "
                     f"{design.block_word}-level differences" if options.model == "signed_rank" else
                     f"each pair's runs on {task} are paired by their {design.formula.run_word} label and the pairs' "
                     "differences are the "
                     "replicates: this removes randomness that runs of one label share (an environment seed, say), "
                     "if they do; where the labels only number the runs the pairs are arbitrary, which independent "
                     "runs allow but which gains nothing")
    rope_scale = design.units  # one home for every result: Design.units
    if options.model == "signed_rank":
        parts = _signed_rank(design, options, ss, first, second, differences, present, sign, notes)
    else:
        parts = _hierarchical(design, options, ss, first, second, differences, present, sign, notes, extension,
                              pairing)
    notes += _decision_notes(design, options, parts["comparisons"], first, second, present)
    return BayesResult(
        method=("Bayesian signed-rank test (Dirichlet process posterior)" if options.model == "signed_rank" else
                "Bayesian hierarchical model of per-task differences (Gibbs sampler)"),
        formula=design.formula, data_name=design.data_name, nobs=design.nobs, notes=tuple(notes),
        options=dataclasses.asdict(options), seed=record, model=options.model, rope=options.rope,
        rope_scale=rope_scale, higher_is_better=options.higher_is_better, confidence_level=options.confidence_level,
        agents=design.agents, tasks=design.tasks, counts=design.counts, **parts)


def _never_met_note(design, options, first, second, met):
    """The note naming the pairs withheld because they never ran on a common task (``met`` False), in the words of
    :meth:`rlstats.connectivity.ComparisonGraph.never_met_phrase`."""
    if met.all():
        return []
    pairs = [(design.agents[first[p]], design.agents[second[p]]) for p in np.flatnonzero(~met)]
    one = len(pairs) == 1
    return [f"{design.graph.never_met_phrase(pairs)}: {'its' if one else 'their'} probabilities, "
            f"{ACROSS[options.model][1]} and credible interval are withheld (NaN in tidy()), since each model reads a "
            "pair's differences on the tasks where both ran; the other pairs are compared"]


def _interval(draws, level, axis=-1):
    tail = (1 - level) / 2
    low, high = np.quantile(draws, [tail, 1 - tail], axis=axis)     # one partition for both ends
    return low, high


def _pair_frame(design, first, second, present, p, estimate, low, high):
    names = np.asarray(design.agents, dtype=object)
    return pd.DataFrame({"agent_1": names[first], "agent_2": names[second], "p_better": p[:, 2], "p_rope": p[:, 1],
                         "p_worse": p[:, 0], "estimate": estimate, "conf_low": low, "conf_high": high,
                         "n_tasks": present.sum(axis=1)})


# ---------------------------------------------------------------------------- the signed-rank model

def _signed_rank(design, options, ss, first, second, differences, present, sign, notes):
    complete = bool(present.all()) and design.is_complete
    n_tasks = design.n_tasks
    # the tasks in their names' sorted order, not the design's (a Categorical's category order); each task's
    # Dirichlet weight is drawn from a stream keyed by its label (block below), so neither order moves the draws
    by_name = design.task_order
    task_means = design.cell_matrix("mean")[by_name]
    filled, logged = np.where(present, differences, 0.0)[:, by_name], present[:, by_name]  # (pairs, tasks)
    ordered = complete and design.n_agents <= MAX_ORDERING_AGENTS and options.orderings is not False
    # the tie tolerance of a Walsh sum at the ROPE bounds (statistics.near_ties' rule): 1e-12 of the range of the
    # pair's atoms (0 and its differences) plus the rounding of its largest |task-level score|, both twice (a sum
    # of two), so that a map a * y + b of the scores leaves which sums are on a bound
    magnitude = np.nanmax(np.abs(np.stack([task_means[:, first], task_means[:, second]])), axis=(0, 1))
    atoms = np.where(logged, filled, 0.0)
    tolerance = 2 * tie_tolerance(np.maximum(atoms.max(axis=1), 0.0) - np.minimum(atoms.min(axis=1), 0.0), magnitude)

    labels = [design.tasks[t] for t in by_name]

    def block(item):
        # block b's pseudo-observation from its stream, each task's weights from that stream's child keyed by the
        # task's label (audit s33 curvestream33: one block of draws over the tasks in their names' order moved every
        # pair's posterior when a task was renamed to sort elsewhere, or another pair's task sorted first)
        start, stop, seed = item
        generator = np.random.Generator(np.random.PCG64(seed))
        tasks = [np.random.Generator(np.random.PCG64(cell_seed_sequence(seed, label))) for label in labels]
        weights = kernels.dirichlet_block(generator, stop - start, n_tasks, options.prior, tasks)
        theta, mean = kernels.signed_rank_block(weights, filled, logged, options.rope, tolerance)
        codes = kernels.ordering_codes(weights, task_means, options.higher_is_better) if ordered else None
        return theta, mean, codes, weights

    blocks = list(parallel_map(block, chunk_seeds(child_stream(ss, 0), options.n_samples, kernels.BLOCK),
                               options.n_jobs))
    theta = np.concatenate([b[0] for b in blocks])        # (S, pairs, 3)
    mean = np.concatenate([b[1] for b in blocks])         # (S, pairs)
    p = kernels.winner_counts(theta) / options.n_samples
    low, high = _interval(mean, options.confidence_level, axis=0)
    # one shared task: the mean is that task's difference times its Dirichlet weight against the prior's
    # pseudo-observation at 0, so an interval would be the prior's quantiles scaled, no spread of tasks (audit s14)
    alone = present.sum(axis=1) == 1
    low[alone] = high[alone] = np.nan
    # and its probabilities: the Walsh averages are the prior's 0, d / 2 and d, so the regions' masses follow d's sign
    # and the prior's weight (P(worse) = 1 whenever d < 0 at rope = 0), not evidence from tasks (second reading, s14)
    p[alone] = np.nan
    # and its estimate: the posterior mean is that difference times the weight's mean 1 / (1 + prior), a number the
    # prior sets, not the data (audit s28: DER vs SPR on Pong printed -1.21 for runs 1.81 apart); the task's own
    # each pair's draws summed as one contiguous row (pairwise summation), whatever the number of pairs: a column of
    # several was summed in another order than a lone pair's, so a pair's estimate moved in its last bit with the
    # other agents in the data (audit s32 stream32)
    estimate = np.ascontiguousarray(mean.T).mean(axis=1)
    estimate[alone] = filled[alone].sum(axis=1)
    # the quantity the probabilities are about (audit s38 fixc38: DrQ(eps) vs SPR printed P(better) 0.656 beside a
    # mean difference of -0.184): the posterior median of each draw's pseudo-median, the median of the Walsh averages
    # whose masses decide the regions; a lone task's is its difference, as its estimate (the prior's 0 sets the rest)
    # a pair that never met (its own note): its draws weigh the prior's 0 alone, so nothing of it is given
    never = ~present.any(axis=1)
    weights = np.concatenate([b[3] for b in blocks], axis=1)
    pseudo_median = np.array([np.nan if never[k] else kernels.posterior_pseudo_median(weights, filled[k], logged[k])
                              for k in range(len(first))])
    pseudo_median[alone] = estimate[alone]
    p[never], low[never], high[never], estimate[never], pseudo_median[never] = np.nan, np.nan, np.nan, np.nan, np.nan
    mean[:, never], theta[:, never] = np.nan, np.nan
    comparisons = _pair_frame(design, first, second, present, p, estimate, low, high)
    comparisons.insert(comparisons.columns.get_loc("estimate"), "pseudo_median", pseudo_median)
    notes += _monte_carlo_note(design, first, second, monte_carlo_se(p, options.n_samples),
                               f"{options.n_samples:,} independent posterior draws",
                               f"sqrt(p (1 - p) / {options.n_samples:,})", options.n_samples)
    task = design.block_word  # the data's blocks by their column (audit s33 words33b)
    notes += (_few_tasks(comparisons, options.prior, task) + _one_task_note(comparisons, task)
              + _credible_note(comparisons, options.rope, task) + _saturated_note(design, first, second, options.rope))
    orderings = None
    if ordered and n_tasks == 1:
        # every draw weighs the one task alone: its ordering is the task means', not a posterior probability
        task, agents = design.block_word, plural(design.arm_word)  # the data's columns (audit s33 words33b)
        notes.append(f"orderings of the {agents} are not given from one {task}: every posterior draw weighs that "
                     f"{task} alone, so the ordering of its means would come with probability 1; add {plural(task)}")
    elif ordered:
        orderings = _ordering_frame(design, np.concatenate([b[2] for b in blocks]), options.higher_is_better,
                                    notes)
    elif options.orderings is False:
        pass
    elif design.n_agents > MAX_ORDERING_AGENTS:
        agents = plural(design.arm_word)  # the data's arms by their column (audit s33 words33b)
        notes.append(f"orderings of the {agents} are not listed beyond {MAX_ORDERING_AGENTS} {agents} "
                     f"({design.n_agents}! orderings)")
    else:
        notes.append(f"orderings of the {plural(design.arm_word)} need every {design.arm_word} on every "
                     f"{design.block_word} (a joint posterior of their means): not given for this incomplete design")
    kept = min(kernels.KEPT_DRAWS, options.n_samples)
    return dict(comparisons=comparisons, task_effects=_task_frame(design, first, second, differences, present, sign),
                orderings=orderings, posterior_draws=mean[:kept].T, simplex_draws=theta[:kept].transpose(1, 0, 2),
                diagnostics=None, n_samples=options.n_samples, prior=options.prior, chains=None, draws=None,
                runs_used=_runs_in_pairs(design, first, second, present), pair_draws=None)


#: the probability columns a Monte Carlo note names, in the order of the error arrays' last axis
_SHARES = ("P(worse)", "P(rope)", "P(better)", "P(worse next)", "P(rope next)", "P(better next)")
#: those the print shows (P(worse next) is tidy()'s p_worse_next, one minus the two printed)
_PRINTED = ("P(worse)", "P(rope)", "P(better)", "P(rope next)", "P(better next)")


def _monte_carlo_note(design, first, second, se, draws, formula, independent=None):
    """The note of the largest Monte Carlo standard error of the printed probabilities (audit s19: a P(.) printed to 4
    digits moved by 0.002 from one rng= to another, the hierarchical model's by 0.012, and nothing said so). ``se``
    (pairs, shares) in :data:`_SHARES`' order; NaN where withheld. ``independent``: the number of independent draws
    (the signed-rank model's), whose rule of three bounds a share seen at 0 or 1 (review s19: "at most 0" was said)."""
    # the note speaks of the printed columns only (audit s19: it named P(worse next), which the print does not show)
    se = np.where(np.isin(_SHARES[:se.shape[-1]], _PRINTED), se, np.nan)
    if not np.isfinite(se).any():
        return []
    if np.nanmax(se) == 0:  # every share 0 or 1: no draw says how far from it the model's probability is
        return [f"Monte Carlo error: every P(.) shown is 0 or 1 in all {draws}, where {formula.split(' with ')[0]} is "
                "0; another rng= may still move one " + (
                    f"by up to about {signif(3 / independent, 2)} (3 / {independent:,}, the rule of three at 95%)"
                    if independent else "off it by a share of the draws that these cannot bound")]
    p, k = np.unravel_index(np.nanargmax(se), se.shape)
    # quoted where an agent's name holds a comma, as every list of names (audit s20: "(R&D, Inc vs SPR, P(rope))")
    one, other = names_shown([design.agents[first[p]], design.agents[second[p]]], among=design.agents)
    return [f"Monte Carlo error: each P(.) is a share of {draws}; its standard error, {formula}, is at most "
            f"{signif(se[p, k], 2)} ({one} vs {other}, {_SHARES[k]}), so "
            "another rng= moves the printed probabilities by about that"]


def _runs_in_pairs(design, first, second, present):
    """The runs of the cells some pair compares (the signed-rank model's task means use all of a cell's runs)."""
    cells = np.zeros(design.counts.shape, dtype=bool)   # (tasks, agents)
    for side in (first, second):
        for p, agent in enumerate(side):
            cells[present[p], agent] = True
    return int(design.counts[cells].sum())


def _prior_share(prior, n_tasks):
    """The expected share of the signed-rank posterior's Walsh-average mass that involves the prior's pseudo-observation
    at 0: with Dirichlet weights (prior, 1, ..., 1) over it and n tasks its weight w0 is Beta(prior, n), and the pairs
    holding it weigh w0^2 + 2 w0 (1 - w0), of mean 2 E[w0] - E[w0^2]."""
    n = np.asarray(n_tasks, dtype=np.float64)
    return 2 * prior / (prior + n) - prior * (prior + 1) / ((prior + n) * (prior + n + 1))


#: Fewest tasks for which the signed-rank probabilities come without a note: with identical agents (differences iid
#: normal, default prior, rope 0 or 0.1) P(better) or P(worse) reached 0.95 in 100%/0% (1 task), 47%/35% (2) and
#: 27%/20% (3) of 300 simulated data sets, against 12-17% at 6-8 tasks (tests/reference/few_tasks_signed_rank.py)
FEW_TASKS = 3
#: most tasks at which the signed-rank model's credible intervals carry the note of their frequentist coverage
#: (audit s9, 300 data sets per design: 0.81-0.83 at 5 tasks, 0.87 at 10, 0.92-0.96 at 26)
CREDIBLE_FEW_TASKS = 10


def _few_tasks(comparisons, prior, task="task"):
    """A note naming the pairs compared on fewer than FEW_TASKS tasks, whose probabilities look more certain than so
    few tasks warrant: the posterior's support is their differences and the pseudo-observation at 0."""
    few = comparisons[(comparisons["n_tasks"] < FEW_TASKS) & comparisons["p_better"].notna()]  # not those withheld
    if not len(few):
        return []
    names = "; ".join(f"{a} vs {b} ({count(int(n), task)})"  # ``task``: the data's blocks (audit s33 words33b)
                      for a, b, n in zip(few["agent_1"], few["agent_2"], few["n_tasks"]))
    share = _prior_share(prior, few["n_tasks"].max())
    return [f"the signed-rank probabilities of {names} rest on fewer than {count(FEW_TASKS, task)}: the posterior "
            "knows "
            f"only their differences and the prior's pseudo-observation at 0 (weight {signif(prior, 3)}, in "
            f"{share:.0%} or more of the Walsh-average mass on average), and with identical agents it reached a "
            "probability of 0.95 in over a third of simulated data sets of 1 or 2 tasks; read them as a description "
            f"of these {plural(task)}, not of {plural(task)} in general, and add {plural(task)}"]


def _one_task_note(comparisons, task="task"):
    """A note naming the pairs that share one task, whose credible interval is withheld (audit s14: an interval
    excluding 0 was printed of a mean difference across tasks from one task)."""
    alone = comparisons[comparisons["n_tasks"] == 1]
    if not len(alone):
        return []
    names = "; ".join(f"{a} vs {b}" for a, b in zip(alone["agent_1"], alone["agent_2"]))
    return [f"the probabilities and credible intervals of {names} are withheld: those pairs share one {task}, where "
            f"the posterior of the mean difference is that {task}'s difference times its Dirichlet weight against the "
            "prior's pseudo-observation at 0, so they would read the sign of that difference and the prior's weight "
            f"(a probability of 1 whenever it is not 0 with no ROPE), not a spread of {plural(task)}; their mean "
            f"difference is that {task}'s observed difference; add {plural(task)} where both ran"]


def _credible_note(comparisons, rope=0.0, task="task"):
    """A note, where a pair has at most CREDIBLE_FEW_TASKS tasks, that the signed-rank model's credible intervals are
    not confidence intervals and how they read as ones (audit s9: nothing said so, and '95%' reads as a level).

    Its rate of P(better) >= 0.95 with no difference was measured with no ROPE (audit s9); with a ROPE the note says
    so and quotes the table's ``bayes.decision`` rows, which measure it with one (audit s24: the rope-0 rate was
    quoted at rope=0.05, where those rows found none of 80 at 5 and 10 tasks, 3 to 10 runs)."""
    few = comparisons[(comparisons["n_tasks"] <= CREDIBLE_FEW_TASKS) & comparisons["conf_low"].notna()]
    if not len(few):
        return []
    false_difference = "and P(better) reached 0.95 with no difference in 0.09-0.10"
    if rope > 0:
        false_difference = f"and with no ROPE P(better) reached 0.95 with no difference in 0.09-0.10{_roped_rate()}"
    return [f"the credible intervals of the mean difference ({count(len(few), 'pair')} on "
            f"{count(CREDIBLE_FEW_TASKS, task)} or fewer) are Bayesian intervals of the Dirichlet process over "
            f"{plural(task)}, not "
            "confidence intervals: in simulation (task-level differences normal about a true mean, 3 runs) the 95% "
            "interval held the true mean difference across tasks in 0.81-0.83 of data sets at 5 tasks and 0.87 at "
            f"10 (0.92-0.96 at 26), {false_difference}; for an interval at its "
            "level over tasks like these use model='hierarchical' (0.95-1.00 there) or rlstats.equivalence(..., "
            "across='paired_t')"]


def _roped_rate():
    """' (with a ROPE ...: at most R of N data sets a design ...)': the signed-rank model's largest rate of a false
    difference in the table's ``bayes.decision`` rows at CREDIBLE_FEW_TASKS tasks or fewer and 3 runs or more, whose
    ROPE is the difference their other designs test (half the runs' noise sd); '' where the table has none."""
    rows = [row for row in calibration.rows(DECISION_PROCEDURE) if row["test"] == "signed_rank"
            and row["statistic"] == "false_difference" and int(row["tasks"]) <= CREDIBLE_FEW_TASKS
            and int(row["runs"]) >= 3]
    if not rows:
        return ""
    worst = max(rows, key=lambda row: 1 - calibration.worst_coverage(row))
    rate = 1 - calibration.worst_coverage(worst)
    tasks = sorted({int(row["tasks"]) for row in rows})
    runs = sorted({int(row["runs"]) for row in rows})
    said = (f"in none of the {worst['n_sim']} data sets of any design" if rate == 0 else
            f"in at most {rate:.3f} of a design's {worst['n_sim']} data sets (or of one draw of its tasks' offsets "
            "and scales)")
    return (f" (with a ROPE, rarer: at the ROPE of the calibration table's {DECISION_PROCEDURE} rows, half the runs' "
            f"noise sd, P(better) or P(worse) reached 0.95 with no difference {said} at "
            f"{' and '.join(map(str, tasks))} tasks and {runs[0]} to {runs[-1]} runs)")


def _saturated_note(design, first, second, rope=0.0):
    """A note naming the pairs whose runs mostly sit at a task's bound (:func:`rlstats.bounds.mostly_at_bound`, read
    from the pair's runs), where the signed-rank model's credible interval and probabilities read further from their
    level than the credible note's normal scores say (audit s11), at any number of tasks. It says on which of the
    pair's tasks and whose runs (audit s22: it said "the runs of A vs B mostly sit at ... a task" and quoted figures
    measured with the cap on every task of a pair saturated on one game of 26), and what the model does with them."""
    shown_pairs, zero_pairs, fewer = [], [], []
    for i, j in zip(first, second):
        counts = design.counts[:, [i, j]]
        at_bound = bound_ties(design, (i, j))[0]
        # only the tasks both agents ran, which alone the pair's numbers read (audit s36 fixeq36: B vs C was said
        # capped, its difference 0, on a task only B ran, its runs there at their own largest score)
        both = (counts > 0).all(axis=1)
        mostly = mostly_at_bound(at_bound, counts) & both[:, None]
        tasks = np.flatnonzero(mostly.any(axis=1))
        shared = int(both.sum())
        if not tasks.size or not shared:  # a pair that never met is withheld: no word of its runs here
            continue
        names = names_shown([design.tasks[t] for t in tasks], design.tasks)
        # each agent's count over its own such tasks, named where they are not all the pair's listed (audit s28:
        # "A 5 of its 5 runs there" read as A's runs on all three tasks listed, of which it held 5 at the cap on one)
        who = [f"{design.agents[a]} {int(at_bound[on, c].sum())} of its {count(counts[on, c].sum(), 'run')} "
               + ("there" if on.sum() == tasks.size else
                  f"on {listed(names_shown([design.tasks[t] for t in np.flatnonzero(on)], design.tasks), 4)}")
               for c, (a, on) in enumerate(zip((i, j), mostly.T)) if on.any()]
        pair = f"{design.agents[i]} vs {design.agents[j]}"
        shown_pairs.append(f"{pair} on {tasks.size} of {count(shared, 'task')} ({listed(names, 4)}; {', '.join(who)})")
        fewer += [pair] if tasks.size < shared else []
        # the pair's runs of a task all one value (statistics.near_ties' rule): its difference of means is 0 (to the
        # tie rule of the ROPE bounds)
        rows = np.isin(design.agent, (i, j))
        low, high = block_ranges(near_ties(design.y[rows], design.task[rows])[0], design.task[rows], design.n_tasks)
        flat = [t for t in tasks if low[t] == high[t]]
        if flat:
            zero_pairs.append(f"{pair}: {listed(names_shown([design.tasks[t] for t in flat], design.tasks), 4)}")
    if not shown_pairs:
        return []
    zero = ""
    if zero_pairs:
        where = ("counts half to P(better) and half to P(worse) (rope = 0: the Walsh averages at 0, like the prior's "
                 "pseudo-observation)" if rope == 0 else "lies in the ROPE and counts towards P(rope)")
        zero = (f"; where both agents' runs of a task all sit at it ({'; '.join(zero_pairs)}) the difference is 0, "
                f"which {where}, whatever the agents would score without the cap")
    part = (f"; here the runs at a bound are on only some of the tasks of {listed(fewer, 8)} (above), which was not "
            "measured" if fewer else "")
    return [f"on some tasks half or more of an agent's runs (2 or more) sit at the pair's largest or smallest score "
            f"of the task, as at a score cap: {listed(shown_pairs, 8)}. The signed-rank model reads each task's "
            "difference of the agents' mean scores, and a mean of runs held at a cap says how often the agent reached "
            f"the cap, not how far past it the agent would score{zero}. With the cap on every task (85% of a baseline "
            "agent's runs at the cap, 3 and 10 runs, 400 simulated data sets a design) the model's 95% credible "
            "interval held "
            "the true mean difference across tasks in 0.62-0.81 of data sets at 5 tasks, 0.77-0.84 at 10 and "
            "0.89-0.94 at 26, and with no difference P(better) or P(worse) reached 0.95 in up to 0.18 at 5 tasks "
            f"(0.12 at 10, 0.07 at 26){part}: read them as a description of these tasks; "
            f"{_hierarchical_saturated_words(design.n_agents)}, and its interval, of the tasks' "
            "centre delta0 rather than their mean, held the mean difference in 0.68 of 96 at 10 tasks x 10 runs; for "
            "a test at its level on such runs use rlstats.equivalence(...), whose across-tasks test held alpha there"]


def _hierarchical_saturated_words(n_agents):
    """What the hierarchical model does on such runs, at the measured row of ``n_agents`` (the most measured, 8,
    beyond it: :data:`HIERARCHICAL_SATURATED`)."""
    agents = min(max(int(n_agents), 2), max(HIERARCHICAL_SATURATED))
    pairs3, calls3, pairs10, calls10 = HIERARCHICAL_SATURATED[agents]

    def span(low_high):
        low, high = low_high
        return f"{low}%" if low == high else f"{low}-{high}%"
    at = f"{agents} agents ({'' if agents == n_agents else 'the most measured; '}5-26 tasks)"
    return (f"model='hierarchical' cannot fit a pair with a task whose runs' differences do not vary and withholds "
            f"it: in simulations of such runs with {at} it withheld {span(pairs3)} of the pairs at 3 "
            f"runs and {span(pairs10)} at 10, and refused the call (no pair fitted) in {span(calls3)} of the data "
            f"sets at 3 runs and {span(calls10)} at 10")


def _ordering_frame(design, codes, higher_is_better, notes):
    """The weak orderings seen in the draws' ``codes`` (:func:`kernels.codes_of`), best first, most probable first,
    with their share of the draws: agents tied in a draw are joined by " = " (in the agents' order), never ordered by
    their labels; a note says how many draws tied some agents."""
    tied = int(np.count_nonzero(codes >= math.factorial(design.n_agents)))
    codes, hits = np.unique(codes, return_counts=True)
    by = np.argsort(-hits, kind="stable")
    word = " > " if higher_is_better else " < "
    names = design.agents
    if tied:
        notes.append(f"orderings: some agents tied in {tied} of the {int(hits.sum())} posterior draws (values within "
                     f"{TIE_TOLERANCE:g} of each other relative to the draw's range, plus its rounding, as the same "
                     "task means give, "
                     "e.g. both at a score cap): agents tied in a draw are written 'A = B' and are not ordered there")
    return pd.DataFrame({"ordering": [word.join(" = ".join(names[a] for a in group)
                                                for group in kernels.weak_ordering(codes[i], design.n_agents))
                                      for i in by],
                         "probability": hits[by] / hits.sum()})


def _task_frame(design, first, second, differences, present, sign, posterior=None):
    """Per pair and shared task: the observed mean difference (agent_1 - agent_2, in the direction that counts as
    better) and, with the hierarchical model, delta_i's posterior."""
    names = np.asarray(design.agents, dtype=object)
    pair, task = np.nonzero(present)
    frame = pd.DataFrame({"agent_1": names[first[pair]], "agent_2": names[second[pair]],
                          "task": np.asarray(design.tasks, dtype=object)[task],
                          "observed": differences[pair, task]})
    columns = ("estimate", "conf_low", "conf_high", "p_better", "p_rope", "p_worse")
    for column in columns:
        frame[column] = np.nan if posterior is None else posterior[column][pair, task]
    return frame


# ---------------------------------------------------------------------------- the hierarchical model

def _unpaired_error(design, columns=()):
    """The hierarchical model's refusal of a formula that names no run column: the column to name after the blocks
    is the data's one column outside the formula where there is one (``rep`` of ``algo, env, rep, ret``), else said
    as a column to choose (audit s33 words33b: it suggested '/seed' whatever the data's run column was)."""
    others = [str(c) for c in columns if c not in design.formula.columns]
    text, block = design.formula.text, design.block_word
    run = (f"name the run column after the {block}, '{text}/{others[0]}'" if len(others) == 1 else
           f"name the column that labels the runs after the {block}, '{text}/<run column>'")
    return DesignError(f"the hierarchical model pairs each {design.arm_word}'s runs on {a_or_an(block)} by their "
                       f"label: {run} (runs with the same label are paired), or use model='signed_rank', which works "
                       f"on {block}-level means")


def _paired_statistics(design, first, second, present, sign):
    """Per pair and task: the sum, number and sum of squares (around their mean) of the run differences paired by
    seed label (an inner join of the two cells on the seed), their sd and largest |difference|; per pair, the runs
    it paired ((agent, task, seed)), those left without a partner ((agent, task) -> seeds) and its tasks that cannot
    be fitted (task -> (paired runs, whether they vary)): fewer than 2 paired runs, or differences that do not vary,
    leave that task's spread sigma_i without data."""
    if design.seeds is None:
        # pairing needs a shared label: row order makes the result depend on how the rows were listed, and score
        # order pairs best with best, which shrinks the spread of the differences (overconfident intervals)
        raise _unpaired_error(design)
    n_pairs = first.size
    shape = (n_pairs, design.n_tasks)
    sums, counts, within, sd, largest = (np.zeros(shape) for _ in range(5))
    by_cell = {}
    for t, a, seed, y in zip(design.task, design.agent, design.seeds, design.y):
        by_cell.setdefault((int(t), int(a)), {})[seed] = y
    used, left_out, unfit = [], [], []
    for p in range(n_pairs):
        mine, missing, bad = set(), {}, {}
        for t in np.flatnonzero(present[p]):
            one, two = by_cell[(t, first[p])], by_cell[(t, second[p])]
            runs = sorted(set(one) & set(two))
            for agent, cell in ((first[p], one), (second[p], two)):
                if len(cell) > len(runs):
                    missing[(design.agents[agent], design.tasks[t])] = set(cell) - set(runs)
            mine.update((a, t, r) for a in (first[p], second[p]) for r in runs)
            if not runs:
                bad[int(t)] = (0, True)
                continue
            x = sign * (np.array([one[r] for r in runs]) - np.array([two[r] for r in runs]))
            sums[p, t], counts[p, t] = x.sum(), x.size
            within[p, t] = np.square(x - x.mean()).sum()
            sd[p, t] = x.std()
            largest[p, t] = np.abs(x).max()
            if x.size < 2:
                bad[int(t)] = (x.size, True)
            elif kernels.runs_do_not_vary(within[p, t], np.square(x).sum()):
                bad[int(t)] = (x.size, False)
        used.append(mine)
        left_out.append(missing)
        unfit.append(bad)
    return sums, counts, within, sd, largest, used, left_out, unfit


def _unfit_words(design, pair, unfit):
    """'A and B have 1 paired run on 'task_03'' (or share no seed there, or their differences there do not vary):
    the first task of a pair that the hierarchical model cannot fit, and the way on, for the refusal of a call where
    no pair can be compared."""
    t, (n, varied) = min(unfit.items())
    one, two = design.agents[pair[0]], design.agents[pair[1]]
    (task, agent), run = design.words, design.formula.run_word  # the data's columns by their names (audit s33 words33b)
    if n == 0:
        return (f"{one} and {two} share no {run} on {design.tasks[t]!r}: the hierarchical model pairs runs by {run}, "
                f"so that {task} has no paired runs; use model='signed_rank', which works on {task}-level means, or "
                f"drop one of the {plural(agent)}' or the {task}'s rows")
    if varied:
        return (f"the hierarchical model estimates each {task}'s run-to-run spread, which needs at least 2 runs of "
                f"each {agent} on every {task}: {one} and {two} have {count(n, 'paired run')} on "
                f"{design.tasks[t]!r}; add runs, or use model='signed_rank', which works on {task}-level means")
    return (f"the differences of {one} and {two} on {design.tasks[t]!r} do not vary from run to run (e.g. both at a "
            f"score cap): the hierarchical model's per-{task} variance has no data; use model='signed_rank', or drop "
            f"that {task}'s rows")


def _unfit_note(design, options, first, second, unfit, withheld):
    """The note of the pairs the hierarchical model withholds (``withheld``) for a task it cannot fit (``unfit``,
    :func:`_paired_statistics`), naming each pair's such tasks and why. Withheld rather than fitted without those
    tasks: that would compare the pair on tasks chosen by its runs, and leaving out a task where both agents sit at
    a cap (differences all 0) would move delta0 away from 0 (audit s28, hier28: one such pair refused the call)."""
    if not withheld.any():
        return []
    parts = []
    for p in np.flatnonzero(withheld):
        tasks = sorted(unfit[p].items())
        said = [f"{names_shown([design.tasks[t]], design.tasks)[0]}: "
                + (f"no shared {design.formula.run_word}" if n == 0 else count(n, "paired run") if varied else
                   f"{count(n, 'paired run')} whose differences do not vary") for t, (n, varied) in tasks]
        parts.append(f"{design.agents[first[p]]} vs {design.agents[second[p]]} ({listed(said, 3)})")
    one = int(withheld.sum()) == 1
    task, agent = design.words  # the data's columns by their names (audit s33 words33b)
    tasks = plural(task)
    return [f"the hierarchical model estimates each {task}'s run-to-run spread of a pair's differences paired by "
            f"{design.formula.run_word}, which needs 2 paired runs or more whose differences vary on every {task} the "
            "pair "
            f"shares, and {listed(parts, 8)} {verb(withheld.sum(), 'does')} not have them there, so "
            f"{'its' if one else 'their'} probabilities, {ACROSS[options.model][1]} and credible interval are withheld "
            f"(NaN in tidy()) rather than read from the other {tasks}, which would compare the pair on {tasks} chosen "
            f"by its runs ({a_or_an(task)} where both {plural(agent)} sit at a cap has differences 0); the other pairs "
            f"are compared; add runs, use model='signed_rank', or drop that {task}'s rows to compare the pair "
            "without it"]


def _left_out_note(design, first, second, counts, left_out, analysed):
    """The note of the runs of the pairs compared (``analysed``) that had no run of the same seed in the other agent's
    cell and were left out of that pair's differences."""
    kept = [p for p in np.flatnonzero(analysed) if left_out[p]]
    if not kept:
        return []
    # each run once, however many pairs left it out
    runs = len({(a, t, seed) for p in kept for (a, t), seeds in left_out[p].items() for seed in seeds})
    parts = []
    for p in kept:
        cells = sorted(left_out[p].items(), key=lambda kv: (kv[0][0], kv[0][1]))
        shown_cells = ", ".join(f"{len(n)} of {a} on {t!r}" for (a, t), n in cells[:3])
        more = f" and {count(len(cells) - 3, 'more cell')}" if len(cells) > 3 else ""
        parts.append(f"{design.agents[first[p]]} vs {design.agents[second[p]]}: "
                     f"{count(int(counts[p].sum()), 'pair')} of runs used, "
                     f"{count(sum(map(len, left_out[p].values())), 'run')} left out ({shown_cells}{more})")
    agent = design.arm_word  # the data's columns by their names (audit s33 words33b)
    return [f"{count(runs, 'run')} of the data's {design.nobs} had no run of the same {design.formula.run_word} in the "
            "other "
            f"{agent}'s cell for at least one pair of {plural(agent)} and were left out of that pair's differences; "
            "per "
            "pair: "
            + "; ".join(parts)]


def _hierarchical(design, options, ss, first, second, differences, present, sign, notes, extension=1,
                  pairing=None):
    # the joint fit's own cells are checked before any fit runs, so a refusal costs nothing
    cells = _agent_cells(design, sign) if options.orderings else None
    (sums, counts, within, sd, largest, used, left_out, unfit), met = pairing or _pairing(design, options)
    # the observed per-task differences are those of the paired runs the model sees, not of all runs
    paired = np.where(present & (counts > 0), sums / np.maximum(counts, 1), np.nan)
    n_pairs = first.size
    shared = present.sum(axis=1)
    if not met.any():
        # no pair can be fitted: the whole call rests on the first such task, or on 2 shared tasks
        bad = [p for p in range(n_pairs) if unfit[p]]
        if bad:
            raise DesignError(_unfit_words(design, (first[bad[0]], second[bad[0]]), unfit[bad[0]]))
        p = int(np.argmax(shared > 0))
        task = design.block_word  # the data's blocks by their column (audit s33 words33b)
        raise DesignError(f"the hierarchical model estimates the spread of the per-{task} differences, which needs at "
                          f"least {count(2, task)}; {design.agents[first[p]]} and {design.agents[second[p]]} share "
                          f"{count(int(shared[p]), task)}")
    # a pair that never met is withheld (its own note), and so is one on a single shared task while other pairs have
    # 2 or more (audit s28: one such pair refused the call), and one with a task of fewer than 2 paired runs, or of
    # runs whose differences do not vary (audit s28, hier28: those refused the call too): no fit of any of them
    runs_used = len(set().union(*(used[p] for p in np.flatnonzero(met))))  # the runs behind the pairs fitted
    notes += _left_out_note(design, first, second, counts, left_out, met)
    notes += _single_task_note(design, options, first, second, present, shared == 1)
    unfitted = (shared >= 2) & ~met
    notes += _unfit_note(design, options, first, second, unfit, unfitted)
    notes += _few_runs_note(design, first, second, np.where(present & met[:, None], counts, np.inf), options.rope)
    # each pair on its own scale: the differences divided by the mean over tasks of their standard deviation
    scale = np.array([sd[p, present[p]].mean() if met[p] else np.nan for p in range(n_pairs)])
    groups = {}
    for p in np.flatnonzero(met):
        groups.setdefault(tuple(present[p]), []).append(p)

    # the sampler takes a pair's tasks and each pair's two agents in their names' sorted order, not the design's (a
    # Categorical's category order), and keys each pair's stream by its agents' names (the first's, then the
    # second's below it: resampling.agent_seed_sequence), so that neither that order nor the other agents change a
    # pair's draws (audit s33: a group's stream was keyed by its first pair's places); a pair fitted the other way
    # round has its draws mirrored
    by_name = design.task_order
    place = design.agent_places
    flipped = (place[first] > place[second]) if options.control is None else np.zeros(n_pairs, dtype=bool)
    low_place = np.where(flipped, place[second], place[first])
    high_place = np.where(flipped, place[first], place[second])
    mirror = np.where(flipped, -1.0, 1.0)
    chains_ss = child_stream(ss, 1)
    names = design.agents
    pair_streams = [pair_seed_sequence(chains_ss, names[a], names[b])
                    for a, b in zip(np.where(flipped, second, first), np.where(flipped, first, second))]

    def run(members, keep, factor):
        s = scale[members][:, None]
        # the standardised statistics on kernels.snapped's grid, so that the scores' units give the same draws (audit
        # s36 bayes36: a shift's rounding, 1e-12 of them, parted the chains), each task's sums on a grid of its own
        # spread (audit s36 rv36b: on the pair's, a task of spread 5e-4 beside a scale of 2.8e5 lost its mean)
        x_sums = kernels.snapped(mirror[members][:, None] * sums[members][:, keep] / s, unit=sd[members][:, keep] / s)
        x_counts = counts[members][:, keep]
        x_within = kernels.snapped(within[members][:, keep] / np.square(s), relative=True)
        means = x_sums / x_counts
        # the largest |standardised difference| of a run bounds delta0 (the paper's and baycomp's max|x|)
        priors = kernels.Priors(delta_high=kernels.snapped((largest[members][:, keep] / s).max(axis=1), relative=True),
                                sigma0_high=1000 * np.maximum(means.std(axis=1), 1e-12),
                                sigma_high=np.full(len(members), 1000.0))
        # each pair's own stream: the pairs sampled together (a group's, whatever n_jobs) draw nothing of each
        # other's; a pair run again with f times the warm-up and draws has its stream's child f
        streams = [pair_streams[p] if factor == 1 else child_stream(pair_streams[p], factor) for p in members]
        chains, _ = kernels.gibbs(x_sums, x_counts, x_within, priors, streams, options.chains,
                                  factor * options.warmup, factor * options.draws)
        return s, chains

    def fit(members):
        """A group's parts: (pairs, tasks, scale, chains, factor, (R-hat, ESS) of their first run); a pair that
        misses the limits is run again at a larger factor, its own (from its own ESS), while it misses and the
        bound allows; the pairs run again at one factor are sampled together."""
        members = np.array(sorted(members, key=lambda p: (low_place[p], high_place[p])))
        keep = by_name[present[members[0]][by_name]]  # the group's tasks (codes), in that order
        parts, waiting = [], {1: members}   # factor -> the pairs to run at it
        first_run = {}  # pair -> (R-hat, ESS) of its first run, which the note quotes
        while waiting:
            factor = min(waiting)
            batch = waiting.pop(factor)
            s, chains = run(batch, keep, factor)
            # each parameter's diagnosis, as the result reports it: computed once, for the run again and the report
            diagnosis = _diagnosis(chains, mirror[batch], keep)
            r_hat, ess = diagnosis[0].max(axis=1), diagnosis[1].min(axis=1)
            for i, p in enumerate(batch):
                first_run.setdefault(p, (float(r_hat[i]), float(ess[i])))
            good = (r_hat <= RHAT_LIMIT) & (ess >= ESS_LIMIT) | (factor >= extension)
            if good.any():
                parts.append((batch[good], keep, s[good], _chains_of(chains, good), factor,
                              (max(first_run[p][0] for p in batch[good]), min(first_run[p][1] for p in batch[good])),
                              (diagnosis[0][good], diagnosis[1][good])))
            for i in np.flatnonzero(~good):
                # its next factor: its ESS's shortfall with a margin, at least 4 (an R-hat above the limit needs
                # longer chains, not a few more draws), a power of 2, at most the bound
                wanted = max(4.0, 1.5 * ESS_LIMIT / max(float(ess[i]), 1.0), 2.0 * factor)
                later = int(min(extension, 2 ** math.ceil(math.log2(wanted))))
                waiting[later] = np.append(waiting.get(later, np.array([], dtype=batch.dtype)), batch[i])
        return parts

    fits = [part for parts in parallel_map(fit, list(groups.values()), options.n_jobs) for part in parts]
    level, rope = options.confidence_level, options.rope
    # NaN (0 draws) where a pair is withheld, every other row filled by its fit below
    p_pair = np.full((n_pairs, 3), np.nan)
    estimate, low, high = np.full(n_pairs, np.nan), np.full(n_pairs, np.nan), np.full(n_pairs, np.nan)
    kept = np.full((n_pairs, min(kernels.KEPT_DRAWS, options.chains * options.draws)), np.nan)
    simplex = np.full((n_pairs, kept.shape[1], 3), np.nan)
    p_next = np.full((n_pairs, 3), np.nan)
    rhats, esss = np.full(n_pairs, np.nan), np.full(n_pairs, np.nan)
    pair_draws = np.zeros(n_pairs, dtype=np.int64)  # each pair's draws, more where its chains were run again longer
    monte_carlo = np.full((n_pairs, 6), np.nan)   # the standard errors of p_pair's and p_next's shares (_SHARES)
    posterior = {c: np.full(differences.shape, np.nan) for c in ("estimate", "conf_low", "conf_high", "p_better",
                                                                  "p_rope", "p_worse")}
    diagnostics = []
    extended = []
    for members, keep, s, chains, factor, first_diagnosis, (pair_rhat, pair_ess) in fits:
        draws = chains.delta0.shape[1] * chains.delta0.shape[2]
        # the figures' draws: every k-th of all chains end to end, so they show what the intervals are computed from
        thinned = np.arange(kept.shape[1]) * (draws // kept.shape[1])
        if factor > 1:
            extended.append((members, factor, first_diagnosis))
        oriented = s * mirror[members][:, None]                      # the scale, and the pair's orientation back
        delta0 = chains.delta0 * oriented[:, :, None]                # (m, chains, draws), in the response's units
        delta = chains.delta * oriented[:, :, None, None]            # (m, chains, draws, tasks)
        parameters = {"delta0": delta0, "sigma0": chains.sigma0 * s[:, :, None], "nu": chains.nu}
        for i, p in enumerate(members):
            flat = delta0[i].ravel()
            pair_draws[p] = flat.size
            p_pair[p] = [np.mean(flat < -rope), np.mean(np.abs(flat) <= rope), np.mean(flat > rope)]
            # a next task's difference, t(nu, delta0, sigma0) at each draw: its masses beyond and within the ROPE,
            # and the share of draws in which each is the largest (baycomp's HierarchicalTest.probs)
            masses = kernels.next_task_masses(flat, parameters["sigma0"][i].ravel(), chains.nu[i].ravel(), rope)
            p_next[p] = kernels.winner_counts(masses[:, None, :])[0] / draws
            # each share's indicator, chain by chain (a draw's winner by argmax: ties, measure zero, go to the first)
            regions = np.stack([flat < -rope, np.abs(flat) <= rope, flat > rope]
                               + [masses.argmax(axis=-1) == k for k in range(3)])
            monte_carlo[p] = kernels.share_se(regions.reshape(6, *delta0[i].shape))
            simplex[p] = masses[thinned]
            estimate[p] = flat.mean()
            low[p], high[p] = _interval(flat, level)
            kept[p] = flat[thinned]
            # a row per task (the sampler's memory is task-major, so this is a view)
            per_task = np.moveaxis(delta[i], -1, 0).reshape(-1, draws)
            where = keep
            posterior["estimate"][p, where] = per_task.mean(axis=1)
            posterior["conf_low"][p, where], posterior["conf_high"][p, where] = _interval(per_task, level, axis=1)
            posterior["p_better"][p, where] = np.mean(per_task > rope, axis=1)
            posterior["p_rope"][p, where] = np.mean(np.abs(per_task) <= rope, axis=1)
            posterior["p_worse"][p, where] = np.mean(per_task < -rope, axis=1)
            rows = [(name, values[i]) for name, values in parameters.items()]
            rows += [(f"delta[{design.tasks[t]}]", delta[i][..., k]) for k, t in sorted(enumerate(where),
                                                                                       key=lambda kt: kt[1])]
            r, e = pair_rhat[i].tolist(), pair_ess[i].tolist()  # of these rows, by _diagnosis
            rhats[p], esss[p] = max(r), min(e)
            diagnostics += [{"agent_1": names[first[p]], "agent_2": names[second[p]], "parameter": name,
                             "estimate": float(v.mean()), "r_hat": rv, "ess_bulk": ev}
                            for (name, v), rv, ev in zip(rows, r, e)]
    comparisons = _pair_frame(design, first, second, present, p_pair, estimate, low, high)
    comparisons["p_better_next"], comparisons["p_rope_next"], comparisons["p_worse_next"] = p_next[:, 2], p_next[:, 1], \
        p_next[:, 0]
    comparisons["r_hat"], comparisons["ess_bulk"] = rhats, esss
    notes += _monte_carlo_note(design, first, second, monte_carlo, "the chains' correlated draws",
                               "sqrt(p (1 - p) / n) with n the effective sample size of that share's indicator")
    for members, factor, (r_hat, ess) in extended:
        which = listed([f"{names[first[p]]} vs {names[second[p]]}" for p in members], 8)
        notes.append(f"the chains of {which} missed R-hat <= {RHAT_LIMIT} or ESS >= {ESS_LIMIT} with "
                     f"{options.draws:,} draws a chain (largest R-hat {signif(r_hat, 4)}, smallest ESS "
                     f"{signif(ess, 3)}) and {RUN_AGAIN} "
                     f"{factor * options.warmup:,} and {factor * options.draws:,} a chain (the bound: {extension} "
                     "times warmup= and draws=, as far as max_seconds= and memory allow); the numbers are that "
                     "run's")
    bad = (rhats > RHAT_LIMIT) | (esss < ESS_LIMIT)
    if bad.any():
        which = "; ".join(f"{names[first[p]]} vs {names[second[p]]} (R-hat {signif(rhats[p], 4)}, ESS "
                          f"{signif(esss[p], 3)})" for p in np.flatnonzero(bad))
        reach = (f"even with warm-up and draws extended {extension} times" if extension > 1 else
                 "and max_seconds= left no room to run them longer, or a longer run's draws would pass "
                 f"{MAX_DRAW_BYTES / 1e6:g} MB")
        message = (f"the chains of {count(int(bad.sum()), 'pair')} did not show convergence (an R-hat above "
                   f"{RHAT_LIMIT} or an effective sample size below {ESS_LIMIT}), {reach}: {which}; rerun with more "
                   "draws= and warmup=")
        notes.append(message)
        warn(message)
    orderings = None
    if options.orderings:
        orderings, joint = _joint_orderings(design, options, ss, cells, notes)
        diagnostics += joint
    elif options.orderings is None:
        agents = plural(design.arm_word)  # the data's arms by their column (audit s33 words33b)
        notes.append(f"orderings of the {agents} are not computed by default with the hierarchical model (fitted "
                     f"pair by pair): orderings=True adds a joint fit of all {agents} against one reference and their "
                     "posterior probabilities")
    return dict(comparisons=comparisons,
                task_effects=_task_frame(design, first, second, paired, present, sign, posterior),
                orderings=orderings, posterior_draws=kept, simplex_draws=simplex,
                diagnostics=pd.DataFrame(diagnostics), n_samples=None, prior=None, chains=options.chains,
                draws=options.draws, runs_used=runs_used, pair_draws=tuple(int(n) for n in pair_draws),
                withheld_because=tuple(_withheld_words(design, unfit[p]) if unfitted[p] else "one shared task"
                                       if shared[p] == 1 else WITHHELD_REASON if shared[p] == 0 else ""
                                       for p in range(n_pairs)))


def _withheld_words(design, unfit):
    """Why a pair with tasks the hierarchical model cannot fit (``unfit``) is withheld, in a few words for the print's
    prose and the figures' panels: "1 paired run on task_03" (the first such task; the note names them all)."""
    t, (n, varied) = min(unfit.items())
    task = names_shown([design.tasks[t]], design.tasks)[0]
    return (f"no shared {design.formula.run_word}" if n == 0 else count(n, "paired run") if varied else
            "differences that do not vary") + f" on {task}"



def _decision_notes(design, options, comparisons, first, second, present):
    """The measured error of the decisions a reader takes from this result's probabilities, where the calibration
    table shows it above 1 - DECISION_THRESHOLD (0.05) by more than 3 Monte Carlo SE at the measured design (the
    worse of the task counts bracketing the pair's shared tasks, :func:`rlstats.calibration.bracketing_counts`; the
    nearest runs; :func:`rlstats.calibration.shortfall`, the rule of every other note that quotes the table): for
    the pairs with P(rope) >= 0.95, how often the model read "practically equivalent" when the true mean difference sat on the ROPE's
    edge or beyond; for those with P(better) or P(worse) >= 0.95, how often it read a difference between alike agents.
    These are posterior decisions, not tests: the note quotes the measured rate and promises no level."""
    rows = calibration.rows(DECISION_PROCEDURE)
    if not rows:
        return []
    p = comparisons[["p_better", "p_rope", "p_worse"]].to_numpy(dtype=float)
    counts = np.asarray(design.counts)
    notes = []
    measured_runs = DECISION_RUNS[options.model]
    miss_target = f"1 - {DECISION_THRESHOLD} = 0.05, the error the threshold suggests,"
    for statistic, decided, word, which_p in (
            ("false_equivalence", p[:, 1] >= DECISION_THRESHOLD, "practically equivalent", "P(rope)"),
            ("false_difference", (p[:, 0] >= DECISION_THRESHOLD) | (p[:, 2] >= DECISION_THRESHOLD),
             "practically better or worse", "P(better) or P(worse)")):
        by_design: dict[tuple[tuple[int, ...], int], list[int]] = {}
        outside: list[tuple[int, str]] = []
        for k in np.flatnonzero(decided):
            shared = present[k]
            tasks = int(shared.sum())
            runs = int(np.minimum(counts[shared, first[k]], counts[shared, second[k]]).min())
            most = int(np.maximum(counts[shared, first[k]], counts[shared, second[k]]).max())
            key = (calibration.bracketing_counts(DECISION_TASKS, tasks),  # read both sides' rows (nearest23)
                   calibration.nearest_count(measured_runs, runs))
            by_design.setdefault(key, []).append(k)
            if not (DECISION_TASKS[0] <= tasks <= DECISION_TASKS[-1]
                    and measured_runs[0] <= runs <= measured_runs[-1]):
                # the pair's runs as they are: "1 run" of a pair with 1 to 5 runs per agent and task said every cell
                # held one (audit s37 claims37)
                outside.append((k, f"{count(tasks, 'task')}, "
                                   + (count(runs, 'run') if most == runs else f"{runs} to {most} runs")))
        if outside:
            # the rows' rates move with the tasks (the hierarchical model's false equivalence rose from none at 5
            # tasks to 0.26-0.63 at 26) and the signed-rank model read 'equivalent' at 2 tasks x 3 runs in 11 of 60
            # data sets (tests/reference/bayes_decision_two_tasks.py) where the 5-task rows read 0.025-0.063: a
            # design off the grid is not vouched for by its nearest row (audit s21, review21d)
            notes.append(
                listed([f"{comparisons['agent_1'].iloc[k]} vs {comparisons['agent_2'].iloc[k]} ({d})"
                        for k, d in outside], 8)
                + f": {which_p} of at least {DECISION_THRESHOLD} read as '{word}' at a design outside those the "
                f"calibration table's {DECISION_PROCEDURE} rows measured ({DECISION_TASKS[0]} to "
                f"{DECISION_TASKS[-1]} shared tasks, {measured_runs[0]} to {measured_runs[-1]} runs per agent): how "
                "often this decision errs here is not measured")
        for (tasks, runs), pairs in sorted(by_design.items()):
            row = calibration.shortfall([row for row in rows if int(row["tasks"]) in tasks], DECISION_THRESHOLD,
                                        test=options.model, statistic=statistic, runs=runs)
            if row is None:
                continue
            which = listed([f"{comparisons['agent_1'].iloc[k]} vs {comparisons['agent_2'].iloc[k]}" for k in pairs], 8)
            truth = ("the true mean difference sat " + ("on the ROPE's edge" if row["configuration"] == "delta = rope"
                                                        else "at 1.5 times the ROPE")
                     if statistic == "false_equivalence" else "the agents were alike (true difference 0)")
            notes.append(
                f"{which}: {which_p} of at least {DECISION_THRESHOLD} read as '{word}' is a posterior decision, "
                f"not a test; at the measured design{'s either side of' if len(tasks) > 1 else ' nearest'} this "
                f"one ({calibration.bracket_words(tasks, row['tasks'])}, "
                f"{count(int(row['runs']), 'run')} per agent, "
                f"{row['distribution'].replace('_', '-')} scores) the {options.model.replace('_', '-')} model read "
                f"'{word}' where {truth} in {1 - float(row['coverage']):.3f} of {row['n_sim']} simulated data sets"
                f"{calibration.worst_draw_clause(row, size=True)} (the calibration table's {DECISION_PROCEDURE} "
                f"rows), {calibration.miss_clause(row, DECISION_THRESHOLD, size=True, target=miss_target)}"
                + ("; the hierarchical model's P(rope) is about delta0, the centre of the tasks' differences, not "
                   "their mean" if options.model == "hierarchical" and statistic == "false_equivalence" else ""))
    return notes


def _single_task_note(design, options, first, second, present, single):
    """The note of the pairs the hierarchical model withholds because they share one task (``single``): the spread
    of the tasks' differences, sigma0, has no data there (before audit s28 one such pair refused the call)."""
    if not single.any():
        return []
    which = listed([f"{design.agents[first[p]]} vs {design.agents[second[p]]} "
                    f"({names_shown([design.tasks[int(np.argmax(present[p]))]], design.tasks)[0]})"
                    for p in np.flatnonzero(single)], 8)
    task, tasks = design.block_word, plural(design.block_word)  # the data's blocks by their column (block32)
    return [f"the hierarchical model estimates the spread of the per-{task} differences across {tasks}, which needs 2 "
            f"shared {tasks} or more: {which} share only one, so {'its' if single.sum() == 1 else 'their'} "
            f"probabilities, {ACROSS[options.model][1]} and credible interval are withheld (NaN in tidy()); the "
            f"{task}'s observed difference is in task_effects, and model='signed_rank' gives it as the estimate"]


def _few_runs_note(design, first, second, counts, rope):
    """The note of the pairs with fewer than FEW_PAIRED_RUNS paired runs on some task (``counts``: pairs x tasks,
    inf where a pair does not share the task): their tasks' spreads rest on those runs, and the model then draws the
    tasks' differences towards delta0, so that P(rope) can read equivalence the runs do not show, and without a ROPE
    (``rope`` 0, P(rope) 0 by construction) delta0 and its interval are pulled (audit s21, review21b)."""
    fewest = counts.min(axis=1)
    few = np.flatnonzero(fewest < FEW_PAIRED_RUNS)
    if not few.size:
        return []
    which = listed([f"{design.agents[first[p]]} vs {design.agents[second[p]]}" for p in few], 8)
    task = design.block_word  # the data's blocks by their column (audit s33 words33b)
    said = (f"{which} {verb(few.size, 'has')} fewer than {FEW_PAIRED_RUNS} paired runs on some {task} "
            f"(fewest {int(fewest[few].min())}): with n paired runs {a_or_an(task)}'s spread sigma_i, flat a priori, "
            "leaves its difference a likelihood as heavy-tailed as a t with n - 2 degrees of freedom (a Cauchy at 3 "
            f"runs), so the model draws the {plural(task)}' differences towards the centre delta0")
    if rope > 0:
        return [said + ", and P(rope) can read an equivalence the runs do not show: on Atari 100k (CURL vs DrQ(eps), "
                "human-normalised, rope 0.05) 10 disjoint sets of 3 runs gave P(rope) 0.56-1.00 (at least 0.92 in 8) "
                "and 6 sets of 5 runs 0.23-1.00, where all 100 runs give P(worse) 0.92 and delta0 -0.136 (sets of 10 "
                "runs: P(worse) 0.77-0.98), and the signed-rank model gave P(worse) 0.81-1.00 on the same sets of 3; "
                "read P(rope) here as the model's pooling, not as evidence of equivalence, and add runs or use "
                "model='signed_rank'"]
    return [said + ", and delta0 and its interval with them: on Atari 100k (CURL vs DrQ(eps), human-normalised) the "
            "intervals of delta0 from 10 disjoint sets of 3 runs missed the 100 runs' delta0 -0.136 in 9 of 10, of 6 "
            "sets of 5 runs in 4, of 6 sets of 10 runs in none; read P(better) and P(worse) here as the model's "
            "pooling, and add runs or use model='signed_rank'"]


def _diagnosis(chains, mirror, keep):
    """(R-hat, bulk ESS) of each pair of a run (rows) and parameter (columns: delta0, sigma0, nu, then each task's
    delta in the order of the tasks' codes), on the draws in the pair's orientation, as the result reports them.
    ``mirror`` (pairs,): the orientation of the sampler's standardised draws; ``keep``: the run's tasks (codes) in the
    sampler's order.  Both diagnostics are the same in any positive units, so they are read off the standardised
    draws themselves: the pair's scale times them would let the score's units move the folded ranks of two draws
    equally far from the median (audit s36 bayes36: an R-hat by 7e-6 under a shift, the draws the same)."""
    oriented = mirror[:, None]
    by_code = np.argsort(keep)
    delta = chains.delta[..., by_code] * oriented[:, :, None, None]
    stacked = np.concatenate([(chains.delta0 * oriented[:, :, None])[:, None], chains.sigma0[:, None],
                              chains.nu[:, None], np.moveaxis(delta, -1, 1)], axis=1)
    return kernels.diagnose(stacked)


def _chains_of(chains, which):
    """The chains of the pairs ``which`` (a boolean mask) of a run; all of them unchanged."""
    if which.all():
        return chains
    return kernels.Chains(*(values[which] for values in chains))


def _agent_cells(design, sign):
    """Per agent and task (rows agents), the joint fit's statistics of each agent's own runs (oriented by ``sign``):
    counts, sums, means, squares around the mean, largest and smallest run.  A cell whose runs do not vary is refused:
    the joint model gives each agent a variance per task, whose posterior has no bound below without spread (its
    draws ran to NaN, and an ordering built on them)."""
    k = design.n_agents
    y = sign * np.asarray(design.y, dtype=np.float64)
    cells = np.asarray(design.task) * k + np.asarray(design.agent)
    size = design.n_tasks * k
    counts = np.bincount(cells, minlength=size).astype(np.float64)
    sums = np.bincount(cells, weights=y, minlength=size)
    means = sums / counts
    within = np.bincount(cells, weights=np.square(y - means[cells]), minlength=size)
    squares = np.bincount(cells, weights=np.square(y), minlength=size)
    low, high = block_ranges(y, cells, size)
    shape = (design.n_tasks, k)
    counts, sums, means, within, squares, high, low = (v.reshape(shape).T for v in
                                                        (counts, sums, means, within, squares, high, low))
    # the pairwise model's rule for runs that do not vary, on each agent's own runs
    flat = kernels.runs_do_not_vary(within, squares)
    if flat.any():
        a, t = (int(i[0]) for i in np.nonzero(flat))
        raise DesignError(
            f"orderings=True fits every agent's runs jointly, with a variance per agent and task, and "
            f"{design.agents[a]}'s runs on {design.tasks[t]!r} do not vary (e.g. all at a score cap; "
            f"{count(int(flat.sum()), 'such cell')}): that variance has no data; use model='signed_rank', whose "
            "orderings tie agents with equal task means, or leave that task out with rlstats.compare's subset=, or "
            "pass orderings=None")
    return counts, sums, means, within, high, low


def _joint_orderings(design, options, ss, cells, notes):
    """The orderings of the agents from a joint fit of all of them against one reference agent (``control=`` or the
    first), :func:`kernels.gibbs` with ``reference``: each draw ranks the agents by delta0_a, the location of their
    differences from the reference across tasks (the reference's is 0).  ``cells`` are :func:`_agent_cells`.
    Returns the ordering table and the joint fit's diagnostics rows."""
    k = design.n_agents
    ref = design.agents.index(options.control) if options.control is not None else 0
    others = np.array([a for a in range(k) if a != ref])
    counts, sums, means, within, high, low = cells
    variance = within / counts
    # one scale for all agents (the reference's task means are shared): the mean over the other agents and tasks of
    # sd(y_a - y_r) for independent runs, the pairwise model's scale when the reference's runs do not vary
    scale = float(np.sqrt(variance[others] + variance[ref]).mean())
    # every difference of a run of agent a and a run of the reference on one task lies within delta_high (the
    # pairwise model's max|x| whatever the pairing)
    spread = np.maximum(high[others] - low[ref], high[ref] - low[others]).max(axis=1) / scale
    # each task's runs less the reference's mean there (the task means mu_i have a flat prior, so this moves only
    # them), over the scale and on kernels.snapped's grid, the priors' bounds too: a shift or scale of the scores gives
    # the same draws (audit s36 bayes36: the runs' own sums carried a shift's size into every sweep, 1e-9 of the draws
    # at + 1e6); each agent's sum on a task on a grid of its runs' own spread there (audit s36 rv36b: on one grid of
    # the scale, runs of spread 5e-4 beside a scale of 2.8e5 had their mean rounded to the reference's)
    centred = kernels.snapped((sums - counts * means[ref]) / scale, unit=np.sqrt(variance) / scale)
    squares = kernels.snapped(within / scale ** 2, relative=True)
    spread_means = np.maximum((means[others] - means[ref]).std(axis=1) / scale, 1e-12)
    priors = kernels.Priors(delta_high=kernels.snapped(spread, relative=True),
                            sigma0_high=kernels.snapped(1000 * spread_means, relative=True),
                            sigma_high=np.full(others.size, 1000.0))
    # each agent's row its own stream, keyed by its name; the draws the rows share (the reference's) another
    joint_ss = child_stream(ss, 2)
    chains, _ = kernels.gibbs(centred[others], counts[others], squares[others], priors,
                              [agent_seed_sequence(joint_ss, design.agents[a]) for a in others], options.chains,
                              options.warmup, options.draws, reference=(centred[ref], counts[ref], squares[ref]),
                              shared=np.random.Generator(np.random.PCG64(joint_ss)))
    delta0 = chains.delta0 * scale                                    # (others, chains, draws)
    values = np.zeros((options.chains * options.draws, k))
    values[:, others] = delta0.reshape(others.size, -1).T
    # delta0 > 0: better than the reference (the runs were oriented by sign), so rank by value, higher first
    table = _ordering_frame(design, kernels.codes_of(values, True), options.higher_is_better, notes)
    r_hat, ess = kernels.diagnose(chains.delta0)   # the standardised draws: the same in any units (:func:`_diagnosis`)
    names = design.agents
    rows = [{"agent_1": names[a], "agent_2": names[ref], "parameter": "delta0 (joint fit, orderings)",
             "estimate": float(delta0[i].mean()), "r_hat": float(r_hat[i]), "ess_bulk": float(ess[i])}
            for i, a in enumerate(others)]
    notes.append(f"orderings: a joint fit of every agent against {names[ref]} (the hierarchical model with "
                 f"{names[ref]}'s task means shared and unpaired runs; {options.chains} chains of {options.draws} "
                 "draws), each draw ranking the agents by their location delta0 across tasks against it; the ROPE "
                 "plays no part in an ordering")
    bad = (r_hat > RHAT_LIMIT) | (ess < ESS_LIMIT)
    if bad.any():
        message = (f"the joint fit behind the orderings did not show convergence (largest R-hat "
                   f"{signif(float(r_hat.max()), 4)}, smallest ESS {signif(float(ess.min()), 3)}): rerun with more "
                   "draws= and warmup=")
        notes.append(message)
        warn(message)
    return table, rows
