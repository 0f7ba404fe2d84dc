"""Which degrees of freedom the optimality gap's Welch t floor should read (audit s24, small24 item 2).

The default interval of the optimality gap takes on each side the wider of its bootstrap-t bound and the Welch t
bound (``rlstats.statistics.welch_floor``), whose df is the Welch-Satterthwaite df of the agent's *mean* over tasks
(2.38 for SPR at 3 runs on Atari 100k, where the gap's own, that of the task means of max(gamma - score, 0), is 11.6).
This script measures, on issue 40's grid families (``tests/reference/designs.py``: skewed and capped scores, 5 and
26 tasks, 3 and 5 runs; on one task the gap's interval is withheld below 50 runs and both dfs are c - 1 there), the
coverage of nominal 95% intervals of the gap with the floor at the mean's df (the default) and at the gap's own df,
from the same resamples of the same data sets (``coverage_small_runs.draw_design``).

    PYTHONPATH=. nice -n 10 python tests/reference/coverage_gap_welch_df.py [--datasets N] [--heavy]

(run in session 24 with the default 60: the rows quoted in ``rlstats.statistics.welch_floor``)

Prints one row per grid point: coverage (pooled over the design draws), the lowest draw, and the intervals' median
width, for each df.
"""

from __future__ import annotations

import argparse
import pathlib
import runpy
import warnings

import numpy as np

import rlstats
from rlstats.methods.bootstrap import _small_runs as small_runs
from rlstats.statistics import run_expansion, welch_floor

HERE = pathlib.Path(__file__).resolve().parent
coverage = runpy.run_path(str(HERE / "coverage_small_runs.py"))
designs = coverage["designs"]
GAMMA = coverage["GAMMA"]
POINTS = [(d, t, r) for d in ("skewed", "capped") for t in (5, 26) for r in (3, 5)]
#: where the floor was needed (audit s20: the gap's bootstrap-t alone covered 0.928 of 1,920 at 5 tasks x 20
#: heavy-tailed runs): ``--heavy`` measures these, with twice the data sets
HEAVY_POINTS = [("heavy_tailed", 5, 10), ("heavy_tailed", 5, 20)]


def gap_df(res, gamma=GAMMA):
    """(K,) the Welch-Satterthwaite df of each agent's mean over tasks of the task means of max(gamma - score, 0)."""
    design = res.design
    out = []
    for j in range(design.n_agents):
        mine = design.agent == j
        out.append(small_runs.welch_df(np.maximum(gamma - design.y[mine], 0.0), design.task[mine], design.n_tasks))
    return np.array(out)


def gap_bounds(res, df):
    """(K, 2) the gap's default bounds with the Welch floor at ``df``, from ``res``'s own resamples."""
    bounds, se, _ = small_runs.bootstrap_bounds(
        res.bootstrap_distribution, res.estimates, res.confidence_level, "studentized_no_welch", None, None, False,
        res.counts.min(axis=0), res.degrees_of_freedom, (res.resampled_standard_errors, res.standard_errors),
        res.metrics, res.n_tasks, res.skewness)
    observed = res.standard_errors * run_expansion(res.counts.min(axis=0))[:, None]
    bounds, _, _ = welch_floor(bounds, se, res.estimates, observed, df, res.confidence_level, res.metrics)
    if res.saturated is not None:
        bounds = np.where(res.saturated[..., None], np.nan, bounds)
    return np.maximum(bounds[:, 0], 0.0)  # clipped to the gap's range, as the result's (NaN stays NaN)


def measure(distribution, tasks, runs, n_datasets, n_resamples=coverage["N_RESAMPLES"]):
    held = {"mean_df": [[] for _ in range(designs["DESIGN_DRAWS"])],
            "gap_df": [[] for _ in range(designs["DESIGN_DRAWS"])]}
    widths = {"mean_df": [], "gap_df": []}
    dfs = []
    for draw in range(designs["DESIGN_DRAWS"]):
        for d, (data, truth) in enumerate(coverage["draw_design"](distribution, tasks, runs, draw, n_datasets, 0)):
            res = rlstats.bootstrap(data, "score ~ agent | task", metrics=("optimality_gap",), n_resamples=n_resamples,
                                    rng=d)
            target = np.array([truth[a]["optimality_gap"] for a in res.agents])
            own = gap_df(res)
            dfs.append(np.column_stack([res.welch_degrees_of_freedom, own]))
            assert np.allclose(gap_bounds(res, res.welch_degrees_of_freedom), res.intervals[:, 0], equal_nan=True)
            for name, df in (("mean_df", res.welch_degrees_of_freedom), ("gap_df", own)):
                bounds = gap_bounds(res, df)
                given = np.isfinite(bounds).all(axis=1)
                held[name][draw].extend(((bounds[:, 0] <= target) & (target <= bounds[:, 1]))[given])
                widths[name].extend((bounds[:, 1] - bounds[:, 0])[given])
    dfs = np.concatenate(dfs)
    rows = []
    for name in held:
        row = designs["pooled_row"](held[name], 0.95)
        rows.append(f"{distribution:7s} {tasks:3d} tasks {runs:2d} runs  {name:7s} coverage {row['coverage']:.3f} "
                    f"(se {row['se']:.3f}, lowest draw {row['coverage_min']:.3f}, n {row['n_sim']}) "
                    f"median width {np.median(widths[name]):.4f}")
    rows.append(f"    median df: mean's {np.median(dfs[:, 0]):.2f}, gap's {np.median(dfs[np.isfinite(dfs[:, 1]), 1]):.2f}")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", type=int, default=60,
                        help="data sets per design draw (4 agents each) at 5 tasks; a quarter of them at 26")
    parser.add_argument("--heavy", action="store_true", help="the heavy-tailed points, where the floor was needed")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    for point in HEAVY_POINTS if args.heavy else POINTS:
        n = 2 * args.datasets if args.heavy else args.datasets if point[1] < 26 else max(args.datasets // 4, 1)
        for line in measure(*point, n):
            print(line, flush=True)


if __name__ == "__main__":
    main()
