# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Adaptive number of seeds with AdaStop
#
# How many training runs (seeds) does a comparison of deep-RL agents need?
# AdaStop (Mathieu et al., 2023) answers adaptively: train a batch of `n`
# runs of every agent, test, stop the agents whose comparisons are already
# decided, train another batch of the others, and so on for at most `K`
# batches.  The family-wise error of all the pairwise decisions stays below
# `alpha` although the data are looked at after every batch.
#
# This vignette
#
# 1. replays the paper's MuJoCo experiment (Section 5.3) batch by batch
#    with the default test, including what happens when the data run out,
# 2. compares with the paper's own permutation scheme,
# 3. explains why the default differs from it (and from the joint
#    relabelling, the default before),
# 4. shows which decisions depend on the random permutations (the seed),
# 5. runs AdaStop incrementally on simulated agents, as one would while the
#    experiments run, and counts the runs it saves.
#
# The default size replays the files with 50 permutation seeds and repeats the
# simulated campaign 100 times (about 45 s on two cores); the full size,
# `RLSTATS_VIGNETTE_FULL=1` (or `python vignettes/render.py --full`), uses 100
# seeds and 200 campaigns (about 80 s).  `RLSTATS_VIGNETTE_FAST=1` (the test
# suite's smoke run) uses 4 seeds, 12 campaigns and 2,000 permutations instead
# of 10,000; the numbers then move a little.

# %%
import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import rlstats
from rlstats import AdaStop, adastop

# Simulation sizes as (fast, default, full): RLSTATS_VIGNETTE_FAST=1 (what the docs build and the tests set) makes
# a smoke run of seconds with rough numbers, RLSTATS_VIGNETTE_FULL=1 the full size. Copying the code, write one number.
SIZE = ("fast" if os.environ.get("RLSTATS_VIGNETTE_FAST", "0") not in ("", "0")
        else "full" if os.environ.get("RLSTATS_VIGNETTE_FULL", "0") not in ("", "0") else "default")
COUNTS = {name: sizes[("fast", "default", "full").index(SIZE)] for name, sizes in dict(
    N_RESAMPLES=(2_000, 10_000, 10_000),  # (fast, default, full) permutation paths
    SEEDS=(4, 50, 100),                    # permutation seeds of the replays, section 4
    EXPERIMENTS=(12, 100, 200),            # simulated campaigns, section 5
).items()}
N_RESAMPLES, SEEDS, EXPERIMENTS = COUNTS["N_RESAMPLES"], COUNTS["SEEDS"], COUNTS["EXPERIMENTS"]
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
pd.set_option("display.width", 120)

# %% [markdown]
# ## 1. The MuJoCo runs of the paper
#
# Four agents (PPO, SAC, DDPG, TRPO) on five environments.  The runs were
# collected with the authors' `adastop` package in batches of `n = 5` runs
# per agent (column `batch`), for at most `K = 6` batches, stopping each agent
# once the package's test had decided its comparisons.  `rlstats.datasets.load`
# fetches the published CSV files (pinned by commit and SHA-256).

# %%
runs = rlstats.datasets.load("mujoco_adastop")
print(runs.groupby(["task", "agent"]).size().unstack())

# %% [markdown]
# `score ~ agent | task` runs one AdaStop per environment; the error
# guarantee holds within each environment.  `batch="batch"` says which runs
# form each interim.
#
# The default test (`permutations="holm"`) gives each comparison its own
# sequential permutation test on its own pair's runs (the paper's paths: at
# each interim `n` of the pair's `2n` slots), at `alpha / c`, with `c` the
# comparisons not yet rejected (Holm's step-down).  That keeps the
# family-wise error at `alpha` under any partial null, whatever the other
# agents' spreads (section 3).  Its price is the first interim: with four
# agents (six comparisons) its first step spends `alpha / 6` linearly over
# `K = 6` interims, `0.05 / 36` of the 126 classes of `n = 5` at interim 1,
# less than one class, so it can reject nothing before the second batch.
# The header says what each comparison spends.  The campaign stopped agents
# as the paper's test decided, so a comparison this test wants more runs
# for stays undecided with the reason "runs exhausted", and nothing is
# invented.

# %%
result = adastop(runs, "score ~ agent | task", n=5, K=6, batch="batch", n_resamples=N_RESAMPLES, rng=0)
print(result)

# %% [markdown]
# The decision tables, as in the paper's Fig. 5: a cell reads "the row agent
# is `>`, `<` or `=` the column agent" (`?`: undecided), agents sorted by mean
# score, with the runs each one needed.

# %%
figure = result.plot(kind="decisions")
plt.close(figure)
figure

