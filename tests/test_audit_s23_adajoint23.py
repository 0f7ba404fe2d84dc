"""Audit s23 (adajoint23): AdaStop's default joint relabelling beside agents of another spread.

The paper's AdaStop (Mathieu et al. 2023, Sec. 4, Eq. 8) permutes, for each comparison, the concatenation of the two
agents' 2N scores of an interim ("a permutation sigma_k in S_2N at interim k that reshuffles the order of the scores"),
with one permutation index shared by every comparison (Eq. 9 takes the max over comparisons of the same sigma). The
package's default ``permutations="joint"`` relabels the pooled runs of every running agent instead: exact under the
global null, not when identical agents sit beside agents of another spread. ``tests/reference/size_adastop_spread.py``
measures both schemes (the ``adastop.fwe_spread`` rows of ``rlstats/calibration.csv``).
"""

from __future__ import annotations

import math
import pathlib
import runpy
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration

REFERENCE = pathlib.Path(__file__).parent / "reference"
SPREAD = runpy.run_path(str(REFERENCE / "size_adastop_spread.py"))


def _rows():
    table = pd.DataFrame(calibration.rows("adastop.fwe_spread"))
    table["fwe"] = 1 - table["coverage"].astype(float)
    table["ratio"] = table["configuration"].str.extract(r"ratio=(\d+)")[0].astype(int)
    table["K"] = table["configuration"].str.extract(r"K=(\d+)")[0].astype(int)
    return table


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="left for the lead (a redesign): the default joint relabelling pools every "
                                       "running agent's runs, so two identical agents 4 times as spread as two "
                                       "others are rejected in 0.108 of 600 tests (4 agents, n = 5, K = 4; 3 SE "
                                       "above 0.05 is 0.077); the paper's pairwise scheme holds there (0.053) but "
                                       "misses under identical agents (0.085 here, 0.110 with 8 agents)")
def test_default_keeps_the_level_for_identical_agents_beside_agents_four_times_narrower():
    row = SPREAD["measure"](4, 5, 4, "normal", 4, "joint", 600)
    assert 1 - row["coverage"] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 600)


def _table_row(interval, configuration):
    (row,) = [r for r in calibration.rows("adastop.fwe_spread")
              if (r["agents"], r["runs"], r["distribution"], r["configuration"], r["interval"])
              == ("4", "5", "normal", configuration, interval)]
    return row


@pytest.mark.slow
def test_spread_row_of_the_default_is_reproduced_by_its_script():
    # the table row of the ada23 design at ratio 1000 (4 agents, n = 5, K = 1): the script's seeds give it back
    row = _table_row("joint", "K=1,ratio=1000")
    fresh = SPREAD["measure"](4, 5, 1, "normal", 1000, "joint", int(row["n_sim"]))
    assert fresh["n_sim"] == 600
    assert fresh["coverage"] == pytest.approx(float(row["coverage"]), abs=1e-6)
    assert 1 - fresh["coverage"] == pytest.approx(52 / 600, abs=1e-6)


def test_spread_row_is_reproduced_by_its_script():
    # the reduced version: the paper's scheme on the same design (its exact first-interim tree is quick)
    row = _table_row("pairwise", "K=1,ratio=1000")
    fresh = SPREAD["measure"](4, 5, 1, "normal", 1000, "pairwise", int(row["n_sim"]))
    assert fresh["coverage"] == pytest.approx(float(row["coverage"]), abs=1e-6)
    assert 1 - fresh["coverage"] == pytest.approx(30 / 600, abs=1e-6)


def test_harness_decisions_are_the_public_function_s():
    # independent check of the simulation harness: its per-pair rejections are those of rlstats.adastop's table
    template = SPREAD["SIZE"]["design"](4, 1, 10)
    gen = np.random.default_rng(5)
    for permutations in ("joint", "pairwise"):
        for rep in range(3):
            y = SPREAD["scores"](template, 10, "normal", gen)
            pairs, rejected = SPREAD["decisions"](template, y, np.random.SeedSequence(rep), permutations, 5, 2)
            frame = pd.DataFrame({"agent": np.asarray(template.agents)[np.asarray(template.agent)],
                                  "seed": np.tile(np.arange(10), 4), "score": y})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = rlstats.adastop(frame, "score ~ agent", n=5, K=2, n_resamples=2000, permutations=permutations,
                                      rng=np.random.SeedSequence(rep), progress=False)
            table = res.decisions.set_index(["agent_1", "agent_2"])["decision"].isin(["larger", "smaller"])
            names = np.asarray(template.agents)
            assert [bool(table[(names[a], names[b])]) for a, b in pairs] == rejected.tolist()


def test_true_hypotheses_of_the_design():
    pairs = [(0, 1), (0, 2), (1, 3), (2, 3)]
    assert SPREAD["true_pairs"](pairs, 4).tolist() == [True, False, False, True]
    assert SPREAD["true_pairs"](pairs, 1).all()  # the global null: every pair
    template = SPREAD["SIZE"]["design"](4, 1, 4000)
    y = SPREAD["scores"](template, 4, "normal", np.random.default_rng(0))
    agent = np.asarray(template.agent)
    sd = [y[agent == a].std() for a in range(4)]
    scale = SPREAD["DESIGNS"]["design_draw"](0, 1)[1][0]  # the task's scale of design draw 0
    assert np.allclose(np.array(sd) / scale, [4, 4, 1, 1], rtol=0.05)  # the narrow agents' sd is the noise unit


