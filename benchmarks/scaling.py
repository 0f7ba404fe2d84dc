"""Issue 43 item 1: every back end's CPU seconds at two sizes 10x apart in runs, tasks and agents, and the exponent.

    OPENBLAS_NUM_THREADS=1 python benchmarks/scaling.py [back end label ...] [--json FILE]

For each back end (its label below), a base design (agents x tasks x runs, ``rlstats.datasets.simulate``, seed 0)
and, for each dimension that applies, the same design with that dimension 10x larger. Every point runs in a fresh
process: a warm-up call on a tiny design of the same back end (imports, first-call caches), then the tiny call
again, timed (the *fixed cost* c0 of one call: validation, result frames, notes), then the measured call, timed;
CPU seconds by ``time.process_time`` (the machine may be shared: wall time would count other people's work), one
BLAS thread. Two exponents per dimension: the raw one, log(t_big / t_base) / log 10, and the marginal one,
log((t_big - c0) / (t_base - c0)) / log 10, the growth of the work that depends on the data, which a fixed cost
larger than the base point's marginal cost hides (the raw exponent then reads near 0). The marginal exponent is
quoted when the base point's marginal cost is at least 0.05 s (else the fixed cost dominates and ``-`` is shown).

Options keep each point under ~20 s CPU (fewer resamples than the defaults where the cost is linear in them: the
exponents in the data do not depend on it). Percentiles (both intervals) stay at 3 agents: their
agent dimension (at least quadratic: a robust game over agents) is measured by ``percentiles_scaling.py``; 30
agents did not finish in 120 s. ``mixed`` has its own ``mixed_scaling.py`` (larger designs).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

FLAT, NESTED = "score ~ agent | task", "score ~ agent | task/seed"
DIMENSIONS = ("runs", "tasks", "agents")


def sweep(configs, seeds, tasks):
    """One agent's sweep: ``configs`` configurations on a grid of two hyperparameters, ``seeds`` seeds, ``tasks``
    tasks (configuration means N(0, 1) per task, seed noise N(0, 1))."""
    import numpy as np
    import pandas as pd

    side = math.isqrt(configs - 1) + 1
    rng = np.random.default_rng(0)
    config = np.arange(configs)
    frames = [pd.DataFrame({"agent": "ppo", "task": f"t{t}", "lr": np.repeat(config // side, seeds),
                            "gamma": np.repeat(config % side, seeds), "seed": np.tile(np.arange(seeds), configs),
                            "score": (rng.normal(0, 1, configs)[:, None]
                                      + rng.normal(0, 1, (configs, seeds))).ravel()})
              for t in range(tasks)]
    return pd.concat(frames, ignore_index=True)


def reported(data):
    """The selection check's options: agent_2 against agent_1, reported on the first three tasks."""
    return {"treatment": "agent_2", "baseline": "agent_1", "reported": list(data["task"].unique()[:3])}


