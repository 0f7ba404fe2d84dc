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
# # From a folder of Stable-Baselines3 logs to a paper's figure and table
#
# Real training logs, as a researcher gets them: PPO and A2C on CartPole-v1 (30,000 steps) and
# Acrobot-v1 (20,000 steps), DQN on CartPole-v1 only (20,000 steps), 3 seeds each, trained with
# Stable-Baselines3 2.9.2. Each run folder `<agent>/<task>/seed_<seed>/` holds what SB3 writes:
# `<i>.monitor.csv` (one per environment copy: every training episode), `tb/PPO_1/events.out.tfevents.*`
# (TensorBoard) and `evaluations.npz` (an `EvalCallback` every 5,000 steps, 5 deterministic episodes).
# The tasks have different budgets and DQN has no Acrobot runs, as in real experiments.
#
# This vignette goes from the folder to the learning-curve figure, one number per run and the paper
# table, and reads what rlstats says along the way: every choice it makes (which scalar, which
# steps, which tasks) and every run that does not fit is printed, never silent.
#
# The logs sit in the shared data beside the repository (`../shared/data/logs/sb3_classic`, 1.3 MB,
# described in its `PROVENANCE.md`); to use your own copy of the same layout, set
# `RLSTATS_SB3_LOGS` to its folder. Without them this vignette says so and stops.
#
# Needs: the `logs` extra (`pip install ".[logs]"`, which brings the `tensorboard` package) for its one cell that
# reads the TensorBoard event files; under the plain install that cell prints that it is skipped, and the rest
# (which reads `evaluations.npz`) runs.

# %%
import os
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
    N_RESAMPLES=(200, 2_000, 2_000)).items()}
N_RESAMPLES = COUNTS["N_RESAMPLES"]
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
pd.set_option("display.width", 120)

# Your own logs: set RLSTATS_SB3_LOGS (or write the path here). Otherwise the shared data beside the repository,
# found from this file's folder (or, in a notebook, which has no __file__, from the working directory: vignettes/).
HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
LOGS = Path(os.environ.get("RLSTATS_SB3_LOGS") or HERE.parent.parent / "shared" / "data" / "logs" / "sb3_classic")
if not LOGS.is_dir():  # an error, not an exit: the docs build shows its message as a "data not available" box
    raise DataUnavailableError(
        f"The Stable-Baselines3 logs are not at {LOGS}, so there is nothing to read. Put the shared data beside "
        "the repository (shared/data/logs/sb3_classic, 1.3 MB), or set RLSTATS_SB3_LOGS to a folder of the same "
        "layout: <agent>/<task>/seed_<s>/ with EvalCallback's evaluations.npz.")
print(f"logs: {LOGS}")

# %% [markdown]
# ## The main path
#
# Everything a paper needs, in ten lines: the evaluation returns, their learning curves, one number
# per run (its final evaluation) and the table. `progress=False` only keeps progress bars out of
# the rendered page.

# %%
pattern, formula = "{agent}/{task}/seed_{seed}", "score ~ agent | task/seed"
evaluations = rlstats.read_logs(LOGS, pattern, format="sb3_eval", tags={"eval/mean_reward": "score"},
                                progress=False)
curves = rlstats.curves(evaluations, formula, step="step", na_action="drop", n_resamples=N_RESAMPLES, rng=0)
fig, ax = plt.subplots(figsize=(3.3, 2.4), layout="constrained")  # one column of a two-column paper
curves.plot(ax=ax)
final = rlstats.summarize_runs(evaluations, formula, step="step")
table = rlstats.task_table(final, formula)
latex = table.to_latex()

# %% [markdown]
# The rest of this vignette prints each of these and reads what it says.
#
# ## Reading the folder
#
# Each run folder holds three kinds of logs, so `read_logs` without `format=` asks which one is
# meant rather than guessing:

# %%
try:
    rlstats.read_logs(LOGS, pattern, progress=False)
except rlstats.LogReadError as error:
    print(error)

