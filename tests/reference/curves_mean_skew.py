"""Audit s25 (band25): which skew widening of curves()' mean bands holds 95% at one task of 5 skewed runs.

    PYTHONPATH=. python tests/reference/curves_mean_skew.py RUNS TASKS DISTRIBUTION N_SIM [SEED]

On the data sets and bootstrap streams of ``coverage_curves_bands.py`` at that point (the same seeds: its first
``N_SIM`` data sets, two agents' bands each; another ``SEED`` than 0 draws fresh ones), it runs ``curves(statistic="mean", bands="studentized_unwidened")`` (the
bands before audit s25) and widens them after the fact in three ways, printing each band's coverage (pooled, and
in the worst of the 4 design draws) and its median width over the unwidened band's:

``step``
    :func:`rlstats.statistics.skew_widened` with the runs' skewness read step by step (the mean of the tasks' G1 at
    the step), as the median's bands read theirs.
``pooled``
    the same with the runs' G1 pooled over tasks and steps (``curves._kernels.mean_skewness``).
``hall``
    the hull with Hall's (1992) skew-corrected t band (:func:`rlstats.statistics.hall_inverse`) at the pooled
    skewness: pointwise at the t quantile of the step's effective df, simultaneous at the band's critical value.
``pooled_t``
    ``pooled`` with the Cornish-Fisher term at the t quantile of the step's effective df in place of the normal one.
``pooled_hall``
    ``pooled``, its pointwise band also holding Hall's (``curves._kernels.hall_band``): the default since audit s25,
    bit for bit on the same streams.

Widening after the fact is what the package does (``curves._api._studentized``: the bands are widened after the hull
with the expanded ones, then the simultaneous band is made to hold the pointwise one).

Measured (audit s25; pointwise, then simultaneous; seed 0 is the calibration table's data sets): at one task of 5
skewed runs, seed 0, ``step`` covered 0.925 (worst draw 0.898) and 0.943 (0.915); ``pooled`` 0.931 (0.906) and 0.946
(0.920), but 0.928 and 0.927 pointwise with seeds 1 and 2 (0.929 of 2,400, below 0.937, its 3-SE bound there);
``pooled_t`` 0.934-0.940; ``hall`` 0.955-0.958 pointwise, 0.985-0.991 simultaneous at 1.43-1.45 times the width
(and its pointwise hull alone 0.944 at 5 tasks of 5 skewed runs, where ``pooled`` gave 0.949); ``pooled_hall``
0.956-0.959 pointwise and 0.950-0.965 simultaneous, at a median 1.14-1.16 and 1.03 times the unwidened width there,
1.02-1.13 and 1.01-1.06 at the other points measured.
"""

from __future__ import annotations

import math
import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
bands = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
designs = bands["designs"]

from rlstats import curves  # noqa: E402
from rlstats.methods.curves import _kernels  # noqa: E402
from rlstats.statistics import hall_inverse, skew_widened, skewness_of_means  # noqa: E402

CANDIDATES = ("unwidened", "step", "pooled", "hall", "pooled_t", "pooled_hall")
LEVEL = 0.95


def _hull(first, second):
    return np.stack([np.fmin(first[:, 0], second[:, 0]), np.fmax(first[:, 1], second[:, 1])], axis=-1)


