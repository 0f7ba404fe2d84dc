"""Audit s25 (meta25): the metamorphic relations of tests/test_metamorphic.py on the paths earlier sweeps left out:
AdaStop with ``batch=`` and run batch by batch (:class:`rlstats.AdaStop`), ``summarize_runs(how="time_to_threshold")``
and ``how="max"``, ``selection_check`` with ``heldout=`` (a list of tasks or a frame of fresh runs, and the z, Welch,
gap and bounds options), ``power`` and ``sample_size`` of AdaStop, the permutation test and the bootstrap from a
pilot, and ``normalize`` with a reference frame.

Each case is compared whole (tidy, glance, to_dict, warnings and every printed text with its numbers parsed: test
metamorphic's own comparison) under a row shuffle, the score times 1000 and times 1e-3, the score moved by 1000, the
names prefixed, a polars frame and an index that is not a RangeIndex; options in the score's units (thresholds,
bounds, margins, the gap, a known sd) move with the score.  A reversed category order (which sets the order results
list agents and tasks in) is compared without regard to order: the tidy rows matched by their names, the printed
words and numbers as multisets.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import rlstats
import test_metamorphic as M


# ------------------------------------------------------------------------------------------------ defects found

def _three_batches():
    """3 agents on one task, 15 runs each in 3 batches of 5 (column ``batch``)."""
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=15, effect=[0.0, 0.5, 1.5], rng=6)
    df.attrs = {}
    return df.assign(batch=df["seed"] // 5 + 1).drop(columns="seed")


def _fed(df, **options):
    """AdaStop fed ``df``'s batches in turn, each with the agents it asks for."""
    test = rlstats.AdaStop(["agent_1", "agent_2", "agent_3"], n=5, K=3, n_resamples=200, rng=3, **options)
    for b in (1, 2, 3):
        if test.done:
            break
        rows = df[(df["batch"] == b) & df["agent"].astype(str).isin(test.agents_to_run)]
        test.update(rows.drop(columns="batch"))
    return test.result()


# AdaStop's result listed each batch's runs in the order they were fed (result().scores, to_dict()["scores"]), so
# the same batches with their rows in another order gave another result: agent_1's first batch read 11.337, 6.961,
# 4.450, 6.410, 17.589 as fed and 6.961, 4.450, 11.337, 6.410, 17.589 shuffled; adastop(batch=) lists them in score
# order within a batch, as the test takes them (its decisions did not change). Now both list them so.
def test_incremental_scores_do_not_follow_the_batch_row_order():
    df = _three_batches()
    # the joint relabelling (the default before audit s29b), whose decisions are pinned below
    a, b = _fed(df, permutations="joint"), _fed(M._shuffle(df), permutations="joint")
    pd.testing.assert_frame_equal(a.scores, b.scores)
    assert a.to_dict()["scores"] == b.to_dict()["scores"]
    one_shot = rlstats.adastop(df, "score ~ agent", n=5, K=3, batch="batch", n_resamples=200, rng=3,
                               permutations="joint")
    pd.testing.assert_frame_equal(a.scores, one_shot.scores)
    first = a.scores[(a.scores["agent"] == "agent_1") & (a.scores["interim"] == 1)]["score"]
    np.testing.assert_allclose(first, [4.450074121822811, 6.410036501690238, 6.960787575559828, 11.3374742742986,
                                       17.588521443975992], rtol=1e-15)
    pd.testing.assert_frame_equal(a.decisions, one_shot.decisions)
    assert a.decisions["decision"].tolist() == ["equal", "smaller", "equal"]



