"""Audit s30 (meta30): the transformations earlier metamorphic sweeps left out, over every compare() back end and the
public functions that compute outside it, on small designs with few resamples and a fixed rng.

What was already covered (tests/test_metamorphic.py: every back end's contract case, tuning's views, summarize_runs,
align_steps and normalize, under a row shuffle with the index reset, the score x 1e-150 ... 1e12 and + 1000, names
prefixed (which keeps their sort order), float32/int scores, object and ``string[pyarrow]`` labels, polars frames and
pyarrow Tables; s9, s10 and s16: a shuffle keeping the index and a reversed category order on the random back ends;
s24: renamings that change the sort order, on the deterministic paths only; s25: options in the score's units (bounds,
thresholds, reference frames, published tables) moved with the score x 1e3, x 1e-3 and + 1000), here:

* ``shuffle_index``: the rows shuffled under a non-default integer index that they keep: every number and text
  identical to the bit, the outputs in the data's row order (the mixed model's fitted values and residuals, normalize's
  frame) following their rows;
* ``arrow_backend``: a pandas frame with pyarrow-backed columns (``convert_dtypes(dtype_backend="pyarrow")``: the
  score ``double[pyarrow]``, seeds and steps ``int64[pyarrow]``, labels ``string[pyarrow]``): identical to the bit;
* ``categorical``: agent and task as Categoricals whose categories are in reverse sort order (results may list them
  in that order: compared as rows matched by name, a pair listed the other way turned round);
* ``int_codes`` and ``rename_z``: agents and tasks as integer codes, or agent_1 and task_01 renamed z_agent_1 and
  z_task_01, both of which change the names' sort order: the same statistics under the new names.

Numbers compare exactly for the first two, within the standard's relative 1e-9 for the label changes (a sum over agents
or tasks in another order rounds otherwise: the mixed model's Satterthwaite df moved by 2.5e-12 relative).

Legitimately not invariant, and asserted to change (``LABEL_KEYED``): with the same ``rng``, the random back ends key
their streams by the agents' and tasks' places among their names sorted (resampling.label_ranks, so that a
Categorical's order and the rows' order draw the same numbers; bootstrap keys each agent's stream by its label, so that
its intervals do not depend on the other agents): a renaming that changes the sort order draws other resamples, other
Monte Carlo estimates of the same quantities. Their point estimates, and every deterministic back end, stay.

Found (reproducers below): the rank test's post hoc tests against a control and power()'s pilot within-cell sd summed a
cell's runs in the caller's row order (last-bit differences under a shuffle); both now take Design.runs_by_score().
Row order within a cell is kept by build() on purpose (AdaStop's interims; rliable_compat, whose estimates and
intervals follow the given order as rliable's do). A sweep of option paths (not committed: task_table's median, IQM,
Brunner-Munzel, aggregate and fcr_normal; bootstrap's basic, expanded, no-Welch and task-bootstrap intervals;
probability of improvement's and profiles' bands; percentiles; the permutation test's joint paths; the rank test's
median, exact and Conover paths; selection's Welch inspector; equivalence without an aggregate) and of every
test_metamorphic, s24 and s25 case at x 1e4 and x 1e-3 and under the five transformations here found nothing else
but the hierarchical Bayesian model's known rounding drift (s24's CHANGES: 2e-8 relative under other units; 1.5e-9
under a reversed category order, its sums over agents in another order).

Options in the score's units (bounds, reference scores) are not unit-free: a shift or scaling is invariant once they are
moved too (s25's cases); left in place they are an error naming the rows outside them, or a units warning, asserted
below.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
import test_metamorphic as M
from conftest import contract_frame, simulated_curves
from rlstats.methods import DECLARATIONS


def _runs():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=4, effect=1.0, rng=0)
    df.attrs = {}
    return df


def _curves():
    return simulated_curves(tasks=2, steps=4)


#: smaller than the contract cases' counts, to keep the sweep within the default suite's time
_FEWER = {"n_resamples": 100, "n_samples": 400, "n_sim": 10}


#: fewer metrics than the contract case's four (the bootstrap's cost is per metric)
_OPTIONS = {"bootstrap": {"metrics": ("iqm", "mean")}}


def _backend(name):
    formula, options = DECLARATIONS[name].contract
    options = {key: _FEWER.get(key, value) for key, value in options.items()} | _OPTIONS.get(name, {})

    def call(df, transform):
        given = M._renamed(options, transform.names)
        if name in M.UNIT_OPTIONS:
            option, value = M.UNIT_OPTIONS[name]
            given[option] = value
        if name in M.DIFFERENCE_OPTIONS:
            option, value = M.DIFFERENCE_OPTIONS[name]
            given[option] = value
        return rlstats.compare(df, formula, method=name, rng=1, **given)
    return call


def _reference(transform):
    return pd.DataFrame({"task": [transform.names(f"task_0{k}") for k in range(1, 6)],
                         "random": [-10.0, 0.0, 5.0, 0.0, 5.0], "human": [20.0, 5.0, 15.0, 2.0, 8.0]})


#: case -> (data, call(df, transform))
CASES = {name: (_curves if declared.reads_curves else _runs, _backend(name)) for name, declared in DECLARATIONS.items()}
CASES["tuning"] = (lambda: contract_frame("tuning", _runs()), CASES["tuning"][1])  # its config='lr' (new-user s38)
CASES.update({
    "rank_test_monte_carlo": (_runs, lambda df, t: rlstats.skillings_mack(df, "score ~ agent | task",
                                                                         pvalue="monte_carlo", n_resamples=100, rng=1)),
    # two sizes of 10 simulated studies (session 39: the default seeds' 10 and 20 runs per agent cost 3.5 s of the
    # default suite's CPU), with enough relabellings that the test can reject at 5 runs (at 50 it never could)
    "power_permutation": (_runs, lambda df, t: rlstats.power(
        "permutation", design=df, formula="score ~ agent | task", effect=1.0, shifted_agent=t.names("agent_2"),
        seeds=[3, 5], n_sim=10, n_resamples=130, rng=1, progress=False)),
    "normalize_minmax": (_runs, lambda df, t: rlstats.normalize(df, "minmax")),
    "normalize_reference": (_runs, lambda df, t: rlstats.normalize(df, _reference(t))),
    "summarize_runs": (_curves, lambda df, t: rlstats.summarize_runs(df, "score ~ agent | task/seed", step="step",
                                                                      how="auc")),
    "align_steps": (_curves, lambda df, t: rlstats.align_steps(df, "score ~ agent | task/seed", step="step")),
})

#: outputs in the data's row order: case -> fields of to_dict() (a frame result: its rows, matched by index)
ROW_ORDER = {"mixed": M.ROW_ORDER["mixed"]}

#: case -> tidy and glance columns drawn from streams keyed by the names' sort order (see the module's docstring)
LABEL_KEYED = {
    "bootstrap": ("conf_low", "conf_high"),
    "curves": ("std_error", "conf_low", "conf_high", "conf_low_simultaneous", "conf_high_simultaneous"),
    "equivalence": ("std_error", "statistic", "p_value", "p_lower", "p_upper", "conf_low", "conf_high", "shown",
                    "conclusion", "df", "n_shown"),
    "bayes": ("p_better", "p_rope", "p_worse", "pseudo_median", "estimate", "conf_low", "conf_high"),
    "rank_test_monte_carlo": ("p_value", "pvalue_mc_se"),
    # a sweep's resamples keyed by its agent's and task's names: the tuned score is corrected by its resampled optimism
    # (the contract case tunes two configurations a sweep since new-user trial s38; its intervals' ends do not move)
    "tuning": ("estimate",),
}


# ------------------------------------------------------------------------------------------------ transformations

def _indexed(df):
    """The data under a non-default integer index (the base of the shuffle)."""
    return df.set_axis(pd.Index(np.arange(len(df)) * 3 + 1000), axis=0)


def _shuffle_index(df):
    return df.sample(frac=1.0, random_state=np.random.RandomState(11))


def _arrow_backend(df):
    out = df.assign(**{c: df[c].astype(str) for c in ("agent", "task")})
    return out.convert_dtypes(dtype_backend="pyarrow")


def _z(name):
    return "z_" + name if name in ("agent_1", "task_01") else name


def _code(name):
    if isinstance(name, str) and name.startswith("agent_"):
        return 10 - int(name[6:])  # agent_1 -> 9, agent_3 -> 7: the sort order reversed
    if isinstance(name, str) and name.startswith("task_"):
        return 100 - int(name[5:])
    return name


def _relabelled(names, categorical=False):
    def change(df):
        out = df.assign(**{c: df[c].astype(str).map(names) for c in ("agent", "task")})
        if categorical:
            out = out.assign(**{c: pd.Categorical(out[c], categories=sorted(set(out[c]), reverse=True))
                                for c in ("agent", "task")})
        return out
    return change


EXACT = {"shuffle_index": M.Transform("shuffle_index", _shuffle_index, base=_indexed),
         "arrow_backend": M.Transform("arrow_backend", _arrow_backend)}
LABELS = {"categorical": M.Transform("categorical", _relabelled(str, categorical=True)),
          "int_codes": M.Transform("int_codes", _relabelled(_code), names=_code),
          "rename_z": M.Transform("rename_z", _relabelled(_z), names=_z)}


# ------------------------------------------------------------------------------------------------ comparison

def _parts(result):
    if isinstance(result, pd.DataFrame):
        return {"frame": result}
    data = result.to_dict()
    for key in ("seed", "versions"):
        data.pop(key)
    return {"tidy": result.tidy(), "glance": result.glance(), "dict": data, "print": str(result)}


def _quiet(call, df, transform):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _parts(call(df, transform))


_BASES = {}


def _base(case, transform):
    """The case's base data (as ``transform`` takes it) and its result, computed once per case and kind of base."""
    key = case, transform.base_kind
    if key not in _BASES:
        data, call = CASES[case]
        df = transform.base(data())
        _BASES[key] = df, _quiet(call, df, M.IDENTITY)
    return _BASES[key]


