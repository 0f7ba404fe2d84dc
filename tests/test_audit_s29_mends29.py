"""Audit s29 (mends29): the items session 28's reviewers found and left, each checked real before it was mended.

1. curves(): the statistic whose calibration rows the default bands' notes quote (``calibration.quoted_kinds``) was
   chosen among the agents of the design's fewest runs in a task, while the rows were read at the fewest runs of a
   task logged at a step with a band (audit s28 early28). A (6 runs a task, every score below gamma = 1: the mean's
   bands reflected) and B (10 runs, 5 of which end after step 1; a score above gamma: the gap's own bands): the rows
   were read at B's 5 runs but chosen at A's 6, so the note read the mean's rows (silent at 5 runs x 2 tasks) for B's
   bands, the gap's own, which no simulation measured. Now chosen and read at the same count (the fewest logged).
5. rlstats.build(), which takes no ``subset=``, told its caller to pass one in its ways on: to drop one attempt of a
   run started again, to keep one task of a formula without a blocking term (``subset=`` "to rlstats.compare"), to
   leave out rows of two runs under one name, and in its note of tasks whose runs look copied. Now they name what
   build takes, the rows selected first with a boolean mask (``connectivity.kept_by``'s words for the functions
   without ``subset=``, never text for ``DataFrame.query``); compare() and curves() still say ``subset=``.
6. A numeric ``attempt`` column's values were written as text in the condition offered to keep one attempt of a run
   started again ("attempt != '2'"), which ``subset=`` then refused ("'2' is text, which no number equals"): they
   are written as the column holds them, and the condition offered keeps the 60 rows counted by hand.
9. curves()' range note told data of one task (as given, or after ``subset=``) to "pass subset= to see one task over
   its whole range": there the grid stops where an agent's runs stop, and no subset= of tasks changes that. It now
   says so and offers steps=, past which that agent's curve is missing (checked: its estimates are NaN there).
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError


# ------------------------------------------------------------------ 1. the rows chosen at the count they are read at

def _early_gap_frame():
    """A: 6 runs x 2 tasks x 4 steps, every score below gamma = 1; B: 10 runs, runs 5-9 logged at steps 0-1 only,
    scores above gamma at step 0 alone (so B keeps the gap's own bands, and its bands at steps 2-3 rest on 5 runs)."""
    rng = np.random.default_rng(5)
    rows = []
    for agent, n, top in (("A", 6, 0.9), ("B", 10, 1.3)):
        for t in range(2):
            for r in range(n):
                for s in range(4):
                    if agent == "B" and r >= 5 and s >= 2:
                        continue
                    rows.append({"agent": agent, "task": f"t{t}", "seed": r, "step": s,
                                 "score": (top if s == 0 else 0.9) - rng.lognormal(-1.0, 0.6)})
    return pd.DataFrame(rows)


def test_rows_chosen_at_the_fewest_runs_logged():
    df = _early_gap_frame()
    assert df[(df.agent == "B") & (df.step == 0)].score.max() > 1 >= df[df.agent == "A"].score.max()
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic="optimality_gap", gamma=1.0,
                         n_resamples=200, rng=1, progress=False, normalize=False)
    # the design: A's fewest 6, B's 10 but 5 logged at steps 2-3, where B's bands are given
    np.testing.assert_array_equal(res.fewest_logged, [[6, 6, 6, 6], [10, 10, 5, 5]])
    assert np.isfinite(res.pointwise[1, 2:]).all()
    assert any(n.startswith("every score of A logged at the grid steps is at or below gamma") for n in res.notes)
    # the rows read are those of 5 runs, B's alone: B's bands are the gap's own, which have no rows of their own
    # (the table's gap rows are all of agents below gamma), so the note says they were not measured
    assert "the bands of the optimality gap have not been measured by simulation" in res.notes


# ------------------------------------------------------------------------ 5. build()'s ways on name what it takes

def _runs_frame():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"agent": np.repeat(["A", "B"], 10), "task": np.tile(np.repeat(["t1", "t2"], 5), 2),
                         "seed": np.tile(np.arange(5), 4), "score": rng.normal(size=20)})


def _curves_with(extra):
    """The runs of :func:`_runs_frame` at steps 0-2, run 0 of every cell logged twice with ``extra`` columns apart."""
    curves = pd.concat([_runs_frame().assign(step=s) for s in range(3)], ignore_index=True)
    again = curves[curves["seed"] == 0]
    return pd.concat([curves.assign(**{c: v[0] for c, v in extra.items()}),
                      again.assign(**{c: v[1] for c, v in extra.items()})], ignore_index=True)


MASK = "data=df[mask] (a boolean mask of the rows where {} holds) to rlstats.build"


