"""Audit s30 opts30: every option naming an agent or a task takes the label as it appears in the data.

RL logs often code agents (seeds, ids) as integers 0..9. control=9 was refused in skillings_mack, equivalence and
bayes ("names one agent ... got int") and permutation's reference=9 too, while control="9", treatment=7 and
shifted_agent= were taken. One rule now (rlstats.errors.label_named): 9, numpy's int64(9) and "9" name the agent
printed 9; the one label that is the same number otherwise (9 names 9.0); a bool names no integer code. Each test
runs the option with the integer and with the label's text and asserts the same numbers.
"""

import io

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main
from rlstats.errors import OptionError, label_named


def _coded(df, tasks=False):
    """``df`` with its agents (and tasks) as the integer codes 0, 1, ... (int64 columns)."""
    out = df.assign(agent=df["agent"].astype("category").cat.codes.astype(np.int64))
    return out.assign(task=out["task"].astype("category").cat.codes.astype(np.int64)) if tasks else out


DF = _coded(rlstats.datasets.simulate(4, 6, 4, effect=[0.0, 0.4, 0.8, 1.2], rng=3), tasks=True)
F = "score ~ agent | task"


def _same(a, b):
    """Two results' tidy tables equal, number for number."""
    ta, tb = a.tidy(), b.tidy()
    assert list(ta.columns) == list(tb.columns) and len(ta) == len(tb) > 0
    for column in ta.columns:
        x, y = ta[column].to_numpy(), tb[column].to_numpy()
        if x.dtype.kind == "f":
            np.testing.assert_array_equal(x, y)
        else:
            assert [str(v) for v in x] == [str(v) for v in y], column


SELECTION = {"reported": [0, 1, 2], "rng": 1, "n_resamples": 199}
#: (function, option, value given as in the data, the same value as the label's text, other options); the first six
#: were refused before audit s30 opts30
CASES = [
    (rlstats.skillings_mack, "control", 2, "2", {"rng": 1, "n_resamples": 200}),
    (rlstats.equivalence, "control", np.int64(2), "2", {"margin": 1.0, "aggregate": None}),
    (rlstats.bayes, "control", 2, "2", {"rng": 1, "n_samples": 500}),
    (rlstats.permutation, "reference", 2, "2", {"rng": 1, "n_resamples": 200}),
    (rlstats.permutation, "comparisons", [(0, 2), (np.int32(1), 3)], [("0", "2"), ("1", "3")],
     {"rng": 1, "n_resamples": 200}),
    (rlstats.probability_of_improvement, "pairs", [(0, 2)], [("0", "2")], {"rng": 1, "n_resamples": 200}),
    (rlstats.selection_check, "treatment", 3, "3", {"baseline": "0", **SELECTION}),
    (rlstats.selection_check, "baseline", 0, "0", {"treatment": "3", **SELECTION}),
    (rlstats.selection_check, "reported", [0, 1, 2], ["0", "1", "2"],
     {"treatment": 3, "baseline": 0, "rng": 1, "n_resamples": 199}),
    (rlstats.percentiles, "identical", [(0, 1, 2)], [("0", "1", "2")], {"rng": 1, "n_resamples": 200}),
]


@pytest.mark.parametrize("function, option, given, text, options",
                         [pytest.param(*c, id=f"{c[0].__name__}-{c[1]}") for c in CASES])
def test_an_integer_label_names_the_agent_as_its_text_does(function, option, given, text, options):
    _same(function(DF, F, **{option: given}, **options), function(DF, F, **{option: text}, **options))


def test_the_command_line_control_reaches_the_integer_label(tmp_path):
    path = tmp_path / "coded.csv"
    DF.to_csv(path, index=False)
    out = io.StringIO()
    status = main(["compare", str(path), F, "--seed", "1", "-o", "control=2", "-o", "n_resamples=200"], out=out)
    assert status == 0
    assert out.getvalue() == str(rlstats.skillings_mack(DF, F, control="2", rng=1, n_resamples=200))


