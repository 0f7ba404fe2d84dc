"""The blocked rank test: Skillings–Mack (1981) and Mack–Skillings (1980).

``skillings_mack(df, "score ~ agent | task")`` ranks the runs within each
task and asks whether the agents' rank sums differ more than chance allows.

* Every agent x task cell holds at most one run: the Skillings–Mack (1981)
  statistic for incomplete blocks (missing cells allowed).  On complete
  designs without ties it equals Friedman's statistic.
* Any cell holds several runs (seeds): the Mack–Skillings (1980) statistic on
  the raw runs, which ranks all runs of a task jointly, so nothing is averaged
  away.  ``variant="skillings_mack"`` with ``within_cell="mean"|"median"``
  aggregates the seeds first instead, and says so.

The numbers come from :mod:`._kernels`; this module turns
options into one frozen options object, calls the kernels, and wraps the
numbers in :class:`SkillingsMackResult`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from ... import calibration
from ...design import check_agent_named, design_of, public_function
from ...runs import censored_note
from ...cost import admit, shows
from ...format import a_or_an, cannot_reject, count, join_and, listed, names_shown, plural, signif, verb
from ...errors import DesignError, OptionError, label_value
from ...options import check_bool, check_choice, check_cost_options, check_fraction, check_n_jobs, check_resamples
from ...progress import progress_bar
from ...resampling import canonical_order, check_rng, seed_sequence
from ...statistics import (chi2_sf, doubled_midranks, monte_carlo_pvalue, near_tie_note,
                           near_ties, near_tied_blocks, tie_tolerance)
from . import _kernels as kernels
from ._backend import cost
from ._result import _TITLES, SkillingsMackResult, title
from ..._typing import (Data, EvalEnv, FormulaLike, Label, NaAction, RankAdjustment, RankPosthoc, RankPvalue, Seed,
                        WithinCell)

#: The default test's measured size in the package table (rlstats/calibration.csv, tests/reference/calibrate.py).
SIZE_PROCEDURE = "skillings_mack.size"
VARIANTS = ("auto", "friedman", "skillings_mack", "mack_skillings", "quade")
#: ``variant=`` for type checkers: VARIANTS as a Literal (tests/test_typing_user.py keeps the two equal)
RankVariant = Literal["auto", "friedman", "skillings_mack", "mack_skillings", "quade"]
# The kernel statistic behind each variant: Friedman's is the Skillings-Mack (1981)
# statistic on a complete design, with R's tie correction by default.
_KERNEL_VARIANT = {"friedman": "skillings_mack", "skillings_mack": "skillings_mack",
                   "mack_skillings": "mack_skillings", "quade": "skillings_mack"}
WITHIN_CELL = (None, "mean", "median")
PVALUE_METHODS = ("auto", "asymptotic", "monte_carlo", "exact")
POSTHOC = ("ranks", "wilcoxon", "exact", "conover")


@dataclass(frozen=True)
class SkillingsMackOptions:
    variant: RankVariant = "auto"
    within_cell: WithinCell | None = None
    pvalue: RankPvalue = "auto"
    n_resamples: int = 10_000
    tie_correction: bool | None = None
    higher_is_better: bool = True
    alpha: float = 0.05
    adjustment: RankAdjustment = "auto"
    posthoc: RankPosthoc = "ranks"
    control: Label | None = None  # as given; the data's label once read (errors.label_named)
    na_action: NaAction = "raise"
    progress: bool = True
    n_jobs: int = 1

    @classmethod
    def checked(cls, **options: Any) -> SkillingsMackOptions:
        """Validate every option once; raises OptionError naming the bad one."""
        within, control = options["within_cell"], options.get("control")
        control = None if control is None else label_value("control", control)  # read against the agents later
        if within not in WITHIN_CELL:
            raise OptionError(f"within_cell={within!r} is not one of the allowed values: None, 'mean', 'median'")
        return cls(
            variant=check_choice("variant", options["variant"], VARIANTS),
            within_cell=within,
            pvalue=check_choice("pvalue", options["pvalue"], PVALUE_METHODS),
            n_resamples=check_resamples(options["n_resamples"], minimum=1),
            tie_correction=None if options["tie_correction"] is None
            else check_bool("tie_correction", options["tie_correction"]),
            higher_is_better=check_bool("higher_is_better", options["higher_is_better"]),
            alpha=check_fraction("alpha", options["alpha"]),
            adjustment=check_choice("adjustment", options["adjustment"], kernels.ADJUSTMENTS),
            posthoc=check_choice("posthoc", options["posthoc"], POSTHOC),
            control=control,
            na_action=options["na_action"],
            progress=check_cost_options(options["progress"], options.get("max_seconds"))[0],
            n_jobs=check_n_jobs(options["n_jobs"]),
        )


def _cell_scores(y, agent, task, design):
    """The (n_tasks, n_agents) matrix of a complete design's one value per cell."""
    scores = np.empty((design.n_tasks, design.n_agents))
    scores[task, agent] = y
    return scores


def _cells_of(design, summary):
    """The design's runs replaced by one value per non-empty cell (mean or median)."""
    matrix = design.cell_matrix(summary)
    task, agent = np.nonzero(~np.isnan(matrix))
    return matrix[task, agent], agent, task


def _choose_variant(options, design):
    replicated = design.max_runs_per_cell > 1
    if options.variant == "auto":
        if options.within_cell is not None and replicated:
            return "skillings_mack"
        if replicated:
            return "mack_skillings"
        return "friedman" if design.is_complete else "skillings_mack"
    if options.variant == "quade" and replicated and options.within_cell is not None and design.is_complete:
        return "quade"
    if options.variant in ("friedman", "quade") and (replicated or not design.is_complete):
        raise DesignError(
            f"variant=\"{options.variant}\" needs a complete design with one run per (agent, task) cell; this "
            "design " + ("has several runs in some cells" if replicated else "has empty cells")
            + ": use variant=\"auto\", which picks Skillings-Mack (missing cells) or Mack-Skillings (several runs)"
            + (", or within_cell=\"mean\" to give Quade's test one value per cell"
               if options.variant == "quade" and replicated and design.is_complete else ""))
    if options.variant == "skillings_mack" and replicated and options.within_cell is None:
        raise DesignError(
            f"found up to {design.max_runs_per_cell} runs per (agent, task) cell; the Skillings-Mack (1981) "
            "statistic needs one value per cell: pass within_cell=\"mean\" or \"median\" to aggregate the seeds "
            "first, or use variant=\"mack_skillings\", which ranks every run")
    return options.variant


