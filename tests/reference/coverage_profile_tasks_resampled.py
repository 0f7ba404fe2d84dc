"""Coverage of ``performance_profile(task_bootstrap=True)``'s bands against a population of tasks (audit s29 taskboot29).

The population is ``coverage_tasks_resampled.py``'s (task means normal or the standardised skewed lognormal, runs
N(task mean, run_sd^2), run_sd 0.3 or 2 times the task means' sd 1). The default profile (``kind="runs"``) is the
fraction of runs above tau averaged over tasks; over the population of tasks it tends to P(run > tau) for a run of a
random task, E[1 - Phi((tau - mu) / run_sd)] over the task means mu (Gauss-Hermite quadrature, :func:`truth`). The
thresholds are that law's 10%, 25%, 50%, 75% and 90% quantiles, so the true profile there is 0.9, 0.75, 0.5, 0.25,
0.1. The band with tasks resampled is the pointwise percentile band of the two-stage resamples (tasks uniformly with
replacement, then each drawn task's runs), drawn here in numpy as ``rlstats`` draws them (the test checks one data
set against ``rlstats.performance_profile``); a band holds at tau when it contains the true profile there.

Measured (400 data sets of 1,000 resamples a design; ``MEASURED`` below; docs/calibration.md, "Measured outside the
table"): the first screen, kept as its record; the result's note quotes the ``bootstrap.profile_population`` rows
(below), not these (audit s29 pffix29).

Audit s29 (profile29) replaced that default with ``interval="wilson_tasks"``: the Wilson score interval with
continuity correction on the profile (the mean of the tasks' fractions) with the n tasks as the sample (``wilson_tasks``
here, Newcombe's (1998) explicit formula for method 4, not rlstats' root of the quadratic). Its rows and the
percentile band's are the ``bootstrap.profile_population`` rows of rlstats/calibration.csv (``PROCEDURE``; 2, 3, 5,
10 and 26 tasks x 3, 5 and 10 runs, the two task-mean laws and run noises, 1,000 data sets a point, the percentile
band from 1,000 resamples; ``configuration`` ``run sd 0.3, profile 0.9``: the runs' sd beside the task means' 1 and
the true profile at the threshold). The other candidates measured then (:func:`candidates`; not in the table): the
percentile band read at the expanded level sqrt(n/(n-1)) t_{n-1}, a t interval on the tasks' fractions expanded the
same way, and Wilson's interval without the correction.

Audit s30 (tboot30) added the ``kind="tasks"`` rows (``metric`` ``tasks``; :func:`tasks_rows`, after each point's
``kind="runs"`` rows, 1,000 data sets a point): the population's profile is P(mu > tau), 1 - q at the task means'
quantiles q (:func:`truth_tasks`); the default ``wilson_tasks`` band is ``rlstats.performance_profile``'s own (8 data
sets a call, as its agents; withheld, so no rows, below 5 tasks), the percentile band drawn here in numpy
(:func:`tasks_percentile`, 1,000 resamples). Measured: the default 0.995-1.00 (180 rows), the percentile band
0.10-0.996 (300 rows, 177 missing).

    python tests/reference/coverage_profile_tasks_resampled.py             # via calibrate.py's run_alone: the rows
    python tests/reference/calibrate.py --only bootstrap.profile_population
    python tests/reference/coverage_profile_tasks_resampled.py --json-lines [n_sim]    # MEASURED's lines
    python tests/reference/coverage_profile_tasks_resampled.py --candidates [n_sim]    # CANDIDATES' lines
    python tests/reference/coverage_profile_tasks_resampled.py --laws    # the band under random laws of the fractions
"""

import json
import pathlib
import runpy
import sys

import numpy as np
from scipy import optimize, special, stats

HERE = pathlib.Path(__file__).resolve().parent
TASKS = runpy.run_path(str(HERE / "coverage_tasks_resampled.py"))

PROCEDURE = "bootstrap.profile_population"
# the grid of the tasks-resampled intervals' rows (coverage_tasks_resampled.py), one home: level, data sets (full and
# quick), resamples, tasks and runs
LEVEL, SIMULATIONS, N_RESAMPLES, TASK_COUNTS, RUNS = (TASKS[name] for name in ("LEVEL", "SIMULATIONS", "N_RESAMPLES",
                                                                               "TASKS", "RUNS"))
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
GRID = [(t, r, d, s) for t in (5, 10, 26) for r in (3, 10) for d in ("normal", "skewed") for s in (0.3, 2.0)]
BUDGET = 2 ** 22


