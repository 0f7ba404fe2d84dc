"""Small statistics shared by several back ends.

Arrays in, arrays out; no pandas, no option checking (callers validate).
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def doubled_midranks(y, block, n_blocks):
    """Twice the within-block mid-ranks (integers) and sum(t**3 - t) of ties per block.

    Ties are exact floating-point equality, as in R's ``rank()``.
    """
    y = np.asarray(y, dtype=np.float64)
    block = np.asarray(block, dtype=np.intp)
    order = np.lexsort((y, block))
    ys, bs = y[order], block[order]
    idx = np.arange(y.size)
    new_block = np.r_[True, bs[1:] != bs[:-1]]
    new_group = new_block | np.r_[True, ys[1:] != ys[:-1]]
    block_start = np.maximum.accumulate(np.where(new_block, idx, 0))
    first = idx[new_group]
    last = np.r_[first[1:] - 1, y.size - 1]
    group = np.cumsum(new_group) - 1
    doubled = np.empty(y.size, dtype=np.int64)
    doubled[order] = first[group] + last[group] + 2 - 2 * block_start
    t = (last - first + 1).astype(np.float64)
    tie_sum = np.bincount(bs[first], weights=t**3 - t, minlength=n_blocks)
    return doubled, tie_sum


def midranks(y, block):
    """Mid-ranks of ``y`` within each block (ties get the average rank).

    Parameters
    ----------
    y : array_like of float, shape (N,)
        Responses.
    block : array_like of int, shape (N,)
        Block code of each response; rows need not be sorted.

    Returns
    -------
    ndarray of float, shape (N,)
        Rank of each response among the responses of its block, 1 = smallest,
        ties (exact floating-point equality, never rounded) sharing the mean
        of their ranks, as R's ``rank(ties.method = "average")``.
    """
    block = np.asarray(block, dtype=np.intp)
    n_blocks = int(block.max()) + 1 if block.size else 0
    return doubled_midranks(y, block, n_blocks)[0] / 2.0


def wilson_interval(successes, trials, confidence_level=0.95):
    """Wilson score interval of a binomial proportion (vectorised)."""
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    z = stats.norm.ppf(0.5 + confidence_level / 2)
    p = successes / trials
    denominator = 1 + z**2 / trials
    centre = (p + z**2 / (2 * trials)) / denominator
    half = z / denominator * np.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2))
    # At 0 or all successes the bound is exactly 0 or 1 (rounding leaves a 1e-19 otherwise).
    low = np.where(successes == 0, 0.0, np.clip(centre - half, 0, 1))
    high = np.where(successes == trials, 1.0, np.clip(centre + half, 0, 1))
    return low, high
