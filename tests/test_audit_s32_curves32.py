"""Audit s32, curves32: curves() keys each agent's resamples by its label, as bootstrap() does.

curves() drew an agent's whole-run resamples from the stream at its place among the agents' names sorted, and a pair's
relabellings from the stream at the pair's two places. Adding or leaving out an unrelated agent, or renaming one so
that it sorts before another, moved the places, and so the other agents' bands and the pairs' p-values and difference
bands, with rng= fixed: a statistic should be true of the rows it analysed. bootstrap() keys an agent's stream by its
label (resampling.agent_seed_sequence); curves now does the same, and keys a pair's relabellings by its two labels.

The tests whose pins the re-keying moved pin today's draws (audit s34 repin34b). Until audit s35 former35 this file
also ran curves() under the former keys (``rank_keyed``, a test helper: the package has no such path) and found every
former pin, for the slow reproductions of calibration rows measured on those keys (test_audit_s28_gapkinds28,
s28_early28); former35 re-measured those rows on today's keys and streams, and the helper went with its self-tests.
"""

import hashlib

import numpy as np
import pytest

import rlstats

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


# ------------------------------------------------------------------ whatever runs them

def test_the_same_with_two_workers_and_rows_shuffled(frame):
    """The label-keyed streams are the same whatever runs them and in whatever order the rows come."""
    base = _curves(frame, compare="all")
    shuffled = frame.sample(frac=1.0, random_state=5)
    for other in (_curves(frame, compare="all", n_jobs=2), _curves(shuffled, compare="all")):
        for field in ("pointwise", "simultaneous", "bootstrap_distribution", "df", "difference_bands",
                      "difference_pvalues"):
            np.testing.assert_array_equal(getattr(other, field), getattr(base, field), err_msg=field)


