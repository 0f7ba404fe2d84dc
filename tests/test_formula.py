"""Tests of rlstats.formula: grammar, error messages with carets, response evaluation."""

import keyword

import numpy as np
import pandas as pd
import patsy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlstats.errors import DesignError, FormulaError, OptionError
from rlstats.formula import RESTRICTED, Formula, Response, check_columns, evaluate_response, parse


def caret(message, text):
    """(start, width) of the caret line under the quoted formula in an error message."""
    lines = message.splitlines()
    index = lines.index("    " + text)
    marks = lines[index + 1][4:]
    start = len(marks) - len(marks.lstrip())
    assert set(marks.strip()) == {"^"}
    return start, len(marks.strip())


def assert_points_at(error, text, start, width, *fixes):
    """The message quotes the formula, has a caret at [start, start+width) and each fix text."""
    message = str(error.value)
    assert text in message
    assert caret(message, text) == (start, width)
    for fix in fixes:
        assert fix in message


@pytest.fixture
def scores():
    return pd.DataFrame({
        "score": [1.0, 2.0, 5.0, 6.0, 0.5, 9.0],
        "agent": ["a", "a", "b", "b", "c", "c"],
        "task": ["t1", "t2"] * 3,
        "seed": [0, 0, 0, 0, 0, 0],
        "my score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "a": [1, 2, 0, 0, 4, 4],
        "b": [2, 2, 1, 0, 0, 4],
        "solved": [True, False, True, True, False, False],
    })


# ------------------------------------------------------------------ valid forms

@pytest.mark.parametrize("text, response, groups, blocks, replicate, crossed", [
    ("score ~ agent | task", "score", "agent", "task", None, ()),
    ("score~agent|task", "score", "agent", "task", None, ()),
    ("log(score) ~ agent | task", "log(score)", "agent", "task", None, ()),
    ("I(score * 100) ~ agent | task", "I(score * 100)", "agent", "task", None, ()),
    ("np.log(score + 1) ~ agent", "np.log(score + 1)", "agent", None, None, ()),
    ("`my score` ~ `the agent` | task", "`my score`", "the agent", "task", None, ()),
    ("score ~ agent | task/seed", "score", "agent", "task", "seed", ()),
    ("score ~ agent | task:seed", "score", "agent", "task", None, ("seed",)),
    ("score ~ agent | task:seed:env", "score", "agent", "task", None, ("seed", "env")),
    ("I(a | b) ~ agent | task", "I(a | b)", "agent", "task", None, ()),
    ("  score  ~  agent  ", "score", "agent", None, None, ()),
])
def test_valid_forms(text, response, groups, blocks, replicate, crossed):
    formula = parse(text)
    assert formula == Formula(text, response, groups, blocks, replicate, crossed)


def test_formula_is_frozen():
    formula = parse("score ~ agent | task")
    with pytest.raises(AttributeError):
        formula.groups = "algo"


@pytest.mark.parametrize("text, columns, simple", [
    ("score ~ agent | task", ("score",), True),
    ("`my score` ~ agent", ("my score",), True),
    ("log(score) ~ agent", ("score",), False),
    ("np.log(score + 1) ~ agent", ("score",), False),
    ("I(a | b) ~ agent | task", ("a", "b"), False),
    ("I(b - a) / a ~ agent", ("b", "a"), False),
    ("myfunc(score, scale=K) ~ agent", ("score", "K"), False),
    ("log(`my score` + score) ~ agent", ("my score", "score"), False),
    ("I([x for x in score]) ~ agent", ("score",), False),
])
def test_response_columns(text, columns, simple):
    formula = parse(text)
    assert formula.response_columns == columns
    assert formula.is_simple_response is simple


