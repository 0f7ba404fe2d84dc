"""Coverage of the complete-algorithm interval of ``rlstats.tuning`` (its complete view): the
``tuning.complete_interval`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only tuning.complete_interval [--jobs 1] [--quick]

The estimand (Jordan et al. 2020, Section 3): the complete algorithm draws its hyperparameters from a distribution
and runs once; its expected score is the mean, over that distribution, of a configuration's true mean score. A
sweep's G configurations are a random sample from the distribution (uniform ``weights=``), so the estimand is the
*population* mean of the configurations' true means, theta = E_c[mu_c], not the mean of the G configurations drawn.

The simulation. A configuration c has a location ``loc_c = sqrt(ratio) * b_c`` and a spread ``s_c`` (lognormal,
sigma 0.5, E[s_c^2] = 1: configurations differ in spread), drawn afresh in every data set; its n seeds score
``offset + scale * (loc_c + s_c * z)`` (``designs.scores``: cut at the ceiling ``CAP`` for ``capped``), with the
deviations z of one of the four distributions of ``designs.py``, and b_c from the same distribution (standard
normal for ``capped``). ``ratio`` (``statistic``) is the between-configuration variance over the within one: 0.1
(seed noise dominates), 1, 10 (the landscape dominates; for ``capped`` about half the configurations then sit
mostly at the ceiling). The task's offset and scale are a design draw (``designs.design_draw(d, 1)``). The truth is
exact: theta = offset for ``normal``, ``skewed`` and ``heavy_tailed`` (every deviation has mean 0); for ``capped``,
loc_c + s_c z given s_c is normal with variance ratio + s_c^2, so E[min(Y, CAP)] is in closed form, averaged over
s_c's stratified quantiles.

With ``weights=`` (``statistic`` "ratio=R, weighted", a sub-grid of 10-100 configurations, 3 and 10 seeds, ratios 1
and 10) configuration c weighs Phi(b_c), the hyperparameter distribution tilted towards good configurations, and
theta = E[Phi(b) mu] / E[Phi(b)] (quadrature on stratified quantiles of b_c and s_c).

The grid: 5, 10, 30, 100 configurations x 3, 5, 10, 20 seeds x the four distributions x the three ratios, plus the
weighted sub-grid. Each row is one interval method (``interval``) on the same data sets, its share of data sets whose
95% interval holds theta, pooled over ``DESIGN_DRAWS`` draws (``coverage_min`` the lowest):

* ``skew_t``: Student's t on the configurations' means with G - 1 degrees of freedom (Kish's effective number less
  one with weights) and the Edgeworth correction of the side the skew points to (``kernels.complete_moments`` +
  ``kernels.skew_t_band``), the default; withheld below ``COMPLETE_CONFIGURATIONS`` configurations in effect, as
  ``tuning`` withholds it, and then no row is written (coverage counts the intervals shown);
* ``two_stage``: the earlier two-stage bootstrap percentile interval (configurations, then seeds within them,
  widened by sqrt(n / (n - 1))), ``complete_interval="two_stage"``, drawn by ``kernels.complete_bootstrap``.

The intervals come from the kernels ``rlstats.tuning`` calls, in its order (``tests/test_tuning.py`` checks that
they equal the public function's). ``candidates()`` measures the others considered (plain t, a one-stage bootstrap
over configurations) and the estimate's bias.
"""

from __future__ import annotations

import math
import pathlib
import runpy

import numpy as np

from rlstats.methods.tuning import _kernels as kernels
from rlstats.methods.tuning._backend import COMPLETE_CONFIGURATIONS
from rlstats.resampling import child_stream

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
PROCEDURE, LEVEL = "tuning.complete_interval", 0.95
#: data sets per design draw: the table's, and --quick's
SIMULATIONS = (250, 25)
N_RESAMPLES = 1000
CONFIGURATIONS = (5, 10, 30, 100)
RATIOS = (0.1, 1.0, 10.0)
INTERVALS = ("skew_t", "two_stage")


def grid(quick=False):
    if quick:
        return [(10, 3, "skewed", 10.0, False), (30, 5, "capped", 1.0, True)]
    uniform = DESIGNS["grid"](CONFIGURATIONS, DESIGNS["RUNS"], DESIGNS["DISTRIBUTIONS"], RATIOS, (False,))
    # weights= (a sub-grid): configurations weighted by Phi(b_c), the hyperparameter distribution tilted to the good
    return uniform + DESIGNS["grid"](CONFIGURATIONS[1:], (3, 10), DESIGNS["DISTRIBUTIONS"], RATIOS[1:], (True,))


