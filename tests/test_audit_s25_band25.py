"""Audit s25 (band25): curves()' default bands of the mean widened on the side of the runs' skew, the skewness pooled
over tasks and steps (cal25 found them short of 95% at one task of 5 skewed runs: pointwise 0.918, 0.888 in the worst
design draw, on 800 simulated curves); ``bands="studentized_unwidened"`` keeps the bands before, bit for bit."""
import math

import numpy as np
import pytest
from scipy import stats

import rlstats
from rlstats.errors import OptionError
from rlstats.methods.curves import _api, _kernels

FORMULA = "score ~ agent | task/seed"
#: bands="studentized_unwidened" (the default bands of the mean before audit s25, by the same method) on
#: simulate_curves(agents=2, tasks=1, seeds=5, steps=4, rng=0), n_resamples=200, rng=0: the first agent's pointwise and
#: simultaneous bands on today's streams (audit s34 repin34b; before audit s32 curves32 keyed the streams by the agents'
#: labels, main at dcc45ab0 gave [[22.9139, 28.3093], ...] and [[18.4491, 28.3763], ...])
FORMER_POINTWISE = [[22.63597904423774, 28.287451159358756], [26.737396835599302, 31.83252362645602],
                    [19.73206829083675, 33.59506337630093], [28.525362477864455, 34.14982129619146]]
FORMER_SIMULTANEOUS = [[17.44181800499588, 28.287451159358756], [22.597732080503796, 32.1849608615978],
                       [15.749763457886703, 36.23956925564899], [20.651642175635335, 35.53962441939046]]


def _one_task():
    return rlstats.datasets.simulate_curves(agents=2, tasks=1, seeds=5, steps=4, rng=0)


def _curves(df, **options):
    return rlstats.curves(df, FORMULA, step="step", statistic="mean", n_resamples=200, rng=0, **options)


def test_unwidened_bands_are_the_former_default_method():
    # the former default's method on the streams users run (pinned there since audit s34; how it relates to the
    # default's widened bands is checked by hand in the test below)
    res = _curves(_one_task(), bands="studentized_unwidened")
    # bit for bit on the numpy that pinned them; the oldest supported numpy (1.x) agrees within 1e-15 here
    np.testing.assert_allclose(res.pointwise[0], FORMER_POINTWISE, rtol=1e-13, atol=0)
    np.testing.assert_allclose(res.simultaneous[0], FORMER_SIMULTANEOUS, rtol=1e-13, atol=0)
    assert res.options["bands"] == "studentized_unwidened"
    assert _api.UNWIDENED_NOTE in res.notes
    assert "0.918 pointwise (0.888 in the worst of 4 draws" in _api.UNWIDENED_NOTE
    assert not any(n.startswith("measured coverage") for n in res.notes)  # the table's rows are the default's


def _hall_band(estimate, se, k, q):
    """Hall's skew-corrected t band by the real roots of its cubic, u + k u^2 / 3 + k^2 u^3 / 27 + k / 6 = -+q
    (u = (estimate - mu) / se): numpy's polynomial roots, not rlstats' closed form."""
    out = []
    for x in (q, -q):  # the lower end solves for +q
        roots = np.roots([k * k / 27, k / 3, 1.0, k / 6 - x])
        real = roots[np.abs(roots.imag) < 1e-9].real
        out.append(estimate - se * real[np.argmin(np.abs(real - x))])  # the branch through u = x at k = 0
    return out


