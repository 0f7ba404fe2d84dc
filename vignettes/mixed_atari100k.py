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
# # A mixed model, a rank test and a bootstrap on Atari 100k
#
# A statistician coming from R would analyse agents x games x seeds with a linear mixed model:
# `lmer(score ~ agent + (1 | task) + (1 | task:agent))`, degrees of freedom from lmerTest
# (Satterthwaite) or pbkrtest (Kenward-Roger), pairwise contrasts from emmeans. rlstats fits the
# same model (`rlstats.mixed`, or `rlstats.compare(..., method="mixed")`). This vignette runs it
# on the Atari 100k runs of Agarwal et al. (2021), six agents with 100 runs on each of 26 games,
# beside the package's two other tools:
#
# * the **mixed model** tests differences of *mean* human-normalised scores, with games as a
#   random sample of games (normal random effects) and t tests on Satterthwaite or
#   Kenward-Roger df;
# * the **blocked rank test** (`rlstats.compare`'s default) uses only the order of the agents
#   within each game, so one game where an agent scores 3 times the human cannot outweigh
#   twenty where it is a little behind;
# * the **stratified bootstrap** (`rlstats.bootstrap`) gives intervals for an aggregate over
#   games (here the IQM and the mean) with the 26 games held fixed and only the runs resampled.
#
# They answer different questions, and the last section lists where they agree and why they do
# not always. Everything takes seconds: the default size is the full size (10,000 bootstrap
# resamples); `RLSTATS_VIGNETTE_FAST=1` (the test suite's smoke run) uses 200, which moves the
# bootstrap intervals (those with the games resampled by up to 0.06); the text quotes the
# default size, and nothing else in it depends on the size.

# %%
import os
import warnings

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
    N_RESAMPLES=(200, 10_000, 10_000),  # (fast, default, full) bootstrap resamples
).items()}
N_RESAMPLES = COUNTS["N_RESAMPLES"]
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
SIX = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]
FORMULA = "score ~ agent | task/seed"  # seeds are replicate runs of an agent x game cell

pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 20)

# %% [markdown]
# ## The data
#
# `atari100k` holds one row per run, `atari100k_reference` the random and human score of every
# game. The mixed model assumes one residual variance on one scale, so raw Atari scores (Pong
# from -21 to 21, Asterix in the thousands) must be normalised first:
# (score - random) / (human - random). The rank test would not care; the bootstrap's IQM needs
# it too.

# %%
atari = rlstats.datasets.load("atari100k")  # offline: set RLSTATS_DATA_MIRROR to a copy of the pinned files
runs = rlstats.normalize(atari[atari["agent"].isin(SIX)].reset_index(drop=True), "atari100k_reference")
cell_means = runs.groupby(["task", "agent"])["score"].mean().unstack()[SIX]
print(f"{runs['agent'].nunique()} agents x {runs['task'].nunique()} games, "
      f"{runs.groupby(['agent', 'task']).size().min()} runs per cell, {len(runs):,} runs")

# %% [markdown]
# ## The mixed model on all 26 games
#
# `| task/seed` says that a cell holds several runs, so the model has random game intercepts
# *and* random game x agent intercepts: the 100 seeds of a cell tell us about that cell, not
# about how the agent does on games in general. The print reads like lmerTest's `summary()`
# followed by emmeans' `pairs()`.

# %%
mixed = rlstats.compare(runs, FORMULA, method="mixed")  # the same as rlstats.mixed(runs, FORMULA)
print(mixed)

# %%
print(mixed.emmeans.round(4).to_string(index=False))

# %% [markdown]
# Reading it:
#
# * The game intercepts vary most (SD 0.41 in human-normalised units), but they cancel in every
#   contrast. What a contrast's standard error rests on is the game x agent SD (0.29): how much
#   an agent's advantage changes from game to game. The residual SD (0.27, seed to seed) is
#   divided by the 100 seeds of a cell and hardly matters.
# * Every pair has the same SE (0.0796) and the same df, 125 = (26 - 1) x (6 - 1). In a
#   balanced design (and with no variance component estimated at 0) the model *is* the two-way
#   analysis of variance of the 156 cell means, with
#   the agent x game interaction as error, and each agent's estimated marginal mean is its mean
#   normalised score over the 26 games. The next cell checks both by hand.
# * With Tukey's adjustment five pairs differ: SPR beats CURL, DER, DrQ and OTRainbow, and
#   DrQ(eps) beats OTRainbow. SPR vs DrQ(eps) (difference 0.151, adjusted p = 0.41) does not.

