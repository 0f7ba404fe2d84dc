"""rlstats.bayes (issue 41 item 1): the signed-rank posterior beside baycomp's SignedRankTest, and the hierarchical
model's fit of Atari 100k with its R-hats and effective sample sizes.

    python benchmarks/bench_bayes.py signed_rank      # needs baycomp (pip install baycomp): time per pair, agreement
    RLSTATS_DATA_MIRROR=../shared/data/raw python benchmarks/bench_bayes.py atari --seeds 0 1 2 [--orderings]
    RLSTATS_DATA_MIRROR=../shared/data/raw python benchmarks/bench_bayes.py sampler   # the sampler against its
        # previous version (git commit a35d18e, read with git show): the same posterior within Monte Carlo error
    python benchmarks/bench_bayes.py scaling [--checkout DIR] [--repeat 3]   # the hierarchical call on simulated
        # 3 x 5, 5 x 10 and 8 x 26 designs, alternating with another checkout (git archive COMMIT rlstats | tar -x
        # -C DIR) if given, and whether both give the same numbers bit for bit

CPU seconds are ``time.process_time()`` of the public call (best of ``--repeat``), one thread.
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import rlstats
from measure import best_of, tree_env  # benchmarks/measure.py

SIX = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]


def signed_rank(args):
    import baycomp

    rng = np.random.default_rng(0)
    print(f"{'tasks':>5} {'rlstats s':>10} {'baycomp s':>10} {'speed-up':>8}   max |p - p_baycomp| (4.5 MC SE bound)")
    for tasks in (10, 26, 57):
        diffs = rng.normal(0.05, 0.2, size=tasks)
        df = pd.DataFrame({"agent": np.repeat(["A", "B"], tasks), "task": np.tile(np.arange(tasks), 2),
                           "score": np.concatenate([diffs, np.zeros(tasks)])})
        ours_s, res = best_of(lambda: rlstats.bayes(df, "score ~ agent | task", rope=0.05, rng=1, normalize=False),
                           args.repeat)
        theirs_s, probs = best_of(lambda: baycomp.SignedRankTest.probs(np.zeros(tasks), diffs, rope=0.05,
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
            seconds, res = best_of(lambda: rlstats.bayes(six, "score ~ agent | task/seed", rope=0.01,
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


PREVIOUS = "a35d18e"   # the hierarchical sampler before issue 41 item 4's speed work


def _previous_kernels():
    """The previous version's _kernels module, from git (its one relative import made absolute)."""
    import importlib.util
    import subprocess
    import tempfile
    from pathlib import Path

    source = subprocess.run(["git", "show", f"{PREVIOUS}:rlstats/methods/bayes/_kernels.py"], check=True,
                            capture_output=True, text=True, cwd=Path(__file__).parent).stdout
    path = Path(tempfile.mkdtemp()) / "previous_kernels.py"
    path.write_text(source.replace("from ...statistics", "from rlstats.statistics"))
    spec = importlib.util.spec_from_file_location("previous_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sampler_inputs(df):
    """Both samplers' inputs, built here from the runs (the same for both, which is all the comparison needs): per
    pair of agents and task, the sum, number and within-task sum of squares of the seed-paired run differences, each
    pair on its own scale (the mean over tasks of the differences' sd), and priors as the package sets them."""
    from rlstats.methods.bayes import _kernels as kernels

    wide = df.pivot_table(index=["task", "seed"], columns="agent", values="score", observed=True)
    agents = list(wide.columns)
    tasks = wide.index.get_level_values("task").unique()
    pairs = [(a, b) for i, a in enumerate(agents) for b in agents[i + 1:]]
    sums, counts, within, sd, largest = (np.zeros((len(pairs), len(tasks))) for _ in range(5))
    for p, (a, b) in enumerate(pairs):
        by_task = (wide[a] - wide[b]).dropna().groupby(level="task", observed=True)
        sums[p] = by_task.sum().reindex(tasks).to_numpy()
        counts[p] = by_task.count().reindex(tasks).to_numpy()
        within[p] = by_task.var(ddof=0).reindex(tasks).to_numpy() * counts[p]
        sd[p] = by_task.std(ddof=1).reindex(tasks).to_numpy()
        largest[p] = by_task.apply(lambda d: d.abs().max()).reindex(tasks).to_numpy()
    scale = sd.mean(axis=1)[:, None]
    means = sums / scale / counts
    priors = kernels.Priors(delta_high=(largest / scale).max(axis=1),
                            sigma0_high=1000 * np.maximum(means.std(axis=1), 1e-12),
                            sigma_high=np.full(len(pairs), 1000.0))
    return {"sums": sums / scale, "counts": counts, "within": within / scale ** 2, "priors": priors}


def sampler(args):
    """Long chains of the current and the previous sampler on three designs: every parameter's mean (but nu's, whose
    posterior can be heavy-tailed) and its 2.5, 25, 50, 75 and 97.5% quantiles, as z-scores with the two chains'
    bulk ESS: the share beyond 1.96 should be near 0.05 and none far beyond 4 if the two posteriors are one."""
    from rlstats.methods.bayes import _kernels as kernels

    previous = _previous_kernels()
    rng = np.random.default_rng(0)

    def pair_frame(x):
        tasks, runs = x.shape
        return pd.DataFrame({"agent": np.repeat(["A", "B"], tasks * runs),
                             "task": np.tile(np.repeat([f"t{i:02d}" for i in range(tasks)], runs), 2),
                             "seed": np.tile(np.arange(runs), 2 * tasks),
                             "score": np.concatenate([x.ravel(), np.zeros(x.size)])})

    # the designs of tests/test_bayes.py's NUTS reference, the Atari one with all 15 pairs
    small = rng.normal(0.2, 1.0, size=(6, 5)) + rng.standard_t(3, size=(6, 1)) * 0.3
    heavy = rng.normal(0.0, 0.5, size=(10, 10)) + rng.standard_t(2, size=(10, 1)) * 0.4 + 0.1
    atari = rlstats.datasets.load("atari100k")
    atari = rlstats.normalize(atari[atari["agent"].isin(SIX)], "atari100k_reference")
    designs = {"6 tasks x 5 runs": pair_frame(small), "10 tasks x 10 runs, t(2) tasks": pair_frame(heavy),
               "Atari 100k, 15 pairs": atari}
    chains, warmup, draws = 8, 1000, args.draws
    for name, df in designs.items():
        d = _sampler_inputs(df)
        fits = {}
        for label, module, seed in (("previous", previous, 101), ("current", kernels, 202)):
            priors = module.Priors(d["priors"].delta_high, d["priors"].sigma0_high, d["priors"].sigma_high)
            start = time.process_time()
            # the current sampler takes a stream per pair (audit s33), the previous one generator
            random = np.random.default_rng(seed) if module is previous else [
                np.random.SeedSequence(seed, spawn_key=(p,)) for p in range(d["sums"].shape[0])]
            fit, _ = module.gibbs(d["sums"], d["counts"], d["within"], priors, random, chains, warmup, draws)
            fits[label] = fit, time.process_time() - start
        z_mean, z_quantile = [], []
        for p in range(d["sums"].shape[0]):
            parameters = [("delta0", lambda c: c.delta0[p]), ("sigma0", lambda c: c.sigma0[p]),
                          ("nu", lambda c: c.nu[p])]
            parameters += [("delta", lambda c, i=i: np.ascontiguousarray(c.delta[p][..., i]))
                           for i in range(d["sums"].shape[1])]
            for parameter, get in parameters:
                a, b = get(fits["previous"][0]), get(fits["current"][0])
                se = np.sqrt(1 / float(kernels.ess_bulk(a)) + 1 / float(kernels.ess_bulk(b)))
                a, b = a.ravel(), b.ravel()
                if parameter != "nu":
                    z_mean.append((b.mean() - a.mean()) / (np.sqrt(0.5 * (a.var() + b.var())) * se))
                for prob in (0.025, 0.25, 0.5, 0.75, 0.975):
                    # the current chains' share below the previous chains' quantile
                    z_quantile.append((np.mean(b <= np.quantile(a, prob)) - prob) / (np.sqrt(prob * (1 - prob)) * se))
        z_mean, z_quantile = np.abs(z_mean), np.abs(z_quantile)
        print(f"{name}: sampler CPU previous {fits['previous'][1]:.2f} s, current {fits['current'][1]:.2f} s "
              f"({chains} chains x {warmup} + {draws}); {z_mean.size} means: largest |z| {z_mean.max():.2f}, share "
              f"beyond 1.96 {np.mean(z_mean > 1.96):.3f}; {z_quantile.size} quantiles: largest |z| "
              f"{z_quantile.max():.2f}, share beyond 1.96 {np.mean(z_quantile > 1.96):.3f}", flush=True)


#: the designs of ``scaling``: (agents, tasks), 5 runs each, rlstats.datasets.simulate(rng=0)
SCALING = ((3, 5), (5, 10), (8, 26))


def _scaling_one(agents, tasks):
    """One timed call (after a signed-rank call that pays the imports), printed as one line of JSON: CPU seconds, each
    pair's draws and a digest of the tidy table, the diagnostics and the kept draws (equal digests: the same numbers
    bit for bit)."""
    import hashlib
    import json

    df = rlstats.datasets.simulate(agents, tasks, 5, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rlstats.bayes(df, "score ~ agent | task/seed", rng=0, n_samples=1000)
        seconds, res = best_of(lambda: rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", rng=0), 1)
    digest = hashlib.sha256()
    for frame in (res.tidy(), res.diagnostics):
        digest.update(frame.select_dtypes("number").to_numpy(dtype=np.float64).tobytes())
    digest.update(np.ascontiguousarray(res.posterior_draws).tobytes())
    print(json.dumps({"seconds": seconds, "pair_draws": list(res.pair_draws), "digest": digest.hexdigest()}))


def scaling(args):
    """CPU seconds of ``rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", rng=0)`` (default chains,
    warm-up and draws; pairs that miss R-hat or ESS run again longer, as the call does) on simulated designs, best of
    ``--repeat``, each call in a fresh process (the package's back ends are found by name, so two trees cannot share
    one); with ``--checkout``, that tree's calls alternate with this one's on the same frames, and the digests say
    whether the two give the same numbers bit for bit."""
    import json
    import os
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    trees = [("this tree", os.path.dirname(here))] + ([(args.checkout, args.checkout)] if args.checkout else [])
    print(f"{'design':>8} {'pairs':>5} " + " ".join(f"{name[-24:]:>24}" for name, _ in trees) +
          ("   same numbers" if len(trees) > 1 else "") + "   draws per pair (more: run again longer)", flush=True)
    for agents, tasks in SCALING:
        runs = {name: [] for name, _ in trees}
        for _ in range(args.repeat):
            for name, root in trees:    # alternating, so both see the machine's load alike
                out = subprocess.run([sys.executable, __file__, "scaling", "--one", str(agents), str(tasks)],
                                     env=tree_env(root), check=True, capture_output=True, text=True).stdout
                runs[name].append(json.loads(out.strip().splitlines()[-1]))
        line = f"{agents:>3} x {tasks:<3} {agents * (agents - 1) // 2:>5} " + " ".join(
            f"{min(r['seconds'] for r in runs[name]):>22.2f} s" for name, _ in trees)
        if len(trees) > 1:
            same = len({r["digest"] for rows in runs.values() for r in rows}) == 1
            line += f"   {'yes' if same else 'NO':>13}"
        print(line + f"   {runs['this tree'][0]['pair_draws']}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["signed_rank", "atari", "sampler", "scaling"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--orderings", action="store_true",
                        help="atari: also the joint fit behind the orderings (orderings=True)")
    parser.add_argument("--draws", type=int, default=4000, help="sampler: draws per chain after 1,000 warm-up")
    parser.add_argument("--checkout", help="scaling: another checkout's root (holding rlstats/), timed in turn")
    parser.add_argument("--one", type=int, nargs=2, metavar=("AGENTS", "TASKS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return _scaling_one(*args.one)
    {"signed_rank": signed_rank, "atari": atari, "sampler": sampler, "scaling": scaling}[args.what](args)


if __name__ == "__main__":
    main()