# selection_check's permutation inspector drew its random subsets by the tasks' positions in the design's order, which
# a Categorical's level order sets: the same rows with the task levels reversed gave p = 0.34 instead of 0.395
# (rng=1, 199 subsets of C(10, 4) = 210; a row shuffle kept 0.395). Each set's effects now enter in value order.
def test_selection_inspector_draws_do_not_follow_the_task_level_order():
    df = _runs10()
    call = _selection(True, held=[f"task_{k:02d}" for k in range(5, 11)], reported=[f"task_0{k}" for k in range(1, 5)],
                      n_resamples=199)
    results = [call(frame, M.IDENTITY) for frame in (df, _reversed_levels(df), M._shuffle(df))]
    assert results[0].pvalue_method == "monte_carlo"
    assert [r.pvalue for r in results] == [0.365] * 3  # (1 + 72) / 200
    # against the exact p-value, every one of the 210 subsets enumerated independently: 76 / 210
    means = df.groupby(["task", "agent"], observed=True)["score"].mean().unstack()
    effects = (means["agent_3"] - means["agent_1"]).to_numpy()
    sums = np.array([effects[list(c)].sum() for c in itertools.combinations(range(10), 4)])
    exact = np.mean(sums >= effects[:4].sum() - 1e-9)
    assert exact == pytest.approx(76 / 210, abs=1e-15)
    assert abs(results[0].pvalue - exact) < 2 * results[0].pvalue_mc_se
    enumerated = _selection(True, held=[f"task_{k:02d}" for k in range(5, 11)],
                            reported=[f"task_0{k}" for k in range(1, 5)], n_resamples=210)(df, M.IDENTITY)
    assert enumerated.pvalue_method == "exact" and enumerated.pvalue == pytest.approx(exact, rel=1e-15)

# ------------------------------------------------------------------------------------------------ the sweep

def _runs6():
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=1.0, rng=0)
    df.attrs = {}
    return df


def _runs10():
    df = rlstats.datasets.simulate(agents=3, tasks=10, seeds=2, effect=1.0, rng=2)
    df.attrs = {}
    return df


def _two_batches():
    """3 agents on 2 tasks, 10 runs each in 2 batches of 5 (column ``batch``)."""
    df = rlstats.datasets.simulate(agents=3, tasks=2, seeds=10, effect=[0.0, 0.5, 1.5], rng=6)
    df.attrs = {}
    return df.assign(batch=df["seed"] // 5 + 1).drop(columns="seed")


def _pilot():
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, effect=0.5, rng=0)
    df.attrs = {}
    return df


def _curves(tasks):
    def data():
        return M.simulated_curves(tasks=tasks, steps=6)
    return data


def _units(transform, value):
    """An option in the score's units: scaled and moved with it (not with the steps)."""
    return value * transform.factor + transform.shift if transform.column == "score" else value


def _difference(transform, value):
    """An option that is a difference of scores: scaled by |c|, never moved."""
    return value * abs(transform.factor) if transform.column == "score" else value


def _is_pandas(df):
    return isinstance(df, pd.DataFrame)


def _rows(df, keep):
    """``df``'s rows where the boolean numpy array ``keep`` holds, in its own library; a pandas Categorical keeps no
    unused level (as a polars frame's filter does not), so both say the same of the rows kept."""
    if _is_pandas(df):
        out = df[keep]
        return out.assign(**{c: out[c].cat.remove_unused_categories() for c in ("agent", "task")
                             if isinstance(out[c].dtype, pd.CategoricalDtype)})
    pl = pytest.importorskip("polars")
    return df.filter(pl.Series(keep))


def _column(df, name):
    return (df[name] if _is_pandas(df) else df[name].to_pandas()).astype(str).to_numpy()


def _adastop_batches(df, transform):
    return rlstats.adastop(df, "score ~ agent | task", n=5, batch="batch", n_resamples=200, rng=3)


def _adastop_incremental(df, transform):
    """AdaStop fed the batches in turn (each in the frame's own library), as the experiments would run."""
    test = rlstats.AdaStop([transform.names(a) for a in ("agent_1", "agent_2", "agent_3")], n=5, K=3,
                           n_resamples=200, rng=3)
    batch, agent = _column(df, "batch"), _column(df, "agent")
    for b in ("1", "2", "3"):
        if test.done:
            break
        rows = _rows(df, (batch == b) & np.isin(agent, test.agents_to_run))
        test.update(rows.drop(columns="batch") if _is_pandas(rows) else rows.drop("batch"))
    return test.result()


def _time_to_threshold(df, transform):
    return rlstats.summarize_runs(df, "score ~ agent | task/seed", step="step", how="time_to_threshold",
                                  threshold=_units(transform, 62.0))


def _time_to_thresholds(df, transform):  # one threshold per task, on the tasks' own scales
    return rlstats.summarize_runs(df, "score ~ agent | task/seed", step="step", how="time_to_threshold",
                                  threshold={transform.names("task_01"): _units(transform, 62.0),
                                             transform.names("task_02"): _units(transform, 1.0)})


def _max(df, transform):
    return rlstats.summarize_runs(df, "score ~ agent | task/seed", step="step", how="max")


