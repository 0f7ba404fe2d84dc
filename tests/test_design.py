"""design.build: the arrays, their order, and every validation error."""

import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import build
from rlstats.errors import DesignError, FormulaError, OptionError, RlstatsError


def small_frame():
    return pd.DataFrame({
        "agent": ["b", "a", "b", "a", "c", "c", "a", "b"],
        "task": ["t2", "t1", "t1", "t2", "t1", "t2", "t1", "t2"],
        "seed": [0, 0, 0, 0, 0, 0, 1, 1],
        "score": [5.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0],
    })


def test_arrays_sorted_by_task_agent_then_rows():
    df = small_frame()
    d = build(df, "score ~ agent | task")
    assert d.agents == ("a", "b", "c") and d.tasks == ("t1", "t2")
    # t1: a rows 1, 6; b row 2; c row 4.  t2: a row 3; b rows 0, 7; c row 5.
    np.testing.assert_array_equal(d.row_position, [1, 6, 2, 4, 3, 0, 7, 5])
    np.testing.assert_array_equal(d.y, df["score"].to_numpy()[d.row_position])
    np.testing.assert_array_equal(d.agent, [0, 0, 1, 2, 0, 1, 1, 2])
    np.testing.assert_array_equal(d.task, [0, 0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(d.run, [0, 1, 0, 0, 0, 0, 1, 0])
    np.testing.assert_array_equal(d.counts, [[2, 1, 1], [1, 2, 1]])
    assert d.nobs == 8 and d.is_complete and not d.is_balanced and d.notes == ()


def test_categorical_level_order_is_kept_and_unused_levels_are_stated():
    df = small_frame()
    df["agent"] = pd.Categorical(df["agent"], categories=["c", "zz", "a", "b"], ordered=True)
    d = build(df, "score ~ agent | task")
    assert d.agents == ("c", "a", "b")
    assert any("zz" in n for n in d.notes)


def test_cell_matrix_means_and_medians():
    d = build(small_frame(), "score ~ agent | task")
    np.testing.assert_allclose(d.cell_matrix("mean"), [[4.0, 2.0, 4.0], [3.0, 6.5, 6.0]])
    np.testing.assert_allclose(d.cell_matrix("median"), [[4.0, 2.0, 4.0], [3.0, 6.5, 6.0]])


def test_callers_frame_is_not_modified():
    df = small_frame()
    df["agent"] = pd.Categorical(df["agent"])
    before = df.copy(deep=True)
    build(df, "log(score) ~ agent | task/seed")
    pd.testing.assert_frame_equal(df, before)


def test_replicate_column_duplicates_raise():
    df = small_frame()
    df.loc[6, "seed"] = 0  # agent a on t1 now has seed 0 twice
    with pytest.raises(DesignError, match=r"repeats id '0' within agent 'a' on task 't1'"):
        build(df, "score ~ agent | task/seed")


def test_runs_are_numbered_by_seed_when_named():
    df = small_frame()
    df.loc[1, "seed"] = 5  # a/t1 rows: seed 5 (row 1) and seed 1 (row 6)
    d = build(df, "score ~ agent | task/seed")
    first = np.flatnonzero((d.agent == 0) & (d.task == 0))
    assert list(d.seeds[first]) == ["1", "5"]


@pytest.mark.parametrize("bad", [np.nan, None])
def test_missing_values_raise_or_are_dropped_and_stated(bad):
    df = small_frame()
    df["score"] = df["score"].astype(object)
    df.loc[2, "score"] = bad
    df["score"] = pd.to_numeric(df["score"])
    with pytest.raises(DesignError, match=r"column 'score' has 1 missing value.*first rows: index label 2\).*na_action"):
        build(df, "score ~ agent | task")
    d = build(df, "score ~ agent | task", na_action="drop")
    assert d.nobs == 7 and d.n_dropped_rows == 1
    assert any("1 of 8 rows dropped" in n for n in d.notes)


def test_missing_agent_label_raises():
    df = small_frame()
    df.loc[0, "agent"] = None
    with pytest.raises(DesignError, match="column 'agent' has 1 missing"):
        build(df, "score ~ agent | task")


def test_nonfinite_transform_raises_or_is_dropped():
    df = small_frame()
    df.loc[[0, 3], "score"] = [-1.0, 0.0]
    with pytest.raises(FormulaError, match=r"2 non-finite values.*log1p"):
        build(df, "log(score) ~ agent | task")
    d = build(df, "log(score) ~ agent | task", na_action="drop")
    assert d.nobs == 6 and any("'log(score)' is not finite" in n for n in d.notes)


def test_non_numeric_response_raises():
    df = small_frame()
    df["score"] = df["score"].astype(str)
    with pytest.raises(FormulaError, match="must be numeric"):
        build(df, "score ~ agent | task")


def test_unknown_column_suggests_close_name():
    with pytest.raises(FormulaError, match="did you mean 'agent'"):
        build(small_frame(), "score ~ agnet | task")


def test_empty_frame_and_wrong_type_raise():
    with pytest.raises(DesignError, match="no rows"):
        build(small_frame().iloc[:0], "score ~ agent | task")
    with pytest.raises(DesignError, match="DataFrame"):
        build(small_frame().to_dict(), "score ~ agent | task")


def test_fewer_than_two_agents_raises():
    df = small_frame()
    with pytest.raises(DesignError, match="at least two agents"):
        build(df[df.agent == "a"], "score ~ agent | task")


def test_several_tasks_without_blocks_raise_unless_pooled():
    df = small_frame()
    with pytest.raises(DesignError, match=r"data contain 2 tasks .*'score ~ agent \| task'.*pool_tasks=True"):
        build(df, "score ~ agent")
    d = build(df, "score ~ agent", pool_tasks=True)
    assert d.n_tasks == 1 and any("pooled" in n for n in d.notes)
    one = build(df[df.task == "t1"], "score ~ agent")
    assert not one.has_blocks and one.nobs == 4


def test_tasks_with_fewer_than_two_agents_are_kept_out_and_listed():
    df = pd.concat([small_frame(), pd.DataFrame({"agent": ["a", "a"], "task": ["t3", "t3"], "seed": [0, 1],
                                                 "score": [1.0, 2.0]})], ignore_index=True)
    d = build(df, "score ~ agent | task")
    assert d.tasks == ("t1", "t2") and d.dropped_tasks == ("t3",)
    assert any("t3" in n and "fewer than two agents" in n for n in d.notes)


def test_agent_only_in_dropped_tasks_is_left_out():
    df = pd.concat([small_frame(), pd.DataFrame({"agent": ["z"], "task": ["t9"], "seed": [0], "score": [1.0]})],
                   ignore_index=True)
    d = build(df, "score ~ agent | task")
    assert d.agents == ("a", "b", "c")
    assert any("z" in n for n in d.notes)


def test_crossed_blocks_are_task_seed_pairs():
    df = pd.DataFrame({"agent": ["a", "b"] * 4, "task": ["t1"] * 4 + ["t2"] * 4,
                       "seed": [0, 0, 1, 1] * 2, "score": np.arange(8.0)})
    d = build(df, "score ~ agent | task:seed")
    assert d.tasks == ("t1:0", "t1:1", "t2:0", "t2:1")
    np.testing.assert_array_equal(d.counts, np.ones((4, 2)))


def test_extra_columns_follow_the_sort_order():
    df = small_frame().assign(batch=[10, 11, 12, 13, 14, 15, 16, 17])
    d = build(df, "score ~ agent | task", extra_columns=["batch"])
    np.testing.assert_array_equal(d.extra["batch"], df["batch"].to_numpy()[d.row_position])
    with pytest.raises(DesignError, match="not found"):
        build(df, "score ~ agent | task", extra_columns=["nope"])


def test_user_function_in_response_resolves_in_callers_frame():
    def squash(x):
        return x / 100.0

    d = build(small_frame(), "squash(score) ~ agent | task")
    np.testing.assert_allclose(d.y, small_frame()["score"].to_numpy()[d.row_position] / 100.0)
    res = rlstats.compare(small_frame(), "squash(score) ~ agent | task")
    assert res.data_name == "squash(score) and agent and task"


def test_bad_options_raise_option_error():
    with pytest.raises(OptionError, match="na_action='exclude'"):
        build(small_frame(), "score ~ agent | task", na_action="exclude")
    assert issubclass(OptionError, RlstatsError) and issubclass(RlstatsError, ValueError)


def test_select_agents_restricts_every_array():
    d = build(small_frame(), "score ~ agent | task").select_agents(["c", "a"])
    assert d.agents == ("c", "a") and d.nobs == 5
    np.testing.assert_array_equal(d.counts, [[1, 2], [1, 1]])
    np.testing.assert_array_equal(d.agent, [0, 1, 1, 0, 1])  # still sorted by task, then agent
    np.testing.assert_array_equal(d.row_position, [4, 1, 6, 5, 3])


def test_numeric_seeds_sort_as_numbers():
    df = pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 3, "task": "t", "seed": [10, 2, 1] * 2,
                       "score": np.arange(6.0)})
    d = build(df, "score ~ agent | task/seed")
    assert list(d.seeds[:3]) == ["1", "2", "10"]
    np.testing.assert_array_equal(d.y[:3], [2.0, 1.0, 0.0])


