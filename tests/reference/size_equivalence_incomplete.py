"""Size at the margin of equivalence()'s across-tasks and aggregate tests on incomplete designs (audit s32, cal32):
``equivalence.size`` rows whose ``configuration`` names the pair and the tasks it shared, appended to
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/size_equivalence_incomplete.py [--quick] [--points N] [--json PATH]
        [--resume] [--append-table TABLE]

Since audit s31 (equiv31) each pair's across-tasks test and aggregate read the tasks both its agents ran, the
aggregate from a bootstrap of the pair's runs there (``_api._aggregate``: one bootstrap per set of shared tasks,
each agent on its own stream keyed by its label, a pair's intervals and notes those of its rows alone,
``bootstrap.agents_alone``). The grid's rows (``size_equivalence.py``) measure two agents that ran every task, on 5
and 26 tasks. This script measures the tests as :func:`rlstats.equivalence` runs them on data sets where agents did
not all run every task (``LAYOUTS``):

``3 agents on 5 tasks``
    A ran t0-t2, B t1-t4, C every task: A vs B share 2 tasks (t1, t2), B vs C 4, A vs C 3; the tasks every agent ran
    are t1 and t2.
``4 agents on 8 tasks, a staircase``
    A and B ran t0-t7, C t0-t3, D t0-t1: A vs B share all 8, A vs C and B vs C 4, each pair with D 2 (a task run by
    one agent alone is left out of a design, with a note, so no agent has more tasks than the second most).

A run of agent k on task t scores ``offset_t + scale_t * (location_k + deviation)`` as in the grid
(``designs.py``: its four families, the tasks' offsets and scales from ``designs.design_draw`` at the layout's task
count). The agents' locations alternate between ``sign * SHIFT`` and 0 (A and C at ``sign * SHIFT``, B and D at 0;
``SHIFT`` the grid's 0.5 noise units), so every pair of one location and the other sits on the boundary of its null,
at delta = +margin or -margin by its order (``configuration``), its margin the pair's own true difference on the
tasks it shared: the mean over those tasks of the true differences of means (the across-tasks test, ``welch_mean``)
or the true difference of the IQMs of the runs pooled over them (the aggregate, ``bootstrap_t``), exact from the
families' stratified quantiles. The pairs of one location (A vs C, B vs D) are alike and not measured. A pair's TOST
declares equivalence where its (1 - 2 alpha) interval lies inside (-margin, margin), its non-inferiority test (at
delta = -margin, higher scores better) where the interval's lower end lies above -margin: the public function's
decisions, read from its intervals, since one call has one margin and each pair and scope here has its own.

``coverage`` is the share of tests NOT declaring the alternative (a test withheld declares nothing), as in the grid's
rows; ``tasks`` is the number the pair shared (what its tests read, and what ``equivalence()``'s size notes bracket
by), ``agents`` the layout's. The aggregate rows run ``_api._run`` (the public function on a ready Design: every
pair, its groups, notes and withholding rules; ``tests/test_audit_s32_cal32.py`` checks it gives the public
function's numbers) with ``N_RESAMPLES`` resamples, ``BOOTSTRAP_SIMULATIONS`` data sets per design draw, continued
on ``BOOTSTRAP_EXTENDED`` fresh data sets per draw (seed ``EXTENDED_SEED``) where a row misses, as the grid's are.
The across-tasks rows are Welch-Satterthwaite over the pair's shared tasks as ``_api._pair_rows`` forms it (the
saturation rule of ``size_equivalence.summaries`` included), vectorised over ``SIMULATIONS`` data sets per draw
(the grid's); on every aggregate data set the script checks that ``_run``'s across-tasks interval of each pair is
the vectorised one, so both rows read the function's numbers. Seeds: numpy SeedSequence keys ``[seed, draw,
layout, runs, family, sign > 0, stream]`` (stream 0 the across-tasks data sets, 1 the aggregate's, whose bootstrap
seeds are drawn from it); ``seed`` 32, or ``EXTENDED_SEED``.

It prints, per row, beside the share declared, the coverage of the pair's (1 - 2 alpha) interval of its true
difference (nominal 0.90) among the intervals given, the share given, and the complete two-agent row that
``equivalence()``'s size note reads for the pair's design (the grid's rows at the runs measured nearest and the task
counts bracketing the pair's).
"""

