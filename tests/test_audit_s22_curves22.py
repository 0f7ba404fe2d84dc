"""Audit s22 (curves22): the learning-curves back end as a user meets it on real curves, and its memory bound.

The real sets the s21 sweep (test_audit_s21_meta21.py) left out, Dopamine's Atari curves (6 agents x 5 runs,
199 iterations) and Spinning Up's HalfCheetah curves (SAC and TD3, 193 runs, 400 evaluations, one SAC run three
evaluations short), under the same metamorphic relations; and what curves() allocates beyond the resampled values
its bound counted.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError
from rlstats.methods.curves import _api, _kernels

FORMULA = "score ~ agent | task/seed"


def _two_agents(runs_first, runs_second, steps=2, tasks=1, seed=0):
    """Normal scores of agents 'A' and 'B', ``runs_*`` runs on each of ``tasks`` tasks, logged at ``steps`` steps."""
    rng = np.random.default_rng(seed)
    rows = [(agent, f"t{t}", run, 10 * step)
            for agent, n in (("A", runs_first), ("B", runs_second)) if n for t in range(tasks) for run in range(n)
            for step in range(steps)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "step"])
    return df.assign(score=rng.normal(size=len(df)))


def _table_cells(sizes, n_first):
    """The cells (relabellings x runs) of the table all_relabellings would build."""
    return math.prod(math.comb(int(s), int(n)) for s, n in zip(sizes, n_first)) * int(np.sum(sizes))


# ------------------------------------------------------------------------------------------------ memory


@pytest.mark.slow  # 15 s: 45,451 resamples of 300 runs; the reduced case below lowers the cap instead
def test_the_exact_null_builds_no_table_beyond_the_cells_cap(monkeypatch):
    # 2 runs of A against 300 of B on one task: C(302, 2) = 45,451 relabellings, at most n_resamples = 45,451, so all
    # were enumerated: a table of 45,451 x 302 = 13.7 million run indices (110 MB, and ~36 bytes a cell in the
    # Python lists built first), past task_table's cap of 2**23 cells. The kept values the bound counts are
    # 3 x 45,451 x 2 = 272,706. At 2 against 1,000 with n_resamples=501,501 it is 4 GB of indices (and ~18 GB of
    # lists), admitted by the cost check (about 30 s estimated) and by the kept-values bound (3 million values).
    # Now drawn at random, with a note, as task_table's splits beyond the same cap.
    built = []

    def spy(starts, sizes, n_first):
        built.append(_table_cells(sizes, n_first))
        if built[-1] > 2**23:
            raise AssertionError(f"a table of {built[-1]:,} cells")
        return original(starts, sizes, n_first)

    original = _kernels.all_relabellings
    monkeypatch.setattr(_kernels, "all_relabellings", spy)
    res = rlstats.curves(_two_agents(2, 300), FORMULA, step="step", compare="all", n_resamples=45_451, rng=0,
                         progress=False)
    assert built == [] and res.relabellings == (None,)
    assert ("the max-T permutation p-values of A vs B are Monte Carlo: n_resamples = 45,451 relabellings were drawn "
            "at random from the 45,451 there are, as listing them all would take a table of 45,451 x 302 runs, more "
            "than the 8,388,608 cells rlstats enumerates") in str(res).replace("\n", " ")
    assert (res.difference_pvalues * 45_452 >= 45_452 / 45_451 - 1e-9).all()  # (1 + hits) / (B + 1), floored


@pytest.mark.parametrize("cap, exact", [(861 * 42, True), (861 * 42 - 1, False)])
def test_a_null_whose_table_passes_the_cap_is_drawn_and_said(monkeypatch, cap, exact):
    # 2 runs against 40 on one task: C(42, 2) = 861 relabellings of 42 runs, a table of 36,162 cells; n_resamples = 861
    # admits them all, and the cap (lowered here from 2**23) decides: listed, p = hits / 861 (exact), or drawn,
    # p = (1 + hits) / 862 never below 1 / 861 (the observed labelling alone: the two groups' sizes differ)
    from rlstats import statistics

    monkeypatch.setattr(statistics, "ENUMERATED_CELLS", cap)   # the cap statistics.listable reads
    monkeypatch.setattr(_api, "ENUMERATED_CELLS", cap)         # and the note quotes
    listed = []
    original = _kernels.all_relabellings
    monkeypatch.setattr(_kernels, "all_relabellings", lambda *a: listed.append(1) or original(*a))
    res = rlstats.curves(_two_agents(2, 40), FORMULA, step="step", compare="all", n_resamples=861, rng=0,
                         progress=False)
    assert res.relabellings == ((861,) if exact else (None,)) and len(listed) == int(exact)
    p = res.difference_pvalues[0]
    hits = p * 861 if exact else p * 862 - 1
    assert hits == pytest.approx(np.round(hits), abs=1e-9) and (p >= 1 / 861 - 1e-12).all()
    said = [n for n in res.notes if n.startswith("the max-T permutation p-values of A vs B")]
    assert said == (["the max-T permutation p-values of A vs B are exact: all 861 relabellings of whole runs within "
                     "tasks were enumerated (no more than n_resamples = 861)"] if exact else
                    [f"the max-T permutation p-values of A vs B are Monte Carlo: n_resamples = 861 relabellings were "
                     f"drawn at random from the 861 there are, as listing them all would take a table of 861 x 42 "
                     f"runs, more than the {cap:,} cells rlstats enumerates; p = (1 + hits) / (n_resamples + 1), never "
                     "below the exact test's smallest p-value"])


def test_the_drawn_runs_are_bounded_before_they_are_allocated(monkeypatch):
    # one agent, 1,000 runs of one task logged at 2 steps, n_resamples=10**6: the bound counted 1 x 10**6 x 2 kept
    # values (128 MB at 64 bytes each) and the cost check 40 s, but _bootstrap keeps a (10**6, 1,000) int32 table of
    # draws (4 GB) and effective_df subtracts 1 from it in float64 (8 GB more). Measured at n_resamples=20,000:
    # a peak of 234 MiB against 2.4 MiB counted (12.3 bytes a drawn run). Now 16 bytes a drawn run are counted:
    # (2e6 x 64 + 1e9 x 16) / 2**30 = 15.0 GiB, refused before anything is allocated.
    def reached(*args):
        raise AssertionError("the bootstrap started")

    monkeypatch.setattr(_api, "_bootstrap", reached)
    with pytest.raises(OptionError, match=r"^curves would keep about 15\.0 GiB at its peak, more than the 4 GiB "
                                          r"rlstats allocates: how often each of the 1,000 runs was drawn in each of "
                                          r"n_resamples=1,000,000 resamples \(1,000,000,000 counts\), beside "
                                          r"2,000,000 resampled values \(1 agents and 0 comparisons x "
                                          r"n_resamples=1,000,000 x 2 grid steps\); pass a smaller n_resamples"):
        rlstats.curves(_two_agents(1000, 0), FORMULA, step="step", n_resamples=10**6, rng=0, progress=False)
    # 250,000 resamples: (5e5 x 64 + 2.5e8 x 16) / 2**30 = 3.8 GiB, within the bound (the bootstrap starts)
    with pytest.raises(AssertionError, match="the bootstrap started"):
        rlstats.curves(_two_agents(1000, 0), FORMULA, step="step", n_resamples=250_000, rng=0, progress=False)


# ------------------------------------------------------------------------------------------------ real curves

from conftest import SHARED_DATA  # noqa: E402

needs_mirror = pytest.mark.skipif(not (SHARED_DATA / "raw" / "SHA256SUMS").exists(),
                                  reason=f"the published curves' mirror is not at {SHARED_DATA / 'raw'}")


def _load(name, monkeypatch):
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", str(SHARED_DATA / "raw"))
    df = rlstats.datasets.load(name)
    df.attrs = {}
    return df


def _halfcheetah_curves(monkeypatch, runs=12, every=50_000):
    """Spinning Up's HalfCheetah curves, SAC and TD3, their first ``runs`` runs at every ``every`` steps (SAC run 0
    stops at 1.985M: three NaN at the end, dropped by na_action="drop")."""
    df = _load("spinningup_halfcheetah", monkeypatch)
    return df[(df["seed"] < runs) & (df["step"] % every == 0)].reset_index(drop=True)


@needs_mirror
def test_the_degrees_of_freedom_said_are_those_of_the_steps_in_any_units(monkeypatch):
    # one task of 12 runs a side: each step's Welch-Satterthwaite df is n - 1 = 11 (a single stratum), computed
    # 10.999999999999998 at some steps of the raw scores and 11.0 at all of them in thousandths; floored as it stood,
    # the note said "df from 10 to 11" of the raw scores and "df = 11" in thousandths (and at + 1e6)
    # (since curvenotes28 the df is read at the runs logged at each step: SAC has 11 runs at its last steps, df 10)
    df = _halfcheetah_curves(monkeypatch)
    logged = df.dropna(subset=["score"]).groupby(["agent", "step"])["seed"].nunique().unstack("step")
    notes = []
    for factor in (1.0, 1e-3):
        res = rlstats.curves(df.assign(score=df["score"] * factor), FORMULA, step="step", n_resamples=200,
                             na_action="drop", rng=3, progress=False)
        expected = logged.loc[list(res.agents), list(res.steps)].to_numpy(float) - 1
        assert sorted(set(expected.ravel())) == [10.0, 11.0]
        finite = np.isfinite(res.df)
        assert res.df[finite] == pytest.approx(expected[finite], rel=1e-12)
        notes.append([n for n in res.notes if "effective degrees of freedom" in n])
    assert notes[0] == notes[1] == [
        "the expanded bands use t quantiles at each step's effective degrees of freedom (Welch-Satterthwaite over "
        "tasks; here df from 10 to 11) in place of normal ones, as the standard error from few runs per task is "
        "itself uncertain"]


def _pong_gap(monkeypatch):
    """Dopamine's Pong curves (6 agents x 5 runs, 199 iterations), the optimality gap below 20: bands withheld for
    IQN at 155 steps, Quantile (JAX) at every step and C51, DQN, DQN (Adam + MSE in JAX) and Rainbow at some."""
    df = _load("dopamine_atari", monkeypatch)
    return rlstats.curves(df[df["task"] == "Pong"], FORMULA, step="step", statistic="optimality_gap", gamma=20,
                          n_resamples=300, rng=1, progress=False)


@needs_mirror
@pytest.mark.slow  # 4 s (Dopamine's 60 games are read to take Pong); the reduced case below draws simulated runs
def test_the_withheld_line_of_the_curves_legend_fits_a_column(monkeypatch):
    # the legend's title named every agent with a band withheld and at how many steps, on one line: "(withheld for
    # IQN, Quantile (JAX), C51 at 16 steps, DQN at 197 steps, DQN (Adam + MSE in JAX) at 5 steps, Rainbow at 20
    # steps: see the notes)", 8.7 in wide on the plot's own 4.5 in figure (past its edge), and figsize=(3.5, 2.6),
    # (3.5, 3.5) or (3.5, 5) were refused ("too small for this figure's labels"): resized() broke titles and axis
    # labels to the new width, not a legend's title. Now more than two agents are counted, and the line is broken.

    res = _pong_gap(monkeypatch)
    assert np.isnan(res.simultaneous[res.agents.index("IQN")]).all()
    titles = _legend_titles(res, whole_figure=True)
    # 5 agents since audit s32 curves32 keyed each agent's resamples by its label (6 before): which bands reach
    # beyond the scores, and are withheld, depends on the draws; the resized figure's title, still broken to fit, is
    # broken at other words (it was "... 95% simultaneous\nbands\n(withheld for 6 agents at some or all steps:
    # see\nthe notes)")
    assert titles == ["optimality gap per step, 95% simultaneous bands\n(withheld for 5 agents at some or all steps: "
                      "see the notes)",
                      "optimality gap per step,\n95% simultaneous bands\n(withheld for 5 agents at some\nor all steps: "
                      "see the notes)"]


def test_the_withheld_line_counts_more_than_two_agents_and_fits_a_column():
    # three agents with long names, 4 runs of one task each, three of them ending at step 60: at steps 70-90 one run
    # is logged and their bands are withheld there (the step_bands need of 2 runs)

    df = rlstats.datasets.simulate_curves(agents=3, tasks=1, seeds=4, steps=10, rng=0)
    df["agent"] = df["agent"].map(lambda a: f"{a} with a rather long descriptive name")
    df = df[(df["seed"] == df["seed"].min()) | (df["step"] <= sorted(df["step"].unique())[6])]
    res = rlstats.curves(df, FORMULA, step="step", n_resamples=100, rng=0, progress=False)
    shown = np.isfinite(res.simultaneous).all(axis=2)
    assert shown[:, :7].all() and not shown[:, 7:].any()
    titles = _legend_titles(res)
    # the one task named (audit s34 marks34)
    assert titles[0].replace("\n", " ") == ("IQM per step, on the one task, task_01, 95% simultaneous bands (withheld "
                                            "for 3 agents at some or all steps: see the notes)")
    assert titles[1].replace("\n", " ") == titles[0].replace("\n", " ") and titles[1].count("\n") >= 2


# ------------------------------------------------------------------------------------------------ the sweep

meta21 = pytest.importorskip("test_audit_s21_meta21")  # its cases, relation and comparison, not a copy
meta = meta21.meta


def _dopamine():
    """Dopamine's Atari curves: DQN, IQN and Rainbow on Asterix, Breakout, Pong and Seaquest (5 runs each; Pong's
    integer scores tie at -21 early on), every 6th iteration."""
    with pytest.MonkeyPatch.context() as patch:
        df = _load("dopamine_atari", patch)
    df = df[df["task"].isin(["Asterix", "Breakout", "Pong", "Seaquest"]) & df["agent"].isin(["DQN", "IQN", "Rainbow"])]
    return df[df["step"] % 6 == 0].reset_index(drop=True)[["agent", "task", "seed", "step", "score"]]


def _spinningup():
    """Spinning Up's HalfCheetah curves, 12 runs of SAC and TD3 every 50,000 steps (SAC run 0 ends at 1.95M here)."""
    with pytest.MonkeyPatch.context() as patch:
        return _halfcheetah_curves(patch)


