"""Audit s16, helper mend16: CLI and AdaStop leftovers (the seed line, -o's option list, a round-off mean, the
level caption of tasks stopping apart, Monte Carlo columns of a closed-form interval)."""

import io

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main


@pytest.fixture(scope="module")
def benchmark_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("mend16") / "runs.csv"
    rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0).to_csv(path, index=False)
    return str(path)


def _run(argv, capsys):
    out = io.StringIO()
    status = main(argv, out=out)
    return status, out.getvalue(), capsys.readouterr().err


def test_task_table_names_a_seed_only_when_something_random_ran(benchmark_csv, capsys):
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    plain = rlstats.task_table(df, "score ~ agent | task/seed")
    assert plain.seed is None and "random seed" not in plain.report()
    # the same numbers whatever the seed: nothing random in the default path
    a, b = (rlstats.task_table(df, "score ~ agent | task/seed", rng=s) for s in (1, 2))
    assert np.array_equal(a.p_exclusion, b.p_exclusion, equal_nan=True) and a.seed is None
    # the aggregate row is a bootstrap: its seed is recorded and repeats it
    boot = rlstats.task_table(df, "score ~ agent | task/seed", aggregate="bootstrap", n_resamples=200, rng=5)
    assert boot.seed == 5
    status, _, err = _run(["compare", benchmark_csv, "score ~ agent | task", "--method", "task_table"], capsys)
    assert status == 0 and "random seed drawn" not in err
    status, _, err = _run(["compare", benchmark_csv, "score ~ agent | task", "--method", "task_table",
                           "-o", "aggregate='bootstrap'", "-o", "n_resamples=200"], capsys)
    assert status == 0 and "random seed drawn: " in err


def test_equivalence_seed_line_follows_its_bootstrap_aggregate(benchmark_csv, capsys):
    """Not a defect: equivalence's default aggregate (the IQM) is a bootstrap, so the line is true; without it,
    no line."""
    argv = ["compare", benchmark_csv, "score ~ agent | task", "--method", "equivalence", "-o", "margin=1.0",
            "-o", "n_resamples=200"]
    status, _, err = _run(argv, capsys)
    assert status == 0 and "random seed drawn: " in err
    status, _, err = _run(argv + ["-o", "aggregate=None"], capsys)
    assert status == 0 and "random seed drawn" not in err


def test_unknown_option_lists_what_the_command_line_takes(benchmark_csv, capsys):
    status, _, err = _run(["compare", benchmark_csv, "score ~ agent | task", "--method", "task_table",
                           "-o", "bogus=1"], capsys)
    assert status == 2
    listed = err.split("its options are: ")[1]
    names = [w.strip(" ,.\n") for w in listed.split(";")[0].split(",")]
    assert "statistic" in names and not {"rng", "progress", "max_seconds"} & set(names)
    assert "--seed" in err and "--no-progress" in err and "--max-seconds" in err
    # power's list too (its n_jobs is --jobs)
    status, _, err = _run(["power", "skillings_mack", "--effect", "1", "-o", "nosuch=1"], capsys)
    assert status == 2 and err.endswith("na_action (with -o NAME=VALUE), and the flag --jobs\n")
    # Python keeps its own spelling
    with pytest.raises(rlstats.OptionError, match="its options are: .*rng, progress, max_seconds"):
        rlstats.compare(rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0), "score ~ agent | task",
                        method="task_table", bogus=1)


def _cancelling():
    """Agent A's scores sum to 1.4e-17 in floating point (0.1 + 0.2 - 0.3), 0 exactly in decimal."""
    a = [0.1, 0.2, -0.3, 0.1, 0.2, -0.3]
    b = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5]
    return pd.DataFrame({"agent": ["A"] * 6 + ["B"] * 6, "score": a + b})


def test_adastop_runs_mean_within_tie_tolerance_is_zero():
    res = rlstats.adastop(_cancelling(), "score ~ agent", n=3, K=2, rng=0)
    runs = res.summary().tables["Runs used per agent"]
    assert runs["mean"].tolist() == [0.0, 1.25]
    assert "e-17" not in str(res.summary())
    assert res.decisions["decision"].tolist() == ["smaller"]  # decisions unchanged
    assert res.decisions["estimate"].iloc[0] == pytest.approx(-1.25)


def _two_tasks(K=4):
    """T1's agents differ by 8 sd (decided at interim 2), T2's not at all (run to interim 4)."""
    rng = np.random.default_rng(0)
    rows = [(a, t, s, m + rng.normal()) for t, eff in (("T1", 8.0), ("T2", 0.0)) for a, m in (("A", 0), ("B", eff))
            for s in range(16)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    return rlstats.adastop(df, "score ~ agent | task", n=4, K=K, rng=0)


def test_adastop_level_caption_holds_for_each_task():
    res = _two_tasks()
    assert dict(zip(res.decisions["task"], res.decisions["interim"])) == {"T1": 2, "T2": 4}
    caption = res._latex_captions()["Level spent per interim"]
    assert caption.endswith(" Not run (their levels are the schedule's): interims 3-4 of T1.")
    # K = 5 with runs for 4 interims: T1 stopped at 2, T2 waits for its fifth batch
    unfinished = _two_tasks(K=5)
    assert not unfinished.done
    assert unfinished._latex_captions()["Level spent per interim"].endswith(
        " Not run (their levels are the schedule's): interims 3-5 of T1; interim 5 of T2 (not yet).")


def test_closed_form_intervals_have_no_monte_carlo_columns():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=5, effect=1.0, rng=0)
    score = rlstats.compare(df, "score ~ agent | task", method="probability_of_improvement", rng=0)
    assert score.n_resamples is None
    (table,) = score.summary().tables.values()
    assert "conf_low_mc_se" not in table and "mc_se" not in str(score.summary())
    resampled = rlstats.compare(df, "score ~ agent | task", method="probability_of_improvement", rng=0,
                                interval="percentile", n_resamples=200)
    (table,) = resampled.summary().tables.values()
    assert (table["conf_low_mc_se"] > 0).all()
    assert list(score.tidy().columns) == list(resampled.tidy().columns)  # tidy's schema unchanged
    profile = rlstats.compare(df, "score ~ agent | task", method="performance_profile", rng=0)
    assert profile.n_resamples is None
    (table,) = profile.summary().tables.values()
    assert "conf_low_mc_se" not in table
