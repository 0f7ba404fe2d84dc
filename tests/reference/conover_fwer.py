"""Family-wise error of Conover's all-pairs t after Friedman's test under the null (issue 41 item 3).

Why ``posthoc="conover"``'s ``adjustment="auto"`` is Holm and not PMCMRplus's default "single-step": k agents whose
scores on n tasks are i.i.d. normal (every ranking equally likely), 4000 data sets per design; the share in which
some pair is declared different at 0.05, by the single step on the range of k normals (df = inf, PMCMRplus), the
same with the range's df = (n - 1)(k - 1), and Holm on the t p-values; then the same decisions made only after
Friedman's chi-squared test rejects at 0.05 (rlstats withholds the post hoc otherwise).  Monte Carlo SE about 0.004.

    PYTHONPATH=. python tests/reference/conover_fwer.py      (about a minute)

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


if __name__ == "__main__":
    main()
