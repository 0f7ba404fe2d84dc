"""Audit s35 small35: small user-visible defects left by the last session.

1. ``equivalence(alternative="noninferior")`` without ``control=`` tested the first agent in sort order against the
   second: renaming the agents changed the question. Non-inferiority has a named reference: an error naming control=.
2. ``rlstats power bootstrap --metric nonsense`` suggested ``-o metric=nonsense``, which power then refuses;
   ``rlstats compare --formula '...'`` without a FILE got argparse's "required: formula", naming the wrong argument.
3. The task table's heat map said only "possibly best" where the table's legend says what the set is (its level and
   test): the figure now shows the table's own sentence (``mark_sentence``).
4. ``print(res)`` and ``res.summary()`` of a one-task learning-curve result did not name the task.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import cli_run
from rlstats.errors import OptionError

F = "score ~ agent | task/seed"


def _two_agents():
    rng = np.random.default_rng(0)
    rows = [(a, t, s, float(rng.normal(i, 1))) for i, a in enumerate(("B", "A")) for t in ("t1", "t2", "t3")
            for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_noninferiority_without_control_is_refused():
    """Before: delta = A - B was tested silently (A first in sort order), whatever A and B are."""
    df = _two_agents()
    with pytest.raises(OptionError) as caught:
        rlstats.equivalence(df, "score ~ agent | task", margin=0.5, alternative="noninferior", aggregate=None,
                            progress=False)
    message = str(caught.value)
    assert "alternative='noninferior' needs control=" in message, message
    assert "the agents are: 'A', 'B'" in message, message
    assert "control='B'" in message, message  # the way on, which the old order's question was


def test_noninferiority_with_control_gives_the_numbers_of_before():
    """control='B' is the pair (A, B) the old default made: the same delta, interval and p (one-sided Welch per task,
    checked against scipy's t)."""
    from scipy import stats

    df = _two_agents()
    res = rlstats.equivalence(df, "score ~ agent | task", margin=0.5, alternative="noninferior", control="B",
                              aggregate=None, progress=False)
    row = res.comparisons[(res.comparisons["scope"] == "task") & (res.comparisons["task"] == "t1")].iloc[0]
    a = df[(df.agent == "A") & (df.task == "t1")]["score"].to_numpy()
    b = df[(df.agent == "B") & (df.task == "t1")]["score"].to_numpy()
    t = stats.ttest_ind(a + 0.5, b, equal_var=False, alternative="greater")
    assert (row["agent_1"], row["agent_2"]) == ("A", "B")
    assert row["estimate"] == pytest.approx(a.mean() - b.mean(), rel=1e-12)
    assert row["p_value"] == pytest.approx(t.pvalue, rel=1e-9)


def test_noninferiority_against_a_published_table_needs_no_control():
    df = _two_agents()
    table = pd.DataFrame({"task": ["t1", "t2", "t3"], "mean": 0.5, "sd": 1.0, "n": 5})
    res = rlstats.equivalence(df, "score ~ agent | task", margin=0.5, alternative="noninferior", published=table,
                              progress=False)
    assert set(res.comparisons["agent_2"]) == {"published"}


def test_noninferiority_without_control_on_the_command_line(tmp_path):
    path = tmp_path / "runs.csv"
    _two_agents().to_csv(path, index=False)
    status, out, err = cli_run("compare", str(path), F, "--method", "equivalence", "-o", "margin=0.5",
                               "-o", "alternative=noninferior", "-o", "aggregate=None", "--no-progress")
    assert status == 2 and out == "", err
    assert "needs -o control=" in err and "-o control=B" in err, err
    status, out, err = cli_run("compare", str(path), F, "--method", "equivalence", "-o", "margin=0.5",
                               "-o", "alternative=noninferior", "-o", "aggregate=None", "-o", "control=B",
                               "--no-progress", "--seed", "0")
    assert status == 0 and "A - B" in out, err


def test_power_metric_flag_suggests_only_what_runs():
    """--metric nonsense was told "-o metric=nonsense", which power refuses in its turn; the refusal is said in its
    place, and a metric power takes is still suggested (and runs)."""
    status, out, err = cli_run("power", "bootstrap", "--metric", "nonsense")
    last = err.strip().splitlines()[-1]
    assert status == 2 and "-o metric=nonsense" not in last.replace("this value: -o metric=nonsense", ""), last
    assert "metric 'nonsense' is not one of the built-in metrics" in last, last
    status, out, err = cli_run("power", "bootstrap", "--metric", "median")
    assert status == 2 and "(did you mean -o metric=median?)" in err, err
    small = ["--n-sim", "2", "--seeds", "4", "--tasks", "2", "--seed", "0", "--no-progress"]
    status, out, err = cli_run("power", "bootstrap", "-o", "metric=median", *small)
    assert status == 0 and "bootstrap" in out, err
    # power()'s own check of the method's options is read too; a value whose call depends on the seeds (AdaStop's K)
    # is judged on the method's options alone, as before
    status, out, err = cli_run("power", "bootstrap", "--rliable-compat", "True")
    assert "power() cannot plan -o rliable_compat=True" in err and "did you mean" not in err, err
    status, out, err = cli_run("power", "adastop", "--K", "2")
    assert "(did you mean -o K=2?)" in err, err


def test_compare_formula_flag_without_a_file_names_the_file():
    """argparse took the formula for FILE and said "required: formula"."""
    status, out, err = cli_run("compare", "--formula", "score ~ agent | task")
    assert status == 2 and out == ""
    assert err.startswith("usage: rlstats compare"), err
    last = err.strip().splitlines()[-1]
    assert last.startswith("rlstats compare: error: FILE is missing"), last
    assert "rlstats compare FILE 'score ~ agent | task'" in last, last
    assert "the following arguments are required" not in last, last
    # --formula=... (one word) alike
    status, out, err = cli_run("compare", "--formula=score ~ agent | task")
    last = err.strip().splitlines()[-1]
    assert status == 2 and last.startswith("rlstats compare: error: FILE is missing"), last


def test_heat_map_legend_is_the_tables():
    import matplotlib

    matplotlib.use("Agg")
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=0.3, rng=1)
    res = rlstats.task_table(df, "score ~ agent | task", n_resamples=200, rng=0, progress=False)
    assert res._marks_shown()
    ax = res.plot()
    texts = " ".join(" ".join(t.get_text().split()) for t in [ax.title, ax.xaxis.label, *ax.texts])
    sentence = " ".join(res.mark_sentence(best="outlined").split())
    assert sentence in texts, texts
    assert "95% confidence set" in sentence and "Holm" in sentence
    # the table's legend is the same sentence, bold where the figure outlines
    assert res.mark_sentence() == res.mark_sentence(best="outlined").replace("outlined", "bold")
    assert res.mark_sentence() in res.caption()


def test_one_task_curves_print_and_summary_name_the_task():
    df = rlstats.datasets.simulate_curves(agents=2, tasks=1, seeds=5, rng=0)
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=200, rng=0, progress=False)
    assert "on the one task, task_01" in str(res), str(res)
    assert "on the one task, task_01" in str(res.summary())
    with pytest.warns(rlstats.RlstatsWarning, match="own scales"):  # two simulated tasks of unlike ranges
        several = rlstats.curves(rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, rng=0),
                                 "score ~ agent | task/seed", step="step", n_resamples=200, rng=0, progress=False)
    assert "on the one task" not in str(several) and "IQM at the last step (1M), with the" in str(several)
