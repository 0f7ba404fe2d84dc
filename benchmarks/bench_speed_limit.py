"""Issue 17: the stratified bootstrap timed side by side with rliable and scipy.stats.bootstrap.

Run from the repository root (``PYTHONPATH=.`` or rlstats installed), with the Atari 100k
data reachable (``RLSTATS_DATA_MIRROR=/work/shared/data/raw`` offline)::

    python benchmarks/bench_speed_limit.py              # the table of issue 17 (peers in the same run)
    python benchmarks/bench_speed_limit.py --scaling    # tasks, runs and resamples, with peak memory
    python benchmarks/bench_speed_limit.py --memory     # peak memory at 10^5 and 10^6 runs per agent
    python benchmarks/bench_speed_limit.py --threads    # numpy's own scaling on two threads; page faults per call
    python benchmarks/bench_speed_limit.py --alternating 20   # the public call's variants, in turn in one process
    python benchmarks/bench_speed_limit.py --passes     # each numpy pass of the kernel alone, and the whole loop

The script calls the public functions and, for ``--passes``, the kernels' documented interface
(``methods/bootstrap/_kernels.py``: ``CountDrawer``, ``CountStatistics`` and their documented
attributes); it never replaces package code.  To time the code with a change undone, run
``bench_against_checkout.py`` against a checkout of the commit before it.

rliable 1.2.0 imports only with pandas < 3 (arch 7.2's ``deprecate_kwarg`` breaks on pandas 3,
spec anchors_ecosystem.md 1.1): run the script in an environment with ``pip install rliable
"pandas<3"`` to time it; a peer that does not import is skipped and the reason printed.

Workload (issue 17): Atari 100k, five agents (CURL, DER, DrQ, DrQ(eps), SPR) x 26 games x 100
runs, human-normalised, 2,000 stratified resamples, IQM + mean + median + optimality gap.
Every time is the best of ``--repeat`` calls, peers timed in the same process, one after the
other, so the ratios hold on a loaded machine; the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

import numpy as np
import scipy
from scipy import stats

import rlstats
from rlstats.methods.bootstrap import bootstrap, performance_profile, probability_of_improvement
from rlstats.resampling import DOT_BY_BLAS, UniformIndices, fixed_dot

sys.path.insert(0, os.path.dirname(__file__))
from measure import best_time, peak_memory  # noqa: E402  (benchmarks/measure.py)

FORMULA = "score ~ agent | task"
FIVE = ["CURL", "DER", "DrQ", "DrQ(eps)", "SPR"]
SIX = FIVE + ["OTRainbow"]
METRICS = ("iqm", "mean", "median", "optimality_gap")


def load():
    with open("/proc/loadavg") as handle:
        return " ".join(handle.read().split()[:3])



def atari(agents):
    runs = rlstats.datasets.load("atari100k")
    reference = rlstats.datasets.load("atari100k_reference")
    return rlstats.normalize(runs[runs["agent"].isin(agents)], reference)


def score_dict(df):
    """rliable's layout: agent -> (runs x games) matrix, run r = the r-th seed."""
    return {a: g.pivot(index="seed", columns="task", values="score").to_numpy() for a, g in df.groupby("agent")}


def rliable_peer():
    try:
        from rliable import library, metrics
    except Exception as error:  # noqa: BLE001 - any import failure skips the peer
        return None, f"{type(error).__name__}: {str(error)[:90]}"
    return (library, metrics), None


def rliable_aggregate(metrics):
    def aggregate(x):
        return np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x), metrics.aggregate_median(x),
                         metrics.aggregate_optimality_gap(x)])
    return aggregate


def scipy_metrics(*samples, axis=-1):
    """The four metrics of one agent from its per-task samples (vectorised over scipy's batch axis)."""
    pooled = np.concatenate(samples, axis=axis)
    means = np.stack([s.mean(axis=axis) for s in samples], axis=-1)
    return np.stack([stats.trim_mean(pooled, 0.25, axis=axis), means.mean(axis=-1), np.median(means, axis=-1),
                     np.mean(np.maximum(1.0 - pooled, 0.0), axis=axis)])


