"""Coverage of ``rlstats.tuning``'s default expected-max band and tuned-score interval on real sweeps at few seeds: the
rows of ``rlstats/calibration.csv`` whose ``distribution`` is ``real_dierkes2024`` (audit s22, tuning22).

    RLSTATS_DATA_MIRROR=... PYTHONPATH=. python tests/reference/coverage_tuning_real.py OUT.jsonl [--draws N]
    PYTHONPATH=. python tests/reference/coverage_tuning_real.py --append-table rlstats/calibration.csv OUT.jsonl

The simulated grid (``coverage_tuning.py``, ``coverage_tuning_expected_max.py``) draws its scores from four smooth
shapes; real runs can hold a rare outlying seed instead (SAC on LunarLander: one seed in ten at 895-969 among runs near
200; PPO on Ant: one at 5,085 among runs near 8,100), which 3 seeds miss in 0.9^3 = 0.73 of draws. Here the sweeps
are the tuning procedures of Dierkes et al. (RLC 2024, ``rlstats.datasets.load("hpo_optimisation")``): each algorithm,
task and procedure other than the untuned baseline is a sweep of its 5 tuning runs (the unit, as
``"score ~ procedure | task/tuning_run/seed"`` makes it), each with its 9-10 published evaluation seeds, which are its
population: a tuning run's true mean is the mean of its published seeds. A data set draws n seeds of each tuning run
with replacement from them (independent draws with a known mean), and ``rlstats.tuning`` (the public function, its
defaults, 1,000 resamples) gives the band and the interval. The claims measured: the band at each budget k = 1..5
(without replacement) holds the expected best of k tuning runs' n-seed means (the band's estimand, its expectation
over the seed draws, by 20,000 draws of the runs' means), and the tuned-score interval holds the selected tuning run's
true mean. Each row pools the sweeps (``design_draws``, one per sweep; ``coverage_min`` the worst sweep), ``--draws``
data sets per sweep (the table's rows: 100, Monte Carlo SE 0.003 pooled, 0.022 for a sweep).
"""

from __future__ import annotations

import json
import pathlib
import runpy
import sys
import warnings

import numpy as np
import pandas as pd

import rlstats
from rlstats.methods.tuning import _kernels as kernels

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
LEVEL, N_RESAMPLES, DRAWS, TRUTH_DRAWS = 0.95, 1000, 100, 20_000
RUNS = (3, 5, 10)
DISTRIBUTION = "real_dierkes2024"
FORMULA = "score ~ agent | task/run/seed"


def appended(row):
    """Whether a ``tuning.expected_max_band`` or ``tuning.best_interval`` row (a dict of strings) is one of these."""
    return row["distribution"] == DISTRIBUTION


def sweeps():
    """``{(algorithm, task, procedure): [each tuning run's published seeds' scores]}``, the tuned procedures only."""
    opt = rlstats.datasets.load("hpo_optimisation").drop_duplicates()
    opt = opt[(opt["hpo"] != "base") | (opt["rpo"] != "base")]
    return {key: [g["score"].to_numpy(dtype=float) for _, g in d.groupby("tuning_run")]
            for key, d in opt.groupby(["algorithm", "task", "procedure"])}


def measure(pops, n, draws, seed):
    """(band held (draws, budgets), tuned interval held (draws,)) for one sweep at n seeds per tuning run."""
    rng = np.random.default_rng(seed)
    G = len(pops)
    budgets = np.arange(1, G + 1)
    means = np.stack([p[rng.integers(0, p.size, (TRUTH_DRAWS, n))].mean(axis=1) for p in pops], axis=1)
    truth = kernels.expected_max(means, budgets, False).mean(axis=0)
    mu = np.array([p.mean() for p in pops])
    band, tuned = [], []
    for i in range(draws):
        y = np.concatenate([p[rng.integers(0, p.size, n)] for p in pops])
        frame = pd.DataFrame({"agent": "a", "task": "t", "run": np.repeat(np.arange(G), n),
                              "seed": np.tile(np.arange(n), G), "score": y})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.tuning(frame, FORMULA, rng=i, n_resamples=N_RESAMPLES, progress=False,
                                 views=["best_set", "expected_max"])
        em = res.expected_max()
        em = em[em["sampling"] == "without replacement"]
        band.append(((em["conf_low"] <= truth) & (truth <= em["conf_high"])).to_numpy())
        row = res.tuned().iloc[0]
        tuned.append(row["conf_low"] <= mu[int(row["config"].split("=")[1])] <= row["conf_high"])
    return np.array(band), np.array(tuned)


def rows(held_band, held_tuned, n, G):
    """The table rows of one seed count: the band's at each budget, the tuned interval's."""
    base = {"agents": 1, "tasks": 1, "runs": n, "distribution": DISTRIBUTION, "configuration": f"{G} configurations",
            "n_resamples": N_RESAMPLES}
    out = [{"procedure": "tuning.expected_max_band", "statistic": f"k={k + 1}", "band": "skew_t", **base,
            **DESIGNS["pooled_row"]([h[:, k] for h in held_band], LEVEL)} for k in range(G)]
    out.append({"procedure": "tuning.best_interval", "statistic": "real", "interval": "select_then_report_pooled_t",
                **base, **DESIGNS["pooled_row"](held_tuned, LEVEL)})
    return out


def append_table(paths, table_path):
    """Replace this script's rows of the table by those in ``paths`` (JSON lines of :func:`main`)."""
    calibrate = runpy.run_path(str(HERE / "calibrate.py"))
    table = pd.read_csv(table_path, dtype=str, keep_default_na=False)
    new = [dict(row, level=LEVEL) for path in paths for line in pathlib.Path(path).read_text().splitlines()
           for row in json.loads(line)["rows"]]
    new = pd.DataFrame([{k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()} for row in new])
    mine = [appended(row) for row in table.to_dict("records")]
    out = pd.concat([table[~np.array(mine, dtype=bool)], new.reindex(columns=calibrate["COLUMNS"])],
                    ignore_index=True).fillna("")
    out = out.sort_values("procedure", kind="stable")[calibrate["COLUMNS"]]
    out.to_csv(table_path, index=False)


def main(argv):
    if argv[0] == "--append-table":
        append_table(argv[2:], argv[1])
        return
    draws = int(argv[argv.index("--draws") + 1]) if "--draws" in argv else DRAWS
    runs = [int(r) for r in argv[argv.index("--runs") + 1].split(",")] if "--runs" in argv else RUNS
    found = sweeps()
    with pathlib.Path(argv[0]).open("a") as handle:
        for n in runs:
            held_band, held_tuned = [], []
            for s, (key, pops) in enumerate(found.items()):
                band, tuned = measure(pops, n, draws, [n, s, 22])
                held_band.append(band)
                held_tuned.append(tuned)
                print(n, key, f"band {band.mean(axis=0).round(3)}, tuned {tuned.mean():.3f}", flush=True)
            G = {len(p) for p in found.values()}
            assert G == {5}, G
            handle.write(json.dumps({"runs": n, "rows": rows(held_band, held_tuned, n, 5)}) + "\n")
            handle.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
