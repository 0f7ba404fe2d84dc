"""Coverage of intervals with tasks resampled (``bootstrap(task_bootstrap=True)``), for a population of tasks.

Audit s28 (taskboot28). ``task_bootstrap=True`` resamples tasks, then runs within each drawn task, so its intervals
speak of the population the tasks were drawn from. Each data set: ``tasks`` true task means drawn from the
population (``normal``: N(0, 1); ``skewed``: the standardised lognormal of ``designs.py``, sigma 0.8, mean 0, sd 1),
``runs`` runs per task of N(task mean, sd^2) with sd 0.3 (run noise small beside the tasks' spread) or 2 (large);
``configuration`` reads ``run sd 0.3`` or ``run sd 2``. The estimand of each metric is its value over the whole
population of tasks (infinitely many tasks; its runs infinitely many for the median of task means):

- ``mean``: E[task mean];
- ``median``: the median of the true task means (of the population's law, not of the noisy means);
- ``iqm``: the interquartile mean of the law of one run on a random task (a normal mixture over the task means),
  what the pooled IQM over tasks x runs tends to;
- ``optimality_gap``: E[max(gamma - run, 0)] over that law, gamma = 1.

They are computed by Gauss-Hermite quadrature over the task means (200 nodes) and the normal's closed forms within a
task (:func:`truth`; tests/test_audit_s28_taskboot28.py checks them against a Monte Carlo of a million draws).

Intervals (nominal 95%, ``n_resamples`` 1,000 two-stage resamples drawn as ``rlstats`` draws them: tasks uniformly
with replacement, then each drawn task's runs with replacement):

- ``percentile``: the 2.5% and 97.5% quantiles of the resampled metric -- what ``bootstrap(task_bootstrap=True)``
  gives by default (the studentised default gives way to it);
- ``basic``: the percentile interval reflected about the estimate (``interval="basic"``);
- ``expanded_tasks``: the percentile interval read at the level whose normal quantile is sqrt(n/(n-1)) t_{n-1}
  (Hesterberg's expansion with n tasks as the sample size);
- ``t_tasks`` (the mean only): Student's t on the n task means, mean +- t_{n-1} s / sqrt(n), which carries the run
  noise inside each task mean;
- ``expanded_tasks_t`` (the mean only; audit s29 taskboot29): the bootstrap-t over tasks read at the expanded level,
  t* = (mean* - mean) / se* with se* the sd of the resample's n task means (runs resampled within them) over sqrt(n),
  bounds mean - q(1 - w) s / sqrt(n) and mean - q(w) s / sqrt(n), w = Phi(-sqrt(n/(n-1)) t_{n-1}) -- the default of
  ``bootstrap(task_bootstrap=True)`` for the mean from 10 tasks (:func:`studentized_mean`; an infinite bound, from
  resamples whose task means all tie, withholds the interval and counts as a miss).

The resampling is plain numpy here (vectorised over data sets and resamples); the test checks on data sets that the
percentile interval it gives is rlstats.bootstrap(task_bootstrap=True)'s within the Monte Carlo error of 1,000
resamples.

    python tests/reference/coverage_tasks_resampled.py           # via calibrate.py's run_alone: the grid's rows
    python tests/reference/calibrate.py --only bootstrap.interval_tasks
"""

import pathlib
import runpy

import numpy as np
from scipy import optimize, special, stats

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))

PROCEDURE = "bootstrap.interval_tasks"
LEVEL = 0.95
SIMULATIONS = (1000, 40)
N_RESAMPLES = 1000
TASKS = (2, 3, 5, 10, 26)
RUNS = (3, 5, 10)
DISTRIBUTIONS = ("normal", "skewed")
RUN_SD = (0.3, 2.0)
METRICS = ("mean", "median", "iqm", "optimality_gap")
GAMMA = 1.0
SIGMA = DESIGNS["SIGMA"]  # the skewed lognormal's log-scale sd
NODES = 200
BUDGET = 2 ** 23  # elements of one resampled block (data sets x resamples x tasks x runs)


