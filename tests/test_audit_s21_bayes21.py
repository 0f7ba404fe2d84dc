"""Audit s21 (bayes21): rlstats.bayes and rlstats.selection_check as a user on real data (Atari 100k, the ADA-research
hyperparameter sweeps).  Checked and found right: the signed-rank probabilities against baycomp (DrQ(eps) vs SPR,
human-normalised, rope 0.05, 26 games x 100 runs, 12 seeds each: rlstats 0.00904 / 0.24292 / 0.74804, baycomp
0.00928 / 0.24290 / 0.74782; the seeds' sd 0.0020 against the note's 0.0019); scores x 3.7 with rope x 3.7, a shift of
1e6, row shuffles and polars frames (both models); the selection check exactly invariant under per-task positive
affine maps with effect="poi" (rank-based), to rounding with "std_diff", and under a common a * y + b, row shuffles
and polars with every effect.  The defects below."""

import re

import numpy as np
import pytest

import rlstats


def _extended():
    """A hierarchical fit whose chains are run again 8 times longer (100 draws a chain asked, 800 used) and in which
    no draw put a next task's largest mass in the ROPE."""
    df = rlstats.datasets.simulate(agents=2, tasks=5, seeds=5, effect=5.0, rng=0)
    with pytest.warns(rlstats.RlstatsWarning):  # the tasks' raw scales
        return rlstats.bayes(df, "score ~ agent | task/seed", rope=0.1, model="hierarchical", warmup=100, draws=100,
                             rng=0, progress=False)


def test_a_share_of_no_draw_states_the_pairs_own_draws():
    """A pair whose chains were run again longer (here 8 chains of 800 draws where 100 were asked) printed a share of
    none of its draws as "< 1/800", the draws asked, beside shares of its 6,400 (Atari 100k, CURL, DrQ(eps) and SPR
    at 3 runs, normalised, rope 0.05: "< 1/8000" beside 1.563e-05 = 1/64,000 of the same table).  The result now
    keeps each pair's draws (``pair_draws``), which the print, summary, report and figures read."""
    res = _extended()
    note = next(n for n in res.notes if "run again" in n)
    per_chain = int(re.search(r"extended to [\d,]+ and ([\d,]+) a chain", note).group(1).replace(",", ""))
    assert per_chain == 800
    assert res.pair_draws == (6400,)
    assert res.comparisons["p_rope_next"].iloc[0] == 0
    assert "< 1/6400" in str(res) and "< 1/800" not in str(res)
    assert "< 1/800" not in str(res.summary())
    assert res._pair_draws("agent_1", "agent_2") == 6400
    assert res._share(0.0) == "< 1/800"  # the model's count where no pair is named, as before


def _atari_pair(shared, runs):
    import pandas as pd

    df = pd.read_csv(shared / "atari100k.csv")
    return df[df["agent"].isin(["CURL", "DrQ(eps)"]) & (df["seed"] < runs)]


@pytest.mark.slow  # 7.5 s idle (since s22); the note's text is checked on simulated runs below by default
def test_the_hierarchical_model_at_few_runs_says_what_its_equivalence_rests_on(shared_data):
    """At 3 runs a cell the hierarchical model printed P(rope) 0.92 for CURL vs DrQ(eps) (Atari 100k, human-normalised,
    rope 0.05, seeds 0-2) with no word that its per-task spreads rest on 3 runs, where the same model on all 100 runs
    gives P(worse) 0.92 and delta0 -0.136, outside the 3 runs' interval (-0.077 to 0.003), and 9 of 10 disjoint sets
    of 3 runs missed it (tests/reference/bayes_few_runs.py).  With n paired runs a task's flat-prior spread leaves its
    difference a t likelihood with n - 2 df: a note now says so below 10 paired runs, with those measurements."""
    res = rlstats.bayes(_atari_pair(shared_data, 3), "score ~ agent | task/seed", rope=0.05,
                        normalize="atari100k_reference", model="hierarchical", rng=0, progress=False)
    row = res.comparisons.iloc[0]
    assert row["p_rope"] > 0.9 and -0.1 < row["conf_low"] < row["conf_high"] < 0.02
    note = next(note for note in res.notes if "fewer than 10 paired runs" in note)
    assert note.startswith("CURL vs DrQ(eps) has fewer than 10 paired runs on some task (fewest 3)")
    assert "P(rope) 0.56-1.00" in note and "model='signed_rank'" in note
    assert note in str(res)