def scipy_bootstrap(scores, n_resamples, method="percentile"):
    for matrix in scores.values():
        stats.bootstrap(list(matrix.T), scipy_metrics, n_resamples=n_resamples, method=method, vectorized=True,
                        batch=100, rng=0)


def row(label, ours, peers, goal="", threaded=None):
    """One line: rlstats on one thread, each peer and its ratio to that, then rlstats with n_jobs=2 and its ratios."""
    cells = [f"{label:44s}", f"{ours:8.3f} s"]
    for name, seconds in peers:
        if seconds is None:
            cells.append(f"{name}: skipped")
        else:
            cells.append(f"{name} {seconds:7.2f} s ({seconds / ours:5.1f}x)")
    if threaded is not None:
        ratios = ", ".join(f"{seconds / threaded:.1f}x {name}" for name, seconds in peers if seconds is not None)
        cells.append(f"n_jobs=2 {threaded:6.3f} s" + (f" ({ratios})" if ratios else ""))
    print(" | ".join(cells) + (f" | goal {goal}" if goal else ""))


def table(repeat, peer_repeat, poi_reps):
    print(f"load average before: {load()}")
    df = atari(FIVE)
    scores = score_dict(df)
    peer, why = rliable_peer()
    if peer is None:
        print(f"rliable skipped: {why}")
    library, metrics = peer if peer else (None, None)

    def rly(function):
        return best_time(function, peer_repeat) if peer else None

    def timed(function):
        """rlstats on one thread and with n_jobs=2 (threads; identical results)."""
        return best_time(lambda: function(1), repeat), best_time(lambda: function(2), repeat)

    kw = dict(metrics=METRICS, n_resamples=2000, rng=0)
    bootstrap(df, FORMULA, **kw)  # untimed: the first call of a process grows the C heap (page faults)
    ours, two = timed(lambda jobs: bootstrap(df, FORMULA, n_jobs=jobs, **kw))
    theirs = rly(lambda: library.get_interval_estimates(scores, rliable_aggregate(metrics), reps=2000))
    sp = best_time(lambda: scipy_bootstrap(scores, 2000), peer_repeat)
    row("four metrics, percentile", ours, [("rliable", theirs), ("scipy", sp)], ">= 20x rliable", two)

    ours, two = timed(lambda jobs: bootstrap(df, FORMULA, rliable_compat=True, n_jobs=jobs, **kw))
    theirs = rly(lambda: library.get_interval_estimates(scores, rliable_aggregate(metrics), reps=2000))
    row("same, rliable_compat=True", ours, [("rliable", theirs)], ">= 10x rliable", two)

    ours, two = timed(lambda jobs: bootstrap(df, FORMULA, interval="bca", n_jobs=jobs, **kw))
    theirs = rly(lambda: library.get_interval_estimates(scores, rliable_aggregate(metrics), reps=2000, method="bca"))
    sp = best_time(lambda: scipy_bootstrap(scores, 2000, "BCa"), 1)
    row("same, BCa", ours, [("rliable", theirs), ("scipy", sp)], ">= 15x rliable", two)

    tau = np.linspace(0.0, 8.0, 81)
    ours, two = timed(lambda jobs: performance_profile(df, FORMULA, tau=tau, n_resamples=2000, rng=0, n_jobs=jobs))
    theirs = rly(lambda: library.create_performance_profile(scores, tau, reps=2000))
    row("performance profile with bands (81 points)", ours, [("rliable", theirs)], ">= 30x rliable", two)

    pair = [("SPR", "DrQ(eps)")]
    ours, two = timed(lambda jobs: probability_of_improvement(df, FORMULA, pairs=pair, n_resamples=2000, rng=0,
                                                              n_jobs=jobs))
    theirs = None
    if peer:
        pair_scores = {"SPR,DrQ(eps)": (scores["SPR"], scores["DrQ(eps)"])}
        theirs = rly(lambda: library.get_interval_estimates(pair_scores, metrics.probability_of_improvement,
                                                              reps=poi_reps)) * 2000 / poi_reps
    row(f"probability of improvement, one pair{'' if poi_reps == 2000 else ' *'}", ours, [("rliable", theirs)],
        "keep (170x)", two)
    if poi_reps != 2000:
        print(f"  * rliable timed at {poi_reps} resamples and scaled to 2,000 (its cost is linear in reps)")

    six = atari(SIX)
    six_scores = score_dict(six)
    ours, two = timed(lambda jobs: bootstrap(six, FORMULA, metrics=METRICS, n_resamples=5000, rng=0, n_jobs=jobs))
    sp = best_time(lambda: scipy_bootstrap(six_scores, 5000), peer_repeat)
    row("6 agents x 26 x 100, 5,000 resamples", ours, [("scipy", sp)], "ahead of scipy", two)
    print(f"load average after: {load()}")