def test_select_tasks_keeps_order_and_arrays():
    d = build(small_frame(), "score ~ agent | task").select_tasks(["t2"])
    assert d.tasks == ("t2",) and d.nobs == 4
    np.testing.assert_array_equal(d.row_position, [3, 0, 7, 5])
    np.testing.assert_array_equal(d.task, [0, 0, 0, 0])


def test_require_complete_raises_or_drops_incomplete_tasks():
    df = small_frame()
    gap = df[~((df.agent == "c") & (df.task == "t1"))]
    d = build(gap, "score ~ agent | task")
    with pytest.raises(DesignError, match=r"1 agent x task cell has no runs \(agent 'c' on task 't1'\); "
                                          r"a test needs it: add those runs"):
        d.require_complete("raise", "a test needs it")
    kept = d.require_complete("drop", "a test needs it")
    assert kept.tasks == ("t2",) and kept.dropped_tasks == ("t1",)
    assert kept.notes[-1] == "1 task left out because some agent has no runs there (na_action=\"drop\"; " \
                             "3 runs dropped): t1"


def test_design_of_passes_a_design_through_and_builds_otherwise():
    from rlstats.design import design_of

    def squash(x):
        return x / 100.0

    def public(data, formula=None, **options):  # the front door is called by a public function
        return design_of(data, formula, **options)

    built = public(small_frame(), "squash(score) ~ agent | task")  # names resolve in the public caller's frame
    assert design_of(built) is built
    np.testing.assert_allclose(built.y, small_frame()["score"].to_numpy()[built.row_position] / 100.0)
    with pytest.raises(OptionError, match="normalize= needs the DataFrame"):
        design_of(built, normalize="atari100k_reference")
    with pytest.raises(OptionError, match="formula is required"):
        design_of(small_frame())
    with pytest.raises(OptionError, match="subset= needs the DataFrame"):
        design_of(built, subset="seed < 2")


