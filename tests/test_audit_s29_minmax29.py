"""Audit s29 (minmax29): the optimality gap's note for agents below gamma, where the known bounds put every possible
score at or below gamma.

Found: gapboot28 and gapkinds28 quote, for an agent whose every score is at or below gamma (its gap the mean's
interval or bands reflected), the rows measured where its true scores cross gamma while the observed ones stay below
(``calibration.GAP_BELOW_GAMMA``: down to 0.53 at one task x 20 runs). With ``normalize="minmax"`` and the default
gamma = 1 every score is at most 1 by construction, so every default ``bootstrap()`` call from 10 runs a task (and
``curves()`` from 5) carried that note: true of the rows, but of a condition that cannot arise there. The same held
under ``bounds=(.., high)`` with high <= gamma, and ``normalize="dm_control"`` (its [0, 1] a hard bound) at gamma = 1.
Where no score can exceed gamma, the gap of the true scores is gamma minus their mean as well, so the reflected
interval covers the true gap in exactly the data sets where the mean's covers the true mean: its coverage is the
mean's (measured below against closed-form truths, replicate by replicate).

Changed: ``Design.ceiling`` (the highest score the response can take: ``bounds``' high end, or 1 where every row was
min-max normalised, read of the normaliser's record, ``normalization.normalised_in(minmax=True)``, and of the rows)
and ``Design.ceiling_at_or_below(gamma)``; where it holds, bootstrap() and curves() leave out the rows of agents below
gamma (the mean's own coverage note, which they quote for those agents, stays) and the gap-is-mean line says why
(``vocabulary.gap_capped_words``). Human-normalised scores (Atari 100k, gamma = 1 not a bound) keep the note.

B. rlstats.bayes's note on runs mostly at a cap said "model='hierarchical' refused 64-99% of such data sets at 3
runs" (audit s11, two agents, when one pair's unfittable task refused the call) for designs of any number of agents;
since audit s28 (hier28) such a pair is withheld and the call refused only where no pair can be fitted. Measured
(``tests/reference/bayes_hierarchical_saturated.py``: the ``saturated`` family, 2-8 agents, 5-26 tasks x 3, 5, 10
runs, 400 data sets a design, counted without fitting, the counting checked against rlstats.bayes's): at 3 runs
69-100% of pairs withheld and of calls refused at 2 agents; at 8 agents 85-100% of pairs withheld but 16-100% of
calls refused (none at 10 runs from 7 agents). The note and the docstring quote the row of the design's agents
(``_api.HIERARCHICAL_SATURATED``; the most measured, 8, beyond it).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats.design import build

NOTE = "of an agent whose every score is at or below gamma, where its true scores can exceed gamma"
CAPPED = "no score can exceed gamma here ("
EXCEEDS = "exceed"  # in both clauses: "can exceed" (hard bounds) and "exceeds" (min-max, review29a)
MINMAX = "min-max normalised: each task's largest score is 1"


def _scores(rng, runs, tasks, agents, top, steps=None):
    """Long frame of runs x tasks per agent, right-skewed below ``top`` (lognormal shortfalls); ``steps``: as many
    copies drawn afresh, each with its step."""
    def one():
        return pd.DataFrame([{"agent": a, "task": f"t{t}", "seed": r, "score": high - rng.lognormal(-1.0, 0.6)}
                             for a, high in zip(agents, top) for t in range(tasks) for r in range(runs)])
    if steps is None:
        return one()
    return pd.concat([one().assign(step=s) for s in range(steps)], ignore_index=True)


def _boot(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.bootstrap(df, "score ~ agent | task", **{"metrics": ("mean", "optimality_gap"), "gamma": 1.0,
                                                                 "n_resamples": 200, "rng": 1, "progress": False,
                                                                 **kw})


# ------------------------------------------------------------------------------------------ the reproducer

def test_minmax_default_call_quotes_the_means_coverage_not_the_rows_below_gamma():
    """The default call on min-max normalised scores (1 task x 20 runs: the rows below gamma read 0.53-0.94 there)
    had the note; now the gap-is-mean line says why none is due, and nothing quotes those rows."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = rlstats.datasets.simulate(agents=2, tasks=1, seeds=20, effect=0.5, rng=0)
        res = rlstats.bootstrap(df, "score ~ agent | task", normalize="minmax", n_resamples=100, rng=0,
                                progress=False)
    assert res.gap_as_mean.all()
    assert not any(NOTE in n for n in res.notes)
    (line,) = [n for n in res.notes if n.startswith("every score of every agent is at or below gamma = 1")]
    # review29a: on a min-max scale 1 is the data's largest score, not a bound: the words say what the data hold
    assert f"no score exceeds gamma here ({MINMAX}), so the gap is gamma minus the mean on this scale too" in line
    assert "not a bound: a new run above it" in line
    # the same scores scaled by hand (no normaliser's record, no bounds): a true score may exceed 1, the note stays
    hand = df.assign(score=(df["score"] - df["score"].min()) / (df["score"].max() - df["score"].min()))
    kept = _boot(hand, normalize=False, metrics=("optimality_gap",))
    assert any(NOTE in n for n in kept.notes) and not any(f"{EXCEEDS}" in n and "gamma here" in n for n in kept.notes)


