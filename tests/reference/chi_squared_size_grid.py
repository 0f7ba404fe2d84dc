"""Size of the rank test's chi-squared p-value on the complete designs where ``pvalue="auto"`` takes it (audit s38,
sm38): the grid ``_kernels._SIZE_GRID`` names and the maximum the printed reason quotes.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python tests/reference/chi_squared_size_grid.py [--jobs 2] [--most N]

Designs: every agent ``runs`` times on every task, 3-8 agents x 3-50 tasks (``TASKS``, Atari 100k's 26 among them) x
1, 2, 3, 5, 10 or 20 runs per cell, those whose automatic p-value is chi-squared (``_kernels.auto_case``: the others
are enumerated or Monte Carlo); the default test, Friedman's with R's tie correction at one run per cell, Mack and
Skillings' (no tie correction) with several. Under the null every run of a task is exchangeable, so the test's size
depends on the scores only through their ties: each task's runs take a uniform random permutation of the ranks
1..q (q = agents x runs), and a tie pattern drawn independently of it gives its mid-ranks (the tied runs those at
consecutive rank positions, as iid scores with that pattern would). Families (``FAMILIES``):

``untied``: continuous scores (the permutation law of the ranks);
``capped_half``: each run at the task's cap with probability 1/2, continuous below (Binomial(q, 1/2) runs tie at the
top); ``capped_85``: with probability 0.85 (the calibration grid's ``saturated``); ``five_levels``: integer scores on
five equally likely values (Multinomial(q, 1/5 each)).

The permutations are shared by the families (their sizes are correlated, each is exact in law). A design draws
``CHUNK`` (10,000) permutations at a time, up to ``MOST`` (40,000), and stops once every family's size is more than
3 Monte Carlo SE (sqrt(0.05 x 0.95 / B)) from 0.05: 0.0065 at 10,000, 0.0046 at 20,000, 0.0033 at 40,000; so a
size read on fewer than 40,000 lies more than 3 SE below (or above) 0.05. Each chunk from its own seed
(``SeedSequence([38, agents, tasks, runs, chunk])``), so the table is the same whatever ``--jobs``. The statistic is
the package's quadratic form (``_kernels.quadratic_form`` on a setup of the design; tests/test_audit_s38_sm38.py
checks it on data sets against ``rlstats.skillings_mack``), rejecting where the chi-squared p-value is <= 0.05.

Measured (session 38; 23 CPU-minutes, --jobs 2): the full table, one line a design, each family's size and the
permutations it took, is this script's standard output, kept beside it (``TABLE``, ``chi_squared_size_grid.txt``).
456 of the grid's 468 designs take the chi-squared p-value (the others, at one run per cell: 3 agents on 3-6 tasks
and 4 on 3, enumerated; 3 agents on 8-30 tasks, Monte Carlo); 364 took 40,000 permutations, 20 30,000, 28 20,000,
44 10,000. No size lies more than 3 SE above 0.05 (0.0533 at 40,000), so the rule keeps chi-squared on all of them:
the largest is 0.0522 untied (7 x 16 x 20 and 3 x 30 x 2; SE 0.0011), 0.0503 tied (capped_half at 3 x 50 x 1,
Friedman's tie-corrected statistic); the least 0.0149 (6 x 3 x 1, untied). Untied, several runs per cell: 0.034
(8 x 3 x 2) to 0.0522. Mack and Skillings' statistic takes no tie correction, so ties lower its size: 0.012-0.033
with half the runs at a cap, at most 0.0007 with 85%, 0.022-0.045 on five levels; at one run per cell Friedman's
tie-corrected statistic keeps the tied families' largest at 0.049-0.0503 (40-50 tasks), their least 0.005-0.017 (3
tasks). Per agents and runs, each family's largest size over the task counts (at how many tasks), from
``--summary``::

    agents runs           untied      capped_half        capped_85      five_levels
         3    1      0.0511 (40)      0.0503 (50)      0.0490 (50)      0.0499 (50)
         3    2      0.0522 (30)      0.0268 (40)      0.0004 ( 3)      0.0353 (40)
         3    3      0.0505 (30)      0.0286 (16)      0.0006 ( 4)      0.0382 (50)
         3    5      0.0511 (40)      0.0305 (40)      0.0005 (20)      0.0408 (40)
         3   10      0.0517 (12)      0.0322 (20)      0.0007 ( 5)      0.0434 (20)
         3   20      0.0512 (40)      0.0333 (26)      0.0006 ( 5)      0.0446 (40)
         4    1      0.0488 (50)      0.0497 (50)      0.0477 (40)      0.0501 (40)
         4    2      0.0496 (26)      0.0247 (30)      0.0005 ( 4)      0.0344 (30)
         4    3      0.0500 (10)      0.0263 (30)      0.0004 ( 4)      0.0379 (40)
         4    5      0.0518 (40)      0.0285 (40)      0.0003 ( 3)      0.0409 (50)
         4   10      0.0511 (16)      0.0306 ( 5)      0.0003 ( 6)      0.0426 (50)
         4   20      0.0507 (10)      0.0308 (20)      0.0003 (40)      0.0430 (10)
         5    1      0.0502 (50)      0.0501 (50)      0.0489 (50)      0.0497 (50)
         5    2      0.0499 (40)      0.0235 (50)      0.0004 ( 3)      0.0351 (40)
         5    3      0.0493 (50)      0.0252 (26)      0.0001 ( 3)      0.0376 (26)
         5    5      0.0511 (20)      0.0274 (20)      0.0002 ( 3)      0.0399 (40)
         5   10      0.0509 (26)      0.0278 (40)      0.0002 ( 8)      0.0419 ( 8)
         5   20      0.0520 (30)      0.0296 (16)      0.0001 ( 5)      0.0430 (16)
         6    1      0.0489 (50)      0.0486 (50)      0.0467 (50)      0.0483 (30)
         6    2      0.0511 (50)      0.0228 (50)      0.0001 ( 3)      0.0350 (50)
         6    3      0.0507 (40)      0.0242 (50)      0.0001 ( 4)      0.0387 (40)
         6    5      0.0512 (16)      0.0262 (16)      0.0001 ( 3)      0.0405 (40)
         6   10      0.0504 ( 8)      0.0262 (20)      0.0001 ( 3)      0.0405 (20)
         6   20      0.0516 (50)      0.0271 (40)      0.0001 ( 3)      0.0431 (16)
         7    1      0.0492 (50)      0.0491 (40)      0.0477 (50)      0.0490 (40)
         7    2      0.0506 (12)      0.0215 (12)      0.0001 ( 5)      0.0351 (30)
         7    3      0.0508 (26)      0.0230 (20)      0.0001 ( 8)      0.0370 (30)
         7    5      0.0515 (20)      0.0243 (12)      0.0001 ( 3)      0.0399 (20)
         7   10      0.0519 (16)      0.0257 (16)      0.0001 ( 4)      0.0409 (16)
         7   20      0.0522 (16)      0.0263 (30)      0.0001 (16)      0.0420 (16)
         8    1      0.0503 (50)      0.0497 (50)      0.0488 (50)      0.0500 (50)
         8    2      0.0494 (16)      0.0211 (50)      0.0001 ( 4)      0.0348 (12)
         8    3      0.0507 (40)      0.0237 (40)      0.0001 ( 5)      0.0377 (40)
         8    5      0.0510 (20)      0.0229 (30)      0.0000 ( 3)      0.0388 (40)
         8   10      0.0516 (12)      0.0243 (16)      0.0000 ( 3)      0.0412 (12)
         8   20      0.0520 (26)      0.0252 (26)      0.0000 ( 3)      0.0414 (26)
"""