@pytest.mark.parametrize("text, name", [
    ("score ~ agent | task", "score and agent and task"),
    ("log(score) ~ agent | task", "log(score) and agent and task"),
    ("score ~ agent", "score and agent"),
    ("score ~ agent | task/seed", "score and agent and task/seed"),
    ("score ~ agent | task:seed", "score and agent and task:seed"),
    ("`my score` ~ `the agent` | task", "my score and the agent and task"),
    ("log(`my score`) ~ agent", "log(`my score`) and agent"),
])
def test_data_name(text, name):
    assert parse(text).data_name == name


def test_columns_lists_every_needed_column():
    assert parse("I(score - base) ~ agent | task/seed").columns == ("score", "base", "agent", "task", "seed")
    assert parse("score ~ agent | task:seed").columns == ("score", "agent", "task", "seed")
    assert parse("score ~ agent").columns == ("score", "agent")


# ------------------------------------------------------------------ the error catalogue

CATALOGUE = [
    # (formula, offending text, where the search for it starts, fragments of the fix)
    ("score ~ agent | task + seed", "+", 0,
     ["'+' is not allowed in the blocking term", "'| task'", "'| task/seed'", "'| task:seed'"]),
    ("score ~ agent | task * seed", "*", 0, ["'*' is not allowed in the blocking term", "'| task:seed'"]),
    ("score ~ agent | task - seed", "-", 0, ["'-' is not allowed in the blocking term"]),
    ("score ~ agent + algo | task", "agent + algo", 0,
     ["grouping term must be one factor column", "df['arm'] = df.agent + '/' + df.variant"]),
    ("score ~ agent*algo", "agent*algo", 0, ["grouping term must be one factor column"]),
    ("score ~ agent | task | seed", "|", 15, ["only one '|' is allowed: 'response ~ groups | blocks'"]),
    ("score ~ agent || task", "||", 0, ["'||' is not supported; use a single '|'"]),
    ("~ agent | task", "~", 0, ["missing response on the left of '~' (e.g. 'score ~ agent | task')"]),
    ("   ~ agent", "~", 0, ["missing response"]),
    ("score ~ agent |", "|", 0, ["missing blocking factor after '|' (e.g. '| task')"]),
    ("score ~ agent |  ", "|", 0, ["missing blocking factor"]),
    ("score ~ | task", "~", 0, ["missing grouping factor after '~' (e.g. 'score ~ agent | task')"]),
    ("score ~", "~", 0, ["missing grouping factor"]),
    ("score agent | task", "score agent | task", 0, ["exactly one '~'", "response ~ groups | blocks"]),
    ("score ~ agent ~ task", "~", 7, ["exactly one '~'", "I(~x)"]),
    ("score | task ~ agent", "|", 0, ["right of '~'", "I(a | b)"]),
    ("score ~ agent | task/seed/run/x", "/", 29, ["nests 3 levels", "then write '| task/run/seed'"]),
    ("score ~ agent | task:seed/run", "/", 0, ["'/' and ':' cannot be mixed", "'| task/seed'"]),
    ("score ~ agent | /seed", "/", 0, ["missing column name before '/'"]),
    ("score ~ agent | task/", "/", 0, ["missing column name after '/'", "'| task/seed'"]),
    ("score ~ log(agent) | task", "log(agent)", 0, ["must be a column name, not an expression", "df['arm']"]),
    ("score ~ agent | (task)", "(task)", 0, ["must be a column name, not an expression", "'| block'"]),
    ("score ~ 'agent'", "'agent'", 0, ["must be a column name, not an expression"]),
    ("score ~ agent | agent", "agent", 10, ["used twice", "must be different columns"]),
    ("score ~ agent | task/task", "task", 17, ["used twice"]),
    ("log(score ~ agent", "(", 0, ["'(' is never closed; add ')'"]),
    ("log(score)) ~ agent", ")", 10, ["')' has no matching opening bracket"]),
    ("score[0] ~ agent | task]", "]", 9, ["']' has no matching opening bracket"]),
    ("`my score ~ agent", "`my score ~ agent", 0, ["unclosed back-quote", "`my score`"]),
    ("score ~ `the agent | task", "`the agent | task", 0, ["unclosed back-quote"]),
    ("I(x == 'a) ~ agent", "'a) ~ agent", 0, ["unclosed quote"]),
    ("score ~ `` | task", "``", 0, ["empty back-quoted name", "`my agent`"]),
    ("class ~ agent", "class", 0, ["'class' is a Python keyword", "`class`"]),
    ("score ~ lambda | task", "lambda", 0, ["'lambda' is a Python keyword", "`lambda`"]),
    ("score ~ agent | for", "for", 0, ["Python keyword", "`for`"]),
    ("score ~ 1agent | task", "1agent", 0, ["not a Python identifier", "`1agent`"]),
    ("my score ~ agent", "my score", 0, ["must be back-quoted", "`my score`"]),
    ("score ~ the agent | task", "the agent", 0, ["must be back-quoted", "`the agent`"]),
    ("score ~ agent | my task", "my task", 0, ["must be back-quoted", "`my task`"]),
    ("score + ~ agent", "+", 0, ["not a valid Python expression", "back-quote"]),
]


