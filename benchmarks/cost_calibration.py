"""Issue 43 item 2: each back end's declared cost formula (rlstats.cost) against measured CPU time.

    python benchmarks/cost_calibration.py [back end ...]

For every back end, a few designs whose calls take about a second or more: the estimate the call makes before
computing (read from the DEBUG records of the rlstats.cost logger, which every call's estimate passes through) and the call's CPU seconds
(``time.process_time``: the machine may be shared). Prints one Markdown row per call and the largest
measured / estimated ratio either way, over every call and over the calls of a second or more, which
rlstats.cost.FACTOR states. One thread (OMP/OpenBLAS), in one process,
after a warm-up call (imports).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def sweep(n_configs, seeds, agents=1, tasks=1):
    """Each agent's sweep of ``n_configs`` configurations on a grid of two hyperparameters, ``seeds`` seeds each, on
    every task (one agent, "ppo", on one task, "t0", by default)."""
    import numpy as np
    import pandas as pd

    side = math.isqrt(n_configs - 1) + 1
    rng = np.random.default_rng(0)
    config = np.arange(n_configs)
    frames = []
    for a in range(agents):
        for t in range(tasks):
            score = rng.normal(0, 1, n_configs)[:, None] + rng.normal(0, 1, (n_configs, seeds))
            frames.append(pd.DataFrame({"agent": "ppo" if agents == 1 else f"agent_{a}",
                                        "task": "t0" if tasks == 1 else f"t{t}", "lr": np.repeat(config // side, seeds),
                                        "gamma": np.repeat(config % side, seeds),
                                        "seed": np.tile(np.arange(seeds), n_configs), "score": score.ravel()}))
    return pd.concat(frames, ignore_index=True)


def own_task_pairs(agents, runs=8):
    """Every pair of ``agents`` on a task of its own, ``runs`` runs each: the rank post hoc's exact pair p-values at
    their most work (no task's law shared between pairs)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = [(f"agent_{a}", f"task_{a}_{b}", x) for a, b in zip(*np.triu_indices(agents, 1)) for x in rng.normal(size=runs)]
    rows += [(f"agent_{b}", f"task_{a}_{b}", x) for a, b in zip(*np.triu_indices(agents, 1))
             for x in rng.normal(size=runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "score"])


def cases():
    """(back end, label, data maker, formula, options)."""
    import rlstats

    sim, curves = rlstats.datasets.simulate, rlstats.datasets.simulate_curves
    flat, nested = "score ~ agent | task", "score ~ agent | task/seed"
    reported = {"treatment": "agent_3", "baseline": "agent_1", "reported": ["task_01", "task_02", "task_03"]}
    return [
        ("bootstrap", "3 x 5 x 200, R=2,000", lambda: sim(3, 5, 200, rng=0), flat, {"n_resamples": 2000}),
        ("bootstrap", "10 x 10 x 1,000, R=50", lambda: sim(10, 10, 1000, rng=0), flat, {"n_resamples": 50}),
        # 10,000 runs a cell: 8.4% of 16-bit draws would be rejected, so 32-bit values (resampling.lane_bits)
        ("bootstrap", "2 x 5 x 10,000, R=200", lambda: sim(2, 5, 10_000, rng=0), flat, {"n_resamples": 200}),
        # session 11: the default studentised interval beside the percentile one, four metrics and one, large and small
        ("bootstrap", "4 x 10 x 1,000, R=1,000", lambda: sim(4, 10, 1000, rng=0), flat, {"n_resamples": 1000}),
        ("bootstrap", "2 x 20 x 10,000, R=1,000", lambda: sim(2, 20, 10_000, rng=0), flat, {"n_resamples": 1000}),
        ("bootstrap", "2 x 20 x 10,000, R=1,000, percentile", lambda: sim(2, 20, 10_000, rng=0), flat,
         {"n_resamples": 1000, "interval": "percentile"}),
        ("bootstrap", "2 x 20 x 10,000, R=1,000, IQM", lambda: sim(2, 20, 10_000, rng=0), flat,
         {"n_resamples": 1000, "metrics": ["iqm"]}),
        ("bootstrap", "2 x 20 x 10,000, R=1,000, IQM percentile", lambda: sim(2, 20, 10_000, rng=0), flat,
         {"n_resamples": 1000, "metrics": ["iqm"], "interval": "percentile"}),
        ("bootstrap", "4 x 26 x 5, R=5,000, IQM", lambda: sim(4, 26, 5, rng=0), flat,
         {"n_resamples": 5000, "metrics": ["iqm"]}),
        ("probability_of_improvement", "6 x 20 x 50, R=2,000", lambda: sim(6, 20, 50, rng=0), flat, {}),
        ("performance_profile", "4 x 20 x 100, tasks, R=2,000", lambda: sim(4, 20, 100, rng=0), flat,
         {"kind": "tasks"}),
        # the t band above draws nothing since session 10: the percentile band resamples
        ("performance_profile", "4 x 20 x 1,000, percentile R=2,000", lambda: sim(4, 20, 1000, rng=0), flat,
         {"interval": "percentile", "n_resamples": 2000}),
        ("percentiles", "5 x 20 x 10, PBP", lambda: sim(5, 20, 10, rng=0), flat, {}),
        ("percentiles", "8 x 10 x 10, PBP", lambda: sim(8, 10, 10, rng=0), flat, {"n_resamples": 2000}),
        ("percentiles", "10 x 20 x 10, PBP", lambda: sim(10, 20, 10, rng=0), flat, {}),
        ("percentiles", "8 x 10 x 10, bootstrap R=2,000", lambda: sim(8, 10, 10, rng=0), flat,
         {"interval": "bootstrap", "n_resamples": 2000}),
        ("skillings_mack", "6 x 30 x 50, Monte Carlo", lambda: sim(6, 30, 50, rng=0), flat,
         {"pvalue": "monte_carlo"}),
        # 1,200 runs a task: doubled mid-ranks too wide to pack beside the sort keys (resampling.permute_blocks)
        ("skillings_mack", "6 x 30 x 200, Monte Carlo R=2,000", lambda: sim(6, 30, 200, rng=0), flat,
         {"pvalue": "monte_carlo", "n_resamples": 2000}),
        # audit s18: the post hoc's exact pair p-values, every pair of 8 and 20 agents on a task of its own of 8 + 8
        # runs (12,870 arrangements a pair, no law shared), priced as an upper bound of 20,000 arrangements a pair
        ("skillings_mack", "8 agents, a task of 8 + 8 runs a pair, post hoc", lambda: own_task_pairs(8), flat, {}),
        ("skillings_mack", "20 agents, a task of 8 + 8 runs a pair, post hoc", lambda: own_task_pairs(20), flat, {}),
        ("adastop", "4 x 5 x 50, n=10", lambda: sim(4, 5, 50, rng=0), flat, {"n": 10}),
        ("permutation", "3 x 10 x 100", lambda: sim(3, 10, 100, rng=0), flat, {}),
        ("curves", "3 x 5 x 10 runs x 50 steps, R=2,000", lambda: curves(3, 5, 10, 50, rng=0), nested,
         {"step": "step", "n_resamples": 2000, "compare": "all"}),
        ("curves", "3 x 5 x 10 runs x 500 steps, defaults", lambda: curves(3, 5, 10, 500, rng=0), nested,
         {"step": "step"}),
        ("percentiles", "6 x 10 x 20, bootstrap R=2,000", lambda: sim(6, 10, 20, rng=0), flat,
         {"interval": "bootstrap", "n_resamples": 2000}),
        ("mixed", "10 x 300 x 10", lambda: sim(10, 300, 10, rng=0), flat, {}),
        ("mixed", "10 x 1,000 x 10", lambda: sim(10, 1000, 10, rng=0), flat, {}),
        ("task_table", "5 x 40 x 20, aggregate", lambda: sim(5, 40, 20, rng=0), flat, {"aggregate": "bootstrap"}),
        ("selection", "3 x 40 x 50", lambda: sim(3, 40, 50, rng=0), flat, reported),
        ("selection", "3 x 200 x 10, R=99,999", lambda: sim(3, 200, 10, rng=0), flat,
         {**reported, "reported": ["task_001", "task_002", "task_003"], "n_resamples": 99_999}),
        ("equivalence", "5 x 40 x 100", lambda: sim(5, 40, 100, rng=0), flat, {"margin": 1.0}),
        ("equivalence", "5 x 40 x 300", lambda: sim(5, 40, 300, rng=0), flat, {"margin": 1.0}),
        ("bayes", "6 x 40 x 5, signed rank", lambda: sim(6, 40, 5, rng=0), nested, {}),
        ("bayes", "3 x 10 x 5, hierarchical", lambda: sim(3, 10, 5, rng=0), nested, {"model": "hierarchical"}),
        ("bayes", "6 x 100 x 5, signed rank", lambda: sim(6, 100, 5, rng=0), nested, {}),
        ("bayes", "4 x 20 x 5, hierarchical", lambda: sim(4, 20, 5, rng=0), nested, {"model": "hierarchical"}),
        ("tuning", "2,000 configurations x 10 seeds", lambda: sweep(2000, 10), nested, {"config": ["lr", "gamma"]}),
        ("tuning", "10,000 configurations x 10 seeds", lambda: sweep(10_000, 10), nested,
         {"config": ["lr", "gamma"]}),
        ("tuning", "10,000 x 10, best set and expected max", lambda: sweep(10_000, 10), nested,
         {"config": ["lr", "gamma"], "views": ["best_set", "expected_max"]}),
        ("tuning", "2,000 x 10, percentile band", lambda: sweep(2000, 10), nested,
         {"config": ["lr", "gamma"], "band": "percentile"}),
        ("tuning", "2 agents x 3 tasks x 500 x 5, percentile band", lambda: sweep(500, 5, 2, 3), nested,
         {"config": ["lr", "gamma"], "band": "percentile"}),
        # power(): the study's estimate (drawing the data sets, each analysis's declared cost on them) against the whole
        # study (its dry run, one call a number of seeds before the estimate, included), 2 agents x
        # 5 tasks at 3, 5, 10 and 20 seeds (3 withheld for the bootstrap), 40 data sets each
        *(("power", f"{method}, 2 x 5, 40 data sets{label}", None, None, {"method": method, **given})
          for method, label, given in (("skillings_mack", "", {}),
                                       ("skillings_mack", ", Monte Carlo R=2,000",
                                        {"pvalue": "monte_carlo", "n_resamples": 2000}),
                                       ("adastop", "", {}), ("permutation", "", {}), ("bootstrap", "", {}),
                                       ("bootstrap", ", percentile", {"interval": "percentile"}),
                                       ("bootstrap", ", R=5,000", {"n_resamples": 5000}))),
        # audit s16: the blocked rank test's batched p-values (one exact null a design for simulated data, one a data
        # set for a resampled pilot's tied ones): its default study, a large design (chi-squared), and a pilot
        ("power", "skillings_mack, defaults: 2 x 10, 1,000 data sets", None, None,
         {"method": "skillings_mack", "effect": 0.0, "tasks": 10, "n_sim": 1000}),
        ("power", "skillings_mack, 8 x 26, 200 data sets", None, None,
         {"method": "skillings_mack", "agents": 8, "tasks": 26, "n_sim": 200}),
        ("power", "skillings_mack, pilot 2 x 10 x 5 (ties), seeds 3, 5, 10, 200 data sets", None, None,
         {"method": "skillings_mack", "design": sim(2, 10, 5, rng=1), "formula": flat, "effect": 0.5, "tasks": None,
          "seeds": [3, 5, 10], "n_sim": 200}),
    ]


def main(only):
    import rlstats
    from rlstats import cost

    warnings.simplefilter("ignore")
    seen = []

    class Estimates(logging.Handler):
        """Collects the Work of every estimate rlstats.cost logs (at DEBUG level) as the calls make them."""

        def emit(self, record):
            seen.append((record.getMessage(), record.work))

    log = logging.getLogger("rlstats.cost")
    log.setLevel(logging.DEBUG)
    log.addHandler(Estimates())
    rlstats.bootstrap(rlstats.datasets.simulate(2, 2, 3, rng=0), "score ~ agent | task", n_resamples=10)  # warm-up
    print("| back end | design (agents x tasks x runs) | estimated s | measured CPU s | measured / estimated |")
    print("|---|---|---|---|---|")
    ratios = []
    for name, label, make, formula, options in cases():
        if only and name not in only:
            continue
        seen.clear()
        if name == "power":
            start = time.process_time()
            rlstats.power(**{"effect": 1.0, "tasks": 5, "n_sim": 40, **options}, rng=0, progress=False)
            measured = time.process_time() - start
            # the study's estimate (the analyses of its dry run, before it, log their own)
            estimated = next(work for message, work in seen if message.startswith("this power study")).seconds
        else:
            data = make()
            function = rlstats.methods.backend(name)
            start = time.process_time()
            function(data, formula, rng=0, progress=False, **options)
            measured = time.process_time() - start
            estimated = seen[0][1].seconds  # the call's own estimate (an inner bootstrap's comes after it)
        ratios.append((measured, measured / estimated))
        print(f"| {name} | {label} | {estimated:.3g} | {measured:.3g} | {measured / estimated:.2f} |", flush=True)
    if ratios:
        # FACTOR states calls of a second or more: faster ones carry fixed costs (imports, frames) no formula counts
        for what, kept in (("every call", ratios), ("calls of 1 s or more", [r for r in ratios if r[0] >= 1])):
            if kept:
                worst = max(max(r for _, r in kept), 1 / min(r for _, r in kept))
                print(f"\nlargest factor either way, {what}: {worst:.2f} (rlstats.cost.FACTOR = {cost.FACTOR:g})")


if __name__ == "__main__":
    main(sys.argv[1:])
