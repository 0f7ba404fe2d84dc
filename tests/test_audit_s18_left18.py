"""Audit s18 (left18): known leftovers of earlier sessions' notes.  Each test is a defect's reproducer, in the order
of the brief."""

import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.provenance import notes_for

CONVERTED = "data converted from a polars DataFrame to a pandas DataFrame"


def _stacked():
    """A polars frame (3 agents x 2 tasks x 3 seeds, 18 rows) stacked with a pandas one of other agents."""
    pl = pytest.importorskip("polars")
    df = rlstats.datasets.simulate(agents=3, tasks=2, seeds=3, rng=0)
    other = rlstats.datasets.simulate(agents=3, tasks=2, seeds=3, rng=1)
    other["agent"] = "x" + other["agent"].astype(str)
    return rlstats.concat([pl.from_pandas(df), other], ignore_index=True)


def test_a_stacked_frames_row_count_is_counted_again_on_the_rows_analysed():
    """rlstats.concat of a polars frame (18 rows) and a pandas one says "converted ... (18 rows) (rows with agent
    'agent_1', 'agent_2' and 'agent_3')"; a subset keeping every agent but one task (9 of those rows) printed the same
    "(18 rows)": the note was bound to the agents alone, all present.  It counts the 9 rows analysed now."""
    both = _stacked()
    one_task = both[both["task"] == "task_01"]
    assert (one_task["agent"].str.startswith("agent")).sum() == 9
    said = [n for n in rlstats.compare(one_task, "score ~ agent | task/seed", method="bootstrap", rng=0,
                                       n_resamples=200).notes if n.startswith(CONVERTED)]
    assert said == [f"{CONVERTED} (9 rows) (rows with agent 'agent_1', 'agent_2' and 'agent_3')"], said
    # an agent left out too: 6 of the frame's rows, of two agents
    fewer = one_task[one_task["agent"] != "agent_1"]
    assert [n for n in notes_for(fewer) if n.startswith(CONVERTED)] == [
        f"{CONVERTED} (6 rows) (rows with agent 'agent_2' and 'agent_3')"]
    # the frame as stacked keeps its note as written
    assert f"{CONVERTED} (18 rows) (rows with agent 'agent_1', 'agent_2' and 'agent_3')" in notes_for(both)


def test_a_stacked_frames_row_count_is_not_said_of_a_summary_of_its_runs():
    """summarize_runs of such a stack kept "(240 rows)" as a row note of the agents, so a subset of the summary to one
    task (120 of the converted rows behind it) still said 240 rows.  As for a count without a stack, the count is a
    fact of the frame summarised: said of the whole summary, and not of a subset of it."""
    pl = pytest.importorskip("polars")
    d = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, rng=0)
    both = rlstats.concat([pl.from_pandas(d), d.assign(agent="x" + d["agent"].astype(str))])
    summary = rlstats.summarize_runs(both, "score ~ agent | task/seed", step="step")
    assert any(n.startswith(f"{CONVERTED} (240 rows)") for n in notes_for(summary))
    part = notes_for(summary[summary["task"] == "task_01"])
    assert not any(n.startswith(CONVERTED) for n in part), part
    assert any("notes about those rows alone are not shown" in n for n in part), part


# ---------------------------------------------------------------------------------------------------- AdaStop CLI

def _wide_batch(tmp_path):
    """A wide batch file (seed, PPO, SAC) whose 3rd data row (line 4) repeats the 1st whole."""
    path = tmp_path / "wide.csv"
    path.write_text("seed,PPO,SAC\n0,1.5,2.5\n1,3.5,4.5\n0,1.5,2.5\n3,7.5,8.5\n")
    return path


