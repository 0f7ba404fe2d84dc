"""Audit s33 (meta33): the metamorphic relations on the option paths and designs the earlier sweeps left out
(test_metamorphic, s24, s25, s30, s31: defaults, complete balanced designs and one non-default option at a time), and
the relabellings that move a task's or a run's place among the names sorted.

Swept (scratch, not committed: 58 cases x shuffle, x 1e3, x 1e-3, polars, pyarrow, object, string[pyarrow], names
prefixed, the rows shuffled under their own index, pyarrow-backed columns, reversed categories, integer codes and
agent_1/task_01 renamed; the strict relation at x 1e3 of every tidy and glance column, each either unchanged or scaled
to a relative 1e-12; seeds as floats, text, reversed categories and renamed; + 1000; higher_is_better=False on the
scores against True on minus them; int, float, text, categorical and string[pyarrow] labels that sort otherwise as text;
the command line on a CSV with its rows shuffled; tuning's weights= x 1000, x 1e-3, x 1e-200 and x 7; learning curves
logged at misaligned steps with the step x 1e3, x 1e-3 and x 7; 8 more of power() on unbalanced pilots, normalize=
reference tables, bounds= per task, held-out frames and concat() across libraries): the rank test on incomplete designs
with hommel/BH/BY adjustments, tie_correction=False, within_cell="median", Monte Carlo and exact p-values and Conover's
post hoc with higher_is_better=False; the permutation test with listed comparisons and a reference; the bootstrap on
unbalanced runs (basic, expanded, BCa on ties, rliable_compat, metric dicts, task_bootstrap with na_action="drop");
probability of improvement (pairs=, expanded, on ties, normalize="minmax"); profiles (percentile bands on ties, skew_t
over tasks, minmax); percentiles (ties="mid"/"le", self_payoff=0, identical=, higher_is_better=False); the task table
(median/IQM, Brunner-Munzel, Mann-Whitney, no adjustment, Bonferroni, fcr_normal, the bootstrap aggregate on an
incomplete design, minmax); the mixed model on unbalanced and incomplete designs (holm, scheffe, none, Kenward-Roger,
minmax); equivalence (paired_t across tasks, no aggregate on an incomplete design, non-inferiority with
higher_is_better=False, minmax); selection_check (higher_is_better=False, mu_gap= and sigma= in the score's units,
minmax); curves (align="linear" on misaligned steps, the median with compare="all", expanded and unwidened bands, a
steps= grid, minmax); summarize_runs and align_steps (linear, max, auc on a grid, time_to_threshold); tuning (weights=,
higher_is_better=False, holdout=, budgets=, minmax).

Held: every deterministic statistic under row order, frame library, label dtype and units, to the bit or to 1e-12
(the mixed model's Satterthwaite df and p-values to 5e-12 under x 1e3: its optimiser's path in other rounding, within
the suite's 1e-9). Found (strict xfails below, each a change of the random streams' layout or of the default grid, left
for the lead):

* a task renamed so that it sorts elsewhere (task_05 -> a_task_05) moves every agent's resamples: the bootstrap's
  intervals (up to 26% relative on the studentised default), probability of improvement's and the profiles'
  percentile bands, equivalence's aggregate interval, p-value and decision, and curves' bands. Each agent's stream
  is keyed by its label (resampling.agent_seed_sequence), but it is laid out over its runs with the tasks in their
  names' sorted order (bootstrap._api._agent_layout, curves._api._agent_runs), so which draw falls on which task
  follows the tasks' names. (bayes' signed-rank Dirichlet weights over tasks move alike; left to stream33, which holds
  bayes/_kernels.py and the permutation test's and AdaStop's per-task streams.) Tuning keys each sweep by its agent's
  and task's names and holds. Lead, after bootstream33 and curvestream33: each (agent, task) cell now draws from a
  stream keyed by the task's label below the agent's (resampling.cell_seed_sequence), so a task dropped or renamed
  leaves every other task's draws alone; the renamed task's own draws are its new name's, so an aggregate over tasks
  still moves with them (by at most 9.8% of the bootstrap intervals here, Monte Carlo error), and the strict xfail
  that asked every interval to stay was retired: the relation that holds is tested in
  tests/test_audit_s33_bootstream33.py and tests/test_audit_s33_curvestream33.py.
* seeds renamed alike in every cell (0 <-> 3, 1 <-> 2: the same runs, the same matching across agents and
  configurations) move curves' bands and tuning's tuned score (by 2x relative under higher_is_better=False): their
  runs are laid out in the seeds' sorted order (the bootstrap's, in score order, hold). Tried: curves' runs laid out
  in the order of their curves (np.lexsort over the grid's steps) makes the curves case pass, but fails 13 tests of
  the 17 curve test files run (pinned draws: the recorded outputs, s26's hand bootstrap, s32's former-key pins, s25's
  and s27's bands, test_curves' unfloored band; some 70 more files call curves), so it is the lead's call, with the
  task layout above.
* the default step grid's interval is the runs' median logging gap rounded to two significant digits in the step's
  units (runs.default_grid), so a factor other than a power of ten moves the grid against the logged steps: Atari's
  frames (4 x agent steps) give an area under the curve 1.016 x 4 x the one in steps (fixed in audit s34
  meta34: the interval is rounded in the steps' own unit, runs._step_grain).

Not violations, said here so that they are not hunted again: the mixed model's F-test denominator df moves (8.2631 to
8.2615) when the first agent in sort order changes, as lmerTest's does (mixed._kernels.agent_hypothesis pins the sorted
order for that reason); the task table's comparisons on a task where two agents tie for the best mean are against
the first of them in sort order; Monte Carlo paths draw other numbers on -score with higher_is_better=True than on the
score with False (a cell's runs are held in score order), the same test either way; labels renamed or retyped so that
they sort otherwise move deterministic statistics by rounding alone (at most 4e-13 relative, the mixed model's df: sums
over agents and tasks taken in another order).
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

import rlstats
import test_metamorphic as M
from conftest import lr_sweep, simulated_curves
from rlstats.cli import main

F = "score ~ agent | task"
NESTED = "score ~ agent | task/seed"


# ------------------------------------------------------------------------------------------------ designs

def _runs():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=4, effect=1.0, rng=0)
    df.attrs = {}
    return df


def _unbalanced():
    """_runs with 2 to 4 runs per cell: 4 runs dropped."""
    df = _runs()
    drop = (((df.agent == "agent_2") & (df.task == "task_02") & (df.seed == 3))
            | ((df.agent == "agent_3") & (df.task == "task_04") & (df.seed >= 2))
            | ((df.agent == "agent_1") & (df.task == "task_05") & (df.seed == 0)))
    return df[~drop].reset_index(drop=True)


def _incomplete():
    """_unbalanced without agent_3's runs on task_05 (an empty cell)."""
    df = _unbalanced()
    return df[~((df.agent == "agent_3") & (df.task == "task_05"))].reset_index(drop=True)