# %%
n_games, n_agents = cell_means.shape
centred = cell_means.to_numpy() - cell_means.to_numpy().mean()
agent_effect, game_effect = centred.mean(axis=0), centred.mean(axis=1)
interaction = centred - agent_effect[None, :] - game_effect[:, None]
ms_agent = n_games * np.sum(agent_effect ** 2) / (n_agents - 1)
ms_interaction = np.sum(interaction ** 2) / ((n_agents - 1) * (n_games - 1))
print(f"ANOVA of cell means: F = {ms_agent / ms_interaction:.6f} on {n_agents - 1} and "
      f"{(n_agents - 1) * (n_games - 1)} df, SE of a difference = {np.sqrt(2 * ms_interaction / n_games):.6f}")
print(f"mixed model:         F = {mixed.statistic:.6f} on {mixed.num_df} and {mixed.den_df:.4f} df, "
      f"SE of a difference = {mixed.comparisons['std_error'].iloc[0]:.6f}")
print("largest |estimated marginal mean - mean over games|:",
      f"{np.max(np.abs(mixed.emmeans['estimate'].to_numpy() - cell_means.mean().to_numpy())):.1e}")

# %% [markdown]
# The pairwise differences with their Tukey intervals (circled: adjusted p below 0.05):

# %%
fig, ax = plt.subplots(figsize=(6.0, 4.6), layout="constrained")
mixed.plot(kind="contrasts", ax=ax)
# the default label is one long line, wider than a page column: two lines instead
ax.set_xlabel("difference of estimated marginal means\n(95% Tukey intervals; circled: adjusted p below 0.05)")
plt.close(fig)
fig

# %% [markdown]
# ## Few games: why the df matter
#
# With 26 games the t distribution on 125 df is nearly normal. Papers often report a handful of
# games. Take the subset of the R reference (`tests/reference/mixed_data.py`): the first 5
# games in alphabetical order, CURL, DrQ(eps) and SPR, seeds 0 to 9 (150 runs), fitted with
# Kenward-Roger's df and no multiplicity adjustment, so that each p-value can be set beside a
# Wald z test. A Wald z with infinite df is what statsmodels' `MixedLM` reports: the same REML
# estimates and standard errors, but the normal distribution in place of the t.

# %%
games = sorted(runs["task"].unique())
three = ["CURL", "DrQ(eps)", "SPR"]


def subset(n_games, n_seeds=10):
    keep = runs["agent"].isin(three) & runs["task"].isin(games[:n_games]) & (runs["seed"] < n_seeds)
    return runs[keep].reset_index(drop=True)


few = subset(5)
kr = rlstats.mixed(few, FORMULA, ddf="kenward-roger", adjust="none")
print(kr)

# %%
sat = rlstats.mixed(few, FORMULA, ddf="satterthwaite", adjust="none")
table = pd.DataFrame({
    "contrast": kr.comparisons["agent_1"] + " - " + kr.comparisons["agent_2"],
    "estimate": kr.comparisons["estimate"], "SE": kr.comparisons["std_error"], "t": kr.comparisons["statistic"],
    "df (KR)": kr.comparisons["df"], "df (Satt.)": sat.comparisons["df"],
    "p (KR)": kr.comparisons["p_value"], "p (Satt.)": sat.comparisons["p_value"],
    "p (Wald z)": 2 * stats.norm.sf(np.abs(kr.comparisons["statistic"]))})
table["p ratio z / KR"] = table["p (Wald z)"] / table["p (KR)"]
print(table.round(4).to_string(index=False))

# %% [markdown]
# R gives the same numbers (`tests/reference/mixed_r.json`: lme4 1.1-31, lmerTest 3.1-3,
# pbkrtest 0.5.2): for CURL - SPR, t = -1.960 on 8.000 df, p = 0.0857. The contrasts' df are
# 8 = (5 - 1) x (3 - 1), the interaction's df in the ANOVA of the 15 cell means; in this
# balanced design Kenward-Roger's and Satterthwaite's df and p-values coincide (they part when
# cells are missing or hold different numbers of runs). The Wald z puts CURL - SPR at p = 0.050,
# on the usual threshold, where the t on 8 df says p = 0.086: the z p-value is 42% smaller, and
# 27% smaller for CURL - DrQ(eps). If statsmodels is installed, its `MixedLM` fit shows the same
# z:

