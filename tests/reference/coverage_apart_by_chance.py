"""Coverage of bootstrap()'s default intervals where 3 tasks that overlap lie apart in the sample (audit s35
farapart35).

    PYTHONPATH=. nice python tests/reference/coverage_apart_by_chance.py [--quick] [--points RUNS:DIST,...]
        [--kept N] [--seed S] [--jsonl PATH] [--append-table rlstats/calibration.csv]
    PYTHONPATH=. python tests/reference/coverage_apart_by_chance.py --from-jsonl A.jsonl,... --append-table ...

``calibration.tasks_apart`` sends an agent whose 3 tasks' runs lie apart (pairwise disjoint ranges) to the rows of
3 tasks far apart (``coverage_far_apart.py``, one design whose populations lie apart). Tasks drawn as the grid draws
them (``designs.task_draws``: offsets uniform on [0, 2], scales lognormal, log-sd 0.5) overlap in the population, yet
their runs lie apart in 0.5-6.7% of data sets of 3 tasks at 3 and 5 runs. Here the coverage of the default
(studentised) interval of the IQM and of the mean of task means, conditional on that event: data sets of one agent
on 3 tasks, each with a design of its own, drawn in blocks (vectorised) and kept where ``tasks_apart`` holds
(rejection: the kept ones follow the law of the data given the event, designs and all), until ``--kept`` are kept;
their truths (the design's population IQM and mean, ``coverage_small_runs.truths``); then one ``rlstats.bootstrap``
call whose agents are the kept data sets (each agent's interval is its own: stratified by agent, its stream keyed
by its name), 500 resamples (the grid's). Beside them (``all``) as many data sets of the same law, not conditioned,
measured alike. Points: 3, 5 and 10 runs a task; normal, skewed and capped scores.

Audit s35 apart35 added, at 3 and 5 runs: the median's (of task means) and the optimality gap's default intervals on
the same data sets (points ``bootstrap:median+optimality_gap:RUNS:DIST``), and ``curves()``' default bands (points
``curves:STATISTIC:RUNS:DIST``, the mean, the IQM and the median of task means) of curves drawn as
``coverage_curves_bands.py`` draws them (AR(1) over 10 steps rising to location 0, vectorised), a design a data set,
kept where the 3 tasks' runs lie apart at more than half of the steps (curves()' reading), 500 a point, the same data
sets for the 3 statistics; one curves() call a point, an agent a data set, 300 resamples; rows of the simultaneous
and pointwise bands (``curves.band``). Measured: ``docs/calibration.md`` ("Audit s35: ... by chance").
"""

from __future__ import annotations

import json
import math
import pathlib
import runpy
import sys
from types import SimpleNamespace

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
SMALL = runpy.run_path(str(HERE / "coverage_small_runs.py"))
designs = SimpleNamespace(**SMALL["designs"])
_BANDS = {}


def BANDS():
    """coverage_curves_bands.py's namespace (its curves' law, truths and counts), read once, when first asked."""
    if not _BANDS:
        _BANDS.update(runpy.run_path(str(HERE / "coverage_curves_bands.py")))
    return _BANDS

LEVEL = 0.95
TASKS = 3
RUNS = (3, 5, 10)
DISTRIBUTIONS = ("normal", "skewed", "capped")
METRICS = ("iqm", "mean")
#: audit s35 apart35: the bootstrap's median (of task means) and optimality gap on the same data sets (their own
#: points, "bootstrap", after the IQM's and the mean's)
MORE_METRICS = ("median", "optimality_gap")
GAMMA = SMALL["GAMMA"]
#: audit s35 apart35: curves()' default bands (KIND "curves") of curves whose 3 tasks' runs lie apart by chance at
#: more than half of the steps (curves' own rule, ``rlstats.methods.curves._api._tasks_apart``): the curves of
#: ``coverage_curves_bands.py`` (its AR(1) over 10 steps and rise, vectorised here), a design a data set, an agent a
#: data set, 300 resamples (the grid's); 500 data sets kept a point (a binomial SE of at most 0.023)
STATISTICS = ("iqm", "mean", "median")
CURVES_KEPT = 500
CURVES_RESAMPLES = 300
CURVES_RUNS = (3, 5)
#: data sets of curves drawn a block (3 tasks x runs x 10 steps each)
CURVES_BLOCK = 20_000
N_RESAMPLES = 500
#: data sets kept a point: 2,500, a binomial SE of at most 0.01 whatever the coverage; 1,000 at 10 normal runs, where
#: 2.5 in a million data sets lie apart (400 million drawn, a quarter of an hour)
KEPT = 2500
FEWER_KEPT = {(10, "normal"): 1000}
#: data sets drawn a block in the rejection step
BLOCK = 200_000
#: stratified quantiles a task for the truths (coverage_far_apart.py's, coverage_curves_bands.TRUTH_POINTS)
TRUTH_POINTS = 20_000


