"""Audit s34 (meta34): the default step grid made equivariant under the step's units, and a new round of
metamorphic relations on option paths the earlier sweeps (test_metamorphic, s9-s33 meta files) left out.

The default grid (runs.default_grid) of runs logged at their own steps is an even grid at the runs' median logging
gap rounded to two significant digits. Rounded in the step column's units (audit s33 meta33), frames for steps (x 4)
moved the grid against the logged steps and the area under the curve by 1.016 x 4; it is now rounded in the steps'
own unit (runs._step_grain: the greatest common divisor of their digits at their decimal place, powers of ten
removed), so steps x 4, x 7.3, x 1e-6 and x 1e6 give the same grid in their units. Grids measured unchanged on the
shared SB3 logs (monitor, TensorBoard, evaluations: Acrobot's monitor grid 100 steps of 190 from 570, CartPole's
1,998 of 10 from 20; the evaluations' 4 of 5,000) and on dopamine_atari by iteration and by frames; steps on no
decimal place (raw floats, e.g. x 1/3) take the median gap unrounded.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import runs
from test_audit_s33_meta33 import _frames_logged

NESTED = "score ~ agent | task/seed"


# ------------------------------------------------------------------------------------------------ the default grid

@pytest.mark.parametrize("factor", [4, 7.3, 1e-6, 1e6])
def test_the_area_under_the_curve_scales_with_the_steps(factor):
    df = _frames_logged()
    steps = rlstats.summarize_runs(df, NESTED, step="step", how="auc")
    other = rlstats.summarize_runs(df.assign(step=df["step"] * factor), NESTED, step="step", how="auc")
    np.testing.assert_allclose(other["score"], factor * steps["score"], rtol=1e-12)


@pytest.mark.parametrize("factor", [4, 7.3])
def test_the_default_grid_is_the_same_in_other_units(factor):
    df = _frames_logged()
    grid = rlstats.align_steps(df, NESTED, step="step")["step"].unique()
    other = rlstats.align_steps(df.assign(step=df["step"] * factor), NESTED, step="step")["step"].unique()
    np.testing.assert_allclose(other, factor * grid, rtol=1e-12)
    np.testing.assert_array_equal(grid[:4], [0, 1600, 3200, 4800])  # steps counted one by one: as before


def test_raw_float_steps_take_the_median_gap_unrounded_in_any_units():
    """Steps on no decimal place (x 1/3) have no unit to round in: the unrounded median gap scales with them."""
    df = _frames_logged().assign(step=lambda d: d["step"] / 3)
    base = rlstats.summarize_runs(df, NESTED, step="step", how="auc")
    other = rlstats.summarize_runs(df.assign(step=df["step"] * np.pi), NESTED, step="step", how="auc")
    np.testing.assert_allclose(other["score"], np.pi * base["score"], rtol=1e-12)
    grid = rlstats.align_steps(df, NESTED, step="step")["step"].unique()
    np.testing.assert_allclose(np.diff(grid), 1636.5 / 3, rtol=1e-12)  # the median gap in agent steps, 1,636.5

def test_the_steps_own_unit():
    grain = runs._step_grain
    assert grain(np.array([0.0, 1633.0, 3262.0])) == 1
    assert grain(np.array([0.0, 1000.0, 3000.0])) == 1  # powers of ten removed: rounded as before
    assert grain(np.array([0.0, 5000.0, 10000.0])) == 5  # 5 x 1,000: a median gap of 12,500 stays 12,500
    assert grain(4.0 * np.array([0.0, 1633.0, 3262.0])) == 4
    assert grain(7.3 * np.array([0.0, 1633.0, 3262.0])) == 73
    assert grain(1e-6 * np.array([1633.0, 3262.0])) == 1
    assert grain(np.array([0.05, 0.1, 0.15])) == 5
    assert grain(np.array([0.0, 1 / 3, 2 / 3])) is None  # no decimal place: the median gap unrounded
    assert grain(np.array([0.0])) is None


# ------------------------------------------------------------------------------------ found: fixed (powerstream34)

def _pilot():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, effect=0.5, rng=0)
    df.attrs = {}
    return df.astype({"agent": str, "task": str})


def _pilot_power(df, shifted="agent_2"):
    return rlstats.power("skillings_mack", design=df, formula="score ~ agent | task", effect=0.5,
                         shifted_agent=shifted, seeds=[3], n_sim=40, rng=1, progress=False).tidy()["power"].tolist()


def test_pilot_power_keeps_its_draws_when_rows_are_shuffled():
    """Rows shuffled: the same draws, the same power. Renamed names (a prefix) draw other runs since audit s34
    powerstream34 (each cell's stream is keyed by its labels): 0.8 against 0.75, within Monte Carlo error."""
    df = _pilot()
    assert _pilot_power(df) == [0.75]  # 0.825 with one stream a data set (before powerstream34)
    assert _pilot_power(df.sample(frac=1.0, random_state=3)) == [0.75]


@pytest.mark.parametrize("renamed", ["tasks", "agents"])
def test_pilot_power_follows_each_cells_own_labels(renamed):
    """Fixed by audit s34 powerstream34 (was a strict xfail: one stream a data set drew the cells in their sorted
    order, so names that sorted otherwise moved every cell's runs: 0.825 -> 0.8 tasks reversed, 0.875 agents
    reversed). Each cell now draws from a stream keyed by its agent's and its task's labels. What is invariant: the
    names' order without renaming (a Categorical's categories reversed) gives the power to the bit, and renaming one
    task or agent so that it sorts elsewhere leaves every other cell's simulated runs as they were; the renamed cells'
    own runs change (their stream is their new labels'), and so may the power, within Monte Carlo error (all tasks
    reversed 0.775, agents reversed 0.7, against 0.75)."""
    from test_audit_s34_powerstream34 import _cell_runs

    df = _pilot()
    column = "task" if renamed == "tasks" else "agent"
    names = sorted(df[column].unique())
    reordered = df.astype({column: pd.CategoricalDtype(names[::-1])})
    assert _pilot_power(reordered) == _pilot_power(df) == [0.75]
    old, new = names[0], "zz_last"  # sorted first -> last
    before = _cell_runs(df)
    after = _cell_runs(df.assign(**{column: df[column].replace(old, new)}))
    place = 1 if renamed == "tasks" else 0
    kept = [cell for cell in before if cell[place] != old]
    assert len(kept) == (12 if renamed == "tasks" else 10)
    for cell in kept:
        np.testing.assert_array_equal(after[cell], before[cell])
    for cell in before:
        if cell[place] == old:
            moved = (new, cell[1]) if renamed == "agents" else (cell[0], new)
            assert not np.array_equal(after[moved], before[cell])  # from the same pool, another stream
    pool = df.loc[(df["agent"] == "agent_1") & (df["task"] == "task_01"), "score"]
    relabelled = ("agent_1", new) if renamed == "tasks" else (new, "task_01")
    assert set(after[relabelled].ravel()) <= set(pool)  # agent_1 is not shifted


# ------------------------------------------------------------------------------------------------ option paths swept
# Swept (scratch: 40 option paths x score x and + 1e-6, 7.3, 1e6, rows shuffled, polars, pyarrow, agent/task/seed as
# categorical and string[pyarrow], agents and tasks renamed in reverse sort order and as integer codes, steps x 4,
# x 7.3, x 1e-6): every deterministic number held to 1e-9 (the mixed model's REML criterion moves by its log|c|
# offset, as test_metamorphic states). Names reversed or coded: the deterministic back ends held, each pair's numbers
# oriented (mixed with Kenward-Roger and Tukey, the Quade variant, Conover's post hoc, the task table's IQM and
# median, selection_check's poi and std_diff effects, percentiles with ties="mid", the profiles over tasks,
# probability of improvement's score interval, summarize_runs); those drawing from streams keyed by the names moved
# within Monte Carlo error, as stated for them (bootstrap, curves, tuning, equivalence's aggregate, AdaStop, bayes,
# the hierarchical model's chains among them: a prefix moves them alike). Equivalence's non-inferiority without
# control= tests the first agent in sort order against the second (said: "delta = 1st agent - 2nd agent"), so a
# reversed order asks the other question. read_logs: a CSV's rows shuffled read the same frame (with its note that
# steps go back), the scores x 7.3 and + 1e6 read as written. Found: power() on a pilot (above; fixed by powerstream34).
# The default run below keeps one combined transformation per case (score x 7.3 + 1e6, rows shuffled, the labels
# categorical and passed as a pyarrow Table: dictionary columns); the single ones run with -m slow.

F = "score ~ agent | task"


def _runs():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=4, effect=1.0, rng=0)
    df.attrs = {}
    drop = (((df.agent == "agent_2") & (df.task == "task_02") & (df.seed == 3))
            | ((df.agent == "agent_3") & (df.task == "task_04") & (df.seed >= 2)))
    return df[~drop].reset_index(drop=True)


