"""Audit s31 (trialfix31): a new user's trial on real data (fresh clone, ../shared/data)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import rlstats
from conftest import SHARED_DATA


def _curves_frame(runs_by_task, steps=4, ended=(), rng=0):
    """One agent's runs: ``runs_by_task`` {task: runs}, scores at ``steps`` steps; the runs ``ended`` ((task, seed))
    are logged at the first steps - 1 steps only."""
    generator = np.random.default_rng(rng)
    rows = []
    for task, runs in runs_by_task.items():
        for seed in range(runs):
            for step in range(steps):
                if (task, seed) in ended and step == steps - 1:
                    continue
                rows.append(("A", task, seed, step, float(generator.normal(10 * (task == "t1"), 3) + step)))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


# ---------------------------------------------------------------------------------------------------------- item 1
def test_curves_iqm_at_a_step_with_a_run_missing_is_the_iqm_of_the_runs_logged_there():
    """One task, 8 runs, one ended a step early: at the last step the IQM is that of the 7 runs logged there,
    scipy's trim_mean(x, 0.25) (1 run cut from each end) and rlstats.bootstrap's on the same rows; it was read with
    the 7 runs scaled to the agent's 8, 1.75 runs cut from each end (the trial's SAC: 11868 for 11883)."""
    frame = _curves_frame({"t0": 8}, ended={("t0", 0)})
    res = rlstats.curves(frame, "score ~ agent | task/seed", step="step", n_resamples=50, rng=0, progress=False)
    last = frame[frame.step == 3]
    assert len(last) == 7
    expected = scipy.stats.trim_mean(last.score.to_numpy(), 0.25)
    assert res.estimates[0, -1] == pytest.approx(expected, rel=1e-12)
    boot = rlstats.bootstrap(last, "score ~ agent | task/seed", metrics=["iqm"], n_resamples=50, rng=0,
                             progress=False)
    assert boot.estimates[0, 0] == pytest.approx(expected, rel=1e-12)
    # a statistic of the rows at the step: the run that ended early, dropped altogether, changes nothing there
    alone = rlstats.curves(frame[frame.seed != 0], "score ~ agent | task/seed", step="step", n_resamples=50, rng=0,
                           progress=False)
    assert alone.estimates[0, -1] == pytest.approx(expected, rel=1e-12)
    # by hand: the 7 sorted, the lowest and the highest cut
    assert expected == pytest.approx(np.sort(last.score.to_numpy())[1:-1].mean(), rel=1e-12)
    # one task: no note that the IQM "weighs each task alike"
    assert not any("weighs each task alike" in n for n in res.notes)


def test_curves_iqm_of_unequal_tasks_at_a_step_is_bootstraps_on_the_same_rows():
    """Two tasks of 5 and 3 runs, one run of the first ended early: at the last step (4 and 3 runs logged) the IQM
    weighs each task alike as rlstats.bootstrap does on those rows: each run c_max / c_t = 4/4 and 4/3 copies of a
    total T c_max = 8, floor(8 / 4) = 2 copies cut from each end (by hand below); at the other steps (5 and 3) it is
    bootstrap's on theirs (c_max 5: a total of 10, 2 cut)."""
    frame = _curves_frame({"t0": 5, "t1": 3}, ended={("t0", 0)}, rng=1)
    res = rlstats.curves(frame, "score ~ agent | task/seed", step="step", n_resamples=50, rng=0, progress=False)
    for step in range(4):
        rows = frame[frame.step == step]
        boot = rlstats.bootstrap(rows, "score ~ agent | task/seed", metrics=["iqm"], n_resamples=50, rng=0,
                                 progress=False)
        assert res.estimates[0, step] == pytest.approx(boot.estimates[0, 0], rel=1e-12)
    last = frame[frame.step == 3]
    values = last.score.to_numpy()
    weights = np.where(last.task == "t0", 4 / 4, 4 / 3)
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    kept = np.clip(cumulative, 2, 6) - np.clip(np.r_[0, cumulative[:-1]], 2, 6)  # copies inside (2, 6]
    assert res.estimates[0, -1] == pytest.approx((kept * values[order]).sum() / 4, rel=1e-12)


