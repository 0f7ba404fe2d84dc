"""Intervals from few runs per task: the studentised (bootstrap-t) default, the expanded percentile interval, the
probability of improvement's score interval (:func:`score_bounds`, its default), and what simulation measured.

``interval="studentized"`` (the default since issue 40) divides each resample's deviation from the estimate by that
resample's own stratified standard error (:class:`StandardErrors`, floored at :data:`STUDENTIZED_SE_FLOOR` of the
resamples' standard deviation), so the interval's quantiles carry the extra spread of a standard error estimated
from c runs per task, which the percentile interval misses; its half-widths are scaled by sqrt(c / (c - 1))
(:func:`run_expansion`); the mean's is widened on the side of the runs' skew (:func:`skew_widened`). The median of
task means takes a t interval instead, widened alike; ``interval="studentized_unwidened"`` is the default before
those widenings, bit for bit. The mean's and the optimality gap's bounds are then moved out to the Welch t bound
where that is wider (:func:`welch_floor`, audit s20: the bootstrap-t alone covered 0.928 and 0.930 of 1,920 nominal
95% intervals at 5 tasks x 20 heavy-tailed runs); ``interval="studentized_no_welch"`` is the default before that.

With c runs in a task, the bootstrap sees each task mean's variance shrunk by
(c - 1) / c and reads normal rather than t quantiles, so nominal 95% percentile
intervals of the IQM or mean cover about 0.86 at 3 runs.  ``interval="expanded"``
is Hesterberg's expanded percentile interval (Hesterberg 2015, Section 4.5)
carried over to strata: the percentile interval read at the level whose normal
quantile is sqrt(c / (c - 1)) t_{df}, with c the fewest runs in a task and df
the Welch-Satterthwaite degrees of freedom of the mean over tasks.

The ``bootstrap.interval`` rows of the package calibration table
(:mod:`rlstats.calibration`, written by ``tests/reference/coverage_small_runs.py``)
hold the coverage simulation measured for nominal 95% intervals (issue 40's grid: normal, skewed, heavy-tailed and
capped scores, 1, 5 and 26 tasks, 2-20 runs, four design draws per row); results quote it when the runs per task are
too few for the interval asked for.
"""

from __future__ import annotations

import numpy as np

from ... import calibration
from ...bounds import MEDIAN_MIDDLE_TIED_SHARE, MEDIAN_TIED_SHARE, MEDIAN_TIED_SHARE_ALONE
from ...statistics import (STUDENTIZED_SE_FLOOR, WELCH_FLOOR_METRICS, block_ranges, median_is_mean,
                           floored_standard_errors, near_ties, order_statistic_se, run_expansion, shape_ratios,
                           skew_widened, skewness_of_means, welch_floor)
from ...format import a_or_an, join_and, listed, name_list, names_shown, plural, signif, verb
from ...vocabulary import gap_capped_words, gap_is_mean_words, median_is_mean_words, median_of_task_means, metric_label
from ...resampling import canonical_order
from .._replication import applies, declared, verdict
from .._replication import _have as runs_had
from . import _kernels as kernels

# The calibration table's procedure measuring these intervals.
PROCEDURE = "bootstrap.interval"


def _by_task_and_score(y, task):
    """One agent's runs sorted by task, then score: sums over them (np.bincount adds in row order) are then the
    same whatever the order of the caller's rows (audit s16: a shuffled frame moved the median's bound by 4e-16
    through the skewness, and by 3.6e-15 through the degrees of freedom under numpy 1.24)."""
    order = canonical_order(y, task)
    return y[order], task[order]


def welch_df(y, task, n_tasks):
    """Welch-Satterthwaite degrees of freedom of the mean over tasks of one agent's task means.

    ``y`` and ``task`` are that agent's runs.  Infinite when no task varies.
    """
    y, task = _by_task_and_score(y, task)
    sizes = np.bincount(task, minlength=n_tasks).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):  # a task without runs: NaN, as before
        means = np.bincount(task, weights=y, minlength=n_tasks) / sizes
    # squares of deviations from each task's mean, not sum y^2 - (sum y)^2 / c, which loses the variance to
    # cancellation far from 0 (audit s21: 2.93 for 50/17 at 1e-3 y + 1e4, infinite at 1e-3 y + 1e6); a task whose
    # runs are all one value is its own centre (variance exactly 0), and deviations are in units of the largest, so
    # that squares of tiny scores do not underflow
    # a task whose runs tie by the package's rule (statistics.near_ties: 0.3 and 0.1 + 0.2) is flat whatever the
    # origin (audit s22: df 9 unshifted, inf after + 1e6)
    low, high = block_ranges(near_ties(y, task)[0], task, n_tasks)
    deviation = np.where((low == high)[task], 0.0, y - means[task])
    unit = float(np.abs(deviation).max(initial=0.0))
    deviation = deviation / (unit if unit > 0 else 1.0)
    centred = np.bincount(task, weights=deviation * deviation, minlength=n_tasks)
    share = centred / (sizes - 1) / sizes  # s_t^2 / c_t, the variance of task t's mean (in units of unit^2)
    from ...statistics import welch_satterthwaite_df
    return np.inf if np.all(share == 0) else float(welch_satterthwaite_df((share,), (sizes,), axis=-1))


def expanded_level(confidence_level, fewest_runs, df):
    """The level at which the percentile interval spans sqrt(c / (c - 1)) t_df standard errors (arrays broadcast)."""
    from scipy import special, stats
    fewest_runs = np.asarray(fewest_runs, dtype=float)
    z = np.sqrt(fewest_runs / (fewest_runs - 1)) * stats.t.ppf((1 + confidence_level) / 2, df)
    return 1 - 2 * special.ndtr(-z)


#: What a single-run task does to intervals that resample each agent's runs within tasks (bootstrap(), the
#: percentile profile band): the one run is the same in every resample
NO_SPREAD = "which adds no spread to the intervals"


def check_single_runs(method, counts, names, options, tasks=(), words=("task", "agent"), effect=NO_SPREAD):
    """``counts`` (tasks, agents): an error when the declared replication of ``method``'s intervals is not met (an
    agent with one run in every task; for the expanded interval, any single-run task), else notes for the rest.

    One run leaves nothing to resample in its task, so an agent with one run everywhere would get a bootstrap()
    interval of zero width (the probability of improvement and the Wilson band refuse it for their own reasons, which
    their declarations state: audit s38 fixd38); with some single-run tasks, those tasks add no spread to the
    interval, and the expanded interval, whose factor sqrt(c / (c - 1)) needs c >= 2, is refused. ``words``: the
    blocks and the arms as the notes call them (``Design.block_word``, ``Design.arm_word``). ``effect``: what such a
    task does to the caller's intervals, after "has a single run, " (audit s38 claims38: :data:`NO_SPREAD` was said
    of the probability of improvement, whose pairs resample the other agent's runs or read a Hanley-McNeil variance
    there, and of the Wilson profile band, which such a task widens).
    """
    verdict(method, counts, options=options, agents=names, tasks=tasks, words=words)  # raises below the declared need
    single = counts == 1

    def which(column):  # the tasks named (audit s14: a note of one-run cells names them), when the caller gave them
        return f" ({listed(names_shown([tasks[t] for t in np.flatnonzero(column)], tasks), 6)})" if len(tasks) else ""

    return [f"{name}: {n} of {counts.shape[0]} {plural(words[0])} {verb(n, 'has')} a single run, {effect}"
            f"{which(single[:, a])}" for a, (name, n) in enumerate(zip(names, single.sum(axis=0))) if n]


#: The most runs per task of issue 40's grid (1, 5 and 26 tasks); audit s19 measured one task beyond it, to 200.
GRID_MOST_RUNS = 20


def one_task_only(row):
    """Whether a table row measures one task alone (audit s19's rows, ``tests/reference/coverage_one_task.py``: the
    default's on one task, the others' on one task beyond the grid's runs): it speaks for one-task designs only."""
    return row["tasks"] == "1" and (row["interval"] in STUDENTIZED_INTERVALS or int(row["runs"]) > GRID_MOST_RUNS)


def _rows_by_runs(interval, metric_key, single_task=False, tasks=None, below_gamma=False, far_apart=False,
                  by_chance=False):
    """{runs per task: the calibration rows} of nominal 95% ``interval`` intervals of ``metric_key``: for a design of
    one task (``single_task``) its one-task rows, else the grid's rows (every number of tasks, as before audit s19);
    ``tasks`` (a design of several tasks): the rows of the grid's numbers of tasks that bracket it
    (:func:`rlstats.calibration.bracketing_counts`; audit s23: a 26-task design was quoted the 1- and 5-task rows too,
    percentile IQM 0.72 to 0.88 at 3 runs where its 26-task rows read 0.85 to 0.88; nearest23: a design of 2 to 4
    tasks reads the 1-task grid rows beside the 5-task ones, one of 6 to 25 the 5- and 26-task rows).
    ``below_gamma``: the optimality gap's rows of agents whose every score is at or below gamma while their true
    scores cross it (``configuration`` ``calibration.GAP_BELOW_GAMMA``, audit s28 gapboot28), which the other reads
    leave out. The rows of 3 tasks far apart (``calibration.FAR_APART``, audit s34 iqmfar34) are read by ``far_apart``
    alone (a design whose tasks' runs lie apart, :func:`rlstats.calibration.tasks_apart`; audit s34 iqmfar34b), the
    rows of 3 tasks that overlap with runs apart by chance (``calibration.APART_BY_CHANCE``, audit s35 farapart35) by
    ``by_chance`` alone, and every other read leaves them out."""
    table = calibration.rows(PROCEDURE)
    # each read once per table (audit s39 eq39: equivalence() reads a pair's notes 780 times on 40 agents, and the
    # 4,000 rows were filtered each time, a tenth of the call); keyed on the rows read, so that another table (a
    # test's) is read afresh; a copy of the lists, which callers may keep
    if _READ[0] is not table:
        _READ[:] = [table, {}]
    found, key = _READ[1], (interval, metric_key, single_task, tasks, below_gamma, far_apart, by_chance)
    if key not in found:
        found[key] = _read_rows_by_runs(table, *key)
    return {runs: list(rows) for runs, rows in found[key].items()}


#: :func:`_rows_by_runs`' reads of the last table read: [table, {arguments: {runs: rows}}]
_READ: list = [None, {}]


def _read_rows_by_runs(table, interval, metric_key, single_task, tasks, below_gamma, far_apart, by_chance):
    """:func:`_rows_by_runs` read off ``table`` (the ``bootstrap.interval`` rows)."""
    # a former default's interval of a metric it shares with a later one: the table keeps that one's rows alone
    if interval == "studentized_unwidened" and metric_key not in ("mean", "median"):
        interval = "studentized_no_welch"  # the optimality gap's is the one before the Welch floor
    if interval == "studentized_no_welch" and metric_key not in WELCH_FLOOR_METRICS:
        interval = "studentized"
    found = {}
    for row in table:
        if (row["interval"], row["metric"]) == (interval, metric_key) and (
                row["tasks"] == "1" if single_task else not one_task_only(row)) and (
                row["configuration"] == calibration.GAP_BELOW_GAMMA) == below_gamma and (
                (row["configuration"] == calibration.FAR_APART) == far_apart) and (
                (row["configuration"] == calibration.APART_BY_CHANCE) == by_chance):  # runs apart (s34, s35)
            found.setdefault(int(row["runs"]), []).append(row)
    if tasks is not None and not single_task and not far_apart and not by_chance:
        counts = {int(row["tasks"]) for rows in found.values() for row in rows}
        if counts:
            bracket = {str(count) for count in calibration.bracketing_counts(counts, tasks)}
            found = {runs: kept for runs, rows in found.items()
                     if (kept := [row for row in rows if row["tasks"] in bracket])}
    return found