@pytest.mark.usefixtures("first_run_only")  # the note is tested, not the fit: the chains as asked
def test_no_few_runs_note_from_10_paired_runs():
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=10, effect=1.0, rng=0)
    kw = dict(rope=0.1, model="hierarchical", rng=0, progress=False, warmup=100, draws=200)
    with pytest.warns(rlstats.RlstatsWarning):
        ten = rlstats.bayes(df, "score ~ agent | task/seed", **kw)
    assert not any("paired runs on some task" in note for note in ten.notes)
    nine = df[~((df["task"] == df["task"].iloc[0]) & (df["seed"] == df["seed"].max()))]
    with pytest.warns(rlstats.RlstatsWarning):
        fewer = rlstats.bayes(nine, "score ~ agent | task/seed", **kw)
    note = next(note for note in fewer.notes if "paired runs on some task" in note)
    assert note.startswith("agent_1 vs agent_2 has fewer than 10 paired runs on some task (fewest 9)")
    assert "P(rope) 0.56-1.00" in note and "model='signed_rank'" in note and note in str(fewer)


def _sweeps():
    """The ADA-research sweeps (combined HPO and reward shaping): a configuration (hpo/rpo/objectives) per agent, an
    algorithm-environment per task, final mean returns; repeated rows dropped."""
    import pandas as pd

    from conftest import data_mirror

    root = data_mirror()
    path = (root / "ADA-research/combined_hpo_and_reward_shaping/0012b924873a42c3b9a9d0c9766f0b0f92d767aa/"
            "experimental_results/optimisation_experiments/optimisation_evaluation_results.csv") if root else None
    if path is None or not path.is_file():
        pytest.skip("the ADA-research sweeps are not in the data mirror")
    raw = pd.read_csv(path)
    frame = pd.DataFrame({"agent": raw["hpo"] + "/" + raw["rpo"] + "/" + np.where(raw["single_obj"], "so", "mo"),
                          "task": raw["algorithm"] + "-" + raw["environment"], "score": raw["final_mean_return"]})
    return frame.drop_duplicates().reset_index(drop=True)


def test_the_raw_scales_caution_reads_the_tasks_the_check_uses():
    """dehb/rs/mo ran 2 of the sweeps' 7 tasks (ppo-lunar, sac-lunar), base/base/mo 5: the check averages the 2 they
    share, of alike scales, yet warned "scores of 5 tasks were aggregated on their own scales (... 74.7-fold)", the
    tasks where either agent ran.  The caution now reads the tasks whose effects are averaged."""
    import warnings

    df = _sweeps()
    with warnings.catch_warnings():
        warnings.simplefilter("error", rlstats.RlstatsWarning)
        res = rlstats.selection_check(df, "score ~ agent | task", treatment="dehb/rs/mo", baseline="base/base/mo",
                                      reported=["ppo-lunar"], reporter="z", sigma=1.0, rng=0)
    assert res.n_reported == 1 and res.n_heldout == 1
    assert not any("aggregated on their own scales" in note for note in res.notes)

    # where a task used is ten times wider than the others (sac-wipe's scores x 1000: its range 56,878 against the
    # others' median 2,634; raw21 s21 reads the widest range against the median of the others'), the caution stays,
    # counting the tasks used
    df = df.assign(score=df["score"] * np.where(df["task"] == "sac-wipe", 1000.0, 1.0))
    with pytest.warns(rlstats.RlstatsWarning, match="scores of 7 tasks are aggregated"):
        wide = rlstats.selection_check(df, "score ~ agent | task", treatment="dehb/dehb/so", baseline="base/base/so",
                                       reported=["sac-humanoid", "ppo-humanoid", "ppo-ant"], rng=0)
    assert any(note.startswith("scores of 7 tasks were aggregated") for note in wide.notes)
    # a held-out list leaves the other tasks (sac-wipe among them) out of the caution: ant and humanoid only
    with warnings.catch_warnings():
        warnings.simplefilter("error", rlstats.RlstatsWarning)
        alike = rlstats.selection_check(df, "score ~ agent | task", treatment="dehb/dehb/so", baseline="base/base/so",
                                        reported=["sac-humanoid", "ppo-humanoid"], heldout=["ppo-ant", "sac-ant"],
                                        rng=0)
    assert not any("aggregated on their own scales" in note for note in alike.notes)
    assert alike.pvalue == pytest.approx(1 / 6)


def test_one_task_is_written_in_the_singular():
    """One reported or held-out task was written in the plural: "the 1 reported tasks are a uniformly random subset",
    "1 reported, 1 held-out tasks", "with 1 fresh tasks", "the 1 tasks on which ... are representative"."""
    df = _sweeps()
    res = rlstats.selection_check(df, "score ~ agent | task", treatment="dehb/rs/mo", baseline="base/base/mo",
                                  reported=["ppo-lunar"], reporter="z", sigma=1.0, rng=0)
    text = str(res) + res.report()
    assert not re.search(r"\b1 (reported |held-out |fresh )?tasks\b", text), re.findall(r"\b1 \S+ tasks", text)
    assert "null: the 1 reported task is a uniformly random subset of the 2 tasks" in text
    assert "1 reported, 1 held-out task" in text
    assert "detection probability with 1 fresh task if" in text
    assert "the 1 task on which dehb/rs/mo was reported against base/base/mo is representative" in text