def test_trial_spinningup_sac_iqm_at_2m(mirror):
    # the mirror fixture points the loader at ../shared/data/raw (or RLSTATS_DATA_MIRROR) with downloads forbidden,
    # and skips without one (audit s35: with RLSTATS_DATA_MIRROR unset the loader tried to download and failed)
    """The trial's call: SAC's 8 seeds on HalfCheetah from 1.9M, one of whose rows at 1.99M-2M is missing (dropped):
    the IQM at 2M is the 7 logged runs' trim_mean, 11883.1 (printed 11868 before)."""
    c = rlstats.datasets.load("spinningup_halfcheetah")
    c = c[(c.agent == "SAC") & (c.seed < 8) & (c.step >= 1900000)]
    res = rlstats.curves(c, "score ~ agent | task/seed", step="step", na_action="drop", n_resamples=50, rng=0,
                         progress=False)
    last = c[c.step == 2000000].dropna(subset=["score"]).score.to_numpy()
    assert last.size == 7
    assert res.estimates[0, -1] == pytest.approx(scipy.stats.trim_mean(last, 0.25), rel=1e-12)
    assert res.estimates[0, -1] == pytest.approx(11883.123, abs=1e-3)


# ---------------------------------------------------------------------------------------------------------- item 2
def _incomplete_three_agents(rng=0):
    """3 agents, 3 runs a cell; agent B never ran t0: 20 x 1,680 = 33,600 within-task arrangements, the SB3 logs'."""
    generator = np.random.default_rng(rng)
    rows = [(agent, task, seed, float(generator.normal(shift)))
            for task in ("t0", "t1") for agent, shift in (("A", 0.0), ("B", 1.0), ("C", 2.0))
            for seed in range(3) if not (task == "t0" and agent == "B")]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_rank_test_auto_enumerates_a_small_incomplete_design():
    """pvalue="auto" enumerated at most 20,000 arrangements (AUTO_EXACT_LIMIT) and took chi-squared at 33,600, saying
    the approximation "holds for this design" (SB3: 0.03079 for the exact 0.008333); pvalue="exact" enumerates up to
    200,000 in milliseconds (33,600: 6 ms; 46,656 of 3 agents on 6 tasks: 14 ms, 4 MiB): auto now takes it there."""
    from rlstats.methods.skillings_mack import _kernels

    frame = _incomplete_three_agents()
    assert _kernels.design_relabellings(np.array([[3, 0, 3], [3, 3, 3]])) == 33_600
    auto = rlstats.compare(frame, "score ~ agent | task", progress=False)
    exact = rlstats.compare(frame, "score ~ agent | task", pvalue="exact", progress=False)
    assert auto.pvalue_method == "exact"
    assert auto.pvalue == pytest.approx(exact.pvalue, rel=1e-12)
    assert "200,000" in auto.pvalue_rule and "holds" not in auto.pvalue_rule
    # beyond the limit the reason names it and says what the chi-squared's size was measured at, not that it holds
    wide = pd.concat([frame.assign(task=frame.task + suffix) for suffix in ("a", "b")])
    chi = rlstats.compare(wide, "score ~ agent | task", progress=False)
    assert chi.pvalue_method == "asymptotic"
    assert "more than 200,000" in chi.pvalue_rule and "holds" not in chi.pvalue_rule


def test_trial_sb3_rank_test_auto_is_exact():
    logs = SHARED_DATA / "logs" / "sb3_classic"
    if not logs.is_dir():
        pytest.skip(f"the real SB3 logs are not at {logs} (../shared/data/logs/sb3_classic beside the repository)")
    d = rlstats.read_logs(logs, "{agent}/{task}/seed_{seed}", format="sb3_eval", progress=False)
    last = d.sort_values("step").groupby(["agent", "task", "seed"]).tail(1)
    res = rlstats.compare(last, "`eval/mean_reward` ~ agent | task", progress=False)
    assert res.pvalue_method == "exact"
    assert res.pvalue == pytest.approx(1 / 120, rel=1e-9)  # 0.008333; chi-squared 0.03079