def test_table_rows_say_what_the_docs_quote():
    t = _rows()
    joint, pairwise = t[t["interval"] == "joint"], t[t["interval"] == "pairwise"]
    assert len(joint) == len(pairwise) == 50 and set(t["n_sim"]) == {"600"}
    low = joint[joint["ratio"] <= 2]["fwe"]
    assert (round(low.min(), 3), round(low.max(), 3)) == (0.033, 0.067)
    four, ten = joint[joint["ratio"] == 4]["fwe"], joint[joint["ratio"] == 10]["fwe"]
    assert (round(four.min(), 3), round(four.max(), 3)) == (0.048, 0.108)
    assert (round(ten.min(), 3), round(ten.max(), 3)) == (0.055, 0.142)
    three_se = 0.05 + 3 * math.sqrt(0.05 * 0.95 / 600)
    assert int((four > three_se).sum()) == 5
    # the global null: joint relabelling is a permutation of the data, so its error is the level spent, 0.05
    # (100 of 2,000 paths beyond the boundary): every ratio-1 row within 3 SE of it
    assert (abs(joint[joint["ratio"] == 1]["fwe"] - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / 600)).all()
    spread = pairwise[(pairwise["ratio"] >= 2) & (pairwise["fwe"] > 0)]["fwe"]
    assert (round(spread.min(), 3), round(spread.max(), 3)) == (0.018, 0.063)
    null = pairwise[pairwise["ratio"] == 1].set_index(["agents", "runs", "K", "distribution"])["fwe"].round(3)
    assert null[("8", "5", 1, "normal")] == 0.110
    assert null[("4", "3", 1, "normal")] == 0.0  # 10 classes at n = 3: it can never reject
    normal = null[[d == "normal" and a in ("3", "4") and not (r == "3" and k == 1)
                   for a, r, k, d in null.index]]
    assert (normal.min(), normal.max()) == (0.068, 0.098)
    assert sorted(null[[d == "skewed" for *_, d in null.index]].tolist()) == [0.037, 0.040]


def _frame(sd, n=10, seed=1):
    gen = np.random.default_rng(seed)
    return pd.DataFrame([(agent, i, v) for agent, s in sd.items() for i, v in enumerate(gen.normal(0, s, n))],
                        columns=["agent", "seed", "score"])


def _spread_note(result):
    return [note for note in result.notes if "standard deviations" in note]


def test_spread_note_quotes_the_measured_rows():
    data = _frame({"a": 10, "b": 10, "c": 1, "d": 1})
    sd = data.groupby("agent")["score"].std()
    # the note is joint's (audit s29b: holm, the default, is exact beside agents of another spread: no note)
    res = rlstats.adastop(data, "score ~ agent", n=5, K=2, rng=0, progress=False, permutations="joint")
    assert not _spread_note(rlstats.adastop(data, "score ~ agent", n=5, K=2, rng=0, progress=False))
    (note,) = _spread_note(res)
    assert f"differ {sd.max() / sd.min():.1f} times: {sd.idxmax()} {sd.max():.4g}, {sd.idxmin()} {sd.min():.4g}" in note
    assert 4 <= sd.max() / sd.min() < 10  # so the ratio-4 rows are quoted
    assert "up to 0.108 of 600 tests" in note and 'permutations="pairwise" in up to 0.063' in note
    assert ("two identical agents 4 times as spread as the others (equal means, 3 to 8 agents, n = 3 to 10, "
            "K = 1 and 4") in note
    # the one-interim permutation test with the joint relabelling gets the same note
    assert _spread_note(rlstats.permutation(data, "score ~ agent", n_resamples=2000, rng=0, progress=False,
                                            permutations="joint"))
    # not for the paper's scheme, nor where the spreads are alike, nor for two agents (both schemes coincide)
    assert not _spread_note(rlstats.adastop(data, "score ~ agent", n=5, K=2, rng=0, progress=False,
                                            permutations="pairwise"))
    alike = _frame({"a": 1, "b": 1.2, "c": 1, "d": 0.9})
    assert not _spread_note(rlstats.adastop(alike, "score ~ agent", n=5, K=2, rng=0, progress=False,
                                            permutations="joint"))
    two = data[data["agent"].isin(["a", "c"])]
    assert not _spread_note(rlstats.adastop(two, "score ~ agent", n=5, K=2, rng=0, progress=False,
                                            permutations="joint"))
    # nor below 10 runs per agent, where identical agents' standard deviations are often 4 times apart
    five = data[data["seed"] < 5]
    assert not _spread_note(rlstats.permutation(five, "score ~ agent", n_resamples=2000, rng=0, progress=False,
                                                permutations="joint"))
    gen = np.random.default_rng(0)
    s = gen.standard_normal((20_000, 8, 5)).std(axis=2, ddof=1)
    assert (s.max(axis=1) / s.min(axis=1) >= 4).mean() == pytest.approx(0.22, abs=0.02)  # SPREAD_MIN_RUNS' comment
    s = gen.standard_normal((20_000, 8, 10)).std(axis=2, ddof=1)
    assert (s.max(axis=1) / s.min(axis=1) >= 4).mean() < 0.01


def test_spread_note_names_an_agent_whose_runs_do_not_vary_and_the_task():
    data = _frame({"a": 3, "b": 3, "c": 1})
    data.loc[data["agent"] == "c", "score"] = 0.5
    data = pd.concat([data.assign(task="t1"), _frame({"a": 1, "b": 1, "c": 1}).assign(task="t2")])
    res = rlstats.adastop(data, "score ~ agent | task", n=5, K=2, rng=0, progress=False, permutations="joint")
    (note,) = _spread_note(res)
    assert "on task t1 differ infinitely (one agent's runs do not vary)" in note and ", c 0." in note
    assert "agents 4, 10 or 1000 times as spread" in note  # every ratio measured is at most infinitely apart