def _one_run_incomplete():
    """4 agents x 7 tasks x 1 run, two cells empty (the Skillings-Mack design)."""
    df = rlstats.datasets.simulate(agents=4, tasks=7, seeds=1, effect=1.0, rng=0)
    df.attrs = {}
    drop = ((df.agent == "agent_2") & (df.task == "task_03")) | ((df.agent == "agent_4") & (df.task == "task_06"))
    return df[~drop].reset_index(drop=True)


def _misaligned():
    """Learning curves whose runs log at their own steps (each jittered by up to 20k after step 0)."""
    df = simulated_curves(tasks=2, steps=5)
    df["step"] = df["step"] + np.random.default_rng(3).integers(0, 20_000, len(df)) * (df["step"] > 0)
    return df


def _weighted_sweep():
    return lr_sweep(categorical=True).assign(w=lambda d: np.where(d["task"] == "ant", 2.0, 1.0))


def _call(function, formula=F, difference=None, **options):
    """A public call with rng=1; ``difference``: options that are differences of scores (scaled by |c|)."""
    def call(df, transform):
        given = M._renamed(options, transform.names)
        for option, value in (difference or {}).items():
            given[option] = value * abs(transform.factor)
        return function(df, formula, rng=1, **given)
    return call


# ------------------------------------------------------------------------------------------------ option paths

