"""Size at the margin of the equivalence tests when the two agents have different numbers of runs (audit s22 equiv22).

    PYTHONPATH=. python tests/reference/size_equivalence_unbalanced.py [--quick | --aggregate | --partial]

The ``equivalence.size`` rows of ``rlstats/calibration.csv`` (``size_equivalence.py``) measure two agents with the same
runs per task. A reproduction often compares a few runs of one agent with a published baseline's many (Atari 100k: IRIS
and SimPLe 5 runs a game, DER, DrQ(eps), SPR 100). There the difference of means keeps the skewness of the
few-run agent's mean (with equal runs the two agents' skewness cancels in the difference), and Welch's t, which
assumes a symmetric difference, declares its alternative too easily on one side. This script measures it with the
grid's distributions (``designs.py``) and the kernels :func:`rlstats.equivalence` calls (``_kernels.welch``,
``welch_mean``, ``tost``), as ``size_equivalence.py`` does: agent 1 at ``+-SHIFT`` noise units from agent 2, the margin
at the true difference (per task, or the mean over the draw's tasks), and prints one row per design: the share of
tests declaring equivalence (TOST) at +margin and at -margin, and non-inferiority at -margin (higher is better).

Measured (seed 22, 20,000 data sets a per-task row, 4,000 an across-tasks row of one design draw; the Monte Carlo SE of
a size of 0.05 is 0.0015 and 0.0034), at alpha = 0.05:

- per task, skewed scores (lognormal, skewness 3.7), the agent with fewer runs first: TOST at +margin 0.16 (5 vs 100
  runs), 0.15 (3 vs 100), 0.14 (10 vs 100), 0.10 (10 vs 50), 0.052 (5 vs 20), 0.020 (5 vs 10); the same agent second,
  TOST at -margin 0.14-0.16 and non-inferiority at -margin 0.14-0.21 (100 vs 3 to 10 runs), 0.056 and 0.12 at 20 vs 5;
- per task, capped scores: non-inferiority 0.073-0.095 with the fewer runs first (3-10 vs 100), 0.070 at 5 vs 10; TOST
  within alpha in every order (0.023 at most, 100 vs 10);
- across tasks (``across="welch"``, the default) at 5 and 26 tasks, skewed: TOST 0.09-0.13, non-inferiority 0.09-0.12
  (100 vs 5); capped: TOST up to 0.076 (100 vs 5), non-inferiority up to 0.063 (3 vs 100);
- normal and heavy-tailed scores at most 0.01 above alpha (0.060 at most, non-inferiority at 3 vs 100);
- equal runs (3 vs 3) held alpha in every family, as the table's rows say;
- the across-tasks test with 5 vs 100 runs on only some tasks (``--partial``, 5 vs 5 on the others, 4,000 data sets a
  row, seed 22, review22a): on 1 of 5 tasks and 1 of 26 it held alpha (0.054 at most, skewed and capped, either agent
  first), on 13 of 26 it did not (skewed 0.070, capped 0.069), on 26 of 26 skewed 0.096, capped 0.067;
- the default aggregate, the IQM's bootstrap-t (``--aggregate``, 250 data sets a row, 5 tasks, skewed scores): TOST
  0.028 at +margin with 5 vs 100 runs, 0.024 at -margin with 100 vs 5, non-inferiority 0.024: within alpha's Monte
  Carlo error (0.014), a reduced measurement.

:func:`rlstats.equivalence` quotes these where a pair's runs on a task differ enough
(``_api.UNEQUAL_SIZE``; ``_api.UNEQUAL_RATIO``: from 2 for non-inferiority, 4 for equivalence, the smallest
imbalances above alpha here); the table's rows stay those of equal runs.
"""

from __future__ import annotations

import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
ALPHA = 0.05
SHIFT = 0.5
#: (runs of agent 1, runs of agent 2); each imbalance in both orders
RUNS = ((3, 3), (5, 10), (5, 20), (3, 100), (5, 100), (10, 100), (10, 50), (100, 3), (100, 5), (100, 10), (20, 5))
#: data sets a row: per task, across tasks (one design draw), and --quick's
SIMULATIONS = {"task": 20_000, "across": 4_000}
QUICK = {"task": 2_000, "across": 400}
QUICK_RUNS = ((3, 3), (5, 100), (100, 5))


