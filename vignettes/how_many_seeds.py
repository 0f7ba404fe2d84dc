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
# # How many seeds do I need?
#
# Before training anything, a reinforcement-learning paper has to decide how
# many runs (seeds) of each agent to train.  Too few and a real improvement
# goes unnoticed; too many and compute is wasted.  The standard answer is a
# **power analysis**: simulate data that look like the experiment, with the
# improvement one hopes to detect, run the planned test on each simulated
# data set, and count how often it detects the improvement.
#
# `rlstats.power` does this for three ways of comparing two agents on a
# benchmark:
#
# * the **blocked rank test** (`"skillings_mack"`): ranks all runs within each
#   task and sums over tasks (Mack–Skillings with several seeds);
# * **bootstrap interval separation** (`"bootstrap"`): declares a difference
#   when the two agents' stratified-bootstrap intervals of the interquartile
#   mean (IQM) do not overlap, which is how the intervals `rlstats.bootstrap`
#   prints are often read; they are its default (studentised) intervals, so the
#   rate is that of an analysis with `bootstrap()`'s defaults
#   (`interval="percentile"` gives the thesis's rule, whose narrower percentile
#   intervals separate more often);
# * **AdaStop** (`"adastop"`): the sequential test of Mathieu et al. (2023),
#   which stops training an agent as soon as its comparison is decided.
#
# and `rlstats.sample_size` searches the smallest number of seeds that
# reaches a target power (0.8 here).
#
# **Size.**  Every rate below is a Monte Carlo estimate, printed with its 95%
# Monte Carlo interval (`conf_low`, `conf_high`).  The default size keeps the
# render under two minutes on two cores: 100 simulated data sets per point
# for the rank test and the bootstrap rule (a rate is then known to about
# +-0.1), 20 for AdaStop (200 per-task tests per point), 200 bootstrap
# resamples, 2,000 AdaStop permutation paths, and sample-size searches capped
# at 60 seeds (bootstrap) and 100 (AdaStop).  The curves are rough and the
# sample sizes of section 4 move by several seeds from one seed of the
# generator to another.  The full size, `RLSTATS_VIGNETTE_FULL=1` (or
# `python vignettes/render.py --full`), uses 1,000 and 300 data sets, 1,000
# bootstrap resamples, 10,000 permutation paths and caps of 100 and 150 seeds
# (rates to about +-0.03; about half an hour on two cores).  The smoke run of
# the test suite, `RLSTATS_VIGNETTE_FAST=1`, uses 20 and 10 data sets.

# %%
import os
import importlib.util
import warnings

import matplotlib.pyplot as plt
import pandas as pd

import rlstats
from rlstats import PowerResult, power, sample_size

# Simulation sizes as (fast, default, full): RLSTATS_VIGNETTE_FAST=1 (what the docs build and the tests set) makes
# a smoke run of seconds with rough numbers, RLSTATS_VIGNETTE_FULL=1 the full size. Copying the code, write one number.
SIZE = ("fast" if os.environ.get("RLSTATS_VIGNETTE_FAST", "0") not in ("", "0")
        else "full" if os.environ.get("RLSTATS_VIGNETTE_FULL", "0") not in ("", "0") else "default")
COUNTS = {name: sizes[("fast", "default", "full").index(SIZE)] for name, sizes in dict(
    N_SIM=(20, 100, 1_000),                    # (fast, default, full) data sets per point
    N_SIM_ADASTOP=(10, 20, 300),               # the same for AdaStop
    N_RESAMPLES=(200, 200, 1_000),             # bootstrap resamples of the interval rule
    N_RESAMPLES_ADASTOP=(2_000, 2_000, 10_000),  # AdaStop's permutation paths
    MAX_SEEDS_BOOTSTRAP=(20, 60, 100),         # caps of the sample-size searches
    MAX_SEEDS_ADASTOP=(40, 100, 150)).items()}
N_SIM, N_SIM_ADASTOP, N_RESAMPLES = COUNTS["N_SIM"], COUNTS["N_SIM_ADASTOP"], COUNTS["N_RESAMPLES"]
N_RESAMPLES_ADASTOP = COUNTS["N_RESAMPLES_ADASTOP"]
JOBS = 1 if SIZE == "fast" else 2
print(f"Size {SIZE!r}: {COUNTS} (RLSTATS_VIGNETTE_FULL=1 runs the full size)")
pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)

# %% [markdown]
# ## 1. The benchmark we plan for
#
# Ten tasks that look like a deep-RL benchmark: each task has its own score
# scale and offset (over two orders of magnitude, `heterogeneity=1`) and its
# own score distribution (skewed, heavy-tailed, bimodal, bounded, normal).
# The improvement we want to detect is a shift of **half a within-task
# standard deviation** of the second agent on every task: `effect=0.5`.
# Here is one such data set with 5 seeds.