# %% [markdown]
# What the test decided, counted from `result.decisions` (the numbers depend
# on the size this page was built at: a decision near its boundary can go
# either way with fewer permutation paths, section 4).  The campaign stopped
# SAC after one batch on HalfCheetah (the paper's test had decided its
# comparisons at once), so HalfCheetah's test stops at its first interim,
# where it cannot reject, with all six comparisons undecided ("runs
# exhausted").  It stopped PPO and SAC after two batches on Walker and every
# agent after three on Ant and Humanoid; the default decides every
# comparison there within those runs.

# %%
decisions = result.decisions


def beaten(winner, loser):
    """The environments where ``winner`` was decided better than ``loser``, and the interims."""
    won = (((decisions["agent_1"] == winner) & (decisions["agent_2"] == loser) & (decisions["decision"] == "larger"))
           | ((decisions["agent_1"] == loser) & (decisions["agent_2"] == winner) & (decisions["decision"] == "smaller")))
    return decisions[won]


for loser in ("TRPO", "DDPG"):
    won = beaten("SAC", loser)
    print(f"SAC beats {loser} in {len(won)} of {decisions['task'].nunique()} environments "
          f"(at interims {', '.join(map(str, sorted(set(won['interim']))))})")
undecided = decisions[decisions["decision"] == "continue"]
print(f"{len(undecided)} comparisons stay undecided: "
      + ", ".join(f"{task} {n}" for task, n in undecided.groupby("task").size().items()))
full = decisions[(decisions["task"] == "hopper") & (decisions["n_1"] == 30)]
print(f"on Hopper {len(full)} comparisons run to the full budget of 30 runs: "
      + "; ".join(f"{a} vs {b} {d}" for a, b, d in zip(full["agent_1"], full["agent_2"], full["decision"])))

# %% [markdown]
# How the statistic of each comparison moved against its boundary, on the
# scale of the mean difference, on Hopper:

# %%
print(result.history[result.history["task"] == "hopper"].round(1).to_string(index=False))
axes = result.plot(kind="boundaries", task="hopper")
plt.close(axes.figure)
axes.figure

# %% [markdown]
# One note of the result is about Hopper's data, not the test: Hopper's batches 3 and 4 repeat batches 1 and 2
# for DDPG, PPO and SAC (the published `hopper3.csv` and `hopper4.csv` hold the same scores as `hopper1.csv` and
# `hopper2.csv` in those agents' columns; TRPO's are new), and every `adastop()` call on these runs warns and
# notes it ("runs that repeat an earlier interim's exactly"). So 10 of those agents' 30 Hopper runs are copies, and
# the comparisons that go on past interim 2 there read them as new runs: PPO's and SAC's mean difference after 4
# batches (20 runs each) is the one after 2, the same 10 distinct runs per agent counted twice. Read Hopper's
# late decisions with that in mind; the other environments have no repeated batch.

# %%
hopper_batches = runs[runs["task"] == "hopper"].groupby(["agent", "batch"])["score"].apply(lambda s: tuple(sorted(s)))
print({agent: [b for b in (3, 4) if hopper_batches[agent, b] == hopper_batches[agent, b - 2]]
       for agent in ["DDPG", "PPO", "SAC", "TRPO"]})

# %% [markdown]
# ## 2. The paper's decisions
#
# `permutations="pairwise"` is the paper's Algorithm 3: at each interim a
# path chooses `n` of the `2n` slots once, and every pair applies that choice
# to its own pooled runs.  It reproduces the paper's decisions on these
# files.  Side by side with the default, the comparisons where they differ:

# %%
paper = adastop(runs, "score ~ agent | task", n=5, K=6, batch="batch", n_resamples=N_RESAMPLES, rng=0,
                permutations="pairwise")
both = result.decisions.merge(paper.decisions, on=["task", "agent_1", "agent_2"], suffixes=("", "_paper"))
changed = both[(both["decision"] != both["decision_paper"]) | (both["interim"] != both["interim_paper"])]
print(changed[["task", "agent_1", "agent_2", "decision", "interim", "decision_paper", "interim_paper"]]
      .to_string(index=False))
opposite = {"larger": "smaller", "smaller": "larger"}
reversed_ = both["decision"].map(opposite) == both["decision_paper"]
rejected, rejected_paper = (both[c].isin(["larger", "smaller"]) for c in ("decision", "decision_paper"))
print(f"rejections in opposite directions: {int(reversed_.sum())}; rejected by one scheme and not the other: "
      f"{int((rejected != rejected_paper).sum())} (the default alone: {int((rejected & ~rejected_paper).sum())})")