@public_function
def skillings_mack(data: Data, formula: FormulaLike | None = None, *, variant: RankVariant = "auto",
                   within_cell: WithinCell | None = None, pvalue: RankPvalue = "auto", n_resamples: int = 10_000,
                   tie_correction: bool | None = None, higher_is_better: bool = True, alpha: float = 0.05,
                   adjustment: RankAdjustment = "auto", posthoc: RankPosthoc = "ranks", control: Label | None = None,
                   na_action: NaAction = "raise", rng: Seed = None, progress: bool = True,
                   max_seconds: float | None = None, n_jobs: int = 1,
                   eval_env: EvalEnv = None) -> SkillingsMackResult:
    """Blocked rank test of whether agents differ across tasks (Skillings–Mack / Mack–Skillings).

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` (or ``task/seed`` to name the seed column).
    variant : {"auto", "friedman", "skillings_mack", "mack_skillings", "quade"}
        ``"auto"``: Friedman's test (R's ``friedman.test``) on a complete
        design with one run per cell, Skillings–Mack (1981) when some cells
        are empty and none has several runs, Mack–Skillings (1980) on the raw
        runs when any cell has more.  ``"quade"``: Quade's (1979) F test (R's
        ``quade.test``), which weights each task by the rank of its range of
        scores; complete designs with one value per cell (``within_cell``
        aggregates seeds first); its p-value is the F distribution's.
    within_cell : {None, "mean", "median"}
        With ``variant="skillings_mack"`` or ``"quade"`` on replicated data,
        aggregate each cell's runs first (stated in the result).
    pvalue : {"auto", "asymptotic", "monte_carlo", "exact"}
        ``"asymptotic"``: chi-squared with df = rank of the covariance (R's
        value); ``"monte_carlo"``: permutation of the observed mid-ranks
        within tasks (``n_resamples``, ``rng``), never below ``1 / (B + 1)``
        nor below the exact test's least, s over the design's distinct
        relabellings, s the renamings of agents run on the same tasks as
        often (3! = 6 of three agents on complete tasks); a design with no
        more relabellings than ``n_resamples`` and 20,000 (``"exact"`` and
        ``"auto"`` enumerate up to 200,000) has them all enumerated
        instead, an exact p-value, said in a note; ``"exact"``: the exact
        permutation distribution where enumeration is feasible.  ``"auto"``
        (default): exact when the null can be enumerated (at most 200,000
        within-task arrangements, as ``"exact"``; or, for two agents,
        convolved), Monte Carlo where the chi-squared approximation is known
        to be liberal (two agents; three agents with one run per cell on fewer
        than 40 tasks), chi-squared otherwise -- the rule and the simulation
        behind it are in ``_kernels.auto_pvalue_method``.  The result's
        ``pvalue_method`` and its print name the method used;
        ``pvalue_asymptotic`` always holds the chi-squared value.
    n_resamples : int
        Permutations for ``pvalue="monte_carlo"``.
    tie_correction : bool or None
        Divide each task's null variance by the tie factor.  None (default):
        on for ``variant="friedman"``, which then equals R's ``friedman.test``
        (statistic, df and chi-squared p), off for Skillings–Mack and
        Mack–Skillings, as in every reference implementation of those tests
        (``Skillings.Mack``, ``PMCMRplus``, ``NSM3``).  The result's
        ``tie_correction`` records which was used.  The default post hoc
        (Nemenyi's, as ``PMCMRplus::frdAllPairsNemenyiTest``) uses the
        untied variance unless ``tie_correction=True`` is given.
    higher_is_better : bool
        Direction of the mean ranks and post-hoc signs (rank 1 = best).
    alpha : float
        Level of the post-hoc decisions and of the report's verdict.
    adjustment : {"auto", "tukey", "holm", "bonferroni", "hochberg", "hommel", "bh", "by", "none"}
        Post-hoc multiplicity adjustment; ``"auto"``: Tukey (the critical
        difference) for the rank post hoc of all pairs on balanced designs,
        Holm otherwise (always Holm with ``posthoc="wilcoxon"``, ``"exact"``
        or ``"conover"``, with Quade's test and against a ``control``).
        ``"hochberg"``, ``"hommel"``, ``"bh"`` (Benjamini-Hochberg) and
        ``"by"`` (Benjamini-Yekutieli) are R's ``p.adjust`` methods (the last
        two control the false discovery rate, not the family-wise error).
        ``"tukey"`` with ``posthoc="conover"``: PMCMRplus's "single-step",
        the range of k normals (df = Inf) at sqrt(2) ``|t|``.
    posthoc : {"ranks", "wilcoxon", "exact", "conover"}
        ``"ranks"``: contrasts of mean within-task ranks (Nemenyi's test on
        complete designs; with ``control=``, Demšar's many-to-one z test,
        Bonferroni-Dunn with ``adjustment="bonferroni"``, as
        ``PMCMRplus::frdManyOneDemsarTest``); with ``variant="quade"``,
        Conover's t of the Quade sums (``PMCMRplus::quadeAllPairsTest``).
        ``"exact"``: the exact p-value of each difference of Friedman rank
        sums (Eisinga et al. 2017; ``PMCMRplus::frdAllPairsExactTest``, and
        ``frdManyOneExactTest`` with ``control=``), complete designs with one
        run per cell.  ``"conover"``: Conover's all-pairs t after Friedman's
        test (``PMCMRplus::frdAllPairsConoverTest``; Conover 1999, Section
        5.8): ``|R_u - R_v|`` against sqrt(2 (b A1 - sum R_j^2) / ((b - 1)(k - 1)))
        on (b - 1)(k - 1) df, A1 the sum of squared within-task mid-ranks, so
        ties count; complete designs with one value per cell (Friedman, or
        ``within_cell`` cell summaries), refused on empty cells, where the
        mean-rank contrasts of ``"ranks"`` hold.  ``"wilcoxon"``: for each
        pair, the Wilcoxon signed-rank test of the per-task scores over the
        tasks both agents ran (R's ``pairwise.wilcox.test(paired = TRUE)``; Demšar 2006, Benavoli et
        al. 2016); a task's score is the mean of its runs when a cell holds
        several, and the result says so.  The post hoc follows the omnibus
        test: with two agents the rank post hoc's p-value is the omnibus one
        (exact, Monte Carlo or chi-squared, whichever ``pvalue`` chose); with
        more, no pair is declared different unless the omnibus test rejected
        at ``alpha`` (the decisions are withheld, the p-values kept and marked
        in ``tidy()["withheld"]``).  The pairs' p-values of the rank post hoc
        are the normal approximation whatever ``pvalue`` is, but for a pair whose
        runs have at most 20,000 arrangements in the tasks it shares, whose
        exact permutation p-value it gets (not with ``"tukey"``; audit s18: on
        4 shared tasks of one run the normal tail, 0.0455, stood for an exact
        0.125).  Each Wilcoxon
        row carries the matched-pairs rank-biserial correlation (Kerby 2014).
    control : str, int or float, optional
        An agent, named as the data write it (coded 9: 9 or "9"), to compare every other agent with (many-to-one, k - 1
        comparisons, Holm by default) instead of all pairs; rows read
        ``agent_1`` = the other agent, ``agent_2`` = the control, as
        PMCMRplus's "j - control".
    na_action : {"raise", "drop", "omit"}
        Missing values: an error, or drop the rows and say so.
        ``"omit"`` (R's ``na.omit``) is the same as ``"drop"``.
    rng : None, int or numpy.random.Generator
        Seed of the permutations (recorded in the result).  With None a seed
        is drawn, recorded and printed, so the Monte Carlo p-value can be
        repeated with ``rng=res.seed``.  The permutations take the runs in
        an order of their own (tasks and agents by name, runs by score), so
        neither the rows' order nor a Categorical's category order changes
        them.
    progress : bool
        A progress bar (tqdm: on a terminal, or a notebook's widget) when the work is estimated to take more
        than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    n_jobs : int
        Threads computing the Monte Carlo permutations (-1: one per core);
        the p-value and null distribution are identical whatever ``n_jobs``.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up; by default the
        caller's frame.

    Returns
    -------
    SkillingsMackResult

    Raises
    ------
    FormulaError, DesignError, OptionError
        A DesignError when the agents fall into groups that never ran on a common task: ranks of agents in
        different groups rest on no common task, so the message lists each group with the ``subset=`` of
        :func:`rlstats.compare` that selects it.  Within one group, pairs that never met are named in the notes,
        left out of the post hoc (``n_shared_tasks`` = 0) and never joined by a critical-difference bar.

    See Also
    --------
    rlstats.compare : Picks this test for formulas with blocks.
    rlstats.task_table : Per-task table with the possibly best agents and effect sizes.
    rlstats.bootstrap : How large the differences are, with intervals.
    rlstats.power : Power of this test for a number of seeds.

    Notes
    -----
    Ties: scores of one task within 1e-12 of the task's range (plus 4 eps of its largest ``|score|``) of each other are
    ties in every rank (``rlstats.statistics.near_ties``; floating-point noise such as 0 and -7e-15, or 186.1 and
    186.10000000000002), and a note counts the pairs joined; R's ``rank()`` keeps them apart.  When every task ties
    all its agents (every score at a cap), no relabelling changes a rank: p = 1 with a note, for every variant and
    post hoc (R's ``friedman.test`` gives NA, ``quade.test`` (k!)^(1 - b)).  One task with one value per agent is a
    DesignError: its statistic is the same under every relabelling (R's tests stop too); with several runs per
    agent on the task, Mack-Skillings ranks the runs and is a test.

    References
    ----------
    Skillings, J. H. and Mack, G. A. (1981), Technometrics 23(2), 171-177.
    Mack, G. A. and Skillings, J. H. (1980), JASA 75(372), 947-951.
    Quade, D. (1979), JASA 74(367), 680-683; Conover, W. J. (1999), Practical
    Nonparametric Statistics, 3rd ed., Section 5.8.
    Eisinga, R., Heskes, T., Pelzer, B. and Te Grotenhuis, M. (2017), BMC
    Bioinformatics 18:68 (exact p-values of rank-sum differences).
    Demšar, J. (2006), JMLR 7, 1-30 (many-to-one comparisons with a control).
    Casesa, R. (2024), Statistical Methods for Reinforcement Learning Policy
    Comparison, PhD thesis, eqs. 2.13-2.23 (eq. 2.17 with the sign corrected).

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=10, seeds=1, effect=2.0, rng=0)
    >>> res = rlstats.skillings_mack(df, "score ~ agent | task")
    >>> res.variant, res.df
    ('friedman', 2)
    >>> quade = rlstats.skillings_mack(df, "score ~ agent | task", variant="quade", control="agent_1")
    >>> quade["parameter"], quade.tidy()["agent_2"].unique().tolist()
    ({'num df': 2, 'denom df': 18}, ['agent_1'])
    """
    options = SkillingsMackOptions.checked(
        variant=variant, within_cell=within_cell, pvalue=pvalue, n_resamples=n_resamples,
        tie_correction=tie_correction, higher_is_better=higher_is_better, alpha=alpha, adjustment=adjustment,
        posthoc=posthoc, control=control, na_action=na_action, progress=progress, max_seconds=max_seconds,
        n_jobs=n_jobs)
    check_rng(rng)  # a bad rng is an error even where the p-value draws nothing (asymptotic, exact)
    # without seeds, each cell's sums in one order whatever the rows' (the post hoc tests' estimates, audit s30)
    design = design_of(data, formula, na_action=na_action, eval_env=eval_env).runs_by_score()
    if not design.has_blocks:
        raise DesignError(f"the blocked rank test needs blocks: write '{design.formula.text} | task'")
    work = admit(cost, design, options, max_seconds, "skillings_mack()")  # issue 43 item 2
    return _run(design, options, rng, shows(work, options.progress))


