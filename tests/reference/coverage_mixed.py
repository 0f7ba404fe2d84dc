"""Simultaneous coverage of the mixed model's pairwise contrasts: the ``mixed.contrast`` rows of
``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only mixed.contrast [--jobs 2] [--quick]

(or this script with the same options; about 25 minutes at one job with ``OPENBLAS_NUM_THREADS=1``, since BLAS
threads slow these small matrices down). ``rlstats.mixed(df, "score ~ agent | task/seed")`` claims that its family
of adjusted intervals for the pairwise differences of the agents' estimated marginal means holds every true
difference with probability 0.95 (Tukey's studentized range with each pair's df, or Bonferroni's intervals beside
Holm's p-values); under the null that all agents are alike that is the claim that no pair is declared different (the
family-wise error is 1 - coverage; Holm's step-down declares some pair different exactly when Bonferroni does). One
row per grid point, df method (``test``: satterthwaite, kenward-roger) and adjustment (``interval``: tukey, holm);
the four rows of a grid point share their data sets and their REML fits.

Scores: ``score = mu_agent + u_task + v_task,agent + e_run`` on a balanced design (every agent ``runs`` times on every
task), task intercepts ``u ~ N(0, 1)``, task x agent intercepts ``v ~ N(0, sd^2)`` and run noise of variance 1 drawn
by the package's score families (:func:`rlstats.simulation.noise`): ``normal``; ``skewed``, its standardised
``lognormal`` (``rlstats.datasets.simulate(distribution="lognormal")``, skewness 1.75); ``capped``, normal noise with
every score then cut at 0, a ceiling that about half of all runs reach (whole tasks tie there). ``configuration``:

``all_equal``
    every mu and every v at 0: the agents are alike on every task (the model's task x agent variance is on its
    boundary);
``all_equal, task:agent sd 0.5``
    mu at 0, v with sd 0.5: agents differ on each task but not on average (the model as it is fitted);
``spread 0 to 1``
    mu evenly from 0 to 1, v at 0: true differences.  For normal and skewed noise this gives the same coverage as
    ``all_equal`` on the same draws (the fit is equivariant: adding fixed agent effects moves the estimates by exactly
    those effects and leaves the variance components, standard errors and df unchanged; ``tests/test_calibration.py``
    checks it), so it is measured with capped scores only, where the true difference of two agents is that of
    their mean capped scores, ``E min(mu + X, 0)`` with ``X ~ N(0, 2)``, in closed form.

One task cannot be measured: :func:`rlstats.mixed` raises a DesignError there (a task variance needs two tasks). It
raises one too when every run of each agent has one value (all at the cap, with capped scores on few tasks and runs):
such data sets are drawn again (so capped rows measure the claim where a result is given) and counted on stderr.

Each data set is fitted once, as :func:`rlstats.mixed` fits it (``_kernels.model``, ``fit``, and each df method's
covariance and t tests of the pair rows, ``_api._DF_METHODS``); the intervals themselves are not formed: a Tukey family
holds every true difference when every pair's adjusted p-value (``_kernels.tukey_pvalues``) of its estimate minus the
truth is above 0.05 -- the same event, since the interval's half-width is the studentized range quantile that p-value
inverts -- and a Bonferroni family when every ``|estimate - truth| / SE`` is within ``t(1 - 0.05 / (2 m), df)``.
``tests/test_calibration.py`` checks this against the intervals of :func:`rlstats.mixed` on drawn data sets. A result
of a balanced design on this grid quotes the design's lowest row (over distributions and configurations) for its df
method and adjustment when that row is below 0.95 by more than 3 Monte Carlo SE (``rlstats.methods.mixed._api``).
"""

from __future__ import annotations

import itertools
import math
import pathlib
import runpy
import sys

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
PROCEDURE, LEVEL = "mixed.contrast", 0.95
#: data sets per grid point: the table's, and --quick's
SIMULATIONS = (400, 40)
AGENTS = (2, 3, 5)
TASKS = (3, 5, 10, 26)
RUNS = (2, 3, 5, 10)
DISTRIBUTIONS = ("normal", "skewed", "capped")
CONFIGURATIONS = ("all_equal", "all_equal, task:agent sd 0.5", "spread 0 to 1")
DDF = ("satterthwaite", "kenward-roger")
ADJUST = ("tukey", "holm")
FAMILY = {"normal": "normal", "skewed": "lognormal", "capped": "normal"}
CAP = 0.0