def declared(distribution, runs, tasks, n_sim, rng):
    """{column: share}: TOST at +margin and -margin, non-inferiority at -margin, of ``n_sim`` data sets of two agents
    with ``runs`` runs on ``tasks`` tasks (1: the per-task Welch test; more: the across-tasks Welch-Satterthwaite
    test over one design draw's offsets and scales)."""
    from rlstats.methods.equivalence import _kernels as kernels

    offset, scale = DESIGNS["design_draw"](0, tasks) if tasks > 1 else (np.zeros(1), np.ones(1))
    q = DESIGNS["quantiles"](distribution, 20_000)
    out = {}
    for sign in (1.0, -1.0):
        location = sign * SHIFT
        truth = (DESIGNS["scores"](distribution, q, location, offset[:, None], scale[:, None]).mean(axis=-1)
                 - DESIGNS["scores"](distribution, q, 0.0, offset[:, None], scale[:, None]).mean(axis=-1))
        y = [DESIGNS["scores"](distribution, DESIGNS["deviations"](rng, distribution, (n_sim, tasks, n)), where,
                               offset[None, :, None], scale[None, :, None])
             for n, where in zip(runs, (location, 0.0))]
        summary = [(v.mean(axis=-1), v.std(axis=-1, ddof=1), n) for v, n in zip(y, runs)]
        if tasks == 1:
            estimate, se, df = kernels.welch(*summary[0], *summary[1])
            estimate, se, df, margin = estimate[:, 0], se[:, 0], df[:, 0], abs(truth[0])
        else:
            estimate, se, df = kernels.welch_mean(*summary[0], *summary[1])
            margin = abs(truth.mean())
        out[f"tost {'+' if sign > 0 else '-'}margin"] = kernels.tost(estimate, se, df, margin, ALPHA)["shown"].mean()
        if sign < 0:
            out["noninferior -margin"] = kernels.tost(estimate, se, df, margin, ALPHA, "noninferior")["shown"].mean()
    return out


def aggregate_declared(runs, sign, n_sim, seed=22, distribution="skewed", tasks=5):
    """{alternative: share} of the IQM aggregate's bootstrap-t (the default ``aggregate="iqm"``, 400 resamples) at
    ``sign`` * margin, as :func:`rlstats.equivalence` forms it on a frame of two agents with ``runs`` runs on
    ``tasks`` tasks of one design draw (``--aggregate``; 250 data sets a row took 40 s)."""
    import pandas as pd

    import rlstats

    reference = runpy.run_path(str(HERE / "size_equivalence.py"))
    rng = np.random.default_rng(seed)
    offset, scale = DESIGNS["design_draw"](0, tasks)
    margin = abs(reference["truths"](distribution, sign, offset, scale)["iqm"])
    hits = {"equivalence": 0, "noninferior": 0}
    for k in range(n_sim):
        rows = []
        for a, (n, location) in enumerate(zip(runs, (sign * SHIFT, 0.0))):
            y = DESIGNS["scores"](distribution, DESIGNS["deviations"](rng, distribution, (tasks, n)), location,
                                  offset[:, None], scale[:, None])
            rows += [(f"a{a}", f"t{t}", v) for t in range(tasks) for v in y[t]]
        frame = pd.DataFrame(rows, columns=["agent", "task", "score"])
        for alternative in hits:
            res = rlstats.equivalence(frame, "score ~ agent | task", margin=margin, alternative=alternative,
                                      n_resamples=400, rng=k, normalize=False, progress=False)
            hits[alternative] += bool(res.comparisons.loc[res.comparisons["scope"] == "aggregate", "shown"].iloc[0])
    return {alternative: hit / n_sim for alternative, hit in hits.items()}


#: --partial: (tasks, tasks whose runs differ) of the across-tasks test with some tasks' runs unequal (review22a)
PARTIAL = ((5, 1), (26, 1), (26, 13), (26, 26))


