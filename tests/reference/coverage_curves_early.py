"""Coverage of ``rlstats.curves``' bands at the steps some runs do not reach (audit s28, early28): the ``curves.band``
rows whose ``configuration`` names how runs end early or start late (``appended``; ``calibrate.py``'s ``APPENDED``).

    PYTHONPATH=. python tests/reference/coverage_curves_early.py [--quick] [--points STAT:RUNS:TASKS:DIST:CUT,...]
        [--data-sets N] [--jsonl PATH] [--append-table rlstats/calibration.csv]
    PYTHONPATH=. python tests/reference/coverage_curves_early.py --from-jsonl A.jsonl,B.jsonl --append-table ...

(the table's rows: the grid in two processes, ``--points`` the mean's and the IQM's, each checkpointed to ``--jsonl``,
then written from those files in grid order; about 25 CPU-minutes.)

Real logs often hold runs cut short (a crash, a budget) or started late (a resumed job). At a step that some of an
agent's runs of a task do not reach, its curve and bands read the runs logged there, but the bootstrap resamples
whole runs (the same counts at every step, so the simultaneous band sees the curve's joint law): at such a step the
number of logged runs a resample holds is random (of 10 runs with 3 logged, 2.8% of the resamples hold none of them),
so its spread, standard errors and studentised deviations are not those of a resample of the runs logged there.

The curves are those of ``coverage_curves_bands.py`` (the same AR(1) over 10 steps, distributions, truths and design
draws, ``simulate``), of alike agents; then, for every agent and task, runs are cut (``CUTS``): ``one_at_5`` the
first run logged at steps 0-4 only (ended before step 5), ``two_random`` the first two runs each ending after a step
drawn uniformly from 2-7, ``half_at_5`` the first floor(runs / 2) runs logged at steps 0-4, ``late_at_5`` the first
run logged from step 5 on only (started late). The runs cut are drawn independently of their scores, so the truth of
every step is the complete curves' (``truth``). At 3 runs each cut leaves 2 runs logged, where the studentised bands
are withheld (their rule of 3 runs read at each step): their rows are the expanded bands'.

Each row is one band (``interval``: ``studentized``, the default, or ``expanded``) and one claim: ``pointwise`` the
share of the steps with fewer runs logged (``partial``, per agent) whose band holds the truth there (so that a miss at
those steps is not diluted by the complete ones), ``simultaneous`` the whole curve held at every given step. Steps
where a band is withheld are not counted; rows over ``DESIGN_DRAWS`` draws, 10 agents a data set (the bands are each
agent's, independent), ``DATA_SETS`` data sets. ``configuration`` = ``"runs cut: " + cut``.
"""

from __future__ import annotations

import json
import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
BANDS = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
designs = BANDS["designs"]

PROCEDURE, LEVEL = "curves.band", 0.95
#: how the runs of every agent and task are cut (see the module docstring)
CUTS = ("one_at_5", "two_random", "half_at_5", "late_at_5")
CUT_STEP = 5
from rlstats.calibration import RUNS_CUT as PREFIX  # noqa: E402  (the rows' one spelling, which curves()' notes skip)
STATISTICS = ("mean", "iqm")
RUNS = (3, 5, 10)
TASKS = (1, 2, 5)
DISTRIBUTIONS = ("normal", "skewed", "capped")
AGENTS = 10
#: data sets per point over the design draws (AGENTS bands each): 400 bands a row at 40
DATA_SETS = 40


def cut(frame, how, runs, rng):
    """``frame`` (``simulate``'s) with the rows of the cut runs' steps removed: per agent and task, ``how``."""
    if how == "late_at_5":
        return frame[~((frame["seed"] == 0) & (frame["step"] < CUT_STEP))]
    if how in ("one_at_5", "half_at_5"):
        first = 1 if how == "one_at_5" else runs // 2
        return frame[~((frame["seed"] < first) & (frame["step"] >= CUT_STEP))]
    # two_random: the first two runs of each agent and task end after a step drawn from 2..7
    keys = frame[["agent", "task", "seed"]].drop_duplicates()
    keys = keys[keys["seed"] < 2]
    last = dict(zip(map(tuple, keys.to_numpy()), rng.integers(2, 8, size=len(keys))))
    ends = np.array([last.get(k, np.inf) for k in zip(frame["agent"], frame["task"], frame["seed"])])
    return frame[frame["step"].to_numpy() <= ends]


def partial_steps(frame, runs, tasks):
    """(agents, steps) whether the agent has fewer than ``runs`` runs logged on some task at the step."""
    counts = frame.groupby(["agent", "task", "step"]).size().unstack("step", fill_value=0)
    counts = counts.reindex(columns=range(BANDS["STEPS"]), fill_value=0)
    full = counts.to_numpy().reshape(-1, tasks, BANDS["STEPS"]) == runs
    return ~full.all(axis=1)


def _held(band, true, where):
    """(agents,) simultaneous: every given step holds the truth; (agents,) pointwise at ``where`` (agents, steps): the
    share of the given steps there that hold it; NaN where no step is given (there)."""
    given = np.isfinite(band).all(axis=-1)
    inside = (band[..., 0] <= true) & (true <= band[..., 1])
    at = given & where
    with np.errstate(invalid="ignore"):
        every = np.where(given.any(axis=1), (inside | ~given).all(axis=1), np.nan)
        share = np.where(at.any(axis=1), (inside & at).sum(axis=1) / at.sum(axis=1), np.nan)
    return every, share