FRESH = ("task_04", "task_05", "task_06")


def _selection(split=False, held=FRESH, **options):
    """selection_check of agent_3 against agent_1; ``split``: the ``held`` tasks given as a frame of fresh runs (else
    as a list); ``options`` may be functions of the transformation (options in the score's units)."""
    def call(df, transform):
        given = {k: v(transform) if callable(v) else v for k, v in options.items()}
        fresh = np.isin(_column(df, "task"), [transform.names(t) for t in held])
        reported = [transform.names(t) for t in given.pop("reported", ("task_01", "task_02"))]
        data, heldout = ((_rows(df, ~fresh), _rows(df, fresh)) if split
                         else (df, [transform.names(t) for t in held]))
        return rlstats.selection_check(data, "score ~ agent | task", treatment=transform.names("agent_3"),
                                       baseline=transform.names("agent_1"), reported=reported, heldout=heldout,
                                       rng=1, **given)
    return call


def _planning(function, method, **options):
    """power() or sample_size() of ``method`` from the pilot, agent_2 shifted by 1 within-cell SD (unitless)."""
    def call(df, transform):
        given = {"seeds": [3, 5]} if function is rlstats.power else {"target_power": 0.5, "max_seeds": 6}
        given.update(options)
        return function(method, design=df, formula="score ~ agent | task", effect=1.0,
                        shifted_agent=transform.names("agent_2"), n_sim=10, rng=1, progress=False, **given)
    return call


def _reference(transform):
    """Each task's random and human score in the score's units (moved with the score)."""
    return pd.DataFrame({"task": [transform.names(f"task_0{k}") for k in range(1, 7)],
                         "random": [_units(transform, v) for v in (-10.0, 0.0, 5.0, 0.0, 5.0, 0.0)],
                         "human": [_units(transform, v) for v in (20.0, 5.0, 15.0, 2.0, 8.0, 8.0)]})


def _normalize_reference(df, transform):
    return rlstats.normalize(df, _reference(transform))


def _bootstrap_reference(df, transform):
    """bootstrap(normalize=) a reference frame: the normalised scores are unit-free, so are the intervals."""
    return rlstats.bootstrap(df, "score ~ agent | task", normalize=_reference(transform), metrics=("iqm", "mean"),
                             n_resamples=100, rng=1)


def _runs5():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, effect=1.0, rng=0)
    df.attrs = {}
    return df


#: bounds at _runs5's smallest and largest score, so that intervals reach them (moved with the score; read off the
#: data: numpy versions draw them a few ulps apart)
LOW, HIGH = float(_runs5()["score"].min()), float(_runs5()["score"].max())


def _bounds(transform):
    return (_units(transform, LOW), _units(transform, HIGH))


def _fractions():
    """_runs5's scores as a share of each task's best run, in (0, 1]: intervals at bounds (0, 1) reach them and are
    clipped (the bootstrap's of every metric, task_table's of the differences), as at LOW, HIGH none was (audit s25
    review25b: an off-by-0.5 lower bound in bounds.clip passed both cases under every scale)."""
    df = _runs5()
    return df.assign(score=df["score"] / df.groupby("task", observed=True)["score"].transform("max"))


def _unit_bounds(transform):
    return (_units(transform, 0.0), _units(transform, 1.0))


def _published(df, transform):
    """agent_1's per-task mean, sd and runs as a published table (in the score's units)."""
    frame = df if _is_pandas(df) else df.to_pandas()
    runs = frame[frame["agent"].astype(str) == transform.names("agent_1")].groupby("task", observed=True)["score"]
    table = pd.DataFrame({"mean": runs.mean(), "sd": runs.std(), "n": runs.size()}).reset_index()
    return table.astype({"task": str})


def _equivalence_published(df, transform):
    """agent_2 and agent_3 against agent_1's published table."""
    others = _rows(df, _column(df, "agent") != transform.names("agent_1"))
    return rlstats.equivalence(others, "score ~ agent | task", published=_published(df, transform),
                               margin=_difference(transform, 1.0), rng=1)


def _with(function, formula="score ~ agent | task", **options):
    """A call whose ``options`` may be functions of the transformation (options in the score's units)."""
    def call(df, transform):
        return function(df, formula, **{k: v(transform) if callable(v) else v for k, v in options.items()})
    return call


