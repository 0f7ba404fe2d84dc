"""Audit s33 (lead): '| task/run/seed' averages each run's rows as its seeds. Rows of one seed (a learning curve's
steps, a row repeated) were averaged with them unseen and counted as seeds: 2 seeds x 3 steps a run read "3 runs of 6
seeds per agent and task". Now refused, naming the seed's rows and the step where a column rises within them.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats

FORMULA = "score ~ agent | task/run/seed"


@pytest.fixture(scope="module")
def curves():
    rng = np.random.default_rng(0)
    rows = [(a, t, r, s, step, rng.normal() + step / 1000) for a in "ab" for t in ("t1", "t2", "t3") for r in range(3)
            for s in range(2) for step in (1000, 2000, 3000)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "seed", "step", "score"])


@pytest.mark.parametrize("column", ["step", "checkpoint"])
def test_a_seeds_curve_is_refused_before_its_steps_are_averaged(curves, column):
    with pytest.raises(rlstats.DesignError) as raised:
        rlstats.compare(curves.rename(columns={"step": column}), FORMULA)
    assert str(raised.value) == (
        f"column '{column}' takes several values within seed=0 of run=0 of agent 'a' on task 't1' (3 rows), so the "
        "rows look like learning curves: the seeds of each run are averaged as one row each, and the steps would be "
        f"averaged with them. Pick a step of each seed's run first, e.g. its last: df.sort_values('{column}')"
        ".groupby(['agent', 'task', 'run', 'seed']).tail(1), or summarise each otherwise (its area, its best score), "
        "grouped by the same columns")


def test_a_seed_given_twice_is_refused(curves):
    last = curves[curves.step == 3000].drop(columns="step")
    with pytest.raises(rlstats.DesignError, match=r"seed=0 of run=0 of agent 'a' on task 't1' \(2 rows\): the seeds "
                       r"of each run are averaged as one row each, so a seed's rows would be averaged too and counted "
                       r"as seeds; keep one row per seed"):
        rlstats.compare(pd.concat([last, last]), FORMULA)


def test_one_row_per_seed_counts_its_seeds(curves):
    last = curves[curves.step == 3000]
    res = rlstats.compare(last, FORMULA)
    assert res.notes[0] == ("seeds ('seed') averaged within each run: the run is the unit, 3 runs of 2 seeds per "
                            "agent and task")
    # the run means are the unit: the same test as on the runs' means written '| task/run'
    means = last.groupby(["agent", "task", "run"], as_index=False)["score"].mean()
    assert res.pvalue == rlstats.compare(means, "score ~ agent | task/run").pvalue


def test_a_sweeps_configuration_column_is_no_step():
    """A sweep's 'config' (0-3 under each seed) is distinct within a seed's rows and shared by the seeds, as a step
    is; its name says what it is, so '| task' reads each row as a run, as before session 33 (the order-free step test
    refused it as learning curves), while the same values named 'checkpoint' are refused."""
    rng = np.random.default_rng(0)
    rows = [(a, t, c, s, c + rng.normal()) for a in "AB" for t in ("narrow", "wide") for c in range(4) for s in range(3)]
    sweep = pd.DataFrame(rows, columns=["agent", "task", "config", "seed", "score"])
    for name in ("config", "lr", "hparam_id"):
        design = rlstats.build(sweep.rename(columns={"config": name}), "score ~ agent | task")
        assert design.y.size == 48
    with pytest.raises(rlstats.DesignError, match="column 'checkpoint' takes 4 values within run seed=0"):
        rlstats.build(sweep.rename(columns={"config": "checkpoint"}), "score ~ agent | task")