def _balanced():
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=4, effect=1.0, rng=0)
    df.attrs = {}
    return df


def _one_run():
    df = rlstats.datasets.simulate(agents=4, tasks=7, seeds=1, effect=1.0, rng=0)
    df.attrs = {}
    return df


def _curves():
    from conftest import simulated_curves
    df = simulated_curves(tasks=2, steps=5)
    df["step"] = df["step"] + np.random.default_rng(3).integers(0, 20_000, len(df)) * (df["step"] > 0)
    return df


def _sweep():
    from conftest import lr_sweep
    return lr_sweep(categorical=True)


#: case -> (data, call(df, c, d)): c, d the score's scale and shift (options in the score's units move with them)
PATHS = {
    "task_table_iqm_fisher_pitman": (_runs, lambda df, c, d: rlstats.task_table(
        df, F, statistic="iqm", test="fisher_pitman", n_resamples=200, rng=1)),
    "task_table_median_per_pair": (_runs, lambda df, c, d: rlstats.task_table(
        df, F, statistic="median", effect_intervals="per_pair")),
    "task_table_iqm_bootstrap_aggregate": (_runs, lambda df, c, d: rlstats.task_table(
        df, F, statistic="iqm", aggregate="bootstrap", n_resamples=200, rng=1)),
    "curves_median": (_curves, lambda df, c, d: rlstats.curves(
        df, NESTED, step="step", statistic="median", n_resamples=100, rng=1)),
    "curves_mean_expanded_linear": (_curves, lambda df, c, d: rlstats.curves(
        df, NESTED, step="step", statistic="mean", bands="expanded", align="linear", n_resamples=100, rng=1)),
    "curves_optimality_gap": (_curves, lambda df, c, d: rlstats.curves(
        df, NESTED, step="step", statistic="optimality_gap", gamma=c + d, n_resamples=100, rng=1)),
    "equivalence_welch_mean": (_runs, lambda df, c, d: rlstats.equivalence(
        df, F, margin=0.5 * c, across="welch", aggregate="mean", n_resamples=200, rng=1)),
    "equivalence_noninferior": (_runs, lambda df, c, d: rlstats.equivalence(
        df, F, margin=0.5 * c, alternative="noninferior", control="agent_3", n_resamples=200, rng=1)),
    "equivalence_paired_control": (_runs, lambda df, c, d: rlstats.equivalence(
        df, F, margin=0.5 * c, across="paired_t", control="agent_2", n_resamples=200, rng=1)),
    "bayes_signed_rank_control": (_runs, lambda df, c, d: rlstats.bayes(
        df, F, rope=0.1 * c, control="agent_1", n_samples=2000, rng=1)),
    "mixed_kenward_roger_tukey": (_runs, lambda df, c, d: rlstats.mixed(df, NESTED, ddf="kenward-roger")),
    "mixed_lmertest_sidak": (_runs, lambda df, c, d: rlstats.mixed(df, NESTED, f_basis="lmertest", adjust="sidak")),
    "tuning_views": (_sweep, lambda df, c, d: rlstats.tuning(
        df, NESTED, config="lr", views=["expected_max", "best_set", "complete", "sensitivity"], budgets=[1, 2, 3],
        n_resamples=100, rng=1)),
    "tuning_lower_percentile": (_sweep, lambda df, c, d: rlstats.tuning(
        df, NESTED, config="lr", higher_is_better=False, band="percentile", n_resamples=100, rng=1)),
    "quade": (_runs, lambda df, c, d: rlstats.skillings_mack(df, F, variant="quade", within_cell="mean")),
    "conover_monte_carlo": (_one_run, lambda df, c, d: rlstats.skillings_mack(
        df, F, posthoc="conover", pvalue="monte_carlo", n_resamples=300, rng=1)),
    "adastop_reference_joint": (_balanced, lambda df, c, d: rlstats.adastop(
        df, F, n=2, K=2, reference="agent_1", permutations="joint", n_resamples=300, rng=1)),
    "permutation_pairwise": (_balanced, lambda df, c, d: rlstats.permutation(
        df, F, permutations="pairwise", n_resamples=300, rng=1)),
    "bootstrap_gap_task_bootstrap": (_runs, lambda df, c, d: rlstats.bootstrap(
        df, F, metrics=("optimality_gap", "median"), gamma=c + d, task_bootstrap=True, interval="percentile",
        n_resamples=200, rng=1)),
    "bootstrap_expanded_tasks": (_runs, lambda df, c, d: rlstats.bootstrap(
        df, F, metrics=("iqm", "mean"), interval="expanded_tasks", task_bootstrap=True, n_resamples=200, rng=1)),
    "improvement_percentile": (_runs, lambda df, c, d: rlstats.probability_of_improvement(
        df, F, interval="percentile", n_resamples=200, rng=1)),
    "profile_tasks_skew_t": (_runs, lambda df, c, d: rlstats.performance_profile(
        df, F, kind="tasks", tau=np.array([-1.0, 0.0, 1.0, 2.0]) * c + d, interval="skew_t", n_resamples=200, rng=1)),
    "profile_wilson_tasks": (_runs, lambda df, c, d: rlstats.performance_profile(
        df, F, interval="wilson_tasks", task_bootstrap=True, n_resamples=200, rng=1)),
    "percentiles_mid_pbp_t": (_runs, lambda df, c, d: rlstats.percentiles(
        df, F, ties="mid", interval="pbp_t", n_resamples=200, rng=1)),
    "selection_poi": (_runs, lambda df, c, d: rlstats.selection_check(
        df, F, treatment="agent_3", baseline="agent_1", reported=["task_01", "task_03"], effect="poi",
        n_resamples=199, rng=1)),
    "selection_std_diff": (_runs, lambda df, c, d: rlstats.selection_check(
        df, F, treatment="agent_3", baseline="agent_1", reported=["task_01", "task_03"], effect="std_diff",
        n_resamples=199, rng=1)),
    "summarize_last_k": (_curves, lambda df, c, d: rlstats.summarize_runs(
        df, NESTED, step="step", how="last_k_mean", k=2)),
    "summarize_auc_normalized": (_curves, lambda df, c, d: rlstats.summarize_runs(
        df, NESTED, step="step", how="auc", normalize_auc=True)),
    "summarize_time_to_threshold": (_curves, lambda df, c, d: rlstats.summarize_runs(
        df, NESTED, step="step", how="time_to_threshold", threshold=c + d)),
    "summarize_max_linear": (_curves, lambda df, c, d: rlstats.summarize_runs(
        df, NESTED, step="step", how="max", method="linear")),
}
#: the default run's cases (about 3 s together); the others run with -m slow
FAST_PATHS = ("task_table_iqm_fisher_pitman", "curves_median", "equivalence_welch_mean", "mixed_kenward_roger_tukey",
              "tuning_lower_percentile", "quade", "profile_tasks_skew_t", "selection_poi", "summarize_time_to_threshold")
