"""Session 22 audit of rlstats.tuning() and rlstats.selection_check() on the real sweeps of Dierkes et al. (RLC 2024)
at the seed counts users have (3 seeds per configuration, also 5 and 10).

Checked and found right: every view (expected max, best set, complete, sensitivity), its print, summary, LaTeX, tidy
and plots on LunarLander landscapes subsampled to 3 seeds and on the tuning procedures subsampled to three disjoint
sets of 3 seeds; the counts of configurations, seeds, sweeps and tasks in every sentence; the views and the
selection check unchanged (or scaled) under scores x 1e-3, + 1e6, shuffled rows, relabelled configurations and
polars frames. The coverage of the 95% expected-max band and tuned-score interval on the LunarLander landscapes at 3
and 5 seeds drawn from each configuration's 10 published seeds held (0.955-1.000). Defects found: each test's
docstring says what was wrong.
"""

import numpy as np
import pytest

from conftest import load_dataset
import rlstats

#: the sweep whose published tuning runs hold one rare outlying seed each in runs 1 and 5 (895 and 969 among ~200)
SWEEP = {"algorithm": "sac", "task": "lunar", "procedure": "hpo=dehb, rpo=base, return"}


def _sweep():
    opt = load_dataset("hpo_optimisation").drop_duplicates()
    keep = np.ones(len(opt), dtype=bool)
    for column, value in SWEEP.items():
        keep &= (opt[column] == value).to_numpy()
    return opt[keep]


def test_few_seeds_band_quotes_its_coverage_on_real_sweeps(mirror):
    """On SAC's hpo=dehb, rpo=base tuning runs on LunarLander, evaluated on 3 of their 10 published seeds (seeds
    11-13, a disjoint subset), the printed 95% band of the expected max at k=1, [193.5, 209.9], missed the mean of the
    tuning runs' published means, 225.2, and the tuned-score interval [147.7, 263.8] missed the selected run's
    published mean, 281.0: two of the five tuning runs have one outlying seed in ten (895 and 969 among ~200), which
    3 seeds miss in 0.73 of draws each. Drawing 3 seeds per run at random from the published ones, the band covered
    0.425 of 200 draws and the tuned interval 0.530. Nothing in the result qualified the 95%."""
    data = _sweep()
    truth = data.groupby("tuning_run")["score"].mean()
    res = rlstats.tuning(data[data["seed"].isin([11, 12, 13])], "score ~ procedure | task/tuning_run/seed", rng=0,
                         n_resamples=1000, views=["best_set", "expected_max"], progress=False)
    em = res.expected_max()
    first = em[(em["sampling"] == "without replacement") & (em["budget"] == 1)].iloc[0]
    assert first["conf_high"] < truth.mean() - 15
    tuned = res.tuned().iloc[0]
    assert tuned["config"] == "tuning_run=5" and tuned["conf_high"] < truth[5] - 15
    # the result now quotes what the default measured on the 51 real sweeps at 3 seeds (tuning procedures of 5 runs)
    band, interval = ([n for n in res.notes if n.startswith(what)] for what in ("the expected-max band",
                                                                                "the tuned-score interval"))
    assert band == [
        "the expected-max band's pointwise coverage (budget k=1) was measured at 0.926 over 51 real sweeps, 0.410 in "
        "the worst, for a 95% claim at the nearest measured design (5 configurations, 3 seeds drawn from the "
        "published seeds of each tuning run of Dierkes et al. 2024's tuning procedures, "
        "rlstats.datasets.load('hpo_optimisation'); rlstats/calibration.csv, tuning.expected_max_band), below 0.95 "
        "by more than 3 Monte Carlo standard errors: a configuration's rare outlying seed (one in ten there) is left "
        "out by 3 seeds in 73% of draws, which then do not show it; add seeds to the configurations that matter"]
    assert len(interval) == 1 and "measured at 0.984 over 51 real sweeps, 0.520 in the worst" in interval[0]
    assert "its worst sweep below 0.95 by more than 3 Monte Carlo standard errors of a sweep" in interval[0]
    # the same sweep at 10 seeds (all but one of the published): the nearest measured design is 10 seeds
    full = rlstats.tuning(data[data["seed"] != 20], "score ~ procedure | task/tuning_run/seed", rng=0,
                          n_resamples=1000, views=["best_set", "expected_max"], progress=False)
    quoted = [n for n in full.notes if "real sweeps" in n]
    assert len(quoted) == 2 and all("10 seeds drawn" in n and "left out by 10 seeds in 35% of draws" in n
                                    for n in quoted)
    assert "measured at 0.946 over 51 real sweeps, 0.640 in the worst" in quoted[1]


def test_real_sweep_coverage_rows_reproduce(mirror):
    """The reference script's measurement of the worst real sweep at 3 seeds, reduced to 20 draws: the band at k=1 and
    the tuned interval miss the truth in about half of them (0.41 and 0.52 of 100 draws in the table's rows)."""
    import runpy
    from pathlib import Path

    script = runpy.run_path(str(Path(__file__).parent / "reference" / "coverage_tuning_real.py"))
    pops = script["sweeps"]()[tuple(SWEEP.values())]
    band, tuned = script["measure"](pops, 3, 20, [3, 0, 22])
    assert band.shape == (20, 5) and 0.2 <= band[:, 0].mean() <= 0.75 and 0.3 <= tuned.mean() <= 0.8
    rows = [r for r in rlstats.calibration.rows("tuning.expected_max_band") if r["distribution"] == "real_dierkes2024"]
    assert sorted({int(r["runs"]) for r in rows}) == [3, 5, 10] and {r["design_draws"] for r in rows} == {"51"}


