"""Audit s22 (ranges22): the per-block smallest and largest score read from ``statistics.block_ranges`` (one home), and
what ``rlstats.bayes`` says of pairs whose runs mostly sit at a task's bound.

Part A: the hand-written ``np.minimum.at``/``np.maximum.at`` passes of bootstrap's ``_small_runs`` (``welch_df``,
``pooled_run_skewness``), equivalence (``_cells``, ``_aggregate``), mixed (``_run``, ``_refit``), bayes
(``_agent_cells``) and ``bounds._at_bounds`` now call ``block_ranges``. The numbers below were printed by main at
943a0e60 (before the change) on :func:`_capped_frame`; the branch gives the same bits.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.bounds import bound_ties, tie_counts
from rlstats.design import build
from rlstats.methods.bayes import _api as bayes_api
from rlstats.methods.bootstrap import _small_runs
from rlstats.methods.equivalence import _api as equivalence_api


#: main's numbers to the last bits the oldest supported numpy and scipy give differently (sums, p-values: 3e-12)
SAME = {"rel": 1e-10, "abs": 0.0}


def _simulated(shift=0.0, scale=1.0):
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=5, effect=1.0, distribution="normal", rng=7)
    df["score"] = df["score"] * scale + shift
    return df


def _capped_frame(shift=0.0, scale=1.0):
    """3 agents x 6 tasks x 5 runs, each task cut at its 60th percentile (ties at the top, cells mostly there) and
    agent_1's runs on task_02 all 3.25 (a flat cell); then ``scale * y + shift``."""
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=5, effect=1.0, distribution="normal", rng=7)
    cap = df.groupby("task")["score"].transform(lambda s: s.quantile(0.6))
    df["score"] = np.minimum(df["score"], cap)
    df.loc[(df.task == "task_02") & (df.agent == "agent_1"), "score"] = 3.25
    df["score"] = df["score"] * scale + shift
    return df


def _by_pandas(y, codes, n):
    """Each code's smallest and largest y by pandas' groupby (the independent value)."""
    grouped = pd.Series(y).groupby(codes)
    return (grouped.min().reindex(range(n)).fillna(np.inf).to_numpy(),
            grouped.max().reindex(range(n)).fillna(-np.inf).to_numpy())


def test_block_ranges_agrees_with_a_groupby_on_the_sites_code_arrays():
    """The code arrays the sites pass (tasks, agents, task x agent cells) give pandas' minima and maxima."""
    from rlstats.statistics import block_ranges

    d = build(_capped_frame(), "score ~ agent | task")
    for codes, n in ((d.task, d.n_tasks), (d.agent, d.n_agents),
                     (d.task * d.n_agents + d.agent, d.n_tasks * d.n_agents)):
        low, high = block_ranges(d.y, codes, n)
        want_low, want_high = _by_pandas(d.y, codes, n)
        assert np.array_equal(low, want_low) and np.array_equal(high, want_high)
    # a code without scores keeps inf / -inf, as the sites' own np.full(inf) starts did
    low, high = block_ranges([2.0, 1.0], [0, 2], 4)
    assert low.tolist() == [2.0, np.inf, 1.0, np.inf] and high.tolist() == [2.0, -np.inf, 1.0, -np.inf]


def test_sites_give_mains_numbers_on_a_capped_design():
    """The helpers and public results reading the per-block ranges, as main printed them before the change (the same
    bits under /work/venv's numpy; ``SAME`` allows the oldest supported numpy's last-bit differences)."""
    df = _capped_frame()
    d = build(df, "score ~ agent | task")
    welch = [_small_runs.welch_df(d.y[d.agent == a], d.task[d.agent == a], d.n_tasks) for a in range(3)]
    assert welch == pytest.approx([6.915549608186083, 10.655456041498878, 6.980990553070132], **SAME)
    skew = [_small_runs.pooled_run_skewness(d.y[d.agent == a], d.task[d.agent == a], d.n_tasks)[:2]
            for a in range(3)]
    assert [g for g, _ in skew] == pytest.approx([-0.948687639456667, -0.7653739980716053, -1.663789426796698], **SAME)
    assert [n for _, n in skew] == [5, 6, 6]
    _, sd, _ = equivalence_api._cells(d)
    assert sd.ravel()[:6].tolist() == pytest.approx([1.3096670918517896, 3.622298865553238, 3.4258511590424705, 0.0,
                                                     0.04398944464088428, 0.006518594687411338], **SAME)
    assert sd.ravel()[3] == 0.0  # the flat cell
    at_bound, distance = bound_ties(d)
    assert at_bound.ravel().tolist() == [4, 1, 2, 5, 1, 0, 1, 2, 3, 2, 1, 3, 2, 1, 3, 1, 2, 3]
    assert distance.ravel()[:3].tolist() == pytest.approx([4.5821420756735165, 5.435653104663174, 4.5821420756735165],
                                                          **SAME)
    at, tied = tie_counts(d.task, d.agent, d.y, d.n_tasks, d.n_agents)
    assert np.array_equal(at, at_bound) and tied.ravel()[:6].tolist() == [4, 0, 2, 5, 0, 0]


