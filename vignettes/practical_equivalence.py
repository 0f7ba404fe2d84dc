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
# # Which agents are practically equivalent?
#
# "Our agent matches the published one", "these two are practically the same": such claims are
# usually argued with a test that did not reject. A test that does not reject has only failed to
# find a difference; it may have had too few runs or tasks to see one. Sameness has to be shown
# the other way round: fix first how small a difference counts as nothing (a region of practical
# equivalence, ROPE, or an equivalence margin), then ask whether the data put the difference
# inside it.
#
# This vignette asks the question of two real data sets, the published Atari 100k runs (six
# agents, every one on all games with many runs) and a folder of Stable-Baselines3 training logs
# (three agents, two tasks, three seeds), with four tools side by side:
#
# * the **blocked rank test** (`rlstats.compare`'s default): is any pair different?
# * the **stratified bootstrap** (`rlstats.bootstrap`): intervals for the IQM over tasks;
# * **two one-sided tests** (`rlstats.equivalence`, TOST): is the difference shown to lie within
#   the margin, by a (1 - 2 alpha) confidence interval inside it?
# * **Bayesian comparisons with a ROPE** (`rlstats.bayes`): the posterior probability that the
#   difference lies within the ROPE, with the Bayesian signed-rank test and the hierarchical model.
#
# It then says where their answers differ, and why. Every number in the text below comes from the
# code above it: the sentences with numbers are printed by the code (as Markdown in a notebook).
# The default size takes well under two minutes; `RLSTATS_VIGNETTE_FAST=1` (the smoke run of the
# tests and of the documentation build) draws fewer posterior samples and bootstrap resamples, so
# its Bayesian probabilities and bootstrap intervals move a little and its sentences may name
# other pairs. Without the data the vignette says how to get them and stops.

# %%
import os
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import rlstats
from rlstats import DataUnavailableError

# Simulation sizes as (fast, default, full): RLSTATS_VIGNETTE_FAST=1 (what the docs build and the tests set) makes
# a smoke run of seconds with rough numbers, RLSTATS_VIGNETTE_FULL=1 the full size. Copying the code, write one number.
SIZE = ("fast" if os.environ.get("RLSTATS_VIGNETTE_FAST", "0") not in ("", "0")
        else "full" if os.environ.get("RLSTATS_VIGNETTE_FULL", "0") not in ("", "0") else "default")
COUNTS = {name: sizes[("fast", "default", "full").index(SIZE)] for name, sizes in dict(
    N_RESAMPLES=(300, 2_000, 2_000),     # bootstrap resamples (the equivalence test's aggregate and the IQMs)
    N_SAMPLES=(5_000, 50_000, 50_000),   # Dirichlet draws of the signed-rank model (baycomp's default)
    DRAWS=(250, 1_000, 1_000),           # draws kept per chain of the hierarchical model (8 chains)
).items()}
N_RESAMPLES, N_SAMPLES, DRAWS = COUNTS["N_RESAMPLES"], COUNTS["N_SAMPLES"], COUNTS["DRAWS"]
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 20)

try:  # in a notebook the sentences below are shown as Markdown, in a terminal as wrapped text
    from IPython import get_ipython
    from IPython.display import Markdown, display
    NOTEBOOK = get_ipython() is not None
except ImportError:
    NOTEBOOK = False


def say(*sentences):
    """Print prose whose numbers were computed above."""
    text = " ".join(sentences)
    if NOTEBOOK:
        display(Markdown(text))
    else:
        print(textwrap.fill(text.replace("`", ""), 100), end="\n\n")


def pairs_text(pairs):
    """'A vs B, C vs D' or 'no pair'."""
    return ", ".join(f"{a} vs {b}" for a, b in pairs) if len(pairs) else "no pair"


FORMULA = "score ~ agent | task/seed"  # seeds are replicate runs of an agent x task cell
SIX = ["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"]
ATARI_NORMALISER = "atari100k_reference"  # (score - random) / (human - random), per game
ROPE = 0.05           # half-width of the region of practical equivalence, on the normalised scale (see below)
ALPHA = 0.05          # each one-sided test of TOST: the (1 - 2 ALPHA) interval decides
DECISIVE = 0.95       # a Bayesian call is made when one region holds this much posterior probability
ROPES = (0.01, 0.02, 0.05, 0.1, 0.2)  # the sweep of the last Atari section

atari = rlstats.datasets.load("atari100k")  # offline: set RLSTATS_DATA_MIRROR to a copy of the pinned files
six = atari[atari["agent"].isin(SIX)].reset_index(drop=True)
print(f"Atari 100k: {six['agent'].nunique()} agents x {six['task'].nunique()} games, "
      f"{six.groupby(['agent', 'task']).size().min()} runs per cell, {len(six):,} runs")