#: case -> (data, call, tidy columns that scale with the score): option paths on unbalanced and incomplete designs
CASES = {
    "rank_incomplete_hommel_lower": (_one_run_incomplete, _call(rlstats.skillings_mack, higher_is_better=False,
                                                                adjustment="hommel"), ()),
    "rank_control_wilcoxon_lower": (_unbalanced, _call(rlstats.skillings_mack, control="agent_2", posthoc="wilcoxon",
                                                       higher_is_better=False, adjustment="bh"), ("estimate",)),
    "bootstrap_expanded_unbalanced": (_unbalanced, _call(rlstats.bootstrap, metrics=("mean",), interval="expanded",
                                                         n_resamples=100), ("estimate", "conf_low", "conf_high")),
    "task_table_median_bm": (_unbalanced, _call(rlstats.task_table, statistic="median", test="brunnermunzel",
                                                adjustment="bonferroni"), ("estimate",)),
    "task_table_iqm_lower": (_unbalanced, _call(rlstats.task_table, statistic="iqm", adjustment="none",
                                                higher_is_better=False, effect_intervals="fcr_normal"),
                             ("estimate",)),
    "mixed_incomplete_kr": (_incomplete, _call(rlstats.mixed, NESTED, adjust="none", ddf="kenward-roger"),
                            ("estimate", "std_error", "conf_low", "conf_high")),
    "equivalence_paired_unbalanced": (_unbalanced, _call(rlstats.equivalence, across="paired_t", aggregate="mean",
                                                         n_resamples=100, difference={"margin": 0.5}),
                                      ("estimate", "std_error", "conf_low", "conf_high", "margin")),
    "selection_gap_sigma": (_runs, _call(rlstats.selection_check, treatment="agent_3", baseline="agent_1",
                                         reported=["task_01", "task_02"], n_resamples=199,
                                         difference={"mu_gap": 0.3, "sigma": 1.0}), ()),
    "curves_linear_misaligned": (_misaligned, _call(rlstats.curves, NESTED, step="step", align="linear",
                                                    statistic="mean", n_resamples=100),
                                 ("estimate", "std_error", "conf_low", "conf_high")),
    "tuning_weights": (_weighted_sweep, _call(rlstats.tuning, NESTED, config="lr", weights="w", n_resamples=100),
                       ("estimate", "conf_low", "conf_high")),
}
for _case, (_data, _fn, _scaled) in CASES.items():
    M.CASES[f"s33_{_case}"] = (_data, _fn)
    if _scaled:
        M.SCALED[f"s33_{_case}"] = _scaled
M.SQUARED.add("s33_mixed_incomplete_kr")
M.LOG_LIKELIHOOD["s33_mixed_incomplete_kr"] = M.LOG_LIKELIHOOD["mixed"]
M.INFORMATIONAL["s33_mixed_incomplete_kr"] = M.INFORMATIONAL["mixed"]
M.ROW_ORDER["s33_mixed_incomplete_kr"] = M.ROW_ORDER["mixed"]

_BY_NAME = {t.name: t for t in M.TRANSFORMS}
TRANSFORMS = {
    "shuffle": _BY_NAME["shuffle"],
    "scale_1e+03": M.Transform("scale_1e+03", lambda df: M._with_score(df, df["score"] * 1e3), factor=1e3),
    "scale_1e-03": M.Transform("scale_1e-03", lambda df: M._with_score(df, df["score"] * 1e-3), factor=1e-3),
    "pyarrow": _BY_NAME["pyarrow"],
    "polars": _BY_NAME["polars"],
    "string": _BY_NAME["string"],
}
#: the transformations a case may take in the default run; the others run with -m slow
FAST = ("shuffle", "scale_1e+03", "pyarrow")
#: cases with options that are differences of scores (margin=, mu_gap=, sigma=), which move with a scaling
UNIT_CASES = {"equivalence_paired_unbalanced", "selection_gap_sigma"}


def _in_default_run(case, name):
    """Session 39 (the sweep cost 6 s of the default suite's CPU): one of FAST a case, in turn (case i of CASES the
    (i mod 3)-th), or the scaling where its options move with it (each case's x 1e3 is also run by
    test_every_number_is_unchanged_or_scaled_to_1e_12, on tidy and glance); the others with -m slow."""
    if name not in FAST:
        return False
    if case in UNIT_CASES:
        return name == "scale_1e+03"
    return FAST.index(name) == list(CASES).index(case) % len(FAST)


@pytest.mark.parametrize("case, transform", [
    pytest.param(case, name, id=f"{case}-{name}", marks=[] if _in_default_run(case, name) else [pytest.mark.slow])
    for case in CASES for name in TRANSFORMS])
