"""AdaStop's family-wise error when some agents are identical but the agents differ in SPREAD: the
``adastop.fwe_spread`` rows of ``rlstats/calibration.csv``.

    PYTHONPATH=. python tests/reference/calibrate.py --only adastop.fwe_spread [--jobs 2] [--quick]

(or this script with the same options). ``size_adastop.py`` measures the global null (every agent identical); here
the null of some pairs holds while the family's agents differ in spread, as PPO and SAC returns do. Of ``agents``
agents on one task, the first two are identical with ``ratio`` times the spread of the others, which are identical
among themselves (``ratio`` = 1: the global null). Every agent has mean 0 in the noise units of the narrow agents, on
the task's offset and scale of a design draw (``designs.py``); ``distribution`` is every agent's shape (normal, or
skewed: the standardised lognormal). The true hypotheses are "equal distributions" of the wide pair and of every
pair of narrow agents (at ``ratio`` 1, every pair); a wide-versus-narrow pair has equal means but not equal
distributions (a rejection of it is an error only about means, counted by ``measure``'s ``any_pair``, not in the
table).
``coverage`` is the share of tests that rejected none of the true hypotheses (the family-wise error is 1 -
coverage; the level holds when coverage >= 0.95), for ``rlstats.adastop(df, "score ~ agent", n=n, K=K,
permutations=...)`` (comparisons "all", alpha = 0.05, no early accept); ``interval`` names the ``permutations``
scheme (``joint``, the default; ``pairwise``, the paper's; ``holm``, each pair's own paths with Holm's step-down,
audit s29) and ``configuration`` reads ``K=..,ratio=..``. Every scheme sees the same data sets (the seeds follow the
design, not the scheme).

Paths: 2,000 per test (the default is 10,000): with continuous scores the level spent is 0.05 exactly at both
(``size_adastop.py``); the paper's pairwise scheme enumerates its tree where it fits at either number.
"""

from __future__ import annotations

import dataclasses
import pathlib
import runpy
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
SIZE = runpy.run_path(str(HERE / "size_adastop.py"))
PROCEDURE, ALPHA = "adastop.fwe_spread", 0.05
LEVEL = 1 - ALPHA
#: the permutations= schemes measured (audit s29 added "holm")
SCHEMES = ("joint", "pairwise", "holm")
RATIOS = (1, 2, 4, 10, 1000)
N_RESAMPLES = 2000
#: tests per grid point: the table's, and --quick's (rounded up to whole design draws)
SIMULATIONS = (600, 120)


def scores(template, ratio, distribution, rng, draw=0):
    """Scores for ``template``'s rows: agents 0 and 1 with ``ratio`` times the others' spread, every agent of mean 0."""
    offset, scale = DESIGNS["design_draw"](draw, template.n_tasks)
    agent = np.asarray(template.agent)
    deviation = DESIGNS["deviations"](rng, distribution, template.y.size)
    deviation = np.where(agent < 2, ratio * deviation, deviation)
    return offset[template.task] + scale[template.task] * deviation


def true_pairs(pairs, ratio):
    """Which comparisons (agent codes) are true hypotheses: every one at ``ratio`` 1 (the global null), else those
    of two wide agents (codes 0, 1) or two narrow ones."""
    pairs = np.asarray(pairs)
    return ((pairs[:, 0] < 2) == (pairs[:, 1] < 2)) | (ratio == 1)


def decisions(template, y, rng, permutations, n, K, resamples=N_RESAMPLES):
    """(pairs, rejected) of one test: the agent codes of every comparison and whether it was rejected."""
    from rlstats.methods import adastop as ada
    from rlstats.methods.adastop import _api, _kernels

    options = _api.AdaStopOptions.checked(**_api._simulation_options(
        ada.adastop, dict(n=n, K=K, n_resamples=resamples, permutations=permutations)))
    design = dataclasses.replace(template, y=y)
    short = _api._short_agents("adastop", design, options)[0]
    *_, pairs, _record, runs = _api._adastop_runs(design, options, rng, short, False)
    run = runs[0]
    rejected = np.zeros(len(pairs), dtype=bool)
    decided = [_kernels.DECISION_NAMES.index(x) for x in ("larger", "smaller")]
    rejected[run.pair_ids] = np.isin(run.test.decision, decided)
    return np.asarray(pairs), rejected


def measure(agents, runs, K, distribution, ratio, permutations, n_sim, seed=0, resamples=N_RESAMPLES):
    """One grid point: the table row, plus ``any_pair`` (the share rejecting no pair at all)."""
    template = SIZE["design"](agents, 1, runs * K)
    draws = DESIGNS["DESIGN_DRAWS"]
    held, untouched = [], []
    for draw in range(draws):
        # the data depend on the design (not on the scheme): both schemes see the same data sets
        key = [seed, 23, agents, runs, K, ("normal", "skewed").index(distribution), int(ratio), draw]
        data_seed, test_seed = np.random.SeedSequence(key).spawn(2)
        rng = np.random.default_rng(data_seed)
        ok, none = [], []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for child in test_seed.spawn(-(-n_sim // draws)):
                y = scores(template, ratio, distribution, rng, draw)
                pairs, rejected = decisions(template, y, child, permutations, runs, K, resamples)
                ok.append(not rejected[true_pairs(pairs, ratio)].any())
                none.append(not rejected.any())
        held.append(ok)
        untouched.append(none)
    row = {"test": "adastop", "agents": agents, "tasks": 1, "runs": runs, "distribution": distribution,
           "interval": permutations, "configuration": f"K={K},ratio={ratio}", "n_resamples": resamples,
           **DESIGNS["pooled_row"](held, LEVEL)}
    row["any_pair"] = 1 - float(np.mean(np.concatenate(untouched)))
    return row


def grid(quick=False):
    """(agents, runs, K, distribution, ratio, permutations) points: 4 agents at n = 3, 5, 10 and K = 1, 4 (normal),
    3 and 8 agents at n = 5, K = 1, and skewed scores with 4 agents at n = 5, K = 1 and 4; --quick: 4 agents,
    n = 5, K = 1."""
    if quick:
        return DESIGNS["grid"]((4,), (5,), (1,), ("normal",), RATIOS, SCHEMES)
    return (DESIGNS["grid"]((4,), (3, 5, 10), (1, 4), ("normal",), RATIOS, SCHEMES)
            + DESIGNS["grid"]((3, 8), (5,), (1,), ("normal",), RATIOS, SCHEMES)
            + DESIGNS["grid"]((4,), (5,), (1, 4), ("skewed",), RATIOS, SCHEMES))


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``)."""
    row = measure(*point, n_sim)
    row.pop("any_pair")
    return [row]


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
