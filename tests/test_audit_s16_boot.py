"""Audit s16 (boot16), a user porting an rliable analysis of Atari 100k into a paper: the stratified-bootstrap
aggregates, the probability of improvement and the performance profile on the published scores (the mirror,
``rlstats.datasets``), checked against published point estimates and an independent numpy computation written
here, and each printed sentence read against the rows analysed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats

AGENTS = ["DER", "DrQ(eps)", "SPR", "SimPLe"]

# Published aggregates of human-normalised Atari 100k scores over the 26 games (mean, median, IQM, optimality gap
# at 1): Micheli, Alonso & Fleuret (2023), "Transformers are Sample-Efficient World Models" (IRIS), Table 1, which
# computes them with rliable from the files the mirror holds (their "DrQ" is DrQ(eps)); SPR and SimPLe's also in
# Agarwal et al. (2021). Point estimates are deterministic: they must agree to the 3 digits printed there.
PUBLISHED = {"SimPLe": (0.332, 0.134, 0.130, 0.729), "DrQ(eps)": (0.465, 0.313, 0.280, 0.631),
             "SPR": (0.616, 0.396, 0.337, 0.577), "IRIS": (1.046, 0.289, 0.501, 0.512)}


@pytest.fixture
def normalised(atari, published):
    """Human-normalised scores, computed here from the reference table (not through the package's normaliser)."""
    ref = pd.read_csv(published / "atari100k_reference.csv")
    frame = atari.merge(ref, on="task")
    return frame.assign(hns=(frame.score - frame.random) / (frame.human - frame.random))


def _aggregates(matrix):
    """mean, median (of task means), IQM (25% trimmed mean of all runs pooled), optimality gap at 1: numpy only."""
    task_means = matrix.mean(axis=0)
    pooled = np.sort(matrix.ravel())
    cut = len(pooled) // 4
    return (task_means.mean(), np.median(task_means), pooled[cut:len(pooled) - cut].mean(),
            np.mean(1.0 - np.minimum(matrix, 1.0)))


def test_point_estimates_match_the_published_and_a_numpy_computation(atari, normalised):
    agents = list(PUBLISHED)
    res = rlstats.compare(atari[atari.agent.isin(agents)], "score ~ agent | task", method="bootstrap",
                          normalize="atari100k_reference", rng=0, n_resamples=20, progress=False)
    table = res.tidy().set_index(["agent", "metric"])["estimate"]
    for agent in agents:
        rows = normalised[normalised.agent == agent]
        matrix = rows.pivot(index="seed", columns="task", values="hns").to_numpy()
        mine = _aggregates(matrix)
        ours = [table[(agent, m)] for m in ("mean", "median", "iqm", "optimality_gap")]
        np.testing.assert_allclose(ours, mine, rtol=1e-12)
        np.testing.assert_allclose(np.round(ours, 3), PUBLISHED[agent], atol=1e-9)


def test_percentile_intervals_agree_with_a_numpy_stratified_bootstrap(atari, normalised):
    """rliable's interval (percentile, runs resampled within each task) written here with numpy: the package's
    percentile bounds agree within a few Monte Carlo standard errors (IQM and mean of SPR, 100 runs x 26 games)."""
    rows = normalised[normalised.agent == "SPR"]
    matrix = rows.pivot(index="seed", columns="task", values="hns").to_numpy()
    gen = np.random.default_rng(7)
    reps = 2000
    picks = gen.integers(0, matrix.shape[0], size=(reps,) + matrix.shape)
    draws = np.take_along_axis(np.broadcast_to(matrix, picks.shape), picks, axis=1)
    means = draws.mean(axis=(1, 2))
    pooled = np.sort(draws.reshape(reps, -1), axis=1)
    cut = pooled.shape[1] // 4
    iqms = pooled[:, cut:pooled.shape[1] - cut].mean(axis=1)
    res = rlstats.compare(atari[atari.agent == "SPR"], "score ~ agent | task", method="bootstrap",
                          metrics=["mean", "iqm"], interval="percentile", normalize="atari100k_reference",
                          rng=3, n_resamples=2000, progress=False)
    table = res.tidy().set_index("metric")
    for metric, values in (("mean", means), ("iqm", iqms)):
        low, high = np.quantile(values, [0.025, 0.975])
        spread = values.std()  # a bound's MC error with 2000 resamples is about 0.05 sd; allow 0.25 sd each side
        assert abs(table.loc[metric, "conf_low"] - low) < 0.25 * spread
        assert abs(table.loc[metric, "conf_high"] - high) < 0.25 * spread


def _poi_numpy(frame, a, b):
    """P(a > b) + P(a = b) / 2 within each task, averaged over tasks; scores equal up to 1e-12 of the task's
    largest |score| count as ties (the package's documented rule for round-off such as 856.0999999999999)."""
    values = []
    for _, g in frame.groupby("task"):
        x, y = g[g.agent == a].score.to_numpy(), g[g.agent == b].score.to_numpy()
        d = x[:, None] - y[None, :]
        tie = np.abs(d) <= 1e-12 * np.abs(g.score).max()
        values.append(np.mean((d > 0) & ~tie) + 0.5 * np.mean(tie))
    return float(np.mean(values))


def test_probability_of_improvement_numbers(atari):
    frame = atari[atari.agent.isin(AGENTS)]
    res = rlstats.compare(frame, "score ~ agent | task", method="probability_of_improvement", rng=0,
                          progress=False)
    for (a, b), estimate in zip(res.pairs, res.estimates):
        assert estimate == pytest.approx(_poi_numpy(frame, a, b), abs=1e-12)
    assert ("DER", "SPR") in res.pairs  # the pair whose estimate the round-off ties move (0.3064, not 0.3142)


def test_probability_of_improvement_print_says_what_the_estimate_is(atari):
    """print(res) showed agent_1, agent_2, estimate and no word of which direction the estimate reads or how ties
    count, and summary()/to_latex() called it "P(agent_1 > agent_2)", which it is not on these scores: of DER, DrQ(eps),
    SPR and SimPLe over the 26 games 3809 pairs of runs of one game tie exactly (Freeway, Pong, Boxing, ...) and count
    one half, as the prose report says."""
    frame = atari[atari.agent.isin(AGENTS) & atari.task.isin(["Freeway", "Pong", "Boxing"])]
    res = rlstats.compare(frame, "score ~ agent | task", method="probability_of_improvement", rng=0,
                          progress=False)
    # the agents' columns said as every format heads them (audit s27)
    said = "P(1st agent > 2nd agent) + P(1st agent = 2nd agent) / 2"
    assert said in str(res)
    # LaTeX says the agents' columns by their labels, as its header does (audit s25 vocab25)
    assert said in res.summary().__str__() and said.replace(">", "$>$").replace("_", " ") in res.to_latex()
    assert "P(agent_1 > agent_2), averaged" not in res.to_latex()


def test_withheld_median_note_is_true_of_the_runs(atari):
    """Every agent at Pong's cap (21), DER, SPR and SimPLe on Pong, Boxing and Freeway, 5 runs: SPR's Boxing runs
    (human-normalised 1.43 to 5.06) all lie above Pong's 1.18 and its Freeway runs (0 to 1.06) below, so the median
    of task means is Pong's in every resample and its studentized interval is withheld. The note said "in every task
    the runs tie", false of Boxing and Freeway; it now says the runs of the task the median sits on tie."""
    frame = atari[atari.agent.isin(["DER", "SPR", "SimPLe"]) & atari.task.isin(["Pong", "Boxing", "Freeway"])
                  & (atari.seed < 5)].reset_index(drop=True)
    frame.loc[frame.task == "Pong", "score"] = 21.0
    res = rlstats.compare(frame, "score ~ agent | task", method="bootstrap", normalize="atari100k_reference",
                          rng=4, n_resamples=300, progress=False)
    table = res.tidy().set_index(["agent", "metric"])
    assert table.loc[("SPR", "median"), "estimate"] == pytest.approx((21 + 20.7) / (14.6 + 20.7))
    assert np.isnan(table.loc[("SPR", "median"), "conf_low"])
    note, = [n for n in res.notes if n.startswith("studentized intervals withheld for the median of SPR")]
    assert "in every task the runs tie," not in note
    assert "for the median, in the task it sits on in every resample" in note


def test_performance_profile_numbers_and_its_tau_note(atari, normalised):
    """The profile is the fraction of runs strictly above tau, averaged over the 26 games; the note's counts of runs
    outside the tau range are those of the rows analysed (numpy, here)."""
    frame = atari[atari.agent.isin(AGENTS)]
    res = rlstats.compare(frame, "score ~ agent | task", method="performance_profile",
                          normalize="atari100k_reference", rng=0, progress=False)
    rows = normalised[normalised.agent.isin(AGENTS)]
    table = res.tidy()
    for agent in AGENTS:
        mine = rows[rows.agent == agent]
        above = (mine.hns.to_numpy()[:, None] > res.tau[None, :])
        expected = pd.DataFrame(above).groupby(mine.task.to_numpy()).mean().mean(axis=0).to_numpy()
        np.testing.assert_allclose(table[table.agent == agent].estimate.to_numpy(), expected, atol=1e-12)
    low, high = res.tau.min(), res.tau.max()
    below, beyond = int((rows.hns < low).sum()), int((rows.hns > high).sum())
    assert (below, beyond, len(rows)) == (35, 192, 7930)
    note, = [n for n in res.notes if n.startswith("thresholds tau span")]
    assert f"{below} of {len(rows)} runs score below" in note and f"{beyond} of {len(rows)} runs score above" in note
    assert f"the scores span {rows.hns.min():.3g} to {rows.hns.max():.3g}" in note


def test_real_data_metamorphic(atari):
    """Rows shuffled and a polars frame: the same numbers, to the bit (the runs' pooled skewness summed them in row
    order: SimPLe's median bound moved 4e-16); raw scores times 7 or plus 100 (normalize=False): IQM, mean and median estimates and
    bounds times 7 or plus 100, probability of improvement unchanged. It pins no number, so it runs on today's streams
    (review s33: under the former streams it hid them); x 7 moves the studentised IQM's bounds by up to 1.5e-11
    relative there (the resamples' t ratios rounded otherwise), hence 1e-10."""
    polars = pytest.importorskip("polars")
    frame = atari[atari.agent.isin(AGENTS) & atari.task.isin(["Pong", "Boxing", "Freeway", "Alien"])
                  & (atari.seed < 5)].reset_index(drop=True)

    def run(data, method="bootstrap"):
        return rlstats.compare(data, "score ~ agent | task", method=method, rng=4, n_resamples=300,
                               progress=False, **({} if method == "probability_of_improvement" else
                                                  {"normalize": False})).tidy()

    base = run(frame)
    numbers = ["estimate", "conf_low", "conf_high"]
    for other in (frame.sample(frac=1.0, random_state=1), polars.from_pandas(frame)):
        np.testing.assert_array_equal(run(other)[numbers], base[numbers])
    location = base.metric.isin(["iqm", "mean", "median"]).to_numpy()
    scaled, shifted = run(frame.assign(score=frame.score * 7)), run(frame.assign(score=frame.score + 100))
    np.testing.assert_allclose(scaled[numbers][location], 7 * base[numbers][location], rtol=1e-10)
    np.testing.assert_allclose(shifted[numbers][location], 100 + base[numbers][location], rtol=1e-10)
    poi = run(frame, "probability_of_improvement")[numbers]
    np.testing.assert_array_equal(run(frame.assign(score=frame.score * 7 + 100), "probability_of_improvement")[numbers],
                                  poi)


def test_probability_of_improvement_axis_says_ties_count_half(atari):
    """The figure's axis read "P(X > Y), averaged over tasks" for numbers where ties count one half (Freeway and Pong
    scores are small integers or repeat exactly across runs); at 3.5 x 2.6 in the longer label still fits."""
    from conftest import drawn_outside

    frame = atari[atari.agent.isin(AGENTS) & atari.task.isin(["Freeway", "Pong"])]
    res = rlstats.compare(frame, "score ~ agent | task", method="probability_of_improvement", progress=False)
    ax = res.plot(figsize=(3.5, 2.6))
    try:
        assert " ".join(ax.get_xlabel().split()) == "P(X > Y) + P(X = Y) / 2, averaged over tasks"  # wrapped to fit
        assert max(drawn_outside(ax.figure)) < 0.01
    finally:
        import matplotlib.pyplot as plt
        plt.close(ax.figure)
