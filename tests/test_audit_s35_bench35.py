"""Audit s35 bench35: one wording, from one home, for "select the rows first".

The copied-runs note told a direct caller of rlstats.adastop / bootstrap / mixed to pass ``data=df[mask]``, while the
refusal of agents that never met (rlstats.connectivity.keeping) sent the same caller to
``rlstats.compare(..., method=...)`` with ``subset=``, and bootstrap(subset=...) was told both ways at once. Every such
way on now comes from rlstats.connectivity.rows_way, given the function the user called (called_function):
``subset=`` where that function takes it (compare, curves), else the rows selected with a boolean mask first and
passed to that function.
"""

import re
import warnings

import pandas as pd
import pytest

import rlstats
from rlstats.connectivity import rows_way
from rlstats.errors import DesignError, OptionError, called_as

#: two groups of agents that never ran on a common task: A, B on t1-t3; C, D on t4-t6
DISCONNECTED = pd.DataFrame([{"agent": a, "task": t, "seed": s, "score": float(i + s) + 0.1 * j}
                             for j, (agents, tasks) in enumerate(((("A", "B"), ("t1", "t2", "t3")),
                                                                  (("C", "D"), ("t4", "t5", "t6"))))
                             for i, a in enumerate(agents) for t in tasks for s in range(3)])
FORMULA = "score ~ agent | task"


def test_rows_way_says_subset_where_the_function_takes_it_else_a_mask_first():
    assert rows_way("rlstats.compare", True, "agent in ['A', 'B']") == "subset=\"agent in ['A', 'B']\""
    assert rows_way("rlstats.compare", True) == "subset="
    assert rows_way("rlstats.bootstrap", False, "agent in ['A', 'B']") == (
        "data=df[mask] (a boolean mask of the rows where agent in ['A', 'B'] holds) to rlstats.bootstrap")
    assert rows_way("rlstats.bootstrap", False) == "a boolean mask of the rows (data=df[mask] to rlstats.bootstrap)"


@pytest.mark.parametrize("called, takes", [("compare", True), ("curves", True), ("bootstrap", False),
                                           ("adastop", False), ("mixed", False), ("build", False)])
def test_called_function_reads_whether_the_function_takes_subset(called, takes):
    from rlstats.connectivity import called_function

    with called_as(called):
        assert called_function() == (f"rlstats.{called}", takes)
    assert called_function() == ("rlstats.compare", True)  # nothing called: compare's, as the command line's


def test_a_function_that_takes_subset_is_told_subset_and_the_call_runs():
    with pytest.raises(DesignError) as info:
        rlstats.compare(DISCONNECTED, FORMULA, method="bootstrap", n_resamples=50, rng=0, normalize=False)
    message = str(info.value)
    suggested = re.findall(r'subset="([^"]+)"', message)
    assert suggested == ["agent in ['A', 'B']", "agent in ['C', 'D']"]
    assert "by passing its subset= to rlstats.compare (DataFrame.query reads the same text)" in message
    assert "data=df[mask]" not in message
    res = rlstats.compare(DISCONNECTED, FORMULA, method="bootstrap", subset=suggested[1], n_resamples=50, rng=0,
                          normalize=False, metrics=["mean"])
    assert res.agents == ("C", "D")
    # C, D: 0 and 1 plus the mean seed (1) plus the second group's 0.1
    assert res.tidy()["estimate"].tolist() == pytest.approx([1.1, 2.1], rel=1e-12)


def test_a_function_without_subset_is_told_a_mask_first_and_the_call_runs():
    with pytest.raises(DesignError) as info:
        rlstats.bootstrap(DISCONNECTED, FORMULA, n_resamples=50, rng=0, normalize=False)
    message = str(info.value)
    suggested = re.findall(r"data=df\[mask\] \(a boolean mask of the rows where (.+?) holds\)", message)
    assert suggested == ["agent in ['A', 'B']", "agent in ['C', 'D']"]
    assert "by passing its data= to rlstats.bootstrap, or add runs" in message
    assert "subset=" not in message and "rlstats.compare" not in message
    mask = DISCONNECTED.eval(suggested[0])
    res = rlstats.bootstrap(DISCONNECTED[mask], FORMULA, n_resamples=50, rng=0, normalize=False, metrics=["mean"])
    assert res.agents == ("A", "B")
    assert res.tidy()["estimate"].tolist() == pytest.approx([1.0, 2.0], rel=1e-12)
    # the same function's refusal of subset= says the same way (it said compare(method=..., subset=) too)
    with pytest.raises(OptionError) as refused:
        rlstats.bootstrap(DISCONNECTED, FORMULA, subset=suggested[0])
    assert ("bootstrap() has no option 'subset'; select the rows first with a boolean mask of the rows "
            "(data=df[mask] to rlstats.bootstrap); its options") in str(refused.value)


def test_the_copied_runs_note_and_the_refusal_share_the_wording():
    """rlstats.adastop's note on copied runs (kept_by) and the refusal (keeping): the same words of the mask."""
    from rlstats.connectivity import kept_by, keeping

    with called_as("adastop"):
        note = kept_by("agent in ['A', 'B']")[0]
        way = keeping("agent", ("A", "B"))
    assert note == f"{way.python} to {way.function}" == (
        "data=df[mask] (a boolean mask of the rows where agent in ['A', 'B'] holds) to rlstats.adastop")
    with called_as("compare"):
        said = kept_by("agent in ['A', 'B']")[0]
        assert said == keeping("agent", ("A", "B")).python == "subset=\"agent in ['A', 'B']\""


def test_the_equivalence_note_names_the_mask_and_the_masked_call_gives_the_test():
    scores = {("A", "t1"): [10] * 4, ("B", "t1"): [10] * 4, ("A", "t2"): [3.1, 2.5, 4.0, 3.3],
              ("B", "t2"): [2.9, 3.6, 3.0, 2.2], ("A", "t3"): [5, 5, 5.5, 4], ("B", "t3"): [5, 5.2, 5, 4.9]}
    df = pd.DataFrame([{"agent": a, "task": t, "seed": s, "score": v} for (a, t), vs in scores.items()
                       for s, v in enumerate(vs)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.equivalence(df, "score ~ agent | task", margin=1.0, aggregate=None)
        note = next(n for n in res.notes if n.startswith("the across-tasks test is withheld"))
        assert note.endswith("leave those out of the data with data=df[mask] (a boolean mask of the rows where task "
                             "not in ['t1'] holds) to rlstats.equivalence")  # the tied task's condition (review35b)
        kept = rlstats.equivalence(df[df["task"] != "t1"], "score ~ agent | task", margin=1.0, aggregate=None)
    across = kept.tidy().query("scope == 'across tasks'")
    assert len(across) == 1 and across["estimate"].iloc[0] == pytest.approx(
        ((3.1 + 2.5 + 4.0 + 3.3) / 4 - (2.9 + 3.6 + 3.0 + 2.2) / 4 + (5 + 5 + 5.5 + 4) / 4 - (5 + 5.2 + 5 + 4.9) / 4)
        / 2, rel=1e-12)
