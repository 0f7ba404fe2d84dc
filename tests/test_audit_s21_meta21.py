"""Audit s21 (meta21): the metamorphic relations of tests/test_metamorphic.py on real, messy data.

The published Atari 100k scores (ties: integer and capped game scores; agents with 5, 12 or 7 runs in a cell; an agent
that skips two games), HalfCheetah SAC/TD3 (unequal runs) and Stable-Baselines3 training logs (learning curves,
tasks with different budgets, an agent without one task), under row shuffles, the score in other units and moved
(a y + b), per-task positive affine maps (for the rank-based back ends), polars frames and string columns. The
comparison is test_metamorphic's own (its Relation, _run and _compare), not a second copy.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import SHARED_DATA, load_dataset
from rlstats.methods.bootstrap._small_runs import welch_df

if not (SHARED_DATA / "atari100k.csv").exists() or not (SHARED_DATA / "logs" / "sb3_classic").is_dir():
    pytest.skip(f"shared data not found at {SHARED_DATA} (they sit beside the repository in CI); this sweep reads "
                "Atari 100k, HalfCheetah and the SB3 logs", allow_module_level=True)


# ------------------------------------------------------------------------------------------------ defects found

def test_bootstrap_welch_df_does_not_depend_on_a_shift():
    # x = (0, 1, 2), y = (0, 2, 4): shares of the variance of each task mean 1/9 and 4/9 (times factor^2),
    # df = (5/9)^2 / ((1/9)^2 / 2 + (4/9)^2 / 2) = 50/17, whatever the units or the origin. Before: 2.9287 at
    # 1e-3 y + 1e4, inf (no task varies) at 1e-3 y + 1e6, 2.0 at y + 1e8: it summed raw squares,
    # sum y^2 - (sum y)^2 / c, which cancellation empties far from 0. (1e-3 y + 1e8 is left out: its scores are
    # themselves rounded to 1.5e-8, 1e-5 of their spread.)
    task = np.array([0, 0, 0, 1, 1, 1])
    got = {(factor, shift): welch_df(np.array([0.0, 1.0, 2.0, 0.0, 2.0, 4.0]) * factor + shift, task, 2)
           for factor in (1e-150, 1e-3, 1.0, 7.0, 1e12) for shift in (0.0, -1e4, 123.456, 1e6, 1e8)
           if shift == 0.0 or (factor >= 1e-3 and abs(shift) <= factor * 1e9)}
    assert len(got) == 20
    assert got == pytest.approx(dict.fromkeys(got, 50 / 17), rel=1e-11)
    # a task whose runs all tie adds no variance (exactly), at any origin; none varies: infinite
    assert welch_df(np.array([1.0, 1.0, 1.0, 2.0, 3.0, 2.0]) + 1e8, task, 2) == 2.0
    assert welch_df(np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0]) * 0.1 + 123.456, task, 2) == np.inf


def _sb3_evaluations():
    """The SB3 EvalCallback logs (PPO, A2C on CartPole-v1 and Acrobot-v1; DQN on CartPole-v1 only; 3 seeds each)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = rlstats.read_logs(SHARED_DATA / "logs" / "sb3_classic", "{agent}/{task}/seed_{seed}", format="sb3_eval",
                               progress=False)
    df = df.rename(columns={"eval/mean_reward": "score"})[["agent", "task", "seed", "step", "score"]]
    df.attrs = {}
    return df