# %%
try:
    import statsmodels.formula.api as smf
except ImportError:
    print("statsmodels is not installed: skipping the cross-check (pip install statsmodels)")
else:
    model = smf.mixedlm("score ~ agent", few, groups="task", re_formula="1", vc_formula={"cell": "0 + C(agent)"})
    with warnings.catch_warnings():
        # statsmodels warns that the fit 'may be on the boundary'; it is not: both SDs are far from 0 (above)
        warnings.simplefilter("ignore")
        fit = model.fit(reml=True)
    print(pd.DataFrame({"estimate": fit.fe_params, "SE": fit.bse_fe, "z": fit.tvalues[:3],
                        "p (Wald z)": fit.pvalues[:3]}).round(4))

# %% [markdown]
# How the df grow with the number of games (CURL - SPR, the same three agents and 10 seeds, the
# first n games alphabetically). The last column is what the Wald z test's 5% threshold,
# |t| > 1.96, really rejects when the t statistic has these df and no difference exists.

# %%
rows = []
for n in (3, 5, 8, 12, 18, 26):
    res = rlstats.mixed(subset(n), FORMULA, ddf="kenward-roger", adjust="none")
    pair = res.comparisons.iloc[1]  # CURL - SPR
    rows.append({"games": n, "estimate": pair["estimate"], "SE": pair["std_error"], "t": pair["statistic"],
                 "df (KR)": pair["df"], "p (KR)": pair["p_value"],
                 "p (Wald z)": 2 * stats.norm.sf(abs(pair["statistic"]))})
by_games = pd.DataFrame(rows)
by_games["p ratio z / KR"] = by_games["p (Wald z)"] / by_games["p (KR)"]
by_games["z test's real size at 5%"] = 2 * stats.t.sf(stats.norm.ppf(0.975), by_games["df (KR)"])
print(by_games.round(4).to_string(index=False))

# %% [markdown]
# The df are 2(n - 1) for 3 agents on n games. A test that uses 1.96 as its 5% threshold really
# rejects 12% of the time on 3 games (4 df), 8.6% on 5, 6.3% on 12 and still 5.6% on 26. The
# ratio of the p-values does not settle towards 1 as quickly: it also depends on how far out
# the statistic lies, and at 26 games (t = -3.56 on 50 df) the z p-value is still half the t's.
# So the df matter most for the yes/no call on a handful of games, the way many papers report
# Atari or MuJoCo results.

# %% [markdown]
# ## The blocked rank test on the same agents
#
# `rlstats.compare(runs, "score ~ agent | task/seed")` with no `method` runs the blocked rank
# test. With 100 runs per cell it picks **Mack-Skillings**, which ranks all 600 runs of a game
# together. `within_cell="mean"` ranks the six cell means of each game instead (on a complete
# design this is **Friedman's** test); that version, like the mixed model, has one number per
# agent and game, and the games are its replicates.

# %%
ranks_runs = rlstats.compare(runs, FORMULA)
print(ranks_runs)

# %%
ranks_means = rlstats.compare(runs, FORMULA, within_cell="mean")
print(ranks_means)
print("Friedman's test on the cell means (scipy):",
      stats.friedmanchisquare(*(cell_means[a] for a in SIX)))

# %% [markdown]
# Both reject that the six agents are alike (chi-squared 3070 and 54.4 on 5 df; rlstats'
# statistic on the cell means equals scipy's Friedman statistic). Their post hoc tests part:
# Mack-Skillings finds 14 of 15 pairs different, the rank test on cell means 7, the mixed model
# 5. The table sets the adjusted p-values side by side, with the number of games (of 26) on
# which the first agent of the pair has the higher and the lower cell mean.

# %%
first, second = mixed.comparisons["agent_1"].to_numpy(), mixed.comparisons["agent_2"].to_numpy()
# the rank tests' post hoc rows, in the mixed model's order of pairs
means_post = ranks_means.tidy().set_index(["agent_1", "agent_2"]).loc[list(zip(first, second))]
runs_post = ranks_runs.tidy().set_index(["agent_1", "agent_2"]).loc[list(zip(first, second))]
pairs = pd.DataFrame({
    "pair": [f"{a} vs {b}" for a, b in zip(first, second)],
    "difference of means": mixed.comparisons["estimate"].to_numpy(),
    "wins": [int((cell_means[a] > cell_means[b]).sum()) for a, b in zip(first, second)],
    "losses": [int((cell_means[a] < cell_means[b]).sum()) for a, b in zip(first, second)],
    "p mixed (Tukey)": mixed.comparisons["p_adjusted"].to_numpy(),
    "p ranks of means (Tukey)": means_post["p_adjusted"].to_numpy(),
    "p ranks of runs (Tukey)": runs_post["p_adjusted"].to_numpy(),
})
print(pairs.to_string(index=False, float_format=lambda v: f"{v:.3g}"))

