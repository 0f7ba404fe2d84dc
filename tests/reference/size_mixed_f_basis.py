"""Audit s33 (mixed33): the level of the mixed model's omnibus F test on unbalanced designs, by the basis its
Satterthwaite denominator df are formed in (``rlstats.mixed(f_basis=)``), beside Kenward-Roger's.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python tests/reference/size_mixed_f_basis.py [n_sim] [seed]

Agents alike (the null of the F), scores from the model itself: task intercepts (sd 1), task x agent intercepts (sd 0.3)
and runs (sd 0.5), on three unbalanced designs: ``atari_incomplete`` (the pattern of the Atari 100k design of
``mixed_relabel33.csv``: 4 agents x 6 tasks, a and b never on a common task with 5 runs a cell where they ran, c one run
on every task, d 5 on every task), ``missing_cells`` (3 agents x 10 tasks x 3 runs, 7 cells empty and 6 with one run)
and ``unequal_runs`` (6 agents x 6 tasks, 1 to 5 runs a cell, drawn once). Each data set is fitted once (as
:func:`rlstats.mixed` fits it); the F is one number, its df are formed in the orthonormal basis (the default),
lmerTest's basis for up to 24 orders of the agents (the level of the first, the agents' sorted order, and how often the
orders disagree about p <= 0.05), and Kenward-Roger's (its own F). Prints the rejection rate at 0.05 with its Monte
Carlo SE. The numbers are quoted in ``rlstats.methods.mixed._api.mixed``'s docstring and in
``tests/test_audit_s33_mixed33.py`` (which runs a reduced version).
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pandas as pd


def counts_of(name):
    """(tasks, agents) runs per cell of each design."""
    if name == "atari_incomplete":
        c = np.zeros((6, 4), dtype=int)
        c[:3, 0], c[3:, 1], c[:, 2], c[:, 3] = 5, 5, 1, 5
        return c
    if name == "missing_cells":
        c = np.full((10, 3), 3)
        c[[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 0, 1, 2, 0]] = 0
        c[[7, 8, 9, 7, 8, 9], [0, 0, 0, 1, 2, 1]] = 1
        return c
    return np.random.default_rng(33).integers(1, 6, size=(6, 6))


def template(counts):
    from rlstats.design import design_of

    rows = [(f"t{t}", f"a{a}", s) for t, a in zip(*np.nonzero(counts)) for s in range(counts[t, a])]
    frame = pd.DataFrame(rows, columns=["task", "agent", "seed"]).assign(score=0.0)
    return design_of(frame, "score ~ agent | task/seed")


def p_values(design, y, orders):
    """{basis: p-value} of one data set's F."""
    from scipy import special

    from rlstats.methods.mixed import _kernels as kernels

    m = kernels.model(y, design.agent, design.task, design.n_agents, design.n_tasks, True)
    fit = kernels.fit(m)
    setup = kernels.satterthwaite_setup(m, fit)
    out = {}
    f, q, ddf = kernels.satterthwaite_f(setup, fit.vcov, fit.beta, kernels.orthonormal_hypothesis(design.n_agents))
    out["orthonormal"] = special.fdtrc(q, ddf, f)
    out["lmertest"] = np.array([special.fdtrc(q, d, f) for f, q, d in (
        kernels.satterthwaite_f(setup, fit.vcov, fit.beta, kernels.agent_hypothesis(m, order)) for order in orders)])
    kr = kernels.kenward_roger_setup(m, fit)
    f, q, ddf = kernels.kenward_roger_f(kr, fit.beta, kernels.orthonormal_hypothesis(design.n_agents))
    out["kenward-roger"] = special.fdtrc(q, ddf, f)
    return out


def measure(name, n_sim, seed=0, max_orders=24):
    counts = counts_of(name)
    design = template(counts)
    orders = list(itertools.islice(itertools.permutations(range(design.n_agents)), max_orders))
    rng = np.random.default_rng([seed, 33])
    reject = {"orthonormal": [], "lmertest": [], "kenward-roger": [], "orders_disagree": [], "lmertest_any": []}
    for _ in range(n_sim):
        task = rng.normal(0, 1.0, design.n_tasks)
        cell = rng.normal(0, 0.3, (design.n_tasks, design.n_agents))
        y = task[design.task] + cell[design.task, design.agent] + rng.normal(0, 0.5, design.y.size)
        p = p_values(design, y, orders)
        reject["orthonormal"].append(p["orthonormal"] <= 0.05)
        reject["kenward-roger"].append(p["kenward-roger"] <= 0.05)
        reject["lmertest"].append(p["lmertest"][0] <= 0.05)
        reject["lmertest_any"].append(bool((p["lmertest"] <= 0.05).any()))
        reject["orders_disagree"].append(bool((p["lmertest"] <= 0.05).any() and not (p["lmertest"] <= 0.05).all()))
    return {k: float(np.mean(v)) for k, v in reject.items()}


if __name__ == "__main__":
    n_sim = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    for name in ("atari_incomplete", "missing_cells", "unequal_runs"):
        rates = measure(name, n_sim, seed)
        se = np.sqrt(0.05 * 0.95 / n_sim)
        print(f"{name}: n_sim {n_sim} (MC SE at 0.05: {se:.4f}): "
              + ", ".join(f"{k} {v:.4f}" for k, v in rates.items()), flush=True)
