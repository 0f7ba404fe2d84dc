"""Pointwise coverage of the performance profile's default band: the ``bootstrap.profile`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only bootstrap.profile [--jobs 2] [--quick]

(or this script with the same options). ``rlstats.performance_profile`` with its defaults (``kind="runs"``: the
fraction of runs above tau, averaged over tasks; pointwise percentile bands at 95%, 2,000 resamples of the runs
within each task) claims, at each threshold tau, that the band holds the true profile with probability 0.95. That
claim is measured at fixed thresholds: those where the true profile is 0.05, 0.1, 0.25, 0.5, 0.75, 0.9 and 0.95,
each plus 0.001 (``PROFILE_VALUES``; ``configuration``, e.g. ``profile 0.251``), one row each, so a row's
``coverage`` is the share of simulated bands holding the truth at that one threshold. Designs: 1, 5 or 26 tasks
whose means spread evenly from 0 to 4 (0 for one task), 2 to 20 runs per task, unit-variance scores, normal or
skewed (a shifted Exp(1)). The true profile is the mean over tasks of each task's survival function at tau, in closed
form (:func:`true_profile`). Each data set holds ``AGENTS`` agents drawn independently, and each agent's band counts
as one simulation (``n_sim`` counts bands).

With one task the band at tau depends on the data only through how many runs lie above tau, so any score
distribution, capped and tied ones included, gives the same coverage at the same true profile value
(``tests/test_bootstrap.py`` checks those rows against an enumeration); with several tasks the distribution matters
only through each task's share above tau, which normal and skewed scores spread differently. Results quote a row
where the fewest runs per task of a design are this few (``rlstats.methods.bootstrap._api``). ``grid`` lists
(distribution, tasks, runs), ``--quick`` two of them.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import runpy

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
PROCEDURE, LEVEL = "bootstrap.profile", 0.95
#: data sets per grid point (each of AGENTS bands): the table's, and --quick's
SIMULATIONS = (600, 20)
AGENTS = 10
N_RESAMPLES = 2000  # performance_profile's default
TASKS = (1, 5, 26)
RUNS = (2, 3, 5, 10, 20)
DISTRIBUTIONS = ("normal", "skewed")
#: True profile values at which the band is read: 0.05 to 0.95, each 0.001 up, so that none is a fraction
#: k / (tasks x runs) the estimate can take (there floating-point rounding, not the band, would decide)
PROFILE_VALUES = (0.051, 0.101, 0.251, 0.501, 0.751, 0.901, 0.951)


def task_means(tasks):
    return np.linspace(0.0, 4.0, tasks) if tasks > 1 else np.zeros(1)


def noise(distribution, size, rng):
    """Unit-variance noise with mean 0: normal, or Exp(1) - 1."""
    if distribution == "skewed":
        return rng.exponential(1.0, size) - 1.0
    return rng.normal(0.0, 1.0, size)


def survival(distribution, x):
    """P(noise > x) in closed form."""
    from scipy import special

    if distribution == "skewed":
        return np.exp(-np.maximum(x + 1.0, 0.0))
    return special.ndtr(-x)


def true_profile(distribution, tasks, tau):
    """The fraction of runs above each tau, averaged over tasks, of the generating distribution."""
    tau = np.asarray(tau, dtype=float)
    return survival(distribution, tau[..., None] - task_means(tasks)).mean(axis=-1)


def thresholds(distribution, tasks, values=PROFILE_VALUES):
    """The thresholds at which the true profile equals each of ``values`` (it decreases continuously in tau)."""
    from scipy import optimize

    return np.array([optimize.brentq(lambda t: true_profile(distribution, tasks, t) - p, -10.0, 40.0, xtol=1e-12)
                     for p in values])


def template(tasks, runs, agents=AGENTS):
    """The balanced design (every agent ``runs`` times on every task) that each simulated data set refills."""
    from rlstats.design import design_of

    task, agent, seed = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    frame = pd.DataFrame({"task": [f"t{t:02d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                          "seed": seed.ravel(), "score": 0.0})
    return design_of(frame, "score ~ agent | task/seed")


def measure(distribution, tasks, runs, n_sim, seed=0, n_resamples=N_RESAMPLES):
    """Rows of one design: per profile value, the share of the ``n_sim * AGENTS`` bands holding the truth there."""
    import rlstats

    design = template(tasks, runs)
    means = task_means(tasks)[design.task]
    tau = thresholds(distribution, tasks)
    truth = true_profile(distribution, tasks, tau)
    key = [seed, tasks, runs, DISTRIBUTIONS.index(distribution)]
    data_seed, band_seed = np.random.SeedSequence(key).spawn(2)
    rng = np.random.default_rng(data_seed)
    held = np.zeros(tau.size)
    for child in band_seed.spawn(n_sim):
        data = dataclasses.replace(design, y=means + noise(distribution, means.size, rng))
        res = rlstats.performance_profile(data, tau=tau, n_resamples=n_resamples, rng=child)
        held += ((res.intervals[..., 0] <= truth) & (truth <= res.intervals[..., 1])).sum(axis=0)
    bands = n_sim * AGENTS
    return [{"band": "pointwise", "interval": "percentile", "metric": "runs", "tasks": tasks, "runs": runs,
             "distribution": distribution, "configuration": f"profile {p:g}", "n_sim": bands,
             "n_resamples": n_resamples, "coverage": h / bands,
             "se": math.sqrt(h / bands * (1 - h / bands) / bands)} for p, h in zip(PROFILE_VALUES, held)]


def grid(quick=False):
    """(distribution, tasks, runs): every combination; --quick: normal scores on 5 tasks at 3 runs, skewed on 26 at
    10."""
    if quick:
        return [("normal", 5, 3), ("skewed", 26, 10)]
    return [(dist, tasks, runs) for dist in DISTRIBUTIONS for tasks in TASKS for runs in RUNS]


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim)


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