def _plain(frame):
    """Labels as text and numbers as float64, whatever their dtype (pyarrow, categorical, nullable)."""
    out = {}
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            out[column] = values.to_numpy(dtype=float, na_value=np.nan)
        else:
            out[column] = np.array(["nan" if M._missing(v) else str(v) for v in values.tolist()], dtype=object)
    return pd.DataFrame(out, index=frame.index)


def _bit_differences(a, b, where):
    a, b = _plain(a), _plain(b)
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return [f"{where}: shape {list(a.columns)} x {len(a)} became {list(b.columns)} x {len(b)}"]
    return [f"{where}[{c}]" for c in a.columns
            if not np.array_equal(a[c].to_numpy(), b[c].to_numpy(), equal_nan=a[c].dtype.kind == "f")]


def exact_differences(case, name):
    """What differs, to the bit, between the case's result on its base data and on the transformed data."""
    transform = EXACT[name]
    df, base = _base(case, transform)
    changed = transform.change(df)
    other = _quiet(CASES[case][1], changed, transform)
    order = np.argsort(changed.index.to_numpy(), kind="stable")  # the transformed rows in the base's order
    problems = []
    for part, value in base.items():
        if part == "frame":
            got = other[part]
            if name == "shuffle_index" and len(got) == len(changed) and got.index.equals(changed.index):
                got = got.sort_index()  # a frame of the data's rows follows them
            problems += _bit_differences(value.reset_index(drop=True), got.reset_index(drop=True), part)
        elif part in ("tidy", "glance"):
            problems += _bit_differences(value, other[part], part)
        elif part == "dict":
            for key in value:
                got = other[part][key]
                if key in ROW_ORDER.get(case, ()) and name == "shuffle_index":
                    got = [got[i] for i in order]
                if repr(value[key]) != repr(got):
                    problems.append(f"dict.{key}")
        elif value != other[part]:
            problems.append(part)
    return problems