def batch_pvalues(design, responses, **options):
    """The p-values of :func:`skillings_mack` for a batch of data sets sharing one design, vectorised.

    Row ``i`` of ``responses`` replaces ``design.y``; the p-value is the one
    ``skillings_mack(design with y = responses[i], **options).pvalue`` gives,
    to the bit. Simulation studies (:func:`rlstats.power`) reach this through
    the registry (``rlstats.methods.OPERATIONS``).

    The p-value is the one the options ask for, ``"auto"`` (the default) as
    :func:`skillings_mack` picks it: a power study plans the analysis a user
    runs (audit s14: the chi-squared p-value planned in its place gave power
    0.925 to a two-agent test on 4 tasks that cannot reject).

    * chi-squared: the statistics of every data set at once;
    * exact: without ties the null distribution depends on the counts alone
      (each task's ranks are 1..q whatever the scores), so it is computed
      once and each data set's statistic looked up in it; a data set with
      ties (or values within the tie tolerance) has a null of its own
      mid-ranks and gets :func:`skillings_mack`'s own computation;
    * Monte Carlo: not here (None). Each data set's permutations come from
      streams of its own (power()'s generator of that data set), so batching
      data sets would share no draws: the work per permutation is the same,
      and the call's own overhead, all it could save, is about an eighth
      (1.7 of 14 ms a data set at 3 agents x 6 tasks x 1 run, 10,000
      permutations, session 15).

    Returns None when the vectorised path does not apply -- a Monte Carlo
    p-value (asked for, or ``"auto"``'s choice on this design), cell
    summaries, tie correction, a design that is not balanced or not stored
    task by task, or options that :func:`skillings_mack` rejects on this
    design -- and the caller then runs :func:`skillings_mack` on each data
    set.
    """
    from scipy import stats
    plan = _batch_plan(design, options)
    if plan is None:
        return None
    options, variant, setup, method = plan
    null = None
    if method in ("convolve", "enumerate", "exact"):
        try:
            null = _untied_null(setup.counts.astype(np.int64).tobytes(), setup.counts.shape, setup.variant, method)
        except OptionError:  # pvalue="exact" not feasible: skillings_mack() says so on the first data set
            return None
    batch = responses.shape[0]
    ranks = stats.rankdata(responses.reshape(batch, design.n_tasks, -1), axis=-1).reshape(batch, -1)
    # ties as skillings_mack() sees them: equal, or within the task's tie tolerance (statistics.near_ties)
    ordered = np.sort(responses.reshape(batch, design.n_tasks, -1), axis=-1)
    gaps = np.diff(ordered, axis=-1)
    near = gaps <= tie_tolerance(ordered[..., -1:] - ordered[..., :1], np.abs(ordered).max(axis=-1, keepdims=True))
    tied = np.any(near, axis=(1, 2))
    if null is not None:
        statistic = kernels.statistic(setup, ranks)
        # a discrete null: the data sets' statistics take few values, each looked up once (not a loop per data set)
        values, where = np.unique(statistic, return_inverse=True)
        pvalues = np.array([kernels.exact_pvalue(null, float(t)) for t in values])[where.ravel()]
        for i in np.flatnonzero(tied):  # a null of the data set's own mid-ranks
            pvalues[i] = _test(dataclasses.replace(design, y=responses[i]), options, None, False).pvalue
        return pvalues
    for i in np.flatnonzero(np.any(near & (gaps > 0), axis=(1, 2))):
        ranks[i] = doubled_midranks(responses[i], design.task, design.n_tasks)[0] / 2.0
    statistic = kernels.statistic(setup, ranks)
    if variant == "friedman" and options.tie_correction is not False:
        # R's correction on a complete design: divide by 1 - sum(t^3 - t) / (n k (k^2 - 1)).
        k, n = design.n_agents, design.n_tasks
        for i in np.flatnonzero(tied & ~np.all(near, axis=(1, 2))):
            tie_sum = doubled_midranks(responses[i], design.task, n)[1].sum()
            statistic[i] /= 1.0 - tie_sum / (n * k * (k**2 - 1))
    pvalues = chi2_sf(statistic, setup.df) if setup.df > 0 else np.ones(batch)  # as the kernel's p-value
    return np.where(np.all(near, axis=(1, 2)), 1.0, pvalues)  # every task tied: p = 1, as skillings_mack()


