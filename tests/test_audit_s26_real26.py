"""Audit s26 (real26): what ``rlstats.bootstrap`` (with probability of improvement and performance profiles) and
``rlstats.percentiles`` say on the published scores (Atari 100k normalised, the AdaStop MuJoCo batches raw, the
HalfCheetah SAC/TD3 runs) and the shared Stable-Baselines3 logs, as a user writing a paper reads them: every sentence
of print, summary, LaTeX and report against the rows analysed, the numbers against independent computations (closed
forms, numpy written apart, enumeration of every resample), and the invariances each statistic has (units, shift,
row order, polars). Tests reading the published scores skip with the reason when neither ../shared/data nor the
mirror is here."""

from __future__ import annotations

import numpy as np
import pytest

import rlstats
from rlstats.tables import read_csv


@pytest.fixture
def mujoco(published):
    """The AdaStop MuJoCo scores (4 agents, 5 tasks, 5 to 30 runs a cell), raw returns."""
    return read_csv(published / "mujoco_batches.csv")


def _small(metrics, interval="studentized"):
    data = rlstats.datasets.simulate(agents=2, tasks=4, seeds=5, effect=1.0, rng=3)
    return rlstats.bootstrap(data, "score ~ agent | task", metrics=metrics, n_resamples=300, interval=interval,
                             normalize=False, gamma=float(data.score.median()), rng=0)


# ----------------------------------------------------------------------------- report(): only the metrics computed

def test_report_describes_only_the_intervals_of_the_metrics_computed():
    """The report described the median's t interval, the mean's and median's skew widening and the IQM's winsorising
    whatever metrics were asked: an IQM-only report (the Atari 100k subset of the audit) told how a median interval
    it did not give was made. Now each part is said of the metrics computed, and the median's t interval is not
    called studentised."""
    iqm = _small(["iqm"]).report(format="text")
    assert "median" not in iqm and "widened on the side" not in iqm and "Welch" not in iqm
    assert "Each interval is studentised (bootstrap-t; Efron and Tibshirani 1993, Section 12.5)" in iqm
    assert "(winsorised for the IQM)" in iqm
    median = _small(["median"]).report(format="text")
    assert "studentised (bootstrap-t" not in median and "IQM" not in median and "Welch" not in median
    assert ("The median of task means takes a t interval, with its middle task's degrees of freedom, of standard "
            "error sqrt(c/(c - 1)) times the resamples' root-mean-square deviation from the estimate, c = 5 the fewest "
            "runs in a task; the median's interval is widened on the side of its skew") in median
    mean = _small(["mean"]).report(format="text")
    assert "median" not in mean and "IQM" not in mean and "optimality gap" not in mean
    assert "the mean's interval is widened on the side of its skew" in mean
    assert "the mean's interval takes on each side the wider of that bound and the Welch t bound" in mean
    gap = _small(["optimality_gap"]).report(format="text")
    assert "interval withheld" not in gap
    assert "widened on the side" not in gap and "the optimality gap's interval takes on each side the wider" in gap
    full = _small(["iqm", "mean", "median", "optimality_gap"]).report(format="text")
    assert "The intervals of the IQM, mean and optimality gap are studentised (bootstrap-t" in full
    assert "the mean's and the median's intervals are widened on the side of their skew" in full
    assert "the mean's and the optimality gap's intervals take on each side the wider" in full
    unwidened = _small(["iqm", "mean", "median"], interval="studentized_unwidened").report(format="text")
    assert "widened on the side" not in unwidened and "Welch" not in unwidened


# ----------------------------------------------------------------------------- figures at a column's width

def test_probability_of_improvement_label_is_not_broken_at_its_division():
    """At a 3.3 in column the probability of improvement's x label was broken as 'P(X > Y) + P(X = Y) /' over
    '2, averaged over tasks' (read as a division by the second line); a spaced division is now kept whole
    (``plotting.unbroken_parentheses``), and the label breaks after the formula."""
    import matplotlib.pyplot as plt

    from rlstats.plotting import unbroken_parentheses

    data = rlstats.datasets.simulate(agents=4, tasks=3, seeds=5, effect=1.0, rng=0)
    res = rlstats.probability_of_improvement(data, "score ~ agent | task", rng=0)
    ax = res.plot(figsize=(3.3, 3.0))
    try:
        assert ax.get_xlabel() == "P(X > Y) + P(X = Y) / 2,\naveraged over tasks"
    finally:
        plt.close(ax.figure)
    assert unbroken_parentheses("a / b and c/d, PPO / LunarLander (x = 1)") == \
        "a\xa0/\xa0b and c/d, PPO / LunarLander (x\xa0=\xa01)"


def test_report_with_every_interval_withheld_says_none_is_given():
    """One task of 3 runs an agent (the SB3 CartPole runs' design): every interval is withheld, yet the report said
    it reported "95% studentized confidence intervals" and described how they were made. Now it says they are all
    withheld, and the notes that follow say why."""
    data = rlstats.datasets.simulate(agents=2, tasks=1, seeds=3, effect=1.0, rng=0)
    res = rlstats.bootstrap(data, "score ~ agent | task", metrics=["iqm", "mean"], n_resamples=200, rng=0)
    assert np.isnan(res.intervals).all()
    text = res.report(format="text")
    assert text.startswith("We report IQM and mean for 2 agents on 1 task (3 runs per agent and task); their 95% "
                           "studentized confidence intervals from 200 stratified bootstrap resamples (Agarwal et al. "
                           "(2021); the runs resampled with replacement) are all withheld, for the reasons given below. "
                           "The IQM is the mean of the middle 50%")
    assert "studentised (bootstrap-t" not in text and "Monte Carlo standard error" not in text
    assert "Studentized intervals withheld on a single task for the IQM of agent_1 (3) and agent_2 (3)" in text
    given = rlstats.bootstrap(data, "score ~ agent | task", metrics=["iqm"], n_resamples=200, rng=0,
                              interval="percentile").report(format="text")
    assert "with 95% percentile confidence intervals from 200" in given and "withheld, for" not in given
