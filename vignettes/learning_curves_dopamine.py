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
# # Learning curves: the Dopamine Atari baselines
#
# Most RL results are learning curves: a score logged every so often during training. A
# curve frame has one row per (agent, game, run, step). This vignette takes the curves Google
# published for its Dopamine agents (60 Atari games, 6 agents, 5 runs each, 199 training
# iterations of 1M frames) and
#
# 1. shows why such a frame cannot go straight into a test (every logged step would count as
#    a run),
# 2. draws human-normalised IQM sample-efficiency curves with bands that cover the whole curve,
# 3. finds the iterations at which Rainbow and IQN differ, with the error controlled over all
#    199 iterations together, and
# 4. runs the blocked rank test on each run's area under the curve.

# %% [markdown]
# It renders in about a minute at the default size, which is the full size (2,000 resamples).

# %%
import os

import matplotlib.pyplot as plt
import pandas as pd

import rlstats

# Simulation sizes as (fast, default, full): RLSTATS_VIGNETTE_FAST=1 (what the docs build and the tests set) makes
# a smoke run of seconds with rough numbers, RLSTATS_VIGNETTE_FULL=1 the full size. Copying the code, write one number.
SIZE = ("fast" if os.environ.get("RLSTATS_VIGNETTE_FAST", "0") not in ("", "0")
        else "full" if os.environ.get("RLSTATS_VIGNETTE_FULL", "0") not in ("", "0") else "default")
COUNTS = {name: sizes[("fast", "default", "full").index(SIZE)] for name, sizes in dict(
    N_RESAMPLES=(200, 2_000, 2_000)).items()}
N_RESAMPLES = COUNTS["N_RESAMPLES"]
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
pd.set_option("display.width", 120)

# %% [markdown]
# ## The data
#
# `seed` is the run's position in the published file (the files do not name training seeds);
# `step` is the training iteration and `frames` the frames seen by its end.

# %%
dopamine = rlstats.datasets.load("dopamine_atari")
print(dopamine.shape)
dopamine.head()

# %% [markdown]
# ## Steps are not runs
#
# Given this frame, a test that treated rows as runs would see 995 "runs" per agent and game
# and reject almost anything. rlstats refuses, and says what to do instead:

# %%
try:
    rlstats.compare(dopamine, "score ~ agent | task")
except rlstats.DesignError as error:
    print(error)

# %% [markdown]
# ## Human-normalised IQM curves
#
# Normalising by random and human scores puts the games on one scale. Five Dopamine games have
# no published human score (`atari_reference` covers the 57 games of the standard benchmark),
# so they are left out here, and the result would say so if they were not.

# %%
reference = rlstats.datasets.load("atari_reference")
games = dopamine[dopamine["task"].isin(reference["task"])]
print(f"{games['task'].nunique()} of {dopamine['task'].nunique()} games have human and random scores")

res = rlstats.curves(games, "score ~ agent | task/seed", step="step", normalize="atari_reference",
                     statistic="iqm", compare=[("Rainbow", "IQN")], n_resamples=N_RESAMPLES, rng=0, n_jobs=2)
print(res)

# %% [markdown]
# The shaded bands are simultaneous: with 95% confidence each contains the agent's whole
# population IQM curve, not only one iteration at a time. They come from resampling **whole
# runs** within each game, so every resampled curve is made of real trajectories.

# %%
fig, ax = plt.subplots(figsize=(6.5, 4))
res.plot(ax=ax)
ax.set_xlabel("iteration (1M frames each)")
ax.set_ylabel("IQM human-normalised score")
plt.close(fig)
fig

# %% [markdown]
# ## Where do Rainbow and IQN differ?
#
# Testing each of 199 iterations at 5% would flag some iteration by chance most of the time.
# The max-T permutation test relabels whole runs between the two agents within each game and
# compares the largest standardised difference over *all* iterations, so the chance of
# flagging any iteration when the agents do not differ is at most 5%.

# %%
table = res.difference("IQN", "Rainbow")
print(f"iterations where IQN and Rainbow differ: {int(table['significant'].sum())} of {len(table)}")
table.iloc[::20]

# %%
fig, ax = plt.subplots(figsize=(6.5, 3.5))
res.plot(kind="difference", pair=("IQN", "Rainbow"), ax=ax)
ax.set_xlabel("iteration (1M frames each)")
plt.close(fig)
fig

# %% [markdown]
# ## One number per run: the area under the curve
#
# To rank the six agents with a test, each run becomes one number. The area under the curve,
# divided by the iterations spanned, is the run's average score over training: it rewards
# learning fast as well as ending high. `summarize_runs` states the rule, and every result
# built from its output repeats it.

# %%
auc = rlstats.summarize_runs(games, "score ~ agent | task/seed", step="step", how="auc", normalize_auc=True)
ranks = rlstats.compare(auc, "score ~ agent | task/seed")
print(ranks)

# %%
print(ranks.report())
