"""Audit s35 (mixed35): the omnibus F's level and power with Kenward-Roger's df against Satterthwaite's, by whether
the task x agent variance is estimated at its boundary (0).

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python tests/reference/size_mixed_boundary.py [--quick] [--shard I/N]
        [--json PATH] [--n DATA_SETS_PER_DRAW]
        [--pooled tests/reference/size_mixed_boundary.json] [--summary tests/reference/size_mixed_boundary_points.json]

Audit s34 (``coverage_mixed_unbalanced.py``, ``mixed.f_size`` rows) found Kenward-Roger's F rejecting agents alike in
0 of 400 data sets at 0.05 on several unbalanced designs without a task x agent term (Satterthwaite's 0.0075-0.03).
This script asks where that comes from. Balanced designs (``DESIGNS_AT``: 2, 3 and 8 agents on 3 to 26 tasks) at
3, 5 and 10 runs a cell, and three unbalanced patterns of ``coverage_mixed_unbalanced``; normal, skewed and capped
scores (``designs.DISTRIBUTIONS``' families) and the tasks' offsets and scales of ``designs.DESIGN_DRAWS`` draws (50
data sets each: 200 a point, ``--n 50``), as ``coverage_mixed_unbalanced.simulate`` draws them, under its
configurations ``all_equal`` (no task x agent variance), ``all_equal, cells sd 0.5`` (task x agent intercepts of sd
0.5 noise units), and ``shift 0 to 1`` with and without the cells (power). Each data set is fitted once, as :func:`rlstats.mixed` fits it, and records whether the task x
agent standard deviation is at the boundary (theta below ``_kernels.SINGULAR_TOL``, the singular-fit note's rule),
the F p-value with Satterthwaite's df (orthonormal basis, the default) and with Kenward-Roger's, and whether the
Tukey family of either held (agents alike: no pair declared different). ``summary`` tabulates the rejection rates
by boundary (``--summary``: ``size_mixed_boundary_points.json``), and ``pooled`` pools the fits at the boundary by
the designs' number of tasks (``--pooled``: ``size_mixed_boundary.json``), which ``rlstats.mixed``'s singular-fit
note quotes (``_api.BOUNDARY_MEASURED``; ``tests/test_audit_s35_mixed35.py`` checks the two agree and reruns a point).

Found (audit s35): at the boundary pbkrtest still counts the zero component, so Kenward-Roger's df are the
interaction's ((tasks - 1)(agents - 1) in a balanced design) where Satterthwaite's are the residual's; the F is the
same. On 3 tasks that makes Kenward-Roger's F all but never reject agents alike and lose most of its power; on 10
and 26 tasks the two df methods come close. lmerTest's ``anova(ddf = "Kenward-Roger")`` gives the same df and p
(``mixed_boundary35_r.R``) and R's own simulation (``size_mixed_boundary_r.R``, ``size_mixed_boundary_r.out``) the
same conservatism. Satterthwaite's F at the boundary is not held either where a task x agent spread was missed
(above 0.05 on 3 tasks), nor in R's simulation (0.096 at 3 agents x 5 tasks x 5 runs, agents alike, no task x agent
term), so ``ddf="kenward-roger"`` stays pbkrtest's and the default stays Satterthwaite's; the note says which.

Run (two processes; about 40 minutes of wall time on a loaded 2-core machine)::

    for i in 0 1; do python tests/reference/size_mixed_boundary.py --n 50 --shard $i/2 --json /tmp/s$i.json & done
    python -c "import json; d = {}; [d.update(json.load(open(f'/tmp/s{i}.json'))) for i in (0, 1)]; \
        json.dump(d, open('/tmp/all.json', 'w'))"
    python tests/reference/size_mixed_boundary.py --n 50 --json /tmp/all.json \
        --pooled tests/reference/size_mixed_boundary.json --summary tests/reference/size_mixed_boundary_points.json
"""

from __future__ import annotations

