"""Performance percentiles: game-theoretic aggregation across tasks (Jordan et al. 2020).

``percentiles(df, "score ~ agent | task")`` gives each agent one aggregate
score on [0, 1] with simultaneous confidence intervals and rank ranges:

1. payoffs ``A[i, j, k]``: the mean percentile of agent i's runs on task j in
   the score distribution of reference agent k (ties count as wins), with
   ``A[i, j, i] = 0.5``;
2. a two-player game: the agent player picks an agent, the adversary picks a
   (task, reference agent) pair; its alpha-Rank-style solution is the
   stationary distribution of a PageRank-damped Markov chain over joint
   strategies (one linear solve, no Nash equilibrium);
3. the aggregate ``y_i = sum_{j,k} q*_{j,k} A[i, j, k]``, with q* the
   adversary's marginal.

Intervals: ``"pbp"`` (performance bound propagation, valid for bounded
scores), ``"pbp_t"`` (Student-t payoff intervals, heuristic) or
``"bootstrap"`` (percentile bootstrap re-solving the game per resample,
heuristic).  The numbers come from :mod:`rlstats.methods.percentiles._kernels`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd

from ... import calibration
from ...bounds import check_bounds
from ...design import NA_ACTIONS, check_agent_named, design_of, public_function
from ...cost import admit, shows
from ...engines import one_blas_thread
from .._replication import verdict
from ...errors import (MAX_EXTRA_KEYS, OptionError, agent_named, as_given, check_key_count, label_value, labels_keyed,
                       shown, warn)
from ...format import count, join_and, listed, name_list, names_shown, plural, signif, verb
from ...options import (check_bool, check_choice, check_cost_options, check_fraction, check_n_jobs, check_resamples,
                       is_finite_number)
from ...progress import progress_bar
from ...statistics import near_tie_note, near_tied_blocks, near_ties
from ...resampling import check_rng, seed_sequence
from . import _kernels as kernels
from ._backend import cost
from ._result import _REFERENCE, _SHORT_NAMES, PercentilesResult
from ..._typing import Data, EvalEnv, FormulaLike, Label, NaAction, PercentileTies, Seed

INTERVALS = ("pbp", "pbp_t", "bootstrap")
#: ``interval=`` for type checkers: INTERVALS as a Literal (None for none; tests/test_typing_user.py keeps them equal)
PercentileInterval = Literal["pbp", "pbp_t", "bootstrap"]
#: The intervals' procedure in the package table (rlstats/calibration.csv, tests/reference/calibrate.py): the
#: simultaneous coverage of nominal 95% intervals on designs of k agents x T tasks of normal, skewed, heavy-tailed
#: and capped scores (tests/reference/designs.py), per interval, runs per cell and distribution.
CALIBRATION = "percentiles.interval"
CALIBRATION_LEVEL = 0.95
#: Measured coverage below which an interval is quoted even within 3 Monte Carlo SE of the level.
COVERAGE_FLOOR = {"bootstrap": 0.94}
_INTERVAL_NAMES = {"pbp": "PBP", "pbp_t": "Student-t payoff intervals", "bootstrap": "the percentile bootstrap"}
TIES = ("le", "mid")



# ----------------------------------------------------------------------------- options


def _check_real(name, value):
    if not is_finite_number(value):
        raise OptionError(f"{name} must be a finite number, got {shown(value)}")
    return float(value)


def _check_bounds(bounds):
    """None, a (low, high) pair for every task (None for a side: the observed one; rlstats.bounds checks it, and
    the Design carries it), or a dict task -> (low, high)."""
    if bounds is None or (isinstance(bounds, str) and bounds == "observed"):
        return None
    if isinstance(bounds, Mapping):  # keys as given, read against the tasks with the data (_run; review s31: made
        # text here, {3: .., "3": ..} kept one of two silently and 7.0 named no task 7)
        if len(bounds) > MAX_EXTRA_KEYS:  # its size is read against the data's tasks first (_bounds_labelled)
            return _Unchecked(bounds)
        return _checked_pairs(bounds)
    try:
        return check_bounds(bounds)
    except OptionError as error:
        raise OptionError(f"{error} (or \"observed\", or a dict {{task: (low, high)}})") from None


class _Unchecked(dict):
    """``bounds=`` of more keys than :data:`rlstats.errors.MAX_EXTRA_KEYS`: its pairs are checked once its size is
    read against the data's tasks (:func:`_bounds_labelled`; audit s38 loud38: 10**6 pairs took 3.5 s to check before
    the keys were counted)."""


def _checked_pairs(bounds):
    return {label_value("bounds", task, what="task"): _check_pair(f"bounds[{as_given(task)}]", pair)
            for task, pair in bounds.items()}


def _check_pair(name, pair):
    try:
        low, high = pair
    except (TypeError, ValueError):
        raise OptionError(f"{name} must be a (low, high) pair of numbers, \"observed\" or a dict "
                          f"{{task: (low, high)}}, got {pair!r}") from None
    low, high = _check_real(f"{name} low", low), _check_real(f"{name} high", high)
    if not low < high:
        raise OptionError(f"{name} = ({low}, {high}): low must be smaller than high")
    return low, high


def _check_identical(identical):
    if identical is None:
        return None
    if not isinstance(identical, Iterable) or isinstance(identical, str):
        raise OptionError(f"identical must be a list of (agent_a, agent_b, task) triples, got {identical!r}")
    triples = []
    for item in identical:
        if not isinstance(item, (list, tuple)) or len(item) != 3:
            raise OptionError(f"identical must be a list of (agent_a, agent_b, task) triples, got {item!r}")
        triples.append(tuple(label_value("identical", x, what="agent or task") for x in item))  # read in the data
    return tuple(triples)


@dataclass(frozen=True)
class PercentilesOptions:
    interval: PercentileInterval | None = "pbp"
    delta: float = 0.05
    n_resamples: int = 10_000
    ties: PercentileTies = "le"
    self_payoff: float = 0.5
    bounds: object = None
    identical: tuple | None = None
    higher_is_better: bool = True
    na_action: NaAction = "raise"
    n_jobs: int = 1
    progress: bool = True

    @classmethod
    def checked(cls, **options: Any) -> PercentilesOptions:
        """Validate every option once; raises OptionError naming the bad one."""
        interval = options["interval"]
        if interval is not None:
            interval = check_choice("interval", interval, INTERVALS + (None,))
        delta = check_fraction("delta", options["delta"])
        if delta > 0.5:
            raise OptionError(f"delta must be at most 0.5 (Anderson's inequality needs delta <= 0.5), got {delta}; "
                              "delta is the total error probability, e.g. 0.05 for 95% simultaneous intervals")
        return cls(
            interval=interval, delta=delta,
            n_resamples=check_resamples(options["n_resamples"], minimum=2),
            ties=check_choice("ties", options["ties"], TIES),
            self_payoff=check_fraction("self_payoff", options["self_payoff"], open_interval=False),
            bounds=_check_bounds(options["bounds"]),
            identical=_check_identical(options["identical"]),
            higher_is_better=check_bool("higher_is_better", options["higher_is_better"]),
            na_action=check_choice("na_action", options["na_action"], NA_ACTIONS),
            n_jobs=check_n_jobs(options["n_jobs"]),
            progress=check_cost_options(options["progress"], options.get("max_seconds"))[0])


# ----------------------------------------------------------------------------- result


# ----------------------------------------------------------------------------- preparation


def _support(design, layout, bounds, higher_is_better):
    """Score bounds [a_j, b_j] per task (on the internal, higher-is-better scale) and their source."""
    low = np.minimum.reduceat(layout.values, layout.slot_start[:-1])
    high = np.maximum.reduceat(layout.values, layout.slot_start[:-1])
    if bounds is None and design.bounds is not None:  # a ready Design's, or a normaliser's
        bounds = design.bounds.record()
    if isinstance(bounds, (tuple, list)):  # one pair for every task; a missing side is the observed one
        given = {task: bounds for task in design.tasks}
        pairs = [(low[j] if bounds[0] is None else bounds[0], high[j] if bounds[1] is None else bounds[1])
                 if higher_is_better else
                 (-high[j] if bounds[0] is None else bounds[0], -low[j] if bounds[1] is None else bounds[1])
                 for j in range(design.n_tasks)]
        bounds = dict(zip(design.tasks, pairs))
        source = "given" if None not in given[design.tasks[0]] else "mixed"
        low, high, _ = _support(design, layout, bounds, higher_is_better)
        return low, high, source
    if bounds is None:
        return low, high, "observed"
    given = {task: bounds for task in design.tasks} if isinstance(bounds, tuple) else bounds  # keyed by label: _run
    out_low, out_high = low.copy(), high.copy()
    for j, task in enumerate(design.tasks):
        if task not in given:
            continue
        a, b = given[task]
        a, b = (a, b) if higher_is_better else (-b, -a)
        if a > low[j] or b < high[j]:
            shown = (low[j], high[j]) if higher_is_better else (-high[j], -low[j])
            raise OptionError(f"bounds for task {task!r} are ({given[task][0]}, {given[task][1]}) but its scores "
                              f"range from {shown[0]} to {shown[1]}; bounds must contain every score")
        out_low[j], out_high[j] = a, b
    source = "given" if len(given) == design.n_tasks else "mixed"
    return out_low, out_high, source


def _bounds_labelled(design, bounds):
    """``bounds=`` keyed by the tasks its keys name (errors.labels_keyed: 3, 3.0 and "3" name the task printed 3; two
    naming one task, or one naming none, an error), as the intervals read them and the options record them."""
    if not isinstance(bounds, Mapping):
        return bounds
    if isinstance(bounds, _Unchecked):
        check_key_count(design.tasks, "bounds", bounds)
        bounds = _checked_pairs(bounds)
    return labels_keyed(design.tasks, "bounds", bounds, where=f" in column '{design.formula.blocks}'")


def _identical_labelled(design, identical):
    """``identical=``'s triples as the design's labels (errors.label_named: (0, 1.0, 2) names agents 0 and 1 and task
    2), as the notes and the options record them (review s30: recorded as given, 1.0 where the agent is '1')."""
    if identical is None:
        return None
    labelled = []
    for a, b, task in identical:
        a, b = (check_agent_named(design, "identical", name, listed=True) for name in (a, b))
        task = agent_named(design.tasks, "identical", task, f" in column '{design.formula.blocks}'", listed=True,
                           what="task")
        labelled.append((a, b, task))
    return tuple(labelled)


def _identical_mask(design, identical):
    """(agents, tasks, agents) bool: the cells ``identical`` (the design's labels, :func:`_identical_labelled`) sets."""
    if identical is None:
        return None
    mask = np.zeros((design.n_agents, design.n_tasks, design.n_agents), dtype=bool)
    for a, b, task in identical:
        i, k, j = design.agents.index(a), design.agents.index(b), design.tasks.index(task)
        mask[i, j, k] = mask[k, j, i] = True
    return mask


def _prepared_design(design, options):
    design = design.require_complete(  # the data's columns by their names (audit s33 words33b)
        options.na_action, f"performance percentiles compare every {design.arm_word} against every other on every "
                           f"{design.block_word}")
    # the declared replication of the interval asked for: below it the design is refused
    verdict("percentiles", design.counts, options=options, agents=design.agents, tasks=design.tasks,
            words=design.words, formula=design.formula)
    return design


# ----------------------------------------------------------------------------- public function


@public_function
def percentiles(data: Data, formula: FormulaLike | None = None, *, interval: PercentileInterval | None = "pbp",
                delta: float = 0.05,
                n_resamples: int = 10_000, ties: PercentileTies = "le", self_payoff: float = 0.5,
                bounds: str | tuple[float | None, float | None] | Mapping[Any, tuple[float, float]] | None = None,
                identical: Sequence[tuple[Label, Label, Label]] | None = None, higher_is_better: bool = True,
                na_action: NaAction = "raise", rng: Seed = None, n_jobs: int = 1, progress: bool = True,
                max_seconds: float | None = None,
                eval_env: EvalEnv = None) -> PercentilesResult:
    """Aggregate agents across tasks with performance percentiles and a game (Jordan et al. 2020).

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run (an independent draw of the whole
        procedure evaluated); never modified.  Every agent needs runs on
        every task.
    formula : str or Formula
        ``"score ~ agent | task"``.  Seeds (``task/seed``) are only run ids:
        runs are not paired across agents.
    interval : {"pbp", "pbp_t", "bootstrap", None}
        Simultaneous intervals: performance bound propagation (the
        default: valid for bounded scores, and measured at its level from
        3 runs per cell on normal, skewed, heavy-tailed and capped scores
        with the observed bounds, at 2 to 8 agents and 1 to 26 tasks; wide
        below a few hundred runs per cell),
        PBP with Student-t payoff intervals (heuristic: at 2 agents x 1
        task it held every value in as few as half of the data sets), the
        percentile bootstrap (heuristic: with few runs per cell it
        undercovers), or none; the result quotes the measured coverage of
        the heuristics where it falls short
        (``tests/reference/coverage_percentiles.py``).
    delta : float
        Total error probability of the simultaneous intervals, in (0, 0.5];
        each agent x task cell gets delta' = delta / (n_agents n_tasks).
    n_resamples : int
        Bootstrap resamples (the paper uses 10,000: with fewer the percentile
        limits at delta'/2 are extreme order statistics).
    ties : {"le", "mid"}
        How a tie with a reference run counts: a win (the paper's convention)
        or half a win.  Scores of a task within its tie tolerance of each other
        (1e-12 of its range plus 4 rounding units of its largest absolute
        score, ``rlstats.statistics.tie_tolerance``) are ties (round-off, as in
        the rank methods; stated in the notes).
    self_payoff : float
        A[i, j, i], an agent measured against itself (0.5).
    bounds : None, "observed", (low, high) or dict
        Score bounds used by PBP and the per-task intervals: the pooled
        observed minimum and maximum of each task (default, data-dependent as
        in the reference code), one pair for every task, or
        ``{task: (low, high)}`` (other tasks observed).  Given on the scale of
        the response.
    identical : list of (agent_a, agent_b, task), optional
        Pairs whose complete definitions coincide on a task: their payoffs
        against each other are set to ``self_payoff`` (the reference code's
        override for its discrete tasks).
    higher_is_better : bool
        False negates the scores first.
    na_action : {"raise", "drop", "omit"}
        Missing values and agent x task cells without runs: an error, or
        drop those rows and leave out the tasks where some agent has no runs,
        and say so.
        ``"omit"`` (R's ``na.omit``) is the same as ``"drop"``.
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap resamples (recorded in the result).
    n_jobs : int
        Worker processes for the bootstrap (-1: all cores).  Results are
        identical whatever n_jobs is.
    progress : bool
        A progress bar (tqdm: on a terminal, or a notebook's widget) when the work is estimated to take more
        than a few seconds (:mod:`rlstats.cost`; none for fast calls); False: never.
    max_seconds : float, optional
        The most estimated seconds of work the call starts (None: an hour, ``rlstats.cost.MAX_SECONDS``); above
        it the call is an OptionError quoting the estimate. ``float("inf")``: no bound.
    eval_env : patsy.EvalEnvironment, optional
        Where the response expression's names are looked up.

    Returns
    -------
    PercentilesResult

    Raises
    ------
    FormulaError, DesignError, OptionError

    See Also
    --------
    rlstats.bootstrap : Aggregates of normalised scores instead of percentiles.
    rlstats.skillings_mack : A rank test of whether agents differ across tasks.

    Notes
    -----
    The score is an expected percentile against a reference mixture the
    adversary chooses, so the best agent typically scores near 0.5.  Adding
    or removing an agent changes every score: compare scores only within one
    analysis.

    Cost.  PBP and PBP-t bound each agent's aggregate by two robust
    problems (its upper and lower bound). Each is a policy iteration over
    the agents^2 x tasks joint strategies (agent, task, reference agent),
    so the bounds cost at least agents^3 x tasks. They grow faster in
    agents: each joint strategy has agents - 1 agent moves, and GMRES
    needs more steps a round, since its preconditioner leaves about one
    slow mode per agent. Measured in CPU seconds at 20 tasks x 10 runs
    (rounds s37-pbp and s38-pbp of ``benchmarks/README.md``), the bounds
    grow as about agents^2.4-2.6 from 5 to 10 agents, agents^3.4-3.6 from
    10 to 20 and agents^3.0 from 20 to 40. The whole call grows as
    agents^0.8-1.4 from 5 to 10 and agents^2.0 from 10 to 20, because its
    fixed cost dominates at 5 agents.
    The bounds grow about linearly in tasks (tasks^1.0-1.1 from 20 to 100
    at 10 agents; the call tasks^0.4-0.6). Runs enter only the payoff
    bounds: the call's exponent from 10 to 100 runs is 0.01-0.14.
    The problems cannot share their work exactly. Each problem's optimal
    rows follow the order of its own values, and its states do not merge
    across agents, because each agent's ties differ (its self payoff and
    intervals clipped to [0, 1]). ``interval="bootstrap"`` recomputes the
    point game for every resample: n_resamples x agents^2 x tasks x runs,
    quadratic in agents and linear in the rest. It is a heuristic that
    undercovers with few runs per cell. At 2 agents x 1 task, nominal 95%
    intervals held every true value in 0.58-0.70 of data sets at 3 runs a
    cell and 0.87-0.96 at 10.

    References
    ----------
    Jordan, S. M., Chandak, Y., Cohen, D., Zhang, M. and Thomas, P. S. (2020),
    Evaluating the Performance of Reinforcement Learning Algorithms, ICML:
    payoffs (Definition 2, eq. 2), transition matrix (eq. 5), aggregate as a
    value function (eq. 6, Lemma 3), PBP (Algorithms 1-3, eqs. 25 and 30),
    PBP-t (eq. 41) and the bootstrap (Appendix G).

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=10, effect=1.0, rng=0)
    >>> res = rlstats.percentiles(df, "score ~ agent | task", interval="pbp_t")
    >>> res.tidy()["rank"].tolist()
    [3, 2, 1]
    >>> round(float(res.task_weights["weight"].sum()), 12)
    1.0
    """
    options = PercentilesOptions.checked(
        interval=interval, delta=delta, n_resamples=n_resamples, ties=ties, self_payoff=self_payoff,
        bounds=bounds, identical=identical, higher_is_better=higher_is_better, na_action=na_action,
        n_jobs=n_jobs, progress=progress, max_seconds=max_seconds)
    check_rng(rng)  # a bad rng is an error even where the interval draws nothing (the default, asymptotic)
    pair = options.bounds if isinstance(options.bounds, tuple) else None  # checked, with the rows, by the Design
    design = _prepared_design(design_of(data, formula, na_action=options.na_action, eval_env=eval_env, bounds=pair),
                              options)
    work = admit(cost, design, options, max_seconds, "percentiles()")  # issue 43 item 2
    with one_blas_thread():  # many small LAPACK calls: threads only spin (rlstats.engines.one_blas_thread)
        return _run(design, options, rng, shows(work, options.progress))


def _run(design, options, rng, shown):
    """The intervals of the checked options; ``shown``: whether the bootstrap draws a bar."""
    n_a, n_e = design.n_agents, design.n_tasks
    options = replace(options, identical=_identical_labelled(design, options.identical),
                      bounds=_bounds_labelled(design, options.bounds))
    y = design.y if options.higher_is_better else -design.y
    layout = kernels.make_layout(y, design.agent, design.task, n_a, n_e)
    low, high, source = _support(design, layout, options.bounds, options.higher_is_better)
    # The game reads scores of a task within its tie tolerance (statistics.near_ties) as ties, as the rank methods do:
    # round-off (Atari 100k's 14.77 and 14.770000000000001) decided payoffs, and a shift of the scores moved them
    # (audit s12). The per-task means and the support stay those of the scores given.
    snapped, near = near_ties(y, design.task)
    played = kernels.make_layout(snapped, design.agent, design.task, n_a, n_e) if near else layout
    game_low, game_high, _ = _support(design, played, options.bounds, options.higher_is_better) if near \
        else (low, high, source)
    identical = _identical_mask(design, options.identical)
    game = {"ties": options.ties, "self_payoff": options.self_payoff, "identical": identical}
    delta_cell = options.delta / (n_a * n_e)

    payoff, _ = kernels.payoff_tensor(played, **game)
    d = kernels.stationary(payoff[None])[0]
    estimate = kernels.aggregate(payoff, d)
    d = d.reshape(n_a, n_e, n_a)

    # the game has no ranks, and a tie counts as ties= says (audit s17: "not a win" was printed under ties="le")
    counted = {"le": "a win for both", "mid": "half a win for each"}[options.ties] + f" (ties=\"{options.ties}\")"
    near_tasks = [design.tasks[t] for t in near_tied_blocks(y, snapped, design.task)]
    notes = list(design.notes) + ([near_tie_note(near, "in the payoffs", counted, near_tasks)] if near else [])
    intervals = _intervals(played, options, game, delta_cell, game_low, game_high, rng, notes, shown,
                           (design, snapped))
    conf_low, conf_high = intervals["bounds"]
    if options.interval in ("pbp", "pbp_t"):
        conf_low, conf_high = _holding_the_estimate(estimate, conf_low, conf_high, design.agents, notes)
    rank = kernels.competition_rank(estimate)
    rank_best = rank_worst = None
    if conf_low is not None:
        found = verdict("percentiles", design.counts, options=options, agents=design.agents, tasks=design.tasks,
                        outputs=("agent_intervals",), words=design.words,
                        formula=design.formula)
        unknown = found.mask("agent_intervals", (n_a,))
        # an interval of one point reads no spread (every run it rests on ties, the observed bounds one value):
        # withheld, as rlstats.bootstrap withholds such intervals (audit s8: all runs at a cap gave (0.75, 0.75))
        point = ~unknown & np.isclose(conf_low, conf_high, rtol=0.0, atol=1e-12)
        if point.any():
            named = name_list([a for a, p in zip(design.agents, point) if p], among=design.agents)
            starts = played.slot_start[:-1]
            if (np.minimum.reduceat(played.values, starts) == np.maximum.reduceat(played.values, starts)).all():
                way = ("); add runs" if source == "given" else
                       ", and its observed bounds are one value); pass bounds= with the scores' known limits"
                       + ("" if options.interval == "pbp" else " and interval='pbp'"))
                why = "the runs they rest on do not vary (every task's runs tie" + way
            else:  # runs that vary but never overlap: PBP-t's and the bootstrap's payoffs have no spread (audit s17)
                reads = {"pbp_t": "Student-t intervals read", "bootstrap": "resampling reads"}.get(options.interval,
                                                                                                  "the bounds read")
                why = ("every payoff they rest on has no spread (on every task each agent's runs lie all above, all "
                       f"below or at one percentile of each other agent's), which {reads} as certainty; "
                       + ("use interval='pbp', or add runs" if options.interval != "pbp" else "add runs"))
            notes.append(f"simultaneous intervals withheld for {named}: they would be one point, as {why}")
        unknown = unknown | point
        conf_low, conf_high = np.where(unknown, np.nan, conf_low), np.where(unknown, np.nan, conf_high)
        rank_best, rank_worst = kernels.rank_range(conf_low, conf_high, unknown=unknown)
        notes += found.lines
    notes += _caveats(design, options, layout, delta_cell, source, conf_low, conf_high)
    if options.identical:  # payoffs the caller set rather than the runs' (audit s17: printed nowhere)
        pairs = listed([f"{a} and {b} against each other on {task}" for a, b, task in options.identical], 6)
        notes.append(f"identical=: the payoffs of {pairs} were set to {signif(options.self_payoff)} (self_payoff), "
                     "not read from their runs")

    return PercentilesResult(
        method=f"Performance percentiles ({_REFERENCE}), {_SHORT_NAMES[options.interval]} intervals",
        formula=design.formula, data_name=design.data_name, nobs=design.nobs, notes=tuple(notes),
        options={**asdict(options), "identical": None if options.identical is None else list(options.identical)},
        seed=intervals["seed"], agents=design.agents, tasks=design.tasks, counts=design.counts,
        estimate=estimate, conf_low=conf_low, conf_high=conf_high, rank=rank, rank_best=rank_best,
        rank_worst=rank_worst, interval=options.interval, delta=options.delta, delta_cell=delta_cell,
        payoff=payoff, payoff_low=intervals["payoff_low"], payoff_high=intervals["payoff_high"], stationary=d,
        payoffs=_payoff_frame(design, payoff, intervals["payoff_low"], intervals["payoff_high"]),
        task_weights=pd.DataFrame({"task": list(design.tasks), "weight": d.sum(axis=(0, 2))}),
        reference_weights=_reference_frame(design, d),
        agent_weights=pd.DataFrame({"agent": list(design.agents), "weight": d.sum(axis=(1, 2))}),
        per_task=_per_task_frame(design, layout, payoff, d, delta_cell, low, high, options.higher_is_better),
        ecdf=_ecdf_frame(design, delta_cell, *((low, high) if options.higher_is_better else (-high, -low))),
        support_low=low if options.higher_is_better else -high,
        support_high=high if options.higher_is_better else -low, bounds_source=source,
        bootstrap_distribution=intervals["distribution"], n_resamples=intervals["n_resamples"],
        n_strategies=n_a * n_a * n_e, pbp_iterations=intervals["iterations"], ties=options.ties,
        self_payoff=options.self_payoff, higher_is_better=options.higher_is_better)


def _holding_the_estimate(estimate, conf_low, conf_high, agents, notes):
    """PBP's bounds widened to the estimate where they miss it, with a note naming the agents.

    The estimate is the percentile of the game of the observed payoffs, which lie inside every payoff interval, so a
    bound over all games in those intervals must hold it. The propagation's tie rule (an edge of eta / m where two
    payoff intervals are equal, as in the reference code) can miss it when the intervals are vacuous: at one run
    per cell every interval is [0, 1] and each agent's lower bound stayed above 0 (0.0089 against an estimate of
    0.0074, audit s14)."""
    tolerance = 1e-12
    below, above = estimate < conf_low - tolerance, estimate > conf_high + tolerance
    if below.any() or above.any():
        named = listed(names_shown([a for a, miss in zip(agents, below | above) if miss], among=agents), 8)
        notes.append(f"PBP's bounds of {named} did not hold the estimate (its tie rule, where payoff intervals are "
                     "equal, is no bound when they are as wide as [0, 1]): widened to hold it, as a bound over every "
                     "game in the payoff intervals must; read them as no evidence either way")
        conf_low, conf_high = np.minimum(conf_low, estimate), np.maximum(conf_high, estimate)
    return conf_low, conf_high


def _intervals(layout, options, game, delta_cell, low, high, rng, notes, shown, data):
    """The chosen interval and everything it produced (absent parts are None); ``data``: the design and its
    scores in the game's direction."""
    out = {"bounds": (None, None), "payoff_low": None, "payoff_high": None, "distribution": None,
           "n_resamples": None, "iterations": None, "seed": None}
    if options.interval in ("pbp", "pbp_t"):
        if options.interval == "pbp":
            z_lo, z_hi = kernels.pbp_payoff_bounds(layout, delta_cell, low, high, **game)
        else:
            z_lo, z_hi = kernels.pbp_t_payoff_bounds(layout, delta_cell, **game)
            notes += _zero_width_note(data[0], z_lo, z_hi, game["identical"])
        lo, hi, iterations = kernels.propagate_bounds(z_lo, z_hi, dense_limit=kernels.BATCH_DENSE_LIMIT)
        if (iterations >= kernels.PI_MAX_ITER).any():
            notes.append(f"policy iteration stopped at its limit of {kernels.PI_MAX_ITER} steps for "
                         f"{count((iterations >= kernels.PI_MAX_ITER).sum(), 'bound')}")
        out.update(bounds=(lo, hi), payoff_low=z_lo, payoff_high=z_hi, iterations=iterations)
    elif options.interval == "bootstrap":
        ss, seed = seed_sequence(rng)
        # resampled with the agents and tasks in their names' sorted order, not the design's (a Categorical's
        # category order), so that order does not change the draws; the aggregates come back in the design's order
        design, y = data
        agents, tasks = design.agent_places, design.task_places
        named = kernels.make_layout(y, agents[design.agent], tasks[design.task], design.n_agents, design.n_tasks)
        identical = game["identical"]
        if identical is not None:
            identical = np.empty_like(identical)
            identical[np.ix_(agents, tasks, agents)] = game["identical"]
        with progress_bar(options.n_resamples, shown, "bootstrap resamples") as advance:
            samples = kernels.bootstrap_aggregates(named, ss, options.n_resamples, n_jobs=options.n_jobs,
                                                   progress=advance, **{**game, "identical": identical})[:, agents]
        out.update(bounds=kernels.percentile_interval(samples, delta_cell), distribution=samples,
                   n_resamples=options.n_resamples, seed=seed)
        if options.n_resamples * delta_cell / 2 < 1:
            message = (f"with n_resamples = {options.n_resamples} and delta' = {signif(delta_cell, 3)} per cell, the "
                       f"percentile limits at delta'/2 fall between the two most extreme resamples; use at least "
                       f"{int(np.ceil(2 / delta_cell))} resamples for limits that are not extreme order statistics")
            warn(message)
            notes.append(message)
    return out


def _zero_width_note(design, z_lo, z_hi, identical):
    """PBP-t's payoff intervals of no width, named: a sample SD of 0 (an agent's runs all above, all below or at one
    percentile of a reference's) is read by the t interval as certainty (audit s17: 19 of MuJoCo's 60 payoffs)."""
    other = ~np.eye(design.n_agents, dtype=bool)[:, None, :] & (True if identical is None else ~identical)
    where = np.argwhere(other & (z_hi <= z_lo))
    if not len(where):
        return []
    n, total = len(where), int(np.broadcast_to(other, z_lo.shape).sum())
    named = listed([f"{design.agents[i]} on {design.tasks[j]} against {design.agents[k]}" for i, j, k in where], 4)
    return [f"{n} of {total} payoff intervals {verb(n, 'has')} zero width ({named}): every run of the "
            "agent lies at the same percentile of the reference's runs, which a Student-t interval reads as certainty; "
            "PBP's DKW bands (interval=\"pbp\") do not"]


def _separation_clause(conf_low, conf_high):
    """What PBP's note on wide intervals says of separating agents, true of this result: it said "PBP needs hundreds
    to thousands of runs per cell to separate agents" beside SAC's interval above TD3's at 192 runs (audit s21). It
    counts the pairs whose intervals are both shown and says how many were not judged, as the prose does (audit s22:
    the note counted those pairs, the prose every pair)."""
    if conf_low is None:
        return ""
    beats, n_pairs = kernels.separated_pairs(conf_low, conf_high)
    if not n_pairs:
        return ""
    n_agents = len(conf_low)
    withheld = n_agents * (n_agents - 1) // 2 - n_pairs
    shown = " whose intervals are both shown" if withheld else ""
    rest = (f" ({count(withheld, 'pair')} with an interval withheld {verb(withheld, 'is')} not judged)"
            if withheld else "")
    if not beats:
        which = (f"do not separate the one pair{shown}" if n_pairs == 1 else
                 f"separate none of the {n_pairs} pairs{shown}")
        return f": they {which} here{rest}; PBP needs hundreds to thousands of runs per cell to separate agents"
    which = (f"the one pair{shown}" if n_pairs == 1 else f"every pair{shown}" if len(beats) == n_pairs
             else f"{len(beats)} of the {n_pairs} pairs{shown}")
    return f": they separate {which} here{rest}; agents closer together need more runs per cell to be separated"


def _caveats(design, options, layout, delta_cell, source, conf_low=None, conf_high=None):
    notes = []
    if design.seeds is not None:
        notes.append(f"runs are treated as independent across {plural(design.arm_word)}: the replicate column "
                     f"'{design.formula.replicate}' is not used for pairing")
    if options.interval == "pbp":
        smallest = int(design.counts.min())
        eps = float(kernels.dkw_epsilon(smallest, delta_cell))
        if eps > 0.1:
            # which cells: the brief of audit s14 asks a note of a one-run cell to name it
            where = np.argwhere(design.counts == smallest)
            cells = "" if len(where) == design.counts.size else (
                " (" + listed([f"{design.tasks[t]}/{design.agents[a]}" for t, a in where], 6) + ")")
            # a CDF band is clipped to [0, 1]: a half-width above 1 was printed as it was ("is 1.72", audit s21)
            band = (f"half-width at delta' = {signif(delta_cell, 3)} is {eps:.3f}" if 0.995 <= eps < 1 else
                    f"half-width at delta' = {signif(delta_cell, 3)} is {eps:.2f}" if eps < 1 else
                    f"at delta' = {signif(delta_cell, 3)} is all of [0, 1] (its half-width would be more than 1)")
            notes.append(f"with {count(smallest, 'run')} in the smallest cell{cells} the DKW band {band}, so PBP "
                         f"intervals are wide{_separation_clause(conf_low, conf_high)}")
        if source != "given":
            notes.append(_observed_bounds_note(design, options.bounds))
    if options.interval == "bootstrap":
        notes += _bootstrap_caveats(design)
    coverage = _coverage_note(options.interval, int(design.counts.min()), design.n_agents, design.n_tasks)
    notes += [coverage] if coverage else []
    if not options.higher_is_better:
        notes.append("scores were negated (higher_is_better=False), so lower scores rank higher")
    return notes


def _observed_bounds_note(design, bounds):
    """Which of PBP's bounds were the observed scores: every task's, one side of every task's, or some tasks' (a
    sentence about every task's was printed for all three, audit s12)."""
    if bounds is None and design.bounds is not None:  # as _support reads them
        bounds = design.bounds.record()
    why = "(data-dependent, as in the reference code)"
    if isinstance(bounds, (tuple, list)):
        sides = [(side, limit) for given, side, limit in zip(bounds, ("minimum", "maximum"), ("lower", "upper"))
                 if given is None]
        if len(sides) == 1:
            (side, limit), = sides
            return (f"PBP used the observed {side} score of each {design.block_word} as its {limit} bound {why}; pass "
                    "both limits "
                    "in bounds= when the scores have known ones")
    elif isinstance(bounds, Mapping):
        observed = [task for task in design.tasks if task not in bounds]
        given = [task for task in design.tasks if task in bounds]
        which = design.block_word if len(observed) == 1 else plural(design.block_word)
        observed, given = (join_and(names_shown(tasks, design.tasks), limit=10) for tasks in (observed, given))
        return (f"PBP used the observed minimum and maximum score as the bounds of {which} {observed} {why}, and the "
                f"bounds given for {given}; pass bounds= for the others when their scores have known limits")
    return (f"PBP used the observed minimum and maximum score of each {design.block_word} as its bounds {why}; pass "
            "bounds= when the scores have known limits")


def _bootstrap_caveats(design):
    """Cells with a single run: the bootstrap shows none of their own spread. An agent's percentile on a task reads
    the other agents' runs, resampled there, so such a cell is not without spread (audit s38 claims38: "which adds no
    spread to the bootstrap intervals"; the refusal of one run everywhere says "only the other agents' spread")."""
    where = np.argwhere(design.counts == 1)
    if not len(where):
        return []
    # named as PBP's note names its smallest cells (audit s17)
    cells = listed([f"{design.tasks[t]}/{design.agents[a]}" for t, a in where], 6)
    return [f"{count(len(where), 'cell')} {verb(len(where), 'has')} a single run ({cells}): the bootstrap intervals "
            f"show the other {plural(design.arm_word)}' spread there, not {'its' if len(where) == 1 else 'their'} own"]


def _coverage_note(interval, smallest, agents, tasks):
    """The measured simultaneous coverage of ``interval`` where the calibration table shows it short of 95%, else None.

    The row is read at the measured runs counts up to ``smallest`` (the smallest count when ``smallest`` is below them
    all), from the design nearest to ``agents`` x ``tasks`` on a log scale (the larger on a tie: more intervals held
    at once), at its largest runs count, and of that design's rows (one per score distribution) the lowest; it is
    quoted when its coverage misses the level by more than 3 Monte Carlo standard errors (pooled or in its worst
    design draw, :func:`rlstats.calibration.misses`) or falls below the interval's ``COVERAGE_FLOOR``. Below the
    fewest or above the most runs simulated the note says so, quoting that row, rather than calling the runs few.
    """
    rows = [row for row in calibration.rows(CALIBRATION) if row["interval"] == interval]
    if not rows:
        return None
    fewest, most = min(int(row["runs"]) for row in rows), max(int(row["runs"]) for row in rows)
    rows = [row for row in rows if int(row["runs"]) <= max(smallest, fewest)]

    def distance(row):
        a, t = int(row["agents"]), int(row["tasks"])
        return float(np.hypot(np.log(a / agents), np.log(t / tasks))), -a * t, -int(row["runs"])

    nearest = distance(min(rows, key=distance))
    row = min((row for row in rows if distance(row) == nearest), key=lambda row: float(row["coverage"]))
    runs, coverage = int(row["runs"]), float(row["coverage"])
    scores = f" of {row['distribution'].replace('_', '-')} scores" if row.get("distribution") else ""
    if coverage >= COVERAGE_FLOOR.get(interval, 0.0) and calibration.shortfall([row], CALIBRATION_LEVEL) is None:
        return None
    measured = (f"{row['agents']} agents x {count(row['tasks'], 'task')} with {runs} runs per cell{scores}, nominal "
                f"95% simultaneous intervals held every true value in {coverage:.2f} of {row['n_sim']} data sets")
    if smallest < fewest:  # no row measures a design this small: the fewest runs simulated are quoted as such (audit s8)
        note = (f"the smallest cell has {count(smallest, 'run')}, fewer than any design simulated for "
                f"{_INTERVAL_NAMES[interval]} (its coverage there was not measured); at the fewest runs simulated, "
                f"{measured}")
    elif smallest > most:  # nor this large: nothing measured says these runs are few (audit s17: 100 runs, rows of 20)
        note = (f"the smallest cell has {count(smallest, 'run')}, more than any design simulated for "
                f"{_INTERVAL_NAMES[interval]} (its coverage there was not measured); at the most runs simulated, "
                f"{measured}")
    else:
        note = (f"{count(smallest, 'run')} in the smallest cell {verb(smallest, 'is')} few for "
                f"{_INTERVAL_NAMES[interval]}: in simulations of {measured}")
    if interval == "pbp" or _coverage_note("pbp", smallest, agents, tasks):
        return note
    return note + '; interval="pbp" keeps its level'


# ----------------------------------------------------------------------------- tidy frames


def _payoff_frame(design, payoff, low, high):
    n_a, n_e = design.n_agents, design.n_tasks
    i, j, k = np.meshgrid(np.arange(n_a), np.arange(n_e), np.arange(n_a), indexing="ij")
    agents, tasks = np.asarray(design.agents, dtype=object), np.asarray(design.tasks, dtype=object)
    frame = pd.DataFrame({"agent": agents[i.ravel()], "task": tasks[j.ravel()], "reference": agents[k.ravel()],
                          "estimate": payoff.ravel()})
    if low is not None:
        frame["conf_low"], frame["conf_high"] = low.ravel(), high.ravel()
    return frame


def _reference_frame(design, d):
    n_a, n_e = design.n_agents, design.n_tasks
    weight = d.sum(axis=0)  # (task, reference)
    return pd.DataFrame({"task": np.repeat(np.asarray(design.tasks, dtype=object), n_a),
                         "reference": np.tile(np.asarray(design.agents, dtype=object), n_e),
                         "weight": weight.ravel()})


def _per_task_frame(design, layout, payoff, d, delta_cell, low, high, higher_is_better):
    # Means, intervals and ranks on the internal (higher-is-better) scale, then back to the response's scale.
    mean, lower, upper = kernels.mean_intervals(layout, low, high, delta_cell)
    # ties within a task are judged relative to the width of its bounds, on values measured from its lower bound:
    # never in absolute units, and a map a * y + b of the task moves no tie (relative to the largest |bound|, a
    # shift by 1e4 tied float32 residues of 1e-6; audit s20)
    width = high - low
    rank = np.stack([kernels.competition_rank(mean[j] - low[j], width[j]) for j in range(design.n_tasks)])
    best, worst = (np.stack(r) for r in zip(*(kernels.rank_range(lower[j] - low[j], upper[j] - low[j], width[j])
                                               for j in range(design.n_tasks))))
    if not higher_is_better:
        mean, lower, upper = -mean, -upper, -lower
    weight = d.sum(axis=0)  # (task, reference)
    total = weight.sum(axis=1, keepdims=True)
    mixture = weight / np.where(total > 0, total, 1.0)
    percentile = np.einsum("ijk,jk->ji", payoff, mixture)
    n_a, n_e = design.n_agents, design.n_tasks
    return pd.DataFrame({
        "task": np.repeat(np.asarray(design.tasks, dtype=object), n_a),
        "agent": np.tile(np.asarray(design.agents, dtype=object), n_e),
        "n_runs": design.counts.ravel(), "estimate": mean.ravel(), "conf_low": lower.ravel(),
        "conf_high": upper.ravel(), "rank": rank.ravel(), "rank_best": best.ravel(),
        "rank_worst": worst.ravel(), "percentile": percentile.ravel()})


def _ecdf_frame(design, delta_cell, low, high):
    """Each cell's empirical CDF of the response at its distinct scores and at its task's lower bound, with the DKW
    band at delta_cell.

    ``low`` and ``high`` are each task's score bounds on the response's own scale: below a cell's smallest score the
    CDF is 0 and its band [0, eps], a row at ``low`` (audit s17: the plot drew [0, 0] there); the band is 1 from
    ``high`` on.
    """
    layout = kernels.make_layout(design.y, design.agent, design.task, design.n_agents, design.n_tasks)
    _, z = kernels.payoff_tensor(layout)
    sizes = np.diff(layout.cell_start)
    cell = np.repeat(np.arange(sizes.size), sizes)
    agent, task = cell % design.n_agents, cell // design.n_agents
    cdf = z[agent, np.arange(layout.values.size)]
    # Keep the last slot of each run of equal scores within a cell: the CDF's value there.
    last = np.r_[(cell[1:] != cell[:-1]) | (layout.values[1:] != layout.values[:-1]), True]
    eps = kernels.dkw_epsilon(sizes, delta_cell)[cell]
    at_top = layout.values >= high[task]
    frame = pd.DataFrame({
        "task": np.asarray(design.tasks, dtype=object)[task], "agent": np.asarray(design.agents, dtype=object)[agent],
        "score": layout.values, "cdf": cdf,
        "cdf_low": np.where(at_top, 1.0, np.clip(cdf - eps, 0.0, 1.0)),
        "cdf_high": np.where(at_top, 1.0, np.clip(cdf + eps, 0.0, 1.0))})[last]
    cells = np.arange(sizes.size)
    below = layout.values[layout.cell_start[:-1]] > low[cells // design.n_agents]  # cells with no run at the bound
    first = pd.DataFrame({
        "task": np.asarray(design.tasks, dtype=object)[cells // design.n_agents],
        "agent": np.asarray(design.agents, dtype=object)[cells % design.n_agents],
        "score": low[cells // design.n_agents], "cdf": 0.0, "cdf_low": 0.0,
        "cdf_high": np.minimum(kernels.dkw_epsilon(sizes, delta_cell), 1.0)})[below]
    order = np.argsort(np.r_[cells[below], cell[last]], kind="stable")  # each cell's row at the bound first
    return pd.concat([first, frame], ignore_index=True).iloc[order].reset_index(drop=True)
