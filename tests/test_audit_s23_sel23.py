"""Audit s23 (sel23): the selection check and the task table as a user writing a paper meets them on real scores.

Atari 100k (``published`` fixture), subsampled to 3 and 5 runs per cell; every number checked here was computed
apart from rlstats (scipy's Welch t and a hand-written Holm; an enumeration of every reported subset).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import rlstats

FORMULA = "score ~ agent | task/seed"
REPORTED = ["Pong", "Boxing", "Breakout", "Krull", "Kangaroo"]


@pytest.fixture(scope="module")
def atari(published):
    return pd.read_csv(published / "atari100k.csv")


# ------------------------------------------------------------------------------------------------ task_table


def test_task_table_plot_tells_an_empty_cell_from_the_worst(atari):
    """A cell where the agent never ran (IRIS on Asterix) was drawn white, the colour of each task's worst agent:
    the figure read as if IRIS were worst there."""
    import matplotlib.pyplot as plt

    tasks = ["Alien", "Asterix", "Boxing"]
    df = atari[(atari.seed < 3) & atari.agent.isin(["SPR", "DrQ", "IRIS"]) & atari.task.isin(tasks)]
    df = df[~((df.agent == "IRIS") & (df.task == "Asterix"))]
    table = rlstats.task_table(df, FORMULA)
    ax = table.plot()
    fig = ax.figure
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(int)
    height = pixels.shape[0]

    def colour(task, agent):
        x, y = ax.transData.transform((list(table.agents).index(agent), list(table.tasks).index(task)))
        return pixels[int(round(height - y)), int(round(x))]

    worst = np.nanargmin(table.estimates[tasks.index("Asterix")])
    assert table.agents[worst] == "DrQ"  # Asterix's worst agent among those that ran
    assert np.isnan(table.estimates[tasks.index("Asterix"), list(table.agents).index("IRIS")])
    assert not np.array_equal(colour("Asterix", "IRIS"), colour("Asterix", "DrQ")), \
        "the empty cell is drawn in the worst agent's colour"
    assert "no runs" in ax.get_title()
    plt.close(fig)


# ------------------------------------------------------------------------------------------------ selection_check


def test_selection_fresh_heldout_says_which_tasks_of_data_went_unused(atari):
    """With heldout= a frame of fresh runs, the tasks of ``data`` that are not reported were left out of the check
    without a word (with heldout= a list the same tasks get a note)."""
    two = atari[atari.agent.isin(["SPR", "DrQ"]) & (atari.seed < 3)]
    tasks = sorted(two.task.unique())
    data = two[two.task.isin(tasks[:6] + REPORTED)]
    fresh = two[two.task.isin([t for t in tasks[13:] if t not in REPORTED])]
    res = rlstats.selection_check(data, FORMULA, treatment="SPR", baseline="DrQ", reported=REPORTED, heldout=fresh,
                                  rng=0, normalize="atari100k_reference")
    unused = [t for t in tasks[:6] if t not in REPORTED]
    assert unused == ["Alien", "Amidar", "Assault", "Asterix", "BankHeist", "BattleZone"]
    assert res.n_reported == 5 and res.n_heldout == 10
    said = [n for n in res.notes if "not used" in n]
    assert said == ["6 tasks of data neither reported nor in the held-out data were not used: Alien, Amidar, "
                    "Assault, Asterix, BankHeist, BattleZone"]
    assert said[0] in str(res)


def test_selection_latex_transposed_table_caption_names_columns_not_rows(atari):
    """The Tests table is printed transposed (one column per test) in LaTeX; its caption said 'In every row,
    upper: Inf; ...', false of the rows (each a statistic) of the printed table."""
    two = atari[atari.agent.isin(["SPR", "DrQ"]) & (atari.seed < 3)]
    res = rlstats.selection_check(two, FORMULA, treatment="SPR", baseline="DrQ", reported=REPORTED, rng=0,
                                  normalize="atari100k_reference")
    latex = res.to_latex()
    tests = latex[latex.index("Tests."):]
    tests = tests[:tests.index(r"\end{table")]
    assert r"term & inspector & reporter \\" in tests  # transposed: one column per test
    assert "In every row" not in tests
    assert "In every column, upper: Inf; null value: 0; significant: no; confidence level: 0.95; alternative: " \
           "greater." in tests
    # the per-task table is not transposed, and keeps its wording (its columns by their labels: audit s25 vocab25)
    assert "In every row, treatment runs: 3; baseline runs: 3." in latex


# ------------------------------------------------------------------------------------------------ independent values


