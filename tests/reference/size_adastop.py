"""Family-wise error of AdaStop and of the one-shot permutation test under the global null: the ``adastop.fwe`` rows
of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only adastop.fwe [--jobs 2] [--quick]

(or this script with the same options). Every agent draws its runs of a task from one distribution of
``designs.py`` (normal, skewed, heavy_tailed, capped: a third of the runs tie at the task's ceiling) on the task's
offset and scale of a design draw (``null_scores`` of ``size_rank_test.py``), and each data set runs exactly what the
default call computes, through the numbers-only entry points (``adastop_outcomes``, ``permutation_outcomes`` of
``rlstats.methods.adastop._api``: the same tests and random streams as the public functions, without their tables):

* ``test = "adastop"``: ``rlstats.adastop(df, "score ~ agent")`` with its defaults (comparisons "all", alpha = 0.05,
  no early accept) but ``permutations=``: ``"joint"`` (the default until audit s29b) and, from three agents on, the
  default ``"holm"`` (a grid point's sixth field; ``interval`` names the scheme, empty for two agents, where every
  scheme is one test; the same data sets for both), on ``DEFAULT_K`` = 6 batches of ``n`` runs per agent, so K defaults to 6;
  ``runs`` is ``n``, the runs per agent per interim (3, 5, 10, 20), and ``configuration`` reads ``K=6``;
* ``test = "permutation"``: ``rlstats.permutation(df, "score ~ agent")`` (comparisons "all") with ``runs`` runs per
  agent (2, 3, 5, 10, 20).

Agents 2, 3 and 8 (all pairs: up to 28 comparisons) on one task, and 3 agents on 26 tasks (``score ~ agent |
task``). With several tasks each task runs its own test and the package claims the level within each task, not
across tasks, so a row's ``coverage`` is the share of per-task tests that rejected no comparison and its ``n_sim``
counts those tests (a grid point of 26 tasks simulates a 26th as many data sets). The family-wise error is
1 - coverage; the level holds when coverage >= 0.95. Each row pools ``DESIGN_DRAWS`` design draws (``coverage_min``
the lowest); a task's permutation test does not see its offset and scale, so the draws differ only in their data.

Permutation paths. Two agents, and ``"holm"`` (whose paths are the paper's slot choices, enumerated while the tree
fits, as two agents'), run the default ``n_resamples`` = 10,000: how many interims their exact tree covers,
and so how the level is spent, depends on it (and they are cheap). From three agents on, the default joint relabelling draws
random paths from the first interim on, and here 2,000 paths stand in for the default 10,000: under the global null
the identity path is exchangeable with the random relabellings, so the chance that it is rejected is the mean share
of paths rejected, at most the level spent, Q_K; and Q_K = 0.05 exactly at both numbers of paths (500 of 10,000 or
100 of 2,000 paths beyond the boundaries). With continuous scores no two paths tie, exactly Q_K of the paths are
rejected and the error equals 0.05 at any number of paths; only ties (capped scores) can leave it below, by a share
that ``tests/test_adastop.py`` checks does not move with the number of paths beyond Monte Carlo error. This cuts the
grid's time by about 5.
"""

from __future__ import annotations

import dataclasses
import pathlib
import runpy
import warnings

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
TESTS = ("adastop", "permutation")
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
#: (agents, tasks): two to eight agents on one task, and three on Atari-100k's 26 games
DESIGNS_GRID = ((2, 1), (3, 1), (8, 1), (3, 26))
RUNS = {"adastop": DESIGNS["RUNS"], "permutation": (2,) + DESIGNS["RUNS"]}
DISTRIBUTIONS = DESIGNS["DISTRIBUTIONS"]
ALPHA, K = 0.05, 6
#: paths of the joint relabelling (three agents or more); two agents keep the default (see above)
N_RESAMPLES, DEFAULT_RESAMPLES = 2000, 10_000
PROCEDURE, LEVEL = "adastop.fwe", 1 - ALPHA
#: (test, agents, tasks, runs) of the grid whose permutations="holm" rows are not measured: audit s29b had no time for
#: AdaStop at 8 agents with n = 10 and 20; audit s30 (holm30) measured them (--replace "adastop:8:1:10|20:*:holm",
#: 240 tests each as every row), so none is left
HOLM_UNMEASURED = frozenset()
#: per-task tests per grid point over all design draws: the table's, and --quick's (a blocked point rounds each
#: draw's share up to whole data sets)
SIMULATIONS = (240, 120)
#: grid points measured with more tests than SIMULATIONS: the holm permutation test of 3 skewed agents x 5 runs read
#: 0.150 in one draw of 60 tests, a Monte Carlo false alarm (its exact bound is 3 x 2 / 126 = 0.048): 2,400 tests
#: (holmfix29)
MORE_TESTS = {("permutation", 3, 1, 5, "skewed", "holm"): 2400}
# the null scores of the rank test's calibration (run from its path: tests/ need not be importable)
null_scores = runpy.run_path(str(HERE / "size_rank_test.py"))["null_scores"]


