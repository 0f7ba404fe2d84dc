"""Audit s11, as a user porting R habits would run them: ``rlstats.tuning()`` (its views, print, summary, report,
LaTeX, plots), ``rlstats.selection_check()`` and ``rlstats.task_table()``, on the published hyperparameter
landscapes of Dierkes et al. (2024, ``hpo_landscapes`` through the mirror) and the Atari 100k scores, on subsets made
with pandas (a few tasks and agents, agents renamed, one agent's runs copied under another name, tasks shifted).
Each sentence printed was read against the rows analysed and each figure was saved at one column's size and looked
at. Each test is a minimal reproducer of one defect found; its docstring gives the numbers seen."""

from __future__ import annotations

import functools

import matplotlib
import numpy as np
import pandas as pd
import pytest

from conftest import load_dataset
import rlstats

matplotlib.use("Agg")


@functools.lru_cache(maxsize=1)
def _landscapes():
    """The nine published PPO landscapes on LunarLander (about 1 s to parse), read once per session."""
    return load_dataset("hpo_landscapes")


def _sweep(mirror, n_configs=12):
    """The first ``n_configs`` configurations of every landscape, agent = the hyperparameter tuned, task = the reward
    weight (the file names spell them with '-' or '_')."""
    d = _landscapes()
    d = d[d.config < n_configs].copy()
    parts = d.landscape.str.split("_", n=1)
    d["agent"] = parts.str[0]
    d["task"] = parts.str[1].str.replace("_", "-")
    return d.drop(columns="landscape")


def _atari(atari, agents, tasks, seeds=5):
    return atari[atari.agent.isin(agents) & atari.task.isin(tasks) & (atari.seed < seeds)]


def test_task_table_figure_scales_each_task_between_its_worst_and_its_best(atari):
    """task_table's heat map drew each cell's mean divided by its task's best mean ("mean relative to each task's
    best"), on one colour scale for all tasks. Atari 100k, 5 seeds: Pong's means are negative (CURL -17.3, DER -9.21,
    SPR -3.94 against IRIS 14.6), so Pong's cells read -1.18, -0.63 and -0.27 and stretched the scale, leaving
    Boxing's and Breakout's other cells (-0.04 to 0.53) in the same few greys; Pong shifted by +21 (scores from 0)
    gave other cells, and so did a lower-is-better table (the best, the smallest, read 1, the others above it).
    Each task's cells are now placed between its worst (0) and its best (1) mean, which shifts and units leave
    alone."""
    sub = _atari(atari, ("CURL", "DER", "IRIS", "SPR"), ("Pong", "Boxing", "Breakout"))
    means = sub.groupby(["task", "agent"]).score.mean().unstack()  # tasks and agents sorted, as the table
    expected = means.sub(means.min(axis=1), axis=0).div(means.max(axis=1) - means.min(axis=1), axis=0).to_numpy()
    res = rlstats.task_table(sub, "score ~ agent | task/seed", rng=0)
    ax = res.plot()
    drawn = np.asarray(ax.images[0].get_array())
    np.testing.assert_allclose(drawn, expected, rtol=1e-12)
    import matplotlib.pyplot as plt

    # the shifted and the lower-is-better tables drawn on an Axes of the caller's, the same heat map: the plot's own
    # figure grown for names it holds (hold_labels: seven draws, 1 CPU-s a plot) is no part of this (speed40)
    shifted = sub.assign(score=np.where(sub.task == "Pong", sub.score + 21, sub.score * 1000))
    again = np.asarray(rlstats.task_table(shifted, "score ~ agent | task/seed", rng=0).plot(ax=plt.subplots()[1])
                       .images[0].get_array())
    np.testing.assert_allclose(again, expected, rtol=1e-9)
    lower = np.asarray(rlstats.task_table(sub, "score ~ agent | task/seed", higher_is_better=False, rng=0)
                       .plot(ax=plt.subplots()[1]).images[0].get_array())
    np.testing.assert_allclose(lower, 1 - expected, atol=1e-12)
    assert ax.images[0].get_clim() == (0.0, 1.0)
    plt.close("all")


