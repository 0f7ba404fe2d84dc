"""Minimum replication per output, declared (issue 39 item 3): rlstats/methods/_replication.py and its readers.

Each back end declares the replication its outputs need (``Need`` in its ``_backend.py``); below it an output is
withheld (task_table, tuning) or the design is refused (bootstrap, curves, percentiles, selection, the permutation
tests). Checked here on a design laid out like the public SB3 agent collection (one run per agent and environment,
agents on different task sets), on mixed replication (cells of one run beside cells of five) and at the boundary
(exactly the declared minimum).
"""

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats.errors import DesignError
from rlstats.methods import DECLARATIONS
from rlstats.methods import _replication as replication
from rlstats.methods._declaration import Need
from rlstats.methods.task_table import _calibration as table_calibration

FORMULA = "score ~ agent | task/seed"
ACROSS = 'add runs, or compare the agents across tasks with a rank test: rlstats.compare(df, "score ~ agent | task")'
#: the way on of a call whose formula is FORMULA: the suggested call takes the call's own formula (audit s33 words33b)
ACROSS_FORMULA = ACROSS.replace('"score ~ agent | task"', f'"{FORMULA}"')


def sb3_like(agents=6, tasks=10, runs=1, rng=0):
    """One run per agent and environment, each agent on its own subset of the environments (as the SB3 zoo)."""
    gen = np.random.default_rng(rng)
    rows = []
    for a in range(agents):
        for t in sorted(gen.choice(tasks, size=tasks - 3, replace=False)):
            rows += [{"agent": f"algo{a}", "task": f"Env{t}-v1", "seed": s, "score": float(gen.normal(a + t, 1.0))}
                     for s in range(runs)]
    return pd.DataFrame(rows)


def cells_frame(plan, rng=0):
    """Long frame from {(task, agent): runs}, normal scores shifted by the agent's index."""
    gen = np.random.default_rng(rng)
    agents = sorted({a for _, a in plan})
    return pd.DataFrame([{"task": t, "agent": a, "seed": s, "score": float(gen.normal(3 * agents.index(a), 1))}
                         for (t, a), n in plan.items() for s in range(n)])


# ----------------------------------------------------------------------------- the rule itself

