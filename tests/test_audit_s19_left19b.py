"""Audit s19 (left19b): small leftovers of round 1: names holding commas in every prose list, equivalence's verdict
when the interval lies wholly beyond the margin, tests that emitted warnings they did not assert, and the drop note
naming the column its missing values were in.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats


@pytest.fixture
def drq_spr(atari):
    """Atari 100k DrQ(eps) and SPR, first 10 runs a game (26 games x 2 agents x 10 runs = 520 rows)."""
    return atari[atari["agent"].isin(["DrQ(eps)", "SPR"]) & (atari["seed"] < 10)]


def test_equivalence_interval_beyond_the_margin_is_said_so(drq_spr):
    """DrQ(eps) - SPR across tasks, human-normalised, margin 0.05: the 90% interval is -0.296 to -0.0975, wholly below
    -0.05. That is a one-sided test at alpha = 0.05 of delta < -0.05 (p = 1 - p_lower = 0.0097), not an interval
    "too wide for the margin". Per game the same rule is checked against statsmodels' ttost_ind: a game is called
    beyond the margin on a side exactly when that side's one-sided test of the other direction rejects at alpha."""
    from scipy import stats
    weightstats = pytest.importorskip("statsmodels.stats.weightstats")
    res = rlstats.equivalence(drq_spr, "score ~ agent | task/seed", margin=0.05, normalize="atari100k_reference",
                              aggregate=None, rng=0)
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    assert across["conf_low"] == pytest.approx(-0.295551, abs=1e-6)
    assert across["conf_high"] == pytest.approx(-0.097537, abs=1e-6)
    # closed form: the Welch-Satterthwaite t of delta against -margin, one-sided
    t = (across["estimate"] + 0.05) / across["std_error"]
    assert stats.t.cdf(t, across["df"]) == pytest.approx(1 - across["p_lower"], rel=1e-9)
    assert 1 - across["p_lower"] == pytest.approx(0.00965, abs=1e-4)
    assert across["conclusion"] == "shown below -0.05, beyond the margin"
    text = str(res)
    assert "across these 26 tasks: shown below -0.05, beyond the margin" in text  # audit s32: of these tasks
    report = res.report()
    assert "may be too wide" in report  # some games straddle a bound: the caveat stays for them
    assert ("An interval wholly beyond the margin shows the difference beyond it: on each side a one-sided test at "
            "alpha = 0.05") in report
    latex = res.summary().to_latex()
    assert "shown below $-$0.05, beyond the margin" in latex
    assert "wholly beyond the margin, the difference is shown beyond it (a one-sided test at alpha = 0.05)" in latex
    # per game against statsmodels
    scores = rlstats.normalize(drq_spr, "atari100k_reference")
    games = res.tidy().query("scope == 'task'").set_index("task")
    beyond = 0
    for game, row in games.iterrows():
        a = scores.query("agent == 'DrQ(eps)' and task == @game")["score"].to_numpy()
        b = scores.query("agent == 'SPR' and task == @game")["score"].to_numpy()
        _, (_, p_low, _), (_, p_high, _) = weightstats.ttost_ind(a, b, -0.05, 0.05, usevar="unequal")
        below, above = 1 - p_low < 0.05, 1 - p_high < 0.05
        assert row["conclusion"].startswith("shown below") == below, game
        assert row["conclusion"].startswith("shown above") == above, game
        beyond += below or above
    assert beyond == 7  # Battle Zone, Boxing, Crazy Climber, Hero below; Demon Attack, Krull, Qbert above
    assert f"6 of 26 tasks tested shown equivalent, {beyond} shown beyond the margin" in text


