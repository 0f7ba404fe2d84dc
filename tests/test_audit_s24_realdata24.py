"""Audit s24 (realdata24): the mixed model and the performance percentiles on the published scores, at the designs
users have (3 and 5 runs a cell, 2-8 agents, 1-26 tasks, subsets made with pandas, one agent missing a task, one
cell with a single run), each printed sentence and figure read against the rows analysed. Reference numbers from R
(lme4 1.1-31, lmerTest 3.1-3, pbkrtest 0.5-2, emmeans 1.8.4-1) come from ``tests/reference/mixed_realdata24_r.R``.
Tests reading the published scores skip with the reason when neither ../shared/data nor the mirror is here."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

import rlstats
from conftest import drawn_outside
from rlstats.tables import read_csv

REFERENCE = "atari100k_reference"
FORMULA = "score ~ agent | task/seed"
R = json.loads((Path(__file__).parent / "reference" / "mixed_realdata24_r.json").read_text())["designs"]


@pytest.fixture
def mujoco(published):
    """The AdaStop MuJoCo scores (4 agents, 5 tasks, 5 to 30 runs a cell)."""
    return read_csv(published / "mujoco_batches.csv")


def _atari_three_runs(atari, agents, tasks):
    """Human-normalised Atari 100k scores of ``agents`` on ``tasks``, the first 3 runs of each cell (df.query)."""
    normalised = rlstats.normalize(atari, REFERENCE)
    return normalised.query("seed < 3 and agent in @agents and task in @tasks")


# ----------------------------------------------------------------------------- figures on the caller's paper axes

def test_mixed_contrasts_fit_a_callers_column_wide_axes(atari, mirror):
    """On a caller's 3.3 x 2.5 in figure (constrained layout) the x label (units and interval family) and the title ran
    0.43 in past the right edge, cut whatever layout the caller ran; now broken at words (as the plot's own figure
    breaks them under figsize=), nothing drawn outside, and the words all there."""
    data = _atari_three_runs(atari, ["CURL", "DER", "DrQ", "SPR"],
                             ["Pong", "Breakout", "Boxing", "Freeway", "Seaquest", "Kangaroo"])
    res = rlstats.mixed(data, FORMULA)
    figure, ax = plt.subplots(figsize=(3.3, 2.5), layout="constrained")
    res.plot(ax=ax)
    assert max(drawn_outside(figure)) < 0.01
    assert ax.get_xlabel().replace("\n", " ") == ("difference of estimated marginal means, normalised scores (95% Tukey "
                                                  "intervals; circled: adjusted p below the level)")
    assert ax.get_title().replace("\n", " ") == "linear mixed model (REML), Satterthwaite df"


@pytest.mark.filterwarnings("ignore:with n_resamples")  # few resamples: only the figure's title is read
@pytest.mark.parametrize("interval", ["pbp", "bootstrap"])
def test_percentiles_aggregate_fits_a_callers_column_wide_axes(mujoco, interval):
    """The aggregate figure's title ran 0.33 in past the left edge and 0.78 in past the right one of a caller's 3.3 in
    figure (0.51 and 0.96 with bootstrap intervals); now broken at words."""
    res = rlstats.percentiles(mujoco.query("seed < 3"), "score ~ agent | task", interval=interval, rng=0,
                              n_resamples=400)
    figure, ax = plt.subplots(figsize=(3.3, 2.5), layout="constrained")
    res.plot(ax=ax)
    assert max(drawn_outside(figure)) < 0.01
    assert "\n" in ax.get_title() and ax.get_title().replace("\n", " ") == (
        f"Aggregate performance percentile, 95% simultaneous {'PBP' if interval == 'pbp' else 'bootstrap'} intervals")


# ----------------------------------------------------------------------------- notes true of the rows analysed

def test_task_with_one_agent_is_said_kept_out_of_the_analysis_with_its_runs(atari, mirror):
    """Freeway, run by SPR alone, was said "kept out of the test" by the mixed model and the percentiles, which
    estimate, and without its 3 runs, so the 27 runs analysed did not add up to the 30 given."""
    data = _atari_three_runs(atari, ["DER", "DrQ", "SPR"], ["Pong", "Boxing", "Breakout", "Freeway"])
    data = data[(data.task != "Freeway") | (data.agent == "SPR")]
    said = "1 task (3 runs) kept out of the analysis because fewer than two agents have runs there: Freeway"
    mixed = rlstats.mixed(data, FORMULA)
    percentiles = rlstats.percentiles(data, "score ~ agent | task")
    for res in (mixed, percentiles):
        assert said in res.notes and not any("of the test" in note for note in res.notes)
        assert res.nobs == 27 and res.tasks == ("Boxing", "Breakout", "Pong")


def test_singular_task_variance_is_said_against_the_components_left(atari, mirror):
    """A singular fit, the task SD at 0 beside a task:agent SD of 1.08 (residual 0.44), as lme4 finds it, said the
    data show no spread of task effects "beyond the run-to-run noise"; the task means spread as much as the cells'
    effects and the noise make them, which the note now says."""
    data = _atari_three_runs(atari, ["DER", "DrQ", "SPR"], ["Pong", "Boxing", "Breakout"])
    res = rlstats.mixed(data, FORMULA)
    r = R["singular"]["tight"]  # lme4 at its REML optimum: task:agent, task, residual SDs; isSingular TRUE
    np.testing.assert_allclose(res.variance_sd, np.array(r["vc_sd"])[[1, 0, 2]], rtol=1e-7, atol=1e-7)
    assert res.singular and r["singular"]
    note, = (n for n in res.notes if n.startswith("singular fit"))
    assert "no spread of task effects beyond what the random task:agent intercepts and the run-to-run noise give; " \
        "the estimates stand" in note


def test_means_coverage_note_stays_on_an_unbalanced_design(atari, mirror):
    """4 agents x 3 games x 3 runs quote the measured coverage of the agents' mean intervals (0.920 pooled, 0.906 in
    the worst draw, at the nearest design measured, 2 agents x 3 tasks x 3 runs); with DER's Boxing cell cut to one
    run the note was gone (balanced designs only). It now stays, saying the cells hold 1 to 3 runs."""
    tasks = ["Pong", "Boxing", "Breakout"]
    data = _atari_three_runs(atari, ["DER", "SPR", "IRIS", "SimPLe"], tasks)
    one_run = data[(data.agent != "DER") | (data.task != "Boxing") | (data.seed == 0)]
    balanced, unbalanced = (rlstats.mixed(d, FORMULA) for d in (data, one_run))
    quoted = [n for n in balanced.notes if n.startswith("measured coverage of the 95% intervals of the agents'")]
    assert len(quoted) == 1 and "0.920, 0.906 in the worst" in quoted[0]
    again = [n for n in unbalanced.notes if n.startswith("measured coverage of the 95% intervals of the agents'")]
    assert len(again) == 1 and "0.920, 0.906 in the worst" in again[0]
    assert "at 2 agents, 3 tasks and 3 runs per cell (the nearest balanced design measured; cells here hold 1 to 3 " \
        "runs): 0.920, 0.906 in the worst" in again[0]


def test_means_coverage_note_of_an_unbalanced_design_reads_its_runs_range(atari, mirror):
    """8 agents x 3 games at 5 runs miss (0.9125 pooled, capped scores); one cell cut to 3 runs was silent, and read
    at its fewest runs alone it would stay silent (the 3-run rows hold): the shortfall grows with runs here, so the
    rows from the fewest to the most runs are read and the worst quoted."""
    agents = ["DER", "DrQ", "DrQ(eps)", "IRIS", "OTRainbow", "PlayVirtual", "SPR", "SimPLe"]
    data = rlstats.normalize(atari, REFERENCE)
    data = data[(data.seed < 5) & data.agent.isin(agents) & data.task.isin(["Pong", "Boxing", "Breakout"])]
    cut = data[(data.agent != "SPR") | (data.task != "Pong") | (data.seed < 3)]
    for frame, held in ((data, ""), (cut, " (the nearest balanced design measured; cells here hold 3 to 5 runs)")):
        res = rlstats.mixed(frame, FORMULA)
        quoted = [n for n in res.notes if n.startswith("measured coverage of the 95% intervals of the agents'")]
        assert len(quoted) == 1
        assert quoted[0].count("at 8 agents, 3 tasks and 5 runs per cell" + held + ": 0.912, 0.881 in the worst") == 1


def test_one_indirect_pair_is_said_as_one(atari, mirror):
    """DER on three games, SPR on three others, DrQ on all six: the one pair never on a common task was said as
    several ("1 pair of agents ...: their contrasts are indirect ... they stay in")."""
    data = rlstats.normalize(atari, REFERENCE).query("seed < 3")
    first, second = ["Pong", "Boxing", "Breakout"], ["Freeway", "Seaquest", "Kangaroo"]
    data = data[((data.agent == "DER") & data.task.isin(first)) | ((data.agent == "SPR") & data.task.isin(second))
                | ((data.agent == "DrQ") & data.task.isin(first + second))]
    res = rlstats.mixed(data, FORMULA)
    note, = (n for n in res.notes if "never ran on a common task" in n)
    assert note.startswith("1 pair of agents never ran on a common task (DER-SPR): its contrast is indirect")
    assert "tidy() gives it 0 shared tasks, and it stays in Tukey's family of all 3 pairs" in note
    assert res.comparisons.n_shared_tasks.tolist() == [3, 0, 3]


# ----------------------------------------------------------------------------- checked and fine: the numbers

def _unbalanced(atari):
    """CURL without Pong, DER's Boxing cell with one run: the design of mixed_realdata24_r.R's "unbalanced"."""
    data = _atari_three_runs(atari, ["CURL", "DER", "DrQ", "SPR"],
                             ["Pong", "Breakout", "Boxing", "Freeway", "Seaquest", "Kangaroo"])
    data = data[(data.agent != "CURL") | (data.task != "Pong")]
    return data[(data.agent != "DER") | (data.task != "Boxing") | (data.seed == 0)]


@pytest.mark.parametrize("design", ["singular", "unbalanced"])
@pytest.mark.parametrize("ddf", ["satterthwaite", "kenward-roger"])
def test_real_fits_equal_lme4_lmertest_pbkrtest_and_emmeans(atari, mirror, design, ddf):
    """Variance components, every pair's estimate, SE, df, Tukey p and simultaneous interval, and the omnibus F, as R
    gives them at the REML optimum (tests/reference/mixed_realdata24_r.R)."""
    data = _unbalanced(atari) if design == "unbalanced" else \
        _atari_three_runs(atari, ["DER", "DrQ", "SPR"], ["Pong", "Boxing", "Breakout"])
    r = R[design]["tight"]
    res = rlstats.mixed(data, FORMULA, ddf=ddf, f_basis="lmertest")  # lmerTest's F df (audit s33 mixed33)
    assert res.nobs == R[design]["nobs"] == (67 if design == "unbalanced" else 27)
    np.testing.assert_allclose(res.variance_sd, np.array(r["vc_sd"])[[1, 0, 2]], rtol=1e-6, atol=1e-7)
    pairs = res.comparisons
    assert [f"{a} - {b}" for a, b in zip(pairs.agent_1, pairs.agent_2)] == r[ddf]["contrast"]
    for column, key in [("estimate", "estimate"), ("std_error", "std_error"), ("df", "df"), ("p_adjusted", "p_tukey"),
                        ("conf_low", "conf_low"), ("conf_high", "conf_high")]:
        np.testing.assert_allclose(pairs[column], r[ddf][key], rtol=1e-5, err_msg=column)
    np.testing.assert_allclose([res.statistic, res.den_df], [r[ddf]["f"], r[ddf]["den_df"]], rtol=1e-5)


def test_mixed_is_the_same_in_other_units_row_orders_and_polars(atari, mirror):
    """Scores x 1000, + 1e4, shuffled rows and a polars frame: the same df, t, p and notes; estimates in the units."""
    polars = pytest.importorskip("polars")
    data = _unbalanced(atari)
    base = rlstats.mixed(data, FORMULA)
    for moved, scale, shift in [(data.assign(score=data.score * 1000), 1000.0, 0.0),
                                (data.assign(score=data.score + 1e4), 1.0, 1e4),
                                (data.sample(frac=1.0, random_state=3), 1.0, 0.0),
                                (polars.from_pandas(data), 1.0, 0.0)]:
        res = rlstats.mixed(moved, FORMULA)
        np.testing.assert_allclose(res.comparisons.estimate / scale, base.comparisons.estimate, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose((res.emmeans.estimate - shift) / scale, base.emmeans.estimate, atol=1e-9)
        for column in ("df", "statistic", "p_adjusted"):
            np.testing.assert_allclose(res.comparisons[column], base.comparisons[column], rtol=1e-8)
        # the design's own notes (CURL's missing task) are the same; the lines about how the frame was made are
        # the frame's (a polars frame says its conversion)
        assert [n for n in res.notes if n.startswith("CURL")] == [n for n in base.notes if n.startswith("CURL")]
        # and the unbalanced calibration rows' note (audit s35 mixed35), the same in any units and order
        quoted = [n for n in res.notes if n.startswith("measured on unbalanced designs")]
        assert len(quoted) == 1 and quoted == [n for n in base.notes if n.startswith("measured on unbalanced designs")]
        assert len(res.notes) == 3


# ----------------------------------------------------------------------------- percentiles at few runs

def _atari_five_agents(atari, runs):
    """IRIS, SimPLe, SPR, DER and DrQ(eps), the first ``runs`` runs of each cell, IRIS without Pong and DER's Boxing
    cell with one run: an agent missing a task and a single-run cell."""
    data = atari.query("seed < @runs and agent in ['IRIS', 'SimPLe', 'SPR', 'DER', 'DrQ(eps)']")
    data = data[(data.agent != "IRIS") | (data.task != "Pong")]
    return data[(data.agent != "DER") | (data.task != "Boxing") | (data.seed == 0)]


def test_percentiles_print_delta_one_way(atari):
    """delta' = 0.05 / (5 agents x 25 tasks) was printed '4e-04' in the header and the per-task table and '0.0004'
    in the DKW note: one formatter now (rlstats.format.signif). The rest of the print checked against the rows: Pong
    left out with its 20 runs, every interval's rank range 1 to 5 at a single-run cell."""
    res = rlstats.percentiles(_atari_five_agents(atari, 5), "score ~ agent | task", na_action="drop")
    assert res.n_tasks == 25 and res.nobs == 5 * 5 * 25 - 4 and res.delta_cell == pytest.approx(4e-4)
    assert res.notes[0] == ('1 task left out because some agent has no runs there (na_action="drop"; 20 runs '
                            'dropped): Pong')
    assert list(res.rank_best) == [1] * 5 and list(res.rank_worst) == [5] * 5
    assert "95% simultaneous intervals (PBP, delta' = 4e-04 per cell):" in str(res)
    band, = (n for n in res.notes if "DKW band" in n)
    assert band.startswith("with 1 run in the smallest cell (Boxing/DER) the DKW band at delta' = 4e-04 is all of "
                           "[0, 1] (its half-width would be more than 1)")