from __future__ import annotations

import argparse
import math
import pathlib

import numpy as np

AGENTS = (3, 4, 5, 6, 7, 8)
TASKS = (3, 4, 5, 6, 8, 10, 12, 16, 20, 26, 30, 40, 50)
RUNS = (1, 2, 3, 5, 10, 20)
#: the tie pattern of a family: None (untied), ("cap", p) or ("levels", probabilities)
FAMILIES = {"untied": None, "capped_half": ("cap", 0.5), "capped_85": ("cap", 0.85),
            "five_levels": ("levels", (0.2,) * 5)}
ALPHA, CHUNK, MOST = 0.05, 10_000, 40_000
#: elements (permutations x tasks x runs of a task) a batch holds: 16 MiB of float64
ELEMENTS = 2**21
#: the table this script printed (its standard output)
TABLE = pathlib.Path(__file__).with_suffix(".txt")


def variant(runs):
    """The kernel's variant and tie correction of the default test at this many runs per cell."""
    return ("skillings_mack", True) if runs == 1 else ("mack_skillings", False)


def designs(agents=AGENTS, tasks=TASKS, runs=RUNS):
    """(agents, tasks, runs) of the grid whose automatic p-value is chi-squared."""
    from rlstats.methods.skillings_mack import _kernels

    return [(k, n, c) for k in agents for n in tasks for c in runs
            if _kernels.auto_case(np.full((n, k), c), variant(c)[0]) == "asymptotic"]