def test_mixed_and_bayes_cells_give_mains_numbers():
    """mixed()'s flat-runs check (``_run``) and bayes' per-cell largest and smallest runs (``_agent_cells``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the raw-scales caution
        mixed = rlstats.mixed(_capped_frame(), "score ~ agent | task").tidy()
    assert mixed[["estimate", "std_error", "p_value"]].to_numpy().ravel().tolist() == pytest.approx([
        1.0171229076002024, 0.6435746397922412, 0.14508998270339876, 0.7031190919033938, 0.6435746397922412,
        0.30022455319602065, -0.3140038156968086, 0.6435746397922412, 0.6361367838374915], **SAME)
    free = build(_simulated(), "score ~ agent | task")
    counts, sums, means, within, high, low = bayes_api._agent_cells(free, 1.0)
    assert within[0, :3].tolist() == pytest.approx([79.80697081559047, 0.05659234904306174, 1.8633908859553256], **SAME)
    want_low, want_high = _by_pandas(free.y, free.task * 3 + free.agent, 18)
    assert np.array_equal(low, want_low.reshape(6, 3).T) and np.array_equal(high, want_high.reshape(6, 3).T)


# ----------------------------------------------------------------------------- part B: bayes' saturated note


def _one_saturated_task(shift=0.0, scale=1.0):
    """A and B on 10 tasks x 5 runs, normal scores; on t3 four of A's five runs sit at the cap 2.5 (the pair's
    largest score there), B's below it: one task of ten where an agent's runs mostly sit at a bound."""
    rng = np.random.default_rng(22)
    scores = rng.normal(size=(10, 2, 5)) + np.arange(10)[:, None, None]
    scores[3] = [[2.5, 2.5, 2.5, 2.5, 2.1], [1.9, 2.2, 2.0, 2.4, 1.6]]
    from conftest import long_frame

    df = long_frame(scores)
    df["score"] = df["score"] * scale + shift
    return df


def _saturated_said(res):
    return [n for n in res.notes if "largest or smallest score" in n]


def test_bayes_saturated_note_says_on_which_tasks():
    """The note said "the runs of A vs B mostly sit at the pair's largest or smallest score of a task" and quoted the
    coverage measured with the cap on every task, of a pair whose runs sit at a bound on one task of ten (t3, 4 of
    A's 5 runs). It now names the task, whose runs and how many, says what the model reads there and that a bound
    on some tasks only was not measured; the same words after y * 1e-3 + 1e6 (rope scaled alike)."""
    said = []
    for shift, scale in ((0.0, 1.0), (1e6, 1e-3)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.bayes(_one_saturated_task(shift, scale), "score ~ agent | task", n_samples=2_000, rng=0)
        said.append(_saturated_said(res))
    assert said[0] == said[1] and len(said[0]) == 1
    note = said[0][0]
    assert note.startswith("on some tasks half or more of an agent's runs (2 or more) sit at the pair's largest or "
                           "smallest score of the task, as at a score cap: A vs B on 1 of 10 tasks (t3; A 4 of its "
                           "5 runs there). The signed-rank model reads each task's difference")
    assert "here the runs at a bound are on only some of the tasks of A vs B (above), which was not measured" in note
    assert "the difference is 0" not in note  # B's runs on t3 vary: no zero difference there
    assert "0.62-0.81" in note and "up to 0.18" in note  # the figures measured with the cap on every task


def _both_capped():
    """A and B on 6 tasks x 4 runs; on t1 every run of both is 5.0 (the cap), so the pair's difference there is 0."""
    rng = np.random.default_rng(5)
    scores = rng.normal(size=(6, 2, 4)) + np.arange(6)[:, None, None]
    scores[1] = 5.0
    from conftest import long_frame

    return long_frame(scores)


@pytest.mark.parametrize("rope, where", [(0.0, "which counts half to P(better) and half to P(worse) (rope = 0"),
                                         (0.1, "which lies in the ROPE and counts towards P(rope)")])
def test_bayes_saturated_note_says_a_zero_difference_of_both_at_the_cap(rope, where):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(_both_capped(), "score ~ agent | task", rope=rope, n_samples=2_000, rng=0)
    note = _saturated_said(res)[0]
    assert "A vs B on 1 of 6 tasks (t1; A 4 of its 4 runs there, B 4 of its 4 runs there)" in note
    assert "where both agents' runs of a task all sit at it (A vs B: t1) the difference is 0, " + where in note
    # the model's own reading: the task's difference of means is exactly 0
    d = build(_both_capped(), "score ~ agent | task")
    means = d.cell_matrix("mean")
    assert means[1, 0] - means[1, 1] == 0.0


def _atari_note(mirror):
    df = rlstats.datasets.load("atari100k")
    rows = df[df["agent"].isin(["DrQ", "IRIS", "PlayVirtual"])]
    res = rlstats.bayes(rows, "score ~ agent | task", normalize="atari100k_reference", n_samples=2_000, rng=0)
    return _saturated_said(res)


def test_bayes_saturated_note_on_atari_names_private_eye(mirror):
    """On Atari 100k (DrQ, IRIS, PlayVirtual, human-normalised) the note said the runs of the three pairs mostly sit
    at a task's bound; that holds of one game of 26, PrivateEye, where IRIS's 5 runs and 13 of PlayVirtual's 15 sit
    at the pair's bound, DrQ's runs at none."""
    said = _atari_note(mirror)
    assert len(said) == 1
    assert ("DrQ vs IRIS on 1 of 26 tasks (PrivateEye; IRIS 5 of its 5 runs there), DrQ vs PlayVirtual on 1 of 26 "
            "tasks (PrivateEye; PlayVirtual 13 of its 15 runs there), IRIS vs PlayVirtual on 1 of 26 tasks "
            "(PrivateEye; IRIS 5 of its 5 runs there, PlayVirtual 13 of its 15 runs there)") in said[0]
    assert "the difference is 0" not in said[0]
    assert "of DrQ vs IRIS, DrQ vs PlayVirtual, IRIS vs PlayVirtual (above), which was not measured" in said[0]


# ----------------------------------------------------------------------------- part A: units and origin


def _round_off_cell(shift=0.0):
    """A and B on 4 tasks x 4 runs; on t0 A's runs are 0.3 and 0.1 + 0.2 (0.30000000000000004) twice each, which
    tie by the package's rule (statistics.near_ties), and B's all 0.7; the other tasks normal. ``+ shift``."""
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(4, 2, 4)) + np.arange(4)[:, None, None]
    scores[0] = [[0.3, 0.1 + 0.2, 0.3, 0.1 + 0.2], [0.7] * 4]
    from conftest import long_frame

    df = long_frame(scores)
    df["score"] += shift
    return df


