"""Audit s28 (gapboot28): coverage of ``rlstats.bootstrap``'s default interval of the optimality gap where an agent's
scores all sit at or below gamma but its true score distribution crosses gamma: the ``bootstrap.interval`` rows of
metric ``optimality_gap`` and ``configuration`` "every score at or below gamma" in ``rlstats/calibration.csv``.

    PYTHONPATH=. nice python tests/reference/coverage_bootstrap_gap.py [--quick] [--dist skewed] [--json OUT]
        [--checkpoint FILE] [--append-table rlstats/calibration.csv]      # about 5 CPU minutes

Where every score of an agent is at or below gamma its gap is gamma minus its mean of task means, and ``bootstrap()``
gives it the mean's interval reflected (``_small_runs.interval_kinds``, audit s27 median27). The table's mean rows
measure that interval of a gap whose truth is gamma minus the mean (a distribution entirely below gamma). Here the
truth crosses gamma: the true gap, the mean over tasks of E max(gamma - X, 0), exceeds gamma minus the true mean, and
the agents whose runs happen to stay below gamma are those whose mean is low. ``coverage_curves_gap.py`` measures
curves()' bands under this condition; this script the bootstrap's interval, on the grid's runs, tasks and
distributions (``designs.py``: 3, 5, 10, 20 runs x 1, 2, 5, 10 tasks; ``normal``, ``skewed``, ``capped``).

Gamma is, as in ``coverage_curves_gap.py``, the ``1 - 1 / (2 n)`` quantile of the scores pooled over the tasks (n =
runs x tasks, equal weights; the location 0, that script's last step), or the score just below the highest task's
ceiling where that quantile is the ceiling (``capped``), so that a share ``1 / (2 n)`` of the true distribution lies
above gamma. The truth is the gap of the population (stratified quantiles, ``designs.population``). Only agents whose
every score is at or below gamma are counted: each agent's interval is its own (the bootstrap resamples each agent's
runs alone), so the script draws agents (numpy, in chunks), keeps the first ``AGENTS`` a design draw whose every score
is at or below gamma (on capped runs most agents have a run at the top ceiling: up to ``MAX_DRAWN`` are drawn) and
passes those to one ``bootstrap()`` call. One task below 20 runs is not measured (the mean's interval, and so the
gap's, is withheld there: ``_small_runs.ONE_TASK_MIN_RUNS``).

Beside each row (not written): the gap's own studentised interval (``interval="studentized_unwidened"``, the
default's before audit s27, on the same agents) and the default interval's share of misses below and above the truth,
and the coverage of gamma minus the true mean (what the mean's rows measure) by the same intervals.

Each row pools the four design draws of ``designs.py`` (``coverage_min`` the lowest), ``AGENTS`` agents a draw, 500
resamples (60 agents and 200 resamples with --quick). Measured (numpy 2, rlstats at audit s28): see
``docs/calibration.md`` ("Audit s28").
"""

from __future__ import annotations

import json
import math
import pathlib
import runpy
import sys
from types import SimpleNamespace

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
designs = SimpleNamespace(**runpy.run_path(str(HERE / "designs.py")))

from rlstats import bootstrap  # noqa: E402
from rlstats.calibration import GAP_BELOW_GAMMA  # noqa: E402

RUNS = (3, 5, 10, 20)
TASKS = (1, 2, 5, 10)
DISTRIBUTIONS = ("normal", "skewed", "capped")
#: qualifying agents a design draw (4 draws: 400 a row), and the most agents drawn to find them
AGENTS, MAX_DRAWN = 100, 4_000_000
TRUTH_POINTS = 20_000
PROCEDURE, LEVEL, N_RESAMPLES = "bootstrap.interval", 0.95, 500