def _keep(found, at, offset, scale, scores):
    """Append the data sets ``at`` of a block to ``found``; how many (the rejection steps' shared tail)."""
    if at.size:
        found.append((offset[at], scale[at], scores[at]))
    return at.size


def _kept(found, count, kept, drawn):
    """(offset, scale, scores, rate) of the first ``kept`` data sets found, or an error where fewer were."""
    if count < kept:
        raise RuntimeError(f"{count} of {kept} data sets apart in {drawn} drawn")
    offset, scale, scores = (np.concatenate(part)[:kept] for part in zip(*found))
    return offset, scale, scores, count / drawn


def draw_apart(runs, distribution, kept, rng, block=BLOCK, max_drawn=2_000_000_000):
    """(offset (kept, 3), scale (kept, 3), scores (kept, 3, runs), rate): the first ``kept`` data sets, each of a
    fresh design (``designs.task_draws``), whose 3 tasks' runs lie apart (``calibration.tasks_apart``), and the share
    of the data sets drawn (whole blocks) whose runs lie apart."""
    from rlstats import calibration

    found, drawn, count = [], 0, 0
    while count < kept and drawn < max_drawn:
        offset, scale = designs.task_draws(rng, (block, TASKS))
        scores = designs.scores(distribution, designs.deviations(rng, distribution, (block, TASKS, runs)), 0.0,
                                offset[..., None], scale[..., None])
        at = np.flatnonzero(calibration.tasks_apart(scores.min(axis=-1), scores.max(axis=-1)))
        drawn += block
        count += _keep(found, at, offset, scale, scores)
    return _kept(found, count, kept, drawn)


def draw_any(runs, distribution, n, rng):
    """(offset, scale, scores) of ``n`` data sets of the same law, not conditioned on lying apart."""
    offset, scale = designs.task_draws(rng, (n, TASKS))
    scores = designs.scores(distribution, designs.deviations(rng, distribution, (n, TASKS, runs)), 0.0,
                            offset[..., None], scale[..., None])
    return offset, scale, scores


def truths(distribution, offset, scale, location=0.0):
    """{metric: (n,) the truth of each data set's design}, as ``coverage_small_runs.truths`` (the IQM of the pooled
    population, the mean and the median of task means, the optimality gap of the pooled population below ``GAMMA``)
    at ``location`` on ``TRUTH_POINTS`` stratified quantiles a task, vectorised (a partition in place of its sort;
    tests/test_audit_s35_farapart35.py and tests/test_audit_s35_apart35.py check it against that function)."""
    out = {"iqm": [], "mean": [], "median": [], "optimality_gap": []}
    for at in range(0, len(offset), 100):  # 100 designs at a time: 48 MB
        population = designs.population(distribution, location, offset[at:at + 100], scale[at:at + 100],
                                        points=TRUTH_POINTS)  # (n, tasks, points)
        pooled = population.reshape(population.shape[0], -1)
        cut = pooled.shape[1] // 4
        middle = np.partition(pooled, (cut, pooled.shape[1] - cut - 1), axis=1)[:, cut:pooled.shape[1] - cut]
        out["iqm"].append(middle.mean(axis=1))
        out["mean"].append(population.mean(axis=2).mean(axis=1))
        out["median"].append(np.median(population.mean(axis=2), axis=1))
        out["optimality_gap"].append(np.maximum(GAMMA - pooled, 0.0).mean(axis=1))
    return {m: np.concatenate(v) for m, v in out.items()}


def frame(scores):
    """Long frame of (data sets, tasks, runs) scores, one agent a data set."""
    import pandas as pd

    a, t, r = np.meshgrid(*(np.arange(n) for n in scores.shape), indexing="ij")
    return pd.DataFrame({"agent": [f"d{i:05d}" for i in a.ravel()], "task": [f"t{i}" for i in t.ravel()],
                         "seed": r.ravel(), "score": scores.ravel()})