# ----------------------------------------------------------------------------- checked and fine: percentiles

@pytest.mark.parametrize("runs", [3, 5])
def test_percentiles_on_mujoco_equal_a_naive_game_and_do_not_move(mujoco, runs):
    """MuJoCo at 3 and 5 runs with SAC's hopper cell cut to one run: the payoffs and aggregates equal the entry-by-entry
    game of tests/test_percentiles.py (to 2e-15); scores x 1000, + 1e4, shuffled rows and a polars frame give the same
    intervals and rank ranges bit for bit; the DKW note's half-width is sqrt(log(2 / delta') / (2 n)) at the smallest
    cell (1 run: all of [0, 1])."""
    from test_percentiles import naive_payoffs, naive_solution

    data = mujoco.query("seed < @runs")
    data = data[(data.agent != "SAC") | (data.task != "hopper") | (data.seed == 0)]
    res = rlstats.percentiles(data, "score ~ agent | task")
    cells = [[data[(data.agent == a) & (data.task == t)].score.to_numpy() for t in res.tasks] for a in res.agents]
    payoff = naive_payoffs(cells)
    _, aggregate = naive_solution(payoff)
    np.testing.assert_array_equal(res.payoff, payoff)
    np.testing.assert_allclose(res.estimate, aggregate, rtol=0, atol=1e-14)
    assert res.estimate.round(4).tolist() == ([0.0628, 0.2175, 0.4828, 0.0632] if runs == 3 else
                                              [0.093, 0.2725, 0.4539, 0.1136])
    band, = (n for n in res.notes if "DKW band" in n)
    assert band.startswith("with 1 run in the smallest cell (hopper/SAC) the DKW band at delta' = 0.0025 is all of")
    polars = pytest.importorskip("polars")
    for moved in (data.assign(score=data.score * 1000), data.assign(score=data.score + 1e4),
                  data.sample(frac=1.0, random_state=1), polars.from_pandas(data)):
        other = rlstats.percentiles(moved, "score ~ agent | task")
        for field in ("estimate", "conf_low", "conf_high", "rank_best", "rank_worst"):
            np.testing.assert_array_equal(getattr(other, field), getattr(res, field))
    full = rlstats.percentiles(mujoco.query("seed < @runs"), "score ~ agent | task")
    band, = (n for n in full.notes if "DKW band" in n)
    half = np.sqrt(np.log(2 / 0.0025) / (2 * runs))
    assert (half > 1) == (runs == 3) and band.startswith(
        f"with {runs} runs in the smallest cell the DKW band " +
        ("at delta' = 0.0025 is all of [0, 1]" if runs == 3 else f"half-width at delta' = 0.0025 is {half:.2f}"))
