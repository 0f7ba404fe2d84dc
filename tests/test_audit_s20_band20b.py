"""Audit s20 (band20b): curves' permutation p-values at few relabellings, the per-step gap rule's speed, the step
spread's tie tolerance, and simultaneous bands far beyond the scores."""

import itertools

import numpy as np
import pandas as pd
import pytest

from conftest import load_dataset
import rlstats

SB3_PATTERN = "{agent}/{task}/seed_{seed}"


def _sb3_acrobot(shared_data):
    """The real SB3 EvalCallback logs: PPO and A2C on Acrobot-v1, 3 seeds each, 6 evaluations."""
    df = rlstats.read_logs(shared_data / "logs" / "sb3_classic", SB3_PATTERN, format="sb3_eval", progress=False)
    return df[(df["task"] == "Acrobot-v1") & df["agent"].isin(["PPO", "A2C"])]


def _exact_max_t(scores, first):
    """Max-T p-values over steps by enumerating every relabelling of the 6 runs (the IQM of 3 runs is their mean)."""
    n = scores.shape[0]
    diffs = np.array([scores[list(c)].mean(axis=0) - scores[[r for r in range(n) if r not in c]].mean(axis=0)
                      for c in itertools.combinations(range(n), first)])
    observed = scores[:first].mean(axis=0) - scores[first:].mean(axis=0)
    se = diffs.std(axis=0, ddof=1)
    t_max = (np.abs(diffs) / se).max(axis=1)
    return np.array([(t_max >= abs(o) / s * (1 - 1e-12)).mean() for o, s in zip(observed, se)])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_three_runs_each_p_values_are_exact_enumeration(shared_data, seed):
    # 3 runs v 3 on one task: C(6, 3) = 20 labellings. 2,000 drawn relabellings gave p_adjusted 0.0898 beside the note
    # "smallest attainable p-value is 0.1"; now the 20 are enumerated and the p-values are exact.
    df = _sb3_acrobot(shared_data)
    res = rlstats.curves(df, "`eval/mean_reward` ~ agent | task/seed", step="step", compare=[("PPO", "A2C")],
                         rng=seed, progress=False)
    wide = df.pivot_table(index=["agent", "seed"], columns="step", values="eval/mean_reward")
    scores = np.vstack([wide.loc["PPO"].to_numpy(), wide.loc["A2C"].to_numpy()])
    expected = _exact_max_t(scores, 3)
    np.testing.assert_allclose(res.difference_pvalues[0], expected, rtol=1e-12)
    assert np.nanmin(res.difference_pvalues) >= 0.1
    assert any("are exact: all 20 relabellings" in n for n in res.notes)


def _separated(tasks=2, runs=3, steps=4):
    """Agent A far above agent B at every step of every task (3 runs each): only the observed labelling and its
    mirror reach the largest |difference|."""
    rows = [(a, f"t{t}", s, 1000 * (k + 1), lift + 0.1 * s + 0.01 * k + t)
            for a, lift in (("A", 10.0), ("B", 0.0)) for t in range(tasks) for s in range(runs) for k in range(steps)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_drawn_relabellings_never_fall_below_the_exact_floor():
    # 3 v 3 runs on 2 tasks: 400 labellings, 2 of them extreme (exact floor 0.005). 200 drawn relabellings miss both
    # with chance (1 - 0.005)^200 = 0.37, where (1 + 0) / 201 = 0.004975 fell below the floor.
    df = _separated()
    seen = []
    for seed in range(6):
        res = rlstats.curves(df, "score ~ agent | task/seed", step="step", compare="all", n_resamples=200,
                             rng=seed, progress=False)
        p = res.difference_pvalues[0]
        assert p.min() >= 0.005 and not any("are exact" in n for n in res.notes)
        seen.append(p.min())
    assert 0.005 in seen  # the floor was reached (a draw without the mirror), not only larger p-values


def test_band_excludes_zero_exactly_where_p_is_at_most_alpha_when_enumerated():
    df = _separated(tasks=1, runs=4)  # C(8, 4) = 70 labellings, 2 extreme: p = 2/70 = 0.0286 at every step
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", compare="all", statistic="mean", rng=0,
                         progress=False)
    p, band = res.difference_pvalues[0], res.difference_bands[0]
    np.testing.assert_allclose(p, 2 / 70)
    assert ((band[:, 0] > 0) | (band[:, 1] < 0)).all()
    assert any("are exact: all 70 relabellings" in n for n in res.notes)