def measured_coverage(interval, metric_key, single_task=False, tasks=None, below_gamma=False, far_apart=False):
    """{runs per task: (lowest, highest) coverage over the simulated settings} of nominal 95% ``interval``
    intervals of ``metric_key``, from the calibration table (empty when it has no rows for them); ``single_task``:
    of the one-task settings alone; ``tasks``: of the grid's numbers of tasks bracketing a design's;
    ``below_gamma``: the optimality gap's rows of agents below gamma; ``far_apart``: the rows of 3 tasks far apart
    (:func:`_rows_by_runs`)."""
    return {runs: (min(float(r["coverage"]) for r in rows), max(float(r["coverage"]) for r in rows))
            for runs, rows in _rows_by_runs(interval, metric_key, single_task, tasks, below_gamma, far_apart).items()}


def coverage_note(interval, metric_label, metric_key, fewest_runs, whose="", single_task=False, tasks=None,
                  below_gamma=False, task="task", far_apart=False):
    """A line quoting the simulated coverage when ``fewest_runs`` are too few for ``interval`` (some simulated setting
    at those runs misses 95% by :func:`rlstats.calibration.misses`), else None. ``whose``: the agents with those
    runs, named where others have more (" (of IRIS)"); ``single_task``: the design has one task (its rows are read);
    ``tasks``: the design's number of tasks, whose bracketing numbers on the grid are read and named (None: every
    grid row). Where every row that misses does so in its worst design draw alone, the pooled range hides it: the
    note names the lowest such row and draw (:func:`rlstats.calibration.worst_draw_clause`,
    :func:`rlstats.calibration.miss_clause`; audit s24 gap24). ``below_gamma``: the optimality gap's rows of agents
    whose every score is at or below gamma while their true scores cross it (audit s28 gapboot28: the mean's interval
    reflected, which the mean's rows measure against a truth below gamma), said so. ``task``: the data's blocks as
    the note calls them (``Design.block_word``); the simulated designs keep the package's words. ``far_apart``: the
    agents' tasks' runs lie apart (:func:`rlstats.calibration.tasks_apart`), whose rows :func:`far_apart_note` reads."""
    if single_task:
        tasks = None
    if far_apart:
        return far_apart_note(interval, metric_label, metric_key, fewest_runs, whose, task)
    table = measured_coverage(interval, metric_key, single_task, tasks, below_gamma)
    measured = [c for c in table if c <= fewest_runs]
    if not measured or fewest_runs > max(table):
        return None  # beyond the simulated run counts nothing is claimed
    runs = max(measured)
    low, high = table[runs]
    # the house rule of holding the level (calibration.misses: within 3 Monte Carlo SE, pooled and in the worst
    # design draw): an interval that holds it at these runs in every simulated setting is told nothing
    rows = _rows_by_runs(interval, metric_key, single_task, tasks, below_gamma)[runs]
    if not any(calibration.misses(row, 0.95) for row in rows):
        return None
    where = (" of one task" if single_task else "" if tasks is None
             else f" on {calibration.counts_words(int(row['tasks']) for row in rows)}")
    default = "score" if metric_key == "probability_of_improvement" else "studentized"
    of = (" of an agent whose every score is at or below gamma, where its true scores can exceed gamma" if below_gamma
          else "")
    text = (f"{fewest_runs} runs per {task}{whose} are few for {interval} intervals of the {metric_label}{of}: in "
            f"simulations{where} with {runs} runs per task, nominal 95% intervals covered {low:.2f} to {high:.2f}")
    missed = [row for row in rows if calibration.misses(row, 0.95)]
    if not any(calibration.pooled_misses(row, 0.95) for row in missed):
        # every miss is in a worst design draw alone, which the pooled range hides (audit s24 gap24: the optimality
        # gap's 2-task rows at 20 runs read "covered 0.94 to 0.97" where the skewed row's worst draw covered 0.892)
        row = min(missed, key=calibration.worst_coverage)
        text += (f" ({row['distribution'].replace('_', '-')} scores on "
                 f"{calibration.counts_words([int(row['tasks'])])}: "
                 f"{float(row['coverage']):.3f}{calibration.worst_draw_clause(row)}, "
                 f"{calibration.miss_clause(row, 0.95)})")
    elif below_gamma:
        # the families that miss named (audit s28 gapboot28): below gamma only the capped rows miss at 10 and 20 runs,
        # where an agent stays below a ceiling that a third of its runs reach, and the range alone read as every family
        families = sorted({row["distribution"] for row in missed})  # pooled or in a draw (calibration.misses)
        if len(families) < len({row["distribution"] for row in rows}):
            text += f", short of 95% on {join_and([f.replace('_', '-') for f in families])} scores only"
    if interval == default:
        # at the most runs simulated (20 a task on the grid, 200 on one task) no row shows that more runs help: since
        # the Welch floor (audit s20) only the 2-task rows (audit s24: the median's and the optimality gap's on skewed
        # runs) miss there; the test of audit s21 (left21) names every such row. Where they miss, a design of fewer
        # runs reading them is not told that more runs are needed (enough), but how far short the most runs fell
        most = max(table)
        if runs == most:
            return text + f"; {runs} runs per task are the most simulated, so whether more reach the stated level is " \
                          "not measured"
        short = [row for row in _rows_by_runs(interval, metric_key, single_task, tasks, below_gamma)[most]
                 if calibration.misses(row, 0.95)]
        if short:  # review24b: "more runs are needed" read as enough where the rows at the most runs miss too
            worst = min(short, key=calibration.worst_coverage)
            lowest = calibration.worst_coverage(worst)
            drawn = " in a draw of the tasks' offsets and scales" if lowest < float(worst["coverage"]) else ""
            return text + (f"; at {most} runs per task, the most simulated, they still fell short of it (as low as "
                           f"{lowest:.2f}{drawn}, {worst['distribution'].replace('_', '-')} runs on "
                           f"{calibration.counts_words([int(worst['tasks'])])}), so more runs are not shown to reach "
                           "the stated level")
        return text + "; more runs are needed for the stated level"
    better = measured_coverage(default, metric_key, single_task, tasks).get(runs)
    if single_task and default == "studentized" and studentized_withheld([fewest_runs], 1, [metric_key]).all():
        better = None  # the default is withheld there (audit s19): no way on to quote
    if better is not None:
        text += f"; interval=\"{default}\" (the default) covered {better[0]:.2f} to {better[1]:.2f}"
        theirs = {int(row["tasks"]) for row in _rows_by_runs(default, metric_key, single_task, tasks)[runs]}
        if tasks is not None and not single_task and theirs != {int(row["tasks"]) for row in rows}:
            text += f" on {calibration.counts_words(theirs)}"  # the default's grid lacks the 1-task rows
    return text


def _apart_rows(interval, metric_key, fewest_runs, by_chance):
    """(runs, rows) of the rows of 3 tasks far apart (``by_chance`` False) or of 3 tasks that overlap with runs apart
    by chance (True) at the most runs simulated at or below ``fewest_runs``; None below or beyond the runs simulated
    (3 and 5 far apart; 3, 5 and 10 by chance), where this design's rows claim nothing (beyond every design's runs
    :func:`_beyond_apart_note` says so, audit s36 former36)."""
    table = _rows_by_runs(interval, metric_key, far_apart=not by_chance, by_chance=by_chance)
    measured = [c for c in table if c <= fewest_runs]
    if not measured or fewest_runs > max(table):
        return None
    return max(measured), table[max(measured)]


def _covered(rows):
    return f"{min(float(r['coverage']) for r in rows):.2f} to {max(float(r['coverage']) for r in rows):.2f}"


def far_apart_note(interval, metric_label, metric_key, fewest_runs, whose="", task="task"):
    """A line for agents whose 3 tasks' runs lie apart (:func:`rlstats.calibration.tasks_apart`; audit s34 iqmfar34b)
    quoting the two designs whose data it reads so, where some row of ``metric_key`` (the IQM, the mean, and since audit
    s35 apart35 the median and the optimality gap, whose rows are of runs apart by chance alone) at the most
    runs simulated at or below ``fewest_runs`` misses 95% (:func:`rlstats.calibration.misses`), else None: the rows of
    3 tasks far apart (``calibration.FAR_APART``, audit s34 iqmfar34; 3 and 5 runs) and those of 3 tasks whose scores
    overlap, drawn as the grid's, and whose runs lay apart by chance (``calibration.APART_BY_CHANCE``, audit s35
    farapart35; 3, 5 and 10 runs), the lowest and highest coverage over the score distributions of each, and for the
    IQM the mean's on each. Audit s35 apart35: by chance at 3 and 5 runs the median's covered 0.56-0.85 and the
    optimality gap's 0.73-0.93. Audit s35: by chance the IQM's interval covered 0.37-0.84 and the mean's 0.53-0.91,
    where the note had quoted the far-apart rows alone (0.75-0.91) and the mean's there (0.94-0.97) as its way on. The
    explanation of the IQM's bias is said of tasks whose scores lie apart, and only where their rows are quoted.
    Audit s35 fix35: beyond the far-apart rows' runs (10 runs, where only rows by chance exist) the note says so and
    quotes the rows by chance as what they are, of data sets whose overlapping tasks' runs lay apart by chance (at most
    ``calibration.APART_BY_CHANCE_SHARE``, 0.034% at 10 runs), so that such data most likely come from tasks far
    apart; it had quoted them alone, as if of these data, and offered metrics=("mean",) beside the mean's rows by
    chance, which miss (0.53-0.75). The mean is offered only beside its far-apart rows, where they hold. Beyond the runs
    of every design (audit s36 former36): :func:`_beyond_apart_note`, in place of the grid's rows of tasks that
    overlap."""
    quoted = [(by_chance, found) for by_chance in (False, True)
              if (found := _apart_rows(interval, metric_key, fewest_runs, by_chance))]
    if not quoted:
        return _beyond_apart_note(interval, metric_label, metric_key, fewest_runs, whose, task)
    if not any(calibration.misses(row, 0.95) for _, (_, rows) in quoted for row in rows):
        return None
    far = not quoted[0][0]
    text = calibration.apart_words(metric_label, task, whose, why=far and metric_key == "iqm")
    runs = {found[0] for _, found in quoted}
    parts = []
    for by_chance, (at, rows) in quoted:
        design = calibration.APART_BY_CHANCE_WORDS if by_chance else "3 tasks far apart"
        part = f"{_covered(rows)} on {design}" + ("" if len(runs) == 1 else f" with {at} runs per task")
        mean = _rows_by_runs(interval, "mean", far_apart=not by_chance, by_chance=by_chance).get(at, [])
        if metric_key == "iqm" and mean:  # the IQM's alone (audit s35 apart35: not the median's nor the gap's)
            # the mean offered as the way on where its rows quoted hold, not beside rows that miss (audit s35 fix35)
            holds = not by_chance and not any(calibration.misses(row, 0.95) for row in mean)
            option = ", metrics=(\"mean\",)," if holds else ""
            part += f" (the mean's{option} {_covered(mean)})"
        parts.append(part)
    within = f" with {runs.pop()} runs per task" if len(runs) == 1 else ""
    far_runs = sorted(_rows_by_runs(interval, metric_key, far_apart=True))
    if far or not far_runs:
        return (f"{text}: in simulations{within}, nominal 95% {interval} intervals of the {metric_label} covered "
                f"{' and '.join(parts)}")
    # beyond the runs of the far-apart design (audit s35 fix35): data whose runs lie apart there most likely come from
    # tasks whose scores lie apart, which overlapping tasks' runs mimic rarely; the rows by chance are of that event
    ((at, rows),) = [found for _, found in quoted]
    high = calibration.APART_BY_CHANCE_SHARE[at][1]
    mean = _rows_by_runs(interval, "mean", by_chance=True).get(at, []) if metric_key == "iqm" else []
    return (f"{text}: {fewest_runs} runs per task is beyond the {join_and([str(r) for r in far_runs])} runs per task "
            "measured "
            f"on 3 tasks far apart, the design such data most likely come from: 3 tasks whose scores overlap (offsets "
            f"and scales drawn as the grid's) lay their runs apart by chance in at most {100 * high:.2g}% of data sets "
            f"at {at} runs per task; on those, nominal 95% {interval} intervals of the {metric_label} covered "
            f"{_covered(rows)}" + (f" (the mean's {_covered(mean)})" if mean else ""))


