"""How often the runs rule out the unlike spreads of the equivalence note where the true spreads are unlike (audit s34
eqnote34).

    PYTHONPATH=. nice -n 10 python tests/reference/spread_ratio_interval.py [--quick]

``equivalence()`` notes the calibration table's rows of unlike spreads (``size_equivalence_spread.py``: agent 1's
deviations times 2, 4, 8 or 1/2, 1/4, 1/8) wherever a test declared with runs alike in number, leaving out the tasks
whose runs rule those spreads out: Bonett's (2006) interval of the SD ratio (``_kernels.sd_ratio_interval``, at
``_api.SPREAD_LEVEL``) within 1/``_api.SPREAD_ALIKE`` to ``SPREAD_ALIKE``. The rows' factors 2 and 1/2 are SD ratios
of 1.81 and 1/1.73 on capped scores (the cap shortens the wider agent), so the band is 1/1.7 to 1.7. This script
draws two agents' runs at a true SD ratio of exactly 1.7 and 1/1.7 (the band's edge: the factor found by root-finding
on capped scores) and at the capped rows' own factors 2 and 1/2, on normal, skewed (``designs.py``'s lognormal,
sigma 0.8; and sigma 1.2), heavy-tailed (t3) and capped scores, and counts the data sets whose interval lies within
the band (a wrong "ruled out"; nominal 0.005 at the 99% level, one side), 3 to 300 runs of each agent, and 5 vs 15,
10 vs 30 and 30 vs 100; then the share ruled out at a ratio of 1 (power). Seed 343.

Measured (20,000 data sets a point; 5,000 at 300 runs; 4 CPU-minutes), the largest share ruled out at the band's
edge over the families: 0 at 3 and 5 runs and at 5 vs 15, 0.0001 at 10, 0.0006 at 10 vs 30, 0.0052 at 20, 0.0094 at
30 (capped), 0.0095 at 30 vs 100, 0.0073 at 50, 0.0119 at 100 (heavy-tailed; skewed 0.0056, capped 0.0050), 0.0130 at
300 (heavy-tailed; skewed 0.0120); the capped rows' factors 2 and 1/2 at most 0.0075. Power (ruled out at a ratio of
1), 100 runs: normal 0.988, capped 0.903, heavy-tailed 0.253, skewed 0.062, lognormal sigma 1.2 0.002 (300 runs:
1.000, 1.000, 0.580, 0.436, 0.041): on skewed scores even many runs seldom rule anything out, and the note stays.
The interval is checked against its formula: ``tests/test_audit_s34_eqnote34.py``.
"""

from __future__ import annotations

import math
import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
FAMILIES = ("normal", "skewed", "skewed_1.2", "heavy_tailed", "capped")
RUNS = ((3, 3), (5, 5), (10, 10), (20, 20), (30, 30), (50, 50), (100, 100), (300, 300), (5, 15), (10, 30), (30, 100))


def deviations(rng, family, size):
    if family == "skewed_1.2":
        z, s = rng.standard_normal(size), 1.2
        return (np.exp(s * z) - math.exp(s * s / 2)) / math.sqrt((math.exp(s * s) - 1) * math.exp(s * s))
    return DESIGNS["deviations"](rng, family, size)


def scores(family, deviation):
    return DESIGNS["scores"]("capped" if family == "capped" else "normal", deviation)


def sd_ratio(family, factor):
    """The true SD ratio of agent 1 (deviations times ``factor``) over agent 2, from stratified quantiles."""
    if family != "capped":
        return factor
    q = DESIGNS["quantiles"]("capped", 200_000)
    return scores(family, factor * q).std() / scores(family, q).std()


def factor_for(family, ratio):
    from scipy.optimize import brentq

    return ratio if family != "capped" else brentq(lambda f: sd_ratio(family, f) - ratio, 0.01, 100)


def ruled_out(family, factor, runs, m, rng):
    from rlstats.methods.equivalence import _api
    from rlstats.methods.equivalence import _kernels as kernels

    n_1, n_2 = runs
    y = np.concatenate([scores(family, factor * deviations(rng, family, (m, n_1))).ravel(),
                        scores(family, deviations(rng, family, (m, n_2))).ravel()])
    cell = np.concatenate([np.repeat(np.arange(m), n_1), m + np.repeat(np.arange(m), n_2)])
    n, q, f = kernels.spread_sums(y, cell, 2 * m)
    low, high = kernels.sd_ratio_interval((n[:m], q[:m], f[:m]), (n[m:], q[m:], f[m:]), _api.SPREAD_LEVEL)
    return float(np.mean((low > 1 / _api.SPREAD_ALIKE) & (high < _api.SPREAD_ALIKE)))


def main(quick=False, seed=343):
    from rlstats.methods.equivalence import _api

    rng = np.random.default_rng(seed)
    band = _api.SPREAD_ALIKE
    points = [(family, factor_for(family, r), f"SD ratio {r:.3g}") for family in FAMILIES for r in (band, 1 / band)]
    points += [("capped", 2.0, "factor 2"), ("capped", 0.5, "factor 1/2")]
    for runs in RUNS:
        m = (5_000 if max(runs) > 100 else 20_000) // (10 if quick else 1)
        shares = []
        for family, factor, label in points:
            shares.append(ruled_out(family, factor, runs, m, rng))
            print(f"{runs[0]} vs {runs[1]} runs, {family}, {label}: ruled out in {shares[-1]:.4f} of {m}", flush=True)
        print(f"{runs[0]} vs {runs[1]} runs: the largest {max(shares):.4f}", flush=True)
    for runs in ((50, 50), (100, 100), (300, 300)):
        for family in FAMILIES:
            m = 5_000 // (10 if quick else 1)
            print(f"power, {runs[0]} runs, {family}: {ruled_out(family, 1.0, runs, m, rng):.3f} of {m}", flush=True)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
