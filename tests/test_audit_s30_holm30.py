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
    alpha / 3 * 1/2 * 126 = 1.05 -> 1 class; then alpha / 3 * 200 - 200 / 126 = 1.75 -> 1 path: 1/126 + 1/200,
    the level rlstats stores for each comparison's first step (audit s30 rfix30a: this test read its own helper
    only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rlstats.adastop(_three(), "score ~ agent", n=5, K=2, n_resamples=200, rng=0, progress=False)
    n_paths = tuple(result.spending["n_paths"])
    assert n_paths == (126, 200)
    assert _linear_counts(0.05 / 3, 2, n_paths) == [1, 1]
    assert math.isclose(1 / 126 + 1 / 200, 0.012936507936507937)
    assert result.holm_levels["level_each"].tolist() == [pytest.approx(1 / 126 + 1 / 200, rel=1e-15)]
    # the schedule's alpha, which the header printed under holm: 3 classes (3.15), then 5 paths (10 - 4.76)
    assert _linear_counts(0.05, 2, n_paths) == [3, 5] and round(3 / 126 + 5 / 200, 5) == 0.04881
    assert result.spending["paths_beyond"].tolist() == [3, 5]
    assert result.level_spent == pytest.approx(3 / 126 + 5 / 200, rel=1e-15)


