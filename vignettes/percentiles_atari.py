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
# # Aggregating across environments with performance percentiles
#
# A benchmark of many games invites one number per agent. Averaging raw scores mixes scales,
# human-normalised scores depend on a reference that games weight very unevenly, and fixed
# uniform weights can be gamed by adding easy games. Jordan et al. (2020, *Evaluating the
# Performance of Reinforcement Learning Algorithms*, ICML) propose an aggregate that needs no
# score scale and no hand-picked weights:
#
# 1. **performance percentiles**: on each game j, agent i's runs are scored by their mean
#    percentile in reference agent k's score distribution, `A[i, j, k] = mean_t F_k(x_it)`
#    (ties count as wins; an agent against itself gets 0.5);
# 2. **a game**: an adversary picks the (game, reference agent) pair on which the agents look
#    worst, the agent player picks agents that look best. The solution is not a Nash
#    equilibrium but the stationary distribution of an alpha-Rank-style Markov chain over joint
#    strategies, made unique by PageRank damping (one linear solve);
# 3. **the aggregate** `y_i = sum_{j,k} q*_{j,k} A[i, j, k]`, with q* the adversary's weights.
#
# The score is an expected percentile against a reference mixture the adversary chooses, so
# the best agent typically scores near 0.5, not 1. Because it uses only the order of scores
# within a game, any increasing rescaling of a game's scores (human normalisation included)
# leaves it unchanged.
#
# We apply it to the Atari 100k runs published by Agarwal et al. (2021): the six agents with
# 100 runs on each of the 26 games, and compare its ranking with the blocked rank test's.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

import rlstats

# Simulation sizes as (fast, default, full): RLSTATS_VIGNETTE_FAST=1 (what the docs build and the tests set) makes
# a smoke run of seconds with rough numbers, RLSTATS_VIGNETTE_FULL=1 the full size. Copying the code, write one number.
SIZE = ("fast" if os.environ.get("RLSTATS_VIGNETTE_FAST", "0") not in ("", "0")
        else "full" if os.environ.get("RLSTATS_VIGNETTE_FULL", "0") not in ("", "0") else "default")
COUNTS = {name: sizes[("fast", "default", "full").index(SIZE)] for name, sizes in dict(
    N_RESAMPLES=(300, 7_000, 10_000),  # (fast, default, full) bootstrap resamples
).items()}
N_RESAMPLES = COUNTS["N_RESAMPLES"]
JOBS = 1 if SIZE == "fast" else 2  # starting two worker processes costs more than a few hundred resamples
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
FORMULA = "score ~ agent | task"

pd.set_option("display.width", 120)

# %%
atari = rlstats.datasets.load("atari100k")
AGENTS = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]
six = atari[atari["agent"].isin(AGENTS)].reset_index(drop=True)
runs = six.groupby(["agent", "task"]).size()
print(f"{six['agent'].nunique()} agents x {six['task'].nunique()} games, {runs.min()} to {runs.max()} runs per cell, "
      f"{6 * 6 * 26} joint strategies in the game")

# %% [markdown]
# ## The aggregate with bootstrap intervals
#
# `interval="bootstrap"` resamples each agent x game cell with replacement, re-solves the whole
# game for every resample and takes percentile intervals. To make the six intervals hold
# simultaneously it works at level delta' = delta / (agents x games) per interval, so its
# limits are extreme quantiles of the resamples: the paper uses 10,000 resamples, as the full
# size does here (`RLSTATS_VIGNETTE_FULL=1`). The default size uses 7,000, just enough for the
# limits at delta'/2 not to be the most extreme resamples (below 6,240 rlstats warns), so its
# limits move a little more from one seed to another; the smoke run of the test suite,
# `RLSTATS_VIGNETTE_FAST=1`, uses a few hundred and warns. The resamples are
# spread over `n_jobs` processes; the result does not depend on how many.

# %%
boot = rlstats.percentiles(six, FORMULA, interval="bootstrap", n_resamples=N_RESAMPLES, rng=2024, n_jobs=JOBS)
print(boot)

# %%
boot.tidy().sort_values("rank")

# %% [markdown]
# SPR leads with 0.45: against the reference mixture the adversary picks, its runs sit at about
# the 45th percentile on average, whereas OTRainbow's sit below the 10th. The rank range
# (`rank_best`, `rank_worst`) lists every rank consistent with the simultaneous intervals.

