"""Declarations of the stratified bootstrap, probability of improvement and performance profiles.

When to use
-----------
To report how well each agent does across a benchmark, with uncertainty: the interquartile mean, mean, median and
optimality gap of normalised scores with stratified bootstrap intervals (rliable's method; ``rliable_compat=True``
reproduces its numbers), the probability that a run of one agent beats a run of another, and performance profiles
(the distribution of scores). Scores must be on a common scale across tasks (``normalize=``). With 3 to 5 runs
per task rliable's percentile intervals cover less than their level (0.71-0.96 on 5 and 26 tasks in simulation), so
the default is the studentised (bootstrap-t) interval, which holds its level on most of the measured grid and is
withheld, with the way on, at 2 runs per task, and on a single task below the runs from which it held there (the IQM
and the mean from 20, the median, the task's mean with the mean's interval, from 20 too, the optimality gap from 50, or 20 where
every score is at or below gamma, where it is gamma minus the mean); ``interval="percentile"``
keeps rliable's, quoting its coverage.
Intervals that merely overlap are not a test; for a decision use the blocked rank test, or
``res.inferential_intervals(a, b)``.
"""

import dataclasses
from typing import Any

from .._declaration import Backend, Need, PowerRule
from ...cost import BYTES_PER_STATISTIC, Shape, Work
from ...grammar import plural

_HERE = "rlstats.methods.bootstrap"
_FORMULA = "score ~ agent | task"


def citations(result, keys):
    """After the method's papers: Hesterberg (2015) when the interval is the expanded one, Hall (1992) when the
    band is the skew-corrected t (``performance_profile(kind="tasks")``'s default)."""
    interval = (getattr(result, "options", None) or {}).get("interval")
    extra = {"expanded": ["hesterberg2015"], "skew_t": ["hall1992"]}.get(interval, [])
    return [*keys, *extra]


def _resampled(what, tasks_too=True):
    """Resampling runs within tasks needs a task with 2 runs for each agent (every task, for the expanded interval,
    whose factor sqrt(c / (c - 1)) needs c >= 2); task_bootstrap=True, where the option exists, lifts the need."""
    lifted = (("task_bootstrap", False),) if tasks_too else ()
    way_on = ("add runs, or pass task_bootstrap=True to resample tasks as well" if tasks_too else "add runs")
    return (Need("intervals", what, runs=2, per="agent", below="refuse", when=lifted,
                 way_on=f"resampling runs within tasks gives intervals of zero width; {way_on}"),
            Need("intervals", f"interval='expanded' {what}", runs=2, per="cell", below="refuse",
                 when=(("interval", "expanded"), *lifted), way_on="use interval='percentile' or add runs"))


#: the fewest runs per task of the calibration rows of the score interval of the probability of improvement and of
#: the Wilson profile band (``bootstrap.interval``, ``bootstrap.profile``): neither was measured at one run, which
#: is why an agent with one run in every task is refused there (tests/test_audit_s38_fixd38.py reads the table)
LOWEST_MEASURED_RUNS = 2


def _improvement_needs():
    """The probability of improvement's intervals need a task with 2 runs for each agent of a pair, each form for its
    own reason (audit s38 fixd38: every form was said to have "zero width", which none has against an agent with
    several runs). The resampled intervals (percentile, expanded) draw such an agent's runs unchanged, so its pairs'
    intervals show the other agent's spread alone; the score interval reads the run counts through the Hanley-McNeil
    variance, not the runs' spread, and its coverage was measured from :data:`LOWEST_MEASURED_RUNS` runs per task.
    The expanded interval needs 2 runs in every cell besides (its factor sqrt(c / (c - 1)))."""
    agent, expanded = _resampled("probability of improvement intervals", tasks_too=False)
    resampled = ("an agent's one run per task is the same in every resample, so its pairs' intervals would show only "
                 "the other agent's spread (none against another agent with one run in every task), and their "
                 "coverage was not measured there; add runs")
    score = ("the score interval's variance (Hanley-McNeil) reads the runs' counts, not their spread, and its "
             f"coverage was measured from {LOWEST_MEASURED_RUNS} runs per task, not at one; add runs")
    return (*(dataclasses.replace(agent, when=(("interval", interval),), way_on=way_on)
              for interval, way_on in (("score", score), ("percentile", resampled), ("expanded", resampled))),
            expanded)