# Your own Stable-Baselines3 logs: set RLSTATS_SB3_LOGS. Otherwise the shared data beside the repository, found from
# this file's folder (or, in a notebook, which has no __file__, from the working directory: vignettes/).
HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
LOGS = Path(os.environ.get("RLSTATS_SB3_LOGS") or HERE.parent.parent / "shared" / "data" / "logs" / "sb3_classic")
if not LOGS.is_dir():  # an error, not an exit: the docs build shows its message as a "data not available" box
    raise DataUnavailableError(
        f"The Stable-Baselines3 logs are not at {LOGS} (the second half of this vignette reads them). Put the shared "
        "data beside the repository (shared/data/logs/sb3_classic, 1.3 MB), or set RLSTATS_SB3_LOGS to a folder of the "
        "same layout: <agent>/<task>/seed_<s>/ with EvalCallback's evaluations.npz.")
print(f"logs: {LOGS}")

# %% [markdown]
# ## Atari 100k: choosing the ROPE before looking
#
# A ROPE is a statement about the application, not about the data, and it must be fixed before
# the analysis. On Atari the natural unit is the human-normalised score, (score - random) /
# (human - random), where one unit is the whole gap between random play and a human player; all
# calls below pass `normalize="atari100k_reference"`, so the ROPE is on that scale and every
# result says so. We take as practically nothing a difference of a small fixed fraction of that
# gap (the constant `ROPE` at the top), small beside the unit the benchmark reports.
# Whether it is also small beside the differences this field calls progress can be checked on the
# published agents' IQMs (each agent's IQM with its stratified bootstrap interval, games fixed):

# %%
boot = rlstats.bootstrap(six, FORMULA, normalize=ATARI_NORMALISER, metrics=["iqm", "mean"],
                         n_resamples=N_RESAMPLES, rng=2021)
iqm = boot.tidy().query("metric == 'iqm'").set_index("agent").sort_values("estimate")
print(iqm[["estimate", "conf_low", "conf_high"]].round(4).to_string())
steps = iqm["estimate"].diff().dropna()
span = iqm["estimate"].iloc[-1] - iqm["estimate"].iloc[0]
say(f"Ranked by IQM, the six agents span {iqm['estimate'].iloc[0]:.3f} ({iqm.index[0]}) to",
    f"{iqm['estimate'].iloc[-1]:.3f} ({iqm.index[-1]}) human-normalised; the steps from one agent to the next are",
    f"{', '.join(f'{v:.3f}' for v in steps)}. A ROPE of ±{ROPE} is {ROPE / span:.0%} of the whole span, and",
    f"{int((steps < ROPE).sum())} of the {len(steps)} steps are smaller than it: on this benchmark a ROPE of this",
    f"size is not a formality, so the last part of this section sweeps it from ±{ROPES[0]:g} to ±{ROPES[-1]:g}.")

# %% [markdown]
# ## The rank test: what it rejects, and what it does not
#
# `rlstats.compare` with no method runs the blocked rank test. With many runs per cell it picks
# Mack-Skillings, which ranks all runs of a game together and takes its uncertainty from the seeds
# of these games; `within_cell="mean"` ranks the six cell means of each game (Friedman's test),
# whose replicates are the games. Its post hoc tests (Tukey-adjusted) say which pairs differ.

# %%
ranks_runs = rlstats.compare(six, FORMULA)
ranks_means = rlstats.compare(six, FORMULA, within_cell="mean")
print(ranks_runs.method, "|", ranks_means.method)
post_runs = ranks_runs.tidy().set_index(["agent_1", "agent_2"])
post_means = ranks_means.tidy().set_index(["agent_1", "agent_2"])
PAIRS = list(post_runs.index)
kept_runs = [p for p in PAIRS if not post_runs.loc[p, "significant"]]
kept_means = [p for p in PAIRS if not post_means.loc[p, "significant"]]
say(f"Mack-Skillings on the runs finds {len(PAIRS) - len(kept_runs)} of {len(PAIRS)} pairs different and does not",
    f"reject {pairs_text(kept_runs)}. Ranking the cell means, {len(kept_means)} pairs are not rejected:",
    f"{pairs_text(kept_means)}. None of these non-rejections says that the two agents are the same.")

# %% [markdown]
# ## Two one-sided tests
#
# `rlstats.equivalence(..., margin=ROPE)` tests H0: |difference| >= margin against equivalence,
# for each pair: the pair is called "equivalent within ±margin" when the (1 - 2 alpha) interval of
# its difference lies inside the margin, "shown below -margin" (or above +margin) when the interval lies
# wholly past a bound (a one-sided test at alpha of a difference beyond the margin), and "not shown
# equivalent" otherwise (never "equal"). It
# reports three scopes: each game (Welch's t), the mean over games of the per-game differences
# (`across="welch"`: these games, the uncertainty from the seeds; `across="paired_t"`: the games
# as a sample of games, the uncertainty from how the difference varies between them) and the IQM
# difference (a bootstrap-t interval from the stratified bootstrap's own resamples, games fixed).

# %%
tost_fixed = rlstats.equivalence(six, FORMULA, margin=ROPE, alpha=ALPHA, normalize=ATARI_NORMALISER,
                                 n_resamples=N_RESAMPLES, rng=2021)
tost_sample = rlstats.equivalence(six, FORMULA, margin=ROPE, alpha=ALPHA, normalize=ATARI_NORMALISER,
                                  across="paired_t", aggregate=None)
