"""Audit s15, as a user of ``rlstats.read_logs`` and ``rlstats.curves`` on real training logs: the Stable-Baselines3
logs of ``../shared/data/logs/sb3_classic`` read as evaluations.npz, TensorBoard events and monitor.csv (each checked
against numpy's own reading of the files), marl-eval's published JSON (each metric's mean checked by hand), the
Dopamine and Spinning Up curves through the mirror, and written logs with the hard cases of real training: runs of
different lengths, steps not aligned across runs, resumed runs with overlapping segments, NaN and inf values, one run,
duplicate steps, a tag present in some runs only, rows shuffled and scores rescaled or shifted. Each sentence of the
print, summary, tidy frame, LaTeX and notes was read against the rows analysed, and the figures saved at a column's
size and looked at. Each test is a minimal reproducer of one defect found; its docstring gives what was seen."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

import rlstats


def _write(root, files):
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _read(root, **options):
    return rlstats.read_logs(root, "{agent}/{task}/seed_{seed}", progress=False, **options)


PROGRESS = "time/total_timesteps,eval/mean_reward\n"


def test_a_nan_logged_in_a_progress_csv_is_kept_as_a_row(tmp_path):
    """SB3's logger writes a diverged evaluation as ``nan`` and a key not logged at a dump as an empty cell. Both were
    read as "not logged": the row at step 2,000 whose score is ``nan`` vanished without a note (the frame held steps
    1,000 and 3,000 only), where the same NaN written to a TensorBoard file is kept as a row. Then ``curves(...,
    align="last")`` filled step 2,000 with the value of step 1,000 without a word, where a NaN row would be an error
    (or, with na_action="drop", a grid step not read). A written NaN is now a row, and the notes count it."""
    _write(tmp_path, {"a/t/seed_0/progress.csv": PROGRESS + "1000,1.0\n2000,nan\n3000,3.0\n4000,\n",
                      "a/t/seed_1/progress.csv": PROGRESS + "1000,1.0\n2000,2.0\n3000,3.0\n4000,\n"})
    frame = _read(tmp_path)
    run = frame[frame["seed"] == 0]
    assert run["step"].tolist() == [1000, 2000, 3000]          # the empty cells at 4,000 are values not logged
    assert np.isnan(run["eval/mean_reward"].iloc[1])
    assert any("1 value of 'eval/mean_reward' is NaN" in note for note in frame.attrs["rlstats_notes"])
    with pytest.raises(rlstats.DesignError, match="missing value"):  # not filled from step 1,000 by align="last"
        rlstats.curves(frame, "`eval/mean_reward` ~ agent | task/seed", step="step", n_resamples=20, rng=0)


def test_a_nan_logged_in_json_lines_is_kept_as_a_row(tmp_path):
    """A JSON-lines logger that writes ``"eval/return": NaN`` logged the key at step 2: the row was dropped without a
    note (an absent key, which is a value not logged, reads the same), so the run seemed logged at steps 1 and 3."""
    _write(tmp_path, {"a/t/seed_0/log.jsonl": '{"step": 1, "eval/return": 1.0}\n{"step": 2, "eval/return": NaN}\n'
                                              '{"step": 3, "eval/return": 3.0}\n{"step": 4, "train/loss": 0.5}\n'})
    frame = _read(tmp_path)
    assert frame["step"].tolist() == [1, 2, 3]
    assert np.isnan(frame["eval/return"].iloc[1])


def test_a_nan_episode_return_in_a_monitor_csv_is_kept(tmp_path):
    """A monitor.csv row is an episode: one whose return ``r`` is ``nan`` was dropped (its length still counted in
    the steps of the next), so the run had 2 episodes of 3 and no note said so."""
    header = '#{"t_start": 100.0, "env_id": "CartPole-v1"}\nr,l,t\n'
    _write(tmp_path, {"a/CartPole-v1/seed_0/0.monitor.csv": header + "10.0,10,1.0\nnan,20,2.0\n30.0,30,3.0\n"})
    frame = _read(tmp_path)
    assert frame["step"].tolist() == [10, 30, 60]
    assert np.isnan(frame["r"].iloc[1])


def _tensorboard_run(folder, steps, values, start):
    from tensorboardX import SummaryWriter

    with SummaryWriter(str(folder)) as writer:
        for step, value in zip(steps, values):
            writer.add_scalar("eval/mean_reward", value, step, walltime=start + step / 1000)


def test_a_rerun_is_named_with_a_subset_that_keeps_the_other_runs(tmp_path):
    """SB3 run 0 was started again from step 0 in its folder (``tb/PPO_1``, then ``tb/PPO_2`` killed at 15,000):
    read_logs reads the two attempts as two runs told apart by its ``attempt`` column, every run labelled with the
    folder it began in. Its note advised ``subset="attempt == 'PPO_2'"``, which keeps run 0's second attempt and
    drops seeds 1 and 2 (their attempt is 'PPO_1'): 1 run of 3. curves() refused the two runs with one seed, but
    advised ``df.drop_duplicates(['agent', 'task', 'seed', 'step'], keep='last')``, which keeps PPO_2's values to
    15,000 and PPO_1's after: one curve of two trainings, the merge read_logs warns against. Both now name the
    attempts and advise a subset that drops the run's other attempts alone; applied, it leaves 3 runs."""
    pytest.importorskip("tensorboardX")
    for seed in (0, 1, 2):
        _tensorboard_run(tmp_path / f"ppo/cp/seed_{seed}/tb/PPO_1", range(0, 30001, 5000), range(7), 1000)
    _tensorboard_run(tmp_path / "ppo/cp/seed_0/tb/PPO_2", range(0, 15001, 5000), range(50, 54), 5000)
    frame = _read(tmp_path, tags={"eval/mean_reward": "score"})
    assert sorted(frame["attempt"].unique()) == ["PPO_1", "PPO_2"]
    advice = "subset=\"~(agent == 'ppo' & task == 'cp' & seed == 0 & attempt != 'PPO_2')\""
    assert any(advice in note for note in frame.attrs["rlstats_notes"])
    with pytest.raises(rlstats.DesignError) as error:
        rlstats.curves(frame, "score ~ agent | task/seed", step="step", n_resamples=20, rng=0)
    assert "drop_duplicates" not in str(error.value)
    assert "'PPO_1' and 'PPO_2'" in str(error.value) and advice in str(error.value)
    kept = frame.query(advice[len('subset="'):-1].replace("~", "not "))
    assert sorted(map(tuple, kept[["seed", "attempt"]].drop_duplicates().values)) == [
        (0, "PPO_2"), (1, "PPO_1"), (2, "PPO_1")]
    res = rlstats.curves(frame, "score ~ agent | task/seed", step="step", subset=advice[len('subset="'):-1],
                         n_resamples=20, bands="expanded", rng=0)
    assert res.counts.tolist() == [[3]]