#: numbers that move with the units by a stated offset, not a factor (REML: -2 log L moves by 2 (n - p) log|c|)
_OFFSET = {"reml_criterion"}
_LABELS = ("agent", "task", "seed", "agent_1", "agent_2", "next_agent")
#: each number follows one transform of the score's x c + d, named per column: "c" (a spread or a difference: times
#: c), "cd" (a level of the score: times c plus d) or, not named, unchanged (p-values, statistics, probabilities,
#: counts, steps, degrees of freedom; "1" where a spread below is unitless). A column whose transform depends on a
#: row's label names that label's column and a transform per value (bootstrap's metrics). These spreads and
#: differences are named for every case:
_SPREADS = dict.fromkeys(("std_dev", "std_error", "sigma", "sd_task", "sd_task_agent", "margin", "rope", "diff_low",
                          "diff_high", "diff_next_low", "diff_next_high", "boundary", "boundary_mc_se"), "c")
_LEVEL = dict.fromkeys(("estimate", "conf_low", "conf_high", "conf_low_simultaneous", "conf_high_simultaneous"), "cd")
_DIFFERENCE = dict.fromkeys(("estimate", "conf_low", "conf_high"), "c")
#: text that states a number in the score's units (equivalence's margin): its numbers follow x c
_TEXT_IN_UNITS = {"conclusion"}
_GAP_OR_MEDIAN = ("metric", {"optimality_gap": "c", "median": "cd"})
MOVES = {
    "task_table_iqm_fisher_pitman": {"estimate": "cd"},
    "task_table_median_per_pair": {"estimate": "cd"},
    "task_table_iqm_bootstrap_aggregate": {"estimate": "cd"},
    "curves_median": _LEVEL,
    "curves_mean_expanded_linear": _LEVEL,
    "curves_optimality_gap": _DIFFERENCE,
    "equivalence_welch_mean": _DIFFERENCE,
    "equivalence_noninferior": _DIFFERENCE,
    "equivalence_paired_control": _DIFFERENCE,
    "bayes_signed_rank_control": _DIFFERENCE,
    "mixed_kenward_roger_tukey": _DIFFERENCE,
    "mixed_lmertest_sidak": _DIFFERENCE,
    "tuning_views": {**_LEVEL, "score": "cd"},
    "tuning_lower_percentile": {**_LEVEL, "score": "cd"},
    "quade": {},
    "conover_monte_carlo": {},
    "adastop_reference_joint": {"estimate": "c"},
    "permutation_pairwise": {"estimate": "c"},
    "bootstrap_gap_task_bootstrap": dict.fromkeys(("estimate", "conf_low", "conf_high"), _GAP_OR_MEDIAN),
    "bootstrap_expanded_tasks": _LEVEL,
    "improvement_percentile": {},
    "profile_tasks_skew_t": {"tau": "cd"},
    "profile_wilson_tasks": {"tau": "cd"},
    "percentiles_mid_pbp_t": {},
    "selection_poi": {"std_error": "1"},  # the probability of improvement's
    "selection_std_diff": {"std_error": "1"},  # the standardised difference's
    "summarize_last_k": {"score": "cd"},
    "summarize_auc_normalized": {"score": "cd"},
    "summarize_time_to_threshold": {},  # the score is the step the threshold is reached at
    "summarize_max_linear": {"score": "cd"},
}