print(tost_fixed.method, "|", tost_fixed.tidy()["margin"].iloc[0], tost_fixed.margin_scale)


def scope(result, name):
    """One row per pair of a TOST result's scope ('across tasks' or 'aggregate')."""
    rows = result.tidy().query("scope == @name").set_index(["agent_1", "agent_2"])
    return rows.loc[PAIRS]


mean_fixed, iqm_fixed, mean_sample = (scope(tost_fixed, "across tasks"), scope(tost_fixed, "aggregate"),
                                      scope(tost_sample, "across tasks"))
def intervals(rows):
    return [f"{lo:+.3f} to {hi:+.3f}" for lo, hi in zip(rows["conf_low"], rows["conf_high"])]


LEVEL = f"{1 - 2 * ALPHA:.0%}"  # the level of the interval that decides a TOST
table = pd.DataFrame({"mean diff": mean_fixed["estimate"], f"{LEVEL} CI, games fixed": intervals(mean_fixed),
                      f"{LEVEL} CI, games sampled": intervals(mean_sample), "IQM diff": iqm_fixed["estimate"],
                      f"{LEVEL} CI of IQM diff": intervals(iqm_fixed)})
table.index = [f"{a} - {b}" for a, b in PAIRS]
print(table.round(3).to_string())
shown = {name: [p for p in PAIRS if rows.loc[p, "shown"]] for name, rows in
         (("mean, games fixed", mean_fixed), ("IQM, games fixed", iqm_fixed), ("mean, games sampled", mean_sample))}
per_game = tost_fixed.tidy().query("scope == 'task'").groupby(["agent_1", "agent_2"])["shown"].sum().loc[PAIRS]
say(f"Within ±{ROPE}, TOST shows equivalent on the mean over these games (runs as the replicates)",
    f"{pairs_text(shown['mean, games fixed'])}; on the IQM {pairs_text(shown['IQM, games fixed'])}; with the games",
    f"as a sample of games (paired t over games) {pairs_text(shown['mean, games sampled'])}: those intervals are",
    f"{(mean_sample['conf_high'] - mean_sample['conf_low']).min():.3f} to",
    f"{(mean_sample['conf_high'] - mean_sample['conf_low']).max():.3f} wide, wider than the whole band",
    f"({2 * ROPE:.2f}), so no pair could be shown equivalent there whatever its estimate. Game by game, the pairs",
    f"are equivalent on {int(per_game.min())} to {int(per_game.max())} of the {six['task'].nunique()} games",
    "(separate tests, each at its level).")

# %% [markdown]
# ## Bayesian comparisons with a ROPE
#
# `rlstats.bayes(..., rope=ROPE)` gives, per pair, the posterior probabilities that the first agent
# is practically better, practically equivalent (within the ROPE) or practically worse. Both
# models treat the games as a sample of games:
#
# * the **Bayesian signed-rank test** (Benavoli et al.) works on the per-game differences of cell
#   means, with a Dirichlet process over games; its probabilities are the shares of posterior draws
#   in which each region holds the largest mass of the Walsh averages (a median-like centre);
# * the **hierarchical model** (Corani et al.) puts the per-game differences in a Student-t
#   distribution across games with centre delta0, the seeds as replicates within a game; its
#   probabilities are those of delta0. With few degrees of freedom the t down-weights a game far
#   from the others, so delta0 is a robust centre, not the mean over games.
#
# A pair is called practically equivalent when P(rope) reaches `DECISIVE`, practically different
# when P(better) or P(worse) does, and left open otherwise.

# %%
signed_rank = rlstats.bayes(six, FORMULA, rope=ROPE, normalize=ATARI_NORMALISER, n_samples=N_SAMPLES, rng=2021)
hierarchical = rlstats.bayes(six, FORMULA, rope=ROPE, model="hierarchical", normalize=ATARI_NORMALISER,
                             draws=DRAWS, rng=2021)
print(hierarchical)

# %%
sr, hm = (r.tidy().set_index(["agent_1", "agent_2"]).loc[PAIRS] for r in (signed_rank, hierarchical))


def bayes_call(row):
    if row["p_rope"] >= DECISIVE:
        return "equivalent"
    if max(row["p_better"], row["p_worse"]) >= DECISIVE:
        return "different"
    return "open"


nu = hierarchical.diagnostics.query("parameter == 'nu'").set_index(["agent_1", "agent_2"]).loc[PAIRS, "estimate"]
bayes_table = pd.DataFrame({
    "P(rope) signed-rank": sr["p_rope"], "call": sr.apply(bayes_call, axis=1),
    "P(rope) hierarchical": hm["p_rope"], "call ": hm.apply(bayes_call, axis=1),
    "delta0": hm["estimate"], "mean over games": mean_fixed["estimate"], "nu": nu})