#: pair columns a pair listed the other way round turns: swapped, or swapped and negated
_SWAPPED = (("agent_1", "agent_2"), ("n_1", "n_2"), ("p_lower", "p_upper"), ("p_better", "p_worse"))
_NEGATED = ("estimate", "statistic", "pseudo_median")  # pseudo_median: bayes (s38 fixc38)
_DECISIONS = {"larger": "smaller", "smaller": "larger"}


def _oriented(frame, case):
    """Pair rows turned so that agent_1 sorts before agent_2 (the base's orientation): a difference negated, a
    probability of improvement complemented, one-sided p-values, P(better) and P(worse), and decisions swapped."""
    if not {"agent_1", "agent_2"} <= set(frame.columns):
        return frame
    frame = frame.copy()
    flip = (frame["agent_1"] > frame["agent_2"]).to_numpy()
    for x, y in _SWAPPED:
        if {x, y} <= set(frame.columns):
            u, v = frame[x].to_numpy(), frame[y].to_numpy()
            frame[x], frame[y] = np.where(flip, v, u), np.where(flip, u, v)
    complement = case == "probability_of_improvement"  # P(X > Y) + P(Y > X) = 1, ties halved
    turn = (lambda v: 1.0 - v) if complement else (lambda v: -v)
    for column in _NEGATED:
        if column in frame:
            frame[column] = np.where(flip, turn(frame[column].to_numpy()), frame[column].to_numpy())
    if {"conf_low", "conf_high"} <= set(frame.columns):
        low, high = frame["conf_low"].to_numpy(), frame["conf_high"].to_numpy()
        frame["conf_low"], frame["conf_high"] = np.where(flip, turn(high), low), np.where(flip, turn(low), high)
    if "decision" in frame:
        frame["decision"] = [_DECISIONS.get(d, d) if f else d for d, f in zip(frame["decision"], flip)]
    if "conclusion" in frame:  # equivalence's "shown below -1, beyond the margin" of the pair the other way round
        turned = {"below -": "above ", "above ": "below -"}
        frame["conclusion"] = [re.sub(r"below -|above ", lambda m: turned[m.group()], c) if f else c
                               for c, f in zip(frame["conclusion"], flip)]
    return frame


