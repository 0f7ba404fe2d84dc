"""Audit s32 (scale32): the raw-scales caution's rule (normalization.warn_raw_scales), from a new user's trial.

selection_check() on Dierkes et al.'s optimisation runs (dehb/dehb vs base/base, 7 algorithm-task pairs, the 4
Brax ones reported) said "selection bias suspected" (inspector p = 0.02857) with no caution, where min-max
normalised scores say "the claim survives": the pair's task ranges run from 56.9 (sac-wipe) to 5,404 (sac-humanoid),
95 times apart, but the rule compared the widest range with the median of the others' (3.88 times), so three narrow
tasks that carry 1.9% of the aggregate's weight (3 of 7 tasks) and are exactly the held-out ones went unsaid.
tuning()'s "averaged over tasks" line (PPO on ant, humanoid, lunar) averaged levels 20-40 times apart uncautioned.
"""

import numpy as np
import pandas as pd
import pytest
from conftest import caught, load_dataset

import rlstats

OWN_SCALES = "aggregated on their own scales"
REPORTED = ["ppo-ant", "ppo-humanoid", "sac-ant", "sac-humanoid"]
DEHB, BASE = "hpo=dehb, rpo=dehb, return", "hpo=base, rpo=base, return"


def _optimisation_pair():
    runs = load_dataset("hpo_optimisation").drop_duplicates()
    runs = runs[runs.procedure.isin([DEHB, BASE])].assign(task=lambda d: d.algorithm + "-" + d.task)
    return runs.assign(run=runs.groupby(["task", "procedure"]).cumcount())


def _wide_and_narrow(n_narrow=3, n_wide=4, scale=40.0, runs=5, seed=0):
    """n_wide tasks of range ~scale times the n_narrow others', both agents alike on every task."""
    rng = np.random.default_rng(seed)
    rows = [(agent, f"t{t}", r, (scale if t < n_wide else 1.0) * rng.normal())
            for t in range(n_wide + n_narrow) for agent in ("new", "old") for r in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "score"])


def test_selection_check_on_raw_scales_of_a_narrow_group_is_cautioned(mirror):
    data = _optimisation_pair()
    spread = data.groupby("task").score.agg(lambda s: s.max() - s.min()).sort_values()
    assert spread.iloc[-1] / spread.iloc[0] == pytest.approx(95.01, abs=0.01)
    assert spread.iloc[-1] / spread.iloc[:-1].median() == pytest.approx(3.877, abs=0.001)  # the old rule's ratio
    # the narrower half's median range (84.07) and the wider half's (3,592.2): 42.7 times apart
    assert spread.iloc[3:].median() / spread.iloc[:3].median() == pytest.approx(42.73, abs=0.01)
    res, said = caught(lambda: rlstats.selection_check(data, "score ~ procedure | task/run", treatment=DEHB,
                                                       baseline=BASE, reported=REPORTED, rng=0, progress=False))
    assert res.pvalue == pytest.approx(1 / 35) and res.verdict == "selection_bias"  # the verdict stands; only the caution is new
    assert [w for w in said if OWN_SCALES in w]
    assert "were aggregated on their own scales" in str(res)


def test_a_narrow_group_of_tasks_is_cautioned_synthetic():
    data = _wide_and_narrow()
    res, said = caught(lambda: rlstats.selection_check(data, "score ~ agent | task/run", treatment="new",
                                                       baseline="old", reported=["t0", "t1", "t2", "t3"], rng=0,
                                                       progress=False))
    assert [w for w in said if OWN_SCALES in w]


def test_tasks_on_one_scale_are_not_cautioned_synthetic():
    data = _wide_and_narrow(scale=1.0)
    res, said = caught(lambda: rlstats.selection_check(data, "score ~ agent | task/run", treatment="new",
                                                       baseline="old", reported=["t0", "t1", "t2", "t3"], rng=0,
                                                       progress=False))
    assert not [w for w in said if OWN_SCALES in w or "ranges apart" in w]


def test_tuning_mean_over_tasks_of_levels_apart_is_cautioned(mirror):
    runs = load_dataset("hpo_optimisation").drop_duplicates()
    ppo = runs[runs.algorithm == "ppo"]  # the trial's call: every procedure; configurations' ranges 8.7 times apart
    res, said = caught(lambda: rlstats.tuning(ppo, "score ~ procedure | task/seed", config="tuning_run",
                                              views=["expected_max"], n_resamples=100, rng=0, progress=False))
    assert [w for w in said if "ranges apart" in w and "'lunar'" in w]
    assert "ranges apart" in str(res)