def test_the_header_says_what_holm_spends():
    """The printed header of the default (holm) said "schedule's level = 0.04881", the level of alpha's grid, which
    no comparison spends while c > 1: each spends alpha / c (1/126 + 1/200 = 0.01294 at c = 3, 0.03881 the three)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rlstats.adastop(_three(), "score ~ agent", n=5, K=2, n_resamples=200, rng=0, progress=False)
    line = str(result).splitlines()[4]
    assert line == ("rejected = 2, no difference found = 1, undecided = 0 (of 3 comparisons), level per comparison = alpha / c, c "
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


# ---- metamorphic: the order of rows, agents and comparisons, and the agents' names -------------------------------

def _four(seed=0, n=3, K=3, means=(0.0, 0.3, 0.8, 0.8)):
    gen = np.random.default_rng(seed)
    return pd.DataFrame([{"agent": f"ag{a}", "seed": s, "score": gen.normal(means[a], 1.0)}
                         for a in range(len(means)) for s in range(n * K)])


def _decided(result, names=None):
    """{unordered pair (original names): (decision read from the first name sorted, interim)}."""
    names = names or {}
    out = {}
    for a, b, d, k in zip(*(result.decisions[c] for c in ("agent_1", "agent_2", "decision", "interim"))):
        a, b = names.get(a, a), names.get(b, b)
        if a > b:
            a, b, d = b, a, {"larger": "smaller", "smaller": "larger"}.get(d, d)
        out[(a, b)] = (d, int(k))
    return out


RENAMED = {"ag0": "z3", "ag1": "z0", "ag2": "z2", "ag3": "z1"}  # the names' sorted order becomes ag1, ag3, ag2, ag0
BACK = {new: old for old, new in RENAMED.items()}
#: every pair named, in another order and each the other way round
REVERSED = [("ag3", "ag2"), ("ag1", "ag0"), ("ag2", "ag0"), ("ag3", "ag1"), ("ag3", "ag0"), ("ag2", "ag1")]


def _variants(df, **options):
    """The same test of the same runs: rows shuffled, agents renamed (another sorted order), a Categorical's reversed
    categories, and the comparisons named in another order and orientation."""
    call = dict(n=3, K=3, rng=1, progress=False, **options)
    shuffled = df.sample(frac=1, random_state=3)
    categorical = df.assign(agent=pd.Categorical(df["agent"], categories=["ag3", "ag2", "ag1", "ag0"]))
    return {"base": _decided(adastop_(df, **call)),
            "rows": _decided(adastop_(shuffled, **call)),
            "renamed": _decided(adastop_(df.assign(agent=df["agent"].map(RENAMED)), **call), BACK),
            "categories": _decided(adastop_(categorical, **call)),
            "comparisons": _decided(adastop_(df, comparisons=REVERSED, **call))}


def adastop_(df, formula="score ~ agent", **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.adastop(df, formula, **options)


def test_holm_decisions_do_not_depend_on_order_or_names():
    """4 agents (means 0, 0.3, 0.8, 0.8), n = 3, K = 3: every interim's paths enumerated (10, 200, 4,000 <= 10,000),
    so the default's decisions are a function of the runs alone. Each comparison's test reads its own pair's column:
    its exact permutation distribution is the same whichever agent sits first and whatever order the runs of a batch
    are in, so the rows' order, the names, the categories' order and the comparisons' order and orientation leave
    every decision and its interim as they are (measured on 40 data sets of this design: 0 of 40 changed by the
    renaming or the reversed comparisons; audit s30)."""
    got = _variants(_four(0))
    assert got["base"] == {("ag0", "ag1"): ("equal", 3), ("ag0", "ag2"): ("equal", 3), ("ag0", "ag3"): ("equal", 3),
                           ("ag1", "ag2"): ("smaller", 2), ("ag1", "ag3"): ("smaller", 3), ("ag2", "ag3"): ("equal", 3)}
    for name, decided in got.items():
        assert decided == got["base"], name


def test_the_papers_pairwise_scheme_depends_on_the_names_sorted_order():
    """The paper's shared slot choice reads each pair one way round (the names sorted orient the "all" pairs): a
    renaming that changes the names' sorted order changes which agent a slot choice puts first in some pairs, and
    with it the joint law of the pairs' statistics and the boundary of their maximum, though every path is
    enumerated. On the same data set (4 agents, n = 3, K = 3, seed 0) ag0 against ag2 is "smaller" at interim 2 as
    named and "equal" at interim 3 renamed (3 of 40 data sets of this design changed; holm: 0). Rows' order,
    categories and the comparisons' order still change nothing (reversing every pair at once maps the slot choices
    onto themselves)."""
    got = _variants(_four(0), permutations="pairwise")
    assert got["base"][("ag0", "ag2")] == ("smaller", 2) and got["renamed"][("ag0", "ag2")] == ("equal", 3)
    assert {k: v for k, v in got["renamed"].items() if v != got["base"][k]} == {("ag0", "ag2"): ("equal", 3)}
    for name in ("rows", "categories", "comparisons"):
        assert got[name] == got["base"], name


def _engine(data, holm, alpha=0.05):
    """Feed an (agents, K, n) array to the engine, every interim enumerated (n_resamples above the tree)."""
    from rlstats.methods.adastop import _kernels as kernels

    n_agents, K, n = data.shape
    pairs = [(a, b) for a in range(n_agents) for b in range(a + 1, n_agents)]
    test = kernels.SequentialTest(pairs, kernels.make_schedule(n, K, 10**6, alpha), holm=holm)
    for k in range(K):
        if test.done:
            break
        test.run_interim(data[:, k], np.random.default_rng(k))
    return [(h["interim"], h["comparison"], round(h["boundary"], 9), h["decision"]) for h in test.history]


def test_the_order_of_a_batchs_runs_moves_the_pairwise_boundaries_not_holms():
    """The package feeds each batch's runs in score order (so that the rows' order draws nothing different); the
    paper's slot choice shared by every pair then reads the same ranks of every agent, which raised its family-wise
    error (0.084 against 0.064 with the runs in random order: 8 identical agents, n = 5, one interim; audit s29).
    Holm's test of a pair reads its own column, whose enumerated law does not depend on the slots' order: 5 identical
    normal agents, n = 3, K = 2 (10 x 20 paths, all enumerated), each agent's runs of each batch permuted at random:
    holm's boundaries and decisions are the same to 1e-9, the pairwise scheme's boundaries move."""
    gen = np.random.default_rng(4)
    data = gen.normal(size=(5, 2, 3))
    data.sort(axis=2)  # as fed
    shuffled = gen.permuted(data, axis=2)
    assert not np.array_equal(shuffled, data)
    assert _engine(data, holm=True) == _engine(shuffled, holm=True)
    papers, shuffled_papers = _engine(data, holm=False), _engine(shuffled, holm=False)
    assert [h[2] for h in papers] != [h[2] for h in shuffled_papers]


def test_the_header_of_tasks_one_done_one_going():
    """Two tasks, 3 agents, n = 5, K = 4, 200 paths: t1 (means 0, 5, 10) rejects all three, so its c is 0; t2 (null,
    3 batches) stops with its three undecided. Printing it divided by t1's c = 0 (ZeroDivisionError, found on the
    MuJoCo replay); the spent phrase reads the tasks still going. By hand, alpha / 3 linearly on 126, 200, 200, 200
    paths: 0 (0.53), 1 (1.67), 1 (1.5), 1 (1.33) paths: 0.01 by interim 3, 0.015 in all."""
    assert _linear_counts(0.05 / 3, 4, (126, 200, 200, 200)) == [0, 1, 1, 1]
    gen = np.random.default_rng(0)
    rows = [{"task": task, "agent": f"a{a}", "seed": s, "score": gen.normal(m, 1)}
            for task, means, batches in (("t1", (0, 5, 10), 4), ("t2", (0, 0, 0), 3))
            for a, m in enumerate(means) for s in range(5 * batches)]
    result = adastop_(pd.DataFrame(rows), formula="score ~ agent | task", n=5, K=4, n_resamples=200, rng=0,
                      progress=False)
    assert result._statistic_line() == (
        "rejected = 3, no difference found = 0, undecided = 3 (of 6 comparisons), level per comparison = alpha / c, c not yet "
        "rejected (Holm's step-down): 0.015 each at c = 3, 0.045 in all (alpha = 0.05), of which 0.01 per undecided "
        "comparison spent by interim 3 at c = 3")


def test_holms_rows_of_adastop_at_8_agents_with_10_and_20_runs_per_interim():
    """Audit s29b left AdaStop's holm adastop.fwe rows at 8 agents x n = 10, 20 (K = 6) unmeasured; audit s30 measured
    them with size_adastop.py's measure() (calibrate.py --only adastop.fwe --replace "adastop:8:1:10|20:*:holm", 240
    tests each, 10,000 paths, 36-63 s CPU a point): family-wise error 0.0083-0.058, none missing, now the defaults'."""
    table = rlstats.calibration_table("adastop.fwe")
    rows = table[(table["test"] == "adastop") & (table["agents"] == 8) & (table["tasks"] == 1)
                 & table["runs"].isin([10, 20]) & (table["interval"] == "holm")]
    assert len(rows) == 8 and rows["default"].all() and not rows["misses"].any()
    assert (rows["n_sim"] == 240).all() and (rows["n_resamples"] == 10_000).all()
    fwe = dict(zip(zip(rows["runs"], rows["distribution"]), (1 - rows["coverage"]).round(4)))
    assert fwe == {(10, "normal"): 0.0583, (10, "skewed"): 0.025, (10, "heavy_tailed"): 0.0292, (10, "capped"): 0.05,
                   (20, "normal"): 0.0333, (20, "skewed"): 0.0417, (20, "heavy_tailed"): 0.0375,
                   (20, "capped"): 0.0083}
