"""rlstats.bayes (issue 41 item 1): the signed-rank posterior beside baycomp's SignedRankTest, and the hierarchical
model's fit of Atari 100k with its R-hats and effective sample sizes.

    python benchmarks/bench_bayes.py signed_rank      # needs baycomp (pip install baycomp): time per pair, agreement
    RLSTATS_DATA_MIRROR=../shared/data/raw python benchmarks/bench_bayes.py atari --seeds 0 1 2 [--orderings]

CPU seconds are ``time.process_time()`` of the public call (best of ``--repeat``), one thread.
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import rlstats

SIX = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]


def _cpu(call, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.process_time()
        out = call()
        best = min(best, time.process_time() - start)
    return best, out


def signed_rank(args):
    import baycomp

    rng = np.random.default_rng(0)
    print(f"{'tasks':>5} {'rlstats s':>10} {'baycomp s':>10} {'speed-up':>8}   max |p - p_baycomp| (4.5 MC SE bound)")
    for tasks in (10, 26, 57):
        diffs = rng.normal(0.05, 0.2, size=tasks)
        df = pd.DataFrame({"agent": np.repeat(["A", "B"], tasks), "task": np.tile(np.arange(tasks), 2),
                           "score": np.concatenate([diffs, np.zeros(tasks)])})
        ours_s, res = _cpu(lambda: rlstats.bayes(df, "score ~ agent | task", rope=0.05, rng=1, normalize=False),
                           args.repeat)
        theirs_s, probs = _cpu(lambda: baycomp.SignedRankTest.probs(np.zeros(tasks), diffs, rope=0.05,
                                                                    nsamples=50_000, random_state=2), args.repeat)
        row = res.tidy().iloc[0]
        ours = np.array([row.p_worse, row.p_rope, row.p_better])
        bound = 4.5 * np.sqrt(2 * np.maximum(np.array(probs) * (1 - np.array(probs)), 1e-4) / 50_000)
        print(f"{tasks:>5} {ours_s:>10.3f} {theirs_s:>10.3f} {theirs_s / ours_s:>8.1f}   "
              f"{np.abs(ours - probs).max():.4f} ({bound.max():.4f})")


def atari(args):
    df = rlstats.datasets.load("atari100k")
    six = df[df["agent"].isin(SIX)]
    print(f"Atari 100k: {six['agent'].nunique()} agents x {six['task'].nunique()} games, {len(six)} runs; "
          "hierarchical model on human-normalised scores, ROPE 0.01, default chains/warm-up/draws")
    for seed in args.seeds:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            seconds, res = _cpu(lambda: rlstats.bayes(six, "score ~ agent | task/seed", rope=0.01,
                                                      model="hierarchical", normalize="atari100k_reference",
                                                      rng=seed, orderings=args.orderings or None), args.repeat)
        tidy = res.tidy()
        print(f"rng={seed}: {seconds:.2f} s CPU, largest R-hat {tidy['r_hat'].max():.4f}, smallest bulk ESS "
              f"{tidy['ess_bulk'].min():.0f} ({res.chains} chains x {res.draws} draws), "
              f"{sum('did not show convergence' in str(w.message) for w in caught)} convergence warning(s)")
        if res.orderings is not None:
            joint = res.diagnostics[res.diagnostics["parameter"].str.startswith("delta0 (joint")]
            top = res.orderings.iloc[0]
            print(f"  orderings: {len(res.orderings)} seen, most probable {top['ordering']} "
                  f"({top['probability']:.3f}); the joint fit's largest R-hat {joint['r_hat'].max():.4f}, "
                  f"smallest ESS {joint['ess_bulk'].min():.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["signed_rank", "atari"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--orderings", action="store_true",
                        help="atari: also the joint fit behind the orderings (orderings=True)")
    args = parser.parse_args()
    {"signed_rank": signed_rank, "atari": atari}[args.what](args)


if __name__ == "__main__":
    main()
