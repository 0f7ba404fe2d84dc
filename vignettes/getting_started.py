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
# # Getting started with rlstats
#
# `rlstats` compares reinforcement-learning agents the way R compares treatments: a long data
# frame, one row per run, and a formula. If you know R,
#
# ```r
# friedman.test(score ~ agent | task, data = d)
# ```
#
# then you know
#
# ```python
# rlstats.compare(d, "score ~ agent | task")
# ```
#
# This vignette takes the published Atari 100k scores, normalises them, runs the blocked rank
# test, and shows every way to look at its result: the printed test, the summary tables, a
# LaTeX table, the critical-difference diagram and a methods paragraph.
#
# It takes seconds: the default size is the full size (10,000 permutations for the
# permutation p-value); the test suite's smoke run, `RLSTATS_VIGNETTE_FAST=1`, draws 1,000.

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
    N_RESAMPLES=(1_000, 10_000, 10_000),  # (fast, default, full) permutations
).items()}
N_RESAMPLES = COUNTS["N_RESAMPLES"]
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
pd.set_option("display.width", 120)

# %% [markdown]
# ## The data: one row per run
#
# `rlstats.datasets.load("atari100k")` downloads the scores published with Agarwal et al.
# (2021), *Deep Reinforcement Learning at the Edge of the Statistical Precipice*, from files
# pinned by commit and checked by SHA-256, and caches them. (Offline, set the environment
# variable `RLSTATS_DATA_MIRROR` to a local copy; `rlstats.datasets.available()` describes every
# dataset.)
#
# Each row is the final score of one **run**: one agent trained once on one game (a **task**)
# from one random **seed**. Reinforcement learning is noisy, so the same agent trained again
# with another seed scores differently; papers report several seeds per agent and game. Here
# `seed` numbers the runs within each agent x game cell.

# %%
atari = rlstats.datasets.load("atari100k")
print(atari.head())
runs_per_game = atari.groupby(["agent", "task"]).size().groupby("agent").agg(["min", "max"])
print(f"{atari['task'].nunique()} games; runs per game of each agent:")
print(runs_per_game)

# %% [markdown]
# Six agents (CURL, DER, DrQ, DrQ(eps), OTRainbow, SPR) have 100 runs on each of the 26 games;
# IRIS, SimPLe and PlayVirtual have 5 to 15. We keep the six evaluated with the same protocol,
# which gives a balanced design (the same number of runs in every cell). The test itself also
# accepts unequal numbers of runs; see the end of this vignette.

# %%
AGENTS = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]
six = atari[atari["agent"].isin(AGENTS)]

# %% [markdown]
# ## Normalising scores
#
# Raw game scores live on very different scales (Pong from -21 to 21, others in the
# thousands). The usual fix is the human-normalised score, (score - random) / (human - random),
# with the scores of a random policy and a human player per game.
# `rlstats.datasets.load("atari100k_reference")` has them, and `rlstats.normalize` applies them
# (it refuses tasks missing from the reference and zero ranges).

# %%
reference = rlstats.datasets.load("atari100k_reference")
six_hns = rlstats.normalize(six, reference, low="random", high="human")
print(six_hns.head())

# %% [markdown]
# ## The blocked rank test
#
# The formula reads like R's:
#
# * `score` is the response; it can be an expression over columns, e.g. `log1p(score)` or
#   `I(100 * score)`, evaluated like R's model formulas;
# * `agent` is what we compare (R's `groups`);
# * `| task` names the blocks: agents are compared *within* each game, never by pooling scores
#   across games;
# * `task/seed` (optional) also names the column identifying the runs within a cell, so
#   duplicated runs are caught.
#
# With blocks, `compare()` runs the blocked rank test. Within each game it ranks the runs,
# then asks whether some agents rank systematically higher than others across games.

# %%
res = rlstats.compare(six_hns, "score ~ agent | task/seed")
print(res)

# %% [markdown]
# ### Which statistic ran?
#
# Two rank statistics carry the names of Skillings and Mack, and the result says which one
# ran:
#
# * **Skillings–Mack (1981)** is Friedman's test generalised to missing cells: one value per
#   agent and game (R: `Skillings.Mack::Ski.Mack`, `PMCMRplus::skillingsMackTest`).
# * **Mack–Skillings (1980)** handles several runs per cell: all runs of a game, of every agent
#   and seed, are ranked together, and each agent's mean rank in the game is summed over
#   games (R: `NSM3::pMackSkil` for equal numbers of runs).
#
# Our cells hold 100 runs each, so `compare()` chose Mack–Skillings on the raw runs: every
# seed counts and nothing is averaged away. On a complete design with one run per cell and no
# ties, both equal Friedman's statistic.

# %%
print("cells replicated:", res.counts.max() > 1, "-> variant:", res.variant)
print("method:", res.method)
print(f"statistic = {res.statistic:.4f}, df = {res.df}")

# %% [markdown]
# ### Ranks do not care about normalisation
#
# A rank test compares runs only within a game, so any strictly increasing transformation of
# one game's scores (such as the human normalisation, which subtracts and divides by constants
# per game) leaves the ranks, and the statistic, unchanged. Normalisation matters for
# statistics that average across games (means, IQM); for this test you can skip it.
#
# Run on the raw scores, the statistic is the normalised one to the last bit:

# %%
res_raw = rlstats.compare(six, "score ~ agent | task/seed")
print(f"raw scores:        {res_raw.statistic!r}")
print(f"normalised scores: {res.statistic!r}")

# %% [markdown]
# That takes a rule for floating point. The published files contain near-ties: scores averaged
# over evaluation episodes in floating point, such as 748.9 for one agent and 748.8999999999999
# for another, or 0.0 and -7.1e-15. Compared exactly, as R's `rank()` compares them, these are
# distinct values, and normalising computes (748.9 - 227.8) / (7127.7 - 227.8), whose rounding
# maps both to the same number: a few near-ties would become exact ties and change the
# statistic in its last digits. `rlstats` ranks scores of a task within 1e-12 of each other
# (relative to the task's range, plus 4 rounding units of its largest |score|) as ties, raw or
# normalised, and a note of the result says so: floating-point noise is not a win. (The note
# gives no count of the pairs joined: how many pairs differ before joining depends on the units'
# rounding, while the ties, and so the ranks, do not.) Ranked exactly, as R's `rank()` does,
# some runs change rank after normalising:

# %%
def ranks_within_task(frame):
    return frame.groupby("task")["score"].rank()  # average ranks for ties, as in R


changed = ranks_within_task(six) != ranks_within_task(six_hns)
print(f"{changed.sum()} of {len(six)} runs change rank after normalising, e.g. in Alien:")
examples = six[changed].assign(normalised=six_hns["score"]).sort_values(["task", "score"])
print(examples.head(5).to_string(formatters={"score": lambda v: repr(float(v)),
                                             "normalised": lambda v: repr(float(v))}))

# %% [markdown]
# A per-game transformation that is exact in floating point keeps every rank even when scores
# are compared exactly. Multiplying each game by its own power of two is one:

# %%
game_number = six["task"].astype("category").cat.codes
six_scaled = six.assign(score=six["score"] * 2.0 ** game_number)
res_scaled = rlstats.compare(six_scaled, "score ~ agent | task/seed")
print("identical to the raw-score statistic:", res_scaled.statistic == res_raw.statistic)

# %% [markdown]
# ## Looking at the result
#
# `summary()` prints the full tables: mean ranks per agent (1 = best) and every pairwise
# comparison. In a notebook it renders as HTML; `.tables` holds the DataFrames at full
# precision.

# %%
print(res.summary())

# %% [markdown]
# `tidy()` and `glance()` return data frames in the vocabulary of R's broom package: one row
# per pair of agents, and one row for the whole test.

# %%
res.tidy().head()

# %%
res.glance()

# %% [markdown]
# For a paper, `to_latex()` gives booktabs tables (and `to_markdown()` Markdown):

# %%
print(res.summary().to_latex(label="tab:atari-ranks"))

# %% [markdown]
# ## The critical-difference diagram
#
# Agents are placed by mean rank, best on the right. With equal numbers of runs in every cell,
# pairs are compared with the critical difference (CD) of the Mack–Skillings all-pairs
# procedure (a Tukey-type test; the Nemenyi test when there is one run per cell): two agents
# differ when their mean ranks differ by at least the CD, and a thick bar joins agents that do
# not. Here only DER and DrQ are joined.

# %%
ax = res.plot()
plt.close(ax.figure)  # the figure is shown once, as the value of the cell's last line
ax.figure

# %% [markdown]
# ## A methods paragraph
#
# `report()` returns a paragraph describing the test, the design and the outcome, ready to
# adapt for a paper:

# %%
print(res.report())

# %% [markdown]
# ## Permutation p-values
#
# The p-value above comes from the chi-squared approximation. Atari scores tie a lot (Pong,
# Boxing, Freeway), and the statistic uses no tie correction, which makes the chi-squared
# p-value conservative. A permutation p-value shuffles the observed ranks within each game
# (keeping the ties and the number of runs per cell), and `rng=` makes it reproducible:

# %%
res_mc = rlstats.compare(six_hns, "score ~ agent | task/seed", pvalue="monte_carlo",
                         n_resamples=N_RESAMPLES, rng=2024)
print(res_mc)

# %% [markdown]
# With a statistic this large, no permutation reaches it, so the p-value is the smallest
# possible, 1 / (n_resamples + 1).
#
# ## Aggregating seeds instead
#
# Many papers first average the seeds of each cell and then compare one number per agent and
# game. `within_cell="mean"` (or `"median"`) does that and runs the Skillings–Mack (1981)
# statistic on the cell means, saying so in the printout (on this complete design it is
# Friedman's statistic, and the printout names it so). It throws away the spread between
# seeds, hence the much smaller statistic.

# %%
print(rlstats.compare(six_hns, "score ~ agent | task", within_cell="mean"))

# %% [markdown]
# ## Unequal numbers of runs
#
# The Mack–Skillings statistic does not need equal numbers of runs: with all nine agents
# (5 to 100 runs per cell) the omnibus test reads:

# %%
all_hns = rlstats.normalize(atari, reference)
rlstats.compare(all_hns, "score ~ agent | task/seed").glance()

# %% [markdown]
# Next: the vignette "Blocked rank tests on Atari 100k" repeats the thesis analysis on which
# this test's defaults are based, with samples of 3 to 50 runs per cell.