def _parts(out):
    if isinstance(out, pd.DataFrame):
        return {"frame": out}
    parts = {"tidy": out.tidy(), "glance": out.glance()}
    for view in ("expected_max", "best_set", "complete", "sensitivity"):
        if getattr(out, "config_columns", ()):
            try:
                parts[view] = getattr(out, view)()
            except rlstats.OptionError:
                pass
    return parts


def _numeric(series):
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _as_number(series):
    """An object column of numbers (and missing values) as floats; any other column as it is."""
    if series.dtype != object:
        return series
    values = [v for v in series.tolist() if not (v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)))]
    if values and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
                      for v in values):
        return pd.Series([np.nan if v is None or v is pd.NA else float(v) for v in series.tolist()],
                         index=series.index, dtype=float)
    return series


def _canonical(frame):
    """Object columns of numbers as floats; labels, booleans and text as text; rows in the order of their labels (a
    shuffle may list rows of equal keys otherwise)."""
    out = frame.reset_index(drop=True).copy()
    for column in out.columns:
        out[column] = _as_number(out[column])
        if column in _LABELS or not _numeric(out[column]):
            out[column] = [("NA" if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)) else str(v))
                           for v in out[column].tolist()]
    keys = [c for c in _LABELS if c in out.columns]
    return out.sort_values(keys, kind="stable").reset_index(drop=True) if keys else out


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")


