"""Learning-curve kernels: per-step aggregates of weighted runs, whole-run bootstrap and permutation.

Arrays in, arrays out; inputs are trusted (the API layer validated them).

The unit of resampling is a whole run: a resample (or a relabelling) of one agent's runs is a
vector of weights over its runs, the same at every step, so a run's trajectory stays together.
Every built-in statistic is then a function of (weights, values) that needs no sort per
resample: the runs are sorted once per step, and a trimmed mean of a weighted sample is read
from cumulative weights. A custom statistic gets the resampled runs themselves.

Layout: ``values`` has shape (n_runs, n_steps), NaN where a run has no value at a step (outside
its logged range after alignment); ``task_of`` gives each run's task code (runs are sorted by
task); ``weights`` has shape (n_resamples, n_runs).
"""

from __future__ import annotations

import copy
import itertools
import warnings

import numpy as np

from ...resampling import fixed_dot
from ...statistics import (aggregate_tolerance, floored_standard_errors, hall_inverse, monte_carlo_pvalue, shape_ratios,
                           skewness_of_means, spread_and_magnitude, tie_tolerance)

#: Floor of a resample's standard error in the studentised bands, as a share of the resamples' standard deviation
#: at the step, by statistic: chosen by simulation (issue 40; tests/reference/coverage_curves_bands.py) among floors
#: 0.25 and 0.5 of it and of the runs' standard error. The IQM's and the median's standard errors are proxies (the
#: runs winsorised at the data's quartiles; the tasks' mean standard error) that are near 0 where a resample's runs
#: tie though its statistic moves: floored at 0.25, no IQM band is withheld from 3 runs of 2 or more tasks and none
#: reaches 5 data ranges (590 with a floor on the runs' standard error). The mean's is the resample's own, but of
#: one task's 5 runs a tenth of the resamples hold only 2 distinct runs, whose standard error nears 0 where their
#: trajectories cross: unfloored, those set the largest ratio over steps and the simultaneous band was 7.9 times
#: the oracle's width (covering 1.00). Floored at 0.15 it covers 0.96 (skewed) to 0.98 (capped) at 2.7 times it
#: (0.10: 0.98 at 3.4 times; 0.25: 0.87; 120 curves each); with 3 runs of 26 tasks the floor never binds. The
#: optimality gap's is the resample's own (not simulated).
SE_FLOOR = {"iqm": 0.25, "median": 0.25, "mean": 0.15, "optimality_gap": 0.0}
#: Built-in per-step statistics.
STATISTICS = ("iqm", "mean", "median", "optimality_gap")
# Resamples drawn from one child generator: fixed, so results never depend on how work is sliced.
RNG_BLOCK = 100
# Elements of the largest temporary array of one slice of resamples (resamples x steps x runs).
CHUNK_ELEMENTS = 4_000_000


