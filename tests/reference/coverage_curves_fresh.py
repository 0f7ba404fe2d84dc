"""Audit s12: the studentised bands of ``rlstats.curves`` re-measured on fresh data sets, enough to tell a miss.

    PYTHONPATH=. python tests/reference/coverage_curves_fresh.py OUT.jsonl [--stat median] [--points 26x10,...]
        [--dist saturated] [--streams iqm,mean]
    PYTHONPATH=. python tests/reference/coverage_curves_fresh.py --append-table rlstats/calibration.csv OUT.jsonl...

Audit s11 left the median's simultaneous band at 26 tasks x 10 runs at 0.926 (worst design draw 0.89), at the 3-SE
line of 240 bands. Here each design (10 and 26 tasks x 5, 10 and 20 runs x the grid's four score distributions,
``tests/reference/designs.py``; and the saturated family at 26 x 10) gets ``DATA_SETS`` data sets per design draw of
``AGENTS`` alike agents, 1,920 bands of each statistic over the grid's 4 draws: the curves, truths and counts of
``coverage_curves_bands.py`` (its ``simulate``, ``truth`` and ``_held``), on seeds of their own (the grid's data sets
are not re-used), with 300 resamples and ``compare=None`` (the bands are each agent's; the pairs add nothing to them).
Each agent's band comes from its own runs, so the 8 agents of a data set give 8 independent bands. Rows: the
simultaneous band (held at every step given) and the pointwise band (share of steps given that hold), with the
table's columns (``rows``); the ``curves.band`` rows at ``agents`` 8 of ``rlstats/calibration.csv`` came from here
(standard error near 0.005), written by ``--append-table`` from the runs of audit s12::

    python tests/reference/coverage_curves_fresh.py median.jsonl --stat median                  # 24 designs
    python tests/reference/coverage_curves_fresh.py mean_iqm.jsonl --stat iqm,mean --points 26x10
    python tests/reference/coverage_curves_fresh.py --append-table rlstats/calibration.csv median.jsonl mean_iqm.jsonl

(the saturated family, ``--dist saturated --points 26x10``, is measured but not written to the table). Audit s27
(maxt27) measured the mean's rows at 26 x 10 again with the bands of today (audit s25 widened the mean's on the side
of the runs' skew), on the same data sets and resampling streams (about 7 CPU-minutes), and wrote them in place::

    python tests/reference/coverage_curves_fresh.py mean26.jsonl --stat mean --streams iqm,mean --points 26x10
    python tests/reference/coverage_curves_fresh.py --replace-table rlstats/calibration.csv mean26.jsonl
"""

from __future__ import annotations

import json
import pathlib
import runpy
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
BANDS = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
designs = BANDS["designs"]

from rlstats import curves  # noqa: E402

AGENTS, DATA_SETS, N_RESAMPLES = 8, 60, 300
STATISTICS = ("median", "iqm", "mean")
DISTRIBUTIONS = designs.DISTRIBUTIONS + designs.EXTRA_DISTRIBUTIONS
#: (tasks, runs) measured; the saturated family at 26 x 10 only (audit s11's open design), not written to the table
DESIGNS = tuple((t, r) for r in (10, 5, 20) for t in (26, 10))