@pytest.mark.parametrize("text, offending, after, fixes", CATALOGUE)
def test_error_catalogue(text, offending, after, fixes):
    with pytest.raises(FormulaError) as error:
        parse(text)
    assert_points_at(error, text, text.index(offending, after), len(offending), *fixes)


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_formula(text):
    with pytest.raises(FormulaError, match="formula is empty; write e.g. 'score ~ agent | task'"):
        parse(text)


@pytest.mark.parametrize("value", [None, 3, ["score ~ agent"], b"score ~ agent"])
def test_non_string_formula(value):
    with pytest.raises(FormulaError, match="formula must be a string such as 'score ~ agent | task'") as error:
        parse(value)
    assert repr(value)[:20] in str(error.value)


def test_formula_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse("score ~ agent | task + seed")


def test_bars_and_tildes_inside_brackets_and_quotes_do_not_count():
    assert parse("I(a | b) ~ agent | task").blocks == "task"
    assert parse("I(np.where(flag == '|', a, b)) ~ agent").blocks is None
    assert parse("`a|b` ~ agent | `t~x`").blocks == "t~x"


@given(st.text(max_size=40))
@settings(max_examples=150, deadline=None)  # 4.7 s at 300 in CI: the default run's budget
def test_any_text_parses_or_raises_formula_error(text):
    try:
        formula = parse(text)
    except FormulaError as error:
        assert "\n    " in str(error)
    else:
        assert formula.text == text


names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda n: not keyword.iskeyword(n))


@given(st.lists(names, min_size=3, max_size=3, unique=True))
def test_any_three_names_round_trip(three):
    response, groups, blocks = three
    formula = parse(f"{response} ~ {groups} | {blocks}")
    assert (formula.response, formula.groups, formula.blocks) == (response, groups, blocks)
    assert formula.data_name == f"{response} and {groups} and {blocks}"


# ------------------------------------------------------------------ names checked against the data

def test_unknown_response_name_did_you_mean(scores):
    text = "log(scor) ~ agent | task"
    with pytest.raises(FormulaError) as error:
        check_columns(parse(text), scores.columns)
    assert_points_at(error, text, 4, 4, "unknown name 'scor' in response; did you mean 'score'?")


@pytest.mark.parametrize("text, name, role, suggestion", [
    ("score ~ agnt | task", "agnt", "the grouping term", "'agent'"),
    ("score ~ agent | tsk", "tsk", "the blocking term", "'task'"),
    ("score ~ agent | task/sed", "sed", "the replicate term", "'seed'"),
    ("score ~ agent | task:sede", "sede", "the blocking term", "'seed'"),
    ("`my scor` ~ agent", "my scor", "response", "`my score`"),
])
def test_unknown_columns_did_you_mean(scores, text, name, role, suggestion):
    with pytest.raises(FormulaError) as error:
        check_columns(parse(text), scores.columns)
    start = text.index(name) - ("`" in text)
    assert_points_at(error, text, start, len(name) + 2 * ("`" in text), f"'{name}' in {role}",
                     f"did you mean {suggestion}")