def test_default_mean_bands_widened_by_the_pooled_skewness():
    """One task: the mean's skewness is g / sqrt(n), g the runs' G1 (scipy's skew, bias=False) averaged over the
    steps; each band moves out on the side of the skew by g / sqrt(n) / 6 (2 z^2 + 1) standard errors, never in; the
    pointwise band then holds Hall's skew-corrected t band at the steps' df (here n - 1 = 4)."""
    df = _one_task()
    old, new = _curves(df, bands="studentized_unwidened"), _curves(df)
    for a, agent in enumerate(new.agents):
        runs = df[df["agent"] == agent].pivot(index="seed", columns="step", values="score").to_numpy()
        g = stats.skew(runs, axis=0, bias=False).mean()
        k = g / math.sqrt(runs.shape[0])
        z = stats.norm.ppf(0.975)  # the Cornish-Fisher shift k / 6 (2 z^2 + 1), written here (not rlstats')
        shift = k / 6 * (2 * z * z + 1) * new.std_error[a]
        assert g != 0 and new.df[a].tolist() == [4.0] * 4
        widened = old.pointwise[a] + np.where(np.array([-1, 1]) * g > 0, np.sign(g) * np.abs(shift)[:, None], 0.0)
        q = stats.t.ppf(0.975, 4)
        low, high = np.array([_hall_band(e, se, k, q) for e, se in zip(new.estimates[a], new.std_error[a])]).T
        np.testing.assert_allclose(new.pointwise[a][:, 0], np.minimum(widened[:, 0], low), rtol=1e-9)
        np.testing.assert_allclose(new.pointwise[a][:, 1], np.maximum(widened[:, 1], high), rtol=1e-9)
        assert (new.simultaneous[a][:, 0] <= old.simultaneous[a][:, 0]).all()
        assert (new.simultaneous[a][:, 1] >= old.simultaneous[a][:, 1]).all()
        assert (new.simultaneous[a][:, 0] <= new.pointwise[a][:, 0]).all()
        assert (new.simultaneous[a][:, 1] >= new.pointwise[a][:, 1]).all()
    assert not np.allclose(new.pointwise[0], FORMER_POINTWISE, rtol=1e-6)
    assert "the runs' skewness pooled over tasks and steps, and the pointwise band also holds Hall's" in \
        " ".join(new.notes)


def test_mean_skewness_over_tasks_against_the_formula():
    """Several tasks of unequal runs, one run not logged at a step: g is the mean of every (task, step) G1 with 3 runs
    and spread, and the mean's skewness g sum_t v^1.5 / sqrt(c) / (sum_t v)^1.5 at each step (v = s^2 / c)."""
    rng = np.random.default_rng(5)
    sizes = [3, 5, 4]
    task_of = np.repeat(np.arange(3), sizes)
    values = np.exp(rng.normal(size=(task_of.size, 3))) * np.repeat([1.0, 3.0, 0.5], sizes)[:, None]
    values[0, 1] = np.nan  # task 0 has 2 runs at step 1: its G1 there does not count, nor its mean's variance
    got = _kernels.mean_skewness(values, task_of, 3)
    g1, var, c = {}, {}, {}
    for t in range(3):
        for s in range(3):
            x = values[task_of == t, s]
            x = x[~np.isnan(x)]
            c[t, s], var[t, s] = x.size, x.var(ddof=1) / x.size
            if x.size >= 3:
                g1[t, s] = stats.skew(x, bias=False)
    g = np.mean(list(g1.values()))
    assert len(g1) == 8
    want = [g * sum(var[t, s] ** 1.5 / math.sqrt(c[t, s]) for t in range(3)) / sum(var[t, s] for t in range(3)) ** 1.5
            for s in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_other_statistics_identical_under_either_studentised_option():
    df = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=4, steps=4, rng=1)
    for statistic in ("median", "iqm"):
        a, b = (rlstats.curves(df, FORMULA, step="step", statistic=statistic, n_resamples=200, rng=0, bands=bands,
                               normalize=False) for bands in ("studentized", "studentized_unwidened"))
        assert np.array_equal(a.pointwise, b.pointwise, equal_nan=True)
        assert np.array_equal(a.simultaneous, b.simultaneous, equal_nan=True)


def test_unknown_band_method_names_the_former_default():
    with pytest.raises(OptionError, match="'studentized', 'expanded', 'studentized_unwidened'"):
        _curves(_one_task(), bands="unwidened")


def test_unwidened_figure_quotes_the_rows_that_missed():
    """bands="studentized_unwidened" at one task of 5 runs: the figure's title quotes the worst draw's coverage that
    the rows before audit s25 measured there (the default's rows now hold: nothing quoted)."""
    import matplotlib.pyplot as plt
    df = _one_task()
    old, new = _curves(df, bands="studentized_unwidened"), _curves(df)
    assert dict(old.measured_coverage) == {"simultaneous": 0.900, "pointwise": 0.888}
    assert new.measured_coverage == ()
    ax = old.plot(figsize=(3.3, 2.5))
    title = ax.get_legend().get_title().get_text().replace("\n", " ")
    plt.close(ax.figure)
    assert "coverage measured at designs like this: 0.900" in title