def _profile_needs():
    """The profile's bands need a task with 2 runs for each agent: the percentile band to resample (one run a task is
    the same profile in every resample: a band of zero width), the Wilson band, which counts runs and has width at one
    a task, because its coverage was measured from :data:`LOWEST_MEASURED_RUNS` runs per task (audit s38 fixd38: it
    was said to have zero width), the t band (``kind="tasks"``) to bound a task's mean by its runs' spread, which one
    run has none of (its band would span 0 to 1 at every tau)."""
    resampled = _resampled("performance profile bands")[0]
    wilson = (f"the Wilson band counts the runs above each tau and would have width, but its coverage was measured "
              f"from {LOWEST_MEASURED_RUNS} runs per task, not at one; add runs, or pass task_bootstrap=True (its "
              "wilson_tasks band takes the tasks as the sample)")
    return (dataclasses.replace(resampled, when=(("interval", "wilson"), *resampled.when), way_on=wilson),
            dataclasses.replace(resampled, when=(("interval", "percentile"), *resampled.when)),
            *(Need("intervals", f"{band} profile bands", runs=2, per="agent", below="refuse",
                   when=(("interval", band),),
                   way_on=f"interval='{band}' bounds each task's mean by the spread of its runs, and one run has no "
                          "spread, so its band would span 0 to 1 at every tau; add runs")
              for band in ("skew_t", "t")))


#: seconds a resampled run takes with the built-in metrics: the draw, shared by every metric, and each metric's pass
_PER_RUN, _PER_METRIC = 7e-9, 1e-9
#: an agent's own work in each resample (its tasks' offsets, the chunk's statistics), in resampled runs
_RUNS_PER_AGENT = 100
#: a call's fixed seconds (the Design's notes, the intervals, the result): most of a power() data set's analysis
_CALL_SECONDS = 0.006
#: passes over the resamples: the studentised interval draws each resample again for its standard error (2.2-3.9
#: times the percentile interval's CPU, round s11); rliable_compat=True, task_bootstrap=True and metric functions
#: resample the run matrices, 2x the built-in kernels' CPU
STUDENTIZED_PASSES, MATRIX_PASSES = 3, 2
#: bytes an agent's metric takes per resample at the call's peak (:data:`rlstats.cost.BYTES_PER_STATISTIC`); a
#: profile's fraction per agent and threshold one float64 (5.7-10 measured: 81 and 100 thresholds, and 20 with fixed
#: costs)
BYTES_PER_METRIC, BYTES_PER_THRESHOLD = BYTES_PER_STATISTIC, 8
#: bytes a pair's probability of improvement takes per resample at the call's peak: 29, 22 and 20 measured at 3e5
#: resamples, 2, 3 and 5 agents (1, 3 and 10 pairs) x 3 tasks x 4 runs (peak RSS, audit s18 perf18)
BYTES_PER_PAIR = 32
#: seconds and bytes each pair costs whatever the resamples: its own pass and result rows, and each task's part of it
#: (audit s37 bounds37, measured with 2 runs a cell: 200 agents on 1 and 5 tasks, 400 and 800 on 1: 6.7-7.7e-5 s a
#: pair on one task, 2e-4 on five; 1.0-1.2 KB a pair, not more with tasks). Uncounted before: 10,000 agents of 2
#: runs (50 million pairs) were estimated at 2 s and ended in MemoryError after 118 s
PAIR_SECONDS, PAIR_TASK_SECONDS, PAIR_BYTES = 4e-5, 3.5e-5, 1200
#: thresholds of a performance profile's default grid (here, where its cost is counted)
DEFAULT_PROFILE_POINTS = 81


def cost(shape: Shape, options: Any) -> Work:
    """Every resample draws each run once for all the metrics (7e-9 s a run and 1e-9 s more a metric, measured in round
    s11 of benchmarks/README.md: four metrics took 1.1-1.6 times one), plus each agent's own work (100 runs' worth);
    the studentised interval, the default, passes over the resamples again for their standard errors (3 passes in
    all), the run matrices' path twice; and a call's fixed 0.006 s, which power() multiplies by its data sets."""
    from ._small_runs import STUDENTIZED_INTERVALS, studentized_gives_way

    metrics = len(options.metrics)
    interval = getattr(options, "interval", "percentile")
    compat, tasks = getattr(options, "rliable_compat", False), getattr(options, "task_bootstrap", False)
    matrices = bool(compat or tasks or any(callable(m) for m in options.metrics))
    studentized = interval in STUDENTIZED_INTERVALS and studentized_gives_way(interval, compat, tasks,
                                                                              options.metrics) is None
    passes = STUDENTIZED_PASSES if studentized else MATRIX_PASSES if matrices else 1
    per_unit = _PER_RUN + _PER_METRIC * metrics
    resampled = options.n_resamples * (shape.rows + _RUNS_PER_AGENT * shape.agents)
    how = {STUDENTIZED_PASSES: "3 passes (studentised) x ", MATRIX_PASSES: "2 passes (run matrices) x ", 1: ""}[passes]
    return Work(passes * resampled + _CALL_SECONDS / per_unit, "resampled runs", per_unit,
                f"{how}{options.n_resamples:,} resamples x ({shape.rows:,} runs + {_RUNS_PER_AGENT} x {shape.agents} "
                f"agents), {metrics} {plural('metric', metrics)}, + the call's own {_CALL_SECONDS:g} s",
                memory=BYTES_PER_METRIC * options.n_resamples * shape.agents * metrics,
                kept=f"{options.n_resamples:,} resamples x {shape.agents:,} agents x {metrics} metrics")


