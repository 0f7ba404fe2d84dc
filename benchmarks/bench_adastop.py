"""Benchmark: AdaStop, a full sequential test interim by interim.

Run from the repository root::

    python benchmarks/bench_adastop.py
    python benchmarks/bench_adastop.py --repeat 20

Measured (issue 4 §6): 4 agents, K = 6 interims, n = 5 runs per agent per
interim, B = 10,000 permutation paths, alpha = 0.05, every agent N(0, 1) so
that no comparison is decided and all 6 interims run with all 6 comparisons
(the slowest case of a replay).  Timed three ways, median of ``--repeat``
runs:

* the tests alone, from a ready Design: AdaStop's numbers-only path, the one
  :func:`rlstats.power` takes (``rlstats.methods.operation("adastop.outcomes")``:
  the same tests and random streams as ``adastop()``, without tables or Result);
* the incremental ``AdaStop``: one ``update()`` per batch, then ``result()``;
* the one-shot ``adastop()`` from a DataFrame (formula, design, batches,
  result tables).

Every call is a public or documented one, so the options (the permutation scheme, and
whether it is joint) are chosen by the package as a user's call would have them.

The default scheme (joint relabelling of the pooled runs, random paths from
the first interim) is timed throughout.  Further settings give the scaling:
shifted agents (decisions along the way), 8 agents (28 comparisons), n = 3
and n = 10, and the paper's pairwise scheme (exact tree while it fits: 126
paths at the first interim for n = 5; 10, 200, 4000 for n = 3).  Peak memory
is measured by tracemalloc in a separate, untimed run.  When the reference package ``adastop`` is importable, its
``MultipleAgentsComparator`` is timed on the same data and the ratio printed
(target: under 50 ms here; the package takes about 0.64 s for K = 5).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

import rlstats
from rlstats.methods import operation
from rlstats.methods.adastop import AdaStop, adastop
from measure import median_time, peak_memory  # benchmarks/measure.py


def scores(n_agents, n, max_interims, shift, seed=0):
    """(agents, K, n) normal scores; agent l has mean shift * l."""
    gen = np.random.default_rng(seed)
    return gen.normal(size=(n_agents, max_interims, n)) + shift * np.arange(n_agents)[:, None, None]


def long_frame(data):
    n_agents, max_interims, n = data.shape
    agent = np.repeat([f"a{l}" for l in range(n_agents)], max_interims * n)
    seed = np.tile(np.arange(max_interims * n), n_agents)
    return pd.DataFrame({"agent": agent, "seed": seed, "score": data.reshape(-1)})


def ready_design(data):
    """The Design of ``score ~ agent`` on the long frame (batches in row order), built once, untimed."""
    return rlstats.build(long_frame(data), "score ~ agent")


def run_tests(design, n, max_interims, n_resamples, permutations="joint"):
    """Per task: whether a comparison was decided, and the mean runs used per agent (adastop's tests only)."""
    return operation("adastop.outcomes")(design, rng=0, n=n, K=max_interims, n_resamples=n_resamples,
                                         permutations=permutations)


def run_incremental(data, n_resamples):
    n_agents, max_interims, n = data.shape
    agents = [f"a{l}" for l in range(n_agents)]
    seq = AdaStop(agents, n=n, K=max_interims, n_resamples=n_resamples, rng=0)
    while not seq.done:
        seq.update({a: data[agents.index(a), seq.interim] for a in seq.agents_to_run})
    return seq.result()


def run_one_shot(frame, n, max_interims, n_resamples):
    return adastop(frame, "score ~ agent", n=n, K=max_interims, n_resamples=n_resamples, rng=0)


def run_package(data, n_resamples):
    """The reference package on the same data (only when it is installed)."""
    from adastop import MultipleAgentsComparator

    n_agents, max_interims, n = data.shape
    comparator = MultipleAgentsComparator(n=n, K=max_interims, B=n_resamples, alpha=0.05, seed=0)
    evals = {f"a{l}": np.array([]) for l in range(n_agents)}
    for k in range(max_interims):
        for l in range(n_agents):
            if k == 0 or l in np.asarray(comparator.current_comparisons).ravel():
                evals[f"a{l}"] = np.hstack([evals[f"a{l}"], data[l, k]])
        comparator.partial_compare(evals, verbose=False)
        if comparator.is_finished:
            break
    return comparator


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per setting (median reported)")
    parser.add_argument("--n-resamples", type=int, default=10_000)
    args = parser.parse_args(argv)
    b = args.n_resamples

    print(f"numpy {np.__version__}, pandas {pd.__version__}; B = {b}, alpha = 0.05, median of {args.repeat} runs\n")
    headline = scores(4, 5, 6, 0.0)
    frame, design = long_frame(headline), ready_design(headline)
    rows = [
        ("the tests alone, from a ready Design", lambda: run_tests(design, 5, 6, b)),
        ("incremental AdaStop (update per batch + result)", lambda: run_incremental(headline, b)),
        ("one-shot adastop() from a DataFrame", lambda: run_one_shot(frame, 5, 6, b)),
    ]
    print("Headline: 4 agents, K = 6, n = 5, all equal (6 interims x 6 comparisons), target < 50 ms")
    for label, function in rows:
        print(f"  {label:<50s} {1e3 * median_time(function, args.repeat):8.1f} ms")
    decided, runs_used = run_tests(design, 5, 6, b)
    assert not decided.any() and runs_used[0] == 6 * 5, "the headline must run every interim"
    peak = peak_memory(lambda: run_incremental(headline, b))
    print(f"  peak memory (tracemalloc), incremental run       {peak / 2**20:8.1f} MB")

    print("\nScaling (the tests alone, from a ready Design):")
    settings = [
        ("4 agents, n = 5, shifts of 0.5 sd", scores(4, 5, 6, 0.5), "joint"),
        ("8 agents (28 comparisons), n = 5, all equal", scores(8, 5, 6, 0.0), "joint"),
        ("4 agents, n = 3, all equal", scores(4, 3, 6, 0.0), "joint"),
        ("4 agents, n = 10, all equal", scores(4, 10, 6, 0.0), "joint"),
        ("pairwise (paper): 4 agents, n = 5, all equal", headline, "pairwise"),
        ("pairwise (paper): 4 agents, n = 3 (exact tree to 4000)", scores(4, 3, 6, 0.0), "pairwise"),
    ]
    for label, data, scheme in settings:
        ready, n = ready_design(data), data.shape[2]
        seconds = median_time(lambda d=ready, n=n, scheme=scheme: run_tests(d, n, 6, b, scheme), args.repeat)
        peak = peak_memory(lambda d=ready, n=n, scheme=scheme: run_tests(d, n, 6, b, scheme))
        print(f"  {label:<55s} {1e3 * seconds:8.1f} ms   peak {peak / 2**20:6.1f} MB")

    try:
        import adastop as package
    except ImportError:
        print("\nThe reference package `adastop` is not installed: no side-by-side timing.")
        return 0
    five = scores(4, 5, 5, 0.0)
    theirs = median_time(lambda: run_package(five, b), max(3, args.repeat // 5))
    ready = ready_design(five)
    for scheme in ("joint", "pairwise"):
        ours = median_time(lambda scheme=scheme: run_tests(ready, 5, 5, b, scheme), args.repeat)
        print(f"\nK = 5, 4 equal agents ({scheme}): rlstats {1e3 * ours:.1f} ms, adastop {package.__version__} "
              f"{1e3 * theirs:.1f} ms, ratio {theirs / ours:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