def test_task_table_welch_holm_match_an_independent_computation(atari):
    """Alien, 5 agents x 3 runs: each p-value against the best and each mark from scipy's Welch t and a Holm
    step-down written here over the 20 ordered pairs."""
    from scipy import stats

    df = atari[(atari.seed < 3) & (atari.task == "Alien")
               & atari.agent.isin(["SPR", "DrQ", "IRIS", "SimPLe", "CURL"])]
    tidy = rlstats.task_table(df, FORMULA).tidy().set_index("agent")
    runs = {a: g.score.to_numpy() for a, g in df.groupby("agent")}
    p = {(j, a): stats.ttest_ind(runs[j], runs[a], equal_var=False, alternative="greater").pvalue
         for j, a in itertools.permutations(runs, 2)}
    adjusted, running = {}, 0.0
    for i, key in enumerate(sorted(p, key=p.get)):
        running = max(running, min(1.0, (len(p) - i) * p[key]))
        adjusted[key] = running
    for agent in runs:
        smallest = min(adjusted[(j, agent)] for j in runs if j != agent)
        assert tidy.loc[agent, "p_exclusion"] == pytest.approx(smallest, rel=1e-9)
        assert bool(tidy.loc[agent, "possibly_best"]) == (smallest > 0.05)
        if agent != "SPR":
            assert tidy.loc[agent, "p_value"] == pytest.approx(p[("SPR", agent)], rel=1e-9)
    assert tidy.loc["IRIS", "p_value"] == pytest.approx(0.0025962, abs=1e-7)
    assert tidy.loc["IRIS", "p_exclusion"] == pytest.approx(0.0113315, abs=1e-7)
    assert not tidy.loc["IRIS", "possibly_best"]


def test_selection_exact_pvalue_matches_enumeration(atari):
    """12 Atari games, 3 reported: C(12, 3) = 220 subsets, all enumerated by rlstats ('exact') and here."""
    tasks = sorted(atari.task.unique())[:12]
    df = atari[atari.agent.isin(["SPR", "DrQ"]) & (atari.seed < 3) & atari.task.isin(tasks)]
    res = rlstats.selection_check(df, FORMULA, treatment="SPR", baseline="DrQ", reported=tasks[:3], rng=0,
                                  normalize="atari100k_reference")
    means = df.groupby(["task", "agent"]).score.mean().unstack()
    ref = rlstats.datasets.load("atari100k_reference").set_index("task")
    effect = ((means.SPR - means.DrQ) / (ref.human - ref.random).reindex(means.index)).reindex(tasks).to_numpy()
    observed = effect[:3].mean() - effect[3:].mean()
    diffs = []
    for chosen in itertools.combinations(range(12), 3):
        mask = np.zeros(12, bool)
        mask[list(chosen)] = True
        diffs.append(effect[mask].mean() - effect[~mask].mean())
    exact = np.mean(np.asarray(diffs) >= observed - 1e-12)
    assert res.pvalue_method == "exact"
    assert res.statistic == pytest.approx(observed, rel=1e-9)
    assert res.pvalue == pytest.approx(exact, abs=1e-12)


def test_selection_says_why_each_heldout_task_is_left_out(atari):
    """effect='std_diff' with every run at a cap (Alien, Amidar: each agent's runs all equal) leaves the task out for
    zero spread; the note said '2 tasks without runs of both agents (or a finite effect)', though both agents ran
    there. Assault, where DrQ has no runs (IRIS has, so the task stays in the design), is left out for that."""
    three = atari[atari.agent.isin(["SPR", "DrQ", "IRIS"]) & (atari.seed < 3)].copy()
    capped = three.task.isin(["Alien", "Amidar"])
    three.loc[capped, "score"] = np.where(three.loc[capped, "agent"] == "SPR", 1000.0, 500.0)
    three = three[~((three.task == "Assault") & (three.agent == "DrQ"))]
    res = rlstats.selection_check(three, FORMULA, treatment="SPR", baseline="DrQ", reported=REPORTED, rng=0,
                                  effect="std_diff")
    assert res.n_reported == 5 and res.n_heldout == 26 - 5 - 3
    assert [n for n in res.notes if "left out of the held-out set" in n] == [
        "1 task without runs of both 'SPR' and 'DrQ' left out of the held-out set: Assault",
        "2 tasks with zero spread of both agents' runs (effect='std_diff' divides by it) left out of the held-out "
        "set: Alien, Amidar"]


def test_selection_says_one_run_each_leaves_std_diff_undefined(atari):
    """The third reason a held-out task is left out with effect='std_diff': one run of each agent (no pooled sd);
    one run of one agent beside three of the other has a spread and stays in."""
    two = atari[atari.agent.isin(["SPR", "DrQ"]) & (atari.seed < 3)]
    two = two[~(two.task.isin(["Alien", "Amidar"]) & (two.seed > 0))  # Alien, Amidar: one run of each
              & ~((two.task == "Assault") & (two.agent == "DrQ") & (two.seed > 0))]  # Assault: 3 and 1
    res = rlstats.selection_check(two, FORMULA, treatment="SPR", baseline="DrQ", reported=REPORTED, rng=0,
                                  effect="std_diff")
    assert res.n_heldout == 26 - 5 - 2
    assert [n for n in res.notes if "left out of the held-out set" in n] == [
        "2 tasks with one run of 'SPR' and one of 'DrQ' (effect='std_diff' needs a third for their spread) left out "
        "of the held-out set: Alien, Amidar"]
    assault = res.effects.set_index("task").loc["Assault"]
    runs = two[two.task == "Assault"]
    spr, drq = runs[runs.agent == "SPR"].score.to_numpy(), runs[runs.agent == "DrQ"].score.to_numpy()
    assert (assault.n_treatment, assault.n_baseline) == (3, 1)
    assert assault.effect == pytest.approx((spr.mean() - drq.mean()) / spr.std(ddof=1), rel=1e-12)