def measure(statistics, runs, tasks, distribution, data_sets=DATA_SETS, agents=AGENTS, draws=None,
            n_resamples=N_RESAMPLES, seed=1205, streams=None):
    """{statistic: per-draw lists of (held, share, below, above, held_hull)}: for each agent's band (NaN where withheld
    at every step) whether the simultaneous band held the whole true curve, the share of the given steps whose
    pointwise band held it (``draws``: how many of the grid's design draws, or a list of them), whether the
    simultaneous band missed below (truth under its lower end) or above, and
    whether the hull of the simultaneous and pointwise bands at each step held the whole curve (audit s12: the
    simultaneous band was narrower than the pointwise one at some steps). ``streams`` (default ``statistics``): the
    statistics whose resampling streams each data set spawns, in order, of which ``statistics`` are measured (audit
    s27, maxt27: ``--stat mean --streams iqm,mean`` measures the mean of the ``iqm,mean`` run on its own streams)."""
    draws = range(designs.DESIGN_DRAWS if draws is None else draws) if not isinstance(draws, (list, tuple)) else draws
    out = {s: [] for s in statistics}
    for draw in draws:
        offset, scale = designs.design_draw(draw, tasks)
        true = {s: BANDS["truth"](s, distribution, offset, scale) for s in statistics}
        data_seed, curves_seed = np.random.SeedSequence(
            [seed, runs, tasks, DISTRIBUTIONS.index(distribution), draw]).spawn(2)
        rng = np.random.default_rng(data_seed)
        got = {s: [] for s in statistics}
        for child in curves_seed.spawn(data_sets):
            data = BANDS["simulate"](agents, runs, distribution, offset, scale, rng)
            streamed = statistics if streams is None else streams
            for s, stream in ((s, stream) for s, stream in zip(streamed, child.spawn(len(streamed)))
                              if s in statistics):
                res = curves(data, "score ~ agent | task/seed", step="step", statistic=s, compare=None,
                             n_resamples=n_resamples, normalize=False, rng=stream, progress=False)
                every, _ = BANDS["_held"](res.simultaneous, true[s])
                _, share = BANDS["_held"](res.pointwise, true[s])
                given = np.isfinite(res.simultaneous).all(axis=-1)
                below = (given & (true[s] < res.simultaneous[..., 0])).any(axis=1)
                above = (given & (true[s] > res.simultaneous[..., 1])).any(axis=1)
                hull = np.stack([np.fmin(res.simultaneous[..., 0], res.pointwise[..., 0]),
                                 np.fmax(res.simultaneous[..., 1], res.pointwise[..., 1])], axis=-1)
                got[s].append(np.stack([every, share, below, above, BANDS["_held"](hull, true[s])[0]], axis=1))
        for s in statistics:
            out[s].append(np.concatenate(got[s]).tolist())
    return out


def rows(statistic, runs, tasks, distribution, by_draw, agents=AGENTS, n_resamples=N_RESAMPLES, level=0.95,
         simultaneous=0):
    """The table's rows (simultaneous and pointwise) from :func:`measure`'s per-draw records of one statistic;
    ``simultaneous`` the column of the simultaneous band's record (4: the hull with the pointwise band)."""
    by_draw = [np.asarray(d, dtype=float) for d in by_draw]
    out = []
    for band, column in (("simultaneous", simultaneous), ("pointwise", 1)):
        given = [d[np.isfinite(d[:, column]), column] for d in by_draw]
        if not all(g.size for g in given):
            continue
        row = designs.band_row(band, given, level)
        out.append({"procedure": "curves.band", "test": "", "statistic": statistic, "band": band,
                    "interval": "studentized", "metric": "", "agents": agents, "tasks": tasks, "runs": runs,
                    "distribution": distribution, "configuration": "", "level": level, "n_sim": row["n_sim"],
                    "n_resamples": n_resamples, "coverage": round(row["coverage"], 6),
                    "se": float(f"{row['se']:.6g}"), "set_size": "", "design_draws": row["design_draws"],
                    "coverage_min": round(row["coverage_min"], 6)})
    return out