def gamma_of(runs, tasks, distribution, offset, scale):
    """The ``1 - 1 / (2 runs tasks)`` quantile of the scores pooled over the tasks; the score just below the top
    ceiling where that quantile is the ceiling (its runs then lie above gamma)."""
    pooled = designs.population(distribution, 0.0, offset[:, None], scale[:, None], points=TRUTH_POINTS).ravel()
    gamma = float(np.quantile(pooled, 1 - 1 / (2 * runs * tasks)))
    return float(pooled[pooled < gamma].max()) if gamma >= pooled.max() else gamma


def truths(distribution, gamma, offset, scale):
    """(true gap, gamma minus the true mean of task means) of the population."""
    scores = designs.population(distribution, 0.0, offset[:, None], scale[:, None], points=TRUTH_POINTS)
    return float(np.maximum(gamma - scores, 0.0).mean()), float(gamma - scores.mean())


def share_below(runs, distribution, offset, scale, gamma):
    """The probability that an agent's every score is at or below gamma: the product over tasks of P(X <= gamma) to
    the power ``runs`` (from the population's stratified quantiles)."""
    scores = designs.population(distribution, 0.0, offset[:, None], scale[:, None], points=TRUTH_POINTS)
    return float(np.prod((scores.reshape(offset.size, -1) <= gamma).mean(axis=1) ** runs))