def test_task_table_report_credits_every_tied_best(atari):
    """IRIS's runs copied under a second name ('IRIS copy') tie it on each of 3 tasks, and the table bolds both in
    every task; the report said "Best per task: IRIS (3)", crediting the three wins to whichever name sorts first
    (renamed 'AAA copy', the report said "AAA copy (3)"), and "In 1 further agent-task cells"."""
    sub = _atari(atari, ("IRIS", "SimPLe", "SPR"), ("Pong", "Boxing", "Breakout"), seeds=100)
    both = rlstats.task_table(pd.concat([sub, sub[sub.agent == "IRIS"].assign(agent="IRIS copy")]),
                              "score ~ agent | task/seed", rng=0)
    assert both.tied_best.sum() == 6
    text = both.report(format="text")
    assert ("Best per task: IRIS (3), IRIS copy (3); tied best agents are each credited (3 tasks have more than "
            "one).") in text, text
    assert "In 1 further agent-task cell the agent" in text
    renamed = rlstats.task_table(pd.concat([sub, sub[sub.agent == "IRIS"].assign(agent="AAA copy")]),
                                 "score ~ agent | task/seed", rng=0)
    assert "Best per task: AAA copy (3), IRIS (3); tied" in renamed.report(format="text")


def test_sensitivity_with_no_agent_on_every_task_is_not_announced(mirror):
    """Each landscape as its own agent (a task each): the sensitivity view leaves every agent out ("lacks runs on
    some task"), yet print(res) showed the heading "hyperparameter sensitivity (percentile-normalised) and effective
    dimensionality:" with nothing under it, the report said "Hyperparameter sensitivity and effective
    dimensionality follow Adkins et al. (2024) on percentile-normalised scores", and res.sensitivity() was an empty
    frame. Nothing was computed: the view is now absent, as with one task, and the notes say why."""
    d = _sweep(mirror, 6)
    d = d.assign(agent=d.agent + " / " + d.task)  # nine agents, each on one task
    res = rlstats.tuning(d, "score ~ agent | task/seed", config=["hyperparameter", "reward_weight"],
                         views=["sensitivity"], rng=0, progress=False)
    assert "hyperparameter sensitivity" not in str(res)
    assert "Adkins" not in res.report(format="text")
    with pytest.raises(rlstats.OptionError, match="sensitivity"):
        res.sensitivity()
    assert any("no agent has runs on every task" in note for note in res.notes), res.notes


def test_tuned_score_is_never_raised_by_the_selection_correction(mirror):
    """The gae-lambda x distance-weight landscape, first 12 configurations, 10 seeds each: one configuration wins
    every resample (best set of 1), so each resample's optimism is only its resampled mean less its own mean, noise
    about 0; the mean of 2,000 came out -0.47 with rng=0 (-1.87 with rng=5), and the "tuned score corrected for
    selection" (641.42) was printed above the selected configuration's own mean (640.96). The bootstrap's optimism
    is at least 0 in expectation (the largest resampled mean is at least the selected one's, whose mean is the
    largest data mean), so a negative Monte Carlo estimate is now 0. (Since audit s32 stream32 the sweep's stream is
    keyed by its agent's and task's names: rng=0 then draws a positive mean, 0.948, and rng=1 a negative one; since
    audit s33 curvestream33 laid a configuration's runs out in their scores' order, both draw a negative one.)"""
    d = _sweep(mirror)
    d = d[(d.agent == "gae-lambda") & (d.task == "distance-weight")]
    res = rlstats.tuning(d, "score ~ agent | task/seed", config=["hyperparameter", "reward_weight"],
                         views=["best_set"], rng=1, progress=False)
    row = res.tuned().iloc[0]
    best = d.groupby(["hyperparameter", "reward_weight"])["score"].mean().max()  # the selected configuration's mean
    assert row["n_best_set"] == 1 and row["mean_selected"] == pytest.approx(best, rel=1e-12)
    assert row["optimism"] == 0.0 and row["estimate"] == row["mean_selected"]