def test_equivalence_reads_round_off_ties_alike_whatever_the_origin():
    """equivalence() read a cell's runs as flat (``_cells``) and at the task's bound (``bounds._at_bounds``) by exact
    equality: A's 0.3 and 0.1 + 0.2 on t0 were two values unshifted and one after + 1e6. Main printed "per-task tests
    are withheld in 1 case where half or more of an agent's runs tie at the pair's largest ..." and an across-tasks
    SE of 0.23011 unshifted (2 of A's 4 runs at the bound), "... where neither agent's runs vary" and 0.23081 after
    + 1e6 (4 of 4). Both read the tie rule (statistics.near_ties) now: the shifted reading, whatever the origin."""
    out = []
    for shift in (0.0, 1e6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.equivalence(_round_off_cell(shift), "score ~ agent | task", margin=0.5, aggregate=None)
        across = res.tidy().query("scope == 'across tasks'").iloc[0]
        out.append((float(across["std_error"]), list(res.notes)))
    assert out[0][0] == pytest.approx(0.2308081313723045, rel=1e-10)
    assert out[1][0] == pytest.approx(0.2308081313723045, rel=1e-14)
    assert out[0][1] == out[1][1]
    assert out[0][1][0].startswith("per-task equivalence tests are withheld in 1 case where neither agent's runs vary "
                                   "(t0/A vs B)")
    d = build(_round_off_cell(), "score ~ agent | task")
    assert bound_ties(d)[0][0].tolist() == [4, 4]  # main: [2, 4]


def _round_off_everywhere(shift=0.0):
    """A's runs on 3 tasks: 0.3 and 0.1 + 0.2 (a tie by the package's rule); B's all 0.7. ``+ shift``."""
    scores = np.empty((3, 2, 4))
    scores[:, 0] = [0.3, 0.1 + 0.2, 0.3, 0.1 + 0.2]
    scores[:, 1] = 0.7
    from conftest import long_frame

    df = long_frame(scores)
    df["score"] += shift
    return df


def test_mixed_and_welch_df_read_round_off_ties_alike_whatever_the_origin():
    """mixed() and the bootstrap's Welch df read an agent's runs as varying by exact inequality: on main 0.3 and
    0.1 + 0.2 gave a fit (estimate -0.4, SE 1.9e-17, p NaN) and df 9 unshifted, the flat-runs refusal and df inf
    after + 1e6. Both read the tie rule now: the refusal and df inf at either origin."""
    for shift in (0.0, 1e6):
        df = _round_off_everywhere(shift)
        with pytest.raises(rlstats.DesignError, match="every run of each agent has the same score"):
            rlstats.mixed(df, "score ~ agent | task")
        d = build(df, "score ~ agent | task")
        assert _small_runs.welch_df(d.y[d.agent == 0], d.task[d.agent == 0], d.n_tasks) == np.inf