#: case -> (data, call(df, transform), tidy or frame columns that scale with the score)
SWEEP = {
    "adastop_batch": (_two_batches, _adastop_batches, ("estimate",)),
    "adastop_incremental": (_three_batches, _adastop_incremental, ("estimate",)),
    "time_to_threshold": (_curves(1), _time_to_threshold, ()),
    "time_to_threshold_per_task": (_curves(2), _time_to_thresholds, ()),
    "summarize_max": (_curves(2), _max, ("score",)),
    "selection_heldout_list": (_runs6, _selection(n_resamples=199), ()),
    "selection_heldout_frame": (_runs6, _selection(True, inspector="welch", reporter="t",
                                                   mu_gap=lambda t: _difference(t, 0.2)), ()),
    "selection_heldout_z": (_runs6, _selection(True, reported=("task_01", "task_02", "task_03"), inspector="z",
                                               reporter="z", sigma=lambda t: _difference(t, 1.0), n_candidates=6,
                                               n_resamples=199), ()),
    "selection_heldout_bounds": (_runs6, _selection(bounds=lambda t: (_units(t, -20.0), _units(t, 40.0)),
                                                    sigma="pooled", reporter="wilcoxon", n_resamples=199), ()),
    # C(10, 4) = 210 subsets, more than n_resamples: drawn at random
    "selection_heldout_drawn": (_runs10, _selection(True, held=[f"task_{k:02d}" for k in range(5, 11)],
                                                    reported=[f"task_0{k}" for k in range(1, 5)], n_resamples=199),
                                ()),
    "selection_heldout_poi": (_runs6, _selection(True, effect="poi", n_resamples=199), ()),
    "power_adastop": (_pilot, _planning(rlstats.power, "adastop", n_resamples=100, K=2, seeds=[4, 6]), ()),
    "power_permutation": (_pilot, _planning(rlstats.power, "permutation", n_resamples=100), ()),
    "power_bootstrap": (_pilot, _planning(rlstats.power, "bootstrap", n_resamples=50), ()),
    "power_bootstrap_pooled": (_pilot, _planning(rlstats.power, "bootstrap", n_resamples=50, resample="pooled",
                                                 metric="mean"), ()),
    "sample_size_adastop": (_pilot, _planning(rlstats.sample_size, "adastop", n_resamples=100, K=2), ()),
    "sample_size_permutation": (_pilot, _planning(rlstats.sample_size, "permutation", n_resamples=100), ()),
    "sample_size_bootstrap": (_pilot, _planning(rlstats.sample_size, "bootstrap", n_resamples=50), ()),
    "normalize_reference": (_runs6, _normalize_reference, ()),
    # options in the score's units that no sweep moved with it: thresholds, bounds, a published table
    "profile_tau": (_runs5, _with(rlstats.performance_profile, tau=lambda t: [_units(t, v) for v in (0, 2, 5, 10)],
                                  n_resamples=100, rng=1), ("tau",)),
    "equivalence_published": (_runs5, _equivalence_published, ("estimate", "conf_low", "conf_high", "margin")),
    "bootstrap_bounds": (_fractions, _with(rlstats.bootstrap, bounds=_unit_bounds, gamma=lambda t: _units(t, 0.9),
                                           n_resamples=100, rng=1), ("estimate", "conf_low", "conf_high")),
    "percentiles_bounds": (_runs5, _with(rlstats.percentiles, bounds=_bounds, interval="pbp_t", rng=1), ()),
    "task_table_bounds": (_fractions, _with(rlstats.task_table, bounds=_unit_bounds, rng=1), ("estimate",)),
    "mixed_bounds": (_runs5, _with(rlstats.mixed, "score ~ agent | task/seed", bounds=_bounds),
                     ("estimate", "std_error", "conf_low", "conf_high")),
    "curves_bounds": (_curves(2), _with(rlstats.curves, "score ~ agent | task/seed", step="step",
                                        bounds=lambda t: (_units(t, 0.0), _units(t, 70.0)), bands="expanded",
                                        n_resamples=100, rng=1), ("estimate", "conf_low", "conf_high")),
    "tuning_bounds": (lambda: M.lr_sweep(categorical=True),
                      _with(rlstats.tuning, "score ~ agent | task/seed", config="lr",
                            bounds=lambda t: (_units(t, -5.0), _units(t, 5.0)), n_resamples=100, rng=1),
                      ("estimate", "conf_low", "conf_high")),
    "align_steps_linear": (_curves(2), _with(rlstats.align_steps, "score ~ agent | task/seed", step="step",
                                             steps=[0, 150_000, 500_000, 1_000_000], method="linear"), ("score",)),
    "auc_normalized": (_curves(2), _with(rlstats.summarize_runs, "score ~ agent | task/seed", step="step", how="auc",
                                         normalize_auc=True), ("score",)),
    # other options no sweep reached
    "percentiles_identical": (_runs5, lambda df, t: rlstats.percentiles(
        df, "score ~ agent | task", interval="pbp_t", self_payoff=0.4, rng=1,
        identical=[(t.names("agent_1"), t.names("agent_2"), t.names("task_02"))]), ()),
    "task_table_per_pair": (_runs5, _with(rlstats.task_table, effect_intervals="per_pair", rng=1), ("estimate",)),
    "bayes_orderings": (_runs5, _with(rlstats.bayes, rope=lambda t: _difference(t, 0.2), orderings=True, n_samples=500,
                                      rng=1), ("estimate", "conf_low", "conf_high", "rope")),
    "curves_compare": (_curves(2), _with(rlstats.curves, "score ~ agent | task/seed", step="step", compare="all",
                                         n_resamples=100, rng=1), ("estimate", "conf_low", "conf_high")),
    "profile_tasks": (_runs5, _with(rlstats.performance_profile, kind="tasks", n_resamples=100, rng=1,
                                    tau=lambda t: [_units(t, v) for v in (0, 2, 5, 10)]), ("tau",)),
    "tuning_holdout": (lambda: M.lr_sweep(categorical=True).assign(heldout=lambda d: d["seed"] == 3),
                       _with(rlstats.tuning, "score ~ agent | task/seed", config="lr", holdout="heldout",
                             n_resamples=100, rng=1), ("estimate", "conf_low", "conf_high")),
    # higher_is_better=False: every sign and rank turned
    "task_table_lower": (_runs5, _with(rlstats.task_table, higher_is_better=False, rng=1), ("estimate",)),
    "percentiles_lower": (_runs5, _with(rlstats.percentiles, higher_is_better=False, interval="pbp_t", rng=1), ()),
    "rank_test_lower": (_runs5, _with(rlstats.skillings_mack, higher_is_better=False, rng=1), ()),
    "equivalence_lower": (_runs5, _with(rlstats.equivalence, higher_is_better=False,
                                        margin=lambda t: _difference(t, 1.0), n_resamples=100, rng=1),
                          ("estimate", "conf_low", "conf_high", "margin")),
    "bootstrap_normalize_reference": (_runs6, _bootstrap_reference, ()),
}
for _case, (_data, _call, _scaled) in SWEEP.items():
    M.CASES[f"s25_{_case}"] = (_data, _call)
    if _scaled:
        M.SCALED[f"s25_{_case}"] = _scaled