def test_design_with_a_ready_reference_frame_loads_no_dataset(monkeypatch):
    import rlstats.datasets
    from rlstats.design import design_of

    def no_load(*args, **kwargs):
        raise AssertionError("a dataset was loaded while building a Design")

    monkeypatch.setattr(rlstats.datasets, "load", no_load)
    frame = small_frame()
    reference = pd.DataFrame({"task": sorted(frame["task"].unique()), "random": 0.0, "human": 10.0})
    design = design_of(frame, "score ~ agent | task", normalize=reference)
    np.testing.assert_allclose(design.y, frame["score"].to_numpy()[design.row_position] / 10.0)
    assert any("normalised per task" in note for note in design.notes)
    # a dataset name is read once, by load_reference, before any validation
    monkeypatch.setattr(rlstats.datasets, "load", lambda name: reference)
    named = design_of(frame, "score ~ agent | task", normalize="atari100k_reference")
    np.testing.assert_array_equal(named.y, design.y)
    assert any("from atari100k_reference" in note for note in named.notes)


def test_subset_by_mask_or_query_is_stated():
    import rlstats

    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=2, effect=1.0, rng=0)
    by_query = rlstats.compare(df, "score ~ agent | task", subset="task != 'task_01'")
    by_mask = rlstats.compare(df, "score ~ agent | task", subset=(df["task"] != "task_01").to_numpy())
    direct = rlstats.compare(df[df["task"] != "task_01"], "score ~ agent | task")
    assert by_query.statistic == by_mask.statistic == direct.statistic and by_query.nobs == 24
    assert "subset=\"task != 'task_01'\" kept 24 of 30 rows" in str(by_query)
    with pytest.raises(OptionError, match="one True/False per row"):
        rlstats.compare(df, "score ~ agent | task", subset=[True, False])
    with pytest.raises(OptionError, match="names column 'nosuchcolumn', which the data do not have"):
        rlstats.compare(df, "score ~ agent | task", subset="nosuchcolumn > 1")
    with pytest.raises(OptionError, match="it uses calls, which a condition cannot"):  # text is never code
        rlstats.compare(df, "score ~ agent | task", subset="seed.between(0, 1)")