def _batch_plan(design, options):
    """``(options, variant, setup, method)`` of :func:`batch_pvalues`'s vectorised path on this design, or None
    where it has none (its docstring says when); ``method`` is the p-value's: ``"convolve"`` or ``"enumerate"``
    (``"auto"``'s exact null), ``"exact"``, or ``"asymptotic"``."""
    defaults = _default_options()
    options = SkillingsMackOptions.checked(**{**defaults, **{k: v for k, v in options.items() if k in defaults}})
    if options.pvalue == "monte_carlo" or options.within_cell is not None \
            or options.tie_correction is True \
            or not design.is_balanced or np.any(np.diff(design.task) < 0):
        return None
    try:
        variant = _choose_variant(options, design)
        _check_more_than_one_ranking(design, design.agent, design.task, variant)
    except DesignError:
        return None
    if variant == "quade":  # an F test of its own: skillings_mack() per data set
        return None
    # The null covariance depends only on the counts (no tie correction): any responses will do; untied ones give
    # the exact null of every untied data set.
    setup = kernels.build_setup(np.arange(design.nobs, dtype=float), design.agent, design.task, design.n_agents,
                                design.n_tasks, variant=_KERNEL_VARIANT[variant])
    # "auto"'s case: "convolve" or "enumerate" (the exact null's method), "monte_carlo" or "asymptotic"
    method = kernels.auto_case(setup.counts, setup.variant) if options.pvalue == "auto" else options.pvalue
    if method == "monte_carlo":
        return None  # each data set's own streams: skillings_mack() per data set (see batch_pvalues)
    return options, variant, setup, method


def batch_cost(design, n_sim, untied, **options):
    """The estimated work of :func:`batch_pvalues` on ``n_sim`` data sets of this design (``untied``: data sets
    without ties, as simulated scores are), or, where it takes no vectorised path, of :func:`pvalue_only` on each
    (the p-value without the post hoc, which ``_backend.cost`` counts too).

    It counts the distinct exact computations, not the data sets (audit s16: power()'s default study was estimated
    at 23 s, each of its 4,000 data sets priced as an exact null of its own, and took 0.6-0.8 s): untied data sets
    share one exact null (cached for every block of the study), a data set with ties has one of its own mid-ranks
    (a resampled pilot's repeated runs tie: every data set is counted); each is priced as a call of
    :func:`skillings_mack` (``_backend.cost``). Every data set adds a vectorised pass over its rows (ranks, ties,
    statistic, the lookup)."""
    from ...cost import Shape, Work
    from ._backend import BATCH_PER_RUN, BATCH_SECONDS, pvalue_cost

    plan = _batch_plan(design, options)
    shape = Shape.of(design)
    if plan is None:  # skillings_mack()'s p-value a data set (pvalue_only), without the post hoc its cost counts
        defaults = _default_options()
        checked = SkillingsMackOptions.checked(**{**defaults, **{k: v for k, v in options.items() if k in defaults}})
        work = pvalue_cost(shape, checked)
        return Work(n_sim, "data sets", work.seconds, f"{n_sim:,} data sets, each {work.what}")
    checked, _, _, method = plan
    nulls = 0 if method == "asymptotic" else 1 if untied else n_sim
    seconds = nulls * pvalue_cost(shape, checked).seconds + n_sim * (BATCH_SECONDS + BATCH_PER_RUN * shape.rows)
    return Work(n_sim, "data sets", seconds / n_sim,
                f"{n_sim:,} data sets of {shape.rows:,} runs at once"
                + (f", {count(nulls, 'exact null')}" if nulls else ""))


def level_spent(design, **options):
    """The level the exact test can spend on untied data of this design: its largest attainable p-value at most
    ``alpha`` (its size), 0 where even its smallest is above ``alpha`` (it cannot reject), NaN where
    :func:`batch_pvalues` takes no exact path (a chi-squared or Monte Carlo p-value, an unbalanced design).

    :func:`rlstats.power` reads it once per number of seeds (audit s17: 2 agents x 1 task x 3 seeds, smallest p
    2 / C(6, 3) = 0.1, printed power 0 with no word why). The null is the one the study's untied data sets share
    (cached); each attainable tail P0(T >= t) is the p-value :func:`kernels.exact_pvalue` gives at ``t``.
    """
    plan = _batch_plan(design, options)
    if plan is None or plan[3] not in ("convolve", "enumerate", "exact"):
        return float("nan")
    checked, _, setup, method = plan
    try:
        null = _untied_null(setup.counts.astype(np.int64).tobytes(), setup.counts.shape, setup.variant, method)
    except OptionError:  # pvalue="exact" not feasible: skillings_mack() says so
        return float("nan")
    # the tails, decreasing; near alpha each is taken as exact_pvalue sums it, so the level matches its decisions
    tails = np.minimum(1.0, np.cumsum(null.probabilities[::-1])[::-1])
    first = int(np.searchsorted(-tails, -checked.alpha))  # the first tail at most alpha, up to rounding
    near = [kernels.exact_pvalue(null, float(null.values[i]))
            for i in range(max(first - 2, 0), min(first + 3, tails.size))]
    return float(max((p for p in near if p <= checked.alpha), default=0.0))


@functools.lru_cache(maxsize=8)
def _untied_null(counts, shape, variant, method):
    """The exact null of every untied data set with these counts (bytes of an int array of ``shape``): computed
    once for all of power()'s blocks of data sets. ``method``: "convolve" or "enumerate" as pvalue="auto" takes
    it, or "exact" as pvalue="exact" does."""
    counts = np.frombuffer(counts, dtype=np.int64).reshape(shape)
    n, k = shape
    task = np.repeat(np.arange(n), counts.sum(axis=1))
    agent = np.concatenate([np.repeat(np.arange(k), row) for row in counts])
    setup = kernels.build_setup(np.arange(task.size, dtype=float), agent, task, k, n, variant=variant)
    if method == "exact":
        return kernels.exact_null(setup)
    return kernels.exact_null(setup, method=method, limit=kernels._ENUMERATION_LIMIT)  # auto_case's


@dataclass(frozen=True)
class _Test:
    """The test itself, before post hoc and tables: what both _run and pvalue_only() need."""

    variant: str
    within: str | None
    cells: tuple        # (y, agent, task) ranked: the runs, or one summary per cell
    corrected: bool
    setup: object
    statistic: float
    pvalue: float
    method: str
    reason: str | None
    mc: object          # kernels.MonteCarloResult or None
    seed: object
    smallest: float     # smallest p-value the method can give on this design (0 for chi-squared)
    quade: object = None  # kernels.QuadeTest for variant="quade"
    near_ties: int = 0  # pairs of one task's ranked values within its tie tolerance (statistics.near_ties), tied
    near_tasks: tuple = ()  # the codes of the tasks holding them (statistics.near_tied_blocks), for the note


#: What the rank test would do across groups of agents that never share a task (connectivity's refusal).
_ACROSS_GROUPS = "the rank test's mean ranks and post hoc would set side by side agents that no task compared"


