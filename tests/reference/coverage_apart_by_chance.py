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

LEVEL = 0.95
TASKS = 3
RUNS = (3, 5, 10)
DISTRIBUTIONS = ("normal", "skewed", "capped")
METRICS = ("iqm", "mean")
N_RESAMPLES = 500
#: data sets kept a point: 2,500, a binomial SE of at most 0.01 whatever the coverage; 1,000 at 10 normal runs, where
#: 2.5 in a million data sets lie apart (400 million drawn, a quarter of an hour)
KEPT = 2500
FEWER_KEPT = {(10, "normal"): 1000}
#: data sets drawn a block in the rejection step
BLOCK = 200_000
#: stratified quantiles a task for the truths (coverage_far_apart.py's, coverage_curves_bands.TRUTH_POINTS)
TRUTH_POINTS = 20_000


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
        if at.size:
            found.append((offset[at], scale[at], scores[at]))
            count += at.size
    if count < kept:
        raise RuntimeError(f"{count} of {kept} data sets apart in {drawn} drawn")
    offset, scale, scores = (np.concatenate(part)[:kept] for part in zip(*found))
    return offset, scale, scores, count / drawn


def draw_any(runs, distribution, n, rng):
    """(offset, scale, scores) of ``n`` data sets of the same law, not conditioned on lying apart."""
    offset, scale = designs.task_draws(rng, (n, TASKS))
    scores = designs.scores(distribution, designs.deviations(rng, distribution, (n, TASKS, runs)), 0.0,
                            offset[..., None], scale[..., None])
    return offset, scale, scores


def truths(distribution, offset, scale):
    """{metric: (n,) the truth of each data set's design}, as ``coverage_small_runs.truths`` (the IQM of the pooled
    population, the mean of task means) on ``TRUTH_POINTS`` stratified quantiles a task, vectorised (a partition in
    place of its sort; tests/test_audit_s35_farapart35.py checks it against that function)."""
    out = {"iqm": [], "mean": []}
    for at in range(0, len(offset), 100):  # 100 designs at a time: 48 MB
        population = designs.population(distribution, 0.0, offset[at:at + 100], scale[at:at + 100],
                                        points=TRUTH_POINTS)  # (n, tasks, points)
        pooled = population.reshape(population.shape[0], -1)
        cut = pooled.shape[1] // 4
        middle = np.partition(pooled, (cut, pooled.shape[1] - cut - 1), axis=1)[:, cut:pooled.shape[1] - cut]
        out["iqm"].append(middle.mean(axis=1))
        out["mean"].append(population.mean(axis=2).mean(axis=1))
    return {m: np.concatenate(v) for m, v in out.items()}


def frame(scores):
    """Long frame of (data sets, tasks, runs) scores, one agent a data set."""
    import pandas as pd

    a, t, r = np.meshgrid(*(np.arange(n) for n in scores.shape), indexing="ij")
    return pd.DataFrame({"agent": [f"d{i:05d}" for i in a.ravel()], "task": [f"t{i}" for i in t.ravel()],
                         "seed": r.ravel(), "score": scores.ravel()})


def held(distribution, offset, scale, scores, seed):
    """{metric: {"held", "below", "above": (n,) 0/1, "bias": (n,) estimate - truth, "width", "withheld": how many
    were withheld (not in n)}} of the default intervals."""
    import rlstats

    res = rlstats.bootstrap(frame(scores), "score ~ agent | task", metrics=METRICS, n_resamples=N_RESAMPLES,
                            normalize=False, rng=seed)
    true = truths(distribution, offset, scale)
    out = {}
    for j, m in enumerate(METRICS):
        # withheld (runs at a cap, or tied in every task: a note and a way on, no claim, and no note of runs apart,
        # which bootstrap() gives for the intervals given alone): not counted, as the grid's rows leave out those of
        # runs at a cap (coverage_small_runs.measure)
        kept = np.isfinite(res.intervals[:, j]).all(axis=-1)
        low, high, t = res.intervals[kept, j, 0], res.intervals[kept, j, 1], true[m][kept]
        out[m] = {"held": ((low <= t) & (t <= high)).astype(float), "below": (t < low).astype(float),
                  "above": (t > high).astype(float), "bias": res.estimates[kept, j] - t, "width": high - low,
                  "withheld": int((~kept).sum())}
    return out


