"""Audit s32, curves32: curves() keys each agent's resamples by its label, as bootstrap() does.

curves() drew an agent's whole-run resamples from the stream at its place among the agents' names sorted, and a pair's
relabellings from the stream at the pair's two places. Adding or leaving out an unrelated agent, or renaming one so
that it sorts before another, moved the places, and so the other agents' bands and the pairs' p-values and difference
bands, with rng= fixed: a statistic should be true of the rows it analysed. bootstrap() keys an agent's stream by its
label (resampling.agent_seed_sequence); curves now does the same, and keys a pair's relabellings by its two labels.

The tests whose pins the re-keying moved pin today's draws (audit s34 repin34b); this file still runs curves() under
the former keys (``rank_keyed``, a test helper: the package no longer has that path) and finds every former pin, and
the slow reproductions of calibration rows measured on those keys read it (test_audit_s28_gapkinds28, s28_early28).
"""

import hashlib

import numpy as np
import pytest

import rlstats
from conftest import rising_curves
from rlstats.methods.curves import _api as curves_api
from rlstats.resampling import child_stream, label_ranks

FORMULA = "score ~ agent | task/seed"


@pytest.fixture(scope="module")
def frame():
    return rlstats.datasets.simulate_curves(agents=3, tasks=2, seeds=4, steps=5, effect=0.5, rng=3)


def _curves(df, **options):
    return rlstats.curves(df, FORMULA, step="step", n_resamples=120, rng=11, progress=False, **options)


def _agent(result, name):
    """Agent ``name``'s bands, standard errors and resampled curves."""
    a = result.agents.index(name)
    return (result.pointwise[a], result.simultaneous[a], result.std_error[a], result.critical_value[a],
            result.bootstrap_distribution[a])


def _same(one, other):
    for x, y in zip(one, other):
        np.testing.assert_array_equal(x, y)


def test_an_agents_bands_do_not_depend_on_the_other_agents(frame):
    """agent_2's bands: with agent_1 (it is then 2nd of 3), without it (a pandas subset, a Categorical keeping agent_1
    as an unused category: 1st of 2), with agent_1 renamed 'zeta' so that it sorts after agent_2 (1st of 3), and
    without agent_1 and agent_3 renamed 'aaa' so that it sorts before agent_2 (2nd of 2)."""
    two = frame[frame.agent != "agent_1"]
    renamed = frame.assign(agent=frame.agent.astype(str).replace({"agent_1": "zeta"}))
    every, without, after = _curves(frame), _curves(two), _curves(renamed)
    before = _curves(two.assign(agent=two.agent.astype(str).replace({"agent_3": "aaa"})))
    assert without.agents == ("agent_2", "agent_3") and before.agents == ("aaa", "agent_2")
    for other in (without, after, before):
        _same(_agent(every, "agent_2"), _agent(other, "agent_2"))
    # 'zeta' (last of 3) draws as 'zeta' does with agent_2 left out (2nd of 2): its stream is its label's, wherever
    # that label sorts (renaming an agent itself gives it another stream, as bootstrap() does)
    apart = _curves(renamed[renamed.agent != "agent_2"])
    _same(_agent(after, "zeta"), _agent(apart, "zeta"))


def test_a_pairs_comparison_is_the_pair_run_on_its_own_rows(frame):
    """The pair (agent_2, agent_3) compared among three agents is the pair compared on its own rows, and with the
    third agent renamed to sort first."""
    pair = dict(compare=[("agent_3", "agent_2")])
    every = _curves(frame, **pair)
    alone = _curves(frame[frame.agent != "agent_1"], **pair)
    renamed = frame.assign(agent=frame.agent.astype(str).replace({"agent_1": "aaa"}))
    first = _curves(renamed, **pair)
    for other in (alone, first):
        for field in ("differences", "difference_bands", "difference_pvalues", "difference_withheld"):
            np.testing.assert_array_equal(getattr(every, field), getattr(other, field))


# ------------------------------------------------------------------ the draws, by hand (numpy and hashlib alone)

def _label_key(label):
    """The two 32-bit words of a label's stream key: the first 8 bytes of the SHA-256 of its text, little-endian."""
    digest = hashlib.sha256(label.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little"), int.from_bytes(digest[4:8], "little")


def _cell_uniforms(entropy, key, tasks, sizes, n_resamples):
    """(n_resamples, runs) uniforms, task t's ``sizes[t]`` columns from one PCG64 seeded at spawn key ``key`` + its
    label's words below the rng's entropy, row after row (audit s33 curvestream33: a stream a cell)."""
    return np.concatenate([np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        entropy, spawn_key=key + _label_key(task)))).random((n_resamples, size)) for task, size in zip(tasks, sizes)],
        axis=1)


