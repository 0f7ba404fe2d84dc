"""Audit s30 (holm30): what a result under the default ``permutations="holm"`` prints and tabulates of its level and
its step-down, checked against hand counts of the spending grid."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.adastop import AdaStop


def _three(seeds=10, effect=(0.0, 0.0, 2.0)):
    return rlstats.datasets.simulate(agents=3, tasks=1, seeds=seeds, effect=list(effect), rng=0)


def _linear_counts(level, K, n_paths):
    """Linear spending level * k / K rounded down to each interim's grid, by hand (independent of the kernel's)."""
    spent, counts = 0.0, []
    for k, m in enumerate(n_paths, start=1):
        r = math.floor(level * k / K * m - spent * m + 1e-9)
        counts.append(r)
        spent += r / m
    return counts


def test_hand_counts_of_holms_first_step():
    """3 comparisons, n = 5, K = 2, 200 paths: interim 1 enumerates the 126 classes, interim 2 draws 200 paths.
    alpha / 3 * 1/2 * 126 = 1.05 -> 1 class; then alpha / 3 * 200 - 200 / 126 = 1.75 -> 1 path: 1/126 + 1/200."""
    assert _linear_counts(0.05 / 3, 2, (126, 200)) == [1, 1]
    assert math.isclose(1 / 126 + 1 / 200, 0.012936507936507937)
    # the schedule's alpha, which the header printed under holm: 3 classes (3.15), then 5 paths (10 - 4.76)
    assert _linear_counts(0.05, 2, (126, 200)) == [3, 5] and round(3 / 126 + 5 / 200, 5) == 0.04881


def test_the_header_says_what_holm_spends():
    """The printed header of the default (holm) said "schedule's level = 0.04881", the level of alpha's grid, which
    no comparison spends while c > 1: each spends alpha / c (1/126 + 1/200 = 0.01294 at c = 3, 0.03881 the three)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rlstats.adastop(_three(), "score ~ agent", n=5, K=2, n_resamples=200, rng=0, progress=False)
    line = str(result).splitlines()[4]
    assert line == ("rejected = 2, equal = 1, undecided = 0 (of 3 comparisons), level per comparison = alpha / c, c "
                    "not yet rejected (Holm's step-down): 0.01294 each at c = 3, 0.03881 in all (alpha = 0.05)"), line
    assert "schedule's level" not in str(result)
    assert "0.01294 each at c = 3, 0.03881 in all" in result._prose()
    # the level table is alpha's grid (c = 1), and its caption says so
    assert result.spending["paths_beyond"].tolist() == [3, 5]
    assert "only one not yet rejected (Holm's c = 1)" in result._latex_captions()["Level spent per interim"]
    # the joint relabelling spends the schedule's alpha grid and says so, as before (4 of 200 paths x 2 interims)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        joint = rlstats.adastop(_three(), "score ~ agent", n=5, K=2, n_resamples=200, rng=0, permutations="joint",
                                progress=False)
    assert "schedule's level = 0.05 (alpha = 0.05)" in str(joint).splitlines()[4]


def test_the_header_of_an_unfinished_holm_test_says_what_each_undecided_comparison_spent():
    """After interim 1 of a holm AdaStop (nothing rejected, c = 3): 1/126 = 0.007937 spent by each undecided one."""
    seq = AdaStop(["a", "b", "c"], n=5, K=2, n_resamples=200, rng=0)
    gen = np.random.default_rng(0)
    seq.update({a: gen.normal(0, 1, 5) for a in "abc"})
    line = seq.result()._statistic_line()
    assert line.endswith("0.01294 each at c = 3, 0.03881 in all (alpha = 0.05), of which 0.007937 per undecided "
                         "comparison spent by interim 1 at c = 3"), line


def test_the_permutation_header_says_what_holm_spends():
    """One interim of 300 random permutations: floor(0.05 / 3 * 300) = 5 paths, 0.01667 each, 0.05 the three
    (the header printed "level spent = 0.05", alpha's 15 paths of one test)."""
    result = rlstats.permutation(_three(), "score ~ agent", n_resamples=300, rng=0)
    assert math.floor(0.05 / 3 * 300) == 5
    line = result._statistic_line()
    assert line.endswith("level per comparison = alpha / c, c not yet rejected (Holm's step-down): 0.01667 each at "
                         "c = 3, 0.05 in all (alpha = 0.05)"), line
    assert "Adjusted p-values are Holm's" in result._prose()
    joint = rlstats.permutation(_three(), "score ~ agent", n_resamples=300, rng=0, permutations="joint")
    assert joint._statistic_line().endswith("level spent = 0.05 (alpha = 0.05)")


def test_two_agents_keep_the_schedules_level():
    """With one comparison holm is the schedule's test (c = 1): the header keeps its words and number."""
    df = _three()
    df = df[df["agent"] != "agent_3"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rlstats.adastop(df, "score ~ agent", n=5, K=2, n_resamples=200, rng=0, progress=False)
    assert "schedule's level = 0.04881 (alpha = 0.05)" in result._statistic_line()


def test_steps_say_the_set_tested_and_holms_c_apart():
    """3 null agents, n = 5, K = 4, beta = 0.6 (seed 5, holmfix29's case): B = C is accepted at interim 3. The step
    table's n_comparisons held Holm's c (3) after it; it now counts the undecided set tested (2), as the joint
    scheme's does, and alpha_divisor holds c (3: an accepted comparison keeps its share)."""
    seq = AdaStop(list("ABC"), n=5, K=4, beta=0.6, rng=5)
    gen = np.random.default_rng(5)
    while not seq.done:
        seq.update({a: gen.normal(0, 1, 5) for a in seq.agents_to_run})
    steps = seq.result().steps
    got = steps[["interim", "step", "n_comparisons", "alpha_divisor", "action"]].values.tolist()
    assert got == [[1, 1, 3, 3, "none"], [2, 1, 3, 3, "none"], [3, 1, 3, 3, "accept"], [3, 2, 2, 3, "none"],
                   [4, 1, 2, 3, "none"]]
    assert "alpha divisor: each is tested at alpha / it (Holm's c" in seq.result()._latex_captions()["Step-down"]


def test_steps_of_the_joint_scheme_divide_alpha_by_one():
    """The joint relabelling tests its set at alpha: alpha_divisor 1 on every step, n_comparisons the set (3, 2, 1
    as the step-down rejects; 3 agents of means 0, 0, 2, 10 runs, one interim)."""
    result = rlstats.permutation(_three(), "score ~ agent", n_resamples=300, rng=0, permutations="joint")
    assert result.steps[["n_comparisons", "alpha_divisor", "action"]].values.tolist() == [
        [3, 1, "reject"], [2, 1, "reject"], [1, 1, "none"]]
    holm = rlstats.permutation(_three(), "score ~ agent", n_resamples=300, rng=0)
    assert holm.steps[["n_comparisons", "alpha_divisor", "action"]].values.tolist() == [
        [3, 3, "reject"], [2, 2, "reject"], [1, 1, "none"]]
