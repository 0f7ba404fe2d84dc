"""Pointwise coverage of the expected-max bands of ``rlstats.tuning``: the ``tuning.expected_max_band`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only tuning.expected_max_band [--jobs 1] [--quick]

A sweep is N configurations of one agent on one task, n seeds each. A *design draw* (``designs.design_draw(d, N)``)
gives each configuration its offset (uniform on [0, 2]: the landscape) and its scale (lognormal: configurations
differ in spread); configuration c's runs are ``offset_c + scale_c * deviation`` with the deviations of one of the
four distributions of ``designs.py`` (``capped``: each configuration at its own ceiling, which a third of its runs
hit). The estimand at budget k is the expected best of k configurations' n-seed mean scores (drawn without
replacement), the configurations given: theta(k) = E[sum_i w_ki m_(i)] over the seed noise, computed once per
design draw from 40,000 draws of the sweep (its Monte Carlo error is below 1% of the estimate's sd). Each row is one
budget (``statistic`` = ``k=...``) and one band (``band``: the default ``skew_t``, whose degrees of freedom count
the runs' excess kurtosis; ``skew_t_normal``, the same band with normal-theory degrees of freedom, the default before
that; or the earlier ``percentile``), all measured on the same data sets: the share whose 95% band holds theta(k)
there, pooled over ``DESIGN_DRAWS`` draws (``coverage_min`` the lowest draw). The bands come from the kernels
``rlstats.tuning`` calls, in its order (``tests/test_tuning.py`` checks that they equal the public function's).
``width()`` gives the median band widths against the old defaults (``skew_t_normal``, ``percentile``) and the
oracle (2 z times the estimate's true sd).
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np

from rlstats.methods.tuning import _kernels as kernels
from rlstats.resampling import child_stream

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
PROCEDURE, LEVEL = "tuning.expected_max_band", 0.95
#: data sets per design draw: the table's, and --quick's
SIMULATIONS = (200, 25)
N_RESAMPLES = 1000
BANDS = ("skew_t", "skew_t_normal", "percentile")
TRUTH_DRAWS = 40_000


def grid(quick=False):
    return DESIGNS["grid"]((10, 30), DESIGNS["RUNS"], DESIGNS["DISTRIBUTIONS"], quick=quick,
                           quick_points=[(10, 3, "skewed"), (10, 5, "capped")])


def budgets(N):
    return [1, 2, N // 2, N]


def sweep(distribution, offset, scale, n, rng, reps=None):
    """(N, n) scores of one sweep, or (reps, N, n) of ``reps`` sweeps."""
    shape = (offset.size, n) if reps is None else (reps, offset.size, n)
    deviation = DESIGNS["deviations"](rng, distribution, shape)
    return DESIGNS["scores"](distribution, deviation, 0.0, offset[:, None], scale[:, None])


def truth(distribution, offset, scale, n, ks, draws=TRUTH_DRAWS):
    """(theta(k), the estimate's sd at k) from ``draws`` sweeps."""
    rng = np.random.default_rng([offset.size, n, 99])
    values = np.concatenate([kernels.expected_max(sweep(distribution, offset, scale, n, rng, 4000).mean(axis=-1),
                                                  ks, False) for _ in range(draws // 4000)])
    return values.mean(axis=0), values.std(axis=0)


def bands(x, ks, seed, level=LEVEL, n_resamples=N_RESAMPLES):
    """{band: (low, high)} of sweep ``x`` (N, n) without replacement, as ``rlstats.tuning`` computes them from the
    seed stream ``seed`` (a sweep's stream 1, keyed by its agent's and task's names since audit s32)."""
    N, n = x.shape
    values, starts, sizes = x.ravel(), np.arange(N) * n, np.full(N, n)
    means = kernels.config_means(values, starts, sizes)
    point = kernels.expected_max(means, ks, False)
    resampled = np.concatenate(list(kernels.resampled_mean_chunks(values, starts, sizes, seed, n_resamples)))
    resampled = means + (resampled - means) * np.sqrt(sizes / np.maximum(sizes - 1, 1))
    moments = kernels.expected_max_moments(values, starts, sizes, ks, False, kurtosis=True)
    normal_df = kernels.expected_max_moments(values, starts, sizes, ks, False, kurtosis=False)
    return {"skew_t": kernels.skew_t_band(point, *moments[1:], level),
            "skew_t_normal": kernels.skew_t_band(point, *normal_df[1:], level),
            "percentile": kernels.centred_band(point, kernels.expected_max(resampled, ks, False), (1 - level) / 2)}


def measure(N, n, distribution, per_draw, draws=None):
    """{band: (held by draw: list of (per_draw, K) booleans, widths / oracle (draws * per_draw, K))}."""
    ks = budgets(N)
    out = {b: ([], []) for b in BANDS}
    for d in range(DESIGNS["DESIGN_DRAWS"]) if draws is None else draws:
        offset, scale = DESIGNS["design_draw"](d, N)
        theta, sd = truth(distribution, offset, scale, n, ks)
        rng = np.random.default_rng([d, N, n, DESIGNS["DISTRIBUTIONS"].index(distribution), 3])
        found = {b: ([], []) for b in BANDS}
        for i in range(per_draw):
            x = sweep(distribution, offset, scale, n, rng)
            for b, (low, high) in bands(x, ks, child_stream(np.random.SeedSequence([d, i]), 1, 0, 0)).items():
                found[b][0].append((low <= theta) & (theta <= high))
                found[b][1].append((high - low) / (2 * 1.959964 * sd))
        for b in BANDS:
            out[b][0].append(np.array(found[b][0]))
            out[b][1].extend(found[b][1])
    return out


def table_rows(point, n_sim, quick):
    N, n, distribution = point
    rows = []
    for b, (held, widths) in measure(N, n, distribution, n_sim).items():
        for j, k in enumerate(budgets(N)):
            row = DESIGNS["pooled_row"]([h[:, j] for h in held], LEVEL)
            rows.append({"statistic": f"k={k}", "band": b, "agents": 1, "tasks": 1, "runs": n,
                         "distribution": distribution, "configuration": f"{N} configurations",
                         "n_resamples": N_RESAMPLES if b == "percentile" else "", **row})
    return rows


def width(points, per_draw=25):
    """Median width of the default band over the old default's and over the oracle's, per grid point and budget."""
    for N, n, distribution in points:
        found = measure(N, n, distribution, per_draw)
        new, old, percentile = (np.median(np.array(found[b][1]), axis=0) for b in BANDS)
        print(f"N={N} n={n} {distribution}: new/oracle {np.round(new, 2)}, new/skew_t_normal {np.round(new / old, 2)}, "
              f"new/percentile {np.round(new / percentile, 2)}")


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
