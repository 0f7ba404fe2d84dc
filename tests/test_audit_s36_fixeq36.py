"""Audit s36 (fixeq36): defects a new-user trial found in bayes() and equivalence().

1. bayes()' signed-rank cap note named, for a pair, a task only one of its agents ran ("B vs C on 1 of 2 tasks (T3;
   ...)", B vs C compared on T1 and T2 only), and said the pair's difference there was 0.
2. equivalence(alternative="noninferior")'s note that another seed can turn the aggregate's verdict quoted the
   reverse test past the upper bound (0.054), a test non-inferiority never reports, while the verdict's p was 0.006.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import load_dataset

import rlstats


def unshared_cap():
    """A, B, C on T1-T3 (3 runs a cell, normal(50, 10)), C not on T3, B's runs all at 100 on T3."""
    rng, rows = np.random.default_rng(0), []
    for t in ["T1", "T2", "T3"]:
        for a in "ABC":
            if a == "C" and t == "T3":
                continue
            for s in range(3):
                rows.append((a, t, s, 100.0 if (a == "B" and t == "T3") else rng.normal(50, 10)))
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_bayes_cap_note_names_only_the_pairs_shared_tasks():
    res = rlstats.bayes(unshared_cap(), "score ~ agent | task/seed", rope=5, rng=0)
    note = next(n for n in res.notes if "as at a score cap" in n)
    assert "as at a score cap: A vs B on 1 of 3 tasks (T3; B 3 of its 3 runs there). " in note
    assert "B vs C" not in note and "where both agents' runs of a task all sit at it" not in note
    assert "only some of the tasks of A vs B (above)" in note
    assert "B vs C" not in res.report().split("as at a score cap")[1].split(". The signed-rank")[0]
    # B vs C's numbers read T1 and T2 alone
    tidy = res.tidy().set_index(["agent_1", "agent_2"])
    assert tidy.loc[("B", "C"), "n_tasks"] == 2


def atari_pair():
    d = rlstats.normalize(load_dataset("atari100k"), "atari100k_reference")
    games = ["Alien", "Boxing", "Breakout", "Freeway", "Pong", "Kangaroo", "Krull", "Seaquest"]
    return d[d.agent.isin(["DER", "DrQ(eps)"]) & d.task.isin(games) & (d.seed < 3)]


@pytest.mark.parametrize("higher", [True, False])
def test_noninferior_near_alpha_note_reads_the_verdicts_p_values(higher):
    d = atari_pair()
    if not higher:
        d = d.assign(score=-d.score)
    res = rlstats.equivalence(d, "score ~ agent | task/seed", margin=0.1, alternative="noninferior", control="DER",
                              rng=0, higher_is_better=higher)
    row = res.tidy().query("scope == 'aggregate'").iloc[0]
    assert round(row.p_value, 6) == 0.005997 and row.shown
    # the reverse test past the far bound (0.054 here) is no test of non-inferiority's verdicts
    assert round(row.p_upper if higher else row.p_lower, 4) == (0.9465 if higher else 0.9515)
    assert not [n for n in res.notes if "can turn" in n]


# 3. the print's words: one task, no task shared, and the across='paired_t' note beside a verdict beyond the margin

def one_task_and_apart():
    rng = np.random.default_rng(1)
    one = pd.DataFrame([(a, "T1", s, rng.normal(m, 1)) for a, m in [("A", 0), ("B", 0.1)] for s in range(5)],
                       columns=["agent", "task", "seed", "score"])
    apart = pd.DataFrame([(a, t, s, rng.normal(0, 1)) for a, t in [("A", "T1"), ("B", "T1"), ("C", "T2"),
                                                                       ("D", "T2")]
                          for s in range(4)], columns=["agent", "task", "seed", "score"])
    return one, apart


def test_one_task_prints_its_own_test():
    one, _ = one_task_and_apart()
    res = rlstats.equivalence(one, "score ~ agent | task/seed", margin=1, rng=0)
    row = res.tidy().query("scope == 'task'").iloc[0]
    text = str(res)
    assert "across these 1 task" not in text and "1 of 1 task tested" not in text
    assert (f"  on T1, the one task of the data (no test across tasks from one): equivalent within \u00b11 "
            f"(difference {row.estimate:.5g}, 90% CI {row.conf_low:.5g} to {row.conf_high:.5g}, "
            f"p-value = {row.p_value:.4g}; Welch t)") in text
    assert round(row.p_value, 5) == 0.04679 and round(row.estimate, 5) == -0.10988


