"""Review s31 (rfix31b): options naming an agent or a task take the label as it prints, everywhere.

F1 percentiles(bounds=) made its keys text before reading them against the tasks: {3: .., "3": ..} kept one silently,
7.0 was recorded as '7.0', an unknown key 12 was said as '12'. F2 the command line read -o control=1e3 as 1000.0, so
it named the agent "1000" where the agents are the text "1e3" and "1000" (0x10 named "16"; 3e-4 was said 0.0003).
F3 control=9.0 where the agents are the int 9 and the text "9.0" took '9.0' silently. F4 CurvesResult.difference of a
value naming no agent advised a rerun that failed. F5 control=9.0 of a categorical's level without rows lost why it
is not an agent. F6 power's --agents naming one agent twice was said in Python's spelling, not which entries.
"""
import io

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main
from rlstats.errors import OptionError, label_named

F = "score ~ agent | task"


def _scores(agents, tasks=("a", "b", "c", "d"), seeds=5, seed=0):
    rng = np.random.default_rng(seed)
    rows = [(a, t, s, rng.normal() + 0.3 * i) for i, a in enumerate(agents) for t in tasks for s in range(seeds)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _cli(argv, capsys):
    out = io.StringIO()
    status = main(argv, out=out)
    return status, out.getvalue(), capsys.readouterr().err


# ----------------------------------------------------------------------------- F1 percentiles(bounds=)

def _numbered_tasks():
    return _scores([0, 1, 2], tasks=[3, 5, 7], seeds=4, seed=1)


QUICK = {"n_resamples": 200, "rng": 0}


def test_bounds_keys_naming_one_task_twice_are_refused():
    with pytest.raises(OptionError) as info:
        rlstats.percentiles(_numbered_tasks(), F, bounds={3: (-5, 5), "3": (-5, 6)}, **QUICK)
    assert str(info.value) == "bounds= names the task '3' twice, as 3 and '3'; give it once"


def test_bounds_key_recorded_as_the_label_it_names():
    df = _numbered_tasks()
    res = rlstats.percentiles(df, F, bounds={7.0: (-9, 9)}, **QUICK)
    assert res.options["bounds"] == {"7": (-9.0, 9.0)}
    # the same numbers as the label's text: the bounds were read for task 7
    same = rlstats.percentiles(df, F, bounds={"7": (-9, 9)}, **QUICK)
    np.testing.assert_array_equal(res.tidy()["conf_low"].to_numpy(), same.tidy()["conf_low"].to_numpy())
    assert res.bounds_source == "mixed"


def test_bounds_unknown_key_said_as_given():
    with pytest.raises(OptionError) as info:
        rlstats.percentiles(_numbered_tasks(), F, bounds={12: (-5, 5)}, **QUICK)
    assert str(info.value) == "12 in bounds= is not a task in column 'task'; the tasks are: '3', '5', '7'"


def test_bounds_keys_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "ints.csv"
    _numbered_tasks().to_csv(path, index=False)
    argv = ["compare", str(path), F, "--method", "percentiles", "--seed", "0", "-o", "n_resamples=200"]
    status, _, err = _cli([*argv, "-o", "bounds={3: (-5, 5), '3': (-5, 6)}"], capsys)
    assert status == 2
    assert err == "rlstats: error: -o bounds= names the task '3' twice, as 3 and '3'; give it once\n"
    status, _, err = _cli([*argv, "-o", "bounds={12: (-5, 5)}"], capsys)
    assert err == ("rlstats: error: 12 in -o bounds= is not a task in column 'task'; the tasks are: '3', '5', '7'\n")


# ----------------------------------------------------------------------------- F2 the command line keeps the text

SCI = ["1e3", "1000", "0x10", "16"]


@pytest.mark.parametrize("typed", SCI)
def test_command_line_label_as_typed_names_that_agent(tmp_path, capsys, typed):
    df = _scores(SCI)
    path = tmp_path / "sci.csv"
    df.to_csv(path, index=False)
    status, out, _ = _cli(["compare", str(path), F, "--seed", "1", "-o", f"control={typed}", "-o",
                           "n_resamples=200"], capsys)
    assert status == 0
    assert out == str(rlstats.skillings_mack(df, F, control=typed, rng=1, n_resamples=200))
    assert f"against the control {typed}," in out


def test_command_line_errors_echo_the_text_typed(tmp_path, capsys):
    path = tmp_path / "sci2.csv"
    _scores(["1e3", "3e-4", "DQN"]).to_csv(path, index=False)
    argv = ["compare", str(path), F, "--method", "skillings_mack", "-o", "n_resamples=200", "--seed", "1"]
    status, out, _ = _cli([*argv, "-o", "control=3e-4"], capsys)
    assert status == 0 and "against the control 3e-4," in out
    status, _, err = _cli([*argv, "-o", "control=3e-5"], capsys)
    assert status == 2
    assert err == ("rlstats: error: -o control=3e-5 is not an agent in column 'agent' (did you mean '3e-4'?); the "
                   "agents are: '1e3', '3e-4', 'DQN'\n")


# ----------------------------------------------------------------------------- F3 one value, two labels

def _mixed():
    rows = [(a, f"t{t}", np.random.default_rng(t * 7 + s).normal() + i) for i, a in enumerate([9, "9.0", 1])
            for t in range(4) for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "score"])  # object column: int 9, text "9.0", int 1