def partial_declared(distribution, tasks, unequal, n_sim, rng, fewer_first=True):
    """{column: share} as :func:`declared` of the across-tasks Welch-Satterthwaite test over one design draw of
    ``tasks`` tasks, on ``unequal`` of which the runs are 5 vs 100 (5 vs 5 on the others), the agent with 5 runs first
    (``fewer_first``) or second: how far the size at the margin moves when only some tasks' runs differ."""
    from rlstats.methods.equivalence import _kernels as kernels

    offset, scale = DESIGNS["design_draw"](0, tasks)
    q = DESIGNS["quantiles"](distribution, 20_000)
    few, many = [5] * tasks, [100] * unequal + [5] * (tasks - unequal)
    runs = (few, many) if fewer_first else (many, few)
    out = {}
    for sign in (1.0, -1.0):
        location = sign * SHIFT
        truth = (DESIGNS["scores"](distribution, q, location, offset[:, None], scale[:, None]).mean(axis=-1)
                 - DESIGNS["scores"](distribution, q, 0.0, offset[:, None], scale[:, None]).mean(axis=-1))
        summary = []
        for counts, where in zip(runs, (location, 0.0)):
            mean, sd = np.empty((n_sim, tasks)), np.empty((n_sim, tasks))
            for t, n in enumerate(counts):
                y = DESIGNS["scores"](distribution, DESIGNS["deviations"](rng, distribution, (n_sim, 1, n)), where,
                                      offset[None, t:t + 1, None], scale[None, t:t + 1, None])[:, 0]
                mean[:, t], sd[:, t] = y.mean(axis=-1), y.std(axis=-1, ddof=1)
            summary.append((mean, sd, np.array(counts, dtype=float)))
        estimate, se, df = kernels.welch_mean(*summary[0], *summary[1])
        margin = abs(truth.mean())
        out[f"tost {'+' if sign > 0 else '-'}margin"] = kernels.tost(estimate, se, df, margin, ALPHA)["shown"].mean()
        if sign < 0:
            out["noninferior -margin"] = kernels.tost(estimate, se, df, margin, ALPHA, "noninferior")["shown"].mean()
    return out


def rows(quick=False):
    sims = QUICK if quick else SIMULATIONS
    rng = np.random.default_rng(22)
    for distribution in DESIGNS["DISTRIBUTIONS"]:
        for tasks in (1, 5, 26):
            scope = "task" if tasks == 1 else "across"
            for runs in QUICK_RUNS if quick else RUNS:
                if scope == "across" and runs not in ((3, 3), (3, 100), (5, 100), (100, 5)):
                    continue
                shares = declared(distribution, runs, tasks, sims[scope], rng)
                yield {"scope": scope, "tasks": tasks, "distribution": distribution, "runs": f"{runs[0]} vs {runs[1]}",
                       "n_sim": sims[scope], **{k: round(float(v), 4) for k, v in shares.items()}}


if __name__ == "__main__":
    import pandas as pd

    pd.set_option("display.width", 200)
    if "--partial" in sys.argv:  # the across-tasks test with runs unequal on some tasks only (review22a)
        generator = np.random.default_rng(22)
        for tasks, unequal in PARTIAL:
            for distribution in ("skewed", "capped"):
                for fewer_first in (True, False):
                    shares = partial_declared(distribution, tasks, unequal, 4_000, generator, fewer_first)
                    print(tasks, unequal, distribution, "5 first" if fewer_first else "100 first",
                          {k: round(float(v), 4) for k, v in shares.items()}, flush=True)
    elif "--aggregate" in sys.argv:  # the IQM's bootstrap-t: TOST at +margin (5 vs 100), both at -margin (100 vs 5)
        n = 40 if "--quick" in sys.argv else 250
        print("5 vs 100 at +margin:", aggregate_declared((5, 100), 1.0, n)["equivalence"])
        print("100 vs 5 at -margin:", aggregate_declared((100, 5), -1.0, n))
    else:
        print(pd.DataFrame(list(rows(quick="--quick" in sys.argv))).to_string(index=False))
