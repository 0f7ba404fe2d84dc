"""Audit s13 (userb), as a careful new user familiar with R, the scientific Python stack and rliable would run them:
``rlstats.curves`` (bands and comparisons with ``compare="all"`` and pairs; IQM, mean, median and optimality gap,
each checked by hand with ``scipy.stats.trim_mean`` and numpy at a step), ``rlstats.bootstrap`` (the four metrics by
hand), ``rlstats.probability_of_improvement`` (against a loop over runs) and ``rlstats.performance_profile``
(``kind="runs"`` and ``kind="tasks"``), on the Dopamine Atari curves and the Atari 100k scores through the mirror, the
SB3 logs read with ``rlstats.read_logs`` and subsets made with pandas (a few tasks, two agents, one task,
``df[df.seed < 3]``, the last steps only, scores rescaled, rows shuffled, a Categorical with unused levels, polars).
Each sentence of the print, summary, report, LaTeX and notes was read against the rows analysed and the figures were
saved at one column's size (3.4 x 2.6 inches) and looked at. Each test is a minimal reproducer of one defect found;
its docstring gives the numbers seen.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import format as fmt
from conftest import curves_frame, load_dataset

#: The median's own bands and its rule for withholding them on these 2 tasks, whose notes the tests below read: since
#: audit s26 (curves26) the default gives the median of 2 task means, their mean, the mean's bands and rules.
OWN = "studentized_unwidened"

#: Two agents far apart (b above a by 100 x step, N(0, 1) noise) at steps 1 to 4, 3 runs each on ``tasks`` tasks.
_curves = partial(curves_frame, agents=("a", "b"), runs=3, steps=np.arange(1, 5), slope=(0.0, 100.0))


def _cannot(res):
    return [n for n in res.notes if "cannot reject" in n]


def test_curve_comparison_that_cannot_reject_says_so():
    """A curve comparison of two agents with 3 runs each on one task relabels the 6 runs 20 ways (C(6, 3)), two of
    which (the observed labelling and its mirror) give the observed largest difference, so its p-value is 0.1 or more
    whatever the data: b above a by 100 to 400 noise units at every step printed "a and b: no step differs" (adjusted
    p 0.0958 at every step, 500 relabellings) and nothing said that no data could give p <= 0.05, as the rank test,
    AdaStop and the selection check say (``format.cannot_reject``). With 2 tasks (400 relabellings, smallest p 0.005)
    nothing is said."""
    res = rlstats.curves(_curves(tasks=1), "score ~ agent | task/seed", step="step", compare="all", rng=1,
                         n_resamples=500, progress=False)
    assert np.nanmin(res.difference_pvalues) > 0.05
    (note,) = _cannot(res)
    assert "a vs b" in note and "3 runs of each agent on 1 task" in note
    assert "smallest attainable p-value is 0.1, above alpha = 0.05" in note
    assert fmt.latex_escape(note[1:]) in res.report()  # report() is LaTeX text
    two = rlstats.curves(_curves(tasks=2), "score ~ agent | task/seed", step="step", compare="all", rng=1,
                         n_resamples=500, progress=False)
    assert not _cannot(two) and np.nanmax(two.difference_pvalues) <= 0.05
    # where the relabellings drawn limit it (alpha 0.01, 50 relabellings: p >= 1/51), the advice is to draw more
    few = rlstats.curves(_curves(tasks=2), "score ~ agent | task/seed", step="step", compare="all", rng=1, alpha=0.01,
                         n_resamples=50, progress=False)
    assert np.nanmin(few.difference_pvalues) > 0.01
    (note,) = _cannot(few)
    assert "with 50 relabellings" in note and note.endswith("raise n_resamples")
    # unequal runs: 2 of a and 3 of b on one task, C(5, 2) = 10 labellings, no mirror: smallest p 0.1
    uneven = _curves(tasks=1)
    uneven = uneven[~((uneven.agent == "a") & (uneven.seed == 2))]
    (note,) = _cannot(rlstats.curves(uneven, "score ~ agent | task/seed", step="step", compare="all", rng=1,
                                     n_resamples=500, progress=False))
    assert "2 to 3 runs of each agent on 1 task" in note and "p-value is 0.1," in note


def test_sb3_curve_comparisons_that_cannot_reject_say_so(sb3_evaluations):
    """The SB3 logs' evaluations on CartPole-v1 (Acrobot-v1 dropped: DQN has no runs there), 3 seeds an agent: A2C
    against DQN (CartPole returns 35-500 against 9-13) printed "A2C and DQN: no step differs" with nothing saying
    that 3 runs of each on one task cannot give a p-value below 0.1."""
    res = rlstats.curves(sb3_evaluations, "score ~ agent | task/seed", step="step", compare="all", rng=1,
                         n_resamples=300, na_action="drop", progress=False)
    (note,) = _cannot(res)
    assert "A2C vs DQN, A2C vs PPO and DQN vs PPO" in note and "0.1, above alpha = 0.05" in note


def _tied_at_some_steps():
    """Agent a's 5 runs of t0 all score 0 at steps 1, 2 and 4 (one run off the tie at step 3), t1 continuous; b
    continuous: the median's bands of a are withheld at steps 1, 2 and 4 (half its runs tied, all of t0)."""
    rng = np.random.default_rng(3)
    rows = []
    for agent in ("a", "b"):
        for seed in range(5):
            for step in range(1, 5):
                tied = agent == "a" and not (step == 3 and seed == 4)
                rows.append((agent, "t0", seed, step, 0.0 if tied else 1.0 + rng.random()))
                rows.append((agent, "t1", seed, step, 2.0 + rng.random()))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_withheld_steps_are_named_as_they_are_not_as_a_span():
    """The median's bands withheld at steps 1, 2 and 4 of 1-4 were noted "withheld for a at 3 steps (1 to 4)", a span
    that reads as every step from 1 to 4 (step 3 has its bands). On the Dopamine curves (DQN and Rainbow on
    MontezumaRevenge and Pong, steps 190-198) the note said "DQN at 4 steps (190 to 198)" for steps 190, 191, 193 and
    198, the steps where all 5 of DQN's MontezumaRevenge runs score 0. The steps are now named as the comparisons'
    lines name them: "1-2, 4"."""
    res = rlstats.curves(_tied_at_some_steps(), "score ~ agent | task/seed", step="step", statistic="median", bands=OWN,
                         rng=1, n_resamples=200, progress=False)
    withheld = np.isnan(res.pointwise[0, :, 0])
    assert withheld.tolist() == [True, True, False, True] and not np.isnan(res.pointwise[1]).any()
    (note,) = [n for n in res.notes if n.startswith("bands of the curves are withheld")]
    assert "a at 3 steps (1-2, 4)" in note