_LABEL_COLUMNS = ("agent", "task", "agent_1", "agent_2", "next_agent")


def _by_name(frame, back, case):
    """``frame`` with the original names, its pairs oriented and its rows in their sort order."""
    frame = _plain(frame).reset_index(drop=True)
    for column in frame.columns:
        if column in _LABEL_COLUMNS:  # integer codes read as numbers
            frame[column] = [str(int(v)) if isinstance(v, float) and v.is_integer() else v for v in frame[column]]
        if frame[column].dtype.kind != "f":
            frame[column] = [back.get(v, v) for v in frame[column]]
    frame = _oriented(frame, case)
    keys = [c for c in frame.columns if frame[c].dtype.kind != "f"]
    keys += [c for c in ("step", "tau", "budget") if c in frame]
    return frame.sort_values(keys, kind="stable").reset_index(drop=True) if keys else frame


def label_differences(case, name):
    """The tidy, glance and frame columns whose values differ (beyond a relative 1e-9) under new names or types of
    the labels, rows matched by the original names."""
    transform = LABELS[name]
    df, base = _base(case, M.IDENTITY)
    other = _quiet(CASES[case][1], transform.change(df), transform)
    names = set(df["agent"].astype(str)) | set(df["task"].astype(str))
    back = {str(transform.names(n)): n for n in names}
    problems = []
    for part in ("tidy", "glance", "frame"):
        if part not in base:
            continue
        a, b = _by_name(base[part], {}, case), _by_name(other[part], back, case)
        if list(a.columns) != list(b.columns) or len(a) != len(b):
            problems.append(f"{part}: shape")
            continue
        for column in a.columns:
            x, y = a[column].to_numpy(), b[column].to_numpy()
            same = (x.tolist() == y.tolist() if x.dtype.kind != "f"
                    else np.allclose(y, x, rtol=1e-9, atol=1e-300, equal_nan=True))
            if not same:
                problems.append(f"{part}[{column}]")
    return problems


# ------------------------------------------------------------------------------------------------ the tests

#: a planning study (power() from a pilot: 10 simulated studies, each a permutation test) in the default run under the
#: row shuffle only; s25 runs power() and sample_size() under the others' neighbours
SLOW = {("power_permutation", name) for name in ("arrow_backend", "categorical", "int_codes", "rename_z")}
#: session 39 (the sweep cost 11 s of the default suite's CPU): the default run's share, a rotation: the cases, in the
#: order of CASES, take the next two of ROTATION in turn (case i its (2i)-th and (2i + 1)-th, cyclically), so that each
#: transformation meets seven or eight cases and four pairs in five hold a renaming that moves the names' sort order
#: (int_codes or rename_z); the rest with -m slow
ROTATION = ("shuffle_index", "int_codes", "arrow_backend", "rename_z", "categorical")


#: session 40: one of ROTATION a case (case i its i-th, cyclically), so that each transformation meets four or five
#: cases (each back end meets every transformation of test_metamorphic and s16 beside)
PER_CASE = 1


def _in_default_run(case, name):
    if case == "power_permutation":
        return (case, name) not in SLOW
    return (ROTATION.index(name) - PER_CASE * list(CASES).index(case)) % len(ROTATION) < PER_CASE


def _params(names):
    return [pytest.param(case, name, id=f"{case}-{name}",
                         marks=[] if _in_default_run(case, name) else [pytest.mark.slow])
            for case in CASES for name in names]


@pytest.mark.parametrize("case, name", _params(EXACT))
def test_row_order_index_and_arrow_dtypes_change_nothing(case, name):
    assert exact_differences(case, name) == []