def test_declared_bounds_at_or_below_gamma_and_above_it():
    """bounds=(None, 1) at gamma = 1, or gamma above the bound: no score can cross gamma, no rows below gamma; the
    high end above gamma (1.5): the note stays. 2 tasks x 10 runs, where those rows miss (capped, 0.88)."""
    df = _scores(np.random.default_rng(3), 10, 2, ["A", "B"], [0.9, 0.95])
    assert any(NOTE in n for n in _boot(df, normalize=False).notes)
    for kw in ({"bounds": (None, 1.0)}, {"bounds": (None, 1.0), "gamma": 1.2}):
        res = _boot(df, normalize=False, **kw)
        assert res.gap_as_mean.all() and not any(NOTE in n for n in res.notes)
        assert any(CAPPED + "bounds=(" in n for n in res.notes)
    res = _boot(df, normalize=False, bounds=(None, 1.5))
    assert any(NOTE in n for n in res.notes) and not any(CAPPED in n for n in res.notes)


def test_dm_control_bound_at_gamma():
    """normalize='dm_control' (returns in [0, 1000], a hard bound, [0, 1] once normalised) at gamma = 1."""
    df = _scores(np.random.default_rng(4), 10, 2, ["A", "B"], [0.9, 0.95])
    res = _boot(df.assign(score=df["score"].clip(lower=0.0) * 1000), normalize="dm_control")
    assert not any(NOTE in n for n in res.notes)
    assert any(CAPPED + "normalize='dm_control'" in n for n in res.notes)


def test_ceiling_read_of_the_record_and_of_the_rows():
    """A frame min-max normalised beforehand has the ceiling 1; stacked with raw rows (below 1, no record), or with
    its scores moved above 1 afterwards, it has none; gamma below the ceiling: none said."""
    df = _scores(np.random.default_rng(5), 4, 2, ["A", "B"], [0.9, 0.95])
    normalised = rlstats.normalize(df, "minmax")
    assert build(normalised, "score ~ agent | task").ceiling == (1.0, MINMAX)
    assert build(normalised, "score ~ agent | task").ceiling_at_or_below(0.99) is None
    raw = df.assign(agent=df["agent"] + "2")  # every score below 1, but not normalised
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stacked = build(pd.concat([normalised, raw], ignore_index=True), "score ~ agent | task")
    assert stacked.ceiling is None
    moved = normalised.assign(score=normalised["score"] + 0.5)
    assert build(moved, "score ~ agent | task").ceiling is None
    assert build(df, "score ~ agent | task").ceiling is None