import json
import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
MIXED = runpy.run_path(str(HERE / "coverage_mixed.py"))
UNBALANCED = runpy.run_path(str(HERE / "coverage_mixed_unbalanced.py"))
DISTRIBUTIONS = DESIGNS["DISTRIBUTIONS"]
CONFIGURATIONS = ("all_equal", "all_equal, cells sd 0.5", "shift 0 to 1", "shift 0 to 1, cells sd 0.5")
RUNS = (3, 5, 10)
#: the balanced designs (agents, tasks) and unbalanced patterns of the grid: coverage_mixed's without its 2 x 26 (a
#: CPU budget on a shared machine), and the three patterns where audit s34's Kenward-Roger F rejected least
DESIGNS_AT = ((2, 3), (3, 3), (3, 10), (8, 3), (8, 26))
UNBALANCED_AT = ("two_agents", "runs_3_5_10", "eight_by_3")
#: the score families of the grid (designs.DISTRIBUTIONS less heavy_tailed, for the same budget)
GRID_DISTRIBUTIONS = ("normal", "skewed", "capped")
#: data sets per design draw: full, --quick
SIMULATIONS = (100, 10)
ALPHA = 0.05


def template(design):
    """The Design of a grid point's design: (agents, tasks, runs) balanced, or an unbalanced pattern's name."""
    if isinstance(design, str):
        return UNBALANCED["template"](design)
    return MIXED["template"](*design)


def simulate(design, distribution, configuration, offset, scale, rng):
    """One data set's scores in the design's order (``coverage_mixed_unbalanced.simulate``, with both terms)."""
    task, agent = design.task, design.agent
    deviation = DESIGNS["deviations"](rng, distribution, task.size)
    y = DESIGNS["scores"](distribution, deviation, 0.0, offset[task], scale[task])
    if "cells sd" in configuration:
        y = y + scale[task] * UNBALANCED["CELL_SD"] * rng.normal(size=(design.n_tasks, design.n_agents))[task, agent]
    shift = np.linspace(0.0, 1.0, design.n_agents) if configuration.startswith("shift") else np.zeros(design.n_agents)
    return y + shift[agent]


def decide(design, y):
    """(boundary, p Satterthwaite, p Kenward-Roger, Tukey held Satterthwaite, Tukey held Kenward-Roger) of one data
    set (the Tukey families against no difference: read under agents alike only)."""
    from scipy import special

    from rlstats.methods.mixed import _kernels as kernels

    m = kernels.model(y, design.agent, design.task, design.n_agents, design.n_tasks, design.max_runs_per_cell > 1)
    fit = kernels.fit(m)
    rows = kernels.orthonormal_hypothesis(design.n_agents)
    sat, kr = kernels.satterthwaite_setup(m, fit), kernels.kenward_roger_setup(m, fit)
    stat, q, ddf = kernels.satterthwaite_f(sat, fit.vcov, fit.beta, rows)
    p_sat = float(special.fdtrc(q, ddf, stat))
    stat, q, ddf = kernels.kenward_roger_f(kr, fit.beta, rows)
    p_kr = float(special.fdtrc(q, ddf, stat))
    _, pair_rows, _, _ = kernels.agent_contrasts(design.n_agents)
    estimates, zero = pair_rows @ fit.beta, np.zeros(pair_rows.shape[0])
    held = [MIXED["held"](estimates, *t_test, zero, design.n_agents)["tukey"]
            for t_test in (kernels.satterthwaite_t(sat, fit.vcov, pair_rows), kernels.kenward_roger_t(kr, pair_rows))]
    boundary = bool(fit.theta[-1] < kernels.SINGULAR_TOL) if len(fit.theta) > 1 else None
    return boundary, p_sat, p_kr, held[0], held[1]


def measure(design_key, distribution, configuration, n_sim, seed=0):
    """One row per data set: decide()'s five values."""
    design = template(design_key)
    out = []
    code = (list(design_key) if not isinstance(design_key, str)
            else [99, UNBALANCED["DESIGNS_AT"].index(design_key)])
    for draw in range(DESIGNS["DESIGN_DRAWS"]):
        offset, scale = DESIGNS["design_draw"](draw, design.n_tasks)
        key = [seed, draw, 35, *code, DISTRIBUTIONS.index(distribution), CONFIGURATIONS.index(configuration)]
        rng = np.random.default_rng(np.random.SeedSequence(key))
        for _ in range(n_sim):
            y = simulate(design, distribution, configuration, offset, scale, rng)
            while np.all([np.ptp(y[design.agent == a]) == 0 for a in range(design.n_agents)]):
                y = simulate(design, distribution, configuration, offset, scale, rng)
            out.append(decide(design, y))
    return out