def test_unknown_column_without_close_match_lists_the_columns(scores):
    with pytest.raises(FormulaError, match="the data columns are: 'score', 'agent'"):
        check_columns(parse("score ~ zzzzz | task"), scores.columns)


def test_check_columns_accepts_names_from_the_environment(scores):
    offset = 5  # noqa: F841 - found through the captured environment
    formula = parse("log(score + offset) ~ agent | task")
    with pytest.raises(FormulaError, match="unknown name 'offset'"):
        check_columns(formula, scores.columns)
    check_columns(formula, scores.columns, eval_env=0)
    check_columns(formula, scores.columns, eval_env=patsy.EvalEnvironment.capture())
    check_columns(parse("log(score) + abs(score) ~ agent | task"), scores.columns)


# ------------------------------------------------------------------ evaluation

def test_simple_response_is_a_float_copy(scores):
    result = evaluate_response(parse("score ~ agent | task"), scores)
    assert isinstance(result, Response)
    assert result.values.dtype == np.float64
    np.testing.assert_array_equal(result.values, scores["score"].to_numpy())
    assert not np.shares_memory(result.values, scores["score"].to_numpy())
    assert not result.values.flags.writeable


def test_r_names(scores):
    x = scores["score"].to_numpy()
    cases = {"log(score)": np.log(x), "log1p(score)": np.log1p(x), "log2(score)": np.log2(x),
             "log10(score)": np.log10(x), "exp(score)": np.exp(x), "expm1(score)": np.expm1(x),
             "sqrt(score)": np.sqrt(x), "abs(score - 3)": np.abs(x - 3), "I(score * 100)": x * 100,
             "np.log(score + 1)": np.log(x + 1), "numpy.sqrt(score)": np.sqrt(x)}
    for response, expected in cases.items():
        values = evaluate_response(parse(f"{response} ~ agent | task"), scores).values
        np.testing.assert_allclose(values, expected, err_msg=response)


def test_user_function_and_constant_from_the_callers_frame(scores):
    def normalise(x, low, high):
        return (x - low) / (high - low)

    LOW, HIGH = 0.5, 9.5
    values = evaluate_response(parse("normalise(score, LOW, HIGH) ~ agent | task"), scores).values
    np.testing.assert_allclose(values, (scores["score"] - LOW) / (HIGH - LOW))


def test_explicit_environment(scores):
    env = patsy.EvalEnvironment([{"SCALE": 10}])
    values = evaluate_response(parse("score * SCALE ~ agent"), scores, env).values
    np.testing.assert_allclose(values, scores["score"] * 10)


def test_precedence_data_then_r_names_then_caller(scores):
    log = lambda x: x * 0  # noqa: E731 - must lose to R's log
    score = 1000  # noqa: F841 - must lose to the data column
    values = evaluate_response(parse("log(score) ~ agent"), scores).values
    np.testing.assert_allclose(values, np.log(scores["score"]))
    assert log(1) == 0


def test_a_column_named_like_a_function_does_not_hide_the_function(scores):
    data = scores.assign(log=[9.0] * 6)
    np.testing.assert_allclose(evaluate_response(parse("log(score) ~ agent"), data).values, np.log(data["score"]))
    np.testing.assert_allclose(evaluate_response(parse("log ~ agent"), data).values, 9.0)


def test_a_column_named_like_a_function_it_calls_is_named_as_the_cause(scores):
    """audit s38 loud38: abs(abs) with a column 'abs' failed with "'numpy.ndarray' object is not callable", clear but
    not saying the column was read in place of the function."""
    data = scores.assign(abs=-scores["score"])
    with pytest.raises(FormulaError) as error:
        evaluate_response(parse("abs(abs) ~ agent"), data)
    message = str(error.value)
    assert ("the column 'abs' is read in place of the function abs(), which the response calls: a name is a column "
            "first; rename the column, e.g. df = df.rename(columns={'abs': 'abs_value'})") in message
    assert "'abs' in the file" in error.value.command_line
    np.testing.assert_allclose(evaluate_response(parse("abs(score) ~ agent"), data).values, scores["score"])