def measure(statistic, runs, tasks, distribution, how, data_sets=DATA_SETS, n_resamples=300, seed=0,
            bands=("studentized", "expanded"), draws=None):
    """{(interval, band): [held per draw]} and the widths, at one point (``draws``: the first design draws alone, for a
    reduced run; ``data_sets`` over ``designs.DESIGN_DRAWS`` draws either way)."""
    from rlstats import curves

    key = [seed, STATISTICS.index(statistic), runs, tasks, DISTRIBUTIONS.index(distribution), CUTS.index(how)]
    held = {(m, b): [] for m in bands for b in ("simultaneous", "pointwise", "pointwise_full")}
    widths = {(m, b): [] for m in bands for b in ("partial", "full")}
    for draw in range(designs.DESIGN_DRAWS if draws is None else draws):
        offset, scale = designs.design_draw(draw, tasks)
        true = BANDS["truth"](statistic, distribution, offset, scale)
        data_seed, curves_seed = np.random.SeedSequence(key + [draw]).spawn(2)
        rng = np.random.default_rng(data_seed)
        got = {k: [] for k in held}
        for child in curves_seed.spawn(data_sets // designs.DESIGN_DRAWS):
            data = cut(BANDS["simulate"](AGENTS, runs, distribution, offset, scale, rng), how, runs, rng)
            where = partial_steps(data, runs, tasks)
            for method in bands:
                res = curves(data, "score ~ agent | task/seed", step="step", statistic=statistic, bands=method,
                             n_resamples=n_resamples, normalize=False, rng=child, progress=False)
                assert res.pointwise.shape[1] == BANDS["STEPS"]
                got[method, "simultaneous"].append(_held(res.simultaneous, true, where)[0])
                got[method, "pointwise"].append(_held(res.pointwise, true, where)[1])
                got[method, "pointwise_full"].append(_held(res.pointwise, true, ~where)[1])
                width = res.pointwise[..., 1] - res.pointwise[..., 0]
                with np.errstate(invalid="ignore"):
                    widths[method, "partial"].append(np.nanmean(np.where(where, width, np.nan)))
                    widths[method, "full"].append(np.nanmean(np.where(~where, width, np.nan)))
        for k, values in got.items():
            held[k].append(np.concatenate(values).astype(float))
    return held, {k: float(np.mean(v)) for k, v in widths.items()}


def rows_of(point, held, n_resamples):
    """Table rows (the pointwise one of the partial steps; ``pointwise_full`` is printed, not written)."""
    statistic, runs, tasks, distribution, how = point
    rows = []
    for (method, band), by_draw in held.items():
        if band == "pointwise_full":
            continue
        given = [h[np.isfinite(h)] for h in by_draw]
        if not all(g.size for g in given):
            continue  # withheld in a whole draw (2 runs logged: the studentised rule)
        row = designs.band_row(band, given, LEVEL)  # pointwise: a share of steps per band
        rows.append({"procedure": PROCEDURE, "statistic": statistic, "band": band, "interval": method, "runs": runs,
                     "tasks": tasks, "distribution": distribution, "agents": AGENTS,
                     "configuration": PREFIX + how, "level": LEVEL, "n_resamples": n_resamples, **row})
    return rows


def appended(row):
    """Whether a ``curves.band`` row of the table (a dict of strings) is one this script writes."""
    return str(row.get("configuration", "")).startswith(PREFIX)


def grid(quick=False):
    if quick:
        return [("mean", 5, 1, "skewed", "half_at_5")]
    return [(s, r, t, d, c) for s in STATISTICS for t in TASKS for r in RUNS for d in DISTRIBUTIONS for c in CUTS]


def from_checkpoints(paths):
    """The rows of ``--jsonl`` checkpoint files, in grid order (the last line of a point where it was run twice)."""
    return BANDS["checkpoint_rows"](paths, grid())


def main(argv):
    if "--from-jsonl" in argv:
        rows = from_checkpoints(argv[argv.index("--from-jsonl") + 1].split(","))
        runpy.run_path(str(HERE / "calibrate.py"))["write_rows"](rows, argv, PROCEDURE, appended)
        return rows
    quick = "--quick" in argv
    points = ([tuple(int(x) if x.isdigit() else x for x in p.split(":"))
               for p in argv[argv.index("--points") + 1].split(",")] if "--points" in argv else grid(quick))
    data_sets = int(argv[argv.index("--data-sets") + 1]) if "--data-sets" in argv else (8 if quick else DATA_SETS)
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
    n_resamples = 200 if quick else 300
    out = []
    log = open(argv[argv.index("--jsonl") + 1], "a") if "--jsonl" in argv else None
    for point in points:
        # at 3 runs every cut leaves 2 runs logged: the studentised bands are withheld there, the expanded ones given
        held, widths = measure(*point, data_sets=data_sets, n_resamples=n_resamples, seed=seed)
        rows = rows_of(point, held, n_resamples)
        full = {m: float(np.nanmean(np.concatenate(held[m, "pointwise_full"]))) for m in ("studentized", "expanded")}
        line = {"point": list(point), "seed": seed,
                "rows": {f"{r['interval']}:{r['band']}": [round(r["coverage"], 4), round(r["coverage_min"], 4),
                                                          r["n_sim"]] for r in rows},
                "pointwise_full": {m: round(v, 4) for m, v in full.items()},
                "width": {f"{m}:{b}": round(v, 4) for (m, b), v in widths.items()}}
        print(json.dumps(line), flush=True)
        if log:
            log.write(json.dumps({**line, "table_rows": rows}) + "\n")
            log.flush()
        out += rows
    runpy.run_path(str(HERE / "calibrate.py"))["write_rows"](out, argv, PROCEDURE, appended)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