def _beyond_apart_note(interval, metric_label, metric_key, fewest_runs, whose="", task="task"):
    """:func:`far_apart_note` beyond the runs of every design measured on data whose tasks' runs lie apart (audit s36
    former36): the line says so, names the runs measured on each design and what the most of them covered, where some
    row there misses 95%, else None; it had been None, so that the grid's rows of tasks that overlap were quoted alone
    (the median's and the optimality gap's at 7-20 runs, measured by chance at 3 and 5 runs alone, covered 0.91 to 0.99
    on 2 and 5 tasks there where by chance at 5 runs they covered 0.56 to 0.81 and 0.73 to 0.93)."""
    designs = [(by_chance, table) for by_chance in (False, True)
               if (table := _rows_by_runs(interval, metric_key, far_apart=not by_chance, by_chance=by_chance))]
    last = [(by_chance, max(table), table[max(table)]) for by_chance, table in designs]
    if not last or not any(calibration.misses(row, 0.95) for _, _, rows in last for row in rows):
        return None
    named = {False: "3 tasks far apart", True: calibration.APART_BY_CHANCE_WORDS}
    measured = join_and([f"{join_and([str(r) for r in sorted(table)])} on {named[by_chance]}"
                         for by_chance, table in designs])
    covered = " and ".join(f"{_covered(rows)} ({'apart by chance' if by_chance else 'far apart'}, {most} runs per "
                           "task)" for by_chance, most, rows in last)
    return (f"{calibration.apart_words(metric_label, task, whose, why=False)}: {fewest_runs} runs per task is beyond "
            f"those measured on such data, {measured}, so whether nominal 95% {interval} intervals of the "
            f"{metric_label} reach 95% there is not measured; with the most runs measured they covered {covered}")


def expanded_bounds(distribution, estimates, confidence_level, fewest_runs, df):
    """(bounds, mc_se) of the expanded percentile interval; the leading axis of every array is the agent (or pair)."""
    levels = expanded_level(confidence_level, fewest_runs, df)
    parts = [kernels.interval_bounds(distribution[i], estimates[i], float(level), "percentile")
             for i, level in enumerate(levels)]
    return np.stack([bounds for bounds, _ in parts]), np.stack([se for _, se in parts])


def hanley_mcneil_variance(theta, runs_x, runs_y):
    """Variance of one task's Mann-Whitney proportion at ``theta`` from ``runs_x`` and ``runs_y`` runs (Hanley and
    McNeil 1982: the pair probabilities Q1 = theta / (2 - theta) and Q2 = 2 theta^2 / (1 + theta)); arrays broadcast.

    At theta = 1/2 it is the exact null variance (m + n + 1) / (12 m n); it is 0 at theta = 0 and 1.
    """
    theta = np.asarray(theta, dtype=float)
    q1 = (runs_x - 1) * (1 - theta) / (2 - theta)
    q2 = (runs_y - 1) * theta / (1 + theta)
    return theta * (1 - theta) * (1 + q1 + q2) / (runs_x * runs_y)


def score_bounds(estimates, runs_x, runs_y, confidence_level, iterations=60):
    """(P, 2) score interval of the mean over tasks of the probability of improvement: the thetas with
    (estimate - theta)^2 <= z^2 sum_t V_t(theta) / T^2, V_t the Hanley-McNeil variance of task t at theta.

    ``runs_x`` and ``runs_y`` are (P, T) runs per task of each pair's agents.  Because the variance is that of theta
    itself rather than an estimate from c runs (zero when one agent wins every comparison), the interval keeps its
    level from 3 runs per task and stays inside [0, 1] (Newcombe 2006's score interval, stratified).  Where the tasks'
    probabilities differ it uses the variance at their mean, an approximation (the coverage grid's tasks share one
    probability).  Found by bisection on each side of the estimate.
    """
    from scipy import stats
    estimates = np.asarray(estimates, dtype=float)
    runs_x, runs_y = np.asarray(runs_x, dtype=float), np.asarray(runs_y, dtype=float)
    z2 = stats.norm.ppf((1 + confidence_level) / 2) ** 2
    tasks = runs_x.shape[1]

    def outside(theta):  # True where theta is outside the interval
        variance = hanley_mcneil_variance(theta[:, None], runs_x, runs_y).sum(axis=1) / tasks ** 2
        return (estimates - theta) ** 2 > z2 * variance

    low = np.stack([np.zeros_like(estimates), estimates])  # [outside, inside] ends of the lower search
    high = np.stack([np.ones_like(estimates), estimates])
    for _ in range(iterations):
        for ends in (low, high):
            middle = (ends[0] + ends[1]) / 2
            out = outside(middle)
            ends[0] = np.where(out, middle, ends[0])
            ends[1] = np.where(out, ends[1], middle)
    return np.stack([low[1], high[1]], axis=1)


def bootstrap_bounds(distribution, estimates, level, interval, z0, acceleration, compat, fewest_runs, df,
                     errors=None, metrics=(), n_tasks=None, skewness=None, welch=None, cells=None):
    """(bounds, mc_se, floored) of shape (K, M, 2) for any interval kind (the expanded one needs fewest runs and df per
    agent; ``"expanded_tasks"`` ``errors``, the (K, B) standard errors over tasks of the resamples' means and the (K,)
    of the data's, :func:`expanded_tasks_bounds`; the studentised ones ``errors``, the (K, M, B) standard errors of the resamples and the (K, M) of the data, the
    metric names and, for the median, df, and for the widened ones ``skewness``, the (K, M) skewness of each agent's
    mean and median from :func:`widening_skewness`, and for the default ``welch``, the (K,) Welch-Satterthwaite
    degrees of freedom of each agent's mean over tasks (:func:`welch_floor`); and they withhold where
    :func:`studentized_withheld` says). ``cells``: (K, M) the metric whose interval each agent's each metric takes
    (:func:`interval_kinds`; None: ``metrics`` for every agent): every cell of the mean's is widened as the mean's, by
    its ``skewness`` (an optimality gap there: the mean's negated), and withheld by the mean's counts.

    Where a user metric returned NaN for the estimate or any resample the bounds are NaN: a quantile of
    resamples with NaN among them (NaN sorts last) is no interval. ``floored``: True where the Welch t floor set a
    bound (:func:`welch_floor`; never where it is withheld).
    """
    floored = None
    if interval == "expanded":
        bounds, se = expanded_bounds(distribution, estimates, level, fewest_runs, df)
    elif interval == TASKS_INTERVAL:
        cells = np.broadcast_to(np.asarray(metrics, dtype=object), estimates.shape) if cells is None else cells
        bounds, se = expanded_tasks_bounds(distribution, estimates, level, n_tasks, cells, *errors)
    elif interval in STUDENTIZED_INTERVALS:
        resampled = floored_standard_errors(errors[0], distribution, STUDENTIZED_SE_FLOOR, axis=-1)
        observed = errors[1] * run_expansion(fewest_runs)[:, None]
        bounds, se = studentized_bounds(distribution, estimates, resampled, observed, level)
        cells = np.broadcast_to(np.asarray(metrics, dtype=object), bounds.shape[:2]) if cells is None else cells
        mean = cells == "mean"  # an optimality gap there, gamma minus the mean: its skewness is the mean's negated
        if mean.any() and interval in WIDENED_INTERVALS and skewness is not None:
            bounds[mean] = skew_widened(bounds[mean], observed[mean], skewness[mean], level)
        if interval == "studentized" and welch is not None:
            bounds, se, floored = welch_floor(bounds, se, estimates, observed, welch, level, metrics)
        median = [j for j, m in enumerate(metrics) if m == "median"]
        if median:  # a t interval: the middle task's df, the resamples' inflated root-mean-square error (median_se)
            from scipy import stats
            q = stats.t.ppf((1 + level) / 2, df)[:, None]
            half = q * errors[1][:, median]
            bounds[:, median] = np.stack([estimates[:, median] - half, estimates[:, median] + half], axis=-1)
            if interval in WIDENED_INTERVALS and skewness is not None:
                bounds[:, median] = skew_widened(bounds[:, median], errors[1][:, median], skewness[:, median], level)
            # its standard error is read off the resamples (median_se), so the bounds move with them: the Monte Carlo
            # error of a root mean square of B deviations d is sd(d^2) / (2 mean(d^2) sqrt(B)) of it, and the bound's
            # that share of its distance from the estimate (audit s7d: given as 0, "a closed form")
            se[:, median] = (np.abs(bounds[:, median] - estimates[:, median, None])
                             * median_se_relative_error(distribution[:, median], estimates[:, median])[..., None])
            flat = ~(errors[1][:, median] > 0)  # a middle task whose runs all tie: no spread to read
            bounds[:, median] = np.where(flat[..., None], np.nan, bounds[:, median])
        withheld = studentized_withheld(fewest_runs, n_tasks, cells, interval)
        bounds[withheld], se[withheld] = np.nan, np.nan
    else:
        bounds, se = kernels.metric_bounds(distribution, estimates, level, interval, z0, acceleration, compat)
    undefined = np.isnan(distribution).any(axis=-1) | np.isnan(estimates)
    if undefined.any():
        bounds = bounds.copy()
        bounds[undefined] = np.nan
    floored = np.zeros(bounds.shape, dtype=bool) if floored is None else floored & np.isfinite(bounds).all(
        axis=-1, keepdims=True)
    return bounds, se, floored


# ----------------------------------------------------------------------------- the studentised (bootstrap-t) interval

#: The studentised interval kinds: the default; ``"studentized_no_welch"``, the default before session 20 (the mean's
#: and optimality gap's bootstrap-t bounds without :func:`welch_floor`), and ``"studentized_unwidened"``, the default
#: before the mean's and median's skewness widening (:func:`skew_widened`), each kept bit for bit; they differ only in
#: those metrics' intervals.
STUDENTIZED_INTERVALS = ("studentized", "studentized_no_welch", "studentized_unwidened")
#: The studentised kinds whose mean's and median's intervals are widened on the side of the runs' skew.
WIDENED_INTERVALS = ("studentized", "studentized_no_welch")