def test_a_conditional_response_is_python_not_a_spaced_name(scores):
    """audit s38 loud38: 'score if True else 0' got the advice to back-quote it as a column name with spaces; it is
    a conditional expression, read as Python (as its parenthesised form always was), refused by the command line by
    name, and where its condition is a column the way on is np.where."""
    assert parse("score if True else 0 ~ agent").response == "score if True else 0"
    np.testing.assert_allclose(evaluate_response(parse("score if True else 0 ~ agent"), scores).values,
                               scores["score"])
    with pytest.raises(FormulaError) as error:
        evaluate_response(parse("score if score > 1 else 0 ~ agent"), scores)
    assert ("'if ... else', 'and', 'or' and 'not' read one truth value for the whole response, not one a row: write "
            "np.where(condition, a, b) for a choice a row, and &, |, ~ between comparisons") in str(error.value)
    with pytest.raises(FormulaError) as error:
        evaluate_response(parse("score if True else 0 ~ agent"), scores, eval_env=RESTRICTED)
    assert "not conditional expressions (a if c else b)" in str(error.value)
    with pytest.raises(FormulaError, match="must be back-quoted, e.g. `my class`"):
        parse("my class ~ agent")


def test_back_quoted_and_bitwise_responses(scores):
    values = evaluate_response(parse("`my score` * 2 ~ `agent` | task"), scores).values
    np.testing.assert_allclose(values, scores["my score"] * 2)
    values = evaluate_response(parse("I(a | b) ~ agent | task"), scores).values
    np.testing.assert_array_equal(values, [3, 2, 1, 0, 4, 4])


def test_booleans_become_float(scores):
    values = evaluate_response(parse("solved ~ agent | task"), scores).values
    np.testing.assert_array_equal(values, [1, 0, 1, 1, 0, 0])
    values = evaluate_response(parse("I(agent == 'a') ~ task"), scores).values
    np.testing.assert_array_equal(values, [1, 1, 0, 0, 0, 0])


def test_non_numeric_column_names_its_dtype(scores):
    text = "agent ~ task"
    with pytest.raises(FormulaError) as error:
        evaluate_response(parse(text), scores)
    dtype = scores["agent"].dtype  # str on pandas 3, object before
    assert_points_at(error, text, 0, 5, f"column 'agent' has dtype {dtype}, and none of its values is a number "
                     "(first rows: index labels 0, 1, 2, ..., holding 'a', 'a', 'b', ...); the response must be numeric: name a column of numbers left of "
                     "'~', or make this column's values numbers")
    # numbers written as text: pd.to_numeric converts them
    with pytest.raises(FormulaError, match=r"Convert it first, e\.g\. df\['s'\] = pd\.to_numeric\(df\['s'\]\)"):
        evaluate_response(parse("s ~ agent"), scores.assign(s=["1", "2.5", None, "3", "4", "5"]))


def test_categorical_response_is_an_error(scores):
    data = scores.assign(level=pd.Categorical([1, 2, 3, 1, 2, 3]))
    with pytest.raises(FormulaError, match="column 'level' has dtype category"):
        evaluate_response(parse("level ~ agent"), data)


def test_failing_expression_names_the_expression_and_dtype(scores):
    text = "log(agent) ~ task"
    with pytest.raises(FormulaError) as error:
        evaluate_response(parse(text), scores)
    assert_points_at(error, text, 0, 10, "evaluating the response 'log(agent)' failed",
                     f"column 'agent' has dtype {scores['agent'].dtype}")
    assert isinstance(error.value.__cause__, TypeError)


@pytest.mark.parametrize("text, got", [("I(3) ~ agent", "a single value"),
                                       ("I(score[:2]) ~ agent", "shape (2,)"),
                                       ("np.c_[score, score] ~ agent", "shape (6, 2)")])