def simulated(tasks, runs, agents=2):
    gen = np.random.default_rng(0)
    import pandas as pd

    a, t, r = np.meshgrid(np.arange(agents), np.arange(tasks), np.arange(runs), indexing="ij")
    return pd.DataFrame({"agent": a.ravel().astype(str), "task": t.ravel(), "seed": r.ravel(),
                         "score": gen.gamma(2.0, 0.5, size=a.size)})


def scaling(repeat):
    print(f"load average before: {load()}")
    print("two agents (a design needs two), four metrics, percentile; time best of", repeat,
          "; ns per resampled run = seconds / (2 x tasks x runs x resamples); peak = tracemalloc, separate run")
    print(f"{'tasks':>6} {'runs':>6} {'resamples':>9} {'seconds':>8} {'ns/draw':>8} {'peak MB':>8}")
    configs = ([(t, 100, 2000) for t in (10, 100, 1000)] + [(26, r, 2000) for r in (5, 50, 500, 1000)]
               + [(26, 100, b) for b in (1000, 10_000, 50_000)])
    for tasks, runs, reps in configs:
        df = simulated(tasks, runs)
        design = rlstats.build(df, FORMULA)

        def call():
            bootstrap(design, metrics=METRICS, n_resamples=reps, rng=0)
        seconds = best_time(call, repeat)
        peak = peak_memory(call) / 2**20
        print(f"{tasks:>6} {runs:>6} {reps:>9} {seconds:>8.3f} {seconds / (2 * tasks * runs * reps) * 1e9:>8.2f} "
              f"{peak:>8.1f}")
    print(f"load average after: {load()}")


def memory():
    print("peak memory (tracemalloc) of a bootstrap of two agents, 200 resamples, four metrics (runs per agent):")
    for tasks, runs in ((100, 1000), (1000, 1000)):
        design = rlstats.build(simulated(tasks, runs), FORMULA)
        for interval in ("percentile", "bca"):
            peak = peak_memory(lambda: bootstrap(design, metrics=METRICS, n_resamples=200, interval=interval,
                                                 rng=0)) / 2**20
            print(f"  {tasks * runs:>9,} runs, {interval:10s}: {peak:7.1f} MB")