def held(distribution, offset, scale, scores, seed, metrics=METRICS):
    """{metric: {"held", "below", "above": (n,) 0/1, "bias": (n,) estimate - truth, "width", "withheld": how many
    were withheld (not in n)}} of the default intervals."""
    import rlstats

    res = rlstats.bootstrap(frame(scores), "score ~ agent | task", metrics=metrics, n_resamples=N_RESAMPLES,
                            normalize=False, rng=seed)
    true = truths(distribution, offset, scale)
    out = {}
    for j, m in enumerate(metrics):
        # withheld (runs at a cap, or tied in every task: a note and a way on, no claim, and no note of runs apart,
        # which bootstrap() gives for the intervals given alone): not counted, as the grid's rows leave out those of
        # runs at a cap (coverage_small_runs.measure)
        kept = np.isfinite(res.intervals[:, j]).all(axis=-1)
        low, high, t = res.intervals[kept, j, 0], res.intervals[kept, j, 1], true[m][kept]
        out[m] = {"held": ((low <= t) & (t <= high)).astype(float), "below": (t < low).astype(float),
                  "above": (t > high).astype(float), "bias": res.estimates[kept, j] - t, "width": high - low,
                  "withheld": int((~kept).sum())}
    return out


def measure(runs, distribution, kept=KEPT, seed=0, baseline=True, metrics=METRICS):
    """{"apart": held(...) of ``kept`` data sets whose runs lie apart, "all": of ``kept`` not conditioned (when
    ``baseline``), "rate": kept / drawn}. ``metrics``: the same data sets whatever they are (audit s35 apart35: the
    median's and the gap's are the IQM's and the mean's data sets)."""
    key = [35, seed, runs, DISTRIBUTIONS.index(distribution)]
    draw_seed, call_seed, any_seed, any_call = np.random.SeedSequence(key).spawn(4)
    offset, scale, scores, rate = draw_apart(runs, distribution, kept, np.random.default_rng(draw_seed))
    out = {"apart": held(distribution, offset, scale, scores, np.random.default_rng(call_seed), metrics),
           "rate": rate}
    if baseline:
        out["all"] = held(distribution, *draw_any(runs, distribution, kept, np.random.default_rng(any_seed)),
                          np.random.default_rng(any_call), metrics)
    return out


def curves_apart(runs, distribution, kept, rng, block=CURVES_BLOCK, max_drawn=200_000_000):
    """(offset (kept, 3), scale (kept, 3), scores (kept, 3, runs, steps), rate): the first ``kept`` data sets of
    curves (``coverage_curves_bands.simulate``'s law, vectorised over data sets, a fresh design each), whose 3 tasks'
    runs lie apart at more than half of the steps (curves()' rule), and the share of those drawn that did."""
    from rlstats import calibration

    bands = BANDS()
    steps, rho = bands["STEPS"], bands["RHO"]
    found, drawn, count = [], 0, 0
    while count < kept and drawn < max_drawn:
        offset, scale = designs.task_draws(rng, (block, TASKS))
        shape = (block, TASKS, runs)
        z = np.empty(shape + (steps,))
        z[..., 0] = rng.normal(size=shape)
        for s in range(1, steps):
            z[..., s] = rho * z[..., s - 1] + math.sqrt(1 - rho ** 2) * rng.normal(size=shape)
        scores = designs.scores(distribution, bands["_deviations"](z, distribution), bands["location"](),
                                offset[..., None, None], scale[..., None, None])
        low, high = np.moveaxis(scores.min(axis=2), 1, 2), np.moveaxis(scores.max(axis=2), 1, 2)  # (block, steps, 3)
        at = np.flatnonzero(calibration.tasks_apart(low, high).mean(axis=1) > 0.5)
        drawn += block
        count += _keep(found, at, offset, scale, scores)
    return _kept(found, count, kept, drawn)


def curves_frame(scores):
    """Long frame of (data sets, tasks, runs, steps) scores, one agent a data set."""
    import pandas as pd

    a, t, r, s = np.meshgrid(*(np.arange(n) for n in scores.shape), indexing="ij")
    return pd.DataFrame({"agent": [f"d{i:05d}" for i in a.ravel()], "task": [f"t{i}" for i in t.ravel()],
                         "seed": r.ravel(), "step": s.ravel(), "score": scores.ravel()})


