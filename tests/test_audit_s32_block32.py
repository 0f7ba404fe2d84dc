"""Audit s32 (block32): sentences about the user's data name the formula's columns, not "task" and "agent".

With ``ret ~ algo | env`` the notes, summaries and errors said "3 runs per task", "the tasks both ran", "agent 'A0'
on task 'g0'": a reader pasting them into a paper would describe columns the data do not have. Each sentence below
now names the block column (``design.block_word``, ``design.block_label``) and the arm column (``design.arm_label``,
the formula's ``groups``); with the default names ``score ~ agent | task`` they read as before (the tests pinning
them pass unchanged).
"""

import warnings

import pytest

import rlstats
from rlstats.datasets import simulate
from rlstats.errors import DesignError

FORMULA = "ret ~ algo | env"


def _renamed():
    df = simulate(agents=["A0", "A1", "A2"], tasks=[f"g{i}" for i in range(5)], seeds=4, effect=0.5, rng=0)
    return df.rename(columns={"score": "ret", "agent": "algo", "task": "env"})


def _incomplete(df):
    """No runs of A1 on g2, one run of A2 on g3 (four elsewhere)."""
    df = df[~((df.algo == "A1") & (df.env == "g2"))]
    return df[~((df.algo == "A2") & (df.env == "g3") & (df.seed > 0))]


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def test_bootstrap_notes_name_the_block_column():
    res = _quiet(lambda: rlstats.bootstrap(_incomplete(_renamed()), FORMULA, rng=1, na_action="drop", n_resamples=200))
    notes = "\n".join(res.notes)
    assert ('1 env left out because some algo has no runs there (na_action="drop"; 8 runs dropped): g2'
            in notes), notes
    assert "A2: 1 of 4 envs has a single run, which adds no spread to the intervals (g3)" in notes
    assert ("A2: runs per env differ (1 to 4), so the IQM and the optimality gap weigh each env alike, a run of an "
            "env with c runs counting c_max / c times (as if every env had the algo's most runs, c_max); pooling "
            "the runs would weigh the envs by their runs") in notes
    assert "studentized intervals need at least 3 runs in every env and are withheld for A2 (1) (fewest runs in " \
           "an env)" in notes
    assert "the median of the other envs' ranges), so the envs with wide ranges decide the result" in notes
    assert "scores of 4 envs were aggregated" in notes


def test_kept_out_and_mixed_notes_name_the_block_column():
    df = _incomplete(_renamed())
    df = df[~((df.algo != "A0") & (df.env == "g4"))]
    notes = "\n".join(_quiet(lambda: rlstats.mixed(df, FORMULA)).notes)
    assert "1 env (4 runs) kept out of the analysis because fewer than two algos have runs there: g4" in notes, notes
    assert ("A1 ran 3 of the 4 envs: its estimated marginal mean is the model's over all 4, its effect taken as the "
            "same on every env and so carried to the envs without its runs") in notes


def test_rank_test_sentences_name_the_columns():
    res = _quiet(lambda: rlstats.compare(_incomplete(_renamed()), FORMULA, posthoc="ranks"))
    text = str(res.summary())
    assert "more than 200,000 within-env arrangements" in text
    assert "mean ranks on 1..k, a run ranked r among the q runs of its env counting (r - 1/2) k / q + 1/2 (1 = best, among the algos present on each env):" in text
    assert "(estimate: the mean over the envs both ran of the 1st agent's rank minus the 2nd agent's" in text


def test_errors_name_the_block_and_arm_columns():
    df = _renamed()
    with pytest.raises(DesignError, match="^algo 'A0' on env 'g0' has 4 runs, not a multiple of n = 5"):
        _quiet(lambda: rlstats.adastop(df, FORMULA, rng=1))
    with pytest.raises(DesignError, match="so every algo needs the same number of runs on env 'g3'; found A0 4, A1 4, "
                                          "A2 1"):
        _quiet(lambda: rlstats.permutation(_incomplete(df), FORMULA, rng=1, na_action="drop"))
    with pytest.raises(DesignError, match=r"^1 algo x env cell has no runs \(algo 'A1' on env 'g2'\)"):
        _quiet(lambda: rlstats.bootstrap(_incomplete(df), FORMULA, rng=1))


def test_default_names_read_as_before():
    df = _incomplete(_renamed()).rename(columns={"ret": "score", "algo": "agent", "env": "task"})
    notes = "\n".join(_quiet(lambda: rlstats.bootstrap(df, "score ~ agent | task", rng=1, na_action="drop",
                                                              n_resamples=200)).notes)
    assert ('1 task left out because some agent has no runs there (na_action="drop"; 8 runs dropped): g2'
            in notes), notes
    assert "A2: runs per task differ (1 to 4), so the IQM and the optimality gap weigh each task alike, a run of a " \
           "task with c runs" in notes


