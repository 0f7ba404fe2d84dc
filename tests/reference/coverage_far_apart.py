"""Coverage of the defaults on tasks far apart (audit s34 iqmfar34): the ``curves.band`` and ``bootstrap.interval``
rows whose ``configuration`` is :data:`rlstats.calibration.FAR_APART` in ``rlstats/calibration.csv``.

    PYTHONPATH=. nice python tests/reference/coverage_far_apart.py [--quick] [--points KIND:STAT:RUNS:DIST,...]
        [--data-sets N] [--seed S] [--jsonl PATH] [--append-table rlstats/calibration.csv] [--fractional]
    PYTHONPATH=. python tests/reference/coverage_far_apart.py --from-jsonl A.jsonl,... --append-table ...

The grid's tasks overlap (``designs.design_draw``: offsets uniform on [0, 2], scales lognormal with log-sd 0.5).
Audit s32's Dopamine trial (IQN's IQM of Pong, Breakout and Seaquest) has tasks far apart: in noise units offsets 0,
3 and 12 and scales 0.3, 0.6 and 3 (:data:`FAR`, one fixed design, so ``design_draws`` and ``coverage_min`` are
empty). Audit s33 (simband33) found ``curves(statistic="iqm")``'s default bands of 5 capped runs there at 0.90
(simultaneous) and 0.91 (pointwise) of 480. Here every default on that design, 3 and 5 runs a task, normal, skewed
and capped scores:

``curves`` (KIND ``curves``; the mean, the IQM and the median of task means): the curves, truths and counts of
``coverage_curves_bands.py`` (its ``simulate``, ``truth`` and ``_held``; the AR(1) over 10 steps), ``AGENTS`` alike
agents a data set (each agent's band is its own, so they are independent), 300 resamples; rows of the default
(studentised) simultaneous band (held at every step given) and pointwise band (share of the steps given that hold).

``bootstrap`` (KIND ``bootstrap``; the IQM and the mean of task means): ``rlstats.bootstrap``'s default interval
of each agent's final scores (the curves' last step, location 0; ``coverage_small_runs.truths``), ``AGENTS`` alike
agents a call, 500 resamples. ``compare(method="bootstrap")`` forms the same intervals (its call is bootstrap()'s).

Each row counts ``AGENTS`` x ``--data-sets`` bands or intervals (1,000 at the defaults; about 10 CPU-minutes in all). Measured: see
``docs/calibration.md`` ("Audit s34: tasks far apart").
"""

from __future__ import annotations

import json
import math
import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
BANDS = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
designs = BANDS["designs"]

from rlstats.calibration import FAR_APART  # noqa: E402  (the rows' one spelling)

LEVEL = 0.95
#: the far-apart tasks in noise units (audit s32's Dopamine trial): offsets and scales
FAR = (np.array([0.0, 3.0, 12.0]), np.array([0.3, 0.6, 3.0]))
KINDS = {"curves": ("curves.band", ("mean", "iqm", "median")), "bootstrap": ("bootstrap.interval", ("iqm", "mean"))}
RUNS = (3, 5)
DISTRIBUTIONS = ("normal", "skewed", "capped")
#: alike agents a data set (independent bands or intervals; not 8, the fresh curves rows' count)
AGENTS = 10
DATA_SETS = 100
N_RESAMPLES = {"curves": 300, "bootstrap": 500}


def _frame(scores):
    """Long frame of (agents, tasks, runs) final scores."""
    import pandas as pd

    a, t, r = np.meshgrid(*(np.arange(n) for n in scores.shape), indexing="ij")
    return pd.DataFrame({"agent": [f"a{i:02d}" for i in a.ravel()], "task": [f"t{i:02d}" for i in t.ravel()],
                         "seed": r.ravel(), "score": scores.ravel()})


def truth(kind, statistic, distribution):
    """The true curve (curves) or final value (bootstrap) of an agent on the far-apart tasks."""
    offset, scale = FAR
    if kind == "curves":
        return BANDS["truth"](statistic, distribution, offset, scale)
    population = designs.population(distribution, 0.0, offset, scale, points=BANDS["TRUTH_POINTS"])
    if statistic == "iqm":
        pooled = np.sort(population.ravel())
        cut = pooled.size // 4
        return float(pooled[cut:pooled.size - cut].mean())
    return float(population.mean(axis=1).mean())