def _spreads(u):
    """Configurations' spreads from uniforms u: lognormal, log-scale sd 0.5, E[s^2] = 1."""
    from scipy.special import ndtri

    return np.exp(0.5 * ndtri(u) - 0.25)


def _between(distribution):
    return "normal" if distribution == "capped" else distribution


def sweeps(G, n, distribution, ratio, offset, scale, rng, reps):
    """((reps, G, n) scores, (reps, G) weights Phi(b_c)) of ``reps`` sweeps of G configurations drawn from the
    population."""
    from scipy.special import ndtr

    b = DESIGNS["deviations"](rng, _between(distribution), (reps, G, 1))
    s = _spreads(rng.uniform(size=(reps, G, 1)))
    z = DESIGNS["deviations"](rng, distribution, (reps, G, n))
    return DESIGNS["scores"](distribution, s * z, math.sqrt(ratio) * b, offset, scale), ndtr(b[..., 0])


def truth(distribution, ratio, offset, scale, weighted=False, points=(20_000, 200)):
    """theta: the population mean over configurations of a configuration's true mean score, weighted by Phi(b_c)
    when ``weighted`` (E[w mu] / E[w]). Uniform: exact (offset, or for ``capped`` the closed form of E[min(Y, CAP)],
    Y = loc_c + s_c z normal with variance ratio + s_c^2 given s_c, over 100,000 stratified quantiles of s_c);
    weighted: on stratified quantiles of b_c and s_c (``points``; within 1e-4 of the exact uniform values)."""
    from scipy.special import ndtr

    c = DESIGNS["CAP"]
    if not weighted:
        if distribution != "capped":
            return float(offset)  # every deviation has mean 0
        sd = np.sqrt(ratio + _spreads((np.arange(100_000) + 0.5) / 100_000) ** 2)
        # E[min(Y, c)] for Y ~ N(0, sd^2): -E[(Y - c)^+] = -(sd phi(c / sd) - c (1 - Phi(c / sd)))
        capped_mean = -(sd * np.exp(-0.5 * (c / sd) ** 2) / math.sqrt(2 * math.pi) - c * (1 - ndtr(c / sd)))
        return float(offset + scale * capped_mean.mean())
    b = DESIGNS["quantiles"](_between(distribution), points[0])[:, None]
    s = _spreads((np.arange(points[1]) + 0.5) / points[1])[None, :]
    loc = math.sqrt(ratio) * b
    if distribution == "capped":
        # E[min(loc + s z, c)] = loc - E[(Y - c)^+] for Y ~ N(loc, s^2): loc - ((loc - c) Phi(d) + s phi(d)),
        # d = (loc - c) / s
        d = (loc - c) / s
        mu = (loc - ((loc - c) * ndtr(d) + s * np.exp(-0.5 * d * d) / math.sqrt(2 * math.pi))).mean(axis=1)
    else:
        mu = loc[:, 0]
    w = ndtr(b[:, 0])
    return float(offset + scale * np.sum(w * mu) / np.sum(w))


def intervals(x, seed, weights=None, level=LEVEL, n_resamples=N_RESAMPLES):
    """{interval: (low, high)} of sweep ``x`` (G, n) as ``rlstats.tuning`` computes them, the two-stage bootstrap
    from the complete view's stream ``seed`` (a sweep's stream 2, keyed by its agent's and task's names since
    audit s32)."""
    G, n = x.shape
    values, starts, sizes = x.ravel(), np.arange(G) * n, np.full(G, n)
    w = np.ones(G) if weights is None else np.asarray(weights, dtype=float)
    means = kernels.config_means(values, starts, sizes)
    if kernels.effective_configurations(w) >= COMPLETE_CONFIGURATIONS:
        low, high = kernels.skew_t_band(*kernels.complete_moments(means, w), level)
    else:  # withheld, as tuning() withholds it (its replication need)
        low, high = np.nan, np.nan
    widen = np.sqrt(sizes / np.maximum(sizes - 1, 1))
    stat = kernels.complete_bootstrap(values, starts, sizes, w, widen, seed, n_resamples)
    tail = (1 - level) / 2
    return {"skew_t": (float(low), float(high)),
            "two_stage": tuple(float(q) for q in np.nanquantile(stat, [tail, 1 - tail]))}