def _in_units(text, other, c):
    """``other`` if it says ``text`` with each number times c (to the 6 digits printed), else ``text``."""
    numbers, others = [float(n) for n in _NUMBER.findall(text)], [float(n) for n in _NUMBER.findall(other)]
    same = _NUMBER.sub("#", text) == _NUMBER.sub("#", other) and len(numbers) == len(others)
    return other if same and np.allclose(others, np.multiply(numbers, c), rtol=1e-5, atol=0) else text


def _transform(case, frame, column, c, d):
    """The factor and shift each row of ``column`` follows (MOVES, _SPREADS; unchanged if named in neither)."""
    kind = MOVES[case].get(column, _SPREADS.get(column))
    kinds = ([kind] * len(frame) if not isinstance(kind, tuple)
             else [kind[1][value] for value in frame[kind[0]].tolist()])
    factor = np.array([1.0 if k in (None, "1") else c for k in kinds])
    shift = np.array([d if k == "cd" else 0.0 for k in kinds])
    return factor, shift


def _held(case, change, c, d):
    """Problems of the case's result on ``change(data)`` against its result on the data: each number follows its
    column's one transform (unchanged, times c, or times c plus d: MOVES) to 1e-9 (with a floor at 1e-12 of the
    numbers' size); labels, booleans and text unchanged."""
    data, call = PATHS[case]
    df = data()
    base = {k: _canonical(v) for k, v in _parts(call(df, 1.0, 0.0)).items()}
    other = {k: _canonical(v) for k, v in _parts(call(change(df), c, d)).items()}
    problems = []
    for part, a in base.items():
        b = other[part]
        assert list(a.columns) == list(b.columns) and len(a) == len(b), part
        for column in a.columns:
            if column in _OFFSET:
                continue
            if not (_numeric(a[column]) and _numeric(b[column])):
                said = a[column].tolist()
                if column in _TEXT_IN_UNITS:
                    said = [_in_units(u, v, c) for u, v in zip(said, b[column].tolist())]
                if said != b[column].tolist():
                    i = next(i for i, (u, v) in enumerate(zip(said, b[column])) if u != v)
                    problems.append(f"{part}[{column}] {said[i]!r} -> {b[column].iloc[i]!r}")
                continue
            factor, shift = _transform(case, a, column, c, d)
            x, y = a[column].to_numpy(float), b[column].to_numpy(float)
            if (np.isnan(x) != np.isnan(y)).any():
                problems.append(f"{part}[{column}] missing values")
                continue
            keep = ~np.isnan(x)
            x, y, factor, shift = x[keep], y[keep], factor[keep], shift[keep]
            floor = 1e-12 * (abs(c) + abs(d) + 1) * max(1.0, float(np.abs(x[np.isfinite(x)]).max(initial=0.0)))
            expected = factor * x + shift
            with np.errstate(invalid="ignore"):
                ok = (x == y) & np.isinf(x) | (np.abs(y - expected) <= 1e-9 * np.abs(expected) + floor)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                problems.append(f"{part}[{column}] {x[i]!r} -> {y[i]!r}, not {expected[i]!r}")
    return problems


