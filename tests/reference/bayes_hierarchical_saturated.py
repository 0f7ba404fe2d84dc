"""How often rlstats.bayes(model="hierarchical") cannot fit a pair, and refuses the call, on runs that mostly sit at a
score cap, by number of agents (audit s29 minmax29; the ``_api.HIERARCHICAL_SATURATED`` constants its saturated-runs
note and docstring quote).

The hierarchical model needs, for each pair and each task, paired runs whose differences vary: where both agents'
runs of a task all sit at the cap, the differences are all 0 and the task's spread has no data. Since audit s28
(hier28) such a pair is withheld and the other pairs compared; the call is refused only where no pair can be fitted.
Audit s11 measured the refusal on two agents alone (then every such data set was refused: "64-99% at 3 runs, 4-38% at
10"), and the note printed that for designs of any number of agents.

Measured here: the calibration grid's ``saturated`` family (``designs.py``: deviations cut at the normal 0.15 quantile,
85% of a baseline agent's runs at the cap; an agent half a noise unit above hits it in 94%, below in 70%), 2 to 8
agents (the hierarchical model's range): agent 0 at ``sign`` x 0.5 noise units, the others at the baseline, sign in
-1, 0, +1 (the configurations of ``size_equivalence.py``); 5, 10 and 26 tasks x 3, 5 and 10 runs; four design draws of
the tasks' offsets and scales, 100 data sets a draw. A pair cannot be fitted where on some task its paired run
differences do not vary (counted exactly: the largest difference equals the smallest; continuous scores off the cap
never tie). Per point, the share of pairs withheld (over every pair of every data set) and of data sets refused (no
pair fitted), each as (lowest, highest) over the three signs. Nothing is fitted, so the whole grid takes seconds;
``tests/test_audit_s29_minmax29.py`` checks the counting against rlstats.bayes's own on data sets of the grid.

    PYTHONPATH=. python tests/reference/bayes_hierarchical_saturated.py
"""

from __future__ import annotations

import itertools
import pathlib
import runpy

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
AGENTS = tuple(range(2, 9))
TASKS = (5, 10, 26)
RUNS = (3, 5, 10)
SIGNS = (-1.0, 0.0, 1.0)
SHIFT = 0.5
DRAWS, PER_DRAW = DESIGNS["DESIGN_DRAWS"], 100


def simulate(agents, tasks, runs, sign, draw, n_sim):
    """(n_sim, tasks, agents, runs) saturated scores of one design draw: agent 0 at sign * SHIFT, the others at 0."""
    offset, scale = DESIGNS["design_draw"](draw, tasks)
    location = np.zeros(agents)
    location[0] = sign * SHIFT
    rng = np.random.default_rng([2029, agents, tasks, runs, int(sign) + 1, draw])
    deviation = DESIGNS["deviations"](rng, "saturated", (n_sim, tasks, agents, runs))
    return DESIGNS["scores"]("saturated", deviation, location[None, None, :, None], offset[None, :, None, None],
                             scale[None, :, None, None])


def unfit_pairs(y):
    """(n_sim, pairs) whether each pair (in itertools.combinations order) has a task whose paired differences (runs
    paired by position, the seed) do not vary, of scores ``y`` (n_sim, tasks, agents, runs)."""
    agents = y.shape[2]
    out = []
    for i, j in itertools.combinations(range(agents), 2):
        d = y[:, :, i, :] - y[:, :, j, :]
        out.append((d.max(axis=-1) == d.min(axis=-1)).any(axis=1))
    return np.stack(out, axis=1)


def point(agents, tasks, runs, n_sim=PER_DRAW):
    """{sign: (share of pairs withheld, share of data sets refused)} at one point, pooled over the design draws."""
    out = {}
    for sign in SIGNS:
        unfit = np.concatenate([unfit_pairs(simulate(agents, tasks, runs, sign, d, n_sim)) for d in range(DRAWS)])
        out[sign] = (float(unfit.mean()), float(unfit.all(axis=1).mean()))
    return out


def table(agents=AGENTS, tasks=TASKS, runs=RUNS, n_sim=PER_DRAW):
    """{(agents, runs): ((pairs withheld low, high), (refused low, high))} over the signs and the numbers of tasks."""
    result = {}
    for k, r in itertools.product(agents, runs):
        values = [v for t in tasks for v in point(k, t, r, n_sim).values()]
        pairs, calls = zip(*values)
        result[(k, r)] = ((min(pairs), max(pairs)), (min(calls), max(calls)))
    return result


if __name__ == "__main__":
    for (k, r), ((p_low, p_high), (c_low, c_high)) in table().items():
        print(f"{k} agents, {r:2d} runs: pairs withheld {p_low:.3f}-{p_high:.3f}, calls refused {c_low:.3f}-{c_high:.3f}")