M.ROW_ORDER["s25_normalize_reference"] = ()  # the frame itself: the data with the scores normalised
M.SQUARED.add("s25_mixed_bounds")  # as the mixed model's contract case: variances, the REML criterion, fitted values
M.LOG_LIKELIHOOD["s25_mixed_bounds"] = M.LOG_LIKELIHOOD["mixed"]
M.INFORMATIONAL["s25_mixed_bounds"] = M.INFORMATIONAL["mixed"]
M.ROW_ORDER["s25_mixed_bounds"] = M.ROW_ORDER["mixed"]


def _index(df):
    """The rows under an index of text labels in reverse order (not a RangeIndex)."""
    return df.set_axis(pd.Index([f"r{i}" for i in range(len(df))][::-1]), axis=0)


_BY_NAME = {t.name: t for t in M.TRANSFORMS}
TRANSFORMS = {
    "shuffle": _BY_NAME["shuffle"],
    "scale_1e+03": M.Transform("scale_1e+03", lambda df: M._with_score(df, df["score"] * 1e3), factor=1e3),
    "scale_1e-03": M.Transform("scale_1e-03", lambda df: M._with_score(df, df["score"] * 1e-3), factor=1e-3),
    "shift": _BY_NAME["shift"],
    "prefix": _BY_NAME["prefix"],
    "polars": _BY_NAME["polars"],
    "index": M.Transform("index", _index),
}
#: (case, transformation) -> (why the result may change, the parts that may: prefixes of the problems' places)
CHANGES = {(case, "prefix"): (M._KEYED + "; power() runs bootstrap() on each simulated data set, so its rates are "
                               "other Monte Carlo estimates of the same power",
                               ("print", "summary", "report", "markdown", "tidy", "glance", "dict", "warnings"))
           for case in ("power_bootstrap", "power_bootstrap_pooled", "sample_size_bootstrap",
                        "bootstrap_normalize_reference", "bootstrap_bounds", "equivalence_lower")}