def test_na_action_omit_is_r_s_name_for_drop():
    import rlstats

    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=2, effect=1.0, rng=0)
    df.loc[3, "score"] = np.nan
    omitted = rlstats.compare(df, "score ~ agent | task", na_action="omit")
    dropped = rlstats.compare(df, "score ~ agent | task", na_action="drop")
    assert omitted.statistic == dropped.statistic and omitted.nobs == 29


def test_p_value_spelling():
    import rlstats

    res = rlstats.compare(rlstats.datasets.simulate(agents=3, tasks=5, seeds=2, rng=0), "score ~ agent | task")
    assert res.p_value == res.pvalue


def test_codes_are_four_bytes_and_their_range_is_checked(monkeypatch):
    from rlstats import design as design_module

    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=2, rng=0)
    built = rlstats.build(df, "score ~ agent | task/seed")
    assert built.agent.dtype == built.task.dtype == built.run.dtype == np.int32
    # every agent and task once: 46,341 x 46,341 cells pass int32's range, from a frame of 46,341 rows
    n = 46_341
    wide = pd.DataFrame({"agent": np.arange(n), "task": np.arange(n), "score": np.zeros(n)})
    with pytest.raises(rlstats.errors.DesignError, match="46,341 agents x 46,341 tasks is more agent x task cells"):
        rlstats.build(wide, "score ~ agent | task")
    monkeypatch.setattr(design_module, "CODE_LIMIT", 10)
    with pytest.raises(rlstats.errors.DesignError, match="data has 24 rows, more than one analysis takes"):
        rlstats.build(df, "score ~ agent | task")


