"""Size of the selection check's tests under their null: the ``selection.size`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only selection.size [--jobs 2] [--quick]

(or this script with the same options). ``rlstats.selection_check`` asks whether the reported tasks have a larger
mean per-task effect than held-out tasks (the inspector's test, ``res.pvalue``: by default a permutation test over
task labels, exact for "the reported tasks are a uniformly random subset"; or the pooled or Welch two-sample t test)
and prints the reporter's one-sample t test that the mean effect over the reported tasks is above 0. The null of
both: an honest reporter (the reported tasks a random subset, independent of the data) of an agent no better than
its baseline on any task. Each simulated data set has ``reported + heldout`` tasks (``configuration``: the reported
count; ``tasks``: all of them) with c runs of each agent per task (``runs``); the baseline's runs are N(0, 1), the
treatment's N(0, 1) (``normal``), Exp(1) - 1 (``skewed``: now and then far better) or 1 - Exp(1) (``skewed_left``:
now and then far worse), so the default effect ``mean_diff`` is skewed at few runs and one-sided tests can miss
their level. As the tasks are drawn independently and the reported ones at random, held-out tasks that are the rest
of the suite, a listed set or fresh runs have one and the same distribution here: one measurement serves them all.

A row per test (``statistic``: ``inspector`` or ``reporter``; ``test``: ``fisher_pitman`` (the permutation test),
``t``, ``welch``, or the reporter's ``t``) gives the share of null data sets not rejected at 0.05 (beta for the inspector, alpha for the
reporter), so its size is 1 - coverage. The p-values come from the kernels ``selection_check`` calls, on a batch of
data sets at once (``tests/test_selection.py`` checks that they equal the public function's); the permutation
inspector uses the default 9,999 random subsets where there are more subsets than that, otherwise it enumerates
them (``n_resamples``: the subsets used). The z tests need a known sd and are not measured. Results quote a row
where their test misses its level (``rlstats.methods.selection._api``). ``grid`` lists (reported, held-out, runs,
distribution), ``--quick`` two.
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np

PROCEDURE, LEVEL = "selection.size", 0.95
ALPHA = 1 - LEVEL  # the default alpha and beta
N_RESAMPLES = 9_999  # the permutation inspector's default
#: null data sets per grid point: the table's, and --quick's
SIMULATIONS = (8000, 400)
#: (reported, held-out) tasks: a few of a small suite, and of Atari-100k's 26 games
DESIGNS = ((2, 8), (3, 3), (3, 23), (5, 5), (5, 21), (8, 18))
RUNS = (2, 3, 5, 10, 20)
DISTRIBUTIONS = ("normal", "skewed", "skewed_left")
INSPECTORS = ("fisher_pitman", "t", "welch")


def draw_runs(distribution, n_sim, tasks, runs, rng):
    """(treatment, baseline) runs of shape (n_sim, tasks, runs) under the null: equal means on every task."""
    baseline = rng.normal(0.0, 1.0, (n_sim, tasks, runs))
    if distribution == "normal":
        return rng.normal(0.0, 1.0, (n_sim, tasks, runs)), baseline
    sign = 1.0 if distribution == "skewed" else -1.0
    return sign * (rng.exponential(1.0, (n_sim, tasks, runs)) - 1.0), baseline


def pvalues(v_reported, v_heldout, rng):
    """{(statistic, test): p-values of each row}, as ``selection_check`` computes them with its defaults."""
    from rlstats.methods.selection import _kernels as kernels

    out = {("inspector", "fisher_pitman"): kernels.permutation_pvalues(v_reported, v_heldout, N_RESAMPLES, rng)}
    for kind in INSPECTORS[1:]:
        out["inspector", kind] = kernels.parametric_inspector(v_reported, v_heldout, kind)[2]
    out["reporter", "t"] = kernels.reporter_test(v_reported, "t")[2]
    return out


def measure(reported, heldout, runs, distribution, n_sim, seed=0):
    """Rows of one design: per test, the share of ``n_sim`` null data sets it did not reject at 0.05."""
    key = [seed, reported, heldout, runs, DISTRIBUTIONS.index(distribution)]
    data_seed, test_seed = np.random.SeedSequence(key).spawn(2)
    treatment, baseline = draw_runs(distribution, n_sim, reported + heldout, runs, np.random.default_rng(data_seed))
    v = treatment.mean(axis=-1) - baseline.mean(axis=-1)  # the default effect, mean_diff
    subsets = math.comb(reported + heldout, reported)
    permutations = subsets if subsets <= N_RESAMPLES else N_RESAMPLES  # every subset, or the random ones
    rows = []
    for (statistic, test), p in pvalues(v[:, :reported], v[:, reported:], np.random.default_rng(test_seed)).items():
        coverage = float(np.mean(p > ALPHA))
        rows.append({"test": test, "statistic": statistic, "agents": 2, "tasks": reported + heldout, "runs": runs,
                     "distribution": distribution, "configuration": f"{reported} reported", "n_sim": n_sim,
                     "n_resamples": permutations if test == "fisher_pitman" else "", "coverage": coverage,
                     "se": math.sqrt(coverage * (1 - coverage) / n_sim)})
    return rows


def grid(quick=False):
    """(reported, held-out, runs, distribution): every design, runs count and distribution; --quick: two."""
    if quick:
        return [(3, 3, 2, "skewed_left"), (5, 21, 5, "normal")]
    return [(p, i, c, dist) for p, i in DESIGNS for c in RUNS for dist in DISTRIBUTIONS]


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim)


if __name__ == "__main__":
    runpy.run_path(str(pathlib.Path(__file__).with_name("calibrate.py")))["run_alone"](PROCEDURE)
