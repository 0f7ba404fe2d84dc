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
# # Was this result cherry-picked? A selection check on Atari 100k
#
# A paper shows a new agent beating a baseline on a handful of games. Were those games chosen
# because the new agent looked best there? Komiyama and Maehara (2018, "A Simple Way to Deal
# with Cherry-picking", arXiv:1810.04996) split the question between two people:
#
# * the **reporter** tests whether the mean improvement over the reported tasks is above 0. If
#   the reporter picked the tasks after seeing the results, this test is far too optimistic:
#   picking the best third of the tasks gives a "significant" improvement most of the time even
#   when there is none (the paper's Theorems 1 and 2);
# * an **inspector** compares the reported tasks with held-out tasks. If the reported tasks
#   were a fair sample, their mean effect should not stand out; if it does, the report is not
#   representative.
#
# `rlstats.selection_check` does both. Each task gives one number, the treatment's effect on
# that task (here the difference of the agents' mean human-normalised scores over 100 runs);
# the seeds matter only through these per-task effects. When the held-out tasks are the rest
# of the same suite, as here, the inspector is a permutation test over task labels, which is
# exact for the hypothesis "the reported tasks are a uniformly random subset of the suite".
#
# We play the part of a cherry-picking author: we take SPR and DrQ(eps) on the 26 games of
# Atari 100k (Agarwal et al., 2021), report the 8 games where SPR beats DrQ(eps) the most, and
# let the check compare them with the other 18. Then we report 8 games drawn at random
# instead, for contrast.
#
# It takes well under a minute: the default size is the full size (9,999 permutations, 500
# random reports, 100,000 simulated trials); `RLSTATS_VIGNETTE_FAST=1` (the test suite's smoke
# run) uses 999, 20 and 5,000.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import rlstats

# Simulation sizes as (fast, default, full): RLSTATS_VIGNETTE_FAST=1 (what the docs build and the tests set) makes
# a smoke run of seconds with rough numbers, RLSTATS_VIGNETTE_FULL=1 the full size. Copying the code, write one number.
SIZE = ("fast" if os.environ.get("RLSTATS_VIGNETTE_FAST", "0") not in ("", "0")
        else "full" if os.environ.get("RLSTATS_VIGNETTE_FULL", "0") not in ("", "0") else "default")
COUNTS = {name: sizes[("fast", "default", "full").index(SIZE)] for name, sizes in dict(
    N_RESAMPLES=(999, 9_999, 9_999),         # (fast, default, full) permutations of the inspector
    N_RANDOM_REPORTS=(20, 500, 500),         # random 8-game reports in the last section
    N_TRIALS=(5_000, 100_000, 100_000),      # trials of the simulations
).items()}
N_RESAMPLES, N_RANDOM_REPORTS, N_TRIALS = COUNTS["N_RESAMPLES"], COUNTS["N_RANDOM_REPORTS"], COUNTS["N_TRIALS"]
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
TREATMENT, BASELINE, N_REPORTED = "SPR", "DrQ(eps)", 8
FORMULA = "score ~ agent | task"

pd.set_option("display.width", 120)

# %% [markdown]
# ## The data: per-task effects of SPR over DrQ(eps)
#
# Atari games score on wildly different scales (Pong from -21 to 21, Asterix in the tens of
# thousands), so a mean of raw differences would be a mean of incomparable numbers. We first
# normalise every score by the game's random and human reference scores (0 = random play,
# 1 = human), as Agarwal et al. do.

# %%
atari = rlstats.datasets.load("atari100k")
pair = atari[atari["agent"].isin([TREATMENT, BASELINE])].reset_index(drop=True)
scores = rlstats.normalize(pair, "atari100k_reference")
cell_means = scores.groupby(["task", "agent"])["score"].mean().unstack()
effect = (cell_means[TREATMENT] - cell_means[BASELINE]).sort_values(ascending=False)
print(f"{scores['task'].nunique()} games, runs per agent and game: "
      f"{scores.groupby(['agent', 'task']).size().min()}")