CHANGES["mixed_bounds", "shift"] = M.CHANGES["mixed", "shift"]
# slow35: the draws keyed by labels since this sweep was written move under renamed names (the prefix) in the cases
# below, as test_metamorphic.CHANGES says of curves, tuning and bayes; each part listed is read off the draws, the
# estimates and the data's own figures stay (measured on today's main: 13-5,028 places each, all in these parts)
_PRINTED = ("print", "summary", "report", "markdown")
_PILOT = ("each pilot cell's simulated runs come from a stream keyed by its agent's and task's labels (audit s34 "
          "powerstream34, 94c33674): other names draw other data sets, whose rates are other Monte Carlo estimates")
_POWER_PARTS = _PRINTED + ("tidy[power]", "tidy[std_error]", "tidy[conf_low]", "tidy[conf_high]", "dict.table.data")
CHANGES.update({
    ("power_adastop", "prefix"): (_PILOT, _POWER_PARTS),
    ("power_permutation", "prefix"): (_PILOT, _POWER_PARTS),
    ("sample_size_adastop", "prefix"): (_PILOT, _POWER_PARTS + ("dict.sample_size", "glance[sample_size")),
    ("sample_size_permutation", "prefix"): (_PILOT, _POWER_PARTS + ("dict.sample_size", "glance[sample_size")),
    ("adastop_batch", "prefix"): (
        "AdaStop's permutations of each task's runs come from a stream keyed by the task's label (audit s33): other "
        "names draw other permutations, so the boundaries and the decisions they give",
        _PRINTED + ("dict.decisions", "dict.history", "dict.holm_levels", "dict.notes", "dict.steps", "glance[n_",
                    "tidy[boundary", "tidy[decision]")),
    ("curves_bounds", "prefix"): (M._KEYED, _PRINTED + (
        "tidy[std_error]", "tidy[conf_low", "tidy[conf_high", "dict.pointwise", "dict.simultaneous",
        "dict.critical_value", "dict.df", "dict.std_error")),
    ("curves_compare", "prefix"): (M._KEYED, _PRINTED + (
        "tidy[conf_low", "tidy[conf_high", "dict.pointwise", "dict.simultaneous", "dict.critical_value", "dict.df",
        "dict.difference_bands", "dict.difference_pvalues")),
    ("tuning_bounds", "prefix"): (M.CHANGES["tuning_views", "prefix"][0], _PRINTED + (
        "tidy[estimate]", "tidy[conf_low]", "dict.tables.best_set", "dict.tables.tuned", "best_set[", "tuned[")),
    ("tuning_holdout", "prefix"): (M.CHANGES["tuning_views", "prefix"][0], _PRINTED + (
        "tidy[estimate]", "tidy[conf_low]", "dict.tables.best_set", "dict.tables.tuned", "best_set", "tuned[")),
    ("bayes_orderings", "prefix"): M.CHANGES["bayes", "prefix"],
})


#: the transformations of the default run; the others (covered there by their neighbours: another scale, the index of
#: a shuffle, the names of the contract cases) run with -m slow
SLOW_TRANSFORMS = {"scale_1e-03", "prefix", "index"}
#: the cases whose result is a frame of the runs, or a planning study: their level order runs with -m slow
_SLOW_ORDER = {"normalize_reference", "summarize_max", "auc_normalized", "align_steps_linear", "power_bootstrap",
               "power_bootstrap_pooled", "sample_size_bootstrap", "sample_size_adastop", "sample_size_permutation",
               "bootstrap_normalize_reference", "profile_tau", "task_table_bounds", "curves_bounds", "tuning_bounds",
               "bootstrap_bounds", "task_table_lower", "rank_test_lower", "selection_heldout_poi",
               "selection_heldout_bounds", "percentiles_identical", "task_table_per_pair", "bayes_orderings",
               "curves_compare", "profile_tasks", "tuning_holdout"}