def test_build_names_a_mask_of_the_rows():
    attempts = _curves_with({"attempt": ("PPO_1", "PPO_2")})
    with pytest.raises(DesignError) as built:
        rlstats.build(attempts, "score ~ agent | task/seed", step="step", curves=True)
    drop = "~(agent == 'A' & task == 't1' & seed == 0 & attempt != 'PPO_2')"
    assert f"keep the one you mean, e.g. {MASK.format(drop)} (dropping" in str(built.value)
    assert "subset=" not in str(built.value)
    with pytest.raises(DesignError, match="no blocking term") as pooled:
        rlstats.build(_runs_frame(), "score ~ agent")
    one_task = "task in ['t1']"
    assert f"(pass {MASK.format(one_task)})" in str(pooled.value) and "subset=" not in str(pooled.value)
    apart = _curves_with({"env": ("x", "y")})
    with pytest.raises(DesignError, match="rows of different runs") as two:
        rlstats.build(apart, "score ~ agent | task/seed", step="step", curves=True)
    assert str(two.value).endswith("leave some out with a boolean mask of the rows (data=df[mask] to rlstats.build)")
    copied = _runs_frame()
    copied.loc[copied["task"] == "t2", "score"] = copied.loc[copied["task"] == "t1", "score"].to_numpy()
    (note,) = [n for n in rlstats.build(copied, "score ~ agent | task").notes if "look like one file" in n]
    not_t2 = "task != 't2'"
    assert note.endswith(f"({MASK.format(not_t2)} if t2 is the copy)")


def test_functions_taking_subset_still_say_it():
    attempts = _curves_with({"attempt": ("PPO_1", "PPO_2")})
    with pytest.raises(DesignError) as curved:
        rlstats.curves(attempts, "score ~ agent | task/seed", step="step")
    assert "e.g. subset=\"~(agent == 'A' & task == 't1' & seed == 0 & attempt != 'PPO_2')\" (dropping" in \
        str(curved.value)
    with pytest.raises(DesignError, match="rows of different runs") as two:
        rlstats.curves(_curves_with({"env": ("x", "y")}), "score ~ agent | task/seed", step="step")
    assert str(two.value).endswith("leave some out with subset=")
    with pytest.raises(DesignError, match="no blocking term") as pooled:
        rlstats.compare(_runs_frame(), "score ~ agent")
    assert "(pass subset=\"task in ['t1']\" to rlstats.compare)" in str(pooled.value)


# ------------------------------------------------------------- 6. a numeric attempt column's value is a number

def test_numeric_attempts_are_written_as_numbers():
    """Run 0 of A on t1 logged twice (attempts 1 and 2, an int column) at steps 0-2 over 60 rows: the condition offered
    drops attempt 1's 3 rows, and curves() given it keeps 60 of 63."""
    curves = pd.concat([_runs_frame().assign(step=s) for s in range(3)], ignore_index=True).assign(attempt=1)
    first = curves[(curves["agent"] == "A") & (curves["task"] == "t1") & (curves["seed"] == 0)]
    curves = pd.concat([curves, first.assign(attempt=2, score=first["score"] + 1)], ignore_index=True)
    with pytest.raises(DesignError) as found:
        rlstats.curves(curves, "score ~ agent | task/seed", step="step", n_resamples=20, rng=0, progress=False)
    condition = "~(agent == 'A' & task == 't1' & seed == 0 & attempt != 2)"
    assert "the attempts 1 and 2 of column 'attempt'" in str(found.value)
    assert f'e.g. subset="{condition}" (dropping' in str(found.value)
    res = rlstats.curves(curves, "score ~ agent | task/seed", step="step", n_resamples=20, rng=0, progress=False,
                         subset=condition)
    assert f'subset="{condition}" kept 60 of 63 rows' in res.notes
    assert res.counts.sum() == 20  # 2 agents x 2 tasks x 5 runs: one run kept of the two attempts


# ------------------------------------------------------------------------ 9. the range note of one task

def test_range_note_of_one_task_offers_steps():
    """Two agents on one task logged at 0, 200k, ..., 1M; agent_2's runs stop at 600k."""
    one = rlstats.datasets.simulate_curves(agents=2, tasks=1, seeds=3, steps=6, rng=0)
    assert sorted(one["step"].unique()) == [0, 200_000, 400_000, 600_000, 800_000, 1_000_000]
    one = one[~((one["agent"] == "agent_2") & (one["step"] > 600_000))]
    res = rlstats.curves(one, "score ~ agent | task/seed", step="step", n_resamples=20, rng=0, progress=False)
    (note,) = [n for n in res.notes if n.startswith("curves cover")]
    assert note == ("curves cover steps 0 to 600k, within the steps every agent reaches (the runs of agent_2 on "
                    "task_01 stop at 600k); logged beyond them: task_01 (0 to 1M); pass steps= for other steps (an "
                    "agent's curve is missing at the steps where none of its runs is logged)")
    wide = rlstats.curves(one, "score ~ agent | task/seed", step="step", n_resamples=20, rng=0, progress=False,
                          steps=range(0, 1_000_001, 200_000))
    assert np.isnan(wide.estimates[1, 4:]).all() and np.isfinite(wide.estimates[0]).all()
    # two tasks keep the way to one task's whole range
    two = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=6, rng=0)
    two = two[~((two["agent"] == "agent_2") & (two["task"] == "task_01") & (two["step"] > 600_000))]
    res = rlstats.curves(two, "score ~ agent | task/seed", step="step", n_resamples=20, rng=0, progress=False,
                         normalize=False)
    (note,) = [n for n in res.notes if n.startswith("curves cover")]
    assert note.endswith("pass subset= to see one task over its whole range, or steps= for other steps")
    # and one task kept by subset= reads as one task
    res = rlstats.curves(two, "score ~ agent | task/seed", step="step", n_resamples=20, rng=0, progress=False,
                         subset="task == 'task_01'")
    (note,) = [n for n in res.notes if n.startswith("curves cover")]
    assert "pass subset=" not in note and "pass steps= for other steps" in note