def setup_of(agents, tasks, runs):
    """The package's setup of the design (untied; rows task-major, then agent, then run)."""
    from rlstats.methods.skillings_mack import _kernels

    task, agent, _ = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    return _kernels.build_setup(np.arange(task.size, dtype=float), agent.ravel(), task.ravel(), agents, tasks,
                                variant=variant(runs)[0])


def tied(ranks, family, rng):
    """Mid-ranks of ``ranks`` (shape (b, n, q), a permutation of 1..q along the last axis) under ``family``'s tie
    pattern, drawn from ``rng``, and each task's sum of t^3 - t over its tie groups (shape (b, n))."""
    q = ranks.shape[-1]
    kind, parameter = family
    if kind == "cap":
        top = rng.binomial(q, parameter, size=ranks.shape[:-1])  # runs at the cap: the top rank positions
        capped = ranks > (q - top)[..., None]
        mid = (2 * q - top + 1) / 2.0
        return np.where(capped, mid[..., None], ranks), top.astype(float) ** 3 - top
    counts = rng.multinomial(q, parameter, size=ranks.shape[:-1])  # (b, n, levels)
    upper = np.cumsum(counts, axis=-1)
    mids = (upper - counts + 1 + upper) / 2.0
    group = np.zeros(ranks.shape, dtype=np.intp)  # each run's group: the levels below its rank position
    for level in range(counts.shape[-1] - 1):
        group += ranks > upper[..., level, None]
    return np.take_along_axis(mids, group, axis=-1), (counts.astype(float) ** 3 - counts).sum(axis=-1)


def statistics(setup, runs, ranks, tie_sum=None):
    """The default test's statistic on mid-ranks ``ranks`` (shape (b, n, k * runs), each task's runs agent-major),
    Friedman's divided by R's tie factor at one run per cell (0 where every task ties all its runs: p = 1)."""
    from rlstats.methods.skillings_mack import _kernels

    b, n, q = ranks.shape
    k = q // runs
    d = ranks.reshape(b, n, k, runs).sum(axis=(1, 3)) - n * runs * (q + 1) / 2.0
    t = _kernels.quadratic_form(setup, d * setup.weight[0])
    if variant(runs)[1] and tie_sum is not None:
        factor = 1.0 - tie_sum.sum(axis=-1) / (n * (k**3 - k))
        t = np.divide(t, factor, out=np.zeros_like(t), where=factor > 1e-12)
    return t


