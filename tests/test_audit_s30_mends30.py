"""Audit s30 (mends30): small leftovers of session 29, each with a test of the behaviour fixed.

1. rlstats.bayes printed its pairs' table (estimate, interval) at 4 significant digits and its orderings' shares at
   3, while summary() and to_latex() gave the same numbers at 5 (-0.4557 printed, -0.45567 in the LaTeX table).
2. The near-tie note ("some scores of one task are within 1e-12 of each other ...") named no task.
3. power()'s small-pilot note quoted the blocked rank test's spread whatever method was planned (the permutation
   test's own figures measured since: test_audit_s30_spread30).
4. rlstats.datasets.load("hpo_landscapes") parsed its nine files again on every call (about 1 s).
5. tuning() on a LunarLander sweep capped at 1000 gave intervals above 1000 and said nothing.
6. The rank test's note on mean ranks outside 1..k wrote k for the number of agents where the tasks rank different
   numbers of them.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import format as fmt
from rlstats.datasets import _registry
from rlstats.datasets._fetch import _fetch

from conftest import load_dataset


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ------------------------------------------------------------------ 1. bayes: the print's digits are the LaTeX's
def test_bayes_print_and_latex_give_the_same_digits():
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=0.4, rng=1)
    res = _quiet(rlstats.bayes, df, "score ~ agent | task", n_samples=2000, rng=0)
    printed, latex = str(res), res.to_latex().replace("$-$", "-")
    for value in res.comparisons[["estimate", "conf_low", "conf_high"]].to_numpy().ravel():
        text = fmt.signif(value)
        assert text in printed and text in latex, text
    assert fmt.signif(-0.455669, 4) not in printed  # the 4-digit -0.4557 of the estimate (-0.45567) is gone
    for share in res.orderings["probability"].head(5):
        assert f"  {fmt.signif(share)}  " in printed


# ------------------------------------------------------------------ 2. the near-tie note names its tasks
def _near_tied(tasks=7, tied=("task_03", "task_05"), seeds=1):
    df = rlstats.datasets.simulate(agents=3, tasks=tasks, seeds=seeds, effect=0.4, rng=1)
    for task, (a, b) in zip(tied, [(0.1 + 0.2, 0.3), (1.1 + 2.2, 3.3)] * tasks):
        df.loc[(df.task == task) & (df.agent == "agent_2"), "score"] = a
        df.loc[(df.task == task) & (df.agent == "agent_3"), "score"] = b
    return df


def test_near_tie_note_names_the_tasks():
    df = _near_tied()
    for function in (rlstats.skillings_mack, rlstats.task_table):
        (note,) = [n for n in function(df, "score ~ agent | task").notes if "within 1e-12" in n]
        assert note.startswith("some scores of task_03 and task_05 are within 1e-12 of each other"), note
    poi = rlstats.probability_of_improvement(_near_tied(seeds=2), "score ~ agent | task/seed", n_resamples=50, rng=0)
    (note,) = [n for n in poi.notes if "within 1e-12" in n]
    assert note.startswith("some scores of task_03 and task_05 are within 1e-12 of each other"), note
    many = _near_tied(12, [f"task_{i:02d}" for i in range(1, 7)])
    (note,) = [n for n in rlstats.skillings_mack(many, "score ~ agent | task").notes if "within 1e-12" in n]
    assert note.startswith("some scores of task_01, task_02, task_03 and 3 more tasks are within 1e-12"), note


# ------------------------------------------------------------------ 3. the pilot note names the method planned
@pytest.mark.parametrize("method", ["skillings_mack", "adastop", ["skillings_mack", "adastop"]])
def test_small_pilot_note_names_the_method_planned(method):
    """The spread was measured with the rank test (tests/reference/pilot_spread.py): a plan of another test is told
    its figures are the rank test's, not its own. Since audit s30 (spread30) the permutation test has its own figures
    (tests/test_audit_s30_spread30.py): AdaStop, not measured, stands for the tests that were not."""
    pilot = rlstats.datasets.simulate(agents=2, tasks=5, seeds=3, effect=0.0, rng=100)
    res = _quiet(rlstats.power, method, design=pilot, formula="score ~ agent | task", effect=1.0, seeds=[5],
                 n_sim=4, rng=0, progress=False)
    (note,) = [n for n in res.notes if n.startswith("pilot: as few as 3 runs")]
    assert "the blocked rank test's rate at 5 seeds ranged 0.38 to 1 (10th to 90th percentile)" in note, note
    unmeasured = ("(these figures are the blocked rank test's: AdaStop planned here was not measured, "
                  "though its rates are drawn from the same pilot)")
    assert note.endswith(unmeasured) == (method != "skillings_mack"), note


# ------------------------------------------------------------------ 4. load() parses a file set once
def test_load_parses_once_and_hands_out_fresh_copies(monkeypatch, mirror):
    """Counted on the parser, not timed; the files' SHA-256 is still checked on every call."""
    from collections import OrderedDict
    monkeypatch.setattr(_registry, "_PARSED", OrderedDict())  # what earlier tests of this process parsed
    calls = []
    dataset = _registry._DATASETS["hpo_optimisation"]

    def counted(paths):  # with attrs nested as the loader's notes are (hpo_landscapes'), to change in place
        calls.append(1)
        frame = dataset.parse(paths)
        frame.attrs["probe"] = {"notes": ["as parsed"]}
        return frame

    import dataclasses
    monkeypatch.setitem(_registry._DATASETS, "hpo_optimisation", dataclasses.replace(dataset, parse=counted))
    first = rlstats.datasets.load("hpo_optimisation")
    expected = first.copy(deep=True)
    first.loc[:, "score"] = -1.0  # a caller changing its frame, its notes too
    first.attrs["probe"]["notes"].append("changed")
    second = rlstats.datasets.load("hpo_optimisation")
    assert len(calls) == 1
    pd.testing.assert_frame_equal(second, expected)
    assert second.attrs == {"probe": {"notes": ["as parsed"]}}
    assert second is not rlstats.datasets.load("hpo_optimisation") and len(calls) == 1
    checked = []
    monkeypatch.setattr(_registry, "_fetch", lambda key, cache_dir: checked.append(key) or _fetch(key, cache_dir))
    rlstats.datasets.load("hpo_optimisation")
    assert len(checked) == 1 and len(calls) == 1