def improvement_cost(shape: Shape, options: Any) -> Work:
    """Each resample compares the runs of both agents of every pair, task by task (5e-9 s a value, measured in round
    s11 of benchmarks/README.md: 3.9-5.5e-9; 1e-8 before); every interval, the score interval (the default, which
    draws none) too, first passes over the pairs' runs (1.8e-7 s a run of a pair: 36 values; uncounted before, 18x
    under at 6 agents x 20 tasks x 2,000-8,000 runs); the resampled intervals keep each pair's probability a resample
    (:data:`BYTES_PER_PAIR`), against :data:`rlstats.cost.MAX_BYTES`."""
    pairs = len(options.pairs) if options.pairs else shape.agents * (shape.agents - 1) // 2
    runs = 2 * shape.rows // max(shape.agents, 1)
    resamples = 0 if options.interval == "score" else options.n_resamples
    per_value = 5e-9
    each = PAIR_SECONDS + PAIR_TASK_SECONDS * shape.tasks  # :data:`PAIR_SECONDS`
    return Work((resamples + 36) * pairs * runs + pairs * each / per_value, "resampled values", per_value,
                f"({resamples:,} resamples + 36 for the pass) x {pairs:,} pairs x {runs:,} runs of a pair + "
                f"{pairs:,} pairs' own work", memory=(BYTES_PER_PAIR * resamples + PAIR_BYTES) * pairs,
                kept=(f"({resamples:,} resamples + the pair's own) x " if resamples else "")
                + f"{pairs:,} pairs (interval={options.interval!r})",
                held="resamples" if resamples else "pairs' results",
                way="" if BYTES_PER_PAIR * resamples > PAIR_BYTES else
                "fewer pairs (pairs=, or fewer agents): every pair is compared on its own")


def profile_cost(shape: Shape, options: Any) -> Work:
    """Each resample draws every run again and places it on the thresholds (6e-9 s a value, measured in round s11 of
    benchmarks/README.md: 5.8e-9; 4e-8 before, 6.6x over), with each agent x task cell's own work (200 values); every
    band, the Wilson bands (``interval="wilson"``, ``"wilson_tasks"``) and the t bands (``"skew_t"``, ``"t"``), which draw none, too, first
    places the runs on the thresholds (3.3-3.8e-7 s a run: 60 values; uncounted before, 8-9.5x under)."""
    resamples = 0 if options.interval in ("wilson", "skew_t", "t", "wilson_tasks") else options.n_resamples
    tau = getattr(options, "tau", None)
    thresholds = DEFAULT_PROFILE_POINTS if tau is None else tau.size
    return Work((resamples + 60) * shape.rows + 200 * resamples * shape.cells, "resampled values", 6e-9,
                f"({resamples:,} resamples + 60 for the pass) x {shape.rows:,} runs + {resamples:,} resamples x 200 "
                f"x {shape.cells:,} cells", memory=BYTES_PER_THRESHOLD * resamples * shape.agents * thresholds,
                kept=f"{resamples:,} resamples x {shape.agents:,} agents x {thresholds:,} thresholds")