def test_selection_check_on_raw_scales_says_so(atari):
    """SPR against DER on the 26 Atari games' raw scores: the default effect is the difference of means, averaged
    over tasks, and UpNDown's (25,053) outweighs Pong's (1.8) ten-thousandfold; bootstrap(), tuning() and curves()
    warn of raw scales, but the selection check printed nothing, though its docstring asks to normalise first."""
    sub = atari[atari.agent.isin(["SPR", "DER"]) & (atari.seed < 10)]
    reported = ["Boxing", "Breakout", "Pong", "Kangaroo", "Krull"]
    with pytest.warns(rlstats.RlstatsWarning, match="own scales"):
        res = rlstats.selection_check(sub, "score ~ agent | task/seed", treatment="SPR", baseline="DER",
                                      reported=reported, n_resamples=999, rng=0)
    assert any("own scales" in note for note in res.notes), res.notes
    assert "own scales" in str(res) and "own scales" in res.to_latex()
    # a scale-free effect, or scores said to be on one scale, need no caution
    for options in ({"effect": "poi"}, {"normalize": False}):
        quiet = rlstats.selection_check(sub, "score ~ agent | task/seed", treatment="SPR", baseline="DER",
                                        reported=reported, n_resamples=999, rng=0, **options)
        assert not any("own scales" in note for note in quiet.notes), (options, quiet.notes)


def test_reported_task_without_runs_is_named_as_such(atari):
    """A user's habit from R: the task column a factor (Categorical), Pong dropped with a filter, Pong still a level.
    reported=["Boxing", "Breakout", "Pong"] was refused as naming "1 unknown task(s) in column 'task': 'Pong' (did
    you mean 'Boxing'?)": Pong is a level of the column, only without runs, and Boxing is no spelling of it."""
    df = atari.assign(task=atari.task.astype("category"))
    sub = df[df.agent.isin(["SPR", "DER"]) & (df.seed < 10) & (df.task != "Pong")]
    with pytest.raises(rlstats.DesignError, match=r"reported= names 'Pong', which has no runs in the data") as error:
        rlstats.selection_check(sub, "score ~ agent | task/seed", treatment="SPR", baseline="DER",
                                reported=["Boxing", "Breakout", "Pong"], effect="poi", rng=0)
    assert "did you mean" not in str(error.value)
    with pytest.raises(rlstats.DesignError, match=r"heldout= names 'Pong', which has no runs"):
        rlstats.selection_check(sub, "score ~ agent | task/seed", treatment="SPR", baseline="DER",
                                reported=["Boxing", "Breakout"], heldout=["Alien", "Pong"], effect="poi", rng=0)


def test_aggregate_row_with_withheld_intervals_says_so(atari):
    """IRIS and SimPLe on Pong and Breakout, SPR and DER on Pong and Boxing, with aggregate="bootstrap" and
    na_action="drop": the aggregate row reads the one task all four ran (Pong), where the bootstrap withholds its
    studentized intervals (with a note); task_table printed "0.311 [NaN, NaN]" in every aggregate cell, in the text,
    Markdown and LaTeX tables, dropped the bootstrap's note, and its caption said "Aggregate: mean over tasks with
    95% stratified bootstrap intervals (500 resamples)"; a note said that the row "pools raw scores of tasks on
    different scales", of its one task."""
    sub = atari[(atari.task.isin(["Pong", "Breakout"]) & atari.agent.isin(["IRIS", "SimPLe"]))
                | (atari.task.isin(["Pong", "Boxing"]) & atari.agent.isin(["SPR", "DER"]))]
    res = rlstats.task_table(sub, "score ~ agent | task/seed", aggregate="bootstrap", na_action="drop",
                             n_resamples=200, rng=0)
    means = sub[sub.task == "Pong"].groupby("agent").score.mean()
    np.testing.assert_allclose(res.aggregate["estimates"], means[list(res.agents)].to_numpy(), rtol=1e-12)
    # since session 20 the mean on one task is given from 20 runs (calib20b): DER's and SPR's 100 runs of Pong have
    # theirs, IRIS's and SimPLe's 5 are withheld with the note (before, every one was withheld)
    withheld = np.isnan(res.aggregate["intervals"]).all(axis=1)
    assert dict(zip(res.agents, withheld)) == {"DER": False, "IRIS": True, "SPR": False, "SimPLe": True}
    for text in (str(res), res.to_markdown(), res.to_latex()):
        assert "NaN" not in text, text
    assert "withheld where none is shown" in res.caption(), res.caption()
    # quoted as the bootstrap's, whose options its way on names (audit s28)
    assert any(n.startswith("the aggregate row's intervals, from rlstats.bootstrap() (the options named are "
                            "bootstrap()'s, not task_table()'s): studentized intervals withheld on a single task for "
                            "the mean of IRIS (5) and SimPLe (5)") for n in res.notes), res.notes
    assert not any("raw scores of tasks" in note for note in res.notes), res.notes  # it pools no tasks