from __future__ import annotations

import dataclasses
import pathlib
import runpy
import sys
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
SIZE = runpy.run_path(str(HERE / "size_equivalence.py"))
PROCEDURE, LEVEL, ALPHA = SIZE["PROCEDURE"], SIZE["LEVEL"], SIZE["ALPHA"]
SHIFT, N_RESAMPLES = SIZE["SHIFT"], SIZE["N_RESAMPLES"]
#: data sets per design draw: across tasks (the grid's ``size_equivalence.SIMULATIONS``) and of the aggregate (its
#: ``BOOTSTRAP_SIMULATIONS``), each the table's and --quick's; a point whose aggregate row misses is continued on
#: ``BOOTSTRAP_EXTENDED`` fresh data sets per draw (seed ``EXTENDED_SEED``), which replace the first
SIMULATIONS, BOOTSTRAP_SIMULATIONS = (250, 40), (25, 5)
BOOTSTRAP_EXTENDED, EXTENDED_SEED, SEED = SIZE["BOOTSTRAP_EXTENDED"], SIZE["EXTENDED_SEED"], 32
RUNS = (3, 5, 10)
DISTRIBUTIONS = DESIGNS["DISTRIBUTIONS"]
#: name -> (tasks, {agent: the tasks it ran}, {agent: location in units of sign * SHIFT})
LAYOUTS = {
    "3 agents on 5 tasks": (5, {"A": range(0, 3), "B": range(1, 5), "C": range(0, 5)}, {"A": 1, "B": 0, "C": 1}),
    "4 agents on 8 tasks, a staircase": (8, {"A": range(8), "B": range(8), "C": range(4), "D": range(2)},
                                         {"A": 1, "B": 0, "C": 1, "D": 0}),
}
CONFIGURATIONS = {"delta = +margin": 1.0, "delta = -margin": -1.0}
#: the words of a row's configuration after its margin's side: the rows this script writes (``appended``)
SHARED = "tasks shared"


def appended(row):
    """Whether an ``equivalence.size`` row of the table (a dict of strings) is one this script wrote."""
    return SHARED in row["configuration"]


def grid(quick=False):
    """(layout, runs, distribution) points; --quick: 3 and 10 runs, normal and capped scores."""
    return [(layout, runs, distribution) for layout in LAYOUTS for runs in ((3, 10) if quick else RUNS)
            for distribution in (("normal", "capped") if quick else DISTRIBUTIONS)]


def pairs_measured(layout):
    """[(a, b, shared)]: the pairs in equivalence()'s order whose locations differ, with the tasks both ran (a
    boolean mask over the layout's tasks)."""
    tasks, ran, location = LAYOUTS[layout]
    agents = sorted(ran)
    out = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            if location[a] != location[b]:
                shared = np.zeros(tasks, dtype=bool)
                shared[sorted(set(ran[a]) & set(ran[b]))] = True
                out.append((a, b, shared))
    return out


def cells(layout, runs):
    """(tasks, agents, runs) bool: the runs the layout has (agents in order)."""
    tasks, ran, _ = LAYOUTS[layout]
    mask = np.zeros((tasks, len(ran), runs), dtype=bool)
    for k, agent in enumerate(sorted(ran)):
        mask[list(ran[agent]), k] = True
    return mask


def frame_of(layout, runs, score=0.0):
    """The layout's runs as a long DataFrame (task, agent, seed, score), in (task, agent, run) order as ``cells``
    ravels: ``score`` a number, or (n,) the scores of one data set, ``y[mask]`` of :func:`simulate`'s."""
    import pandas as pd

    task, agent, seed = np.nonzero(cells(layout, runs))
    names = sorted(LAYOUTS[layout][1])
    return pd.DataFrame({"task": [f"t{t}" for t in task], "agent": [names[a] for a in agent], "seed": seed,
                         "score": score})