bayes_table.index = [f"{a} - {b}" for a, b in PAIRS]
print(bayes_table.round(3).to_string())
sr_equal = [p for p in PAIRS if bayes_call(sr.loc[p]) == "equivalent"]
hm_equal = [p for p in PAIRS if bayes_call(hm.loc[p]) == "equivalent"]
say(f"The signed-rank model calls {pairs_text(sr_equal)} practically equivalent",
    f"(largest P(rope) {sr['p_rope'].max():.3f}), the hierarchical model {pairs_text(hm_equal)}",
    f"(largest P(rope) {hm['p_rope'].max():.3f}). The hierarchical model's R-hat is at most",
    f"{hm['r_hat'].max():.4f} and its bulk effective sample size at least {hm['ess_bulk'].min():.0f}.",
    f"Its delta0 is not the mean over games: the posterior mean of nu, the t's degrees of freedom, is",
    f"{nu.min():.1f} to {nu.max():.1f} across pairs, heavy tails that let a few games with large",
    f"differences sit far out while delta0 follows the many games where the agents are close",
    f"(|delta0 - mean over games| up to {np.abs(hm['estimate'] - mean_fixed['estimate']).max():.3f}).")

# %% [markdown]
# ## All the answers, pair by pair
#
# One row per pair. "differ" is a rank-test rejection (Tukey-adjusted, at the default level),
# "equivalent" a TOST or Bayesian call within the ROPE, "-" neither. The last column says whether
# the two agents' bootstrap intervals of the IQM (first table) overlap, as a reader of an rliable
# figure would look at them.

# %%
low, high = iqm["conf_low"], iqm["conf_high"]
verdicts = pd.DataFrame({
    "ranks of runs": ["differ" if post_runs.loc[p, "significant"] else "-" for p in PAIRS],
    "ranks of means": ["differ" if post_means.loc[p, "significant"] else "-" for p in PAIRS],
    "TOST mean (fixed)": ["equivalent" if p in shown["mean, games fixed"] else "-" for p in PAIRS],
    "TOST IQM (fixed)": ["equivalent" if p in shown["IQM, games fixed"] else "-" for p in PAIRS],
    "TOST mean (sampled)": ["equivalent" if p in shown["mean, games sampled"] else "-" for p in PAIRS],
    "signed-rank": [c if c != "open" else "-" for c in sr.apply(bayes_call, axis=1)],
    "hierarchical": [c if c != "open" else "-" for c in hm.apply(bayes_call, axis=1)],
    "IQM CIs overlap": ["yes" if low[a] <= high[b] and low[b] <= high[a] else "no" for a, b in PAIRS],
}, index=[f"{a} - {b}" for a, b in PAIRS])
print(verdicts.to_string())

# %% [markdown]
# Where the answers part, the reason is in what each tool measures and which replicates it trusts.
# The next cell finds the pairs of each kind in the table and prints them with their numbers.

# %%
def contains(rows, p, value):
    return rows.loc[p, "conf_low"] < value < rows.loc[p, "conf_high"]


# not rejected, and the interval over games holds both 0 and differences beyond the ROPE
undecided = [p for p in kept_means if contains(mean_sample, p, 0.0)
             and (contains(mean_sample, p, -ROPE) or contains(mean_sample, p, ROPE))]
different_and_equivalent = [p for p in PAIRS if post_runs.loc[p, "significant"] and p in shown["IQM, games fixed"]]
apart_and_equivalent = [p for p in shown["IQM, games fixed"]
                        if verdicts.loc[f"{p[0]} - {p[1]}", "IQM CIs overlap"] == "no"]
straddle = [(p, name, rows.loc[p]) for name, rows in (("IQM", iqm_fixed), ("mean over games", mean_fixed))
            for p in PAIRS if contains(rows, p, -ROPE) or contains(rows, p, ROPE)]
# the ROPE is the hierarchical model's most probable region, while the mean over games lies outside it
robust_centre = [p for p in PAIRS if hm.loc[p, "p_rope"] > max(hm.loc[p, "p_better"], hm.loc[p, "p_worse"])
                 and abs(mean_sample.loc[p, "estimate"]) > ROPE]

if undecided:
    a, b = max(undecided, key=lambda p: abs(mean_sample.loc[p, "estimate"]))
    # which scope's TOST (audit s36 fixeq36: "TOST over games shows 0" read against the table's games-fixed column)
    sampled = [p for p in kept_means if p in shown["mean, games sampled"]]
    fixed = [p for p in kept_means if p in shown["mean, games fixed"] or p in shown["IQM, games fixed"]]
    beside = (f", though with these games fixed it shows {pairs_text(fixed)} equivalent (on the mean or the IQM:"
              " a claim about these games only)" if fixed else "")
    say(f"**No rejection is not equivalence.** The rank test on cell means does not reject",
        f"{pairs_text(kept_means)}; TOST with the games as a sample of games (the paired t over games) shows",
        f"{len(sampled)} of them equivalent{beside}. For {a} vs {b},",
        f"the rank test's adjusted p is {post_means.loc[(a, b), 'p_adjusted']:.2f}, but the mean difference over",
        f"games is {mean_sample.loc[(a, b), 'estimate']:+.3f} with a {LEVEL} interval of",
        f"{mean_sample.loc[(a, b), 'conf_low']:+.3f} to {mean_sample.loc[(a, b), 'conf_high']:+.3f}, and the",
        f"signed-rank model gives P(rope) =",
        f"{sr.loc[(a, b), 'p_rope']:.2f}: the data are compatible with no difference and with one beyond the ROPE.",
        f"The same holds for {pairs_text([p for p in undecided if p != (a, b)])}. The rank test lacked the games",
        "to decide, nothing more.")
