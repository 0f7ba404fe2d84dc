"""tuning(): what an algorithm is worth once its hyperparameters are part of the claim."""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal, Sequence

import numpy as np
import pandas as pd

from ... import format as fmt
from ... import formula as formula_module
from ...bounds import check_bounds, clip_columns
from ...cost import admit, shows, timed_bar
from ...design import RUN_IDS, RUN_NAMES, Design, arm_label, block_label, block_like_columns, design_of, public_function
from ...engines import Engine, engine as _engine, map_ordered
from ...interop import TABLE, as_pandas
from ...errors import DesignError, OptionError, shown
from ...normalization import warn_raw_scales
from ...options import (check_bool, check_choice, check_confidence_level, check_cost_options, check_fraction,
                        check_resamples)
from ...resampling import agent_seed_sequence, cell_seed_sequence, child_stream, seed_sequence
from ...statistics import best_of, block_ranges, noise_free, spread_and_magnitude, tie_tolerance
from .._replication import verdict
from . import _kernels as kernels
from ._backend import cost
from ._backend import BACKENDS
from ._result import TuningResult, best_set_note, by_construction_text, one_configuration_sweeps, sweep_names
from . import plots

if TYPE_CHECKING:
    from ..._typing import DaskBackend, Data, EvalEnv, FormulaLike, NaAction, Normalizer, Seed

VIEWS = ("expected_max", "best_set", "complete", "sensitivity")
#: the expected-max band's methods: the default (its degrees of freedom counting the runs' kurtosis), the same band
#: with normal-theory degrees of freedom (the default until the kurtosis was counted, bit for bit), and the centred
#: percentile band, the default before issue 40 (bit for bit)
BANDS = ("skew_t", "skew_t_normal", "percentile")
#: ``tuning(band=)`` (BANDS)
ExpectedMaxBand = Literal["skew_t", "skew_t_normal", "percentile"]
#: the tuned-score interval's lower end: the larger of the winner's and the sweep's pooled spread (the default), or
#: the winner's own (the default before issue 40, bit for bit)
TUNED_LOWER = ("pooled", "winner")
#: ``tuning(tuned_lower=)`` (TUNED_LOWER)
TunedLower = Literal["pooled", "winner"]
#: the complete algorithm's interval: Student's t with the skewness correction on the configurations' means (the
#: default), or the two-stage bootstrap percentile interval, the default before (bit for bit)
COMPLETE_INTERVALS = ("skew_t", "two_stage")
#: ``tuning(complete_interval=)`` (COMPLETE_INTERVALS)
CompleteInterval = Literal["skew_t", "two_stage"]
TUNED = "tuning run"
#: tuning reads '| task/seed' and '| task/tuning_run/seed' itself, as its declaration says: the front door keeps every
#: seed's row (design_of(reads_nesting=True)) instead of averaging seeds per run
READS_NESTING = BACKENDS[0].reads_nesting