#: the option paths beyond the gaps named in the audit's brief: in the default run only under other units and a shift
#: (what their options in score units are about)
_OPTION_PATHS = set(list(SWEEP)[list(SWEEP).index("profile_tau"):])


#: planning studies in the default run under these transformations only: the pilot is read as power_permutation's and
#: power_adastop's (every default transformation), and each simulated data set goes to the method itself, whose
#: relations test_metamorphic's cases hold (the others run with -m slow; 2.2 s of 9.6 s of the default sweep's CPU)
_PLANNING_DEFAULT = {"power_bootstrap": ("shuffle", "scale_1e+03"), "power_bootstrap_pooled": ("scale_1e+03",),
                     "sample_size_bootstrap": ("scale_1e+03",), "sample_size_permutation": ("scale_1e+03",),
                     "sample_size_adastop": ("scale_1e+03",)}


#: selection checks whose polars frame or shift another case covers: a polars frame is read as the list's (data) and
#: the frame's (held-out runs) cases read it, and a shift changes nothing in options that are not in the score's units
_SELECTION_SLOW = {("selection_heldout_z", "polars"), ("selection_heldout_bounds", "polars"),
                   ("selection_heldout_drawn", "polars"), ("selection_heldout_poi", "polars"),
                   ("selection_heldout_drawn", "shift"), ("selection_heldout_poi", "shift")}


def _chosen(case, name):
    """Whether the audit's default run (before session 39) held ``case`` under ``name``."""
    if case in _PLANNING_DEFAULT:
        return name in _PLANNING_DEFAULT[case]
    if (case, name) in _SELECTION_SLOW:
        return False
    return name not in SLOW_TRANSFORMS and (case not in _OPTION_PATHS or name in ("scale_1e+03", "shift"))


#: the search of sample_size() is the same for every method (each step a power() of the method, which power_adastop
#: and power_bootstrap hold): in the default run with the permutation test only
_SAMPLE_SIZE_SLOW = {"sample_size_adastop", "sample_size_bootstrap"}


def _slow(case, name):
    """Session 39 (the sweep cost 25 s of the default suite's CPU): half of each case's transformations above, in turn
    (a rotation over the cases in SWEEP's order: case i its i-th and following, cyclically, of those it held), so that
    each case keeps one or two and each transformation meets cases of every kind; each expected change held; the
    rest with -m slow. Session 40: one a case (its i-th of those it held, cyclically): the row shuffle meets the
    batches' AdaStop, a summary of curves, a held-out check and a pilot's power, a polars frame the per-task thresholds
    and AdaStop's pilot, the units and the shift 17 and 16 cases (every option in the score's units under one)."""
    held = [n for n in TRANSFORMS if _chosen(case, n)]
    if name not in held or case in _SAMPLE_SIZE_SLOW:
        return True
    if (case, name) in CHANGES:
        return False
    i = list(SWEEP).index(case)
    return (held.index(name) - i) % len(held) >= 1


@pytest.mark.parametrize("case, transform", [
    pytest.param(case, name, id=f"{case}-{name}", marks=[pytest.mark.slow] if _slow(case, name) else [])
    for case in SWEEP for name in TRANSFORMS])
def test_result_is_unchanged_or_exactly_transformed(case, transform):
    problems = M.differences(f"s25_{case}", TRANSFORMS[transform])
    if (case, transform) in CHANGES:
        reason, may_change = CHANGES[case, transform]
        assert problems, f"{case} was expected to change under {transform}: {reason}"
        assert [p for p in problems if not p.startswith(may_change)] == []
    else:
        assert problems == []


# ------------------------------------------------------------------------------------------------ category order

def _reversed_levels(df):
    """The same rows and labels, agent and task Categoricals whose levels are in reverse sort order."""
    return df.assign(**{c: pd.Categorical(df[c].astype(str), categories=sorted(set(df[c].astype(str)), reverse=True))
                        for c in ("agent", "task")})


def _order_free_text(text):
    """A printed text's words and numbers, each as a sorted multiset (words without the commas, brackets and full
    stops of a list, numbers without sign: a pair listed the other way round prints its difference negated)."""
    tokens = M._tokens(text)
    return (sorted(w.strip(",;:.()'") for w, _ in tokens if w is not None),
            sorted(round(abs(n[0]), 12) for _, n in tokens if n is not None))