def curves_truths(distribution, offset, scale):
    """{statistic: (n, steps) the true curve of each data set's design} (:func:`truths` at each step's location)."""
    at = [truths(distribution, offset, scale, loc) for loc in BANDS()["location"]()]
    return {m: np.stack([t[m] for t in at], axis=1) for m in STATISTICS}


_CURVES_DRAWN = {}  # the last point's draws: ((key, kept), draws)


def measure_curves(statistic, runs, distribution, kept=CURVES_KEPT, seed=0):
    """{"simultaneous", "pointwise": (kept,) held (``coverage_curves_bands._held``), "apart": (kept,) whether
    curves() read the agent's runs as apart (its note), "rate"} of the default bands of ``kept`` data sets of curves
    whose runs lie apart by chance: one curves() call, an agent a data set (each agent's band is its own). The data
    sets of a point are the same for the 3 statistics (drawn once, :data:`_CURVES_DRAWN`), each its own call's seed."""
    from rlstats import curves

    key = [35, 1, seed, runs, DISTRIBUTIONS.index(distribution)]
    draw_seed, *call_seeds = np.random.SeedSequence(key).spawn(1 + len(STATISTICS))
    call_seed = call_seeds[STATISTICS.index(statistic)]
    if (tuple(key), kept) not in _CURVES_DRAWN:  # the same data sets for every statistic, drawn once a process
        _CURVES_DRAWN.clear()
        _CURVES_DRAWN[tuple(key), kept] = curves_apart(runs, distribution, kept, np.random.default_rng(draw_seed))
    offset, scale, scores, rate = _CURVES_DRAWN[tuple(key), kept]
    res = curves(curves_frame(scores), "score ~ agent | task/seed", step="step", statistic=statistic,
                 n_resamples=CURVES_RESAMPLES, normalize=False, rng=np.random.default_rng(call_seed), progress=False)
    true = curves_truths(distribution, offset, scale)[statistic]
    held_ = BANDS()["_held"]
    return {"simultaneous": held_(res.simultaneous, true)[0], "pointwise": held_(res.pointwise, true)[1],
            "rate": rate, "notes": list(res.notes)}


def summary(result):
    """{which: {metric: [coverage, se, below, above, mean bias (estimate - truth), n, withheld]}}, rounded to 4
    digits."""
    out = {}
    for which in ("apart", "all"):
        if which not in result:
            continue
        out[which] = {}
        for m, h in result[which].items():
            n = h["held"].size
            c = float(h["held"].mean())
            out[which][m] = [round(c, 4), round(math.sqrt(c * (1 - c) / n), 4), round(float(h["below"].mean()), 4),
                             round(float(h["above"].mean()), 4), round(float(h["bias"].mean()), 4), n,
                             h["withheld"]]
    return out


def rows_of(point, result):
    """The table rows (``configuration`` :data:`rlstats.calibration.APART_BY_CHANCE`) of the data sets apart. A point
    (runs, distribution): ``bootstrap.interval`` rows of the IQM and the mean; ("bootstrap", "median+optimality_gap",
    runs, distribution): of those metrics (audit s35 apart35); ("curves", statistic, runs, distribution):
    ``curves.band`` rows of the simultaneous and pointwise bands (audit s35 apart35; an agent a data set, so
    ``agents`` 1). Each data set has a design of its own, so no draws are pooled (``design_draws`` and
    ``coverage_min`` empty) and ``se`` is the binomial SE of the coverage itself, as the far-apart rows'."""
    from rlstats.calibration import APART_BY_CHANCE

    *kind, runs, distribution = point
    common = {"tasks": TASKS, "runs": runs, "distribution": distribution, "configuration": APART_BY_CHANCE,
              "level": LEVEL}
    rows = []
    if kind and kind[0] == "curves":
        for band in ("simultaneous", "pointwise"):
            given = result[band][np.isfinite(result[band])]
            row = designs.band_row(band, [given], LEVEL)
            row.update(design_draws="", coverage_min="",
                       se=math.sqrt(row["coverage"] * (1 - row["coverage"]) / row["n_sim"]))
            rows.append({"procedure": "curves.band", **common, "n_resamples": CURVES_RESAMPLES,
                         "statistic": kind[1], "band": band, "interval": "studentized", "agents": 1, **row})
        return rows
    for m in (kind[1].split("+") if kind else METRICS):
        held_ = result["apart"][m]["held"]
        coverage = float(held_.mean())
        rows.append({"procedure": "bootstrap.interval", "interval": "studentized", "metric": m, **common,
                     "n_sim": int(held_.size), "n_resamples": N_RESAMPLES, "coverage": coverage,
                     "se": math.sqrt(coverage * (1 - coverage) / held_.size), "design_draws": "", "coverage_min": ""})
    return rows