def below_agents(runs, distribution, offset, scale, gamma, wanted, rng, chunk_cells=2_000_000):
    """(agents, tasks, runs) scores of up to ``wanted`` agents whose every score is at or below gamma, drawn in
    chunks of independent agents (at most ``MAX_DRAWN``); with the number drawn."""
    kept, drawn, found = [], 0, 0
    per_chunk = max(chunk_cells // (offset.size * runs), 1)
    while found < wanted and drawn < MAX_DRAWN:
        z = designs.deviations(rng, distribution, (per_chunk, offset.size, runs))
        y = designs.scores(distribution, z, 0.0, offset[None, :, None], scale[None, :, None])
        ok = (y <= gamma).all(axis=(1, 2))
        kept.append(y[ok][:wanted - found])
        found += kept[-1].shape[0]
        drawn += per_chunk
    return np.concatenate(kept), drawn


def frame(y):
    """Long frame of (agents, tasks, runs) scores."""
    a, t, r = np.meshgrid(*(np.arange(n) for n in y.shape), indexing="ij")
    return pd.DataFrame({"agent": [f"a{i:04d}" for i in a.ravel()], "task": [f"t{i:02d}" for i in t.ravel()],
                         "seed": r.ravel(), "score": y.ravel()})


def measure(runs, tasks, distribution, agents=AGENTS, n_resamples=N_RESAMPLES, seed=0, others=True):
    """Per design draw: {"default": (given agents, 2) bounds, "own": the gap's own studentised bounds (``others``),
    "gap": true gap, "reflected": gamma minus the true mean, "drawn": agents drawn, "found": agents kept}."""
    out = []
    key = [28, 2, seed, runs, tasks, DISTRIBUTIONS.index(distribution) if distribution in DISTRIBUTIONS else 9]
    for draw in range(designs.DESIGN_DRAWS):
        offset, scale = designs.design_draw(draw, tasks)
        gamma = gamma_of(runs, tasks, distribution, offset, scale)
        gap, reflected = truths(distribution, gamma, offset, scale)
        data_seed, boot_seed = np.random.SeedSequence(key + [draw]).spawn(2)
        y, drawn = below_agents(runs, distribution, offset, scale, gamma, agents, np.random.default_rng(data_seed))
        got = {"gap": gap, "reflected": reflected, "drawn": drawn, "found": y.shape[0], "gamma": gamma,
               "share": share_below(runs, distribution, offset, scale, gamma)}
        if y.shape[0]:
            data = frame(y)
            for name, interval in (("default", "studentized"), ("own", "studentized_unwidened"))[:2 if others else 1]:
                res = bootstrap(data, "score ~ agent | task/seed", metrics=("optimality_gap",), gamma=gamma,
                                n_resamples=n_resamples, normalize=False, rng=boot_seed, progress=False,
                                interval=interval)
                if name == "default" and not np.all(res.gap_as_mean):
                    raise AssertionError("an agent kept below gamma does not take the mean's interval")
                got[name] = res.intervals[:, 0]
        out.append(got)
    return out


def summary(per_draw, which="default", truth="gap"):
    """(coverage, worst draw's, given, drawn agents, truth below the interval, above it) of ``which`` intervals."""
    held, low, high = [], 0, 0
    for d in per_draw:
        b = d.get(which, np.empty((0, 2)))
        b = b[np.isfinite(b).all(axis=1)]
        held.append((b[:, 0] <= d[truth]) & (d[truth] <= b[:, 1]))
        low, high = low + int((b[:, 0] > d[truth]).sum()), high + int((b[:, 1] < d[truth]).sum())
    n = sum(h.size for h in held)
    return (float(np.concatenate(held).mean()) if n else math.nan,
            min((float(h.mean()) for h in held if h.size), default=math.nan), n,
            sum(d["drawn"] for d in per_draw), low, high)


def row_of(per_draw, runs, tasks, distribution, n_resamples=N_RESAMPLES):
    """The table row of the default interval against the true gap, pooled over draws (None: a draw gave none)."""
    held = []
    for d in per_draw:
        b = d.get("default", np.empty((0, 2)))
        b = b[np.isfinite(b).all(axis=1)]
        held.append((b[:, 0] <= d["gap"]) & (d["gap"] <= b[:, 1]))
    if not all(h.size for h in held):
        return None
    return {"procedure": PROCEDURE, "interval": "studentized", "metric": "optimality_gap", "tasks": tasks,
            "runs": runs, "distribution": distribution, "configuration": GAP_BELOW_GAMMA, "level": LEVEL,
            "n_resamples": n_resamples, **designs.pooled_row(held, LEVEL)}


def points(only=DISTRIBUTIONS):
    """The grid's points: one task only from the mean's one-task count (20 runs), below which it is withheld."""
    return [(r, t, d) for d in only for t in TASKS for r in RUNS if t > 1 or r >= 20]


def appended(row):
    """Whether a ``bootstrap.interval`` row of the table (a dict of strings) is one this script writes
    (``calibrate.py``'s ``APPENDED`` keeps them when the procedure is re-measured)."""
    return row["configuration"] == GAP_BELOW_GAMMA


def main(argv):
    quick = "--quick" in argv
    only = argv[argv.index("--dist") + 1].split(",") if "--dist" in argv else DISTRIBUTIONS
    agents, n_resamples = (60, 200) if quick else (AGENTS, N_RESAMPLES)
    checkpoint = pathlib.Path(argv[argv.index("--checkpoint") + 1]) if "--checkpoint" in argv else None
    done = {}
    if checkpoint is not None and checkpoint.exists():
        for line in checkpoint.read_text().splitlines():
            record = json.loads(line)
            done[tuple(record["point"])] = record
    out = []
    for runs, tasks, distribution in points(only):
        point = [runs, tasks, distribution]
        if tuple(point) not in done:
            per_draw = measure(runs, tasks, distribution, agents, n_resamples)
            record = {"point": point, "row": row_of(per_draw, runs, tasks, distribution, n_resamples),
                      "default": summary(per_draw), "own": summary(per_draw, "own"),
                      "mean_truth": summary(per_draw, "default", "reflected"),
                      "share_below": [d["share"] for d in per_draw]}
            print(json.dumps(record), flush=True)
            if checkpoint is not None:
                with checkpoint.open("a") as handle:
                    handle.write(json.dumps(record) + "\n")
            done[tuple(point)] = record
        if done[tuple(point)]["row"] is not None:
            out.append(done[tuple(point)]["row"])
    runpy.run_path(str(HERE / "calibrate.py"))["write_rows"](out, argv, PROCEDURE, appended)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