# %% [markdown]
# `evaluations.npz` holds what papers report: the return of the deterministic policy, evaluated every
# 5,000 steps on 5 episodes. Each row of the frame is one evaluation, its score the mean over the 5
# episodes (naming `eval/episodes` in `tags=` too would keep their number). The first note says what
# was read from how many files; the second what a score is. The read log lists every file with a problem, the runs that end
# well before their siblings (a killed run), and the runs read from several files (a run started
# again in its folder). Here its summary line counts no problem and no file outside the pattern, and
# no run is listed below it:

# %%
for note in evaluations.attrs["rlstats_notes"]:
    print("-", note)
print(evaluations.attrs["read_log"])
evaluations.head()

# %% [markdown]
# SB3 also wrote each evaluation's mean to TensorBoard as `eval/mean_reward`, as a 32-bit float:
# read from the event files, the same 72 rows come back, equal to the `evaluations.npz` values
# rounded to 32 bits.

# %%
try:
    import tensorboard  # noqa: F401  (the `logs` extra: pip install ".[logs]")
except ImportError:
    tensorboard = None
if tensorboard is None:  # only the package's absence skips the cell: any error reading the files is raised
    print('TensorBoard check skipped: the tensorboard package is not installed (pip install ".[logs]")')
else:
    events = rlstats.read_logs(LOGS, pattern, format="tensorboard", tags={"eval/mean_reward": "score"},
                               progress=False)
    both = evaluations.merge(events, on=["agent", "task", "seed", "step"], suffixes=("_npz", "_tensorboard"))
    print(len(evaluations), len(events), len(both),
          np.array_equal(both["score_npz"].astype(np.float32), both["score_tensorboard"]))

# %% [markdown]
# ## Learning curves
#
# `curves` aggregates each agent's runs over tasks, step by step. DQN has no Acrobot runs, and an
# agent missing from a task cannot be aggregated over the same tasks as the others, so the default
# call stops and names the cell, with the ways out:

# %%
try:
    rlstats.curves(evaluations, formula, step="step", rng=0)
except rlstats.DesignError as error:
    print(error)

# %% [markdown]
# The main path passed `na_action="drop"`: Acrobot-v1 is left out and the curves are CartPole's.
# Its notes, in order: what the frame was read from and what a score is; the task left out and the
# 6 runs with it; every run logged at the same 4 steps; the curves stop at 20k, where DQN's runs
# stop, so that every agent is aggregated at the same point of training, and CartPole's steps beyond
# (to 30k) are named; the IQM trims nothing, since a quarter of 3 runs is less than one run. The
# note that matters most follows: the bands are *withheld*. With 3 runs of one task, 3 of the 27
# resamples repeat one run, and bands of this kind simulated with 3 runs of one task covered 0.79 to
# 0.93 of the true curves at 95%, so each agent's IQM is printed with "band withheld" and the figure
# draws the curves alone. `bands="expanded"` gives the t-expanded bands, whose notes quote their
# measured coverage; a trustworthy 95% band needs more seeds (4 or more with one task) or tasks.

# %%
print(curves)

# %% [markdown]
# The figure, at the width of one column. The legend sits above the curves, its title saying that
# the bands are withheld; the step axis has a tick at each of the 4 evaluations. DQN's returns stay near 9: with
# SB3's default hyperparameters it has not learned to balance the pole within 20,000 steps.

# %%
ax.set_ylabel("evaluation return (IQM)")
plt.close(fig)
fig

# %% [markdown]
# Acrobot-v1 on its own, with the two agents that ran it (`subset=` keeps rows as `compare` does;
# Acrobot's runs all stop at 20k, so nothing is cut). Colours go to the agents drawn in order, so
# `colors=` keeps each agent's colour of the first figure:

# %%
acrobot = rlstats.curves(evaluations, formula, step="step", subset="task == 'Acrobot-v1'",
                         n_resamples=N_RESAMPLES, rng=0)