def measure(G, n, distribution, ratio, weighted, per_draw, draws=None):
    """{interval: held by draw (a list of (per_draw,) booleans)}, and the estimates' errors (draws * per_draw,)."""
    held = {name: [] for name in INTERVALS}
    errors = []
    for d in range(DESIGNS["DESIGN_DRAWS"]) if draws is None else draws:
        offset, scale = (float(v[0]) for v in DESIGNS["design_draw"](d, 1))
        theta = truth(distribution, ratio, offset, scale, weighted)
        rng = np.random.default_rng([d, G, n, DESIGNS["DISTRIBUTIONS"].index(distribution), int(ratio * 10), 7])
        xs, ws = sweeps(G, n, distribution, ratio, offset, scale, rng, per_draw)
        found = {name: [] for name in INTERVALS}
        for i, (x, w) in enumerate(zip(xs, ws)):
            for name, (low, high) in intervals(x, child_stream(np.random.SeedSequence([d, i]), 2, 0, 0),
                                               w if weighted else None).items():
                if np.isfinite(low):  # a withheld interval claims nothing
                    found[name].append(low <= theta <= high)
        means = xs.mean(axis=2)
        errors.append((np.sum(ws * means, axis=1) / ws.sum(axis=1) if weighted else means.mean(axis=1)) - theta)
        for name in INTERVALS:
            held[name].append(np.array(found[name], dtype=bool))
    return held, np.concatenate(errors)


def table_rows(point, n_sim, quick):
    G, n, distribution, ratio, weighted = point
    held, _ = measure(G, n, distribution, ratio, weighted, n_sim)
    # no row where the interval is withheld (in some draw: too few configurations in effect)
    return [{"statistic": f"ratio={ratio:g}" + (", weighted" if weighted else ""), "interval": name, "agents": 1,
             "tasks": 1, "runs": n, "distribution": distribution, "configuration": f"{G} configurations",
             "n_resamples": N_RESAMPLES if name == "two_stage" else "", **DESIGNS["pooled_row"](held[name], LEVEL)}
            for name in INTERVALS if all(h.size for h in held[name])]


def candidates(points, per_draw=100, n_resamples=N_RESAMPLES):
    """The methods considered, on the same data sets, per grid point: pooled coverage of the plain t interval
    (no skewness correction), the skew-t one, a one-stage bootstrap percentile interval over configurations (their
    means resampled, seeds kept), the two-stage one; the estimate's bias over its sd; width of each over skew-t."""
    from scipy.special import stdtrit

    tail = (1 - LEVEL) / 2
    for G, n, distribution, ratio in points:  # uniform weights
        cover = {k: [] for k in ("t", "skew_t", "one_stage", "two_stage")}
        width = {k: [] for k in cover}
        errors = []
        for d in range(DESIGNS["DESIGN_DRAWS"]):
            offset, scale = (float(v[0]) for v in DESIGNS["design_draw"](d, 1))
            theta = truth(distribution, ratio, offset, scale)
            rng = np.random.default_rng([d, G, n, DESIGNS["DISTRIBUTIONS"].index(distribution), int(ratio * 10), 7])
            xs = sweeps(G, n, distribution, ratio, offset, scale, rng, per_draw)[0]
            means = xs.mean(axis=2)
            point = means.mean(axis=1)
            half = stdtrit(G - 1, 1 - tail) * means.std(axis=1, ddof=1) / math.sqrt(G)
            counts = np.random.default_rng([d, 5]).multinomial(G, np.full(G, 1 / G), size=(per_draw, n_resamples))
            boot = np.einsum("rbg,rg->rb", counts, means) / G
            lows = {"t": point - half, "one_stage": np.quantile(boot, tail, axis=1)}
            highs = {"t": point + half, "one_stage": np.quantile(boot, 1 - tail, axis=1)}
            for name in ("skew_t", "two_stage"):
                got = [intervals(x, child_stream(np.random.SeedSequence([d, i]), 2, 0, 0),
                                 n_resamples=n_resamples)[name] for i, x in enumerate(xs)]
                lows[name], highs[name] = np.array(got).T
            for k in cover:
                cover[k].append((lows[k] <= theta) & (theta <= highs[k]))
                width[k].append(highs[k] - lows[k])
            errors.append(point - theta)
        e = np.concatenate(errors)
        ref = np.median(np.concatenate(width["skew_t"]))
        print(f"G={G} n={n} {distribution} ratio={ratio:g}: "
              + ", ".join(f"{k} {np.mean(np.concatenate(v)):.3f} (w {np.median(np.concatenate(width[k])) / ref:.2f})"
                          for k, v in cover.items())
              + f"; bias/sd {e.mean() / e.std():+.3f}")


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
