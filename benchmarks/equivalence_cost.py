"""Audit s39 eq39: equivalence()'s cost estimate (``_backend.cost`` and the passes ``_api._passes`` counts) against
measured CPU seconds.

Run from the repository root::

    OPENBLAS_NUM_THREADS=1 python benchmarks/equivalence_cost.py
    OPENBLAS_NUM_THREADS=1 python benchmarks/equivalence_cost.py --repeat 5 --quick

Each design is ``agents`` x ``tasks`` x ``runs`` of normal scores (seed 0), agent a00 missing task t0 where said
(two task sets: the pairs with a00 bootstrapped apart, every pair of more than two agents read again alone,
``bootstrap.agents_alone``), margin 0.5, ``rng=0``, ``progress=False``; the call is timed warm (after a call on a
small design: imports, the calibration table read), best of ``--repeat`` (CPU seconds, ``time.process_time``: the
machine may be shared), with one BLAS thread. Prints one Markdown row per design: the pairs, the bootstraps, the
measured seconds, the estimate the call makes before computing, and measured / estimated.
``tests/test_audit_s32_rfix32.py`` reads the figures this printed (benchmarks/README.md, round s39).
The rows with aggregate=None and on the complete design isolate the terms of the formula: a pair's tests and a
task's (``PAIR_SECONDS``, ``PAIR_TASK_SECONDS``), a pair's aggregate test (``AGGREGATE_PAIR_SECONDS``) and its
bootstrap read again alone (``ALONE_SECONDS``, ``ALONE_PER_RESAMPLE``: the 20,000-resample row, left out by
``--quick``).
"""

from __future__ import annotations

import argparse
import os
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from measure import best_of  # noqa: E402  (benchmarks/measure.py)

FORMULA = "score ~ agent | task/seed"


def many(agents, tasks=5, runs=5, missing=True):
    """``agents`` x ``tasks`` x ``runs`` normal scores (seed 0), a00 missing t0 or not (the test's ``_many``)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = [(f"a{j:02d}", f"t{i}", s, rng.normal()) for j in range(agents) for i in range(tasks) for s in range(runs)
            if not (missing and j == 0 and i == 0)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def estimate(df, **options):
    """The call's estimate from its cost formula and the bootstraps it makes (``_api._passes``), not run."""
    from rlstats.cost import Shape
    from rlstats.design import design_of
    from rlstats.methods.equivalence import _api, _backend

    design = design_of(df, FORMULA)
    checked = _api.EquivalenceOptions.checked(margin=0.5, **options)
    passes = None if checked.aggregate is None else _api._passes(design, checked.for_agents(design.agents))
    return _backend.cost(Shape.of(design), checked, passes=passes), passes


#: (label, data, options)
CASES = [
    ("3 x 5 x 5, a00 missing t0", lambda: many(3), {}),
    ("8 x 5 x 5, a00 missing t0", lambda: many(8), {}),
    ("20 x 5 x 5, a00 missing t0", lambda: many(20), {}),
    ("40 x 5 x 5, a00 missing t0", lambda: many(40), {}),
    ("40 x 5 x 5, complete", lambda: many(40, missing=False), {}),
    ("40 x 5 x 5, aggregate=None", lambda: many(40), {"aggregate": None}),
    ("15 x 60 x 3, aggregate=None", lambda: many(15, tasks=60, runs=3), {"aggregate": None}),
    ("20 x 5 x 5, a00 missing t0, 20,000 resamples", lambda: many(20), {"n_resamples": 20_000}),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="calls a design, the fastest kept (default 3)")
    parser.add_argument("--quick", action="store_true", help="leave out the 20,000-resample row")
    args = parser.parse_args()
    import rlstats

    warnings.simplefilter("ignore")
    small = many(8)
    rlstats.equivalence(small[small["agent"] < "a03"], FORMULA, margin=0.5, rng=0, n_resamples=200,
                        progress=False)  # imports and first calls' caches, not counted
    print("| design | pairs | bootstraps | measured CPU s | estimated s | measured / estimated |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, make, options in CASES:
        if args.quick and "20,000" in label:
            continue
        df = make()
        work, passes = estimate(df, **options)
        seconds, result = best_of(lambda: rlstats.equivalence(df, FORMULA, margin=0.5, rng=0, progress=False,
                                                              **options), args.repeat)
        print(f"| {label} | {len(result.pairs)} | {len(passes) if passes else 0} | {seconds:.3f} | "
              f"{work.seconds:.3f} | {seconds / work.seconds:.2f} |", flush=True)


if __name__ == "__main__":
    main()