def template(layout, runs):
    """The Design every data set of ``layout`` refills: :func:`frame_of`'s rows, in their order."""
    from rlstats.design import design_of

    task, agent, _ = np.nonzero(cells(layout, runs))
    design = design_of(frame_of(layout, runs), "score ~ agent | task/seed")
    assert (design.task == task).all() and (design.agent == agent).all(), "the template's rows moved"
    return design


def simulate(layout, distribution, sign, offset, scale, runs, n_sim, rng):
    """(n_sim, tasks, agents, runs) scores of every agent on every task (the layout's cells are read from them)."""
    tasks, ran, location = LAYOUTS[layout]
    where = sign * SHIFT * np.array([location[a] for a in sorted(ran)], dtype=float)
    deviation = DESIGNS["deviations"](rng, distribution, (n_sim, tasks, len(ran), runs))
    return DESIGNS["scores"](distribution, deviation, where[None, None, :, None], offset[None, :, None, None],
                             scale[None, :, None, None])


def truths(layout, distribution, sign, offset, scale, a, b, shared):
    """{"mean": the pair's true difference of the mean over its shared tasks, "iqm": of the IQMs of its runs pooled
    over them}, agent ``a`` - agent ``b``."""
    _, _, location = LAYOUTS[layout]
    q = SIZE["_quantiles"](distribution)
    population = [DESIGNS["scores"](distribution, q[None, :], sign * SHIFT * location[k], offset[shared, None],
                                    scale[shared, None]) for k in (a, b)]

    def iqm(values):
        pooled = np.sort(values.ravel())
        cut = pooled.size // 4
        return pooled[cut:pooled.size - cut].mean()

    return {"mean": float((population[0].mean(axis=-1) - population[1].mean(axis=-1)).mean()),
            "iqm": float(iqm(population[0]) - iqm(population[1]))}


def across(y, i, j, shared):
    """(low, high), each (n_sim,): the pair's across-tasks (1 - 2 alpha) interval (across="welch") as
    ``_api._pair_rows`` forms it on the tasks both ran, NaN where withheld (both agents' runs of a task all at one
    bound)."""
    from rlstats.methods.equivalence import _kernels as kernels

    runs = y.shape[-1]
    mean, sd, tied, floor = SIZE["summaries"](y[:, shared][:, :, [i, j]])
    sd = np.where(tied, np.sqrt(np.maximum(sd ** 2, floor)), sd)
    estimate, se, df = kernels.welch_mean(mean[..., 0], sd[..., 0], runs, mean[..., 1], sd[..., 1], runs)
    se = np.where((tied.any(axis=-1) & (sd == 0).all(axis=-1)).any(axis=-1), np.nan, se)
    test = kernels.tost(estimate, se, df, 1.0, ALPHA)  # the interval: the margin decides nothing of it
    return np.where(np.isfinite(se), test["conf_low"], np.nan), np.where(np.isfinite(se), test["conf_high"], np.nan)