def test_curves_minmax_leaves_out_the_rows_below_gamma():
    """curves() at 1 task x 5 runs, gamma = 1: on the raw scores (all below 1) the band note quotes the rows below
    gamma (skewed 0.849 pointwise); min-max normalised, the gap-is-mean line says why none is due."""
    df = _scores(np.random.default_rng(5), 5, 1, ["A", "B"], [0.9, 0.95], steps=4)
    kw = dict(step="step", statistic="optimality_gap", gamma=1.0, n_resamples=100, rng=1, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = rlstats.curves(df, "score ~ agent | task/seed", normalize=False, **kw)
        scaled = rlstats.curves(df, "score ~ agent | task/seed", normalize="minmax", **kw)
    assert any(NOTE in n for n in raw.notes) and not any(f"{EXCEEDS}" in n and "gamma here" in n for n in raw.notes)
    assert not any(NOTE in n for n in scaled.notes)
    (line,) = [n for n in scaled.notes if n.startswith("every score of every agent logged at the grid steps")]
    assert line.endswith(f"no score exceeds gamma here ({MINMAX}), so the gap is gamma minus the mean on this scale "
                         "too and its bands cover it where the mean's cover the mean: the mean's measured coverage is "
                         "the gap's (1 is the data's largest score, not a bound: a new run above it, whose chance is "
                         "about 1 in the runs + 1, would move the true gap a little)")


def test_atari100k_human_normalised_keeps_the_note_minmax_does_not(published):
    """Atari 100k, 2 games where every run of DER, SPR, CURL and DrQ stays below human (Alien, Amidar; first 10
    runs): human-normalised, gamma = 1 is a reference score, not a bound (other games pass it), so the note quoting
    the rows below gamma stays (0.90 to 0.96 at 2 tasks x 10 runs); min-max normalised it gives way."""
    atari = pd.read_csv(published / "atari100k.csv")
    df = atari[atari["agent"].isin(["DER", "SPR", "CURL", "DrQ"]) & atari["task"].isin(["Alien", "Amidar"])]
    df = df[df.groupby(["agent", "task"]).cumcount() < 10]
    human = _boot(df, normalize="atari100k_reference")
    assert human.gap_as_mean.all()
    assert any(NOTE in n and "covered 0.90 to 0.96" in n for n in human.notes)
    scaled = _boot(df, normalize="minmax")
    assert scaled.gap_as_mean.all() and not any(NOTE in n for n in scaled.notes)


# ------------------------------------------------------------------------------------ the coverage, by simulation

def _capped_truths(m, s, cap=1.0):
    """Closed forms for X = min(N(m, s^2), cap): E X = m - E max(Y - cap, 0), and the gap E max(cap - X, 0) =
    E max(cap - Y, 0) (Y the normal), each from E max(a - Y, 0) = (a - m) Phi(d) + s phi(d), d = (a - m) / s."""
    d = (cap - m) / s
    over = (m - cap) * stats.norm.cdf(-d) + s * stats.norm.pdf(d)
    return m - over, (cap - m) * stats.norm.cdf(d) + s * stats.norm.pdf(d)


def _covered(n_sets, runs=10, seed=0):
    """(mean covered, gap covered) per data set of 2 agents x 2 tasks x ``runs`` runs capped at 1 (bounds=(None, 1),
    gamma = 1; 7-16% of runs at the cap), each against its closed-form truth averaged over tasks."""
    locations = np.array([[0.7, 0.8], [0.75, 0.65]])  # agent x task
    scale = 0.2
    mean_truth, gap_truth = _capped_truths(locations, scale)
    mean_truth, gap_truth = mean_truth.mean(axis=1), gap_truth.mean(axis=1)
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_sets):
        y = np.minimum(rng.normal(locations[:, :, None], scale, size=(2, 2, runs)), 1.0)
        df = pd.DataFrame([{"agent": f"a{a}", "task": f"t{t}", "seed": r, "score": y[a, t, r]}
                           for a in range(2) for t in range(2) for r in range(runs)])
        res = _boot(df, normalize=False, bounds=(None, 1.0), rng=i)
        lo, hi = res.intervals[..., 0], res.intervals[..., 1]
        assert res.gap_as_mean.all()
        out.append(((lo[:, 0] <= mean_truth) & (mean_truth <= hi[:, 0]),
                    (lo[:, 1] <= gap_truth) & (gap_truth <= hi[:, 1])))
    return np.array(out)


def test_truths_against_each_other_and_quadrature():
    """The closed forms add to the cap (min(X, 1) + max(1 - X, 0) = 1) and match numerical integration."""
    from scipy import integrate

    mean, gap = _capped_truths(0.8, 0.2)
    assert mean + gap == pytest.approx(1.0, abs=1e-12)
    density = stats.norm(0.8, 0.2).pdf
    below = integrate.quad(lambda y: y * density(y), -np.inf, 1.0)[0] + stats.norm(0.8, 0.2).sf(1.0)
    assert mean == pytest.approx(below, abs=1e-9)


def test_reflected_interval_covers_exactly_where_the_means_does():
    """Reduced: 6 data sets; each agent's gap interval holds its true gap in exactly the data sets where its mean's
    holds the true mean."""
    covered = _covered(6)
    np.testing.assert_array_equal(covered[:, 0], covered[:, 1])


@pytest.mark.slow
def test_reflected_interval_coverage_equals_the_means_on_400_data_sets():
    """400 data sets (800 intervals each): equal data set by data set (measured: 0.9825 both), at least 95% by its
    Monte Carlo error, and within it of the table's row of the mean's interval on capped runs at 2 tasks x 10 runs
    (0.981 of 479, read with the csv module)."""
    import csv
    import pathlib

    covered = _covered(400, seed=1)
    np.testing.assert_array_equal(covered[:, 0], covered[:, 1])
    share, n = covered[:, 0].mean(), covered[:, 0].size
    assert share > 0.95 - 3 * np.sqrt(0.95 * 0.05 / n)
    with open(pathlib.Path(rlstats.__file__).parent / "calibration.csv", newline="") as handle:
        (row,) = [r for r in csv.DictReader(handle) if (r["procedure"], r["interval"], r["metric"], r["tasks"],
                  r["runs"], r["distribution"], r["configuration"]) == ("bootstrap.interval", "studentized", "mean",
                                                                        "2", "10", "capped", "")]
    assert abs(share - float(row["coverage"])) < 3 * np.hypot(np.sqrt(share * (1 - share) / n), float(row["se"]))