# ------------------------------------------------------------------ 5. a capped sweep: the note suggests the cap
def test_tuning_on_a_capped_sweep_suggests_bounds_at_the_cap(mirror):
    land = load_dataset("hpo_landscapes")
    sub = land[land["landscape"] == "gamma_velocity-weight"]
    top = sub.groupby("config")["score"].mean().nlargest(30).index
    sweep = sub[sub["config"].isin(top)].assign(agent="PPO")
    assert sweep["score"].max() == 1000.0 and (sweep["score"] == 1000.0).mean() == 0.87
    res = rlstats.tuning(sweep, "score ~ agent | task/seed", config=["hyperparameter", "reward_weight"],
                         n_resamples=100, rng=0)
    assert res.tables["tuned"]["conf_high"].max() > 1000  # the interval above the cap, unclipped without bounds=
    (note,) = [n for n in res.notes if "bounds=" in n]
    assert "above 1000, the largest score of task 'LunarLander' (261 of its 300 runs reach it)" in note, note
    assert "pass bounds=(None, 1000) to clip them" in note, note
    clipped = rlstats.tuning(sweep, "score ~ agent | task/seed", config=["hyperparameter", "reward_weight"],
                             n_resamples=100, rng=0, bounds=(None, 1000))
    assert clipped.tables["tuned"]["conf_high"].max() == 1000 and not any("pass bounds=" in n for n in clipped.notes)


# ------------------------------------------------------------------ 6. the rank scale of an unbalanced design
def test_rank_scale_note_gives_the_agents_ranked_per_task():
    rng = np.random.default_rng(0)
    rows = [{"agent": a, "task": f"t{t}", "seed": s, "score": 10.0 if a == "A" else rng.normal()}
            for t in range(6) for a in ("ABCD" if t < 3 else "ABC") for s in range(1 if a == "A" else 4)]
    res = rlstats.skillings_mack(pd.DataFrame(rows), "score ~ agent | task")
    # A beats all: rank 1 of q = 13 runs on the 4-agent tasks, of 9 on the 3-agent ones, (r - 1/2) k / q + 1/2
    assert res.variant == "mack_skillings"
    assert res.mean_ranks[0] == pytest.approx((3 * (0.5 * 4 / 13 + 0.5) + 3 * (0.5 * 3 / 9 + 0.5)) / 6, rel=1e-12)
    (note,) = [n for n in res.notes if "outside" in n]
    assert note.startswith("mean rank of A (0.66) outside 1..k, k = 3 to 4 agents ranked per task"), note
    assert "(r - 1/2) k / q + 1/2, with k the agents ranked on its task" in note, note