def test_a_number_naming_two_labels_is_refused():
    df = _mixed()
    for given in (9.0, 9, np.float64(9.0)):
        with pytest.raises(OptionError) as info:
            rlstats.skillings_mack(df, F, control=given)
        assert str(info.value) == (f"control={float(given) if isinstance(given, float) else given!r} names both the "
                                   "agents '9' and '9.0' (one by its text, one as the same number); give the one "
                                   "meant as text: '9' or '9.0'")
    # the label's text names it alone
    assert rlstats.skillings_mack(df, F, control="9.0").control == "9.0"
    assert rlstats.skillings_mack(df, F, control="9").control == "9"


# ----------------------------------------------------------------------------- F4 difference() of no agent

@pytest.fixture(scope="module")
def curves_result():
    df = rlstats.datasets.simulate_curves(["0", "1", "2"], 2, 3, steps=4, effect=[0.0, 0.5, 1.0], rng=2)
    return rlstats.curves(df, "score ~ agent | task/seed", step="step", compare=[("0", "2")], n_resamples=50, rng=1)


def test_difference_of_no_agent_is_the_standard_error(curves_result):
    with pytest.raises(OptionError) as info:
        curves_result.difference(True, 9)
    assert str(info.value) == "a=True (a boolean) is not an agent; the agents are: '0', '1', '2'"
    with pytest.raises(OptionError) as info:
        curves_result.difference("0", 9)
    assert str(info.value) == "b=9 is not an agent; the agents are: '0', '1', '2'"
    # labels given as numbers still name the pair made: 0 and 2.0 name '0' and '2'
    pd.testing.assert_frame_equal(curves_result.difference(0, 2.0), curves_result.difference("0", "2"))


# ----------------------------------------------------------------------------- F5 a left-out agent named by number

def test_left_out_agent_named_by_its_number():
    df = _scores([0, 1, 2], tasks=[3, 5, 7], seeds=4, seed=1)
    df["agent"] = pd.Categorical(df["agent"], categories=[0, 1, 2, 9])  # level 9 has no rows
    for name, said in ((9, "9"), ("9", "'9'"), (9.0, "9.0"), (np.float64(9.0), "9.0")):
        with pytest.raises(OptionError) as info:
            rlstats.skillings_mack(df, F, control=name)
        assert str(info.value) == (f"control={said} is not an agent in column 'agent' (it has no rows in the data "
                                   "analysed, left out); the agents are: '0', '1', '2'")


# ----------------------------------------------------------------------------- F6 power's --agents twice

def test_power_agents_naming_one_agent_twice(tmp_path, capsys):
    df = _scores([0, 1, 2, 9], tasks=[3, 5, 7], seeds=4, seed=1)
    with pytest.raises(OptionError) as info:
        rlstats.power("skillings_mack", design=df, formula=F, agents=["0", "9", 9.0], seeds=[3], n_sim=5,
                      progress=False, rng=0)
    assert str(info.value) == "agents= names the agent '9' twice, as '9' and 9.0; give it once"
    path = tmp_path / "ints.csv"
    df.to_csv(path, index=False)
    status, _, err = _cli(["power", "skillings_mack", "--pilot", str(path), "--formula", F, "--agents", "0,9,9.0",
                           "--n-sim", "5", "--seeds", "3", "--seed", "0", "--no-progress"], capsys)
    assert status == 2
    assert err == "rlstats: error: --agents names the agent '9' twice, as '9' and '9.0'; give it once\n"


def test_the_rule_with_text_first():
    """Today's rule, kept: 9, int64(9) and "9" name the agent 9; 9 names 9.0 of a float column; "09" names none."""
    ints, floats = ("0", "1", "9", "10"), ("0.0", "1.0", "9.0")
    assert [label_named(ints, "control", v) for v in (9, np.int64(9), "9", 9.0, "9.0", 1e1)] == \
        ["9", "9", "9", "9", "9", "10"]
    assert [label_named(floats, "control", v) for v in (9, "9", 9.0)] == ["9.0"] * 3
    assert [label_named(ints, "control", v) for v in ("09", "1e1", True)] == [None] * 3


def test_command_line_numbers_keep_their_text():
    """parse_option reads what ast.literal_eval reads, each number remembering its text: a number to the options
    taking one, the text as typed to those naming a label; a typed number names a label by its value only alone."""
    import ast
    import pickle

    from rlstats.cli._shared import parse_option

    for typed in ("1e3", "0x10", "-3e-4", "{3: (-5, 5.0), '3': [1e3, True, None]}", "[(0, 2.0)]", "{1, 2}", "1j"):
        name, value = parse_option(f"x={typed}")
        assert name == "x" and value == ast.literal_eval(typed) and isinstance(value, type(ast.literal_eval(typed)))
    n = parse_option("n_resamples=0x100")[1]
    assert n == 256 and isinstance(n, int) and n.typed == "0x100" and repr(n) == "256"
    assert pickle.loads(pickle.dumps(n)).typed == "0x100"  # to joblib's workers
    key = next(iter(parse_option("bounds={1e3: (0, 1)}")[1]))
    assert key.typed == "1e3" and label_named(("1e3", "1000"), "bounds", key) == "1e3"
    assert label_named(("1000", "DQN"), "control", parse_option("control=1e3")[1]) == "1000"  # alone: by its value
    with pytest.raises(OptionError) as info:
        label_named(("9", "9.0"), "control", parse_option("control=9e0")[1])
    assert str(info.value) == ("control=9e0 names both the agents '9' and '9.0' (each as the same number); give the "
                               "one meant as text: '9' or '9.0'")
