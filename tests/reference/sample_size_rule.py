"""sample_size()'s rule on a real design whose power curve is known closely (audit s15).

The blocked rank test (chi-squared p-value) on 2 agents x 2 tasks of normal scores, effect 1, no task heterogeneity
(the thesis's scenario 3.7): its power at 6 to 14 seeds from 40,000 simulated data sets each (Monte Carlo error
about 0.002) stands for the truth. Then ``SEARCHES`` searches with ``N_SIM`` data sets per row: how often the
answer, and the smallest row reaching the target on the same rows (the rule before audit s15), fall below the true
sample size, above it, and more than 0.02 short of the target; and the same of the range's upper end.

    python tests/reference/sample_size_rule.py [SEARCHES] [N_SIM]

Measured (audit s15, 100 data sets per row): true power 0.741 at 8 seeds, 0.795 at 9, 0.845 at 10 (sample size 10).
Of 200 searches the monotone answer fell below 10 in 49%, above in 13%, more than 0.02 short of 0.8 in 9.0%; the
smallest row reaching the target 52%, 9.5%, 9.0%. Of 100 searches the range's upper end (sample_size_high) never fell
below 10 (92% above). On this steep curve the two rules rarely differ; on flat ones (tests/test_audit_s15_plan.py)
the smallest row leans optimistic.
"""

import sys
import warnings

import numpy as np

import rlstats

DESIGN = dict(effect=1.0, tasks=2, distribution="normal", heterogeneity=0.0, pvalue="asymptotic", progress=False)
TARGET = 0.8


def main(searches=100, n_sim=100):
    warnings.simplefilter("ignore")
    truth = rlstats.power("skillings_mack", seeds=list(range(2, 21)), n_sim=40_000, rng=12345, **DESIGN)
    curve = dict(zip(truth.table["seeds"], truth.table["power"]))
    best = min(s for s, p in curve.items() if p >= TARGET)
    print("true power:", {s: round(p, 4) for s, p in curve.items()}, "true sample size", best)
    rows = {"monotone (now)": [], "smallest row (before)": [], "sample_size_high": []}
    for rng in range(searches):
        res = rlstats.sample_size("skillings_mack", TARGET, n_sim=n_sim, rng=rng, max_seeds=20, **DESIGN)
        reached = res.table.loc[res.table["power"] >= TARGET, "seeds"]
        if res.sample_size is None or reached.empty:
            continue
        rows["monotone (now)"].append(res.sample_size)
        rows["smallest row (before)"].append(int(reached.min()))
        if res.sample_size_high is not None:
            rows["sample_size_high"].append(res.sample_size_high)
    for name, found in rows.items():
        found = np.array(found)
        short = np.mean([curve[n] < TARGET - 0.02 for n in found])
        print(f"{name}: {len(found)} searches, below {np.mean(found < best):.3f}, above {np.mean(found > best):.3f}, "
              f"true power more than 0.02 short {short:.3f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