# label -> (back end, base (agents, tasks, runs), dimensions, formula, options, data kind)
# "runs" of tuning are its configurations (x 10 seeds); of curves, runs per cell (50 steps each); of power, seeds
# (n_sim data sets each); of adastop, runs with n = runs / 2 per interim (K = 2).
CASES = {
    "skillings_mack": ("skillings_mack", (3, 100, 300), DIMENSIONS, FLAT, {}, "simulate"),
    "skillings_mack (Monte Carlo, B=1,000)": ("skillings_mack", (3, 100, 20), DIMENSIONS, FLAT,
                                              {"pvalue": "monte_carlo", "n_resamples": 1000}, "simulate"),
    "adastop": ("adastop", (2, 5, 20), DIMENSIONS, FLAT, {}, "adastop"),
    "permutation": ("permutation", (2, 5, 20), ("runs", "tasks"), FLAT, {}, "simulate"),
    "bootstrap, four metrics (R=200)": ("bootstrap", (3, 10, 1000), DIMENSIONS, FLAT, {"n_resamples": 200},
                                        "simulate"),
    "bootstrap, mean (R=200)": ("bootstrap", (3, 10, 1000), DIMENSIONS, FLAT,
                                {"n_resamples": 200, "metrics": ["mean"]}, "simulate"),
    # 819 and 8,190 runs a cell: 65,536 % runs is 16 at both, so the 16-bit draws' rejection rate stays ~0.02 %
    # (at 10,000 runs a cell it is 8.4 %, against 0.8 % at 1,000); session 6 of issue 43 drew cells above 3,000 runs
    # 32 bits a value, and since s7-draws the width follows the expected share of rejected lanes
    # (rlstats.resampling.lane_bits: 16 bits up to 2.5 %), so both are on the 16-bit path again
    "bootstrap, mean (R=200), 819 runs": ("bootstrap", (3, 10, 819), ("runs",), FLAT,
                                          {"n_resamples": 200, "metrics": ["mean"]}, "simulate"),
    "probability_of_improvement (R=500)": ("probability_of_improvement", (3, 10, 300), DIMENSIONS, FLAT,
                                           {"n_resamples": 500}, "simulate"),
    "performance_profile (R=1,000)": ("performance_profile", (3, 20, 2000), DIMENSIONS, FLAT,
                                    {"n_resamples": 1000}, "simulate"),
    "percentiles, bootstrap interval (R=500)": ("percentiles", (3, 10, 20), ("runs", "tasks"), FLAT,
                                                {"interval": "bootstrap", "n_resamples": 500}, "simulate"),
    "percentiles, PBP (capped)": ("percentiles", (3, 20, 10), ("runs", "tasks"), FLAT, {}, "simulate"),
    "curves (R=1,000, 50 steps)": ("curves", (2, 10, 20), DIMENSIONS, NESTED,
                                 {"step": "step", "n_resamples": 1000}, "curves"),
    "task_table": ("task_table", (3, 40, 20), DIMENSIONS, FLAT, {}, "simulate"),
    "mixed": ("mixed", (4, 30, 5), DIMENSIONS, FLAT, {}, "simulate"),
    "tuning, default views (R=500)": ("tuning", (1, 1, 1000), ("runs",), NESTED,
                                      {"config": ["lr", "gamma"], "n_resamples": 500}, "sweep"),
    "tuning, sensitivity": ("tuning", (1, 2, 5000), ("runs", "tasks"), NESTED,
                            {"config": ["lr", "gamma"], "views": ["sensitivity"]}, "sweep"),
    "selection": ("selection", (3, 300, 300), ("runs", "tasks"), FLAT, {}, "selection"),
    "power, bootstrap (n_sim=20)": ("power", (2, 20, 20), DIMENSIONS, None,
                                    {"method": "bootstrap", "n_sim": 20, "n_resamples": 200}, "power"),
    "power, skillings_mack (n_sim=200)": ("power", (3, 50, 20), DIMENSIONS, None,
                                         {"method": "skillings_mack", "n_sim": 200}, "power"),
    "bayes, signed rank": ("bayes", (3, 100, 20), DIMENSIONS, NESTED, {"n_samples": 5000}, "simulate"),
    "equivalence (R=500)": ("equivalence", (3, 20, 50), DIMENSIONS, FLAT, {"margin": 1.0, "n_resamples": 500},
                            "simulate"),
}
TINY = (2, 4, 3)


