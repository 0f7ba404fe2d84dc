"""Coverage of ``performance_profile(task_bootstrap=True)``'s bands against a population of tasks (audit s29 taskboot29).

The population is ``coverage_tasks_resampled.py``'s (task means normal or the standardised skewed lognormal, runs
N(task mean, run_sd^2), run_sd 0.3 or 2 times the task means' sd 1). The default profile (``kind="runs"``) is the
fraction of runs above tau averaged over tasks; over the population of tasks it tends to P(run > tau) for a run of a
random task, E[1 - Phi((tau - mu) / run_sd)] over the task means mu (Gauss-Hermite quadrature, :func:`truth`). The
thresholds are that law's 10%, 25%, 50%, 75% and 90% quantiles, so the true profile there is 0.9, 0.75, 0.5, 0.25,
0.1. The band with tasks resampled is the pointwise percentile band of the two-stage resamples (tasks uniformly with
replacement, then each drawn task's runs), drawn here in numpy as ``rlstats`` draws them (the test checks one data
set against ``rlstats.performance_profile``); a band holds at tau when it contains the true profile there.

    python tests/reference/coverage_profile_tasks_resampled.py [n_sim]    # prints one json line a design

Measured (400 data sets of 1,000 resamples a design; ``MEASURED`` below; docs/calibration.md, "Measured outside the
table"), quoted by the result's note.
"""

import json
import pathlib
import runpy
import sys

import numpy as np
from scipy import optimize, special

HERE = pathlib.Path(__file__).resolve().parent
TASKS = runpy.run_path(str(HERE / "coverage_tasks_resampled.py"))

LEVEL = 0.95
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
    sets, tasks, runs = scores.shape
    block = max(1, BUDGET // (n_resamples * tasks * runs))
    out = []
    for i in range(0, sets, block):
        part = scores[i:i + block]
        s = part.shape[0]
        chosen = rng.integers(0, tasks, size=(s, n_resamples, tasks))
        local = rng.integers(0, runs, size=(s, n_resamples, tasks, runs))
        drawn = part[np.arange(s)[:, None, None, None], chosen[..., None], local]
        profile = (drawn[..., None] > tau).mean(axis=(2, 3))  # (s, B, n_tau): each task alike, equal runs
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


if __name__ == "__main__":
    n_sim = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    for point in GRID:
        print(json.dumps(measure(*point, n_sim)), flush=True)