def chunk_size(n_runs, n_steps):
    """Resamples per chunk so that a (chunk, steps, runs) array stays near CHUNK_ELEMENTS."""
    return int(max(1, min(RNG_BLOCK, CHUNK_ELEMENTS // max(1, n_runs * n_steps))))


class Prepared:
    """One agent's runs arranged once for every resample: per-step sort order, task blocks, validity."""

    def __init__(self, values, task_of, n_tasks, gamma):
        self.valid = ~np.isnan(values)
        self.all_valid = bool(self.valid.all())
        filled = np.where(self.valid, values, 0.0)
        # Sorted once per step (missing values last, as zeros with zero weight), for the trimmed mean.
        self.order = np.argsort(values.T, axis=1, kind="stable")  # (steps, runs)
        self.sorted_values = np.take_along_axis(filled.T, self.order, axis=1)
        self.sorted_valid = np.take_along_axis(self.valid.T, self.order, axis=1)
        # v_j - v_(j+1): the trimmed sum is then a dot product with clipped cumulative weights.
        self.value_steps = self.sorted_values - np.concatenate(
            [self.sorted_values[:, 1:], np.zeros((values.shape[1], 1))], axis=1)
        # Runs padded into (tasks, slots) blocks, so per-task sums are one batched sum (einsum).
        starts = np.searchsorted(task_of, np.arange(n_tasks))
        sizes = np.diff(np.r_[starts, task_of.size])
        self.slots = int(sizes.max())
        self.position = task_of * self.slots + (np.arange(task_of.size) - starts[task_of])
        shape = (n_tasks * self.slots, values.shape[1])
        self.padded_values = np.zeros(shape)
        self.padded_values[self.position] = filled
        self.padded_valid = np.zeros(shape)
        self.padded_valid[self.position] = self.valid
        self.n_tasks = n_tasks
        # By step, runs contiguous: each resample's sum at a step is one dot (fixed_dot).
        self.shortfall = np.where(self.valid, np.maximum(gamma - values, 0.0), 0.0).T.copy()
        self.gamma = gamma
        self.sizes = sizes
        self.valid_by_step = np.ascontiguousarray(self.valid.T, dtype=np.float64)
        logged = self.padded_valid.reshape(n_tasks, self.slots, -1).sum(axis=1)  # (tasks, steps) runs logged
        # (steps,) the most runs logged in a task at each step, to which the weighted IQM scales each task's runs
        # logged there: the IQM at a step is a statistic of the rows there alone, rlstats.bootstrap's on those rows
        # (audit s31 trialfix31: scaled to the agent's most runs over all steps, the 7 runs of a task logged at a
        # step where the 8th had ended were cut by 1.75 runs at each end, not scipy's trim_mean's 1); a relabelled
        # group of the max-T null sets its agent's (as_group)
        self.c_max = logged.max(axis=0).astype(float)
        # A step counts only where every task has a value of this agent.
        self.complete = (logged > 0).all(axis=0)
        # Unequal runs per task (or runs that end early): the IQM and the optimality gap weigh each task alike at
        # each step, as bootstrap does (audit s8: pooled runs weighed the tasks by their runs); equal tasks logged
        # at every step keep the pooled sums, bit for bit.
        self.weighted = not (self.all_valid and (sizes == sizes[0]).all())
        self.task_of = task_of


def as_group(prepared, counts, logged):
    """The pooled runs of a compared pair (``prepared``) read as one agent's whose runs per task are ``counts`` and
    runs logged per task and step ``logged`` (tasks, steps): a relabelled group of the max-T null gets the statistic
    its agent's runs get, scaled to that agent's most runs logged in a task at each step and weighted where its tasks
    differ in runs (audit s20: read with the pair's most runs in a task, the IQM of 3 runs a side on one task cut half a
    run from each end of each group, where each agent's own is their mean)."""
    group = copy.copy(prepared)
    group.c_max = np.asarray(logged, dtype=float).max(axis=0)
    group.weighted = prepared.weighted or bool((counts != counts[0]).any())
    return group


def _task_means(prepared, weights):
    """(tasks, B, steps) weighted mean of each task's runs."""
    padded = np.zeros((weights.shape[0], prepared.n_tasks * prepared.slots))
    padded[:, prepared.position] = weights
    blocks = padded.reshape(weights.shape[0], prepared.n_tasks, prepared.slots).transpose(1, 0, 2)
    shape = (prepared.n_tasks, prepared.slots, -1)
    # einsum, not matmul: BLAS's bits depend on its thread count (1 in joblib's workers), so n_jobs would
    # change them; einsum is several times slower on these products (about 13% of a "mean" curves call).
    sums = np.einsum("tbj,tjs->tbs", blocks, prepared.padded_values.reshape(shape))
    counts = np.einsum("tbj,tjs->tbs", blocks, prepared.padded_valid.reshape(shape))
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def _by_task_slot(prepared, weights):
    """(B, tasks, slots) the runs' weights in their tasks' slots (0 in a task's empty slots)."""
    padded = np.zeros((weights.shape[0], prepared.n_tasks * prepared.slots))
    padded[:, prepared.position] = weights
    return padded.reshape(weights.shape[0], prepared.n_tasks, prepared.slots)


def _task_weights(prepared, weights):
    """(B, tasks, steps) the weight of each task's runs logged at each step (NaN-free: 0 where none is)."""
    return np.einsum("btj,tjs->bts", _by_task_slot(prepared, weights),
                     prepared.padded_valid.reshape(prepared.n_tasks, prepared.slots, -1))


def _equal_task_copies(prepared, weights):
    """(B, steps, runs) each run's copies in the sorted order of its step, each task's runs logged there scaled to
    the same total, the agent's most runs logged in a task at the step (c_max), and (steps,) the total T c_max: the
    weighted sample of the task-averaged distribution, whose trimmed mean the IQM is when tasks differ in their runs
    (at a step where every task has c runs logged, each run once: the plain trimmed mean of the runs there)."""
    c_max = prepared.c_max
    task_weights = _task_weights(prepared, weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(task_weights > 0, c_max / task_weights, 0.0)
    copies = weights[:, :, None] * prepared.valid[None] * scale[:, prepared.task_of, :]  # (B, runs, steps)
    copies = np.take_along_axis(copies.transpose(0, 2, 1), prepared.order[None], axis=2)
    return copies, prepared.n_tasks * c_max


def _weighted_iqm(prepared, weights):
    """(B, steps) the IQM of the equal-task copies (:func:`_equal_task_copies`): floor(T c_max / 4) copies cut
    from each end, by the same summation by parts as :func:`_iqm`."""
    copies, total = _equal_task_copies(prepared, weights)
    cumulative = np.cumsum(copies, axis=2)
    low = np.floor(total / 4.0)
    high = total - low
    np.clip(cumulative, low[:, None], high[:, None], out=cumulative)
    trimmed = np.einsum("bsj,sj->bs", cumulative, prepared.value_steps) - low * prepared.sorted_values[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):  # a step where no run is logged: NaN
        return trimmed / (high - low)


def _iqm(prepared, weights):
    """(B, steps) interquartile mean of the pooled weighted runs: floor(N/4) cut from each end.

    With C the cumulative weights in sorted order, the sum of the values at expanded positions
    (low, high] is sum_j v_j (m_j - m_(j-1)) with m = clip(C, low, high), which by summation by
    parts is sum_j m_j (v_j - v_(j+1)) - low * v_1: no sort and no difference per resample.
    """
    if prepared.weighted:
        return _weighted_iqm(prepared, weights)
    # Counts are whole numbers below the number of runs: a small integer type moves a quarter of
    # the memory of float64 through the three passes over (B, steps, runs), exactly.
    small = np.int16 if weights.shape[1] < np.iinfo(np.int16).max else np.int32
    cumulative = weights.astype(small)[:, prepared.order]  # (B, steps, runs) in sorted order
    if not prepared.all_valid:
        cumulative *= prepared.sorted_valid[None]
    np.cumsum(cumulative, axis=2, dtype=small, out=cumulative)
    total = cumulative[:, :, -1].astype(np.float64)
    low = np.floor(total / 4.0)
    high = total - low
    np.clip(cumulative, low.astype(small)[:, :, None], high.astype(small)[:, :, None], out=cumulative)
    trimmed = np.einsum("bsj,sj->bs", cumulative, prepared.value_steps) - low * prepared.sorted_values[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return trimmed / (high - low)


def _optimality_gap(prepared, weights):
    if prepared.weighted:  # each task alike: the mean over tasks of each task's mean shortfall
        shortfall = prepared.padded_values.reshape(prepared.n_tasks, prepared.slots, -1)
        shortfall = np.maximum(prepared.gamma - shortfall, 0.0) * prepared.padded_valid.reshape(shortfall.shape)
        sums = np.einsum("btj,tjs->bts", _by_task_slot(prepared, weights), shortfall)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (sums / _task_weights(prepared, weights)).mean(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        by_run = weights[:, None, :]  # a matrix product's bits would depend on BLAS's thread count
        return fixed_dot(by_run, prepared.shortfall) / fixed_dot(by_run, prepared.valid_by_step)


def weighted_statistic(prepared, weights, statistic):
    """(B, steps) statistic of the weighted runs; NaN at steps where a task has no value."""
    if statistic == "iqm":
        out = _iqm(prepared, weights)
    elif statistic == "optimality_gap":
        out = _optimality_gap(prepared, weights)
    else:
        means = _task_means(prepared, weights)
        out = means.mean(axis=0) if statistic == "mean" else np.median(means, axis=0)
    out = np.asarray(out, dtype=float)
    out[:, ~prepared.complete] = np.nan
    return out


def iqm_limits(prepared, weights):
    """(B, steps) each, the values at the first and last kept positions of the IQM of the weighted runs (of their
    equal-task copies where the tasks differ, :func:`_equal_task_copies`)."""
    if prepared.weighted:
        copies, whole = _equal_task_copies(prepared, weights)
        cumulative = np.cumsum(copies, axis=2)
        total = np.broadcast_to(whole[None, :, None], cumulative.shape[:2] + (1,))
        slack = 1e-9 * total  # the copies' sums round
    else:
        cumulative = np.cumsum(weights[:, prepared.order] * prepared.sorted_valid[None], axis=2)  # (B, steps, runs)
        total = cumulative[:, :, -1:]
        slack = 0.0
    low = np.floor(total / 4.0)
    first = np.minimum((cumulative <= low + slack).sum(axis=2), cumulative.shape[2] - 1)
    last = np.minimum((cumulative < total - low - slack).sum(axis=2), cumulative.shape[2] - 1)
    values = prepared.sorted_values[None]
    return (np.take_along_axis(values, first[:, :, None], axis=2)[..., 0],
            np.take_along_axis(values, last[:, :, None], axis=2)[..., 0])


def weighted_std_error(prepared, weights, statistic, limits=None):
    """(B, steps) the stratified standard error of the statistic of each weighting of the runs (resample).

    The statistic is read, to first order, as sum_t a_t mean_t(psi) over tasks t, so that its variance is
    sum_t a_t^2 var_t(psi) / n_t, with var_t the variance (divisor n_t - 1) of a task's weighted pseudo-values psi:
    the mean of task means: psi the score, a_t = 1 / tasks; the optimality gap: psi the shortfall below gamma,
    a_t = n_t / N; the IQM: psi the score winsorised at the first and last kept values, a_t = n_t / (N
    - 2 floor(N / 4)) (the trimmed mean's influence function, Tukey and McLaughlin 1963), at the runs' own values
    (``limits``, from the unweighted runs) so that a resample repeating middle values keeps some spread. The median of task
    means has no such smooth form (its influence sits on the middle task, whose resample repeats one run too
    often at few runs): it is studentised by the mean over tasks of their means' squared standard errors, a
    scale that is 0 only when every task's resample repeats one run. The resample's own standard error
    studentises its deviation (the bootstrap-t).
    """
    # the (rows, tasks, slots, steps) products below, a few rows at a time: at 200 runs a cell a block's were 40 MB
    # each, out of every cache (the call's time grew 1.15 powers of the runs); each row's numbers are its own
    rows = max(1, CHUNK_ELEMENTS // max(1, prepared.n_tasks * prepared.slots * prepared.padded_values.shape[-1]))
    if weights.shape[0] > rows:
        return np.concatenate([weighted_std_error(prepared, weights[first:first + rows], statistic, limits)
                               for first in range(0, weights.shape[0], rows)])
    n_tasks, slots = prepared.n_tasks, prepared.slots
    padded = np.zeros((weights.shape[0], n_tasks * slots))
    padded[:, prepared.position] = weights
    blocks = padded.reshape(weights.shape[0], n_tasks, slots)[..., None] * prepared.padded_valid.reshape(
        n_tasks, slots, -1)[None]  # (B, tasks, slots, steps): each run's weight where it is logged
    values = prepared.padded_values.reshape(n_tasks, slots, -1)[None]
    if statistic == "optimality_gap":
        values = np.maximum(prepared.gamma - values, 0.0)
    elif statistic == "iqm":
        low, high = iqm_limits(prepared, weights) if limits is None else limits
        values = np.clip(values, low[:, None, None, :], high[:, None, None, :])
    n = blocks.sum(axis=2)  # (B, tasks, steps)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (blocks * values).sum(axis=2) / n
        variance = (blocks * (values - means[:, :, None, :]) ** 2).sum(axis=2) / (n - 1.0)
        per_task = variance / n  # the squared standard error of each task's mean
        total = n.sum(axis=1)  # (B, steps)
        if statistic == "mean":
            out = per_task.sum(axis=1) / n_tasks ** 2
        elif statistic == "optimality_gap" and prepared.weighted:  # each task alike: as the mean's
            out = per_task.sum(axis=1) / n_tasks ** 2
        elif statistic == "optimality_gap":
            out = (n ** 2 * per_task).sum(axis=1) / total ** 2
        elif statistic == "iqm" and prepared.weighted:  # a task's weight c_max of a total T c_max
            c_max = prepared.c_max
            kept = n_tasks * c_max - 2.0 * np.floor(n_tasks * c_max / 4.0)
            out = c_max ** 2 * per_task.sum(axis=1) / kept ** 2
        elif statistic == "iqm":
            kept = total - 2.0 * np.floor(total / 4.0)
            out = (n ** 2 * per_task).sum(axis=1) / kept ** 2
        else:  # median of task means: the typical task's squared standard error
            out = per_task.mean(axis=1)
    return np.sqrt(out)


def studentized_bands(replicates, std_errors, estimate, std_error, level, tolerance, floor=0.0):
    """Bootstrap-t bands: (pointwise (steps, 2), simultaneous (steps, 2)), NaN where withheld.

    Each resample's deviation at a step is studentised by its own standard error, t = (theta* - theta) / se*.
    Pointwise, the band is theta - q se between the (1 -+ level)/2 quantiles q of t at the step; simultaneously,
    theta - q se with q the (1 + level)/2 quantile of the largest t over steps (lower end) and the (1 - level)/2
    quantile of the smallest (upper end), each side at half the error, so that the whole curve is held at the
    level. (A balanced band, each step at its own quantile of t at a common share of resamples (Beran 1988),
    covered 0.80-0.88 where this one covered 0.99 on skewed scores: its per-step extreme quantiles of few
    hundred resamples are too noisy.) Nor does any band within the Bonferroni band of the resamples (each step's
    tail / steps quantiles of t), which this one passes at some steps where their t differ in scale (audit s33
    simband33, ``tests/reference/curves_band_bonferroni.py``, 240 bands each): that Bonferroni band covered 0.76-0.90
    of the curves of the median whose runs reach a cap, of the mean of 5 skewed runs of one task and of the IQM of 3
    tasks as far apart as audit s32's Dopamine trial's, where this band covers 0.96-1.00 (0.89-0.93 with capped runs
    of those tasks), and the min-p band within it (each step's end at its own rank, the rank held over steps) 0.76-0.88:
    there a step's t is lighter-tailed than its estimate's deviation, and the steps whose t run heavier set the
    quantile that holds it. Cut to the package's own Bonferroni band (the final pointwise band at level
    1 - (1 - level) / steps), the final band held at the grid's points measured but covered 0.78-0.88 on those tasks.
    The studentisation carries the skewness of the statistic and the uncertainty of its standard error
    from few runs, which a normal or t quantile does not (Hall 1988; Montiel Olea and Plagborg-Moller 2019 for
    the sup-t form). Each se* is floored at ``floor`` (by statistic, :data:`SE_FLOOR`) times the standard deviation of
    the resamples' statistic at the step: a resample that repeats a run (or whose runs tie, as at a ceiling or
    where the IQM's winsorising at the runs' quartiles ties a task's runs) has an se* near 0 that sees none of its
    real deviation, and its t would set the quantile (bands withheld, or hundreds of data ranges wide); floored,
    |t| is at most its deviation over that share of the bootstrap's spread. A resample still without spread (se* within
    ``tolerance``, the :func:`step_tolerance` of the step's scores: the resamples do not vary there) has an infinite
    t; where more resamples than the tail have one, a pointwise end is infinite and the step is withheld from both
    bands. Steps without spread in the data or without estimate are withheld too.
    """
    tail = (1.0 - level) / 2.0
    usable = np.isfinite(estimate) & np.isfinite(std_error) & (std_error > tolerance)
    std_errors = floored_standard_errors(std_errors, replicates, floor, axis=0)
    std_errors = np.where(std_errors > tolerance[None, :], std_errors, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (replicates - estimate) / std_errors
    t = np.where(np.isnan(t), 0.0, t)  # no deviation and no spread (or a step without a value): no evidence
    pointwise = np.full(estimate.shape + (2,), np.nan)
    simultaneous = np.full(estimate.shape + (2,), np.nan)
    if not usable.any():
        return pointwise, simultaneous
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # infinities in the quantiles' interpolation
        q = np.stack([np.quantile(t[:, usable], 1.0 - tail, axis=0, method="higher"),
                      np.quantile(t[:, usable], tail, axis=0, method="lower")], axis=-1)  # (usable, 2)
    finite = np.zeros_like(usable)
    finite[usable] = np.isfinite(q).all(axis=1)
    if not finite.any():
        return pointwise, simultaneous
    pointwise[finite] = estimate[finite, None] - q[np.isfinite(q).all(axis=1)] * std_error[finite, None]
    t = t[:, finite]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        joint = np.array([np.quantile(t.max(axis=1), 1.0 - tail, method="higher"),
                          np.quantile(t.min(axis=1), tail, method="lower")])
    if np.isfinite(joint).all():
        simultaneous[finite] = estimate[finite, None] - joint[None, :] * std_error[finite, None]
    return pointwise, simultaneous


def _task_shapes(values, task_of, n_tasks):
    """Each task's runs' skewness at each step, and what :func:`rlstats.statistics.skewness_of_means` reads:
    (g1, usable, share, sizes, means), each (tasks, steps): G1 (k3 / s^3), whether it counts (3 runs logged and some
    spread), each task mean's variance s^2 / c in the step's units, the runs c logged, the task means. ``values``
    (runs, steps), NaN where a run is not logged; ``task_of`` each run's task code."""
    valid = ~np.isnan(values)
    filled = np.where(valid, values, 0.0)
    member = (task_of[None, :] == np.arange(n_tasks)[:, None]).astype(float)  # (tasks, runs)
    sizes = np.einsum("tr,rs->ts", member, valid.astype(float))  # einsum, not BLAS: bits free of its threads
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.einsum("tr,rs->ts", member, filled) / sizes
        deviation = np.where(valid, filled - means[task_of], 0.0)
        scale = np.abs(deviation).max(axis=0)
        deviation = deviation / np.where(scale > 0, scale, 1.0)  # in units of the step's largest deviation
        second = np.einsum("tr,rs->ts", member, deviation ** 2)
        third = np.einsum("tr,rs->ts", member, deviation ** 3)
        g1 = shape_ratios(sizes.ravel(), second.ravel(), third.ravel())[0].reshape(sizes.shape)
        variance = second / np.maximum(sizes - 1.0, 1.0)
        # runs that tie up to the task's tie tolerance at the step have no spread and no skewness: their deviations
        # from a mean rounded in its last bit (0.1 x 3 / 3) are noise whose G1 is +-1 (audit s37 meta37: integer
        # runs that tie x 0.1 read as skewed, and Hall's band of the mean widened 26.76 to 23.94 at 28.33);
        # bootstrap._small_runs.pooled_run_skewness's rule
        high = np.stack([np.fmax.reduce(np.where(valid & (task_of == t)[:, None], values, -np.inf), axis=0)
                         for t in range(n_tasks)])
        low = np.stack([np.fmin.reduce(np.where(valid & (task_of == t)[:, None], values, np.inf), axis=0)
                        for t in range(n_tasks)])
        spread = high - low
        tied = ~(spread > tie_tolerance(np.where(np.isfinite(spread), spread, 0.0),
                                        np.fmax(np.abs(np.where(np.isfinite(low), low, 0.0)),
                                                np.abs(np.where(np.isfinite(high), high, 0.0)))))
        variance = np.where(tied & (sizes > 0), 0.0, variance)
        share = variance / sizes  # NaN where a task has no run logged (not usable): no RuntimeWarning (curvegap27)
    usable = (sizes >= 3) & (variance > 0)
    return np.where(usable, g1, 0.0), usable, share, sizes, means


def median_skewness(values, task_of, n_tasks):
    """(steps,) the skewness of the median of task means at each step, for :func:`rlstats.statistics.skew_widened`:
    bootstrap()'s (``rlstats.methods.bootstrap._small_runs.widening_skewness``) step by step, on the runs logged
    there.

    The runs' skewness g is the mean of the tasks' G1 (k3 / s^3; tasks with 3 runs and some spread), one shape for
    every task read from all of them; the middle task (or the two middle tasks) by mean, with each task mean's
    variance s^2 / c, give the skewness of their mean (:func:`rlstats.statistics.skewness_of_means`). 0 where no
    task has 3 runs with spread. ``values`` (runs, steps), NaN where a run is not logged; ``task_of`` each run's
    task code.
    """
    g1, usable, share, sizes, means = _task_shapes(values, task_of, n_tasks)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = g1.sum(axis=0) / usable.sum(axis=0)
    middle = np.argsort(np.where(np.isnan(means), np.inf, means), axis=0, kind="stable")[
        (n_tasks - 1) // 2:n_tasks // 2 + 1]
    return skewness_of_means(g, np.take_along_axis(share, middle, axis=0), np.take_along_axis(sizes, middle, axis=0))


def mean_skewness(values, task_of, n_tasks):
    """(steps,) the skewness of the mean of task means at each step, for :func:`rlstats.statistics.skew_widened`
    (audit s25 band25): the runs' skewness g is the mean of the tasks' G1 over every task and step where it counts
    (:func:`_task_shapes`), one shape for the whole curve, and each step's task means' variances give the skewness
    of their mean (:func:`rlstats.statistics.skewness_of_means`, over all tasks). 0 where no task has 3 runs with
    spread at any step.

    Pooled over steps, not read step by step as :func:`median_skewness` is: a G1 of c runs is at most
    (c - 2) / sqrt(c - 1) (1.5 at 5 runs, against the skewed family's 3.7), and one step's is too noisy to widen
    by. On the 400 curves of one task of 5 skewed runs (``tests/reference/curves_mean_skew.py``) the step-by-step
    skewness left the pointwise band at 0.925 (0.898 in its worst design draw), the pooled one 0.931 (0.906).
    """
    g1, usable, share, sizes, _ = _task_shapes(values, task_of, n_tasks)
    counted = usable.sum()
    g = g1.sum() / counted if counted else 0.0
    return skewness_of_means(g, share, sizes)


def hall_band(estimate, std_error, skewness, df, level):
    """(steps, 2) Hall's (1992) skew-corrected t band of a mean, continued beyond the flat point of its cubic: the
    values mu whose studentised deviation u = (estimate - mu) / std_error has its transform
    u + k u^2 / 3 + k^2 u^3 / 27 + k / 6 (k the mean's ``skewness``, :func:`rlstats.statistics.hall_transform` in
    the mean's own units, n = 1) within -+ the t quantile q at ``df``, while the skewness is at most
    :func:`rlstats.statistics.hall_cap`'s (the far end, on the side of the skew, where the cubic's slope is still at
    least ``HALL_SLOPE_ROOT`` squared); beyond, the band is the one at the cap with its far end moved on along its
    tangent in k (the near end stays): :func:`rlstats.statistics.hall_inverse` with ``capped=True``, the one home.

    Why the cap (audit s26 hall26): the cubic is flat at u = -3 / k, so where q passes 1 / k - k / 6 the inverted
    end crossed that point and the width jumped: 1.70 times the t band at G1 = 0.78 of 5 runs, 2.38 at 0.80, and it
    then shrank (2.09 at 1.5), not monotone in the skewness. Capped, it rises with bounded slope and never falls; at
    one task of 5 skewed runs its hull with the widened band covered 0.950 and 0.951 of two sets of 800 (the uncapped
    band 0.957 and 0.959, at a median 1.16 times the unwidened width against 1.11), 0.955 at 10 runs (0.960)
    (``tests/reference/curves_mean_skew.py``). Before audit s26 the band (no cap) was the one whose hull first held
    there (audit s25 band25): the Cornish-Fisher widening alone covered 0.927-0.931 of three sets of 800 bands.
    NaN where ``df`` or the standard error is."""
    from scipy import stats  # here, so that importing rlstats does not import scipy

    q = stats.t.ppf((1 + level) / 2, df)
    return np.stack([estimate - std_error * hall_inverse(q, skewness, 1.0, capped=True),
                     estimate - std_error * hall_inverse(-q, skewness, 1.0, capped=True)], axis=-1)


def hull(first, second):
    """(steps, 2) the smallest band holding both bands (NaN where the first is)."""
    return np.stack([np.fmin(first[:, 0], second[:, 0]), np.fmax(first[:, 1], second[:, 1])], axis=-1) + 0 * first


def custom_statistic(values, task_of, n_tasks, indices, function):
    """(B, steps) of ``function`` on resampled runs arranged (B, steps, runs, tasks), NaN-padded.

    ``indices`` (B, n_runs) picks, for each resample, which run fills each slot (slots keep
    their task), so every task keeps its number of runs.
    """
    starts = np.searchsorted(task_of, np.arange(n_tasks))
    sizes = np.diff(np.r_[starts, task_of.size])
    arranged = np.full((indices.shape[0], values.shape[1], sizes.max(), n_tasks), np.nan)
    for t, (start, size) in enumerate(zip(starts, sizes)):  # one loop per task, vectorised over resamples
        picked = values[indices[:, start:start + size]]  # (B, size, steps)
        arranged[:, :, :size, t] = picked.transpose(0, 2, 1)
    return np.asarray(function(arranged), dtype=float).reshape(indices.shape[0], values.shape[1])


class CellUniforms:
    """Uniforms on [0, 1) for rows of resamples, cell t's ``sizes[t]`` columns side by side (the cells in order) from
    its own stream ``seeds[t]`` alone: row r of cell t is its stream's outputs ``[r c_t, (r + 1) c_t)``, so a cell's
    draws depend on its seed, its runs and the row, not on the other cells nor on how the rows are split into calls.
    A cell of no runs draws nothing."""

    def __init__(self, seeds, sizes):
        self.sizes = [int(c) for c in sizes]
        self.generators = [np.random.Generator(np.random.PCG64(seed)) if c else None
                           for seed, c in zip(seeds, self.sizes)]

    def rows(self, k):
        """The next ``k`` rows, (k, sum of sizes)."""
        return np.concatenate([g.random((k, c)) for g, c in zip(self.generators, self.sizes) if c], axis=1)


def bootstrap_indices(uniforms, task_of, n_tasks):
    """(B, n_runs) run indices drawn with replacement within each task (a whole run per draw), from (B, n_runs)
    uniforms laid out as the runs are (:class:`CellUniforms`)."""
    starts = np.searchsorted(task_of, np.arange(n_tasks))
    sizes = np.diff(np.r_[starts, task_of.size])
    return (starts[task_of][None, :] + np.floor(uniforms * sizes[task_of][None, :])).astype(np.intp)


def weights_from_indices(indices, n_runs):
    """(B, n_runs) how often each run was drawn."""
    rows = np.repeat(np.arange(indices.shape[0]), indices.shape[1])
    return np.bincount(rows * n_runs + indices.ravel(), minlength=indices.shape[0] * n_runs).reshape(
        indices.shape[0], n_runs).astype(float)


def shuffle_within_tasks(uniforms, task_of):
    """(B, n_runs) run indices, each task's runs shuffled among that task's positions, from (B, n_runs) uniforms laid
    out as the runs are (:class:`CellUniforms`; ``task_of`` sorted).

    Uniform keys plus the task code sort every run back into its task's block in a random order;
    the first positions of a task's block then go to one agent and the rest to the other.
    """
    return np.argsort(uniforms + task_of[None, :], axis=1, kind="stable")


def all_relabellings(starts, sizes, n_first):
    """(L, n_runs) run indices of every relabelling of runs within tasks, laid out as :func:`shuffle_within_tasks`'s
    are (a task's first ``n_first`` positions go to one agent): each task's choices of that agent's runs, crossed
    over tasks. L is the product of C(size, n_first) over tasks; the identity labelling comes first."""
    blocks = []
    for start, size, n in zip(starts, sizes, n_first):
        ways = [list(chosen) + [r for r in range(size) if r not in chosen]
                for chosen in itertools.combinations(range(size), int(n))]
        blocks.append(start + np.array(ways, dtype=np.intp).reshape(len(ways), size))
    picks = np.indices([b.shape[0] for b in blocks]).reshape(len(blocks), -1)
    return np.concatenate([b[k] for b, k in zip(blocks, picks)], axis=1)


def effective_df(replicates, weights, task_of, n_tasks, logged, tolerance=None):
    """(steps,) Welch-Satterthwaite degrees of freedom of a stratified statistic, read from its bootstrap.

    A run's empirical influence at a step is estimated by the covariance over resamples of how often it was
    drawn with the statistic (the counts of a task's n runs have covariance I - J/n, the identity on influences
    that sum to zero within the task, so no matrix is inverted). Task t's share of the variance is the sum of
    its runs' squared influences, v_t, and df = (sum v_t)^2 / sum(v_t^2 / (n_t - 1)): n - 1 for one task,
    the sum of n_t - 1 when tasks weigh alike, near n - 1 when one task carries the variance (as the median
    of task means does). ``weights`` (B, runs) are the resampling counts; steps without spread give NaN.
    ``logged`` (runs, steps): the runs logged at each step, n_t counting those of the task logged there (session 28:
    runs that ended early were counted, 9 df said of a step of 5 runs). ``tolerance`` (steps,): the step's
    :func:`step_tolerance`; a step whose resamples all lie within it of their mean has no spread (audit s38 meta38:
    the optimality gap of runs at or above gamma, or tied below it, NaN in the data's units and 3.48 x 7.3).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        centred = np.nan_to_num(replicates - np.nanmean(replicates, axis=0))
    if tolerance is not None:
        centred[:, (np.abs(centred) <= tolerance).all(axis=0)] = 0.0
    influence = (weights - 1.0).T @ centred / replicates.shape[0]  # (runs, steps)
    top = np.abs(influence).max(axis=0)
    influence = influence / np.where(top > 0, top, 1.0)  # df is scale-free; v_t^2 in tiny units would underflow
    shares = np.zeros((n_tasks, replicates.shape[1]))
    np.add.at(shares, task_of, influence ** 2)
    sizes = np.zeros(shares.shape, dtype=int)
    np.add.at(sizes, task_of, logged.astype(int))
    # a task of one run logged adds no degree of freedom: left out (adding 0.0 keeps complete curves' df bit for bit)
    shares = np.where(sizes > 1, shares, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return shares.sum(axis=0) ** 2 / np.where(sizes > 1, shares ** 2 / (sizes - 1.0), 0.0).sum(axis=0)


def t_quantile_ratio(df, level):
    """(steps,) t quantile over normal quantile at two-sided ``level``: 1 where df is not finite."""
    from scipy import stats

    tail = (1.0 - level) / 2.0
    finite = np.isfinite(df) & (df > 0)
    out = np.ones(df.shape)
    out[finite] = stats.t.isf(tail, df[finite]) / stats.norm.isf(tail)
    return out


def column_nanquantile(values, q):
    """``np.nanquantile(values, q, axis=0)`` of (B, steps) ``values``, the same bits: the steps without a NaN in one
    vectorised np.quantile (nanquantile along an axis runs a Python loop over the steps, a fifth of a small curves()
    call), the others (the NaN of a resample that holds no run there) through nanquantile."""
    values = np.asarray(values)
    gaps = np.isnan(values).any(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN steps give NaN bounds, as they should; inf - inf
        if not gaps.any():
            return np.quantile(values, q, axis=0)
        clean = np.quantile(values[:, ~gaps], q, axis=0)
        out = np.empty(values.shape[1:], dtype=clean.dtype)
        out[~gaps] = clean
        out[gaps] = np.nanquantile(values[:, gaps], q, axis=0)
    return out


def percentile_bounds(replicates, estimate, level, df=None):
    """(steps, 2) percentile interval of each column of (B, steps) replicates; NaN where a step has none.

    With ``df`` (steps,), each end's distance from the estimate is widened by the t quantile at ``df`` over
    the normal quantile, as a t interval would be with the bootstrap's standard error.
    """
    tail = (1.0 - level) / 2.0
    bounds = np.stack([column_nanquantile(replicates, tail), column_nanquantile(replicates, 1.0 - tail)], axis=-1)
    if df is None:
        return bounds
    ratio = t_quantile_ratio(df, level)[:, None]
    return estimate[:, None] + ratio * (bounds - estimate[:, None])


def step_tolerance(values, task_of=None, n_tasks=1, statistic=None):
    """(steps,) the distance within which a standard error at each step is no spread, from the step's scores
    ``values`` (rows: runs): the package's tie tolerance (:func:`rlstats.statistics.tie_tolerance`) of their range
    and largest ``|score|``, infinite where the scores all tie by it (or none is logged): resampled sums of tied scores
    differ in their last bits by the units (1.7e-15 in tenths, 0 in integers) and a shift, and that is no spread.

    With each run's task code ``task_of`` (of ``n_tasks``), each task's scores at their own scale: infinite where
    every task's scores tie within their own tolerance, else the tasks' tolerances combined as the aggregate
    ``statistic`` (its name) weighs the tasks (:func:`rlstats.statistics.aggregate_tolerance`), not the range pooled
    over tasks (review s37 rv37a: a task at 1e9 made differences of 1.2e-4 to 2e-4 on the others ties)."""
    if task_of is None:
        task_of, n_tasks = np.zeros(values.shape[0], dtype=np.intp), 1
    held = np.isfinite(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # steps without a value
        filled = np.where(held, values, np.nan)
        high = np.stack([np.nanmax(filled[task_of == t], axis=0, initial=-np.inf) for t in range(n_tasks)])
        low = np.stack([np.nanmin(filled[task_of == t], axis=0, initial=np.inf) for t in range(n_tasks)])
    spread, magnitude = spread_and_magnitude(low, high)  # (tasks, steps): 0 and 0 where a task logs none
    tolerance = tie_tolerance(spread, magnitude)
    apart = (spread > tolerance).any(axis=0)
    if n_tasks == 1:
        combined = tolerance[0]
    else:
        combined = aggregate_tolerance(np.where(high >= low, tolerance, np.nan).T, statistic or "")
    return np.where(apart, combined, np.inf)


def _spread(se, values, tolerance=None):
    """Steps whose standard error ``se`` exceeds ``tolerance``, the :func:`step_tolerance` of the step's scores (by
    default of ``values``): below it the scores tie, and the spread is the rounding of sums, which the score's units
    and shift set (tied integer runs give 0, the same runs in tenths 1e-15, whose ratios of noise to noise then set
    the maximum over steps)."""
    return np.isfinite(se) & (se > (step_tolerance(values) if tolerance is None else tolerance))


def sup_t_band(replicates, estimate, level, df=None, tolerance=None):
    """Simultaneous band: estimate +- c * se, c from the level-quantile of the max studentised deviation.

    Returns (band (steps, 2), se (steps,), c (steps,)). Without ``df``, c is that quantile at every step.
    With ``df``, c at a step is the t quantile at its df with the same two-sided tail as the bootstrap's
    quantile has under the normal: the steps' joint behaviour from the bootstrap, each step's studentised
    deviation t-distributed rather than normal, as a standard error from few runs makes it. The tail is at least
    the Bonferroni one, (1 - level) / 2 over the steps in the maximum, and a quantile beyond the Bonferroni z
    scales that t quantile by its excess (audit s32 simband32): such a quantile comes from resamples' tails heavier
    than the normal, and read as a normal tail it sent the t quantile at few df far out (4.8 over 199 steps, at
    4 df: 22-43 standard errors, where the Bonferroni t band gives 12.3; now 16). Without ``df`` the
    quantile is the bootstrap's own. Steps with no
    spread (se within the ties' ``tolerance`` of the step's scores: :func:`_spread`) or no estimate are left out of
    the maximum; their band is the estimate itself.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(replicates, axis=0, ddof=1)
    usable = np.isfinite(estimate) & _spread(se, replicates, tolerance)
    c = np.full(estimate.shape, np.nan)
    if not usable.any():
        return np.stack([estimate, estimate], axis=-1), se, c
    deviation = np.abs(replicates[:, usable] - estimate[usable]) / se[usable]
    from scipy import stats

    c[:] = np.quantile(np.nanmax(deviation, axis=1), level)
    if df is not None:
        bonferroni = stats.norm.isf((1.0 - level) / (2.0 * usable.sum()))
        tail = stats.norm.sf(min(c[0], bonferroni))
        finite = usable & np.isfinite(df) & (df > 0)
        c[finite] = stats.t.isf(tail, df[finite]) * max(1.0, c[0] / bonferroni)
    half = np.where(usable, c * se, 0.0)
    return np.stack([estimate - half, estimate + half], axis=-1), se, c


def _max_t(observed, null, tolerance=None):
    """(usable steps, se, |t| observed at usable steps, max |t| of each relabelling, the slack of |t| within which
    a relabelling's reaches the observed one) of a max-T test.

    The slack is the step's tie ``tolerance`` (a distance in scores, :func:`step_tolerance`) in units of its se:
    a relabelling's difference computed from other sums than the observed one's differs from it by rounding, which
    the scores' units and shift set (the observed labelling itself, an exact null's member, came out 3e-12 below it
    at 1e-3 y - 1e4 and was not counted: p = 0, audit s21); without a tolerance, 1e-12 of |t|.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(null, axis=0, ddof=1)
    usable = np.isfinite(observed) & _spread(se, null, tolerance)
    if not usable.any():
        return usable, se, np.empty(0), np.empty(0), np.empty(0)
    t_observed = np.abs(observed[usable]) / se[usable]
    slack = 1e-12 * t_observed
    if tolerance is not None:
        slack = np.maximum(slack, np.broadcast_to(tolerance, se.shape)[usable] / se[usable])
    return usable, se, t_observed, np.nanmax(np.abs(null[:, usable]) / se[usable], axis=1), slack


def max_t_band(observed, null, alpha, exact=False, smallest=0.0, tolerance=None):
    """(steps, 2) band observed +- c * se of the max-T test: it excludes 0 at a step where p_adjusted <= alpha.

    se is the null's standard deviation at each step and c the largest of the relabellings' max |t| that
    keeps p <= alpha (the ceil(alpha (B + 1))-th largest; of an ``exact`` null, every relabelling once, the
    (floor(alpha B) + 1)-th), so that |observed| / se > c exactly when :func:`max_t_pvalues` gives p <= alpha.
    The band is infinite when the relabellings cannot reach alpha (nor can ``smallest``, the floor of
    :func:`max_t_pvalues`), and NaN where the p-value is (the null has no spread there).
    """
    usable, se, _, t_max, slack = _max_t(observed, null, tolerance)
    extra = 0 if exact else 1  # a Monte Carlo null counts the observed labelling once more
    allowed = int(np.floor(alpha * (null.shape[0] + extra) - extra + 1e-9))  # relabellings at or above a rejection
    c = (np.inf if allowed < 1 - extra or smallest > alpha or not usable.any() else np.sort(t_max)[::-1][allowed] / (1 - 1e-12))
    half = np.full(se.shape, np.nan)
    # only where the null has spread (an infinite c times a 0 se is no number); widened by the slack within which
    # max_t_pvalues counts a relabelling as reaching the observed |t|, so the two agree
    half[usable] = (c + (slack if np.isfinite(c) else 0.0)) * se[usable]
    return np.stack([observed - half, observed + half], axis=-1), c


def max_t_pvalues(observed, null, exact=False, smallest=0.0, tolerance=None):
    """Single-step max-T adjusted p-values over steps (Westfall and Young 1993).

    ``observed`` (steps,) and ``null`` (B, steps) differences; each step is studentised by the
    null's standard deviation there, and a step's p-value is the share of relabellings whose
    largest |t| over all steps reaches its |t|: of an ``exact`` null (every relabelling once, the
    observed one among them) hits / B, else (1 + hits) / (B + 1), never below ``smallest``, the
    smallest p-value the exact test can give (drawn relabellings can fall below it by chance).
    """
    usable, se, t_observed, t_max, slack = _max_t(observed, null, tolerance)
    p = np.full(observed.size, np.nan)
    if not usable.any():
        return p, se
    hits = (t_max[:, None] >= (t_observed - slack)[None, :]).sum(axis=0)
    p[usable] = hits / null.shape[0] if exact else monte_carlo_pvalue(hits, null.shape[0], smallest)
    return p, se