if different_and_equivalent or apart_and_equivalent:
    a, b = (different_and_equivalent or apart_and_equivalent)[0]
    row = iqm_fixed.loc[(a, b)]
    say(f"**Different and practically equivalent.** TOST shows {pairs_text(shown['IQM, games fixed'])}",
        f"equivalent within ±{ROPE} on the IQM of these games; for {a} - {b}, {row['estimate']:+.4f} with a {LEVEL}",
        f"interval of {row['conf_low']:+.4f} to {row['conf_high']:+.4f}. Yet Mack-Skillings finds",
        f"{pairs_text(different_and_equivalent)} different (adjusted p = {post_runs.loc[(a, b), 'p_adjusted']:.1e}",
        f"for {a} vs {b}), and the {boot.confidence_level:.0%} bootstrap intervals of the IQM do not overlap for",
        f"{pairs_text(apart_and_equivalent)}. With {six.groupby(['agent', 'task']).size().min()} runs per cell,",
        "a rank test or two disjoint intervals detect differences far smaller than any that matters: a significant",
        "result says nothing about the size of a difference, and neither do two disjoint intervals.")
if straddle:
    used = {(a, b) for a, b in undecided[:1] + different_and_equivalent[:1]}
    (a, b), name, row = sorted(straddle, key=lambda item: item[0] in used)[0]
    say(f"**An interval across the margin.** For {a} - {b}, the {name} difference with the games fixed is",
        f"{row['estimate']:+.4f}, with a {LEVEL} interval of {row['conf_low']:+.4f} to {row['conf_high']:+.4f}: it",
        f"crosses ±{ROPE}, so the pair is neither shown equivalent nor shown to differ by more than the margin",
        f"(Mack-Skillings calls it {'different' if post_runs.loc[(a, b), 'significant'] else 'not different'}).",
        f"In all, {len(straddle)} of the {2 * len(PAIRS)} mean and IQM intervals with the games fixed straddle the",
        f"margin: {', '.join(f'{n} of {x} - {y}' for (x, y), n, _ in straddle)}. Their answer turns on where",
        "exactly the margin was put, which is why it must be fixed beforehand (the sweep below shows how much).")
if robust_centre:
    a, b = max(robust_centre, key=lambda p: hm.loc[p, "p_rope"])
    effects = hierarchical.task_effects.query("agent_1 == @a and agent_2 == @b").set_index("task")["observed"]
    inside = int((effects.abs() < ROPE).sum())
    far = effects.abs().sort_values(ascending=False)
    say(f"**Which centre.** For {pairs_text(robust_centre)}, the ROPE is the hierarchical model's most probable",
        f"region although the mean difference over games lies outside it. For {a} vs {b}, delta0 =",
        f"{hm.loc[(a, b), 'estimate']:+.3f} (P(rope) = {hm.loc[(a, b), 'p_rope']:.2f}, nu about",
        f"{nu.loc[(a, b)]:.1f}) while the mean over games is {mean_sample.loc[(a, b), 'estimate']:+.3f}: the",
        f"per-game differences lie within ±{ROPE} on {inside} of {len(effects)} games, and the largest are on",
        f"{far.index[0]} ({effects[far.index[0]]:+.2f}) and {far.index[1]} ({effects[far.index[1]]:+.2f}). The t",
        "model reads those as outlying games; the mean counts them in full; the signed-rank model's Walsh",
        f"averages sit between (P(rope) = {sr.loc[(a, b), 'p_rope']:.2f}). Each is right about its own quantity:",
        "say which one a claim of equivalence is about.")

# %% [markdown]
# The three pairs that show these differences best, each with the hierarchical model's posterior
# of delta0 (histogram), the ROPE (shaded) and the TOST intervals of the mean over games
# (games sampled and games fixed) and of the IQM (games fixed):

# %%
shown_pairs = list(dict.fromkeys(
    ([max(undecided, key=lambda p: abs(mean_sample.loc[p, "estimate"]))] if undecided else [])
    + different_and_equivalent[:1] + ([max(robust_centre, key=lambda p: hm.loc[p, "p_rope"])] if robust_centre else [])
    + PAIRS))[:3]
