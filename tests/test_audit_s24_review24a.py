"""Audit s24 review24a: second review of the session's merged changes."""
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _message(call):
    with pytest.raises(OptionError) as info:
        call()
    return str(info.value)


def test_surplus_positional_error_lists_only_the_options_left():
    # it listed df, reference (normalize) and method (compare), each given by position already
    frame = pd.DataFrame({"task": ["t"], "score": [1.0]})
    said = _message(lambda: rlstats.normalize(frame, "score", "x"))
    assert said == ("normalize() takes 2 values by position (df, reference), got 3: give 'x' by its option's name; "
                    "its options are: low, high, by, score, check_units")
    said = _message(lambda: rlstats.compare(frame, "score ~ agent", "bootstrap", 3))
    assert "its options are: subset, and those help(compare) lists" in said


def test_surplus_positional_error_of_a_function_taking_one_value_alone():
    # parse(text) has no option but its one positional argument: it said 'takes no values by position' once the
    # arguments given by position left the list
    said = _message(lambda: rlstats.parse("score ~ agent", 0.9))
    assert said == "parse() takes 1 value by position (text), got 2: it takes no other options"


def _two_agents():
    return pd.DataFrame({"agent": ["a", "a", "b", "b"], "task": "Pong", "score": [1.0, 2.0, 3.0, 5.0]})


def test_surplus_positional_error_in_r_order_with_data_named():
    # it was Python's "got multiple values for argument 'data'" (one surplus value), or named only the last of two
    data = _two_agents()
    said = _message(lambda: rlstats.bootstrap("score ~ agent", 1000, data=data))
    assert said.startswith("bootstrap() takes 2 values by position (data, formula), got 2 beside data= by name: "
                           "give 1000 by its option's name; its options are: metrics, n_resamples, ")
    said = _message(lambda: rlstats.bootstrap("score ~ agent", 1000, 0.9, data=data))
    assert said.startswith("bootstrap() takes 2 values by position (data, formula), got 3 beside data= by name: "
                           "give each of 1000, 0.9 by its option's name; ")
    said = _message(lambda: rlstats.compare("score ~ agent", "bootstrap", 5, data=data))
    assert said == ("compare() takes 3 values by position (data, formula, method), got 3 beside data= by name: "
                    "give 5 by its option's name; its options are: subset, and those help(compare) lists")
    said = _message(lambda: rlstats.task_table(data, "x", formula="score ~ agent"))
    assert said.startswith("task_table() takes 2 values by position (data, formula), got 2 beside formula= by name: "
                           "give 'x' by its option's name; its options are: statistic, ")


def test_conf_level_outside_zero_one_is_not_offered_as_a_negative_alpha():
    # conf.level=95 was told "pass alpha=-94.0", 1.5 "alpha=-0.5", 1 "alpha=0.0": values alpha= refuses
    data = _two_agents()
    for value, shown in ((95, "95"), (1.5, "1.5"), (1, "1"), (0, "0")):
        said = _message(lambda: rlstats.permutation(data, "score ~ agent | task", **{"conf.level": value}))
        assert said.endswith(f"pass alpha = 1 - conf.level with conf.level between 0 and 1 (it was {shown})"), said
        assert "alpha=-" not in said and "alpha=0.0" not in said and "alpha=1.0" not in said
    said = _message(lambda: rlstats.permutation(data, "score ~ agent | task", **{"conf.level": 0.9}))
    assert said.endswith("pass alpha=0.1")