def test_the_one_rule():
    ints, floats = ("0", "1", "9", "10"), ("0.0", "1.0", "9.0")
    assert [label_named(ints, "control", v) for v in (9, np.int64(9), "9", 9.0, "9.0", 1e1)] == \
        ["9", "9", "9", "9", "9", "10"]
    assert [label_named(floats, "control", v) for v in (9, "9", 9.0, np.float32(9.0))] == ["9.0"] * 4
    assert [label_named(ints, "control", v) for v in (9.5, True, np.True_, "09", "1e1", " 9", "x")] == [None] * 7
    assert label_named(("False", "True"), "control", True) == "True"  # a boolean column's agents are booleans
    with pytest.raises(OptionError, match=r"control= names an agent as it appears in the data, by its text or number"):
        label_named(ints, "control", [9])


def test_the_other_options_naming_agents_or_tasks():
    """adastop's reference=, curves' compare=, power's shifted_agent=, agents= and tasks=, selection_check's
    heldout= and percentiles' bounds= keyed by task: the integer and the label's text give the same numbers."""
    quick = {"n": 4, "K": 1, "n_resamples": 200, "rng": 1}
    _same(rlstats.adastop(DF, F, reference=np.int64(2), **quick), rlstats.adastop(DF, F, reference="2", **quick))
    curves = _coded(rlstats.datasets.simulate_curves(3, 2, 3, steps=4, effect=[0.0, 0.5, 1.0], rng=2))
    given = rlstats.curves(curves, "score ~ agent | task/seed", step="step", compare=[(0, 2)], n_resamples=100,
                           rng=1)
    assert given.pairs == (("0", "2"),)
    _same(given, rlstats.curves(curves, "score ~ agent | task/seed", step="step", compare=[("0", "2")],
                                n_resamples=100, rng=1))
    pilot = {"design": DF, "formula": F, "seeds": [3], "n_sim": 20, "effect": 1.0, "progress": False, "rng": 0}
    a = rlstats.power("skillings_mack", shifted_agent=3, agents=[0, 3], tasks=[0, 1, 2, 3], **pilot)
    b = rlstats.power("skillings_mack", shifted_agent="3", agents=["0", "3"], tasks=["0", "1", "2", "3"], **pilot)
    assert a.table["power"].tolist() == b.table["power"].tolist()
    sel = {"treatment": 3, "baseline": 0, "reported": [0, 1, 2], "rng": 1}
    _same(rlstats.selection_check(DF, F, heldout=[3, 4], **sel),
          rlstats.selection_check(DF, F, heldout=["3", "4"], **sel))
    wide = {t: (-100.0, 100.0) for t in range(6)}
    _same(rlstats.percentiles(DF, F, bounds=wide, n_resamples=200, rng=1),
          rlstats.percentiles(DF, F, bounds={str(t): v for t, v in wide.items()}, n_resamples=200, rng=1))


def test_a_float_coded_column_and_a_boolean_one():
    """9 names the agent 9.0 of a float column (agent ids made floats by a missing value); a bool names the agents
    of a boolean column only, and True never the integer code 1."""
    floats = DF.assign(agent=DF["agent"].astype(float))
    r = rlstats.skillings_mack(floats, F, control=2, rng=1, n_resamples=200)
    assert r.control == "2.0"
    _same(r, rlstats.skillings_mack(floats, F, control="2.0", rng=1, n_resamples=200))
    two = DF[DF["agent"] < 2]
    booleans = two.assign(agent=two["agent"].astype(bool))
    _same(rlstats.bayes(booleans, F, control=np.True_, n_samples=200, rng=1),
          rlstats.bayes(booleans, F, control="True", n_samples=200, rng=1))
    with pytest.raises(OptionError, match=r"control=True \(a boolean\) is not an agent in column 'agent'; "
                                          r"the agents are: '0', '1'$"):
        rlstats.bayes(two, F, control=True, n_samples=200, rng=1)


def test_nine_and_its_text_in_one_column_are_refused_by_the_design():
    """So no label is ambiguous between an int and its text: the design refuses the column (they print alike)."""
    mixed = DF.assign(agent=DF["agent"].astype(object))
    mixed.loc[(mixed["agent"] == 3) & (mixed["task"] == 0), "agent"] = "3"
    with pytest.raises(rlstats.DesignError, match=r"distinct values that print the same, 3 \(int\) and '3' \(str\)"):
        rlstats.skillings_mack(mixed, F, control=3)