fig, axes = plt.subplots(1, 3, figsize=(6.8, 2.5), layout="constrained", sharey=True)
for ax, (a, b) in zip(axes, shown_pairs):
    k = PAIRS.index((a, b))
    ax.axvspan(-ROPE, ROPE, color="C1", alpha=0.25, linewidth=0, label="ROPE")
    ax.hist(hierarchical.posterior_draws[k], bins=40, density=True, color="C0", alpha=0.7,
            label="posterior of delta0")
    top = ax.get_ylim()[1]
    for (label, rows), level, colour in zip((("mean, games sampled", mean_sample), ("mean, games fixed", mean_fixed),
                                             ("IQM, games fixed", iqm_fixed)), (0.92, 0.8, 0.68), ("k", "C3", "C2")):
        row = rows.loc[(a, b)]
        ax.errorbar(row["estimate"], level * top, xerr=[[row["estimate"] - row["conf_low"]],
                                                        [row["conf_high"] - row["estimate"]]],
                    fmt="o", color=colour, markersize=3, capsize=2, linewidth=1.0, label=f"{LEVEL} CI: {label}")
    ax.axvline(0.0, color="0.6", linewidth=0.6)
    ax.set_title(f"{a} - {b}", fontsize=8)
    ax.set_xlabel("difference (human-normalised)", fontsize=7)
    ax.tick_params(labelsize=7)
axes[0].set_ylabel("posterior density", fontsize=7)
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=7, frameon=False)
plt.close(fig)
fig

# %% [markdown]
# ## How the answer moves with the ROPE
#
# The same analyses at the ROPEs (and margins) of `ROPES`, fractions of the random-to-human gap:
# the number of pairs each one calls practically equivalent.

# %%
rows = []
for rope in ROPES:
    fixed = rlstats.equivalence(six, FORMULA, margin=rope, alpha=ALPHA, normalize=ATARI_NORMALISER,
                                n_resamples=N_RESAMPLES, rng=2021)
    sampled = rlstats.equivalence(six, FORMULA, margin=rope, alpha=ALPHA, normalize=ATARI_NORMALISER,
                                  across="paired_t", aggregate=None)
    by_model = {model: rlstats.bayes(six, FORMULA, rope=rope, model=model, normalize=ATARI_NORMALISER,
                                     n_samples=N_SAMPLES, draws=DRAWS, rng=2021).tidy()
                for model in ("signed_rank", "hierarchical")}
    rows.append({"ROPE": rope,
                 "TOST mean (fixed)": int(scope(fixed, "across tasks")["shown"].sum()),
                 "TOST IQM (fixed)": int(scope(fixed, "aggregate")["shown"].sum()),
                 "TOST mean (sampled)": int(scope(sampled, "across tasks")["shown"].sum()),
                 "signed-rank": int((by_model["signed_rank"]["p_rope"] >= DECISIVE).sum()),
                 "hierarchical": int((by_model["hierarchical"]["p_rope"] >= DECISIVE).sum())})
sweep = pd.DataFrame(rows).set_index("ROPE")
print(f"pairs called practically equivalent, of {len(PAIRS)}:")
print(sweep.to_string())
at, widest = sweep.loc[ROPE], sweep.loc[ROPES[-1]]
first = {name: next((f"±{r:g}" for r in ROPES if counts.loc[r] > 0), f"none up to ±{ROPES[-1]:g}")
         for name, counts in sweep.items()}
say(f"At the chosen ±{ROPE}, at most {at.max()} pairs are called equivalent ({at.idxmax()}); at ±{ROPES[-1]:g},",
    f"{widest.min()} to {widest.max()}. The smallest ROPE at which each analysis calls some pair equivalent:",
    "; ".join(f"{name} {r}" for name, r in first.items()) + ". The analyses with the games fixed rest on the",
    "seeds, of which there are many, and reach equivalence at the smallest margins; those that treat the games as",
    "a sample need a margin about as wide as the game-to-game spread of the differences.")

# %%
fig, ax = plt.subplots(figsize=(3.3, 2.5), layout="constrained")
for (name, counts), marker in zip(sweep.items(), "osD^v"):
    ax.plot(sweep.index, counts, marker=marker, markersize=3.5, linewidth=1.0, label=name)
ax.axvline(ROPE, color="0.6", linewidth=0.6, linestyle="--")
ax.set_xscale("log")
ax.set_xticks(ROPES, [f"{r:g}" for r in ROPES])
ax.minorticks_off()
ax.set_xlabel("ROPE / margin (human-normalised)", fontsize=7)
ax.set_ylabel(f"pairs called equivalent (of {len(PAIRS)})", fontsize=7)
ax.tick_params(labelsize=7)
ax.legend(fontsize=7, frameon=False, loc="upper left")
plt.close(fig)
fig

# %% [markdown]
# ## Stable-Baselines3 logs: three seeds, two tasks
#
# The same question on a small study, as many papers run it: PPO, A2C and DQN trained with
# Stable-Baselines3 on CartPole-v1 and Acrobot-v1 (DQN on CartPole-v1 only), a few seeds each,
# each run summarised by its final evaluation return (`vignettes/sb3_logs_to_paper.py` reads the
# same folder at length). The ROPE is the same fraction of the return range each environment
# allows (set by its episode cap): `ROPE` after normalising each task to that range, so that one
# number serves both tasks.

# %%
evaluations = rlstats.read_logs(LOGS, "{agent}/{task}/seed_{seed}", format="sb3_eval",
                                tags={"eval/mean_reward": "score"}, progress=False)