def candidates(res, a, values, task_of, n_tasks, runs):
    """{candidate: (pointwise, simultaneous)} of agent ``a`` of an unwidened result ``res``."""
    from scipy import stats

    g1, usable, share, sizes, _ = _kernels._task_shapes(values, task_of, n_tasks)
    with np.errstate(invalid="ignore", divide="ignore"):
        step = np.nan_to_num(skewness_of_means(g1.sum(axis=0) / usable.sum(axis=0), share, sizes))
    pooled = _kernels.mean_skewness(values, task_of, n_tasks)
    error = np.nan_to_num(res.std_error[a])
    point, simultaneous = res.pointwise[a], res.simultaneous[a]
    out = {"unwidened": (point, simultaneous)}
    for name, skewness in (("step", step), ("pooled", pooled)):
        p = skew_widened(point, error, skewness, LEVEL)
        out[name] = (p, _hull(skew_widened(simultaneous, error, skewness, LEVEL), p))
    gamma, sd = pooled * math.sqrt(runs), error * math.sqrt(runs)  # Hall's in the runs' units

    def hall(critical):
        return np.stack([res.estimates[a] - sd * hall_inverse(critical, gamma, runs),
                         res.estimates[a] - sd * hall_inverse(-critical, gamma, runs)], axis=-1)

    given_p, given_s = np.isfinite(point).all(axis=1)[:, None], np.isfinite(simultaneous).all(axis=1)[:, None]
    p = np.where(given_p, _hull(point, hall(stats.t.ppf((1 + LEVEL) / 2, np.nan_to_num(res.df[a], nan=1.0)))),
                 np.nan)
    s = np.where(given_s, _hull(simultaneous, hall(np.nan_to_num(res.critical_value[a]))), np.nan)
    out["hall"] = (p, _hull(s, p))
    hall_point = p
    # the Cornish-Fisher term at the t quantile of the step's effective df in place of the normal one
    t = stats.t.ppf((1 + LEVEL) / 2, np.nan_to_num(res.df[a], nan=1.0))
    z = stats.norm.ppf((1 + LEVEL) / 2)
    scaled = pooled * (2 * t * t + 1) / (2 * z * z + 1)
    p = skew_widened(point, error, scaled, LEVEL)
    out["pooled_t"] = (p, _hull(skew_widened(simultaneous, error, scaled, LEVEL), p))
    # the pooled widening, its pointwise band also holding Hall's (the default since audit s25)
    both = np.where(given_p, _hull(out["pooled"][0], hall_point), np.nan)
    out["pooled_hall"] = (both, _hull(out["pooled"][1], both))
    return out


def measure(runs, tasks, distribution, n_sim, n_resamples=300, seed=0):
    """Rows (candidate, band, coverage, worst draw's, bands counted, median width over the unwidened band's)."""
    held = {(c, b): [] for c in CANDIDATES for b in ("pointwise", "simultaneous")}
    ratio = {k: [] for k in held}
    key = [seed, bands["STATISTICS"].index("mean"), runs, tasks, designs.DISTRIBUTIONS.index(distribution), 2]
    for draw in range(designs.DESIGN_DRAWS):
        offset, scale = designs.design_draw(draw, tasks)
        true = bands["truth"]("mean", distribution, offset, scale)
        data_seed, curves_seed = np.random.SeedSequence(key + [draw]).spawn(2)
        rng = np.random.default_rng(data_seed)
        got = {k: [] for k in held}
        for child in curves_seed.spawn(n_sim // designs.DESIGN_DRAWS):
            data = bands["simulate"](2, runs, distribution, offset, scale, rng)
            res = curves(data, "score ~ agent | task/seed", step="step", statistic="mean", compare="all",
                         bands="studentized_unwidened", n_resamples=n_resamples, normalize=False, rng=child)
            for a, agent in enumerate(res.agents):
                runs_of = data[data["agent"] == agent].sort_values(["task", "seed", "step"])
                values = runs_of["score"].to_numpy().reshape(tasks * runs, bands["STEPS"])
                made = candidates(res, a, values, np.repeat(np.arange(tasks), runs), tasks, runs)
                base = [bands["_width"](band[None])[0] for band in made["unwidened"]]
                for c, (p, s) in made.items():
                    got[c, "pointwise"].append(bands["_held"](p[None], true)[1][0])
                    got[c, "simultaneous"].append(bands["_held"](s[None], true)[0][0])
                    ratio[c, "pointwise"].append(bands["_width"](p[None])[0] / base[0])
                    ratio[c, "simultaneous"].append(bands["_width"](s[None])[0] / base[1])
        for k, values in got.items():
            held[k].append(np.array(values, dtype=float))
    rows = []
    for (c, b), by_draw in held.items():
        given = [h[np.isfinite(h)] for h in by_draw]
        if not all(g.size for g in given):
            continue
        rows.append((c, b, float(np.concatenate(given).mean()), float(min(g.mean() for g in given)),
                     int(sum(g.size for g in given)), float(np.nanmedian(ratio[c, b]))))
    return rows


if __name__ == "__main__":
    runs, tasks, distribution, n_sim = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    for c, b, coverage, worst, n, width in measure(runs, tasks, distribution, n_sim, seed=seed):
        print(f"{runs:>2} runs {tasks:>2} tasks {distribution:<12} {c:<9} {b:<12} {coverage:.3f} (worst draw "
              f"{worst:.3f}) of {n} bands, width x {width:.3f}", flush=True)