def test_option_path_is_unchanged_or_exactly_transformed(case, transform):
    assert M.differences(f"s33_{case}", TRANSFORMS[transform]) == []


def _numeric(frame):
    return [c for c in frame.columns
            if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]


_TABLE = ("estimate", "std_dev", "diff_low", "diff_high", "diff_next_low", "diff_next_high")
_BANDS = ("estimate", "std_error", "conf_low", "conf_high", "conf_low_simultaneous", "conf_high_simultaneous")
#: case -> part -> the columns in the score's units (each other number is unit-free); the mixed model is left out: its
#: optimiser's path moves its df by 5e-12 in other rounding
STRICT = {
    "rank_incomplete_hommel_lower": {},
    "rank_control_wilcoxon_lower": {"tidy": ("estimate",)},
    "bootstrap_expanded_unbalanced": {"tidy": ("estimate", "conf_low", "conf_high")},
    "task_table_median_bm": {"tidy": _TABLE},
    "task_table_iqm_lower": {"tidy": _TABLE},
    "equivalence_paired_unbalanced": {"tidy": ("estimate", "std_error", "conf_low", "conf_high", "margin"),
                                      "glance": ("margin",)},
    "selection_gap_sigma": {"tidy": ("estimate", "std_error", "conf_low", "null_value"),
                            "glance": ("estimate", "statistic", "mean_reported", "mean_heldout", "mu_gap")},
    "curves_linear_misaligned": {"tidy": _BANDS},
    "tuning_weights": {"tidy": ("estimate", "conf_low", "conf_high")},
}


@pytest.mark.parametrize("case", list(STRICT))
def test_every_number_is_unchanged_or_scaled_to_1e_12(case):
    """The strict relation: each tidy and glance number either unchanged or times 1000, to a relative 1e-12, and the
    scaled ones exactly those in the score's units (the suite's either-or relation of single numbers would let a
    p-value scale)."""
    data, call, _ = CASES[case]
    df = data()
    base = call(df, M.IDENTITY)
    other = call(M._with_score(df, df["score"] * 1e3), TRANSFORMS["scale_1e+03"])
    for part in ("tidy", "glance"):
        a, b = getattr(base, part)(), getattr(other, part)()
        for column in _numeric(a):
            factor = np.where(a[column].notna(), 1e3 if column in STRICT[case].get(part, ()) else 1.0, 1.0)
            if case == "selection_gap_sigma" and part == "tidy" and column == "statistic":
                factor = np.where(a["term"] == "inspector", 1e3, 1.0)  # the inspector's is the gap, the t unit-free
            np.testing.assert_allclose(b[column].to_numpy(float), factor * a[column].to_numpy(float), rtol=1e-12,
                                       atol=0, err_msg=f"{part}[{column}]")


# ------------------------------------------------------------------------------------------------ higher_is_better

#: deterministic paths: higher_is_better=False on the scores is higher_is_better=True on minus them
LOWER = {
    "skillings_mack": (_one_run_incomplete, lambda d, h: rlstats.skillings_mack(d, F, higher_is_better=h), ()),
    # (the estimate against the control is oriented by higher_is_better: the same either way)
    "rank_control": (_unbalanced, lambda d, h: rlstats.skillings_mack(d, F, higher_is_better=h, control="agent_2"),
                     ()),
    "task_table": (_unbalanced, lambda d, h: rlstats.task_table(d, F, higher_is_better=h), ("estimate",)),
    "percentiles": (_unbalanced, lambda d, h: rlstats.percentiles(d, F, higher_is_better=h, interval="pbp_t",
                                                                  n_resamples=100, rng=1), ()),
}


@pytest.mark.parametrize("case", list(LOWER))
def test_lower_is_better_is_higher_is_better_on_minus_the_scores(case):
    data, call, negated = LOWER[case]
    df = data()
    a, b = call(df, False), call(df.assign(score=-df["score"]), True)
    for part in ("tidy", "glance"):
        x, y = getattr(a, part)(), getattr(b, part)()
        assert list(x.columns) == list(y.columns)
        for column in x.columns:
            if column in _numeric(x):
                sign = -1.0 if column in negated else 1.0
                np.testing.assert_allclose(y[column].to_numpy(float), sign * x[column].to_numpy(float), rtol=1e-12,
                                           atol=0, err_msg=f"{part}[{column}]")
            else:
                assert x[column].astype(str).tolist() == y[column].astype(str).tolist(), f"{part}[{column}]"