# ---------------------------------------------------------------------------------------------------------- item 3
def test_bootstrap_weighting_note_gives_each_agent_its_range_of_runs():
    """DER has 4 and 5 runs on its two tasks, SPR 1 and 5: the note said "DER, SPR: runs per task differ (1 to 5)",
    false of DER; each agent (or agents of one range) now gets its own."""
    generator = np.random.default_rng(0)
    runs = {("DER", "t0"): 4, ("DER", "t1"): 5, ("SPR", "t0"): 1, ("SPR", "t1"): 5, ("X", "t0"): 3, ("X", "t1"): 3}
    frame = pd.DataFrame([(agent, task, seed, float(generator.normal())) for (agent, task), n in runs.items()
                          for seed in range(n)], columns=["agent", "task", "seed", "score"])
    res = rlstats.bootstrap(frame, "score ~ agent | task", metrics=["iqm"], n_resamples=50, rng=0, progress=False)
    note, = res.weighting_notes
    assert note.startswith("DER (4 to 5); SPR (1 to 5): runs per task differ, so the IQM weighs each task alike")
    # agents of one range are named together, as before
    same = pd.concat([frame[frame.agent == "DER"], frame[frame.agent == "DER"].assign(agent="DER2")])
    res = rlstats.bootstrap(same, "score ~ agent | task", metrics=["iqm"], n_resamples=50, rng=0, progress=False)
    assert res.weighting_notes[0].startswith("DER, DER2: runs per task differ (4 to 5), so the IQM")


# ---------------------------------------------------------------------------------------------------------- item 6
def test_task_table_print_and_summary_say_what_plus_minus_is():
    frame = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0)
    res = rlstats.task_table(frame, "score ~ agent | task", progress=False)
    key = "\u00b1: the standard deviation of the runs of the agent on the task (over 3 runs)"
    assert key in str(res)
    assert str(res.summary()).count(key) == 2  # the print's key and the table's
    assert "Mean \u00b1 standard deviation" in res.to_markdown()  # as the captions said already
    assert res.std_dev[0, 0] == pytest.approx(np.std(frame[(frame.agent == res.agents[0]) & (
        frame.task == res.tasks[0])].score, ddof=1), rel=1e-12)


# ---------------------------------------------------------------------------------------------------------- item 7
def test_curves_without_a_run_column_names_only_the_run_column(tmp_path, capsys):
    """`rlstats compare mon.csv "r ~ agent | task" --summarize last_k_mean`: the step column is there (--step's
    default), only /seed is missing from the formula; the error named both."""
    from rlstats.cli import main

    frame = _curves_frame({"t0": 3, "t1": 3}).rename(columns={"score": "r"})
    frame = pd.concat([frame, frame.assign(agent="B")])
    path = tmp_path / "mon.csv"
    frame.to_csv(path, index=False)
    assert main(["compare", str(path), "r ~ agent | task", "--summarize", "last_k_mean"]) == 2
    assert capsys.readouterr().err.strip() == (
        "rlstats: error: learning curves need the run column in the formula, e.g. 'r ~ agent | task/seed' if task "
        "names the tasks, or 'r ~ agent | env/task' if it names the runs, so that each run's steps stay together")
    with pytest.raises(rlstats.DesignError) as caught:
        rlstats.summarize_runs(frame, "r ~ agent | task", step="step")
    message = str(caught.value)
    assert message.startswith("learning curves need the run column in the formula, e.g. 'r ~ agent | task/seed'")
    assert "step column" not in message


# ---------------------------------------------------------------------------------------------------------- item 8
def test_marl_eval_json_under_another_name_is_found_by_name_only(tmp_path):
    """Formats are found by the files' names, never by reading them (the docstring says so): a marl-eval file under
    another name than metrics.json is refused with the way on, format="marl_eval", which reads it."""
    layout = {"env": {"task_1": {"algo_1": {"42": {"STEP_1": {"step_count": 10, "return": [1.0, 3.0]},
                                                   "STEP_2": {"step_count": 20, "return": [2.0, 6.0]}}}}}}
    path = tmp_path / "mock_data_test.json"
    path.write_text(__import__("json").dumps(layout))
    with pytest.raises(rlstats.LogReadError, match="format='marl_eval' reads any .json file"):
        rlstats.read_logs(path, progress=False)
    runs = rlstats.read_logs(path, format="marl_eval", progress=False)
    assert runs["return"].tolist() == [2.0, 4.0] and runs["step"].tolist() == [10, 20]
    assert "never by reading them" in rlstats.read_logs.__doc__