def _test(design, options, rng, shown):
    """The omnibus test; ``shown``: whether the Monte Carlo null draws a bar."""
    # Refused rather than tested within each group: the omnibus test, its mean ranks and the post hoc are one
    # family over all agents, and a per-group analysis is the user's subset= away.
    design.graph.require_connected(design.formula.groups, _ACROSS_GROUPS)
    variant = _choose_variant(options, design)
    y, agent, task = design.y, design.agent, design.task
    within = None
    if variant in ("skillings_mack", "quade") and design.max_runs_per_cell > 1:
        within = options.within_cell
        y, agent, task = _cells_of(design, within)
    _check_more_than_one_ranking(design, agent, task, variant)
    raw = y
    y, n_near = near_ties(y, task)  # ranks only: floating-point noise within a task is a tie (issue 39)
    near_tasks = tuple(near_tied_blocks(raw, y, task).tolist())
    # the Monte Carlo permutations pick positions: each cell's runs in score order, so a row shuffle draws the same
    order = canonical_order(y, task, agent)
    y, agent, task = y[order], agent[order], task[order]
    corrected = (variant == "friedman") if options.tie_correction is None else options.tie_correction
    setup = kernels.build_setup(y, agent, task, design.n_agents, design.n_tasks, variant=_KERNEL_VARIANT[variant],
                                tie_correction=corrected)
    if variant == "quade":
        if options.pvalue not in ("auto", "asymptotic") or options.tie_correction:
            raise OptionError("variant=\"quade\" has R's F p-value only, with mid-ranks for ties; drop "
                              + ("tie_correction=True" if options.tie_correction else f"pvalue={options.pvalue!r}")
                              + " or use variant=\"friedman\"")
        quade = kernels.quade_test(_cell_scores(y, agent, task, design), higher_is_better=options.higher_is_better)
        return _Test(variant, within, (y, agent, task), False, setup, quade.statistic, quade.pvalue, "asymptotic",
                     None, None, None, 0.0, quade, n_near, near_tasks)
    statistic = kernels.observed_statistic(setup)
    p, mc, seed, smallest = None, None, None, 0.0
    method, reason, exact = options.pvalue, None, None
    if method == "auto":
        method, reason, exact = kernels.auto_pvalue_method(setup, design.block_word, plural(design.block_word),
                                                           plural(design.arm_word))
    few = min(options.n_resamples, kernels.AUTO_EXACT_LIMIT)
    if options.pvalue == "monte_carlo" and kernels.design_relabellings(setup.counts, few) <= few:
        # no more relabellings than draws (audit s21: 2,000 draws of 36 printed 0.148 where the exact least is 1/6):
        # all are enumerated, and the result says so (a note in _run)
        method, exact = "exact", kernels.exact_null(setup, method="enumerate", limit=few)
    if method == "monte_carlo":
        ss, seed = seed_sequence(rng)
        with progress_bar(options.n_resamples, shown, "permutations") as advance:
            places = design.task_places, design.agent_places
            mc = kernels.monte_carlo_test(setup, options.n_resamples, ss, progress=advance, n_jobs=options.n_jobs,
                                          places=places, smallest=kernels.least_pvalue(setup.counts))
        p, smallest = mc.pvalue, monte_carlo_pvalue(0, options.n_resamples, kernels.least_pvalue(setup.counts))
    elif method == "exact":
        exact = exact if exact is not None else kernels.exact_null(setup)
        p, smallest = kernels.exact_pvalue(exact, statistic), float(exact.probabilities[-1])
    else:
        p = kernels.asymptotic_pvalue(setup, statistic)
    if setup.all_tied:  # no relabelling of tied runs changes a rank: the exact p-value is 1 whatever the method
        p = 1.0
    return _Test(variant, within, (y, agent, task), corrected, setup, statistic, p, method, reason, mc, seed,
                 smallest, None, n_near, near_tasks)


def _check_more_than_one_ranking(design, agent, task, variant):
    """One task with one ranked value per agent: every relabelling gives the same statistic, so no test exists."""
    if design.n_tasks > 1 or np.bincount(agent * design.n_tasks + task).max() > 1:
        return
    # the data's other tasks, kept out by design.build: said, as the data hold them, quoted as the kept one is where
    # any name of the message holds a comma (audit s20: bare beside 'Seaquest, v5')
    gone = design.dropped_tasks
    kept_out = f"once the {count(len(gone), 'task')} that fewer than two agents ran {verb(len(gone), 'is')} kept out " \
               f"({listed(names_shown(gone, among=[*gone, *design.tasks]), 5)}), " if gone else ""
    raise DesignError(
        f"the {_TITLES[variant]} ranks the agents within each task and compares the rankings across tasks, but "
        f"{kept_out}the data hold 1 task ({design.tasks[0]!r}) with one value per agent: every relabelling gives the "
        "same statistic, so its p-value would be 1 whatever the scores (R's friedman.test and quade.test stop on one "
        "block too). Add tasks; or, with several runs per agent on this task, rank the runs (variant=\"auto\" or "
        "\"mack_skillings\") or use rlstats.permutation")


def _default_options():
    """The defaults of :func:`skillings_mack`'s options (not rng or eval_env), read from its signature."""
    return {name: p.default for name, p in inspect.signature(skillings_mack).parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and name not in ("rng", "eval_env")}


def pvalue_only(design, *, rng=None, **options):
    """The p-value :func:`skillings_mack` gives on ``design``, without its post hoc, tables or Result.

    For simulation studies (:func:`rlstats.power`, through ``rlstats.methods.OPERATIONS``), which need
    only the decision, thousands of times: the same options and checks, the same number, the same rng use.
    """
    options = SkillingsMackOptions.checked(**{**_default_options(), **options})
    return _test(design, options, rng, options.progress).pvalue


def _adjustment(options, variant):
    """The post hoc's adjustment: "auto" is Tukey only for the all-pairs rank post hoc (then on balanced designs).

    Conover's all-pairs t takes "tukey" too (PMCMRplus's "single-step"), but its "auto" is Holm: the single step on
    the range of k normals (df = inf, as PMCMRplus) rejected some pair of null agents in 11.8% of data sets at 3 agents
    and 5 tasks, 9.3% at 10 (tests/reference/conover_fwer.py), and Holm held 0.05 everywhere measured.
    """
    all_pairs_ranks = options.control is None and options.posthoc == "ranks" and variant != "quade"
    if options.adjustment == "tukey" and options.posthoc == "conover" and options.control is None:
        return "tukey"
    if options.adjustment == "tukey" and not all_pairs_ranks:
        what = ("comparisons with a control" if options.control is not None else
                "Quade's post hoc" if variant == "quade" and options.posthoc == "ranks" else
                f"posthoc={options.posthoc!r}")
        if options.posthoc != "wilcoxon" or options.control is not None:
            raise OptionError(f"adjustment='tukey' is the studentized range of all-pairs mean-rank contrasts (or of "
                              f"Conover's all-pairs t); for {what} use adjustment='holm' (the default), 'bonferroni', "
                              "'hochberg', 'hommel', 'bh', 'by' or 'none'")
    if options.adjustment != "auto":
        return options.adjustment
    return "auto" if all_pairs_ranks else "holm"


def _pairs(design, options):
    """Agent codes (u, v) of the post hoc's comparisons: every pair u < v, or each agent against the control."""
    if options.control is None:
        return np.triu_indices(design.n_agents, 1)
    c = design.agents.index(options.control)  # the label, read by _run
    others = np.array([j for j in range(design.n_agents) if j != c], dtype=np.intp)
    return others, np.full(others.size, c, dtype=np.intp)


