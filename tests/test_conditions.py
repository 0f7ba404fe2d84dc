"""The restricted grammar of subset= conditions: the same rows as pandas' query, and nothing else runs."""

import time

import numpy as np
import pandas as pd
import pytest

from rlstats.conditions import MAX_DEPTH, MAX_LENGTH, parse_condition
from rlstats.errors import OptionError


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "task": pd.Categorical(rng.choice(["Pong", "Breakout", "Qbert"], 40)),
        "agent": rng.choice(["DQN", "C51"], 40),
        "seed": rng.integers(0, 10, 40),
        "score": np.where(rng.random(40) < 0.1, np.nan, rng.normal(size=40)),
        "done": rng.random(40) < 0.5,
        "my col": rng.integers(0, 3, 40),
    })


# Each condition is written once for the grammar and once for pandas' query (the reference).
SAME_AS_QUERY = [
    ("task == 'Pong'", None),
    ("task != 'Pong' & seed < 5", None),
    ("task == 'Pong' | seed < 3", None),  # & and | bind as and/or, as in query
    ("not seed >= 5 and agent == \"DQN\"", None),
    ("~(task == 'Pong') | ~done", None),
    ("1 < seed <= 7", None),
    ("seed in [1, 3, 5]", None),
    ("task not in ('Pong', 'Qbert')", None),
    ("score > -0.5", None),
    ("score > 1e-1 or score < -1.5", None),
    ("done", None),
    ("`my col` >= 1 & done", "`my col` >= 1 & done"),
    ("seed == 3.0", None),
    ("agent == 'C51' and (seed < 2 or seed > 8)", None),
]


@pytest.mark.parametrize("text, query", SAME_AS_QUERY, ids=[c[0] for c in SAME_AS_QUERY])
def test_same_rows_as_pandas_query(frame, text, query):
    expected = frame.eval(query or text).to_numpy()
    got = parse_condition(text).mask(frame)
    assert got.dtype == bool and got.shape == (len(frame),)
    np.testing.assert_array_equal(got, expected)


def test_missing_values_fail_every_comparison(frame):
    mask = parse_condition("score > -100 | score <= -100").mask(frame)
    np.testing.assert_array_equal(mask, frame["score"].notna().to_numpy())


def test_quotes_and_escapes_inside_strings():
    df = pd.DataFrame({"task": ["it's", "a|b", "x & y"]})
    assert parse_condition("task == 'it\\'s'").mask(df).tolist() == [True, False, False]
    assert parse_condition("task == 'a|b' | task == \"x & y\"").mask(df).tolist() == [False, True, True]


def test_huge_integers_compare_as_floats():
    df = pd.DataFrame({"seed": [0, 2**62]})
    assert parse_condition("seed < " + "9" * 1990).mask(df).tolist() == [True, True]
    assert parse_condition("seed > -" + "9" * 400).mask(df).tolist() == [True, True]
    assert parse_condition("seed < 18446744073709551616").mask(df).tolist() == [True, True]


REFUSED = [
    # (id, condition, phrase in the message)
    ("code via @ locals", "(@pd.io.common.os.system('id') == 0) | (seed >= 0)", "does not parse"),
    ("dunder import", "__import__('os').system('id') == 0", "calls"),
    ("method call", "seed.abs() > 1", "calls"),
    ("attribute", "task.str == 'x'", "attributes ('.str')"),
    ("class walk", "().__class__ == 1", "attributes"),
    ("lambda", "(lambda: 1)() == 1", "calls"),
    ("arithmetic", "seed * 2 > 3", "arithmetic"),
    ("power tower", "seed < 9**9**9**9", "arithmetic"),
    ("shift", "seed < 1 << 100", "arithmetic"),
    ("subscript", "task[0] == 'P'", "subscript"),
    ("walrus", "(x := 1) == seed", "namedexpr"),
    ("comprehension", "seed in [s for s in range(9)]", "'in' followed by"),
    ("name after in", "seed in other", "'in' followed by"),
    ("list outside in", "[1, 2] == seed", "a list may only follow 'in'"),
    ("sign on a column", "-seed > 1", "a sign before something other than a number"),
    ("None", "seed == None", "the constant None"),
    ("f-string", "task == f'{seed}'", "joinedstr"),
    ("not a condition", "seed", "'seed' is not a condition"),
    ("constant condition", "3 > 2", "does not read any column"),
    ("empty", "  ", "it is empty"),
    ("open string", "task == 'Pong", "string starting at character 9 is not closed"),
    ("open back-quote", "`my col > 1", "back-quoted name starting at character 1 is not closed"),
    ("string order", "seed < 'a'", "cannot compare a column of int64 values with the value 'a'"),
    ("too deep", "~" * 60 + "(seed > 1)", f"nests more than {MAX_DEPTH} levels deep"),
    ("too long", "seed > 1 & " * 200 + "seed > 1", f"more than the {MAX_LENGTH:,} a condition may have"),
    ("long list", "seed in [" + ",".join(["1"] * 1001) + "]", f"more than the {MAX_LENGTH:,} a condition may have"),
    ("unknown column", "nope > 1", "names column 'nope', which the data do not have"),
]