def measure(runs, distribution, kept=KEPT, seed=0, baseline=True):
    """{"apart": held(...) of ``kept`` data sets whose runs lie apart, "all": of ``kept`` not conditioned (when
    ``baseline``), "rate": kept / drawn}."""
    key = [35, seed, runs, DISTRIBUTIONS.index(distribution)]
    draw_seed, call_seed, any_seed, any_call = np.random.SeedSequence(key).spawn(4)
    offset, scale, scores, rate = draw_apart(runs, distribution, kept, np.random.default_rng(draw_seed))
    out = {"apart": held(distribution, offset, scale, scores, np.random.default_rng(call_seed)), "rate": rate}
    if baseline:
        out["all"] = held(distribution, *draw_any(runs, distribution, kept, np.random.default_rng(any_seed)),
                          np.random.default_rng(any_call))
    return out


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
    """The table rows (``bootstrap.interval``, ``configuration`` :data:`rlstats.calibration.APART_BY_CHANCE`) of the
    data sets apart: one a metric. Each data set has a design of its own, so no draws are pooled (``design_draws`` and
    ``coverage_min`` empty) and ``se`` is the binomial SE of the coverage itself, as the far-apart rows'."""
    from rlstats.calibration import APART_BY_CHANCE

    runs, distribution = point
    rows = []
    for m in METRICS:
        held_ = result["apart"][m]["held"]
        coverage = float(held_.mean())
        rows.append({"procedure": "bootstrap.interval", "interval": "studentized", "metric": m, "tasks": TASKS,
                     "runs": runs, "distribution": distribution, "configuration": APART_BY_CHANCE, "level": LEVEL,
                     "n_sim": int(held_.size), "n_resamples": N_RESAMPLES, "coverage": coverage,
                     "se": math.sqrt(coverage * (1 - coverage) / held_.size), "design_draws": "", "coverage_min": ""})
    return rows


def appended(row):
    """Whether a row of the table (a dict of strings) is one this script writes (``calibrate.py``'s ``APPENDED``)."""
    from rlstats.calibration import APART_BY_CHANCE

    return str(row.get("configuration", "")) == APART_BY_CHANCE


def grid(quick=False):
    if quick:
        return [(5, "normal")]
    return [(r, d) for r in RUNS for d in DISTRIBUTIONS]


def kept_at(point):
    return FEWER_KEPT.get(tuple(point), KEPT)


def from_checkpoints(paths):
    """The rows of ``--jsonl`` checkpoint files, in grid order (the last line of a point where it was run twice)."""
    bands = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
    return bands["checkpoint_rows"](paths, grid())


def write(rows, argv):
    runpy.run_path(str(HERE / "calibrate.py"))["write_rows"](rows, argv, "bootstrap.interval", appended)


def main(argv):
    if "--from-jsonl" in argv:
        rows = from_checkpoints(argv[argv.index("--from-jsonl") + 1].split(","))
        write(rows, argv)
        return rows
    quick = "--quick" in argv
    points = ([(int(p.split(":")[0]), p.split(":")[1]) for p in argv[argv.index("--points") + 1].split(",")]
              if "--points" in argv else grid(quick))
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
    log = open(argv[argv.index("--jsonl") + 1], "a") if "--jsonl" in argv else None
    out = []
    for point in points:
        kept = int(argv[argv.index("--kept") + 1]) if "--kept" in argv else (100 if quick else kept_at(point))
        result = measure(*point, kept, seed)
        rows = rows_of(point, result)
        line = {"point": list(point), "seed": seed, "rate": round(result["rate"], 7), **summary(result)}
        print(json.dumps(line), flush=True)
        if log:
            log.write(json.dumps({**line, "table_rows": rows}) + "\n")
            log.flush()
        out += rows
    write(out, argv)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