def _runs(frame, agent):
    """(runs, steps) scores of an agent, its runs ordered by task, then by their mean score, then by their curves (the
    first step's score, then the next's; audit s33 curvestream33), and each run's task code."""
    own = frame[frame.agent == agent].sort_values(["task", "seed", "step"])
    wide = own.pivot_table(index=["task", "seed"], columns="step", values="score", observed=True)
    values = wide.to_numpy()
    task_of = np.unique(wide.index.get_level_values("task"), return_inverse=True)[1]
    order = np.lexsort((*values.T[::-1], values.mean(axis=1), task_of))
    return values[order], task_of[order]


def _mean_of_task_means(values, task_of):
    return np.mean([values[..., task_of == t, :].mean(axis=-2) for t in np.unique(task_of)], axis=0)


def test_an_agents_resamples_are_its_labels_stream(frame):
    """agent_2's resampled mean curves: runs drawn within each task (floor(u x runs)), task t's from the stream at
    spawn key (0,) + its label's words + the task's (the bootstrap half of rng=11's two children; audit s33
    curvestream33: a stream a cell, its runs in their curves' order); widened by sqrt(n/(n-1)) at n = 4 runs a task.
    The same with agent_1 in the frame or not."""
    for df in (frame, frame[frame.agent != "agent_1"]):
        res = _curves(df, statistic="mean")
        values, task_of = _runs(frame, "agent_2")
        starts, sizes = np.searchsorted(task_of, [0, 1]), np.bincount(task_of)
        uniforms = _cell_uniforms(11, (0,) + _label_key("agent_2"), ["task_01", "task_02"], sizes, 120)
        picks = starts[task_of] + np.floor(uniforms * sizes[task_of]).astype(int)
        raw = _mean_of_task_means(values[picks], task_of)
        estimate = _mean_of_task_means(values, task_of)
        hand = estimate + np.sqrt(4 / 3) * (raw - estimate)
        np.testing.assert_allclose(res.bootstrap_distribution[res.agents.index("agent_2")], hand, rtol=1e-12)


def test_a_pairs_relabellings_are_its_labels_stream(frame):
    """The max-T test of agent_2 against agent_3 (4 runs each on 2 tasks: 4,900 relabellings, 120 drawn): each task's
    8 runs shuffled by sorting uniform keys (the stream at spawn key (1,) + agent_2's words + agent_3's, the names
    sorted, + the task's: audit s33 curvestream33), its first 4 then agent_2's; each step studentised by the null's SD, p = (1 + hits) / 121, hits the
    relabellings whose largest |t| over steps reaches the step's; the same with agent_1 in the frame or not."""
    first, second = _runs(frame, "agent_2"), _runs(frame, "agent_3")
    pooled = np.concatenate([first[0], second[0]])
    task_of = np.concatenate([first[1], second[1]])
    order = np.argsort(task_of, kind="stable")
    pooled, task_of = pooled[order], task_of[order]
    is_first = np.r_[np.arange(8) < 4, np.arange(8) < 4]  # each task's first 4 places
    uniforms = _cell_uniforms(11, (1,) + _label_key("agent_2") + _label_key("agent_3"), ["task_01", "task_02"],
                              [8, 8], 120)
    shuffled = np.argsort(uniforms + task_of, axis=1, kind="stable")
    null = (_mean_of_task_means(pooled[shuffled[:, is_first]], task_of[is_first])
            - _mean_of_task_means(pooled[shuffled[:, ~is_first]], task_of[~is_first]))
    observed = _mean_of_task_means(*first) - _mean_of_task_means(*second)
    se = null.std(axis=0, ddof=1)
    hits = ((np.abs(null) / se).max(axis=1)[:, None] >= (np.abs(observed) / se)[None, :]).sum(axis=0)
    for df in (frame, frame[frame.agent != "agent_1"]):
        res = _curves(df, statistic="mean", compare=[("agent_3", "agent_2")])
        np.testing.assert_allclose(res.differences[0], -observed, rtol=1e-12)
        np.testing.assert_array_equal(res.difference_pvalues[0], (1 + hits) / 121)


# ------------------------------------------------------------------ the pins the re-keying moved

class _AgentUniforms:
    """curves' draws before audit s33 curvestream33: one stream for all of an agent's (or a pair's) runs, block b of
    RNG_BLOCK resamples from its b-th spawned child, a row all its runs (the tasks in their names' order)."""

    def __init__(self, cells, sizes):
        self.ss, self.n, self.block = cells[0], int(np.sum(sizes)), 0

    def rows(self, k):
        child = np.random.SeedSequence(self.ss.entropy, spawn_key=tuple(self.ss.spawn_key) + (self.block,))
        self.block += 1
        return np.random.Generator(np.random.PCG64(child)).random((k, self.n))