def draw(agents, tasks, runs, size, seed, setup=None):
    """{family: statistics} of ``size`` null data sets of the design, from ``seed`` (batched)."""
    setup = setup_of(agents, tasks, runs) if setup is None else setup
    q = agents * runs
    rng = np.random.default_rng(seed)
    per = max(1, ELEMENTS // (tasks * q))
    out = {family: [] for family in FAMILIES}
    base = np.arange(1, q + 1, dtype=np.int16)
    for start in range(0, size, per):
        b = min(per, size - start)
        ranks = rng.permuted(np.broadcast_to(base, (b, tasks, q)), axis=-1)
        for family, pattern in FAMILIES.items():
            if pattern is None:
                out[family].append(statistics(setup, runs, ranks.astype(float)))
            else:
                mid, tie_sum = tied(ranks, pattern, rng)
                out[family].append(statistics(setup, runs, mid, tie_sum))
    return {family: np.concatenate(values) for family, values in out.items()}


def measure(point, most=MOST):
    """One design: {family: (rejections, permutations)}, adaptively (the module docstring)."""
    from scipy import stats

    agents, tasks, runs = point
    setup = setup_of(agents, tasks, runs)
    critical = stats.chi2.isf(ALPHA, setup.df)
    hits = dict.fromkeys(FAMILIES, 0)
    done = 0
    while done < most:
        chunk = min(CHUNK, most - done)
        drawn = draw(agents, tasks, runs, chunk, [38, agents, tasks, runs, done // CHUNK], setup)
        for family, t in drawn.items():
            hits[family] += int(np.count_nonzero(t >= critical * (1 - 1e-9)))
        done += chunk
        se = math.sqrt(ALPHA * (1 - ALPHA) / done)
        if all(abs(h / done - ALPHA) > 3 * se for h in hits.values()):
            break
    return {family: (h, done) for family, h in hits.items()}


def row(point, result):
    """A line of the table: the design, then each family's size / the permutations it took (thousands)."""
    cells = [f"{h / b:.4f}/{b // 1000:>2}k" for h, b in result.values()]
    return f"{point[0]:6d} {point[1]:5d} {point[2]:4d} " + " ".join(f"{c:>14}" for c in cells)


def read_table(path=TABLE):
    """{(agents, tasks, runs): {family: (size, permutations)}} of a table this script printed."""
    out = {}
    for line in pathlib.Path(path).read_text().splitlines()[1:]:
        fields = line.split()
        cells = [cell.split("/") for cell in fields[3:]]
        out[tuple(int(f) for f in fields[:3])] = {family: (float(size), int(b[:-1]) * 1000)
                                                  for family, (size, b) in zip(FAMILIES, cells)}
    return out


def summary(table):
    """Per agents and runs, each family's largest size over the task counts (and at how many tasks): the lines of
    the module docstring."""
    lines = ["agents runs " + " ".join(f"{f:>16}" for f in FAMILIES)]
    for agents in AGENTS:
        for runs in RUNS:
            rows = {n: table[(k, n, c)] for (k, n, c) in table if k == agents and c == runs}
            if not rows:
                continue
            cells = []
            for family in FAMILIES:
                tasks = max(rows, key=lambda n: rows[n][family][0])
                cells.append(f"{rows[tasks][family][0]:.4f} ({tasks:2d})")
            lines.append(f"{agents:6d} {runs:4d} " + " ".join(f"{c:>16}" for c in cells))
    return "\n".join(lines)


def main():
    import sys
    from concurrent.futures import ProcessPoolExecutor, as_completed

    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--most", type=int, default=MOST)
    parser.add_argument("--summary", action="store_true", help="summarise the table already printed (TABLE)")
    args = parser.parse_args()
    if args.summary:
        print(summary(read_table()))
        return
    points = sorted(designs(), key=lambda p: -p[0] * p[1] * p[2])  # the longest first, for the workers' balance
    results = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(measure, p, args.most): p for p in points}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            print(row(futures[future], results[futures[future]]), file=sys.stderr, flush=True)
    print("agents tasks runs " + " ".join(f"{f:>14}" for f in FAMILIES))
    for point in sorted(results):
        print(row(point, results[point]))


if __name__ == "__main__":
    main()
