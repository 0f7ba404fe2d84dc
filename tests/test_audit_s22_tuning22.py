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

import rlstats

#: the sweep whose published tuning runs hold one rare outlying seed each in runs 1 and 5 (895 and 969 among ~200)
SWEEP = {"algorithm": "sac", "task": "lunar", "procedure": "hpo=dehb, rpo=base, return"}


def _sweep():
    opt = rlstats.datasets.load("hpo_optimisation").drop_duplicates()
    keep = np.ones(len(opt), dtype=bool)
    for column, value in SWEEP.items():
        keep &= (opt[column] == value).to_numpy()
    return opt[keep]


@pytest.mark.xfail(strict=True, reason="a 3-seed sweep's 95% expected-max band and tuned-score interval say nothing "
                                       "of their coverage on real sweeps, 0.43-0.53 in the worst")
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
    quoted = [n for n in res.notes if "real sweeps" in n]
    assert any("expected-max band" in n for n in quoted) and any("tuned-score interval" in n for n in quoted)


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