def aggregate(layout, y, runs, rng, check=True):
    """{(a, b): (low, high)}, each (n_sim,): the pairs' aggregate (1 - 2 alpha) intervals as
    :func:`rlstats.equivalence` gives them (``_api._run`` on the layout's Design, its runs ordered by score as the
    public function orders them), NaN where withheld; with ``check``, each pair's across-tasks interval there equals
    :func:`across`'s."""
    from rlstats.methods.equivalence import _api

    design, mask = template(layout, runs), cells(layout, runs)
    options = _api.EquivalenceOptions.checked(margin=1.0, n_resamples=N_RESAMPLES, progress=False)
    measured = pairs_measured(layout)
    names = sorted(LAYOUTS[layout][1])
    out = {(a, b): (np.full(len(y), np.nan), np.full(len(y), np.nan)) for a, b, _ in measured}
    for n, data in enumerate(y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # raw scales of the design draws: on purpose
            table = _api._run(dataclasses.replace(design, y=data[mask]).runs_by_score(), options,
                              int(rng.integers(2**32)), "").comparisons
        for a, b, shared in measured:
            mine = table[(table["agent_1"] == a) & (table["agent_2"] == b)]
            row = mine[mine["scope"] == "aggregate"]
            if len(row):
                out[a, b][0][n], out[a, b][1][n] = row["conf_low"].iloc[0], row["conf_high"].iloc[0]
            if check:
                row = mine[mine["scope"] == "across tasks"]
                low, high = across(data[None], names.index(a), names.index(b), shared)
                assert int(row["n_tasks"].iloc[0]) == shared.sum(), (a, b)
                np.testing.assert_allclose(row[["conf_low", "conf_high"]].to_numpy(float)[0],
                                           [low[0], high[0]], rtol=1e-10, atol=1e-12)
    return out


def held_by_draw(point, configuration, n_sim, boot_sim, seed=SEED, scopes=("welch_mean", "bootstrap_t")):
    """{(a, b, interval, test, side): one boolean array per design draw, True where the test did not declare its
    alternative; ``side`` the pair's own, "delta = +margin" or "delta = -margin"}, and {(a, b, interval): (interval
    coverage of the truth among those given, share given)}."""
    layout, runs, distribution = point
    sign = CONFIGURATIONS[configuration]
    tasks = LAYOUTS[layout][0]
    measured = pairs_measured(layout)
    names = sorted(LAYOUTS[layout][1])
    held, covered = {}, {}
    for draw in range(DESIGNS["DESIGN_DRAWS"]):
        offset, scale = DESIGNS["design_draw"](draw, tasks)
        key = [seed, draw, list(LAYOUTS).index(layout), runs, DISTRIBUTIONS.index(distribution), int(sign > 0)]
        truth = {(a, b): truths(layout, distribution, sign, offset, scale, a, b, shared) for a, b, shared in measured}
        intervals = {}
        if "welch_mean" in scopes:
            y = simulate(layout, distribution, sign, offset, scale, runs, n_sim,
                         np.random.default_rng(np.random.SeedSequence(key + [0])))
            for a, b, shared in measured:
                intervals[a, b, "welch_mean"] = across(y, names.index(a), names.index(b), shared)
        if "bootstrap_t" in scopes:
            rng = np.random.default_rng(np.random.SeedSequence(key + [1]))
            y = simulate(layout, distribution, sign, offset, scale, runs, boot_sim, rng)
            for (a, b), ends in aggregate(layout, y, runs, rng).items():
                intervals[a, b, "bootstrap_t"] = ends
        for (a, b, interval), (low, high) in intervals.items():
            value = truth[a, b]["mean" if interval == "welch_mean" else "iqm"]
            margin = abs(value)
            given = np.isfinite(low)
            declared = {"equivalence": given & (low > -margin) & (high < margin)}
            if value < 0:  # the boundary of non-inferiority's null (higher scores better)
                declared["noninferior"] = given & (low > -margin)
            side = "delta = +margin" if value > 0 else "delta = -margin"
            for test, flags in declared.items():
                held.setdefault((a, b, interval, test, side), []).append(~flags)
            hit = given & (low <= value) & (value <= high)
            count = covered.setdefault((a, b, interval), [0, 0, 0])
            count[0], count[1], count[2] = count[0] + int(hit.sum()), count[1] + int(given.sum()), count[2] + low.size
    return held, {key: (h / g if g else np.nan, g / n) for key, (h, g, n) in covered.items()}


def rows_of(point, held, covered):
    layout, runs, distribution = point
    tasks, ran, _ = LAYOUTS[layout]
    rows = []
    for (a, b, interval, test, side), flags in held.items():
        shared = int(next(s.sum() for x, y, s in pairs_measured(layout) if (x, y) == (a, b)))
        rows.append({"procedure": PROCEDURE, "test": SIZE["TESTS"][test], "interval": interval,
                     "metric": "iqm" if interval == "bootstrap_t" else "", "agents": len(ran), "tasks": shared,
                     "runs": runs, "distribution": distribution,
                     "configuration": f"{side}, {a} vs {b}: {shared} of {tasks} {SHARED}", "level": LEVEL,
                     "n_resamples": N_RESAMPLES if interval == "bootstrap_t" else "",
                     **DESIGNS["pooled_row"](flags, LEVEL),
                     "_interval_coverage": covered[a, b, interval][0], "_given": covered[a, b, interval][1]})
    return rows


def table_rows(point, quick=False):
    """The rows of one point, both configurations; where an aggregate row misses its level, the point's aggregate is
    measured again on ``BOOTSTRAP_EXTENDED`` fresh data sets per draw (seed ``EXTENDED_SEED``), which replace it."""
    from rlstats import calibration

    rows = []
    for configuration in CONFIGURATIONS:
        rows += rows_of(point, *held_by_draw(point, configuration, SIMULATIONS[quick],
                                                            BOOTSTRAP_SIMULATIONS[quick]))
    if not quick and any(r["interval"] == "bootstrap_t" and calibration.misses({k: str(v) for k, v in r.items()},
                                                                                 LEVEL) for r in rows):
        rows = [r for r in rows if r["interval"] != "bootstrap_t"]
        for configuration in CONFIGURATIONS:
            rows += rows_of(point, *held_by_draw(point, configuration, 0, BOOTSTRAP_EXTENDED,
                                                                seed=EXTENDED_SEED, scopes=("bootstrap_t",)))
    order = {"welch_mean": 0, "bootstrap_t": 1}
    return sorted(rows, key=lambda r: (order[r["interval"]], r["configuration"].split(", ")[1],
                                       r["configuration"].split(", ")[0] == "delta = -margin", r["test"]))


def quoted(row):
    """The complete two-agent row that equivalence()'s size note reads for the row's pair (the grid's rows of its
    test at the runs measured nearest and the worse of the task counts bracketing its shared tasks), or None."""
    from rlstats import calibration
    from rlstats.methods.equivalence import _api

    rows = [r for r in calibration.rows(PROCEDURE) if not _api._unlike_spread_row(r) and not appended(r)
            and r["test"] == row["test"] and r["interval"] == row["interval"] and r["metric"] == row["metric"]
            and r["runs"] == str(calibration.nearest_count((3, 5, 10, 20), int(row["runs"])))
            and r["distribution"] == row["distribution"] and r["configuration"] == row["configuration"].split(", ")[0]]
    matched, _ = calibration.bracketing_rows(rows, int(row["tasks"]))
    return min(matched, key=calibration.worst_coverage) if matched else None


def main(argv):
    import json

    from rlstats import calibration

    quick = "--quick" in argv
    points = grid(quick)
    if "--points" in argv:
        points = points[:int(argv[argv.index("--points") + 1])]
    path = pathlib.Path(argv[argv.index("--json") + 1]) if "--json" in argv else None
    # --resume: the rows of the points already in --json's file are kept, those points not run again
    rows = json.loads(path.read_text()) if path and "--resume" in argv and path.exists() else []
    done = {(r["agents"], r["runs"], r["distribution"]) for r in rows}
    for point in points:
        if (len(LAYOUTS[point[0]][1]), point[1], point[2]) in done:
            continue
        for row in table_rows(point, quick):
            rows.append(row)
            near = quoted(row)
            print(row["interval"], row["test"], row["agents"], row["tasks"], row["runs"], row["distribution"],
                  row["configuration"], row["n_sim"],
                  f"{row['coverage']:.4f} (worst draw {row['coverage_min']:.3f})",
                  "MISSES" if calibration.misses({k: str(v) for k, v in row.items()}, LEVEL) else "",
                  f"| interval {row['_interval_coverage']:.3f} given {row['_given']:.3f}",
                  "| complete row: " + (f"{near['tasks']} tasks {float(near['coverage']):.4f} "
                                        f"({float(near['coverage_min']):.3f}) of {near['n_sim']}" if near else "none"),
                  flush=True)
        if path:
            path.write_text(json.dumps(rows))
    table = [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]
    if "--append-table" in argv:
        runpy.run_path(str(HERE / "calibrate.py"))["append_rows"](table, argv[argv.index("--append-table") + 1],
                                                                  PROCEDURE, appended)


if __name__ == "__main__":
    main(sys.argv[1:])
