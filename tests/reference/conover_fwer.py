"""Family-wise error of Conover's all-pairs t after Friedman's test under the null (issue 41 item 3).

Why ``posthoc="conover"``'s ``adjustment="auto"`` is Holm and not PMCMRplus's default "single-step": k agents whose
scores on n tasks are i.i.d. normal (every ranking equally likely), 4000 data sets per design; the share in which
some pair is declared different at 0.05, by the single step on the range of k normals (df = inf, PMCMRplus), the
same with the range's df = (n - 1)(k - 1), and Holm on the t p-values; then the same decisions made only after
Friedman's chi-squared test rejects at 0.05 (rlstats withholds the post hoc otherwise).  Monte Carlo SE about 0.004.

    PYTHONPATH=. python tests/reference/conover_fwer.py --table      (about a minute)

The ``skillings_mack.conover_fwer`` rows of ``rlstats/calibration.csv`` measure the public default itself on the
calibration grid (``table_rows`` below: ``PYTHONPATH=. python tests/reference/calibrate.py --only
skillings_mack.conover_fwer``).

Measured (numpy 2, seed 1):
    k  n   single-step  df=(n-1)(k-1)  Holm  | after Friedman: single-step  Holm
    3  5   0.118        0.089          0.041 |                 0.041        0.041
    3  10  0.093        0.051          0.051 |                 0.051        0.051
    3  26  0.056        0.056          0.041 |                 0.049        0.041
    5  5   0.096        0.060          0.044 |                 0.037        0.033
    5  10  0.065        0.049          0.037 |                 0.040        0.030
    5  26  0.057        0.053          0.043 |                 0.040        0.036
    8  5   0.083        0.050          0.034 |                 0.030        0.023
    8  10  0.059        0.049          0.032 |                 0.032        0.022
    8  26  0.052        0.046          0.036 |                 0.030        0.025
"""

import numpy as np
from scipy import stats

from rlstats.statistics import holm, studentized_range_sf