@public_function
def tuning(data: Data, formula: FormulaLike | None = None, *, config: str | Sequence[str] | None = None,
           weights: str | None = None, holdout: str | None = None, views: Sequence[str] | None = None,
           higher_is_better: bool = True, threshold: float = 0.05, confidence_level: float = 0.95,
           n_resamples: int = 2000, budgets: Sequence[int] | None = None, band: ExpectedMaxBand = "skew_t",
           tuned_lower: TunedLower = "pooled", complete_interval: CompleteInterval = "skew_t",
           percentiles: tuple[float, float] | None = (5.0, 95.0), fraction: float = 0.95, normalize: Normalizer = None,
           bounds: tuple[float | None, float | None] | None = None, na_action: NaAction = "raise", rng: Seed = None,
           progress: bool = True, max_seconds: float | None = None,
           n_jobs: int = 1, backend: DaskBackend | None = None, client: Any = None,
           eval_env: EvalEnv = None) -> TuningResult:
    """Tuning-aware evaluation of a hyperparameter sweep: expected best score, best set, complete algorithm.

    Each agent was run on each task with several *configurations* (the ``config=`` columns), each with several
    seeds (the formula's replicate column, ``| task/seed``). The configuration is the unit: seeds are nested in it
    and are resampled only within it. Four views, each a tidy frame (``res.expected_max()``, ``res.best_set()``,
    ``res.complete()``, ``res.sensitivity()``), a section of the printed result and a plot kind:

    * ``expected_max``: the expected best score after tuning with a budget of k configurations, k = 1 .. N, per
      agent and task, from the configurations' mean scores (Dodge et al. 2019's order-statistic formula, drawing
      configurations without replacement, and with replacement); the mean over tasks at budgets every agent has;
      pointwise 95% bands (``band=``). The estimand is the expected best of k configurations' n-seed mean scores,
      the sweep's configurations given; the estimate is unbiased for it. The default band, ``"skew_t"``, is
      Student's t on the estimate's standard error (each configuration's variance, floored at its shrinkage towards
      the sweep's pooled variance, weighted by its rank's weight), with Welch-Satterthwaite degrees of freedom and
      an Edgeworth correction for the skewness of the scores (the sweep's pooled third cumulant; Hall 1992); each
      configuration's degrees of freedom count the runs' excess kurtosis kappa (the configurations' mean
      k4 / k2^2, floored at 0): 1 / df = 1 / (n - 1) + kappa / (2 n), since heavy tails make a variance estimate
      noisier than the normal's (without it the band covered 0.925-0.93 at budget 5 of 10 configurations with 20
      heavy-tailed seeds). It holds its level from 3 seeds on skewed, heavy-tailed and capped scores, where the
      percentile band covered 0.80-0.87. On real sweeps it can miss: on the 51 sweeps of Dierkes et al. (2024)'s
      tuning procedures (5 tuning runs each, ``rlstats.datasets.load("hpo_optimisation")``), with 3 seeds drawn from
      each run's published ones, it covered 0.926 at k = 1 pooled and 0.41 in the worst sweep, whose runs hold a
      rare outlying seed (one in ten, which 3 seeds leave out in 73% of draws: SAC on LunarLander, 895 and 969 among
      runs near 200); at 10 seeds 0.946 pooled and 0.64 in the worst (PPO on Ant, 5,085 among runs near 8,100).
      Draws without such a seed do not show it to any band: this one would hold in every sweep only 5.9-14.5 times
      as wide (audit s29, ``tests/reference/coverage_tuning_real_widening.py``). A note quotes these rows where the
      design of a sweep whose band is printed is nearest to theirs (``distribution`` ``real_dierkes2024``), one note
      per design where the printed sweeps' differ.
      ``band="skew_t_normal"`` is the same band with normal-theory degrees of freedom (n - 1), the default before
      the kurtosis was counted, bit for bit. ``band="percentile"`` is the
      earlier band, bit for bit: resampling seeds within configurations, each resampled mean's deviation widened
      by sqrt(n / (n - 1)), the percentile band shifted so that the resamples' mean sits at the estimate. Coverage
      of all three in ``rlstats/calibration.csv``, procedure
      ``tuning.expected_max_band``.
    * ``best_set``: each configuration's probability of being the best when the whole selection is bootstrapped
      (seeds resampled within every configuration, the arg-max taken; ties share), the configurations best or tied
      for best in at least ``threshold`` of the resamples (Patterson et al. 2024's set; without ties, those whose
      probability reaches ``threshold``: configurations that always tie at a cap each have a small share of the
      probability but are best in every resample), and an interval for the tuned score that accounts for the
      selection: the estimate is the winner's mean less the bootstrap estimate of the optimism of
      select-then-report (floored at 0: the bootstrap's optimism is never negative in expectation, so a negative
      average of the resamples is Monte Carlo noise); the interval runs from the winner's mean less the optimism's
      upper quantile less Student's t times s over sqrt(n), to the winner's mean plus t times s over sqrt(n), s the
      larger of the winner's standard deviation and the sweep's pooled one (a few seeds of skewed scores often miss
      the rare high ones, and at a score ceiling they often all sit at it, which the other configurations' seeds
      show; coverage of the
      selected configuration's true mean in ``rlstats/calibration.csv``, procedure ``tuning.best_interval``; on the
      real tuning procedures above, 0.975-0.984 pooled at 3-10 seeds, 0.48-0.62 in the worst sweep, whose runs hold
      a rare outlying seed).
      ``tuned_lower="winner"`` keeps the earlier lower end (the winner's own standard deviation), bit for bit.
      A configuration of one seed is the same value in every resample, its score taken as certain (with every
      configuration so, the winner is best with probability 1 and its optimism 0 however close the configurations
      are; with some, the best set missed the truly best configuration in up to 0.27 of simulated sweeps, not 0.03):
      where a configuration of a sweep has one seed, the probabilities, the optimism and the tuned score are withheld
      there, with a note naming such configurations (leave them out of the data to rank the others; a sweep of one
      configuration selects nothing and keeps them: its configuration is best by construction, probability 1 and
      optimism 0 whatever its seeds, which a note, the table's key and the plot (a hatched bar) say, not a measured
      probability). ``best_set()`` lists the configurations in the best set, as many as the print's "best set of n",
      with both shares (``probability_best``, ties shared; ``probability_best_or_tied``, which the set reads, and the
      plot's bars); ``best_set(runners_up=True)`` adds those best or tied for best in some resample but fewer than
      ``threshold`` of them, and a selected configuration outside its set; a note counts those left out and says
      why.
      Ties: the selected configuration is the first
      with the largest mean in configuration order; in a resample where configurations tie for the best bootstrap
      mean, the optimism is measured from the tied configuration with the largest mean in the data (the smallest
      optimism of the tied ones; beyond 64 configurations, see ``_kernels.tuned_interval``), while the probability
      of being best is shared among them. With ``holdout=`` (a boolean column, True for
      runs kept out of tuning) the selection uses the other runs and the honest estimate is the selected
      configuration's held-out runs, with Student's t interval (withheld, with a note, when they all tie).
    * ``complete``: Jordan et al. (2020)'s complete algorithm, whose hyperparameters are drawn from a distribution
      (uniformly over the sweep, or by the ``weights=`` column). The estimand is its expected score: the mean, over
      the hyperparameter distribution, of a configuration's true mean score, the sweep's configurations being a random
      sample of it (weighted by ``weights=``: E[w mu] / E[w]); the estimate is the (weighted) mean of the
      configurations' mean scores, unbiased with equal weights. Its interval, by default
      (``complete_interval="skew_t"``), is Student's t on the configurations' means: each mean carries its own seeds'
      noise, so their spread estimates the estimate's whole variance ((between-configuration variance + seed
      variance / n) / G), with G - 1 degrees of freedom (with weights, the ratio estimator's linearised variance and
      Kish's effective number of configurations, 1 / sum of squared weight shares, less one), widened on the side
      of the means' skew by the Edgeworth correction of the expected-max band. It is withheld, with a note, below 30
      configurations (in effect, with weights): on the calibration grid (5-100 configurations x 3-20 seeds x the
      four score distributions x between/within variance ratios 0.1, 1 and 10, and weights tilted towards good
      configurations) it holds its level at every design it is shown on (30 and 100 equally weighted configurations,
      100 weighted ones; 112 rows, lowest 0.931 pooled, 0.912 in a design draw), while at 5-10 configurations of a
      skewed landscape no interval did (skew-t 0.82-0.92; nor a plain t, a bootstrap-t or a BCa over
      configurations). ``complete_interval="two_stage"`` is the earlier interval, bit for bit: a two-stage bootstrap
      (configurations, then seeds within them, widened by sqrt(n / (n - 1)) as above), whose second stage counts the
      seeds' noise twice (up to 0.998 where seeds dominate) while its percentile interval of few configurations is
      too narrow (0.77 at 5 configurations, 0.69 at 10 weighted ones; 85 of its 240 rows miss; its measured coverage
      is quoted in a note). Coverage of both in
      ``rlstats/calibration.csv``, procedure ``tuning.complete_interval``. ``res.complete()`` is a long frame with the
      complete algorithm as an agent, one row per configuration (its mean score; ``seed`` names the configuration),
      which :func:`rlstats.bootstrap`, :func:`rlstats.percentiles` and :func:`rlstats.task_table` read like any
      agent.
    * ``sensitivity``: Adkins, Bowling and White (2024)'s hyperparameter sensitivity, per-task tuned minus
      cross-task tuned score on percentile-normalised scores (each task's scores over all agents, configurations
      and seeds mapped so that its ``percentiles`` go to 0 and 1; where they coincide, as when most runs sit at a
      cap, its smallest and largest runs, with a note), and the effective hyperparameter
      dimensionality: the fewest ``config`` columns that, tuned per task with the others fixed at the cross-task
      tuned configuration's levels, reach ``fraction`` of the per-task tuned score. Needs two tasks; the cross-task
      scores use the configurations run on every task, per-task tuning every configuration run on the task.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per run; never modified.
    formula : str
        ``"score ~ agent | task/seed"``: the replicate column names the seeds within a configuration.
        ``"score ~ agent | task/tuning_run/seed"`` says that seeds are nested in tuning runs: the tuning run is then
        the configuration and the unit, as ``config="tuning_run"`` (a note says so).
    config : str or list of str, optional
        The hyperparameter columns; each distinct combination is one configuration. For tuning *procedures* (one
        configuration found per tuning run, then evaluated on several seeds) name the tuning-run column, or nest the
        seeds in it in the formula: the tuning run is then the unit. A call whose every sweep (agent x task) has one
        configuration has nothing to tune and is an error naming config= and the columns that could name the
        configurations: None without the formula's nesting (each agent is then one configuration), or columns of one
        value in every sweep; for agents run with one configuration each, use :func:`rlstats.bootstrap`. A sweep of
        one configuration beside sweeps of several (a baseline run with its defaults) is kept: best by construction,
        with a note.
    weights : str, optional
        A column of non-negative probabilities of each configuration under the complete algorithm (constant within a
        configuration); uniform when None.
    holdout : str, optional
        A boolean column: True for evaluation runs kept out of the selection.
    views : sequence of str, optional
        The views to compute. None: all four, except ``sensitivity`` where ``config`` holds no hyperparameter (a
        note says why). The sensitivity view varies hyperparameters across tasks, so a configuration must mean the
        same on every task: a replicate level is refused (asked for by name, an OptionError naming it and the columns
        that could serve): the tuning run nested in the formula (``| task/tuning_run/seed``), or a ``config`` column
        named as one numbering runs or seeds (``run``, ``run_id``, ``tuning_run``, ``trial``, ``replicate``, ...;
        rename a hyperparameter so called).
    higher_is_better : bool
        Whether a higher score is better (False: the best configuration is the lowest-scoring one).
    threshold : float
        Smallest share of resamples in which a configuration is best or tied for best for it to enter the best set
        (without ties, its probability of being best).
    confidence_level : float
        Level of every interval and band, between 0 and 1.
    n_resamples : int
        Bootstrap resamples of every view.
    budgets : sequence of int, optional
        The budgets of the expected-max curves (default: every k up to 100, then about 100 log-spaced up to N).
    tuned_lower : {"pooled", "winner"}
        The spread on the tuned-score interval's lower end: the larger of the winner's and the sweep's pooled
        standard deviation (default), or the winner's own, the earlier rule, which covers as little as 0.84 at 3 seeds
        of capped scores (its measured coverage is quoted in a note).
    complete_interval : {"skew_t", "two_stage"}
        The complete algorithm's interval: Student's t on the configurations' mean scores with a skewness
        correction, withheld below 30 configurations (default); or the earlier two-stage bootstrap
        (``"two_stage"``), which covers as little as 0.77 at 5 configurations that differ much more than their seeds.
    band : {"skew_t", "skew_t_normal", "percentile"}
        The expected-max band: the skewness-corrected t band whose degrees of freedom count the runs' kurtosis
        (default); the same band with normal-theory degrees of freedom (``"skew_t_normal"``, the default before,
        short of its level on heavy-tailed scores); or the earlier centred percentile band of the seed bootstrap,
        which covers as little as 0.80 at 3 seeds (measured coverages are quoted in a note).
    percentiles : (float, float) or None
        The percentiles mapped to 0 and 1 by the sensitivity view's normalisation; ``None`` uses the scores as
        given (already on one scale, e.g. percentile-normalised by the caller).
    fraction : float
        Share of the per-task tuned score that the effective dimensionality asks for.
    normalize : DataFrame, str or dict, optional
        Per-task normalisation of the scores first (see :func:`rlstats.normalize`).
    bounds : (low, high), optional
        Known limits of the score (None for a side without one; ``normalize="dm_control"`` implies [0, 1]): a run
        outside them is an error naming it, and every estimate, interval and band of the tuned score, the expected
        maximum and the complete algorithm is clipped to them, which keeps coverage since the true value lies
        within them (the notes say where an end was clipped). Without them a tuned score near a cap can get an
        interval above it: a note counts the ends past the largest (smallest) score where two runs or more sit
        there, with the ``bounds=`` that would clip them.
    rng : None, int or numpy.random.Generator
        Seed of the resamples (recorded in the result); each sweep draws from its own stream (see ``backend``), a
        configuration's runs laid out in the order of their scores, so the seeds' names do not move the draws.
    n_jobs : int
        Threads resampling the sweeps (-1: one per core).
    backend : None or "dask"
        ``"dask"``: each sweep's resamples (the best set's and the expected-max and complete views') are drawn on
        a ``dask.distributed`` cluster (``pip install 'dask[distributed]'``, or ``pip install ".[distributed]"`` in a
        source checkout), a task per agent x task sweep.
        Each sweep draws from its own stream, keyed by its agent's and its task's names (as ``bootstrap()``'s
        agents), so the result is the same bits whatever ``n_jobs``, the backend or the number of workers, and
        whatever the order of the agents and tasks in the data (a Categorical's category order); a sweep's best set
        and bands are those of its own rows, whatever other agents and tasks the data hold or what they are named.
    client : distributed.Client or None
        With ``backend="dask"``, the Client to run on (None: the default Client, the one made last in this
        process; an error if there is none).
    progress : bool
        A progress bar over the estimated seconds (tqdm: on a terminal, or a notebook's widget) when the work is
        estimated to take more than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    na_action : {"raise", "drop", "omit"}
        Missing values: an error naming the rows, or drop those rows and say so.
        ``"omit"`` (R's ``na.omit``) is the same as ``"drop"``.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up; by default the caller's frame.

    Returns
    -------
    TuningResult

    See Also
    --------
    rlstats.bootstrap : Aggregate metrics when each agent has one configuration.
    rlstats.task_table : Per-task table of the tuned runs.

    References
    ----------
    Dodge, J., Gururangan, S., Card, D., Schwartz, R. and Smith, N. A. (2019), Show your work: improved reporting of
    experimental results, EMNLP (Section 3, the expected maximum).
    Jordan, S. M., Chandak, Y., Cohen, D., Zhang, M. and Thomas, P. S. (2020), Evaluating the performance of
    reinforcement learning algorithms, ICML (Section 3, the complete algorithm).
    Patterson, A., Neumann, S., White, M. and White, A. (2024), Empirical design in reinforcement learning, JMLR 25.
    Adkins, J., Bowling, M. and White, A. (2024), A method for evaluating hyperparameter sensitivity in
    reinforcement learning, NeurIPS.
    Hall, P. (1992), The bootstrap and Edgeworth expansion, Springer (Section 3.5: the Edgeworth correction of a
    studentised mean's quantiles, used by the default expected-max band).

    Examples
    --------
    >>> import numpy as np, pandas as pd, rlstats
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame([(a, t, lr, s, (lr == 0.01) + rng.normal()) for a in ("ppo", "sac")
    ...                    for t in ("ant", "hopper") for lr in (0.001, 0.01, 0.1) for s in range(5)],
    ...                   columns=["agent", "task", "lr", "seed", "score"])
    >>> res = rlstats.tuning(df, "score ~ agent | task/seed", config="lr", rng=0)
    >>> sorted(res.best_set().columns)[:3]
    ['agent', 'config', 'estimate']
    """
    asked = views  # None: every view that applies (sensitivity only over hyperparameters)
    opts = TuningOptions.checked(
        views=VIEWS if views is None else views, higher_is_better=higher_is_better, threshold=threshold, confidence_level=confidence_level,
        n_resamples=n_resamples, budgets=budgets, percentiles=percentiles, fraction=fraction, bounds=bounds,
        band=band, tuned_lower=tuned_lower, complete_interval=complete_interval, progress=progress,
        max_seconds=max_seconds, n_jobs=n_jobs, backend=backend, client=client)
    higher, threshold, level = opts.higher_is_better, opts.threshold, opts.confidence_level
    n_resamples, budgets, percentiles, fraction = opts.n_resamples, opts.budgets, opts.percentiles, opts.fraction
    data = as_pandas(data)  # a polars or pyarrow table: converted once, stated
    if isinstance(data, Design):
        raise DesignError("tuning() needs the DataFrame (one row per run), not a Design: its configuration "
                          "columns are read with the formula")
    if not isinstance(data, pd.DataFrame):
        raise DesignError(f"data must be {TABLE} in long format (one row per run), got {type(data).__name__}")
    if formula is None:
        raise OptionError("formula is required, e.g. 'score ~ agent | task/seed'")
    parsed = formula_module.parse_against(formula, data)  # the shared parse: '| task/tuning_run/seed' gives parsed.outer
    config, nested_note = _nested_level(parsed, config)
    if parsed.replicate is None or parsed.blocks is None:
        _refuse_unnested(data, parsed, config, weights, holdout)
    config = _check_columns("config", config, data, parsed)
    views, dropped_view = _sensitivity_view(opts.views, asked is None, config, parsed, data)
    for name, column in (("weights", weights), ("holdout", holdout)):
        if column is not None:
            _check_columns(name, column, data, parsed, single=True)
    extra = tuple(dict.fromkeys((*config, parsed.replicate, *(c for c in (weights, holdout) if c is not None))))
    # Seeds repeat across configurations (and tuning runs), so the Design keeps one row per seed without the
    # replicate roles (READS_NESTING, as declared); a seed's uniqueness within a configuration is checked below.
    # the configuration columns tell apart one seed's runs (the check that rows are runs, not learning curves)
    design = design_of(data, parsed, extra_columns=extra, na_action=na_action, eval_env=eval_env,
                       normalize=normalize, min_agents=1, reads_nesting=READS_NESTING, bounds=opts.bounds,
                       run_key=tuple(config))
    sweeps, labels = _sweeps(design, parsed, config, weights, holdout, higher, data)
    digits = _label_digits(design, config)  # the printed labels' (new-user trial s38)
    # one configuration in every sweep, config= or not (without it, seeds repeated in a sweep were refused first,
    # naming the columns that tell its configurations apart): nothing to tune (new-user trial s38)
    if all(sweep["sizes"].size == 1 for sweep in sweeps.values()):
        _refuse_untuned(data, parsed, config, weights, holdout)
    # its mean over tasks adds raw scores (sensitivity normalises its own), for an agent with sweeps on every task
    if "expected_max" in views and (design.counts > 0).all(axis=0).any():
        design = _raw_scales(design, sweeps, normalize, bool(config))
    notes = list(design.notes) + ([nested_note] if nested_note else []) + ([dropped_view] if dropped_view else [])
    # issue 43 item 2: estimated once the sweeps are read (cheap), since the views' work grows with each sweep's
    # number of configurations, which the Design's shape does not hold; nothing is resampled before it
    work = admit(functools.partial(cost, configurations=[s["sizes"].size for s in sweeps.values()]), design, opts,
                 max_seconds, "tuning()")
    unit = f"configuration ({', '.join(config)})" if config else parsed.arm_word  # 'algo' of '~ algos' (words33)
    # whether any view reads resamples: the best set; the expected-max and complete views only with their bootstrap
    # options (their defaults are closed forms), so that nothing says resamples were used where none was (audit s7)
    resampled = ("best_set" in views or ("expected_max" in views and opts.band == "percentile")
                 or ("complete" in views and opts.complete_interval == "two_stage"))
    notes.append(f"the unit is the {unit}: seeds ('{parsed.replicate}') are nested in it"
                 + (" and resampled only within it" if resampled else ""))
    ss, seed_record = seed_sequence(rng)
    sign = 1.0 if higher else -1.0
    # a view left out for this design says why when asked for (audit s32: views=['sensitivity'] was advised, which
    # raises for a replicate level)
    tables, why = {}, ({"sensitivity": dropped_view.removeprefix("sensitivity not computed: ")
                                    + "; it runs over hyperparameter columns named in config="} if dropped_view else {})
    with timed_bar(work, shows(work, opts.progress), "tuning"):
        if "best_set" in views:
            tables["best_set"], tables["tuned"] = _best_set(design, sweeps, labels, ss, n_resamples, threshold, level,
                                                           sign, holdout is not None, notes, opts.tuned_lower,
                                                           opts.engine, shown=functools.partial(
                                                               plots.short_label, columns=config, digits=digits))
        if "expected_max" in views or "complete" in views:
            em, complete, runs = _resampled_views(design, sweeps, labels, ss, n_resamples, level, sign, budgets, views,
                                                  notes, weights is not None, parsed, opts.band, opts.engine,
                                                  opts.complete_interval)
            tables.update({"expected_max": em, "complete": complete, "complete_runs": runs})
        if "sensitivity" in views:
            before = len(notes)
            tables["sensitivity"], tables["dimensions"] = _sensitivity(design, sweeps, config, percentiles, fraction,
                                                                        sign, notes)
            if tables["sensitivity"] is None:  # its last note says why (not_computed quotes it)
                why["sensitivity"] = notes[-1] if len(notes) > before else "see the notes"
    _clip_to_bounds(tables, design.bounds, notes)
    notes += _past_the_scores_notes(design, tables)
    notes += _calibration_notes(design, sweeps, views, level, tables, opts.band, opts.tuned_lower,
                                opts.complete_interval)
    n_configs = np.zeros((design.n_tasks, design.n_agents), dtype=np.intp)
    for (t, a), sweep in sweeps.items():
        n_configs[t, a] = sweep["sizes"].size
    return TuningResult(
        method="Tuning-aware evaluation of a hyperparameter sweep",
        formula=parsed, data_name=parsed.data_name, nobs=design.nobs, notes=tuple(notes),
        options={"config": list(config), "weights": weights, "holdout": holdout, **opts.record()},
        seed=seed_record, agents=design.agents, tasks=design.tasks, config_columns=tuple(config), unit=unit,
        views=tuple(views), n_configs=n_configs, confidence_level=level, threshold=threshold,
        n_resamples=n_resamples if resampled else None, tables=tables, not_computed_why=why, config_digits=digits,
    )