def task_mean_of(distribution, z):
    """The task mean at standard normal ``z``: z itself, or the standardised lognormal (mean 0, sd 1), monotone."""
    if distribution == "normal":
        return np.asarray(z, dtype=float)
    mean, var = np.exp(SIGMA ** 2 / 2), (np.exp(SIGMA ** 2) - 1) * np.exp(SIGMA ** 2)
    return (np.exp(SIGMA * np.asarray(z, dtype=float)) - mean) / np.sqrt(var)


def truth(distribution, run_sd, metric, gamma=GAMMA):
    """The metric's value over the population of tasks (see the module docstring)."""
    z, w = np.polynomial.hermite_e.hermegauss(NODES)
    w = w / w.sum()
    mu = task_mean_of(distribution, z)
    if metric == "mean":
        return float(w @ mu)
    if metric == "median":
        return float(task_mean_of(distribution, 0.0))  # monotone in z: the law's median is f(0)
    if metric == "optimality_gap":
        d = (gamma - mu) / run_sd
        return float(w @ (run_sd * (d * special.ndtr(d) + np.exp(-d * d / 2) / np.sqrt(2 * np.pi))))
    # the IQM: 2 E[X 1{q1 < X < q3}] with X ~ sum w N(mu, sd^2)
    def cdf(x):
        return float(w @ special.ndtr((x - mu) / run_sd))
    span = 10 * (1 + run_sd)
    q1, q3 = (optimize.brentq(lambda x, p=p: cdf(x) - p, -span, span, xtol=1e-13) for p in (0.25, 0.75))
    a, b = (q1 - mu) / run_sd, (q3 - mu) / run_sd
    phi = lambda u: np.exp(-u * u / 2) / np.sqrt(2 * np.pi)  # noqa: E731
    part = mu * (special.ndtr(b) - special.ndtr(a)) + run_sd * (phi(a) - phi(b))
    return float(2 * (w @ part))


def data(distribution, tasks, runs, run_sd, n_sets, rng):
    """(n_sets, tasks, runs) scores: task means from the population, runs N(task mean, run_sd^2)."""
    mu = task_mean_of(distribution, rng.standard_normal((n_sets, tasks)))
    return mu[:, :, None] + run_sd * rng.standard_normal((n_sets, tasks, runs))


def metrics_of(scores, gamma=GAMMA):
    """(..., 4) mean, median of task means, IQM over tasks x runs (floor(N/4) cut each end), optimality gap."""
    tasks, runs = scores.shape[-2:]
    means = scores.mean(axis=-1)
    pooled = np.sort(scores.reshape(*scores.shape[:-2], tasks * runs), axis=-1)
    cut = (tasks * runs) // 4
    return np.stack([means.mean(axis=-1), np.median(means, axis=-1),
                     pooled[..., cut:tasks * runs - cut].mean(axis=-1),
                     np.maximum(gamma - scores, 0.0).mean(axis=(-1, -2))], axis=-1)


def resampled(scores, n_resamples, rng):
    """(S, B, 5) metrics of B two-stage resamples of each of S data sets (tasks, then runs within them), and last the
    standard error of each resample's mean over its tasks (the sd of its n task means over sqrt(n))."""
    sets, tasks, runs = scores.shape
    chosen = rng.integers(0, tasks, size=(sets, n_resamples, tasks))
    local = rng.integers(0, runs, size=(sets, n_resamples, tasks, runs))
    which = np.arange(sets)[:, None, None, None]
    drawn = scores[which, chosen[..., None], local]
    spread = drawn.mean(axis=-1).std(axis=-1, ddof=1) / np.sqrt(tasks)
    return np.concatenate([metrics_of(drawn), spread[..., None]], axis=-1)


