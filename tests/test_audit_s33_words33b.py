"""Audit s33 (words33b): the sentences about the rows analysed that still said agent/task/seed.

Sessions 32-33 named the formula's columns in the sentences about the data (``Formula.block_word`` / ``arm_word``);
a sweep with frames whose columns are ``algo``/``env``/``rep`` (and ``algos``/``games``/``seeds``) through print,
summary, methods, report, to_latex and the errors of each back end found what was left:

1. The methods paragraphs of bootstrap (and probability of improvement, performance profiles), mixed, bayes,
   curves and percentiles said "3 agents on 4 tasks (6 runs per agent and task)" of ``ret ~ algo | env``.
2. mixed's "spread of task intercepts" refusal and bootstrap's "aggregate metrics compare agents on the same tasks".
3. The replication verdict's way on printed ``rlstats.compare(df, "score ~ agent | task")`` whatever the call's
   formula; it now writes the call's own formula and says its agents and tasks by the columns.
4. bayes' hierarchical refusal suggested ``'/seed'`` whatever the data's run column; it names the data's one column
   outside the formula where there is one, and its notes pair runs "by their rep label" of ``| env/rep``.
5. AdaStop's interims follow the formula's replicate column whatever its name (``| env/rep``, ``| task/run``): checked,
   it did; the row-order note no longer says "no batch or seed column" of a formula that names no run column.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.datasets import simulate, simulate_curves
from rlstats.errors import DesignError

ALGO = {"agent": "algo", "task": "env", "seed": "rep", "score": "ret"}
PLURAL = {"agent": "algos", "task": "games", "seed": "seeds", "score": "ret"}


def _frame(names=ALGO, agents=3, tasks=4, seeds=6):
    df = simulate(agents=[f"A{i}" for i in range(agents)], tasks=[f"g{i}" for i in range(tasks)], seeds=seeds,
                  effect=np.linspace(0, 1, agents), rng=0).rename(columns=names)
    df.attrs = {}
    return df


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _first(text):
    return text.split(". ")[0] + "."


# ---- 1. the methods paragraphs ----

def test_methods_paragraphs_say_the_columns():
    df = _frame()
    boot = _quiet(lambda: rlstats.bootstrap(df, "ret ~ algo | env", rng=1, n_resamples=200))
    assert boot.report("text").startswith(
        "We report IQM, mean, median and optimality gap for 3 algos on 4 envs (6 runs per algo and env) with 95% "
        "studentized confidence intervals from 200 stratified bootstrap resamples (Agarwal et al. (2021); the runs of "
        "every env resampled with replacement independently, envs being the strata).")
    mixed = _quiet(lambda: rlstats.mixed(df, "ret ~ algo | env"))
    assert mixed.report("text").startswith(
        "We fitted a linear mixed model by REML to 3 algos on 4 envs (6 runs per algo and env, 72 runs), with fixed "
        "algo effects and random env intercepts and random env x algo intercepts (Bates et al., 2015).")
    bayes = _quiet(lambda: rlstats.bayes(df, "ret ~ algo | env/rep", rope=0.2, rng=1, n_samples=1000))
    assert bayes.report("text").startswith(
        "We compared 3 algos on 4 envs (72 runs) with the Bayesian signed-rank test (Benavoli et al., 2014, 2017) on "
        "the env-level mean differences,")
    pct = _quiet(lambda: rlstats.percentiles(df, "ret ~ algo | env", rng=1, n_resamples=200))
    assert pct.report("text").startswith(
        "We aggregated the scores of 3 algos on 4 envs (6 runs per algo and env) with performance percentiles "
        "(Jordan et al. 2020). Each algo's runs on an env were scored by their mean percentile in each other algo's "
        "score distribution (ties counted as wins, an algo against itself 0.5), and the env and reference weights "
        "came from the stationary distribution of a PageRank-damped alpha-Rank chain over the 36 joint strategies of "
        "the game in which an adversary picks the env and the reference algo.")
    poi = _quiet(lambda: rlstats.compare(df, "ret ~ algo | env", "probability_of_improvement", rng=1))
    assert ("averaged over 4 envs (6 runs per algo and env), with 95% score intervals: the probabilities p whose "
            "distance from the estimate is at most the normal quantile times the standard error the envs' Hanley and "
            "McNeil (1982) variances give at p (Newcombe 2006, stratified by env).") in poi.report("text")
    profile = _quiet(lambda: rlstats.compare(df, "ret ~ algo | env", "performance_profile", rng=1, n_resamples=100))
    assert ("for 3 algos on 4 envs (6 runs per algo and env); pointwise 95% bands are stratified Wilson score "
            "intervals with continuity correction (Yan and Su 2010; Newcombe 1998), at the effective number of runs "
            "T\u00b2 / sum(1 / n_t) (T envs, n_t runs in env t), whose variance envs that differ can only lower."
            ) in profile.report("text")


def test_curves_paragraph_says_the_columns():
    runs = simulate_curves(agents=["A0", "A1"], tasks=["g0", "g1", "g2"], seeds=4, steps=4, effect=0.5,
                           rng=0).rename(columns=ALGO)
    res = _quiet(lambda: rlstats.curves(runs, "ret ~ algo | env/rep", step="step", rng=1, n_resamples=100))
    text = res.report("text")
    assert text.startswith("We computed the IQM of 2 algos over 3 envs (4 runs per algo and env) at each of 4 steps "
                           "from 0 to 1M. 95% pointwise and simultaneous bands come from 100 stratified bootstrap "
                           "resamples that draw whole runs within each env (Agarwal et al., 2021)")
    assert "(Welch-Satterthwaite over envs; Satterthwaite, 1946)." in text
    assert any(n.endswith("as the standard error from few runs per env is itself uncertain") for n in res.notes)


def test_plural_columns_read_as_nouns_in_the_paragraphs():
    df = _frame(PLURAL)
    boot = _quiet(lambda: rlstats.bootstrap(df, "ret ~ algos | games", rng=1, n_resamples=200))
    assert _first(boot.report("text")).startswith(
        "We report IQM, mean, median and optimality gap for 3 algos on 4 games (6 runs per algo and game) with")
    mixed = _quiet(lambda: rlstats.mixed(df, "ret ~ algos | games/seeds"))
    assert _first(mixed.report("text")) == (
        "We fitted a linear mixed model by REML to 3 algos on 4 games (6 runs per algo and game, 72 runs), with fixed "
        "algo effects and random game intercepts and random game x algo intercepts (Bates et al., 2015).")


# ---- 2. errors ----

def test_errors_say_the_columns():
    df = _frame(seeds=3)
    with pytest.raises(DesignError) as info:
        _quiet(lambda: rlstats.mixed(df[df.env == "g0"], "ret ~ algo | env"))
    assert str(info.value) == ("the mixed model estimates the spread of env intercepts, which needs at least 2 envs; "
                               "the data hold 1 env")
    with pytest.raises(DesignError) as info:
        _quiet(lambda: rlstats.bootstrap(df[~((df.algo == "A1") & (df.env == "g2"))], "ret ~ algo | env", rng=1,
                                         n_resamples=100))
    assert str(info.value) == (
        "1 algo x env cell has no runs (algo 'A1' on env 'g2'); aggregate metrics compare algos on the same envs: add "
        "those runs, or leave out the envs or algos that are missing, or pass na_action=\"drop\" to leave out the 1 "
        "env where some algo has no runs")


# ---- 3. the way on writes the call's formula ----

def test_way_on_writes_the_calls_formula():
    df = _frame(seeds=3)
    one = df[(df.rep == 0) | (df.env != "g1")]
    res = _quiet(lambda: rlstats.task_table(one, "ret ~ algo | env/rep"))
    assert ("possibly-best marks are withheld in 3 cells (g1/A0, g1/A1, g1/A2): they need at least 2 runs per algo "
            "and env, and those have one run; add runs, or compare the algos across envs with a rank test: "
            "rlstats.compare(df, \"ret ~ algo | env/rep\")") in res.notes
    with pytest.raises(DesignError) as info:
        _quiet(lambda: rlstats.adastop(df[df.rep == 0], "ret ~ algo | env", n=1, rng=1))
    assert str(info.value) == (
        "per-task comparisons of algos cannot be computed: they need at least 2 runs per algo and env, and every cell "
        "has one run; a permutation test with one run per algo has p = 1 whatever the scores; add runs, or compare "
        "the algos across envs with a rank test: rlstats.compare(df, \"ret ~ algo | env\")")


# ---- 4. bayes' run column ----

def test_bayes_hierarchical_names_the_run_column():
    df = _frame(seeds=3)
    with pytest.raises(DesignError) as info:
        _quiet(lambda: rlstats.bayes(df, "ret ~ algo | env", model="hierarchical", rope=0.1, rng=1))
    assert str(info.value) == (
        "the hierarchical model pairs each algo's runs on an env by their label: name the run column after the env, "
        "'ret ~ algo | env/rep' (runs with the same label are paired), or use model='signed_rank', which works on "
        "env-level means")
    with pytest.raises(DesignError) as info:  # more than one column outside the formula: which is for the caller
        _quiet(lambda: rlstats.bayes(df.assign(x=1), "ret ~ algo | env", model="hierarchical", rope=0.1, rng=1))
    assert "name the column that labels the runs after the env, 'ret ~ algo | env/<run column>'" in str(info.value)
    two = df[(df.algo != "A2") & df.env.isin(["g0", "g1"])]  # 2 algos x 2 envs: the fit in 0.6 s
    res = _quiet(lambda: rlstats.bayes(two, "ret ~ algo | env/rep", model="hierarchical", rope=0.1, rng=1, chains=2,
                                       warmup=100, draws=100))
    assert any(n.startswith("each pair's runs on an env are paired by their rep label and the pairs' differences "
                            "are the replicates") for n in res.notes)
    assert res.report("text").startswith(
        "We compared 2 algos on 2 envs (12 runs) with the Bayesian hierarchical model of Corani et al. (2017) (per-env "
        "mean differences Student-t across envs,")


# ---- 5. AdaStop's interims by the formula's run column ----

def _reversed_runs():
    gen = np.random.default_rng(0)
    rows = [(a, "g0", s, s * (a == "B") + 0.1 * gen.normal()) for a in "AB" for s in range(8)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]).iloc[::-1]  # rows against the run order


@pytest.mark.parametrize("names,formula,column", [
    ({}, "score ~ agent | task/seed", "seed"),
    (ALGO, "ret ~ algo | env/rep", "rep"),
    ({"seed": "run"}, "score ~ agent | task/run", "run")])
def test_adastop_interims_follow_the_formulas_run_column(names, formula, column):
    """Runs rising with the run label (B's run s scores s), listed in reverse: the first interims hold the lowest
    labels whatever the column's name, so the estimate at the decision is B's first 6 runs' mean less A's (-2.4057);
    in row order it would be the last 6 (-4.3679)."""
    res = _quiet(lambda: rlstats.adastop(_reversed_runs().rename(columns=names), formula, n=2, K=4, rng=1,
                                         n_resamples=200))
    row = res.tidy().iloc[0]
    assert (row["decision"], int(row["interim"])) == ("smaller", 3)
    assert row["estimate"] == pytest.approx(-2.40567, abs=1e-5)
    assert (f"interims are consecutive groups of n = 2 runs per {names.get('agent', 'agent')} in the order of column "
            f"'{column}' (pass batch= to name the batches)") in res.notes


def test_adastop_row_order_note_names_no_seed_column():
    res = _quiet(lambda: rlstats.adastop(_reversed_runs().rename(columns=ALGO), "ret ~ algo | env", n=2, K=4, rng=1,
                                         n_resamples=200))
    assert res.tidy().iloc[0]["estimate"] == pytest.approx(-4.367895, abs=1e-6)  # row order: the last runs first
    assert ("interims are consecutive groups of n = 2 runs per algo in row order (no batch column, and the formula "
            "names no run column to order them, as 'ret ~ algo | env/<run column>' would; pass batch= to name the "
            "batches)") in res.notes


def test_task_table_apart_note_says_the_columns():
    res = _quiet(lambda: rlstats.task_table(_frame(), "ret ~ algo | env"))
    assert any(
        n.startswith("1 cell (g2/A0) is marked possibly best though") and "(the marks adjust for the k (k - 1) = 6 "
        "ordered pairs of an env (Holm-adjusted within env: its smallest p-value is tested at alpha / 6 = 0.0083 with "
        "3 algos), the interval's level only bounds the expected share of the 2 against the best that miss at 5% (a "
        "false coverage-statement rate, not joint coverage; each side at 0.017)); the mark is the set's answer at "
        "alpha, the interval the size of the difference" in n for n in res.notes)


def test_one_env_notes_say_the_columns():
    df = _frame(seeds=3)
    res = _quiet(lambda: rlstats.bootstrap(df[df.env == "g0"], "ret ~ algo | env", rng=1, n_resamples=100))
    assert ("the IQM of A0, A1 and A2 trims nothing: a quarter of fewer than 4 runs pooled over envs is less than one "
            "run, so it is their mean; an IQM needs 4 or more runs") in res.notes
    assert any(n.startswith("studentized intervals withheld on a single env for the IQM of A0 (3), A1 (3) and A2 (3);")
               and n.endswith("; add runs or envs, or use interval=\"percentile\" (its measured coverage is quoted)")
               for n in res.notes)
