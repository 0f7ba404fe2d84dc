"""The mixed model on unbalanced designs (audit s34, mixbal34): the level of its omnibus F (``mixed.f_size`` rows of
``rlstats/calibration.csv``) and the simultaneous coverage of its pairwise intervals (``mixed.contrast`` rows whose
``configuration`` starts "unbalanced ").

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python tests/reference/coverage_mixed_unbalanced.py [--quick] [--points N]
        [--shard I/N] [--json PATH] [--append-table rlstats/calibration.csv]

(``calibrate.py --only mixed.f_size`` measures the F rows alone; the contrast rows come from this script's
``--append-table``, which writes both, from the same data sets and fits.)

``coverage_mixed.py`` measures ``rlstats.mixed(df, "score ~ agent | task/seed")`` on balanced designs only, and
audit s33 (``size_mixed_f_basis.py``) measured the F's level on three unbalanced designs from the model's own normal
scores. RL results are rarely balanced: baselines re-run with fewer seeds, agents evaluated on a subset of the tasks,
one run of a costly agent. This grid takes ``DESIGNS_AT``, nine patterns of runs per cell (tasks x agents, 0 an empty
cell; every task has two agents or more and the design is connected, so :func:`rlstats.mixed` keeps every task):

``runs_3_5_10``        3 agents x 5 tasks, 3, 5 or 10 runs a cell, drawn once
``agent_runs``         4 agents x 10 tasks, the agents at 3, 5, 10 and 10 runs on every task
``missing_cells``      5 agents x 10 tasks x 5 runs, a4 absent from 6 tasks and a3 from 4 (10 of 50 cells empty)
``atari_incomplete``   4 agents x 6 tasks, a0 and a1 never on a common task (5 runs), a2 one run on every task, a3 5
``single_runs``        3 agents x 10 tasks x 5 runs, a2 one run on 6 of them
``two_agents``         2 agents x 3 tasks, 3 and 10 runs
``eight_by_3``         8 agents x 3 tasks, 3, 5 or 10 runs a cell, 2 cells empty
``six_by_26``          6 agents x 26 tasks x 3 runs, a4 and a5 on the first 10 tasks only, a3 one run on 5 tasks
``eight_by_26``        8 agents x 26 tasks, 3, 5 or 10 runs a cell (a fifth of them 1), a fifth of the cells empty

each with the four score families of ``designs.DISTRIBUTIONS`` and the tasks' offsets and scales of
``designs.DESIGN_DRAWS`` draws (``designs.design_draw``). A run of agent a on task t scores
``offset_t + scale_t * (deviation [+ cell_ta]) + shift_a``; ``configuration`` (after the pattern's name):

``all_equal``
    every shift 0, no cell term: the agents are alike (the F's null; a family holds when no pair is declared
    different, so 1 - coverage is its family-wise error);
``all_equal, cells sd 0.5``
    the same with task x agent intercepts ``cell_ta`` of sd 0.5 noise units (the model's random interaction: agents
    alike over the population of tasks, not on each one);
``shift 0 to 1``
    shifts evenly from 0 to 1 (the median task's noise sd is 1), no cell term: every task's difference of two agents
    is the difference of their shifts, whatever the family (the cap cuts the deviation, before the shift), so the
    truth does not depend on which tasks an agent ran.

Each data set is fitted once, as :func:`rlstats.mixed` fits it (``_kernels.model``, ``fit``); from that fit the F
of the agents with Satterthwaite's df in the orthonormal basis (``f_basis="orthonormal"``, the default) and lmerTest's
(``"lmertest"``, the agents' sorted order), Kenward-Roger's F (the orthonormal rows, which ``mixed`` passes it), and
each df method's pairs decided by ``coverage_mixed.held`` (Tukey, Bonferroni beside Holm, Sidak, Scheffe);
``tests/test_audit_s34_mixbal34.py`` checks them against :func:`rlstats.mixed` on drawn data sets. Not measured here:
``mixed()``'s withholding of agents whose runs sit at a cap (three quarters of a cell's runs), which these capped
scores (a third at the cap) rarely reach; the kernels' numbers are those of every agent.

``mixed.f_size`` rows: ``test`` the df method, ``statistic`` the basis, ``level`` 0.95 (a test at 0.05),
``coverage`` the share not rejecting; only under the null configurations. ``runs`` is empty in every row of this
script (the runs vary by cell; the pattern in ``configuration`` says how).
"""