def fractional_trim():
    """Patch the IQM of ``curves`` and ``bootstrap`` (estimate and resamples) to trim N / 4 runs from each end, the
    runs at the cuts weighted by the fraction kept (the 25% trimmed mean of the runs' distribution, the truth's
    functional), in place of floor(N / 4) (scipy's ``trim_mean``, rliable's): the candidate of ``--fractional``, a
    measurement only (its standard errors and SE floor are the package's)."""
    from rlstats.methods.bootstrap import _kernels as boot
    from rlstats.methods.curves import _kernels as band

    package = band._iqm

    def curves_iqm(prepared, weights):
        if prepared.weighted:
            return package(prepared, weights)
        cumulative = weights.astype(float)[:, prepared.order]
        if not prepared.all_valid:
            cumulative *= prepared.sorted_valid[None]
        np.cumsum(cumulative, axis=2, out=cumulative)
        total = cumulative[:, :, -1]
        low, high = total / 4.0, total - total / 4.0
        np.clip(cumulative, low[:, :, None], high[:, :, None], out=cumulative)
        trimmed = np.einsum("bsj,sj->bs", cumulative, prepared.value_steps) - low * prepared.sorted_values[:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            return trimmed / (high - low)

    init = boot.CountStatistics.__init__

    def statistics_init(self, layout, metrics, gamma, rows, windows="auto"):
        init(self, layout, metrics, gamma, rows, windows=None)  # the full cumulative sum: the cuts are not whole
        self.cut = self.total / 4.0
        if "iqm" in self.metrics and self.buffers is None:
            self.buffers = (np.empty((rows, layout.n_runs), dtype=np.int64), np.empty((rows, layout.n_runs)))

    def metric_iqm(layout, r, gamma):
        counts = r.counts_float
        if layout.run_weight is not None:
            counts = counts * layout.run_weight
        total = np.rint(counts.sum(axis=1))
        return boot.trimmed_sum(counts, layout.values, total / 4, total - total / 4) / (total / 2)

    band._iqm = curves_iqm
    boot.CountStatistics.__init__ = statistics_init
    boot.BUILTIN_METRICS["iqm"] = boot.metric_iqm = metric_iqm


def measure(kind, statistic, runs, distribution, data_sets=DATA_SETS, seed=0, n_resamples=None):
    """{band or "interval": (agents x data_sets,) held (simultaneous, interval: 1 or 0; pointwise: the share of the
    steps given), NaN where withheld}, and the bounds' misses below and above (bootstrap)."""
    from rlstats import bootstrap, curves

    offset, scale = FAR
    n_resamples = N_RESAMPLES[kind] if n_resamples is None else n_resamples
    key = [34, seed, list(KINDS).index(kind), KINDS[kind][1].index(statistic), runs,
           DISTRIBUTIONS.index(distribution)]
    data_seed, call_seed = np.random.SeedSequence(key).spawn(2)
    rng = np.random.default_rng(data_seed)
    true = truth(kind, statistic, distribution)
    held = {"simultaneous": [], "pointwise": []} if kind == "curves" else {"interval": [], "below": [], "above": []}
    for child in call_seed.spawn(data_sets):
        if kind == "curves":
            data = BANDS["simulate"](AGENTS, runs, distribution, offset, scale, rng)
            res = curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, n_resamples=n_resamples,
                         normalize=False, rng=child, progress=False)
            held["simultaneous"].append(BANDS["_held"](res.simultaneous, true)[0])
            held["pointwise"].append(BANDS["_held"](res.pointwise, true)[1])
        else:
            deviation = designs.deviations(rng, distribution, (AGENTS, offset.size, runs))
            scores = designs.scores(distribution, deviation, 0.0, offset[None, :, None], scale[None, :, None])
            res = bootstrap(_frame(scores), "score ~ agent | task", metrics=(statistic,), n_resamples=n_resamples,
                            normalize=False, rng=child)
            low, high = res.intervals[:, 0, 0], res.intervals[:, 0, 1]
            held["interval"].append(((low <= true) & (true <= high)).astype(float))
            held["below"].append((true < low).astype(float))
            held["above"].append((true > high).astype(float))
    return {k: np.concatenate(v).astype(float) for k, v in held.items()}