def truth(distribution, run_sd):
    """(thresholds, true profile there): the quantiles ``QUANTILES`` of one run of a random task, and 1 - q."""
    z, w = np.polynomial.hermite_e.hermegauss(TASKS["NODES"])
    w = w / w.sum()
    mu = TASKS["task_mean_of"](distribution, z)

    def above(x):
        return float(w @ special.ndtr((mu - x) / run_sd))
    span = 10 * (1 + run_sd)
    tau = np.array([optimize.brentq(lambda x, q=q: above(x) - (1 - q), -span, span, xtol=1e-13) for q in QUANTILES])
    return tau, np.array([above(x) for x in tau])


def bands(scores, tau, n_resamples, rng, level=LEVEL):
    """(S, n_tau, 2) pointwise percentile bands of the runs' profile with tasks and runs resampled."""
    return _percentile_bands(scores, tau, n_resamples, rng, level,
                             lambda drawn: (drawn[..., None] > tau).mean(axis=(2, 3)))  # each task alike, equal runs


def _percentile_bands(scores, tau, n_resamples, rng, level, profile_of):
    """(S, n_tau, 2) percentile bands of profile_of(drawn), drawn (s, B, tasks, runs): tasks, then runs resampled."""
    sets, tasks, runs = scores.shape
    block = max(1, BUDGET // (n_resamples * tasks * runs))
    out = []
    for i in range(0, sets, block):
        part = scores[i:i + block]
        s = part.shape[0]
        chosen = rng.integers(0, tasks, size=(s, n_resamples, tasks))
        local = rng.integers(0, runs, size=(s, n_resamples, tasks, runs))
        profile = profile_of(part[np.arange(s)[:, None, None, None], chosen[..., None], local])  # (s, B, n_tau)
        tail = (1 - level) / 2
        out.append(np.moveaxis(np.quantile(profile, [tail, 1 - tail], axis=1), 0, -1))
    return np.concatenate(out)


def measure(tasks, runs, distribution, run_sd, n_sim, n_resamples=1000, seed=0):
    """{"tau_quantile": coverage} of one design, and the lowest."""
    rng = np.random.default_rng([2029, tasks, runs, ("normal", "skewed").index(distribution), int(10 * run_sd), seed])
    tau, true = truth(distribution, run_sd)
    scores = TASKS["data"](distribution, tasks, runs, run_sd, n_sim, rng)
    b = bands(scores, tau, n_resamples, rng)
    held = (b[..., 0] <= true) & (true <= b[..., 1])
    coverage = held.mean(axis=0)
    return {"tasks": tasks, "runs": runs, "distribution": distribution, "run_sd": run_sd, "n_sim": n_sim,
            "coverage": [round(float(c), 4) for c in coverage], "lowest": round(float(coverage.min()), 4)}


#: 400 data sets a design, 1,000 resamples: (tasks, runs, distribution, run_sd) -> the lowest pointwise coverage over
#: the five thresholds (filled from this script's output)
MEASURED = {
    (5, 3, "normal", 0.3): 0.525, (5, 3, "normal", 2.0): 0.7425, (5, 3, "skewed", 0.3): 0.4925,
    (5, 3, "skewed", 2.0): 0.7375, (5, 10, "normal", 0.3): 0.585, (5, 10, "normal", 2.0): 0.9075,
    (5, 10, "skewed", 0.3): 0.4825, (5, 10, "skewed", 2.0): 0.89,
    (10, 3, "normal", 0.3): 0.7725, (10, 3, "normal", 2.0): 0.9475, (10, 3, "skewed", 0.3): 0.7575,
    (10, 3, "skewed", 2.0): 0.935, (10, 10, "normal", 0.3): 0.685, (10, 10, "normal", 2.0): 0.95,
    (10, 10, "skewed", 0.3): 0.695, (10, 10, "skewed", 2.0): 0.96,
    (26, 3, "normal", 0.3): 0.9025, (26, 3, "normal", 2.0): 0.97, (26, 3, "skewed", 0.3): 0.9025,
    (26, 3, "skewed", 2.0): 0.97, (26, 10, "normal", 0.3): 0.885, (26, 10, "normal", 2.0): 0.9675,
    (26, 10, "skewed", 0.3): 0.9075, (26, 10, "skewed", 2.0): 0.9525,
}


def wilson_tasks(profile, tasks, level=LEVEL):
    """(..., 2) Wilson's score interval with continuity correction (Newcombe 1998, method 4, his explicit bounds) of
    the proportion ``profile`` from ``tasks`` units. His bounds are for counts of 1 or more; a profile within half a
    step 1 / (2 n) of 0 (of 1), which tasks' fractions of runs reach, has 0 (1) inside the corrected interval
    (|p_hat - 0| - 1 / (2 n) <= 0), so its lower (upper) bound is 0 (1)."""
    z = special.ndtri((1 + level) / 2)
    n, p = tasks, np.asarray(profile, dtype=float)
    with np.errstate(invalid="ignore"):
        low = (2 * n * p + z * z - 1 - z * np.sqrt(np.maximum(z * z - 2 - 1 / n + 4 * p * (n * (1 - p) + 1), 0))) \
            / (2 * (n + z * z))
        high = (2 * n * p + z * z + 1 + z * np.sqrt(np.maximum(z * z + 2 - 1 / n + 4 * p * (n * (1 - p) - 1), 0))) \
            / (2 * (n + z * z))
    low = np.where(p <= 0.5 / n, 0.0, np.clip(low, 0, 1))
    high = np.where(p >= 1 - 0.5 / n, 1.0, np.clip(high, 0, 1))
    return np.stack([low, high], axis=-1)


def fractions(scores, tau):
    """(S, tasks, n_tau) each task's fraction of runs above each threshold."""
    return (scores[..., None] > tau).mean(axis=2)


def candidates(tasks, runs, distribution, run_sd, n_sim, n_resamples=500, seed=0):
    """{candidate: [coverage at each threshold], candidate + "_width": mean width}: the bands audit s29 profile29
    screened, on one set of data sets (the percentile ones from ``n_resamples`` resamples)."""
    rng = np.random.default_rng([2929, tasks, runs, ("normal", "skewed").index(distribution), int(10 * run_sd), seed])
    tau, true = truth(distribution, run_sd)
    scores = TASKS["data"](distribution, tasks, runs, run_sd, n_sim, rng)
    share = fractions(scores, tau)
    profile, spread = share.mean(axis=1), share.std(axis=1, ddof=1)
    expanded = np.sqrt(tasks / (tasks - 1)) * stats.t.ppf((1 + LEVEL) / 2, tasks - 1)
    z = special.ndtri((1 + LEVEL) / 2)
    centre, half = (profile + z * z / (2 * tasks)) / (1 + z * z / tasks), \
        z * np.sqrt(profile * (1 - profile) / tasks + z * z / (4 * tasks * tasks)) / (1 + z * z / tasks)
    out = {"wilson_tasks": wilson_tasks(profile, tasks),
           "wilson_uncorrected": np.stack([centre - half, centre + half], axis=-1),
           "t_expanded": np.stack([profile - expanded * spread / np.sqrt(tasks),
                                   profile + expanded * spread / np.sqrt(tasks)], axis=-1),
           "percentile": bands(scores, tau, n_resamples, rng),
           "percentile_expanded": bands(scores, tau, n_resamples, rng, level=1 - 2 * special.ndtr(-expanded))}
    said = {}
    for name, band in out.items():
        said[name] = [round(float(c), 4) for c in ((band[..., 0] <= true) & (true <= band[..., 1])).mean(axis=0)]
        said[name + "_width"] = round(float((band[..., 1] - band[..., 0]).mean()), 4)
    return said


def worst_law(tasks, runs, n_laws=3000, seed=0, level=LEVEL):
    """(coverage, law): the lowest exact coverage of :func:`wilson_tasks` over ``n_laws`` random laws of a task's
    fraction of runs above tau (Dirichlet(0.3) on 0, 1/runs, ..., 1: many near binary) with ``tasks`` iid tasks, the
    profile's law the tasks' n-fold convolution (audit s29 profile29: 0.948 at worst over 2, 3, 5 and 10 tasks x 3, 5
    and 10 runs, at nearly binary tasks; ``--laws``)."""
    rng = np.random.default_rng([29, tasks, runs, seed])
    values = np.arange(runs + 1) / runs
    band = wilson_tasks(np.arange(tasks * runs + 1) / (tasks * runs), tasks, level)
    worst = (1.0, None)
    for law in rng.dirichlet(np.full(runs + 1, 0.3), size=n_laws):
        total = np.array([1.0])
        for _ in range(tasks):
            total = np.convolve(total, law)
        p = law @ values
        held = float(total[(band[:, 0] <= p) & (p <= band[:, 1])].sum())
        worst = min(worst, (held, law), key=lambda pair: pair[0])
    return worst


def grid(quick=False):
    """(tasks, runs, distribution, run sd) points; ``quick``: 2 and 5 tasks at 3 runs, normal, small noise."""
    if quick:
        return [(2, 3, "normal", 0.3), (5, 3, "normal", 0.3)]
    return [(t, r, d, s) for t in TASK_COUNTS for r in RUNS for d in ("normal", "skewed") for s in (0.3, 2.0)]


def point_of(row):
    """The grid point (tasks, runs, distribution, run sd) of a table row (``calibrate.replace_points``)."""
    run_sd = float(row["configuration"].split(",")[0].split()[-1])  # "run sd 0.3, profile 0.10"
    return int(row["tasks"]), int(row["runs"]), row["distribution"], run_sd


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point (``tests/reference/calibrate.py``): the ``wilson_tasks`` and ``percentile`` bands'
    coverage of the population's profile at each of its five thresholds, on the same data sets."""
    tasks, runs, distribution, run_sd = point
    rng = np.random.default_rng([2929, tasks, runs, ("normal", "skewed").index(distribution), int(10 * run_sd)])
    tau, true = truth(distribution, run_sd)
    scores = TASKS["data"](distribution, tasks, runs, run_sd, n_sim, rng)
    n_resamples = 200 if quick else N_RESAMPLES
    out = {"wilson_tasks": wilson_tasks(fractions(scores, tau).mean(axis=1), tasks),
           "percentile": bands(scores, tau, n_resamples, rng)}
    return (coverage_rows(out, true, "runs", point, n_sim, n_resamples)
            + tasks_rows(point, n_sim, quick))  # audit s30 tboot30: kind="tasks"


def truth_tasks(distribution):
    """(thresholds, true profile there) of ``kind="tasks"`` (audit s30 tboot30): the population's profile is the
    fraction of its tasks whose (true) mean is above tau, P(mu > tau), so at the task means' quantiles ``QUANTILES``
    (the law is monotone in a standard normal z) it is 1 - q."""
    return TASKS["task_mean_of"](distribution, special.ndtri(np.array(QUANTILES))), 1.0 - np.array(QUANTILES)


def tasks_percentile(scores, tau, n_resamples, rng, level=LEVEL):
    """(S, n_tau, 2) pointwise percentile bands of the ``kind="tasks"`` profile (the fraction of tasks whose mean is
    above tau) with tasks and runs resampled, as :func:`bands` draws them."""
    return _percentile_bands(scores, tau, n_resamples, rng, level,
                             lambda drawn: (drawn.mean(axis=-1)[..., None] > tau).mean(axis=2))


#: data sets in one call of rlstats.performance_profile: each agent's band is its own, so every agent is one
AGENTS = 8


def tasks_default(scores, tau):
    """(S, n_tau, 2) the default ``kind="tasks"`` band with tasks resampled (``interval="wilson_tasks"``, audit s30
    tboot30), from ``rlstats.performance_profile`` itself, ``AGENTS`` data sets a call (NaN where withheld)."""
    import dataclasses

    import pandas as pd

    import rlstats
    from rlstats.design import design_of

    sets, tasks, runs = scores.shape
    task, agent, seed = np.meshgrid(np.arange(tasks), np.arange(AGENTS), np.arange(runs), indexing="ij")
    frame = pd.DataFrame({"task": [f"t{t:02d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                          "seed": seed.ravel(), "score": 0.0})
    design = design_of(frame, "score ~ agent | task/seed")
    order = np.lexsort((np.arange(design.y.size), design.task, design.agent))  # agent, then task, then run
    out = np.full((sets, tau.size, 2), np.nan)
    for start in range(0, sets, AGENTS):
        part = scores[start:start + AGENTS]
        filled = np.concatenate([part, np.zeros((AGENTS - part.shape[0], tasks, runs))])
        y = np.empty(design.y.size)
        y[order] = filled.ravel()
        res = rlstats.performance_profile(dataclasses.replace(design, y=y), tau=tau, kind="tasks",
                                          task_bootstrap=True, progress=False)
        places = [design.agents.index(f"a{a}") for a in range(part.shape[0])]
        out[start:start + part.shape[0]] = res.intervals[places]
    return out


def tasks_rows(point, n_sim, quick=False):
    """The ``kind="tasks"`` rows of one grid point (audit s30 tboot30; ``metric`` ``tasks``): the default
    ``wilson_tasks`` band's coverage of the population's profile (rlstats' own, withheld bands count as misses; none
    where every band is withheld) and the percentile band's, on the same data sets, at the five thresholds."""
    tasks, runs, distribution, run_sd = point
    rng = np.random.default_rng([3030, tasks, runs, ("normal", "skewed").index(distribution), int(10 * run_sd)])
    tau, true = truth_tasks(distribution)
    scores = TASKS["data"](distribution, tasks, runs, run_sd, n_sim, rng)
    n_resamples = 200 if quick else N_RESAMPLES
    default = tasks_default(scores, tau)
    out = {"percentile": tasks_percentile(scores, tau, n_resamples, rng)}
    if not np.isnan(default).all():
        out = {"wilson_tasks": default, **out}
    return coverage_rows(out, true, "tasks", point, n_sim, n_resamples)


def coverage_rows(bands_by_interval, true, metric, point, n_sim, n_resamples):
    """One table row per interval and profile step: the share of the n_sim bands holding the true profile."""
    tasks, runs, distribution, run_sd = point
    rows = []
    for interval, band in bands_by_interval.items():
        held = ((band[..., 0] <= true) & (true <= band[..., 1])).mean(axis=0)
        for at, coverage in zip(true, held):
            rows.append({"test": "", "statistic": "", "band": "pointwise", "interval": interval, "metric": metric,
                         "agents": 1, "tasks": tasks, "runs": runs, "distribution": distribution,
                         "configuration": f"run sd {run_sd:g}, profile {at:.2f}", "n_sim": n_sim,
                         "n_resamples": n_resamples if interval == "percentile" else "",
                         "coverage": float(coverage), "se": float(np.sqrt(coverage * (1 - coverage) / n_sim)),
                         "set_size": "", "design_draws": "", "coverage_min": ""})
    return rows


#: audit s29 profile29's screening (``--candidates 1000``: 1,000 data sets of 500 resamples a design, 5, 10 and 26 tasks
#: x 3, 5 and 10 runs x both laws and noises): candidate -> {tasks: the lowest coverage over the designs and thresholds}
CANDIDATES = {
    "wilson_tasks": {5: 0.984, 10: 0.984, 26: 0.974},
    "wilson_uncorrected": {5: 0.943, 10: 0.953, 26: 0.962},
    "t_expanded": {5: 0.482, 10: 0.699, 26: 0.865},
    "percentile": {5: 0.475, 10: 0.695, 26: 0.884},
    "percentile_expanded": {5: 0.482, 10: 0.719, 26: 0.897},
}


if __name__ == "__main__":
    if "--laws" in sys.argv:  # audit s29 profile29: the band under any law of a task's fraction
        for point in [(t, r) for t in (2, 3, 5, 10) for r in RUNS]:
            print(json.dumps({"point": point, "worst": round(worst_law(*point)[0], 4)}), flush=True)
    elif "--candidates" in sys.argv:  # audit s29 profile29's screening: one json line a design
        given = [a for a in sys.argv[1:] if a != "--candidates"]
        n_sim = int(given[0]) if given else 2000
        for point in [p for p in grid() if p[0] >= 5]:
            print(json.dumps({"point": point, **candidates(*point, n_sim)}), flush=True)
    elif "--json-lines" in sys.argv:
        given = [a for a in sys.argv[1:] if a != "--json-lines"]
        n_sim = int(given[0]) if given else 400
        for point in GRID:
            print(json.dumps(measure(*point, n_sim)), flush=True)
    else:
        runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
