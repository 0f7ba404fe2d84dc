"""Regression tests of session 8's second mending helper (tag ``[s8 mend2]``): each failed before its fix."""

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import rlstats


def _tied_runs():
    """3 agents x 4 tasks, 3 runs a cell of which two are equal: their residuals tie exactly."""
    rng = np.random.default_rng(0)
    rows = []
    for t in range(4):
        for agent in "ABC":
            a, b = rng.normal(size=2).round(1)
            rows += [(agent, f"t{t}", float(a)), (agent, f"t{t}", float(a)), (agent, f"t{t}", float(b))]
    return pd.DataFrame(rows, columns=["agent", "task", "score"])


def test_mixed_tied_residuals_share_their_normal_score_whatever_the_row_order():
    """The QQ plot's x of two equal residuals followed their rows' order, so ``to_dict()`` changed when the rows
    were shuffled (0.11 apart); tied residuals now share the score of their average rank."""
    df = _tied_runs()
    perm = np.random.default_rng(3).permutation(len(df))
    base = rlstats.mixed(df, "score ~ agent | task")
    shuffled = rlstats.mixed(df.iloc[perm].reset_index(drop=True), "score ~ agent | task")
    scores = np.asarray(base.to_dict()["residual_normal_scores"])
    np.testing.assert_allclose(np.asarray(shuffled.to_dict()["residual_normal_scores"]), scores[perm], atol=1e-12)
    # independent value: ppoints of R's average ranks (n = 36 > 10: a = 1/2)
    n = len(df)
    expected = special.ndtri((stats.rankdata(base.residuals, method="average") - 0.5) / n)
    np.testing.assert_allclose(scores, expected, atol=1e-12)
    assert scores[0] == scores[1]  # the first cell's two equal runs


def _two_scale_curves():
    """2 agents, 2 tasks a hundredfold apart, 4 runs each, 2 steps."""
    rng = np.random.default_rng(1)
    rows = [(agent, task, seed, step, float(scale * rng.lognormal()))
            for agent in "AB" for task, scale in (("t0", 1.0), ("t1", 100.0)) for seed in range(4) for step in (1, 2)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_curves_std_error_and_pointwise_are_documented_as_computed():
    """``CurvesResult.std_error`` was documented as the "Bootstrap standard error" and ``pointwise`` as the
    "Percentile bootstrap interval"; by default they are the stratified delta-method standard error and the hull of
    the bootstrap-t and t-expanded percentile intervals (the bootstrap SD and the t-expanded percentile interval
    only with ``bands="expanded"``)."""
    df = _two_scale_curves()
    kwargs = dict(step="step", statistic="mean", n_resamples=400, rng=0, normalize=False)
    studentized = rlstats.curves(df, "score ~ agent | task/seed", **kwargs)
    expanded = rlstats.curves(df, "score ~ agent | task/seed", bands="expanded", **kwargs)
    runs = df[df["agent"] == "A"]
    # the mean of task means: sqrt(sum_t var_t / n_t) / T
    delta = np.array([np.sqrt(sum(g["score"].var(ddof=1) / len(g) for _, g in runs[runs["step"] == s].groupby("task")))
                      / 2 for s in (1, 2)])
    bootstrap_sd = np.std(studentized.bootstrap_distribution[0], axis=0, ddof=1)
    np.testing.assert_allclose(studentized.std_error[0], delta, rtol=1e-12)
    assert not np.allclose(studentized.std_error[0], bootstrap_sd, rtol=1e-3)
    np.testing.assert_allclose(expanded.std_error[0], np.std(expanded.bootstrap_distribution[0], axis=0, ddof=1),
                               rtol=1e-12)
    doc = " ".join(rlstats.CurvesResult.__doc__.split())
    assert "Percentile bootstrap interval at each step" not in doc and "Bootstrap standard error" not in doc
    assert "delta-method" in doc and "bootstrap-t" in doc


def test_cli_errors_give_hints_in_the_command_line_spelling(tmp_path, capsys):
    """The CLI printed the library's Python hints (``pass na_action="drop"``, ``n_resamples=10**8 is more than``)
    where its user must write ``-o na_action=drop``; flags (``rng=`` -> ``--seed``) keep their own spelling."""
    from rlstats.cli import main
    from rlstats.cli._shared import in_command_words

    df = pd.DataFrame({"agent": list("ABAB") * 2, "task": ["t1"] * 4 + ["t2"] * 4,
                       "score": [1.0, 2.0, np.nan, 2.5, 0.5, 1.5, 1.0, 3.0]})
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    assert main(["compare", str(path), "score ~ agent | task"]) == 2
    error = capsys.readouterr().err
    assert "pass -o na_action=drop to drop those rows" in error and 'na_action="drop"' not in error
    assert main(["compare", str(path), "score ~ agent | task", "--method", "bootstrap", "-o", "na_action=drop",
                 "-o", "n_resamples=100000000"]) == 2
    assert "error: -o n_resamples=100000000 is more than" in capsys.readouterr().err
    flags = {"rng": "--seed", "progress": "--no-progress", "formula": "the FORMULA argument"}
    assert (in_command_words("pass rng=3, progress=False, formula='y ~ x' or subset=\"task != 'a'\", "
                             "or compare=[('a', 'b')]", flags, {"subset", "compare"})
            == "pass --seed 3, --no-progress, formula='y ~ x' or -o \"subset=task != 'a'\", "
               "or compare=[('a', 'b')]")


def test_power_command_refuses_an_empty_item_of_seeds(capsys):
    """``rlstats power --seeds 3,,5`` ran 3 and 5 seeds, silently skipping the empty item (a number left out?)."""
    from rlstats.cli import main

    assert main(["power", "skillings_mack", "--seeds", "3,,5", "--n-sim", "4", "--seed", "0"]) == 2
    captured = capsys.readouterr()
    assert "--seeds 3,,5: item 2 is empty" in captured.err and not captured.out


def test_bootstrap_metrics_are_bounded_and_checked_in_one_pass():
    """``bootstrap(metrics=["iqm", "mean"] * 50_000)`` took 7.5 s (87 s on a loaded machine) to refuse, its
    duplicate check counting every name in the whole list; the metrics are now bounded (an endless iterable too)
    and duplicates found in one pass."""
    import itertools

    from rlstats.errors import OptionError
    from rlstats.methods.bootstrap._api import MAX_METRICS

    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    for metrics in (["iqm", "mean"] * 50_000, itertools.repeat("iqm")):
        with pytest.raises(OptionError, match=f"metrics has more than {MAX_METRICS:,} entries"):
            rlstats.bootstrap(df, "score ~ agent | task", metrics=metrics, n_resamples=100)
    with pytest.raises(OptionError, match=r"metric names \['iqm', 'mean'\] appear more than once"):
        rlstats.bootstrap(df, "score ~ agent | task", metrics=["iqm", "mean"] * (MAX_METRICS // 2), n_resamples=100)