def test_task_table_median_says_the_set_is_for_the_best_mean(atari):
    """Freeway, seeds 60-89 of 6 agents, statistic='median' (Welch's t, the default test): the table bolds the best
    median and called the marked set 'a 95% confidence set for the best agent', read as the best median; but the
    tests compare means. SPR, the best median of all 100 runs (29.095; CURL's 28.62), is excluded (smallest Holm
    p 0.00175), as it may be: CURL has the best mean (28.37; SPR's 19.28). In a simulation drawing 30 of the 100
    runs per agent (100 draws), the best median of Freeway was excluded in 24% of the draws."""
    freeway = atari[(atari.task == "Freeway") & atari.agent.isin(["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"])]
    pools = freeway.groupby("agent").score
    assert pools.median().idxmax() == "SPR" and pools.mean().idxmax() == "CURL"
    table = rlstats.task_table(freeway[(freeway.seed >= 60) & (freeway.seed < 90)], FORMULA, statistic="median")
    tidy = table.tidy().set_index("agent")
    assert not tidy.loc["SPR", "possibly_best"]
    assert tidy.loc["SPR", "p_exclusion"] == pytest.approx(0.0017548, abs=1e-6)
    assert tidy.loc["CURL", "best"] and tidy.loc["CURL", "possibly_best"]
    key = "95% confidence set for the agent with the best mean of the task (the Welch t test compares means, not the " \
          "medians shown)"
    assert key in str(table)
    assert key.replace("%", r"\%") in table.to_latex()
    # with statistic='mean' the sentence is as it was
    assert "95% confidence set for the best agent of the task" in str(
        rlstats.task_table(freeway[freeway.seed < 30], FORMULA))


def test_selection_heldout_frame_errors_name_heldout(atari):
    """An error in heldout= (a frame of fresh runs) read as one about data, which has the column it said is missing
    ("unknown name 'score' in response ... the data columns are: 'agent', 'task', 'seed', 'ret'")."""
    from rlstats.errors import DesignError, FormulaError

    two = atari[atari.agent.isin(["SPR", "DrQ"]) & (atari.seed < 3)]
    data, fresh = two[two.task.isin(REPORTED)], two[~two.task.isin(REPORTED)]
    options = dict(treatment="SPR", baseline="DrQ", reported=REPORTED, rng=0)
    with pytest.raises(FormulaError, match=r"^heldout= \(the fresh held-out runs\): unknown name 'score' in "
                                           r"response; .*the data columns are: 'agent', 'task', 'seed', 'ret'"):
        rlstats.selection_check(data, FORMULA, heldout=fresh.rename(columns={"score": "ret"}), **options)
    gap = fresh.copy()
    gap.loc[gap.index[4], "score"] = np.nan
    with pytest.raises(DesignError, match=r"^heldout= \(the fresh held-out runs\): column 'score' has 1 missing "
                                          r"value .*na_action=\"drop\""):
        rlstats.selection_check(data, FORMULA, heldout=gap, **options)


def test_selection_conservative_pvalue_matches_an_independent_simulation(atari):
    """SPR vs DrQ, 5 runs, human-normalised: the conservative p-value (the reported mean against the mean of the top
    5 of 26 candidate tasks' effects, N(0, sd^2) each) against 200,000 such tops drawn here (0.99591 with 400,000)."""
    two = atari[atari.agent.isin(["SPR", "DrQ"]) & (atari.seed < 5)]
    res = rlstats.selection_check(two, FORMULA, treatment="SPR", baseline="DrQ", reported=REPORTED, rng=0,
                                  normalize="atari100k_reference", n_candidates=26, sigma="pooled")
    assert res.mean_reported == pytest.approx(0.50579, abs=1e-5) and res.sigma == pytest.approx(0.83017, abs=1e-5)
    draws = np.random.default_rng(0).standard_normal((200_000, 26)) * res.sigma
    top = np.partition(draws, 21, axis=1)[:, 21:].mean(axis=1)
    independent = float(np.mean(top >= res.mean_reported))
    se = np.hypot(np.sqrt(independent * (1 - independent) / draws.shape[0]), res.pvalue_conservative_mc_se)
    assert res.pvalue_conservative == pytest.approx(0.9957, abs=1e-4)
    assert abs(res.pvalue_conservative - independent) < 4 * se
