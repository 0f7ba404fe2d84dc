"""How often the decisions a reader takes from rlstats.bayes's probabilities are wrong (audit s21, bayescal21): the
``bayes.decision`` rows of the package table ``rlstats/calibration.csv``.

The models report P(better), P(rope) and P(worse); the reading they invite (Benavoli et al. 2017, and the 0.95 the
notes of :mod:`rlstats.methods.bayes._api` measure against) is a decision where one of them reaches ``LEVEL`` = 0.95:
"practically equivalent" where P(rope) >= 0.95, "better" or "worse" where P(better) or P(worse) >= 0.95.  These are
posterior decisions, not tests; the rows measure their frequentist error on the calibration grid's designs
(``designs.py``: two agents, normal, skewed, heavy-tailed and capped scores, four draws of the tasks' offsets and
scales per row).  The ROPE is set in score units as the ``equivalence.size`` rows set their margin of the mean
(``size_equivalence.py``'s ``truths``): the true difference of the agents' means averaged over the tasks, with the
first agent half a noise unit above the second on every task.

``statistic``
    ``false_equivalence``: P(rope) >= 0.95 although the true mean difference sits on the ROPE's edge
    (``configuration`` ``delta = rope``: rope = that difference) or beyond it (``delta = 1.5 rope``: rope = the
    difference / 1.5); ``false_difference``: P(better) or P(worse) >= 0.95 although the agents are alike
    (``delta = 0``, both at the second agent's location; rope = the difference the other configurations measure).
``test``
    The model: ``signed_rank`` (the default) or ``hierarchical``.
``coverage``
    The share of data sets without that wrong decision (so the error rate is 1 - coverage); ``level`` 0.95 is the
    threshold, not a promised level.

The data sets of a grid point are fitted at once through the kernels the public function calls, with its defaults
(``_kernels.dirichlet_block`` and ``signed_rank_block`` with 50,000 draws, the Dirichlet weights shared by the data
sets as they are by a result's pairs; ``_kernels.gibbs`` with 8 chains of 300 warm-up and 1,000 draws, each data set a
pair of a group, standardised and with the priors of ``_api._hierarchical``).  Unlike the public function, a
hierarchical fit whose chains miss R-hat 1.01 or ESS 400 is not run again longer (the probabilities of a converged
fit are the same in law; ``tests/test_calibration.py`` checks a data set's probabilities against rlstats.bayes).

    PYTHONPATH=. python tests/reference/bayes_decisions.py [--jobs 2] [--quick]

A data set the public function refuses (a task whose paired run differences do not vary, capped runs of both agents
at the cap: rlstats.bayes raises a DesignError for the hierarchical model) has NaN probabilities here and counts as
no decision: in the hierarchical rows, up to 13 of a row's 80 data sets at capped 3 runs (at most 3 at 5 tasks, 5 at
10, 13 at 26 tasks, delta = rope; counted from the simulated runs, data sets with such a task), none at 5 or 10 runs.

CPU: the hierarchical points dominate (about 0.1 s a data set); the table's grid (SIMULATIONS below: 80 data sets a
row, 20 per design draw, SE 0.024 at an error rate of 0.05 and 0.045 at 0.2) took 5.3 CPU-minutes for its first four
points, 5 and 26 tasks x 3 and 10 runs (581 s on 2 workers of a loaded machine, session 21), and 6.4 CPU-minutes for
the five points of 10 tasks or 5 runs that bayescal21b added (session 21; each point draws from its own seeds, so the
rows of a point do not depend on which others are run).
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
EQUIVALENCE = runpy.run_path(str(HERE / "size_equivalence.py"))
PROCEDURE, LEVEL = "bayes.decision", 0.95
#: data sets per design draw at a grid point: the table's, and --quick's (a row pools designs.DESIGN_DRAWS draws)
SIMULATIONS = (20, 5)
#: data sets per design draw of the default model's (signed_rank) rows at the ROPE's edge (``delta = rope``) at the
#: grid's runs (RUNS): audit s24 (cal24) measured them again on 4 times SIMULATIONS (320 a row, 3
#: Monte Carlo SE of 0.036 at an error rate of 0.05 where 80 left 0.073), as 33 of the 36 rows at the edge sat within
#: 3 SE of the 3-SE rule's boundary, pooled or in a draw, so that their verdict (held, or missed: a note quoting them)
#: could flip (of the other configurations' 72 rows, 3 did, all holding); written in place by ``calibrate.py --only
#: bayes.decision --replace "signed_rank:*:3|5|10:*"`` (the other configurations' rows come back byte for byte),
#: seeds as before (the data sets are not the 80's first ones)
DEFAULT_SIMULATIONS = (80, 5)
#: the configuration measured on DEFAULT_SIMULATIONS
DEFAULT_CONFIGURATION = "delta = rope"
SHIFT = EQUIVALENCE["SHIFT"]
MODELS = ("signed_rank", "hierarchical")
#: the calibration grid's tasks and runs (bayescal21 measured 5 and 26 tasks x 3 and 10 runs; bayescal21b added the
#: 10 tasks and the 5 runs, seeded per point as the others, so the rows of the first four points are unchanged)
TASKS = (5, 10, 26)
RUNS = (3, 5, 10)
#: the signed-rank model's further runs (audit s22): it reads task means, so one run per agent and task (a paper's
#: per-task means) is a design it takes, which a result told "not measured"; appended after the grid above, so its
#: points keep their indices and seeds. The hierarchical model needs paired runs within a task to spread.
SIGNED_RANK_FEW_RUNS = (1, 2)
#: configuration -> (the first agent's location in noise units, the ROPE as a multiple of the true mean difference
#: at SHIFT, the statistic)
CONFIGURATIONS = {"delta = 0": (0.0, 1.0, "false_difference"),
                  "delta = rope": (SHIFT, 1.0, "false_equivalence"),
                  "delta = 1.5 rope": (SHIFT, 1 / 1.5, "false_equivalence")}
#: data sets of a hierarchical fit at once (its draws: chunk x 8 chains x 1,000 draws x tasks floats)
CHUNK = 25


def signed_rank_probabilities(differences, rope, rng):
    """(n, 3) P(worse), P(rope), P(better) of the signed-rank model (``_api._signed_rank``'s defaults) for ``n`` data
    sets' task-level mean differences (n, tasks), the Dirichlet weights shared by the data sets."""
    from rlstats.methods.bayes import _kernels as kernels
    from rlstats.statistics import tie_tolerance

    n, tasks = differences.shape
    present = np.ones(differences.shape, dtype=bool)
    # _api._signed_rank's tie tolerance at the ROPE bounds, from the differences (the cell means enter only through
    # the rounding of their magnitude, 1e-16 of it: nothing here sits within it of a bound)
    atoms = differences
    tolerance = 2 * tie_tolerance(np.maximum(atoms.max(axis=1), 0.0) - np.minimum(atoms.min(axis=1), 0.0),
                                  np.abs(atoms).max(axis=1))
    counts = np.zeros((n, 3))
    total = 0
    while total < 50_000:
        size = min(kernels.BLOCK, 50_000 - total)
        weights = kernels.dirichlet_block(rng, size, tasks, 0.5)
        theta, _ = kernels.signed_rank_block(weights, differences, present, rope, tolerance)
        counts += kernels.winner_counts(theta)
        total += size
    return counts / total


def hierarchical_probabilities(x, rope, rng):
    """(n, 3) P(worse), P(rope), P(better) of delta0 (``_api._hierarchical``'s defaults) for ``n`` data sets' paired
    run differences x (n, tasks, runs), each data set a pair of one group."""
    from rlstats.methods.bayes import _kernels as kernels

    out = []
    for start in range(0, x.shape[0], CHUNK):
        part = x[start:start + CHUNK]
        runs = part.shape[-1]
        sums, counts = part.sum(axis=-1), np.full(part.shape[:2], float(runs))
        within = np.square(part - part.mean(axis=-1, keepdims=True)).sum(axis=-1)
        scale = part.std(axis=-1).mean(axis=1)[:, None]
        means = sums / scale / counts
        priors = kernels.Priors(delta_high=(np.abs(part).max(axis=-1) / scale).max(axis=1),
                                sigma0_high=1000 * np.maximum(means.std(axis=1), 1e-12),
                                sigma_high=np.full(part.shape[0], 1000.0))
        # each data set its own stream (kernels.gibbs takes one a pair), seeded from rng; the inputs as they were when
        # the rows were measured: bayes() has read them on kernels.snapped's grid since audit s36 (each sum moved by at
        # most 2^-21 of its task's spread; on 30 small designs no P(better) moved and delta0's mean by 8e-7 relative,
        # median)
        streams = [np.random.SeedSequence(int(k)) for k in rng.integers(2 ** 63, size=part.shape[0])]
        chains, _ = kernels.gibbs(sums / scale, counts, within / np.square(scale), priors, streams, 8, 300, 1000)
        delta0 = (chains.delta0 * scale[:, :, None]).reshape(part.shape[0], -1)
        out.append(np.stack([np.mean(delta0 < -rope, axis=1), np.mean(np.abs(delta0) <= rope, axis=1),
                             np.mean(delta0 > rope, axis=1)], axis=1))
    return np.concatenate(out)


def held_by_draw(model, tasks, runs, distribution, configuration, n_sim, seed=0):
    """One boolean array per design draw, True where the data set was spared the configuration's wrong decision."""
    location, factor, statistic = CONFIGURATIONS[configuration]
    held = []
    for draw in range(DESIGNS["DESIGN_DRAWS"]):
        offset, scale = DESIGNS["design_draw"](draw, tasks)
        key = [seed, draw, tasks, runs, DESIGNS["DISTRIBUTIONS"].index(distribution), MODELS.index(model),
               list(CONFIGURATIONS).index(configuration), 21]
        rng = np.random.default_rng(np.random.SeedSequence(key))
        rope = factor * abs(EQUIVALENCE["truths"](distribution, 1.0, offset, scale)["mean"])
        # the first agent at location (sign +1 scaled): simulate's agent 0 sits at sign * SHIFT
        y = EQUIVALENCE["simulate"](distribution, location / SHIFT, offset, scale, runs, n_sim, rng)
        x = y[:, :, 0, :] - y[:, :, 1, :]                      # (n_sim, tasks, runs): paired by run
        if model == "signed_rank":
            p = signed_rank_probabilities(x.mean(axis=-1), rope, rng)
        else:
            p = hierarchical_probabilities(x, rope, rng)
        wrong = p[:, 1] >= LEVEL if statistic == "false_equivalence" else (p[:, 0] >= LEVEL) | (p[:, 2] >= LEVEL)
        held.append(~wrong)
    return held


def table_rows(point, n_sim, quick=False):
    """The three rows of one grid point (model, tasks, runs, distribution): one per configuration."""
    model, tasks, runs, distribution = point
    more = model == "signed_rank" and runs in RUNS and n_sim == SIMULATIONS[quick]
    return [{"test": model, "statistic": CONFIGURATIONS[c][2], "agents": 2, "tasks": tasks, "runs": runs,
             "distribution": distribution, "configuration": c,
             **DESIGNS["pooled_row"](held_by_draw(
                 *point, c, DEFAULT_SIMULATIONS[quick] if more and c == DEFAULT_CONFIGURATION else n_sim), LEVEL)}
            for c in CONFIGURATIONS]


def point_of(row):
    """The grid point (model, tasks, runs, distribution) of a table row (``calibrate.replace_points``)."""
    return row["test"], int(row["tasks"]), int(row["runs"]), row["distribution"]


def grid(quick=False):
    """(model, tasks, runs, distribution); --quick: 5 tasks at 3 runs, normal and capped."""
    if quick:
        return [(m, 5, 3, d) for m in MODELS for d in ("normal", "capped")]
    return (DESIGNS["grid"](MODELS, TASKS, RUNS, DESIGNS["DISTRIBUTIONS"])
            + DESIGNS["grid"](("signed_rank",), TASKS, SIGNED_RANK_FEW_RUNS, DESIGNS["DISTRIBUTIONS"]))


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
