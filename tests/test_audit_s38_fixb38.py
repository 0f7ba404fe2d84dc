"""Session 38 (fixb38): a new-user trial and an audit of task_table's columns, marks and caption, and of concat.

1. task_table's ``p_adjusted`` was not an adjusted p_value: it is the smallest Holm-adjusted p-value of any agent
   against the row's (the p-value for dropping it from the possibly-best set), so it could be below the p_value beside
   it (Atari 100k Boxing/DER: p_value 3.2e-06, p_adjusted 1.55e-06). It is now ``p_exclusion``.
2. A dagger beside a difference-of-means interval wholly on the best's side (Krull/SPR) gets a second mark, keyed in
   the caption with why the two differ.
3. The caption says where a summary of the runs' last steps compares runs of unequal length (SB3's DQN at 20k).
4. rlstats.concat of tables whose columns differ is refused unless join= says how; join="outer" notes the gaps.
"""

import html

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats import vocabulary


def _best_noisy():
    """One task: a best agent of 5 noisy runs, two of 20 tight runs; 'mid' beats 'low' far more clearly than the best
    does, so low's exclusion p-value (the smallest Holm-adjusted p of the agents against it) is below its p_value."""
    rng = np.random.default_rng(0)
    scores = {"best": rng.normal(20, 8, 5), "mid": rng.normal(12, 1, 20), "low": rng.normal(8, 1, 20)}
    return pd.DataFrame([("a", k, v) for k, vs in scores.items() for v in vs], columns=["task", "agent", "score"])


def _holm(p):
    """Holm's adjusted p-values, by hand (statsmodels' multipletests(method='holm') gives the same)."""
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)
    stepped = np.maximum.accumulate((len(p) - np.arange(len(p))) * p[order])
    out = np.empty_like(p)
    out[order] = np.minimum(stepped, 1.0)
    return out


def test_task_table_names_the_exclusion_p_value_for_what_it_is():
    frame = _best_noisy()
    res = rlstats.task_table(frame, "score ~ agent | task", rng=0)
    runs = {a: g["score"].to_numpy() for a, g in frame.groupby("agent")}
    pairs = [(j, a) for j in runs for a in runs if j != a]
    # one-sided Welch t tests of "j better than a", scipy's, Holm over the 6 ordered pairs
    raw = [stats.ttest_ind(runs[j], runs[a], equal_var=False, alternative="greater").pvalue for j, a in pairs]
    adjusted = dict(zip(pairs, _holm(raw)))
    tidy = res.tidy().set_index("agent")
    assert "p_adjusted" not in tidy.columns and "p_exclusion" in tidy.columns
    for a in runs:
        expected = min(adjusted[(j, a)] for j in runs if j != a)
        assert tidy.loc[a, "p_exclusion"] == pytest.approx(expected, rel=1e-9)
        assert res.p_exclusion[0, res.agents.index(a)] == pytest.approx(expected, rel=1e-9)
        assert bool(tidy.loc[a, "possibly_best"]) == (expected > 0.05)
    # low: p_value 0.00061 against the best, exclusion p 2.2e-15 from mid (below it, as its name no longer hides)
    assert tidy.loc["low", "p_value"] == pytest.approx(0.00061004, rel=1e-4)
    assert tidy.loc["low", "p_exclusion"] == pytest.approx(2.2188039e-15, rel=1e-4)
    # the old field is an error naming the new one (the package's rule for renamed names: never a silent alias)
    with pytest.raises(AttributeError, match="p_exclusion"):
        res.p_adjusted
    assert not hasattr(res, "p_adjusted")
    # the vocabulary: a printed label that reads as neither "adjusted p-value" nor the other methods' p_adjusted
    term = vocabulary.VOCABULARY["p_exclusion"]
    assert term.label == "exclusion p-value" and "possibly-best set" in term.description


def test_task_table_keys_the_exclusion_p_value_in_every_format():
    res = rlstats.task_table(_best_noisy(), "score ~ agent | task", rng=0)
    summary = res.summary()
    text = str(summary)
    key = "p_exclusion: the p-value for dropping the agent from the possibly-best set"
    assert key in text and "p_adjusted" not in text and "adj. p-value" not in text
    assert "the smallest Holm-adjusted p-value of any agent against it" in text
    assert key in summary.to_markdown() and key in summary._repr_html_()
    latex = " ".join(summary.to_latex().split())
    assert "exclusion p-value: the p-value for dropping the agent from the possibly-best set" in latex
    assert "adj. p-value" not in latex and "p\\_adjusted" not in latex
    # it prints as a p-value (three digits, "< 1e-16" style), as p_value does
    assert "2.22e-15" in text