from __future__ import annotations

import pathlib
import runpy
import sys

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
MIXED = runpy.run_path(str(HERE / "coverage_mixed.py"))
PROCEDURE, CONTRAST, LEVEL = "mixed.f_size", MIXED["PROCEDURE"], 0.95

#: data sets per design draw: the table's, and --quick's
SIMULATIONS = (100, 10)
DISTRIBUTIONS = DESIGNS["DISTRIBUTIONS"]
CONFIGURATIONS = ("all_equal", "all_equal, cells sd 0.5", "shift 0 to 1")
NULLS = CONFIGURATIONS[:2]
DDF = MIXED["DDF"]
ADJUST = (*MIXED["ADJUST"], *MIXED["OTHER_ADJUST"])
#: the F's (test, statistic): df method and basis
F_TESTS = (("satterthwaite", "orthonormal"), ("satterthwaite", "lmertest"), ("kenward-roger", "orthonormal"))
CELL_SD = 0.5


def counts_of(name):
    """(tasks, agents) runs per cell of the pattern ``name``."""
    rng = np.random.default_rng([34, len(name)])
    if name == "runs_3_5_10":
        return rng.choice([3, 5, 10], size=(5, 3))
    if name == "agent_runs":
        return np.tile([3, 5, 10, 10], (10, 1))
    if name == "missing_cells":
        c = np.full((10, 5), 5)
        c[4:, 4], c[6:, 3] = 0, 0
        return c
    if name == "atari_incomplete":
        c = np.zeros((6, 4), dtype=int)
        c[:3, 0], c[3:, 1], c[:, 2], c[:, 3] = 5, 5, 1, 5
        return c
    if name == "single_runs":
        c = np.full((10, 3), 5)
        c[:6, 2] = 1
        return c
    if name == "two_agents":
        return np.tile([3, 10], (3, 1))
    if name == "eight_by_3":
        c = rng.choice([3, 5, 10], size=(3, 8))
        c[0, 7], c[2, 3] = 0, 0
        return c
    if name == "six_by_26":
        c = np.full((26, 6), 3)
        c[10:, 4:] = 0
        c[:5, 3] = 1
        return c
    if name == "eight_by_26":
        c = rng.choice([1, 3, 5, 10], p=[0.2, 0.3, 0.3, 0.2], size=(26, 8))
        c[rng.random((26, 8)) < 0.2] = 0
        c[:, :2] = np.maximum(c[:, :2], 1)  # two agents on every task: every task kept, the design connected
        return c
    raise KeyError(name)


DESIGNS_AT = ("runs_3_5_10", "agent_runs", "missing_cells", "atari_incomplete", "single_runs", "two_agents",
              "eight_by_3", "six_by_26", "eight_by_26")


def template(name):
    """The design of the pattern ``name`` that each data set refills (``size_mixed_f_basis.template``'s rows)."""
    from rlstats.design import design_of

    counts = counts_of(name)
    rows = [(f"t{t:02d}", f"a{a}", s) for t, a in zip(*np.nonzero(counts)) for s in range(counts[t, a])]
    frame = pd.DataFrame(rows, columns=["task", "agent", "seed"]).assign(score=0.0)
    return design_of(frame, "score ~ agent | task/seed")


def shifts(configuration, agents):
    return np.linspace(0.0, 1.0, agents) if configuration == "shift 0 to 1" else np.zeros(agents)


def simulate(design, distribution, configuration, offset, scale, rng):
    """One data set's scores in the design's order."""
    task, agent = design.task, design.agent
    deviation = DESIGNS["deviations"](rng, distribution, task.size)
    y = DESIGNS["scores"](distribution, deviation, 0.0, offset[task], scale[task])
    if configuration == "all_equal, cells sd 0.5":
        y = y + scale[task] * CELL_SD * rng.normal(size=(design.n_tasks, design.n_agents))[task, agent]
    return y + shifts(configuration, design.n_agents)[agent]