final = rlstats.summarize_runs(evaluations, FORMULA, step="step")
# returns each environment allows: CartPole-v1 1 per step up to 500 steps, Acrobot-v1 -1 per step up to 500 steps
ranges = pd.DataFrame({"task": ["CartPole-v1", "Acrobot-v1"], "low": [0.0, -500.0], "high": [500.0, 0.0]})
SB3_NORMALISER = {"reference": ranges, "low": "low", "high": "high"}
print(final.pivot_table(index="task", columns="agent", values="score", aggfunc=list).to_string())
sb3_rope = {task: ROPE * (hi - lo) for task, lo, hi in zip(ranges["task"], ranges["low"], ranges["high"])}
say(f"{final['agent'].nunique()} agents, {final['task'].nunique()} tasks, at most",
    f"{final.groupby(['agent', 'task']).size().max()} runs per cell. The ROPE of ±{ROPE} on the normalised scale",
    "is ±" + " and ±".join(f"{v:g} return on {t}" for t, v in sb3_rope.items()) + ".")

# %%
sb3_ranks = rlstats.compare(final, FORMULA)
print(sb3_ranks)

# %%
two = final[final["agent"].isin(["A2C", "PPO"])]  # the two agents that ran both tasks
sb3_tost = rlstats.equivalence(final, FORMULA, margin=ROPE, alpha=ALPHA, normalize=SB3_NORMALISER, aggregate=None)
sb3_signed = rlstats.bayes(final, FORMULA, rope=ROPE, normalize=SB3_NORMALISER, n_samples=N_SAMPLES, rng=2021)
sb3_hier = rlstats.bayes(two, FORMULA, rope=ROPE, model="hierarchical", normalize=SB3_NORMALISER, draws=DRAWS,
                         rng=2021)
sb3_boot = rlstats.bootstrap(two, FORMULA, normalize=SB3_NORMALISER, metrics=["iqm"], interval="percentile",
                             n_resamples=N_RESAMPLES, rng=2021)
# the default (studentised) interval, for the sentence below on why the percentile one is shown
sb3_default = rlstats.bootstrap(two, FORMULA, normalize=SB3_NORMALISER, metrics=["iqm"], n_resamples=N_RESAMPLES,
                                rng=2021).tidy().set_index("agent")
print(sb3_tost.summary().tables[next(iter(sb3_tost.summary().tables))].round(3).to_string(index=False))
print(sb3_signed.tidy()[["agent_1", "agent_2", "p_better", "p_rope", "p_worse", "estimate", "conf_low",
                         "conf_high", "n_tasks"]].round(3).to_string(index=False))
print(sb3_hier.tidy()[["agent_1", "agent_2", "p_better", "p_rope", "p_worse", "estimate", "conf_low",
                       "conf_high", "r_hat"]].round(3).to_string(index=False))
print(sb3_boot.tidy().round(3).to_string(index=False))

# %%
ranked = sb3_ranks.tidy().set_index(["agent_1", "agent_2"])
across = sb3_tost.tidy().query("scope == 'across tasks'").set_index(["agent_1", "agent_2"]).loc[("A2C", "PPO")]
signed = sb3_signed.tidy().set_index(["agent_1", "agent_2"])
hier = sb3_hier.tidy().iloc[0]
ci = sb3_boot.tidy().set_index("agent")
overlap = (ci.loc["A2C", "conf_low"] <= ci.loc["PPO", "conf_high"]
           and ci.loc["PPO", "conf_low"] <= ci.loc["A2C", "conf_high"])
tested = sb3_tost.tidy().query("scope == 'task'")
withheld = tested[tested["shown"].isna()]  # runs mostly at a score's bound: no per-task test holds its level there
cases = ", ".join(withheld["agent_1"] + " vs " + withheld["agent_2"] + " on " + withheld["task"])
say(f"The rank test rejects that the three agents are alike overall (p = {sb3_ranks.pvalue:.3f}), but its post",
    f"hoc finds {int(ranked['significant'].sum())} of {len(ranked)} pairs different; A2C vs PPO has adjusted",
    f"p = {ranked.loc[('A2C', 'PPO'), 'p_adjusted']:.2f}. TOST shows {int(tested['shown'].sum())} of",
    f"{len(tested) - len(withheld)} per-task comparisons equivalent"
    + (f" ({len(withheld)} more withheld: {cases}, where half or more of an agent's runs tie at the task's largest"
       " or smallest score, as at a score cap, which no per-task test read at its level)" if len(withheld) else "")
    + ", and over the two tasks A2C - PPO is",
    f"{across['estimate']:+.3f} with a {LEVEL} interval of {across['conf_low']:+.3f} to {across['conf_high']:+.3f},",
    f"{(across['conf_high'] - across['conf_low']) / (2 * ROPE):.0f} times as wide as the band. The",
    f"{sb3_boot.confidence_level:.0%} bootstrap",
    f"intervals of the IQM (percentile: with {final.groupby(['agent', 'task']).size().min()} runs per task the default",
    "studentised interval of A2C" + (f" reaches {sb3_default.loc['A2C', 'conf_high']:.2f}, beyond the top of the"
                                     " normalised scale, which bounds=(0, 1) would clip with a note"
                                     if sb3_default.loc["A2C", "conf_high"] > 1 else
                                     f" is {sb3_default.loc['A2C', 'conf_low']:.2f} to "
                                     f"{sb3_default.loc['A2C', 'conf_high']:.2f}, wide from so few runs") +
    f"), A2C {ci.loc['A2C', 'conf_low']:.2f}",
    f"to {ci.loc['A2C', 'conf_high']:.2f} and PPO {ci.loc['PPO', 'conf_low']:.2f} to {ci.loc['PPO', 'conf_high']:.2f},",
    f"{'overlap' if overlap else 'do not overlap'}. The hierarchical model, on {int(hier['n_tasks'])} tasks, puts",
    f"delta0 anywhere from {hier['conf_low']:+.2f} to {hier['conf_high']:+.2f} (P(rope) = {hier['p_rope']:.2f}):",
    "with two tasks the spread between tasks is barely estimated, and the prior decides much of it. These runs",
    "cannot say whether A2C and PPO are practically equivalent; \"no significant difference\" would have read as",
    "if they were.")