def test_the_rule_reads_the_halves_medians_and_the_widest_against_the_others():
    """Ranges by task (10 normal scores each, scaled): the caution's ratio is the one the docstring states."""
    def said_of(scales):
        rng = np.random.default_rng(3)
        rows = [("a" if r % 2 else "b", f"t{t}", r, s * rng.normal()) for t, s in enumerate(scales) for r in range(10)]
        frame = pd.DataFrame(rows, columns=["agent", "task", "run", "score"])
        spread = frame.groupby("task").score.agg(lambda v: v.max() - v.min()).to_numpy()
        _, said = caught(lambda: rlstats.compare(frame, "score ~ agent | task", method="bootstrap", n_resamples=200,
                                                 rng=0, progress=False))
        return spread, [w for w in said if OWN_SCALES in w]

    spread, said = said_of([30, 30, 30, 1, 1])  # the narrower 2 of 5: the halves' medians apart, widest vs 3 others' not
    wide, narrow = np.median(np.sort(spread)[2:]), np.median(np.sort(spread)[:2])
    assert spread.max() / np.median(np.sort(spread)[:-1]) < 10 < wide / narrow
    assert len(said) == 1 and f"is {float(f'{wide / narrow:.3g}')} times that of the other 2, the narrowest 't{np.argmin(spread)}'" in said[0]
    spread, said = said_of([30, 1, 1, 1, 1])  # one wide task: the old sentence
    assert len(said) == 1 and "the range of the scores of 't0'" in said[0]
    assert said_of([30, 30, 30, 30, 1])[1] == []  # one narrow task of 5: chance at few runs, not cautioned
    assert said_of([3, 3, 2, 2, 1])[1] == []


def _curves_of(frame):
    """Each run's score at steps 1 and 2 (the second a little higher): the curves' ranges are the runs'."""
    return pd.concat([frame.assign(step=1), frame.assign(step=2, score=frame.score + 0.01)], ignore_index=True)


def _tuning_of(frame):
    """The runs as two configurations' seeds (config 'lr'), agent 'new' alone, lr=0.2 better by the task's sd."""
    one = frame[frame.agent == "new"].rename(columns={"run": "seed"})
    better = one.score + one.groupby("task").score.transform("std")
    return pd.concat([one.assign(lr=0.1), one.assign(lr=0.2, score=better)], ignore_index=True)


BACK_ENDS = {  # every back end that aggregates raw scores over tasks (audit s32: the coverage the report lists)
    "bootstrap": lambda d: rlstats.bootstrap(d, "score ~ agent | task/run", n_resamples=100, rng=0),
    "performance_profile": lambda d: rlstats.performance_profile(d, "score ~ agent | task/run", n_resamples=100,
                                                                 rng=0),
    "bayes": lambda d: rlstats.bayes(d, "score ~ agent | task/run", n_samples=200, rng=0),
    "equivalence": lambda d: rlstats.equivalence(d, "score ~ agent | task/run", margin=1.0, n_resamples=100, rng=0),
    "mixed": lambda d: rlstats.mixed(d, "score ~ agent | task/run"),
    "task_table": lambda d: rlstats.task_table(d, "score ~ agent | task/run", aggregate="bootstrap",
                                               n_resamples=100, rng=0),
    "selection_check": lambda d: rlstats.selection_check(d, "score ~ agent | task/run", treatment="new",
                                                         baseline="old", reported=["t0", "t1", "t2", "t3"], rng=0),
    "power": lambda d: rlstats.power("bootstrap", design=d, formula="score ~ agent | task/run", seeds=[3], n_sim=4,
                                     rng=0),
    "curves": lambda d: rlstats.curves(_curves_of(d), "score ~ agent | task/run", step="step", statistic="mean",
                                       n_resamples=50, rng=0),
    "tuning": lambda d: rlstats.tuning(_tuning_of(d), "score ~ agent | task/seed", config="lr",
                                       views=["expected_max"], n_resamples=100, rng=0),
}


@pytest.mark.parametrize("back_end", list(BACK_ENDS))
def test_every_back_end_aggregating_raw_scores_cautions_a_narrow_group(back_end):
    call = BACK_ENDS[back_end]
    _, said = caught(lambda: call(_wide_and_narrow()))
    assert [w for w in said if "(the median range of the scores of the 4 widest tasks" in w], said
    # tasks alike: no caution of spreads (power's resampled pilots of 3 runs may put tasks' ranges apart by chance,
    # which the IQM's caution reads: not this rule's)
    _, said = caught(lambda: call(_wide_and_narrow(scale=1.0)))
    assert not [w for w in said if "(the range of the scores" in w or "(the median range" in w], said