def interval_kinds(kinds, n_tasks, interval, below_gamma=None):
    """(K, M) the built-in metric whose interval each agent's each of ``kinds`` takes, its method, its rules for
    withholding it, its notes and its rows of the calibration table: the one per-agent rule of both cases where a
    metric is the mean of task means or gamma minus it (``below_gamma``: (K,) ``statistics.gap_is_mean``, None: one
    agent with a score above gamma).

    The median, every agent's: on 1 or 2 tasks (``statistics.median_is_mean``) the median of task means is the mean of
    task means, the same number (with any runs per task: both weigh each task alike), so it takes the mean's interval
    (audit s26 median26: HalfCheetah SAC, 1 task x 192 runs, got (11588, 12108) for the mean and (11674, 12111) for
    the median). The median's own t interval, made for the middle of 3 or more tasks, covered less there on skewed
    runs (the calibration table's default rows: 0.885-0.893 on 1 task x 3-10 runs and 0.908-0.935 on 2 tasks x 3-20
    runs, where the mean's covered 0.934-0.964 and 0.949-0.962; it was 0.59-0.96 of the mean's width,
    ``tests/reference/median_mean_width.py``). The former defaults (``"studentized_no_welch"``,
    ``"studentized_unwidened"``) are kept bit for bit, their median's t interval with them; every other interval was
    already the mean's up to rounding (the same resamples).

    The optimality gap, each agent's own: under the default interval, where every score of the agent is at or below
    gamma, the gap, the mean of max(gamma - score, 0) over each task's runs averaged over tasks, is gamma minus the mean
    of task means, on any tasks and runs: one number, whose resamples and standard errors are the mean's reflected,
    so it takes the mean's interval reflected (its skew widening by the mean's skewness negated,
    :func:`widening_skewness`), by the mean's rules (audit s27 median27: it lacked the mean's widening on the side of
    the runs' skew, on which the mean's unwidened interval covered 0.917-0.923 at 2 and 5 tasks x 5 skewed runs, and
    on one task it was withheld below 50 runs where the mean's is given from 20; ``tests/reference/gap_below_gamma.py``).
    The former defaults are kept bit for bit, and every other interval was already the mean's reflected (the same
    resamples). The gap is still computed as the gap (:func:`computed_metrics`)."""
    median = median_is_mean(n_tasks) and interval not in STUDENTIZED_INTERVALS[1:]
    below = np.zeros(1, dtype=bool) if below_gamma is None else np.asarray(below_gamma, dtype=bool)
    out = np.empty((below.size, len(kinds)), dtype=object)
    for j, kind in enumerate(kinds):
        out[:, j] = "mean" if kind == "median" and median else kind
        if kind == "optimality_gap" and interval == "studentized":
            out[below, j] = "mean"
    return out


def computed_metrics(kinds, cells):
    """(M,) the built-in metric each of ``kinds`` is computed as, from ``cells``, its :func:`interval_kinds`: the
    median of 1 or 2 task means as the mean (the same number, bit for bit the mean's resamples); the optimality gap
    as the gap wherever it takes the mean's interval (gamma minus the mean is another rounding of it)."""
    return tuple("mean" if kind == "median" and cells[0, j] == "mean" else kind for j, kind in enumerate(kinds))


def gap_takes_mean(kinds, cells):
    """(K,) the agents whose optimality gap takes the mean's interval reflected (:func:`interval_kinds`)."""
    return ((np.asarray(cells) == "mean") & (np.asarray(kinds, dtype=object) == "optimality_gap")[None]).any(axis=1)



def median_is_mean_note(kinds, cells, names, n_tasks, interval):
    """The line saying that the median's interval is the mean's, or None (``cells``: :func:`interval_kinds` of
    ``kinds``, the built-in metric each of ``names`` computes; the words: ``vocabulary.median_is_mean_words``)."""
    if interval != "studentized" or computed_metrics(kinds, cells) == tuple(kinds):
        return None  # the other intervals were the mean's already: no interval of the median's own to tell apart
    # each median of task means named (a renamed one by what it computes) and the mean by what it averages: "the
    # median" alone reads as the runs' median (review26c, audit s27 median27)
    medians = [median_of_task_means(name) for name, kind in zip(names, kinds) if kind == "median"]
    said = median_is_mean_words(n_tasks, join_and(medians), len(medians) > 1)
    return (f"{said}: {'each takes' if len(medians) > 1 else 'it takes'} the interval of the mean of task means, by "
            "its method and its rules for withholding it (the t interval made for the median of 3 or more task means covered less on skewed runs in simulations "
            "of 1 and 2 tasks)")


def pooled_run_skewness(y, task, n_tasks):
    """(g, tasks, sizes, means, variance): the runs' skewness pooled over tasks, as the mean of the k-statistic
    skewness k3 / s^3 of each task with at least 3 runs and some spread beyond round-off (``tasks`` of them; g 0
    where none has), with each task's runs, mean and variance (ddof 1) beside it. ``y`` and ``task`` (codes below
    ``n_tasks``) are one agent's runs, in any order.

    One shape for every task, read from all the agent's runs rather than one task's few: a task whose runs miss their
    rare large value shows no skew of its own. Used by the bootstrap's skew widening (:func:`widening_skewness`) and
    the ``"skew_t"`` band of a ``kind="tasks"`` profile (``_kernels.profile_task_bounds``).
    """
    y, task = _by_task_and_score(y, task)
    sizes = np.bincount(task, minlength=n_tasks).astype(float)
    means = np.bincount(task, weights=y, minlength=n_tasks) / np.maximum(sizes, 1)
    deviation = y - means[task]
    scale = np.abs(deviation).max(initial=0.0)
    if not scale > 0 or not np.isfinite(scale):
        return 0.0, 0, sizes, means, np.zeros(n_tasks)
    deviation = deviation / scale  # moments in units of the largest deviation: no underflow of tiny scores
    # sums by bincount, not statistics.grouped_shape_ratios' reduceat, which adds in another order
    second = np.bincount(task, weights=deviation ** 2, minlength=n_tasks)
    third = np.bincount(task, weights=deviation ** 3, minlength=n_tasks)
    variance = second / np.maximum(sizes - 1, 1)
    # a task whose runs tie up to round-off (statistics.near_ties) shows no skewness, not the sqrt(n) of one run
    # 1e-16 off the others: the profile's band counts it as flat, and one score's round-off had moved the bands
    # by 0.67 (audit s12 review)
    snapped = near_ties(y, task)[0]
    low, high = block_ranges(snapped, task, n_tasks)
    usable = (sizes >= 3) & (variance > 0) & (high > low)
    if not usable.any():
        return 0.0, 0, sizes, means, variance
    g = float(np.mean(shape_ratios(sizes, second, third)[0][usable]))  # the mean of the tasks' G1 = k3 / s^3
    return g, int(usable.sum()), sizes, means, variance


