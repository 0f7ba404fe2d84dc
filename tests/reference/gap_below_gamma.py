"""Audit s27 (median27): the optimality gap where every score of an agent is at or below gamma, where it is gamma
minus the mean of task means, which decided that ``bootstrap()``'s default gives it that mean's interval reflected
(``rlstats.methods.bootstrap._small_runs.interval_kinds``).

    PYTHONPATH=. nice -n 10 python tests/reference/gap_below_gamma.py [--quick]   # about 6 CPU minutes

Two parts.

``affected()``: how many optimality-gap intervals of the calibration table's designs change. It draws the data sets
of ``coverage_small_runs.py`` (its ``draw_design``: four agents, gamma 1, the four distributions and four design draws
of ``designs.py``, the default rows' data sets, 30 a draw, with that script's seeds) and of
``coverage_one_task.py`` (one task, 20-200 runs, its seed, 30 a draw) and counts the agents whose every score is at or
below gamma = 1, whose gap interval the change moves (no bootstrap: the data alone).

``coverage()``: the gap's interval before the change (the package's own bounds with the gap's widening left out:
``bootstrap_bounds`` without ``cells``, bit for bit the former default's gap) and after it, on data sets whose
every score is at or below gamma: 2 tasks x 3 and 5 runs and 1 task x 20 runs, two agents (0 and ``SHIFT`` noise units apart), the four
design draws of ``designs.py`` (offsets, a quarter of theirs, and scales), 40 data sets a draw (320 intervals a
row), 500 resamples, gamma 1, in two families below gamma:

``left_skewed``
    1 - offset - scale (location + d - min d), d the grid's standardised lognormal (``skewed``): shortfalls skewed to
    the right, scores to the left, as success rates or normalised returns below a ceiling.
``capped``
    1 - scale max(CAP - location - z, 0), z normal: a third of a baseline agent's runs at gamma (the grid's
    ``capped`` family, reflected into shortfalls).

The truth is gamma minus the mean of task means of the population (stratified quantiles, ``designs.population``).
By reflection (gap = 1 - mean, the same resamples and standard errors), the change's interval is the mean's default
interval of the shortfalls 1 - score, and the one before it that mean's ``studentized_unwidened`` interval: the
calibration table's mean rows on ``skewed`` runs measure them too (unwidened 0.923 at 2 tasks x 5, 0.917 at 5 x 5;
default 0.949 and 0.948).

Measured (numpy 2, rlstats at audit s27, about 6 CPU minutes), before / after, pooled (worst draw), 320 a row:
affected: 5 of the 32,640 agents, one of 480 in the rows of 2 and 5 tasks x 3 skewed and capped runs and of one task
x 20 heavy-tailed runs. Coverage: left_skewed 2 tasks x 3 runs 0.947 (0.900) / 0.947 (0.900); x 5 runs
0.953 (0.925) / 0.956 (0.925); 1 task x 20 runs withheld / 0.969 (0.938); capped 2 x 3 0.987 (0.974) / 0.994 (0.987)
of 308 given (the rest withheld for runs at the cap, before as after); 2 x 5 0.978 (0.962) / 0.987 (0.987) of 314;
1 x 20 withheld / 0.984 (0.963).
"""

from __future__ import annotations

import json
import math
import pathlib
import runpy
import sys
import warnings

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
SMALL = runpy.run_path(str(HERE / "coverage_small_runs.py"))
ONE_TASK = runpy.run_path(str(HERE / "coverage_one_task.py"))
designs = SMALL["designs"]

import rlstats  # noqa: E402
from rlstats.methods.bootstrap import _small_runs as small_runs  # noqa: E402

GAMMA, SHIFT, N_RESAMPLES, SEED = 1.0, 0.3, 500, 2701
FAMILIES = ("left_skewed", "capped")
DATA_SETS = (40, 4)  # a design draw: the run's, --quick's
D_MIN = float(designs["_lognormal"](np.array([-np.inf]))[0])  # the standardised lognormal's least value


def affected(data_sets=30):
    """{(tasks, runs, distribution): (agents all at or below gamma, agents)} over the table's default data sets."""
    out = {}
    points = [(d, t, r, r * 100 + t) for d in designs["DISTRIBUTIONS"] for t in (2, 5, 26) for r in designs["RUNS"]]
    points += [(d, 1, r, ONE_TASK["SEED"]) for d in designs["DISTRIBUTIONS"] for r in ONE_TASK["RUNS"] if r >= 20]
    for distribution, tasks, runs, seed in points:
        below = total = 0
        for draw in range(designs["DESIGN_DRAWS"]):
            # coverage_small_runs.draw_design's scores, draw for draw, without its truths (quantiles of 200,000 points)
            offset, scale = designs["design_draw"](draw, tasks)
            rng = np.random.default_rng([seed, draw, tasks, runs])
            for _ in range(data_sets):
                for i in range(len(SMALL["AGENTS"])):
                    scores = designs["scores"](distribution, designs["deviations"](rng, distribution, (runs, tasks)),
                                               SHIFT * (i % 2), offset, scale)
                    below += int(scores.max() <= GAMMA)
                    total += 1
        out[(tasks, runs, distribution)] = (below, total)
    return out