# %% [markdown]
# * The five pairs of the mixed model are among the seven of the rank test on cell means, all
#   with SPR or DrQ(eps) winning on 22 or 23 of 26 games.
# * The rank test on cell means adds DrQ(eps) over CURL (22 wins of 26, adjusted p = 0.0038) and
#   over DrQ (23 of 26, p = 0.023). The mixed model sees differences of means of 0.21 and 0.10,
#   against a standard error of 0.080 shared by all pairs, and adjusted p-values of 0.11 and
#   0.84. Ranks count how consistently an agent is ahead; the mixed model weighs by how far.
# * Neither finds SPR ahead of DrQ(eps): SPR wins 19 of 26 games and its mean is 0.15 higher,
#   but the adjusted p-values are 0.41 (mixed) and 0.91 (ranks).
# * Mack-Skillings ranks the runs, not the games: with 100 runs per cell, it sees that on *these*
#   26 games nearly every pair's runs are ordered differently (14 pairs, all with adjusted p below
#   1e-20), SPR over DrQ(eps) included (p = 1.1e-21). Its question is whether fresh seeds on the same games
#   would repeat the order, not whether the agents differ on games in general; it finds no difference
#   only between DER and DrQ (mean ranks 3.48 and 3.52 of 6).

# %% [markdown]
# ## The stratified bootstrap: intervals with the games held fixed
#
# The bootstrap resamples the 100 runs of every cell (the games are strata) and recomputes the
# IQM and the mean over all 26 games. Its intervals say how much the aggregate would move with
# other seeds *on these 26 games*. `task_bootstrap=True` also resamples the games, which asks
# the mixed model's question (other games like these). The table puts each agent's estimated
# marginal mean with the mixed model's 95% interval beside the bootstrap intervals of the mean
# (the same number in this balanced design) and of the IQM.

# %%
boot = rlstats.bootstrap(runs, FORMULA, metrics=["iqm", "mean"], n_resamples=N_RESAMPLES, rng=2021)
boot_games = rlstats.bootstrap(runs, FORMULA, metrics=["iqm", "mean"], n_resamples=N_RESAMPLES,
                               task_bootstrap=True, rng=2021)
print(boot)


def interval(result, metric):
    rows = result.tidy().query("metric == @metric").set_index("agent").loc[SIX]
    return rows["estimate"], rows["conf_low"], rows["conf_high"]


emm = mixed.emmeans.set_index("agent").loc[SIX]


def shown(low, high):
    return [f"{lo:.3f} to {hi:.3f}" for lo, hi in zip(low, high)]


aggregates = pd.DataFrame({"mean": emm["estimate"], "mixed model": shown(emm["conf_low"], emm["conf_high"]),
                           "runs resampled": shown(*interval(boot, "mean")[1:]),
                           "games resampled": shown(*interval(boot_games, "mean")[1:]),
                           "IQM": interval(boot, "iqm")[0], "IQM: runs resampled": shown(*interval(boot, "iqm")[1:]),
                           "IQM: games resampled": shown(*interval(boot_games, "iqm")[1:])})
print(aggregates.round(3).to_string())
width = {name: high - low for name, (_, low, high) in (("runs", interval(boot, "mean")),
                                                       ("games", interval(boot_games, "mean")))}
print(f"interval of the mean, games resampled / runs resampled: {(width['games'] / width['runs']).min():.0f} to "
      f"{(width['games'] / width['runs']).max():.0f} times as wide; the mixed model's: "
      f"{(emm['conf_high'] - emm['conf_low']).iloc[0]:.3f} wide")