@dataclass(frozen=True)
class TuningOptions:
    """The keywords of :func:`tuning` that need no data, checked once."""

    views: tuple = VIEWS
    higher_is_better: bool = True
    threshold: float = 0.05
    confidence_level: float = 0.95
    n_resamples: int = 2000
    budgets: tuple | None = None
    percentiles: tuple | None = (5.0, 95.0)
    fraction: float = 0.95
    bounds: tuple | None = None
    band: str = "skew_t"
    tuned_lower: str = "pooled"
    complete_interval: str = "skew_t"
    progress: bool = True
    #: where the sweeps are resampled (rlstats.engines): threads, or Dask on ``client`` (None: the default Client)
    n_jobs: int = 1
    backend: str | None = None
    client: Any = dataclasses.field(default=None, repr=False, compare=False)

    @classmethod
    def checked(cls, **options: Any) -> TuningOptions:
        """Validate every option once; raises OptionError naming the bad one."""
        where = _engine(options.get("n_jobs", 1), options.get("backend"), options.get("client"), joblib=False)
        return cls(n_jobs=where.n_jobs, backend=where.backend, client=where.client,
                   views=_check_views(options["views"]),
                   higher_is_better=check_bool("higher_is_better", options["higher_is_better"]),
                   threshold=check_fraction("threshold", options["threshold"]),
                   confidence_level=check_confidence_level(options["confidence_level"]),
                   n_resamples=check_resamples(options["n_resamples"], minimum=100),
                   budgets=_check_budgets(options["budgets"]), bounds=check_bounds(options.get("bounds")),
                   percentiles=_check_percentiles(options["percentiles"]),
                   fraction=check_fraction("fraction", options["fraction"], open_interval=False),
                   band=check_choice("band", options.get("band", "skew_t"), BANDS),
                   tuned_lower=check_choice("tuned_lower", options.get("tuned_lower", "pooled"), TUNED_LOWER),
                   complete_interval=check_choice("complete_interval", options.get("complete_interval", "skew_t"),
                                                  COMPLETE_INTERVALS),
                   progress=check_cost_options(options.get("progress", True), options.get("max_seconds"))[0])

    @property
    def engine(self) -> Engine:
        """Where the sweeps are resampled (:mod:`rlstats.engines`)."""
        return Engine(n_jobs=self.n_jobs, backend=self.backend, client=self.client)

    def record(self) -> dict[str, Any]:
        """The options as stored in the result (not the Dask client, a live connection)."""
        out = asdict(dataclasses.replace(self, client=None))
        del out["client"]
        out.update(views=list(self.views), percentiles=None if self.percentiles is None else list(self.percentiles),
                   bounds=None if self.bounds is None else list(self.bounds),
                   budgets=None if self.budgets is None else list(self.budgets))
        return out


#: table -> (columns on the score's scale, what the note calls them)
_BOUNDED = {"tuned": (("estimate", "conf_low", "conf_high", "heldout_estimate", "heldout_low", "heldout_high"),
                      "the tuned scores and their intervals"),
            "expected_max": (("estimate", "conf_low", "conf_high"), "the expected-max curves and bands"),
            "complete": (("estimate", "conf_low", "conf_high"), "the complete algorithm's intervals")}


def _clip_to_bounds(tables, bounds, notes):
    """Every score-scale estimate, interval and band of ``tables`` within the score's known bounds (in place)."""
    for name, (columns, what) in _BOUNDED.items():
        if tables.get(name) is not None:
            tables[name] = clip_columns(tables[name], bounds, columns, what, notes=notes)


def _past_the_scores_notes(design, tables):
    """Without known bounds: the ends of :data:`_BOUNDED`'s estimates and intervals past the largest (smallest) score
    of their task where two runs or more sit at it, as a cap makes them (audit s30 mends30: the LunarLander sweep's
    returns, 87% of them at 1000, got the tuned interval [998.86, 1001.1] and nothing said), with the ``bounds=``
    that would clip them where one value is that score on every such task and the data's largest (smallest).
    Each side is judged apart (review s30: any bounds= silenced the note, bounds=(0, None) too, which clips no upper
    end): a side the bounds limit clips there; the other is noted, its way on keeping the side given."""
    known = (-np.inf, np.inf) if design.bounds is None else (design.bounds.low, design.bounds.high)
    y, task, n = design.y, design.task, design.n_tasks
    codes = {name: i for i, name in enumerate(design.tasks)}
    low, high = block_ranges(y, task, n)
    # past it by more than round-off (an expected maximum of runs all at 1000 summed to 1000.0000000000114)
    slack = tie_tolerance(high - low, np.maximum(np.abs(low), np.abs(high)))
    notes = []
    for sign, past, extreme, exceed in ((1, "above", "largest", "exceed"), (-1, "below", "smallest", "fall below")):
        if np.isfinite(known[sign > 0]):  # bounds= limits this side: clipped there, with its own note
            continue
        edge = np.full(n, -np.inf)
        np.maximum.at(edge, task, sign * y)
        at = np.bincount(task, sign * y == edge[task], minlength=n)
        moved, hit, what = 0, set(), []
        for name, (columns, words) in _BOUNDED.items():
            table = tables.get(name)
            if table is None or not len(table):
                continue
            own = table["task"].isin(codes)  # not the rows over tasks (expected_max's mean at equal budget)
            t = table.loc[own, "task"].map(codes).to_numpy(dtype=np.intp)
            values = sign * table.loc[own, [c for c in columns if c in table.columns]].to_numpy(dtype=float)
            with np.errstate(invalid="ignore"):
                beyond = (values > (edge + slack)[t][:, None]) & (at[t] >= 2)[:, None]
            if beyond.any():
                moved += int(beyond.sum())
                hit.update(t[beyond.any(axis=1)].tolist())
                what.append(words)
        if not moved:
            continue
        tasks = sorted(hit)
        values = {float(sign * edge[i]) for i in tasks}
        runs = int(at[tasks].sum())
        total = int(np.isin(task, tasks).sum())
        if len(values) == 1:  # the tasks named (audit s32: "4 of the 6 runs" of a file of 15)
            (value,) = values
            names = [repr(design.tasks[i]) for i in tasks]
            whose = f"task {names[0]}" if len(names) == 1 else f"tasks {fmt.listed(names, 5)}"
            where = (f"{fmt.signif(value, 6)}, the {extreme} score of {whose} ({runs} of "
                     f"{'its' if len(names) == 1 else 'their'} {total} runs reach it)")
        else:
            where = (f"the {extreme} score of their task ({fmt.listed([design.tasks[i] for i in tasks], 5)}), which "
                     f"{runs} of the {total} runs reach")
        data_edge = float(sign * np.max(sign * y))
        if len(values) == 1 and value == data_edge:  # the other side as given (None: not limited)
            other = fmt.signif(known[sign < 0], 6) if np.isfinite(known[sign < 0]) else "None"
            pair = f"({other}, {fmt.signif(value, 6)})" if sign > 0 else f"({fmt.signif(value, 6)}, {other})"
            way = f"pass bounds={pair} to clip them to it"
        else:
            way = "pass bounds= with the scores' known limits to clip them"
        notes.append(f"{fmt.count(moved, 'end')} of {', and of '.join(what)} {fmt.verb(moved, 'lies')} {past} "
                     f"{where}: if the scores cannot {exceed} "
                     f"it (a cap), {way}, which keeps the coverage (the true value lies within)")
    return notes


#: The most budgets an expected-max curve is given at (the default grid has about 200): each is a column of every
#: resample's curve
MAX_BUDGETS = 10_000


def _check_budgets(budgets):
    if budgets is None:
        return None
    size = budgets.size if isinstance(budgets, np.ndarray) else len(budgets) if hasattr(budgets, "__len__") else 0
    if size > MAX_BUDGETS:  # counted before converting (audit s37 bounds37: range(1, 10**8) was a MemoryError)
        raise OptionError(f"budgets= lists {size:,} budgets, more than the {MAX_BUDGETS:,} an expected-max curve "
                          "takes; pass fewer, e.g. budgets=[1, 2, 5, 10, 20, 50, 100], or leave budgets= out (every "
                          "budget up to 100, then about 100 log-spaced)")
    values = np.asarray(budgets)
    booleans = values.dtype.kind == "b" or (values.ndim == 1 and not isinstance(budgets, np.ndarray) and any(
        isinstance(v, (bool, np.bool_)) for v in budgets))  # [True, 2] reads as [1, 2]
    if (values.ndim != 1 or values.size == 0 or booleans or not np.issubdtype(values.dtype, np.integer)
            or (values < 1).any()):
        raise OptionError(f"budgets= must be a list of positive integers, got {shown(budgets)}"
                          + ("; True and False are not budgets" if booleans else ""))
    return tuple(sorted(set(int(v) for v in values)))


def _refuse_unnested(data, parsed, config, weights, holdout):
    """The formula names no task or no seed: an error with the formula to write. '| seed' names the runs, not the
    tasks: the seed goes after the task (audit s32 design32: '| seed/seed'); the task is the data's column that looks
    like one (:func:`rlstats.design.block_like_columns`: 'env', say; 'task' first, names before numbers), or, where
    none does, a column 'task' to add (audit s32 fin32a: 'task/seed' was advised where the tasks are 'env')."""
    runs = parsed.blocks is not None and parsed.blocks.lower() in RUN_NAMES
    lacking = ""
    if parsed.blocks is not None and not runs:
        nesting = f"{parsed.blocks}/seed"
    else:
        seed = parsed.blocks if runs else "seed"
        named = [config] if isinstance(config, str) else [c for c in config or () if isinstance(c, str)]
        skip = {parsed.groups, seed, *named, *(c for c in (weights, holdout) if isinstance(c, str)),
                *re.findall(r"[A-Za-z_]\w*", parsed.response)}
        found = ([c for c, _ in block_like_columns(data, parsed.groups, skip)]
                 if parsed.groups in data.columns else [])
        names = [c for c in found if not pd.api.types.is_numeric_dtype(data[c].dtype)]
        task = next((c for c in found if c == "task"), None) or next(iter(names + found), "task")
        nesting = f"{task}/{seed}"
        if task not in data.columns:
            lacking = ", with a column the data lack: add it, e.g. df.assign(task='name')"
    text = (f"tuning needs the task and the seed column in the formula: write "
            f"'{parsed.response} ~ {parsed.groups} | {nesting}'{{}}, since seeds are resampled within each "
            "configuration")
    raise DesignError(text.format(lacking),
                      command_line=text.format(lacking and ", with a column 'task' the file lacks: add it"))