def grid(quick=False):
    """(design, distribution, configuration) points: the balanced designs at 3, 5 and 10 runs and the unbalanced
    patterns; --quick: two small designs, normal and capped."""
    if quick:
        return [(d, dist, c) for d in ((3, 3, 3), "runs_3_5_10") for dist in ("normal", "capped")
                for c in CONFIGURATIONS[:2]]
    designs = [(a, t, r) for a, t in DESIGNS_AT for r in RUNS] + list(UNBALANCED_AT)
    return [(d, dist, c) for d in designs for dist in GRID_DISTRIBUTIONS for c in CONFIGURATIONS]


def summary(done):
    """{(design, distribution, configuration): rates}: rejection at ALPHA of each F, overall and by boundary."""
    out = {}
    for key, records in done.items():
        r = np.array(records, dtype=object)
        boundary = np.array([b is True for b in r[:, 0]])
        p_sat, p_kr = r[:, 1].astype(float), r[:, 2].astype(float)
        rates = {"n": len(r), "at_boundary": float(boundary.mean())}
        for name, p in (("sat", p_sat), ("kr", p_kr)):
            rates[name] = float(np.mean(p <= ALPHA))
            for where, mask in (("boundary", boundary), ("inside", ~boundary)):
                rates[f"{name}_{where}"] = float(np.mean(p[mask] <= ALPHA)) if mask.any() else float("nan")
        rates["tukey_sat"], rates["tukey_kr"] = 1 - float(np.mean(r[:, 3].astype(bool))), \
            1 - float(np.mean(r[:, 4].astype(bool)))
        out[key] = rates
    return out


def pooled(done):
    """{tasks: {configuration: {"fits": boundary fits, "satterthwaite": rejected, "kenward-roger": rejected,
    "data_sets": all, "satterthwaite_all": rejected, "kenward-roger_all": rejected}, "agents": [the designs' numbers
    of agents]}}: the
    data sets whose fit put the task x agent SD at 0, pooled over the grid's designs of that many tasks (agents, runs
    and score families), with how many of them each F rejected at ALPHA: what ``rlstats.mixed``'s note of such a fit
    with Kenward-Roger's df quotes (``_api.KR_BOUNDARY``). Only the points of :func:`grid`."""
    points = {json.dumps(point) for point in grid()}
    out = {}
    for key, records in done.items():
        if key not in points:
            continue
        design, _, configuration = json.loads(key)
        shape = template(design)
        tasks = str(shape.n_tasks)
        agents = out.setdefault(tasks, {}).setdefault("agents", [])
        if shape.n_agents not in agents:
            agents.append(shape.n_agents)
            agents.sort()
        cell = out[tasks].setdefault(configuration, {"fits": 0, "satterthwaite": 0, "kenward-roger": 0,
                                                     "data_sets": 0, "satterthwaite_all": 0, "kenward-roger_all": 0})
        for boundary, p_sat, p_kr, _, _ in records:
            cell["data_sets"] += 1
            cell["satterthwaite_all"] += int(p_sat <= ALPHA)
            cell["kenward-roger_all"] += int(p_kr <= ALPHA)
            if boundary:
                cell["fits"] += 1
                cell["satterthwaite"] += int(p_sat <= ALPHA)
                cell["kenward-roger"] += int(p_kr <= ALPHA)
    return out


def main(argv):
    quick = "--quick" in argv
    points = grid(quick)
    if "--shard" in argv:
        i, n = map(int, argv[argv.index("--shard") + 1].split("/"))
        points = points[i::n]
    path = pathlib.Path(argv[argv.index("--json") + 1]) if "--json" in argv else None
    done = json.loads(path.read_text()) if path and path.exists() else {}
    for point in points:
        key = json.dumps(point)
        if key in done:
            continue
        done[key] = measure(*point, int(argv[argv.index("--n") + 1]) if "--n" in argv else SIMULATIONS[quick])
        rates = summary({key: done[key]})[key]
        print(key, " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in rates.items()),
              flush=True)
        if path:
            path.write_text(json.dumps(done))
    if "--summary" in argv:  # each point's rates: tests/reference/size_mixed_boundary_points.json
        points = {json.dumps(point) for point in grid()}
        rates = summary({key: records for key, records in done.items() if key in points})
        pathlib.Path(argv[argv.index("--summary") + 1]).write_text(json.dumps(rates, indent=0, sort_keys=True) + "\n")
    if "--pooled" in argv:  # the table the note quotes: tests/reference/size_mixed_boundary.json
        pathlib.Path(argv[argv.index("--pooled") + 1]).write_text(json.dumps(pooled(done), indent=1, sort_keys=True)
                                                                  + "\n")
    return done


if __name__ == "__main__":
    main(sys.argv[1:])