BACKENDS = (
    Backend(
        name="bootstrap",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:bootstrap",
        result=f"{_HERE}._result:BootstrapResult",
        options=f"{_HERE}._api:BootstrapOptions",
        citations=("agarwal2021", "efron1987"),
        cite=f"{_HERE}._backend:citations",
        replication=_resampled("bootstrap intervals"),
        contract=(_FORMULA, {"n_resamples": 200}),
        # aggregates need every agent on every task: the demo drops its missing cells (and says so)
        demo=(_FORMULA, {"n_resamples": 2000, "na_action": "drop"}),
        operations=(("inferential_intervals", f"{_HERE}._api:inferential_intervals"),
                    ("bootstrap.agents_alone", f"{_HERE}._api:agents_alone"),
                    ("bootstrap.far_apart_notes", f"{_HERE}._api:aggregate_far_apart_notes")),
        power=PowerRule(
            key=12, label="bootstrap interval separation", decide=f"{_HERE}._power:decide",
            sentence=f"{_HERE}._power:sentence", call=f"{_HERE}._power:call_options", check=f"{_HERE}._power:check",
            withhold=f"{_HERE}._power:withhold", extra_options=("metric",),
            replaced_options=(("metrics", "metric= (one metric: the rule compares its intervals)"),),
            note="bootstrap interval separation counts a rejection when two agents' intervals of the metric do not "
                 "overlap, as a reader of bootstrap()'s printed intervals decides (it prints each agent's interval and "
                 "none of a difference); the intervals are bootstrap()'s default ones (studentised; expanded_tasks with "
                 "task_bootstrap=True; percentile for a metric function) unless "
                 "bootstrap={'interval': ...} names another, so the rate is that of an analysis with bootstrap()'s "
                 "defaults. interval='percentile' is the thesis's rule (Casesa 2024, Section 3.1): narrower "
                 "intervals that separated far more often on the same data sets (session 10, 2 agents x 5 and 26 "
                 "tasks of normal, lognormal and beta scores, a difference of 1 or 0.5: 1.2-1.6 times as often at 10 "
                 "seeds, 1.9-5.6 at 5, 10-28 at 3), and more than alpha of data sets with no difference at 2 or 3 "
                 "runs per task (0.20-0.37 at 2, audit s8; up to 0.085 at 3 on 5 tasks). "
                 "With two agents the rule is conservative where the intervals hold their level: two intervals can "
                 "overlap although the difference is significant, so expect a rejection rate below alpha when "
                 "nothing differs. With more agents any pair apart counts, and with no difference that rate can "
                 "exceed alpha (audit s11: 0.09 of 240 data sets at 8 agents x 26 tasks x 10 normal runs, 28 pairs)"),
    ),
    Backend(
        name="probability_of_improvement",
        cost=f"{_HERE}._backend:improvement_cost",
        function=f"{_HERE}._api:probability_of_improvement",
        result=f"{_HERE}._result:ProbabilityOfImprovementResult",
        options=f"{_HERE}._api:ProbabilityOfImprovementOptions",
        citations=("agarwal2021",),
        cite=f"{_HERE}._backend:citations",
        replication=_improvement_needs(),
        contract=(_FORMULA, {"n_resamples": 200}),
        demo=(_FORMULA, {"na_action": "drop"}),  # closed-form intervals: they draw no resamples
        no_power="it estimates P(X > Y) with an interval and makes no decision for power() to count",
    ),
    Backend(
        name="performance_profile",
        cost=f"{_HERE}._backend:profile_cost",
        function=f"{_HERE}._api:performance_profile",
        result=f"{_HERE}._result:PerformanceProfileResult",
        options=f"{_HERE}._api:PerformanceProfileOptions",
        citations=("agarwal2021",),
        cite=f"{_HERE}._backend:citations",
        replication=_profile_needs(),
        contract=(_FORMULA, {"n_resamples": 200}),
        demo=(_FORMULA, {"na_action": "drop"}),  # closed-form intervals: they draw no resamples
        no_power="a performance profile is a curve with pointwise bands, not a test: there is no decision to count",
    ),
)

#: a result method's interval (InferentialIntervalsResult), public beside the back ends, with its papers
PUBLIC = {"InferentialIntervalsResult": f"{_HERE}._result:InferentialIntervalsResult"}
CITATIONS = {"InferentialIntervalsResult": ("casesa2024", "agarwal2021")}

#: the tidy and glance columns only this folder's results report: (column, attribute, printed label,
#: description) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("tau", "tau", "tau", "score threshold of a performance profile"),
    ("conf_low_mc_se", None, "lower MC SE", "Monte Carlo standard error of the lower confidence bound"),
    ("conf_high_mc_se", None, "upper MC SE", "Monte Carlo standard error of the upper confidence bound"),
    ("task_bootstrap", "task_bootstrap", "tasks resampled", "whether tasks were resampled as well as runs"),
    ("epsilon", "epsilon", "epsilon", "correction factor turning a descriptive into an inferential interval"),
    ("descriptive_low", None, "descriptive lower",
     "lower bound of the descriptive interval an inferential one rescales"),
    ("descriptive_high", None, "descriptive upper",
     "upper bound of the descriptive interval an inferential one rescales"),
)