def _early_ending_curves():
    """Two agents on three tasks, 4 runs each, all logged every 1,000 steps to 10,000 but three of A's runs on t1,
    which stop at 6,000 (killed): from 7,000 on, t1 has one run of A."""
    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, step, step / 1000 + rng.gamma(2) + (agent == "B"))
            for agent in "AB" for task in ("t1", "t2", "t3") for seed in range(4)
            for step in range(0, (6000 if agent == "A" and task == "t1" and seed else 10000) + 1, 1000)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_the_figure_says_where_a_band_is_withheld_at_some_steps():
    """A's bands are withheld at 7k to 10k (one run of t1 logged there), which a note says; but the figure's legend
    read "IQM per step, 95% simultaneous bands" over a band that stops at 6k while A's curve goes on: only a band
    withheld at every step was named in the figure. It is now named with the steps it lacks."""
    res = rlstats.curves(_early_ending_curves(), "score ~ agent | task/seed", step="step", n_resamples=200, rng=0)
    assert np.isnan(res.simultaneous[0, 7:]).all() and np.isfinite(res.simultaneous[0, :7]).all()
    assert np.isfinite(res.simultaneous[1]).all()
    ax = res.plot()
    title = ax.get_legend().get_title().get_text()
    assert title == "IQM per step, 95% simultaneous bands\n(withheld for A at 4 steps: see the notes)"
    import matplotlib.pyplot as plt
    plt.close(ax.figure)


def test_steps_without_runs_are_not_said_to_sit_at_a_cap():
    """``steps=range(0, 12001, 1000)`` past the runs' last step (10k): the notes said that no run is logged at 11k
    and 12k, and also that the bands of A and B "are withheld ... at 2 steps (11k to 12k): there three quarters or
    more of the agent's runs sit at a task's largest or smallest score (a cap often reached)": 0 runs of 0 passed
    the rule. The cap's note is now of steps with runs logged, and here there is none."""
    frame = _early_ending_curves()
    res = rlstats.curves(frame, "score ~ agent | task/seed", step="step", n_resamples=100, rng=0,
                         steps=range(0, 12001, 1000))
    assert any("no run is logged at 2 steps (11k to 12k" in note for note in res.notes)
    assert not any("a cap often reached" in note for note in res.notes)