def template(agents, tasks, runs):
    """The balanced design (every agent ``runs`` times on every task) that each simulated data set refills."""
    from rlstats.design import design_of

    task, agent, seed = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    frame = pd.DataFrame({"task": [f"t{t:02d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                          "seed": seed.ravel(), "score": 0.0})
    return design_of(frame, "score ~ agent | task/seed")


def effects(configuration, agents):
    """(mu per agent, sd of the task x agent intercepts)."""
    mu = np.linspace(0.0, 1.0, agents) if configuration == "spread 0 to 1" else np.zeros(agents)
    return mu, (0.5 if configuration.endswith("sd 0.5") else 0.0)


def true_means(distribution, mu, sd_cell):
    """Each agent's expected score over tasks, cells and runs (capped: E min(mu + X, CAP), X ~ N(0, 1 + sd^2 + 1))."""
    if distribution != "capped":
        return mu
    from scipy import stats

    s = math.sqrt(2.0 + sd_cell**2)
    over = (mu - CAP) / s
    return mu - ((mu - CAP) * stats.norm.cdf(over) + s * stats.norm.pdf(over))


def simulate(design, agents, tasks, runs, distribution, mu, sd_cell, rng):
    """One data set's scores in the design's order (task, then agent, then run)."""
    from rlstats.simulation import noise

    e = noise(rng, [FAMILY[distribution]] * tasks, agents, runs).transpose(1, 0, 2)  # (tasks, agents, runs)
    cell = rng.standard_normal((tasks, agents, 1)) * sd_cell
    y = (mu[None, :, None] + rng.standard_normal((tasks, 1, 1)) + cell + e).ravel()
    return np.minimum(y, CAP) if distribution == "capped" else y


def held(estimates, variances, df, truth, agents):
    """{adjust: whether the family of intervals holds every true difference} for one data set and df method."""
    from scipy import stats

    from rlstats.methods.mixed import _kernels as kernels

    t = (estimates - truth) / np.sqrt(variances)
    # balanced designs give every pair the same df (to rounding): only the largest |t| can decide
    worst = int(np.argmax(np.abs(t)))
    same = np.allclose(df, df[worst], rtol=1e-8)
    rows = [worst] if same else list(range(t.size))
    tukey = bool(np.all(kernels.tukey_pvalues(t[rows], df[rows], agents) > 1 - LEVEL))
    bound = stats.t.ppf(1 - (1 - LEVEL) / (2 * t.size), df)
    return {"tukey": tukey, "holm": bool(np.all(np.abs(t) <= bound))}


def pairs(design, y):
    """{ddf: (estimates, variances, df)} of the pairwise differences, as :func:`rlstats.mixed` computes them (the
    design's cells all hold several runs, so the model has task x agent intercepts)."""
    from rlstats.methods.mixed import _api
    from rlstats.methods.mixed import _kernels as kernels

    _, pair_rows, _, _ = kernels.agent_contrasts(design.n_agents)
    m = kernels.model(y, design.agent, design.task, design.n_agents, design.n_tasks, True)
    fitted = kernels.fit(m)
    hypothesis = kernels.agent_hypothesis(m)
    out = {}
    for ddf in DDF:
        _, t_test, _ = _api._DF_METHODS[ddf](m, fitted, hypothesis)
        out[ddf] = (pair_rows @ fitted.beta, *t_test(pair_rows))
    return out


def measure(agents, tasks, runs, distribution, configuration, n_sim, seed=0):
    """Rows of one grid point: per df method and adjustment, the share of ``n_sim`` data sets whose family of
    intervals held every true difference."""
    from rlstats.methods.mixed import _kernels as kernels

    design = template(agents, tasks, runs)
    mu, sd_cell = effects(configuration, agents)
    _, _, first, second = kernels.agent_contrasts(agents)
    means = true_means(distribution, mu, sd_cell)
    truth = means[first] - means[second]
    key = [seed, agents, tasks, runs, DISTRIBUTIONS.index(distribution), CONFIGURATIONS.index(configuration)]
    rng = np.random.default_rng(np.random.SeedSequence(key))
    count = {(ddf, adjust): 0 for ddf in DDF for adjust in ADJUST}
    redrawn = 0
    for _ in range(n_sim):
        y = simulate(design, agents, tasks, runs, distribution, mu, sd_cell, rng)
        while np.all(np.ptp(y.reshape(tasks, agents, runs), axis=(0, 2)) == 0):  # rlstats.mixed raises a DesignError
            redrawn += 1
            y = simulate(design, agents, tasks, runs, distribution, mu, sd_cell, rng)
        for ddf, (estimates, variances, df) in pairs(design, y).items():
            for adjust, ok in held(estimates, variances, df, truth, agents).items():
                count[ddf, adjust] += ok
    if redrawn:
        print(f"# {PROCEDURE} {agents} agents, {tasks} tasks, {runs} runs, {distribution}, {configuration}: "
              f"{redrawn} data sets redrawn (every run of each agent equal)", file=sys.stderr)
    return [{"test": ddf, "interval": adjust, "agents": agents, "tasks": tasks, "runs": runs,
             "distribution": distribution, "configuration": configuration, "n_sim": n_sim, "coverage": c / n_sim,
             "se": math.sqrt(c / n_sim * (1 - c / n_sim) / n_sim)} for (ddf, adjust), c in count.items()]


def grid(quick=False):
    """(agents, tasks, runs, distribution, configuration).

    Agents alike (``all_equal``) with every distribution, true differences with capped scores and task x agent
    variation with normal scores, each on every agents x tasks x runs; 8 agents alike with normal scores on 3, 10 and
    26 tasks at 2 and 5 runs. --quick: 3 agents on 5 tasks at 2 runs, each distribution and configuration.
    """
    if quick:
        designs, eight = [(3, 5, 2)], []
    else:
        designs = list(itertools.product(AGENTS, TASKS, RUNS))
        eight = [(8, tasks, runs, "normal", "all_equal") for tasks in (3, 10, 26) for runs in (2, 5)]
    points = [(*d, dist, "all_equal") for d in designs for dist in DISTRIBUTIONS]
    points += [(*d, "capped", "spread 0 to 1") for d in designs]
    points += [(*d, "normal", "all_equal, task:agent sd 0.5") for d in designs]
    return points + eight


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    return measure(*point, n_sim)


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