def decide(design, y, truth):
    """{("f", test, statistic): p-value} and {(ddf, adjust): held} of one data set, as rlstats.mixed forms them."""
    from scipy import special

    from rlstats.methods.mixed import _kernels as kernels

    m = kernels.model(y, design.agent, design.task, design.n_agents, design.n_tasks, design.max_runs_per_cell > 1)
    fit = kernels.fit(m)
    _, pair_rows, _, _ = kernels.agent_contrasts(design.n_agents)
    bases = {"orthonormal": kernels.orthonormal_hypothesis(design.n_agents),
             "lmertest": kernels.agent_hypothesis(m, design.agent_order)}
    sat, kr = kernels.satterthwaite_setup(m, fit), kernels.kenward_roger_setup(m, fit)
    f = {}
    for basis in ("orthonormal", "lmertest"):
        stat, q, ddf = kernels.satterthwaite_f(sat, fit.vcov, fit.beta, bases[basis])
        f["satterthwaite", basis] = float(special.fdtrc(q, ddf, stat))
    stat, q, ddf = kernels.kenward_roger_f(kr, fit.beta, bases["orthonormal"])
    f["kenward-roger", "orthonormal"] = float(special.fdtrc(q, ddf, stat))
    estimates = pair_rows @ fit.beta
    held = {}
    for ddf, (variances, df) in (("satterthwaite", kernels.satterthwaite_t(sat, fit.vcov, pair_rows)),
                                 ("kenward-roger", kernels.kenward_roger_t(kr, pair_rows))):
        for adjust, ok in MIXED["held"](estimates, variances, df, truth, design.n_agents).items():
            held[ddf, adjust] = ok
    return f, held


def measure(name, distribution, configuration, n_sim, seed=0):
    """({(test, statistic): rejections per draw}, {(ddf, adjust): held per draw}) at one grid point."""
    from rlstats.methods.mixed import _kernels as kernels

    design = template(name)
    _, _, first, second = kernels.agent_contrasts(design.n_agents)
    shift = shifts(configuration, design.n_agents)
    truth = shift[first] - shift[second]
    rejected = {key: [] for key in F_TESTS}
    held_by = {(ddf, adjust): [] for ddf in DDF for adjust in ADJUST}
    for draw in range(DESIGNS["DESIGN_DRAWS"]):
        offset, scale = DESIGNS["design_draw"](draw, design.n_tasks)
        key = [seed, draw, 34, DESIGNS_AT.index(name), DISTRIBUTIONS.index(distribution),
               CONFIGURATIONS.index(configuration)]
        rng = np.random.default_rng(np.random.SeedSequence(key))
        f_draw = {k: np.zeros(n_sim, dtype=bool) for k in rejected}
        h_draw = {k: np.zeros(n_sim, dtype=bool) for k in held_by}
        for i in range(n_sim):
            y = simulate(design, distribution, configuration, offset, scale, rng)
            while np.all([np.ptp(y[design.agent == a]) == 0 for a in range(design.n_agents)]):
                print(f"# {name} {distribution} {configuration}: a data set redrawn (every run of each agent equal)",
                      file=sys.stderr)
                y = simulate(design, distribution, configuration, offset, scale, rng)
            f, held = decide(design, y, truth)
            for k in f_draw:
                f_draw[k][i] = f[k] <= 1 - LEVEL
            for k in h_draw:
                h_draw[k][i] = held[k]
        for k in rejected:
            rejected[k].append(f_draw[k])
        for k in held_by:
            held_by[k].append(h_draw[k])
    return rejected, held_by


def describe(name):
    """The pattern's words in ``configuration``: its name and its runs per cell."""
    from rlstats.calibration import UNBALANCED

    counts = counts_of(name)
    runs = sorted(set(counts[counts > 0].tolist()))
    return f"{UNBALANCED}{name} ({int((counts == 0).sum())} empty cells, runs {'/'.join(map(str, runs))})"