def point(label, size):
    """The call of ``label`` at (agents, tasks, runs) ``size``, as (function, no-argument call)."""
    import rlstats

    name, _, _, formula, options, kind = CASES[label]
    agents, tasks, runs = size
    options = dict(options)
    if kind == "power":
        method = options.pop("method")
        return lambda: rlstats.planning.power(method, effect=0.5, seeds=[runs], tasks=tasks, agents=agents, rng=0,
                                              progress=False, **options)
    if kind == "sweep":
        data = sweep(runs, 10, tasks)
    elif kind == "curves":
        data = rlstats.datasets.simulate_curves(agents, tasks, runs, 50, rng=0)
    elif kind == "adastop":
        data = rlstats.datasets.simulate(agents, tasks, runs, rng=0)
        options.update(n=max(runs // 2, 1), K=2)
    else:
        data = rlstats.datasets.simulate(agents, tasks, runs, effect=0.5 if name == "selection" else 0.0, rng=0)
        if kind == "selection":
            options.update(reported(data))
    function = rlstats.methods.backend(name)
    return lambda: function(data, formula, rng=0, progress=False, **options)


def measure(label, size):
    """In this (fresh) process: warm-up, then the tiny call's and the sized call's CPU seconds."""
    warnings.simplefilter("ignore")
    tiny = TINY if CASES[label][5] != "sweep" else (1, CASES[label][1][1], 20)
    call = point(label, tiny)
    call()
    start = time.process_time()
    call()
    fixed = time.process_time() - start
    call = point(label, size)
    start = time.process_time()
    call()
    return {"fixed": fixed, "cpu": time.process_time() - start}


def grow(size, dimension):
    agents, tasks, runs = size
    return {"runs": (agents, tasks, runs * 10), "tasks": (agents, tasks * 10, runs),
            "agents": (agents * 10, tasks, runs)}[dimension]


def exponents(base, big):
    raw = math.log(big["cpu"] / base["cpu"]) / math.log(10)
    c0 = min(base["fixed"], big["fixed"])
    marginal = None
    if base["cpu"] - c0 >= 0.05:
        marginal = math.log((big["cpu"] - c0) / (base["cpu"] - c0)) / math.log(10)
    return raw, marginal


def run_point(label, size, limit):
    out = subprocess.run([sys.executable, __file__, "--one", label, *map(str, size)], capture_output=True,
                         text=True, timeout=limit)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", nargs="*", help="back end labels (substrings; default all)")
    parser.add_argument("--json", help="write every point's figures to this file")
    parser.add_argument("--limit", type=float, default=120, help="wall seconds before a point is abandoned")
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        label, *size = args.one
        print(json.dumps(measure(label, tuple(int(s) for s in size))))
        return
    labels = [lab for lab in CASES if not args.labels or any(s in lab for s in args.labels)]
    points, rows = {}, []
    start = time.time()
    for label in labels:
        _, base, dims, *_ = CASES[label]
        points[label, base] = run_point(label, base, args.limit)
        cells = {}
        for dimension in dims:
            size = grow(base, dimension)
            try:
                points[label, size] = run_point(label, size, args.limit)
            except subprocess.TimeoutExpired:
                points[label, size] = {"error": f"over {args.limit:g} s wall"}
            a, b = points[label, base], points[label, size]
            if "error" in a or "error" in b:
                cells[dimension] = f"error: {a.get('error') or b.get('error')}"
            else:
                raw, marginal = exponents(a, b)
                cells[dimension] = f"{raw:.2f} / {'-' if marginal is None else f'{marginal:.2f}'} " \
                                   f"({a['cpu']:.2f} -> {b['cpu']:.2f} s)"
            print(f"{label:42s} {dimension:6s} {'x'.join(map(str, base))} -> {'x'.join(map(str, size))}: "
                  f"{cells[dimension]}  fixed {a.get('fixed', float('nan')):.3f} s", flush=True)
        rows.append((label, base, cells))
    print(f"\n{time.time() - start:.0f} s wall in all\n")
    print("| back end | base agents x tasks x runs | runs: raw / marginal (CPU s) | tasks | agents | fixed cost |")
    print("|---|---|---|---|---|---|")
    for label, base, cells in rows:
        fixed = points[label, base].get("fixed")
        print(f"| {label} | {' x '.join(map(str, base))} | "
              + " | ".join(cells.get(d, "n/a") for d in DIMENSIONS)
              + f" | {'' if fixed is None else f'{fixed:.2f} s'} |")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump([{"label": lab, "size": size, **value} for (lab, size), value in points.items()], handle,
                      indent=1)


if __name__ == "__main__":
    main()