def test_noninferiority_interval_beyond_the_margin_is_inferior():
    """B is 1.0 worse than A on every task with sd 0.1; margin 0.2: the 90% interval of B - A lies below -0.2, so B is
    shown inferior by more than the margin (a one-sided test at alpha), not merely "not shown non-inferior"."""
    rng = np.random.default_rng(0)
    rows = [(a, f"t{t}", r, rng.normal(-1.0 if a == "B" else 0.0, 0.1)) for t in range(4) for a in "AB"
            for r in range(5)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.equivalence(df, "score ~ agent | task", margin=0.2, alternative="noninferior", control="A",
                              aggregate=None, rng=0)
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    assert across["conf_high"] < -0.2
    assert across["conclusion"] == "shown inferior by more than the margin 0.2"
    assert "Not shown non-inferior does not mean inferior" not in res.report()


def test_drop_note_names_the_columns_of_the_missing_values():
    """12 of 36 rows had no agent (one agent's name read as missing), 2 more no score and 1 no task: the note said
    "15 of 36 rows dropped (na_action="drop"): 15 with missing values". It now names each column with its count, a
    row counted once at the first of the formula's columns it misses; the nested path words it the same way."""
    df = rlstats.datasets.simulate(["None", "PPO", "SAC"], 3, 4, rng=0)
    df.loc[df["agent"] == "None", "agent"] = None
    df.loc[[12, 13], "score"] = np.nan      # PPO's rows
    df.loc[[5, 30], "task"] = np.nan        # row 5 has no agent either: counted once, under 'agent'
    res = rlstats.skillings_mack(df, "score ~ agent | task", na_action="drop")
    assert ("15 of 36 rows dropped (na_action=\"drop\"): 2 with missing values in 'score'; 12 with missing values in "
            "'agent'; 1 with a missing value in 'task'") in res.notes
    df["run"] = df["seed"]
    nested = rlstats.bootstrap(df, "score ~ agent | task/run/seed", na_action="drop", n_resamples=20, rng=0)
    assert any(note.startswith("15 of 36 rows dropped (na_action=\"drop\") before the seeds were averaged: 12 with "
                               "missing values in 'agent'; 1 with a missing value in 'task'; 2 with missing values in "
                               "'score'") for note in nested.notes), nested.notes


@pytest.fixture
def comma_names():
    """'R&D, Inc', 'SPR' and 'DER' on 5 tasks x 4 runs, SPR's runs a copy of R&D, Inc's (a tie for the ranks)."""
    df = rlstats.datasets.simulate(["R&D, Inc", "SPR", "DER"], 5, 4, effect=[0.0, 0.0, 1.0], rng=0)
    df.loc[df["agent"] == "SPR", "score"] = df.loc[df["agent"] == "R&D, Inc", "score"].to_numpy()
    return df


def test_lists_of_names_with_a_comma_quote_every_name(comma_names):
    """With an agent called 'R&D, Inc', the rankings, ties and per-task bests of several back ends read
    "R&D, Inc 0.312, SPR 0.312" (three names?); every list of names now quotes each one, as AdaStop's does."""
    pct = rlstats.percentiles(comma_names, "score ~ agent | task", rng=0)
    text = pct.report(format="text")
    assert "'DER' 0.428, 'R&D, Inc' 0.312, 'SPR' 0.312" in text, text
    assert "'R&D, Inc' and 'SPR' tie at rank 2" in text
    assert "tied with 'SPR'" in str(pct)
    sm = rlstats.skillings_mack(comma_names, "score ~ agent | task")
    assert ("Mean ranks on 1..3, a run ranked r among the q runs of its task counting (r - 1/2) k / q + 1/2 "
            "(1 = best): 'DER' (1.73), 'R&D, Inc' (2.14), "
            "'SPR' (2.14).") in sm.report(format="text")
    mixed = rlstats.mixed(comma_names, "score ~ agent | task")
    assert "Estimated marginal means: 'DER' 18.5, 'R&D, Inc' 15.1, 'SPR' 15.1." in mixed.report(format="text")
    table = rlstats.task_table(comma_names, "score ~ agent | task", rng=0)
    assert "Best per task: 'DER' (3), 'R&D, Inc' (2), 'SPR' (2); tied best" in table.report(format="text")
    # the bootstrap's note of agents whose studentised intervals are withheld at 2 runs a task
    two = comma_names[comma_names["seed"] < 2]
    boot = rlstats.bootstrap(two, "score ~ agent | task", n_resamples=50, rng=0)
    assert any("withheld for 'R&D, Inc' (2), 'SPR' (2), 'DER' (2) (fewest runs" in n for n in boot.notes), boot.notes
    # names without a comma stay bare
    plain = comma_names.assign(agent=comma_names["agent"].astype(str).replace("R&D, Inc", "RND"))
    plain = rlstats.percentiles(plain, "score ~ agent | task", rng=0)
    assert "DER 0.428, RND 0.312, SPR 0.312" in plain.report(format="text")


def test_the_permutation_tests_unequal_runs_error_quotes_names_with_a_comma():
    """The permutation test's refusal of unequal runs said "found R&D, Inc 5, SPR 4"; now each name is quoted."""
    df = rlstats.datasets.simulate(["R&D, Inc", "SPR"], 1, 5, rng=0).iloc[:-1]
    with pytest.raises(rlstats.DesignError, match="found 'R&D, Inc' 5, 'SPR' 4. Drop runs"):
        rlstats.permutation(df, "score ~ agent", rng=0)