def test_a_wide_batch_error_names_the_files_row_and_columns(tmp_path, capsys):
    """A wide batch (one column per agent) is melted into rows; its refusals named the melted frame's index labels
    ("first repeats: index labels 2, 6"), rows the file does not have (it has 4).  The command names the file's data
    row and line, and the columns; Python names the batch's index label and columns."""
    from test_cli import run

    path = _wide_batch(tmp_path)
    status, _ = run(["adastop", "update", str(tmp_path / "state.json"), str(path), "--seed", "0"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "index label" not in err, err
    assert f"columns 'PPO' and 'SAC' of data row 3 (line 4 of {path})" in err, err
    seq = rlstats.AdaStop(["PPO", "SAC"], n=4, K=2, rng=0)
    batch = pd.read_csv(path)
    with pytest.raises(rlstats.errors.DesignError) as info:
        seq.update(batch)
    assert "columns 'PPO' and 'SAC' of index label 2" in str(info.value)
    assert "one row per agent and run" in str(info.value)  # what the count of rows counts


def test_a_wide_batch_error_names_rows_of_a_frame_with_its_own_index():
    """The batch's own index labels, not positions of the melted frame."""
    batch = pd.DataFrame({"seed": [0, 1, 0], "A": [1.0, 2.0, 1.0], "B": [5.0, 6.0, 7.0]}, index=[10, 20, 30])
    with pytest.raises(rlstats.errors.DesignError) as info:
        rlstats.AdaStop(["A", "B"], n=3, K=2, rng=0).update(batch)
    assert "column 'A' of index label 30" in str(info.value), str(info.value)


def test_a_wide_batchs_repeated_run_counts_its_scores():
    """Seed 1 on two rows of a wide batch of agents A and B: "run seed=1 of agent 'A' has 2 rows in this batch (2
    repeated rows in all)", of a batch with one repeated row: the count was of the melted rows, 2 repeated scores."""
    batch = pd.DataFrame({"seed": [0, 1, 1], "A": [1.0, 2.0, 3.0], "B": [5.0, 6.0, 7.0]})
    with pytest.raises(rlstats.errors.DesignError) as info:
        rlstats.AdaStop(["A", "B"], n=3, K=2, rng=0).update(batch)
    assert "has 2 rows in this batch (2 repeated scores in all)" in str(info.value), str(info.value)


def test_adastop_update_refusing_curves_advises_what_the_command_can_do(tmp_path, capsys):
    """A batch of learning-curve rows: the command advised "compare the curves with the formula ... and
    method='curves', step='step'", an option adastop update does not take.  The advice is an action on the file
    (keep each run's last step) or the command that does it (rlstats compare is not the way: AdaStop reads one score
    per run).  Python's advice was rlstats.summarize_runs(df, 'score ~ agent | task/seed', ...) on a batch without a
    task column, or rlstats.curves: it is the rows' grouping alone, as tuning's."""
    from test_cli import run

    rows = [(a, s, t, float(10 * s + t / 100 + (a == "B"))) for a in "AB" for s in range(3) for t in (0, 100)]
    path = tmp_path / "curve.csv"
    pd.DataFrame(rows, columns=["agent", "seed", "step", "score"]).to_csv(path, index=False)
    status, _ = run(["adastop", "update", str(tmp_path / "state.json"), str(path), "--seed", "0"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "method='curves'" not in err and "--method" not in err, err
    assert "Keep one row of each run (each 'agent', 'seed') in the file, e.g. its last step." in err, err
    seq = rlstats.AdaStop(["A", "B"], n=3, K=2, rng=0)
    with pytest.raises(rlstats.errors.DesignError) as info:
        seq.update(pd.read_csv(path))
    assert "rlstats.curves(" not in str(info.value) and "summarize_runs" not in str(info.value), str(info.value)
    assert "df.sort_values('step').groupby(['agent', 'seed']).tail(1)" in str(info.value), str(info.value)


# ------------------------------------------------------------------------------------------ curves' raw scales

def _offset_tasks(tasks=(("Acrobot", -500.0), ("CartPole", 0.0))):
    """Tasks of one width (500) on ranges apart, as CartPole's returns (0..500) and Acrobot's (-500..0): 2 agents
    x 3 runs x 4 steps each."""
    rng = np.random.default_rng(0)
    rows = []
    for task, low in tasks:
        for agent in ("A", "B"):
            for seed in range(3):
                level = rng.uniform(0.1, 0.9)
                rows += [(agent, task, seed, step, low + 500 * min(level * step / 3, 1.0)) for step in range(1, 5)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_curves_iqm_of_tasks_on_ranges_apart_is_noted():
    """curves' IQM pools the runs of every task; on raw CartPole (0..500) and Acrobot (-500..0) returns the tasks'
    largest |score| are equal, so the raw-scales caution (tasks' largest |score| tenfold apart) is silent, yet the
    trimming cuts a task's runs for its range: on the SB3 logs at step 5k the IQM says A2C - PPO = +8.4 raw and -33.3
    on scores normalised to the tasks' ranges (x 500).  The note says so; the mean (unchanged by per-task shifts of
    equal widths) gets no such note."""
    df = _offset_tasks()
    with pytest.warns(rlstats.errors.RlstatsWarning, match="ranges apart"):
        res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=200, rng=0, progress=False)
    said = [n for n in res.notes if "ranges apart" in n]
    assert said == ["scores of tasks on ranges apart (every score of 'Acrobot' is below every score of 'CartPole') "
                    "were aggregated on their own scales, so the runs the IQM keeps depend on the tasks' ranges, not "
                    "only on the runs' results; normalize= puts them on one scale, or pass normalize=False if they "
                    "are on one scale already"], res.notes
    for statistic in ("mean", "median"):  # of 2 task means: their average, which shifts of the tasks move alike
        other = rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic=statistic, n_resamples=200,
                               rng=0, progress=False)
        assert not any("ranges apart" in n for n in other.notes)
    for normalize in (False, {"reference": pd.DataFrame({"task": ["Acrobot", "CartPole"], "low": [-500.0, 0.0],
                                                          "high": [0.0, 500.0]}), "low": "low", "high": "high"}):
        quiet = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=200, rng=0, progress=False,
                               normalize=normalize)
        assert not any("ranges apart" in n for n in quiet.notes)


def test_curves_median_of_three_tasks_on_ranges_apart_is_noted():
    """Of 3 tasks on ranges apart the median of task means is the middle task's mean for every agent: A - B is that
    task's difference alone (computed here), whatever the others say."""
    df = _offset_tasks((("Acrobot", -500.0), ("CartPole", 0.0), ("Far", 1000.0)))
    with pytest.warns(rlstats.errors.RlstatsWarning, match="the task whose mean the median takes depends"):
        res = rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic="median", n_resamples=100,
                             rng=0, progress=False)
    est = res.tidy().set_index(["agent", "step"])["estimate"]
    middle = df[df["task"] == "CartPole"].groupby(["agent", "step"])["score"].mean()
    np.testing.assert_allclose(est["A"] - est["B"], middle["A"] - middle["B"], rtol=1e-12)
    assert any("every score of 'Acrobot' is below every score of 'Far'" in n for n in res.notes), res.notes


def test_bootstraps_iqm_of_tasks_on_ranges_apart_is_noted():
    """The same caution where rlstats.bootstrap's metrics hold the IQM (its default), not where they do not."""
    last = _offset_tasks().query("step == 4")
    with pytest.warns(rlstats.errors.RlstatsWarning, match="ranges apart"):
        res = rlstats.bootstrap(last, "score ~ agent | task/seed", n_resamples=200, rng=0, progress=False)
    assert any("every score of 'Acrobot' is below every score of 'CartPole'" in n for n in res.notes), res.notes
    mean = rlstats.bootstrap(last, "score ~ agent | task/seed", metrics=["mean"], n_resamples=200, rng=0,
                             progress=False)
    assert not any("ranges apart" in n for n in mean.notes)


def test_curves_iqm_on_the_sb3_logs_notes_the_tasks_ranges(sb3):
    """The SB3 logs themselves (A2C and PPO on CartPole-v1 and Acrobot-v1): the sign of the IQM's difference at step
    5k flips with the scale (+8.4 raw, -33.3 normalised x 500), and the result says why its raw IQM is not to be
    read."""
    df = sb3[sb3["agent"] != "DQN"]
    with pytest.warns(rlstats.errors.RlstatsWarning, match="ranges apart"):
        raw = rlstats.curves(df, "score ~ agent | task/seed", step="step", steps=[5000, 10000], n_resamples=200,
                             rng=0, progress=False)
    reference = pd.DataFrame({"task": ["CartPole-v1", "Acrobot-v1"], "low": [0.0, -500.0], "high": [500.0, 0.0]})
    scaled = rlstats.curves(df, "score ~ agent | task/seed", step="step", steps=[5000, 10000], n_resamples=200,
                            rng=0, progress=False, normalize={"reference": reference, "low": "low", "high": "high"})
    r, s = (x.tidy().set_index(["agent", "step"])["estimate"] for x in (raw, scaled))
    # the IQM written here (scipy's 25% trimmed mean of every run of both tasks at step 5k, raw and on the ranges)
    from scipy.stats import trim_mean

    at = df[df["step"] == 5000]
    low = at["task"].astype(str).map({"CartPole-v1": 0.0, "Acrobot-v1": -500.0})
    raw_iqm = at.groupby("agent", observed=True)["score"].apply(lambda x: trim_mean(x, 0.25))
    scaled_iqm = ((at["score"] - low) / 500).groupby(at["agent"], observed=True).apply(lambda x: trim_mean(x, 0.25))
    assert r["A2C", 5000] - r["PPO", 5000] == pytest.approx(raw_iqm["A2C"] - raw_iqm["PPO"], rel=1e-9)
    assert s["A2C", 5000] - s["PPO", 5000] == pytest.approx(scaled_iqm["A2C"] - scaled_iqm["PPO"], rel=1e-9)
    assert r["A2C", 5000] - r["PPO", 5000] == pytest.approx(8.4, abs=1e-3)
    assert 500 * (s["A2C", 5000] - s["PPO", 5000]) == pytest.approx(-33.3, abs=1e-3)
    assert any("every score of 'Acrobot-v1' is below every score of 'CartPole-v1'" in n for n in raw.notes)


# ------------------------------------------------------------------------------------------- adjust / adjustment

@pytest.mark.parametrize("function, given, right", [("mixed", "adjustment", "adjust"),
                                                    ("skillings_mack", "adjust", "adjustment"),
                                                    ("task_table", "adjust", "adjustment")])
def test_the_other_spelling_of_the_adjustment_names_the_right_option(function, given, right):
    """rlstats.mixed takes adjust= (emmeans' name), the rank test and the task table adjustment=: the other spelling
    was Python's TypeError ("unexpected keyword argument"), through compare() an error listing every option.  Both
    name the option this function takes."""
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, rng=0)
    with pytest.raises(rlstats.errors.OptionError, match=re.escape(f"{right}='holm'")):
        getattr(rlstats, function)(df, "score ~ agent | task", **{given: "holm"})
    with pytest.raises(rlstats.errors.OptionError, match=re.escape(f"{right}='holm'")):
        rlstats.compare(df, "score ~ agent | task", method=function, **{given: "holm"})