def _curves_call(**options):
    def call(df, transform):
        return rlstats.curves(df, FORMULA, step="step", n_resamples=meta21.N, compare="all", rng=1, progress=False,
                              **options)
    return call


NEW = {
    "curves_dopamine": (_dopamine, _curves_call(normalize=False)),
    "curves_dopamine_median": (_dopamine, _curves_call(normalize=False, statistic="median", align="linear",
                                                        steps=np.arange(0, 199, 20))),
    "curves_spinningup": (_spinningup, _curves_call(na_action="drop")),
    "curves_spinningup_mean": (_spinningup, _curves_call(na_action="drop", statistic="mean", align="linear",
                                                          steps=np.arange(25_000, 2_000_001, 125_000))),
}
meta21.CASES.update(NEW)
meta21.BACKEND.update(dict.fromkeys(NEW, "curves"))
_SWEEP_FAST = {("curves_dopamine", 1.0, "polars"), ("curves_spinningup", 1e-3, "shift_-10000"),
               ("curves_spinningup_mean", 1.0, "scale_0.001"), ("curves_dopamine_median", 7.0, "shift_123.456")}


@needs_mirror
@pytest.mark.parametrize("case, a, transform", [
    pytest.param(case, a, t, id=f"{case}-{'' if a == 1.0 else f'{a:g}y-'}{t.name}",
                 marks=[] if (case, a, t.name) in _SWEEP_FAST else [pytest.mark.slow])
    for case, a, t in meta21._grid() if case in NEW])
