"""Audit s20 (ties20): the near-tie tolerance of the rank methods is invariant to the score's units.

``statistics.near_ties`` joined scores of a task closer than 1e-12 times the task's largest |score|; a shift of the
task's scores moves that scale, so a constant added to one task (or an affine normalisation) changed which pairs tie
and so every rank statistic (Atari 100k, Boxing + 1e4: the rank test's statistic moved by 7e-6 of itself).
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.statistics import near_ties

def _shifted(df, task, b, a=1.0):
    out = df.copy()
    rows = out["task"] == task
    out.loc[rows, "score"] = a * out.loc[rows, "score"] + b
    return out


def test_rank_test_on_atari_boxing_unchanged_by_a_shift_of_the_task(atari):
    """Boxing and Pong of Atari 100k, Boxing's scores + 1e4: OTRainbow's 0.05 and another agent's float32 0.05
    (7.5e-10 apart) became a tie (1e-12 x 1e4 = 1e-8), the statistic moved from 520.68088 to 520.68456 and two mean
    ranks by 3.6e-5; the same ranks must give the same statistic to rounding."""
    data = atari[atari["task"].isin(["Boxing", "Pong"])]
    before = rlstats.skillings_mack(data, "score ~ agent | task")
    for b in (1e4, -1e4):
        after = rlstats.skillings_mack(_shifted(data, "Boxing", b), "score ~ agent | task")
        assert after.statistic == pytest.approx(before.statistic, rel=1e-12)
        np.testing.assert_allclose(np.asarray(after.mean_ranks), np.asarray(before.mean_ranks), rtol=1e-12)


def test_near_ties_of_a_float32_residue_unchanged_by_shift():
    """0.05 and float32(0.05) = 0.05000000074505806 differ by 7.5e-10: not a tie beside 3.0 (tolerance 3e-12), and
    not after the shift by 1e4 either (their range, 2.95, is unchanged); 0.1 + 0.2 and 0.3 (1 ulp) tie either way."""
    y = np.array([0.05, float(np.float32(0.05)), 3.0, 0.1 + 0.2, 0.3])
    block = np.zeros(5, dtype=np.intp)
    for b in (0.0, 1e4, -1e4):
        snapped, _ = near_ties(y + b, block)
        assert snapped[0] != snapped[1]
        assert snapped[3] == snapped[4]


def test_human_normalised_atari_ranks_unchanged(atari, published):
    """Human-normalised scores, (x - random) / (human - random) per game, rank as the raw scores do: the same
    mean ranks and statistic of the rank test, to rounding, on all 26 games (each task's map is affine, a > 0)."""
    reference = pd.read_csv(published / "atari100k_reference.csv").set_index("task")
    random, human = (atari["task"].map(reference[c]).to_numpy() for c in ("random", "human"))
    normalised = atari.assign(score=(atari["score"].to_numpy() - random) / (human - random))
    raw = rlstats.skillings_mack(atari, "score ~ agent | task")
    scaled = rlstats.skillings_mack(normalised, "score ~ agent | task")
    assert scaled.statistic == pytest.approx(raw.statistic, rel=1e-12)
    np.testing.assert_allclose(np.asarray(scaled.mean_ranks), np.asarray(raw.mean_ranks), rtol=1e-12)


# ------------------------------------------------------------------ metamorphic: per-task affine maps of the scores

SLOPES, SHIFTS = (1e-3, 7.0, 1e4), (0.0, -1e4, 123.456)
MAPS = [(a, b) for a in SLOPES for b in SHIFTS]


def _tied_runs():
    """4 agents x 4 tasks x 4 runs at two decimals in (0, 200): C repeats A's runs (exact ties: its own on even seeds,
    another seed's on odd ones), B holds A's runs (permuted) stored as float32 (residues of about 1e-6, real
    differences of the scores given, not rounding: kept apart), and D one ulp above A (rounding noise: ties).
    The residues stay resolvable under every map of MAPS (a = 1e-3 makes them 1e-9, a thousand ulps of 1e4; at two
    decimals in (0, 2) they were 1e-12 there, below the map's own rounding, which then decided A against B)."""
    rng = np.random.default_rng(3)
    rows = []
    for t in range(4):
        base = np.round(rng.uniform(0, 200, size=4), 2)
        for s in range(4):
            a = base[s]
            rows += [(f"t{t}", "A", s, a), (f"t{t}", "B", s, float(np.float32(base[(s + 1) % 4]))),
                     (f"t{t}", "C", s, base[(s + 2) % 4] if s % 2 else a), (f"t{t}", "D", s, np.nextafter(a, 9.0))]
    return pd.DataFrame(rows, columns=["task", "agent", "seed", "score"])


def _mapped(df, first):
    """Task t's scores through MAPS[(first + t) % 9], a * y + b."""
    codes = df["task"].str[1:].astype(int).to_numpy()
    a = np.array([MAPS[(first + t) % len(MAPS)][0] for t in codes])
    b = np.array([MAPS[(first + t) % len(MAPS)][1] for t in codes])
    return df.assign(score=a * df["score"].to_numpy() + b)


def _rank_outputs(df):
    """The statistics of each rank-reading back end that a per-task affine map must leave as they are."""
    sm = rlstats.skillings_mack(df, "score ~ agent | task")
    pct = rlstats.percentiles(df, "score ~ agent | task", rng=1).tidy()
    table = rlstats.task_table(df, "score ~ agent | task").tidy()
    poi = rlstats.probability_of_improvement(df, "score ~ agent | task").tidy()
    return {"skillings_mack": [sm.statistic, sm.pvalue, *np.asarray(sm.mean_ranks),
                               *sm.comparisons["p_value"].to_numpy()],
            "percentiles": pct[["estimate", "conf_low", "conf_high", "rank", "rank_best", "rank_worst"]].to_numpy(),
            "task_table": table[["a12", "a12_low", "a12_high", "cliffs_delta"]].to_numpy(dtype=float),
            "probability_of_improvement": poi[["estimate", "conf_low", "conf_high"]].to_numpy()}


def _assert_same(got, expected):
    for name in expected:
        np.testing.assert_allclose(np.asarray(got[name], dtype=float), np.asarray(expected[name], dtype=float),
                                   rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=name)


def test_tied_runs_are_what_the_rank_methods_see():
    """The data's ties as :func:`near_ties` reads them: D joins A on every run (1 ulp) and so C, whose every run is
    one of A's (exact ties already), B's float32 residues stay apart: 4 A-D and 4 C-D pairs joined per task, and
    B-D where float32 holds A's run exactly (160.25, 78.25, 191.25)."""
    df = _tied_runs()
    codes = df["task"].str[1:].astype(int).to_numpy()
    snapped, joined = near_ties(df["score"].to_numpy(), codes)
    assert joined == 4 * (4 + 4) + 3
    by = df.assign(snapped=snapped).pivot_table(index=["task", "seed"], columns="agent", values="snapped")
    assert (by["A"] == by["D"]).all() and np.isin(by["B"], by["A"]).sum() == 3
    a = df.query("agent == 'A'")["score"].to_numpy()
    residues = np.abs(a.astype(np.float32).astype(float) - a)
    assert residues[residues > 0].min() > 5e-8  # x 1e-3: over 5 times 4 eps x 1e4, resolvable after a = 1e-3, b = -1e4


@pytest.mark.parametrize("first", [1, 7])
def test_rank_methods_unchanged_by_per_task_affine_maps(first):
    """Each task through its own a * y + b (a in 1e-3, 7, 1e4; b in 0, -1e4, 123.456): the rank test's statistic,
    p-values and mean ranks, the percentiles, the task table's A12 and the probability of improvement are those
    of the scores given, to rounding (two of the nine map assignments here; all nine in the slow test)."""
    _assert_same(_rank_outputs(_mapped(_tied_runs(), first)), _rank_outputs(_tied_runs()))


@pytest.mark.slow
@pytest.mark.parametrize("first", range(len(MAPS)))
def test_rank_methods_unchanged_by_every_per_task_affine_map(first):
    _assert_same(_rank_outputs(_mapped(_tied_runs(), first)), _rank_outputs(_tied_runs()))


def _bayes_outputs(df):
    res = rlstats.bayes(df, "score ~ agent | task", rng=1, n_samples=2000, progress=False)
    return res.tidy()[["p_better", "p_rope", "p_worse"]].to_numpy(), res.orderings


@pytest.mark.parametrize("a, b", [(7.0, -1e4), (1e-3, 123.456), (1e4, 0.0)])
def test_bayes_orderings_and_probabilities_unchanged_by_an_affine_map(a, b):
    """The signed-rank model averages over tasks, so one map for every task: a * y + b leaves P(better), P(rope),
    P(worse) and the orderings (which tie A = C, A = D) as they were."""
    df = _tied_runs()
    probabilities, orderings = _bayes_outputs(df)
    mapped_p, mapped_orderings = _bayes_outputs(df.assign(score=a * df["score"] + b))
    np.testing.assert_array_equal(mapped_p, probabilities)
    pd.testing.assert_frame_equal(mapped_orderings, orderings)


def test_task_table_best_unchanged_by_a_shift():
    """B's runs are A's stored as float32: its mean is 2.5e-10 above A's, B alone best.  Shifted by 1e4 both were
    bold (best_of's tolerance, 1e-12 of the larger |mean|, had grown to 1e-8); the best is the same now."""
    df = pd.DataFrame({"agent": ["A"] * 3 + ["B"] * 3, "task": "t",
                       "score": [0.05, 1.0, 2.0, float(np.float32(0.05)), 1.0, 2.0]})
    for b in (0.0, 1e4, -1e4):
        res = rlstats.task_table(df.assign(score=df["score"] + b), "score ~ agent | task")
        assert res.tidy()["best"].tolist() == [False, True]


@pytest.mark.parametrize("first", [1, 8])
def test_percentiles_per_task_ranks_unchanged_by_per_task_affine_maps(first):
    """B's task means are A's but for float32 residues (58.304999 against 58.305 on t1: B ranked 4th, A, C, D tied
    1st); with the task shifted by -1e4 the tie tolerance, 1e-10 of the largest |bound|, grew to 1e-6 and B tied
    1st.  The per-task ranks and their ranges must not depend on the map."""
    cols = ["rank", "rank_best", "rank_worst"]
    base = rlstats.percentiles(_tied_runs(), "score ~ agent | task", rng=1).per_task
    mapped = rlstats.percentiles(_mapped(_tied_runs(), first), "score ~ agent | task", rng=1).per_task
    assert base.loc[base["task"] == "t1", "rank"].tolist() == [1, 4, 1, 1]
    np.testing.assert_array_equal(mapped[cols].to_numpy(), base[cols].to_numpy())


def test_tolerance_is_the_range_plus_the_rounding_of_the_largest_score():
    """The rule's edges: 0.1 + 0.2 and 0.3 alone (range 1 ulp: only the 4-eps term can tie them) tie, after any map
    of MAPS too; 0 and -7e-15 alone (no scale beside them) do not, nor 1 and 1 - 7e-15 (63 ulps); scores near
    1000 with range 2 tie below 2e-12 + 4 eps x 1001 (2.9e-12), not at 1e-9 of 1001 as before; NaN joins nothing
    and sets no range."""
    from rlstats.statistics import block_tolerances

    pair = np.array([0.1 + 0.2, 0.3])
    for a, b in [(1.0, 0.0)] + MAPS:
        snapped, _ = near_ties(a * pair + b, [0, 0])
        assert snapped[0] == snapped[1]
    assert near_ties([0.0, -7e-15], [0, 0])[1] == near_ties([1.0, 1.0 - 7e-15], [0, 0])[1] == 0
    eps = np.finfo(float).eps
    assert block_tolerances([999.0, 1001.0, np.nan], [0, 0, 0]).tolist() == [2e-12 + 4 * eps * 1001.0]
    snapped, joined = near_ties([999.0, 1001.0, 1001.0 - 2e-13, 1001.0 - 5e-12, np.nan], [0] * 5)
    assert joined == 1 and snapped[1] == snapped[2] != snapped[3] and np.isnan(snapped[4])