def widening_skewness(design, agent, metrics, cells=None):
    """(M,) the skewness of ``agent``'s mean and median of task means for :func:`skew_widened` (0 for the other
    metrics), with the runs' skewness g pooled over tasks (:func:`pooled_run_skewness`); ``metrics``: the metric each
    is computed as, ``cells`` (M,) the agent's :func:`interval_kinds` (None: ``metrics``): an optimality gap taking the
    mean's interval is gamma minus the mean of task means, whose skewness is the mean's negated.

    A mean of task means over the tasks S (all of them for the mean; the middle one, or the two middle ones, for the
    median) has the skewness :func:`skewness_of_means` gives (curves()' median bands read it step by step).  0 where
    no task has 3 runs with spread.
    """
    out = np.zeros(len(metrics))
    mine = design.agent == agent
    g, usable, sizes, means, variance = pooled_run_skewness(design.y[mine], design.task[mine], design.n_tasks)
    if not usable:
        return out
    tasks = design.n_tasks
    share = variance / np.maximum(sizes, 1)  # each task mean's variance; its third cumulant g s^3 / c^2
    subsets = {"mean": np.flatnonzero(sizes > 0),
               "median": np.argsort(means, kind="stable")[(tasks - 1) // 2:tasks // 2 + 1]}
    for j, (metric, kind) in enumerate(zip(metrics, metrics if cells is None else cells)):
        chosen = subsets.get(kind)
        if chosen is not None:
            out[j] = (-1.0 if metric == "optimality_gap" else 1.0) * skewness_of_means(g, share[chosen], sizes[chosen])
    return out


def gap_is_mean_note(agents, names, kinds, cells, gamma, n_tasks, capped=None):
    """The line saying which agents' optimality gap takes their mean's interval reflected (:func:`interval_kinds`,
    ``cells``), or None (the words: ``vocabulary.gap_is_mean_words``); ``capped``: why no score can exceed gamma
    (``Design.ceiling_at_or_below``), which the line says with what follows (``vocabulary.gap_capped_words``)."""
    which = gap_takes_mean(kinds, cells)
    if not np.any(which):
        return None
    gaps = [metric_label(name) for name, kind in zip(names, kinds) if kind == "optimality_gap"]
    whose = join_and(names_shown([a for a, w in zip(agents, which) if w], among=agents), limit=4)
    subject = (f"each agent's {join_and(gaps)}" if np.all(which) else
               f"the {join_and(gaps)} of {whose}")
    one_task = (f" (on one task from {ONE_TASK_MIN_RUNS['mean']} runs, where the gap's own interval needs "
                f"{ONE_TASK_MIN_RUNS['optimality_gap']})" if n_tasks == 1 else "")
    return (f"{gap_is_mean_words('every agent' if np.all(which) else whose, f'{gamma:g}', subject)}: it takes that "
            f"mean's interval reflected (gamma minus its "
            f"bounds, the gap at least 0), by its method (widened on the side of the runs' skew) and its rules for withholding it{one_task}"
            f"{gap_capped_words(capped, 'interval')}")


#: Fewest runs in a task for which the studentised interval is given: with 2, a resampled task repeats one run
#: half the time (its standard error 0), and no interval measured at 2 runs held its level (calibration table).
STUDENTIZED_MIN_RUNS = 3

#: Fewest runs from which the studentised interval of each built-in metric is given on a single task (None: never),
#: where it was withheld whatever the runs on issue 40's measurement at 3-20 runs: the count from which every one-task
#: row of the calibration table holds 95% (audit s19, ``tests/reference/coverage_one_task.py``: 1,920 intervals a row
#: at 10-200 runs, Monte Carlo SE 0.005; re-measured by audit s35 former35b on the cell streams of audit s33, whose
#: numbers these are). The IQM held from 20 runs (0.943-0.969; 10: 0.901 capped), the median of
#: task means, which is the task's mean there, from 30 (0.937-0.977; 20: 0.935 skewed, a miss, re-measured 0.937, which
#: holds, so from 20 on today's rows) with its t interval; since audit s26
#: it takes the mean's interval there (:func:`interval_kinds`). The mean's missed on
#: heavy-tailed runs at 20-100 runs (0.919-0.934; 0.942 at 200), the optimality gap's at 20-30 (0.932 heavy-tailed; at
#: 200 0.931, re-measured 0.937, which holds): withheld at every count. With the Welch floor (:func:`welch_floor`, audit
#: s20; on one task the t interval at c - 1 df where it is wider) the mean's held from 20 runs (0.952-0.980 at 20-200,
#: worst draw 0.940; at 10, 0.934 on skewed runs) and the optimality gap's from 50 (0.954-0.974, worst draw 0.944; at
#: 30, 0.941 with a worst draw of 0.906 on heavy-tailed runs).
#: On one task the median of task means takes the mean's interval (:func:`interval_kinds`, audit s26): its count is the
#: mean's; its own t interval's is the former defaults' (:data:`FORMER_ONE_TASK_MIN_RUNS`). So does an agent's
#: optimality gap where its every score is at or below gamma, gamma minus its mean there (:func:`interval_kinds`, audit
#: s27). A count held only by the most runs measured (200) is no count: the rows must hold from one count on, over
#: more than the last (``tests/test_audit_s36_former36.py`` computes every count from the rows).
ONE_TASK_MIN_RUNS = {"iqm": 20, "mean": 20, "median": 20, "optimality_gap": 50}
#: The same for the former default ``"studentized_no_welch"`` (the bootstrap-t without the Welch floor), on today's
#: rows (audit s36 former36; they held the counts before audit s35 former35b's re-measure, median 30 and the gap
#: never, until then): its IQM's interval is the default's (20); its median's t interval (the rows "t interval") held
#: from 20 runs (0.937-0.969 at 20, worst draw 0.925; at 10, 0.889 on skewed runs); its optimality gap's from 50
#: (0.937-0.969, worst draw 0.931; at 30 heavy-tailed 0.932, worst draw 0.904); its mean's missed on heavy-tailed runs
#: at 20-100 runs (0.919-0.934) and held at 200 alone (0.942): withheld at every count.
FORMER_ONE_TASK_MIN_RUNS = {"iqm": 20, "mean": None, "median": 20, "optimality_gap": 50}
#: The same for ``"studentized_unwidened"``, whose optimality gap is ``"studentized_no_welch"``'s (neither widens nor
#: floors it) and whose mean's and median's intervals lack the skew widening: neither is in the table on one task. The
#: median's unwidened t interval missed on skewed runs at 20, 30 and 100 runs (0.892, 0.919 and 0.913 of 480 nominal 95%
#: intervals, Monte Carlo SE 0.010; 0.925 at 50, 0.933 at 200; ``tests/reference/coverage_one_task_unwidened.py``,
#: audit s36 former36), where it was given from 30 runs on the widened interval's rows: withheld at every count.
UNWIDENED_ONE_TASK_MIN_RUNS = {**FORMER_ONE_TASK_MIN_RUNS, "median": None}


def one_task_min_runs(interval="studentized"):
    """{metric: fewest runs from which ``interval``'s studentised interval is given on one task (None: never)}."""
    return {"studentized": ONE_TASK_MIN_RUNS,
            "studentized_unwidened": UNWIDENED_ONE_TASK_MIN_RUNS}.get(interval, FORMER_ONE_TASK_MIN_RUNS)


class StandardErrors:
    """Per-resample standard errors of the built-in metrics, read off canonical counts (one object per thread).

    The stratified delta-method (influence) standard error, with each task's variance on c_t - 1 degrees of
    freedom, of: the mean of task means (sum_t s_t^2 / c_t over T^2); the optimality gap (the pooled mean of
    min(score, gamma): sum_t c_t s_t^2 over N^2); the IQM (the winsorised variance at the resample's own cuts,
    Tukey and McLaughlin 1963, stratified: sum_t c_t s_wt^2 over h^2, h the runs kept); the median of task means
    (the standard error of the middle task's mean, or half the root of the two middle ones' summed variances).
    Calling it on counts (rows, n) in canonical slot order gives (rows, M); on a row of ones, the data's own.
    """

    def __init__(self, layout, metrics, gamma):
        self.layout, self.metrics = layout, tuple(metrics)
        self.values = layout.canonical_values
        self.clipped = np.minimum(self.values, gamma)
        self.order = kernels.pooled_slots(layout)
        n = layout.n_runs
        # unequal runs per task: the IQM and optimality gap weigh each run c_max / c_t (AgentLayout.run_weight), so
        # each task's weight is c_max rather than its c_t runs, and the IQM cuts floor(T c_max / 4) weighted copies
        self.weight = layout.run_weight  # pooled order; None when balanced
        self.total = layout.weighted_runs if self.weight is not None else float(n)
        self.cut = int(self.total) // 4
        self.kept = self.total - 2 * self.cut
        self.task_weight = layout.task_sizes.astype(np.float64) if self.weight is None else \
            np.full(layout.n_tasks, float(layout.task_sizes.max()))
        # each slot's task mean on the data: moments about it keep the variances exact for shifted scores
        task_mean = np.add.reduceat(self.values, layout.task_start) / layout.task_sizes
        # ... except in a task whose values are all one (for the optimality gap: every run at or above gamma), which
        # is its own centre, so that its deviations are exactly 0 and so is its variance: a mean 1 ulp off the
        # value left a standard error of rounding noise, positive or 0 as the scores' units fell, and with it an
        # interval given or withheld (audit s7)
        self.anchors = {name: self._anchors(array, task_mean) for name, array in
                        (("values", self.values), ("clipped", self.clipped))}
        self.centre = np.repeat(self.anchors["values"], layout.task_sizes)
        # and in units of the largest deviation, so that squares of tiny scores (1e-150) do not underflow
        top = float(np.abs(self.values - self.centre).max(initial=0.0))
        self.unit = top if top > 0 and np.isfinite(top) else 1.0
        self._deviations = {}  # (array - its centre) / unit of the named arrays "values" and "clipped", made once
        # a resample of more than kernels.TASK_BLOCK runs is taken in slices of whole tasks: (slots, tasks, task starts)
        edges = kernels.task_slices(layout)
        self.slices = None
        if edges is not None:
            tasks = [slice(*np.searchsorted(layout.task_start, (a, b))) for a, b in zip(edges[:-1], edges[1:])]
            self.slices = [(slice(a, b), t, layout.task_start[t] - a) for a, b, t in zip(edges[:-1], edges[1:], tasks)]

    def _anchors(self, array, task_mean):
        """(T,) each task's centre for ``array``: the data's task mean, or the task's one value where all are one."""
        start = self.layout.task_start
        constant = np.maximum.reduceat(array, start) == np.minimum.reduceat(array, start)
        return np.where(constant, array[start], task_mean)

    def task_moments(self, counts, values):
        """(sums, sums of squares) per task of the resampled ``values`` (rows, T), taken about the data's task means.

        ``values`` is an array of slot values, or the name of one this object holds ("values", "clipped"), whose
        deviations are then made once: a chunk holds a single resample on large designs (kernels.chunk_rows), where
        making them again at every call doubled the work of every chunk (growth above linear in the runs).
        """
        layout = self.layout
        if isinstance(values, str):
            if values not in self._deviations:
                centre = np.repeat(self.anchors[values], layout.task_sizes)
                self._deviations[values] = (getattr(self, values) - centre) / self.unit
            deviation = self._deviations[values]
        else:
            deviation = (values - self.centre) / self.unit
        if self.slices is None or counts.shape[0] != 1:
            first = counts * deviation
            second = first * deviation
            return (np.add.reduceat(first, layout.task_start, axis=1), np.add.reduceat(second, layout.task_start, axis=1))
        # one resample, slice by slice in the core's cache: each task's sums are the same reduceat over the same values
        sums, squares = np.empty((1, layout.n_tasks)), np.empty((1, layout.n_tasks))
        for slots, tasks, starts in self.slices:
            part = deviation[..., slots]
            first = counts[:, slots] * part
            sums[:, tasks] = np.add.reduceat(first, starts, axis=1)
            first *= part
            squares[:, tasks] = np.add.reduceat(first, starts, axis=1)
        return sums, squares

    def task_variances(self, counts, values):
        """(rows, T) each task's variance of the resampled values (an array or a name, as :meth:`task_moments`), on
        c_t - 1 degrees of freedom, and (rows, T) their task means."""
        sizes = self.layout.task_sizes
        sums, squares = self.task_moments(counts, values)
        centred = np.maximum(squares - sums * sums / sizes, 0.0)
        anchors = self.anchors[values if isinstance(values, str) else "values"]
        return centred / np.maximum(sizes - 1, 1), sums / sizes * self.unit + anchors

    def __call__(self, counts):
        if self.slices is None or counts.shape[0] != 1:  # a slice's int64 counts times floats: the same products
            counts = np.asarray(counts, dtype=np.float64)
        sizes = self.layout.task_sizes.astype(np.float64)
        tasks = sizes.size
        out = np.empty((counts.shape[0], len(self.metrics)))
        plain = None
        for j, metric in enumerate(self.metrics):
            if metric in ("mean", "median"):
                if plain is None:
                    plain = self.task_variances(counts, "values")
                variance, means = plain
                if metric == "mean":
                    out[:, j] = np.sqrt((variance / sizes).sum(axis=1)) / tasks
                else:
                    out[:, j] = middle_se(means, variance / sizes)
            elif metric == "optimality_gap":  # sum_t W_t^2 s_t^2 / c_t over W^2, W_t a task's weight (c_t pooled)
                variance, _ = self.task_variances(counts, "clipped")
                out[:, j] = np.sqrt((self.task_weight ** 2 / sizes * variance).sum(axis=1)) / self.total
            else:  # iqm: winsorised at the resample's own cut order statistics
                pooled = np.take(counts, self.order, axis=1)
                if self.weight is not None:
                    pooled = pooled * self.weight
                cumulative = np.cumsum(pooled, axis=1)
                values = self.layout.values
                low = values[np.argmax(cumulative > self.cut, axis=1)]
                # the (total - cut)-th copy: whole counts reach it where cumulative > n - 1 - cut; weighted ones
                # within their sums' rounding
                slack = 0.5 if self.weight is None else 1e-9 * self.total
                high = values[np.argmax(cumulative > self.total - self.cut - slack, axis=1)]
                winsorised = np.clip(self.values[None, :], low[:, None], high[:, None])
                variance, _ = self.task_variances(counts, winsorised)
                # a task whose counted runs are winsorised to one value has no spread: 0, not the rounding of their
                # deviations from the raw runs' task mean, which was 0 or 1e-10 of the score as its units fell and
                # gave the interval's withholding one reason or another (audit s38 meta38)
                drawn = counts > 0
                start = self.layout.task_start
                one = (np.maximum.reduceat(np.where(drawn, winsorised, -np.inf), start, axis=1)
                       == np.minimum.reduceat(np.where(drawn, winsorised, np.inf), start, axis=1))
                variance = np.where(one, 0.0, variance)
                out[:, j] = np.sqrt((self.task_weight ** 2 / sizes * variance).sum(axis=1)) / self.kept
        return out * self.unit  # the variances were in units of self.unit squared


def middle_se(means, variances):
    """(rows,) standard error of the median of task means: that of the middle task's mean (two middle ones' mean)."""
    tasks = means.shape[1]
    order = np.argsort(means, axis=1, kind="stable")
    middle = order[:, (tasks - 1) // 2:tasks // 2 + 1]  # one column (odd T) or two (even T)
    chosen = np.take_along_axis(variances, middle, axis=1)
    return np.sqrt(chosen.sum(axis=1)) / middle.shape[1]


def median_se(resamples, estimate, fewest_runs):
    """The median of task means' standard error for its t interval: sqrt(c / (c - 1)) times the root mean square of
    the resamples' deviations from the estimate, c the agent's fewest runs in a task.

    The median is not studentised per resample: its influence sits on whichever tasks are in the middle, so a
    resample's standard error (the middle task's) jumps between tasks, and bootstrap-t intervals of the median
    covered 0.87-0.91 at 5 tasks and 10 runs in simulation (issue 40).  The bootstrap's spread of the median
    follows the tasks near the middle instead (at 26 tasks several share it, and the middle task's own standard
    error overstated it about twofold); sqrt(c / (c - 1)) undoes the resampling's shrinking of each task mean's
    variance by (c - 1) / c, and the deviations are taken about the estimate rather than the resamples' mean,
    so that the median's bias, which simulation showed comparable to its spread at 26 tasks, widens the interval.
    """
    resamples = np.asarray(resamples, dtype=np.float64)
    deviation = resamples - np.asarray(estimate, dtype=np.float64)[..., None]
    top = np.abs(deviation).max(axis=-1, keepdims=True)  # in units of the largest deviation: no underflow
    unit = np.where((top > 0) & np.isfinite(top), top, 1.0)
    rms = np.sqrt(np.mean((deviation / unit) ** 2, axis=-1)) * unit[..., 0]
    fewest_runs = np.asarray(fewest_runs, dtype=np.float64)
    return rms * np.sqrt(fewest_runs / (fewest_runs - 1))


def median_se_relative_error(resamples, estimate):
    """(...,) the Monte Carlo error of :func:`median_se` relative to it: sd(d^2) / (2 mean(d^2) sqrt(B)) for the B
    resamples' deviations d from the estimate (the delta method on the root of a mean; 0 where every d is 0)."""
    deviation = np.asarray(resamples, dtype=np.float64) - np.asarray(estimate, dtype=np.float64)[..., None]
    top = np.abs(deviation).max(axis=-1, keepdims=True)  # in units of the largest deviation: no underflow
    square = (deviation / np.where((top > 0) & np.isfinite(top), top, 1.0)) ** 2
    mean = square.mean(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = square.std(axis=-1, ddof=1) / (2 * mean * np.sqrt(square.shape[-1]))
    return np.where(mean > 0, out, 0.0)


def resampled_se(layout, metrics, gamma, n_resamples, ss, n_jobs=1, advance=None):
    """(n_resamples, M) the standard errors of the resamples that :func:`kernels.bootstrap_agent` draws from ``ss``.

    The same blocks and chunks (:func:`kernels.statistics_from_counts`), so row b pairs with that function's row b;
    ``advance(n)`` is called as their resamples are done, as the bar's second pass.
    """
    return kernels.statistics_from_counts(ss, layout, n_resamples, len(metrics),
                                          lambda rows: StandardErrors(layout, metrics, gamma), n_jobs=n_jobs,
                                          advance=advance)


def data_se(layout, metrics, gamma):
    """(M,) the standard errors of the data's own metrics (every run counted once)."""
    return StandardErrors(layout, metrics, gamma)(np.ones((1, layout.n_runs)))[0]


def studentized_bounds(distribution, estimates, resampled, observed, confidence_level):
    """(bounds, mc_se), each (..., 2): the bootstrap-t interval (Efron and Tibshirani 1993, Section 12.5).

    t* = (theta* - theta) / se* over the resamples; the bounds are theta - q(1 - a/2) se and theta - q(a/2) se,
    q the quantiles of t*.  A resample with se* = 0 has t* = +-inf (0 where theta* = theta), so when more than
    a/2 of them are degenerate a bound is infinite: such an interval is withheld (NaN) by the caller's rule.
    """
    estimates = np.asarray(estimates, dtype=np.float64)
    deviation = distribution - estimates[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = deviation / resampled
        t = np.where(resampled > 0, t, np.sign(deviation) * np.inf)
    t = np.where(np.isnan(t), 0.0, t)
    alpha = (1 - confidence_level) / 2
    sorted_t = np.sort(t, axis=-1)
    levels = np.array([alpha, 1 - alpha])
    b = sorted_t.shape[-1]
    position = levels * (b - 1)
    below = np.floor(position).astype(np.intp)
    above = np.minimum(below + 1, b - 1)
    frac = position - below
    low_t, high_t = sorted_t[..., below], sorted_t[..., above]
    with np.errstate(invalid="ignore"):
        q = np.where(frac > 0, low_t + frac * (high_t - low_t), low_t)  # inf stays inf
    observed = np.asarray(observed, dtype=np.float64)[..., None]
    bounds = estimates[..., None] - q[..., ::-1] * observed
    finite = np.isfinite(sorted_t)
    safe = np.where(finite, sorted_t, 0.0)
    se = np.stack([order_statistic_se(safe, np.full(safe.shape[:-1], level)) for level in levels[::-1]],
                  axis=-1) * observed  # the bound from the upper quantile of t* is the lower one
    # one bound undefined withholds the interval: a half-open "(-0.07 to NaN)" is no interval, and the note says withheld
    bad = (~np.isfinite(bounds) | ~(observed > 0)).any(axis=-1, keepdims=True)
    return np.where(bad, np.nan, bounds), np.where(bad, np.nan, se)


def studentized_withheld(fewest_runs, n_tasks, metrics, interval="studentized"):
    """(K, M) the studentised intervals withheld: an agent's with fewer than STUDENTIZED_MIN_RUNS runs in some task,
    and on a single task those of a metric with fewer than its ``ONE_TASK_MIN_RUNS`` (:func:`one_task_min_runs` of
    ``interval``; a metric function's always: it gives way to the percentile interval anyway). ``metrics``: (M,) the
    metric of every agent's, or (K, M) each agent's (:func:`interval_kinds`: an optimality gap taking the mean's
    interval, by the mean's count)."""
    fewest_runs = np.asarray(fewest_runs)[:, None]
    table = one_task_min_runs(interval)
    kinds = np.asarray(metrics, dtype=object)
    one_task = [table.get(m) for m in kinds.ravel()]  # None (or not built in): never
    need = np.array([STUDENTIZED_MIN_RUNS if n_tasks > 1 else np.inf if n is None else n for n in one_task],
                    dtype=float).reshape(kinds.shape)
    need = np.broadcast_to(need, (fewest_runs.shape[0], kinds.shape[-1]))
    return fewest_runs < np.maximum(need, STUDENTIZED_MIN_RUNS)


def cells_named(agents, metrics, which, after=None):
    """The (agent, metric) cells ``which`` ((K, M) booleans) as prose, by metric in its order and with its printed
    label: "the optimality gap of IRIS and SPR; the IQM of DER" (``after``: a value said after each agent, "IRIS
    (5)"): the words of every note naming intervals by agent and metric, as its table's ``metric`` column and its prose
    name them (the codes, "IRIS/optimality_gap", read as a path, audit s25)."""
    which = np.asarray(which, dtype=bool)
    groups = []
    for j in np.flatnonzero(which.any(axis=0)):
        rows = np.flatnonzero(which[:, j])
        shown = names_shown([agents[i] for i in rows], among=agents)
        if after is not None:
            shown = [f"{name} {after[i]}" for name, i in zip(shown, rows)]
        groups.append(f"the {metric_label(metrics[j])} of {join_and(shown)}")
    return "; ".join(groups)


def saturated_note(cells):
    """The note of the studentised intervals withheld for saturated runs (``cells``: :func:`cells_named`'s words)."""
    return (f"studentized intervals withheld for {cells}: three quarters or more of the agent's runs sit at "
            "a task's largest or smallest score (a cap often reached) and too few are off it to read their spread: "
            "on simulated runs with 85% of a baseline's at a cap, nominal 95% intervals covered 0.64-0.91 (IQM) and "
            "0.78-0.94 (mean, optimality gap) at 5-10 tasks x 3-10 runs, and the median's 0.47-0.88 at 5-26 tasks; "
            "the percentile, basic, BCa and expanded intervals did worse (0.29-0.69 at 5 tasks x 3 runs); report "
            "each agent's share of runs at the cap (a proportion), or add runs and tasks (intervals are given from 8 "
            "runs off the cap for the IQM, 6 for the mean and the optimality gap, and held there)")


def median_tied_note(cells):
    """The note of the median's studentised intervals withheld for runs tied at a bound (``cells``:
    :func:`cells_named`'s words; ``rlstats.bounds.median_tied_at_middle``)."""
    return (f"studentized intervals withheld for {cells}: there {MEDIAN_TIED_SHARE:g} or more of the "
            "agent's runs tie at a task's largest or smallest score (a cap reached), and "
            f"{MEDIAN_MIDDLE_TIED_SHARE:g} or more of those of the tasks the median sits on (or "
            f"{MEDIAN_TIED_SHARE_ALONE:g} or more of all its runs), whose few runs off the tie then move it: on "
            "simulated runs with 36-70% of them at a cap, its nominal 95% intervals covered 0.87-0.95 at 5 tasks x "
            "3-10 runs, given wherever fewer than three quarters sat at the cap; report each agent's share of runs at "
            "the cap, or the mean or IQM")


def _one_task_shortfall(metric, interval="studentized"):
    """(coverage, runs, distribution, how it misses) of the lowest one-task row of ``interval`` (a studentised one) of
    ``metric`` that misses 95% from ``GRID_MOST_RUNS`` runs on (the reason its interval is withheld on one task
    whatever the runs), or None. How it misses: :func:`rlstats.calibration.miss_clause`, with the worst draw's
    coverage before it where only that draw misses. The former defaults read the rows of ``"studentized_no_welch"``
    (the one measured on one task before the Welch floor); ``"studentized_unwidened"`` its optimality gap's alone, the
    same interval: its mean's and median's lack the skew widening, and their rows on one task are not in the table
    (audit s36 former36: the widened interval's rows were quoted for them)."""
    if interval == "studentized_unwidened" and metric in ("mean", "median"):
        return None
    measured = "studentized" if interval == "studentized" else "studentized_no_welch"
    rows = [r for r in _rows_by_runs(measured, metric, True).items() if r[0] >= GRID_MOST_RUNS]
    missed = [row for _, group in rows for row in group if calibration.misses(row, 0.95)]
    if not missed:
        return None
    low = min(missed, key=lambda row: float(row["coverage"]))
    clause = calibration.miss_clause(low, 0.95, target="95%")
    if clause.startswith("its worst draw"):
        clause = calibration.worst_draw_clause(low)[2:] + ", " + clause
    return float(low["coverage"]), int(low["runs"]), low["distribution"].replace("_", "-"), clause


def one_task_note(fewest_runs, agents, metrics, withheld, interval="studentized", kinds=None, cells=None,
                  task="task"):
    """The note of the studentised intervals withheld on a single task (``withheld``, (K, M)): from how many runs each
    metric's ``interval`` is given, what the calibration table's one-task rows measured, and the way on (audit s19).
    ``kinds``: the built-in metric each of ``metrics`` (their names) computes, whose counts and rows are read (None: the
    names; audit s26: ``metrics={"avg": "mean"}`` looked "avg" up, and said it withheld whatever the runs); ``cells``:
    each agent's :func:`interval_kinds` (an optimality gap given by the mean's count), None: ``kinds``."""
    table = one_task_min_runs(interval)
    kinds = tuple(metrics) if kinds is None else tuple(kinds)
    fewest_runs = np.asarray(fewest_runs)
    named = cells_named(agents, metrics, withheld, after=[f"({int(n)})" for n in fewest_runs])
    shown = [(m, k) for m, k in dict.fromkeys(zip(metrics, kinds)) if k in table]  # (name, kind)
    # an agent whose every score is at or below gamma: its optimality gap is gamma minus its mean (interval_kinds)
    reflected = (f" (the mean's {table['mean']} where every score of the agent is at or below gamma, the gap then "
                 "gamma minus the mean of task means)" if cells is not None and gap_takes_mean(kinds, cells).any()
                 else "")
    given = [f"the {metric_label(m)}'s from {table[k]} runs{reflected if k == 'optimality_gap' else ''}"
             for m, k in shown if table[k]]
    never = {m: (k, _one_task_shortfall(k, interval)) for m, k in shown if table[k] is None}
    said = []
    if given:
        said.append(f"{join_and(given)} are given, the counts from which they held 95% in simulations of one task "
                    f"(the calibration table's one-task rows, up to "
                    f"{max(measured_coverage('studentized', shown[0][1], True), default=0)} runs)")
    if never:
        lows = {}  # {how they miss (pooled, or in their worst draw only): the rows}
        for m, (_, low) in never.items():
            if low:
                lows.setdefault(low[3], []).append(
                    f"the {metric_label(m)}'s {low[0]:.3f} at {low[1]} {low[2]} runs")
        there = "; ".join(f"{join_and(items)}, {clause}" for clause, items in lows.items())
        # a former default's interval with no one-task rows of its own (studentized_unwidened's mean and median:
        # audit s36 former36, where the widened interval's rows were quoted)
        bare = [f"the {metric_label(m)}'s" for m, (_, low) in never.items() if not low]
        unmeasured = f"{join_and(bare)} not in the calibration table on one task" if bare else ""
        said.append(f"{join_and(f'the {metric_label(m)}' + chr(39) + 's' for m in never)} are withheld whatever the "
                    "runs"
                    + (f" ({'; '.join(part for part in (there and f'there {there}', unmeasured) if part)})"
                       if lows or bare else ""))
    # more runs help only a metric given from some count
    tasks = plural(task)  # the data's blocks by their column (audit s33 words33b); the simulations keep "task"
    more = tasks if all(table.get(kinds[j]) is None for j in np.nonzero(withheld)[1]) else f"runs or {tasks}"
    way = f"add {more}, or use interval=\"percentile\" (its measured coverage is quoted)"
    if "mean" in {k for k, _ in never.values()} and table.get("median"):
        way = (f"for the mean of task means read the interval of the median of task means ({median_is_mean_words(1)}, "
               f"given from {table['median']} runs); " + way)
    if interval != "studentized":  # a former default: the default gives some of these from a count (audit s20)
        default = [f"the {metric_label(m)}'s from {ONE_TASK_MIN_RUNS[k]} runs" for m, (k, _) in never.items()
                   if ONE_TASK_MIN_RUNS.get(k)]
        if default:
            way = f"interval=\"studentized\" (the default) gives {join_and(default)}; " + way
    return (f"studentized intervals withheld on a single {task} for {named} (fewest runs): on one {task} "
            f"{'; '.join(said)}; {way}")


def studentized_notes(bounds, fewest_runs, n_tasks, agents, metrics, observed=None, saturated=None, tied=None,
                      interval="studentized", kinds=None, cells=None, task="task"):
    """Notes saying which studentised intervals are withheld, why, and the way on (``observed``: the (K, M) standard
    errors of the data, to tell an interval withheld for the data's own lack of spread from one withheld for its
    resamples'; ``saturated``: the (K, M) intervals withheld for saturated runs, ``rlstats.bounds.saturated_withheld``,
    and ``tied`` those of them withheld by the median's rule alone, ``rlstats.bounds.median_tied_at_middle``;
    ``interval``: which studentised interval, whose one-task counts apply; ``kinds``: the built-in metric each of
    ``metrics``, their names, is computed as (:func:`computed_metrics`), None: the names; ``cells``: the (K, M) metric
    whose interval each agent's takes, :func:`interval_kinds`, None: ``kinds``; ``task``: the blocks as the notes
    call them, ``Design.block_word``)."""
    notes = []
    kinds = tuple(metrics) if kinds is None else tuple(kinds)
    withheld = studentized_withheld(fewest_runs, n_tasks, kinds if cells is None else cells, interval)
    if n_tasks < 2 and withheld.any():
        notes.append(one_task_note(fewest_runs, agents, metrics, withheld, interval, kinds, cells, task))
    elif withheld.any():
        out = np.flatnonzero(withheld.any(axis=1))
        names = name_list([agents[i] for i in out], after=[f"({int(fewest_runs[i])})" for i in out], among=agents)
        notes.append(f"studentized intervals need at least {STUDENTIZED_MIN_RUNS} runs in every {task} and are "
                     f"withheld for {names} (fewest runs in {a_or_an(task)}): no interval measured at 2 runs per task "
                     "held its "
                     "level; add runs, or use task_bootstrap=True (tasks resampled too) or interval=\"percentile\" "
                     "(its measured coverage is quoted)")
    missing = np.isnan(bounds).any(axis=-1) & ~withheld
    if saturated is not None and saturated.any():
        missing &= ~saturated
        tied = np.zeros_like(saturated) if tied is None else tied
        for which, note in ((saturated & ~tied, saturated_note), (tied, median_tied_note)):
            if which.any():
                notes.append(note(cells_named(agents, metrics, which)))
    flat = missing & (np.zeros(missing.shape, dtype=bool) if observed is None else ~(np.asarray(observed) > 0))
    if flat.any():
        notes.append(f"studentized intervals withheld for {cells_named(agents, metrics, flat)}: the runs have no "
                     f"spread to studentise (they tie: in every {task}, or for the median, in the {task} it sits on in "
                     f"every resample; or for the optimality gap, in every {task} they tie or lie at or above gamma, "
                     "so the "
                     "metric is the same in every resample); an interval of one point would say nothing of runs not yet seen: report the "
                     "estimate with its runs, or add runs")
    degenerate = missing & ~flat
    if degenerate.any():
        notes.append(f"studentized intervals withheld for {cells_named(agents, metrics, degenerate)}: too many "
                     "resamples repeat one score in a task (standard error 0) to studentise; add runs, or use "
                     "interval=\"percentile\" (its measured coverage is quoted)")
    return notes


def middle_df(design, agent):
    """Welch-Satterthwaite degrees of freedom of the median of ``agent``'s task means: its middle task's c - 1, or
    the two middle tasks' pooled df (even number of tasks); the median's t interval reads its quantile there."""
    mine = design.agent == agent
    y, task = _by_task_and_score(design.y[mine], design.task[mine])
    sizes = np.bincount(task, minlength=design.n_tasks).astype(float)
    means = np.bincount(task, weights=y, minlength=design.n_tasks) / sizes
    squares = np.bincount(task, weights=(y - means[task]) ** 2, minlength=design.n_tasks)
    share = squares / np.maximum(sizes - 1, 1) / sizes  # the variance of each task mean
    tasks = design.n_tasks
    middle = np.argsort(means, kind="stable")[(tasks - 1) // 2:tasks // 2 + 1]
    part, dof = share[middle], sizes[middle] - 1
    if part.max() > 0:
        part = part / part.max()  # df is scale-free; squares of tiny variances would underflow to 0
    denominator = np.sum(part ** 2 / np.maximum(dof, 1))
    return float(part.sum() ** 2 / denominator) if denominator > 0 else float(dof.min())


def studentized_gives_way(interval, rliable_compat, task_bootstrap, metrics):
    """Why ``interval`` (a studentised one) gives way to the percentile interval: "" for ``rliable_compat=True``
    (rliable's interval, silently: that is what the option promises), "task_bootstrap=True" or "a metric function"
    (no within-task standard error, said in a note); None where it applies or ``interval`` is not studentised.

    One home for :func:`bootstrap` and for :func:`rlstats.power`, which plans the interval bootstrap() gives.
    """
    if interval not in STUDENTIZED_INTERVALS:
        return None
    if rliable_compat:
        return ""
    return ("task_bootstrap=True" if task_bootstrap else
            "a metric function" if any(callable(m) for m in metrics) else None)


def given_interval(interval, rliable_compat, task_bootstrap, metrics):
    """The interval :func:`bootstrap` gives when ``interval`` is asked: the default studentised one gives way to
    ``TASKS_INTERVAL`` with tasks resampled and built-in metrics alone (audit s29 taskboot29: to the percentile one
    before), and to the percentile one wherever else :func:`studentized_gives_way` says."""
    why = studentized_gives_way(interval, rliable_compat, task_bootstrap, metrics)
    if why is None:
        return interval
    if why == "task_bootstrap=True" and interval == "studentized" and not any(callable(m) for m in metrics):
        return TASKS_INTERVAL
    return "percentile"


#: The interval kinds whose bounds are quantiles of the resampled statistic, so that with tasks resampled they lie
#: within the range of the statistic over the tasks drawn (the basic interval reflects them; the expanded one is
#: refused with task_bootstrap=True).
QUANTILE_INTERVALS = ("percentile", "bca")


#: The calibration table's procedure measuring intervals with tasks resampled against the value of a population of
#: tasks (audit s28 taskboot28, ``tests/reference/coverage_tasks_resampled.py``).
TASKS_PROCEDURE = "bootstrap.interval_tasks"


#: The default interval of ``task_bootstrap=True`` for the built-in metrics (audit s29 taskboot29, replacing the
#: percentile interval, which missed 95% at every number of tasks simulated): each read at the expanded level whose
#: normal quantile is sqrt(n/(n-1)) t_{n-1} over the n tasks, the mean's as a bootstrap-t over tasks
#: (:func:`expanded_tasks_bounds`).
TASKS_INTERVAL = "expanded_tasks"
#: The fewest tasks from which each built-in metric's ``expanded_tasks`` interval held 95% in every
#: ``bootstrap.interval_tasks`` row (2-26 tasks x 3-10 runs, normal and skewed task means, runs' sd 0.3 and 2 times
#: theirs): the mean's bootstrap-t and the gap's expanded percentile interval from 10 (at 5 the mean's held 0.98-1.00
#: only as 3 to 7 times the width of Student's t, set by resamples of nearly one task; the gap's 0.904), the median's and
#: IQM's from 5 (0.942-0.999 and 0.930-1.000; audit s29 tbfix29b: they were given from 6 on a quantile interval's
#: ceiling 1 - 2^(1 - n), false of this one, whose runs resampled and expanded level take it beyond the task means'
#: range). Fewer tasks: withheld, with :func:`tasks_withheld_notes`.
TASKS_MIN_TASKS = {"mean": 10, "optimality_gap": 10, "median": 5, "iqm": 5}
#: The rows measuring the mean's ``expanded_tasks`` interval, a bootstrap-t (the others' rows are named as the interval).
TASKS_MEAN_ROWS = "expanded_tasks_t"


def tasks_expansion(level, n_tasks):
    """The level at which ``expanded_tasks`` reads its quantiles: 1 - 2 Phi(-sqrt(n/(n-1)) t_{n-1}((1 + level)/2))."""
    from scipy import special, stats
    z = np.sqrt(n_tasks / (n_tasks - 1)) * stats.t.ppf((1 + level) / 2, n_tasks - 1)
    return float(1 - 2 * special.ndtr(-z))


def tasks_given(cells, n_tasks):
    """(K, M) whether each cell's ``expanded_tasks`` interval is given: the cell's metric measured to hold from
    ``TASKS_MIN_TASKS`` tasks (audit s29 tbfix29b: not the ceiling 1 - 2^(1 - n) of an interval within the task
    means' range, which this one is not: the rows at 5 tasks held above it)."""
    cells = np.asarray(cells, dtype=object)
    fewest = np.vectorize(lambda c: TASKS_MIN_TASKS.get(c, np.inf), otypes=[float])(cells)
    return n_tasks >= fewest


def expanded_tasks_bounds(distribution, estimates, level, n_tasks, cells, spread, observed):
    """(bounds, mc_se) (K, M, 2) of ``interval="expanded_tasks"`` (audit s29 taskboot29): each metric's resampled
    quantiles read at :func:`tasks_expansion`'s level (Hesterberg's expansion with the tasks as the sample); the mean's
    (``cells`` "mean") as a bootstrap-t, t* = (mean* - mean) / se* with se* each resample's sd of task means over
    sqrt(n) (``spread``, (K, B), :func:`kernels.task_mean_spread`) and se the data's (``observed``, (K,)). NaN where
    :func:`tasks_given` says no, or on one task."""
    bounds = np.full(estimates.shape + (2,), np.nan)
    se = np.full_like(bounds, np.nan)
    if n_tasks < 2:
        return bounds, se
    wide = tasks_expansion(level, n_tasks)
    bounds, se = kernels.metric_bounds(distribution, estimates, wide, "percentile", None, None, False)
    cells = np.asarray(cells, dtype=object)
    for j in range(estimates.shape[1]):
        mean = cells[:, j] == "mean"
        if mean.any() and spread is None:  # no standard errors over tasks: no bootstrap-t
            bounds[mean, j], se[mean, j] = np.nan, np.nan
        elif mean.any():
            bounds[mean, j], se[mean, j] = studentized_bounds(distribution[mean, j], estimates[mean, j],
                                                              spread[mean], observed[mean], wide)
    given = tasks_given(cells, n_tasks)
    bounds[~given], se[~given] = np.nan, np.nan
    return bounds, se


def untasked_need(counts=None, agents=(), method="bootstrap", options=(("task_bootstrap", False),),
                  lead=", which needs"):
    """What the way on to intervals of these tasks alone, ``task_bootstrap=False``, needs of this design: resampling
    runs within tasks needs, for each agent, the runs in some task that the bootstrap declares (its refusing
    per-agent need, :mod:`.._replication`); where an agent of ``agents`` has fewer in every task (``counts``, (tasks,
    agents)), that call refuses the design, so the clause (", which needs ...", else "") names those agents and what
    works (audit s30 w2fix30: the notes advised task_bootstrap=False to a design it refused). ``method`` and
    ``options`` name the call advised (the profile's ``interval='t'``: its own need), ``lead`` opens the clause."""
    if counts is None:
        return ""
    counts = np.asarray(counts)
    need = next(n for n in declared(method) if n.per == "agent" and n.below == "refuse" and applies(n, dict(options)))
    few = ~(counts >= need.runs).any(axis=0)
    if not few.any():
        return ""
    one = int(few.sum()) == 1
    them = "it" if one else "them"
    short = counts[:, few]
    return (f"{lead} at least {need.runs} runs in some task of each agent: "
            f"{listed([str(a) for a, f in zip(agents, few) if f], 4)} {verb(few.sum(), 'has', 'each have')} "
            f"{runs_had(short[short > 0])} in every task, so add runs to {them} or leave {them} out of the data")


def tasks_withheld_notes(cells, names, kinds, n_tasks, runs, counts=None, agents=()):
    """The notes of the ``expanded_tasks`` intervals :func:`tasks_given` withholds, one a metric (``names``; ``kinds``
    the built-in metric each computes, ``cells`` the one whose interval and rule it takes; ``runs`` the design's
    fewest runs per task; on one task the intervals' own note, :func:`tasks_resampled`, says it). The reason is read
    from the ``bootstrap.interval_tasks`` rows at the design (:func:`tasks_rows`; audit s29 tbfix29: it said none
    held, false at 5 tasks where they did): rows that missed are quoted; where they held, why the interval is
    withheld anyway (the mean's width). (Audit s29 tbfix29b: not a quantile interval's ceiling 1 - 2^(1 - n), false
    of this interval.)"""
    if n_tasks < 2:
        return []
    given = tasks_given(cells, n_tasks)
    notes = []
    for j, (name, kind) in enumerate(zip(names, kinds)):
        if kind is None or given[:, j].all():
            continue
        withheld = cells[~given[:, j], j]
        fewest = max(TASKS_MIN_TASKS[cell] for cell in withheld)
        if kind == "median":  # from 3 tasks the median takes its own rule: given from 5, not the mean's 10 (review s31)
            fewest = TASKS_MIN_TASKS["median"]
        named = median_of_task_means(name) if kind == "median" else f"the {metric_label(name)}"
        whys = []
        for cell in dict.fromkeys(withheld):  # the metric's own, or the one whose rule it takes
            # the rows of the estimand analysed (audit s30 tboot30): a median of 1 or 2 task means takes the mean's
            # interval and rule, but estimates the population's median, not its mean: the mean's rows measured the
            # bootstrap-t against the mean (0.01 at 2 tasks), none it against the median, so the median's own
            # rows (its percentile interval at the expanded level, the same as the mean's there) are quoted
            read = kind if kind == "median" else cell
            missed = tasks_measured_clause(TASKS_INTERVAL, [name], [read], n_tasks, runs)
            if missed and read != cell:
                missed = (f"the mean's bootstrap-t over tasks, which it takes, was not measured against the median "
                          f"of a population of tasks, and its percentile interval at the expanded level (the "
                          f"mean's there) was: {missed}")
            rows = tasks_rows(TASKS_INTERVAL, read, n_tasks, runs)
            where = (f"the calibration table's {TASKS_PROCEDURE} rows on "
                     f"{calibration.counts_words(int(row['tasks']) for row in rows)} with {rows[0]['runs']} runs per "
                     "task" if rows else "")
            if missed:
                whys.append(missed)
            elif cell == "mean" and rows:  # held, as wide as they were: docs/calibration.md, audit s29 taskboot29
                whys.append(f"its bootstrap-t over tasks held 95% in {where}, but only by its width, set by resamples "
                            f"of nearly one task (3 to 7 times Student's t's at 5 tasks)")
        if not whys:  # no rows at this design: the count the rows gave
            whys.append(f"rlstats measured it to hold 95% from {fewest} tasks")
        given_from = f"given from {fewest} tasks"
        if kind == "median" and "mean" in withheld:  # audit s30 tboot30: whose rule, said
            given_from += (f"; the median of {n_tasks} task means takes the mean's interval, withheld below "
                           f"{TASKS_MIN_TASKS['mean']} tasks")
        # stored as every note is, lowercase: "Note: " prints it, results.sentences capitalises it in prose (audit s30
        # w2fix30: "Note: The mean: ...")
        notes.append(f"{named}: intervals withheld with tasks resampled (task_bootstrap=True) "
                     f"from {n_tasks} tasks ({given_from}): {'; '.join(whys)}; add tasks, or "
                     f"read the intervals of these tasks with task_bootstrap=False{untasked_need(counts, agents)} (or the "
                     "percentile interval, "
                     "interval=\"percentile\", whose level is lower)")
    return notes


def tasks_rows(interval, kind, n_tasks, runs, procedure=TASKS_PROCEDURE):
    """The ``procedure`` rows (``bootstrap.interval_tasks``; ``bootstrap.profile_population`` for the profile's bands,
    ``kind`` "runs") a design of ``n_tasks`` tasks and ``runs`` (fewest) runs per task reads for ``interval``
    intervals of the built-in metric ``kind``: those at the simulated task counts bracketing ``n_tasks``
    (:func:`rlstats.calibration.bracketing_counts`) and the largest simulated runs at most ``runs`` (the smallest
    where below all), every task-mean law and run noise; empty where none was measured."""
    if interval == TASKS_INTERVAL and kind == "mean":
        interval = TASKS_MEAN_ROWS
    rows = [row for row in calibration.rows(procedure) if (row["interval"], row["metric"]) == (interval, kind)]
    if not rows:
        return []
    # the largest simulated run count at or below the design's fewest (the smallest where below all), as the other
    # notes read the grid (audit s29 taskboot29: it read the nearest, so 8 and 9 runs read the 10-run rows)
    counts = sorted({int(row["runs"]) for row in rows})
    read = str(max([c for c in counts if c <= int(runs)], default=counts[0]))
    return calibration.bracketing_rows([row for row in rows if row["runs"] == read], n_tasks)[0]


def tasks_measured_clause(interval, metrics, kinds, n_tasks, runs):
    """The clause quoting the lowest simulated coverage of nominal 95% ``interval`` intervals with tasks resampled, for
    each of ``metrics`` (their names; ``kinds`` the built-in metric each computes, None for a function) whose rows at
    this design miss 95% (:func:`rlstats.calibration.misses`), or "" where none does or none was measured."""
    said, read = [], []
    for name, kind in zip(metrics, kinds):
        rows = tasks_rows(interval, kind, n_tasks, runs) if kind else []
        missed = [row for row in rows if calibration.misses(row, 0.95)]
        if missed:
            worst = min(missed, key=calibration.worst_coverage)
            sd = worst["configuration"].split()[-1]  # "run sd 0.3": the runs' sd, the task means' being 1
            named = median_of_task_means(name) if kind == "median" else f"the {metric_label(name)}"
            said.append((f"{float(worst['coverage']):.2f}{'' if said else ' of data sets'} for {named} "
                         f"({worst['distribution']} task means, runs' sd {sd} times theirs", worst["runs"]))
            read += rows
    if not said:
        return ""
    counts = calibration.counts_words(int(row["tasks"]) for row in read)
    # one run count where every metric's rows were read at it, else each metric's own (audit s29 taskboot29: one
    # count was quoted for all)
    runs_read = {runs for _, runs in said}
    at = f" with {runs_read.pop()} runs per task" if len(runs_read) == 1 else ""
    said = [text + ("" if at else f", {runs} runs per task") + ")" for text, runs in said]
    return (f"in simulations on {counts}{at}, nominal 95% {interval} intervals held "
            f"the value over the whole population of tasks in only {join_and(said)}")


def tasks_resampled(n_tasks, confidence_level, interval, what="intervals", metrics=(), kinds=(), runs=None,
                    counts=None, agents=()):
    """(withheld, notes) of intervals drawn with tasks resampled (``task_bootstrap=True``; audit s28 design28: they
    were given on any number of tasks with no word of their level).

    Resampling tasks speaks of a population of tasks. From one task every resample is that task, so no spread of
    tasks enters: the intervals are withheld. From n tasks, a quantile of the resampled statistic (``interval`` in
    :data:`QUANTILE_INTERVALS`) lies within the range of its values on the tasks drawn, widened only by the runs'
    noise, and n draws from a continuous population straddle its median with probability 1 - 2^(1 - n) (all n on one
    side: 2^-n each), below the level at 5 tasks or fewer for 95%. It bounds the intervals only where the runs' noise
    is small next to the tasks' spread (audit s29 tbfix29b: with runs' sd twice the task means' the percentile
    interval held 0.93-0.96 of the median on 3 tasks, above 0.75), so the note says so.

    That ceiling is not the coverage: audit s28 taskboot28 measured it (``bootstrap.interval_tasks`` rows,
    ``tests/reference/coverage_tasks_resampled.py``: 2-26 tasks, 3-10 runs, normal and skewed task means, run noise
    0.3 and 2 times the tasks' spread, 1,000 data sets a point) and the percentile interval misses 95% at every
    number of tasks simulated, 26 included. Where the design's rows (``metrics``, their built-in ``kinds``, ``runs``
    the fewest runs per task) miss 95% at a 95% level, the note quotes the lowest of them, metric by metric.
    """
    if n_tasks == 1:
        return True, [f"{what} withheld: task_bootstrap=True resamples tasks to speak of a population of tasks, and "
                      "with one task every resample is that task, so the spread of tasks never enters; "
                      f"task_bootstrap=False gives the {what} of this task's runs{untasked_need(counts, agents)}"]
    ceiling = 1.0 - 2.0 ** (1 - n_tasks)
    measured = (tasks_measured_clause(interval, metrics, kinds, n_tasks, runs)
                if confidence_level == 0.95 and runs is not None else "")
    short = interval in QUANTILE_INTERVALS and ceiling < confidence_level
    if not (short or measured):
        return False, []
    level = f"{signif(100 * confidence_level)}%"
    text = f"with tasks resampled (task_bootstrap=True) from {n_tasks} tasks, the {what} speak of a population of tasks"
    if short:
        text += (f", but lie within the range of their statistic over the tasks drawn, widened only by the runs' "
                 f"noise, and that range holds the middle of a population of tasks (its mean, where symmetric) in "
                 f"only 1 - 2^(1 - {n_tasks}) = {ceiling:.3g} of samples of {n_tasks} tasks, so they fall short of "
                 f"{level} for tasks in general unless that noise is large next to the tasks' spread")
    if measured:
        text += ("; " if short else ": ") + measured
    return False, [text + f"; add tasks, or read the {what} of these tasks with task_bootstrap=False"
                          f"{untasked_need(counts, agents)}"]