# %%
example = rlstats.datasets.simulate(agents=2, tasks=10, seeds=5, effect=0.5, rng=0)
print(example.head())
print(pd.Series(example.attrs["simulate"]["distribution"], name="score family").to_frame().T)

# %% [markdown]
# ## 2. Power against the number of seeds
#
# `power()` draws `n_sim` such data sets for each number of seeds and runs
# every method on the same data sets.  The rank test and the bootstrap rule
# use all seeds.  AdaStop's number of seeds is a **budget** `n * K`: it
# trains `n` runs per interim for at most `K = 5` interims and may stop
# earlier, so its seeds must be multiples of 5 and it also reports the mean
# number of runs it actually used.  AdaStop tests **each task separately**
# (the paper leaves aggregation over tasks open), so its rate is the chance
# of detecting the improvement on one task, while the other two methods
# test the benchmark as a whole.

# %%
fixed = power(["skillings_mack", "bootstrap"], effect=0.5, seeds=[2, 3, 5, 10, 20], tasks=10, n_sim=N_SIM,
              n_resamples=N_RESAMPLES, rng=1, n_jobs=JOBS, progress=False)
sequential = power("adastop", effect=0.5, seeds=[10, 20, 30, 50], tasks=10, n_sim=N_SIM_ADASTOP, rng=1,
                   n_jobs=JOBS, progress=False, n_resamples=N_RESAMPLES_ADASTOP)
curves = PowerResult.combine(fixed, sequential)
print(curves)

# %%
fig, ax = plt.subplots(figsize=(7, 4.5))
curves.plot(ax=ax)
ax.set_title("Detecting a shift of 0.5 within-task SD on 10 tasks")
plt.close(fig)
fig

# %% [markdown]
# Read the curves as follows.
#
# * The blocked rank test pools the evidence of all ten tasks through
#   within-task ranks, which ignore each task's scale and distribution: a
#   handful of seeds is enough for this effect.
# * Bootstrap interval separation needs far more seeds.  Two reasons:
#   non-overlap of two 95% intervals is a much stricter criterion than a
#   5% test (it is conservative), and the IQM pools the raw scores of all
#   tasks, so the tasks with the largest scales dominate it and the others
#   hardly count.  With two runs per task `bootstrap()` gives no
#   studentised interval, so `power()` withholds the rate there (NaN, with a
#   note saying why); `interval="percentile"` gives the thesis's rule as it
#   is, whose percentile intervals of two or three runs per task are too
#   narrow, so that it rejects too often whatever the truth (the thesis's
#   Chapter 3 shows the same).
# * AdaStop answers a different, per-task question with no pooling across
#   tasks, so it needs tens of runs per task, but it stops early when the
#   difference is clear: compare the budget with the runs it used.

# %%
fig, ax = plt.subplots(figsize=(6, 4))
sequential.plot(kind="runs", ax=ax)
plt.close(fig)
fig

# %% [markdown]
# ### The bootstrap rule on normalised tasks
#
# When the tasks share one scale (`heterogeneity=0`, as after a per-task
# normalisation) the IQM is no longer dominated by a few tasks and the
# bootstrap rule gains power, though it stays behind the rank test.

# %%
normalised = power("bootstrap", effect=0.5, seeds=[2, 3, 5, 10, 20], tasks=10, heterogeneity=0.0, n_sim=N_SIM,
                   n_resamples=N_RESAMPLES, rng=1, n_jobs=JOBS, progress=False)
comparison = pd.DataFrame({
    "raw scales": fixed.tidy().query("method == 'bootstrap'").set_index("seeds")["power"],
    "one scale": normalised.tidy().set_index("seeds")["power"],
})
print(comparison)
print(f"{N_SIM} data sets per rate: Monte Carlo standard error at most {0.5 / N_SIM ** 0.5:.3f}")

# %% [markdown]
# ## 3. When nothing differs
#
# With `effect=0` the same simulation gives each method's type-I error.  The
# rank test should reject about 5% of the time; the bootstrap rule much less
# (it is conservative); AdaStop at most the level it can spend, which the
# table reports as `level_spent`.

# %%
null_fixed = power(["skillings_mack", "bootstrap"], effect=0.0, seeds=[5, 10], tasks=10, n_sim=N_SIM,
                   n_resamples=N_RESAMPLES, rng=2, n_jobs=JOBS, progress=False)
null_adastop = power("adastop", effect=0.0, seeds=[20], tasks=10, n_sim=N_SIM_ADASTOP, rng=2, n_jobs=JOBS,
                     progress=False, n_resamples=N_RESAMPLES_ADASTOP)
print(PowerResult.combine(null_fixed, null_adastop).tidy()[
    ["method", "seeds", "power", "conf_low", "conf_high", "level_spent", "n_tests"]])