def test_response_must_give_one_value_per_row(scores, text, got):
    with pytest.raises(FormulaError, match="one value per row") as error:
        evaluate_response(parse(text), scores)
    assert got in str(error.value)
    assert text.split(" ~")[0] in str(error.value)


def test_unknown_name_during_evaluation(scores):
    text = "log(scre + 1) ~ agent"
    with pytest.raises(FormulaError) as error:
        evaluate_response(parse(text), scores)
    assert_points_at(error, text, 4, 4, "unknown name 'scre' in response; did you mean 'score'?")


def test_non_finite_values_are_counted_with_row_labels(scores):
    text = "log(score - 2) ~ agent | task"
    with pytest.raises(FormulaError) as error:
        evaluate_response(parse(text), scores)
    assert_points_at(error, text, 0, 14,
                     "response 'log(score - 2)' produced 3 non-finite values (2 NaN, 1 -inf; first rows: index labels 0, 1, 4)",
                     "log1p()", "an offset", "normalising first")


def test_non_finite_rows_use_the_index_labels_and_stop_at_five():
    data = pd.DataFrame({"score": np.arange(-7.0, 1.0), "agent": ["a"] * 8}, index=list("pqrstuvw"))
    with pytest.raises(FormulaError, match=r"produced 8 non-finite.*first rows: index labels 'p', 'q', 'r', 's', 't', \.\.\.\)"):
        evaluate_response(parse("log(score) ~ agent"), data)


def test_infinite_value_in_a_bare_column(scores):
    data = scores.assign(score=[1.0, np.inf, 2.0, 3.0, 4.0, 5.0])
    with pytest.raises(FormulaError, match=r"column 'score' contains 1 non-finite value \(1 inf; first rows: index label 1\)"):
        evaluate_response(parse("score ~ agent"), data)


def test_missing_input_is_told_apart_from_produced_non_finite(scores):
    data = scores.assign(score=[1.0, np.nan, 0.0, -1.0, 4.0, None])
    result = evaluate_response(parse("log(score) ~ agent | task"), data, on_nonfinite="return")
    np.testing.assert_array_equal(result.missing_in_input, [False, True, False, False, False, True])
    np.testing.assert_array_equal(result.produced_nonfinite, [False, False, True, True, False, False])
    assert result.values[2] == -np.inf and np.isnan(result.values[3])
    assert np.isnan(result.values[[1, 5]]).all()


def test_missing_input_alone_is_not_an_error(scores):
    data = scores.assign(score=[1.0, np.nan, 2.0, 3.0, 4.0, 5.0])
    result = evaluate_response(parse("log(score) ~ agent | task"), data)
    np.testing.assert_array_equal(result.missing_in_input, [False, True, False, False, False, False])
    assert not result.produced_nonfinite.any()


def test_nullable_missing_values(scores):
    data = scores.assign(n=pd.array([1, None, 3, 4, 5, 6], dtype="Int64"))
    result = evaluate_response(parse("log1p(n) ~ agent"), data)
    assert np.isnan(result.values[1]) and result.missing_in_input[1]
    np.testing.assert_allclose(result.values[[0, 2]], np.log1p([1, 3]))


def test_a_filled_missing_value_is_not_flagged(scores):
    data = scores.assign(score=[1.0, np.nan, 2.0, 3.0, 4.0, 5.0])
    result = evaluate_response(parse("np.nan_to_num(score) ~ agent"), data)
    assert not result.missing_in_input.any() and result.values[1] == 0


def test_on_nonfinite_is_validated(scores):
    with pytest.raises(OptionError, match="on_nonfinite"):
        evaluate_response(parse("score ~ agent"), scores, on_nonfinite="drop")


def test_data_must_be_a_dataframe():
    with pytest.raises(DesignError, match="DataFrame"):
        evaluate_response(parse("score ~ agent"), {"score": [1.0]})