# %% [markdown]
# The estimate of the mean is the same number in all three; the intervals answer different
# questions. With the games fixed, every agent's mean is known to about +-0.01 (+-0.02 for SPR):
# 100 seeds per cell leave little doubt from seed to seed. Resampling the games as well makes
# the intervals 17 to 58 times as wide, and 1.0 to 1.7 times as wide as the mixed model's (0.40),
# which also treat the games as a sample (the game bootstrap's default interval, "expanded_tasks",
# widens for games drawn from a population, where the percentile interval fell short of 95% in
# simulations); the mixed model's are symmetric, the game bootstrap's reach
# further up than down because a few games have large normalised scores. The IQM, which drops
# the lowest and highest quarter of the runs, is lower than the mean for every agent and orders
# the agents as the mean does, except CURL and OTRainbow (0.112 and 0.117, where the mean says
# 0.259 and 0.217). One agent's interval in the mixed model includes the spread of the game
# intercepts; a difference of two agents does not, which is why the contrasts above are much
# sharper than the overlap of these intervals suggests.
#
# The drawing: the three intervals of each agent's mean, and its IQM with the runs resampled.

# %%
fig, ax = plt.subplots(figsize=(7.0, 3.2), layout="constrained")
y = np.arange(len(SIX))[::-1]
drawn = [("mixed model (games random)", emm["conf_low"], emm["conf_high"], emm["estimate"], "C0", 0.24),
         ("mean, games resampled", *interval(boot_games, "mean")[1:], emm["estimate"], "C1", 0.08),
         ("mean, runs resampled", *interval(boot, "mean")[1:], emm["estimate"], "C2", -0.08),
         ("IQM, runs resampled", *interval(boot, "iqm")[1:], interval(boot, "iqm")[0], "C3", -0.24)]
for label, low, high, centre, colour, shift in drawn:
    low, high, centre = np.asarray(low), np.asarray(high), np.asarray(centre)
    ax.errorbar(centre, y + shift, xerr=[centre - low, high - centre], fmt="o", color=colour, markersize=3,
                capsize=2, linewidth=1.2, label=label)
ax.set_yticks(y)
ax.set_yticklabels(SIX)
ax.set_xlabel("human-normalised score (95% intervals)")
ax.axvline(0.0, color="0.7", linewidth=0.8)
ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)  # outside: no interval hidden
plt.close(fig)
fig

# %% [markdown]
# ## Residual diagnostics: heavy tails
#
# `mixed.plot(kind="diagnostics")` draws residuals against fitted values and normal QQ plots of
# the residuals, of the predicted game intercepts and of the game x agent intercepts.

# %%
fig = mixed.plot(kind="diagnostics", width=7)
plt.close(fig)
fig

# %%
spread = runs.groupby("task")["score"].std().sort_values()
# fitted values and residuals follow the data's rows, as R's fitted() and residuals() do
ordered = runs.reset_index(drop=True)
assert np.allclose(ordered["score"], mixed.fitted_values + mixed.residuals)
worst = np.argmax(np.abs(mixed.residuals))
print(f"largest residual: {mixed.residuals[worst]:.2f}, {ordered['agent'][worst]} on {ordered['task'][worst]} "
      f"(seed {ordered['seed'][worst]}: {ordered['score'][worst]:.2f} against a fitted "
      f"{mixed.fitted_values[worst]:.2f})")
cells = pd.Series(mixed.cell_effects, index=pd.MultiIndex.from_product([mixed.tasks, mixed.agents]))
print(f"excess kurtosis: residuals {stats.kurtosis(mixed.residuals):.1f}, game intercepts "
      f"{stats.kurtosis(mixed.task_effects):.1f}, game x agent intercepts {stats.kurtosis(mixed.cell_effects):.1f} "
      "(0 for a normal distribution)")
print(f"SD of the runs within a game: from {spread.iloc[0]:.3f} ({spread.index[0]}) to {spread.iloc[-1]:.2f} "
      f"({spread.index[-1]})")
print("largest game intercepts:", ", ".join(f"{g} {v:.2f}" for g, v in
                                            pd.Series(mixed.task_effects, index=mixed.tasks).nlargest(3).items()))
print("largest game x agent intercepts:", ", ".join(f"{a} on {g} {cells[g, a]:+.2f}" for g, a in
                                                    cells.abs().nlargest(4).index))