def _small(agents=("A0", "A1", "A2"), tasks=3):
    """3 runs per cell, no runs of A1 on g2."""
    df = simulate(agents=list(agents), tasks=[f"g{i}" for i in range(tasks)], seeds=3, effect=0.5, rng=0)
    df = df.rename(columns={"score": "ret", "agent": "algo", "task": "env"})
    return df[~((df.algo == "A1") & (df.env == "g2"))]


def test_task_table_caption_and_report_name_the_columns():
    res = _quiet(lambda: rlstats.task_table(_small(), FORMULA, aggregate="bootstrap", statistic="iqm",
                                            na_action="drop", rng=1, n_resamples=200))
    caption = res.caption()
    assert caption.startswith("IQM ± standard deviation over 3 runs (seeds) per algo and env; blank: no runs of the "
                              "algo on the env (1 cell). Bold: the best IQM (the mean: 3 runs, none trimmed) of each "
                              "env; †: possibly best: the bold "
                              "and marked algos form a 95% confidence set for the algo with the best mean of the env")
    assert "Aggregate: IQM of all runs of the 2 envs every algo ran pooled (each env weighed alike)" in caption
    report = res.report(format="text")
    assert report.startswith("For each of 3 envs we marked the algo with the best IQM of its runs (3 runs per algo "
                             "and env), tested every ordered pair of algos one-sided")
    assert "Best per env: A1 (2 of the 2 it ran), A0 (1 of the 3 it ran). In 5 further algo-env cells the algo " \
           "was possibly best." in report


def test_mixed_and_rank_report_name_the_columns():
    df = _small()
    text = str(_quiet(lambda: rlstats.mixed(df, FORMULA)).summary())
    assert "Estimated marginal means (95% intervals of each algo's mean over these 3 envs):" in text
    report = _quiet(lambda: rlstats.compare(df, FORMULA)).report(format="text")
    assert report.startswith("We compared 3 algos on 3 envs (3 runs per algo and env, 1 empty cell) with the Mack "
                             "and Skillings (1980) rank test, ranking all runs of an env jointly (mid-ranks for ties) "
                             "and summing each algo's mean within-env rank over envs")
    assert "the hypothesis that all algos perform alike" in report


def test_equivalence_and_probability_of_improvement_name_the_columns():
    df = _small(agents=("A0", "A1"), tasks=4)
    df = df[~((df.algo == "A0") & (df.env == "g3") & (df.seed > 0))]
    res = _quiet(lambda: rlstats.equivalence(df, FORMULA, margin=5, rng=1, n_resamples=200))
    text = str(res.summary())
    assert "per task: 1 of 2 envs tested shown equivalent (1 withheld); separate tests each at alpha = 0.05, not " \
           "adjusted for multiplicity (on every env: holds at alpha; on some env: needs an adjustment)" in text, text
    assert ("across='welch' reads the spread of the runs within every shared env, and 1 env of 3 (g3) lacks one "
            "(fewer than 2 runs of an algo); add runs, or use across='paired_t' (envs as a sample") in text
    assert "they need at least 2 runs per algo and env, and it has one run" in text
    assert "We tested 1 pair of algos on 3 envs" in res.report(format="text")
    poi = _quiet(lambda: rlstats.probability_of_improvement(df, FORMULA, rng=1, n_resamples=200,
                                                             interval="percentile"))
    assert "P(1st agent > 2nd agent) + P(1st agent = 2nd agent) / 2 within an env, averaged over envs" in str(poi)


def test_pairs_and_groups_that_never_met_name_the_columns():
    import numpy as np
    import pandas as pd

    cells = [("A", "g0"), ("B", "g0"), ("C", "g1"), ("D", "g1"), ("A", "g2"), ("C", "g2")]
    df = pd.DataFrame([(a, t, s, float(np.sin(7 * i + s))) for i, (a, t) in enumerate(cells) for s in range(3)],
                      columns=["algo", "env", "seed", "ret"])
    with pytest.raises(DesignError, match=r"^the algos fall into 2 groups that never ran on a common env, so algos of "
                                          r"different groups cannot be compared .*group 1: A, B \(on 1 env: g0\)"):
        _quiet(lambda: rlstats.compare(df[df.env != "g2"], FORMULA))
    notes = "\n".join(_quiet(lambda: rlstats.mixed(df, FORMULA)).notes)
    assert ("3 pairs of algos never ran on a common env (A-D, B-C and B-D): their contrasts are indirect, resting on "
            "the model (each algo's effect the same on every env, carried through the algos that link the pair, and "
            "the random env intercepts) rather than on an env where both ran; tidy() gives them 0 shared envs") \
        in notes


def test_a_block_column_named_in_the_plural_is_said_as_it_is():
    df = _incomplete(_renamed()).rename(columns={"env": "games"})
    notes = "\n".join(_quiet(lambda: rlstats.bootstrap(df, "ret ~ algo | games", rng=1, na_action="drop",
                                                       n_resamples=200)).notes)
    assert "A2: 1 of 4 games has a single run" in notes
    assert "gameses" not in notes