def _with_lr():
    """3 agents x 4 tasks x 6 seeds; lr missing for seed 0 (12 rows), 0.1 for even seeds, 0.01 for odd ones."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame([(f"a{a}", f"t{t}", r, rng.normal(a, 1)) for a in range(3) for t in range(4) for r in range(6)],
                      columns=["agent", "task", "seed", "score"])
    df["lr"] = np.where(df.seed == 0, np.nan, np.where(df.seed % 2 == 0, 0.1, 0.01))
    return df


def test_subset_leaves_out_rows_where_the_condition_is_missing_and_says_so():
    df = _with_lr()
    res = rlstats.compare(df, "score ~ agent | task", subset="lr != 0.1")
    direct = rlstats.compare(df[df["lr"] == 0.01], "score ~ agent | task")  # seeds 1, 3, 5: 36 rows
    assert res.nobs == 36 and res.statistic == direct.statistic
    assert ("subset='lr != 0.1' kept 36 of 72 rows; of the 36 left out, 12 rows have lr missing, where the "
            "condition is neither true nor false (R's subset() leaves out rows where it is NA too)") in res.notes
    # FALSE | NA is NA, TRUE | NA is TRUE: seed == 0 keeps the 12 rows whose lr is missing, with no note on them
    either = rlstats.compare(df, "score ~ agent | task", subset="lr != 0.1 | seed == 0")
    assert either.nobs == 48 and "subset='lr != 0.1 | seed == 0' kept 48 of 72 rows" in either.notes
    # two columns missing: each counted
    two = df.assign(task2=df["task"].where(df["seed"] != 5))
    res = rlstats.compare(two, "score ~ agent | task", subset="lr < 1 & task2 != 't0'")
    # seeds 1-4 less task t0 are kept (36 rows); seed 5 is NA (task2 missing: 12 rows); seed 0 is NA & TRUE = NA off
    # t0 (9 rows) and NA & FALSE = FALSE on t0 (3 rows, left out as the condition fails there, not counted)
    assert res.nobs == 36
    assert ("kept 36 of 72 rows; of the 36 left out, 21 rows have missing values (lr in 9, task2 in 12)"
            in res.notes[0]), res.notes


def test_subset_of_only_missing_rows_is_refused_with_the_count():
    with pytest.raises(DesignError, match=r"subset='lr != lr' keeps no rows; 12 rows have lr missing"):
        rlstats.compare(_with_lr(), "score ~ agent | task", subset="lr != lr")


# ----------------------------------------------------------------------------- labels a reader cannot tell apart
def _three_agents(agent=None, **columns):
    rng = np.random.default_rng(0)
    df = pd.DataFrame([(a, f"t{t}", r, rng.normal(a, 1)) for a in range(3) for t in range(4) for r in range(3)],
                      columns=["agent", "task", "seed", "score"])
    if agent is not None:
        df["agent"] = df["agent"].map(agent)
    return df.assign(**columns)


def _apply_remedy(df, message):
    """Run the one line the message offers (``df['x'] = ...``) on a copy of the frame, as a user would paste it."""
    df = df.copy()
    exec(re.search(r"(df\[[^\]]+\] = .*?); otherwise", message).group(1), {"df": df})
    return df


def test_categorical_levels_that_print_the_same_are_an_error_and_the_remedy_merges_them():
    df = _three_agents({0: 1, 1: "1", 2: "x"})
    df["agent"] = pd.Categorical(df["agent"].astype(object))
    with pytest.raises(DesignError) as info:
        rlstats.compare(df, "score ~ agent | task")
    assert str(info.value) == (
        "column 'agent' (agent) has distinct values that print the same, 1 (int) and '1' (str), so no table could "
        "tell them apart; if they are one agent, convert the column to text: df['agent'] = df['agent'].astype(str); "
        "otherwise rename one of them")
    fixed = _apply_remedy(df, str(info.value))
    assert build(fixed, "score ~ agent | task").agents == ("1", "x")


def test_only_the_levels_used_are_checked():
    # a category with no rows never prints in a table: it is left out with a note, as any unused level
    df = _three_agents({0: "1", 1: "2", 2: "x"})
    df["agent"] = pd.Categorical(df["agent"], categories=[1, "1", "2", "x"])
    design = build(df, "score ~ agent | task")
    assert design.agents == ("1", "2", "x")
    assert "1 agent level with no runs left out: 1" in design.notes


@pytest.mark.parametrize("agent, first, second", [
    ({0: "A", 1: "A ", 2: "B"}, "'A'", "'A '"),
    ({0: "A", 1: " A", 2: "B"}, "' A'", "'A'"),  # in sorted order
    ({0: "A", 1: "A\t", 2: "B"}, "'A'", "'A\\t'"),
    ({0: "A\u00a0", 1: "A", 2: "B"}, "'A'", "'A\\xa0'"),  # a no-break space, as pasted from a web page
])
def test_labels_alike_but_for_white_space_at_their_ends_are_an_error(agent, first, second):
    df = _three_agents(agent)
    with pytest.raises(DesignError) as info:
        rlstats.compare(df, "score ~ agent | task")
    assert str(info.value) == (
        f"column 'agent' (agent) has values that differ only in white space at their ends, {first} and {second}, "
        "which print the same in every table; if they are one agent, strip it: df['agent'] = df['agent'].str.strip(); "
        "otherwise rename one of them")
    assert build(_apply_remedy(df, str(info.value)), "score ~ agent | task").agents == ("A", "B")


def test_a_strip_remedy_for_mixed_types_keeps_missing_values_missing():
    df = _three_agents({0: 1, 1: " 1", 2: "B"})
    df.loc[0, "agent"] = None
    with pytest.raises(DesignError) as info:
        build(df, "score ~ agent | task", na_action="drop")
    assert ("df['agent'] = df['agent'].astype(str).str.strip().where(df['agent'].notna()); otherwise"
            in str(info.value)), str(info.value)
    fixed = _apply_remedy(df, str(info.value))
    assert fixed["agent"].isna().sum() == 1
    assert build(fixed, "score ~ agent | task", na_action="drop").agents == ("1", "B")


@pytest.mark.parametrize("columns, formula, phrase", [
    ({"task": lambda d: d["task"].where(d["seed"] != 0, d["task"] + " ")}, "score ~ agent | task",
     "column 'task' (task) has values that differ only in white space at their ends, 't0' and 't0 '"),
    ({"seed": lambda d: d["seed"].astype(object).where(d["seed"] != 2, "1 ")}, "score ~ agent | task/seed",
     "column 'seed' (replicate) has values that differ only in white space at their ends, 1 and '1 '"),
    ({"seed": lambda d: d["seed"].astype(object).where(d["seed"] != 2, "1")}, "score ~ agent | task:seed",
     "column 'seed' (block) has distinct values that print the same, 1 (int) and '1' (str)"),
], ids=["task", "replicate", "crossed block"])
def test_every_factor_column_is_checked(columns, formula, phrase):
    with pytest.raises(DesignError, match=re.escape(phrase)):
        build(_three_agents(**columns), formula)
