"""How often equivalence()'s runs wrongly rule out the unlike spreads of its note: the ``equivalence.spread_ruled_out``
rows of ``rlstats/calibration.csv`` (audit s36 calib36).

    PYTHONPATH=. python tests/reference/calibrate.py --only equivalence.spread_ruled_out [--jobs 2] [--quick]

(or this script with the same options). ``equivalence()`` notes the ``equivalence.size`` rows of equal runs and
unlike spreads (``size_equivalence_spread.py``: agent 1's deviations times 2, 4, 8 or 1/2, 1/4, 1/8, configuration
"..., spread r") wherever a test declared with runs alike in number, and leaves out a task whose runs rule those
spreads out: Bonett's (2006) interval of the SD ratio (``_kernels.sd_ratio_interval`` at ``_api.SPREAD_LEVEL``,
99%) within 1/``_api.SPREAD_ALIKE`` to ``SPREAD_ALIKE`` (1/1.7 to 1.7). That decision is a claim: "the true spreads
are not the rows'". Here it is measured where it is false: two agents' runs on one task, agent 1's deviations times
``configuration``'s factor r (the rows' own factors: on capped scores 2 and 1/2 are SD ratios 1.81 and 1/1.73, the
cap shortening the wider agent's spread), equal runs of each, the families of ``designs.py``; ``coverage`` is the
share of data sets whose interval did not lie within the band (nothing wrongly ruled out), so 1 - coverage is the
decision's error. The level is 0.995: a true SD ratio outside the band is ruled out only where the 99% interval
misses it on one side (nominal at most 0.005). ``test`` "bonett"; one task (the decision is the task's and
unchanged by its offset and scale, the cap applied before them), no design draws.

The runs 3, 5 and 10 of the ``equivalence.size`` rows, and 20, 30, 50 and 100, where the decision is made: at 3-10
runs the interval is too wide to lie within the band (at a true ratio of 1 it did in at most 0.0001 of 20,000 data
sets), which it does from some 30 runs (at a ratio of 1, 30 runs: normal 0.27, capped 0.11, heavy-tailed 0.016,
skewed 0.004; 100 runs: 0.99, 0.91, 0.25, 0.058; :func:`power`, ``--power``, seed 3636).

Measured (seed 36, 20,000 data sets a point, 2 CPU-minutes; SE 0.0005 at the level): none wrongly ruled out at 3
and 5 runs, 0.0001 at 10 (capped, factor 2); from 20 runs the worst is capped scores' factor 1/2 (SD ratio 1/1.73,
just beyond the band's 1/1.7): 0.0048 at 20, 0.0067 at 30 (above 0.005 by more than 3 SE: the one row of 168 that
misses), 0.0063 at 50, 0.0028 at 100; capped factor 2 at most 0.0036 (50 runs), the other families at most 0.0014;
factors 4, 8 and 1/8 never, 1/4 once. ``equivalence()`` quotes the worst row at the runs nearest a ruled-out task's
(``_api._spread_ruled_out_words``).
"""

from __future__ import annotations

import math
import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
PROCEDURE = "equivalence.spread_ruled_out"
#: one side of Bonett's 99% interval (``_api.SPREAD_LEVEL``): a true ratio beyond the band ruled out in at most 0.005
LEVEL = 0.995
RUNS = (3, 5, 10, 20, 30, 50, 100)
#: agent 1's deviations times these (the equivalence.size rows' "spread r"), as the configuration words them
FACTORS = {"1/8": 0.125, "1/4": 0.25, "1/2": 0.5, "2": 2.0, "4": 4.0, "8": 8.0}
#: data sets per grid point: the table's, and --quick's
SIMULATIONS = (20_000, 2_000)
SEED = 36


def ruled_out(family, factor, runs, n_sim, rng):
    """(n_sim,) bool: whether each of ``n_sim`` data sets of one task, ``runs`` runs of each agent, agent 1's
    deviations times ``factor``, has Bonett's interval of the SD ratio within the band (``equivalence()``'s rule)."""
    from rlstats.methods.equivalence import _api
    from rlstats.methods.equivalence import _kernels as kernels

    y = np.concatenate([DESIGNS["scores"](family, factor * DESIGNS["deviations"](rng, family, (n_sim, runs))).ravel(),
                        DESIGNS["scores"](family, DESIGNS["deviations"](rng, family, (n_sim, runs))).ravel()])
    cell = np.repeat(np.arange(2 * n_sim), runs)
    n, q, f = kernels.spread_sums(y, cell, 2 * n_sim)
    low, high = kernels.sd_ratio_interval((n[:n_sim], q[:n_sim], f[:n_sim]), (n[n_sim:], q[n_sim:], f[n_sim:]),
                                          _api.SPREAD_LEVEL)
    return (low > 1 / _api.SPREAD_ALIKE) & (high < _api.SPREAD_ALIKE)


def grid(quick=False):
    """(runs, distribution, factor) points: every runs count x family x factor; --quick: 10 and 30 runs."""
    return DESIGNS["grid"]((10, 30) if quick else RUNS, DESIGNS["DISTRIBUTIONS"], tuple(FACTORS))


def point_of(row):
    return int(row["runs"]), row["distribution"], row["configuration"].removeprefix("spread ")


def table_rows(point, n_sim, quick=False):
    """The row of one grid point for the package table (``tests/reference/calibrate.py``)."""
    runs, family, factor = point
    rng = np.random.default_rng([SEED, runs, DESIGNS["DISTRIBUTIONS"].index(family), list(FACTORS).index(factor)])
    held = ~ruled_out(family, FACTORS[factor], runs, n_sim, rng)
    coverage = float(held.mean())
    return [{"test": "bonett", "agents": 2, "tasks": 1, "runs": runs, "distribution": family,
             "configuration": f"spread {factor}", "n_sim": n_sim, "coverage": coverage,
             "se": math.sqrt(coverage * (1 - coverage) / n_sim)}]


def power(n_sim=20_000, seed=3636):
    """Print the share ruled out at a true ratio of 1 (the decision right), by runs and family."""
    rng = np.random.default_rng(seed)
    for runs in RUNS:
        shares = [f"{family} {ruled_out(family, 1.0, runs, n_sim, rng).mean():.4f}"
                  for family in DESIGNS["DISTRIBUTIONS"]]
        print(f"ratio 1, {runs} runs of each agent, ruled out (of {n_sim}): {', '.join(shares)}", flush=True)


if __name__ == "__main__":
    if "--power" in sys.argv:
        power()
    else:
        runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