def _seed_ordered_runs(design, matrix, starts, agent, run_means):
    """curves' layout before audit s33 curvestream33: a task's runs in their seeds' sorted order."""
    mine = design.agent[starts] == agent
    task = design.task_places[design.task[starts][mine]]
    seeds = np.zeros(task.size, dtype=np.intp)
    if design.seeds is not None:
        labels, codes = np.unique(design.seeds[starts][mine].astype(str), return_inverse=True)
        seeds = label_ranks(labels)[codes]
    order = np.lexsort((seeds, task))
    return matrix[mine][order], task[order]


def rank_keyed(monkeypatch, agents):
    """curves() with the streams keyed as before audit s32: an agent's at its place among the agents' names sorted,
    a pair's at its two places (child_stream(ss, place) for each label, nested for a pair as the labels' are); and
    drawn as before audit s33 curvestream33 (one stream an agent or pair, not one a cell; a task's runs in their
    seeds' order, not their curves')."""
    places = {name: int(place) for name, place in zip(agents, label_ranks(list(agents)))}
    monkeypatch.setattr(curves_api, "agent_seed_sequence", lambda ss, label: child_stream(ss, places[label]))
    # a pair's stream has had its own home since audit s33 (resampling.pair_seed_sequence, read-through rt33b): its
    # second agent's place below its first's, as agent_seed_sequence nested gave it before
    monkeypatch.setattr(curves_api, "pair_seed_sequence",
                        lambda ss, first, second: child_stream(child_stream(ss, places[first]), places[second]))
    monkeypatch.setattr(curves_api, "_cell_streams", lambda ss, design: [ss])
    monkeypatch.setattr(curves_api.kernels, "CellUniforms", _AgentUniforms)
    monkeypatch.setattr(curves_api, "_agent_runs", _seed_ordered_runs)


def _ordered_ties():
    df = rlstats.datasets.simulate_curves(agents=3, tasks=4, seeds=3, steps=5, effect=0.5, rng=0)
    res = rlstats.curves(df.assign(score=np.round(df["score"] * 2)), FORMULA, step="step", rng=1, n_resamples=100,
                         progress=False)
    return res.tidy()[["conf_low_simultaneous", "conf_high_simultaneous"]].to_numpy()[2]


def _saturated(cap, statistic="iqm", **shape):
    from test_audit_s10_saturated import CAPPED_CAP, SATURATED_CAP
    return rlstats.curves(rising_curves({"saturated": SATURATED_CAP, "capped": CAPPED_CAP}[cap], 2, **shape), FORMULA,
                          step="step", statistic=statistic, n_resamples=200, rng=1, progress=False)


def _skewed26(tasks, **runs):
    import test_audit_s26_curves26 as s26
    return s26._curves(s26._frame(tasks=tasks, **runs), statistic="median")


def _early27():
    import test_audit_s27_curvecmp27 as c27
    res = c27._curves(c27._frame())
    return np.r_[res.difference_pvalues[0, :5] * 101, res.difference_bands[0, 3:5].ravel()]


def _gap27():
    import test_audit_s27_curvegap27 as g27
    gap = g27._curves(g27._skewed(), "optimality_gap", compare="all")
    unlogged = rlstats.curves(g27._unlogged(0.5), FORMULA, step="step", steps=[0, 1, 2, 3], statistic="mean",
                              compare="all", n_resamples=100, rng=1, progress=False)
    return np.r_[gap.pointwise[0, 0, 1], gap.pointwise[0, 3, 1], gap.simultaneous[0, 3, 1],
                 unlogged.difference_pvalues[0, :2] * 101]


#: case -> (agents, the values, those the tests pinned before audit s32, rtol, atol)
FORMER = {
    "s10_order": (("agent_1", "agent_2", "agent_3"), _ordered_ties, [5.666667, 8.518724], 0, 1e-6),
    "s10_saturated": (("A", "B"), lambda: _saturated("saturated", steps=4).pointwise[0, :2],
                      [[-2.731688955646, -0.860575787492], [-1.582037401243, -0.77505103042]], 1e-6, 1e-12),
    "s10_capped": (("A", "B"), lambda: _saturated("capped", steps=4).simultaneous[:, -1],
                   [[-1.81653946946, 0.968700570856], [-1.007198904716, 0.845163706837]], 1e-6, 1e-12),
    "s11_saturated_median": (("A", "B"), lambda: _saturated("saturated", "median", runs=5, steps=6).pointwise[:, :2],
                             [[[-2.99633905511, -1.756357272205], [-2.762160624521, -1.426564229943]],
                              [[-2.630189617822, -1.501043660695], [-3.234913972755, -1.517062194106]]], 1e-6, 1e-12),
    "s11_capped_median": (("A", "B"), lambda: _saturated("capped", "median", runs=5, steps=6).pointwise[1, 4:],
                          [[-1.117333580181, 0.350546498866], [-0.751837478, 0.188068240]], 1e-6, 1e-12),
    "s26_one_task": (("a", "b"), lambda: _skewed26(1, runs=(6,)).pointwise[0, -1],
                     [2.3920054775866237, 8.096663317511743], 1e-9, 0),
    "s26_three_tasks": (("a", "b"), lambda: np.r_[_skewed26(3).pointwise[0, -1], _skewed26(3).simultaneous[0, -1]],
                        [13.65629261690649, 17.486464451183494, 11.502763962416152, 21.26848934195961], 1e-9, 0),
    "s27_curvecmp": (("agent_1", "agent_3"), _early27,
                     [101, 101, 74, 11, 5, -2.2634217221671493, 0.17463982931122612, -2.71696620946304,
                      -0.02459208364104248], 1e-12, 0),
    "s27_curvegap": (("A", "B"), _gap27, [0.313320, 0.505169, 0.666958, 1, 1], 0, 1e-6),
}