print("IQM at 20k:", ", ".join(f"{a} {v:.1f}" for a, v in zip(acrobot.agents, acrobot.estimates[:, -1])))
colors = dict(zip(curves.agents, rlstats.plotting.palette(len(curves.agents))))
fig, ax = plt.subplots(figsize=(3.3, 2.4), layout="constrained")
acrobot.plot(ax=ax, colors=[colors[agent] for agent in acrobot.agents])
ax.set_ylabel("evaluation return (IQM)")
plt.close(fig)
fig

# %% [markdown]
# ## Training curves from monitor.csv
#
# The monitor files record every training episode of the exploring policy: about 10,000 episodes
# here, jagged from one episode to the next. SB3's `plot_results` draws their rolling mean over 100
# episodes; `smooth=100` does the same within each run (the mean of the last 100 episodes up to
# each step), says so in a note, and drops no row. A run's step is the cumulative length of its
# episodes over all its environment copies.

# %%
episodes = rlstats.read_logs(LOGS, pattern, format="sb3_monitor", tags={"r": "score"}, smooth=100,
                             progress=False)
for note in episodes.attrs["rlstats_notes"]:
    print("-", note)
training = rlstats.curves(episodes, formula, step="step", subset="task == 'CartPole-v1'",
                          n_resamples=N_RESAMPLES, rng=0)
print(training)

# %% [markdown]
# The runs end their episodes at different steps, so `curves` aligns them on one grid of the steps
# logged (the last value at or before each step, never extrapolated) and says so; the grid stops
# where DQN's runs stop, and one DQN run, whose first episode ended at step 29, misses the grid's
# first step. Training returns run well below the evaluation returns at the same step (A2C about
# 145 against 405 at 20k): the training policy samples its actions where the evaluation takes the
# most likely one, and a mean over the last 100 episodes lags behind the policy.

# %%
fig, ax = plt.subplots(figsize=(3.3, 2.4), layout="constrained")
training.plot(ax=ax)
ax.set_ylabel("training return\n(mean of 100 episodes)")
plt.close(fig)
fig

# %% [markdown]
# ## One number per run
#
# A test compares runs, not steps: `summarize_runs` turns each run into its final evaluation
# return. Its note gives the rule, and it names what would otherwise pass unseen: DQN's runs end at
# 20k while the other CartPole runs reach 30k, so DQN's "final" value comes from earlier in
# training than theirs.

# %%
print(final.attrs["rlstats_notes"][-1])
final

# %% [markdown]
# Which to report is a choice about the study, not the statistics. Comparing every agent at its own
# budget is fair when the budgets are part of the design, and the caption must give them. To
# compare at the budget every agent has, pass `steps=` ending there: at 20k, A2C's CartPole runs
# score 216, 500 and 500 instead of 406, 495 and 245 at 30k (A2C's returns swing from one
# evaluation to the next), which changes its mean but not the best agent.

# %%
at_20k = rlstats.summarize_runs(evaluations, formula, step="step", steps=[20_000])
print(at_20k.attrs["rlstats_notes"][-1])
pd.concat({"final": final.set_index(["agent", "task", "seed"])["score"],
           "at 20k": at_20k.set_index(["agent", "task", "seed"])["score"]}, axis=1).loc["A2C"]

# %% [markdown]
# ## The table
#
# `task_table` compares the agents within each task, so DQN's missing Acrobot runs leave an empty
# cell rather than an error. Each cell is the mean ± standard deviation of the 3 runs; bold is the
# best mean of its task; a dagger marks the other agents that are *possibly best*: together with
# the bold one, a 95% confidence set for the best agent of the task. With 3 runs per agent,
# PPO cannot be told from A2C on either task, and DQN is excluded on CartPole. The notes repeat how
# the frame was read and summarised (DQN at 20k among 30k runs), and that the effect sizes'
# intervals against the best are adjusted for its choice among the task's agents (the A12 interval
# exists even for DQN, whose runs all lose to A2C's).

# %%
print(table)

# %% [markdown]
# The same table for the paper. The first line, a LaTeX comment, names the packages it needs and
# says whether it fits one column of a two-column paper, and how to make it fit; the caption states
# the rule behind the bold and the daggers, and that DQN's CartPole runs end before the others (their
# values come from earlier in training), as the notes do.

# %%
print(latex)
