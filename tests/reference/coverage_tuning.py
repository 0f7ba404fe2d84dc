"""Coverage of the tuned-score interval of ``rlstats.tuning`` (its best_set view): the ``tuning.best_interval`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only tuning.best_interval [--jobs 1] [--quick]

(or this script with the same options). A sweep is N configurations of one agent on one task, each run with n seeds.
A *design draw* (``designs.design_draw(d, N)``) gives each configuration its offset (uniform on [0, 2]) and its scale
(lognormal: configurations differ in spread); configuration c's runs are ``location_c + scale_c * deviation`` with
the deviations of one of the four distributions of ``designs.py`` (``capped``: each configuration at its own
ceiling, which a third of its runs hit). The landscape (``statistic``) places the configurations' locations:

* ``identical``: every location 0, so the selection is pure noise (and favours the configurations with the widest
  spread): the optimism is largest;
* ``spread``: the draw's offsets.

The procedure selects the configuration with the best mean and reports the tuned score with its 95% interval (from
the winner's mean less the 97.5% bootstrap quantile of the optimism of select-then-report less Student's t times
s / sqrt(n), to the winner's mean plus t s / sqrt(n), s the larger of the winner's and the sweep's pooled standard
deviation: ``interval`` ``select_then_report_pooled_t``, the default; ``select_then_report_t`` is
``tuned_lower="winner"``, the earlier rule, whose lower end takes the winner's own standard deviation; both are
measured on the same data sets). The claim measured: the interval holds the true mean of the configuration that was
selected (what the tuned algorithm delivers when deployed; exact, from ``designs.population``). Each row pools
``DESIGN_DRAWS`` draws (``coverage_min`` the lowest). The intervals come from the kernels ``rlstats.tuning`` calls, in
its order (``tests/test_tuning.py`` checks that they equal the public function's). The grid is N in
(3, 10, 30) x n in (3, 5, 10, 20) x the four distributions x the two landscapes; ``--quick`` two points.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np

from rlstats.methods.tuning import _kernels as kernels
from rlstats.methods.tuning._api import _spread
from rlstats.resampling import child_stream

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
PROCEDURE, LEVEL = "tuning.best_interval", 0.95
#: data sets per design draw: the table's, and --quick's
SIMULATIONS = (100, 25)
N_RESAMPLES = 1000
LANDSCAPES = ("identical", "spread")


def grid(quick=False):
    return DESIGNS["grid"]((3, 10, 30), DESIGNS["RUNS"], DESIGNS["DISTRIBUTIONS"], LANDSCAPES, quick=quick,
                           quick_points=[(10, 3, "skewed", "identical"), (3, 5, "capped", "spread")])


def locations(landscape, offset):
    return np.zeros_like(offset) if landscape == "identical" else offset


#: tuned_lower= -> the table's ``interval``
INTERVALS = {"pooled": "select_then_report_pooled_t", "winner": "select_then_report_t"}


def interval(x, seed, level=LEVEL, n_resamples=N_RESAMPLES):
    """(selected configuration, {tuned_lower: (low, high)}) of sweep ``x`` (N, n), as ``rlstats.tuning`` computes
    them from the seed stream ``seed`` (a sweep's stream 0, keyed by its agent's and task's names since audit
    s32)."""
    N, n = x.shape
    sweep = {"values": x.ravel(), "starts": np.arange(N) * n, "sizes": np.full(N, n)}
    means, spread = _spread(sweep)
    _, best_resampled, winner = kernels.best_set(sweep["values"], sweep["starts"], sweep["sizes"], seed, n_resamples)
    selected = int(np.argmax(means))
    return selected, {lower: kernels.tuned_interval(means, sweep["sizes"], spread, selected, best_resampled, winner,
                                                    level, lower)[1:3] for lower in INTERVALS}


def measure(N, n, distribution, landscape, per_draw):
    """{tuned_lower: per design draw, (per_draw,) booleans: the interval held the selected configuration's true
    mean}."""
    held = {lower: [] for lower in INTERVALS}
    for d in range(DESIGNS["DESIGN_DRAWS"]):
        offset, scale = DESIGNS["design_draw"](d, N)
        location = locations(landscape, offset)
        truth = DESIGNS["population"](distribution, 0.0, location, scale, points=20_000).mean(axis=-1)
        rng = np.random.default_rng([d, N, n, DESIGNS["DISTRIBUTIONS"].index(distribution),
                                     LANDSCAPES.index(landscape), 7])
        here = {lower: [] for lower in INTERVALS}
        for i in range(per_draw):
            deviation = DESIGNS["deviations"](rng, distribution, (N, n))
            x = DESIGNS["scores"](distribution, deviation, 0.0, location[:, None], scale[:, None])
            c, intervals = interval(x, child_stream(np.random.SeedSequence([d, i]), 0, 0, 0))
            for lower, (low, high) in intervals.items():
                here[lower].append(low <= truth[c] <= high)
        for lower in INTERVALS:
            held[lower].append(np.array(here[lower]))
    return held


def table_rows(point, n_sim, quick):
    N, n, distribution, landscape = point
    return [{"statistic": landscape, "interval": INTERVALS[lower], "agents": 1, "tasks": 1, "runs": n,
             "distribution": distribution, "configuration": f"{N} configurations", "n_resamples": N_RESAMPLES,
             **DESIGNS["pooled_row"](held, LEVEL)}
            for lower, held in measure(N, n, distribution, landscape, n_sim).items()]


if __name__ == "__main__":
    runpy.run_path(str(pathlib.Path(__file__).with_name("calibrate.py")))["run_alone"](PROCEDURE)
