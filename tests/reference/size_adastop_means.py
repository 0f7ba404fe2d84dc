"""AdaStop's rejection rate when the agents have EQUAL MEANS but different shapes: the ``adastop.fwe_means`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only adastop.fwe_means [--jobs 2] [--quick] [--simulations N]

(or this script with the same options). AdaStop is a permutation test: its family-wise error is exact when the
agents' score distributions are identical (the ``adastop.fwe`` rows, ``size_adastop.py``), not when only their means
are. Its decisions are read as "larger" or "smaller", so this measures how often its default,
``rlstats.adastop(df, "score ~ agent", n=n, K=K)`` (comparisons "all", alpha = 0.05, no early accept; the joint
relabelling, the default until audit s29b, and at three agents the default ``permutations="holm"``, a grid point's
fifth field, named in ``interval``: empty for two agents, where every scheme is one test; 10,000 paths for holm),
declares some pair different when every agent has the same mean (0 in noise units, on the task's offset and scale of
a design draw, as the ``adastop.fwe`` rows) and the first agent has another shape than the others, which are
normal (``distribution`` names the first agent's shape, then the others'):

``skewed_vs_normal``
    ``designs.py``'s skewed deviations (standardised lognormal, sigma 0.8, mean 0 and variance 1) against normal ones.
``heavy_tailed_vs_normal``
    its t with 3 degrees of freedom (variance 1) against normal ones.
``capped_vs_normal``
    its capped deviations, ``min(z, CAP)``, shifted by minus their mean (``CAPPED_MEAN``, so that a third of the
    runs tie at a ceiling and the mean is 0; variance below 1) against normal ones.

Grid: 2 and 3 agents on one task, n = 3, 5, 10 runs per agent per interim, K = 2, 4, 6 interims (``configuration``
``K=...``), so the table holds a row per (agents, n, K, pair of shapes). Like ``size_adastop.py``, two agents run
the default 10,000 paths and three agents 2,000 paths of the joint relabelling, each row pools ``DESIGN_DRAWS``
design draws, and ``coverage`` is the share of tests that rejected no comparison (the rejection rate is
1 - coverage; the level holds at 0.95). The rows record the rejection rate the default has on such data; the
function quotes a row (a note) when it exceeds alpha by more than 3 Monte Carlo standard errors.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import runpy
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
SIZE = runpy.run_path(str(HERE / "size_adastop.py"))
#: (the first agent's shape, the others' shape): every agent has mean 0 in noise units; the order keys the seeds
SHAPES = {"skewed_vs_normal": ("skewed", "normal"), "heavy_tailed_vs_normal": ("heavy_tailed", "normal"),
          "capped_vs_normal": ("capped", "normal")}
AGENTS, RUNS, INTERIMS = (2, 3), (3, 5, 10), (2, 4, 6)
ALPHA = 0.05
PROCEDURE, LEVEL = "adastop.fwe_means", 1 - ALPHA
#: tests per grid point: the table's, and --quick's (rounded up to whole design draws)
SIMULATIONS = (400, 120)


def _capped_mean():
    """E[min(Z, CAP)] for standard normal Z: CAP * (1 - Phi(CAP)) - phi(CAP), i.e. mu of the capped normal."""
    cap = DESIGNS["CAP"]
    phi = math.exp(-cap * cap / 2) / math.sqrt(2 * math.pi)
    tail = 0.5 * math.erfc(cap / math.sqrt(2))
    return cap * tail - phi


CAPPED_MEAN = _capped_mean()


def deviations(shape, rng, size):
    """Deviations of mean 0 in noise units: ``designs.py``'s, with the capped ones cut and shifted to mean 0."""
    z = DESIGNS["deviations"](rng, shape, size)
    if shape == "capped":
        return np.minimum(z, DESIGNS["CAP"]) - CAPPED_MEAN
    return z


def scores(distribution, template, rng, draw=0):
    """Scores for ``template``'s rows: agent 0 of the pair's first shape, the others of its second, every agent of
    mean 0 on the task's offset and scale of design draw ``draw``."""
    offset, scale = DESIGNS["design_draw"](draw, template.n_tasks)
    first, other = SHAPES[distribution]
    agent = np.asarray(template.agent)
    deviation = np.empty(template.y.size)
    deviation[agent == 0] = deviations(first, rng, int((agent == 0).sum()))
    deviation[agent != 0] = deviations(other, rng, int((agent != 0).sum()))
    return offset[template.task] + scale[template.task] * deviation


def measure(agents, runs, K, distribution, n_sim, seed=0, resamples=None, permutations="joint"):
    """One grid point: the share of tests (``n_sim`` over all draws, rounded up to whole draws) that rejected no
    comparison. ``permutations``: the scheme, in the row's ``interval`` from three agents on (two agents: one test
    whatever the scheme, ``interval`` empty); the data sets do not depend on it."""
    from rlstats.methods.adastop._api import adastop_outcomes

    resamples = resamples or SIZE["n_resamples"](agents, permutations)
    template = SIZE["design"](agents, 1, runs * K)
    draws = DESIGNS["DESIGN_DRAWS"]
    held = []
    for draw in range(draws):
        key = [seed, 21, agents, runs, K, list(SHAPES).index(distribution), draw]
        data_seed, test_seed = np.random.SeedSequence(key).spawn(2)
        rng = np.random.default_rng(data_seed)
        outcome = []
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*can never reject")  # 2 agents x n = 3 at K = 2
            for child in test_seed.spawn(-(-n_sim // draws)):
                y = scores(distribution, template, rng, draw)
                outcome.append(not bool(np.asarray(adastop_outcomes(dataclasses.replace(template, y=y), rng=child,
                                                                    n_resamples=resamples, n=runs, K=K,
                                                                    permutations=permutations)[0])[0]))
        held.append(outcome)
    return {"test": "adastop", "agents": agents, "tasks": 1, "runs": runs, "distribution": distribution,
            "interval": permutations if agents > 2 else "", "configuration": f"K={K}", "n_resamples": resamples, **DESIGNS["pooled_row"](held, LEVEL)}


def grid(quick=False):
    """(agents, runs, K, distribution) points; --quick: 2 and 3 agents at n = 5, K = 4."""
    if quick:
        return DESIGNS["grid"](AGENTS, (5,), (4,), tuple(SHAPES))
    joint = DESIGNS["grid"](AGENTS, RUNS, INTERIMS, tuple(SHAPES))
    # audit s29 (adastop29b): the default permutations="holm" at three agents, after the joint rows
    return joint + [point + ("holm",) for point in joint if point[0] > 2]


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``): a point of four fields
    measures ``permutations="joint"``, a fifth names another scheme."""
    return [measure(*point[:4], n_sim, **({"permutations": point[4]} if len(point) > 4 else {}))]


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