# %% [markdown]
# The two never disagree on a direction (the first count above).  The default
# decides later: never at the first interim, where the paper's scheme
# decides several comparisons, and not at all on HalfCheetah, where the runs
# ran out (the paper's scheme calls DDPG and PPO different from TRPO there
# after 25 runs).  On Hopper, DDPG against TRPO after 30 runs sits on its
# last boundary: for this seed the default calls it "smaller" and the
# paper's scheme finds no difference (its decision value "equal", the
# paper's name for not rejecting), and the result's note names it as within
# Monte Carlo error (section 4).
#
# The paper's scheme itself agrees with the replay of the same files by
# `adastop` 0.1.3 (the specification's §9.5 table) except for Walker DDPG
# against TRPO: the package calls it "smaller" after 25 runs for its seed,
# the pairwise scheme here finds no difference after 30, as the paper's own 2023
# log and its Appendix F do.  The package compares an absolute observed
# statistic with a signed permutation distribution, which roughly doubles its
# error rate.
#
# ## 3. Why the default differs from the paper
#
# With two agents the paper's slot choice is a permutation of the data and
# the test is exact; rlstats then enumerates the 126 first-interim classes
# (`n = 5`) and the three schemes are the same test.  With three agents or
# more the paper's one slot choice, shared by every pair, is not a
# permutation of the data (an agent is first in one pair and second in
# another), and with identical normal agents the family-wise error comes out
# above the level: about 0.06 for three or four agents, `n = K = 5`,
# against 0.050, and 0.068 to 0.110 in the 7 `adastop.fwe_spread` rows of
# `calibration_table()` where every agent is identical and normal and the
# test can reject (see `adastop`'s Notes; 0 at 4 agents x 3 runs with one
# interim, where no comparison can be rejected, and 0.037 and 0.040 with
# skewed scores).  Its decisions also depend on which agent each pair reads first,
# so on the names' sorted order.
#
# The joint relabelling (`permutations="joint"`, the default before) is a
# permutation of the data, so under identical agents its error equals the
# level spent; but it needs every agent's runs exchangeable under the null:
# two identical agents 4 times as spread as the others were rejected in up
# to 0.108 of 600 simulated tests (alpha 0.05), and `adastop` prints a note
# when a joint test's runs' standard deviations differ that much.
#
# The default reads each comparison on its own pair's paths, an exact
# permutation test of that pair whatever the other agents do, and Holm's
# step-down bounds the family by Bonferroni's sum: its `adastop.fwe_spread`
# rows stay at 0 to 0.053.  With several interims it often has more power
# than the joint relabelling (whose pooled paths widen every comparison's
# boundary by the other agents' differences); with one interim and few runs
# it has less, and none at all where `alpha / c` is below one class (it
# says so).
#
# ## 4. Which decisions depend on the permutation seed?
#
# Replaying both schemes with several seeds:

# %%
def seed_variation(permutations):
    outcomes = []
    for seed in range(SEEDS):
        replay = adastop(runs, "score ~ agent | task", n=5, K=6, batch="batch", n_resamples=N_RESAMPLES,
                         rng=seed, permutations=permutations)
        table = replay.decisions[["task", "agent_1", "agent_2", "decision", "interim"]].copy()
        outcomes.append(table)
    outcomes = pd.concat(outcomes)
    outcomes["outcome"] = outcomes["decision"] + " @ " + outcomes["interim"].astype(str)
    counts = outcomes.groupby(["task", "agent_1", "agent_2"])["outcome"].agg(lambda o: dict(o.value_counts()))
    varying = counts[counts.map(len) > 1]
    print(f"{permutations}: {len(counts) - len(varying)} of {len(counts)} decisions are identical for all "
          f"{SEEDS} seeds")
    print(varying.to_string() if len(varying) else "(none)")


seed_variation("holm")
seed_variation("pairwise")

# %% [markdown]
# Both schemes enumerate the first interim exactly and draw random paths
# from the second on.  With the paper's scheme, in the full run (100 seeds)
# only the interim of one decision moves: Ant, PPO against TRPO, is decided
# at interim 2 for almost every seed and at 3 for a few (3 of the 50 seeds
# of the default size).  With the default, at the
# default size (50 seeds of 10,000 paths) 28 of the 30 decisions are the
# same for every seed: Ant's PPO against TRPO is decided at interim 3 for 43
# seeds and at 2 for 7, and Hopper's DDPG against TRPO, on its last
# boundary, is "smaller" for 28 and no difference found for 22.
# Report the seed with the result: `result.seed`.
#
# One run says so itself: each boundary of random paths carries its Monte
# Carlo standard error (`history["boundary_mc_se"]`, tidy's
# `boundary_mc_se`), and a note names every decision whose statistic lies
# within 2 of them of its boundary, with the `n_resamples` that would resolve
# it, or says that none can:

# %%
replay = adastop(runs, "score ~ agent | task", n=5, K=6, batch="batch", n_resamples=N_RESAMPLES, rng=0)
print("\n".join(note for note in replay.notes if note.startswith("Monte Carlo error")) or "(no close decision)")