def test_the_rule_reads_each_unit_as_declared(monkeypatch):
    counts = np.array([[1, 1, 0, 5],
                       [2, 2, 2, 2],
                       [1, 5, 5, 5]])
    needs = (Need("mark", "marks", per="cell", way_on="add runs"),
             Need("pair", "comparisons", per="pair", way_on="add runs"),
             Need("agent", "intervals", per="agent", way_on="add runs"),
             Need("all", "tests", per="design", runs=6, way_on="add runs"),
             Need("odd", "odd ones", when=(("interval", "odd"),), way_on="add runs"))
    monkeypatch.setitem(DECLARATIONS, "task_table", dataclasses.replace(DECLARATIONS["task_table"],
                                                                         replication=needs))
    verdict = replication.verdict("task_table", counts, reference=np.array([3, 0, 1]), options={"interval": "x"},
                                  agents="ABCD", tasks=("t0", "t1", "t2"))
    # by hand: cells present with fewer than 2 runs; a pair is short when either side is; an agent when none of
    # its cells has 2 runs; the design when no cell has 6
    np.testing.assert_array_equal(verdict.withheld["mark"], [[1, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(verdict.withheld["pair"], [[1, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(verdict.withheld["agent"], [False, False, False, False])
    assert bool(verdict.withheld["all"]) and "odd" not in verdict.withheld
    assert verdict.sentences["mark"] == ("marks are withheld in 3 cells (t0/A, t0/B, t2/A): they need at least 2 "
                                         "runs per agent and task, and those have one run; add runs")
    assert verdict.sentences["all"] == ("tests are withheld: they need at least 6 runs per agent and task, and every "
                                        "cell has 1 to 5 runs; add runs")
    assert verdict.shown("mark") and not verdict.shown("all") and verdict.everywhere("all")
    # the reference of a pair with one run withholds its whole task; a need declared below="refuse" raises
    pair = replication.verdict("task_table", np.array([[1, 5, 5]]), reference=np.array([0]), agents="ABC",
                               tasks=("t",))
    np.testing.assert_array_equal(pair.withheld["pair"], [[0, 1, 1]])
    refused = (dataclasses.replace(needs[2], below="refuse"),)
    monkeypatch.setitem(DECLARATIONS, "task_table", dataclasses.replace(DECLARATIONS["task_table"],
                                                                         replication=refused))
    with pytest.raises(DesignError, match=r"^intervals cannot be computed for B: they need at least 2 runs in some "
                                          r"task of each agent, and it has one run in every task; add runs$"):
        replication.verdict("task_table", np.array([[2, 1], [5, 1]]), agents="AB")


def test_sentences_say_what_holds_the_count(monkeypatch):
    """A need counted in part of a cell (tuning: a sweep's fewest-seeded configuration) says so, and one cell is
    "it", not "those" (audit s7: "every sweep has one seed" of a sweep of 21 seeds)."""
    needs = (Need("band", "bands", per="cell", counted="seeds in each configuration", cell="sweep",
                  holder="fewest-seeded configuration", way_on="add seeds"),
             Need("mark", "marks", per="cell", way_on="add runs"))
    monkeypatch.setitem(DECLARATIONS, "task_table", dataclasses.replace(DECLARATIONS["task_table"],
                                                                         replication=needs))
    every = replication.verdict("task_table", np.array([[1, 1]]), agents="AB", tasks=("t0",))
    assert every.sentences["band"] == ("bands are withheld in every sweep: they need at least 2 seeds in each "
                                       "configuration, and in every sweep the fewest-seeded configuration has one "
                                       "seed; add seeds")
    one = replication.verdict("task_table", np.array([[1, 3], [4, 4]]), agents="AB", tasks=("t0", "t1"))
    assert one.sentences["band"] == ("bands are withheld in 1 sweep (t0/A): they need at least 2 seeds in each "
                                     "configuration, and in it the fewest-seeded configuration has one seed; add seeds")
    assert one.sentences["mark"] == ("marks are withheld in 1 cell (t0/A): they need at least 2 runs per agent and "
                                     "task, and it has one run; add runs")


@pytest.mark.filterwarnings("ignore:with n = 2 runs per agent:rlstats.errors.RlstatsWarning")
def test_back_ends_read_their_need_from_the_declaration(monkeypatch):
    # raising a declared need to 3 runs makes 2 runs too few, in every back end that refuses below it
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=2, rng=0)
    for name, call in (("bootstrap", lambda: rlstats.bootstrap(df, "score ~ agent | task", n_resamples=100)),
                       ("percentiles", lambda: rlstats.percentiles(df, "score ~ agent | task", interval="pbp_t")),
                       ("permutation", lambda: rlstats.permutation(df, "score ~ agent | task", n_resamples=100))):
        declared = DECLARATIONS[name]
        raised = tuple(dataclasses.replace(n, runs=3) for n in declared.replication)
        monkeypatch.setitem(DECLARATIONS, name, dataclasses.replace(declared, replication=raised))
        with pytest.raises(DesignError, match="they need at least 3 runs"):
            call()
        monkeypatch.setitem(DECLARATIONS, name, declared)
        call()  # at the declared 2 runs: no error


# ----------------------------------------------------------------------------- task_table: one run per cell

@pytest.fixture(scope="module")
def one_run():
    df = sb3_like()
    return df, rlstats.task_table(df, "score ~ agent | task", rng=0)


def test_one_run_per_cell_prints_no_mark_and_says_why(one_run):
    df, res = one_run
    text = str(res)
    assert "\u2020" not in text and "\u00b1" not in text
    assert "possibly-best marks withheld (too few runs)" in text
    assert "*bold*: best mean\n" in text and "confidence set" not in text
    why = ("possibly-best marks and comparisons with the best (tests, effect-size intervals) are withheld: they need "
           f"at least 2 runs per agent and task, and every cell has one run; {ACROSS}")
    assert res.notes[-1] == why and f"Note: {why}" in text
    assert not any("measured coverage" in n or "could not be compared" in n or "cannot reject" in n
                   for n in res.notes)
    assert res.withheld_reasons == {"possibly_best": why, "comparisons": why, "std_dev": (
        "standard deviations (\u00b1 sd) are withheld in every cell: they need at least 2 runs per agent and task, "
        "and every cell has one run; add runs")}


def test_one_run_per_cell_tidy_leaves_the_withheld_values_missing(one_run):
    df, res = one_run
    tidy = res.tidy()
    present = tidy[tidy["n_runs"] > 0]
    # the environment only one agent ran is kept out (a note says so); every other run is a cell
    assert len(present) == len(df) - 1 == 41 and res.notes[0].startswith("1 task (1 run) kept out of the analysis")
    assert present["possibly_best"].isna().all() and present["significant"].isna().all()
    for column in ("std_dev", "p_value", "p_exclusion", "welch_t", "welch_df", "diff_low", "diff_high", "a12_low",
                   "a12_high", "hedges_g", "hedges_g_low", "hedges_g_high"):
        assert present[column].isna().all(), column
    assert not res.possibly_best.any() and res.withheld["possibly_best"][res.counts > 0].all()
    # the point estimates stay: each cell's score, the best in bold, and A12 = whether the best's run is higher
    means = df.set_index(["task", "agent"])["score"]
    np.testing.assert_array_equal(present.set_index(["task", "agent"])["estimate"], means.loc[present.set_index(
        ["task", "agent"]).index])
    best = present.loc[present["best"]].set_index("task")["estimate"]
    others = present[~present["best"]]
    np.testing.assert_array_equal(others["a12"], (best.loc[others["task"]].to_numpy() > others["estimate"]) * 1.0)
    assert present.groupby("task")["best"].sum().eq(1).all()


def test_one_run_per_cell_report_latex_and_figure(one_run, tmp_path):
    df, res = one_run
    report = res.report()
    assert "No possibly-best set, test or effect-size interval is given" in report
    assert "confidence set" not in report and "Mogstad" not in report
    assert "(1 run per agent and task)" in report
    assert "Possibly-best marks and comparisons with the best (tests, effect-size intervals) are withheld" in report
    latex = res.to_latex()
    caption = re.search(r"\\caption\{(.*)\}\n", latex).group(1)
    assert caption.startswith("Mean of 1 run (seed) per agent and task; blank: no runs of the agent on the task "
                              "(13 cells). Bold: the best mean of each task. Possibly-best marks and comparisons with "
                              "the best")
    assert r"\dagger" not in latex and r"\pm" not in latex and "standard deviation" not in caption
    assert "\u2020" not in res.to_markdown() and "\u2020" not in res._repr_html_()
    ax = res.plot()
    assert "withheld" in ax.get_title() and not [t for t in ax.texts if t.get_text() == "\u2020"]
    ax.figure.savefig(tmp_path / "one_run.png")


def test_the_aggregate_row_is_withheld_with_the_way_on():
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=1, rng=0)
    res = rlstats.task_table(df, FORMULA, aggregate="bootstrap", n_resamples=200, rng=0)
    assert res.aggregate is None and "Aggregate" not in res.to_latex()
    assert ("aggregate-row intervals are withheld for every agent: they need at least 2 runs in some task of each "
            "agent, and each has one run in every task; add runs, or resample tasks as well: rlstats.bootstrap(df, "
            "\"score ~ agent | task/seed\", task_bootstrap=True) (the aggregate row compares every agent, so it is left "
            "out)") in res.notes


# ----------------------------------------------------------------------------- task_table: mixed replication

PLAN = {("T0", "A"): 5, ("T0", "B"): 5, ("T0", "C"): 1,
        ("T1", "A"): 1, ("T1", "B"): 1, ("T1", "C"): 1,
        ("T2", "A"): 5, ("T2", "B"): 5, ("T2", "C"): 5,
        ("T3", "A"): 1, ("T3", "B"): 5, ("T3", "C"): 5}


def test_mixed_replication_withholds_per_cell():
    df = cells_frame(PLAN, rng=3)
    res = rlstats.task_table(df, FORMULA, rng=0)
    tidy = res.tidy().set_index(["task", "agent"])
    single = [cell for cell, n in PLAN.items() if n == 1]
    assert tidy.loc[single, "possibly_best"].isna().all()
    assert tidy.loc[[c for c in PLAN if PLAN[c] > 1], "possibly_best"].notna().all()
    assert tidy.loc[single, "std_dev"].isna().all() and tidy.loc[[c for c in PLAN if PLAN[c] > 1], "std_dev"].notna().all()
    # the comparison with the best (C by construction) is withheld where either side has one run
    best = {t: res.agents[b] for t, b in zip(res.tasks, res.best)}
    assert best == {"T0": "C", "T1": "C", "T2": "C", "T3": "C"}
    for (t, a), n in PLAN.items():
        if a == best[t]:
            continue
        row = tidy.loc[(t, a)]
        if n == 1 or PLAN[(t, best[t])] == 1:
            assert np.isnan(row["welch_t"]) and np.isnan(row["a12_low"]) and np.isnan(row["p_value"])
        else:  # Welch's t of the best against the agent, as scipy computes it
            x = df[(df.task == t) & (df.agent == best[t])]["score"]
            y = df[(df.task == t) & (df.agent == a)]["score"]
            expected = stats.ttest_ind(x, y, equal_var=False, alternative="greater")
            assert row["welch_t"] == pytest.approx(expected.statistic, rel=1e-12)
            assert row["p_value"] == pytest.approx(expected.pvalue, rel=1e-9)
    assert ("possibly-best marks are withheld in 5 cells (T0/C, T1/A, T1/B, T1/C and 1 more): they need at least 2 "
            f"runs per agent and task, and those have one run; {ACROSS_FORMULA}") in res.notes
    assert ("in 2 tasks (T0, T3) the marks compare only the agents with the runs they need: an agent with fewer "
            "excludes no other agent from the set") in res.notes
    caption = res.caption()
    assert caption.startswith("Mean \u00b1 standard deviation over 5 runs (seeds) per agent and task (5 cells "
                              "of 1 run: the mean alone). Bold: the best mean of each task, but for a best from too few "
                              "runs to test (T0/C, T1/C); \u2020: possibly best")
    assert "Possibly-best marks are withheld in 5 cells" in caption
    # counted as the table shows them: T0 and T1 have no bold best (audit s34 marks34)
    assert "(5 cells withheld: too few runs; no bold best in 2 tasks, whose best is withheld)" in str(res)


def test_a_withheld_cell_changes_no_other_mark():
    # The marks of the replicated cells are those of the table without the single-run cells: an independent run
    df = cells_frame(PLAN, rng=3)
    res = rlstats.task_table(df, FORMULA, rng=0)
    replicated = df.groupby(["task", "agent"])["score"].transform("size") > 1
    alone = rlstats.task_table(df[replicated], FORMULA, rng=0)
    full = res.tidy().set_index(["task", "agent"])
    part = alone.tidy().set_index(["task", "agent"])
    part = part[part["n_runs"] > 0]
    mine = full.loc[part.index]
    np.testing.assert_array_equal(mine["p_exclusion"], part["p_exclusion"])
    # the set of the replicated cells is the same (T0's point best is C, of one run, in the full table and B
    # without it: B is in the set either way, as no agent is significantly better)
    assert (mine["possibly_best"].astype(bool) == part["possibly_best"].astype(bool)).all()
    assert mine["possibly_best"].astype(bool).tolist() == [False, True, False, False, True, False, True]


# ----------------------------------------------------------------------------- task_table: the boundary

def test_exactly_the_declared_minimum_shows_everything_and_quotes_calibration():
    df = rlstats.datasets.simulate(agents=5, tasks=3, seeds=2, effect=1.0, rng=0)
    res = rlstats.task_table(df, FORMULA, rng=0)
    need = {n.output: n.runs for n in DECLARATIONS["task_table"].replication}
    assert need["possibly_best"] == need["comparisons"] == need["std_dev"] == 2
    assert not any(mask.any() for mask in res.withheld.values()) and res.withheld_reasons == {}
    tidy = res.tidy()
    assert tidy["possibly_best"].notna().all() and tidy["std_dev"].notna().all()
    assert "withheld" not in str(res) and "withheld" not in res.to_latex()
    assert "\u00b1 standard deviation over 2 runs (seeds) per agent and task. Bold" in res.caption()
    assert "form a 95% confidence set" in res.caption()
    # the effect-size calibration rows at 5 agents x 2 runs are quoted, because the intervals are printed (the
    # per-pair intervals', which miss their level there; the default's hold it)
    row = table_calibration.effect_size_shortfall("a12", 5, 2, 0.95, "per_pair")
    assert row is not None and float(row["coverage"]) < 0.9
    per_pair = rlstats.task_table(df, FORMULA, rng=0, effect_intervals="per_pair")
    assert any(n.startswith("measured coverage of the 95% Vargha-Delaney A12 interval") and
               f"{float(row['coverage']):.3f}" in n for n in per_pair.notes)
    # one run fewer: the same design quotes nothing
    one = rlstats.task_table(df[df["seed"] == 0], FORMULA, rng=0)
    assert not any("measured coverage" in n for n in one.notes)


# ----------------------------------------------------------------------------- the other back ends

@pytest.mark.filterwarnings("ignore:with n_resamples = 100:rlstats.errors.RlstatsWarning")
@pytest.mark.parametrize("call, phrase", [
    (lambda d: rlstats.bootstrap(d, "score ~ agent | task", n_resamples=100),
     "bootstrap intervals cannot be computed for every agent"),
    (lambda d: rlstats.performance_profile(d, "score ~ agent | task", n_resamples=100),
     "performance profile bands cannot be computed for every agent"),
    (lambda d: rlstats.percentiles(d, "score ~ agent | task", interval="bootstrap", n_resamples=100),
     'interval="bootstrap" intervals cannot be computed: they need at least 2 runs per agent and task, and every '
     'cell has one run'),
    (lambda d: rlstats.permutation(d, "score ~ agent | task", n_resamples=100),
     "per-task comparisons of agents cannot be computed"),
    (lambda d: rlstats.adastop(d, "score ~ agent | task", n=1, n_resamples=100),
     "per-task comparisons of agents cannot be computed"),
])
def test_back_ends_that_refuse_one_run_per_cell(call, phrase):
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=1, rng=0)
    with pytest.raises(DesignError, match=re.escape(phrase)):
        call(df)
    call(rlstats.datasets.simulate(agents=3, tasks=4, seeds=2, rng=0))  # the boundary: 2 runs


def test_rank_tests_and_the_mixed_model_need_no_replication():
    df = sb3_like(agents=4, tasks=8)
    assert DECLARATIONS["skillings_mack"].no_replication and DECLARATIONS["mixed"].no_replication
    res = rlstats.compare(df, "score ~ agent | task")
    assert not any("withheld" in n for n in res.notes)


def _two_configurations(seeds):
    """Two learning rates a sweep, ``seeds`` seeds each (each agent one configuration is refused: new-user s38)."""
    return pd.concat([rlstats.datasets.simulate(agents=3, tasks=3, seeds=seeds, effect=1.0, rng=rng).assign(lr=lr)
                      for rng, lr in ((0, 0.001), (1, 0.01))], ignore_index=True)


def test_tuning_withholds_intervals_from_one_seed():
    df = _two_configurations(1)
    res = rlstats.tuning(df, FORMULA, config="lr", n_resamples=200, rng=0)
    for table in ("tuned", "expected_max", "complete"):
        assert res.tables[table][["conf_low", "conf_high"]].isna().all().all(), table
    assert ("tuned-score intervals are withheld in every sweep: they need at least 2 seeds in the selected "
            "configuration, and in every sweep the selected configuration has one seed; add seeds to the selected "
            "configuration") in res.notes
    # (a configuration of one seed beside another: the best set and the tuned score are withheld, not printed as NaN)
    assert "[NaN" not in str(res) and "best set withheld; tuned score withheld" in str(res)
    assert not any("measured at" in n for n in res.notes)  # no calibration row for a band that is not printed
    # the two-stage complete interval needs seeds; the default one configurations ([calibration: tuning complete]):
    # each sweep has 2 configurations here, so it is withheld whatever the seeds
    two = rlstats.tuning(_two_configurations(2), FORMULA, config="lr", n_resamples=200, rng=0,
                         complete_interval="two_stage")
    for table in ("tuned", "expected_max", "complete"):
        assert two.tables[table][["conf_low", "conf_high"]].notna().all().all(), table
    assert not any("withheld" in n for n in two.notes)
    default = rlstats.tuning(_two_configurations(2), FORMULA, config="lr", n_resamples=200, rng=0)
    assert default.tables["complete"][["conf_low", "conf_high"]].isna().all().all()
    assert [n for n in default.notes if "withheld" in n] == [
        "complete-algorithm intervals are withheld in every sweep: they need at least 30 configurations (in effect "
        "with weights=: 1 / the sum of squared weight shares), and every sweep has 2 configurations; add "
        "configurations drawn from the hyperparameter distribution (with fewer, the spread of a few configurations' "
        "means misses skewed landscapes; the estimate stands)"]


# ----------------------------------------------------------------------------- per-task tests: permutation, AdaStop

#: task_01 with one run per agent, the others with 5 (the brief's mixed design)
MIXED_TASKS = {(t, a): (1 if t == "task_01" else 5) for t in ("task_01", "task_02", "task_03") for a in ("A", "B")}
WITHHELD_NOTE = ("per-task comparisons (decisions and p-values) are withheld in 2 cells (task_01/A, task_01/B): they "
                 "need at least 2 runs per agent and task, and those have one run; a permutation test with one run "
                 "per agent has p = 1 whatever the scores; add runs on those tasks, or compare the agents across "
                 'tasks with a rank test: rlstats.compare(df, "score ~ agent | task")')


def _exact_permutation_p(x, y):
    """Two-sided permutation p-value of |mean(x) - mean(y)| by enumerating every split (independent of rlstats)."""
    import itertools
    pooled, n = np.concatenate([x, y]), len(x)
    observed = abs(x.mean() - y.mean())
    splits = list(itertools.combinations(range(len(pooled)), n))
    hits = sum(abs(pooled[list(s)].mean() - np.delete(pooled, list(s)).mean()) >= observed * (1 - 1e-12)
               for s in splits)
    return hits / len(splits)


@pytest.mark.parametrize("how", ["function", "compare"])
def test_permutation_withholds_the_task_of_single_runs(how):
    df = cells_frame(MIXED_TASKS, rng=4)
    call = (rlstats.permutation if how == "function" else
            lambda *a, **k: rlstats.compare(*a, method="permutation", **k))
    res = call(df, "score ~ agent | task", rng=0)
    tidy = res.tidy().set_index("task")
    assert tidy.loc["task_01", "decision"] == "withheld" and np.isnan(tidy.loc["task_01", "p_adjusted"])
    assert tidy.loc["task_01", ["n_1", "n_2", "interim"]].tolist() == [1, 1, 0]
    assert tidy.loc["task_01", "reason"] == "withheld: A has 1 run and B has 1 run on this task (see the note)"
    for task in ("task_02", "task_03"):  # the tested tasks: exact enumeration (126 of 252 splits) by hand
        x = df[(df.task == task) & (df.agent == "A")]["score"].to_numpy()
        y = df[(df.task == task) & (df.agent == "B")]["score"].to_numpy()
        assert tidy.loc[task, "p_adjusted"] == pytest.approx(_exact_permutation_p(x, y), rel=1e-12)
        assert tidy.loc[task, "decision"] == ("smaller" if tidy.loc[task, "p_adjusted"] <= 0.05 else "equal")
    assert tidy["decision"].tolist() == ["withheld", "smaller", "smaller"]
    glance = res.glance().iloc[0]
    assert (glance["n_rejected"], glance["n_equal"], glance["n_undecided"], glance["n_withheld"]) == (2, 0, 0, 1)
    assert glance["n_runs_used"] == 20 and glance["batch_size"] == 5
    assert res.notes.count(WITHHELD_NOTE) == 1
    # no cannot-reject note for task_01: its p-value (always 1 at one run each) is not printed as a test
    assert not any("cannot reject" in note for note in res.notes)
    text = str(res)
    assert "rejected = 2 of 3 comparisons, withheld = 1," in text and "n = 1 runs" not in text
    assert res.decision_matrix(task="task_01").loc["A", "B"] == "\u2013"
    report = res.report()
    assert "On task\\_01, every comparison was withheld (too few runs)." in report
    assert "Per-task comparisons (decisions and p-values) are withheld in 2 cells" in report
    ax = res.plot(kind="decisions")
    suptitle = ax._suptitle.get_text() if ax._suptitle is not None else ""  # Figure.get_suptitle: matplotlib >= 3.8
    assert "\u2013: withheld, too few runs" in suptitle  # one panel per task: the key says it once
    one = res.plot(kind="decisions", task="task_01")
    assert one.get_title().endswith("\u2013: withheld, too few runs (see the notes)")
    # the tested tasks are those of the same test without task_01
    alone = call(df[df.task != "task_01"], "score ~ agent | task", rng=0).tidy()
    np.testing.assert_array_equal(tidy.loc[["task_02", "task_03"], "p_adjusted"], alone["p_adjusted"])


@pytest.mark.filterwarnings("ignore:with n = 1 run per batch")  # B and C alone at n = 1: no level to spend
def test_adastop_withholds_per_pair_where_an_agent_has_one_run():
    plan = {**{(t, a): 5 for t in ("task_01", "task_02") for a in ("A", "B", "C")}, ("task_01", "A"): 1}
    df = cells_frame(plan, rng=5)
    # the joint relabelling (the default before audit s29b), whose cannot-reject note this pins
    res = rlstats.adastop(df, "score ~ agent | task", n=1, K=5, n_resamples=500, rng=0, permutations="joint")
    tidy = res.tidy()
    first = tidy[tidy.task == "task_01"].set_index(["agent_1", "agent_2"])
    assert first["decision"].tolist() == ["withheld", "withheld", "equal"]  # A-B, A-C withheld; B-C tested
    assert first.loc[("A", "B"), "reason"] == "withheld: A has 1 run on this task (see the note)"
    assert first.loc[("A", "B"), ["n_1", "n_2"]].tolist() == [1, 5]
    used = res.runs_used.set_index(["task", "agent"])["n_runs"]
    assert used.loc["task_01"].tolist() == [0, used.loc[("task_01", "B")], used.loc[("task_01", "C")]]
    assert ("per-task comparisons (decisions and p-values) are withheld in 1 cell (task_01/A): they need at least "
            "2 runs per agent and task, and it has one run") in res.notes[0]
    glance = res.glance().iloc[0]
    assert glance["n_withheld"] == 2 and glance["n_comparisons"] == 6
    assert glance["n_rejected"] + glance["n_equal"] + glance["n_undecided"] == 4
    assert "withheld = 2 (of 6 comparisons)" in str(res)
    assert "A vs B withheld: A has 1 run on this task" in res.report()
    # B and C alone on task_01 at n = 1 (one path per interim): no level to spend, and the notes say so
    assert ("AdaStop cannot reject on 1 task (task_01): with its runs per interim and interims no level can be spent "
            "on the permutation grid, so its decisions there are 'no difference found' or 'continue' whatever the "
            "scores; use a larger n or K (the paper advises n * K >= 30)") in res.notes  # the never-reject warning's way on (audit s31)
    # B against C on task_01 is the test of B and C alone there (joint relabelling of two agents: exact)
    alone = rlstats.adastop(df[(df.task == "task_01") & (df.agent != "A")], "score ~ agent | task", n=1, K=5,
                            n_resamples=500, rng=0, permutations="joint").tidy().iloc[0]
    assert (first.loc[("B", "C"), "decision"], first.loc[("B", "C"), "interim"]) == (alone["decision"],
                                                                                     alone["interim"])


def test_one_run_everywhere_is_still_refused():
    df = cells_frame({(t, a): 1 for t in ("t1", "t2") for a in ("A", "B")})
    for call in (rlstats.permutation, rlstats.adastop):
        with pytest.raises(DesignError, match="per-task comparisons of agents cannot be computed"):
            call(df, "score ~ agent | task", **({"n": 1} if call is rlstats.adastop else {}))


# ----------------------------------------------------------------------------- curves: a step where runs have ended

@pytest.mark.filterwarnings("ignore::rlstats.errors.RlstatsWarning")
def test_curves_withhold_the_bands_at_steps_where_an_agent_has_one_run_logged():
    curves_df = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=5, rng=0)
    steps = sorted(curves_df["step"].unique())
    # two of agent_1's three runs end at 500k on both tasks: one run of it is logged at 750k and 1M
    cut = curves_df[~((curves_df.agent == "agent_1") & (curves_df.seed > 0) & (curves_df.step >= steps[3]))]
    # statistic="mean": the per-step rule is the statistic's own
    res = rlstats.curves(cut, "score ~ agent | task/seed", step="step", n_resamples=200, rng=0, statistic="mean")
    tidy = res.tidy().set_index(["agent", "step"])
    bands = ["std_error", "conf_low", "conf_high", "conf_low_simultaneous", "conf_high_simultaneous"]
    assert tidy.loc["agent_1"].loc[steps[3]:, bands].isna().all().all()
    assert tidy.loc["agent_1"].loc[:steps[2], bands].notna().all().all()
    assert tidy.loc["agent_2", bands].notna().all().all()
    # the estimate at a withheld step is the IQM of the one run per task logged there (2 values: their mean)
    last = cut[(cut.agent == "agent_1") & (cut.step == steps[4])]["score"]
    assert tidy.loc[("agent_1", steps[4]), "estimate"] == pytest.approx(last.mean(), rel=1e-12)
    assert np.isnan(res.critical_value[0, 3:]).all() and np.isfinite(res.critical_value[0, :3]).all()
    assert ("bands of the curves (and their standard errors) are withheld for agent_1 at 2 steps (750k to 1M), "
            "where task_01 and task_02 have one run logged: they need at least 2 runs per agent and task logged at "
            "the step; add runs that reach those steps") in res.notes
    assert "agent_1: 31.407 (band withheld, see the notes)" in str(res)  # the notes say why (audit s13)
    # agent_2's bands are those of the uncut data: each agent's bootstrap draws from its own child stream
    full = rlstats.curves(curves_df, "score ~ agent | task/seed", step="step", n_resamples=200, rng=0,
                          statistic="mean")
    np.testing.assert_array_equal(res.simultaneous[1], full.simultaneous[1])
    assert np.isfinite(full.simultaneous).all()


def test_the_default_iqm_band_at_two_separated_tasks_and_three_runs():
    # winsorising at the pooled quartiles ties a task's runs in 1/3 of its resamples, both tasks in 1/9 > 0.025:
    # their standard error is 0, and only its floor (a quarter of the resamples' spread) keeps the band finite
    curves_df = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=5, rng=0)
    res = rlstats.curves(curves_df, "score ~ agent | task/seed", step="step", n_resamples=200, rng=0)
    assert np.isfinite(res.simultaneous).all() and not any("withheld" in note for note in res.notes)
    spread = curves_df["score"].max() - curves_df["score"].min()
    assert (res.simultaneous[..., 0] > curves_df["score"].min() - spread).all()
    assert (res.simultaneous[..., 1] < curves_df["score"].max() + spread).all()


# ----------------------------------------------------------------------------- percentiles: an agent of single runs

@pytest.mark.filterwarnings("ignore::rlstats.errors.RlstatsWarning")
def test_percentiles_withhold_the_bootstrap_interval_of_an_agent_with_one_run_per_task():
    df = cells_frame({(t, a): (1 if a == "A" else 5) for t in ("t1", "t2", "t3", "t4") for a in ("A", "B", "C")},
                     rng=1)
    res = rlstats.percentiles(df, "score ~ agent | task", interval="bootstrap", n_resamples=500, rng=0)
    tidy = res.tidy().set_index("agent")
    assert tidy.loc["A", ["conf_low", "conf_high"]].isna().all()
    assert tidy.loc[["B", "C"], ["conf_low", "conf_high"]].notna().all().all()
    # A may rank anywhere; each other agent's worst rank counts A as possibly better, its best never as surely
    # better (by hand from the printed intervals: C's and B's do not overlap, so C is 1 or 2 and B 2 or 3)
    assert tidy[["rank", "rank_best", "rank_worst"]].to_dict("index") == {
        "A": {"rank": 3, "rank_best": 1, "rank_worst": 3}, "B": {"rank": 2, "rank_best": 2, "rank_worst": 3},
        "C": {"rank": 1, "rank_best": 1, "rank_worst": 2}}
    assert ("interval=\"bootstrap\" intervals are withheld for A: they need at least 2 runs in some task of each "
            "agent, and it has one run in every task; its interval would show only the other agents' spread; use "
            "interval=\"pbp\" (valid with any number of runs), or add runs") in res.notes
    # 5 significant digits, as summary() and to_latex() print them (audit s29 real29b: the print showed 4)
    assert "A  0.015052 (interval withheld, see the notes)  rank 3 (best 1, worst 3)" in str(res)
    # PBP is valid with any number of runs: nothing withheld
    pbp = rlstats.percentiles(df, "score ~ agent | task", rng=0)
    assert np.isfinite(pbp.conf_low).all() and not any("withheld" in note for note in pbp.notes)