def test_pairs_sharing_no_task_are_said_so():
    _, apart = one_task_and_apart()
    res = rlstats.equivalence(apart, "score ~ agent | task/seed", margin=1, rng=0)
    text = str(res)
    assert "0 tasks" not in text and "(none)" not in text
    assert "A - C:\n  withheld: A and C share no task (none where both ran)\n" in text
    assert "on T1, the one task both ran (no test across tasks from one): " in text
    assert "A vs C (no task shared)" in text


def beyond_by_welch():
    rng = np.random.default_rng(1)
    return pd.DataFrame([(a, t, s, rng.normal(m, 0.05)) for t, dd in [("T1", 0.5), ("T2", 0.2), ("T3", 0.3)]
                         for a, m in [("X", dd), ("Y", 0)] for s in range(5)],
                        columns=["agent", "task", "seed", "score"])


def test_paired_t_note_says_what_it_shows_beside_a_verdict_beyond_the_margin():
    res = rlstats.equivalence(beyond_by_welch(), "score ~ agent | task/seed", margin=0.1, rng=0)
    across = res.tidy().query("scope == 'across tasks'").iloc[0]
    assert across.conclusion == "shown above 0.1, beyond the margin" and round(across.estimate, 4) == 0.3374
    note = next(n for n in res.notes if "across='paired_t'" in n)
    assert note.endswith("(across='paired_t'), X vs Y is neither shown equivalent nor shown above 0.1 (its 90% "
                         "interval reaches across the margin, where across='welch''s lies wholly above it)")
    paired = rlstats.equivalence(beyond_by_welch(), "score ~ agent | task/seed", margin=0.1, rng=0,
                                 across="paired_t").tidy().query("scope == 'across tasks'").iloc[0]
    assert paired.conf_low < 0.1 < paired.conf_high and paired.conclusion == "not shown equivalent"


# 4. a published table in other units than the runs

def spr_and_paper():
    a = load_dataset("atari100k")
    d = a[a.task.isin(["Alien", "Boxing", "Breakout", "Freeway", "Pong"])]
    paper = d[d.agent == "SPR"].groupby("task")["score"].agg(mean="mean", sd="std", n="size").reset_index()
    return d[(d.agent == "SPR") & (d.seed < 5)], paper


def test_published_means_far_outside_the_runs_are_said():
    ours, paper = spr_and_paper()

    def run(factor):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = rlstats.equivalence(ours, "score ~ agent | task/seed", margin=50,
                                      published=paper.assign(mean=paper["mean"] * factor, sd=paper.sd * factor))
        said = [n for n in res.notes if n.startswith("published= means lie outside")]
        return said, [str(w.message) for w in caught if str(w.message).startswith("published= means")]

    assert run(1) == ([], [])  # the table in the runs' units: nothing said
    said, warned = run(100)
    assert said == warned and said == [
        "published= means lie outside the range of the runs on 5 of 5 tasks, at 40 to 101 times the size of the runs' "
        "largest score there (Alien 92, Boxing 59, Breakout 101, Freeway 61, Pong 40): the table looks to be in other "
        "units than the runs (the units of 'score': a percentage of scores that are fractions, a table of another "
        "scale); if so, rerun with its means and sds in these"]
    said, _ = run(0.01)  # Freeway's 0.19 and Pong's -0.054 lie inside their runs' range
    assert said and ("on 3 of 5 tasks, at 1/85 to 1/48 times the size of the runs' smallest score there (Alien "
                     "1/85, Boxing 1/48, Breakout 1/76)") in said[0]


def test_published_means_of_zero_or_beside_the_runs_are_not_a_units_slip():
    """A mean of 0, or on the other side of 0, beside runs all positive is a weaker agent's, not other units."""
    rng = np.random.default_rng(0)
    runs = pd.DataFrame({"agent": "A", "task": np.repeat(["a", "b", "c"], 4), "score": rng.uniform(0.5, 1.5, 12)})
    paper = pd.DataFrame({"task": ["a", "b", "c"], "mean": [0.0, -0.2, 0.9], "sd": [1.0] * 3, "n": [5] * 3})
    with warnings.catch_warnings():
        warnings.simplefilter("error", rlstats.RlstatsWarning)
        res = rlstats.equivalence(runs, "score ~ agent | task", margin=0.5, published=paper, aggregate=None)
    assert not [n for n in res.notes if "published= means" in n]


# 5. the command line: -o published=FILE, a method typed as the command, a misspelt --method

def _cli(*args):
    from conftest import cli_run
    return cli_run(*args)