def design(agents, tasks, runs):
    """Every agent ``runs`` times on every task, read by ``score ~ agent`` (one task) or ``score ~ agent | task``."""
    from rlstats.design import design_of

    task, agent, seed = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    frame = pd.DataFrame({"task": [f"t{t:02d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                          "seed": seed.ravel(), "score": 0.0})
    return design_of(frame, "score ~ agent" + (" | task" if tasks > 1 else ""))


def n_resamples(agents, permutations="joint"):
    """Paths per test: the default for two agents and for ``"holm"`` (whose exact trees, like two agents', depend on
    it), ``N_RESAMPLES`` for the joint relabelling of three or more."""
    return DEFAULT_RESAMPLES if agents == 2 or permutations != "joint" else N_RESAMPLES


def measure(test, agents, tasks, runs, distribution, n_sim, seed=0, resamples=None, permutations="joint"):
    """One grid point: the share of per-task null tests (``n_sim`` over all draws, rounded up to whole data sets)
    that rejected no comparison (a row of the table). ``resamples`` overrides the paths per test (default:
    :func:`n_resamples`); ``permutations`` is the scheme, in the row's ``interval`` from three agents on (with two
    agents every scheme is the same test: ``interval`` empty). The data sets do not depend on the scheme.
    """
    from rlstats.methods.adastop._api import adastop_outcomes, permutation_outcomes

    resamples = resamples or n_resamples(agents, permutations)
    if test == "adastop":
        template, outcomes, options = design(agents, tasks, runs * K), adastop_outcomes, {"n": runs}
    else:
        template, outcomes, options = design(agents, tasks, runs), permutation_outcomes, {}
    options["permutations"] = permutations
    draws = DESIGNS["DESIGN_DRAWS"]
    held = []
    for draw in range(draws):
        key = [seed, TESTS.index(test), agents, tasks, runs, DISTRIBUTIONS.index(distribution), draw]
        data_seed, test_seed = np.random.SeedSequence(key).spawn(2)
        rng = np.random.default_rng(data_seed)
        per_task = []
        with warnings.catch_warnings():
            # designs whose test cannot reject (2 agents x 2 or 3 runs) warn at every call; their rows say it (FWE 0)
            warnings.filterwarnings("ignore", message=".*can never reject")
            for child in test_seed.spawn(-(-n_sim // (draws * tasks))):
                y = null_scores(distribution, template, rng, draw)
                per_task.append(~np.asarray(outcomes(dataclasses.replace(template, y=y), rng=child,
                                                     n_resamples=resamples, **options)[0], dtype=bool))
        held.append(np.concatenate(per_task))
    return {"test": test, "agents": agents, "tasks": tasks, "runs": runs, "distribution": distribution,
            "interval": permutations if agents > 2 else "",
            "configuration": f"K={K}" if test == "adastop" else "", "n_resamples": resamples,
            **DESIGNS["pooled_row"](held, LEVEL)}


def grid(quick=False):
    """(test, agents, tasks, runs, distribution): both tests at every (agents, tasks), runs and distribution.

    --quick: 2 and 8 agents on one task, AdaStop at n = 3 and the permutation test at 5 runs per agent.
    """
    if quick:
        return (DESIGNS["grid"](("adastop",), (2, 8), (1,), (3,), DISTRIBUTIONS)
                + DESIGNS["grid"](("permutation",), (2, 8), (1,), (5,), DISTRIBUTIONS))
    joint = [point for test in TESTS for point in DESIGNS["grid"]((test,), DESIGNS_GRID, RUNS[test], DISTRIBUTIONS)]
    # audit s29 (adastop29b): the default permutations="holm" from three agents on, after the joint rows
    return joint + [point + ("holm",) for point in joint if point[1] > 2 and point[:4] not in HOLM_UNMEASURED]


def point_of(row):
    """The grid point of a table row (``calibrate.replace_points``): (test, agents, tasks, runs, distribution), and
    the scheme as a sixth field for ``"holm"`` (the joint relabelling's points have five, as two agents')."""
    point = (row["test"], int(row["agents"]), int(row["tasks"]), int(row["runs"]), row["distribution"])
    return point + ((row["interval"],) if row["interval"] not in ("", "joint") else ())


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``): a point of five fields
    measures ``permutations="joint"``, a sixth names another scheme."""
    n_sim = max(n_sim, MORE_TESTS.get(tuple(point), 0)) if not quick else n_sim
    return [measure(*point[:5], n_sim, **({"permutations": point[5]} if len(point) > 5 else {}))]


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
