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
# # From a folder of training logs to curves and a rank test
#
# Training writes logs, not tidy frames: one TensorBoard event file per run, in folders named
# after the agent, the task and the seed. This vignette
#
# 1. writes such a folder with a real TensorBoard writer (tensorboardX), from learning curves
#    simulated with `rlstats.datasets.simulate_curves`, including a run restarted from a
#    checkpoint and a file cut off mid-record, as real folders have;
# 2. reads it into one long frame with `rlstats.read_logs`, which says what it read, what it
#    chose and what it could not read;
# 3. draws IQM learning curves with `rlstats.curves`, and
# 4. ranks the agents with the blocked rank test on each run's area under the curve.
#
# The same call reads Stable-Baselines3's `monitor.csv` and `progress.csv`, CSV and JSON-lines
# loggers, Spinning Up's `progress.txt` and W&B chart exports; `rlstats read-logs DIR --pattern
# ... -o runs.csv` does it from the shell.
#
# It needs two packages that `pip install rlstats` does not bring: tensorboardX, which writes the
# folder, and tensorboard, which `read_logs` decodes event files with (`pip install tensorboardX
# "rlstats[logs]"`; the `docs` and `test` extras bring both).

# %%
import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from tensorboardX import SummaryWriter

import rlstats

# RLSTATS_VIGNETTE_FAST=1 (set by the test suite) writes fewer runs and draws fewer resamples.
FAST = os.environ.get("RLSTATS_VIGNETTE_FAST", "") not in ("", "0")
SEEDS, STEPS, N_RESAMPLES = (5, 20, 200) if FAST else (10, 50, 2_000)
pd.set_option("display.width", 120)

# %% [markdown]
# ## A folder of logs
#
# Three agents on four tasks, each agent's curve a bit higher than the last (`effect=0.3`: the
# last agent's curve is 30% higher). Each run logs its evaluation return and a training loss
# at every evaluation step, as a training script would.

# %%
truth = rlstats.datasets.simulate_curves(agents=["DQN", "PPO", "SAC"], tasks=4, seeds=SEEDS, steps=STEPS,
                                         effect=0.3, rng=0)
folder = Path(tempfile.mkdtemp(prefix="rlstats-logs-"))
for (agent, task, seed), run in truth.groupby(["agent", "task", "seed"], observed=True):
    writer = SummaryWriter(str(folder / agent / task / f"seed_{seed}"))
    for step, score in zip(run["step"], run["score"]):
        writer.add_scalar("eval/mean_reward", score, global_step=step)
        writer.add_scalar("train/loss", 1.0 / (1.0 + step / 100_000), global_step=step)
    writer.close()

files = sorted(folder.rglob("events.out.tfevents.*"))
print(f"{len(files)} event files under {folder}, e.g.")
for path in files[:3]:
    print("  ", path.relative_to(folder))

# %% [markdown]
# Real folders are messier. One PPO run crashed and was restarted from its checkpoint at
# 60% of training: the restart wrote a second event file beside the first and logged the
# steps after the checkpoint again. And one SAC run's file was cut off while it was being
# written (a full disk, a killed job).

# %%
restarted = folder / "PPO" / "task_01" / "seed_0"
again = truth[(truth["agent"] == "PPO") & (truth["task"] == "task_01") & (truth["seed"] == 0)]
again = again[again["step"] >= 0.6 * again["step"].max()]
writer = SummaryWriter(str(restarted), filename_suffix=".restart")
for step, score in zip(again["step"], again["score"]):
    writer.add_scalar("eval/mean_reward", score + 0.01, global_step=step)
writer.close()

cut = sorted((folder / "SAC" / "task_02" / "seed_1").glob("events.out.tfevents.*"))[0]
cut.write_bytes(cut.read_bytes()[:-20])

# %% [markdown]
# ## One frame
#
# The pattern says where agent, task and seed are in the path. By default `read_logs` reads
# the one scalar that looks like an evaluation return and says which it chose; here we name it
# and call its column `score`. A file it cannot read is an error that lists every such file:

# %%
pattern = "{agent}/{task}/seed_{seed}"
try:
    rlstats.read_logs(folder, pattern, tags={"eval/mean_reward": "score"}, progress=False)
except rlstats.LogReadError as error:
    print(error)

