"""How often ``statistics.copied_runs`` (within cells, across tasks and tasks judged jointly, as the note calls it)
finds copies in honest data, where every run is drawn afresh (audit s27, copies27): the false-alarm rate of the note
on copied runs, on a grid of 3/5/10 runs, 2/4/8 agents, 1/5/26 tasks, scores normal, skewed (lognormal), heavy
(Student t, 2 degrees of freedom), capped (a third of the runs at the cap) and means of 75 success/failure
episodes (k / 75: a lattice that fine decimals hide), rounded to a step of 1, 0.1, 0.01 or 1e-6 of the scores' spread
(coarse scores tie by chance: the step 1 and 0.1 rows are where a false alarm would be).  Each task has its own
location and spread (a game's scale), each agent its own shift.  Any note in a data set is a false alarm; the
bound aimed at is :data:`rlstats.statistics.COPY_CHANCE` (1e-3) per data set.

    PYTHONPATH=. python tests/reference/copied_runs_false_alarms.py [replicates, default 40]

prints, per kind of scores and step, the data sets drawn and those with a note (and which part found it), and the
total.  ``false_alarms`` is imported by the default-run test with a reduced grid.

Measured (200 data sets a setting, 108,000 in all; the same before and after s27 made RESOLUTION_MARGIN multiply only
the decimal step's part of ``E``, row for row): 462 data sets with a note (4.3e-3), all within cells and all of one
kind, means over 75 episodes rounded to 1e-6 of the spread (462 of its 5,400, 8.6e-2), whose grid ``statistics._grid_steps``
misses (the rounding, up to half a step, exceeds its 4 x 2**-22 of the largest score): a strict xfail in
test_audit_s27_copies27.py.  Every other kind and step: 0 of 102,600.  (A rule tried then, no margin where the
scores' grid is found, noted this grid no more often at 20 data sets a setting, but noted the 10 repeats of
OTRainbow's 100 Assault runs in atari100k, chance 7e-9 at the grid 0.01 found, where 98 of them are multiples of
0.21 (E about 15 at that step): not kept.)

s28 (copies28): a sixth kind, "solved" (every agent's runs capped at its task's common maximum, as CartPole's 500),
and a fourth check, "between agents" (``across.same_block``: two agents' runs on one task).  Measured at 100 data
sets a setting (64,800 in all): 0 with a note of any kind (40 a setting, 25,920: 0 too); the means over 75 episodes
at 1e-6 no longer noted (``_grid_steps`` reads their rounded grid), 0 of 2,700 against about 230 at the rate above.  Beside this grid (/tmp scripts, numbers in the report of s28): agents drawing from one
distribution (no agent shift), 7,200 data sets, 0 notes; deterministic tasks of few returns at full precision
(0.99**k), 1,080 data sets, 14 noted between agents (all of one task, 2-4 agents), against 6 within, 9 across and 4
jointly that the older checks already noted there.

s29 (copies29): kinds "discounted" (deterministic tasks' discounted returns at full precision, ``discounted``: few
values on no decimal grid; copiesdet28's generator) and "discounted capped" (the same cut at a step cap: a pile of
equal returns), and a fifth step, 0 (full precision, no rounding).  Measured at full precision, 40 data sets a
setting (1,080 a kind): before, 113 noted (within 63, across 54, tasks jointly 19) and 51 (within 41, across 13,
tasks jointly 3, between agents 1); after (``statistics._Ties.floor``: on raw floats, the ties of the cells not
judged, read where they tie), 11 (within 7, across 4) and 5 (within 4, between agents 1).  The six other kinds at
the five steps, 32,400 data sets: 0 (the floor only takes notes away).

s30 (copies30): the same two kinds at step 1e-6 (discounted returns a log prints with %.6f: decimals, no floor in
s29), 40 data sets a setting: before, 91 (within 64, across 18, tasks jointly 8, between agents 6) and 39 (within
37, across 1, between agents 1); after (the floor on decimals too, from the other cells' own ties, each cell's
most-held score's runs left out, and a cell's repeats beyond its own most-held score judged against it), 30 (within
7, across 13, tasks jointly 5, between agents 6) and 5 (within 3, across 1, between agents 1); at step 0, 11 and 4.
"""

import itertools
import sys

import numpy as np
import pandas as pd

from rlstats.statistics import copied_runs

KINDS = ("normal", "skewed", "heavy", "capped", "episodes", "solved", "discounted", "discounted capped")
STEPS = (1.0, 0.1, 0.01, 1e-6, 0.0)  # 0: full precision, no rounding


def honest(rng, kind, step, n_tasks, n_agents, n_runs):
    """Scores of ``n_tasks x n_agents x n_runs`` runs drawn afresh, rounded to ``step`` times each task's spread
    (an exact decimal step: the task's spread a power of ten; ``step`` 0: not rounded)."""
    shape = (n_tasks, n_agents, n_runs)
    if kind.startswith("discounted"):
        return _rounded(discounted(rng, n_tasks, n_agents, n_runs, kind.endswith("capped")), step)
    scale = 10.0 ** rng.integers(-1, 4, (n_tasks, 1, 1))  # a task's spread: 0.1 to 1,000
    centre = scale * rng.uniform(-2, 10, (n_tasks, 1, 1)) + scale * rng.normal(0, 0.5, (n_tasks, n_agents, 1))
    if kind == "normal":
        z = rng.standard_normal(shape)
    elif kind == "skewed":
        z = rng.lognormal(0, 1, shape)
    elif kind == "heavy":
        z = rng.standard_t(2, shape)
    elif kind == "capped":
        z = np.minimum(rng.standard_normal(shape), 0.43)  # a third at the cap
    elif kind == "solved":  # the task's cap, every agent's (CartPole's 500): a third of the runs or more reach it
        cap = centre.mean(axis=1, keepdims=True) + 0.43 * scale
        if step == 0:
            return np.minimum(centre + scale * rng.standard_normal(shape), cap)
        return np.minimum(np.round((centre + scale * rng.standard_normal(shape)) / (step * scale)) * (step * scale),
                          np.round(cap / (step * scale)) * (step * scale))
    else:
        z = rng.binomial(1, rng.uniform(0.2, 0.8, (n_tasks, n_agents, 1, 1)), shape + (75,)).mean(axis=-1) * 5
    y = centre + scale * z
    return y if step == 0 else np.round(y / (step * scale)) * (step * scale)