# ------------------------------------------------------------------ B: the hierarchical model on runs at a cap

def _saturated_frame(y):
    """Long frame of one data set ``y`` (tasks, agents, runs) of the reference script (agents a0, a1, ...)."""
    tasks, agents, runs = y.shape
    return pd.DataFrame([{"agent": f"a{a}", "task": f"t{t}", "seed": r, "score": y[t, a, r]}
                         for t in range(tasks) for a in range(agents) for r in range(runs)])


def _reference():
    import pathlib
    import runpy

    return runpy.run_path(str(pathlib.Path(__file__).parent / "reference" / "bayes_hierarchical_saturated.py"))


def test_counting_agrees_with_the_hierarchical_models_own():
    """The script's pairs that cannot be fitted, counted from the runs, against rlstats.bayes's: the number of pairs
    its cost estimate counts at max_seconds=1e-9 (nothing fitted) on 4 data sets of 3 agents x 5 tasks x 3 runs (1
    to 3 pairs withheld among them), and on two agents the refusal of a data set the script counts unfittable."""
    import re

    from rlstats.errors import DesignError, OptionError

    reference = _reference()
    y = reference["simulate"](3, 5, 3, 0.0, 0, 12)[-4:]
    unfit = reference["unfit_pairs"](y)
    assert 0 < unfit.sum() < unfit.size  # both kinds of data set among them
    kw = dict(model="hierarchical", progress=False, normalize=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for scores, bad in zip(y, unfit):
            with pytest.raises(OptionError) as raised:
                rlstats.bayes(_saturated_frame(scores), "score ~ agent | task/seed", max_seconds=1e-9, **kw)
            assert int(re.search(r"x (\d+) pairs?", str(raised.value)).group(1)) == int((~bad).sum())
        two = reference["simulate"](2, 5, 3, 0.0, 0, 4)
        first = int(np.flatnonzero(reference["unfit_pairs"](two)[:, 0])[0])
        with pytest.raises(DesignError, match="do not vary"):
            rlstats.bayes(_saturated_frame(two[first]), "score ~ agent | task/seed", **kw)


def test_rates_against_closed_forms_and_the_constants():
    """Two agents alike (sign 0): a pair is withheld where on some task every one of both agents' r runs sits at the
    cap, 1 - (1 - 0.85^(2r))^T; the script's shares at 5 and 26 tasks x 3 runs (400 data sets) within 3 binomial SE.
    The constants the note quotes are the script's table at 3 and 10 runs (reduced here: 3 agents)."""
    from rlstats.methods.bayes import _api as bayes_api

    reference = _reference()
    for tasks in (5, 26):
        expected = 1 - (1 - 0.85 ** 6) ** tasks
        share = reference["point"](2, tasks, 3)[0.0][0]
        assert abs(share - expected) < 3 * np.sqrt(expected * (1 - expected) / 400) + 1e-9
    table = reference["table"](agents=(3,), runs=(3, 10))
    for k in (3,):
        measured = [table[(k, 3)][0], table[(k, 3)][1], table[(k, 10)][0], table[(k, 10)][1]]
        assert bayes_api.HIERARCHICAL_SATURATED[k] == tuple(tuple(round(100 * v) for v in pair) for pair in measured)


def test_note_quotes_the_row_of_the_designs_agents():
    """The saturated-runs note quotes the row of the design's number of agents (two: the call refused where the pair
    is; three: pairs withheld and calls refused apart), no longer "refused 64-99%" whatever the agents."""
    from rlstats.methods.bayes import _api as bayes_api

    two = bayes_api._hierarchical_saturated_words(2)
    assert "with 2 agents (5-26 tasks) it withheld 69-100% of the pairs at 3 runs and 3-95% at 10, and refused the " \
           "call (no pair fitted) in 69-100% of the data sets at 3 runs and 3-95% at 10" in two
    assert "with 3 agents (5-26 tasks) it withheld 76-100% of the pairs at 3 runs and 7-83% at 10, and refused the " \
           "call (no pair fitted) in 57-100% of the data sets at 3 runs and 0-60% at 10" in \
           bayes_api._hierarchical_saturated_words(3)
    assert "with 8 agents (the most measured; 5-26 tasks) it withheld 85-100% of the pairs at 3 runs" in \
        bayes_api._hierarchical_saturated_words(12)
    y = _reference()["simulate"](3, 5, 3, 0.0, 1, 1)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(_saturated_frame(y), "score ~ agent | task/seed", n_samples=2_000, rng=0,
                            normalize=False)
    (said,) = [n for n in res.notes if "sit at the pair's largest or smallest score of the task" in n]
    assert bayes_api._hierarchical_saturated_words(3) in said and "64-99%" not in said