def test_a_result_method_naming_two_agents():
    """BootstrapResult.inferential_intervals(a, b) reads a and b by the same rule as the options."""
    res = rlstats.bootstrap(DF, F, metrics=["mean"], n_resamples=200, rng=1)
    given, text = res.inferential_intervals(0, np.int64(3)), res.inferential_intervals("0", "3")
    assert given.tidy().equals(text.tidy()) and len(given.tidy()) > 0


def test_the_results_methods_naming_agents_or_tasks():
    """curves' difference(a, b) and plot agents=, adastop's decision_matrix(task=), percentiles' plot tasks= and
    agents=: the integer and the label's text give the same table or figure; a label not there is said alike."""
    import matplotlib.pyplot as plt

    curves = _coded(rlstats.datasets.simulate_curves(3, 2, 3, steps=4, effect=[0.0, 0.5, 1.0], rng=2), tasks=True)
    res = rlstats.curves(curves, "score ~ agent | task/seed", step="step", compare="all", n_resamples=100, rng=1)
    assert res.difference(2, np.int64(0)).equals(res.difference("2", "0"))
    ax = res.plot(agents=[0, 2])
    assert [line.get_label() for line in ax.get_lines()][:2] == ["0", "2"]
    plt.close("all")
    ada = rlstats.adastop(DF, F, n=4, K=1, n_resamples=200, rng=1)
    assert ada.decision_matrix(task=3).equals(ada.decision_matrix(task="3"))
    with pytest.raises(OptionError, match=r"task=9 is not a task; the tasks are: '0', '1', '2', '3', '4', '5'$"):
        ada.decision_matrix(task=9)
    pct = rlstats.percentiles(DF, F, n_resamples=200, rng=1)
    fig = pct.plot(kind="cdf", tasks=[0, 1], agents=[0, 3])
    assert [a.get_title() for a in fig.axes][:2] == ["0", "1"]
    plt.close("all")


def test_options_keyed_by_agent_or_task():
    """summarize_runs' threshold= per task, skillings_mack's plot hue= per agent: keys read by the one rule
    (errors.labels_keyed); two keys naming one label are refused, not one silently kept."""
    import matplotlib.pyplot as plt

    curves = _coded(rlstats.datasets.simulate_curves(2, 3, 3, steps=5, effect=[0.0, 1.0], rng=2), tasks=True)
    f = "score ~ agent | task/seed"
    at = {0: 0.5, 1: 0.5, 2: 0.5}
    given = rlstats.summarize_runs(curves, f, step="step", how="time_to_threshold", threshold=at)
    text = rlstats.summarize_runs(curves, f, step="step", how="time_to_threshold",
                                  threshold={str(t): v for t, v in at.items()})
    assert given.equals(text) and len(given) == 18
    with pytest.raises(OptionError, match=r"threshold= names the task '1' twice, as 1 and '1'; give it once"):
        rlstats.summarize_runs(curves, f, step="step", how="time_to_threshold", threshold={**at, "1": 0.4})
    res = rlstats.skillings_mack(DF, F, rng=1, n_resamples=200)
    ax = res.plot(hue={0: "a", 1: "a", 2: "b", 3: "b"})
    assert {t.get_text() for t in ax.get_legend().get_texts()} >= {"a", "b"}
    plt.close("all")


def test_tuning_plot_task():
    """tuning's plot(task=) drew an empty figure for a task it does not hold (task=0 where the tasks print '0' was
    one such); now the one rule and wording."""
    import matplotlib.pyplot as plt

    tiny = _coded(rlstats.datasets.simulate(2, 3, 3, rng=0), tasks=True)
    sweep = pd.concat([tiny.assign(lr=0.1), tiny.assign(lr=0.01, score=tiny["score"] + 1.0)], ignore_index=True)
    res = rlstats.tuning(sweep, "score ~ agent | task/seed", config="lr", n_resamples=100, rng=0)
    given, text = res.plot(kind="expected_max", task=1), res.plot(kind="expected_max", task="1")
    assert [line.get_ydata().tolist() for line in given.get_lines()] == \
        [line.get_ydata().tolist() for line in text.get_lines()] and len(given.get_lines()) > 0
    with pytest.raises(OptionError, match=r"task=9 is not a task; the tasks are: "):
        res.plot(kind="expected_max", task=9)
    plt.close("all")
