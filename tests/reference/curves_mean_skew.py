"""Audit s25 (band25): which skew widening of curves()' mean bands holds 95% at one task of 5 skewed runs.

    PYTHONPATH=. python tests/reference/curves_mean_skew.py RUNS TASKS DISTRIBUTION N_SIM [SEED]

It also prints, for each candidate, the pointwise coverage of the bands whose pooled skewness takes Hall's
inverted end past the cubic's flat point (1 - k q - k^2 / 6 < 0 at the median step's df).

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
    ``pooled``, its pointwise band also holding Hall's band (uncapped): the default of audit s25, bit for bit on the
    same streams.
``capped_0``, ``capped_50``, ``tangent_40``, ``tangent_50``
    (audit s26 hall26) ``pooled_hall`` with Hall's band at the skewness capped where its far end reaches the point
    of the cubic where 1 + k u / 3 = a (a = 0, the flat point; 0.5), or capped at a = 0.4, 0.5 with the far end
    going on beyond along its tangent in k (:func:`_capped_hall`, written apart from the package's).
``default``
    ``pooled``, its pointwise band also holding ``curves._kernels.hall_band`` (the tangent at a = 0.6): the default
    since audit s26.

Widening after the fact is what the package does (``curves._api._studentized``: the bands are widened after the hull
with the expanded ones, then the simultaneous band is made to hold the pointwise one).

Measured (audit s25; pointwise, then simultaneous; seed 0 is the calibration table's data sets): at one task of 5
skewed runs, seed 0, ``step`` covered 0.925 (worst draw 0.898) and 0.943 (0.915); ``pooled`` 0.931 (0.906) and 0.946
(0.920), but 0.928 and 0.927 pointwise with seeds 1 and 2 (0.929 of 2,400, below 0.937, its 3-SE bound there);
``pooled_t`` 0.934-0.940; ``hall`` 0.955-0.958 pointwise, 0.985-0.991 simultaneous at 1.43-1.45 times the width
(and its pointwise hull alone 0.944 at 5 tasks of 5 skewed runs, where ``pooled`` gave 0.949); ``pooled_hall``
0.956-0.959 pointwise and 0.950-0.965 simultaneous, at a median 1.14-1.16 and 1.03 times the unwidened width there,
1.02-1.13 and 1.01-1.06 at the other points measured.

Audit s26 (hall26), pointwise coverage (worst draw) and median width over the unwidened band, ``pooled_hall`` ->
``default``: 1 task x 5 skewed runs, seed 0: 0.957 (0.937) x 1.158 -> 0.950 (0.927) x 1.112, simultaneous 0.950
(0.925) -> 0.946 (0.920); seed 1: 0.959 (0.956) x 1.157 -> 0.951 (0.948) x 1.106, simultaneous 0.965 both; 1 x 10
skewed 0.960 (0.950) x 1.139 -> 0.955 (0.946) x 1.116; 5 x 5 and 5 x 3 skewed unchanged (0.950, 0.947; 3 runs x
1.051 -> 1.047); 1 x 5 normal 0.968 -> 0.969, heavy-tailed 0.972 -> 0.973, capped 0.977 -> 0.975 (widths within
0.001). Of one task's 5 skewed runs 418 of 800 bands had a skewness past the cubic's flat point (408 with seed 1,
303 of 800 at 10 runs) and covered 0.993 (0.995, 0.999): the band's jump went to bands that already held; the
others covered about 0.92. ``capped_0`` (continuous, but with the cube root's vertical tangent) 0.954 / 0.957,
``capped_50`` (flat beyond the cap) 0.946 / 0.945, ``tangent_50`` 0.952 / 0.954 at x 1.134 / 1.124 and ``tangent_40``
0.955 / 0.957 at x 1.171 / 1.148, both steeper in the skewness than ``tests/test_audit_s26_hall26.py`` allows and at the
largest skewness of 3-10 runs up to 1.2-1.4 and 1.6-1.9 times the former band's width over the t band's (the default
1.00-1.10: the former band had shrunk there). At one task of 3 runs the bands are withheld.
Simulated cost: about 12 s of CPU per 400 data sets.
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

CANDIDATES = ("unwidened", "step", "pooled", "hall", "pooled_t", "pooled_hall", "capped_0", "capped_50",
              "tangent_40", "tangent_50", "default")
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
    # the pooled widening, its pointwise band also holding Hall's (the default of audit s25)
    both = np.where(given_p, _hull(out["pooled"][0], hall_point), np.nan)
    out["pooled_hall"] = (both, _hull(out["pooled"][1], both))
    # audit s26 hall26: Hall's band at the skewness capped where the cubic's slope at the inverted end falls to a^2
    df = np.nan_to_num(res.df[a], nan=1.0)
    for floor, tangent in ((0.0, False), (0.5, False), (0.4, True), (0.5, True)):
        capped = _capped_hall(res.estimates[a], error, pooled, df, floor, tangent)
        both = np.where(given_p, _hull(out["pooled"][0], capped), np.nan)
        out[f"{'tangent' if tangent else 'capped'}_{round(100 * floor)}"] = (both, _hull(out["pooled"][1], both))
    # the default since audit s26: the package's Hall band (tangent beyond the cap at HALL_SLOPE_ROOT = 0.6)
    both = np.where(given_p, _hull(out["pooled"][0], _kernels.hall_band(res.estimates[a], error, pooled, df, LEVEL)),
                    np.nan)
    out["default"] = (both, _hull(out["pooled"][1], both))
    return out


def _capped_hall(estimate, error, skewness, df, floor, tangent=False):
    """Hall's band (mean units, n = 1) at the skewness capped at the k where 1 - k q - k^2 / 6 = floor^3; with
    ``tangent`` the far end goes on beyond the cap along its tangent in k."""
    from scipy import stats

    q = stats.t.ppf((1 + LEVEL) / 2, df)
    room = 1 - floor ** 3
    cap = 2 * room / (q + np.sqrt(q * q + 2 * room / 3))
    k = np.sign(skewness) * np.minimum(np.abs(skewness), cap)
    low, high = hall_inverse(q, k, 1.0), hall_inverse(-q, k, 1.0)
    if tangent:  # the far end's slope in k at the cap: 3 (1 - a) / k^2 - (q + k / 3) / (k a^2), a = floor
        beyond = np.abs(skewness) > cap
        slope = 3 * (1 - floor) / cap ** 2 - (q + cap / 3) / (cap * floor ** 2)
        extra = slope * (np.abs(skewness) - cap)
        high = np.where(beyond & (skewness > 0), high + extra, high)
        low = np.where(beyond & (skewness < 0), low - extra, low)
    return np.stack([estimate - error * low, estimate - error * high], axis=-1)


#: {candidate: pointwise coverage of each band whose skewness puts Hall's inverted end past the cubic's flat point}
BEYOND: dict = {}


def _past_flat_point(res, a, values, task_of, n_tasks):
    """Whether the pooled skewness k of agent ``a`` passes 1 - k q - k^2 / 6 = 0 at the median step's df."""
    from scipy import stats

    k = np.abs(_kernels.mean_skewness(values, task_of, n_tasks))
    df = res.df[a][np.isfinite(res.df[a])]
    if not df.size:
        return False
    q = stats.t.ppf((1 + LEVEL) / 2, float(np.median(df)))
    return bool(np.median(1 - k * q - k * k / 6) < 0)


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
                past = _past_flat_point(res, a, values, np.repeat(np.arange(tasks), runs), tasks)
                base = [bands["_width"](band[None])[0] for band in made["unwidened"]]
                for c, (p, s) in made.items():
                    got[c, "pointwise"].append(bands["_held"](p[None], true)[1][0])
                    if past:
                        BEYOND.setdefault(c, []).append(got[c, "pointwise"][-1])
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
    for c, held in BEYOND.items():
        print(f"{runs:>2} runs {tasks:>2} tasks {distribution:<12} {c:<9} pointwise    {np.mean(held):.3f} of the "
              f"{len(held)} bands past the flat point", flush=True)