def shortfalls(family, rng, location, offset, scale, shape):
    if family == "left_skewed":
        return offset + scale * (location + designs["deviations"](rng, "skewed", shape) - D_MIN)
    return scale * np.maximum(designs["CAP"] - location - rng.standard_normal(shape), 0.0)


def true_gap(family, location, offset, scale):
    q = designs["quantiles"]("skewed" if family == "left_skewed" else "normal")
    per_task = [(o + s * (location + q - D_MIN)).mean() if family == "left_skewed"
                else (s * np.maximum(designs["CAP"] - location - q, 0.0)).mean() for o, s in zip(offset, scale)]
    return float(np.mean(per_task))


def coverage(family, tasks, runs, data_sets):
    """(held before, held after, given before, given after) per design draw, over both agents' gap intervals."""
    rows = []
    for draw in range(designs["DESIGN_DRAWS"]):
        offset, scale = designs["design_draw"](draw, tasks)
        offset = offset / 4  # shortfalls of a fraction of gamma's scale
        truth = np.array([true_gap(family, SHIFT * k, offset, scale) for k in (0, 1)])
        rng = np.random.default_rng([SEED, draw, tasks, runs, FAMILIES.index(family)])
        counts = np.zeros(4)
        for d in range(data_sets):
            parts = [pd.DataFrame({"agent": f"a{k}", "task": np.tile([f"t{t}" for t in range(tasks)], runs),
                                   "score": GAMMA - shortfalls(family, rng, SHIFT * k, offset, scale,
                                                               (runs, tasks)).ravel()}) for k in (0, 1)]
            data = pd.concat(parts, ignore_index=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = rlstats.bootstrap(data, "score ~ agent | task", metrics=("optimality_gap",), gamma=GAMMA,
                                        n_resamples=N_RESAMPLES, rng=d, progress=False)
            assert res.gap_as_mean is not None and res.gap_as_mean.all()
            before, _, _ = small_runs.bootstrap_bounds(
                res.bootstrap_distribution, res.estimates, res.confidence_level, res.interval, None, None, False,
                res.counts.min(axis=0), res.degrees_of_freedom, (res.resampled_standard_errors, res.standard_errors),
                res.metrics, res.n_tasks, res.skewness, res.welch_degrees_of_freedom)  # no cells: as before
            if res.saturated is not None:  # withheld by the rule of runs at a cap, before as after: not counted
                before[res.saturated] = np.nan
            for k, bounds in enumerate((before[:, 0], res.intervals[:, 0])):
                given = np.isfinite(bounds).all(axis=-1)
                counts[k] += ((bounds[:, 0] <= truth) & (truth <= bounds[:, 1]))[given].sum()
                counts[2 + k] += given.sum()
        rows.append(counts)
    return np.array(rows)


def main(quick=False):
    for (tasks, runs, distribution), (below, total) in affected(4 if quick else 30).items():
        if below:
            print(json.dumps({"part": "affected", "tasks": tasks, "runs": runs, "distribution": distribution,
                              "below_gamma": below, "intervals": total}), flush=True)
    for family in FAMILIES:
        for tasks, runs in ((2, 3), (2, 5), (1, 20)):
            counts = coverage(family, tasks, runs, DATA_SETS[quick])
            held, given = counts[:, :2], counts[:, 2:]
            pooled = held.sum(0) / np.maximum(given.sum(0), 1)
            worst = (held / np.maximum(given, 1)).min(0)
            print(json.dumps({"part": "coverage", "family": family, "tasks": tasks, "runs": runs,
                              "given_before": int(given[:, 0].sum()), "given_after": int(given[:, 1].sum()),
                              "coverage_before": round(float(pooled[0]), 4), "coverage_after": round(float(pooled[1]), 4),
                              "worst_draw_before": round(float(worst[0]), 4), "worst_draw_after": round(float(worst[1]), 4),
                              "se": round(math.sqrt(0.95 * 0.05 / max(given[:, 1].sum(), 1)), 4)}), flush=True)


if __name__ == "__main__":
    main("--quick" in sys.argv)
