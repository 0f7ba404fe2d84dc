"""The score model of :func:`rlstats.datasets.simulate`, shared with power studies.

Standardised score families (mean 0, variance 1) and the per-task location and
scale; :func:`rlstats.datasets.simulate` checks its options and lays the draws
out as a long frame, :func:`rlstats.power` draws the same scores straight into
a Design's response array.  Arrays in, arrays out; callers validate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

_LOGNORMAL_SIGMA = 0.5
_T_DF = 5
_BETA_A, _BETA_B = 5.0, 2.0
# Mixture: a "failed" mode with weight 0.3 and a "solved" mode with weight 0.7,
# both normal with sd 0.4, centred 2.0 apart: 0.4**2 + 0.3 * 0.7 * 2.0**2 = 1.
_MIX_WEIGHT, _MIX_SD, _MIX_GAP = 0.3, 0.4, 2.0


def _draw_normal(gen, size):
    return gen.standard_normal(size)


def _draw_lognormal(gen, size):
    s2 = _LOGNORMAL_SIGMA**2
    x = np.exp(_LOGNORMAL_SIGMA * gen.standard_normal(size))
    return (x - np.exp(s2 / 2)) / np.sqrt((np.exp(s2) - 1) * np.exp(s2))


def _draw_t(gen, size):
    return gen.standard_t(_T_DF, size) * np.sqrt((_T_DF - 2) / _T_DF)


def _draw_beta(gen, size):
    a, b = _BETA_A, _BETA_B
    mean = a / (a + b)
    sd = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    return (gen.beta(a, b, size) - mean) / sd


def _draw_mixture(gen, size):
    low = gen.random(size) < _MIX_WEIGHT
    centre = np.where(low, -(1 - _MIX_WEIGHT) * _MIX_GAP, _MIX_WEIGHT * _MIX_GAP)
    return centre + _MIX_SD * gen.standard_normal(size)


_DRAWS = {
    "normal": _draw_normal,
    "lognormal": _draw_lognormal,
    "t": _draw_t,
    "beta": _draw_beta,
    "mixture": _draw_mixture,
}


def task_locations(gen: np.random.Generator, n_tasks: int, heterogeneity: float,
                   replicates: int | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-task offset and scale, (n_tasks,) or, for ``replicates`` data sets at once, (replicates, n_tasks); both
    are 0 and 1 when heterogeneity is 0."""
    size = n_tasks if replicates is None else (replicates, n_tasks)
    u = gen.uniform(-1.0, 1.0, size)
    v = gen.uniform(0.0, 1.0, size)
    scale = 10.0 ** (heterogeneity * u)
    offset = 10.0 * heterogeneity * scale * v
    return offset, scale


def family_noise(gen: np.random.Generator, family: str, size: int | tuple[int, ...]) -> NDArray[np.float64]:
    """Standardised draws (mean 0, variance 1) of one score family, of shape ``size``."""
    return _DRAWS[family](gen, size)


def noise(gen: np.random.Generator, families: Sequence[str], n_agents: int, n_seeds: int) -> NDArray[np.float64]:
    """Standardised draws of shape (agents, tasks, seeds), one family per task."""
    z = np.empty((n_agents, len(families), n_seeds))
    for t, family in enumerate(families):
        z[:, t, :] = family_noise(gen, family, (n_agents, n_seeds))
    return z