print(effect.round(3).to_string())

# %% [markdown]
# SPR's advantage is concentrated in a few games (Boxing, Kangaroo, CrazyClimber, UpNDown);
# on most of the others the two agents are close, and on DemonAttack and Krull DrQ(eps) is
# ahead.

# %% [markdown]
# ## The cherry-picked report: SPR's best 8 games
#
# The reporter's one-sample t test on these 8 games finds a "significant" improvement. The
# inspector then asks whether these 8 games look like a random 8 of the 26.

# %%
best = list(effect.index[:N_REPORTED])
picked = rlstats.selection_check(scores, FORMULA, treatment=TREATMENT, baseline=BASELINE, reported=best,
                                 n_resamples=N_RESAMPLES, rng=2021)
print(picked)

# %% [markdown]
# The reporter's p-value is below 0.05, so on its own the report would pass as a significant
# improvement. The inspector's p-value is as small as the number of permutations allows: the
# best 8 games are, by construction, the most extreme of all C(26, 8) = 1,562,275 ways to
# choose 8 games, so no random subset matches them, the exact p-value is 1/1,562,275 and the
# Monte Carlo one is its floor 1/(B + 1). The verdict is "selection bias suspected". Note what
# the inspector does **not** say: it does not say that SPR is no better than DrQ(eps), only
# that these 8 games overstate the improvement on the suite as a whole.
#
# The per-task table shows where the difference comes from:

# %%
print(picked.summary())

# %% [markdown]
# The figure shows every game's effect, coloured by set, with each set's mean (line) and 95%
# t interval (band).

# %%
ax = picked.plot()
plt.close(ax.figure)  # the figure is shown once, as the value of the cell's last line
ax.figure

# %% [markdown]
# And the inspector's null distribution: the difference of means for random 8-game subsets,
# with the observed value far in the upper tail.

# %%
ax = picked.plot(kind="null_distribution")
plt.close(ax.figure)
ax.figure

# %% [markdown]
# ### Robust to the choice of effect
#
# The mean difference is dominated by Boxing (2.2 human-normalised units). The probability of
# improvement per game (the share of run pairs where SPR scores higher, minus 0.5) is bounded
# and ignores the scale of a game. The check reaches the same verdict with it:

# %%
picked_poi = rlstats.selection_check(scores, FORMULA, treatment=TREATMENT, baseline=BASELINE, reported=best,
                                     effect="poi", n_resamples=N_RESAMPLES, rng=2021)
print(picked_poi.tidy()[["term", "estimate", "statistic", "p_value", "method"]].to_string(index=False))
print("verdict:", picked_poi.verdict)

# %% [markdown]
# ### The paper's own tests: known variance and the conservative p-value
#
# The paper works with the per-task effects in units of their standard deviation. With
# `sigma="pooled"` (the sd over all 26 games, the paper's convention for its real-data
# experiment) the z versions of both tests are available, and with `n_candidates=26` so is the
# paper's conservative p-value: how often would the best 8 of 26 games with *no* true effect
# look at least this good? That p-value protects against cherry-picking by design, at the
# price of power.

# %%
paper_style = rlstats.selection_check(scores, FORMULA, treatment=TREATMENT, baseline=BASELINE, reported=best,
                                      reporter="z", inspector="z", sigma="pooled", n_candidates=26, rng=2021)
print(paper_style.tidy()[["term", "estimate", "statistic", "p_value", "pvalue_mc_se"]].to_string(index=False))

# %% [markdown]
# The naive z test calls the 8 games highly significant; the conservative p-value, which
# assumes the author kept the best 8 of 26, does not.

# %% [markdown]
# ## For contrast: 8 games drawn at random
#
# Now an honest author reports 8 games chosen at random (seeded). The inspector should find
# nothing unusual.