def test_p_value_of_compared_curves_says_where_the_p_values_are():
    """``res.p_value`` of curves compared with ``compare="all"`` raised "CurvesResult has no single p-value: it
    reports no p-value", though the result holds a max-T adjusted p-value per pair and step (``difference_pvalues``,
    the ``p_adjusted`` column of ``res.difference(a, b)``). The error now says where they are."""
    res = rlstats.curves(_early_ending_curves(), "score ~ agent | task/seed", step="step", n_resamples=50, rng=0,
                         compare="all", bands="expanded")
    # from 7k on t1 has one run of A: its comparisons are withheld there as its bands are (audit s27 curvecmp27)
    assert res.difference("A", "B")["p_adjusted"].notna().tolist() == [True] * 7 + [False] * 4
    with pytest.raises(AttributeError, match=r"difference_pvalues.*p_adjusted column of res\.difference"):
        res.p_value
    alone = rlstats.curves(_early_ending_curves(), "score ~ agent | task/seed", step="step", n_resamples=50, rng=0,
                           bands="expanded")
    with pytest.raises(AttributeError, match="it reports no p-value"):
        alone.p_value


WANDB = ("Step,ppo-hopper-1 - eval/return,ppo-hopper-1 - train/loss,ppo-hopper-2 - eval/return,"
         "ppo-hopper-2 - train/loss,sac-hopper-1 - eval/return\n0,1,0.5,2,0.4,3\n100,2,0.5,3,0.4,4\n")


def test_a_run_lacking_a_tag_in_a_file_of_several_runs_is_named(tmp_path):
    """A W&B chart export holds three runs; ``sac-hopper-1`` logs no ``train/loss``. The error read "1 of 1 CSV files
    ... could not be used: export.csv: missing tag: no values of 'train/loss'", naming neither the run nor that the
    two others were read, and with on_error="skip" it warned "skipped 1 of 1 CSV files" over a frame holding those
    two runs of that file. The run is now named and counted as a run."""
    _write(tmp_path, {"export.csv": WANDB})
    with pytest.raises(rlstats.LogReadError) as error:
        rlstats.read_logs(tmp_path, "{agent}-{task}-{seed}", tags=["eval/return", "train/loss"], progress=False)
    assert "export.csv: run 'sac-hopper-1': missing tag: no values of 'train/loss'" in str(error.value)
    assert str(error.value).startswith("1 run that lacks a requested tag, in the CSV file under ")
    assert "1 of 1 CSV files" not in str(error.value)
    with pytest.warns(rlstats.errors.RlstatsWarning) as warned:
        frame = rlstats.read_logs(tmp_path, "{agent}-{task}-{seed}", tags=["eval/return", "train/loss"],
                                  on_error="skip", progress=False)
    assert sorted(frame["agent"] + frame["seed"].astype(str)) == ["ppo1", "ppo1", "ppo2", "ppo2"]
    assert str(warned[0].message).startswith("skipped 1 run that lacks a requested tag, in the CSV file (")
    assert "1 of 1 CSV files" not in str(warned[0].message)


def test_read_wandb_counts_values_logged_as_nan():
    """Through W&B's public API (the stub of tests/test_logs.py), a run's ``eval/return`` logged as NaN at step 1 is
    a row holding NaN, as read_logs keeps it, but no note said so where read_logs' notes now count them."""
    from test_logs import StubApi, StubRun

    history = [{"_step": i, "_timestamp": 1000.0 + i, "eval/return": value}
               for i, value in enumerate([1.0, float("nan"), 3.0])]
    frame = rlstats.read_wandb("me/proj", keys="eval/return", api=StubApi([StubRun("id1", "run-1", {}, history)]),
                               progress=False)
    assert frame["step"].tolist() == [0, 1, 2] and np.isnan(frame["eval/return"].iloc[1])
    assert any("1 value of 'eval/return' is NaN" in note for note in frame.attrs["rlstats_notes"])


def test_studentised_bands_are_withheld_where_a_task_has_two_runs_logged():
    """A's runs on t1: 4, two of them killed at 6k, so from 7k on t1 has 2 runs of A logged (t2 and t3: 4). curves()
    withholds the studentised bands of an agent with 2 runs of a task ("no band simulated at 2 runs per task held its
    level"), but read that rule on the design's runs alone: at 7k-10k A's bands were given (e.g. 8.03, 6.59 to 9.47
    at 7k), from 2 runs of t1. They are now withheld there, and a note names the steps, as where one run is logged."""
    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, step, step / 1000 + rng.gamma(2) + (agent == "B"))
            for agent in "AB" for task in ("t1", "t2", "t3") for seed in range(4)
            for step in range(0, (6000 if agent == "A" and task == "t1" and seed >= 2 else 10000) + 1, 1000)]
    res = rlstats.curves(pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"]),
                         "score ~ agent | task/seed", step="step", n_resamples=200, rng=0)
    assert np.isfinite(res.simultaneous[0, :7]).all() and np.isfinite(res.simultaneous[1]).all()
    assert np.isnan(res.simultaneous[0, 7:]).all() and np.isnan(res.pointwise[0, 7:]).all()
    assert any("A at 4 steps (7k to 10k), where t1 has 2 runs logged" in note for note in res.notes)
