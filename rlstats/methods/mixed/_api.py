"""The linear mixed model: fixed agent effects, random task intercepts (and task x agent ones with replicates).

``mixed(df, "score ~ agent | task")`` fits ``score ~ agent + (1 | task)`` by REML, as R's ``lme4::lmer`` does;
when some cell holds several runs (``| task/seed``, or several rows per agent and task) it adds random
task x agent intercepts, ``(1 | task) + (1 | task:agent)``, so that the seeds of one cell are not counted as
independent evidence about the agent.  lme4's spelling of either model is accepted as the formula.

Every contrast (the fixed effects, the agents' estimated marginal means and all their pairwise differences) gets
its degrees of freedom by Satterthwaite's method as lmerTest computes it, or by Kenward and Roger's as pbkrtest
does (with its adjusted covariance); the pairs are adjusted by Tukey's studentized range with those df, or by
Holm, as emmeans does; the omnibus F for the agents is lmerTest's ``anova()``.  The numbers come from
:mod:`._kernels`; this module validates the options once, builds the design and wraps the numbers in
:class:`MixedResult`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from ... import calibration
from ..._typing import Data, Ddf, EvalEnv, FBasis, FormulaLike, MixedAdjust, NaAction, Normalizer, Seed
from ...bounds import SATURATED_FEWEST_OFF_CONTRAST, bound_ties, check_bounds, clip_columns, saturated_withheld
from ...cost import admit, shows, timed_bar
from ...design import design_of, public_function
from ...errors import DesignError
from ...format import a_or_an, count, join_and, listed, names_shown, plural, signif
from ...normalization import warn_raw_scales
from ...options import check_choice, check_confidence_level, check_cost_options
from ...resampling import check_rng
from ...statistics import (P_ADJUST, block_ranges, difference_ties, difference_tolerance, exact_doubled_midranks,
                           near_ties, noise_free, spread_and_magnitude, tie_tolerance)
from . import _kernels as kernels
from ._backend import cost
from ._result import ADJUSTMENTS_SAID, MixedResult

DDF = ("satterthwaite", "kenward-roger")      # the keys of _DF_METHODS
F_BASIS = ("orthonormal", "lmertest")          # the keys of _F_BASES
ADJUST = ("tukey", "holm", "bonferroni", "sidak", "scheffe", "hochberg", "hommel", "bh", "by", "none")  # _ADJUSTMENTS
#: the calibration table's rows for the pairs' simultaneous intervals (tests/reference/coverage_mixed.py)
CALIBRATION = "mixed.contrast"
#: its rows for the agents' marginal means (tests/reference/coverage_mixed_means.py), and the estimand they can miss
MEANS_CALIBRATION, _FRESH_TASKS = "mixed.means", "tasks drawn afresh"


@dataclass(frozen=True)
class MixedOptions:
    ddf: Ddf = "satterthwaite"
    adjust: MixedAdjust = "tukey"
    f_basis: FBasis = "orthonormal"
    confidence_level: float = 0.95
    na_action: NaAction = "raise"
    bounds: tuple | None = None
    progress: bool = True

    @classmethod
    def checked(cls, **options: Any) -> MixedOptions:
        """Validate every option once; raises OptionError naming the bad one."""
        return cls(ddf=check_choice("ddf", options["ddf"], DDF),
                   adjust=check_choice("adjust", options["adjust"], ADJUST),
                   f_basis=check_choice("f_basis", options.get("f_basis", "orthonormal"), F_BASIS),
                   confidence_level=check_confidence_level(options["confidence_level"]),
                   na_action=options["na_action"], bounds=check_bounds(options.get("bounds")),
                   progress=check_cost_options(options.get("progress", True), options.get("max_seconds"))[0])


@public_function
def mixed(data: Data, formula: FormulaLike | None = None, *, ddf: Ddf = "satterthwaite",
          f_basis: FBasis = "orthonormal", adjust: MixedAdjust = "tukey", confidence_level: float = 0.95,
          normalize: Normalizer = None,
          bounds: tuple[float | None, float | None] | None = None, na_action: NaAction = "raise", rng: Seed = None,
          progress: bool = True, max_seconds: float | None = None,
          eval_env: EvalEnv = None) -> MixedResult:
    """Linear mixed model of scores: agents as fixed effects, tasks (and task x agent cells) as random intercepts.

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run; never modified.
    formula : str or Formula
        ``"score ~ agent | task"`` (``| task/seed`` names the replicate column), or lme4's
        ``"score ~ agent + (1 | task)"`` / ``"score ~ agent + (1 | task) + (1 | task:agent)"``, which mean the
        same: random task intercepts, plus random task x agent intercepts when a cell holds several runs.
    ddf : {"satterthwaite", "kenward-roger"}
        Degrees of freedom of every t and F: Satterthwaite's (lmerTest's default), or Kenward and Roger's, which also
        replaces the covariance of the fixed effects by its small-sample adjustment (pbkrtest's ``vcovAdj``), so
        standard errors grow. emmeans' own default for an lmer fit is Kenward-Roger's, so its pairs differ from this
        default's (on ``tests/reference/mixed_onerun33.csv`` DrQ - NEW reads adjusted p 0.0509 there, 0.0484 here;
        ``ddf="kenward-roger"`` gives emmeans' numbers). Satterthwaite's is the default, as lmerTest's: its 95% Tukey
        families held on every design of the calibration grid (``mixed.contrast`` rows, 192 of each: lowest pooled
        coverage 0.9525, Kenward-Roger's alike), and it costs about a fifth as much at 100 agents. Where the fit puts
        the task x agent SD at 0, pbkrtest's df still count that component (the interaction's df, 2 at 2 agents x 3
        tasks, where Satterthwaite's are the residual's 58), so on few tasks Kenward-Roger's F is far more
        conservative: on simulated fits at that boundary on 3 tasks it rejected agents alike at 0.05 in 3 of 3,943
        and agents 0 to 1 noise sd apart in 30%, Satterthwaite's in 1.6% and 65% (audit s35,
        ``tests/reference/size_mixed_boundary.py``; lmerTest's ``anova(ddf = "Kenward-Roger")`` alike); the
        singular-fit note quotes these counts at the design's number of tasks.
    f_basis : {"orthonormal", "lmertest"}
        The contrasts in which the F test's Satterthwaite denominator df are formed (the F itself, and
        Kenward-Roger's df, are the same in any). ``"orthonormal"``: an orthonormal basis of the contrasts of the
        agents' means, in which renaming or reordering the agents changes nothing (audit s33). ``"lmertest"``:
        lmerTest's, the Doolittle rows of X'X with the agents in their names' sorted order, whose df in an
        unbalanced design follow which agent is first (6.44 to 8.20 df over the 24 orders of one Atari 100k design);
        for agreement with an R session whose levels are so sorted. Balanced designs give both the same df.
    adjust : {"tukey", "holm", "bonferroni", "sidak", "scheffe", "hochberg", "hommel", "bh", "by", "none"}
        Adjustment of the pairwise comparisons, emmeans' ``adjust=``: Tukey's studentized range with each pair's
        df (emmeans' default), Holm's step-down, Bonferroni's, Sidak's, Scheffe's (F on k - 1 df for k agents),
        R's ``p.adjust`` step-up methods (Hochberg's, Hommel's) and its false-discovery-rate ones (``"bh"``,
        Benjamini-Hochberg, R's "BH" or "fdr"; ``"by"``, Benjamini-Yekutieli), or none.  Simultaneous intervals
        are Tukey's, Sidak's or Scheffe's with those, Bonferroni's beside the p.adjust methods (Holm's and the
        others), as emmeans gives them; emmeans' "mvt" is Tukey's on a balanced design.
    confidence_level : float
        Level of the intervals; a pair is ``significant`` when its adjusted p-value is at most
        ``1 - confidence_level``.
    normalize : DataFrame, str or dict, optional
        Per-task normalisation first (see :func:`rlstats.normalize`; e.g. ``"atari100k_reference"``), stated in
        the notes.  The model assumes one residual variance for every task: scores on scales that differ by
        orders of magnitude break that, so normalise raw scores first.
    bounds : (low, high), optional
        Known limits of the score (None for a side without one; ``normalize="dm_control"`` implies [0, 1]): a run
        outside them is an error naming it, the agents' estimated means and their intervals are clipped to them
        and the pairwise differences and their intervals to plus or minus ``high - low``, which keeps coverage
        since the true values lie within them; the notes say where.
    na_action : {"raise", "drop", "omit"}
        Missing values: an error, or drop those rows and say so.
    rng : None, int or numpy.random.Generator
        Checked, then not used: nothing in the fit is random (the result's ``seed`` is None).  Taken so that
        :func:`rlstats.compare` and the command line's ``--seed`` can give one seed to every method.
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
    MixedResult

    Raises
    ------
    FormulaError, DesignError, OptionError
        A DesignError when the agents fall into groups that never ran on a common task (a contrast across groups
        would rest on the random task intercepts alone); the message lists each group with the ``subset=`` of
        :func:`rlstats.compare` that selects it.  Within one group, the contrast of a pair that never ran on a
        common task is kept but marked indirect (``n_shared_tasks`` = 0; the notes say what it rests on).

    See Also
    --------
    rlstats.skillings_mack : The blocked rank test, without a model of the scores.
    rlstats.compare : Picks a back end by name: ``method="mixed"``.

    Notes
    -----
    The fit, its df and the pairwise comparisons equal R's (lme4 1.1-31, lmerTest 3.1-3, pbkrtest 0.5.2, emmeans
    1.8.4-1) to about 1e-7 relative on the designs of ``tests/reference/mixed_r.R``, balanced and unbalanced,
    with and without seeds, 5 to 26 tasks, and the 15,600 Atari 100k runs (the F's Satterthwaite df in an unbalanced
    design with ``f_basis="lmertest"``; the default's, lmerTest's ``contestMD()`` of its rows: below).  Two differences
    from an R session: tasks where fewer than two agents ran are kept out by the design (stated in the notes), where lme4 would
    use them for the variance components; and Tukey p-values for more than 25,000 df use infinite df, as R's
    ``ptukey`` does.  Variance components are estimated at the REML optimum (lme4 stops its optimiser a little
    earlier, which moves standard errors by up to ~1e-5 relative).  A singular fit (a standard deviation at 0)
    and a fit that did not converge are stated in the notes.  Units do not matter: the fit runs on the scores divided
    by a power of two near their spread, so theta, df, t, F and p are the same for scores in any units from 1e-150
    to 1e148 (to ~1e-11 relative) and estimates and standard errors scale with them; a spread below 1e-150 is an
    error (its squares underflow).  The simultaneous intervals' coverage was measured by simulation
    (``mixed.contrast`` rows of ``rlstats/calibration.csv``, ``tests/reference/coverage_mixed.py``: 2, 3 and 8
    agents on 3 to 26 tasks at 3 to 20 runs per cell, normal, skewed, heavy-tailed and capped scores, tasks of
    different levels and spreads; Sidak's and Scheffe's families since audit s33 at 3 and 8 agents, 3 to 10 runs,
    ``tests/reference/coverage_mixed_adjust.py``); where a balanced design on that grid falls short of 95% by more
    than 3 Monte Carlo standard errors, pooled or in one draw of the tasks' levels and spreads, a note quotes the
    lowest coverage measured there. Unbalanced designs (audit s34, ``tests/reference/coverage_mixed_unbalanced.py``:
    nine patterns of 2 to 8 agents x 3 to 26 tasks with 1 to 10 runs a cell, empty cells, agents with a single run
    on some tasks and two never on a common task; the four score families, agents alike with and without a task x
    agent term, or shifted apart; 400 data sets a row) miss nowhere; the notes of an unbalanced design quote them at its
    number of agents (audit s35: the patterns, the lowest coverage of the family asked for and the F's level): the
    Tukey family held 0.9375-0.9925 under agents alike (its family-wise error at most 0.0625) and covered
    0.9525-0.9975 under shifts, the other families and Kenward-Roger's df 0.9375-1.0 (``mixed.contrast`` rows
    "unbalanced ..."), and the omnibus F at 0.05 rejected agents alike in 0.0025-0.0625 of data sets in either
    ``f_basis`` (Kenward-Roger's 0-0.0625; ``mixed.f_size`` rows). Agents whose runs differ in spread (audit s36,
    ``tests/reference/coverage_mixed_spreads.py``: agents alike in mean, runs of SD 1 and 4, 5 and 10 tasks x 3-10
    runs, normal and skewed; ``mixed.contrast`` rows "run sd by agent ..."): with 2 agents, or two of each spread,
    the Tukey family held (0.948-0.988), but with one agent's runs 4 times as spread as three others' it declared
    agents alike different in up to 0.096 of 1,600 data sets (skewed, 5 tasks x 3 runs; normal at most 0.06), the
    model's one residual variance too small for that agent's pairs; a result whose agents' run SDs lie 2 or more
    times apart in its sample and differ by Levene's test about the cells' medians at 0.05 (:func:`spread_levene`;
    audit s37 spread37: agents of one run spread meet both in at most 5.9% of data sets of normal, skewed,
    heavy-tailed or capped scores, ``tests/reference/mixed_spread_trigger.py``) quotes those rows where they miss, as
    what its sample shows.

    Runs at a score cap (audit s11): the model gives every agent one residual variance, which an agent whose runs
    nearly all reach a cap does not have. On simulated runs with 85% of a baseline agent's runs at a cap and agents 0
    to 1 noise units apart, the Tukey intervals covered 0.63-0.90 (2-8 agents, 3-26 tasks, 3-10 runs), and
    per-agent or per-pair (Welch-type) variances with Satterthwaite df did no better (0.30-0.91). So an agent three
    quarters or more of whose runs tie at a task's largest or smallest score (a bound two or more runs reach), with
    fewer than 12 runs off it, has its pairs' t, p-values and intervals withheld (NaN, not significant; the estimate,
    the model's SE and df stay), and the other agents' pairs come from the model fitted to them alone, adjusted over
    their pairs (the saturated runs would shrink their residual variance: 0.90 against 0.96 at 8 agents x 26 tasks x
    3 runs); a note names the agents. Runs without ties at a bound are untouched, bit for bit; on simulated runs a
    third of a baseline's at a cap (72% of an agent one noise unit above it) 22-42% of the pairs were withheld at 3
    tasks or 10 tasks x 3 runs (none at 26 tasks), the families given holding 0.93-0.99
    (``tests/reference/coverage_mixed_saturated.py``). With one run per
    cell, a best score that no other run ties is not taken for a cap.

    The omnibus F (audit s12) follows the pairs: where some agents' pairs are withheld it is the F of the model fitted
    to the other agents (``omnibus_agents`` names them; the print and a note say so), and it is withheld (NaN) where
    fewer than two are left. On simulated runs of agents alike in mean, one at the cap in 85% or 95% of its runs and
    the others in a third (``coverage_mixed_saturated.py omnibus``, 100 data sets a design), the F of every agent
    rejected at the 5% level in up to 0.30 of them, above 0.05 by more than 3 Monte Carlo SE at 7 of 18 designs of 2-8
    agents x 3-26 tasks x 3-20 runs (0.12-0.30; Kenward-Roger's df alike); as given now, in 0-0.06.
    The agents' mean intervals held their means over the tasks at hand on those runs and the grid's saturated ones
    (0.97-1), so they stay as the model gives them.

    The F's Satterthwaite denominator df (audit s33). lmerTest splits the F into independent t's along the principal
    axes of L cov(beta) L' and pools their df (Kuznetsova et al. 2017, eq. 8); the axes, and so the df, depend on the
    rows L, which for lmerTest are the Doolittle factor of X'X in the order of the agent factor's levels. In an
    unbalanced design the df then follow which agent is the reference: 6.855, 6.436 and 8.076 (p 0.0293, 0.0323, 0.0228)
    on the Atari 100k design of ``tests/reference/mixed_relabel33.csv`` as its agents are named three ways, lmerTest's
    numbers for each order (``mixed_relabel33_r.R``), and up to 8.201 over its 24 orders. The default forms the same
    pooled df in an orthonormal basis of the contrasts of the agents' means: any two such bases differ by a rotation,
    which leaves the axes' contrasts and their df unchanged, and renaming permutes the means, a rotation of those
    contrasts; so the df is one number (6.509 there, p 0.0317, as lmerTest's ``contestMD()`` gives it with these rows in
    every order; Kenward-Roger's 7.156, p 0.0308). Where cov(mu) is exchangeable on the contrasts (a balanced design)
    every contrast has one df and both bases give it. The level of the F at 0.05, agents alike, from the model's own
    scores (``tests/reference/size_mixed_f_basis.py``, 2,000 data sets a design): 0.0555 in the orthonormal basis
    against lmerTest's 0.0590 (names sorted; 0.0615 rejected in some order of the 24) and Kenward-Roger's 0.0355 on the
    Atari pattern (4 agents x 6 tasks, two never on a common task); 0.0495, 0.0500 and 0.0335 with 7 of 30 cells empty
    (3 agents); 0.0465, 0.0475 and 0.0415 at 1 to 5 runs a cell (6 agents); the Monte Carlo SE is 0.005.
    ``f_basis="lmertest"`` gives lmerTest's value, with the agents in their names' byte-sorted order whatever a
    Categorical's category order (audit s25), as ``sort(method = "radix")`` orders them in R.

    References
    ----------
    Bates, D., Maechler, M., Bolker, B. and Walker, S. (2015), J. Stat. Softw. 67(1) (lme4; the REML criterion).
    Kuznetsova, A., Brockhoff, P. B. and Christensen, R. H. B. (2017), J. Stat. Softw. 82(13) (lmerTest).
    Kenward, M. G. and Roger, J. H. (1997), Biometrics 53(3), 983-997.
    Satterthwaite, F. E. (1946), Biometrics Bulletin 2(6), 110-114.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=5, effect=1.0, distribution="normal",
    ...                                heterogeneity=0.3, rng=0)
    >>> res = rlstats.mixed(df, "score ~ agent | task/seed")
    >>> res.random_terms, res.num_df
    (('task', 'task:agent'), 2)
    """
    options = MixedOptions.checked(ddf=ddf, adjust=adjust, f_basis=f_basis, confidence_level=confidence_level,
                                   na_action=na_action,
                                   bounds=bounds, progress=progress, max_seconds=max_seconds)
    check_rng(rng)
    design = design_of(data, formula, na_action=na_action, eval_env=eval_env, normalize=normalize,
                       bounds=options.bounds)
    if not design.has_blocks:
        raise DesignError(f"the mixed model needs the task column for its random intercepts: write "
                          f"'{design.formula.text} | task'")
    design = warn_raw_scales(design, normalize)  # one residual variance for every task: raw scales break it
    design = design.runs_by_score()  # without seeds, each cell's sums in one order whatever the rows' (audit s16)
    work = admit(cost, design, options, max_seconds, "mixed()")  # issue 43 item 2
    with timed_bar(work, shows(work, options.progress), "mixed"):
        return _run(design, options)


def _random_terms(design, notes):
    """('task',) or ('task', 'task:agent'), by whether any cell holds several runs; notes where lme4's spelling
    said otherwise."""
    task, agent = design.formula.blocks, design.formula.groups
    written = design.formula.random
    replicated = design.max_runs_per_cell > 1
    if len(written) == 2 and not replicated:
        raise DesignError(
            f"the formula asks for random {written[1]} intercepts, but every ({design.arm_word}, {design.block_word}) "
            "cell holds one run, so "
            f"they cannot be told apart from the residual (lme4 stops here too); drop '+ (1 | {written[1]})' or "
            "give cells several runs")
    if written == (task,) and replicated:
        notes.append(f"random {task}:{agent} intercepts were added to the formula's (1 | {task}), as '| {task}' "
                     f"does, because cells hold up to {design.max_runs_per_cell} runs: without them the runs of "
                     "one cell would count as independent evidence about the agent (lme4 fits the formula as "
                     "written)")
    return (task, f"{task}:{agent}") if replicated else (task,)


#: What the mixed model would do across groups of agents that never share a task (connectivity's refusal).
_ACROSS_GROUPS = ("the mixed model would contrast them through its random task intercepts alone, assuming the "
                  "groups' tasks alike on average")


def _run(design, options):
    # Refused rather than fitted: a contrast across groups has no task behind it, and the omnibus F and Tukey's
    # family would mix such contrasts in; one fit per group is the user's subset= away.
    graph = design.graph
    graph.require_connected(design.formula.groups, _ACROSS_GROUPS)
    notes = list(design.notes)
    terms = _random_terms(design, notes)
    if design.n_agents < 2:
        raise DesignError(f"the mixed model compares {plural(design.arm_word)}: the data hold one {design.arm_word}")
    if design.n_tasks < 2:  # the data's columns by their names (audit s33 words33b)
        raise DesignError(f"the mixed model estimates the spread of {design.block_word} intercepts, which needs at "
                          f"least {count(2, design.block_word)}; the data hold "
                          f"{count(design.n_tasks, design.block_word)}")
    if _runs_flat(design):
        # the agents' means fit every run exactly: no residual variance to estimate (REML divides by it)
        agent = design.arm_word  # the data's columns by their names (audit s33 words33b)
        raise DesignError(f"every run of each {agent} has the same {design.formula.response} (e.g. all at a score "
                          f"cap), so the model has no variation left to fit; compare these {plural(agent)} without a "
                          "model of the scores (rlstats.skillings_mack) or check the score column")
    spread = float(np.max(np.abs(design.y - design.y.mean())))
    if spread < kernels.SMALLEST_SPREAD:
        # the fit is unit-free, but the covariances it returns in the score's units are squares: below ~1e-154
        # they leave the range of doubles (as squares of 1e150 do above, which the design refuses)
        raise DesignError(f"'{design.formula.response}' varies by at most {spread:.3g}: the model's variances in these "
                          "units are squares below the smallest double, so standard errors would read 0; rescale the "
                          f"response, e.g. I({design.formula.response} * 1e100)")
    m = kernels.model(design.y, design.agent, design.task, design.n_agents, design.n_tasks, len(terms) == 2)
    fitted = kernels.fit(m)
    means_rows, pair_rows, first, second = kernels.agent_contrasts(design.n_agents)
    hypothesis = _F_BASES[options.f_basis](m, design)
    vcov, t_test, (f_stat, num_df, den_df) = _DF_METHODS[options.ddf](m, fitted, hypothesis)
    coef_var, coef_df = t_test(np.eye(design.n_agents))
    mean_var, mean_df = t_test(means_rows)
    pair_var, pair_df = t_test(pair_rows)
    # scipy.special's Student/F/normal functions are what scipy.stats calls (the same numbers), without scipy.stats'
    # import, which would be most of the CPU time of a fit of 10^5 runs (issue 43)
    from scipy import special

    level = options.confidence_level
    # estimates within the tie tolerance of the scores (their range, not only their largest |score|, so that a shift
    # does not zero a difference: audit s20 ties20b) are the rounding of scores that cancel, shown as 0; the range
    # within a task, the largest task's, not that of every score (review s37 rv37a, fixa37: a task at 1e9 beside
    # tasks at 1e-4 zeroed A - B's -1.3e-4, p 0.18 -> 1.0), as a fixed effect weighs tasks by the fit's weights
    task_spread, task_magnitude = spread_and_magnitude(*block_ranges(design.y, design.task, design.n_tasks))
    scale = float(task_spread.max()), float(task_magnitude.max())
    coefficients = _t_table(noise_free(fitted.beta, *scale), coef_var, coef_df)
    coefficients.insert(0, "term", ["(Intercept)"] + [f"{design.formula.groups}{a}" for a in design.agents[1:]])
    means = _t_table(noise_free(means_rows @ fitted.beta, *scale), mean_var, mean_df)
    half = special.stdtrit(mean_df, 0.5 + level / 2) * means["std_error"].to_numpy()
    means["conf_low"], means["conf_high"] = means["estimate"] - half, means["estimate"] + half
    means.insert(0, "agent", list(design.agents))
    pairs = _pairs_table(design.agents, first, second, noise_free(pair_rows @ fitted.beta, *scale), pair_var, pair_df,
                         options)
    pairs, saturated, refit_f = _saturated_pairs(design, pairs, terms, options)
    compared = tuple(design.agents)
    if saturated.any():  # audit s12: the F of the refit the pairs left come from, or none
        compared = tuple(a for a, s in zip(design.agents, saturated) if not s) if refit_f is not None else ()
        f_stat, num_df, den_df = refit_f if refit_f is not None else (np.nan, num_df, np.nan)
        # a coefficient is the difference of its agent and the first: the test of a pair withheld above (review s12:
        # agentD t = 5.43, p = 8.9e-05 printed beside A - D's withheld test)
        paired = saturated[1:] | saturated[0]
        coefficients.loc[1 + np.flatnonzero(paired), ["statistic", "p_value"]] = np.nan
    pairs.insert(2, "n_shared_tasks", graph.shared[first, second])
    single = single_run_agents(design.counts)
    if single.any():  # audit s33 mixed33: a difference of an agent with one run is not claimed
        pairs["significant"] = pairs["significant"].to_numpy() & ~(single[first] | single[second])
    notes += _indirect_notes(graph, pairs, options) + _empty_cell_notes(design) + _single_run_notes(design, single)
    u_task, u_cell = kernels.random_effects(m, fitted)
    # per run in the data's row order (R's fitted() and residuals()), not the design's sorted order
    in_data_order = _order_of_positions(design.row_position)
    fitted_values = kernels.fitted_values(m, fitted, design.agent, design.task)[in_data_order]
    residuals = design.y[in_data_order] - fitted_values
    sds = fitted.theta * fitted.sigma
    singular = bool(np.any(fitted.theta < kernels.SINGULAR_TOL))
    notes += _fit_notes(fitted, terms, options.ddf, design.n_tasks) + _saturated_notes(design, saturated, pairs) + \
        _omnibus_notes(compared, design) + _coverage_notes(design, options) + _unbalanced_notes(design, options) + \
        _run_spread_notes(design, options) + _means_notes(design, options)
    means = clip_columns(means, design.bounds, ("estimate", "conf_low", "conf_high"), "the agents' means", notes=notes)
    pairs = clip_columns(pairs, design.bounds, ("estimate", "conf_low", "conf_high"), "the pairwise differences",
                         "difference", notes)
    # the rounding of a difference of scores: residuals and predicted effects within it of one another tie in the QQ
    # plots' ranks (audit s37 meta37: residuals tied in the data's units untied by the fit's rounding x 7.3), each
    # task's of its own scores (review s37 rv37a: of the whole data's range, a task at 1e9 tied the others' residuals)
    tolerance = difference_tolerance(task_spread, task_magnitude)
    task_in_data_order = design.task[in_data_order]
    return MixedResult(
        method="Linear mixed model fit by REML (" + ("Satterthwaite's" if options.ddf == "satterthwaite"
                                                     else "Kenward-Roger's") + " degrees of freedom)",
        formula=design.formula, data_name=design.data_name, nobs=design.nobs, notes=tuple(notes),
        options=asdict(options), seed=None,
        statistic=float(f_stat), num_df=int(num_df), den_df=float(den_df),
        pvalue=float(special.fdtrc(num_df, den_df, f_stat)), ddf=options.ddf, adjust=options.adjust,
        confidence_level=level, agents=design.agents, tasks=design.tasks, counts=design.counts,
        random_terms=terms, variance_sd=np.append(sds, fitted.sigma), sigma=fitted.sigma, theta=fitted.theta,
        reml_criterion=fitted.reml, converged=fitted.converged, singular=singular, optimizer_message=fitted.message,
        coefficients=coefficients, vcov=vcov, emmeans=means, comparisons=pairs, omnibus_agents=compared,
        units=design.units, task_effects=u_task, fitted_values=fitted_values, residuals=residuals,
        cell_effects=u_cell if len(terms) == 2 else None,
        residual_normal_scores=_normal_scores(residuals, tolerance, task_in_data_order),
        task_normal_scores=_normal_scores(u_task, tolerance[np.arange(design.n_tasks)]),
        cell_normal_scores=_normal_scores(u_cell, tolerance[m.cell_task]) if len(terms) == 2 else None)


def _normal_scores(values, tolerance=None, task=None):
    """Normal quantiles at R's ``ppoints`` of each value's rank: the x of a normal QQ plot.  Tied values share the
    average of their ranks (R's ``rank(ties.method = "average")``; R's ``qqnorm`` itself breaks ties by position), so
    the scores do not depend on the order of the data's rows; values that are one but for rounding tie, so that they
    do not depend on the score's units either: with each value's ``task`` (residuals), those of a task within its
    ``tolerance`` (tasks,) of one another (:func:`rlstats.statistics.near_ties`' groups: the rounding of a difference
    of the task's scores), then those of any tasks within the sum of their tasks' tolerances of a group's first
    (:func:`rlstats.statistics.difference_ties`, which does not chain; audit s38 fixd38: two agents' residuals of 0.1
    on two tasks of a singular fit, 1e-16 apart, took ranks in an order the units decided, x 7.3 a score of -1.5341
    where x 1 gave -1.7317); without, ``tolerance`` is each value's own (predicted effects, one a task or cell) and
    :func:`rlstats.statistics.difference_ties` ties them."""
    from scipy import special

    if tolerance is not None and values.size > 1:
        values = (difference_ties(near_ties(values, task, tolerance)[0], tolerance[task]) if task is not None
                  else difference_ties(values, tolerance))
    n = values.size
    a = 3 / 8 if n <= 10 else 1 / 2
    # the ties were made above, so the exact average ranks (scipy.stats.rankdata's "average", without scipy.stats'
    # import: 0.6-0.8 s of a fresh process's first mixed() call, issue 43's 10 x 100 x 10 goal of 1 s, benchmarks/
    # README.md round s39-rows); a NaN makes every rank NaN, as rankdata's nan_policy="propagate"
    if np.isnan(values).any():
        ranks = np.full(n, np.nan)
    else:
        ranks = exact_doubled_midranks(values, np.zeros(n, dtype=np.intp), 1)[0] / 2.0
    return special.ndtri((ranks - a) / (n + 1 - 2 * a))


def _order_of_positions(position):
    """``np.argsort(position)`` of distinct non-negative integers (rows of the caller's frame) by one scatter into
    their range: O(rows), not a sort."""
    slots = np.full(int(position.max(initial=-1)) + 1, -1, dtype=np.intp)
    slots[position] = np.arange(position.size)
    return slots[slots >= 0]


def _satterthwaite(m, fitted, hypothesis):
    """(cov(beta), t test of contrast rows, F test of the agents) with lmerTest's Satterthwaite df."""
    setup = kernels.satterthwaite_setup(m, fitted)
    return (fitted.vcov, lambda rows: kernels.satterthwaite_t(setup, fitted.vcov, rows),
            kernels.satterthwaite_f(setup, fitted.vcov, fitted.beta, hypothesis))


def _kenward_roger(m, fitted, hypothesis):
    """The same with pbkrtest's adjusted covariance and Kenward-Roger df."""
    setup = kernels.kenward_roger_setup(m, fitted)
    return (setup.vcov_adjusted, lambda rows: kernels.kenward_roger_t(setup, rows),
            kernels.kenward_roger_f(setup, fitted.beta, hypothesis))


#: ddf= -> how the covariance of beta, the t tests and the F test are formed
_DF_METHODS = {"satterthwaite": _satterthwaite, "kenward-roger": _kenward_roger}
#: f_basis= -> the agent term's contrast rows of the F test (model, design): an orthonormal basis of the contrasts of
#: the agents' means, whose Satterthwaite df no renaming moves (audit s33 mixed33), or lmerTest's, in the agents'
#: names' sorted order (audit s25 real25b)
_F_BASES = {"orthonormal": lambda m, design: kernels.orthonormal_hypothesis(design.n_agents),
            "lmertest": lambda m, design: kernels.agent_hypothesis(m, design.agent_order)}


def _tukey(t, df, level, k, n_pairs):
    return kernels.tukey_pvalues(t, df, k), kernels.tukey_quantiles(level, df, k)


def _p_adjusted(name):
    """R's p.adjust method ``name`` (statistics.P_ADJUST) of the pairs' two-sided t p-values, with Bonferroni's
    simultaneous intervals beside them, as emmeans gives them (its message: "Conf-level adjustment: bonferroni")."""
    def adjusted(t, df, level, k, n_pairs):
        from scipy import special

        return (P_ADJUST[name](2.0 * special.stdtr(df, -np.abs(t))),
                special.stdtrit(df, 1 - (1 - level) / (2 * n_pairs)))
    return adjusted


def _sidak(t, df, level, k, n_pairs):
    """Sidak's: p = 1 - (1 - p)^m, the intervals each at level^(1/m) (emmeans' "sidak")."""
    from scipy import special

    p = 2.0 * special.stdtr(df, -np.abs(t))
    with np.errstate(divide="ignore"):  # p = 1 at t = 0: log1p(-1) = -inf, adjusted to 1
        return -np.expm1(n_pairs * np.log1p(-p)), special.stdtrit(df, 0.5 + level ** (1.0 / n_pairs) / 2)


def _scheffe(t, df, level, k, n_pairs):
    """Scheffe's: t^2 / r against F(r, df), r = k - 1 the rank of all pairs' contrasts; half-widths
    sqrt(r F_level(r, df)) standard errors (emmeans' "scheffe")."""
    from scipy import special

    rank = k - 1
    return special.fdtrc(rank, df, t ** 2 / rank), np.sqrt(rank * special.fdtri(rank, df, level))


def _unadjusted(t, df, level, k, n_pairs):
    from scipy import special

    return 2.0 * special.stdtr(df, -np.abs(t)), special.stdtrit(df, 0.5 + level / 2)


#: adjust= -> (adjusted p-values, interval half-width multipliers) of the pairs' t statistics; the p.adjust methods
#: (Holm's and the others of emmeans beside them; audit s32 rhabit32) with Bonferroni's intervals
_ADJUSTMENTS = {"tukey": _tukey, "sidak": _sidak, "scheffe": _scheffe, "none": _unadjusted,
                **{name: _p_adjusted(name) for name in ("holm", "bonferroni", "hochberg", "hommel", "bh", "by")}}


def _t_table(estimate, variance, df):
    from scipy import special

    se = np.sqrt(variance)
    t = estimate / se
    return pd.DataFrame({"estimate": estimate, "std_error": se, "df": df, "statistic": t,
                         "p_value": 2.0 * special.stdtr(df, -np.abs(t))})


def _pairs_table(agents, first, second, estimate, variance, df, options):
    """All pairs i < j of agents (mean_i - mean_j), with adjusted p-values and simultaneous intervals."""
    table = _t_table(estimate, variance, df)
    names = np.asarray(agents, dtype=object)
    table.insert(0, "agent_2", names[second])
    table.insert(0, "agent_1", names[first])
    t = table["statistic"].to_numpy()
    adjusted, multiplier = _ADJUSTMENTS[options.adjust](t, df, options.confidence_level, len(agents), len(first))
    table["p_adjusted"] = adjusted
    table["adjustment"] = options.adjust
    half = multiplier * table["std_error"].to_numpy()
    table["conf_low"], table["conf_high"] = estimate - half, estimate + half
    table["significant"] = adjusted <= 1 - options.confidence_level
    return table


#: the columns of a pair withheld on saturated runs: its test and interval (the estimate, SE and df stay: the model's)
_WITHHELD = ("statistic", "p_value", "p_adjusted", "conf_low", "conf_high")


def saturated_agents(design):
    """(n_agents,) bool: the agents whose runs mostly sit at a score cap with too few off it for the model's contrasts
    (audit s11): three quarters or more of their runs tie at a task's largest or smallest score (a bound reached by
    two or more runs), and fewer than ``bounds.SATURATED_FEWEST_OFF_CONTRAST`` are off it (``rlstats.bootstrap``'s
    rule, ``rlstats.bounds.saturated_withheld``, with the count measured for these contrasts)."""
    return saturated_withheld(bound_ties(design, tied_only=True)[0], design.counts, ["contrast"])[:, 0]


def _saturated_pairs(design, pairs, terms, options):
    """The pairs table with the pairs of a saturated agent (:func:`saturated_agents`) withheld and the others' tests
    and intervals from the model refitted to the agents not saturated (adjusted over those agents' pairs), the
    saturated agents' codes, and the refit's omnibus F ``(F, num_df, den_df)`` (None without a refit); the table
    unchanged when none is saturated (audit s11; the F, audit s12).

    Why: the model gives every agent one residual variance, and an agent whose runs nearly all sit at the cap has
    almost none, so its pairs' intervals were too narrow (simulated coverage 0.63-0.90), and the pooled variance
    shrank the other pairs' too (0.90 at 8 agents x 26 tasks x 3 runs); per-agent and per-pair variances missed as
    well (0.30-0.91), since runs nearly all at the cap show no spread to read.
    """
    saturated = saturated_agents(design)
    if not saturated.any():
        return pairs, saturated, None
    out = pairs.copy()
    out.loc[:, list(_WITHHELD)] = np.nan
    out["significant"] = False
    left = [a for a, s in zip(design.agents, saturated) if not s]
    refit = None
    if len(left) >= 2:
        sub = design.select_agents(left)
        # tasks where two of them ran, as the design keeps tasks where two agents ran
        sub = sub.select_tasks([t for t, n in zip(sub.tasks, (sub.counts > 0).sum(axis=1)) if n >= 2])
        refit = _refit(sub, terms, options)
    omnibus = None
    if refit is not None:
        refit, omnibus = refit
        where = {(a, b): i for i, (a, b) in enumerate(zip(out["agent_1"], out["agent_2"]))}
        rows = [where[a, b] for a, b in zip(refit["agent_1"], refit["agent_2"])]
        columns = ["std_error", "df", *_WITHHELD, "significant"]
        for column in columns:
            values = out[column].to_numpy(copy=True)
            values[rows] = refit[column].to_numpy()
            out[column] = values
    return out, saturated, omnibus


def _runs_flat(design):
    """Whether every agent's runs are one value each (the model would have no residual variance), by the package's
    tie rule within each agent's runs (:func:`rlstats.statistics.near_ties`), so that 0.3 and 0.1 + 0.2 are one value
    whatever the origin (audit s22: a fit with SE 1.9e-17 unshifted, this refusal after + 1e6)."""
    low, high = block_ranges(near_ties(design.y, design.agent)[0], design.agent, design.n_agents)
    return bool(np.all(low == high))


def _refit(sub, terms, options):
    """(pairs table, omnibus F ``(F, num_df, den_df)``) of the model fitted to the agents of ``sub`` alone (None
    where it cannot be: they fall into groups that never share a task, their runs are flat, or fewer than two tasks
    are left)."""
    if not sub.graph.connected:  # a contrast across groups would rest on the random intercepts alone
        return None
    if sub.n_tasks < 2 or _runs_flat(sub):
        return None
    m = kernels.model(sub.y, sub.agent, sub.task, sub.n_agents, sub.n_tasks, len(terms) == 2)
    fitted = kernels.fit(m)
    _, pair_rows, first, second = kernels.agent_contrasts(sub.n_agents)
    _, t_test, omnibus = _DF_METHODS[options.ddf](m, fitted, _F_BASES[options.f_basis](m, sub))
    variance, df = t_test(pair_rows)
    estimate = noise_free(pair_rows @ fitted.beta, float(np.ptp(sub.y)), float(np.max(np.abs(sub.y))))
    return _pairs_table(sub.agents, first, second, estimate, variance, df, options), omnibus


def _saturated_notes(design, saturated, pairs):
    """The note of the pairs withheld on saturated runs and of the refit that gave the others (audit s11)."""
    if not saturated.any():
        return []
    names = [a for a, s in zip(design.agents, saturated) if s]
    task, agent = design.words  # the data's columns by their names (audit s33 words33b)
    given = int(np.isfinite(pairs["conf_low"].to_numpy(dtype=float)).sum())
    others = int((~saturated).sum())
    rest = (f"; the tests and intervals of the other {count(given, 'pair')} come from the model fitted to the other "
            f"{plural(agent)} alone (adjusted over their pairs), whose residual variance the saturated runs would "
            "shrink" if given else
            f"; the other {plural(agent)}' pairs are withheld too: the model of those {plural(agent)} alone could not "
            f"be fitted (they share no {task}, fewer than {count(2, task)}, or their runs do not vary)" if others >= 2
            else "")
    return [f"pairwise tests and intervals withheld for every pair of {listed(names_shown(names, design.agents), 8)} "
            "(and the fixed effects' tests of those differences): three quarters or more of "
            f"the {agent}'s runs sit at {a_or_an(task)}'s largest or smallest score (a cap often reached) and fewer "
            "than "
            f"{SATURATED_FEWEST_OFF_CONTRAST} are off it, so the model's one residual variance does not describe "
            "them: on simulated runs with 85% of a baseline's at a cap and agents apart, its 95% Tukey intervals "
            "covered 0.63-0.90 (2-8 agents, 3-26 tasks, 3-10 runs), per-agent or per-pair variances did no better "
            "(0.30-0.91), and pairs given from 6 or 8 runs off the cap still missed (0.84-0.85); the estimates stay in "
            f"tidy(); compare how often each {agent} reaches the cap (a test of two proportions), or add runs" + rest]


def _omnibus_notes(compared, design):
    """The note of an omnibus F over fewer agents than the data hold, or withheld (audit s12)."""
    if len(compared) == design.n_agents:
        return []
    # audit s12, tests/reference/coverage_mixed_saturated.py omnibus: sizes 0.12-0.30 with them, 0-0.06 without
    measured = ("on simulated runs of agents alike in mean, one at the cap in 85% or 95% of its runs and the others in "
                "a third, the F of every agent rejected at the 5% level in up to 30% of the data sets (3 agents x 10 "
                "tasks x 3 runs)")
    if not compared:
        return ["the F test that the agents' means are equal is withheld, as the saturated agents' pairs are, and "
                "fewer than 2 other agents could be fitted alone: the model's one residual variance does not describe "
                f"the saturated agents' runs ({measured})"]
    return [f"the F test compares {listed(names_shown(compared, design.agents), 8)} only, from the model fitted to "
            "them alone that the pairs left come from: the saturated agents are left out, as their pairs are, since "
            f"the model's one residual variance does not describe their runs ({measured}; without them, at most 6%)"]


def _indirect_notes(graph, pairs, options):
    """The contrasts of pairs that never ran on a common task: kept, marked, and what they rest on.

    In a connected design every difference of agent effects is estimable from within-task comparisons chained
    through the agents that link the pair (and from the random task intercepts), so the contrast exists and is kept
    in the adjustment's family (Tukey's over all k agents, as the print says); but it rests on the model's
    additivity -- an agent's advantage the same on every task -- rather than on any task where both ran, so it
    is marked (``n_shared_tasks`` = 0 in tidy(), 'indirect' in the print and the figure), not withheld.
    """
    never = pairs["n_shared_tasks"].to_numpy() == 0
    if not never.any():
        return []
    names = list(zip(pairs["agent_1"][never], pairs["agent_2"][never]))
    family = ("the table" if options.adjust == "none" else
              f"{ADJUSTMENTS_SAID[options.adjust][0]}'s family of all {len(pairs)} pairs")
    one = len(names) == 1  # one pair said as one (audit s24: "1 pair ...: their contrasts are")
    task, agent = graph.words  # the formula's columns (audit s32 block32)
    return [f"{graph.never_met_phrase(names)}: "
            f"{'its contrast is' if one else 'their contrasts are'} indirect, resting on the model (each {agent}'s "
            f"effect the same on every {task}, carried through the {plural(agent)} that link the pair, and the random "
            f"{task} intercepts) rather than on {a_or_an(task)} where both ran; tidy() gives {'it' if one else 'them'} "
            f"0 shared {plural(task)}, and {'it stays' if one else 'they stay'} in {family}"]


def single_run_agents(counts):
    """(n_agents,) bool: the agents with one run in all (``counts``: runs per task and agent)."""
    return np.asarray(counts).sum(axis=0) == 1


def _single_run_notes(design, single):
    """The agents whose mean and pairs rest on one run (audit s33 mixed33).

    The model fits them: the agent's effect is its one run less the task's intercept, and the standard errors of its
    mean and pairs take the run's spread from the residual variance of the other agents' runs, which that one run
    cannot check. The package claims nothing from one run (the replication rule of ``rlstats.methods._replication``:
    task_table withholds its marks of a cell with one run), so the pairs keep the model's numbers, as emmeans gives
    them, but are not counted as differences, and the report marks the agent's mean.
    """
    if not single.any():
        return []
    names = [a for a, s in zip(design.agents, single) if s]
    said = names_shown(names, design.agents)
    one = len(names) == 1
    where = [design.tasks[int(np.flatnonzero(design.counts[:, a])[0])] for a in np.flatnonzero(single)]
    agent, task = design.arm_word, design.block_word
    ran = join_and(f"{name} on {place}" for name, place in zip(said, names_shown(where, design.tasks)))
    its = "its" if one else "each one's"
    return [f"one run in all stands behind {'the' if one else 'each'} {agent} {ran}: {its} "
            f"estimated marginal mean and pairs rest on that run, and the model gives {'it' if one else 'them'} the "
            f"residual variance of the other {plural(agent)}' runs, which one run cannot check; the pairs' numbers "
            "stay the model's (emmeans'), but none of them is counted as a difference (significant is False in "
            "tidy(), and the report lists them apart) and the report marks the mean (one run); add runs of "
            f"{'it' if one else 'them'}, on more than one {task}"]


def _empty_cell_notes(design):
    """The marginal means of agents that did not run every task: the model's, not means of their runs (audit s13).

    An agent's estimated marginal mean is its mean over all the tasks analysed; on a task without its runs that mean
    is the model's prediction (the agent's effect, the same on every task, added to the task's intercept), so a
    mean that reads as the agent's over "these tasks" rests in part on tasks where it has no run.
    """
    ran = (design.counts > 0).sum(axis=0)
    short = [(agent, int(n)) for agent, n in zip(design.agents, ran) if n < design.n_tasks]
    if not short:
        return []
    said = names_shown([agent for agent, _ in short], design.agents)  # quoted where a name holds a comma
    task, tasks = design.block_word, plural(design.block_word)  # the formula's column (audit s32 block32)
    if len({n for _, n in short}) == 1:
        who = f"{join_and(said)} ran {short[0][1]} of the {design.n_tasks} {tasks}"
    else:
        who = (f"{said[0]} ran {short[0][1]} of the {design.n_tasks} {tasks}, "
               + join_and(f"{agent} {n}" for agent, (_, n) in zip(said[1:], short[1:])))
    its = "its" if len(short) == 1 else "each one's"
    return [f"{who}: {'its' if len(short) == 1 else 'their'} estimated marginal "
            f"{'mean is' if len(short) == 1 else 'means are'} the model's over all {design.n_tasks}, {its} effect "
            f"taken as the same on every {task} and so carried to the {tasks} without its runs, not a mean of "
            f"{'its' if len(short) == 1 else 'their'} runs"]


#: how the calibration table's configurations read in a note (tests/reference/coverage_mixed.py)
_SIMULATED = {"all_equal": "agents alike", "spread 0 to 1": "agents 0 to 1 noise sd apart",
              # the unbalanced rows' (coverage_mixed_unbalanced.py): the cells' sd and the shifts in noise units
              "all_equal, cells sd 0.5": "agents alike, task x agent intercepts of sd 0.5",
              "shift 0 to 1": "agents 0 to 1 noise sd apart"}
_DDF_NOTE = {"satterthwaite": "Satterthwaite's", "kenward-roger": "Kenward-Roger's"}


def _coverage_notes(design, options):
    """The measured coverage of the pairs' simultaneous intervals where the calibration table shows it below the
    level by more than 3 Monte Carlo SE, pooled or in its worst design draw, at this design (balanced, on the
    table's grid, at the 95% level it measured).
    """
    # the table measured Tukey's intervals and Bonferroni's (its "holm" rows, the intervals beside Holm's p-values,
    # which every p.adjust method has; audit s32 rhabit32), and since audit s33 (calib33) Sidak's and Scheffe's at 3
    # and 8 agents (tests/reference/coverage_mixed_adjust.py; with 2 agents both are Tukey's one t interval, whose
    # rows speak for them)
    measured, family = _family_measured(options, design)
    if measured is None or not np.isclose(options.confidence_level, 0.95) or not design.is_balanced:
        return []
    # the grid's rows of one run spread for every agent (not audit s36's of agents whose runs differ in spread, which
    # _run_spread_notes quotes)
    grid = [row for row in calibration.rows(CALIBRATION) if not row["configuration"].startswith(calibration.RUN_SPREADS)]
    row = calibration.shortfall(grid, 0.95, test=options.ddf, interval=measured,
                                agents=design.n_agents, tasks=design.n_tasks, runs=design.max_runs_per_cell)
    if row is None:
        return []
    return [f"measured coverage of the 95% {family} simultaneous intervals with {_DDF_NOTE[options.ddf]} df at "
            f"{row['agents']} agents, {count(design.n_tasks, 'task')} and {count(design.max_runs_per_cell, 'run')} "
            f"per cell: {float(row['coverage']):.3f}{_worst_draw(row)} ({row['distribution'].replace('_', '-')} "
            f"scores, {_SIMULATED.get(row['configuration'], row['configuration'])}; {row['n_sim']} simulated data "
            "sets), "
            f"{calibration.miss_clause(row, 0.95)}"]


#: the agents' run SDs (each pooled over its cells) at least this many times apart, largest over smallest, and
#: Levene's test of equal spreads (:func:`spread_levene`) below :data:`RUN_SD_LEVEL`, make a result quote the rows of
#: agents whose runs differ in spread (audit s36 calib36, tests/reference/coverage_mixed_spreads.py: one or half the
#: agents' runs 4 times the others' SD)
RUN_SD_RATIO = 2.0
#: the level of :func:`spread_levene` below which the note fires (audit s37 spread37; before it, s36 rv36c's Hartley
#: F-max under normal runs, which skewed runs of one spread passed in up to 46% of data sets)
RUN_SD_LEVEL = 0.05
#: the largest share of data sets of agents of one run spread in which the note's two conditions held
#: (tests/reference/mixed_spread_trigger.py, audit s37 spread37, 2,000 data sets a design of normal, skewed,
#: heavy-tailed and capped scores: 2, 3, 4, 6 and 8 agents x 1, 5 and 26 tasks x 3, 5 and 10 runs, 0-5.5%, the test
#: alone 0.85-6.0%; 7 designs of 2 to 8 agents with cells of 1 to 10 runs or of 2, up to 5.9%, skewed at 4 agents x
#: 1 task x 2 to 4 runs)
RUN_SD_EQUAL_FIRES = 0.059
#: what :data:`RUN_SD_EQUAL_FIRES` measured, as the note says it
RUN_SD_MEASURED = ("2 to 8 agents x 1 to 26 tasks x 2 to 10 runs a cell, balanced or not, of normal, skewed, "
                   "heavy-tailed and capped scores, 2,000 a design")


def _family_measured(options, design):
    """The calibration table's ``interval`` of the pairwise family that ``options.adjust`` gives ("tukey", "holm" for
    Bonferroni's intervals beside Holm's p-values, "sidak", "scheffe"; with 2 agents Sidak's and Scheffe's are
    Tukey's one t interval, whose rows speak for them), or None where the table measured none; and the family said."""
    name, _, intervals = ADJUSTMENTS_SAID[options.adjust]
    measured = {"Tukey": "tukey", "Bonferroni": "holm", "Sidak": "sidak", "Scheffe": "scheffe"}.get(intervals or "")
    if measured in ("sidak", "scheffe") and design.n_agents == 2:
        measured = "tukey"
    return measured, intervals if intervals == name else f"{intervals} (beside {name}'s p-values)"


def _run_sds(design):
    """(agents,) each agent's runs' SD within its cells pooled over them (sqrt of the squared deviations from their
    cells' means over the cells' runs less one; NaN where none of its cells has two runs) and the df of its pooled
    variance where each task's runs have their own variance, estimated by the task's cells pooled over agents
    (Satterthwaite's: (sum_t d_t v_t) ** 2 / sum_t d_t v_t ** 2, d_t the agent's runs less one in task t; its
    cells' runs less one, summed, where the tasks' variances are alike). The runs of a task within its tie tolerance
    of one another are one (:func:`rlstats.statistics.near_ties`): an agent whose runs differ in a cell only by
    rounding (0.3 and 0.1 + 0.2) has SD 0 (review s37 rv37a)."""
    n_cells = design.n_tasks * design.n_agents
    cell = design.task * design.n_agents + design.agent
    y = near_ties(design.y, design.task)[0]
    counts = np.bincount(cell, minlength=n_cells).astype(float)
    low, high = block_ranges(y, cell, n_cells)
    varies = (high > low).reshape(design.n_tasks, design.n_agents).any(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.bincount(cell, y, minlength=n_cells) / counts
        cell_squares = np.bincount(cell, (y - means[cell]) ** 2, minlength=n_cells).reshape(
            design.n_tasks, design.n_agents)
        cell_df = np.fmax(counts - 1, 0).reshape(design.n_tasks, design.n_agents)
        task_variance = np.nan_to_num(cell_squares.sum(axis=1) / cell_df.sum(axis=1))
        task_variance = task_variance / max(task_variance.max(), np.finfo(float).tiny)  # df are scale-free
        weighted = cell_df * task_variance[:, None]
        df = weighted.sum(axis=0) ** 2 / (weighted * task_variance[:, None]).sum(axis=0)
        sd = np.sqrt(cell_squares.sum(axis=0) / cell_df.sum(axis=0))
        sd = np.where(varies | np.isnan(sd), sd, 0.0)
    return sd, df


def run_sd_ratio(design):
    """The largest agent's run SD over the smallest's, each agent's runs' SD within its cells pooled over them
    (sqrt of the squared deviations from their cells' means over the cells' runs less one); NaN where fewer than two
    agents have runs that vary within a cell."""
    return _sd_ratio(*_run_sds(design))


def _sd_ratio(sd, df):
    """:func:`run_sd_ratio` of :func:`_run_sds`' SDs and df."""
    sd = sd[(df > 0) & (sd > 0)]
    return float(sd.max() / sd.min()) if sd.size >= 2 else float("nan")


def spread_levene(y, task, agent, n_tasks, n_agents, use=None, drop_middle=True):
    """Levene's test of equal spreads of the agents' runs (Brown and Forsythe's, about medians) with tasks as blocks:
    (F, numerator df, denominator df, p-value), each of shape ``y.shape[:-1]`` (``y`` (..., runs): one data set a
    row, every row of the same design, so a simulation's data sets go at once; audit s37 spread37).

    Each run's absolute deviation from its cell's median (task x agent), less one a cell (``drop_middle``): the
    median's own run in a cell of odd runs, whose deviation is 0 by construction (Hines and Hines' removal of the
    structural zero), and in a cell of even runs the second of the two middle runs, whose deviation equals the
    first's (a cell of 2 runs gives one deviation, not the same one twice); kept, they count as data and the test
    misreads its df (audit s37 spread37, ``tests/reference/mixed_spread_trigger.py --keep-middle``: on agents of one
    spread it fired in 38-40% of data sets of 4 agents x 5 tasks x 2 runs, in none of 2,000 at one task x 3 runs,
    and on the 1/1/1/4 spreads at 5 tasks x 3 skewed runs in 64%, against 76% with one dropped). Each task's deviations
    over their mean, so that a task's units and spread weigh nothing (a task whose deviations are all 0 is left
    out); then the F of the agents in the additive two-way analysis of variance of the deviations on task and agent
    (the agents' sums of squares adjusted for the tasks, intra-block: the pseudo-inverse of the agents' information
    matrix at its rank, their df, which is the design's: :func:`_information_rank`; the residual df the deviations
    less the tasks less that rank). Runs of a task within its tie tolerance of one another are one before the
    medians (:func:`rlstats.statistics.near_ties`' rule, each group its smallest) and a deviation within the rounding
    of a difference of the task's scores is 0, so that rounding is no spread in any units (review s37 rv37a). ``use`` (..., agents) False
    leaves an agent out (those :func:`_sd_ratio` leaves out, whose runs do not vary). With one task and
    ``drop_middle=False`` it is ``scipy.stats.levene(center="median")`` (dividing by the one task's mean is a common
    factor, which F does not see)."""
    from scipy import special

    y = np.asarray(y, dtype=float)
    task = np.asarray(task, dtype=np.intp)
    cell = task * n_agents + np.asarray(agent, dtype=np.intp)
    n_cells = n_tasks * n_agents
    # each row's runs in task order, ascending within a task (sort by value, then stably by task), with the scores of
    # a task within its tie tolerance of one another made one (statistics.near_ties' rule, each group its smallest:
    # review s37 rv37a, runs of 0.3 and 0.1 + 0.2 spread a task of rounding over deviations of mean 1)
    by_y = np.argsort(y, axis=-1)
    by_task = np.take_along_axis(by_y, np.argsort(task[by_y], axis=-1, kind="stable"), axis=-1)
    v = np.take_along_axis(y, by_task, axis=-1)
    task_counts = np.bincount(task, minlength=n_tasks)
    task_start = (np.cumsum(task_counts) - task_counts)[task_counts > 0]
    low, high = np.minimum.reduceat(v, task_start, axis=-1), np.maximum.reduceat(v, task_start, axis=-1)
    tolerance, deviation_tolerance = np.zeros((2,) + y.shape[:-1] + (n_tasks,))
    scale = spread_and_magnitude(low, high)
    tolerance[..., task_counts > 0], deviation_tolerance[..., task_counts > 0] = (tie_tolerance(*scale),
                                                                                  difference_tolerance(*scale))
    of_sorted_task = np.repeat(np.arange(n_tasks), task_counts)
    first = np.zeros(v.shape, dtype=bool)
    first[..., task_start] = True
    first[..., 1:] |= ~(np.diff(v, axis=-1) <= tolerance[..., of_sorted_task[1:]])
    leader = np.maximum.accumulate(np.where(first, np.arange(v.shape[-1]), 0), axis=-1)
    v = np.take_along_axis(v, leader, axis=-1)  # still ascending within each task
    # then in cell order, ascending within a cell (the cells are task-major: stably by cell)
    by_cell = np.argsort(cell[by_task], axis=-1, kind="stable")
    v = np.take_along_axis(v, by_cell, axis=-1)
    counts = np.bincount(cell, minlength=n_cells)
    where = np.repeat(np.arange(n_cells), counts)  # the cell of each sorted position
    start = np.cumsum(counts) - counts
    held = counts > 0
    lower, upper = (start + (counts - 1) // 2)[held], (start + counts // 2)[held]
    median = np.zeros(y.shape[:-1] + (n_cells,))
    median[..., held] = (v[..., lower] + v[..., upper]) / 2
    z = np.abs(v - median[..., where])
    # a deviation within the rounding of a difference of the task's scores is none (a task of such is constant)
    z = np.where(z <= deviation_tolerance[..., where // n_agents], 0.0, z)
    weight = np.ones(y.shape, dtype=float)
    if drop_middle:  # one deviation a cell: the median's own 0 (odd runs) or the second of the two equal middle ones
        weight[..., upper] = 0.0
    if use is not None:
        weight = weight * np.asarray(use, dtype=float)[..., where % n_agents]

    def cell_sums(x):
        out = np.zeros(x.shape[:-1] + (n_cells,))
        out[..., held] = np.add.reduceat(x, start[held], axis=-1)
        return out.reshape(x.shape[:-1] + (n_tasks, n_agents))

    of_task = where // n_agents
    task_sum = cell_sums(weight * z).sum(axis=-1)
    live = task_sum > 0  # a task whose deviations are all 0 (or left out) carries nothing
    task_mean = np.where(live, task_sum, 1.0) / np.fmax(cell_sums(weight).sum(axis=-1), 1.0)
    weight = weight * live[..., of_task]
    z = z / task_mean[..., of_task]
    n_ta, s_ta = cell_sums(weight), cell_sums(weight * z)
    n_t = n_ta.sum(axis=-1)
    inverse_n = np.where(n_t > 0, 1 / np.fmax(n_t, 1.0), 0.0)
    z_t = s_ta.sum(axis=-1) * inverse_n
    information = (n_ta.sum(axis=-2)[..., :, None] * np.eye(n_agents)
                   - np.einsum("...ta,...tb,...t->...ab", n_ta, n_ta, inverse_n))
    adjusted = (s_ta - n_ta * z_t[..., None]).sum(axis=-2)
    # the information matrix's rank is the design's, read off its graph exactly: the agents with deviations less the
    # connected sets they form through shared tasks; its pseudo-inverse keeps that many eigenvalues, the largest.
    # Not a cutoff on the eigenvalues: cancellation in diag(n_a) - sum_t n n' / n_t leaves a null one at ~7e-16,
    # which matrix_rank's cutoff counted and pinv's did not (review s37 rv37a: df1 2 for 2 agents, F 0.110 against
    # least squares' df1 1, F 0.248)
    df1 = _information_rank(n_ta > 0).astype(float)
    values, vectors = np.linalg.eigh(information)
    kept = np.arange(n_agents) >= n_agents - df1[..., None]  # eigh's values ascend
    inverse_values = np.where(kept, 1 / np.where(kept, values, 1.0), 0.0)
    effects = np.einsum("...ab,...b,...cb,...c->...a", vectors, inverse_values, vectors, adjusted)
    between = np.einsum("...a,...a->...", adjusted, effects)
    residual = (weight * (z - z_t[..., of_task]) ** 2).sum(axis=-1) - between
    df2 = weight.sum(axis=-1) - live.sum(axis=-1) - df1
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where((df1 > 0) & (df2 > 0), (between / df1) / (np.fmax(residual, 0.0) / df2), np.nan)
    # scipy.stats.f.sf's own function, without scipy.stats' import (0.6-0.8 s of a fresh process); F below 0 (rounding)
    # is its 1, NaN where it is NaN: equal bit for bit on 5,000 F, df and the edges (audit s40)
    return f, df1, df2, special.fdtrc(df1, df2, np.maximum(f, 0.0))


def _information_rank(cells):
    """The rank of the agents' information matrix of an additive two-way design whose ``cells`` (..., tasks, agents)
    hold data: the agents in some cell less the connected sets they form (two agents joined by a task holding both),
    in integers (boolean reachability squared until it covers every path), so no rounding decides it."""
    held = cells.astype(np.int64)
    reach = np.einsum("...ta,...tb->...ab", held, held) > 0  # agents sharing a task; an agent with data reaches itself
    for _ in range(max(int(cells.shape[-1]) - 1, 1).bit_length()):
        reach = np.einsum("...ab,...bc->...ac", reach.astype(np.int64), reach.astype(np.int64)) > 0
    size = reach.sum(axis=-1)
    present = size > 0
    components = np.where(present, 1 / np.where(present, size, 1), 0.0).sum(axis=-1)
    return present.sum(axis=-1) - np.rint(components).astype(np.int64)


def run_spread_test(design):
    """:func:`spread_levene` of the design's runs, the agents :func:`_sd_ratio` reads (their runs vary within a cell):
    (F, numerator df, denominator df, p-value), floats."""
    sd, df = _run_sds(design)
    f, df1, df2, p = spread_levene(design.y, design.task, design.agent, design.n_tasks, design.n_agents,
                                   use=(df > 0) & (sd > 0))
    return float(f), float(df1), float(df2), float(p)


def _run_spread_notes(design, options):
    """Where the agents' run SDs within cells (:func:`run_sd_ratio`) lie :data:`RUN_SD_RATIO` or more times apart in
    the sample and Levene's test of equal spreads (:func:`run_spread_test`, about the cells' medians, tasks as
    blocks) gives p under :data:`RUN_SD_LEVEL` (agents of one run spread meet both in at most
    :data:`RUN_SD_EQUAL_FIRES` of simulated data sets, normal or not: ``tests/reference/mixed_spread_trigger.py``): the
    ``mixed.contrast`` rows of agents whose runs differ in spread (``configuration`` "run
    sd by agent ..."; audit s36, ``tests/reference/coverage_mixed_spreads.py``: 2 and 4 agents alike in mean, half of
    them or one with runs 4 times the others' SD, balanced designs of 5 and 10 tasks, 3, 5 and 10 runs, normal and
    skewed scores) at the agents measured nearest (said where the design's are beyond them), the tasks bracketing the
    design's and the runs measured nearest (an unbalanced design: every runs count measured from the nearest to its
    fewest runs in a cell to the nearest to its most, the worst quoted, as :func:`_means_notes`), their lowest
    coverage of this df method and family where it misses 0.95 by more than 3 Monte Carlo SE
    (:func:`rlstats.calibration.shortfall`); empty otherwise, at another level, or for a df method or family not
    measured there (Kenward-Roger's; Sidak's and Scheffe's from 3 agents). The note says what the sample shows and
    what the test found, not that the spreads differ."""
    measured, family = _family_measured(options, design)
    if measured is None or not np.isclose(options.confidence_level, 0.95):
        return []
    ratio = run_sd_ratio(design)
    rows = [row for row in calibration.rows(CALIBRATION) if row["configuration"].startswith(calibration.RUN_SPREADS)]
    if not ratio >= RUN_SD_RATIO or not rows:
        return []
    p_value = run_spread_test(design)[3]
    if not p_value < RUN_SD_LEVEL:
        return []
    measured_agents = sorted({int(row["agents"]) for row in rows})
    agents = calibration.nearest_count(measured_agents, design.n_agents)
    ran = design.counts[design.counts > 0]

    def near_runs(n):
        return calibration.nearest_count({int(row["runs"]) for row in rows}, int(n))

    fewest, most = near_runs(ran.min()), near_runs(ran.max())
    at = [row for row in rows if int(row["agents"]) == agents and fewest <= int(row["runs"]) <= most]
    at, tasks = calibration.bracketing_rows(at, design.n_tasks)
    row = calibration.shortfall(at, 0.95, test=options.ddf, interval=measured)
    if row is None:
        return []
    runs = int(row["runs"])
    sds = row["configuration"][len(calibration.RUN_SPREADS):].split(":", 1)[0]
    if not measured_agents[0] <= design.n_agents <= measured_agents[-1]:
        where = (f" (the nearest design measured; this design's {design.n_agents} agents are beyond the "
                 f"{calibration.counts_words(measured_agents, 'agent')} measured)")
    elif not design.is_balanced:
        held = f"{ran.min()} to {ran.max()} runs" if ran.min() < ran.max() else count(int(ran.min()), "run")
        where = f" (the nearest balanced design measured; cells here hold {held})"
    elif agents != design.n_agents or runs != int(ran.min()) or design.n_tasks not in tasks:
        where = " (the nearest design measured)"
    else:
        where = ""
    return [f"the agents' runs' SDs within cells, each agent's pooled over its cells, lie {signif(ratio, 2)} times "
            f"apart in this sample, largest over smallest ({signif(RUN_SD_RATIO, 2)} or more), and Levene's test "
            f"of equal spreads (the runs' absolute deviations from their cell's median, tasks as blocks) gives "
            f"p {'< 0.0001' if p_value < 1e-4 else '= ' + signif(p_value, 2)} (under {signif(RUN_SD_LEVEL, 2)}; "
            f"both held in at most {signif(100 * RUN_SD_EQUAL_FIRES, 2)}% of simulated data sets whose agents' runs "
            f"share one spread: {RUN_SD_MEASURED}), where the model fits one residual variance to all; at "
            f"designs measured with agents alike in mean whose runs differ in spread, the measured coverage of the "
            f"95% {family} simultaneous intervals with {_DDF_NOTE[options.ddf]} df at {agents} agents with runs of "
            f"SD {sds.replace('/', ', ')} in noise units, {calibration.bracket_words(tasks, row['tasks'])} and "
            f"{count(runs, 'run')} per cell{where}: "
            f"{float(row['coverage']):.3f}{_worst_draw(row)} ({row['distribution'].replace('_', '-')} scores; "
            f"{row['n_sim']} simulated data sets; the calibration table's '{calibration.RUN_SPREADS}...' rows), "
            f"{calibration.miss_clause(row, 0.95)}"]


#: the calibration table's rows of the omnibus F's level on unbalanced designs (audit s34)
F_CALIBRATION = "mixed.f_size"


def _pattern_words(row):
    """'runs_3_5_10 (3 agents x 5 tasks, 0 empty cells, runs 3/5/10)': the unbalanced pattern a row measured."""
    name, rest = row["configuration"][len(calibration.UNBALANCED):].split(": ", 1)[0].split(" ", 1)
    return f"{name} ({int(float(row['agents']))} agents x {int(float(row['tasks']))} tasks, {rest.strip('()')})"


def _unbalanced_notes(design, options):
    """What the unbalanced rows (audit s34, ``tests/reference/coverage_mixed_unbalanced.py``) measured at the
    patterns of this design's number of agents (the nearest measured): the lowest coverage of the 95% family of this
    df method and adjustment, and the omnibus F's level at 0.05 under agents alike (audit s35 mixed35: the notes of an
    unbalanced design quoted no row, since none misses). Only for an unbalanced design at the 95% level measured."""
    measured, words = _family_measured(options, design)
    if design.is_balanced or not np.isclose(options.confidence_level, 0.95):
        return []
    unbalanced = [row for row in calibration.rows(CALIBRATION)
                  if row["configuration"].startswith(calibration.UNBALANCED) and row["test"] == options.ddf]
    if not unbalanced:
        return []
    agents = calibration.nearest_count({int(float(row["agents"])) for row in unbalanced}, design.n_agents)
    at = [row for row in unbalanced if int(float(row["agents"])) == agents]
    patterns = list(dict.fromkeys(_pattern_words(row) for row in at))
    head = (f"measured on unbalanced designs of {agents} agents ({CALIBRATION} and {F_CALIBRATION} rows "
            f"'{calibration.UNBALANCED}...' of rlstats/calibration.csv: the {plural('pattern', len(patterns))} "
            f"{join_and(patterns)}; {at[0]['n_sim']} simulated data sets a row, four score families, agents alike "
            "with and without task x agent intercepts and agents apart): ")
    said = []
    family = [row for row in at if row["interval"] == measured]
    if measured is not None and family:
        worst = min(family, key=calibration.worst_coverage)
        short = [row for row in family if calibration.misses(row, 0.95)]
        pattern, configuration = worst["configuration"][len(calibration.UNBALANCED):].split(": ", 1)
        pattern = pattern.split(" ", 1)[0]
        said.append(f"the 95% {words} simultaneous intervals with {_DDF_NOTE[options.ddf]} df covered "
                    f"{float(worst['coverage']):.4g} in the lowest row{_worst_draw(worst)} "
                    f"({worst['distribution'].replace('_', '-')} scores, "
                    f"{_SIMULATED.get(configuration, configuration)}, {pattern}), "
                    + (calibration.miss_clause(worst, 0.95) if short else
                       f"none of the {len(family)} rows below 0.95 by more than 3 Monte Carlo standard errors"))
    basis = options.f_basis if options.ddf == "satterthwaite" else "orthonormal"
    f_rows = [row for row in calibration.rows(F_CALIBRATION) if row["test"] == options.ddf
              and row["statistic"] == basis and int(float(row["agents"])) == agents]
    if f_rows:
        sizes = [1 - float(row["coverage"]) for row in f_rows]
        said.append(f"the F test of the agents at 0.05 rejected agents alike in {min(sizes):.4g} to {max(sizes):.4g} "
                    f"of the data sets ({len(f_rows)} rows)")
    return [head + "; ".join(said)] if said else []


#: what a "draw" of a row with tasks drawn afresh is (``tests/reference/coverage_mixed_means.py``)
_BLOCKS = "of {} data sets each"


def _worst_draw(row, of="of the tasks' levels and spreads"):
    """', 0.800 in the worst of its 4 draws of the tasks' levels and spreads' where ``row`` pools design draws (a row
    may miss in its worst draw only: :func:`rlstats.calibration.miss_clause` says which); empty otherwise. ``of``
    says what a draw is."""
    draws = row.get("design_draws") or ""
    return (f", {float(row['coverage_min']):.3f} in the worst of its {draws} draws {of}"
            if draws and row.get("coverage_min") else "")


def _means_notes(design, options):
    """The measured coverage of the marginal means' intervals, read as intervals of the agents' means over tasks like
    these, where the calibration table shows it below 0.95 by more than 3 Monte Carlo SE (pooled or in its worst
    design draw) at the nearest design measured (at the 95% level it measured; an unbalanced design at the worst of
    the runs counts measured between its fewest and most runs in a cell, said so). The result claims
    the mean over the tasks at hand, which those intervals hold. The shortfall shrinks as tasks are added, so the
    nearest number of tasks measured is taken at or below the design's (the fewest measured below them); agents and
    runs, the nearest. A row pools the agents, and says so: with tasks drawn afresh an agent that spreads more across
    tasks than the others is covered less (audit s21, ``tests/reference/coverage_mixed_means.py`` ``by_agent``)."""
    rows = calibration.rows(MEANS_CALIBRATION)
    if not rows or not np.isclose(options.confidence_level, 0.95):
        return []
    ran = design.counts[design.counts > 0]

    def near(column, value):
        return calibration.nearest_count({int(row[column]) for row in rows}, value)

    nearest = {"agents": near("agents", design.n_agents)}
    measured_tasks = sorted({int(row["tasks"]) for row in rows})
    nearest["tasks"] = max([t for t in measured_tasks if t <= design.n_tasks], default=measured_tasks[0])
    # an unbalanced design (audit s24: the note went silent once one of 12 cells of 3 runs kept 1) reads every runs
    # count measured from the nearest to its fewest runs in a cell to the nearest to its most, and quotes the worst:
    # the shortfall of these intervals does not shrink with runs (8 agents x 3 tasks miss at 5-20 runs, not at 3)
    fewest, most = near("runs", int(ran.min())), near("runs", int(ran.max()))
    found = [row for runs in sorted({int(row["runs"]) for row in rows}) if fewest <= runs <= most
             for row in [calibration.shortfall(rows, 0.95, test=options.ddf, configuration=_FRESH_TASKS, runs=runs,
                                               **nearest)] if row is not None]
    if not found:
        return []
    row = min(found, key=calibration.worst_coverage)
    empty = int((design.counts == 0).sum())
    held = (f"{ran.min()} to {ran.max()} runs" if ran.min() < ran.max() else count(int(ran.min()), "run")) + (
        f", {empty} of {design.counts.size} empty" if empty else "")
    exact = (design.is_balanced and nearest == {"agents": design.n_agents, "tasks": design.n_tasks}
             and int(row["runs"]) == int(ran.min()))
    at = ("" if exact else " (the nearest design measured)" if design.is_balanced
          else f" (the nearest balanced design measured; cells here hold {held})")
    blocks = _BLOCKS.format(int(row["n_sim"]) // int(row.get("design_draws") or 1))
    return [f"measured coverage of the 95% intervals of the agents' marginal means with {_DDF_NOTE[options.ddf]} df, "
            f"as intervals of each agent's mean over tasks like these, at {row['agents']} agents, "
            f"{count(int(row['tasks']), 'task')} and {count(int(row['runs']), 'run')} per cell{at}: "
            f"{float(row['coverage']):.3f}{_worst_draw(row, blocks)} ({row['distribution'].replace('_', '-')} "
            f"scores, tasks of different levels and spreads drawn afresh for each of {row['n_sim']} simulated data "
            f"sets), {calibration.miss_clause(row, 0.95)}, averaged over the agents: the model gives every agent one "
            "task variance, so an agent whose scores spread more across tasks than the others' falls lower (at 2 "
            "agents, 26 tasks and 5 normal runs, 0.928 against 0.966); as intervals of the mean over the tasks at hand "
            "they hold (conservatively)"]


#: Audit s35 (mixed35): simulated data sets whose fit put the task x agent SD at 0, pooled by the number of tasks of
#: the designs of ``tests/reference/size_mixed_boundary.py`` (balanced 2, 3 and 8 agents on 3, 10 and 26 tasks, and
#: the unbalanced patterns two_agents, eight_by_3 and runs_3_5_10 (5 tasks) of coverage_mixed_unbalanced.py; 3, 5 and
#: 10 runs, normal, skewed and capped scores, tasks of different levels and spreads; 200 data sets a point): for each
#: configuration, (such fits, rejected by the F at 0.05 with Satterthwaite's df, with Kenward-Roger's; all data sets,
#: at and off the boundary, rejected by each). "alike": agents alike, no task
#: x agent term; "missed": agents alike over tasks with task x agent intercepts of sd 0.5 noise units, which the fit
#: put at 0; "apart": agents 0 to 1 noise sd apart, no task x agent term. ``size_mixed_boundary.json`` holds them
#: (``size_mixed_boundary.pooled``); tests/test_audit_s35_mixed35.py checks this table against it.
BOUNDARY_MEASURED = {
    3: {"agents": (2, 3, 8),
         "alike": (3943, 64, 3, 6600, 65, 4),
         "missed": (1391, 100, 11, 6600, 146, 50),
         "apart": (3951, 2587, 1201, 6600, 3246, 1788)},
    5: {"agents": (3,),
         "alike": (323, 8, 1, 600, 9, 1),
         "missed": (57, 9, 3, 600, 23, 14),
         "apart": (347, 289, 223, 600, 426, 360)},
    10: {"agents": (3,),
         "alike": (1054, 13, 9, 1800, 25, 21),
         "missed": (173, 6, 4, 1800, 48, 45),
         "apart": (1002, 915, 890, 1800, 1588, 1562)},
    26: {"agents": (8,),
         "alike": (954, 40, 36, 1800, 69, 65),
         "missed": (2, 0, 0, 1800, 75, 75),
         "apart": (934, 930, 930, 1800, 1793, 1793)},
}
_BOUNDARY_CONFIGURATIONS = {"alike": "all_equal", "missed": "all_equal, cells sd 0.5", "apart": "shift 0 to 1"}


#: the fewest fits at the boundary from which the note quotes a configuration's rate
_FEWEST_FITS = 50


def _percent(rejected, fits):
    return f"{100 * rejected / fits:.2g}%"


def _boundary_measured(ddf, n_tasks):
    """What the F did on simulated fits with the task x agent SD at 0 (:data:`BOUNDARY_MEASURED`), at the number of
    tasks measured nearest ``n_tasks``: the clause the singular-fit note ends on (audit s35 mixed35)."""
    if not BOUNDARY_MEASURED:
        return ""
    tasks = calibration.nearest_count(BOUNDARY_MEASURED, n_tasks)
    measured = BOUNDARY_MEASURED[tasks]
    this, other = (1, 2) if ddf == "satterthwaite" else (2, 1)
    own, others = _DDF_NOTE[ddf], _DDF_NOTE["kenward-roger" if ddf == "satterthwaite" else "satterthwaite"]
    alike, missed, apart = measured["alike"], measured["missed"], measured["apart"]
    # with a task x agent spread the fit rarely misses it on many tasks (2 of 800 data sets at 8 x 26): too few such
    # fits to quote a rate from, left out
    missing = (f", agents alike over tasks with task x agent intercepts of sd 0.5 noise units that the fit missed in "
               f"{missed[this]:,} of {missed[0]:,} ({_percent(missed[this], missed[0])}; "
               f"{_percent(missed[other], missed[0])})" if missed[0] >= _FEWEST_FITS else "")
    said = (f"; on simulated data sets whose fit put the task x agent SD at 0 ({count(tasks, 'task')}, "
            f"{join_and(measured['agents'])} agents, 3 to 10 runs, normal, skewed and capped scores; "
            f"tests/reference/size_mixed_boundary.py), {own} F at 0.05 rejected agents alike in {alike[this]:,} of "
            f"{alike[0]:,} ({_percent(alike[this], alike[0])}; {others}: {_percent(alike[other], alike[0])})"
            f"{missing}, and agents 0 to 1 noise sd apart in {apart[this]:,} of "
            f"{apart[0]:,} ({_percent(apart[this], apart[0])}; {_percent(apart[other], apart[0])})")
    def above(row, column):  # above 0.05 by more than 3 Monte Carlo SE, from enough fits
        return row[0] >= _FEWEST_FITS and row[column] / row[0] > 0.05 + 3 * (0.05 * 0.95 / row[0]) ** 0.5

    if ddf == "kenward-roger" and apart[2] < apart[1] - 0.05 * apart[0]:
        said += (": conservative, with power lost, as pbkrtest's df are there (lmerTest's anova(ddf = "
                 "\"Kenward-Roger\") gives the same); Satterthwaite's df (the default, ddf=\"satterthwaite\") reject "
                 "more often where the agents differ" + (", and above 0.05 at this boundary where a task x agent "
                                                        "spread was missed" if above(missed, 1) else ""))
    high = [(name, row) for name, row in (("agents alike", alike), ("a task x agent spread the fit missed", missed))
            if above(row, this)]
    for name, row in high:
        said += (f"; {own} level at this boundary exceeded 0.05 by more than 3 Monte Carlo standard errors with {name} "
                 f"(over all {row[3]:,} such data sets of those designs, at and off the boundary, it rejected "
                 f"{_percent(row[3 + this], row[3])})")
    return said


def _fit_notes(fitted, terms, ddf, n_tasks=None):
    notes = []
    zero = [term for term, theta in zip(terms, fitted.theta) if theta < kernels.SINGULAR_TOL]
    if zero:
        # which df read the zero component (audit s21: "the df approximations rest on the remaining components"
        # was printed beside Kenward-Roger's df 2, where Satterthwaite's are 14 and pbkrtest without the term 14)
        one = len(zero) == 1
        df = ("Satterthwaite's df rest on the remaining components, their derivatives in a standard deviation "
              "vanishing at 0" if ddf == "satterthwaite" else
              f"Kenward-Roger's df still count {'it' if one else 'them'} (pbkrtest keeps {'it' if one else 'them'} in "
              f"the information matrix), so they are those of the model with {'it' if one else 'them'}; without "
              f"{'it' if one else 'them'} they would be those of the remaining components")
        # beyond what the components left give (audit s24: "beyond the run-to-run noise" beside a task:agent SD of
        # 1.08, against a residual SD of 0.44, on Atari 100k at 3 runs): a cell's effects spread beyond the noise
        # alone, a task's beyond its cells' effects and the noise
        beyond = ("what the residual gives (with one run a cell, the task x agent interaction and the run-to-run "
                  "noise together)" if len(terms) == 1 else
                  f"what the random {terms[1]} intercepts and the run-to-run noise give" if zero == [terms[0]] else
                  "the run-to-run noise")
        notes.append(
            f"singular fit: the standard deviation of the random {' and '.join(zero)} intercepts is estimated at "
            f"(or next to) 0, so the data show no spread of {' or '.join(zero)} effects beyond {beyond}; the "
            f"estimates stand, but {'that variance sits' if one else 'those variances sit'} on "
            f"{'its' if one else 'their'} boundary, where {df} (lme4: 'boundary (singular) fit')"
            + (_boundary_measured(ddf, n_tasks) if len(terms) == 2 and terms[1] in zero and n_tasks else ""))
    if not fitted.converged:
        notes.append(
            f"the REML optimiser stopped away from a stationary point (gradient {np.max(np.abs(fitted.gradient)):.2g}"
            f" in the squared relative SDs; {fitted.message}): the variance components, standard errors and df "
            "may be off; check that no agent or task is nearly empty and rescale the scores if they are huge")
    return notes