# %% [markdown]
# The model assumes normal random effects and one residual variance. Human-normalised Atari
# scores are bounded below (near 0, random play) and not above, and they have neither:
#
# * **Residuals vs fitted** fans out as the fitted value grows: the SD of the runs within a game
#   goes from 0.003 on PrivateEye (where every agent stays at the random score) to 1.16 on
#   Boxing. The residual QQ plot is flat in the middle, with a long upper tail (excess kurtosis
#   251); its extreme point is one SPR run on UpNDown at 12.7 human-normalised, 11.8 above its
#   cell's fitted 0.92. With 100 runs per cell this matters little here: the residual variance
#   enters a contrast divided by 100, under 1% of its variance. With a few seeds it would not.
# * **The game intercepts** cancel in every contrast. Their QQ plot is skewed: Krull (1.46),
#   RoadRunner (0.67) and Jamesbond (0.49) lie above the line, the lowest games bunch at about
#   -0.35, where every agent is near random play.
# * **The game x agent intercepts** are what the contrasts rest on (the fourth panel; the next
#   figure names the farthest points). One point lies far out: SPR on Boxing (+2.00; SPR's cell mean
#   is 2.97 human-normalised, no other of the six exceeds 0.75), then DER on Boxing (-0.71) and
#   DrQ(eps) on Krull (+0.69); excess kurtosis 22.8. Since the model pools one game x agent
#   variance for all agents, one cell widens the standard error of *every* pair.

# %%
fig, ax = plt.subplots(figsize=(3.4, 3.0), layout="constrained")
(osm, osr), (slope, intercept, _) = stats.probplot(mixed.cell_effects)
ax.scatter(osm, osr, s=8, color="0.2")
ax.axline((0.0, intercept), slope=slope, color="0.6", linestyle="--", linewidth=0.8)
for position, rank in zip(range(len(osm) - 3, len(osm)), np.argsort(mixed.cell_effects)[-3:]):
    game, agent = cells.index[rank]  # probplot sorts the values: the last three points are the largest
    ax.annotate(f"{agent}, {game}", (osm[position], osr[position]), fontsize=7, xytext=(-5, 0),
                textcoords="offset points", ha="right", va="center")
ax.set_xlabel("normal quantile")
ax.set_ylabel("game x agent intercept")
ax.set_title("normal QQ: game x agent intercepts", fontsize=9)
plt.close(fig)
fig

# %% [markdown]
# How much one game weighs: the same model without Boxing, and the rank test on cell means too.