def _combined(df):
    """Score x 7.3 + 1e6, rows shuffled, agent/task/seed as categoricals, as a pyarrow Table (dictionary columns)."""
    pa = pytest.importorskip("pyarrow")
    out = df.assign(score=df["score"] * 7.3 + 1e6).sample(frac=1.0, random_state=5).reset_index(drop=True)
    out = out.astype({k: "category" for k in ("agent", "task", "seed") if k in out})
    return pa.Table.from_pandas(out, preserve_index=False)


def _polars(df):
    return pytest.importorskip("polars").from_pandas(df)


SINGLE = {
    "scale_1e-06": (lambda df: df.assign(score=df["score"] * 1e-6), 1e-6, 0.0),
    "scale_1e+06": (lambda df: df.assign(score=df["score"] * 1e6), 1e6, 0.0),
    "shift_1e+06": (lambda df: df.assign(score=df["score"] + 1e6), 1.0, 1e6),
    "shift_7.3": (lambda df: df.assign(score=df["score"] + 7.3), 1.0, 7.3),
    "polars": (_polars, 1.0, 0.0),
    "string": (lambda df: df.astype({k: "string[pyarrow]" for k in ("agent", "task", "seed") if k in df}), 1.0, 0.0),
}


@pytest.mark.parametrize("case", [pytest.param(case, marks=[] if case in FAST_PATHS else [pytest.mark.slow])
                                  for case in PATHS])
def test_option_path_is_equivariant_in_another_frame_and_order(case):
    assert _held(case, _combined, 7.3, 1e6) == []


@pytest.mark.slow
@pytest.mark.parametrize("case", list(PATHS))
@pytest.mark.parametrize("transform", list(SINGLE))
def test_option_path_under_each_single_change(case, transform):
    change, c, d = SINGLE[transform]
    assert _held(case, change, c, d) == []


def test_the_check_finds_a_number_or_a_flag_that_moves_wrongly(monkeypatch):
    """A p-value times c, or a flag that flips, is a problem (audit s34 review: each number was let pass unchanged,
    x c or x c + d, and flags were not compared)."""
    data, call = PATHS["quade"]

    def wrong(df, c, d):
        tidy = call(df, c, d).tidy()
        return tidy.assign(p_value=tidy["p_value"] * c, withheld=[(not v) if c != 1 else v for v in tidy["withheld"]])

    monkeypatch.setitem(PATHS, "wrong", (data, wrong))
    monkeypatch.setitem(MOVES, "wrong", {})
    problems = _held("wrong", _combined, 7.3, 1e6)
    assert [p.split("]")[0] for p in problems] == ["frame[p_value", "frame[withheld"], problems