def studentized_mean(estimate, se, distribution, spread, z):
    """(S, 2) the bootstrap-t interval of the mean over tasks read at the normal quantile ``z``: t* = (mean* - mean) /
    se* over the resamples (se*: the resample's sd of task means over sqrt(n), ``spread``), the bounds mean - q(1 - w)
    se and mean - q(w) se with w = Phi(-z), q numpy's (linear) quantiles, as rlstats reads them; a resample whose
    task means all tie has t* = +-inf, and a bound read there is withheld (NaN)."""
    deviation = distribution - estimate[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(spread > 0, deviation / spread, np.sign(deviation) * np.inf)
    t = np.where(np.isnan(t), 0.0, t)
    wide = special.ndtr(-z)
    with np.errstate(invalid="ignore"):  # inf - inf between two infinite order statistics: NaN, withheld
        q = np.quantile(t, [1 - wide, wide], axis=1).T
    bounds = estimate[:, None] - q * se[:, None]
    return np.where(np.isfinite(bounds).all(axis=1, keepdims=True), bounds, np.nan)


def intervals(scores, n_resamples, rng, level=LEVEL):
    """{interval: (S, 4, 2) bounds} of S data sets (``t_tasks``: the mean's column alone is finite)."""
    sets, tasks, runs = scores.shape
    block = max(1, BUDGET // (n_resamples * tasks * runs))
    both = np.concatenate([resampled(scores[i:i + block], n_resamples, rng) for i in range(0, sets, block)])
    dist, spread = both[..., :-1], both[..., -1]
    tail = (1 - level) / 2
    out = {"percentile": np.moveaxis(np.quantile(dist, [tail, 1 - tail], axis=1), 0, -1)}
    estimates = metrics_of(scores)[:, :, None]
    out["basic"] = 2 * estimates - out["percentile"][..., ::-1]  # the percentile interval reflected about the estimate
    z = np.sqrt(tasks / (tasks - 1)) * stats.t.ppf(1 - tail, tasks - 1)
    wide = special.ndtr(-z)
    out["expanded_tasks"] = np.moveaxis(np.quantile(dist, [wide, 1 - wide], axis=1), 0, -1)
    means = scores.mean(axis=-1)
    half = stats.t.ppf(1 - tail, tasks - 1) * means.std(axis=1, ddof=1) / np.sqrt(tasks)
    t = np.full((sets, len(METRICS), 2), np.nan)
    t[:, 0] = means.mean(axis=1)[:, None] + np.stack([-half, half], axis=-1)
    out["t_tasks"] = t
    # audit s29 taskboot29: the mean's bootstrap-t over tasks read at the expanded level (the mean's column alone)
    boot_t = np.full((sets, len(METRICS), 2), np.nan)
    boot_t[:, 0] = studentized_mean(means.mean(axis=1), means.std(axis=1, ddof=1) / np.sqrt(tasks), dist[..., 0],
                                    spread, z)
    out["expanded_tasks_t"] = boot_t
    return out


def measure(tasks, runs, distribution, run_sd, n_sim, seed=0, n_resamples=N_RESAMPLES):
    """The rows of one grid point: each interval's share of ``n_sim`` data sets holding each metric's truth."""
    rng = np.random.default_rng([2028, tasks, runs, DISTRIBUTIONS.index(distribution), RUN_SD.index(run_sd), seed])
    scores = data(distribution, tasks, runs, run_sd, n_sim, rng)
    truths = np.array([truth(distribution, run_sd, m) for m in METRICS])
    rows = []
    for interval, bounds in intervals(scores, n_resamples, rng).items():
        held = (bounds[..., 0] <= truths) & (truths <= bounds[..., 1])
        for j, metric in enumerate(METRICS):
            if interval in ("t_tasks", "expanded_tasks_t") and metric != "mean":
                continue
            coverage = float(held[:, j].mean())
            rows.append({"test": "", "statistic": "", "band": "", "interval": interval, "metric": metric,
                         "agents": 1, "tasks": tasks, "runs": runs, "distribution": distribution,
                         "configuration": f"run sd {run_sd:g}", "n_sim": n_sim, "n_resamples": n_resamples,
                         "coverage": coverage, "se": float(np.sqrt(coverage * (1 - coverage) / n_sim)),
                         "set_size": "", "design_draws": "", "coverage_min": ""})
    return rows


def grid(quick=False):
    """(tasks, runs, distribution, run sd) points; ``quick``: 2 and 5 tasks at 3 runs, normal, small noise."""
    if quick:
        return [(2, 3, "normal", 0.3), (5, 3, "normal", 0.3)]
    return [(t, r, d, s) for t in TASKS for r in RUNS for d in DISTRIBUTIONS for s in RUN_SD]


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim, n_resamples=200 if quick else N_RESAMPLES)


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