def _krull_like():
    """One task of 4 agents x 10 runs where C is marked possibly best (its smallest Holm-adjusted p over the 12 ordered
    pairs, 0.0952, is above 0.05) though its 97.5% Welch interval against the best A lies above 0 (Atari 100k's
    Krull/SPR, [0.083, 1.49], alike)."""
    rng = np.random.default_rng(3)
    scores = {"A": rng.normal(2.8, .65, 10), "B": rng.normal(1.9, .6, 10), "C": rng.normal(1.5, .4, 10),
              "D": rng.normal(1.2, 1, 10)}
    return pd.DataFrame([("Krull", a, i, v) for a, vs in scores.items() for i, v in enumerate(vs)],
                        columns=["task", "agent", "seed", "score"])


def test_task_table_flags_a_mark_whose_interval_lies_on_the_best_side():
    """2. (new-user trial s38) Krull/SPR carried the dagger beside a difference-of-means interval wholly on the best's
    side, which only a note the LaTeX and Markdown leave out explained: such a cell carries a second mark, keyed in
    the caption with why the two disagree."""
    frame = _krull_like()
    res = rlstats.task_table(frame, "score ~ agent | task/seed")
    runs = {a: g["score"].to_numpy() for a, g in frame.groupby("agent")}
    pairs = [(j, a) for j in runs for a in runs if j != a]
    raw = [stats.ttest_ind(runs[j], runs[a], equal_var=False, alternative="greater").pvalue for j, a in pairs]
    adjusted = dict(zip(pairs, _holm(raw)))
    exclusion = {a: min(adjusted[(j, a)] for j in runs if j != a) for a in runs}
    # scipy's Welch interval at the effect sizes' level 1 - 2 (1 - 0.95) / 4 = 0.975
    low = {a: stats.ttest_ind(runs["A"], runs[a], equal_var=False).confidence_interval(0.975).low for a in "BCD"}
    assert exclusion["B"] > 0.05 and low["B"] < 0  # marked, its interval reaching 0: no flag
    assert exclusion["C"] == pytest.approx(0.0952, abs=5e-5) and low["C"] == pytest.approx(0.078, abs=5e-4)
    assert exclusion["D"] <= 0.05  # not marked
    tidy = res.tidy().set_index("agent")
    assert tidy.loc["C", "diff_low"] == pytest.approx(low["C"], rel=1e-9)
    assert res.possibly_best[0].tolist() == [True, True, True, False]
    shown = res.display().loc["Krull"]
    assert shown["B"].endswith("\u2020") and shown["C"].endswith("\u2020\u2021") and "\u2021" not in shown["B"]
    assert "\u2020" not in shown["D"] and "\u2021" not in shown["A"]
    why = ("\u2021: marked possibly best though the interval of its difference of means against the best (diff_low, "
           "diff_high in tidy()) lies wholly on the best's side")
    caption = res.caption()
    assert why in caption
    # why, with the two levels: Holm's first test at alpha / 12, the interval's sides at (1 - 0.95) / 4
    assert "alpha / 12 = 0.0042" in caption and "each side at 0.013" in caption
    markdown = res.to_markdown()
    assert "| 1.68 \u00b1 0.33 \u2020\u2021 |" in markdown and why in markdown
    latex = res.to_latex()
    assert r"$^{\dagger\ddagger}$" in latex and "$$" not in latex and r"$^\ddagger$: marked possibly best" in latex
    assert why in str(res) and why in html.unescape(res._repr_html_())
    # a table without such a cell has neither the mark nor the caption's line (2 agents: Holm's first one-sided test
    # at alpha / 2 and the interval's sides at (1 - 0.95) / 2 agree)
    plain = rlstats.task_table(frame[frame["agent"].isin(["A", "B"])], "score ~ agent | task/seed")
    assert plain.possibly_best[0].tolist() == [True, False]  # B beaten at one-sided p 0.0163 <= 0.025
    assert "\u2021" not in plain.to_markdown() and "ddagger" not in plain.to_latex()


