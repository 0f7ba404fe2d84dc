"""Size of the selection check's tests under their null: the ``selection.size`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only selection.size [--jobs 2] [--quick]

(or this script with the same options). ``rlstats.selection_check`` asks whether the reported tasks have a larger
mean per-task effect than held-out tasks (the inspector's test, ``res.pvalue``: by default a permutation test over
task labels, exact for "the reported tasks are a uniformly random subset"; or the pooled or Welch two-sample t test)
and prints the reporter's test that the mean effect over the reported tasks is above 0: by default the
skewness-corrected t (``reporter="skew_t"``: the larger of the one-sample t p-value and Hall's skewness-corrected
one, with the skewness of the effects from the runs' k-statistics, used where negative), formerly the one-sample t
(``reporter="t"``, whose rows are kept). The null of
both: an honest reporter (the reported tasks a random subset, independent of the data) of an agent no better than
its baseline on any task. Each simulated data set has ``reported + heldout`` tasks (``configuration``: the reported
count; ``tasks``: all of them) with c runs of each agent per task (``runs``). A *design draw*
(``designs.design_draw(d, tasks)``) gives each task its offset and scale; on task t the baseline's runs are
``offset_t + scale_t * z`` (z standard normal) and the treatment's ``offset_t + scale_t * (e - E e)`` with e the
deviations of one of the four distributions of ``designs.py``, turned so that their skew points down: ``skewed`` is
the mirrored lognormal (now and then far worse: rare failures), ``capped`` the ceiling a third of the runs hit
(left-skewed already), ``heavy_tailed`` and ``normal`` symmetric. Left skew is the orientation in which one-sided
tests of an improvement exceed their size (a right-skewed effect makes them conservative), so the rows measure the
worst case. The default effect ``mean_diff`` is then skewed at few runs. As the tasks are drawn independently and
the reported ones at random, held-out tasks that are the rest of the suite, a listed set or fresh runs have one and
the same distribution here: one measurement serves them all. The reported tasks are a uniformly random subset
of the draw's tasks, drawn afresh for each data set. Each row pools ``DESIGN_DRAWS`` draws (``coverage_min``
the lowest).

A row per test (``statistic``: ``inspector`` or ``reporter``; ``test``: ``fisher_pitman`` (the permutation test),
``t``, ``welch``, or the reporter's ``skew_t`` and ``t``) gives the share of null data sets not rejected at 0.05 (beta for the inspector, alpha for the
reporter), so its size is 1 - coverage. The p-values come from the kernels ``selection_check`` calls, on a batch of
data sets at once (``tests/test_selection.py`` checks that they equal the public function's); the permutation
inspector enumerates the subsets where there are at most 9,999 (as its default does), and otherwise draws
``N_RESAMPLES`` = 999 random ones (``n_resamples``: the subsets used). The z tests need a known sd and are not measured. Results quote a row
where their test misses its level (``rlstats.methods.selection._api``). ``grid`` lists (reported, held-out, runs,
distribution), ``--quick`` two.
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS_MODULE = runpy.run_path(str(HERE / "designs.py"))
PROCEDURE, LEVEL = "selection.size", 0.95
ALPHA = 1 - LEVEL  # the default alpha and beta
#: random subsets of the permutation inspector where there are more than its default 9,999 (which it enumerates): a Monte
#: Carlo p-value (hits + 1) / (B + 1) is uniform on its attainable values under the null whatever B, so its size at
#: 0.05 is the same 50 / 1,000 = 500 / 10,000, and 999 subsets measure it at a tenth of the cost
N_RESAMPLES = 999
DEFAULT_RESAMPLES = 9_999
#: null data sets per design draw: the table's, and --quick's
SIMULATIONS = (2000, 100)
#: (reported, held-out) tasks: a few of a small suite, and of Atari-100k's 26 games
DESIGNS = ((2, 8), (3, 3), (3, 23), (5, 5), (5, 21), (8, 18))
RUNS = (2,) + DESIGNS_MODULE["RUNS"]
DISTRIBUTIONS = DESIGNS_MODULE["DISTRIBUTIONS"]
INSPECTORS = ("fisher_pitman", "t", "welch")
REPORTERS = ("skew_t", "t")
#: the sign that turns each distribution's skew down (the mirrored lognormal: rare failures)
ORIENTATION = {"normal": 1.0, "skewed": -1.0, "heavy_tailed": 1.0, "capped": 1.0}


def _mean(distribution):
    """The exact mean of the (capped) deviations, from stratified quantiles."""
    return float(DESIGNS_MODULE["population"](distribution, 0.0).mean())


def draw_runs(distribution, n_sim, tasks, runs, rng, draw=0):
    """(treatment, baseline) runs of shape (n_sim, tasks, runs) under the null: equal means on every task."""
    offset, scale = DESIGNS_MODULE["design_draw"](draw, tasks)
    offset, scale = offset[:, None], scale[:, None]
    baseline = offset + scale * rng.normal(0.0, 1.0, (n_sim, tasks, runs))
    deviation = DESIGNS_MODULE["scores"](distribution, DESIGNS_MODULE["deviations"](rng, distribution,
                                                                                    (n_sim, tasks, runs)))
    return offset + scale * ORIENTATION[distribution] * (deviation - _mean(distribution)), baseline


def run_skewness(treatment, baseline):
    """(..., tasks) second and third cumulants of each task's mean_diff effect from its runs (scipy's k-statistics
    of each arm, a computation apart from the kernel's ``effect_cumulants``)."""
    from scipy import stats

    runs = treatment.shape[-1]
    k2 = (stats.kstat(treatment, 2, axis=-1) + stats.kstat(baseline, 2, axis=-1)) / runs
    k3 = (stats.kstat(treatment, 3, axis=-1) - stats.kstat(baseline, 3, axis=-1)) / runs ** 2
    return k2, k3