# %% [markdown]
# ## 4. The number of seeds for 80% power
#
# `sample_size()` doubles the number of seeds until the estimated power
# reaches the target, then bisects.  It also gives the range in which the
# answer lies given the Monte Carlo error: from the smallest number of seeds
# whose interval reaches 0.8 at its upper end to the smallest whose interval
# is above 0.8 altogether.  AdaStop's search runs over multiples of K.

# %%
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # a search that stops at max_seeds says so; the table shows it too
    searches = {
        "skillings_mack": sample_size("skillings_mack", 0.8, effect=0.5, tasks=10, n_sim=N_SIM, rng=3,
                                      n_jobs=JOBS, progress=False),
        "bootstrap": sample_size("bootstrap", 0.8, effect=0.5, tasks=10, n_sim=N_SIM, rng=3, n_jobs=JOBS,
                                 n_resamples=N_RESAMPLES, max_seeds=COUNTS["MAX_SEEDS_BOOTSTRAP"], progress=False),
        "adastop": sample_size("adastop", 0.8, effect=0.5, tasks=10, n_sim=N_SIM_ADASTOP, rng=3, n_jobs=JOBS,
                               min_seeds=10, max_seeds=COUNTS["MAX_SEEDS_ADASTOP"], progress=False,
                               n_resamples=N_RESAMPLES_ADASTOP),
    }
print(pd.concat([res.glance() for res in searches.values()], ignore_index=True)[
    ["method", "target_power", "sample_size", "sample_size_low", "sample_size_high"]])

# %% [markdown]
# AdaStop's sample size is a budget: the runs it actually uses are fewer.

# %%
ada = searches["adastop"]
if ada.sample_size is not None:
    print(ada.tidy().query("seeds == @ada.sample_size")[["seeds", "power", "mean_runs", "mean_runs_se"]])

# %%
print(searches["skillings_mack"].report())

# %%
fig, ax = plt.subplots(figsize=(6, 4))
searches["skillings_mack"].plot(ax=ax)
plt.close(fig)
fig

# %% [markdown]
# ## 5. Planning with real pilot runs
#
# Simulated families are a stand-in.  With a few real runs of each agent
# (a pilot), `power(design=pilot, formula=...)` resamples them with
# replacement instead, adding `effect` pooled within-task standard
# deviations to one agent (`shifted_agent`, by default the last).  With
# `resample="pooled"` every agent is drawn from the task's pooled runs, so
# the only difference is the shift you add; with `resample="agents"` (the
# default) each agent keeps its own runs and the pilot's own difference.
# Here the pilot is the simulated data set of section 1.

# %%
pilot = power("skillings_mack", design=example, formula="score ~ agent | task", resample="pooled", effect=0.5,
              seeds=[2, 3, 5, 10], n_sim=N_SIM, rng=4, progress=False)
print(pilot.tidy()[["method", "seeds", "power", "conf_low", "conf_high"]])

# %% [markdown]
# ## 6. More simulations, more machines
#
# Every simulated data set has its own random stream, keyed by the number of
# seeds and its index, so the results are the same whatever the number of
# workers.  `n_jobs=2` uses two processes on this machine.  On a cluster,
# start a Dask scheduler and workers (with rlstats installed on them),
# connect, and pass `backend="dask"`:
#
# ```python
# from dask.distributed import Client
# client = Client("tcp://scheduler:8786")     # or Client() for a local cluster
# res = rlstats.power(["skillings_mack", "adastop"], effect=0.5, n_sim=100_000, backend="dask")
# ```
#
# (`pip install 'rlstats[distributed]'` installs Dask.)  A small local Dask
# cluster reproduces the rank-test curve exactly:

# %%
if importlib.util.find_spec("distributed") is not None:
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster):
        on_dask = power("skillings_mack", effect=0.5, seeds=[2, 3, 5, 10, 20], tasks=10, n_sim=N_SIM, rng=1,
                        backend="dask", progress=False)
    same = on_dask.tidy()["power"].tolist() == fixed.tidy().query("method == 'skillings_mack'")["power"].tolist()
    print("identical to the run above:", same)
else:
    print("dask.distributed is not installed: pip install 'rlstats[distributed]'")

# %% [markdown]
# ## References
#
# * Mathieu, T. et al. (2023). AdaStop: adaptive statistical testing for
#   sound comparisons of Deep RL agents. arXiv:2306.10882.
# * Colas, C., Sigaud, O. and Oudeyer, P.-Y. (2019). A hitchhiker's guide to
#   statistical comparisons of reinforcement learning algorithms.
#   arXiv:1904.06979.
# * Agarwal, R. et al. (2021). Deep reinforcement learning at the edge of the
#   statistical precipice. NeurIPS 34.
# * Mack, G. A. and Skillings, J. H. (1980). A Friedman-type rank test for
#   main effects in a two-factor ANOVA. JASA 75(372), 947–951.