# %%
generator = np.random.default_rng(7)
random_games = sorted(generator.choice(effect.index.to_numpy(), size=N_REPORTED, replace=False))
honest = rlstats.selection_check(scores, FORMULA, treatment=TREATMENT, baseline=BASELINE,
                                 reported=random_games, n_resamples=N_RESAMPLES, rng=2021)
print(honest)

# %%
ax = honest.plot()
plt.close(ax.figure)
ax.figure

# %% [markdown]
# With a random report the reported and held-out means are close, the inspector's p-value is
# unremarkable, and (SPR's improvement being small on most games) the reporter has little to
# claim either.
#
# One random draw proves little, so we repeat it: under an honest, random choice of games the
# inspector's p-values are uniformly distributed (that is what "exact" means here), so about
# 5% of them are expected below 0.05; the share printed below is that of the reports drawn at
# this page's size, with its Monte Carlo standard error (a handful of draws can show none).

# %%
subsets = [sorted(generator.choice(effect.index.to_numpy(), size=N_REPORTED, replace=False))
           for _ in range(N_RANDOM_REPORTS)]
random_p = np.array([rlstats.selection_check(scores, FORMULA, treatment=TREATMENT, baseline=BASELINE,
                                             reported=games, n_resamples=N_RESAMPLES, rng=i).pvalue
                     for i, games in enumerate(subsets)])
share = np.mean(random_p <= 0.05)
print(f"{N_RANDOM_REPORTS} random reports: share of inspector p-values <= 0.05: {share:.3f} "
      f"(Monte Carlo se at a true 5%: {np.sqrt(0.05 * 0.95 / N_RANDOM_REPORTS):.3f}); "
      f"the cherry-picked report's p-value: {picked.pvalue:.2g}")

fig, ax = plt.subplots(figsize=(6.4, 3.0))
ax.hist(random_p, bins=np.linspace(0, 1, 21), color="0.6", label="random 8-game reports")
ax.axvline(picked.pvalue, color="#D55E00", linestyle="--", label="best 8 games")
ax.set_xlabel("inspector p-value")
ax.set_ylabel("reports")
ax.legend(frameon=False)
plt.close(fig)
fig

# %% [markdown]
# ## How easy is it to cherry-pick 8 of 26?
#
# `rlstats.selection.simulate` reproduces the paper's synthetic experiments. With 26 tasks, no
# true effect and an author who reports the best 8, how often does the naive test claim an
# improvement, and how often does an inspector with the other 18 catch it?

# %%
for reporter in ("top", "random"):
    sim = rlstats.selection.simulate(26, N_REPORTED, heldout="complement", reporter=reporter,
                                     variance="unknown", n_trials=N_TRIALS, rng=1)
    print(f"reporter = {reporter:6s}: false claims {sim.claim_rate:.3f}, inspector flags {sim.detection_rate:.3f}, "
          f"claims that survive the inspector {sim.undetected_claim_rate:.3f} ({N_TRIALS:,} trials; Monte Carlo "
          f"se at most {max(sim.standard_error(n) for n in ('claim_rate', 'detection_rate')):.4f})")

# %% [markdown]
# A top-8 reporter "finds" an improvement almost every time although there is none, and the
# inspector with 18 held-out tasks catches nearly all of these false claims. An honest reporter
# claims about 5% of the time, as a test at level 0.05 should, and is flagged about 5% of the
# time.
#
# ## Planning: how many held-out tasks does an inspector need?
#
# When the held-out tasks have to be run afresh, `required_heldout` gives the number needed to
# flag the report with a given probability if the true effect were 0 (in units of the sd of
# the per-task effects; the z version of the inspector).

# %%
print(f"detection probability with the 18 held-out games: {picked.detection_probability:.3f}")
print(f"fresh games needed for 95% detection: {picked.required_heldout(power=0.95)}")

# %% [markdown]
# ## Methods paragraph
#
# `report()` writes the check up for a paper:

# %%
print(picked.report())