def test_trial_marl_eval_sample_reads_with_format_named():
    from conftest import data_mirror

    root = data_mirror()
    found = sorted(root.glob("instadeepai/marl-eval/*/tests/mock_data_test.json")) if root is not None else []
    if not found:
        pytest.skip("marl-eval's mock_data_test.json is not in the data mirror (RLSTATS_DATA_MIRROR or "
                    "../shared/data/raw)")
    with pytest.raises(rlstats.LogReadError, match="format='marl_eval'"):
        rlstats.read_logs(found[0], progress=False)
    runs = rlstats.read_logs(found[0], format="marl_eval", progress=False)
    assert set(runs.columns) >= {"agent", "task", "seed", "environment", "step"} and len(runs) > 0


# ---------------------------------------------------------------------------------------------------------- item 9
def test_curves_withholds_the_bands_of_an_agent_with_a_task_of_one_run():
    """Rainbow has one run on Pong (3 on Breakout), DQN 3 and 3: curves refused the call ("cannot be computed in 1
    cell (Pong/Rainbow)"), where bootstrap, probability_of_improvement and task_table carry on and say what they
    withheld. Now both curves are given, Rainbow's bands and the comparison withheld at every step with a note, and
    DQN's bands and notes are those of DQN alone."""
    generator = np.random.default_rng(0)
    rows = [(agent, task, seed, step, float(generator.normal() + step)) for agent in ("DQN", "Rainbow")
            for task in ("Pong", "Breakout") for seed in range(1 if (agent, task) == ("Rainbow", "Pong") else 3)
            for step in range(4)]
    frame = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    res = rlstats.curves(frame, "score ~ agent | task/seed", step="step", n_resamples=100, rng=0, compare="all",
                         progress=False)
    dqn, rainbow = res.agents.index("DQN"), res.agents.index("Rainbow")
    assert np.isnan(res.simultaneous[rainbow]).all() and np.isfinite(res.simultaneous[dqn]).all()
    last = frame[(frame.step == 3) & (frame.agent == "Rainbow")]
    # Rainbow's IQM weighs its tasks alike: Pong's run 3 copies, Breakout's 3 runs 1 each; 1 copy cut at each end
    values = np.sort(np.r_[np.repeat(last[last.task == "Pong"].score.to_numpy(), 3),
                           last[last.task == "Breakout"].score.to_numpy()])
    assert res.estimates[rainbow, -1] == pytest.approx(values[1:-1].mean(), rel=1e-12)
    text = str(res)
    assert "Rainbow: " in text and "band withheld" in text
    assert any(n.startswith("bands of the curves (and their standard errors) are withheld for Rainbow at 4 steps")
               for n in res.notes)
    assert "(1 for Rainbow" not in text and "with 2 runs of a task" not in text
    assert "n = 3 runs per task" in text  # DQN's fewest runs, not Rainbow's 1


# ---------------------------------------------------------------------------------------------------------- item 5
def test_labels_differing_only_in_case_or_spaces_are_quoted_and_named():
    """A task 'pong ' beside 'Pong' (a trailing space, a lower case) is a task of its own: the kept-out note printed
    it bare (the space invisible) and nothing pointed at 'Pong'. Labels are quoted where one has surrounding
    whitespace (format.names_shown, as where one holds a comma) and a design note names the near-duplicates, of
    tasks and of agents."""
    generator = np.random.default_rng(0)
    rows = [(agent, task, seed, float(generator.normal())) for agent in ("A", "B") for task in ("Pong", "Breakout")
            for seed in range(3)] + [("A", "pong ", 0, 1.0), ("b", "Pong", 0, 1.0)]
    frame = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.compare(frame, "score ~ agent | task")
    notes = "\n".join(res.notes)
    assert "kept out of the analysis because fewer than two agents have runs there: 'pong '" in notes
    assert ("tasks 'Pong' and 'pong ' differ only in case or surrounding whitespace, so they are analysed as "
            "different tasks") in notes
    assert "agents 'B' and 'b' differ only in case or surrounding whitespace" in notes
    from rlstats.format import names_shown

    assert names_shown(["Pong", "pong "]) == ["'Pong'", "'pong '"] and names_shown(["a", "b"]) == ["a", "b"]