def append_table(records, table):
    """Append the rows of the grid's distributions in ``records`` (JSON lines of :func:`main`) to ``table`` (the
    package's ``calibration.csv``), in its column order, after its last row; rows already in it are kept byte for
    byte. The simultaneous band's rows read the hull with the pointwise band (column 4): curves()' default since
    audit s12 (equal to column 0 when measured with it)."""
    import csv

    with open(table, newline="", encoding="utf-8") as handle:
        columns = next(csv.reader(handle))
    out = []
    for path in records:
        for line in pathlib.Path(path).read_text().splitlines():
            point = json.loads(line)
            if point["distribution"] not in designs.DISTRIBUTIONS:
                continue  # the saturated family: outside the table, as the other saturated rows of curves are
            for statistic, by_draw in point["records"].items():
                out += rows(statistic, point["runs"], point["tasks"], point["distribution"], by_draw, simultaneous=4)
    with open(table, "a", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        for row in out:
            writer.writerow([_text(row[c]) for c in columns])
    return len(out)


def replace_table(records, table):
    """Write the rows of ``records`` (as :func:`append_table` reads them) in ``table`` in place of its rows at the same
    statistic, band, agents, tasks, runs and distribution (each must be there once), every other row kept byte for
    byte (audit s27, maxt27: the mean's 8-agent rows at 26 tasks x 10 runs measured again with the current bands)."""
    lines = pathlib.Path(table).read_text(encoding="utf-8").splitlines()
    columns = lines[0].split(",")
    key = ("statistic", "band", "agents", "tasks", "runs", "distribution")
    at = {}
    for i, line in enumerate(lines[1:], 1):
        cells = dict(zip(columns, line.split(",")))
        if cells["procedure"] == "curves.band" and appended(cells):
            at.setdefault(tuple(cells[k] for k in key), []).append(i)
    replaced = 0
    for path in records:
        for line in pathlib.Path(path).read_text().splitlines():
            point = json.loads(line)
            for statistic, by_draw in point["records"].items():
                for row in rows(statistic, point["runs"], point["tasks"], point["distribution"], by_draw,
                                simultaneous=4):
                    (i,) = at[tuple(_text(row[k]) for k in key)]
                    lines[i] = ",".join(_text(row[c]) for c in columns)
                    replaced += 1
    pathlib.Path(table).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return replaced


def appended(row):
    """Whether a ``curves.band`` row of the table (a dict of strings) is one that :func:`append_table` wrote: those
    are at ``AGENTS`` agents, ``coverage_curves_bands.py``'s grid at 2. ``calibrate.py --only curves.band`` keeps
    them (its ``APPENDED``)."""
    return str(row["agents"]) == str(AGENTS)


def _text(value):
    """A table cell as the table's other rows write it (6 significant digits, no trailing zeros)."""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def main(argv):
    if argv[0] == "--append-table":
        print(append_table(argv[2:], argv[1]), "rows appended")
        return
    if argv[0] == "--replace-table":
        print(replace_table(argv[2:], argv[1]), "rows replaced")
        return
    out = pathlib.Path(argv[0])
    statistics = tuple(argv[argv.index("--stat") + 1].split(",")) if "--stat" in argv else STATISTICS
    streams = tuple(argv[argv.index("--streams") + 1].split(",")) if "--streams" in argv else None
    if streams is not None and not set(statistics) <= set(streams):
        raise SystemExit(f"--streams {','.join(streams)} must name every statistic of --stat {','.join(statistics)}")
    points = DESIGNS
    if "--points" in argv:
        points = tuple(tuple(int(v) for v in p.split("x")) for p in argv[argv.index("--points") + 1].split(","))
    distributions = (tuple(argv[argv.index("--dist") + 1].split(",")) if "--dist" in argv
                     else designs.DISTRIBUTIONS)
    for tasks, runs in points:
        for distribution in distributions:
            start = time.process_time()
            got = measure(statistics, runs, tasks, distribution, streams=streams)
            with out.open("a") as handle:
                handle.write(json.dumps({"tasks": tasks, "runs": runs, "distribution": distribution, "records": got,
                                         "cpu": time.process_time() - start}) + "\n")
            for s in statistics:
                for column in (0, 4):
                    for r in rows(s, runs, tasks, distribution, got[s], simultaneous=column)[:2 - bool(column)]:
                        print(s, tasks, runs, distribution, r["band"], "hull" if column else "", r["n_sim"],
                              r["coverage"], r["coverage_min"], flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
