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
# # Tuning procedures: the tuning run is the unit
#
# Dierkes et al. (RLC 2024, *Combining automated optimisation of hyperparameters and reward shape*) compare tuning
# procedures: default hyperparameters, random search and DEHB over the hyperparameters, the reward weights or both.
# Each procedure ran 5 times; the configuration each tuning run found was trained again with 10 evaluation seeds.
# The paper pools the 50 evaluation runs of a procedure. But the 10 seeds of one tuning run share its configuration:
# the randomness of the *tuning* is sampled only 5 times. `rlstats.tuning` takes the tuning run as the unit
# (`config="tuning_run"`, seeds nested in it) and its complete-algorithm view gives each procedure's expected score
# with a two-stage bootstrap (tuning runs, then seeds), which we set beside the pooled bootstrap of the 50 runs.
# (Its default interval, Student's t over the tuning runs, is withheld below 30 of them: with 5, no interval held its
# level on skewed landscapes. The two-stage bootstrap asked for here covers as little as 0.77 at 5 configurations,
# as a note says, so its widths below understate the uncertainty, and the ratios understate what pooling hides.)
#
# It takes seconds. The default size draws 2,000 bootstrap resamples; the full size, `RLSTATS_VIGNETTE_FULL=1`,
# draws 10,000, and the test suite's smoke run, `RLSTATS_VIGNETTE_FAST=1`, 300.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

import rlstats

# Simulation sizes as (fast, default, full): RLSTATS_VIGNETTE_FAST=1 (what the docs build and the tests set) makes
# a smoke run of seconds with rough numbers, RLSTATS_VIGNETTE_FULL=1 the full size. Copying the code, write one number.
SIZE = ("fast" if os.environ.get("RLSTATS_VIGNETTE_FAST", "0") not in ("", "0")
        else "full" if os.environ.get("RLSTATS_VIGNETTE_FULL", "0") not in ("", "0") else "default")
COUNTS = {name: sizes[("fast", "default", "full").index(SIZE)] for name, sizes in dict(
    N_RESAMPLES=(300, 2000, 10_000)).items()}
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
opt = rlstats.datasets.load("hpo_optimisation").drop_duplicates()  # the file repeats 5 rows
ppo = opt[(opt["algorithm"] == "ppo") & (opt["task"] == "lunar") & (opt["objective"] == "return")]
ppo.groupby("procedure").agg(tuning_runs=("tuning_run", "nunique"), runs=("score", "size"))

# %% [markdown]
# ## Pooled runs against tuning runs
#
# The pooled analysis treats 50 runs per procedure as independent; the nested one resamples the 5 tuning runs,
# then the seeds within each.

# %%
nested = rlstats.tuning(ppo, "score ~ procedure | task/seed", config="tuning_run", views=["complete"],
                        complete_interval="two_stage", n_resamples=COUNTS["N_RESAMPLES"], rng=0)
pooled = rlstats.bootstrap(ppo.assign(run=np.arange(len(ppo))), "score ~ procedure | task/run", metrics="mean",
                           n_resamples=COUNTS["N_RESAMPLES"], rng=0)
table = nested.complete_summary()[["agent", "estimate", "conf_low", "conf_high", "n_configs", "n_runs"]]
table = table.rename(columns={"agent": "procedure", "conf_low": "nested_low", "conf_high": "nested_high"})
pooled_tidy = pooled.tidy().set_index("agent")
table["pooled_low"] = table["procedure"].map(pooled_tidy["conf_low"])
table["pooled_high"] = table["procedure"].map(pooled_tidy["conf_high"])
table["width_ratio"] = (table["nested_high"] - table["nested_low"]) / (table["pooled_high"] - table["pooled_low"])
table.round(1)

# %% [markdown]
# Where the ratio is well above 1, pooling the 50 runs overstates the evidence: most of a procedure's uncertainty
# is between its tuning runs, which pooling counts as if there were 50 of them. (The baseline has no tuning run:
# its one configuration's 10 seeds are its units, and both analyses agree there.)
#
# The same holds for the paper's question, which procedure is best. The complete algorithm's frame (one row per
# tuning run) feeds the other back ends with the right unit. Below, the per-task table of the tuned procedures on
# each task, first on the pooled runs, then on the tuning runs: the confidence set for the best procedure (bold and
# daggered) is what the data support.

# %%
tuned = opt[(opt["algorithm"] == "ppo") & (opt["objective"] == "return") & (opt["hpo"] + opt["rpo"] != "basebase")]
pooled_table = rlstats.task_table(tuned.assign(run=np.arange(len(tuned))), "score ~ procedure | task/run",
                                  n_resamples=COUNTS["N_RESAMPLES"], rng=0)
print(pooled_table)
per_run = rlstats.tuning(tuned, "score ~ procedure | task/seed", config="tuning_run", views=["complete"],
                         n_resamples=COUNTS["N_RESAMPLES"], rng=0).complete()
nested_table = rlstats.task_table(per_run, "score ~ procedure | task/seed", n_resamples=COUNTS["N_RESAMPLES"], rng=0)
print(nested_table)
print("possibly best (pooled, tuning runs):", int(pooled_table.possibly_best.sum()), int(nested_table.possibly_best.sum()))

# %% [markdown]
# ## The LunarLander landscape: best set and expected best score
#
# The landscape files hold 10,000 sampled configurations of PPO on LunarLander (here: gamma x distance reward
# weight), 10 seeds each. Which configuration is best is uncertain at 10 seeds: the bootstrap of the whole selection
# spreads the probability of being best over several configurations, and the tuned score, corrected for the
# optimism of select-then-report, sits below the winner's own mean. Dodge et al.'s expected best score after k
# configurations shows how much tuning budget the landscape rewards.

# %%
land = rlstats.datasets.load("hpo_landscapes")
gamma = land[land["landscape"] == "gamma_distance-weight"].assign(agent="ppo")
sweep = rlstats.tuning(gamma, "score ~ agent | task/seed", config="config", views=["best_set", "expected_max"],
                       n_resamples=COUNTS["N_RESAMPLES"], budgets=[1, 2, 5, 10, 20, 50, 100, 1000, 10_000], rng=0)
print(sweep)
sweep.best_set(runners_up=True).head(10)  # the set and the configurations with a smaller chance

# %%
ax = sweep.plot(kind="expected_max")
plt.close(ax.figure)  # shown once, as the value of the cell's last line
ax.figure