def main(n_sim=4000, seed=1):
    rng = np.random.default_rng(seed)
    print("k  n   single-step  df=(n-1)(k-1)  Holm  | after Friedman: single-step  Holm")
    for k in (3, 5, 8):
        for n in (5, 10, 26):
            ranks = stats.rankdata(rng.standard_normal((n_sim, n, k)), axis=2)
            sums = ranks.sum(axis=1)
            df = (n - 1) * (k - 1)
            residual = n * (ranks**2).sum(axis=(1, 2)) - (sums**2).sum(axis=1)
            u, v = np.triu_indices(k, 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = (sums[:, u] - sums[:, v]) / np.sqrt(2 * residual / df)[:, None]
            t = np.nan_to_num(t, nan=0.0, posinf=50.0, neginf=-50.0)
            largest = np.abs(t).max(axis=1)
            single = studentized_range_sf(np.sqrt(2) * largest, k) <= 0.05
            finite = studentized_range_sf(np.sqrt(2) * largest, k, df) <= 0.05
            holm_any = np.array([holm(2 * stats.t.sf(np.abs(row), df)).min() for row in t]) <= 0.05
            chi2 = 12 / (n * k * (k + 1)) * (sums**2).sum(axis=1) - 3 * n * (k + 1)
            friedman = stats.chi2.sf(chi2, k - 1) <= 0.05
            print(f"{k}  {n:<3} {single.mean():.3f}        {finite.mean():.3f}          {holm_any.mean():.3f} |"
                  f"                 {(single & friedman).mean():.3f}        {(holm_any & friedman).mean():.3f}")



# ---------------------------------------------------------------------------- the calibration table's rows
# ``skillings_mack.conover_fwer``: the public default, measured on issue 40's grid (tests/reference/calibrate.py)

PROCEDURE, LEVEL = "skillings_mack.conover_fwer", 0.95
#: (agents, tasks) measured: 2, 3, 5 and 8 agents, few tasks and 26 (one task is refused: no ranking across tasks)
SHAPES = ((2, 10), (3, 3), (3, 26), (5, 10), (8, 3), (8, 26))
#: simulated data sets per design draw and grid point: the table's, and --quick's
SIMULATIONS = (250, 50)


def _designs():
    import pathlib
    import runpy
    from types import SimpleNamespace

    return SimpleNamespace(**runpy.run_path(str(pathlib.Path(__file__).resolve().parent / "designs.py")))


def grid(quick=False):
    """(agents, tasks, runs, distribution): SHAPES x runs 3, 5, 10, 20 x the four distributions; --quick: runs 3."""
    designs = _designs()
    return designs.grid(SHAPES, (3,) if quick else designs.RUNS, designs.DISTRIBUTIONS)


def declared_any(agents, tasks, runs, distribution, n_sim, draw, seed=0):
    """(n_sim,) True where ``rlstats.skillings_mack(posthoc="conover")`` with its defaults (Holm, decisions only after
    the omnibus test rejects at 0.05) declared some pair different, on data sets where every agent's runs come from
    the same distribution (the null), each task with its design draw's offset and scale, cells summarised by their
    mean (``within_cell="mean"``, the way to Conover's post hoc on replicated runs).

    The public function runs only on the data sets that a vectorised screen cannot clear: Holm declares some pair
    only if the smallest of the m = k (k - 1) / 2 raw p-values is at most 0.05 / m, so a data set whose smallest raw
    Conover p-value (computed here as the kernel does) exceeds twice that declares nothing, gate or no gate."""
    import warnings

    import pandas as pd
    from scipy import stats

    import rlstats

    designs = _designs()
    offset, scale = designs.design_draw(draw, tasks)
    rng = np.random.default_rng([4103, seed, agents, tasks, runs, designs.DISTRIBUTIONS.index(distribution), draw])
    deviation = designs.deviations(rng, distribution, (n_sim, tasks, agents, runs))
    scores = designs.scores(distribution, deviation, 0.0, offset[:, None, None], scale[:, None, None])
    # the screen: Conover's raw p-values of every pair from the cell means, all data sets at once
    ranks = stats.rankdata(scores.mean(axis=3), axis=2)
    sums = ranks.sum(axis=1)
    df = (tasks - 1) * (agents - 1)
    residual = tasks * (ranks ** 2).sum(axis=(1, 2)) - (sums ** 2).sum(axis=1)
    u, v = np.triu_indices(agents, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(sums[:, u] - sums[:, v]) / np.sqrt(2 * residual / df)[:, None]
    smallest = np.where(np.isnan(t), 1.0, 2 * stats.t.sf(np.nan_to_num(t, nan=0.0, posinf=1e300), df)).min(axis=1)
    out = np.zeros(n_sim, dtype=bool)
    t_, a_, s_ = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    labels = {"task": [f"t{i:02d}" for i in t_.ravel()], "agent": [f"a{i}" for i in a_.ravel()], "seed": s_.ravel()}
    for i in np.flatnonzero(smallest <= 2 * 0.05 / u.size):
        df_i = pd.DataFrame({**labels, "score": scores[i].ravel()})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.skillings_mack(df_i, "score ~ agent | task/seed", variant="skillings_mack",
                                         within_cell="mean", posthoc="conover", rng=int(i))
        pairs = res.tidy()
        out[i] = bool((pairs["significant"].astype(bool) & ~pairs["withheld"].astype(bool)).any())
    return out


def table_rows(point, n_sim, quick=False):
    """One grid point's row: coverage = the share of null data sets in which no pair was declared different."""
    agents, tasks, runs, distribution = point
    designs = _designs()
    held = [~declared_any(agents, tasks, runs, distribution, n_sim, draw) for draw in range(designs.DESIGN_DRAWS)]
    return [{"test": "conover", "statistic": "holm", "agents": agents, "tasks": tasks, "runs": runs,
             "distribution": distribution, **designs.pooled_row(held, LEVEL)}]


if __name__ == "__main__":
    import sys

    if "--table" in sys.argv:
        main()
    else:  # the calibration rows, as calibrate.py --only skillings_mack.conover_fwer
        import pathlib
        import runpy

        runpy.run_path(str(pathlib.Path(__file__).resolve().parent / "calibrate.py"))["run_alone"](PROCEDURE)
