"""Audit s20 (ties20b): the tie tolerances left relative to the largest |score| by ties20, made shift-invariant.

ties20 moved the rank methods to ``statistics.tie_tolerance`` (1e-12 of the range plus 4 eps of the largest
|score|). AdaStop's path statistics, tuning's bootstrap-mean ties and flat/tied checks, ``noise_free`` (the mixed
model's estimates) and task_table's Fisher-Pitman slack still tied values within 1e-12 of the largest |score|: a
shift by 1e4 makes that 1e-8 and joins 0.05 and float32's 0.0500000007 (7.5e-10 apart, 400 ulps of 1e4), which
the range-relative rule keeps apart at any shift.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.statistics import noise_free

F32 = float(np.float32(0.05))  # 0.05000000074505806: a float32 residue, 7.5e-10 above 0.05
SHIFTS = (0.0, 1e4, -1e4)
pytestmark = pytest.mark.filterwarnings("ignore")


def _sweep(values, agent="ppo", task="ant"):
    return pd.DataFrame([(agent, task, c, s, float(v)) for c, runs in enumerate(values) for s, v in enumerate(runs)],
                        columns=["agent", "task", "lr", "seed", "score"])


def _tuning(df, b, **options):
    return rlstats.tuning(df.assign(score=df["score"] + b), "score ~ agent | task/seed", config="lr",
                          n_resamples=200, rng=0, **options)


def test_tuning_probability_best_unchanged_by_a_shift():
    """Configurations of runs all 0.05 and all float32(0.05): the second has the larger mean in every resample
    (probability of best 0.015 to the first's 0 beside a varying third); shifted by 1e4 they tied (0.0125 each)."""
    values = [[0.05] * 3, [F32] * 3, [0.0, 0.5, 1.0]]
    for b in SHIFTS:
        best = _tuning(_sweep(values), b, views=["best_set"]).best_set(runners_up=True).set_index("config")[
            "probability_best"]
        assert best.get("lr=0", 0.0) == 0.0, b
        # 3 and 197 of the 200 resamples since audit s32 stream32 (5 and 195 under the former places' streams,
        # checked under them by test_audit_s32_curves32 until audit s35); lr=2's three runs all drawn at 0, 1/27
        assert best["lr=1"] == 0.015 and best["lr=2"] == 0.985, b


def test_tuning_flat_sweep_unchanged_by_a_shift():
    """Runs 0.05, float32(0.05), 0.05 vary (7.5e-10, 1.5e-8 of the sweep's range of 0.95): the tuned-score
    interval and the expected-max band stand at any shift; shifted by 1e4 both were withheld as flat."""
    values = [[0.05, F32, 0.05], [1.0, 1.0, 1.0]]
    for b in SHIFTS:
        notes = _tuning(_sweep(values), b).notes
        assert not any("no configuration's runs vary" in n for n in notes), (b, notes)
    flat = _tuning(_sweep([[0.1 + 0.2, 0.3, 0.3], [1.0, 1.0, 1.0]]), 0.0).notes  # 1 ulp apart: flat
    assert sum("no configuration's runs vary" in n for n in flat) == 2


def test_tuning_tied_means_unchanged_by_a_shift():
    """30 configurations whose means are 0.05 or float32(0.05): not all tied, so the complete-algorithm interval
    stands at any shift; shifted by 1e4 it was withheld as one point."""
    values = [[0.0, 0.1] if c % 2 else [0.0, 2 * F32] for c in range(30)]
    for b in SHIFTS:
        notes = _tuning(_sweep(values), b).notes
        assert not any("complete-algorithm intervals are withheld in 1 sweep" in n for n in notes), (b, notes)


def test_tuning_held_out_runs_unchanged_by_a_shift():
    """Held-out runs 0.05, float32(0.05), 0.05 vary: their interval stands at any shift (it was withheld at 1e4)."""
    df = pd.DataFrame({"agent": "ppo", "task": "ant", "lr": [0] * 3 + [1] * 3 + [0] * 3, "seed": range(9),
                       "score": [0.0, 0.5, 1.0, 0.1, 0.2, 0.3, 0.05, F32, 0.05], "held": [False] * 6 + [True] * 3})
    for b in SHIFTS:
        res = _tuning(df, b, holdout="held")
        assert not any("held-out runs do not vary" in n for n in res.notes), b
        row = res.tuned().iloc[0]
        assert row["heldout_high"] - row["heldout_low"] > 0, b


def test_adastop_decision_unchanged_by_a_shift():
    """Five runs of 0.05 against five of float32(0.05): the observed sum is the only path of the 126 reaching
    it, so B is larger at alpha 0.05 (p = 1/126), at any shift; shifted by 1e4 every path tied with it (1e-12 x
    the summed |score|, 1e-7) and the comparison was accepted as equal."""
    df = pd.DataFrame({"agent": ["A"] * 5 + ["B"] * 5, "score": [0.05] * 5 + [F32] * 5})
    for b in SHIFTS:
        res = rlstats.adastop(df.assign(score=df["score"] + b), "score ~ agent", n=5, K=1, rng=0, progress=False)
        assert res.tidy()["decision"].tolist() == ["smaller"], b


def _mixed_frame():
    rng = np.random.default_rng(0)
    rows = []
    for t in range(4):
        base = rng.normal()
        for _ in range(3):
            e = rng.normal(scale=0.1)
            rows += [("A", f"t{t}", base + e), ("B", f"t{t}", base + e + (F32 - 0.05)), ("C", f"t{t}", base + e + 1)]
    return pd.DataFrame(rows, columns=["agent", "task", "score"])


def test_mixed_estimate_unchanged_by_a_shift():
    """B = A + 7.5e-10 on every run: the A - B estimate is -7.45e-10 at any shift (it printed 0 at 1e4); agents
    with equal runs still show exactly 0."""
    df = _mixed_frame()
    for b in SHIFTS:
        pairs = rlstats.mixed(df.assign(score=df["score"] + b), "score ~ agent + (1 | task)").tidy()
        assert pairs["estimate"].iloc[0] == pytest.approx(0.05 - F32, abs=2e-11), b  # the map rounds to 1.8e-12
    equal = df.assign(score=np.where(df["agent"] == "B", df["score"] - (F32 - 0.05), df["score"]))
    for b in SHIFTS:
        pairs = rlstats.mixed(equal.assign(score=equal["score"] + b), "score ~ agent + (1 | task)").tidy()
        assert pairs["estimate"].iloc[0] == 0.0, b


def test_noise_free_reads_the_range():
    """0.1 + 0.2 - 0.3 (5.6e-17) is 0 beside scores of range 1; 7.5e-10 is not, whatever the largest |score|."""
    assert noise_free([0.1 + 0.2 - 0.3, 0.25], 1.0, 1.0).tolist() == [0.0, 0.25]
    assert noise_free([7.5e-10], 1.0, 1e4).tolist() == [7.5e-10]
    assert noise_free([7.5e-10], 1e3, 1e4).tolist() == [0.0]  # 1e-12 of a range of 1000 is 1e-9


def test_task_table_fisher_pitman_unchanged_by_a_shift():
    """Five runs of 0.05 against five of float32(0.05): A is below B in every run, p = 1/252 one-sided (2/252
    adjusted), at any shift; shifted by 1e4 every split tied with the observed one and p was 1."""
    df = pd.DataFrame({"agent": ["A"] * 5 + ["B"] * 5, "task": "x", "score": [0.05] * 5 + [F32] * 5})
    for b in SHIFTS:
        res = rlstats.task_table(df.assign(score=df["score"] + b), "score ~ agent | task", test="fisher_pitman")
        p = res.tidy().set_index("agent")["p_value"]
        assert p["A"] == pytest.approx(1 / 252), b


def test_tuning_pruning_keeps_configurations_that_tie():
    """128 configurations of runs all 1 (two blocks of the search), one of runs all 1 - 5e-10 and one reaching -1000
    (the sweep's tie tolerance is 1e-12 x 1001 = 1e-9): the 1 - 5e-10 one ties every resample's best, so the 129
    share the credit; the search pruned its block (its largest run was below the running best by more than the
    rounding bound) and gave it 0."""
    from rlstats.methods.tuning import _kernels as kernels
    runs = [[1.0, 1.0]] * 128 + [[1.0 - 5e-10] * 2, [-1000.0, 0.0]]
    values = np.concatenate(runs)
    sizes = np.array([len(r) for r in runs])
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    seed = np.random.SeedSequence(0)
    pruned = kernels.best_set(values, starts, sizes, seed, 50)[0]
    full = kernels.best_set(values, starts, sizes, seed, 50, prune=False)[0]
    np.testing.assert_allclose(full[:129], 1 / 129)
    np.testing.assert_array_equal(pruned, full)


def _identical_agents(n_tasks=4, n_seeds=3, seed=3):
    """A and B with the same runs on every task, C another agent."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n_tasks):
        base = rng.normal(scale=3)
        for _ in range(n_seeds):
            e = rng.normal()
            rows += [("A", f"t{t}", base + e), ("B", f"t{t}", base + e), ("C", f"t{t}", base + rng.normal() + 1)]
    return pd.DataFrame(rows, columns=["agent", "task", "score"])


@pytest.mark.parametrize("b", [1e4, -1e4, 1e6])
def test_mixed_identical_agents_show_0_at_any_shift(b):
    """A and B identical: their difference is 0 at any shift. The fit on the shifted scores left ~9 ulps of the
    shift (1.1e-9 at 1e6, beside a tolerance of 9e-10), which the old rule hid by zeroing anything below 1e-12 of
    the largest |score| (1e-6), real differences too; fitting scores less their median leaves rounding of their
    spread only. The other estimates are those of the unshifted fit to that rounding."""
    df = _identical_agents()
    before = rlstats.mixed(df, "score ~ agent + (1 | task)").tidy()
    after = rlstats.mixed(df.assign(score=df["score"] + b), "score ~ agent + (1 | task)").tidy()
    assert before["estimate"].iloc[0] == 0.0 and after["estimate"].iloc[0] == 0.0
    np.testing.assert_allclose(after["estimate"], before["estimate"], rtol=0, atol=1e-13 * max(1.0, abs(b)))
    np.testing.assert_allclose(after["std_error"], before["std_error"], rtol=1e-9)
