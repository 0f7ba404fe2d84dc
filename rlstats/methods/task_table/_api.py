"""task_table(): the per-task table of a paper, each agent tested against the task's best."""

from __future__ import annotations

import numpy as np
import patsy

from ...design import design_of
from ...format import count
from ...errors import DesignError, OptionError
from ...options import check_bool, check_choice, check_confidence_level, check_fraction, check_resamples
from ...resampling import chunk_generators, seed_sequence
from ...statistics import bonferroni, holm
from . import _kernels as kernels
from ._result import TaskTableResult

ADJUST = {"holm": holm, "bonferroni": bonferroni, "none": lambda p: p}
ADJUSTMENTS = tuple(ADJUST)
AGGREGATES = (None, "bootstrap")
_TEST_NAMES = {"welch": "Welch t test", "mannwhitney": "Mann-Whitney U test",
               "brunnermunzel": "Brunner-Munzel test", "permutation": "permutation test of the mean difference"}


def task_table(data, formula=None, *, statistic="mean", test="welch", alpha=0.05, adjustment="holm",
               confidence_level=0.95, higher_is_better=True, aggregate=None, normalize=None, n_resamples=10_000,
               na_action="raise", rng=None, eval_env=None):
    """The task x agent table with the best agent of each task and those not significantly worse.

    For every task, the agent with the best ``statistic`` of its runs is marked, and every other
    agent is tested against it on that task's runs (seeds are the replicates) with ``test``;
    p-values are adjusted within the task (Holm by default), and an agent whose adjusted p-value
    exceeds ``alpha`` is "not significantly worse than the best". Effect sizes against the best
    come with intervals: Vargha-Delaney A12 (the probability that a run of the best beats a run of
    the other; Brunner-Munzel interval), Cliff's delta = 2 A12 - 1, and Hedges' g (normal
    interval). ``aggregate="bootstrap"`` adds a row with each agent's aggregate over tasks and
    its stratified bootstrap interval (normalise the scores first with ``normalize=``).

    Parameters
    ----------
    data : pandas.DataFrame or Design
        One row per run; never modified.
    formula : str
        ``"score ~ agent | task/seed"`` (or ``| task``).
    statistic : {"mean", "median", "iqm"}
        What a cell shows and what decides the best agent.
    test : {"welch", "mannwhitney", "brunnermunzel", "permutation"}
        Welch's t (default: what papers report, valid for means from 2 runs up but sensitive to
        skew at few runs); Mann-Whitney's U and Brunner-Munzel's test (rank-based; with 3 runs
        each, no p-value goes below 0.1, so nothing can be called worse at 0.05); the permutation
        test of the mean difference (exact enumeration when there are at most 20,000 splits).
    alpha : float
    adjustment : {"holm", "bonferroni", "none"}
        Multiple-comparison adjustment within each task.
    confidence_level : float
        Of the effect-size intervals.
    higher_is_better : bool
    aggregate : None or "bootstrap"
    normalize : DataFrame, str or dict, optional
        Per-task normalisation first (see :func:`rlstats.normalize`).
    n_resamples : int
        Monte Carlo splits of the permutation test when enumeration is too large, and the
        aggregate row's bootstrap resamples.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    TaskTableResult
        ``to_latex()`` gives the booktabs table (best in bold, a dagger on agents not
        significantly worse, the test in the caption); ``to_markdown()``, HTML in notebooks,
        ``tidy()`` one row per task and agent.

    References
    ----------
    Vargha, A. and Delaney, H. D. (2000), A critique and improvement of the CL common language
    effect size statistics of McGraw and Wong, J. Educational and Behavioral Statistics 25(2).
    Brunner, E. and Munzel, U. (2000), The nonparametric Behrens-Fisher problem, Biometrical J. 42(1).
    Hedges, L. V. and Olkin, I. (1985), Statistical Methods for Meta-Analysis, Academic Press.
    Holm, S. (1979), A simple sequentially rejective multiple test procedure, Scand. J. Statistics 6.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    >>> table = rlstats.task_table(df, "score ~ agent | task/seed")
    >>> table.tidy().columns[:4].tolist()
    ['task', 'agent', 'estimate', 'std_dev']
    """
    summary = check_choice("statistic", statistic, tuple(kernels.SUMMARIES))
    test = check_choice("test", test, kernels.TESTS)
    adjustment = check_choice("adjustment", adjustment, ADJUSTMENTS)
    alpha = check_fraction("alpha", alpha)
    level = check_confidence_level(confidence_level)
    higher = check_bool("higher_is_better", higher_is_better)
    if aggregate not in AGGREGATES:
        raise OptionError(f"aggregate= must be None or 'bootstrap', got {aggregate!r}")
    n_resamples = check_resamples(n_resamples, minimum=100)
    env = patsy.EvalEnvironment.capture(1) if eval_env is None else eval_env
    design = design_of(data, formula, na_action=na_action, eval_env=env, normalize=normalize)
    if not design.has_blocks:
        raise DesignError("a task table needs tasks: write the formula as 'score ~ agent | task/seed'")

    ss, seed_record = seed_sequence(rng)
    k, n = design.n_agents, design.n_tasks
    estimates, spreads = np.full((n, k), np.nan), np.full((n, k), np.nan)
    best = np.full(n, -1)
    p_values, p_adjusted = np.full((n, k), np.nan), np.full((n, k), np.nan)
    a12 = np.full((n, k, 3), np.nan)
    hedges = np.full((n, k, 3), np.nan)
    how = set()
    cell = design.task * k + design.agent
    runs = {c: design.y[cell == c] for c in np.unique(cell)}
    generators = (g for _, _, g in chunk_generators(ss, n * k, 1))
    for t in range(n):
        present = [a for a in range(k) if (t * k + a) in runs]
        for a in present:
            values = runs[t * k + a]
            estimates[t, a] = kernels.SUMMARIES[summary](values)
            spreads[t, a] = np.std(values, ddof=1) if values.size > 1 else np.nan
        sign = 1.0 if higher else -1.0
        best[t] = max(present, key=lambda a: (sign * estimates[t, a], -a))
        x = runs[t * k + best[t]]
        others = [a for a in present if a != best[t]]
        for a in others:
            y = runs[t * k + a]
            generator = next(generators)
            if test == "permutation":
                p, method = kernels.permutation(x, y, generator, n_resamples)
                how.add(method)
            else:
                p = getattr(kernels, test)(x, y)
            p_values[t, a] = p
            first, second = (x, y) if higher else (y, x)
            a12[t, a] = kernels.a12_interval(first, second, level)
            hedges[t, a] = kernels.hedges_g(first, second, level)
        tested = [a for a in others if np.isfinite(p_values[t, a])]
        if tested:
            p_adjusted[t, tested] = ADJUST[adjustment](p_values[t, tested])

    notes = list(design.notes)
    untested = np.isnan(p_values) & ~np.isnan(estimates) & (np.arange(k)[None, :] != best[:, None])
    if untested.any():
        notes.append(f"{count(untested.sum(), 'agent-task cell')} could not be tested against the best (fewer than "
                     f"2 runs, or no spread for the {_TEST_NAMES[test]}); they are not marked either way")
    if "monte_carlo" in how:
        notes.append(f"permutation p-values from {n_resamples} random splits where the splits were too many to "
                     "enumerate")
    aggregate_row = None
    if aggregate == "bootstrap":
        aggregate_row = _bootstrap_row(design, summary, level, n_resamples, ss.spawn(1)[0])
        if normalize is None and design.n_tasks > 1:
            notes.append("the aggregate row pools raw scores of tasks on different scales; pass normalize= "
                         "(e.g. normalize='atari100k_reference') to put them on one scale first")

    return TaskTableResult(
        method=f"Per-task comparison with the best agent ({_TEST_NAMES[test]}, {_adjust_name(adjustment)})",
        formula=design.formula, data_name=design.data_name, nobs=design.nobs, notes=tuple(notes),
        options={"statistic": summary, "test": test, "alpha": alpha, "adjustment": adjustment,
                 "confidence_level": level, "higher_is_better": higher, "aggregate": aggregate,
                 "n_resamples": n_resamples},
        seed=seed_record, agents=design.agents, tasks=design.tasks, statistic=summary, test=test,
        test_name=_TEST_NAMES[test], adjustment=adjustment, alpha=alpha, confidence_level=level,
        estimates=estimates, std_dev=spreads, counts=design.counts, best=best, p_values=p_values,
        p_adjusted=p_adjusted, a12=a12, hedges_g=hedges, aggregate=aggregate_row)


def _adjust_name(adjustment):
    return {"holm": "Holm-adjusted within task", "bonferroni": "Bonferroni-adjusted within task",
            "none": "unadjusted"}[adjustment]


def _bootstrap_row(design, summary, level, n_resamples, seed):
    """Each agent's aggregate over tasks with its stratified bootstrap interval, through the registry."""
    from .. import backend

    metric = {"mean": "mean", "median": "median", "iqm": "iqm"}[summary]
    result = backend("bootstrap")(design.require_complete("raise", "the aggregate row compares agents on the "
                                                          "same tasks"),
                                  metrics=[metric], n_resamples=n_resamples, confidence_level=level, rng=seed)
    return {"metric": metric, "estimates": result.estimates[:, 0], "intervals": result.intervals[:, 0, :],
            "n_resamples": n_resamples}