def test_curves_exact_max_t_pvalues_do_not_depend_on_a_shift():
    # CartPole-v1, DQN vs PPO, 3 runs each: the exact null is the C(6, 3) = 20 relabellings, the observed one and its
    # mirror among them, so no p-value is below 2/20. At 1e-3 y the last step's p is 0.1; at 1e-3 y - 1e4 it was 0.0
    # and the printed result said "PPO above DQN at step 20k" instead of "DQN and PPO: no step differs": the
    # relabellings' |t| reached the observed one only within 1e-12 of t, and the observed labelling's own came out
    # 3e-12 below it by rounding (differences of scores near -1e4). Now within the step's tie tolerance.
    df = _sb3_evaluations()
    df = df[df["agent"].isin(["DQN", "PPO"]) & (df["task"] == "CartPole-v1")]
    results = []
    for shift in (0.0, -1e4):
        frame = df.assign(score=df["score"] * 1e-3 + shift)
        results.append(rlstats.curves(frame, "score ~ agent | task/seed", step="step", n_resamples=200,
                                      compare="all", rng=1))
    for res in results:
        assert res.relabellings == (20,)
        assert res.difference_pvalues.tolist() == [[1.0, 0.1, 0.1, 0.1]]
        assert "DQN and PPO: no step differs" in str(res)
        band = res.difference_bands[0]
        assert ((band[:, 0] > 0) | (band[:, 1] < 0)).tolist() == [False] * 4  # the band agrees: 0 inside at each step


def test_max_t_counts_the_observed_labelling_within_the_tie_tolerance():
    # an exact null of 4 relabellings: the first is the observed labelling, its difference at step 0 rounded 2e-12
    # (1 ulp of 1e4) below the observed one, the third its mirror; those two reach the observed |t| at each step
    # (the others' maxima stay below), so p = 2/4. Counting within 1e-12 of t only, the observed row missed step 0.
    from rlstats.methods.curves import _kernels

    observed = np.array([0.3, 0.2])
    null = np.array([[0.3 - 2e-12, 0.2], [0.1, -0.05], [-0.3, -0.2], [0.0, 0.05]])
    tolerance = _kernels.step_tolerance(null - 1e4)  # the scores the differences came from sat near -1e4
    p, se = _kernels.max_t_pvalues(observed, null, exact=True, tolerance=tolerance)
    assert p.tolist() == [0.5, 0.5]
    assert _kernels.max_t_pvalues(observed, null, exact=True)[0].tolist() == [0.25, 0.5]  # no tolerance given: as before


# ------------------------------------------------------------------------------------------------ the sweep

meta = pytest.importorskip("test_metamorphic")  # its Relation, _run, _compare and _scaled_columns, not a copy

GAMES = ("Alien", "Boxing", "Breakout", "Freeway", "Kangaroo", "Pong")


def _atari(games=GAMES, runs=12):
    """Atari 100k: DER, DrQ, IRIS, PlayVirtual, SimPLe on ``games``; the 100-run agents keep ``runs``, IRIS and SimPLe
    have 5, DrQ skips Freeway and Kangaroo and DER has 7 runs on Pong (unequal runs within an agent)."""
    df = pd.read_csv(SHARED_DATA / "atari100k.csv")
    df = df[df["task"].isin(games) & df["agent"].isin(["DER", "DrQ", "IRIS", "PlayVirtual", "SimPLe"])]
    df = df[(df["seed"] < runs) & ~((df["agent"] == "DrQ") & df["task"].isin(["Freeway", "Kangaroo"]))]
    df = df[~((df["agent"] == "DER") & (df["task"] == "Pong") & (df["seed"] >= 7))]
    return df.reset_index(drop=True).astype({"agent": "category", "task": "category"})


def _halfcheetah():
    """HalfCheetah SAC (20 runs) and TD3 (14 runs): one task."""
    df = pd.read_csv(SHARED_DATA / "halfcheetah_sac_td3.csv")
    df = df[(df["seed"] < 20) & ~((df["agent"] == "TD3") & (df["seed"] >= 14))]
    return df.reset_index(drop=True).astype({"agent": "category", "task": "category"})


def _sb3_final():
    """The SB3 runs' last evaluations: CartPole-v1 capped at 500, Acrobot-v1 at -500, DQN without Acrobot."""
    df = rlstats.summarize_runs(_sb3_evaluations(), "score ~ agent | task/seed", step="step", how="final")
    df.attrs = {}
    return df.astype({"agent": "category", "task": "category"})