def test_plot_of_a_view_asked_but_not_computed_says_why():
    """A LunarLander sweep (one task) analysed with the default views: res.plot(kind="sensitivity") raised "the
    sensitivity view was not computed (views=['expected_max', 'best_set', 'complete', 'sensitivity']); nothing to
    draw", naming the view among those computed. It was asked for (by default) and not computed for want of a second
    task: the message says so, in the note's words."""
    from conftest import one_sweep

    res = rlstats.tuning(one_sweep([[1.0, 2.0, 3.0], [2.0, 4.0, 3.5], [0.5, 1.5, 1.0]], task="LunarLander"),
                         "score ~ agent | task/seed", config="lr", rng=0, n_resamples=100)
    assert "sensitivity" in res.views and res.tables.get("sensitivity") is None
    with pytest.raises(rlstats.errors.OptionError) as caught:
        res.plot(kind="sensitivity")
    message = str(caught.value)
    assert "views=[" not in message
    assert "at least two tasks (these data have one, 'LunarLander')" in message


def test_real_landscape_at_three_seeds_unchanged_by_units_order_labels_and_frame(mirror):
    """20 configurations of the gamma x velocity-weight LunarLander landscape (12% of its runs at the 1,000 cap) at
    seeds 3-5, two agents: the tuned scores, bands and complete intervals scale with the scores (x 1e-3), shift with
    them (+ 1e6), and are the same numbers for shuffled rows, relabelled configurations and a polars frame; the
    notes are the same sentences (the polars frame adds its conversion line)."""
    import polars as pl

    land = load_dataset("hpo_landscapes")
    land = land[(land["landscape"] == "gamma_velocity-weight") & land["seed"].isin([3, 4, 5])]
    ids = np.random.default_rng(1).choice(10_000, 20, replace=False)
    one = land[land["config"].isin(ids)][["task", "config", "seed", "score"]]
    base = rlstats.concat([one.assign(agent="ppo"), one.assign(agent="sac", score=one["score"] * 0.9)])

    def run(frame):
        res = rlstats.tuning(frame, "score ~ agent | task/seed", config="config", rng=3, n_resamples=300,
                             views=["best_set", "expected_max", "complete"], progress=False)
        tuned = res.tuned().sort_values("agent")
        em = res.expected_max().sort_values(["agent", "sampling", "budget"])
        complete = res.complete_summary().sort_values("agent")
        return (np.r_[tuned[["estimate", "conf_low", "conf_high"]].to_numpy().ravel(),
                      em[["estimate", "conf_low", "conf_high"]].to_numpy().ravel(),
                      complete[["estimate", "conf_low", "conf_high"]].to_numpy().ravel()],
                tuned["config"].tolist(), res.notes)

    values, configs, notes = run(base)
    # the complete algorithm's intervals are withheld below 30 configurations (its estimates stand)
    assert len(values) == 2 * 3 + 2 * 2 * 20 * 3 + 2 * 3 and np.isfinite(values[:-6]).all()
    assert np.isnan(values[-6:]).sum() == 4
    assert configs == ["config=9489", "config=9489"]
    # ppo's tuned score and interval: the score 980.2986 before audit s32 stream32 keyed the sweep's resamples by its
    # names (the former keys gave it, checked under them by test_audit_s32_curves32 until audit s35); its interval reads no resample
    # (981.9027 from audit s32 stream32 to audit s33 curvestream33, which lays a configuration's runs out in their
    # scores' order)
    assert values[:3] == pytest.approx([980.3612, 811.0298, 1139.1031], abs=1e-3)
    scaled, _, scaled_notes = run(base.assign(score=base["score"] * 1e-3))
    np.testing.assert_allclose(scaled, values * 1e-3, rtol=1e-9, equal_nan=True)
    shifted, _, shifted_notes = run(base.assign(score=base["score"] + 1e6))
    np.testing.assert_allclose(shifted, values + 1e6, rtol=0, atol=1e-6, equal_nan=True)
    shuffled, _, shuffled_notes = run(base.sample(frac=1.0, random_state=0))
    np.testing.assert_array_equal(shuffled, values)
    relabel = base["config"].map(lambda c: f"c{c * 7919 % 100003}")  # strings, in another order
    relabelled, renamed, relabelled_notes = run(base.assign(config=relabel))
    np.testing.assert_allclose(relabelled, values, rtol=1e-12, equal_nan=True)
    assert renamed == [f"config=c{9489 * 7919 % 100003}"] * 2
    polars_values, _, polars_notes = run(pl.from_pandas(base))
    np.testing.assert_array_equal(polars_values, values)
    # but the note of the ends past the largest score, which quotes that score (audit s30 mends30)
    (cap,) = [n for n in notes if "pass bounds=" in n]
    assert cap.startswith("26 ends of the tuned scores and their intervals, and of the expected-max curves and bands "
                          "lie above 1000, the largest score of task 'LunarLander' (2 of its 120 runs reach it)")
    # and the note of the tuned interval's width, which quotes standard deviations (audit s35 claims35)
    width = "the tuned score's interval takes its width"
    for changed, top in ((scaled_notes, "1"), (shifted_notes, "1001000")):
        assert [n for n in changed if not n.startswith(width)] == [
            cap.replace(" 1000,", f" {top},").replace(", 1000)", f", {top})") if n == cap else n
            for n in notes if not n.startswith(width)]
    assert shuffled_notes == relabelled_notes == notes
    # the loaded frame's note (s26: two of its landscapes are byte-identical files) is not of these rows, which a line
    # says; a polars frame carries no pandas attrs, so neither the note nor that line
    left_out = ("these data lack 899,880 rows of the frame they were taken from; notes about those rows alone are not "
                "shown")
    assert notes[0] == left_out
    assert [n for n in polars_notes if not n.startswith("data converted from a polars")] == list(notes[1:])