def test_real_curves_are_unchanged_or_exactly_transformed(case, a, transform):
    assert meta21.differences(case, transform, a) == []


@needs_mirror
@pytest.mark.parametrize("case", ["curves_dopamine_median", "curves_spinningup_mean"])
def test_real_curves_in_other_step_units(case):
    # the steps x 1,000 (iterations as thousandths, evaluations as milli-steps ...): the same grid, numbers and
    # notes, the steps said in their new units
    loader, _ = NEW[case]
    df = loader()
    options = {"statistic": "median", "steps": np.arange(0, 199, 20)} if "dopamine" in case else {
        "statistic": "mean", "na_action": "drop", "steps": np.arange(25_000, 2_000_001, 125_000)}
    results = [rlstats.curves(df.assign(step=df["step"] * f), FORMULA, step="step", n_resamples=200, compare="all",
                              rng=1, progress=False, align="linear", normalize=False,
                              **dict(options, steps=options["steps"] * f)) for f in (1, 1000)]
    first, other = results
    assert np.array_equal(other.steps, first.steps * 1000)
    # linear interpolation's fractions (g - s0) / (s1 - s0) round alike in other units but for the last bits
    for field in ("estimates", "pointwise", "simultaneous", "differences", "difference_bands"):
        np.testing.assert_allclose(getattr(other, field), getattr(first, field), rtol=1e-12, atol=0, err_msg=field)
    assert np.array_equal(first.difference_pvalues, other.difference_pvalues, equal_nan=True)
    words = [[meta._NUMBER.sub("#", note) for note in res.notes] for res in results]
    assert words[0] == words[1]


def _legend_titles(res, whole_figure=False):
    """The legend's title at the figure's own size and at a paper column's, each inside the figure (and the whole
    figure inside its width with ``whole_figure``)."""
    import matplotlib.pyplot as plt

    titles = []
    for figsize in (None, (3.5, 2.6)):
        ax = res.plot(figsize=figsize)
        figure = ax.figure
        figure.canvas.draw()
        title = ax.get_legend().get_title()
        titles.append(title.get_text())
        assert title.get_window_extent().x0 >= 0 and title.get_window_extent().x1 <= figure.bbox.width
        if whole_figure:
            assert figure.get_tightbbox().width <= figure.get_figwidth()
        plt.close(figure)
    return titles