def test_cli_config_as_comma_list_is_hinted(tmp_path, capsys):
    """`rlstats compare runs.csv 'score ~ agent | task/seed' --method tuning -o config=lr,gamma`, the way a list is
    written on many command lines, stopped with "config= column(s) ['lr,gamma'] not found in data; available:
    [...]" though both columns are there: nothing said that a list is written as a Python list."""
    rng = np.random.default_rng(0)
    runs = pd.DataFrame([("ppo", "ant", lr, g, s, rng.normal()) for lr in (0.1, 0.01) for g in (0.9, 0.99)
                         for s in range(3)], columns=["agent", "task", "lr", "gamma", "seed", "score"])
    path = tmp_path / "runs.csv"
    runs.to_csv(path, index=False)
    from rlstats.cli import main

    code = main(["compare", str(path), "score ~ agent | task/seed", "--method", "tuning", "-o", "config=lr,gamma",
                 "--seed", "0"])
    err = capsys.readouterr().err
    assert code != 0 and "config=['lr', 'gamma']" in err and "-o \"config=['lr','gamma']\"" in err, err
    with pytest.raises(rlstats.DesignError, match=r"config=\['lr', 'gamma'\]"):
        rlstats.tuning(runs, "score ~ agent | task/seed", config="lr, gamma")


def test_complete_figure_says_where_intervals_are_withheld(mirror):
    """The nine landscapes' first 12 configurations: the complete algorithm's intervals are withheld in every sweep
    (they need 30 configurations; a note says so), and res.plot(kind="complete") drew nine bare points, as precise as
    an interval of width 0, with nothing on the figure saying that their intervals were left out."""
    d = _sweep(mirror)
    res = rlstats.tuning(d, "score ~ agent | task/seed", config=["hyperparameter", "reward_weight"],
                         views=["complete"], rng=0, progress=False)
    assert np.isnan(res.complete_summary()[["conf_low", "conf_high"]].to_numpy()).all()
    ax = res.plot(kind="complete", figsize=(3.3, 3.0))
    said = " ".join([ax.get_title(), ax.get_xlabel()]).replace("\n", " ")
    assert "intervals withheld" in said and "30 configurations" in said, said
    # the report said "its 95% interval is Student's t on the configurations' mean scores ..." of intervals it gave
    # nowhere; with 40 configurations (intervals given) it still describes the interval
    prose = res.report("text")
    assert "interval is withheld for every agent and task (the notes say why)" in prose
    assert "Student's t on the configurations' mean scores" not in prose
    given = rlstats.tuning(_sweep(mirror, 40), "score ~ agent | task/seed", config=["hyperparameter", "reward_weight"],
                           views=["complete"], rng=0, progress=False)
    assert np.isfinite(given.complete_summary()["conf_low"].to_numpy()).any()
    assert "Student's t on the configurations' mean scores" in given.report("text")