def threads(repeat):
    """How numpy's own work scales on two threads here: the ceiling for n_jobs=2, and the page faults per call."""
    import resource
    import time
    from concurrent.futures import ThreadPoolExecutor

    def seconds(function, items, jobs):
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            if jobs == 1:
                list(map(function, items))
            else:
                with ThreadPoolExecutor(jobs) as pool:
                    list(pool.map(function, items))
            best = min(best, time.perf_counter() - start)
        return best

    arrays = [np.random.default_rng(i).random(2**21) for i in range(8)]

    def sort(x):
        np.sort(x)

    shape = (50, 2600)  # one work array of the counts path at 26 x 100 runs; 40 of them an item

    def draw(i):
        gen = np.random.default_rng(i)
        for _ in range(40):
            gen.integers(0, 100, size=shape)

    def draw16(i):  # the bootstrap's own draws (issue 17)
        draws = UniformIndices(np.random.SeedSequence(i), 100, shape[1])
        for _ in range(40):
            draws.rows(shape[0])

    keys = (np.random.default_rng(0).integers(0, 100, size=shape) + np.arange(shape[0] * 26).repeat(100).reshape(
        shape) * 100).ravel()
    counts = np.bincount(keys, minlength=keys.size).reshape(shape)

    def bincount(i):
        for _ in range(40):
            np.bincount(keys, minlength=keys.size)

    def cumsum(i):  # the IQM's and the profiles' cumulative counts, row by row
        for _ in range(40):
            np.cumsum(counts, axis=1)

    pooled = np.random.default_rng(1).random(shape)
    weights = np.random.default_rng(2).random(shape[1])

    def blas_dot(i):  # the counts path's weighted row sums: one BLAS dot per row, through np.matmul
        for _ in range(40):
            fixed_dot(pooled, weights)

    def einsum_dot(i):  # the same sums by einsum (other bits; the path where numpy does not link OpenBLAS)
        for _ in range(40):
            np.einsum("ij,j->i", pooled, weights)

    def partition(i):  # rliable_compat's IQM: rliable's own selection
        for _ in range(40):
            np.partition(pooled, (650, 1949), axis=1)

    def legacy(i):  # rliable_compat's draws: rliable's own legacy stream
        state = np.random.RandomState(i)
        for _ in range(40):
            state.choice(100, shape)

    print(f"load average before: {load()}")
    for name, function, items in (("np.sort, 8 x 2^21 floats", sort, arrays), ("Generator.integers", draw, range(8)),
                                  ("UniformIndices.rows", draw16, range(8)), ("np.bincount", bincount, range(8)),
                                  ("np.cumsum(axis=1)", cumsum, range(8)),
                                  ("fixed_dot (BLAS's dot)", blas_dot, range(8)),
                                  ("einsum row sums", einsum_dot, range(8)), ("np.partition", partition, range(8)),
                                  ("RandomState.choice", legacy, range(8))):
        one, two = seconds(function, items, 1), seconds(function, items, 2)
        print(f"{name:28s} 1 thread {one:6.3f} s, 2 threads {two:6.3f} s: {one / two:4.2f}x")
    df = atari(FIVE)
    for jobs in (1, 2):
        one = best_time(lambda: bootstrap(df, FORMULA, metrics=METRICS, n_resamples=2000, rng=0, n_jobs=jobs), repeat)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        bootstrap(df, FORMULA, metrics=METRICS, n_resamples=2000, rng=0, n_jobs=jobs)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
        print(f"bootstrap, percentile, n_jobs={jobs}: {one:6.3f} s, {faults} minor page faults in one more call")
    print(f"load average after: {load()}")