def _float32_step(shift=0.0):
    """Two agents x 5 runs x 5 steps; at step 3k every run is 0.05 or float32(0.05) (a residue of 7.45e-10), plus
    ``shift``."""
    rng = np.random.default_rng(0)
    f32 = float(np.float32(0.05))
    rows = [(a, "t0", s, 1000 * (k + 1), shift + ((0.05 if s % 2 else f32) if k == 2 else
                                                  lift + 0.3 * k + 0.2 * rng.normal()))
            for a, lift in (("A", 0.0), ("B", 0.5)) for s in range(5) for k in range(5)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_step_spread_tolerance_is_shift_invariant():
    # 0.05 vs float32(0.05) at a step: a spread of 7.45e-10 by the package's tie rule, at any shift. Before, the
    # tolerance was 1e-12 of the largest |score|: 5e-14 unshifted (bands given), 1e-8 shifted by 1e4 (withheld).
    results = [rlstats.curves(_float32_step(shift), "score ~ agent | task/seed", step="step", statistic="mean",
                              n_resamples=200, rng=0, normalize=False, progress=False) for shift in (0.0, 1e4)]
    for res in results:
        assert np.isfinite(res.pointwise).all() and np.isfinite(res.simultaneous).all()
    (plain, shifted) = results
    width = np.diff(plain.simultaneous, axis=2)[..., 0]
    np.testing.assert_allclose(np.diff(shifted.simultaneous, axis=2)[..., 0], width, rtol=1e-2)


def test_report_says_how_the_relabellings_were_made():
    df = _separated(tasks=1, runs=3)
    enumerated = rlstats.curves(df, "score ~ agent | task/seed", step="step", compare="all", rng=0, progress=False)
    assert enumerated.relabellings == (20,)
    assert "(all 20 relabellings enumerated, so the p-values are exact;" in enumerated.report()
    drawn = rlstats.curves(_separated(), "score ~ agent | task/seed", step="step", compare="all", n_resamples=200,
                           rng=0, progress=False)
    assert drawn.relabellings == (None,) and "(200 relabellings;" in drawn.report()


def _gap_curves(steps=300, rng=0):
    """2 agents x 2 tasks x 3 runs, raw scores rising through gamma = 1 over ``steps`` steps, a few logs missing."""
    rng = np.random.default_rng(rng)
    rows = [(a, f"t{t}", s, 10 * (k + 1), -2 + 4 * k / steps + lift + 0.3 * rng.normal())
            for a, lift in (("A", 0.0), ("B", 0.4)) for t in range(2) for s in range(3) for k in range(steps)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    return df.drop(index=rng.choice(len(df), 40, replace=False))


def test_gap_rule_is_read_at_every_step_without_a_loop_over_steps(monkeypatch):
    # band20's per-step rule called normalization.gap_sides once a grid step: 0.05 s at 400 steps, ~4-12 s at 100k
    from rlstats import normalization
    from rlstats.methods.curves import _api

    calls = []
    real = normalization.gap_sides
    monkeypatch.setattr(_api, "gap_sides", lambda *a, **k: calls.append(1) or real(*a, **k), raising=False)
    res = rlstats.curves(_gap_curves(), "score ~ agent | task/seed", step="step", statistic="optimality_gap",
                         n_resamples=20, rng=0, normalize=False, progress=False)
    assert any("optimality gap" in n and " at steps " in n for n in res.notes)
    assert len(calls) <= 1


@pytest.mark.parametrize("gamma", [1.0, 0.7])
def test_gap_sides_by_step_is_gap_sides_at_each_step(gamma):
    from types import SimpleNamespace

    from rlstats.normalization import gap_sides, gap_sides_by_step

    rng = np.random.default_rng(1)
    design = SimpleNamespace(n_tasks=3, n_agents=2)
    task, agent = np.repeat([0, 1, 2], 6), np.tile([0, 1], 9)
    matrix = (rng.normal(1, 0.8, size=(18, 500)) + np.linspace(-3, 3, 500)
              + rng.choice([0.0, 5.0, -5.0], size=(1, 500), p=[0.8, 0.1, 0.1]))
    matrix[rng.random(matrix.shape) < 0.05] = np.nan
    matrix[:, 7] = np.nan  # a step without a score
    matrix[task == 2, 9] = np.nan  # a task without one
    above, below, decided = gap_sides_by_step(design, gamma, matrix, task, agent)
    for s in range(matrix.shape[1]):
        sides = gap_sides(design, gamma, matrix[:, s], task, agent)
        assert decided[s] == (sides is not None)
        if sides is not None:
            assert (above[s] == sides[0]).all() and (below[s] == sides[1]).all()
    assert 20 < decided.sum() < 480 and not decided[7]


def test_gap_notes_are_those_of_the_loop_over_steps():
    # the notes of the per-step loop (band20's), recorded on these data before vectorising
    res = rlstats.curves(_gap_curves(), "score ~ agent | task/seed", step="step", statistic="optimality_gap",
                         n_resamples=20, rng=0, normalize=False, progress=False)
    gap = [n for n in res.notes if n.startswith("the optimality gap is the mean shortfall")]
    assert len(gap) == 2
    assert "every score is at or below it, so the gap is gamma minus each agent's mean at steps" in gap[0]
    assert "every score is at or above it, so the gap is 0 for every agent at steps" in gap[1]
    # session 28 curvenotes28: the steps left counted, not the stretches ("and 4 more" of 1.68k-1.71k, 1.73k, 1.82k,
    # 1.85k, every stretch listed: 7 steps at the grid's 10)
    assert "at steps 10-1.45k, 1.47k-1.52k, 1.54k, 1.56k-1.59k, 1.62k, 1.65k and 7 more steps" in gap[0]
    # "and 3 more" of 2.63k-2.66k, 2.68k-2.84k and 2.86k-3k: 36 steps
    assert "at steps 2.42k, 2.48k-2.49k, 2.51k, 2.53k-2.55k, 2.57k, 2.59k-2.6k and 36 more steps" in gap[1]


def _dopamine_three_runs():
    """Dopamine's DQN, IQN and Rainbow on Pong, Breakout and Seaquest, their first 3 runs, raw scores (-20.7 to
    32,458), 199 iterations."""
    d = load_dataset("dopamine_atari")
    return d[d["agent"].isin(["DQN", "IQN", "Rainbow"]) & d["task"].isin(["Pong", "Breakout", "Seaquest"])
             & (d["seed"] < sorted(d["seed"].unique())[3])]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_bands_far_beyond_the_scores_are_withheld(mirror, monkeypatch):
    # at 3 runs of 3 tasks the effective df is ~2, whose t quantiles over 199 steps gave Rainbow a simultaneous band
    # of +-7.36M (226 times the scores' range of 32,479) and IQN +-1.3M: a figure of flat lines at 0 on a 1e6 axis.
    # Since audit s32 (simband32) the sup-t band's t quantile is read at most at the Bonferroni tail: the bands reach
    # 3.8 (IQN) and 2.9 (Rainbow) times the scores' range, none withheld (IQN's at 191 steps and Rainbow's at 149
    # were, up to 82 times it)
    from rlstats.methods.curves import _api as curves_api

    df = _dopamine_three_runs()
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=500, rng=0, progress=False,
                         normalize=False)
    span = df["score"].max() - df["score"].min()
    half = np.abs(res.simultaneous - res.estimates[..., None]).max(axis=2)
    # 0.51, 2.95 and 2.49 times the range (DQN, IQN, Rainbow; 0.55, 3.79 and 2.89 before audit s33 curvestream33
    # drew each task's runs from its own stream); the bounds leave room for other draws (audit s32 curves32's
    # label-keyed streams)
    assert (half.max(axis=1) / span < [1.0, 5.0, 5.0]).all() and half.max() / span > 2.0
    assert np.isfinite(res.simultaneous).all() and not any("times the range of all the scores" in n for n in res.notes)
    # the rule itself: bands reaching UNITS_SLIP times the range are withheld, with the note
    monkeypatch.setattr(curves_api, "UNITS_SLIP", 2.0)  # 3.0 before audit s33 curvestream33's draws
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=500, rng=0, progress=False,
                         normalize=False)
    for band in (res.pointwise, res.simultaneous):
        half = np.abs(band - res.estimates[..., None]).max(axis=2)
        assert not (half >= 2 * span).any()
    (note,) = [n for n in res.notes if "more than 2 times the range of all the scores analysed" in n]
    assert "simultaneous bands of the curves are withheld for IQN at" in note
    assert "put no useful bound on the curves; their t quantiles are taken at 2" in note
    assert np.isfinite(res.simultaneous[res.agents.index("DQN")]).all()


def test_task_table_drawn_splits_never_fall_below_the_exact_floor():
    # 9 runs v 9: C(18, 9) = 48,620 splits, more than EXACT_SPLITS (20,000), so n_resamples = 60,000 are drawn; the
    # best agent above every run of the other gave (1 + 0) / 60,001 = 1.67e-5, below the exact test's least, 2.06e-5
    rows = [("A", "t0", s, 100.0 + s) for s in range(9)] + [("B", "t0", s, float(s)) for s in range(9)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res = rlstats.task_table(df, "score ~ agent | task", test="fisher_pitman", n_resamples=60_000, rng=0,
                             progress=False)
    assert np.nanmin(res.p_values) == pytest.approx(1 / 48_620, rel=1e-12)