def _logs_of_unequal_length(short=(0, 1, 2)):
    """Evaluations every 5k steps of 3 agents x 2 tasks x 3 seeds; DQN's runs on CartPole of the seeds ``short`` stop
    at 20k, the others at 30k (the SB3 logs' shape: shared/data/logs/sb3_classic)."""
    rng = np.random.default_rng(1)
    rows = []
    for agent, task, seed in ((a, t, s) for a in ("A2C", "DQN", "PPO") for t in ("Acrobot", "CartPole")
                              for s in range(3)):
        end = 20_000 if (agent, task) == ("DQN", "CartPole") and seed in short else 30_000
        rows += [(agent, task, seed, step, step / 100 + rng.normal()) for step in range(5_000, end + 1, 5_000)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


@pytest.mark.parametrize("how", ["final", "max"])
def test_task_table_caption_says_runs_of_unequal_length(how):
    """3. (new-user trial s38) On SB3's logs the printed notes said DQN's final score on CartPole was its value at 20k
    beside A2C's and PPO's at 30k; the Markdown and LaTeX captions, the table pasted into a paper, did not."""
    logs = _logs_of_unequal_length()
    formula = "score ~ agent | task/seed"
    final = rlstats.summarize_runs(logs, formula, step="step", how=how)
    # the summary is each run's last (largest) logged value, whatever step it reached
    by_hand = logs.sort_values("step").groupby(["agent", "task", "seed"])["score"]
    expected = by_hand.last() if how == "final" else by_hand.max()
    np.testing.assert_allclose(final.set_index(["agent", "task", "seed"])["score"].sort_index(),
                               expected.sort_index(), rtol=1e-12)
    res = rlstats.task_table(final, formula)
    said = ("Runs of unequal length: DQN's runs on CartPole end at 20k, the task's last run at 30k, so their values "
            "come from earlier in training.")
    assert said in res.caption() and said in res.to_markdown()
    assert " ".join(said.split()) in " ".join(res.to_latex().split())
    assert res.early_ends["runs"].tolist() == [[0, 0, 0], [0, 3, 0]]
    assert any("earlier in training" in note for note in res.notes)  # as the notes said before
    # one run of the three stopped early: counted as such
    one = rlstats.task_table(rlstats.summarize_runs(_logs_of_unequal_length(short=(0,)), formula, step="step",
                                                    how=how), formula)
    assert ("Runs of unequal length: 1 of DQN's 3 runs on CartPole ends at 20k, the task's last run at 30k, so its "
            "value comes from earlier in training.") in one.caption()
    # the rows analysed decide: without DQN's short runs no sentence
    whole = rlstats.task_table(final[final["agent"] != "DQN"], formula)
    assert whole.early_ends is None and "unequal length" not in whole.to_markdown()


def _two_tables():
    a = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0)
    b = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=1).rename(columns={"score": "ret"})
    b["agent"] = "new " + b["agent"].astype(str)
    return a, b


def test_concat_refuses_tables_whose_columns_differ_unless_join_is_given():
    """4. (audit s38) rlstats.concat of tables with different columns left the gaps NaN unsaid (pandas' outer join),
    and an analysis then refused 12 missing scores without saying why. As R's rbind() and data.table's rbindlist()
    (fill=FALSE), it refuses, naming which columns each table lacks; pandas' own join= chooses."""
    a, b = _two_tables()
    before = (a.copy(), b.copy())
    with pytest.raises(rlstats.OptionError) as info:
        rlstats.concat([a, b], ignore_index=True)
    said = str(info.value)
    assert "table 1 of 2 has no 'ret', table 2 of 2 no 'score'" in said, said
    assert "join='outer'" in said and "join='inner'" in said
    pd.testing.assert_frame_equal(a, before[0])  # the caller's frames untouched
    pd.testing.assert_frame_equal(b, before[1])
    # tables of the same columns in another order stack as before, without a note
    same = rlstats.concat([a, a[a.columns[::-1]]], ignore_index=True)
    assert len(same) == 24 and not same.attrs.get("rlstats_notes")
    with pytest.raises(rlstats.OptionError, match="join='left' is not one of the allowed values"):
        rlstats.concat([a, b], join="left")


def test_concat_join_outer_says_where_it_left_values_missing():
    a, b = _two_tables()
    both = rlstats.concat([a, b], ignore_index=True, join="outer")
    expected = pd.concat([a, b], ignore_index=True)  # pandas' stack, numbers alike
    pd.testing.assert_frame_equal(both, expected)
    notes = both.attrs["rlstats_notes"]
    # said of each table's rows by the column telling them apart (the agent), so it follows them into a subset
    assert ("'ret' left missing (NaN) by rlstats.concat(join='outer'): the table of these rows has no such column "
            "(rows with agent 'agent_1' and 'agent_2')") in notes
    assert notes[1] == ("'score' left missing (NaN) by rlstats.concat(join='outer'): the table of these rows has no "
                        "such column (rows with agent 'new agent_1' and 'new agent_2')")
    # bound to each table's rows: a subset of the second table's rows keeps its note alone
    mine = both[both["agent"].isin(["new agent_1", "new agent_2"])]
    res = rlstats.task_table(mine, "ret ~ agent | task/seed")
    assert [n for n in res.notes if "rlstats.concat" in n] == [notes[1]]
    # nothing tells the tables' rows apart: said of the stack, the tables by their place
    b2 = b.copy()
    b2["agent"] = a["agent"].to_numpy()
    b2["task"], b2["seed"] = a["task"].to_numpy(), a["seed"].to_numpy()
    alike = rlstats.concat([a, b2], join="outer", ignore_index=True)
    assert ("'score' left missing (NaN) by rlstats.concat(join='outer') in the 12 rows of table 2 of 2, which has no "
            "such column") in alike.attrs["rlstats_notes"]


def test_concat_join_inner_says_which_columns_it_dropped():
    a, b = _two_tables()
    both = rlstats.concat([a, b], ignore_index=True, join="inner")
    assert list(both.columns) == ["agent", "task", "seed"] and len(both) == 24
    assert both.attrs["rlstats_notes"] == (
        "rlstats.concat(join='inner') kept the columns every table has, dropping 'score' (from table 1 of 2) and "
        "'ret' (from table 2)",)