# %%
no_boxing = rlstats.mixed(runs[runs["task"] != "Boxing"], FORMULA)
without = no_boxing.comparisons[["agent_1", "agent_2", "estimate", "std_error", "p_adjusted"]].copy()
without["estimate (26 games)"] = mixed.comparisons["estimate"].to_numpy()
without["p_adjusted (26 games)"] = mixed.comparisons["p_adjusted"].to_numpy()
print(f"game x agent SD: {mixed.variance_sd[1]:.3f} with Boxing, {no_boxing.variance_sd[1]:.3f} without")
print(without.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
ranks_no_boxing = rlstats.compare(runs[runs["task"] != "Boxing"], FORMULA, within_cell="mean")
print(f"ranks of cell means without Boxing: chi-squared = {ranks_no_boxing.statistic:.2f}, "
      f"p = {ranks_no_boxing.pvalue:.2g}, {int(ranks_no_boxing.tidy()['significant'].sum())} of 15 pairs differ "
      f"(with Boxing: {ranks_means.statistic:.2f}, p = {ranks_means.pvalue:.2g}, "
      f"{int(ranks_means.tidy()['significant'].sum())} pairs)")

# %% [markdown]
# Without Boxing the game x agent SD drops from 0.286 to 0.203 and every standard error from
# 0.080 to 0.058. The mixed model then finds DrQ(eps) ahead of CURL (adjusted p 0.020, as the
# rank test did on all 26 games), and loses SPR over DER and over DrQ (0.083 and 0.071), whose
# mean differences shrink by 35 to 41%; SPR's lead over DrQ(eps) halves, from 0.151 to 0.068.
# The rank test on cell means, for which Boxing is one game of 26 whatever SPR scores there,
# goes from 7 to 8 pairs (DER over OTRainbow, adjusted p 0.067 before, 0.038 after).
#
# ## Where they agree, and why they may not
#
# For every pair, the verdict of each analysis at the 5% level: the better agent when the pair
# differs, "-" when it does not. The two left columns treat the games as a sample of games; the
# two right ones hold these 26 games fixed (the IQM column says whether the two agents' 95%
# intervals, runs resampled, are disjoint; that is a description, not a test).

# %%
def verdict(first_is_better, differs):
    return np.where(differs, np.where(first_is_better, first, second), "-")


iqm, low, high = interval(boot, "iqm")
verdicts = pd.DataFrame({
    "pair": pairs["pair"],
    "mixed model": verdict(mixed.comparisons["estimate"] > 0, mixed.comparisons["significant"]),
    # rank tests: estimate = mean rank of agent_1 - mean rank of agent_2, with rank 1 the best
    "ranks of cell means": verdict(means_post["estimate"] < 0, means_post["significant"]),
    "ranks of runs": verdict(runs_post["estimate"] < 0, runs_post["significant"]),
    "IQM intervals": verdict(iqm[first].to_numpy() > iqm[second].to_numpy(),
                             (low[first].to_numpy() > high[second].to_numpy())
                             | (low[second].to_numpy() > high[first].to_numpy())),
})
print(verdicts.to_string(index=False))

# %% [markdown]
# **Where they agree.** All four reject that the six agents are alike. All four rank SPR above
# CURL, DER, DrQ and OTRainbow, and DrQ(eps) above OTRainbow: the mixed model's five pairs,
# found by every method. No method contradicts another's direction: where two methods both call
# a pair, they name the same winner.
#
# **Why they may not**, pair by pair:
#
# * *Mean against ranks* (CURL vs DrQ(eps), DrQ vs DrQ(eps)). The mixed model tests
#   differences of mean human-normalised scores under normal random effects, with one game x
#   agent variance for all pairs; the heavy-tailed cells that dominate the mean (SPR on Boxing)
#   inflate it for every pair. The rank test on cell means uses only which agent is ahead in
#   each game, so no game counts for more than one win; DrQ(eps)'s small but consistent leads
#   (22 and 23 games of 26) are what it sees. Drop Boxing and the mixed model agrees on
#   CURL vs DrQ(eps).
# * *Games as a sample or games fixed* (six pairs: CURL vs DER, CURL vs DrQ, DER vs DrQ(eps),
#   DER vs OTRainbow, DrQ vs OTRainbow, DrQ(eps) vs SPR). The mixed model and the rank test on
#   cell means have one value per agent and game and generalise to other games like these (26
#   games, 125 or fewer df). Mack-Skillings on the runs and the stratified bootstrap hold the 26
#   games fixed and take their uncertainty from the seeds alone, of which there are 100 per
#   cell: they separate nearly every pair, SPR and DrQ(eps) included. Both answers are right
#   for their question; a claim about "Atari" rather than these 26 games needs the first kind,
#   or `task_bootstrap=True`, whose intervals of the mean are as wide as the mixed model's or wider.
# * *Which aggregate* (CURL vs OTRainbow, DER vs DrQ). With the games fixed, Mack-Skillings
#   orders all runs of a game (CURL ahead of OTRainbow, DER and DrQ level) while the IQM trims
#   and averages normalised scores (OTRainbow a hair above CURL with overlapping intervals, DrQ
#   clearly above DER). The mean ranks, the IQM and the mean are different summaries and need
#   not agree when agents are close.
# * *Few games.* On 5 games the mixed model's contrasts have 8 df, and a Wald z with infinite df
#   (what statsmodels prints) makes the p-values of the two larger differences 27% and 42%
#   smaller, and its 5% test rejects 8.6% of the time under no difference; Satterthwaite's or
#   Kenward-Roger's df fix that.
#
# The residual diagnostics say that the mixed model's normal assumptions are off on normalised
# Atari scores, in the tails that carry the means. Its numbers are exact for its model, as R's
# are, but read them beside a rank test that does not need that model.
#
# ## References
#
# Agarwal, R., Schwarzer, M., Castro, P. S., Courville, A. and Bellemare, M. G. (2021). Deep
# reinforcement learning at the edge of the statistical precipice. NeurIPS 34.
#
# Bates, D., Maechler, M., Bolker, B. and Walker, S. (2015). Fitting linear mixed-effects models
# using lme4. Journal of Statistical Software 67(1).
#
# Kenward, M. G. and Roger, J. H. (1997). Small sample inference for fixed effects from restricted
# maximum likelihood. Biometrics 53(3), 983-997.
#
# Kuznetsova, A., Brockhoff, P. B. and Christensen, R. H. B. (2017). lmerTest package: tests in
# linear mixed effects models. Journal of Statistical Software 82(13).
#
# Mack, G. A. and Skillings, J. H. (1980). A Friedman-type rank test for main effects in a
# two-factor ANOVA. JASA 75(372), 947-951.