@pytest.mark.parametrize("text, phrase", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_refused_with_a_message_that_names_the_problem(frame, text, phrase):
    start = time.process_time()  # CPU seconds: a loaded machine stretches wall time, not the work done
    with pytest.raises(OptionError) as info:
        parse_condition(text).mask(frame)
    assert phrase in str(info.value)
    assert "subset=" in str(info.value)
    assert time.process_time() - start < 1.0


def test_messages_quote_long_conditions_shortened(frame):
    text = "seed > 1 & " * 150 + "seed >> 1"
    with pytest.raises(OptionError) as info:
        parse_condition(text)
    assert len(str(info.value)) < 600 and f"({len(text):,} characters)" in str(info.value)


def test_a_condition_object_passes_through_and_prints_its_text():
    condition = parse_condition("seed < 3")
    assert parse_condition(condition) is condition
    assert str(condition) == "seed < 3" and condition.columns == ("seed",)
    with pytest.raises(OptionError, match="must be a condition in text"):
        parse_condition(3)


# ----------------------------------------------------------------------------- missing values, as R's subset()
# A comparison with a missing value is unknown (NA); and/or/not follow R's three-valued logic; subset() drops
# the rows where the whole condition is NA. pandas' query keeps NaN != 0.1, which is what this replaces.

# R's truth tables, written out: TRUE & NA is NA, FALSE & NA is FALSE, TRUE | NA is TRUE, FALSE | NA is NA, !NA is NA
_T, _F, _NA = True, False, None
R_AND = {(_T, _T): _T, (_T, _F): _F, (_T, _NA): _NA, (_F, _T): _F, (_F, _F): _F, (_F, _NA): _F,
         (_NA, _T): _NA, (_NA, _F): _F, (_NA, _NA): _NA}
R_OR = {(_T, _T): _T, (_T, _F): _T, (_T, _NA): _T, (_F, _T): _T, (_F, _F): _F, (_F, _NA): _NA,
        (_NA, _T): _T, (_NA, _F): _NA, (_NA, _NA): _NA}
R_NOT = {_T: _F, _F: _T, _NA: _NA}


@pytest.fixture(scope="module")
def truth_pairs():
    """x and y over the nine pairs of (TRUE, FALSE, NA) of 'x == 1' and 'y == 1'."""
    value = {_T: 1.0, _F: 0.0, _NA: np.nan}
    pairs = [(a, b) for a in (_T, _F, _NA) for b in (_T, _F, _NA)]
    return pairs, pd.DataFrame({"x": [value[a] for a, _ in pairs], "y": [value[b] for _, b in pairs]})


def _as_r(holds, unknown):
    return [None if u else bool(h) for h, u in zip(holds, unknown)]


@pytest.mark.parametrize("op, table", [("&", R_AND), ("and", R_AND), ("|", R_OR), ("or", R_OR)])
def test_and_or_follow_r_three_valued_logic(truth_pairs, op, table):
    pairs, df = truth_pairs
    holds, unknown = parse_condition(f"x == 1 {op} y == 1").evaluate(df)
    assert _as_r(holds, unknown) == [table[p] for p in pairs]
    np.testing.assert_array_equal(parse_condition(f"x == 1 {op} y == 1").mask(df), holds)


@pytest.mark.parametrize("text", ["~(x == 1)", "not x == 1", "not not not x == 1"])
def test_not_of_unknown_is_unknown(truth_pairs, text):
    pairs, df = truth_pairs
    assert _as_r(*parse_condition(text).evaluate(df)) == [R_NOT[a] for a, _ in pairs]


def test_a_chained_comparison_is_an_and(truth_pairs):
    pairs, df = truth_pairs
    # 0 <= x <= y: (0 <= x) & (x <= y); x = NaN is NA & NA; y = NaN with x = 0 or 1 is TRUE & NA
    got = _as_r(*parse_condition("0 <= x <= y").evaluate(df))
    assert got == [True, False, None, True, True, None, None, None, None]


@pytest.fixture(scope="module")
def gappy():
    """Missing values of every kind pandas has: NaN, None among strings, pd.NA in Int64 and boolean columns."""
    return pd.DataFrame({
        "lr": [0.1, np.nan, 0.01, 0.1, np.nan, 0.01],
        "task": ["Pong", None, "Qbert", "Breakout", "Pong", None],
        "seed": pd.array([0, 1, pd.NA, 3, 4, pd.NA], dtype="Int64"),
        "done": pd.array([True, pd.NA, False, True, False, True], dtype="boolean"),
        "label": pd.Categorical(["a", "b", None, "a", None, "b"]),
    })


# Each condition with its reference in pandas' nullable (Kleene) arithmetic, where a comparison with NA is NA
# and &, |, ~ are three-valued as in R; 'in' is R's %in% and pandas' isin(): never NA, a missing value is not in
# the list (review s7: it was NA here, unlike R).
def _isin(column, values):
    return column.isin(values).astype("boolean")


def _nullable(df):
    return df.assign(lr=df["lr"].astype("Float64"), task=df["task"].astype(pd.StringDtype("python")),
                     label=df["label"].astype(pd.StringDtype("python")))


KLEENE = [
    ("lr != 0.1", lambda d: d.lr != 0.1),
    ("lr == 0.1", lambda d: d.lr == 0.1),
    ("lr < 1", lambda d: d.lr < 1),
    ("lr >= 0.01 & seed > 0", lambda d: (d.lr >= 0.01) & (d.seed > 0)),
    ("lr != 0.1 | seed < 2", lambda d: (d.lr != 0.1) | (d.seed < 2)),
    ("not (lr == 0.1 or task == 'Pong')", lambda d: ~((d.lr == 0.1) | (d.task == "Pong"))),
    ("task != 'Pong'", lambda d: d.task != "Pong"),
    ("task < 'Q'", lambda d: d.task < "Q"),  # None among strings: unknown, not a TypeError
    ("task in ['Pong', 'Qbert']", lambda d: _isin(d.task, ["Pong", "Qbert"])),
    ("task not in ['Pong']", lambda d: ~_isin(d.task, ["Pong"])),
    ("seed in [0, 1] | lr == 0.01", lambda d: _isin(d.seed, [0, 1]) | (d.lr == 0.01)),
    ("done", lambda d: d.done),
    ("~done & lr < 1", lambda d: ~d.done & (d.lr < 1)),
    ("label != 'a'", lambda d: d.label != "a"),
    ("lr == lr", lambda d: d.lr == d.lr),
]


@pytest.mark.parametrize("text, reference", KLEENE, ids=[c[0] for c in KLEENE])
def test_missing_values_are_unknown_in_every_comparison(gappy, text, reference):
    expected = reference(_nullable(gappy))
    holds, unknown = parse_condition(text).evaluate(gappy)
    np.testing.assert_array_equal(unknown, expected.isna().to_numpy())
    np.testing.assert_array_equal(holds, expected.fillna(False).to_numpy(dtype=bool))
    np.testing.assert_array_equal(parse_condition(text).mask(gappy), holds)


def test_not_equal_drops_missing_unlike_pandas_query():
    df = pd.DataFrame({"lr": [0.1, np.nan, 0.01]})
    assert df.query("lr != 0.1").index.tolist() == [1, 2]  # what pandas does, and this grammar does not
    assert parse_condition("lr != 0.1").mask(df).tolist() == [False, False, True]
    # R: subset(df, !(lr %in% 0.1)) keeps the missing lr (%in% is never NA), as pandas' ~isin does
    assert parse_condition("lr not in [0.1]").mask(df).tolist() == [False, True, True]
    assert df[~df["lr"].isin([0.1])].index.tolist() == [1, 2]


def test_type_errors_are_still_named_beside_missing_values(gappy):
    with pytest.raises(OptionError, match="cannot compare a column of object values with the value 3"):
        parse_condition("task < 3").mask(gappy)