def test_dopamine_withheld_median_steps_are_named(mirror):
    """The Dopamine case of the test above, as a user reads it."""
    df = load_dataset("dopamine_atari")
    sub = df[df.task.isin(["MontezumaRevenge", "Pong"]) & df.agent.isin(["DQN", "Rainbow"]) & (df.step >= 190)]
    res = rlstats.curves(sub, "score ~ agent | task/seed", step="step", statistic="median", bands=OWN,
                         rng=1, n_resamples=200,
                         normalize="atari_reference", progress=False)
    tied = (sub[(sub.agent == "DQN") & (sub.task == "MontezumaRevenge")].groupby("step").score
            .apply(lambda s: (s == s.min()).all()))
    assert tied[tied].index.tolist() == [190, 191, 193, 198]
    assert np.isnan(res.pointwise[0, :, 0]).tolist() == tied.tolist()
    (note,) = [n for n in res.notes if n.startswith("bands of the curves are withheld")]
    assert "DQN at 4 steps (190-191, 193, 198)" in note


def _profile_runs():
    """Agents A and B, 4 runs on tasks t0-t3 (A's scores 0..3 + task, B's a little lower); A alone on t4."""
    rows = [(agent, f"t{t}", seed, seed + t - (0.5 if agent == "B" else 0.0))
            for agent in ("A", "B") for t in range(5) for seed in range(4) if not (agent == "B" and t == 4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_profile_reads_the_tasks_as_bootstrap_does():
    """performance_profile read its design as a comparison's (two agents needed on a task), unlike bootstrap(), whose
    aggregates describe each agent: B missing task t4 kept t4 out of A's profile with the note "1 task kept out of the
    test because fewer than two agents have runs there: t4" (A's fraction of runs above 2.5 read 0.625 over t0-t3
    where its 5 tasks give 0.7), where bootstrap() refuses the same rows (an agent without runs on a task: add them,
    leave it out, or na_action="drop"), and a single agent's profile was refused ("no task has runs of at least two
    agents, so no comparison is possible"), though a profile compares nothing. Both kinds."""
    df = _profile_runs()
    tau = [0.5, 2.5, 4.5]
    a = df[df.agent == "A"]
    for kind in ("runs", "tasks"):
        def hand(runs):
            if kind == "runs":
                return [np.mean([(g.score > t).mean() for _, g in runs.groupby("task")]) for t in tau]
            return [(runs.groupby("task").score.mean() > t).mean() for t in tau]

        with pytest.raises(rlstats.DesignError, match="agent 'B' on task 't4'") as refused:
            rlstats.performance_profile(df, "score ~ agent | task/seed", kind=kind, tau=tau, progress=False)
        with pytest.raises(rlstats.DesignError) as boot:
            rlstats.bootstrap(df, "score ~ agent | task/seed", n_resamples=100, rng=1, progress=False)
        assert str(refused.value) == str(boot.value)
        dropped = rlstats.performance_profile(df, "score ~ agent | task/seed", kind=kind, tau=tau, na_action="drop",
                                              progress=False)
        np.testing.assert_allclose(dropped.tidy().query("agent == 'A'").estimate, hand(a[a.task != "t4"]))
        assert any("t4" in n and "na_action" in n for n in dropped.notes)
        assert not any("kept out of the analysis" in n for n in dropped.notes)
        alone = rlstats.performance_profile(a, "score ~ agent | task/seed", kind=kind, tau=tau, progress=False)
        np.testing.assert_allclose(alone.tidy().estimate, hand(a))


def test_reports_of_one_agent_count_it_in_the_singular():
    """bootstrap(), performance_profile() and curves() describe one agent on its own, and their reports said "We report
    IQM, median for 1 agents on 26 tasks" (SPR's Atari 100k runs), "for 1 agents on 26 tasks" (both profiles) and "We
    computed the IQM of 1 agents over 2 tasks" (Dopamine's DQN); the metrics were listed "IQM, median", not as prose."""
    df = _profile_runs()
    a = df[df.agent == "A"]
    boot = rlstats.bootstrap(a, "score ~ agent | task/seed", metrics=["iqm", "median"], n_resamples=200, rng=1,
                             progress=False).report()
    assert "We report IQM and median for 1 agent on 5 tasks" in boot
    for kind in ("runs", "tasks"):
        assert "for 1 agent on 5 tasks" in rlstats.performance_profile(a, "score ~ agent | task/seed", kind=kind,
                                                                       progress=False).report()
    steps = pd.concat([a.assign(step=1), a.assign(step=2, score=a.score + 1)])
    report = rlstats.curves(steps, "score ~ agent | task/seed", step="step", rng=1, n_resamples=200,
                            progress=False).report()
    assert "We computed the IQM of 1 agent over 5 tasks" in report


def test_a_plot_kind_passed_first_is_pointed_to_kind():
    """``res.plot("difference", figsize=(3.4, 2.6))``, the kind passed first as in many plotting APIs, was refused with
    "ax= must be a matplotlib Axes (or a sequence of them, one per panel), got str: 'difference'": the message names
    the argument the user did not mean and not the one they did. A kind's name in ax='s place is now an OptionError
    saying to pass kind="difference"."""
    res = rlstats.curves(_curves(tasks=2), "score ~ agent | task/seed", step="step", compare="all", rng=1,
                         n_resamples=200, progress=False)
    with pytest.raises(rlstats.OptionError, match=r"""pass kind='difference': res.plot\(kind='difference'\)"""):
        res.plot("difference", figsize=(3.4, 2.6))
    with pytest.raises(rlstats.OptionError, match="ax= must be a matplotlib Axes"):
        res.plot("nothing")


def test_compare_naming_a_control_agent_is_shown_the_pairs():
    """A user of R's control= (PMCMRplus, and this package's own skillings_mack(control=...)) wrote
    ``curves(..., compare="DQN")`` to compare every agent with DQN and got "compare= must be 'all', None or a list of
    (agent, agent) pairs, got 'DQN'": true, but it does not say how to write the comparisons with a control. The
    message now gives the list for that agent."""
    hint = r"""to compare every agent with 'b', pass compare=\[\('b', 'a'\)\]"""
    with pytest.raises(rlstats.OptionError, match=hint):
        rlstats.curves(_curves(tasks=2), "score ~ agent | task/seed", step="step", compare="b", n_resamples=200,
                       progress=False)


def test_withheld_band_is_not_blamed_on_too_few_runs():
    """The median's band of agent a is withheld at the last step because half its runs tie at t0's score 0 (5 runs a
    task, the note says so), yet the print read "a: 1.25 (band withheld: too few runs, see the notes)"; on the
    Dopamine curves (DQN on MontezumaRevenge and Pong, 5 runs a task) "DQN: 0.52847 (band withheld: too few runs,
    see the notes)". With a's runs tied at every step, the figure's title read "(withheld for a: too few runs)". The
    reasons are in the notes, several of which are not the number of runs; print and figure now point to them."""
    df = _tied_at_some_steps()
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic="median", bands=OWN,
                         rng=1, n_resamples=200,
                         progress=False)
    line = [x for x in str(res).splitlines() if x.startswith("  a: ")][0]
    assert "too few runs" not in line and "band withheld, see the notes" in line
    tied = df.assign(score=np.where((df.agent == "a") & (df.task == "t0"), 0.0, df.score))
    res = rlstats.curves(tied, "score ~ agent | task/seed", step="step", statistic="median", bands=OWN,
                         rng=1, n_resamples=200,
                         progress=False)
    assert np.isnan(res.simultaneous[0]).all() and not np.isnan(res.simultaneous[1]).any()
    ax = res.plot(figsize=(3.4, 2.6))
    title = ax.get_legend().get_title().get_text()
    assert "too few runs" not in title and "withheld for a" in title and "see the notes" in title
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


def test_task_bootstrap_profile_says_tasks_were_resampled():
    """``performance_profile(..., task_bootstrap=True, interval="percentile")`` resamples the tasks too, and its bands
    are far wider (DER and SPR on the 26 Atari 100k games, 5 runs: DER above 0.25 from 0.215 to 0.523, against 0.315
    to 0.415 with the runs alone), yet the print, the summary and the LaTeX caption were "Performance profiles with
    stratified bootstrap bands", word for word the band of runs within tasks; only the report said that tasks were
    resampled. bootstrap()'s title says "(runs and tasks resampled)"; the profile's now does too."""
    df = _profile_runs()
    df = df[df.task != "t4"]
    runs = rlstats.performance_profile(df, "score ~ agent | task/seed", interval="percentile", n_resamples=200,
                                       rng=1, progress=False)
    tasks = rlstats.performance_profile(df, "score ~ agent | task/seed", interval="percentile", n_resamples=200,
                                        task_bootstrap=True, rng=1, progress=False)
    assert "tasks resampled" not in runs.method and "tasks resampled" not in runs.to_latex()
    assert tasks.method.endswith(" (runs and tasks resampled)")
    assert "(runs and tasks resampled)" in str(tasks) and "(runs and tasks resampled)" in tasks.to_latex()