def passes(repeat):
    """Each numpy pass of the counts kernel timed alone on one chunk (26 tasks x 100 runs), then the whole loop."""
    import time

    import rlstats.resampling as resampling
    from rlstats.methods.bootstrap import _kernels as kernels
    rng = np.random.default_rng(0)
    layout = kernels.agent_layout(rng.gamma(2.0, 0.5, 2600), np.repeat(np.arange(26), 100), np.tile(np.arange(100), 26),
                                  26)
    drawer = kernels.CountDrawer(layout, np.random.SeedSequence(0))
    b, n = drawer.rows, layout.n_runs
    statistics = kernels.CountStatistics(layout, METRICS, 1.0, b)
    # (audit s33 bootstream33: each cell from its own stream, drawn and counted by CellIndices.counts)
    draws = resampling.CellIndices(drawer.seeds, layout.task_sizes, 0, 2**40, kernels.RNG_BLOCK)
    counts = draws.counts(b)
    as_float, cum, work = counts.astype(float), np.empty_like(counts), np.empty((b, n))

    def per_value(function, calls=200):
        function()
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(calls):
                function()
            best = min(best, (time.perf_counter() - start) / calls)
        return best / (b * n) * 1e9

    resampling.keep_work_arrays_on_heap()
    rows = [("draws + bincount (CellIndices.counts)", lambda: draws.counts(b)),
            ("float conversion", lambda: as_float.__setitem__(Ellipsis, counts)),
            ("task sums (einsum)", lambda: statistics.task_means(as_float)),
            ("optimality gap (weighted sum)", lambda: fixed_dot(as_float, statistics.clipped)),
            ("IQM in two windows (WindowedTrim)", lambda: statistics.windowed(counts, as_float, statistics.iqm))]
    full_iqm = [("permutation to sorted order (np.take)", lambda: np.take(counts, statistics.order, axis=1, out=cum)),
                ("cumulative sum (axis=1)", lambda: np.cumsum(cum, axis=1, out=cum)),
                ("clip and convert", lambda: np.clip(cum, n // 4, n - n // 4, out=work)),
                ("IQM (weighted sum)", lambda: fixed_dot(work[:, :-1], statistics.steps))]
    print(f"load average before: {load()}")
    print(f"one chunk of {b} resamples x {n} runs; ns per resampled run, best of {repeat}:")
    total = 0.0
    for label, function in rows:
        value = per_value(function)
        total += value
        print(f"  {label:40s} {value:6.2f}")
    print(f"  {'sum of the passes':40s} {total:6.2f}")
    einsum = per_value(lambda: np.einsum("ij,j->i", as_float, statistics.clipped))
    print(f"  {'a weighted sum by einsum (before)':40s} {einsum:6.2f}   (row sums by BLAS's dot: "
          f"{resampling.DOT_BY_BLAS})")
    a1, b1, a2, b2 = kernels.trim_windows(layout)
    print(f"  the IQM's windows are {b1 - a1 + b2 - a2} "
          f"of {n} runs; the full cumulative sum's passes (before issue 17's third round), not in the sum:")
    for label, function in full_iqm:
        print(f"  {label:40s} {per_value(function):6.2f}")
    # what the kernel replaced, timed on the same chunk
    integers = np.random.default_rng(0)
    means = statistics.task_means(as_float)
    print("  the passes replaced, beside the ones that replaced them:")
    for label, function in (("draws by Generator.integers + offsets",
                             lambda: np.add(integers.integers(0, drawer.high, size=(b, n)), drawer.offsets)),
                            ("median of task means (median_of_rows)", lambda: kernels.median_of_rows(means)),
                            ("median of task means (np.median)", lambda: np.median(means, axis=1))):
        print(f"  {label:40s} {per_value(function):6.2f}")
    for agent, runs in atari(FIVE).groupby("agent"):
        games = runs["task"].astype("category").cat.codes.to_numpy()
        windows = kernels.trim_windows(kernels.agent_layout(runs["score"].to_numpy(), games, runs["seed"].to_numpy(),
                                                            26))
        print(f"  Atari 100k, {agent}: windows {windows}, {windows[1] - windows[0] + windows[3] - windows[2]} of "
              f"{len(runs)} runs")
    blocks = kernels.agent_blocks(np.random.SeedSequence(1), 2000)

    full = kernels.CountStatistics(layout, METRICS, 1.0, b, windows=None)  # the IQM by full cumulative sums

    def loop(counted=statistics):
        for _, _, chunk in drawer.chunks(blocks):
            counted(chunk)
    print(f"  {'the whole loop (2,000 resamples)':40s} {per_value(loop, calls=2) * b / 2000:6.2f}")
    print(f"  {'same, IQM by full cumulative sums':40s} {per_value(lambda: loop(full), calls=2) * b / 2000:6.2f}")
    compat_passes(per_value, b)
    print(f"load average after: {load()}")


def compat_passes(per_value, b):
    """rliable_compat's passes on one batch of b resamples of a 100 x 26 run matrix, as rliable makes them.

    The legacy draws and ``np.partition`` are the calls rliable makes: any other
    sequence of draws, or any other selection (whose middle comes out in
    another order and so sums to other bits), would break bit-exactness.
    """
    runs, tasks = 100, 26
    matrix = np.random.default_rng(0).gamma(2.0, 0.5, (runs, tasks))
    state = np.random.RandomState(0)
    flat = state.choice(runs, (b, runs, tasks)) * tasks + np.arange(tasks)
    scores = matrix.ravel().take(flat)
    pooled, n = scores.reshape(b, runs * tasks), runs * tasks
    cut = int(0.25 * n)
    task_means = np.mean(scores, axis=1)
    rows = [("legacy draws (RandomState.choice)", lambda: state.choice(runs, (b, runs, tasks))),
            ("flat positions", lambda: flat * tasks + np.arange(tasks)),
            ("gather", lambda: matrix.ravel().take(flat)),
            ("task means", lambda: np.mean(scores, axis=1)),
            ("mean and median of task means", lambda: (np.mean(task_means, axis=1), np.median(task_means, axis=1))),
            ("IQM: np.partition", lambda: np.partition(pooled, (cut, n - cut - 1), axis=1)),
            ("IQM: mean of the middle", lambda: np.mean(pooled[:, cut:n - cut], axis=1)),
            ("optimality gap", lambda: 1.0 - np.mean(np.minimum(pooled, 1.0), axis=1))]
    print(f"rliable_compat's passes on one batch of {b} resamples x {n} runs; ns per resampled run:")
    total = 0.0
    for label, function in rows:
        value = per_value(function, calls=50)
        total += value
        print(f"  {label:40s} {value:6.2f}")
    print(f"  {'sum of the passes':40s} {total:6.2f}")


#: The public call's variants that --alternating times in turn: label -> keyword arguments of bootstrap().
VARIANTS = {
    "percentile": {},
    "percentile, n_jobs=2": {"n_jobs": 2},
    "BCa": {"interval": "bca"},
    "rliable_compat": {"rliable_compat": True},
    "rliable_compat, n_jobs=2": {"rliable_compat": True, "n_jobs": 2},
}


def alternating(rounds, n_resamples=2000):
    """The public call in each of its variants, called in turn in one process (ratios under the same load).

    Timing the code with a change undone is bench_against_checkout.py's job (this tree against another checkout).
    """
    import time

    df = atari(FIVE)
    times = {label: [] for label in VARIANTS}
    print(f"load average before: {load()}; row sums by BLAS's dot: {DOT_BY_BLAS}")
    for _ in range(rounds):
        for label, options in VARIANTS.items():
            start = time.perf_counter()
            bootstrap(df, FORMULA, metrics=METRICS, n_resamples=n_resamples, rng=0, **options)
            times[label].append(time.perf_counter() - start)
    for label, seconds in times.items():
        print(f"{label:44s} best {min(seconds):.3f} s, median {np.median(seconds):.3f} s "
              f"over {rounds} alternating calls of {n_resamples:,} resamples")
    print(f"load average after: {load()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scaling", action="store_true")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--threads", action="store_true", help="numpy's own scaling on two threads, page faults")
    parser.add_argument("--passes", action="store_true", help="each numpy pass of the kernel timed alone")
    parser.add_argument("--alternating", type=int, metavar="ROUNDS",
                        help="the public call's variants (n_jobs, BCa, rliable_compat), in turn in one process")
    parser.add_argument("--n-resamples", type=int, default=2000, help="resamples of each --alternating call")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-repeat", type=int, default=1)
    parser.add_argument("--poi-reps", type=int, default=200, help="rliable's resamples for the pair (scaled)")
    args = parser.parse_args()
    print(f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, "
          f"scipy {scipy.__version__}, rlstats {rlstats.__version__}")
    if args.scaling:
        scaling(args.repeat)
    elif args.memory:
        memory()
    elif args.threads:
        threads(args.repeat)
    elif args.passes:
        passes(args.repeat)
    elif args.alternating:
        alternating(args.alternating, args.n_resamples)
    else:
        table(args.repeat, args.peer_repeat, args.poi_reps)


if __name__ == "__main__":
    main()