def test_published_file_on_the_command_line(tmp_path):
    rng = np.random.default_rng(0)
    runs = pd.DataFrame({"agent": "A", "task": np.repeat(["a", "b", "c"], 4), "seed": np.tile(range(4), 3),
                         "score": np.round(rng.normal(10, 1, 12), 3)})
    runs.to_csv(tmp_path / "runs.csv", index=False)
    paper = pd.DataFrame({"task": ["a", "b", "c"], "mean": [10.2, 9.9, 10.1], "sd": [1.0, 1.1, 0.9], "n": [10] * 3})
    paper.to_csv(tmp_path / "paper.csv", index=False)
    status, out, err = _cli("compare", tmp_path / "runs.csv", "score ~ agent | task/seed", "--method", "equivalence",
                            "-o", "margin=2", "-o", f"published={tmp_path / 'paper.csv'}")
    assert status == 0, err
    expected = rlstats.equivalence(runs, "score ~ agent | task/seed", margin=2, published=paper).tidy()
    across = expected.query("scope == 'across tasks'").iloc[0]
    assert "Two one-sided tests (TOST) of equivalence against a published table" in out
    by_hand = float((runs.groupby("task").score.mean().to_numpy() - paper["mean"].to_numpy()).mean())
    assert across.estimate == pytest.approx(by_hand, abs=1e-12) and round(by_hand, 6) == -0.044583
    assert f"mean difference over tasks {by_hand:.5g}, 90% CI {across.conf_low:.5g} to {across.conf_high:.5g}" in out


def test_a_method_as_the_command_and_a_misspelt_method(tmp_path):
    status, _, err = _cli("equivalence", "runs.csv", "score ~ agent | task")
    assert status == 2 and err.splitlines()[-1].endswith(
        "; equivalence is a method, run by the compare command: rlstats compare FILE FORMULA --method equivalence "
        "-o margin=...")
    status, _, err = _cli("tost", "runs.csv", "score ~ agent | task")
    assert err.splitlines()[-1].endswith(
        "; TOST (Schuirmann's equivalence test by two one-sided tests) is --method equivalence here, run by the "
        "compare command: rlstats compare FILE FORMULA --method equivalence -o margin=...")
    status, _, err = _cli("compre", "runs.csv", "score ~ agent | task")
    assert err.splitlines()[-1].endswith("(did you mean 'compare'?)")
    with pytest.raises(rlstats.OptionError, match=r"\(did you mean 'equivalence'\?\)$"):
        rlstats.compare(pd.DataFrame({"agent": ["A"], "task": ["a"], "score": [1.0]}), "score ~ agent | task",
                        method="equivalance")


# 6. TOSTER's, R's equivalence package's and baycomp's names, answered with the name to pass

@pytest.mark.parametrize("call, options, message", [
    ("equivalence", {"eqb": 0.1}, "equivalence() has no option eqb=: its name here is margin= (eqb= is TOSTER's "
                                  "spelling, the symmetric bound of t_TOST and tsum_TOST); pass margin=0.1"),
    ("equivalence", {"epsilon": 0.1}, "equivalence() has no option epsilon=: its name here is margin= (epsilon= is "
                                      "the spelling of R's equivalence::tost); pass margin=0.1"),
    ("equivalence", {"low_eqbound": -0.1, "high_eqbound": 0.1},
     "equivalence() has no option low_eqbound=: TOSTER's low_eqbound= and high_eqbound= are the two ends of the "
     "band; equivalence() takes its half-width, margin=, the band -margin to margin: ends -0.1 and 0.1 are "
     "margin=0.1; ends of different sizes are two one-sided tests, each alternative='noninferior' with its end's "
     "size as margin= (higher_is_better=False for the upper end)"),
    ("equivalence", {"rope": 0.1}, "equivalence() has no option rope=: its name here is margin= (rope= is another "
                                   "rlstats function's spelling); pass margin=0.1"),
    ("bayes", {"margin": 0.1}, "bayes() has no option margin=: its name here is rope= (margin= is another rlstats "
                               "function's spelling); pass rope=0.1"),
])
def test_other_packages_names_of_the_margin(call, options, message):
    df = pd.DataFrame({"agent": ["A", "B"] * 2, "task": ["a", "a", "b", "b"], "score": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(rlstats.OptionError) as caught:
        getattr(rlstats, call)(df, "score ~ agent | task", **options)
    assert str(caught.value) == message


def test_one_task_report_gives_its_test():
    one, _ = one_task_and_apart()
    res = rlstats.equivalence(one, "score ~ agent | task/seed", margin=1, rng=0)
    text = res.report()
    assert "these 1 task" not in text and "of 1 task tested" not in text
    assert "Per task we used Welch's t (one task: no test across tasks)" in text
    assert ("A against B: on T1, the one task of the data, equivalent within $\\pm$1 (difference $-$0.11, 90\\% CI "
            "$-$0.978 to 0.759)") in text