def pvalues(v_reported, v_heldout, rng, skewness=None):
    """{(statistic, test): p-values of each row}, as ``selection_check`` computes them with its defaults
    (``skewness``: one per row for the skew-corrected reporter, from the runs; None, from the effects)."""
    from rlstats.methods.selection import _kernels as kernels

    enumerated = math.comb(v_reported.shape[-1] + v_heldout.shape[-1], v_reported.shape[-1]) <= DEFAULT_RESAMPLES
    out = {("inspector", "fisher_pitman"): kernels.permutation_pvalues(
        v_reported, v_heldout, DEFAULT_RESAMPLES if enumerated else N_RESAMPLES, rng)}
    for kind in INSPECTORS[1:]:
        out["inspector", kind] = kernels.parametric_inspector(v_reported, v_heldout, kind)[2]
    out["reporter", "skew_t"] = kernels.reporter_test(v_reported, "skew_t", skewness=skewness)[2]
    out["reporter", "t"] = kernels.reporter_test(v_reported, "t")[2]
    return out


def measure(reported, heldout, runs, distribution, n_sim, seed=0):
    """Rows of one design: per test, the share of null data sets it did not reject at 0.05 (``n_sim`` per draw)."""
    held = {}
    for draw in range(DESIGNS_MODULE["DESIGN_DRAWS"]):
        key = [seed, reported, heldout, runs, DISTRIBUTIONS.index(distribution), draw]
        data_seed, test_seed = np.random.SeedSequence(key).spawn(2)
        treatment, baseline = draw_runs(distribution, n_sim, reported + heldout, runs,
                                        np.random.default_rng(data_seed), draw)
        v = treatment.mean(axis=-1) - baseline.mean(axis=-1)  # the default effect, mean_diff
        # the honest reporter's subset is uniformly random: each data set its own order of the draw's tasks
        order = np.random.default_rng(data_seed.spawn(1)[0]).random(v.shape).argsort(axis=-1)
        v = np.take_along_axis(v, order, axis=-1)
        skewness = None
        if runs >= 3:  # the reported tasks' runs give the skewness (selection_check's rule)
            from rlstats.methods.selection import _kernels as kernels

            k2, k3 = (np.take_along_axis(k, order, axis=-1)[:, :reported] for k in run_skewness(treatment, baseline))
            skewness = kernels.effect_skewness(v[:, :reported], k2, k3)
        for key, p in pvalues(v[:, :reported], v[:, reported:], np.random.default_rng(test_seed), skewness).items():
            held.setdefault(key, []).append(p > ALPHA)
    subsets = math.comb(reported + heldout, reported)
    permutations = subsets if subsets <= DEFAULT_RESAMPLES else N_RESAMPLES  # every subset, or the random ones
    return [{"test": test, "statistic": statistic, "agents": 2, "tasks": reported + heldout, "runs": runs,
             "distribution": distribution, "configuration": f"{reported} reported",
             "n_resamples": permutations if test == "fisher_pitman" else "",
             **DESIGNS_MODULE["pooled_row"](by_draw, LEVEL)}
            for (statistic, test), by_draw in held.items()]


def grid(quick=False):
    """(reported, held-out, runs, distribution): every design, runs count and distribution; --quick: two."""
    return DESIGNS_MODULE["grid"](DESIGNS, RUNS, DISTRIBUTIONS, quick=quick,
                                  quick_points=[(3, 3, 2, "skewed"), (5, 21, 5, "normal")])


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim)


if __name__ == "__main__":
    runpy.run_path(str(pathlib.Path(__file__).with_name("calibrate.py")))["run_alone"](PROCEDURE)