# %% [markdown]
# ## Three kinds of interval
#
# * **PBP** (performance bound propagation) bounds every payoff with DKW bands and Anderson's
#   inequality and propagates the bounds through the game. It holds for any distribution with
#   known bounds, here the observed minimum and maximum of each game, as in the paper's code.
# * **PBP-t** replaces the distribution-free payoff bounds by Student-t intervals (a heuristic).
# * **The bootstrap** above (a heuristic too; the paper found it undercovers).

# %%
pbp = rlstats.percentiles(six, FORMULA, interval="pbp")
pbp_t = rlstats.percentiles(six, FORMULA, interval="pbp_t")
results = {"PBP": pbp, "PBP-t": pbp_t, "bootstrap": boot}
columns = {"estimate": boot.estimate}
for name, res in results.items():
    columns[f"{name} low"], columns[f"{name} high"] = res.conf_low, res.conf_high
    columns[f"{name} ranks"] = [f"{b}-{w}" for b, w in zip(res.rank_best, res.rank_worst)]
pd.DataFrame(columns, index=list(boot.agents)).sort_values("estimate", ascending=False).round(3)

# %%
fig, axes = plt.subplots(1, 3, figsize=(11, 3.2), sharey=True)
for ax, (name, res), color in zip(axes, results.items(), ("C0", "C1", "C3")):
    res.plot(ax=ax, color=color)
    ax.set_title(f"{name}: 95% simultaneous intervals", fontsize=9)
fig.tight_layout()
plt.close(fig)  # shown once, as the value of the cell's last line
fig

# %% [markdown]
# With 100 runs per cell PBP is vacuous: at delta' = 0.05 / 156 the DKW band is 0.21 wide on
# each side, and propagated through the game that leaves almost [0, 1] for every agent. The
# paper needed 10,000 runs per cell for PBP to separate its two leaders. PBP-t is tighter but
# resolves only OTRainbow against SPR. The bootstrap separates most agents, but it carries the
# weakest guarantee.

# %%
print(next(note for note in pbp.notes if "DKW" in note))

# %% [markdown]
# ## What the adversary weighs
#
# The adversary's weights q*_{j,k} say which games and which reference agents the aggregate
# rests on. Most of the weight goes to SPR as the reference (the leader is hardest to look good
# against), and a third of it to a single game, Boxing.

# %%
boot.task_weights.sort_values("weight", ascending=False).head(8).round(3)

# %%
boot.reference_weights.groupby("reference")["weight"].sum().round(3)

# %%
ax = boot.plot(kind="weights", annotate=False)
plt.close(ax.figure)
ax.figure

# %% [markdown]
# A game gets weight where the agents' score distributions are far apart, so that the
# adversary can make the others look bad against the leader. The per-game CDFs show it:
# on Boxing, SPR's runs sit almost entirely above everyone else's. The shaded bands are the DKW
# bands that PBP uses, at the same per-cell level.

# %%
fig = boot.plot(kind="cdf", tasks=["Boxing", "DemonAttack", "Pong", "Freeway"], ncols=4)
fig.set_size_inches(13, 3.2)
plt.close(fig)
fig

# %% [markdown]
# The per-game table gives each cell's mean with Anderson's interval (at the same per-cell
# level) and the agent's percentile on that game against the adversary's reference mixture.
# Summed with the game weights, those percentiles give the aggregate.

# %%
per_game = boot.per_task
print(per_game[per_game["task"] == "Boxing"].round(3).to_string(index=False))
weights = boot.task_weights.set_index("task")["weight"]
recombined = per_game.assign(w=per_game["task"].map(weights)).eval("w * percentile").groupby(per_game["agent"]).sum()
print("max |sum_j q*_j percentile_ij - y_i| =", float(np.abs(recombined.loc[list(boot.agents)] - boot.estimate).max()))

# %% [markdown]
# ## Compared with the blocked rank test
#
# The blocked rank test (Mack–Skillings on all runs, see the "Blocked rank tests" vignette)
# ranks the runs within each game and averages each agent's mean rank over games: every game
# weighs the same. Performance percentiles let the adversary choose the weights.

# %%
ranks = rlstats.skillings_mack(six, FORMULA)
comparison = pd.DataFrame({
    "percentile aggregate": boot.estimate, "rank (percentiles)": boot.rank,
    "bootstrap rank range": [f"{b}-{w}" for b, w in zip(boot.rank_best, boot.rank_worst)],
    "mean rank (rank test)": ranks.mean_ranks,
}, index=list(boot.agents))
comparison["rank (rank test)"] = stats.rankdata(ranks.mean_ranks, method="min").astype(int)
comparison = comparison.sort_values("rank (percentiles)")
print(comparison.round(3).to_string())
tau = stats.kendalltau(comparison["rank (percentiles)"], comparison["rank (rank test)"]).statistic
print(f"\nKendall's tau between the two rankings: {tau:.3f}")