def test_tuning_weights_are_relative_in_any_units():
    df = _weighted_sweep().assign(w=lambda d: d["lr"].map({0.001: 1.0, 0.01: 3.0, 0.1: 0.5}).astype(float))
    base = rlstats.tuning(df, NESTED, config="lr", weights="w", n_resamples=100, rng=1)
    for factor in (1e3, 7.0, 1e-200):
        other = rlstats.tuning(df.assign(w=df["w"] * factor), NESTED, config="lr", weights="w", n_resamples=100,
                               rng=1)
        pd.testing.assert_frame_equal(other.tidy(), base.tidy(), rtol=1e-12)
        assert str(other) == str(base)


# ------------------------------------------------------------------------------------------------ the command line

def _command(path, method, fmt, options):
    out = io.StringIO()
    status = main(["compare", str(path), NESTED if method == "mixed" else F, "--method", method, "--seed", "1",
                   "--format", fmt, "--no-progress", *options], out=out)
    assert status == 0
    return out.getvalue()


@pytest.mark.parametrize("method, options", [
    ("task_table", ["-o", "higher_is_better=False", "-o", "test=mannwhitney"]),
    ("bootstrap", ["-o", "n_resamples=100", "-o", "interval=basic"]),
    ("equivalence", ["-o", "margin=1", "-o", "n_resamples=100"]),
    ("skillings_mack", ["-o", "pvalue=monte_carlo", "-o", "n_resamples=200"]),
])
def test_the_command_reads_a_shuffled_csv_as_the_ordered_one(tmp_path, method, options):
    df = _unbalanced()
    df.to_csv(tmp_path / "a.csv", index=False)
    df.sample(frac=1.0, random_state=3).to_csv(tmp_path / "b.csv", index=False)
    for fmt in ("text", "json"):
        a, b = (_command(tmp_path / f"{name}.csv", method, fmt, options) for name in "ab")
        if fmt == "json":
            a, b = json.loads(a), json.loads(b)
        assert a == b


# ------------------------------------------------------------------------------------------------ found: left

def _seeds_reversed(df):
    seeds = sorted(df["seed"].unique())
    return df.assign(seed=df["seed"].map(dict(zip(seeds, seeds[::-1]))))


@pytest.mark.parametrize("case", ["curves", "tuning"])
def test_renaming_the_seeds_leaves_the_result(case):
    if case == "curves":
        def call(d):
            return rlstats.curves(d, NESTED, step="step", n_resamples=200, rng=1).tidy()
        df = simulated_curves(tasks=2, steps=4)
    else:
        def call(d):
            return rlstats.tuning(d, NESTED, config="lr", higher_is_better=False, n_resamples=100, rng=1).tidy()
        df = lr_sweep(categorical=True)
    pd.testing.assert_frame_equal(call(_seeds_reversed(df)), call(df), rtol=1e-12)


def _frames_logged():
    """Two agents on one task, 3 runs each logged every 1,630 agent steps with up to 40 steps of jitter."""
    rng = np.random.default_rng(0)
    rows = [(agent, "pong", seed, k * 1630 + (int(rng.integers(0, 40)) if k else 0), gain * k + rng.normal(0, 0.3))
            for agent, gain in (("dqn", 1.0), ("ppo", 1.5)) for seed in range(3) for k in range(7)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_frames_for_steps_scale_the_area_under_the_curve():
    """Fixed in audit s34 meta34: the interval is rounded in the steps' own unit (runs._step_grain)."""
    df = _frames_logged()
    steps = rlstats.summarize_runs(df, NESTED, step="step", how="auc")
    frames = rlstats.summarize_runs(df.assign(step=df["step"] * 4), NESTED, step="step", how="auc")
    np.testing.assert_allclose(frames["score"], 4 * steps["score"], rtol=1e-12)


def test_frames_for_steps_scale_the_area_under_the_curve_by_a_power_of_ten():
    """What holds today: a factor that is a power of ten keeps the grid's place among the logged steps."""
    df = _frames_logged()
    steps = rlstats.summarize_runs(df, NESTED, step="step", how="auc")
    tenfold = rlstats.summarize_runs(df.assign(step=df["step"] * 10), NESTED, step="step", how="auc")
    np.testing.assert_allclose(tenfold["score"], 10 * steps["score"], rtol=1e-12)