def _sorted_rows(frame):
    """Rows in the sort order of their text columns (a pair's names in sort order, its difference's sign with it)."""
    frame = frame.copy()
    if {"agent_1", "agent_2"} <= set(frame.columns):
        flip = frame["agent_1"].astype(str) > frame["agent_2"].astype(str)
        for column in ("estimate", "statistic"):
            if column in frame:
                frame[column] = np.where(flip, -frame[column], frame[column])
        a, b = frame["agent_1"].astype(str), frame["agent_2"].astype(str)
        frame["agent_1"], frame["agent_2"] = np.where(flip, b, a), np.where(flip, a, b)
        for low, high in (("conf_low", "conf_high"),):
            if {low, high} <= set(frame.columns):
                lo, hi = frame[low].to_numpy(), frame[high].to_numpy()
                frame[low], frame[high] = np.where(flip, -hi, lo), np.where(flip, -lo, hi)
        if "decision" in frame:
            swap = {"larger": "smaller", "smaller": "larger"}
            frame["decision"] = [swap.get(d, d) if f else d for d, f in zip(frame["decision"], flip)]
    keys = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    frame = frame.astype({c: str for c in keys})
    keys += [c for c in ("step", "tau", "budget") if c in frame]  # a curve's or profile's rows in their order
    return frame.sort_values(keys, kind="stable").reset_index(drop=True) if keys else frame


#: the sweep's cases that print pairs, listed in the agents' level order
_PAIRS = {"adastop_batch"}


#: cases the level order changes in more than the order, by design: case -> why
LEVEL_ORDER_SETS = {
    "adastop_incremental": "AdaStop(agents) lists the agents in its own order, not the frame's",
    "mixed_bounds": "the coefficients are treatment contrasts against the first level, as R's lm()",
    "percentiles_bounds": "the zero-width note names the first four cells in the levels' order, and 4 more",
    "percentiles_lower": "the zero-width note names the first four cells in the levels' order, and 4 more",
    "percentiles_identical": "the zero-width note names the first four cells in the levels' order, and 4 more",
    "bayes_orderings": "a pair's P(better) and P(worse) swap when it is listed the other way",
    "equivalence_published": "a pair's one-sided p-values (p_lower, p_upper) swap when it is listed the other way",
    "equivalence_lower": "a pair's one-sided p-values (p_lower, p_upper) swap when it is listed the other way",
}


#: session 39: of the cases above in the default run, every other one in SWEEP's order (the batches' AdaStop, the
#: per-task thresholds, the held-out frame and the drawn subsets of selection_check, power() of the permutation test:
#: one of each kind); the others with -m slow
_ORDER_CASES = [c for c in SWEEP if c not in LEVEL_ORDER_SETS and c not in _SLOW_ORDER]
_SLOW_ORDER |= set(_ORDER_CASES[1::2])


@pytest.mark.parametrize("case", [pytest.param(c, marks=[pytest.mark.slow] if c in _SLOW_ORDER else [])
                                  for c in SWEEP if c not in LEVEL_ORDER_SETS])
def test_reversed_category_order_changes_only_the_order(case):
    df, base = M._base(f"s25_{case}", M.IDENTITY, latex=False)  # the sweep's own base result, computed once
    other = M._run(SWEEP[case][1], _reversed_levels(df), M.IDENTITY)
    relation = M.Relation(case, M.IDENTITY, float(np.abs(df["score"]).max()))
    problems = []
    for part in ("tidy", "glance", "frame"):
        if part in base:
            M._compare_frame(_sorted_rows(base[part]), _sorted_rows(other[part]), part, relation, M.IDENTITY,
                             problems)
    for part in ("print", "summary", "report", "markdown"):
        if part in base:
            (wa, na), (wb, nb) = _order_free_text(base[part]), _order_free_text(other[part])
            if case in _PAIRS:  # a pair listed the other way round: agent_3 "larger" than agent_1
                wa, wb = ([w for w in ws if w not in ("larger", "smaller")] for ws in (wa, wb))
            if wa != wb:
                problems.append(f"{part}: words {sorted(set(wa) ^ set(wb)) or 'counts'} differ")
            if not np.allclose(na, nb, rtol=1e-12, atol=0):
                problems.append(f"{part}: numbers differ")
    assert problems == []
