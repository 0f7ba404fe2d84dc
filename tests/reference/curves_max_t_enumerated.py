"""Audit s27 (curves27): the max-T test of ``rlstats.curves`` at 2 tasks of 3 capped runs, against every relabelling.

    PYTHONPATH=. nice -n 10 python tests/reference/curves_max_t_enumerated.py [--quick]   # about 2 CPU minutes

The ``curves.band`` rows of the mean at 2 tasks of 3 capped runs (``coverage_curves_bands.py``, continued to 400 data
sets by its rule) read a max-T size of 0.0925 (37 of 400, worst draw 13 of 100), a miss. The test relabels whole runs
within tasks, and alike agents' runs are exchangeable there, so it is exact; here each data set is tested twice: by
``curves()`` (300 relabellings drawn of the 400) and by an independent enumeration of all 400 (this file's
:func:`enumerated_rejects`: the mean of task means' difference at each step, studentised by its standard deviation
over the relabellings, a step's p-value the share whose largest |t| over steps reaches its |t|), on the grid's data
sets (``seed`` 0, 100 a design draw: the table's 400) and on fresh ones (``seed`` 8, 125 a draw).

Measured (numpy 2, rlstats at audit s27), rejections by curves() and by the enumeration: seed 0, 37 and 36 of 400;
seed 8, 23 (0.046) and 28 (0.056) of 500. So the table's row was those data sets' chance, not the test's: they held
the 60 that triggered the continuation. Since audit s27 (maxt27) a continuation reads 400 fresh data sets alone
(``coverage_curves_bands.CONTINUATION_SEED``), and the row reads 18 of 400 (0.955, worst draw 0.94).
"""

import itertools
import pathlib
import runpy
import sys
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
TASKS, RUNS, DISTRIBUTION = 2, 3, "capped"
#: (seed, data sets a design draw): the grid's data sets (the table's row), and fresh ones
RUNS_OF = ((0, 100), (8, 125))


def enumerated_rejects(data, alpha=0.05):
    """Whether the max-T test over all relabellings of whole runs within tasks rejects at some step."""
    y = data.sort_values(["task", "agent", "seed", "step"])["score"].to_numpy().reshape(TASKS, 2 * RUNS, -1)
    combos = list(itertools.combinations(range(2 * RUNS), RUNS))
    labellings = list(itertools.product(combos, repeat=TASKS))
    first = np.zeros((len(labellings), TASKS, 2 * RUNS), dtype=bool)
    for k, labelling in enumerate(labellings):
        for t, runs in enumerate(labelling):
            first[k, t, list(runs)] = True
    means = np.einsum("ktr,trs->kts", first, y) / RUNS - np.einsum("ktr,trs->kts", ~first, y) / RUNS
    differences = means.mean(axis=1)  # (labellings, steps): the mean of task means, agent a0 minus a1
    observed = differences[labellings.index(tuple(tuple(range(RUNS)) for _ in range(TASKS)))]
    se = differences.std(axis=0, ddof=1)
    usable = se > 1e-9 * np.abs(y).max()
    t_max = (np.abs(differences[:, usable]) / se[usable]).max(axis=1)
    t_observed = np.abs(observed[usable]) / se[usable]
    p = (t_max[:, None] >= t_observed[None, :] - 1e-9).mean(axis=0)
    return bool(p.min() <= alpha)


def main(quick=False):
    from rlstats import curves

    warnings.simplefilter("ignore")  # the raw-scale warning: the design draws' scales differ on purpose
    bands = runpy.run_path(str(HERE / "coverage_curves_bands.py"))
    designs = bands["designs"]
    for seed, per_draw in RUNS_OF:
        per_draw = 5 if quick else per_draw
        package = enumerated = n = 0
        for draw in range(designs.DESIGN_DRAWS):
            offset, scale = designs.design_draw(draw, TASKS)
            # coverage_curves_bands.measure's streams: the same data sets and relabellings as its rows at seed 0
            key = [seed, bands["STATISTICS"].index("mean"), RUNS, TASKS, bands["DISTRIBUTIONS"].index(DISTRIBUTION), 2]
            data_seed, curves_seed = np.random.SeedSequence(key + [draw]).spawn(2)
            rng = np.random.default_rng(data_seed)
            for child in curves_seed.spawn(per_draw):
                data = bands["simulate"](2, RUNS, DISTRIBUTION, offset, scale, rng)
                res = curves(data, "score ~ agent | task/seed", step="step", statistic="mean", compare="all",
                             n_resamples=300, normalize=False, rng=child, progress=False)
                package += bool((res.difference_pvalues <= res.alpha).any())
                enumerated += enumerated_rejects(data)
                n += 1
        print(f"seed {seed}: curves() rejected {package} of {n}, the enumeration {enumerated}", flush=True)


if __name__ == "__main__":
    main("--quick" in sys.argv)