def _refuse_untuned(data, parsed, config, weights, holdout):
    """Every sweep (agent x task) has one configuration: nothing is selected, so the views would print a "tuned" score,
    a best set and an expected maximum of one configuration each (new-user trial s38: 24 sweeps of the Atari agents,
    no config=, printed as a tuning-aware evaluation). An OptionError without configurations (no config=, no tuning run
    nested in the formula), a DesignError where the ones named hold one in every sweep; each says what declares
    configurations, names the data's columns that could, and where to go for agents of one configuration each (as
    Python and as the command line says it). A sweep of one configuration beside sweeps of several (a baseline run
    with its defaults beside tuned agents) is not refused."""
    agent, task = parsed.arm_word, parsed.block_word
    formula = f"{parsed.response} ~ {parsed.groups} | {parsed.blocks}"
    runs = f"{formula}{'' if parsed.outer is None else '/' + parsed.outer}/{parsed.replicate}"
    found = _configuration_columns(data, parsed, {*config, *(c for c in (weights, holdout) if c is not None)})
    if found:
        could = (f"the data's {fmt.plural('column', len(found))} that {fmt.verb(len(found), 'varies')} between "
                 f"{fmt.a_or_an(agent)}'s runs on {fmt.a_or_an(task)} and could name them: "
                 + ("config={}" if len(found) == 1 else "config={} (or those of them that do)"))
        shown = (repr(found[0]) if len(found) == 1 else repr(found),
                 found[0] if len(found) == 1 else "[" + ",".join(map(repr, found)) + "]")
        could_python, could_command = could.format(shown[0]), could.replace("config={}", "-o \"config={}\"").format(
            shown[1])
    else:
        could_python = could_command = (f"these data have no column besides the formula's that varies between the "
                                        f"runs of {fmt.a_or_an(agent)} on {fmt.a_or_an(task)}")
    other = (f"to compare {fmt.plural(agent)} run with one configuration each, use rlstats.bootstrap(df, '{runs}') or "
             f"rlstats.compare(df, '{formula}')")
    other_command = (f"to compare {fmt.plural(agent)} run with one configuration each, run rlstats compare FILE "
                     f"'{runs}' --method bootstrap, or rlstats compare FILE '{formula}'")
    if not config:
        text = (f"tuning() has nothing to tune: without config= each {agent} is one configuration, so every sweep "
                f"({agent} x {task}) has one and none is selected. Name the hyperparameter columns with config= (each "
                f"distinct combination of their values is a configuration), or nest the seeds in tuning runs, "
                f"'{formula}/tuning_run/{parsed.replicate}'; {{}}; {{}}")
        raise OptionError(text.format(could_python, other),
                          command_line=text.replace("config=", "-o config=").format(could_command, other_command))
    if parsed.outer is not None:
        named = f"the formula's '{parsed.outer}' ('| {parsed.blocks}/{parsed.outer}/{parsed.replicate}')"
        way = (f"nest the seeds in a column whose levels differ between the configurations of a sweep, or write "
               f"'{formula}/{parsed.replicate}' with config= naming the hyperparameter columns")
    else:
        named = f"config={config[0]!r}" if len(config) == 1 else f"config={list(config)!r}"
        way = "name with config= the columns whose values differ between the configurations of a sweep"
    text = (f"{named} holds one configuration in every sweep ({agent} x {task}): each {agent} ran with one "
            f"configuration on each {task}, so tuning() has nothing to select; {way} ({{}}); {{}}")
    raise DesignError(text.format(could_python, other),
                      command_line=text.replace("config=", "-o config=").format(could_command, other_command))


def _configuration_columns(data, parsed, skip=()):
    """The data's columns outside the formula (and ``skip``) that could name configurations: grouping columns
    (:func:`_grouping_columns`) that take several values within some sweep (agent x task)."""
    skip = {*skip} if parsed.outer is None else {*skip, parsed.outer}
    return [column for column, values in _grouping_columns(data, parsed, skip) if (values > 1).any()]


def _grouping_columns(data, parsed, skip):
    """``(column, its number of values in each sweep)`` of the data's columns outside the formula and ``skip`` whose
    values group runs: within every sweep (agent x task) some value is shared by several runs, as a hyperparameter's
    is (a column of one number per run, a score's spread, is no configuration)."""
    keys = [parsed.blocks, parsed.groups]
    skip = {*keys, *skip, parsed.replicate, *parsed.response_columns}
    grouped = data.groupby(keys, observed=True, sort=False)
    rows = grouped.size()
    out = []
    for column in data.columns:
        if not isinstance(column, str) or column in skip:
            continue
        try:
            values = grouped[column].nunique(dropna=False)
        except TypeError:  # unhashable cells (dicts of settings)
            continue
        if (values < rows.reindex(values.index)).all():
            out.append((column, values))
    return out


def _nested_level(parsed, config):
    """``| task/tuning_run/seed`` (``parsed.outer``): seeds nested in tuning runs; the tuning run becomes the
    configuration (the unit). Returns ``(config, note)``; a formula without nesting leaves ``config`` as given.
    """
    if parsed.outer is None:
        return config, None
    task, unit, seed = parsed.blocks, parsed.outer, parsed.replicate
    if config is not None:
        raise OptionError(f"the formula nests seeds in '{unit}' ('| {task}/{unit}/{seed}'), which names the "
                          f"configuration; drop config={config!r}, or write '| {task}/{seed}' with config=")
    return unit, f"'| {task}/{unit}/{seed}': seeds are nested in '{unit}', which is the unit (as config='{unit}')"


#: tuned_lower= -> the ``interval`` of its calibration.csv rows
TUNED_INTERVALS = {"pooled": "select_then_report_pooled_t", "winner": "select_then_report_t"}
#: view -> (calibration procedure, what it measured)
CALIBRATED = {"best_set": ("tuning.best_interval", "the tuned-score interval's coverage of the selected "
                                                   "configuration's true mean"),
              "expected_max": ("tuning.expected_max_band", "the expected-max band's pointwise coverage"),
              "complete": ("tuning.complete_interval", "the complete algorithm's interval's coverage of its expected "
                                                       "score")}


def _calibration_notes(design, sweeps, views, level, tables, band="skew_t", tuned_lower="pooled",
                       complete_interval="skew_t"):
    """The measured shortfalls (calibration.csv) at the grid designs nearest to the sweeps whose intervals are printed:
    none for a view whose intervals are all withheld (a row is never quoted for a value that is not printed), and
    a sweep whose interval is withheld does not choose the row (audit s34 tune34: a sweep cut to 1 seed, its band
    withheld, had the note quote the 3-seed row beside the one band shown, of 10 seeds). Where the sweeps shown sit
    at different designs, one note per design that misses, naming its sweeps."""
    from ... import calibration

    notes = []
    shown = {"best_set": tables.get("tuned"), "expected_max": tables.get("expected_max"),
             "complete": tables.get("complete")}
    for view, (procedure, what) in CALIBRATED.items():
        if view not in views:
            continue  # before reading the table: a fresh process would read all of it for nothing
        rows = calibration.rows(procedure)
        if view == "expected_max":
            rows = tuple(r for r in rows if r.get("band") == band)
        elif view == "complete":
            rows = tuple(r for r in rows if r.get("interval") == complete_interval)
        else:
            rows = tuple(r for r in rows if r.get("interval") == TUNED_INTERVALS[tuned_lower])
        table = shown[view]
        if not rows or level != 0.95 or table is None:
            continue
        # the sweeps (agent, task) with an interval printed (the mean over tasks is not a sweep)
        given = table.loc[np.isfinite(table["conf_low"].to_numpy(dtype=float)), ["agent", "task"]]
        given = set(map(tuple, given.to_numpy().tolist()))
        printed = {key: s for key, s in sweeps.items() if (design.agents[key[1]], design.tasks[key[0]]) in given}
        if not printed:
            continue
        grid_n = sorted({int(r["configuration"].split()[0]) for r in rows})
        grid_runs = sorted({int(r["runs"]) for r in rows})
        nearest = {}  # design -> its printed sweeps, in sweep order
        for (t, a), s in printed.items():
            at = (min(grid_n, key=lambda g: abs(math.log(g / s["sizes"].size))),
                  calibration.nearest_count(grid_runs, int(np.median(s["sizes"]))))
            nearest.setdefault(at, []).append(f"{design.agents[a]} on {design.tasks[t]}")
        method = {"band": band} if view == "expected_max" else {}  # the rows of the band asked for
        quoted = [(calibration.shortfall(rows, 0.95, configuration=f"{n} configurations", runs=runs, **method), cells)
                  for (n, runs), cells in sorted(nearest.items())]
        quoted = sorted(((row, cells) for row, cells in quoted if row is not None),
                        key=lambda q: float(q[0]["coverage"]))
        for row, cells in quoted:
            # names hold commas ("hpo=dehb, rpo=rs, return"): the sweeps apart by semicolons
            whose = "" if len(nearest) == 1 else f" for {sweep_names(cells, 3)}"
            if row.get("distribution") == REAL_SWEEPS:
                notes.append(_real_sweeps_note(row, what, procedure, whose))
                continue
            # the worst draw and which of the two missed (review21c: a row quoted for its worst draw alone read
            # "measured at 0.943 for a 95% claim", its pooled coverage within 3 SE of 1,000 and the draw unsaid)
            drawn = "the task's" if view == "complete" else "the configurations'"  # what the reference scripts draw
            notes.append(f"{what}{whose} was measured at {float(row['coverage']):.3f}"
                         f"{calibration.worst_draw_clause(row, drawn=drawn)} for a 95% claim at the nearest "
                         f"simulated design ({row['configuration']}, {row['runs']} seeds, {row['distribution']} "
                         f"scores{_landscape(row)}; rlstats/calibration.csv, {procedure}), "
                         f"{calibration.miss_clause(row, 0.95)}")
    return notes


#: the ``distribution`` of the calibration rows measured on real sweeps (tests/reference/coverage_tuning_real.py):
#: the tuning procedures of Dierkes et al. (2024), n seeds drawn from each tuning run's published ones (audit s22)
REAL_SWEEPS = "real_dierkes2024"


def _real_sweeps_note(row, what, procedure, whose=""):
    """The note of a calibration row measured on real sweeps (:data:`REAL_SWEEPS`): pooled over the sweeps, the worst
    sweep, and why few seeds miss there (a tuning run's rare outlying seed, which most draws of few seeds leave out)."""
    low, sweeps, runs = float(row["coverage_min"]), int(row["design_draws"]), int(row["runs"])
    budget = f" (budget {row['statistic']})" if row["statistic"].startswith("k=") else ""
    return (f"{what}{budget}{whose} was measured at {float(row['coverage']):.3f} over {sweeps} real sweeps, {low:.3f} in the "
            f"worst, for a 95% claim at the nearest measured design ({row['configuration']}, {runs} seeds drawn from "
            "the published seeds of each tuning run of Dierkes et al. 2024's tuning procedures, "
            "rlstats.datasets.load('hpo_optimisation'); rlstats/calibration.csv, "
            f"{procedure}), {_real_miss(row)}: a configuration's rare outlying seed (one in ten there) is left out by "
            f"{runs} seeds in {0.9 ** runs:.0%} of draws, which then do not show it; add seeds to the "
            "configurations that matter")


def _real_miss(row):
    """:func:`rlstats.calibration.miss_clause` of ``row`` at 0.95, its worst draw called a sweep."""
    from ... import calibration

    return calibration.miss_clause(row, 0.95).replace("its worst draw", "its worst sweep").replace(
        "standard errors of a draw", "standard errors of a sweep")