def rows_of(point, rejected, held_by):
    """(F rows, contrast rows) of one grid point."""
    name, distribution, configuration = point
    counts = counts_of(name)
    common = {"agents": counts.shape[1], "tasks": counts.shape[0], "runs": "", "distribution": distribution,
              "configuration": f"{describe(name)}: {configuration}"}
    f_rows = [{"test": test, "statistic": basis, **common,
               **DESIGNS["pooled_row"]([~r for r in rejected[test, basis]], LEVEL)}
              for test, basis in F_TESTS] if configuration in NULLS else []
    contrast_rows = [{"test": ddf, "interval": adjust, **common, **DESIGNS["pooled_row"](held_by[ddf, adjust], LEVEL)}
                     for ddf in DDF for adjust in ADJUST
                     if not (counts.shape[1] == 2 and adjust in MIXED["OTHER_ADJUST"])]  # 2 agents: Tukey's interval
    return f_rows, contrast_rows


def grid(quick=False):
    """(pattern, distribution, configuration) points; --quick: two small patterns, normal and capped, alike agents."""
    if quick:
        return [(name, d, "all_equal") for name in ("runs_3_5_10", "atari_incomplete") for d in ("normal", "capped")]
    return [(name, d, c) for name in DESIGNS_AT for d in DISTRIBUTIONS for c in CONFIGURATIONS]


def point_rows(point, n_sim):
    return rows_of(point, *measure(*point, n_sim))


def table_rows(point, n_sim, quick=False):
    """The ``mixed.f_size`` rows of one grid point (``calibrate.py``; none under the alternative)."""
    return point_rows(point, n_sim)[0] if point[2] in NULLS else []


def appended(row):
    """Whether a ``mixed.contrast`` row of the table (a dict of strings) is one this script writes."""
    from rlstats.calibration import UNBALANCED

    return str(row["configuration"]).startswith(UNBALANCED)


def main(argv):
    import json

    from rlstats import calibration

    quick = "--quick" in argv
    points = grid(quick)
    if "--points" in argv:
        points = points[:int(argv[argv.index("--points") + 1])]
    if "--shard" in argv:  # "--shard i/n": every n-th point from the i-th, for n processes
        i, n = map(int, argv[argv.index("--shard") + 1].split("/"))
        points = points[i::n]
    path = pathlib.Path(argv[argv.index("--json") + 1]) if "--json" in argv else None
    done = json.loads(path.read_text()) if path and path.exists() else {"f": [], "contrast": [], "points": []}
    for point in points:
        if list(point) in done["points"]:
            continue
        f_rows, contrast_rows = point_rows(point, SIMULATIONS[quick])
        for procedure, rows in ((PROCEDURE, f_rows), (CONTRAST, contrast_rows)):
            for row in rows:
                row = {"procedure": procedure, "level": LEVEL, **row}
                done["f" if procedure == PROCEDURE else "contrast"].append(row)
                print(*point, row["test"], row.get("statistic") or row.get("interval"), row["n_sim"],
                      f"{row['coverage']:.4f}", f"(worst draw {row['coverage_min']:.3f})",
                      "MISSES" if calibration.misses({k: str(v) for k, v in row.items()}, LEVEL) else "", flush=True)
        done["points"].append(list(point))
        if path:
            path.write_text(json.dumps(done))
    if "--append-table" in argv:
        calibrate = runpy.run_path(str(HERE / "calibrate.py"))
        table = argv[argv.index("--append-table") + 1]
        calibrate["append_rows"](done["contrast"], table, CONTRAST, appended)
        calibrate["append_rows"](done["f"], table, PROCEDURE, lambda row: True)  # the F rows: the whole procedure
    return done


def point_of(row):
    """The grid point of a table row of this script (``calibrate.py --replace``)."""
    from rlstats.calibration import UNBALANCED

    words, configuration = row["configuration"][len(UNBALANCED):].split(": ", 1)
    return words.split(" ", 1)[0], row["distribution"], configuration


if __name__ == "__main__":
    main(sys.argv[1:])