def test_best_set_figure_is_readable_at_one_column(mirror):
    """The gamma x velocity-weight landscape, first 12 configurations: four configurations have a chance of being
    best, each labelled "gamma / velocity-weight" and its two hyperparameters in full float precision
    ("hyperparameter=0.009274286383257363"); at one column's width (figsize=(3.3, 2.4)) the labels were drawn over
    each other and the x label broken into five lines, and plot() raised nothing. The sweep's name now heads the
    figure when there is one sweep, and values are printed with the digits that tell them apart."""
    from conftest import drawn_outside

    d = _sweep(mirror)
    d = d[(d.agent == "gamma") & (d.task == "velocity-weight")]
    res = rlstats.tuning(d, "score ~ agent | task/seed", config=["hyperparameter", "reward_weight"],
                         views=["best_set"], rng=0, progress=False)
    ax = res.plot(kind="best_set", figsize=(3.3, 2.4))
    figure = ax.figure
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    boxes = [label.get_window_extent(renderer) for label in ax.get_yticklabels()]
    assert len(boxes) == 4
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert max(drawn_outside(figure)) < 0.01
    assert ax.get_xlabel().count("\n") <= 2, ax.get_xlabel()
    labels = [label.get_text() for label in ax.get_yticklabels()]
    # 3 significant digits keep the 12 configurations' values apart (new-user trial s38; 4 before)
    assert "hyperparameter=0.00927\n" in " ".join(labels) and "0.009274" not in " ".join(labels), labels
    assert "gamma / velocity-weight" in ax.get_title()


def test_selection_tables_name_the_agents_compared(atari):
    """SPR against DER on five reported Atari games: res.to_latex() gives a table "Per-task effects" with a column
    "effect" (Kangaroo 2744, Qbert -1349) and a table "Mean effect by set", neither of which names the two agents
    or which one is subtracted; pasted into a paper, the sign of every number is unreadable."""
    sub = atari[atari.agent.isin(["SPR", "DER"]) & (atari.seed < 10)]
    res = rlstats.selection_check(sub, "score ~ agent | task/seed", treatment="SPR", baseline="DER",
                                  reported=["Boxing", "Breakout", "Pong", "Kangaroo", "Krull"], effect="poi",
                                  n_resamples=999, rng=0)
    captions = [line for line in res.to_latex().splitlines() if line.startswith("\\caption")]
    assert len(captions) == 3
    # the effect said in words, not its code "poi" (audit s25 vocab25)
    assert ("Per-task effects (probability of improvement, SPR vs DER)" in captions[0]
            and "Mean effect by set (probability of improvement, SPR vs DER)" in captions[1])


def test_complete_line_counts_one_configuration(mirror):
    """The tuning experiments' PPO baseline (default hyperparameters: one configuration per task) beside DEHB's five
    tuning runs: print(res) said "hpo=base, rpo=base, return on ant: 6766.7 (no interval: too few configurations)
    over 1 configurations"."""
    runs = load_dataset("hpo_optimisation").drop_duplicates()
    ppo = runs[(runs.algorithm == "ppo") & (runs.task == "ant")
               & runs.procedure.isin(["hpo=base, rpo=base, return", "hpo=dehb, rpo=base, return"])]
    res = rlstats.tuning(ppo, "score ~ procedure | task/tuning_run/seed", views=["complete"], rng=0, progress=False)
    text = str(res)
    assert "6766.7 (no interval: too few configurations) over 1 configuration\n" in text, text
    assert "over 5 configurations" in text


def test_held_out_interval_of_tied_runs_is_withheld(mirror):
    """The gamma x velocity-weight landscape, first 12 configurations, seeds 7-9 held out (holdout=): the selected
    configuration's three held-out runs all score the cap, 1000, and tuned() gave the held-out 95% interval
    [1000, 1000], a point, printed in summary() and to_latex(); the tuned-score intervals of such runs are withheld
    (audit s8: an interval of one point says nothing of runs not yet seen), and so is this one now, with a note."""
    d = _sweep(mirror)
    d = d[(d.agent == "gamma") & (d.task == "velocity-weight")].assign(held=lambda x: x.seed >= 7)
    res = rlstats.tuning(d, "score ~ agent | task/seed", config=["hyperparameter", "reward_weight"], holdout="held",
                         views=["best_set"], rng=0, progress=False)
    row = res.tuned().iloc[0]
    assert row["heldout_estimate"] == 1000.0 and row["heldout_runs"] == 3
    assert np.isnan(row["heldout_low"]) and np.isnan(row["heldout_high"])
    assert any("held-out runs do not vary" in note for note in res.notes), res.notes