def _run(design, options, rng, shown):
    if options.control is not None:  # the control as the design's label: 9, np.int64(9) and "9" name the agent 9
        options = dataclasses.replace(options, control=check_agent_named(design, "control", options.control))
    test = _test(design, options, rng, shown)
    variant, within, corrected, setup, statistic = test.variant, test.within, test.corrected, test.setup, \
        test.statistic
    y, agent, task = test.cells
    notes = list(design.notes)
    if within is not None:
        notes.append(f"{design.nobs} runs aggregated to {y.size} cell {within}s (within_cell=\"{within}\") "
                     "before ranking")
    adjustment = _adjustment(options, variant)
    pairs = _pairs(design, options)
    # The default post hoc follows PMCMRplus::frdAllPairsNemenyiTest: untied variance, unless asked.
    posthoc_setup = setup if not corrected or options.tie_correction else kernels.build_setup(
        y, agent, task, design.n_agents, design.n_tasks, variant=_KERNEL_VARIANT[variant])
    p_asymptotic = test.pvalue if test.method == "asymptotic" else kernels.asymptotic_pvalue(setup, statistic)
    p, method, reason, seed = test.pvalue, test.method, test.reason, test.seed
    mc_se, n_resamples, null = (None, None, None) if test.mc is None else \
        (test.mc.standard_error, test.mc.n_resamples, test.mc.null_distribution)
    notes += [note for note in (near_tie_note(test.near_ties, tasks=[design.tasks[t] for t in test.near_tasks]),)
              if note]
    if setup.all_tied:
        notes.append(f"every task ties all its {'runs' if variant == 'mack_skillings' else 'agents'} (e.g. every "
                     "score at a cap), so the ranks hold no evidence of a difference: p = 1, the exact permutation "
                     "p-value (no relabelling changes a rank)" + (", where R's quade.test prints (k!)^(1 - b)"
                                                                 if variant == "quade" else ""))
    if setup.has_ties and corrected:
        notes.append("ties were given mid-ranks and the statistic was corrected for them as R's friedman.test does "
                     "(divided by 1 - sum(t^3 - t) / (n k (k^2 - 1)))")
    if setup.has_ties and not corrected and method == "asymptotic" and variant != "quade" and not setup.all_tied:
        notes.append("ties were given mid-ranks without tie correction, which makes the chi-squared p-value "
                     "conservative; pvalue=\"monte_carlo\" keeps the ties in its null distribution")
    mean_ranks = kernels.mean_ranks(setup, higher_is_better=options.higher_is_better) if test.quade is None \
        else test.quade.weighted_mean_ranks
    notes += _rank_scale_notes(design, setup, mean_ranks, variant, within)
    comparisons, cd, n_shared, adjustment, n_exact = _POSTHOCS[options.posthoc](design, options, test, posthoc_setup,
                                                                             adjustment, pairs, notes)
    comparisons, cd, adjustment = _follow_omnibus(comparisons, cd, p, options, design.n_agents, adjustment)
    if test.smallest > options.alpha and not setup.all_tied:
        # the design's floor, not the draws', where it is the larger (review s21: 'with 30 permutations' of 0.167)
        drawn = method == "monte_carlo" and test.smallest <= monte_carlo_pvalue(0, options.n_resamples)
        where = (f"with {options.n_resamples} permutations" if drawn else
                 f"on {design.n_agents} agents and {count(design.n_tasks, 'task')}")
        test_name = "exact permutation test" if method == "exact" else "Monte Carlo permutation test"
        notes.append(cannot_reject(test_name, test.smallest, options.alpha, where))
    if options.pvalue == "monte_carlo" and method == "exact":
        notes.append(f"pvalue=\"monte_carlo\": the design has {kernels.design_relabellings(setup.counts):,} distinct "
                     f"relabellings within tasks, no more than n_resamples = {options.n_resamples:,}, so all were "
                     "enumerated: the p-value is the exact permutation one, with no Monte Carlo error")
    notes += _size_notes(design, options, variant)
    notes += _never_met_notes(design, pairs, n_shared, options.control)
    notes += censored_note(design)  # cells of a time summary whose runs never reached it (audit s34)
    return SkillingsMackResult(
        averaged_within=design.averaged_within,
        method=title(variant, within, design.is_complete, setup.has_ties and not corrected),
        formula=design.formula, data_name=design.data_name, nobs=design.nobs, notes=tuple(notes),
        options={**asdict(options), "variant_used": variant}, seed=seed,
        statistic=statistic, df=setup.df if test.quade is None else test.quade.df,
        df_denominator=None if test.quade is None else test.quade.df_denominator, pvalue=p, pvalue_method=method,
        pvalue_rule=reason, pvalue_asymptotic=p_asymptotic, pvalue_mc_se=mc_se, n_resamples=n_resamples,
        null_distribution=null, variant=variant, within_cell=within, tie_correction=corrected,
        has_ties=setup.has_ties, connected=setup.connected, agents=design.agents, tasks=design.tasks,
        counts=setup.counts, mean_ranks=mean_ranks, comparisons=comparisons, posthoc=options.posthoc,
        posthoc_adjustment=adjustment,
        control=options.control, critical_difference=cd, alpha=options.alpha,
        posthoc_withheld=bool(comparisons["withheld"].any()),
        pairs_exact=0 if design.n_agents == 2 and options.posthoc == "ranks" else n_exact)


def _rank_scale_notes(design, setup, mean_ranks, variant, within):
    """Why a mean rank lies outside 1..k: with runs per cell differing within a task, a run's rank r of the task's q
    runs counts (r - 1/2) k_i / q + 1/2, the 1..k scale of equal runs, so an agent with fewer runs than the task's
    average that beats (loses to) every other run sits below 1 (above k) (audit s29: SAC 0.977 on the MuJoCo
    batches, printed under "1 = best"). k_i, the agents ranked on task i, is said as it is where it differs across
    tasks (audit s30 mends30: "1..4" where tasks ranked 3 or 4).

    Each agent is judged against the tasks it ran (review s31: an agent only on tasks ranking 3 agents, last of
    unequal runs at 3.36, was judged against the 4 of other tasks): with equal runs in a task the agent's n runs at
    ranks 1..n average position 1 there (the last n, k_i), so its mean there lies in 1..k_i, and an average over its
    tasks in 1..max k_i of those tasks; a mean rank outside that comes of unequal runs alone."""
    ran = setup.counts > 0
    ranked = ran.sum(axis=1)
    own = np.array([ranked[ran[:, j]].max() if ran[:, j].any() else 0 for j in range(ran.shape[1])])
    ranked = ranked[ranked > 0]
    k = int(ranked.max())
    outside = [j for j in np.argsort(mean_ranks, kind="stable")
               if mean_ranks[j] < 1 - 1e-9 or mean_ranks[j] > own[j] + 1e-9]
    if variant != "mack_skillings" or within is not None or not outside:
        return []
    present = setup.counts[setup.counts > 0]
    which = join_and([f"{design.agents[j]} ({signif(mean_ranks[j], 3)}"
                      + (f", whose tasks rank at most {own[j]} agents)" if own[j] < k and mean_ranks[j] > own[j]
                         else ")")
                      for j in outside])
    task, agent = design.block_word, design.arm_word  # the formula's columns (audit s32 block32)
    tasks, agents = plural(task), plural(agent)
    scale, per_task = (f"1..{k}", "") if ranked.min() == k else (
        f"1..k, k = {ranked.min()} to {k} {agents} ranked per {task}", f", with k the {agents} ranked on its {task}")
    return [f"{plural('mean rank', len(outside))} of {which} outside {scale}: runs per {agent} differ within "
            f"{tasks} ({present.min()} to {present.max()} runs per {agent} and {task}), and a mean rank puts each "
            f"run's rank r among the q runs of its {task} on the 1..k scale of equal runs, (r - 1/2) k / q + "
            f"1/2{per_task}, averaged over the {agent}'s runs and "
            f"{tasks}, so {a_or_an(agent)} {agent} with fewer runs than its {task}'s average that beats every other "
            "run there sits below 1 "
            "(one that loses to all, above k); the ordering and the pairwise tests are those of these positions; for "
            "ranks within 1..k, compare as many runs of each agent, or rank the cell means (variant='skillings_mack', "
            "within_cell='mean')"]