# %% [markdown]
# Nothing is dropped silently: `on_error="skip"` reads the others, warns with the count, and
# keeps the list in `frame.attrs["read_log"]`. The notes say what was read and how duplicate
# steps were resolved; every result built from this frame repeats them.

# %%
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", rlstats.RlstatsWarning)
    frame = rlstats.read_logs(folder, pattern, tags={"eval/mean_reward": "score"}, on_error="skip",
                              progress=False)
print(frame.attrs["read_log"])
for note in frame.attrs["rlstats_notes"]:
    print("-", note)
frame.head()

# %% [markdown]
# Event files store scalars as 32-bit floats, so the scores read back are the simulated ones
# rounded to about seven digits, apart from the restarted run's last steps:

# %%
check = truth.assign(agent=truth["agent"].astype(str), task=truth["task"].astype(str)).merge(
    frame, on=["agent", "task", "seed", "step"], suffixes=("_simulated", "_read"))
check["difference"] = (check["score_read"] - check["score_simulated"]).abs()
print(check.groupby(check["difference"] > 1e-3)["difference"].agg(["size", "max"]))

# %% [markdown]
# ## Logs where they live
#
# The same call reads a folder in an object store, or any place fsspec reaches, by its URL
# (`pip install "rlstats[remote]"`, and the protocol's own filesystem: `s3fs` for `s3://`,
# `gcsfs` for `gs://`; the error names the one missing). The files are recognised, matched
# and read as a local folder's, with the same readers, so the frame is the one a local copy
# gives (the tests compare them on `memory://`, `file://` and an S3 server):
#
# ```python
# frame = rlstats.read_logs("s3://my-bucket/runs", "{agent}/{task}/seed_{seed}",
#                           tags={"eval/mean_reward": "score"}, n_jobs=8,
#                           storage_options={"endpoint_url": "http://127.0.0.1:9000"})
# ```
#
# `n_jobs` threads read the files in order, with at most 256 MiB of files being read at once,
# and nothing read is run as code. A listing of more than 100,000 files is refused before any
# file is read (`max_files=` raises the bound; better, point at a narrower folder). The listing
# goes folder by folder and stops at the bound, but one folder comes whole (fsspec offers no
# paged listing common to all filesystems), so a flat prefix of millions of objects is listed
# before it is refused: point at a narrower one. A file over 1 GiB (`max_file_bytes=`) is
# refused too, since a file is held in memory while it is read; when the listing gives no
# size (an HTTP folder's page), no more than the bound is read to find it out.
# From the shell: `rlstats read-logs s3://my-bucket/runs --pattern ... --jobs 8 -o runs.csv`,
# with the credentials the filesystem reads from the environment.

# %% [markdown]
# ## Learning curves
#
# The tasks have different score scales; `simulate_curves` records each task's offset and
# scale, so the scores can be normalised to 0 at the start and about 1 at the end of training
# for the first agent. The IQM curves carry simultaneous 95% bands from whole-run resampling.

# %%
info = truth.attrs["simulate_curves"]
reference = pd.DataFrame({"task": list(info["offset"]), "low": list(info["offset"].values()),
                          "high": [info["offset"][t] + info["scale"][t] for t in info["offset"]]})
res = rlstats.curves(frame, "score ~ agent | task/seed", step="step", statistic="iqm",
                     normalize={"reference": reference, "low": "low", "high": "high"},
                     n_resamples=N_RESAMPLES, rng=0)
print(res)

# %%
fig, ax = plt.subplots(figsize=(6.5, 4))
res.plot(ax=ax)
ax.set_xlabel("environment steps")
ax.set_ylabel("IQM normalised return")
plt.close(fig)
fig

# %% [markdown]
# ## A rank test on the area under the curve
#
# Each run becomes one number, its area under the curve divided by the steps it spans (its
# average score over training); the blocked rank test then compares the agents within each
# task. The report states how the frame was read, how each run was summarised and that one
# run was left out.

# %%
auc = rlstats.summarize_runs(frame, "score ~ agent | task/seed", step="step", how="auc", normalize_auc=True)
ranks = rlstats.compare(auc, "score ~ agent | task/seed")
print(ranks)

# %%
print(ranks.report())

# %%
import shutil

shutil.rmtree(folder)  # the logs were only for this vignette