observed = sb3_signed.task_effects.query("agent_1 == 'A2C' and agent_2 == 'PPO'")["observed"]
row = signed.loc[("A2C", "PPO")]
say(f"The signed-rank model is the one to distrust here. It works on the task means as if they were exact, so",
    f"{len(observed)} task differences of A2C - PPO ({', '.join(f'{d:+.2f}' for d in observed)}) give",
    f"P(better) = {row['p_better']:.2f} and a {sb3_signed.confidence_level:.0%} credible interval of",
    f"{row['conf_low']:+.2f} to",
    f"{row['conf_high']:+.2f}, although the seeds within each task disagree widely (the per-task TOST",
    f"intervals above are {(tested['conf_high'] - tested['conf_low']).min():.2f} to",
    f"{(tested['conf_high'] - tested['conf_low']).max():.2f} wide); and DQN, on one task, gets",
    f"P(worse) = {signed.loc[('DQN', 'PPO'), 'p_worse']:.2f} against PPO from a single difference and the prior.",
    f"The n_tasks column ({', '.join(str(int(n)) for n in signed['n_tasks'])}) is the warning: with so few tasks,",
    "read the hierarchical model and the per-task tests instead.")

# %% [markdown]
# The hierarchical model's posterior of delta0 for A2C - PPO, with the ROPE shaded (the package's
# own figure, at a paper column's width):

# %%
fig, ax = plt.subplots(figsize=(3.3, 2.4), layout="constrained")
sb3_hier.plot(kind="posterior", ax=ax)
plt.close(fig)
fig

# %% [markdown]
# ## Where the answers differ, and why
#
# * **A rank test that does not reject is not equivalence.** It says the data could not separate
#   the agents; TOST and the ROPE probabilities say whether the data put the difference within a
#   stated margin. On Atari 100k, several pairs that the rank test on cell means leaves alone are
#   not shown equivalent either, and on the SB3 logs nothing can be shown equivalent at all.
# * **A rejection is not a practical difference.** With many runs per cell, Mack-Skillings separates
#   pairs whose difference is well inside the ROPE; TOST calls some of them equivalent on the same
#   data. Both are right: one is about whether there is a difference, the other about its size.
# * **Games fixed or games sampled.** The per-game seeds make intervals on *these* games narrow
#   (TOST with `across="welch"`, the IQM's stratified bootstrap); a claim about games in general
#   needs the games as replicates (`across="paired_t"`, the Bayesian models), whose intervals are
#   as wide as the game-to-game spread of the differences, wider than any useful margin here.
# * **Which centre.** The mean over games, the IQM, the signed-rank model's Walsh averages and
#   the hierarchical model's delta0 are different summaries of the same per-game differences; a
#   few games with large differences move the mean but hardly the others. Say which one a claim of
#   equivalence is about.
# * **The ROPE is a choice.** Intervals that straddle the margin flip with it; fix it before the
#   analysis from what matters in the application (here a fraction of the random-to-human gap, or
#   of an environment's return range), and show the sweep.
# * **Few tasks.** The signed-rank model treats task means as exact and becomes confident on one or
#   two tasks; its `n_tasks` column is the warning.
#
# ## References
#
# Agarwal, R., Schwarzer, M., Castro, P. S., Courville, A. and Bellemare, M. G. (2021). Deep
# reinforcement learning at the edge of the statistical precipice. NeurIPS.
#
# Benavoli, A., Corani, G., Demšar, J. and Zaffalon, M. (2017). Time for a change: a tutorial for
# comparing multiple classifiers through Bayesian analysis. JMLR.
#
# Corani, G., Benavoli, A., Demšar, J., Mangili, F. and Zaffalon, M. (2017). Statistical
# comparison of classifiers through Bayesian hierarchical modelling. Machine Learning.
#
# Lakens, D. (2017). Equivalence tests: a practical primer for t tests, correlations, and
# meta-analyses. Social Psychological and Personality Science.
#
# Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
# approach for assessing the equivalence of average bioavailability. Journal of Pharmacokinetics
# and Biopharmaceutics.
