"""Audit s26 (median26): how much wider the mean's interval is than the median's own t interval where the median of
task means is their mean (1 and 2 tasks), now that the median takes the mean's interval there.

    PYTHONPATH=. nice -n 10 python tests/reference/median_mean_width.py   # about 1 CPU minute

On ``coverage_small_runs.py``'s data sets (its ``draw_design``: four agents, the grid's four distributions; the first
design draw, 10 data sets a row, seed 7), the default interval of the mean and, with the substitution lifted
(``coverage_small_runs.median_t_interval``), the median's own t interval, from one call: the median over agents and
data sets of the median's width over the mean's, where both are given. Measured (numpy 2, rlstats at audit s26):
1 task x 20 runs 0.96 normal, 0.79 skewed, 0.94 heavy-tailed, 0.85 capped; x 30: 0.95, 0.81, 0.92, 0.90;
2 tasks x 3 runs 0.64, 0.59, 0.64, 0.69; x 5: 0.80, 0.69, 0.81, 0.76; x 10: 0.91, 0.76, 0.89, 0.88.
The coverage of the two, from the calibration table's rows, is what decided (``_small_runs.interval_kinds``).
"""

import pathlib
import runpy
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = {1: (20, 30), 2: (3, 5, 10)}
DATA_SETS, SEED, N_RESAMPLES = 10, 7, 500


def main():
    warnings.simplefilter("ignore")  # the raw-scale warning: the design draws' scales differ on purpose
    small = runpy.run_path(str(HERE / "coverage_small_runs.py"))
    import rlstats

    for tasks, run_counts in DESIGNS.items():
        formula = "score ~ agent | task" if tasks > 1 else "score ~ agent"
        for runs in run_counts:
            for dist in ("normal", "skewed", "heavy_tailed", "capped"):
                ratios = []
                for d, (data, _) in enumerate(small["draw_design"](dist, tasks, runs, 0, DATA_SETS, SEED)):
                    with small["median_t_interval"]():
                        res = rlstats.bootstrap(data, formula, metrics=["mean", "median"], n_resamples=N_RESAMPLES,
                                                rng=d, progress=False)
                    width = res.intervals[..., 1] - res.intervals[..., 0]
                    given = np.isfinite(width).all(axis=1)
                    ratios.extend(width[given, 1] / width[given, 0])
                print(f"{tasks} tasks x {runs} runs, {dist}: median t width / mean width {np.median(ratios):.2f} "
                      f"(n={len(ratios)})", flush=True)


if __name__ == "__main__":
    main()