def rows_of(point, held, n_resamples):
    kind, statistic, runs, distribution = point
    procedure = KINDS[kind][0]
    rows = []
    for band in (("simultaneous", "pointwise") if kind == "curves" else ("interval",)):
        given = held[band][np.isfinite(held[band])]
        if not given.size:
            continue
        row = designs.band_row(band, [given], LEVEL)
        # one fixed design: no draws, and the binomial SE of the coverage itself (the table's rows pooling draws floor
        # its variance at the level's)
        row.update(design_draws="", coverage_min="",
                   se=math.sqrt(row["coverage"] * (1 - row["coverage"]) / row["n_sim"]))
        common = {"procedure": procedure, "tasks": 3, "runs": runs, "distribution": distribution,
                  "configuration": FAR_APART, "level": LEVEL, "n_resamples": n_resamples}
        if kind == "curves":  # the curves' rows name their agents a data set; the bootstrap's none (as the grid's)
            rows.append({**common, "statistic": statistic, "band": band, "interval": "studentized", "agents": AGENTS,
                         **row})
        else:
            rows.append({**common, "interval": "studentized", "metric": statistic, **row})
    return rows


def appended(row):
    """Whether a row of the table (a dict of strings) is one this script writes (``calibrate.py``'s ``APPENDED``)."""
    return str(row.get("configuration", "")) == FAR_APART


def grid(quick=False):
    if quick:
        return [("curves", "iqm", 5, "capped"), ("bootstrap", "iqm", 5, "capped")]
    return [(kind, s, r, d) for kind, (_, statistics) in KINDS.items() for s in statistics for r in RUNS
            for d in DISTRIBUTIONS]


def from_checkpoints(paths):
    """The rows of ``--jsonl`` checkpoint files, in grid order (the last line of a point where it was run twice)."""
    return BANDS["checkpoint_rows"](paths, grid())


def write(rows, argv):
    calibrate = runpy.run_path(str(HERE / "calibrate.py"))
    for procedure, _ in KINDS.values():
        mine = [row for row in rows if row["procedure"] == procedure]
        if mine:
            calibrate["write_rows"](mine, argv, procedure, appended)


def main(argv):
    if "--from-jsonl" in argv:
        rows = from_checkpoints(argv[argv.index("--from-jsonl") + 1].split(","))
        write(rows, argv)
        return rows
    quick = "--quick" in argv
    points = ([tuple(int(x) if x.isdigit() else x for x in p.split(":"))
               for p in argv[argv.index("--points") + 1].split(",")] if "--points" in argv else grid(quick))
    data_sets = int(argv[argv.index("--data-sets") + 1]) if "--data-sets" in argv else (8 if quick else DATA_SETS)
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
    if "--fractional" in argv:  # the candidate measured, not the package's default: no table rows
        assert "--append-table" not in argv, "--fractional measures a candidate: it writes no table rows"
        fractional_trim()
    log = open(argv[argv.index("--jsonl") + 1], "a") if "--jsonl" in argv else None
    out = []
    for point in points:
        n_resamples = N_RESAMPLES[point[0]]
        held = measure(*point, data_sets=data_sets, seed=seed, n_resamples=n_resamples)
        rows = rows_of(point, held, n_resamples)
        line = {"point": list(point), "seed": seed,
                "rows": {r.get("band") or r["interval"]: [round(r["coverage"], 4), r["n_sim"]] for r in rows}}
        if point[0] == "bootstrap":
            line["below_above"] = [round(float(np.nanmean(held["below"])), 4),
                                   round(float(np.nanmean(held["above"])), 4)]
        print(json.dumps(line), flush=True)
        if log:
            log.write(json.dumps({**line, "table_rows": rows}) + "\n")
            log.flush()
        out += rows
    write(out, argv)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