def test_callers_dataframe_is_unchanged(scores):
    def bump(x):
        x += 1  # tries to write into the data
        return x

    before = scores.copy(deep=True)
    for text in ["score ~ agent", "log(score) ~ agent | task", "I(a | b) ~ agent"]:
        evaluate_response(parse(text), scores)
    with pytest.raises(FormulaError, match="bump"):
        evaluate_response(parse("bump(score) ~ agent"), scores)
    pd.testing.assert_frame_equal(scores, before)


def test_unused_columns_are_not_converted():
    class Unconvertible:
        def __array__(self, *args, **kwargs):
            raise AssertionError("an unused column was converted")

    blob = np.empty(2, dtype=object)
    blob[0], blob[1] = Unconvertible(), Unconvertible()  # element by element: pandas 2 would convert a list
    data = pd.DataFrame({"score": [1.0, 2.0], "agent": ["a", "b"], "blob": blob})
    values = evaluate_response(parse("log(score) ~ agent"), data).values
    np.testing.assert_allclose(values, np.log([1.0, 2.0]))


def test_duplicated_data_column_is_a_design_error():
    data = pd.DataFrame([[1.0, 2.0, "a"]], columns=["score", "score", "agent"])
    with pytest.raises(DesignError, match="column 'score' appears 2 times"):
        evaluate_response(parse("score ~ agent"), data)


def test_parse_returns_a_formula_unchanged():
    formula = parse("score ~ agent | task")
    assert parse(formula) is formula


def test_patsy_q_names_a_column_anywhere():
    data = pd.DataFrame({"my score": [1.0, 2.0, 3.0, 4.0], "my agent": ["a", "b", "a", "b"],
                         "the task": ["t", "t", "u", "u"]})
    formula = parse('log(Q("my score")) ~ Q("my agent") | Q(\'the task\')')
    assert (formula.groups, formula.blocks) == ("my agent", "the task")
    np.testing.assert_allclose(evaluate_response(formula, data).values, np.log([1.0, 2.0, 3.0, 4.0]))
    assert parse('Q("x") ~ agent').response == 'Q("x")'


def test_awkward_group_names_suggest_back_quotes_and_q():
    with pytest.raises(FormulaError) as error:
        parse("score ~ my agent | task")
    assert "`my agent`" in str(error.value) and 'Q("my agent")' in str(error.value)


@pytest.mark.parametrize("text", [
    "__import__('os').system('echo pwned') ~ agent", "().__class__ ~ agent", "(lambda: 1)() ~ agent",
    "[x for x in score] ~ agent", "getattr(score, 'real') ~ agent", "np.log(score) ~ agent",
    "score.__class__ ~ agent", "'a' * 3 ~ agent", "score[0] ~ agent", "open('x') ~ agent",
    "__builtins__ ~ agent", "eval('1') ~ agent", "log(score, out=score) ~ agent", "{score: 1} ~ agent",
    "(score := 2) ~ agent", "f'{score}' ~ agent", "score if True else 1 ~ agent", "len(score) ~ agent",
])
def test_restricted_response_runs_no_code(text):
    from rlstats.formula import RESTRICTED

    data = pd.DataFrame({"score": [1.0, 2.0], "agent": ["a", "b"]})
    with pytest.raises(FormulaError):
        evaluate_response(parse(text), data, RESTRICTED)


@pytest.mark.parametrize("text, expected", [("log1p(score) * 2 ~ agent", np.log1p([1.0, 2.0]) * 2),
                                            ("I(score ** 2) - 1 ~ agent", [0.0, 3.0]),
                                            ("exp(log(`my col`)) ~ agent", [3.0, 4.0])])
def test_restricted_response_keeps_arithmetic_and_r_functions(text, expected):
    from rlstats.formula import RESTRICTED

    data = pd.DataFrame({"score": [1.0, 2.0], "my col": [3.0, 4.0], "agent": ["a", "b"]})
    np.testing.assert_allclose(evaluate_response(parse(text), data, RESTRICTED).values, expected)