@pytest.mark.parametrize("case, name", _params(LABELS))
def test_label_types_and_names_keep_the_statistics(case, name):
    problems = label_differences(case, name)
    if name != "categorical" and case in LABEL_KEYED:
        # other resamples, the same estimand: only the columns drawn may change, and (the same rng) they do
        assert problems, f"{case} was expected to draw other resamples under {name}"
        assert [p for p in problems if p.partition("[")[2].rstrip("]") not in LABEL_KEYED[case]] == []
    else:
        assert problems == []


# ------------------------------------------------------------------------------------------------ defects found

def _small():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, effect=1.0, rng=0)
    df.attrs = {}
    return _indexed(df)


def test_design_runs_by_score_hold_a_cells_runs_in_one_order_whatever_the_rows():
    # build() keeps a cell's runs in the rows' order where the formula names no seed: that order means something
    # (AdaStop forms its interims from it; rliable_compat resamples runs as rliable's recipe does, in the given
    # order). Sorting them by score in build broke both (tests/test_bootstrap.py's rliable recipe bit for bit,
    # tests/test_audit_s10_order.py's AdaStop decisions on tied scores), so a back end summing over a cell takes
    # Design.runs_by_score(), the one home of that order, as the mixed model, equivalence, bayes and selection do.
    df = _small()
    built = [rlstats.build(frame, "score ~ agent | task") for frame in (df, _shuffle_index(df))]
    assert built[0].y.tobytes() != built[1].y.tobytes()  # the rows' order, kept
    a, b = (design.runs_by_score() for design in built)
    assert a.y.tobytes() == b.y.tobytes()
    assert (a.agent.tolist(), a.task.tolist(), a.run.tolist()) == (b.agent.tolist(), b.task.tolist(), b.run.tolist())
    assert df.index[a.row_position].equals(_shuffle_index(df).index[b.row_position])


def test_rank_test_against_a_control_is_identical_under_row_order():
    # control="agent_1", posthoc="wilcoxon": agent_2's estimate moved by 8.9e-16 when the rows were shuffled
    df = _small()
    a, b = (rlstats.skillings_mack(frame, "score ~ agent | task", control="agent_1", posthoc="wilcoxon", rng=1).tidy()
            for frame in (df, _shuffle_index(df)))
    assert _bit_differences(a, b, "tidy") == []


def test_power_pilot_within_cell_sd_is_identical_under_row_order():
    # task_02's pooled sd: 0.3674920394990094, and 0.36749203949900927 from the shuffled rows
    def sd(frame):
        return rlstats.power("skillings_mack", design=frame, formula="score ~ agent | task", seeds=3, n_sim=5, rng=1,
                             progress=False).to_dict()["simulation"]["within_cell_sd"]
    df = _small()
    assert repr(sd(df)) == repr(sd(_shuffle_index(df)))
    cells = df.groupby(["task", "agent"], observed=True)["score"]  # pooled: sum of squares over sum of (n - 1)
    squares = ((df["score"] - cells.transform("mean")) ** 2).groupby(df["task"], observed=True).sum()
    pooled = np.sqrt(squares / (cells.size() - 1).groupby(level="task", observed=True).sum())
    assert sd(df) == pytest.approx(pooled.to_dict(), rel=1e-12)


# ------------------------------------------------------------------------------------------------ options in units

@pytest.mark.parametrize("factor, shift", [(1e4, 0.0), (1.0, 1e3), (1e-3, 1e3)])
def test_bounds_left_in_the_old_units_are_an_error_and_moved_give_the_same_result(factor, shift):
    # bounds= are scores: a positive affine map of the data keeps the rank-based percentiles once the bounds move with
    # it; left where they were, the rows beyond them are an error naming them (never silently clipped)
    df = _runs()
    low, high = float(df["score"].min()), float(df["score"].max())
    moved = df.assign(score=df["score"] * factor + shift)
    base = rlstats.percentiles(df, "score ~ agent | task", bounds=(low, high), interval="pbp_t", rng=1).tidy()
    other = rlstats.percentiles(moved, "score ~ agent | task", bounds=(low * factor + shift, high * factor + shift),
                                interval="pbp_t", rng=1).tidy()
    assert _bit_differences(base, other, "tidy") == []
    assert base["rank"].tolist() == [3, 2, 1]  # agent_3's runs beat the others' on most tasks
    with pytest.raises(rlstats.DesignError, match=r"60 rows of 'score' lie outside the bounds"):
        rlstats.percentiles(moved, "score ~ agent | task", bounds=(low, high), interval="pbp_t", rng=1)