@pytest.mark.parametrize("case", [pytest.param(case, marks=[] if case == "s26_one_task" else [pytest.mark.slow])
                                  for case in FORMER])
def test_the_former_keys_give_the_former_pins(case, monkeypatch):
    """The pins audit s32 moved (each test's rng=, resamples and data as they are): with the streams keyed as before,
    curves() gives every one of the former values (bit for bit where they were pinned so), so the re-keying alone
    moved them, and their new values are the same computation on the label's draws (checked by hand above)."""
    agents, values, former, rtol, atol = FORMER[case]
    rank_keyed(monkeypatch, agents)
    np.testing.assert_allclose(values(), former, rtol=rtol, atol=atol)


def test_the_same_with_two_workers_and_rows_shuffled(frame):
    """The label-keyed streams are the same whatever runs them and in whatever order the rows come."""
    base = _curves(frame, compare="all")
    shuffled = frame.sample(frac=1.0, random_state=5)
    for other in (_curves(frame, compare="all", n_jobs=2), _curves(shuffled, compare="all")):
        for field in ("pointwise", "simultaneous", "bootstrap_distribution", "df", "difference_bands",
                      "difference_pvalues"):
            np.testing.assert_array_equal(getattr(other, field), getattr(base, field), err_msg=field)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_former_keys_give_the_former_withheld_steps_of_dopamine(mirror, monkeypatch):
    """test_audit_s20_band20b's bands far beyond the scores (Dopamine's DQN, IQN and Rainbow, 3 runs of 3 games): the
    former keys give the former reach of the simultaneous bands. Since audit s32 simband32 (the sup-t quantile read at
    most at the Bonferroni tail) no band reaches UNITS_SLIP = 10 times the scores' range, so the pin is the reach
    itself: 0.55, 3.79 and 2.89 times the range under the former keys (s20_band20b's pin before audit s33
    curvestream33), 0.51, 2.95 and 2.49 on today's draws (its pin now). Until audit s34 this test still looked for
    the 10-times note of IQN's 191 withheld steps, a pin from before simband32's band that it no longer gave."""
    from test_audit_s20_band20b import _dopamine_three_runs

    df = _dopamine_three_runs()
    span = df["score"].max() - df["score"].min()

    def reach():
        res = rlstats.curves(df, FORMULA, step="step", n_resamples=500, rng=0, progress=False, normalize=False)
        assert res.agents == ("DQN", "IQN", "Rainbow")
        return np.abs(res.simultaneous - res.estimates[..., None]).max(axis=(1, 2)) / span

    np.testing.assert_allclose(reach(), [0.51, 2.95, 2.49], atol=0.01)  # as s20_band20b's comment rounds them
    rank_keyed(monkeypatch, ("DQN", "IQN", "Rainbow"))
    np.testing.assert_allclose(reach(), [0.55, 3.79, 2.89], atol=0.01)


@pytest.mark.slow
def test_the_former_keys_give_the_former_coverage_of_the_hall_reference(monkeypatch):
    """test_audit_s26_hall26's reduced reference run (4 data sets of agents a0 and a1): 0.925 and 0.95 of its steps
    held (the default band and the pooled Hall band)."""
    import runpy
    from test_audit_s26_hall26 import REFERENCE

    rank_keyed(monkeypatch, ("a0", "a1"))
    script = runpy.run_path(str(REFERENCE))
    rows = {(c, b): cov for c, b, cov, worst, n, w in script["measure"](5, 1, "skewed", 4)}
    assert round(rows["default", "pointwise"], 4) == 0.925 and round(rows["pooled_hall", "pointwise"], 4) == 0.95
    # and its full run (800 bands): the default's pointwise coverage, worst draw and median width as pinned before
    rows = {(c, b): (cov, worst, w) for c, b, cov, worst, n, w in script["measure"](5, 1, "skewed", 400)}
    assert tuple(round(x, 3) for x in rows["default", "pointwise"]) == (0.95, 0.927, 1.112)