def _never_met_notes(design, pairs, n_shared, control=None):
    """The pairs of the post hoc that share no task, and whom each mean rank was taken among.

    The mean ranks set every agent beside every other whatever the post hoc's family: with ``control=`` a pair that
    never met and holds no control is in no comparison, and its note is still due (audit s37 claims37: with control
    B, A and C on no common task printed mean ranks 2.5 and 1.5 with no word that they never met)."""
    graph = design.graph
    untested = n_shared == 0
    names = [(design.agents[u], design.agents[v]) for u, v in zip(pairs[0][untested], pairs[1][untested])]
    # never-met pairs the family leaves out, said beside those in it (review s37 rv37a: with control C, C never
    # meeting A and B never meeting D, the note named A-C alone)
    every = graph.never_met()
    in_family = {frozenset(pair) for pair in names}
    outside = [pair for pair in every if frozenset(pair) not in in_family]
    if not names and not outside:
        return []
    met = graph.met().sum(axis=1) - 1  # the other agents each one shares a task with
    apart = [j for j in np.argsort(met, kind="stable") if met[j] < design.n_agents - 1]
    said = names_shown(design.agents)  # quoted where a name holds a comma
    among = "; ".join(f"{said[j]} met only "
                      + ", ".join(a for k, (a, ok) in enumerate(zip(said, graph.met()[j])) if ok and k != j)
                      for j in apart[:3])
    if len(apart) > 3:  # the others named, so that no agent left out of the list reads as one that met everyone
        among += (f"; and {count(len(apart) - 3, 'more agent')} met only some: "
                  f"{join_and((said[j] for j in apart[3:]), limit=10)}")
    rank_taken = ("a mean rank is taken within each task among the agents that ran there, so it places an agent "
                  f"among the agents it met only ({among})")
    if outside and names:
        return [f"{graph.never_met_phrase(names + outside)}: {graph.pairs_phrase(names)} "
                f"{verb(len(names), 'is')} not compared post hoc and no critical-difference bar joins "
                f"{'it' if len(names) == 1 else 'them'}, the post hoc against the control {control} leaves "
                f"{graph.pairs_phrase(outside)} out, and {rank_taken}"]
    if outside:
        return [f"{graph.never_met_phrase(outside)}: the post hoc against the control {control} leaves "
                f"{'it' if len(outside) == 1 else 'them'} out, and {rank_taken}"]
    return [f"{graph.never_met_phrase(names)}: they "
            f"are not compared post hoc and no critical-difference bar joins them; {rank_taken}"]


def _ranks_posthoc(design, options, test, setup, adjustment, pairs, notes):
    """Mean-rank contrasts (Nemenyi, Demsar's many-to-one), or Conover's t after Quade's test."""
    if test.quade is not None:
        estimate, t, p = kernels.quade_pairs(test.quade, *pairs)
        n_shared = np.full(pairs[0].size, design.n_tasks)
        return _frame(design.agents, pairs, n_shared, estimate, t, p, kernels.adjust(p, adjustment),
                      options.alpha), None, n_shared, adjustment, 0
    posthoc = kernels.pairwise(setup, higher_is_better=options.higher_is_better, adjustment=adjustment,
                               alpha=options.alpha, pairs=pairs)
    n_exact = 0 if posthoc.exact is None else int(posthoc.exact.sum())
    return _frame(design.agents, pairs, posthoc.n_shared, posthoc.mean_rank_diff, posthoc.z, posthoc.pvalue,
                  posthoc.pvalue_adjusted, options.alpha), posthoc.cd_mean_rank, posthoc.n_shared, posthoc.adjustment, \
        n_exact


def _exact_posthoc(design, options, test, setup, adjustment, pairs, notes):
    """Exact p-values of differences of Friedman rank sums (Eisinga et al. 2017)."""
    if test.variant != "friedman":
        raise DesignError(
            "posthoc=\"exact\" gives exact p-values of differences of Friedman rank sums, which need a complete "
            "design with one run per (agent, task) cell and variant=\"auto\" or \"friedman\"; this is the "
            f"{_TITLES[test.variant]}: use posthoc=\"ranks\" or \"wilcoxon\"")
    y, agent, task = test.cells
    sums, tied = kernels.rank_sums(_cell_scores(y, agent, task, design), higher_is_better=options.higher_is_better)
    u, v = pairs
    difference = sums[u] - sums[v]
    p = kernels.exact_rank_sum_pvalues(difference, design.n_agents, design.n_tasks)
    if tied:
        notes.append("the exact p-values of rank-sum differences assume no ties; tied scores got mid-ranks and "
                     "a half-integer difference was rounded up")
    n_shared = np.full(u.size, design.n_tasks)
    return _frame(design.agents, pairs, n_shared, difference / design.n_tasks, difference, p,
                  kernels.adjust(p, adjustment), options.alpha), None, n_shared, adjustment, 0


def _wilcoxon_posthoc(design, options, test, setup, adjustment, pairs, notes):
    """Wilcoxon signed-rank tests of per-task scores (R's pairwise.wilcox.test(paired = TRUE))."""
    scores = design.cell_matrix("mean")
    posthoc = kernels.pairwise_wilcoxon(scores, adjustment=adjustment, alpha=options.alpha, pairs=pairs)
    if design.max_runs_per_cell > 1:
        notes.append("the Wilcoxon post hoc compares per-task scores, the mean of each agent's runs on a task")
        present = ~np.isnan(scores)  # the means are not what the omnibus test ranked: their own count
        means, rows = scores[present], np.nonzero(present)[0]
        snapped, n_near = near_ties(means, rows)
        note = near_tie_note(n_near, tasks=[design.tasks[t] for t in near_tied_blocks(means, snapped, rows)])
        notes += [note.replace("treated as ties in the ranks", "treated as ties by the Wilcoxon post hoc")] if note \
            else []
    tied = int(((posthoc.n_shared > 0) & (posthoc.n_used == 0)).sum())
    if tied:
        notes.append(f"{count(tied, 'pair')} of agents tie on every shared task: Wilcoxon p = 1 (R's wilcox.test "
                     "gives NA)")
    frame = _frame(design.agents, pairs, posthoc.n_shared, posthoc.median_diff, posthoc.statistic, posthoc.pvalue,
                   posthoc.pvalue_adjusted, options.alpha)
    frame.insert(frame.columns.get_loc("statistic") + 1, "rank_biserial", posthoc.rank_biserial)
    return frame, None, posthoc.n_shared, posthoc.adjustment, 0


