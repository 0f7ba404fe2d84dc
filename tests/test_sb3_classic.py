"""The real case end to end, as ``vignettes/sb3_logs_to_paper.py`` runs it: the Stable-Baselines3 logs of
``../shared/data/logs/sb3_classic`` (PPO and A2C on CartPole-v1 and Acrobot-v1, DQN on CartPole-v1 only, 3 seeds)
from folder to curves, run summaries and the task table.

Every number is checked against one computed here without rlstats' readers: the ``evaluations.npz`` arrays and
``monitor.csv`` files opened with numpy and pandas, means and standard deviations by a pandas groupby, IQMs by
``scipy.stats.trim_mean``. Skipped, with the reason, when ``../shared`` is not beside the repository.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from conftest import SHARED_DATA
from rlstats.design import NOTES_ATTR

LOGS = SHARED_DATA / "logs" / "sb3_classic"
PATTERN = "{agent}/{task}/seed_{seed}"
FORMULA = "score ~ agent | task/seed"
RUN = ["agent", "task", "seed"]


@pytest.fixture(scope="module")
def logs():
    if not LOGS.is_dir():
        pytest.skip(f"the real SB3 logs are not at {LOGS} (../shared/data/logs/sb3_classic beside the repository)")
    return LOGS


def _runs(root):
    """(agent, task, seed, run folder) of every run, from the folder names alone."""
    for folder in sorted(Path(root).glob("*/*/seed_*")):
        yield folder.parts[-3], folder.parts[-2], int(folder.name.removeprefix("seed_")), folder


@pytest.fixture(scope="module")
def by_hand(logs):
    """One row per evaluation from evaluations.npz with numpy: the mean over its episodes."""
    rows = []
    for agent, task, seed, folder in _runs(logs):
        with np.load(folder / "evaluations.npz", allow_pickle=False) as archive:
            for step, returns in zip(archive["timesteps"].tolist(), archive["results"]):
                rows.append((agent, task, seed, step, float(np.mean(returns))))
    return pd.DataFrame(rows, columns=[*RUN, "step", "score"])


@pytest.fixture(scope="module")
def evaluations(logs):
    return rlstats.read_logs(logs, PATTERN, format="sb3_eval", tags={"eval/mean_reward": "score"}, progress=False)


def test_evaluations_are_the_npz_means_and_every_file_is_accounted_for(evaluations, by_hand):
    assert len(evaluations) == len(by_hand) == 72
    both = evaluations.merge(by_hand, on=[*RUN, "step"], suffixes=("", "_by_hand"), validate="1:1")
    assert len(both) == 72
    np.testing.assert_allclose(both["score"], both["score_by_hand"], rtol=1e-14)
    log = evaluations.attrs["read_log"]
    assert len(log.files) == 15 and log.ok and not log.ignored and not log.ended_early and not log.segments
    assert evaluations.attrs[NOTES_ATTR][0].startswith("read 15 runs from 15 Stable-Baselines3 EvalCallback "
                                                       "evaluations.npz files")


def test_default_curves_name_dqn_and_acrobot_and_the_ways_out_give_finite_curves(evaluations, by_hand):
    with pytest.raises(rlstats.DesignError, match="agent 'DQN' on task 'Acrobot-v1'"):
        rlstats.curves(evaluations, FORMULA, step="step", n_resamples=100, rng=0)
    # 3 seeds per task: the default studentised bands are withheld (at 1 task below 4 runs, by design), and the note
    # names the way to finite bands, bands="expanded", whose own notes then quote their measured coverage
    default = rlstats.curves(evaluations, FORMULA, step="step", na_action="drop", n_resamples=100, rng=0)
    assert np.isfinite(default.estimates).all() and np.isnan(default.simultaneous).all()
    assert any("withheld" in n and 'pass bands="expanded"' in n for n in default.notes)
    dropped = rlstats.curves(evaluations, FORMULA, step="step", na_action="drop", n_resamples=100, rng=0,
                             bands="expanded")
    others = rlstats.curves(evaluations, FORMULA, step="step", subset="agent != 'DQN'", n_resamples=100, rng=0,
                            bands="expanded")
    assert dropped.agents == ("A2C", "DQN", "PPO") and others.agents == ("A2C", "PPO")
    # one task (DQN's runs on CartPole-v1 only): the 1-task rows of the expanded bands at 3 runs miss, and are quoted;
    # two tasks read the 2-task rows since audit s27 (curves27; the 1- and 5-task rows before, the 1-task one quoted),
    # where the IQM's expanded bands at 3 runs hold (0.950-0.994 simultaneous of 120-480), so nothing is quoted
    measured = [[n for n in res.notes if n.startswith("measured coverage of the simultaneous band of the IQM")]
                for res in (dropped, others)]
    assert len(measured[0]) == 1 and "below 0.95" in measured[0][0] and measured[1] == []
    for res, tasks in ((dropped, ["CartPole-v1"]), (others, ["Acrobot-v1", "CartPole-v1"])):
        # every agent with runs gets a finite curve, on the 4 evaluations every agent reaches on every task
        assert res.steps.tolist() == [5_000, 10_000, 15_000, 20_000]
        assert np.isfinite(res.estimates).all() and np.isfinite(res.simultaneous).all()
        for j, agent in enumerate(res.agents):
            for k, step in enumerate(res.steps):
                runs = by_hand[(by_hand["agent"] == agent) & by_hand["task"].isin(tasks) & (by_hand["step"] == step)]
                assert len(runs) == 3 * len(tasks)
                assert res.estimates[j, k] == pytest.approx(stats.trim_mean(runs["score"], 0.25), rel=1e-12)
    printed = str(dropped)
    assert "Acrobot-v1" in printed and "6 runs dropped" in printed and "NaN" not in printed
    assert "the runs of DQN on CartPole-v1 stop at 20k" in printed and "CartPole-v1 (5k to 30k)" in printed


def test_final_evaluations_and_the_table_equal_a_pandas_groupby(evaluations, by_hand):
    final = rlstats.summarize_runs(evaluations, FORMULA, step="step")
    last = by_hand.sort_values("step").groupby(RUN)["score"].last()
    assert final.set_index(RUN)["score"].sort_index().to_dict() == pytest.approx(last.sort_index().to_dict(),
                                                                                  rel=1e-14)
    assert final["seed"].dtype == np.int64
    note = final.attrs[NOTES_ATTR][-1]
    assert "runs end between steps 20k and 30k" in note and "agent 'DQN' on task 'CartPole-v1' at 20k" in note

    table = rlstats.task_table(final, FORMULA)
    cells = last.groupby(["task", "agent"]).agg(["mean", "std", "size"])  # std: ddof=1, as the table's
    assert table.tasks == ("Acrobot-v1", "CartPole-v1") and table.agents == ("A2C", "DQN", "PPO")
    for t, task in enumerate(table.tasks):
        for j, agent in enumerate(table.agents):
            if (task, agent) not in cells.index:  # DQN on Acrobot: no runs, an empty cell
                assert (task, agent) == ("Acrobot-v1", "DQN")
                assert np.isnan(table.estimates[t, j]) and table.counts[t, j] == 0
                continue
            mean, std, size = cells.loc[(task, agent)]
            assert table.counts[t, j] == size == 3
            assert table.estimates[t, j] == pytest.approx(mean, rel=1e-12)
            assert table.std_dev[t, j] == pytest.approx(std, rel=1e-12, abs=1e-12)
    assert table.estimates[0, 0] == pytest.approx((-500.0 - 89.8 - 177.4) / 3)  # A2C on Acrobot, by hand
    assert [table.agents[b] for b in table.best] == ["A2C", "A2C"]
    latex = table.to_latex()
    for t, j in ((0, 0), (0, 2), (1, 0), (1, 1), (1, 2)):
        # -256, -500, 382, 8.87, 337, a sign set as a minus ($-$256: audit s24 small24)
        assert rlstats.format.latex_escape(format(table.estimates[t, j], ".3g")) in latex


def test_monitor_episodes_smoothed_as_by_pandas_give_finite_training_curves(logs):
    episodes = rlstats.read_logs(logs, PATTERN, format="sb3_monitor", tags={"r": "score"}, smooth=100,
                                 progress=False)
    final = rlstats.summarize_runs(episodes, FORMULA, step="step")
    # By hand: a run's episodes from all its monitor files in the order they ended (each file's t counts from the
    # t_start of its header); the smoothed value at its last episode is the mean of its last 100 returns, at the
    # sum of all episode lengths.
    expected = {}
    for agent, task, seed, folder in _runs(logs):
        files = []
        for path in sorted(folder.glob("*.monitor.csv")):
            start = json.loads(path.read_text().splitlines()[0].removeprefix("#"))["t_start"]
            files.append(pd.read_csv(path, skiprows=1).assign(ended=lambda f, s=start: s + f["t"]))
        runs = pd.concat(files).sort_values("ended", kind="stable")
        expected[(agent, task, seed)] = (runs["r"].iloc[-100:].mean(), int(runs["l"].sum()))
    assert len(expected) == len(final) == 15
    for row in final.itertuples(index=False):
        assert row.score == pytest.approx(expected[(row.agent, row.task, row.seed)][0], rel=1e-12)
    ends = episodes.groupby(RUN)["step"].max()
    assert ends.to_dict() == {run: length for run, (_, length) in expected.items()}
    assert any(note.startswith("'score' smoothed: each value is the mean of its run's values logged over the last "
                               "100 episodes") for note in episodes.attrs[NOTES_ATTR])
    training = rlstats.curves(episodes, FORMULA, step="step", subset="task == 'CartPole-v1'", n_resamples=50, rng=0)
    assert training.agents == ("A2C", "DQN", "PPO") and np.isfinite(training.estimates).all()
    assert training.steps[-1] <= ends[("DQN", "CartPole-v1")].min()  # the grid stops where DQN's runs stop


def test_the_figure_at_column_width_has_its_legend_above_and_ticks_at_logged_steps(evaluations, logs):
    import matplotlib.pyplot as plt

    res = rlstats.curves(evaluations, FORMULA, step="step", na_action="drop", n_resamples=50, rng=0)
    fig, ax = plt.subplots(figsize=(3.3, 2.4), layout="constrained")
    res.plot(ax=ax)
    fig.draw_without_rendering()  # only tick and legend positions are read
    # 4 evaluations 5k apart: a tick at each, none between (the default locator put one every 2.5k)
    assert ax.get_xticks().tolist() == [5_000, 10_000, 15_000, 20_000]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["5k", "10k", "15k", "20k"]
    legend, frame = ax.get_legend(), ax.get_window_extent()
    box = legend.get_window_extent()
    assert box.y0 >= frame.y1 - 1 and box.x0 >= 0 and box.x1 <= fig.bbox.x1  # above the data, inside the figure
    assert [t.get_text() for t in legend.get_texts()] == ["A2C", "DQN", "PPO"]
    # 3 runs of one task: every band is withheld (the print says so), and the title does not claim one; the IQM of 3
    # runs trims nothing, and the y label says so (audit s33 msg33), the title not again (fig37)
    # the one task left named, and the one dropped (audit s34 marks34)
    assert legend.get_title().get_text().replace("\n", " ") == (
        "IQM per step, on the one task, CartPole-v1 (Acrobot-v1 dropped), 95% "
        "simultaneous bands withheld, see the notes")
    plt.close(fig)
    default = res.plot()  # its own figure, 4.5 in wide, where the default locator ticked every 2.5k
    default.figure.draw_without_rendering()
    assert default.get_xticks().tolist() == [5_000, 10_000, 15_000, 20_000]
    plt.close(default.figure)

    # A dense grid (smoothed monitor.csv episodes, a grid step every 10): round ticks, never closer than the grid.
    episodes = rlstats.read_logs(logs, PATTERN, format="sb3_monitor", tags={"r": "score"}, smooth=100,
                                 progress=False)
    training = rlstats.curves(episodes, FORMULA, step="step", subset="task == 'CartPole-v1'", n_resamples=20, rng=0)
    fig, ax = plt.subplots(figsize=(3.3, 2.4), layout="constrained")
    training.plot(ax=ax)
    fig.draw_without_rendering()  # only tick and legend positions are read
    low, high = ax.get_xlim()
    ticks = [t for t in ax.get_xticks() if low <= t <= high]
    assert ticks == [0, 5_000, 10_000, 15_000, 20_000] and training.steps.size > 1_000
    assert [t.get_text() for t in ax.get_xticklabels() if low <= t.get_position()[0] <= high] == [
        "0", "5k", "10k", "15k", "20k"]
    plt.close(fig)