def appended(row):
    """Whether a row of the table (a dict of strings) is one this script writes (``calibrate.py``'s ``APPENDED``)."""
    from rlstats.calibration import APART_BY_CHANCE

    return str(row.get("configuration", "")) == APART_BY_CHANCE


def grid(quick=False):
    """farapart35's points (runs, distribution), then audit s35 apart35's: the median's and the gap's, and the
    curves' (3 and 5 runs: at 10 the curves' runs lie apart too rarely to draw)."""
    if quick:
        return [(5, "normal")]
    more = "+".join(MORE_METRICS)
    return ([(r, d) for r in RUNS for d in DISTRIBUTIONS] + [("bootstrap", more, r, d) for r in CURVES_RUNS
                                                              for d in DISTRIBUTIONS]
            + [("curves", s, r, d) for r in CURVES_RUNS for d in DISTRIBUTIONS for s in STATISTICS])


def kept_at(point):
    return CURVES_KEPT if point[0] == "curves" else FEWER_KEPT.get(tuple(point[-2:]), KEPT)


def measure_point(point, kept, seed):
    """(result, its checkpoint line) of a point of :func:`grid`."""
    if point[0] == "curves":
        result = measure_curves(*point[1:], kept=kept, seed=seed)
        line = {"point": list(point), "seed": seed, "rate": round(result["rate"], 7),
                "apart_noted": sum("lie apart" in n for n in result["notes"]),
                "rows": {b: [round(float(np.nanmean(result[b])), 4), int(np.isfinite(result[b]).sum())]
                         for b in ("simultaneous", "pointwise")}}
        return result, line
    metrics = tuple(point[1].split("+")) if len(point) == 4 else METRICS
    result = measure(*point[-2:], kept, seed, metrics=metrics)
    return result, {"point": list(point), "seed": seed, "rate": round(result["rate"], 7), **summary(result)}


def from_checkpoints(paths):
    """The rows of ``--jsonl`` checkpoint files, in grid order (the last line of a point where it was run twice)."""
    return BANDS()["checkpoint_rows"](paths, grid())


def write(rows, argv):
    """``calibrate.write_rows`` a procedure at a time, replacing the table's rows of this script that ``rows``
    measure again (its other rows kept: the IQM's and the mean's when the median's are written)."""
    calibrate = runpy.run_path(str(HERE / "calibrate.py"))

    def key(row):
        return (str(row["procedure"]), str(row.get("metric", "")), str(row.get("statistic", "")),
                str(row.get("band", "")), str(row["runs"]), str(row["distribution"]))

    for procedure in ("bootstrap.interval", "curves.band"):
        mine = [row for row in rows if row["procedure"] == procedure]
        keys = {key(row) for row in mine}
        if mine:
            calibrate["write_rows"](mine, argv, procedure,
                                    lambda row: appended(row) and key({"procedure": procedure, **row}) in keys)


def main(argv):
    if "--from-jsonl" in argv:
        rows = from_checkpoints(argv[argv.index("--from-jsonl") + 1].split(","))
        write(rows, argv)
        return rows
    quick = "--quick" in argv
    points = ([tuple(int(x) if x.isdigit() else x for x in p.split(":"))
               for p in argv[argv.index("--points") + 1].split(",")] if "--points" in argv else grid(quick))
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
    log = open(argv[argv.index("--jsonl") + 1], "a") if "--jsonl" in argv else None
    out = []
    for point in points:
        kept = int(argv[argv.index("--kept") + 1]) if "--kept" in argv else (100 if quick else kept_at(point))
        result, line = measure_point(point, kept, seed)
        rows = rows_of(point, result)
        print(json.dumps(line), flush=True)
        if log:
            log.write(json.dumps({**line, "table_rows": rows}) + "\n")
            log.flush()
        out += rows
    write(out, argv)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