# %% [markdown]
# ## 5. Incremental use while experiments run
#
# `AdaStop` keeps the state between batches: `agents_to_run` says which agents
# to train next, `update()` takes their new runs, and `save()` / `load()`
# write the state as JSON so that a long campaign can be interrupted.  Here
# a simulator stands in for training: four agents whose final scores are
# normal with means 0, 0, 1 and 2.5 (sd 1): A and B are the same agent under
# two names, the others differ by at least one standard deviation.

# %%
MEANS = {"A": 0.0, "B": 0.0, "C": 1.0, "D": 2.5}


def train(agent, n, gen):
    """Stand-in for n training runs of an agent: their final scores."""
    return gen.normal(MEANS[agent], 1.0, size=n)


gen = np.random.default_rng(2)
state_file = Path(tempfile.mkdtemp()) / "adastop_state.json"
seq = AdaStop(list(MEANS), n=5, K=6, n_resamples=N_RESAMPLES, rng=7)
while not seq.done:
    batch = {agent: train(agent, seq.n, gen) for agent in seq.agents_to_run}
    seq.update(batch)
    seq.save(state_file)              # a crash here loses nothing:
    seq = AdaStop.load(state_file)    # the loaded state continues exactly
    print(f"after batch {seq.interim}: next {', '.join(seq.agents_to_run) or '(done)'}")
campaign = seq.result()
print(campaign)

# %% [markdown]
# The same from the shell, one CSV per batch:
#
# ```
# rlstats adastop update state.json batch1.csv --n 5 --K 6 --seed 7
# rlstats adastop status state.json
# rlstats adastop update state.json batch2.csv
# rlstats adastop plot state.json decisions.png
# ```
#
# (`--permutations pairwise` on the first call selects the paper's scheme;
# the state records it.)
#
# ### How many runs does it save?
#
# A fixed design would train every agent `n * K = 30` times.  Repeating the
# simulated campaign shows how many runs AdaStop used, how often it declared
# the twins A and B different (a false rejection) and how often it got a
# direction wrong, with the default and with the paper's scheme.

# %%
def campaigns(permutations):
    used, false_rejections, wrong_direction = [], 0, 0
    for experiment in range(EXPERIMENTS):
        gen = np.random.default_rng(experiment)
        seq = AdaStop(list(MEANS), n=5, K=6, n_resamples=N_RESAMPLES, rng=experiment, permutations=permutations)
        while not seq.done:
            seq.update({agent: train(agent, seq.n, gen) for agent in seq.agents_to_run})
        d = seq.result().decisions
        used.append(seq.result().runs_used.set_index("agent")["n_runs"])
        truth = np.sign([MEANS[a] - MEANS[b] for a, b in zip(d["agent_1"], d["agent_2"])])
        claim = d["decision"].map({"larger": 1, "smaller": -1}).fillna(0).to_numpy()
        false_rejections += bool(((truth == 0) & (claim != 0)).any())
        wrong_direction += bool(((truth != 0) & (claim == -truth)).any())
    used = pd.DataFrame(used)
    total = used.sum(axis=1)
    print(f"{permutations}: total runs per campaign {total.mean():.1f} (Monte Carlo se {total.sem():.1f}) of "
          f"{30 * len(MEANS)} ({100 * (1 - total.mean() / (30 * len(MEANS))):.0f} % saved); campaigns declaring "
          f"A and B different: {false_rejections} of {EXPERIMENTS} (Monte Carlo se of the rate at a true 5%: "
          f"{np.sqrt(0.05 * 0.95 / EXPERIMENTS):.3f}); with a direction wrong: {wrong_direction}")
    return used.mean()


mean_runs = pd.DataFrame({"holm (default)": campaigns("holm"), "pairwise (paper)": campaigns("pairwise")})
print(mean_runs.round(1))

# %% [markdown]
# The twins A and B run to the full budget in almost every campaign, where
# AdaStop finds no difference between them (which shows no equality).
# D, 2.5 sd above the twins, stops after two or
# three batches on average, and C, one sd from its neighbours, after four to
# five.  At the default size (100 campaigns of 10,000 paths) the default
# used 95.0 runs per campaign (21 % saved; C 22.9, D 12.5 runs) and the
# paper's scheme 92.9 (23 %; C 21.6, D 11.8): nearly the same, but with four
# agents the paper's scheme does not guarantee the family-wise error, where
# the default does (section 3).  The joint relabelling, the default before,
# saved 12 % on the same campaigns (105.8 runs; C 27.8, D 17.9): D's runs,
# until D stops, are pooled into every relabelling and widen the permutation
# spread of the comparisons among the others.
#
# ## What to report
#
# `result.report()` writes a methods paragraph with the design (n, K,
# alpha, permutation paths, seed) and the decisions:

# %%
print(campaign.report())