def _landscape(row):
    """For a complete-interval row (statistic 'ratio=10' or 'ratio=10, weighted'), how its configurations varied;
    else ''."""
    statistic = row.get("statistic", "")
    if not statistic.startswith("ratio="):
        return ""
    ratio, _, weighted = statistic[6:].partition(", ")
    return (f", the configurations' true means varying {ratio}x as much as the seeds"
            + (", weighted" if weighted else ""))


#: words that name a column numbering runs or seeds (a replicate level), alone or as the last word of a name
#: ('tuning_run', 'run_id', 'trial'): such a column is never a hyperparameter. The words of design.RUN_IDS, the one list
#: of the names of a run column, each said as one run (its singular, 'run' not 'runs': 'n_runs' counts runs, it numbers
#: none), so that a name the design reads as a run's is read so here (audit s34 words34: two lists of the same words)
REPLICATE_WORDS = tuple(sorted(w for w in RUN_IDS if "_" not in w and fmt.singular(w) == w))
_REPLICATE_NAME = re.compile(rf"(^|[_\W])({'|'.join(REPLICATE_WORDS)})(_?id)?$", re.IGNORECASE)


def _replicate_levels(config, parsed):
    """The ``config`` columns that are replicate levels, not hyperparameters: the formula's nested level, or a column
    whose name says that it numbers runs or seeds."""
    if parsed.outer is not None:
        return [parsed.outer]
    return [c for c in config if _REPLICATE_NAME.search(c)]


def _hyperparameter_candidates(data, parsed, config):
    """Columns that could be hyperparameters of the configurations ``config`` defines: outside the formula, constant
    within every configuration of each agent and task, and varying between the configurations of some sweep."""
    keys = [parsed.groups, parsed.blocks, *config]
    skip = {*keys, parsed.replicate, *parsed.response_columns}
    out = []
    for column in data.columns:
        if not isinstance(column, str) or column in skip:
            continue
        try:
            within = data.groupby(keys, observed=True, sort=False)[column].nunique(dropna=False)
            between = data.groupby(keys[:2], observed=True, sort=False)[column].nunique(dropna=False)
        except TypeError:  # unhashable cells (dicts of settings): not a column to tune over
            continue
        if within.max() == 1 and between.max() > 1:
            out.append(column)
    return out


def _sensitivity_view(views, by_default, config, parsed, data):
    """``views`` without ``sensitivity`` when ``config`` holds a replicate level: refused when the view was asked for
    by name, left out with a note when it came with the default views. Returns ``(views, note or None)``."""
    levels = _replicate_levels(config, parsed) if "sensitivity" in views else []
    if not levels:
        return views, None
    level = levels[0]
    nested = parsed.outer is not None
    why = (f"a replicate level ({'nested in the formula, ' if nested else ''}it numbers runs), not a "
           f"hyperparameter: its level on one task has nothing to do with the same level on another, and sensitivity "
           f"compares configurations across tasks")
    if by_default:
        return tuple(v for v in views if v != "sensitivity"), f"sensitivity not computed: '{level}' is {why}"
    candidates = _hyperparameter_candidates(data, parsed, [level])
    could = (f"the data's columns constant within each '{level}' that vary between them, which could be its "
             f"hyperparameters: {', '.join(map(repr, candidates))} (config=[...] with '| {parsed.blocks}/"
             f"{parsed.replicate}')" if candidates else
             f"no column of the data is constant within each '{level}' and varies between them, so the data hold "
             f"no hyperparameter for this view")
    raise OptionError(f"the sensitivity view (views=) cannot run over '{level}', which is {why}; {could}. Drop 'sensitivity' from "
                      "views=, or name the hyperparameter columns with config= (rename a hyperparameter whose name "
                      "says it numbers runs)")


def _check_views(views):
    if isinstance(views, str):
        parts = [v.strip() for v in views.split(",")]
        if len(parts) > 1 and all(v in VIEWS for v in parts):  # -o views=complete,best_set on the command line
            raise OptionError(f"views={views!r} names several views in one text: give a list, views={parts!r}")
        views = (views,)
    if not isinstance(views, (list, tuple)) or not views:
        raise OptionError(f"views= must be a non-empty list of {', '.join(map(repr, VIEWS))}, got {views!r}")
    unknown = [v for v in views if v not in VIEWS]
    if unknown:
        raise OptionError(f"views={unknown!r}: each must be one of {', '.join(map(repr, VIEWS))}")
    return tuple(v for v in VIEWS if v in views)


def _check_percentiles(percentiles):
    if percentiles is None:
        return None
    try:
        low, high = (float(p) for p in percentiles)
    except (TypeError, ValueError):
        raise OptionError(f"percentiles= must be two numbers (low, high) in [0, 100], or None for scores already on "
                          f"one scale, got {percentiles!r}") from None
    if not 0 <= low < high <= 100:
        raise OptionError(f"percentiles=({low}, {high}) must satisfy 0 <= low < high <= 100")
    return low, high


def _check_columns(name, columns, data, parsed, single=False):
    if columns is None:
        return ()
    listed = (columns,) if isinstance(columns, str) else columns
    if not isinstance(listed, (list, tuple)) or (single and len(listed) != 1) or \
            not all(isinstance(c, str) for c in listed):
        what = "a column name" if single else "a column name or a list of them"
        raise OptionError(f"{name}= must be {what}, got {columns!r}")
    repeated = sorted({c for c in listed if listed.count(c) > 1})
    if repeated:  # a hyperparameter counted twice (the sensitivity view's dimensions, the labels)
        raise OptionError(f"{name}= names {fmt.plural('column', len(repeated))} {repeated} more than once; name each "
                          "hyperparameter once")
    missing = [c for c in listed if c not in data.columns]
    if missing:
        # 'lr,gamma' (a list as many command lines write it), or R's c(lr, gamma) (audit s24): each part a column
        r_vector = re.fullmatch(r"\s*c\s*\((.*)\)\s*", missing[0], flags=re.DOTALL)
        parts = [p.strip().strip("'\"") for p in (r_vector.group(1) if r_vector else missing[0]).split(",")]
        r_said = "R's c(...) is written as a list here; " if r_vector else ""
        hint = (f"; {r_said}to name several columns give a list: {name}={parts!r} (on the command line: -o "
                f"\"{name}=[{','.join(map(repr, parts))}]\")" if not single and len(parts) > 1
                and all(p in data.columns for p in parts) else "")
        raise DesignError(f"{name}= {fmt.plural('column', len(missing))} {missing} not found in data; available: "
                          f"{list(data.columns)}{hint}")
    roles = {parsed.groups: "the agents", parsed.blocks: "the tasks", parsed.replicate: "the seeds"}
    clash = [c for c in listed if c in roles or c in parsed.response_columns]
    if clash:
        c = clash[0]
        raise OptionError(f"{name}= column '{c}' is already in the formula ({roles.get(c, 'the response')}); "
                          f"name the hyperparameter columns only")
    return tuple(listed)


def _separating_columns(data, parsed, config):
    """Grouping columns outside the formula and ``config`` (:func:`_grouping_columns`) that tell apart the runs sharing
    a seed within an agent, task and configuration: each such column alone, or else all of them together (a sweep over
    two hyperparameters), or none."""
    keys = [parsed.blocks, parsed.groups, *config]
    grouping = [column for column, _ in _grouping_columns(data, parsed, config)]
    alone = [c for c in grouping if not data.duplicated([*keys, c, parsed.replicate]).any()]
    if alone or not grouping:
        return alone
    return [grouping] if not data.duplicated([*keys, *grouping, parsed.replicate]).any() else []


