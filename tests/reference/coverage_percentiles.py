"""Simultaneous coverage of the performance percentiles' intervals: the ``percentiles.interval`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only percentiles.interval [--jobs 2] [--quick]

(or this script with the same options). A design is k agents x T tasks of Beta-distributed scores on [0, 1]: the
3 x 2 design of the PBP coverage test (``tests/test_percentiles.py``, its hand-picked parameters), and designs whose
Beta parameters (each between 1 and 6, so scores skewed either way and symmetric ones) are drawn once from a seed
fixed by (k, T). The true aggregate performance percentiles come from numerical integration of each pair's P(X <= Y)
and the test file's naive game solver (any k and T). For each interval kind and c runs per cell it counts how often
all k nominal 95% simultaneous intervals (delta = 0.05, bounds (0, 1)) hold their true value. Results quote a row
where it falls short of the level (``rlstats.methods.percentiles._api``). With more agents and tasks some payoffs the
game compares lie within sampling error of each other (in the drawn 5 x 5 design the closest two differ by 0.0005),
and there the aggregate jumps: at 20,000 runs per cell two of three estimates still missed the truth by 0.025. The
measured coverage includes this.

What is measured where (``PLANS``) follows the CPU cost of one call (2 shared cores; the cost depends on the design's
near-ties as much as on its size): at 2 x 1, 3 x 2 and 3 x 10, PBP and PBP-t cost ~0.02 s on average and the bootstrap
(2,000 resamples) 0.05-0.6 s, so 1,000 data sets (200-300 at 3 x 10); at 5 x 5, PBP 0.2-0.5 s on average (up to 5.6
s), PBP-t 0.2-1.2 s (up to 8 s) and the bootstrap 5-7 s, so 250 data sets and 60 for the bootstrap at 10 runs only;
at 8 x 5 every interval 0.3-1.3 s, so 100 data sets. At 8 agents x 26 tasks one call takes 7 s (PBP, 3 runs) to 17
s (PBP at 10 runs, PBP-t at 5), which 100 data sets at three run counts would turn into hours: not measured.
``grid`` lists (interval, agents, tasks, runs); ``--quick`` two of them.
"""

from __future__ import annotations

import math
import pathlib
import runpy
import warnings

import numpy as np
import pandas as pd

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
PROCEDURE, LEVEL = "percentiles.interval", 0.95
#: data sets per grid point: the table's, and --quick's (a plan's cap below lowers the first)
SIMULATIONS = (1000, 20)
N_RESAMPLES = 2000
INTERVALS = ("pbp", "pbp_t", "bootstrap")
#: (intervals, agents, tasks, runs per cell, data sets at most)
PLANS = [(INTERVALS, 3, 2, (3, 5, 10, 20), 1000),
         (INTERVALS, 2, 1, (3, 5, 10, 20), 1000),
         (("pbp", "pbp_t"), 3, 10, (3, 5, 10), 300), (("bootstrap",), 3, 10, (3, 5, 10), 200),
         (("pbp", "pbp_t"), 5, 5, (3, 5, 10), 250), (("bootstrap",), 5, 5, (10,), 60),
         (INTERVALS, 8, 5, (3, 5, 10), 100)]
CAPS = {(interval, agents, tasks): cap for intervals, agents, tasks, _, cap in PLANS for interval in intervals}
# The 3 x 2 design and the game solver, from the test file (run from its path: tests/ need not be importable).
TESTS = runpy.run_path(str(HERE.parent / "test_percentiles.py"))


def beta_params(agents, tasks):
    """{(agent, task): (a, b)} in the order the data are drawn: the test file's 3 x 2 design, else drawn once."""
    if (agents, tasks) == (3, 2):
        return TESTS["beta_design"](0, np.random.default_rng(0))[1]
    rng = np.random.default_rng([agents, tasks])
    return {(f"a{a}", f"t{t}"): tuple(rng.uniform(1.0, 6.0, 2)) for t in range(tasks) for a in range(agents)}


def simulate(params, runs, rng):
    """Long frame of ``runs`` Beta draws per cell (the test file's ``beta_design`` for its parameters)."""
    rows = [(a, t, x) for (a, t), (p, q) in params.items() for x in rng.beta(p, q, runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "score"])


def true_payoffs(params, agents, tasks):
    """A[i, j, k] = P(X_k <= X_i) on task j, by quadrature (0.5 on the diagonal, the method's self-payoff)."""
    from scipy import integrate, stats

    a = np.full((agents, tasks, agents), 0.5)
    for i, j, k in np.ndindex(agents, tasks, agents):
        if i != k:
            fi, fk = stats.beta(*params[f"a{i}", f"t{j}"]), stats.beta(*params[f"a{k}", f"t{j}"])
            a[i, j, k] = integrate.quad(lambda x: fi.pdf(x) * fk.cdf(x), 0, 1, epsabs=1e-12)[0]
    return a


def true_aggregate(params, agents, tasks):
    """The true aggregate performance percentiles: the test file's naive game solver on the true payoffs."""
    return TESTS["naive_solution"](true_payoffs(params, agents, tasks))[1]


def measure(interval, agents, tasks, runs, n_sim, seed=0, n_resamples=N_RESAMPLES):
    """The share of ``n_sim`` simulated data sets in which every nominal 95% interval held its true value."""
    rng = np.random.default_rng(seed)
    params = beta_params(agents, tasks)
    truth = true_aggregate(params, agents, tasks)
    simulate(params, runs, rng)  # a data set drawn and dropped: the 3 x 2 rows keep the data sets they were measured on
    held = 0
    for r in range(n_sim):
        res = rlstats.percentiles(simulate(params, runs, rng), TESTS["FORMULA"], interval=interval, delta=0.05,
                                  bounds=(0.0, 1.0), n_resamples=n_resamples, rng=r)
        held += bool(np.all((res.conf_low <= truth) & (truth <= res.conf_high)))
    coverage = held / n_sim
    return {"interval": interval, "agents": agents, "tasks": tasks, "runs": runs, "distribution": "beta",
            "n_sim": n_sim, "n_resamples": n_resamples if interval == "bootstrap" else "", "coverage": coverage,
            "se": math.sqrt(coverage * (1 - coverage) / n_sim)}


def grid(quick=False):
    """(interval, agents, tasks, runs) of every plan; --quick: pbp and the bootstrap at 3 x 2 and 5 runs."""
    if quick:
        return [("pbp", 3, 2, 5), ("bootstrap", 3, 2, 5)]
    return [(interval, agents, tasks, runs) for intervals, agents, tasks, runs_, _ in PLANS for interval in intervals
            for runs in runs_]


def table_rows(point, n_sim, quick=False):
    """The row of one grid point for the package table (``tests/reference/calibrate.py``): at most the plan's data
    sets; the 3 x 2 design keeps the seeds its rows were first measured with."""
    interval, agents, tasks, runs = point
    seed = runs if (agents, tasks) == (3, 2) else [agents, tasks, runs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the raw-scale and few-runs warnings: the designs are small on purpose
        return [measure(interval, agents, tasks, runs, min(n_sim, CAPS[interval, agents, tasks]), seed=seed)]


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