def _conover_posthoc(design, options, test, setup, adjustment, pairs, notes):
    """Conover's t of rank-sum differences after Friedman's test (PMCMRplus::frdAllPairsConoverTest)."""
    y, agent, task = test.cells
    if test.variant in ("mack_skillings", "quade") or y.size != design.n_agents * design.n_tasks:
        raise DesignError(_CONOVER_NEEDS + _conover_way_on(design, test.variant))
    posthoc = kernels.conover_pairs(_cell_scores(y, agent, task, design), *pairs,
                                    higher_is_better=options.higher_is_better)
    if posthoc.residual == 0 and np.any(np.isinf(posthoc.t)):
        notes.append("every agent has the same rank in every task, so Conover's t has no residual variance: each "
                     "pair of different rank sums gets t = inf and p = 0, as in PMCMRplus; posthoc=\"exact\" gives "
                     "the exact p-values of the rank-sum differences")
    p_adjusted = posthoc.pvalue_range if adjustment == "tukey" else kernels.adjust(posthoc.pvalue, adjustment)
    below = np.flatnonzero(p_adjusted < posthoc.pvalue)
    if adjustment == "tukey" and below.size:  # PMCMRplus' single step: another reference than the raw t's (rfix31e)
        i = int(below[0])
        notes.append(f"adjustment=\"tukey\" (PMCMRplus' single-step) reads each pair's sqrt(2) |t| on the studentized "
                     f"range of {design.n_agents} means with infinite df, while the raw p-value reads t on (tasks - 1)"
                     f" x (agents - 1) = {posthoc.df} df, so {count(below.size, 'pair')} "
                     + ("has an adjusted p-value below its raw one" if below.size == 1
                        else "have adjusted p-values below their raw ones") +
                     f" ({design.agents[pairs[0][i]]!r} vs "
                     f"{design.agents[pairs[1][i]]!r}: {posthoc.pvalue[i]:.2g} raw, {p_adjusted[i]:.2g} adjusted), "
                     "as in PMCMRplus; adjustment=\"holm\" (its \"auto\") adjusts the raw p-values themselves")
    n_shared = np.full(pairs[0].size, design.n_tasks)
    return _frame(design.agents, pairs, n_shared, posthoc.estimate, posthoc.t, posthoc.pvalue, p_adjusted,
                  options.alpha), None, n_shared, adjustment, 0


_CONOVER_NEEDS = ("posthoc=\"conover\" is Conover's t of Friedman rank-sum differences (PMCMRplus's "
                  "frdAllPairsConoverTest), whose residual variance needs a complete design with one value per "
                  "(agent, task) cell: ")


def _conover_way_on(design, variant):
    """Why this design is not Conover's, and the way on (the mean-rank contrasts hold with missing cells)."""
    if variant == "quade":
        return "with variant=\"quade\", posthoc=\"ranks\" is already Conover's t, on Quade's weighted rank sums"
    if variant == "mack_skillings":
        return (f"this design has up to {design.max_runs_per_cell} runs per cell, ranked jointly (Mack-Skillings): "
                "pass within_cell=\"mean\" or \"median\" with variant=\"skillings_mack\" to rank one value per "
                "cell, or use posthoc=\"ranks\" (mean-rank contrasts on every run)")
    empty = int((design.counts == 0).sum())
    return (f"{count(empty, 'cell')} of this design {verb(empty, 'is')} empty (Skillings-Mack): use posthoc=\"ranks\" "
            "(mean-rank contrasts over the tasks each pair shares, with their exact permutation variance) or "
            f"\"wilcoxon\", or keep the tasks every agent ran ({_complete_tasks_way(design)})")


def _complete_tasks_way(design):
    """The way on that keeps the tasks every agent ran, in the words of the function called (review s35b: a direct
    caller was sent to rlstats.compare(..., subset=...) with no condition)."""
    from ...connectivity import tasks_way

    complete = [t for t, row in zip(design.tasks, design.counts) if (row > 0).all()]
    return tasks_way(design.formula, complete, keep=True) if complete else "none has every agent's runs"


_POSTHOCS = {"ranks": _ranks_posthoc, "exact": _exact_posthoc, "wilcoxon": _wilcoxon_posthoc,
             "conover": _conover_posthoc}


def _frame(agents, pairs, n_shared, estimate, statistic, p, p_adjusted, alpha):
    names = np.asarray(agents, dtype=object)
    return pd.DataFrame({
        "agent_1": names[pairs[0]], "agent_2": names[pairs[1]], "n_shared_tasks": n_shared, "estimate": estimate,
        "statistic": statistic, "p_value": p, "p_adjusted": p_adjusted,
        "significant": np.nan_to_num(p_adjusted, nan=1.0) <= alpha,
    })


def _size_notes(design, options, variant):
    """The measured size of the default test where the calibration table shows it above alpha by over 3 SE,
    pooled or in its worst design draw.

    The table (the ``skillings_mack.size`` rows of ``rlstats/calibration.csv``, written by
    ``tests/reference/calibrate.py``) holds balanced designs with the default options at alpha = 0.05; a design off
    its grid, or other options, get no note.
    """
    defaults = _default_options()
    changed = any(getattr(options, name) != defaults[name] for name in ("variant", "within_cell", "pvalue",
                                                                        "tie_correction"))
    if changed or not np.isclose(options.alpha, defaults["alpha"]) or not design.is_balanced:
        return []
    row = calibration.shortfall(calibration.rows(SIZE_PROCEDURE), 1 - options.alpha, agents=design.n_agents,
                                tasks=design.n_tasks, runs=design.max_runs_per_cell)
    if row is None:
        return []
    runs = count(design.max_runs_per_cell, "run")
    return [f"measured size of the {_TITLES[variant]} with {row['agents']} agents, {count(design.n_tasks, 'task')} "
            f"and {runs} per cell: {1 - float(row['coverage']):.3f}{calibration.worst_draw_clause(row, size=True)} "
            f"({row['distribution']} scores, {row['n_sim']} "
            f"null data sets), {calibration.miss_clause(row, 1 - options.alpha, size=True)}"]


def _follow_omnibus(comparisons, cd, pvalue, options, n_agents, adjustment):
    """The post hoc decisions made to agree with the omnibus test; returns (comparisons, critical difference,
    adjustment).

    Two agents with the rank post hoc: the pair's test is the omnibus test, so the pair gets the omnibus
    p-value (exact, Monte Carlo or chi-squared, as the omnibus chose) instead of the normal approximation of
    its z, no critical difference (it belongs to that approximation) and no adjustment ("none": one test; audit
    s18 found the pair's table and figure titled Tukey's single step with a critical difference).  Otherwise the decisions are
    protected (Fisher's LSD rule; Demsar 2006, Section 3.2.2, runs the post hoc only after Friedman's test
    rejects): when the omnibus test did not reject at alpha, no pair is declared different and the rows are
    marked ``withheld``, keeping their p-values.  A pair declared different then is one the adjusted post hoc
    declares different on its own, so the family-wise error stays at most the post hoc's.
    """
    if n_agents == 2 and options.posthoc == "ranks":
        comparisons["p_value"] = comparisons["p_adjusted"] = pvalue
        comparisons["significant"] = pvalue <= options.alpha
        comparisons["withheld"] = False
        return comparisons, None, "none"
    withheld = not pvalue <= options.alpha
    comparisons["withheld"] = withheld
    if withheld:
        comparisons["significant"] = False
    return comparisons, cd, adjustment
