"""Audit s28 (lead): small mends found while merging the session's helpers."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError


def _steps_frame():
    rng = np.random.default_rng(1)
    rows = [(a, s, st, rng.normal()) for a in "ab" for s in range(3) for st in range(0, 30, 10)]
    return pd.DataFrame(rows, columns=["agent", "seed", "step", "score"])


def test_curves_without_the_run_column_suggest_a_formula_that_has_one():
    # curvenotes28: 'score ~ agent | seed' with step= was told to write 'score ~ agent | seed/seed'
    with pytest.raises(DesignError) as caught:
        rlstats.curves(_steps_frame(), "score ~ agent | seed", step="step")
    message = str(caught.value)
    assert "seed/seed" not in message
    assert "'score ~ agent | seed/run' if seed names the tasks" in message
    assert "'score ~ agent | task/seed' if it names the runs" in message
    with pytest.raises(DesignError, match=r"e\.g\. 'score ~ agent \| task/seed', so that"):
        rlstats.curves(_steps_frame(), "score ~ agent", step="step")


def _runs(n_runs, seeds=1, rng=0):
    gen = np.random.default_rng(rng)
    rows = [(a, t, r, s, gen.normal(i)) for i, a in enumerate("abc") for t in ("t1", "t2", "t3")
            for r in range(n_runs) for s in range(seeds)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "seed", "score"])


def test_percentiles_prose_counts_one_run_in_the_singular():
    # real28: "(1 runs per agent and task)"
    res = rlstats.percentiles(_runs(1), "score ~ agent | task", interval="pbp", progress=False)
    assert "(1 run per agent and task)" in res._prose() and "1 runs" not in res._prose()


def test_bayes_without_a_rope_names_the_units_once():
    # real28: "scores in normalised scores"
    res = rlstats.bayes(_runs(3), "score ~ agent | task", rng=0, progress=False)
    line = [s for s in str(res).splitlines() if "no ROPE" in s]
    assert line and "only the sign of the differences (the units of 'score') counts" in line[0]


def test_the_gap_note_names_the_score_column_after_seeds_are_averaged():
    # real28: "'`score`' was not normalised" once | task/run/seed averaged the seeds (Design.response_name)
    res = rlstats.bootstrap(_runs(3, seeds=2), "score ~ agent | task/run/seed", n_resamples=100, rng=0,
                            progress=False, metrics=["optimality_gap"], gamma=-10.0)
    text = " ".join(res.notes)
    assert "`" not in text
    assert "'score' was not normalised" in text


def test_curves_compare_names_an_unused_level_as_having_no_rows():
    # ways28 made pairs=/reference=/comparisons= say a Categorical's unused level has no rows; curves' compare= too
    rng = np.random.default_rng(2)
    rows = [(a, "t", s, st, rng.normal()) for a in "AB" for s in range(3) for st in (0, 10, 20)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    df["agent"] = pd.Categorical(df["agent"], categories=["A", "B", "X"])
    with pytest.raises(rlstats.errors.OptionError) as info:
        rlstats.curves(df, "score ~ agent | task/seed", step="step", compare=[("A", "X")], progress=False)
    assert "'X' in compare= " in str(info.value) and "no rows" in str(info.value)


def test_copy_note_under_power_keeps_rows_as_power_takes_them():
    # review28b: the same-task copy note wrote subset= where power() was called (it takes a pilot, design=)
    from rlstats.connectivity import kept_by
    from rlstats.errors import called_as

    with called_as("power"):
        assert kept_by("~(agent == 'B')")[0] == "design=pilot[mask] (a boolean mask of the rows where ~(agent == 'B') holds)"
    assert kept_by("~(agent == 'B')")[0] == "subset=\"~(agent == 'B')\""


def test_seed_pattern_hint_only_for_a_pattern_ending_at_a_placeholder(tmp_path):
    # review28b: '{agent}/{task}/*' was told to read '{agent}/{task}/*/seed_{seed}', which matches no file
    for agent in ("ppo", "dqn"):
        for seed in (0, 1):
            folder = tmp_path / agent / "CartPole" / f"seed_{seed}"
            folder.mkdir(parents=True)
            (folder / "progress.csv").write_text("step,score\n0,1.0\n10,2.0\n")
    told = rlstats.read_logs(tmp_path, pattern="{agent}/{task}")
    assert any("{agent}/{task}/seed_{seed}" in n for n in told.attrs["rlstats_notes"])
    star = rlstats.read_logs(tmp_path, pattern="{agent}/{task}/*")
    assert not any("seed_{seed}" in n for n in star.attrs["rlstats_notes"])