def _sweep():
    """A hyperparameter sweep: PPO on LunarLander (Dierkes et al. 2024), three landscapes as agents, 8 configurations
    each of 10 seeds (7 in one), scores capped at 1000."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = load_dataset("hpo_landscapes")
    names = sorted(df["landscape"].unique())[::3]
    df = df[df["landscape"].isin(names)]
    keep = {name: sorted(df.loc[df["landscape"] == name, "config"].unique())[:8] for name in names}
    df = df[[c in keep[name] for name, c in zip(df["landscape"], df["config"])]]
    df = df[(df["seed"] < 7) | (df["landscape"] != names[1])]
    df = df.rename(columns={"landscape": "agent"})[["agent", "task", "config", "seed", "score"]]
    df.attrs = {}
    return df.reset_index(drop=True)


def _tuning(df, transform):
    return rlstats.tuning(df, "score ~ agent | task/seed", config="config", n_resamples=200, rng=1)


N = 500  # resamples
#: the optimality gap's target, in the data's units (never 1 after a scaling below: gamma = 1 is read as the
#: normalised default, and its note says so: normalization.raw_gap_note); normalize=False keeps out the
#: raw-scales caution, which helper raw21 is changing (normalization.warn_raw_scales)
GAMMA = 2000.0


def _call(method, formula="score ~ agent | task", **fixed):
    """A back end through compare(), its options in score units moved with the data."""
    def call(df, transform):
        options = dict(fixed, rng=1)
        if method == "bootstrap":
            options["gamma"] = GAMMA * transform.factor + transform.shift
        if method == "equivalence":
            options["margin"] = 50.0 * abs(transform.factor)
        if method == "bayes":
            options["rope"] = 5.0 * abs(transform.factor)
        return rlstats.compare(df, formula, method=method, **options)
    return call


def _curves(df, transform):
    return rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=N, compare="all", rng=1,
                          normalize=False, subset="agent != 'DQN'")


def _curves_dropped(df, transform):
    return rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=N, compare="all", rng=1,
                          na_action="drop")


def _balanced(df):
    return df[df["seed"] < 5].reset_index(drop=True)


CASES = {
    "skillings_mack": (_atari, _call("skillings_mack")),
    "permutation": (lambda: _balanced(_atari()), _call("permutation", n_resamples=N)),
    "adastop": (_atari, _call("adastop", n=5, K=1, n_resamples=N)),
    "bootstrap": (_atari, _call("bootstrap", n_resamples=N, na_action="drop", normalize=False)),
    "probability_of_improvement": (_atari, _call("probability_of_improvement", n_resamples=N, na_action="drop",
                                                 normalize=False)),
    "performance_profile": (_atari, _call("performance_profile", n_resamples=N, na_action="drop", normalize=False)),
    "percentiles": (_atari, _call("percentiles", interval="pbp_t", na_action="drop")),
    "selection": (_atari, _call("selection", treatment="PlayVirtual", baseline="DER", reported=list(GAMES[:3]),
                                normalize=False)),
    "selection_poi": (_atari, _call("selection", treatment="PlayVirtual", baseline="DER", reported=list(GAMES[:3]),
                                    effect="poi", normalize=False)),
    "task_table": (_atari, _call("task_table", normalize=False)),
    "mixed": (_atari, _call("mixed", "score ~ agent | task/seed", normalize=False)),
    "equivalence": (_atari, _call("equivalence", n_resamples=N, na_action="drop", normalize=False)),
    "bayes": (_atari, _call("bayes", "score ~ agent | task/seed", n_samples=1000, na_action="drop",
                            normalize=False)),
    "curves": (_sb3_evaluations, _curves),
    "curves_dropped": (_sb3_evaluations, _curves_dropped),
    "task_table_sb3": (_sb3_final, _call("task_table", normalize=False)),
    "skillings_mack_sb3": (_sb3_final, _call("skillings_mack")),
    "bootstrap_halfcheetah": (_halfcheetah, _call("bootstrap", n_resamples=N, normalize=False)),
    "equivalence_halfcheetah": (_halfcheetah, _call("equivalence", n_resamples=N, normalize=False)),
    "tuning": (_sweep, _tuning),
}
#: the metamorphic suite's name of each case's back end (its SCALED columns, SQUARED and LOG_LIKELIHOOD rules)
BACKEND = {case: case.split("_sb3")[0].split("_halfcheetah")[0].replace("_dropped", "").replace("_poi", "")
           for case in CASES}


class Printed(meta.Relation):
    """test_metamorphic's relation, also passing what R's number format does on real scores (signif's rule): a
    number whose dropped last digits were zeros (482.503 prints 482.5 at 5 digits) and an integer part never rounded
    (3467 at 2 digits prints 3467, its image in thousandths 3.5), each within the printed precision; and, where the
    transformed scores are themselves rounded (a shift far larger than the spread), full-precision numbers to
    ``rel``."""

    def __init__(self, case, transform, scale, offset=0.0, rel=meta.REL):
        super().__init__(case, transform, scale, offset)
        self.rel = rel

    def full(self, a, b):
        if super().full(a, b):
            return True
        return all(map(np.isfinite, (a, b))) and any(abs(b - a * f) <= self.rel * abs(a * f) for f in self.factors)

    def printed(self, a, b):
        if super().printed(a, b):
            return True
        (va, ua), (vb, ub) = a, b
        slack = 1 + 1e-9
        for f in self.factors:
            if abs(vb - va * f) <= ua * abs(f) * slack + meta.REL * abs(va * f):  # trailing zeros dropped
                return True
            if ua >= 1 and float(va).is_integer() and abs(vb - va * f) <= 0.5 * (ub + ua * abs(f)) * slack:
                return True
        return False


class Words(Printed):
    """Only the words and the layout: for a per-task map, under which numbers in score units change freely."""

    def full(self, a, b):
        return True

    def printed(self, a, b):
        return True


def _scaled(a):
    return meta.Transform(f"scale_{a:g}", lambda df: meta._with_score(df, df["score"] * a), factor=a)


def _shifted(b):
    return meta.Transform(f"shift_{b:g}", lambda df: meta._with_score(df, df["score"] + b), shift=b)


def _per_task(kind):
    """A positive affine map of each task's scores: Atari's human normalisation (score - random) / (human - random),
    or 10^k y - 3k for the k-th task."""
    def change(df):
        codes = df["task"].cat.codes.to_numpy() if isinstance(df["task"].dtype, pd.CategoricalDtype) else \
            pd.factorize(df["task"], sort=True)[0]
        if kind == "human":
            reference = pd.read_csv(SHARED_DATA / "atari100k_reference.csv").set_index("task")
            low, high = (df["task"].astype(str).map(reference[c]).to_numpy(float) for c in ("random", "human"))
            return meta._with_score(df, (df["score"].to_numpy(float) - low) / (high - low))
        return meta._with_score(df, df["score"] * 10.0 ** codes - 3.0 * codes)
    return meta.Transform(f"per_task_{kind}", change)


#: (case, transformation) -> (why, the parts that may change); nothing else may
LEGITIMATE = {
    # the t tests of the intercept and of each agent's marginal mean are tests against 0, which a shift moves
    # (test_metamorphic's CHANGES); contrasts, variance components and the F test are compared (tidy, glance)
    ("mixed", "shift"): ("print", "summary", "report", "markdown", "dict.coefficients", "dict.emmeans"),
}
#: under a per-task map, what is compared in full (the rest: words and layout only, numbers in score units change);
#: tidy columns in score units left out
PER_TASK = {
    "skillings_mack": (("print", "summary", "report", "markdown", "tidy", "glance", "dict"), ()),
    "selection_poi": (("print", "summary", "report", "markdown", "tidy", "glance", "dict"), ()),
    "percentiles": (("print", "tidy", "glance"), ()),
    "task_table": (("glance",), ("estimate", "std_dev", "diff_low", "diff_high", "diff_next_low", "diff_next_high")),
}


def _parts(case, df, transform):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return meta._run(CASES[case][1], df, transform)


_BASES = {}


def _base(case, a=1.0):
    if (case, a) not in _BASES:
        df = CASES[case][0]()
        if a != 1.0:
            df = meta._with_score(df, df["score"] * a)
        _BASES[case, a] = df, _parts(case, df, meta.IDENTITY)
    return _BASES[case, a]


def differences(case, transform, a=1.0):
    """What differs between the case's result on its data (times ``a``) and on the transformed data."""
    df, base = _base(case, a)
    other = _parts(case, transform.change(df), transform)
    backend = BACKEND[case]
    scale = float(np.abs(df["score"]).max())
    offset = 0.0
    if backend in meta.LOG_LIKELIHOOD and transform.factor != 1.0:
        offset = meta.LOG_LIKELIHOOD[backend](base) * np.log(abs(transform.factor))
    spread = float(df.groupby("task", observed=True)["score"].std().min())
    rel = meta.REL if abs(transform.shift) <= 1e3 * spread else 1e-5  # the shifted scores are themselves rounded
    relation = Printed(backend, transform, scale, offset, rel)
    if transform.name == "shuffle":
        order = meta._shuffle(df.assign(_row=np.arange(len(df))))["_row"].to_numpy()
        base = meta._in_row_order(backend, base, order)
    problems = []
    per_task = transform.name.startswith("per_task")
    full, unit_columns = PER_TASK.get(case, ((), ())) if per_task else (tuple(base), ())
    for part, value in base.items():
        if part == "latex" and not transform.keeps_layout:
            continue
        if part == "tidy" and unit_columns:
            value, other_part = value.drop(columns=list(unit_columns)), other[part].drop(columns=list(unit_columns))
        else:
            other_part = other[part]
        meta._compare(value, other_part, part, relation if part in full else Words(backend, transform, scale),
                      transform, problems)
    if transform.factor != 1.0:  # (a column without a finite non-zero value, all withheld, has nothing to scale)
        unscalable = [f"{part}[{column}] does not scale" for part in ("tidy",) for column in meta.SCALED.get(backend, ())
                      if column in base[part] and not (np.isfinite(base[part][column].to_numpy(float))
                                                       & (base[part][column].to_numpy(float) != 0)).any()]
        scaling = []
        meta._scaled_columns(backend, base, other, transform, scaling)
        problems += [p for p in scaling if not p.startswith(tuple(unscalable) or ("\0",))]
    informational = meta.INFORMATIONAL.get(backend, ((),))[0]
    may_change = LEGITIMATE.get((backend, "shift" if transform.shift else transform.name), ())
    return [p for p in problems if not p.startswith(informational) and not p.startswith(may_change or ("\0",))]


_FRAMES = {t.name: t for t in meta.TRANSFORMS if t.name in ("shuffle", "object", "string", "polars", "pyarrow")}


def _grid():
    """(case, a, transformation) of the whole sweep."""
    out = []
    for case in CASES:
        out += [(case, 1.0, t) for t in _FRAMES.values()]
        out += [(case, 1.0, _scaled(a)) for a in (1e-3, 7.0, 1e4)]
        out += [(case, a, _shifted(b)) for a in (1e-3, 7.0, 1e4) for b in (-1e4, 123.456)]
        if case in PER_TASK and CASES[case][0] is _atari:
            out += [(case, 1.0, _per_task(kind)) for kind in ("human", "powers")]
    return out


#: the default run's share of the sweep (about 15 s): each kind of transformation on a back end it found wanting
FAST = {("bootstrap", 1e-3, "shift_-10000"), ("curves_dropped", 1e-3, "shift_-10000"), ("task_table", 1.0, "scale_0.001"),
        ("skillings_mack", 1.0, "per_task_human"), ("percentiles", 1.0, "per_task_powers"),
        ("selection_poi", 1.0, "per_task_human"), ("task_table", 1.0, "per_task_human"), ("mixed", 7.0, "shift_123.456"),
        ("adastop", 1.0, "scale_7"), ("equivalence", 1.0, "polars"), ("skillings_mack_sb3", 1.0, "shuffle"),
        ("bayes", 1.0, "string")}


@pytest.mark.parametrize("case, a, transform", [
    pytest.param(case, a, t, id=f"{case}-{'' if a == 1.0 else f'{a:g}y-'}{t.name}",
                 marks=[] if (case, a, t.name) in FAST else [pytest.mark.slow])
    for case, a, t in _grid()])
def test_real_data_result_is_unchanged_or_exactly_transformed(case, a, transform):
    assert differences(case, transform, a) == []