# %%
not_separated = ranks.comparisons[~ranks.comparisons["significant"]][["agent_1", "agent_2", "estimate", "p_adjusted"]]
print(f"rank test ({ranks.posthoc_adjustment}): pairs not separated")
print(not_separated.to_string(index=False))
low, high = boot.conf_low, boot.conf_high
overlapping = [(boot.agents[i], boot.agents[k]) for i in range(6) for k in range(i + 1, 6)
               if not (low[i] > high[k] or low[k] > high[i])]
print(f"\npercentile bootstrap: pairs whose simultaneous intervals overlap: {overlapping}")

# %% [markdown]
# The two rankings agree except for DER and DrQ, which swap places; neither method separates
# that pair (the rank test's post hoc comparison and the bootstrap's rank ranges both leave it
# open), so the swap is within the noise. Both methods put SPR first and DrQ(eps) second with
# confidence. The bootstrap also leaves CURL and OTRainbow unresolved, which the rank test
# separates: its within-game ranks use every run of every game with equal weight, whereas the
# percentile aggregate leans on the few games the adversary picks.
#
# ## Invariance to the score scale
#
# Human-normalised scores are an increasing affine map of the raw scores within each game, so
# in exact arithmetic the aggregate and its intervals cannot move. On the published scores they
# do not move either:

# %%
reference = rlstats.datasets.load("atari100k_reference")


def largest_change(data):
    raw = rlstats.percentiles(data, FORMULA, interval="pbp_t")
    normalised = rlstats.percentiles(rlstats.normalize(data, reference, low="random", high="human"), FORMULA,
                                     interval="pbp_t")
    return float(np.max(np.abs(np.r_[normalised.estimate - raw.estimate, normalised.conf_low - raw.conf_low,
                                      normalised.conf_high - raw.conf_high])))


print(f"largest change of any estimate or PBP-t bound: {largest_change(six):.2g}")

# %% [markdown]
# That takes a rule for floating point. Some runs that scored the same differ in their last
# bits in the published files (floating-point residue of averaging episode returns), and
# normalising rounds some of those pairs to exactly equal numbers. Compared exactly, such a pair
# would be a win raw and a tie normalised, and the aggregate would move in its last digits;
# `rlstats` counts scores of a game within 1e-12 of each other (relative to the game's range,
# plus 4 rounding units of its largest |score|) as ties, raw or normalised, and a note of the
# result says so (without a count: how many pairs differ before joining depends on the units'
# rounding, while the ties do not).

# %%
near_ties = []
for game, scores in six.groupby("task")["score"]:
    distinct = np.unique(scores.to_numpy())
    close = np.flatnonzero(np.diff(distinct) <= 1e-9 * np.abs(distinct[1:]))
    near_ties += [(game, repr(float(distinct[c])), repr(float(distinct[c + 1]))) for c in close]
print(f"{len(near_ties)} pairs of distinct scores equal to 9 significant digits, e.g.")
print(pd.DataFrame(near_ties[:4], columns=["game", "score", "next score"]).to_string(index=False))

# %% [markdown]
# Rounding the scores to a precision they actually have (here 6 decimals) makes those ties
# exact in the data themselves; the invariance holds there too:

# %%
rounded = six.assign(score=six["score"].round(6))
print(f"largest change after rounding: {largest_change(rounded):.2g}")

# %% [markdown]
# ## What to take away
#
# * On Atari 100k the percentile aggregate ranks SPR > DrQ(eps) > DrQ > DER > CURL > OTRainbow;
#   the blocked rank test agrees except for DrQ and DER, a pair neither method resolves.
# * The aggregate rests on the adversary's choice: about a third of the weight is on Boxing and
#   over half on SPR as the reference. Report q* with the scores.
# * Only PBP carries a guarantee, and with 100 runs per cell it is vacuous; PBP-t and the
#   bootstrap are heuristics (the paper found the bootstrap undercovers). Run counts in the
#   thousands per cell are what the method was designed for.
# * Scores are comparable only within one analysis: adding or removing an agent changes the
#   game, hence every score.
#
# References: Jordan, S. M., Chandak, Y., Cohen, D., Zhang, M. and Thomas, P. S. (2020),
# *Evaluating the Performance of Reinforcement Learning Algorithms*, ICML; Agarwal et al.
# (2021), *Deep Reinforcement Learning at the Edge of the Statistical Precipice*, NeurIPS;
# Mack, G. A. and Skillings, J. H. (1980), JASA 75, 947-951.