def discounted(rng, n_tasks, n_agents, n_runs, capped=False):
    """Discounted returns of deterministic tasks at full precision (s28, copiesdet28): few values on no decimal grid
    and no grid of differences.  Per data set one form: ``gamma**k`` of an episode's length ``k`` (uniform over 5, 20
    or 50 lengths from the task's shortest), the sum of two such rewards (``k1 < k2``), or ``r * gamma**k`` with 2-5
    lengths a task; ``gamma`` 0.9, 0.95, 0.99 or 0.997; each agent's shortest episode 0-3 steps longer than
    another's.  ``capped`` (s29, kind "discounted capped"): every episode cut at the task's step cap (its shortest
    episode plus 2 to 30 steps), where the runs that reach it all take the same return (a pile, as CartPole's 500),
    ``gamma**cap`` (form 0), ``(1 - gamma**cap) / (1 - gamma)`` of a reward each step to the cap (form 1), ``r *
    gamma**cap`` (form 2)."""
    shape = (n_tasks, n_agents, n_runs)
    form, gamma, width = rng.integers(0, 3), rng.choice([0.9, 0.95, 0.99, 0.997]), rng.choice([5, 20, 50])
    shortest = rng.integers(1, 60, (n_tasks, 1, 1)) + rng.integers(0, 4, (n_tasks, n_agents, 1))
    cap = shortest.min(axis=1, keepdims=True) + rng.integers(2, 31, (n_tasks, 1, 1)) if capped else None
    if form == 0:
        k = shortest + rng.integers(0, width, shape)
        return gamma ** (k if cap is None else np.minimum(k, cap)).astype(float)
    if form == 1:
        k = shortest + rng.integers(0, width, shape)
        if cap is not None:  # a reward each step to the episode's end, cut at the cap
            return (1 - gamma ** np.minimum(k, cap).astype(float)) / (1 - gamma)
        return gamma ** k.astype(float) + gamma ** (k + rng.integers(1, width, shape)).astype(float)
    lengths = rng.integers(0, 30, (n_tasks, 1, 1, int(rng.integers(2, 6))))
    k = shortest + np.take_along_axis(np.broadcast_to(lengths, shape + lengths.shape[-1:]),
                                      rng.integers(0, lengths.shape[-1], shape)[..., None], -1)[..., 0]
    k = k if cap is None else np.minimum(k, cap)
    return 10.0 ** rng.integers(-1, 3) * rng.uniform(1, 10, (n_tasks, 1, 1)) * gamma ** k.astype(float)


def _rounded(y, step):
    """``y`` rounded to ``step`` times each task's spread (a power of ten: an exact decimal step), or as it is."""
    if step == 0:
        return y
    scale = 10.0 ** np.floor(np.log10(y.std(axis=(1, 2), keepdims=True) + 1e-300))
    return np.round(y / (step * scale)) * (step * scale)


def found(y):
    """Whether copied_runs finds anything in ``y`` (tasks x agents x runs), and where."""
    n_tasks, n_agents, n_runs = y.shape
    n_cells = n_tasks * n_agents
    cell = np.repeat(np.arange(n_cells), n_runs)
    copies, _, across = copied_runs(y.ravel(), cell, n_cells, np.arange(n_cells) // n_agents, across_blocks=True,
                                    agent=np.arange(n_cells) % n_agents)
    tasks = across.tasks is not None and across.tasks.first.size > 0
    agents = across.same_block is not None and across.same_block.first.size > 0
    return bool(copies.any()), bool(across.first.size), tasks, agents


def false_alarms(replicates=40, runs=(3, 5, 10), agents=(2, 4, 8), tasks=(1, 5, 26), kinds=KINDS, steps=STEPS,
                 seed=2027):
    rows = []
    for kind, step, n_runs, n_agents, n_tasks in itertools.product(kinds, steps, runs, agents, tasks):
        rng = np.random.default_rng([seed, KINDS.index(kind), STEPS.index(step), n_runs, n_agents, n_tasks])
        hits = np.array([found(honest(rng, kind, step, n_tasks, n_agents, n_runs)) for _ in range(replicates)])
        rows.append({"kind": kind, "step": step, "runs": n_runs, "agents": n_agents, "tasks": n_tasks,
                     "data sets": replicates, "within": int(hits[:, 0].sum()), "across": int(hits[:, 1].sum()),
                     "tasks jointly": int(hits[:, 2].sum()), "between agents": int(hits[:, 3].sum()),
                     "any": int(hits.any(axis=1).sum())})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    table = false_alarms(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
    counts = ["data sets", "within", "across", "tasks jointly", "between agents", "any"]
    summary = table.groupby(["kind", "step"])[counts].sum()
    with pd.option_context("display.width", 200, "display.max_rows", 100):
        print(summary)
        print(table[table["any"] > 0])
    total = table[counts].sum()
    print(f"all: {total['any']} of {total['data sets']} honest data sets with a note "
          f"({total['any'] / total['data sets']:.2e}; within {total['within']}, across {total['across']}, "
          f"tasks jointly {total['tasks jointly']}, between agents {total['between agents']})")