def _sweeps(design, parsed, config, weights, holdout, higher, data):
    """Per (task, agent): the runs sorted by configuration, oriented so that higher is better."""
    if config:
        # each column's levels coded in the sorted order of their texts; a configuration is its tuple of codes, so the
        # configurations sorted by their codes are the tuples of texts sorted (no MultiIndex of 10^5 tuples)
        factored = [_text_ordered_levels(design.extra[c]) for c in config]
        levels = [np.asarray(level, dtype=np.intp) for level, _ in factored]
        codes = np.zeros(design.nobs, dtype=np.int64)
        for level, (_, uniques) in zip(levels, factored):  # ranks of the tuples' prefixes, one column at a time
            codes = np.unique(codes * len(uniques) + level, return_inverse=True)[1].reshape(-1)
        codes = codes.astype(np.intp)
        first = np.unique(codes, return_index=True)[1]
        texts = [np.asarray(uniques, dtype=object)[level[first]] for level, (_, uniques) in zip(levels, factored)]
        labels = tuple(", ".join(f"{c}={v}" for c, v in zip(config, u)) for u in zip(*texts))
    else:
        codes, labels = design.agent.astype(np.intp), tuple(design.agents)
        levels = []
    # seeds are values, as config levels are: 0 and 0.0 one seed (a duplicate run), ordered by their texts
    seed_codes, seed_texts = _text_ordered_levels(design.extra[parsed.replicate])
    frame = pd.DataFrame({"t": design.task, "a": design.agent, "c": codes, "s": seed_codes})
    repeated = frame.duplicated(keep=False).to_numpy()
    if repeated.any():
        i = int(np.flatnonzero(repeated)[0])
        # a sweep's configurations given without config= (audit s32: 50 LunarLander configurations x 10 seeds read as
        # one configuration 'PPO'): the columns that would tell its runs apart
        columns = _separating_columns(data, parsed, config)
        way = ""
        if columns:
            first = [*config, *columns[0]] if isinstance(columns[0], list) else [*config, columns[0]]
            way = (f"; {'these rows look like several configurations' if not config else 'config= looks too coarse'}: "
                   f"pass config={(first[0] if len(first) == 1 else first)!r}"
                   + (f" (columns that tell them apart: {fmt.listed([repr(c) for c in columns], 5)})"
                      if len(columns) > 1 else ""))
        raise DesignError(f"seed {seed_texts[seed_codes[i]]!r} appears more than once for "
                          f"{arm_label(design.formula, design.agents[design.agent[i]])} on "
                          f"{block_label(design.formula, design.tasks[design.task[i]])} with "
                          f"configuration {labels[codes[i]]!r} "
                          f"({int(repeated.sum())} such rows); each run needs its own seed within a configuration"
                          + way)
    held = np.zeros(design.nobs, dtype=bool)
    if holdout is not None:
        raw = pd.Series(design.extra[holdout])
        if not (pd.api.types.is_bool_dtype(raw) or set(pd.unique(raw)) <= {0, 1}):
            raise DesignError(f"holdout= column '{holdout}' must be True/False (True for evaluation runs kept out "
                              f"of tuning), got values {pd.unique(raw)[:5].tolist()}")
        held = raw.astype(bool).to_numpy()
    w = None
    if weights is not None:
        w = pd.to_numeric(pd.Series(design.extra[weights]), errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(w).all() or (w < 0).any():
            raise DesignError(f"weights= column '{weights}' must hold finite non-negative numbers")
    y = design.y if higher else -design.y
    sweeps = {}
    for (t, a) in sorted(set(zip(design.task.tolist(), design.agent.tolist()))):
        here = np.flatnonzero((design.task == t) & (design.agent == a))
        order = here[_run_order(codes[here], y[here], seed_codes[here])]
        tune, evaluate = order[~held[order]], order[held[order]]
        if tune.size == 0:
            raise DesignError(f"{arm_label(design.formula, design.agents[a])} on "
                              f"{block_label(design.formula, design.tasks[t])} has no tuning runs "
                              f"(every run has {holdout}=True)")
        ids, starts, sizes = np.unique(codes[tune], return_index=True, return_counts=True)
        sweep = {"values": y[tune].astype(float), "starts": starts, "sizes": sizes, "ids": ids,
                 "levels": np.array([lv[tune][starts] for lv in levels]).T.reshape(len(ids), len(levels))}
        if w is not None:
            first = w[tune][starts]
            # each configuration's largest and smallest weight (its mean can equal its first weight while it varies),
            # relatively: weights are relative, so their units must not decide (an absolute tolerance passed 1e-9, 0)
            if not np.allclose(np.maximum.reduceat(w[tune], starts), np.minimum.reduceat(w[tune], starts), atol=0):
                raise DesignError(f"weights= column '{weights}' varies within a configuration (agent "
                                  f"'{design.agents[a]}', task '{design.tasks[t]}'); give one weight per configuration")
            sweep["weights"] = first
        if evaluate.size:
            sweep["held_out"] = {int(c): y[evaluate][codes[evaluate] == c] for c in np.unique(codes[evaluate])}
        sweeps[t, a] = sweep
    return sweeps, labels


def _run_order(codes, scores, seed_codes):
    """The order of a sweep's runs: by configuration, and a configuration's runs by their (oriented) scores, so that
    which draw falls on which run depends on the runs alone, not on their seeds' names (audit s33 curvestream33:
    renaming the seeds alike everywhere moved the tuned score); runs that tie are the same score, whatever their
    order (the seeds' order keeps it fixed)."""
    return np.lexsort((seed_codes, scores, codes))


def _raw_scales(design, sweeps, normalize, configured):
    """``design`` with the raw-scales caution of :func:`rlstats.normalization.warn_raw_scales` (a warning and a note)
    read on what the expected max averages over tasks: each configuration's mean over its seeds (the unit), as
    bootstrap() reads the same rows through '| task/<config>/seed'; without config= the agent is the configuration
    and its seeds the runs. Audit s30: the seeds' ranges were read, Dierkes et al.'s PPO on ant and lunar 9.8 times
    apart (no caution) where the configurations' means, which the mean over tasks adds, are 28 times apart. The mean
    is printed as a level ("averaged over tasks: k=1: 3726"), so tasks whose scores lie apart are cautioned too
    (location "level"; audit s32 scale32: PPO's ant, humanoid and lunar, ranges 8.7 times apart at most, lunar's
    configurations 205-463 and ant's 5,925-8,179)."""
    if not configured:
        return warn_raw_scales(design, normalize, location=["level"])
    keys = list(sweeps)
    means = [kernels.config_means(sweeps[key]["values"], sweeps[key]["starts"], sweeps[key]["sizes"]) for key in keys]
    sizes = [m.size for m in means]
    unit = dataclasses.replace(design, y=np.concatenate(means), task=np.repeat([t for t, _ in keys], sizes),
                               agent=np.repeat([a for _, a in keys], sizes))
    caution = warn_raw_scales(unit, normalize, location=["level"],  # ranges: the sign of the values is moot
                              read=f"of all {fmt.plural(design.arm_word)}' configuration means over their seeds"
                              ).notes[len(design.notes):]
    return dataclasses.replace(design, notes=(*design.notes, *caution)) if caution else design


def _label_digits(design, config):
    """For each floating-point ``config`` column, the fewest significant digits (3 or more) that keep its values apart
    over every configuration of the data (:func:`rlstats.format.digits_apart`): the printed labels' ("lr=1.87e-05",
    not "lr=1.873817422860383e-05"; new-user trial s38); a column of integers, texts or other values as written."""
    out = {}
    for column in config:
        values = pd.Series(design.extra[column])
        if pd.api.types.is_float_dtype(values.dtype):
            out[column] = fmt.digits_apart(values.to_numpy(dtype=float, na_value=np.nan))
    return out


def _text_ordered_levels(values):
    """``(codes, texts)`` of a config column: one level per distinct value (0 and 0.0 are one setting, as pandas'
    equality has it), named by the first in sorted order of its values' texts (not the first met: the rows' order
    would name it), coded in the sorted order of the levels' texts; by text alone where values are unhashable."""
    series = pd.Series(values)
    try:
        codes, _ = pd.factorize(series, sort=False)
    except TypeError:  # unhashable settings (dicts): their texts are the levels
        return pd.factorize(series.astype(str), sort=True)
    texts = series.astype(str).groupby(codes, sort=True).min().to_numpy(dtype=object)
    order = np.argsort(texts, kind="stable")
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return rank[codes], texts[order]


def _flat_sweeps(design, sweeps):
    """(tasks, agents) bool: the sweeps whose configurations' runs do not vary (every configuration's runs tie, within
    the sweep's tie tolerance, ``kernels.sweep_tolerance``), where a tuned-score interval or an expected-max band
    would be one point: withheld, as rlstats.bootstrap withholds such intervals (audit s8)."""
    flat = np.zeros((design.n_tasks, design.n_agents), dtype=bool)
    for (t, a), sweep in sweeps.items():
        v, starts = sweep["values"], sweep["starts"]
        ranges = np.maximum.reduceat(v, starts) - np.minimum.reduceat(v, starts)  # no squares: tiny units stay
        flat[t, a] = bool((sweep["sizes"] > 1).any()) and not ranges.max() > kernels.sweep_tolerance(v)
    return flat


def _flat_note(design, flat, what):
    """The note of the outputs ``what`` withheld in the sweeps of ``flat``."""
    cells = [f"{design.tasks[t]}/{design.agents[a]}" for t, a in zip(*np.nonzero(flat))]
    shown = fmt.listed(cells, 5)
    return [f"{what} are withheld in {fmt.count(len(cells), 'sweep')} ({shown}): no configuration's runs vary there, "
            "and an interval of one point would say nothing of runs not yet seen; report the estimate with its runs, "
            "or add runs"] if cells else []


def _tied_sweeps(design, sweeps, runs=False):
    """(tasks, agents) bool: the sweeps whose configurations' means all tie (``runs``: whose runs all tie), within
    the sweep's tie tolerance (``kernels.sweep_tolerance`` of its runs): the complete algorithm's default interval
    reads the means alone, the two-stage bootstrap the runs, so either is one point there."""
    tied = np.zeros((design.n_tasks, design.n_agents), dtype=bool)
    for (t, a), sweep in sweeps.items():
        v = sweep["values"] if runs else kernels.config_means(sweep["values"], sweep["starts"], sweep["sizes"])
        tied[t, a] = not np.ptp(v) > kernels.sweep_tolerance(sweep["values"])
    return tied


def _tied_note(design, tied, runs):
    """The note of the complete-algorithm intervals withheld in the sweeps of ``tied`` (:func:`_tied_sweeps`)."""
    cells = [f"{design.tasks[t]}/{design.agents[a]}" for t, a in zip(*np.nonzero(tied))]
    what = "runs all tie" if runs else "configurations' means all tie"
    return [f"complete-algorithm intervals are withheld in {fmt.count(len(cells), 'sweep')} ({fmt.listed(cells, 5)}): "
            f"the {what} there, and an interval of one point would say nothing of configurations not yet drawn; "
            "report the estimate with its configurations, or add configurations"] if cells else []


def _spread(sweep):
    """Standard deviation of each configuration's runs (NaN with one run)."""
    v, starts, sizes = sweep["values"], sweep["starts"], sweep["sizes"]
    means = kernels.config_means(v, starts, sizes)
    squares = np.add.reduceat((v - np.repeat(means, sizes)) ** 2, starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        return means, np.where(sizes > 1, np.sqrt(squares / np.maximum(sizes - 1, 1)), np.nan)


def _sweep_stream(design, ss):
    """(which, task code, agent code) -> the SeedSequence of a sweep's draws of kind ``which`` (0: the best set's; 1,
    2: the complete view's), keyed by its agent's label and then its task's (resampling.agent_seed_sequence), so a
    sweep's resamples are its own rows' whatever the other agents and tasks in the data, their names or their order
    (audit s32 stream32: keyed by their places among the names, b_sac's best-set probabilities on ant moved from
    0.94 to 0.855 when another agent was left out)."""
    agents, tasks = design.agents, design.tasks
    return lambda which, t, a: cell_seed_sequence(agent_seed_sequence(child_stream(ss, which), agents[a]), tasks[t])


def _sweep_best_set(n_resamples, job):
    """One sweep's best-set resamples (``kernels.best_set``), from the sweep's own stream: a unit of work."""
    values, starts, sizes, seed = job
    return kernels.best_set(values, starts, sizes, seed, n_resamples, with_ties=True)


def _best_set(design, sweeps, labels, ss, n_resamples, threshold, level, sign, has_holdout, notes, lower="pooled",
              where=1, shown=str):
    from scipy.special import stdtrit  # Student's t quantile, without scipy.stats' import time

    rows, tuned = [], []
    stream = _sweep_stream(design, ss)
    jobs = [(sweep["values"], sweep["starts"], sweep["sizes"], stream(0, t, a))
            for (t, a), sweep in sweeps.items()]
    drawn = map_ordered(functools.partial(_sweep_best_set, n_resamples), jobs, where)
    # the fewest seeds of a configuration of each sweep (a sweep of one configuration selects nothing: its probability
    # 1 and optimism 0 need no resampling, so it counts as seeded)
    fewest = np.zeros((design.n_tasks, design.n_agents), dtype=np.intp)
    for (t, a), sweep in sweeps.items():
        fewest[t, a] = sweep["sizes"].min() if sweep["sizes"].size > 1 else max(2, int(sweep["sizes"].max()))
    seeded = verdict("tuning", fewest, outputs=["best_set"], agents=design.agents, tasks=design.tasks,
                     words=design.words)
    unseen = seeded.mask("best_set", fewest.shape)
    notes += [_one_seed_named(line, design, sweeps, labels, unseen, shown) for line in seeded.lines]
    wider = []  # the sweeps whose tuned interval takes the pooled spread (audit s35 claims35)
    for ((t, a), sweep), (probability, best_resampled, winner, reached) in zip(sweeps.items(), drawn):
        means, spread = _spread(sweep)
        selected = int(np.flatnonzero(best_of(means))[0])  # the first of the tied best (np.argmax, ties kept)
        corrected, low, high, optimism = kernels.tuned_interval(means, sweep["sizes"], spread, selected,
                                                                best_resampled, winner, level, lower)
        # larger beyond rounding: where the two are one number (every configuration's spread alike) a units change
        # must not make a note (the metamorphic test at 1e-150)
        if np.isfinite(high) and not unseen[t, a] and \
                kernels.pooled_sd(sweep["sizes"], spread) > spread[selected] * (1 + 1e-9):
            wider.append(f"{design.agents[a]} on {design.tasks[t]}: the sweep's pooled standard deviation "
                         f"{fmt.signif(kernels.pooled_sd(sweep['sizes'], spread), 3)} (over "
                         f"{fmt.count(means.size, 'configuration')}), not the selected configuration's own "
                         f"{fmt.signif(spread[selected], 3)} (over its {fmt.count(int(sweep['sizes'][selected]), 'seed')})")
        if unseen[t, a]:  # a configuration of one seed: resampled as certain (the tuned interval is withheld too)
            probability, corrected, optimism, low, high = np.full(means.size, np.nan), np.nan, np.nan, np.nan, np.nan
            reached = np.full(means.size, np.nan)
        # best or tied for best in at least threshold of the resamples (ties share the probability, not membership)
        in_set = (reached >= threshold) & ~np.isnan(probability)
        for g in np.flatnonzero((probability > 0) | (np.arange(means.size) == selected)):
            rows.append((design.agents[a], design.tasks[t], labels[sweep["ids"][g]], sign * means[g],
                         spread[g], int(sweep["sizes"][g]), probability[g], reached[g],
                         # withheld with its probability (audit s27: False, "no", beside the winner's "selected")
                         None if unseen[t, a] else bool(in_set[g]), g == selected))
        row = {"agent": design.agents[a], "task": design.tasks[t], "config": labels[sweep["ids"][selected]],
               "n_configs": int(means.size), "n_runs": int(sweep["sizes"][selected]),
               "mean_selected": sign * means[selected], "optimism": optimism}
        row["estimate"] = sign * corrected
        row["conf_low"], row["conf_high"] = _ordered(sign * low, sign * high)
        row["n_best_set"] = np.nan if unseen[t, a] else int(in_set.sum())
        if has_holdout:
            held = sweep.get("held_out", {}).get(int(sweep["ids"][selected]))
            if held is None or held.size == 0:
                notes.append(f"{design.agents[a]} on {design.tasks[t]}: the selected configuration has no held-out "
                             "runs, so no honest estimate")
                row.update(heldout_estimate=np.nan, heldout_low=np.nan, heldout_high=np.nan, heldout_runs=0)
            else:
                m = float(held.mean())
                # runs that all tie give an interval of one point, which says nothing of runs not yet seen: withheld,
                # as the tuned-score intervals of such runs are (audit s11: three held-out runs at the cap, 1000)
                tied = held.size > 1 and not np.ptp(held) > kernels.sweep_tolerance(np.r_[sweep["values"], held])
                if tied:
                    notes.append(f"{design.agents[a]} on {design.tasks[t]}: the selected configuration's "
                                 f"{held.size} held-out runs do not vary (all {fmt.signif(sign * m)}), so their "
                                 "interval is withheld; report the estimate with its runs, or hold out more")
                half = (stdtrit(held.size - 1, 0.5 + level / 2) * held.std(ddof=1) / math.sqrt(held.size)
                        if held.size > 1 and not tied else np.nan)
                row.update(heldout_estimate=sign * m, heldout_runs=int(held.size),
                           **dict(zip(("heldout_low", "heldout_high"), _ordered(sign * (m - half), sign * (m + half)))))
        tuned.append(row)
    if wider:  # where the interval's width comes from, said where it is not the winner's own (audit s35 claims35:
        # LunarLander's tuned score +-103 beside its 10 seeds' SD of 1.9, the docstring alone saying why)
        ends = "both ends" if lower == "pooled" else "its upper end (tuned_lower='winner': the lower the winner's own)"
        notes.append("the tuned score's interval takes its width on " + ends + " from the larger of the selected "
                     "configuration's standard deviation and the sweep's pooled one, t times it over the square root of "
                     "its seeds (a few seeds of skewed or capped scores often understate the winner's spread; its "
                     "coverage was measured so" + ("; tuned_lower='winner' keeps the winner's own on the lower end"
                                                   if lower == "pooled" else "") + "): " + sweep_names(wider, 5))
    # the share best or tied for best beside the shared probability: the best set reads the first, so a member can
    # have a shared probability below the threshold (audit s34 tune34: members at 0.043-0.049 beside a 0.05 rule);
    # the members come first, by the share that admits them
    columns = ["agent", "task", "config", "estimate", "std_dev", "n_runs", "probability_best",
               "probability_best_or_tied", "in_best_set", "selected"]
    best = pd.DataFrame(rows, columns=columns).sort_values(
        ["task", "agent", "probability_best_or_tied", "probability_best"], ascending=[True, True, False, False],
        kind="stable")
    if best["in_best_set"].isna().any():  # withheld marks: pandas' nullable boolean, so best[best["in_best_set"]]
        best["in_best_set"] = best["in_best_set"].astype("boolean")  # still filters (review27a), as curves' marks
    # what the table's 1s of one configuration are, and what it leaves out (audit s34 tune34), said where it is made
    sizes = {(design.agents[a], design.tasks[t]): int(sweep["sizes"].size) for (t, a), sweep in sweeps.items()}
    single = one_configuration_sweeps(best, sizes)
    notes += ["best_set(): " + by_construction_text(single)] if single else []
    notes += [text for text in (best_set_note(best, sizes, n_resamples, threshold),) if text]
    selected_runs = np.zeros((design.n_tasks, design.n_agents), dtype=np.intp)
    for row in tuned:
        selected_runs[design.tasks.index(row["task"]), design.agents.index(row["agent"])] = row["n_runs"]
    needs = verdict("tuning", selected_runs, outputs=["tuned_interval"], agents=design.agents, tasks=design.tasks,
                    words=design.words)
    notes += needs.lines
    tuned = pd.DataFrame(tuned)
    short = needs.mask("tuned_interval", selected_runs.shape)
    flat = _flat_sweeps(design, sweeps) & ~short
    notes += _flat_note(design, flat, "tuned-score intervals")
    short = short | flat
    for column in ("conf_low", "conf_high"):
        tuned.loc[[bool(short[design.tasks.index(t), design.agents.index(a)])
                   for t, a in zip(tuned["task"], tuned["agent"])], column] = np.nan
    return best.reset_index(drop=True), tuned


def _one_seed_named(line, design, sweeps, labels, unseen, shown=str):
    """The best-set note with the configurations of one seed named, per sweep (a few, then how many more), each
    label as ``shown`` prints it."""
    if not line.startswith("best-set probabilities"):
        return line
    named = []
    for (t, a), sweep in sweeps.items():
        if unseen[t, a]:
            # the first 5 as printed (fmt.listed counts the rest)
            ones = [shown(labels[i]) if k < 5 else "" for k, i in enumerate(sweep["ids"][sweep["sizes"] == 1])]
            named.append(f"{design.agents[a]} on {design.tasks[t]}: {fmt.listed(map(repr, ones), 5)}")
    return f"{line} (configurations of one seed: {sweep_names(named, 5)})"


def _ordered(low, high):
    return [min(low, high), max(low, high)] if np.isfinite(low) and np.isfinite(high) else [low, high]


def _sweep_resampled_max(n_resamples, job):
    """One sweep's resampled expected maxima and complete-algorithm values, from its own streams: a unit of work.

    The percentile band's seed resamples are drawn one chunk of rows at a time (the rows of one draw, bit for bit),
    each chunk reduced at once to the band's expected maxima; the complete view draws its own two-stage resamples
    (``kernels.complete_bootstrap``). Memory stays one chunk's whatever B and G.
    """
    v, starts, sizes, means, weights, w, seed, complete_seed = job
    kept = {key: [] for key in weights}
    # resampled means vary by (n - 1) / n of a mean's variance: widen their deviations to the unbiased one (at 3
    # seeds a plain bootstrap band is sqrt(2/3) as wide as it should be)
    widen = np.sqrt(sizes / np.maximum(sizes - 1, 1))
    if weights:
        for chunk in kernels.resampled_mean_chunks(v, starts, sizes, seed, n_resamples):
            chunk -= means  # in place, the operations of means + (chunk - means) * widen
            chunk *= widen
            chunk += means
            ordered = np.sort(chunk, axis=-1)
            for key, weight in weights.items():
                kept[key].append(kernels.weighted_order_sums(ordered, weight))
    out = {key: np.concatenate(parts) for key, parts in kept.items()}
    if w is not None:
        out["complete"] = kernels.complete_bootstrap(v, starts, sizes, w, widen, complete_seed, n_resamples)
    return out


def _resampled_views(design, sweeps, labels, ss, n_resamples, level, sign, budgets, views, notes, weighted, parsed,
                     band="skew_t", where=1, complete_interval="skew_t"):
    """Expected-max curves and the complete algorithm from one set of seed resamples per sweep (the complete view's
    default interval reads no resample: only ``complete_interval="two_stage"`` draws them)."""
    tail = (1 - level) / 2
    n_min = min(s["sizes"].size for s in sweeps.values())
    if budgets is not None:
        budgets = np.asarray(budgets)
        too_many = int(budgets.max())
        if too_many > n_min:
            (t, a), _ = min(sweeps.items(), key=lambda item: item[1]["sizes"].size)
            raise OptionError(f"budgets= goes up to {too_many} configurations, but a sweep has only {n_min} "
                              f"({design.agents[a]} on {design.tasks[t]}); give budgets of at most {n_min}")
    em_rows, curves, complete_rows, runs = [], {}, [], []
    common = kernels.budget_grid(n_min, budgets)  # the budgets every sweep allows: the mean over tasks
    if "expected_max" in views and design.n_tasks > 1 and budgets is None:
        notes += _common_budget_note(design, sweeps, n_min)
    fewest, total, configs = (np.zeros((design.n_tasks, design.n_agents), dtype=np.intp) for _ in range(3))
    for (t, a), sweep in sweeps.items():
        fewest[t, a], total[t, a] = sweep["sizes"].min(), sweep["sizes"].sum()
        configs[t, a] = kernels.effective_configurations(sweep.get("weights", np.ones(sweep["sizes"].size)))
    banded = verdict("tuning", fewest, outputs=[v for v in ("expected_max",) if v in views], agents=design.agents,
                     tasks=design.tasks, words=design.words)
    # the two-stage interval needs runs in the sweep, the default one configurations in effect (each need applies
    # under its complete_interval=)
    two_stage = complete_interval == "two_stage"
    spread = verdict("tuning", total if two_stage else configs, options={"complete_interval": complete_interval},
                     outputs=[v for v in ("complete",) if v in views], agents=design.agents, tasks=design.tasks,
                     words=design.words)
    notes += banded.lines + spread.lines
    no_band, no_complete = banded.mask("expected_max", fewest.shape), spread.mask("complete", total.shape)
    if "complete" in views:  # an interval of one point where what it resamples ties (audit s17)
        tied = _tied_sweeps(design, sweeps, runs=two_stage) & ~no_complete
        notes += _tied_note(design, tied, two_stage)
        no_complete = no_complete | tied
    if "expected_max" in views:
        flat = _flat_sweeps(design, sweeps) & ~no_band
        notes += _flat_note(design, flat, "expected-max bands")
        no_band = no_band | flat
    # one unit for every sweep's moments, so that the mean over tasks can sum them
    moments_unit = kernels.moment_unit(np.concatenate([s["values"] for s in sweeps.values()])) if sweeps else 1.0
    percentile = "expected_max" in views and band == "percentile"
    plans, jobs, stream = {}, [], _sweep_stream(design, ss)
    counted = band == "skew_t"  # the default band counts the runs' kurtosis in its degrees of freedom
    kurtosis = []  # (agent, task, the sweep's pooled excess kurtosis) where a printed band counted it
    for (t, a), sweep in sweeps.items():
        v, starts, sizes = sweep["values"], sweep["starts"], sweep["sizes"]
        means = kernels.config_means(v, starts, sizes)
        # the sweep's scores' range and largest |score|: a weighted mean of its configurations' means within their
        # rounding of 0 is 0 (audit s37 meta37: the expected maximum of 1 draw with replacement of means -1, 0, 1
        # printed 5.5511e-17, its weights ((i + 1) / n)^k - (i / n)^k rounded, and 5.4654e-23 x 1e-6)
        scale = spread_and_magnitude(float(np.min(v)), float(np.max(v)))
        agent, task = design.agents[a], design.tasks[t]
        ks = kernels.budget_grid(sizes.size, budgets)
        same = np.array_equal(ks, common)  # one task's grid is the common one: its curves serve the mean over tasks
        w = None
        if "complete" in views:
            w = sweep.get("weights", np.ones(sizes.size))
            if w.sum() == 0:
                raise DesignError(f"weights= are all 0 for {arm_label(design.formula, agent)} on "
                                  f"{block_label(design.formula, task)}")
        # the order-statistic weights, (K, G) each: once per sweep, whatever the number of resamples; the skew-t
        # band reads no resample, so without the complete view and the percentile band none is drawn
        weights = {(replace, grid): kernels.expected_max_weights(sizes.size, grid_ks, replace)
                   for replace in (False, True) for grid, grid_ks in (("ks", ks), ("common", common))
                   if percentile and (grid == "ks" or not same)}
        plans[t, a] = means, ks, same, w
        # the complete view's streams: the second and third children, keyed as the best set's
        jobs.append((v, starts, sizes, means, weights, w if two_stage else None, stream(1, t, a),
                     stream(2, t, a)))
    # each sweep's resamples where the engine runs them (rlstats.engines), in sweep order
    drawn = map_ordered(functools.partial(_sweep_resampled_max, n_resamples), jobs, where)
    for ((t, a), sweep), resampled_max in zip(sweeps.items(), drawn):
        v, starts, sizes = sweep["values"], sweep["starts"], sweep["sizes"]
        means, ks, same, w = plans[t, a]
        agent, task = design.agents[a], design.tasks[t]
        if "expected_max" in views:
            for replace, name in ((False, "without replacement"), (True, "with replacement")):
                if band == "percentile":
                    point = kernels.expected_max(means, ks, replace)
                    low, high = kernels.centred_band(point, resampled_max[replace, "ks"], tail)
                    curves[t, a, replace] = (point, resampled_max[replace, "ks"]) if same else \
                        (kernels.expected_max(means, common, replace), resampled_max[replace, "common"])
                else:
                    moments = kernels.expected_max_moments(v, starts, sizes, ks, replace, moments_unit, counted)
                    point = moments[0]
                    low, high = kernels.skew_t_band(point, *moments[1:], level, moments_unit)
                    curves[t, a, replace] = moments if same else \
                        kernels.expected_max_moments(v, starts, sizes, common, replace, moments_unit, counted)
                point = noise_free(point, *scale)
                if no_band[t, a]:
                    low, high = np.full_like(point, np.nan), np.full_like(point, np.nan)
                elif counted and not replace:
                    kurtosis.append((agent, task, kernels.sweep_excess_kurtosis(v, starts, sizes, moments_unit)))
                em_rows += [(agent, task, int(k), name, sign * p, *_ordered(sign * lo, sign * hi))
                            for k, p, lo, hi in zip(ks, point, low, high)]
        if w is not None:
            if no_complete[t, a]:
                low, high = np.nan, np.nan
            elif two_stage:
                low, high = np.nanquantile(resampled_max["complete"], [tail, 1 - tail])
            else:
                low, high = kernels.skew_t_band(*kernels.complete_moments(means, w), level)
            complete_rows.append((agent, task, sign * float(noise_free(w @ means / w.sum(), *scale)),
                                  *_ordered(sign * low, sign * high),
                                  int(sizes.size), int(sizes.sum())))
            share = w / w.sum()  # once: w.sum() for each configuration was quadratic in configurations
            runs += [(f"{agent} (complete)", task, labels[sweep["ids"][g]], sign * means[g], share[g])
                     for g in range(sizes.size)]
    if any(kappa > 0 for *_, kappa in kurtosis):
        notes.append(_kurtosis_note(kurtosis, len(sweeps)))

    em = None
    if "expected_max" in views:
        em = pd.DataFrame(em_rows, columns=["agent", "task", "budget", "sampling", "estimate", "conf_low",
                                            "conf_high"])
        if design.n_tasks > 1:
            em = pd.concat([em, _mean_over_tasks(design, curves, common, level, sign, no_band, band, moments_unit)],
                           ignore_index=True)
            # an agent missing from a task has no mean over tasks: say so, not only leave it out (audit s8)
            lacking = [(agent, [design.tasks[t] for t in range(design.n_tasks) if (t, a, False) not in curves])
                       for a, agent in enumerate(design.agents)]
            lacking = [(agent, tasks) for agent, tasks in lacking if tasks]
            if lacking:
                named = "; ".join(f"{agent} (no sweep on {fmt.listed(tasks, 3)})" for agent, tasks in lacking[:5])
                named += f"; and {len(lacking) - 5} more" if len(lacking) > 5 else ""
                notes.append(f"expected_max(): no mean over tasks for {named}: it needs the agent on every task; "
                             "its expected-max curves are given per task in expected_max()")
    complete = runs_frame = None
    if "complete" in views:
        complete = pd.DataFrame(complete_rows, columns=["agent", "task", "estimate", "conf_low", "conf_high",
                                                        "n_configs", "n_runs"])
        runs_frame = pd.DataFrame(runs, columns=[parsed.groups, parsed.blocks, parsed.replicate,
                                                 parsed.response if parsed.is_simple_response else "score",
                                                 "weight"])
        if weighted:
            notes.append("complete(): with weights= the rows of the complete algorithm are not equally likely; the "
                         "'weight' column says how likely each is, which other back ends do not read")
    return em, complete, runs_frame


def _common_budget_note(design, sweeps, n_min):
    """Where a sweep has more configurations than the smallest, the note that the mean over tasks stops at the
    smallest's size (audit s17: the tuning procedures' mean over tasks read as curves of k=1 alone, cut at the
    baseline's one configuration without a word)."""
    sizes = {}
    for (t, a), sweep in sweeps.items():
        sizes.setdefault(design.agents[a], []).append((design.tasks[t], int(sweep["sizes"].size)))
    larger = [(agent, [n for _, n in both]) for agent, both in sizes.items() if max(n for _, n in both) > n_min]
    if not larger:
        return []
    smallest = [f"{agent} on {fmt.join_and([task for task, n in both if n == n_min], 3)}"
                for agent, both in sizes.items() if any(n == n_min for _, n in both)]
    spans = [f"{agent}: {min(n)}" if min(n) == max(n) else f"{agent}: {min(n)} to {max(n)}" for agent, n in larger]
    return [f"expected_max(): the mean over tasks is given at budgets up to {n_min}, the fewest configurations of a "
            f"sweep ({'; '.join(smallest[:3])}{'; and more' if len(smallest) > 3 else ''}), so that every agent is "
            f"compared at the same budgets; each sweep's own curve, up to its number of configurations "
            f"({'; '.join(spans[:3])}{'; and more' if len(spans) > 3 else ''}), is in expected_max()"]


def _kurtosis_note(kurtosis, n_sweeps):
    """What the default band did with the runs' tails: how much the sweeps' excess kurtosis widened it.

    ``kurtosis`` holds the sweeps whose band was printed, of ``n_sweeps`` analysed: where some band was withheld the
    count says it is of the sweeps with a band (audit s30 design30: "above 0 in 5 of 12 sweeps" of 18 sweeps)."""
    heavy = [(agent, task, kappa) for agent, task, kappa in kurtosis if kappa > 0]
    # the first sweep of those within the package's tie tolerance of the largest: sweeps whose kurtosis ties but for
    # rounding are one value (audit s37 meta37: two sweeps of 2.24 named one or the other as the score's units rounded
    # them), by the tie rule, not by their printed digits (review s37 rv37a: 2.245 - 4e-16 and 2.245 + 4e-16 print
    # 2.24 and 2.25, and the units chose the sweep; 2.241 and 2.244, apart, both print 2.24 and named the first)
    values = np.array([k for _, _, k in kurtosis])
    largest = float(values.max())
    tolerance = float(tie_tolerance(np.ptp(values), abs(largest)))
    agent, task, kappa = next(h for h in heavy if h[2] >= largest - tolerance)
    what = "the configurations' mean k4 / k2^2, floored at 0"
    banded = len(kurtosis) < n_sweeps
    of = (f"the {len(kurtosis)} sweeps with a band" if banded else fmt.count(len(kurtosis), 'sweep'))
    value = (f"{kappa:.3g}, {what}" + (f", in the one sweep with a band ({agent} on {task})" if banded else "")
             if len(kurtosis) == 1 else
             f"{what}: above 0 in {len(heavy)} of {of}, up to {kappa:.3g} ({agent} on {task})")
    return (f"expected_max(): the band's degrees of freedom count the runs' excess kurtosis ({value}): "
            f"1/df = 1/(n - 1) + kurtosis/(2n) per configuration, a wider band than normal theory's n - 1 "
            f"(band='skew_t_normal' keeps n - 1)")


def _mean_over_tasks(design, curves, ks, level, sign, no_band, band="skew_t", moments_unit=1.0):
    """Each agent's expected max averaged over tasks, at the budgets every sweep allows (none for an agent whose band
    is withheld on some task): the percentile band resamples each task; the skew-t band sums the tasks' independent
    moments (variance over T^2, third cumulant over T^3), all in one ``moments_unit``."""
    tail = (1 - level) / 2
    rows = []
    for replace, name in ((False, "without replacement"), (True, "with replacement")):
        for a, agent in enumerate(design.agents):
            here = [t for t in range(design.n_tasks) if (t, a, replace) in curves]
            if len(here) < design.n_tasks:
                continue  # an agent missing from a task has no mean over tasks
            point = np.mean([curves[t, a, replace][0] for t in here], axis=0)
            if band == "percentile":
                resampled = np.mean([curves[t, a, replace][1] for t in here], axis=0)
                low, high = kernels.centred_band(point, resampled, tail)
            else:
                T = len(here)
                parts = [np.sum([curves[t, a, replace][j] for t in here], axis=0) / T ** p
                         for j, p in ((1, 2), (2, 4), (3, 3))]
                low, high = kernels.skew_t_band(point, *parts, level, moments_unit)
            if no_band[:, a].any():
                low, high = np.full_like(point, np.nan), np.full_like(point, np.nan)
            rows += [(agent, plots.MEAN_OVER_TASKS, int(k), name, sign * p, *_ordered(sign * lo, sign * hi))
                     for k, p, lo, hi in zip(ks, point, low, high)]
    return pd.DataFrame(rows, columns=["agent", "task", "budget", "sampling", "estimate", "conf_low", "conf_high"])


def _sensitivity(design, sweeps, config, percentiles, fraction, sign, notes):
    if design.n_tasks < 2 or not config:
        # name only what these data lack: the config= columns, a second task, or both
        lacking = ([] if config else ["config= columns (the hyperparameters)"]) + (
            [f"at least two tasks (these data have one, {design.tasks[0]!r})"] if design.n_tasks < 2 else [])
        notes.append(f"sensitivity() needs {' and '.join(lacking)}; not computed")
        return None, None
    y = np.concatenate([s["values"] for s in sweeps.values()])
    task = np.concatenate([np.full(s["values"].size, t) for (t, _), s in sweeps.items()])
    if percentiles is None:
        normalised = y  # the caller's scores are on one scale already
        notes.append("sensitivity: the scores were used as given (percentiles=None), not percentile-normalised")
    else:
        normalised, ranged, tied = kernels.percentile_normalise(y, task, design.n_tasks, percentiles)
        low, high = (fmt.signif(p) for p in percentiles)
        for tasks, how in ((ranged, "its smallest and largest runs were mapped to 0 and 1 instead"),
                           (tied, "its runs all tie, so they were all mapped to 0 and it cannot tell configurations "
                                  "apart")):
            if tasks:
                named = fmt.listed([repr(design.tasks[t]) for t in tasks], 5)
                tasks_word = "tasks" if len(tasks) > 1 else "task"
                notes.append(f"sensitivity: the {low}th and {high}th percentiles of {tasks_word} {named} coincide "
                             f"(most runs at one score, such as a cap): {how}")
    rows, subsets = [], []
    offset = 0
    per_agent = {}
    for (t, a), sweep in sweeps.items():
        n = sweep["values"].size
        g = kernels.config_means(normalised[offset:offset + n], sweep["starts"], sweep["sizes"])
        offset += n
        per_agent.setdefault(a, {})[t] = dict(zip(sweep["ids"].tolist(), zip(g, map(tuple, sweep["levels"]))))
    for a, by_task in per_agent.items():
        if len(by_task) < design.n_tasks:
            notes.append(f"sensitivity: agent '{design.agents[a]}' lacks runs on some task; left out")
            continue
        shared = sorted(set.intersection(*(set(d) for d in by_task.values())))
        dropped = max(len(d) for d in by_task.values()) - len(shared)
        if not shared:
            notes.append(f"sensitivity: agent '{design.agents[a]}' has no configuration run on every task; left out")
            continue
        if dropped:
            notes.append(f"sensitivity: {fmt.count(dropped, 'configuration')} of agent '{design.agents[a]}' not run "
                         "on every task: they count for the per-task tuned score only")
        gamma = np.array([[by_task[t][c][0] for c in shared] for t in range(design.n_tasks)])
        factors = np.array([by_task[0][c][1] for c in shared]).reshape(len(shared), len(config))
        # per-task tuning picks from every configuration run on the task, those missing elsewhere too (Adkins et al.)
        task_best = [max(score for score, _ in by_task[t].values()) for t in range(design.n_tasks)]
        per_task, cross_task, scores, dimension = kernels.sensitivity(gamma, factors, fraction, task_best)
        rows.append((design.agents[a], per_task - cross_task, per_task, cross_task, dimension, len(shared)))
        subsets += [(design.agents[a], ", ".join(config[j] for j in S) or "(none)", len(S), score)
                    for S, score in scores]
    if not rows:  # every agent left out: no view, as with one task (an empty one was printed under its heading)
        notes.append("sensitivity() not computed: no agent has runs on every task with a configuration run on all of "
                     "them (the notes above say which agent lacks what)")
        return None, None
    if sign < 0:
        notes.append("sensitivity: scores were negated first (higher_is_better=False), so the normalised scale "
                     "has 1 for the best")
    return (pd.DataFrame(rows, columns=["agent", "sensitivity", "per_task_tuned", "cross_task_tuned",
                                        "effective_dimension", "n_configs"]),
            pd.DataFrame(subsets, columns=["agent", "tuned_per_task", "n_tuned", "estimate"]))
