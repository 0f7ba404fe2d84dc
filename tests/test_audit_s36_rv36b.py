"""Audit s36 (rv36b): review of bayes36's snapping of the hierarchical sampler's inputs.

bayes36 rounded the standardised sums on one grid per pair, 2^-20 of the pair's scale (the mean over tasks of the
SD of the paired differences).  A task whose differences vary far less than that scale had its mean rounded away:
2 agents x 5 tasks x 10 seeds, a seed effect of SD 1e6 that both agents share, the first task's differences of SD
1e6 (scale about 2.8e5), the others' -0.005 +- 0.0005 (a sum of -0.05, 1.8e-7 of the scale, below the grid's
half step 4.8e-7): P(worse) 1.0 and centre -0.0051 before bayes36, 0.5 and 3e-7 after it, with no word.  The
orderings' joint fit (one scale for all agents) alike: 3 agents 0.005 apart on 4 such tasks, C > B > A with
probability 1.0 before, six orderings of 0.12 to 0.21 after.

Fixed: each task's sums on a grid of 2^-20 of that task's own spread (its differences' SD over the pair's scale, to a
power of 2; ``bayes._kernels.snapped``'s ``unit=``), each agent's in the joint fit of its own runs' SD there; the
spread is never 0 (such tasks and cells are withheld or refused).  Both cases give the pre-bayes36 answers (the
snap2 case at 1000 draws: P(worse) 1.0, estimate -0.005129, as before bayes36 to its 4 digits).  A shift's rounding
now moves some input of a pair (1.2 million pairs, 5 tasks x 4 runs, scores ~ 20, differences of SD 1) in 2.3e-5 of
the pairs at + 1e4 and 1.5e-3 at + 1e6 (0.18 at + 1e8), none under a scale; on the same pairs bayes36's one grid per
pair moved 1.6e-5, 1.1e-3 and 0.13 (the grid is finer on the tasks that vary less than the pair's mean).  No task's
power of 2 moved.  Against bayes36 on its 30 small designs (2 agents x 5 tasks x 3 runs): no P(better) moved,
delta0's mean 6.5e-7 relative (median), 1.5e-4 at most; its shift and scale tests pass bit for bit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import rlstats


def _tiny_tasks(agents=2, d=5e-3, big=1e6, n=10, tiny=4, seed=0):
    """Runs of ``agents`` agents on 1 + ``tiny`` tasks: on T0 differences of SD ``big``; on T1.. each agent k at
    k * ``d`` above the first, run to run +- d / 10 (2 agents: a seed effect of SD ``big`` both share)."""
    r = np.random.default_rng(seed)
    rows = []
    for t in range(tiny + 1):
        for s in range(n):
            if agents == 2:
                a = 100.0 * t + r.normal(0, big)
                diff = r.normal(0, big) if t == 0 else d + r.normal(0, d / 10)
                rows += [("A", f"T{t}", s, a), ("B", f"T{t}", s, a + diff)]
            else:
                rows += [(name, f"T{t}", s, r.normal(0, big) if t == 0 else 100.0 * t + k * d + r.normal(0, d / 10))
                         for k, name in enumerate("ABC"[:agents])]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _fit(df, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", rng=1, chains=2, warmup=100,
                             draws=200, **options)


def test_a_task_whose_differences_vary_little_keeps_its_mean():
    fit = _fit(_tiny_tasks(), max_seconds=0.5)      # about 0.35 s
    row = fit.tidy().iloc[0]
    # before bayes36 (measured, 1000 draws): P(worse) 1.0, estimate -0.00513; its snapping: 0.505 and 3e-7
    assert row["p_worse"] == 1.0
    assert -0.0056 < row["estimate"] < -0.0046
    effects = fit.task_effects.set_index("task")
    observed = effects.loc[["T1", "T2", "T3", "T4"], "observed"].to_numpy()
    estimate = effects.loc[["T1", "T2", "T3", "T4"], "estimate"].to_numpy()
    # each tiny task's estimate within 0.0005 (one run-to-run SD) of its observed mean
    np.testing.assert_allclose(estimate, observed, atol=5e-4)
    assert (effects.loc[["T1", "T2", "T3", "T4"], "p_worse"] == 1.0).all()


def test_the_joint_fit_keeps_the_means_of_tasks_that_vary_little():
    fit = _fit(_tiny_tasks(agents=3), max_seconds=1.0, orderings=True, control="A")   # about 0.6 s
    orderings = fit.orderings
    # before bayes36 (measured): C > B > A with probability 1.0; its snapping: six orderings of 0.12 to 0.21
    assert orderings["ordering"].tolist() == ["C > B > A"]
    assert orderings["probability"].tolist() == [1.0]


def test_the_spread_notes_word_the_rows_as_simulated():
    """equivalence()'s notes of unlike spreads quote rows whose configuration "spread r" multiplies one agent's
    deviations by r (before a cap: on capped scores 1/2 is an SD ratio of 1/1.73, 8 of 6.7; tests/reference/
    spread_ruled_out.py); they said "SD ratio r", and their counts "20000" where other notes say "20,000".  Now
    "deviations x r" (docs/calibration.md says so) and the counts by format.integer."""
    from scipy import stats

    x = stats.norm.ppf((np.arange(100) + 0.5) / 100)      # 100 runs of one spread rule the rows' spreads out
    frame = pd.DataFrame({"agent": ["A"] * 100 + ["B"] * 100, "task": "t1", "score": np.r_[x, x + 0.01]})
    result = rlstats.equivalence(frame, "score ~ agent | task", margin=1.0, aggregate=None, progress=False, rng=0)
    (note,) = [n for n in result.notes if "ruled out on t1" in n]
    assert "in up to 0.0028 of 20,000 simulated tasks: capped scores, deviations x 1/2, 100 runs of each agent" in note
    # the note of a declared task whose runs do not rule them out (audit s23 equiv23's runs): each row's factor
    a, b = [1.0, 1.1, 0.9, 1.05, 0.95], [0.6, 0.7, 0.8, 1.5, 1.4]
    frame = pd.DataFrame({"agent": ["A"] * 5 + ["B"] * 5, "task": "t1", "score": a + b})
    (note,) = [n for n in rlstats.equivalence(frame, "score ~ agent | task", margin=1.0, alternative="noninferior",
                                              control="B", aggregate=None, progress=False).notes
               if "true spreads differ" in n]
    assert "in up to 0.179 of 4,000 simulated tests per task on skewed scores (deviations x 1/8) and 0.159 on capped " \
           "scores (deviations x 8) (delta = -margin" in note
