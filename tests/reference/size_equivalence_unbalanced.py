"""Size at the margin of the equivalence tests when the two agents have different numbers of runs (audit s22 equiv22).

    PYTHONPATH=. python tests/reference/size_equivalence_unbalanced.py [--quick] [--candidates | --aggregate | --partial]

The ``equivalence.size`` rows of ``rlstats/calibration.csv`` (``size_equivalence.py``) measure two agents with the same
runs per task. A reproduction often compares a few runs of one agent with a published baseline's many (Atari 100k: IRIS
and SimPLe 5 runs a game, DER, DrQ(eps), SPR 100). There the difference of means keeps the skewness of the
few-run agent's mean (with equal runs the two agents' skewness cancels in the difference), and Welch's t, which
assumes a symmetric difference, declares its alternative too easily on one side. This script measures it with the
grid's distributions (``designs.py``) and the kernels :func:`rlstats.equivalence` calls (``_kernels.welch``,
``welch_mean``, ``tost``), as ``size_equivalence.py`` does: agent 1 at ``+-SHIFT`` noise units from agent 2, the margin
at the true difference (per task, or the mean over the draw's tasks), and prints one row per design: the share of
tests declaring equivalence (TOST) at +margin and at -margin, and non-inferiority at -margin (higher is better).

Measured (seed 22, 20,000 data sets a per-task row, 4,000 an across-tasks row of one design draw; the Monte Carlo SE of
a size of 0.05 is 0.0015 and 0.0034), at alpha = 0.05:

- per task, skewed scores (lognormal, skewness 3.7), the agent with fewer runs first: TOST at +margin 0.16 (5 vs 100
  runs), 0.15 (3 vs 100), 0.14 (10 vs 100), 0.10 (10 vs 50), 0.052 (5 vs 20), 0.020 (5 vs 10); the same agent second,
  TOST at -margin 0.14-0.16 and non-inferiority at -margin 0.14-0.21 (100 vs 3 to 10 runs), 0.056 and 0.12 at 20 vs 5;
- per task, capped scores: non-inferiority 0.073-0.095 with the fewer runs first (3-10 vs 100), 0.070 at 5 vs 10; TOST
  within alpha in every order (0.023 at most, 100 vs 10);
- across tasks (``across="welch"``, the default) at 5 and 26 tasks, skewed: TOST 0.09-0.13, non-inferiority 0.09-0.12
  (100 vs 5); capped: TOST up to 0.076 (100 vs 5), non-inferiority up to 0.063 (3 vs 100);
- normal and heavy-tailed scores at most 0.01 above alpha (0.060 at most, non-inferiority at 3 vs 100);
- equal runs (3 vs 3) held alpha in every family, as the table's rows say;
- the across-tasks test with 5 vs 100 runs on only some tasks (``--partial``, 5 vs 5 on the others, 4,000 data sets a
  row, seed 22, review22a): on 1 of 5 tasks and 1 of 26 it held alpha (0.054 at most, skewed and capped, either agent
  first), on 13 of 26 it did not (skewed 0.070, capped 0.069), on 26 of 26 skewed 0.096, capped 0.067;
- the default aggregate, the IQM's bootstrap-t (``--aggregate``, 250 data sets a row, 5 tasks, skewed scores): TOST
  0.028 at +margin with 5 vs 100 runs, 0.024 at -margin with 100 vs 5, non-inferiority 0.024: within alpha's Monte
  Carlo error (0.014), a reduced measurement.

:func:`rlstats.equivalence` quotes these where a pair's runs on a task differ enough
(``_api.UNEQUAL_SIZE``; ``_api.UNEQUAL_RATIO``: from 2 for non-inferiority, 4 for equivalence, the smallest
imbalances above alpha here); the table's rows stay those of equal runs.

``--candidates`` (audit s22 equivfix22; :func:`candidate_declared`, :data:`CANDIDATES`) measures the tests that could
replace Welch's t for such pairs, each with every one-sided p-value floored at Welch's (never less conservative than
today): seed 2222, 2,000 data sets a per-task row (Monte Carlo SE 0.005 at 0.05), 500 across 5 tasks (0.010), 300
across 26 (0.013), 399 resamples; 7.5 CPU-minutes. Size at the margin, the largest over TOST at +-margin and
non-inferiority at -margin:

- ``bootstrap_t`` (the aggregate's rule, bootstrap-t with Welch t floor, each agent's runs resampled within a task):
  per task on skewed scores 0.11-0.17 where Welch's is 0.11-0.19 (20 vs 5, 3-10 vs 100, 100 vs 3-5; 5 vs 100: 0.141
  against 0.166; 100 vs 3: 0.1745 against 0.1825); across 5 tasks 0.080-0.106 (Welch 0.088-0.134), 26 tasks up to
  0.087. In the data sets that declare, the few runs missed their rare large value, so their resamples do too.
- ``hall`` (Hall's skewness-corrected t, the skewness pooled over the pair's runs, mostly the many runs'): per task
  skewed 0.078-0.096 at 3-10 vs 100 and 100 vs 3-5 (20 vs 5: 0.109), capped up to 0.055; across 5 tasks 0.074-0.088
  at 5 vs 20 and 20 vs 5 (0.010-0.046 at 3 or 5 vs 100), 26 tasks up to 0.073.
- ``hall_true`` (the same at the family's true skewness, an oracle no estimate beats): per task 0.0635 (3 vs 100),
  0.0665 (100 vs 3), 0.0935 (20 vs 5, non-inferiority): skewness alone does not explain the miss at 5 runs.
- ``common_scale`` (the bootstrap-t from the pair's pooled standardised residuals, both agents at the SD of the agent
  with more runs: one shape and one spread): on the grid's families, whose agents differ by a shift only, per task at
  most 0.0615 (skewed, 100 vs 5, non-inferiority), across 5 tasks up to 0.060, across 26 up to 0.073 (skewed 5 vs 20,
  1.8 SE); with agent 1's spread half agent 2's it missed again: 0.130 at 20 vs 5, 0.109 at 5 vs 5, 0.079 at 100 vs 5.
- normal and heavy-tailed scores: every candidate, as Welch's t, within 2 Monte Carlo SE of alpha (at most 0.059 per
  task, 0.067 of 300 across 26 tasks).

So none held alpha on every row: the only one within about 2 Monte Carlo SE on the grid's families reads one spread
for both agents, which Welch's t exists not to assume, and missed as soon as the spreads differed. Welch's t stays the
default and ``_api.UNEQUAL_SIZE`` its note. The same rows show (``spread`` 0.5) that Welch's t misses with equal runs
too where the agents' spreads differ on skewed scores: non-inferiority 0.085 at 3 vs 3 and 0.114 at 5 vs 5 runs, TOST
0.074 at 5 vs 5 (``tests/test_audit_s22_equivfix22.py``); audit s23 measured it on a grid with candidates
(``size_equivalence_spread.py``), none held alpha, and ``equivalence()`` quotes the table's rows of unlike spreads in a
note (``_api.UNLIKE_SPREAD``).

Power, the share of TOST declaring equivalence at a true difference of 0 (margin 1 noise unit per task, 0.5 across 5
tasks): per task at 5 vs 100, normal scores, Welch 0.287, ``bootstrap_t`` 0.185, ``hall`` 0.267, ``common_scale``
0.248; skewed 0.647, 0.532, 0.189 and 0.478 (Welch's own inflated there by the same miss); equal runs (5 vs 5,
normal) 0.0735, 0.0435, 0.057, 0.065; across 5 tasks at 5 vs 100, normal, 0.410, 0.366, 0.404, 0.390.
"""

from __future__ import annotations

import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
ALPHA = 0.05
SHIFT = 0.5
#: (runs of agent 1, runs of agent 2); each imbalance in both orders
RUNS = ((3, 3), (5, 10), (5, 20), (3, 100), (5, 100), (10, 100), (10, 50), (100, 3), (100, 5), (100, 10), (20, 5))
#: data sets a row: per task, across tasks (one design draw), and --quick's
SIMULATIONS = {"task": 20_000, "across": 4_000}
QUICK = {"task": 2_000, "across": 400}
QUICK_RUNS = ((3, 3), (5, 100), (100, 5))



def _shares(estimate, se, df, margin, sign):
    """{column: share}: TOST declaring equivalence at the margin on the side ``sign``, and at -margin non-inferiority."""
    from rlstats.methods.equivalence import _kernels as kernels

    out = {f"tost {'+' if sign > 0 else '-'}margin": kernels.tost(estimate, se, df, margin, ALPHA)["shown"].mean()}
    if sign < 0:
        out["noninferior -margin"] = kernels.tost(estimate, se, df, margin, ALPHA, "noninferior")["shown"].mean()
    return out

def declared(distribution, runs, tasks, n_sim, rng):
    """{column: share}: TOST at +margin and -margin, non-inferiority at -margin, of ``n_sim`` data sets of two agents
    with ``runs`` runs on ``tasks`` tasks (1: the per-task Welch test; more: the across-tasks Welch-Satterthwaite
    test over one design draw's offsets and scales)."""
    from rlstats.methods.equivalence import _kernels as kernels

    offset, scale = DESIGNS["design_draw"](0, tasks) if tasks > 1 else (np.zeros(1), np.ones(1))
    q = DESIGNS["quantiles"](distribution, 20_000)
    out = {}
    for sign in (1.0, -1.0):
        location = sign * SHIFT
        truth = (DESIGNS["scores"](distribution, q, location, offset[:, None], scale[:, None]).mean(axis=-1)
                 - DESIGNS["scores"](distribution, q, 0.0, offset[:, None], scale[:, None]).mean(axis=-1))
        y = [DESIGNS["scores"](distribution, DESIGNS["deviations"](rng, distribution, (n_sim, tasks, n)), where,
                               offset[None, :, None], scale[None, :, None])
             for n, where in zip(runs, (location, 0.0))]
        summary = [(v.mean(axis=-1), v.std(axis=-1, ddof=1), n) for v, n in zip(y, runs)]
        if tasks == 1:
            estimate, se, df = kernels.welch(*summary[0], *summary[1])
            estimate, se, df, margin = estimate[:, 0], se[:, 0], df[:, 0], abs(truth[0])
        else:
            estimate, se, df = kernels.welch_mean(*summary[0], *summary[1])
            margin = abs(truth.mean())
        out.update(_shares(estimate, se, df, margin, sign))
    return out


def aggregate_declared(runs, sign, n_sim, seed=22, distribution="skewed", tasks=5):
    """{alternative: share} of the IQM aggregate's bootstrap-t (the default ``aggregate="iqm"``, 400 resamples) at
    ``sign`` * margin, as :func:`rlstats.equivalence` forms it on a frame of two agents with ``runs`` runs on
    ``tasks`` tasks of one design draw (``--aggregate``; 250 data sets a row took 40 s)."""
    import pandas as pd

    import rlstats

    reference = runpy.run_path(str(HERE / "size_equivalence.py"))
    rng = np.random.default_rng(seed)
    offset, scale = DESIGNS["design_draw"](0, tasks)
    margin = abs(reference["truths"](distribution, sign, offset, scale)["iqm"])
    hits = {"equivalence": 0, "noninferior": 0}
    for k in range(n_sim):
        rows = []
        for a, (n, location) in enumerate(zip(runs, (sign * SHIFT, 0.0))):
            y = DESIGNS["scores"](distribution, DESIGNS["deviations"](rng, distribution, (tasks, n)), location,
                                  offset[:, None], scale[:, None])
            rows += [(f"a{a}", f"t{t}", v) for t in range(tasks) for v in y[t]]
        frame = pd.DataFrame(rows, columns=["agent", "task", "score"])
        for alternative in hits:
            res = rlstats.equivalence(frame, "score ~ agent | task", margin=margin, alternative=alternative,
                                      control="a1",
                                      n_resamples=400, rng=k, normalize=False, progress=False)
            hits[alternative] += bool(res.comparisons.loc[res.comparisons["scope"] == "aggregate", "shown"].iloc[0])
    return {alternative: hit / n_sim for alternative, hit in hits.items()}


#: --partial: (tasks, tasks whose runs differ) of the across-tasks test with some tasks' runs unequal (review22a)
PARTIAL = ((5, 1), (26, 1), (26, 13), (26, 26))


def partial_declared(distribution, tasks, unequal, n_sim, rng, fewer_first=True):
    """{column: share} as :func:`declared` of the across-tasks Welch-Satterthwaite test over one design draw of
    ``tasks`` tasks, on ``unequal`` of which the runs are 5 vs 100 (5 vs 5 on the others), the agent with 5 runs first
    (``fewer_first``) or second: how far the size at the margin moves when only some tasks' runs differ."""
    from rlstats.methods.equivalence import _kernels as kernels

    offset, scale = DESIGNS["design_draw"](0, tasks)
    q = DESIGNS["quantiles"](distribution, 20_000)
    few, many = [5] * tasks, [100] * unequal + [5] * (tasks - unequal)
    runs = (few, many) if fewer_first else (many, few)
    out = {}
    for sign in (1.0, -1.0):
        location = sign * SHIFT
        truth = (DESIGNS["scores"](distribution, q, location, offset[:, None], scale[:, None]).mean(axis=-1)
                 - DESIGNS["scores"](distribution, q, 0.0, offset[:, None], scale[:, None]).mean(axis=-1))
        summary = []
        for counts, where in zip(runs, (location, 0.0)):
            mean, sd = np.empty((n_sim, tasks)), np.empty((n_sim, tasks))
            for t, n in enumerate(counts):
                y = DESIGNS["scores"](distribution, DESIGNS["deviations"](rng, distribution, (n_sim, 1, n)), where,
                                      offset[None, t:t + 1, None], scale[None, t:t + 1, None])[:, 0]
                mean[:, t], sd[:, t] = y.mean(axis=-1), y.std(axis=-1, ddof=1)
            summary.append((mean, sd, np.array(counts, dtype=float)))
        estimate, se, df = kernels.welch_mean(*summary[0], *summary[1])
        margin = abs(truth.mean())
        out.update(_shares(estimate, se, df, margin, sign))
    return out


#: the candidates measured to replace Welch's t where runs differ (``--candidates``; audit s22 equivfix22), each but
#: Welch's own floored at Welch's t (each one-sided p-value the larger of its own and Welch's: never less
#: conservative than the test they would replace)
CANDIDATES = ("welch", "bootstrap_t", "hall", "hall_true", "common_scale")
#: (runs of agent 1, runs of agent 2) of the candidates' rows, per task and across tasks
CANDIDATE_RUNS = ((3, 3), (5, 5), (5, 20), (20, 5), (3, 100), (5, 100), (10, 100), (100, 3), (100, 5))
CANDIDATE_ACROSS_RUNS = ((3, 3), (5, 20), (20, 5), (3, 100), (5, 100), (100, 5))
#: data sets a candidates' row (per task, across 5 tasks, across 26 tasks) and resamples of the two bootstraps
CANDIDATE_SIMULATIONS = {1: 2_000, 5: 500, 26: 300}
CANDIDATE_RESAMPLES = 399


def _skewness(distribution):
    """The runs' true skewness (standardised third moment) of ``distribution``'s scores, from its quantiles (the
    oracle of ``hall_true``: no estimate does better)."""
    x = DESIGNS["scores"](distribution, DESIGNS["quantiles"](distribution, 200_000))
    d = x - x.mean()
    return float(np.mean(d ** 3) / np.mean(d ** 2) ** 1.5)


def _g1(values, runs):
    """(..., T) the runs' skewness G1 of each cell of ``values`` (..., T, runs); 0 below 3 runs."""
    from rlstats.statistics import shape_ratios

    if runs < 3:
        return np.zeros(values.shape[:-1])
    d = values - values.mean(axis=-1, keepdims=True)
    return shape_ratios(np.full(d.shape[:-1], runs), (d ** 2).sum(axis=-1), (d ** 3).sum(axis=-1))[0]


def _bootstrap_p(estimate, se, resampled, resampled_se, margin):
    """(p_lower, p_upper) of the bootstrap-t (``_kernels.bootstrap_t``, the aggregate's kernel) from resamples whose
    own difference is ``estimate`` (the caller centres them there)."""
    from rlstats.methods.equivalence import _kernels as kernels

    test = kernels.bootstrap_t(estimate, se, resampled, resampled_se, margin, ALPHA)
    return test["p_lower"], test["p_upper"]


def candidate_declared(distribution, runs, tasks, n_sim, rng, n_resamples=CANDIDATE_RESAMPLES, spread=1.0,
                       power_margin=None, chunk_values=4e6):
    """{(candidate, test): share} of ``n_sim`` data sets declaring each test with each of :data:`CANDIDATES`.

    As :func:`declared` (agent 1 at +-SHIFT noise units, the margin at the true difference), but agent 1's
    deviations times ``spread`` (a spread unlike agent 2's: 1 is the grid's families). ``power_margin`` (in noise
    units): both agents alike (a true difference of 0) and the margin there: the test column is then "tost 0", how
    often equivalence is shown (power). The candidates, each p-value floored at Welch's t but Welch's own:

    ``welch``: today's test (per task Welch's t; across tasks the Welch-Satterthwaite t of the mean difference);
    ``bootstrap_t``: the bootstrap-t of the difference (t* = (delta* - delta) / se*, each agent's runs resampled within
    each task, ``_kernels.bootstrap_t``), the rule of the aggregate of the mean (bootstrap-t with Welch t floor);
    ``hall``: Hall's (1992) skewness-corrected t (``statistics.hall_transform``) at the difference's skewness
    k3 / se^3, k3 = g (s_1^3 / n_1^2 - s_2^3 / n_2^2), the runs' skewness g pooled over the pair's cells of 3 runs
    or more (each cell's G1 weighted by its runs, then averaged over tasks): one shape for both agents, read mostly
    from the agent with many runs; ``hall_true``: the same at the family's true skewness (an oracle: no estimate of g
    does better); ``common_scale``: the bootstrap-t of the difference drawn from the pair's pooled residuals (each
    cell's standardised by its SD), both agents at the SD of the agent with more runs: one shape and one spread for
    both, as a location-shift model has. Vectorised over data sets (chunks of ``chunk_values`` resampled values).
    """
    from scipy import stats

    from rlstats.methods.equivalence import _kernels as kernels
    from rlstats.statistics import hall_transform

    offset, scale = DESIGNS["design_draw"](0, tasks) if tasks > 1 else (np.zeros(1), np.ones(1))
    q = DESIGNS["quantiles"](distribution, 20_000)
    true_g = _skewness(distribution)
    many = int(np.argmax(runs))
    chunk = max(1, int(chunk_values // (n_resamples * sum(runs) * tasks)))
    out = {}
    for sign in ((0.0,) if power_margin is not None else (1.0, -1.0)):
        location = sign * SHIFT
        truth = (DESIGNS["scores"](distribution, spread * q, location, offset[:, None], scale[:, None]).mean(axis=-1)
                 - DESIGNS["scores"](distribution, q, 0.0, offset[:, None], scale[:, None]).mean(axis=-1))
        margin = abs(truth[0]) if tasks == 1 else abs(truth.mean())
        if power_margin is not None:
            margin = power_margin * (1.0 if tasks == 1 else float(scale.mean()))
        hits = {}
        for start in range(0, n_sim, chunk):
            m = min(chunk, n_sim - start)
            y = [DESIGNS["scores"](distribution, factor * DESIGNS["deviations"](rng, distribution, (m, tasks, n)),
                                   where, offset[None, :, None], scale[None, :, None])
                 for n, where, factor in zip(runs, (location, 0.0), (spread, 1.0))]
            mean = [v.mean(axis=-1) for v in y]
            sd = [v.std(axis=-1, ddof=1) for v in y]
            p = {}
            if tasks == 1:
                estimate, se, df = kernels.welch(mean[0][:, 0], sd[0][:, 0], runs[0], mean[1][:, 0], sd[1][:, 0],
                                                 runs[1])
            else:
                estimate, se, df = kernels.welch_mean(mean[0], sd[0], runs[0], mean[1], sd[1], runs[1])
            welch = kernels.tost(estimate, se, df, margin, ALPHA)
            p["welch"] = welch["p_lower"], welch["p_upper"]

            def reduce(delta, variance):  # (m, T, B) per task -> (m, B) of the test's scope
                return (delta[:, 0], np.sqrt(variance[:, 0])) if tasks == 1 else (
                    delta.mean(axis=1), np.sqrt(variance.sum(axis=1)) / tasks)

            # each agent's own runs resampled within each task
            drawn = []
            for v, n in zip(y, runs):
                r = np.take_along_axis(v[:, :, None, :], rng.integers(0, n, size=(m, tasks, n_resamples, n)), -1)
                drawn.append((r.mean(axis=-1), r.var(axis=-1, ddof=1) / n))
            delta, draw_se = reduce(drawn[0][0] - drawn[1][0], drawn[0][1] + drawn[1][1])
            p["bootstrap_t"] = _bootstrap_p(estimate, se, delta, draw_se, margin)
            # one shape and one spread: the pooled standardised residuals at the SD of the agent with more runs
            residuals = np.concatenate([(v - mu[..., None]) / np.where(s > 0, s, 1.0)[..., None]
                                        for v, mu, s in zip(y, mean, sd)], axis=-1)
            common = sd[many][..., None, None]
            drawn = []
            for n in runs:
                index = rng.integers(0, residuals.shape[-1], size=(m, tasks, n_resamples, n))
                r = common * np.take_along_axis(residuals[:, :, None, :], index, -1)
                drawn.append((r.mean(axis=-1), r.var(axis=-1, ddof=1) / n))
            delta, draw_se = reduce(drawn[0][0] - drawn[1][0], drawn[0][1] + drawn[1][1])  # centred at 0 already
            delta = delta + estimate[:, None]
            p["common_scale"] = _bootstrap_p(estimate, se, delta, draw_se, margin)
            # Hall's skewness-corrected t at the difference's skewness
            weights = [np.where(n >= 3, n, 0) for n in runs]
            pooled = (weights[0] * _g1(y[0], runs[0]) + weights[1] * _g1(y[1], runs[1])) / max(sum(weights), 1)
            for name, g in (("hall", pooled.mean(axis=-1, keepdims=True)), ("hall_true", true_g)):
                third = g * (sd[0] ** 3 / runs[0] ** 2 - sd[1] ** 3 / runs[1] ** 2)
                gamma = (third[:, 0] if tasks == 1 else third.sum(axis=-1) / tasks ** 3) / se ** 3
                with np.errstate(invalid="ignore", divide="ignore"):
                    t_lower, t_upper = (estimate + margin) / se, (estimate - margin) / se
                    p[name] = (stats.t.sf(hall_transform(t_lower, gamma, 1), df),
                               stats.t.cdf(hall_transform(t_upper, gamma, 1), df))
            for name, (p_lower, p_upper) in p.items():
                if name != "welch":  # floored at Welch's t
                    p_lower, p_upper = np.fmax(p_lower, welch["p_lower"]), np.fmax(p_upper, welch["p_upper"])
                label = "0" if power_margin is not None else "+margin" if sign > 0 else "-margin"
                shown = {f"tost {label}": np.maximum(p_lower, p_upper) <= ALPHA}
                if sign < 0:
                    shown["noninferior -margin"] = p_lower <= ALPHA
                for test, declared_here in shown.items():
                    hits[name, test] = hits.get((name, test), 0) + int(np.count_nonzero(declared_here))
        out.update({key: hit / n_sim for key, hit in hits.items()})
    return out


def candidate_rows(quick=False, seed=2222):
    """The candidates' rows: size at the margin per task and across 5 and 26 tasks on the grid's families, then on
    skewed runs whose spreads differ (agent 1's twice and half agent 2's), then power at a true difference of 0."""
    rng = np.random.default_rng(seed)
    scale = 10 if quick else 1

    def row(kind, distribution, runs, tasks, n_sim, shares, **extra):
        out = {"kind": kind, "tasks": tasks, "distribution": distribution, "runs": f"{runs[0]} vs {runs[1]}",
               "n_sim": n_sim, **extra}
        for test in sorted({t for _, t in shares}):
            out.update({f"{c} {test}": round(shares[c, test], 4) for c in CANDIDATES})
        return out

    for tasks in (1, 5, 26):
        grid = CANDIDATE_RUNS if tasks == 1 else CANDIDATE_ACROSS_RUNS
        for distribution in DESIGNS["DISTRIBUTIONS"]:
            for runs in grid[:3] if quick else grid:
                n_sim = max(CANDIDATE_SIMULATIONS[tasks] // scale, 40)
                yield row("size", distribution, runs, tasks, n_sim,
                          candidate_declared(distribution, runs, tasks, n_sim, rng))
    for spread in (2.0, 0.5):
        for runs in ((3, 3), (5, 5), (5, 100), (100, 5), (20, 5)):
            n_sim = CANDIDATE_SIMULATIONS[1] // scale
            yield row("size", "skewed", runs, 1, n_sim, candidate_declared("skewed", runs, 1, n_sim, rng, spread=spread,
                                                                          ), spread=spread)
    for tasks, margin in ((1, 1.0), (5, 0.5)):
        for distribution in ("normal", "skewed"):
            for runs in ((5, 5), (5, 100), (100, 5)):
                n_sim = max(CANDIDATE_SIMULATIONS[tasks] // scale, 40)
                yield row("power", distribution, runs, tasks, n_sim,
                          candidate_declared(distribution, runs, tasks, n_sim, rng, power_margin=margin),
                          margin=margin)


def rows(quick=False):
    sims = QUICK if quick else SIMULATIONS
    rng = np.random.default_rng(22)
    for distribution in DESIGNS["DISTRIBUTIONS"]:
        for tasks in (1, 5, 26):
            scope = "task" if tasks == 1 else "across"
            for runs in QUICK_RUNS if quick else RUNS:
                if scope == "across" and runs not in ((3, 3), (3, 100), (5, 100), (100, 5)):
                    continue
                shares = declared(distribution, runs, tasks, sims[scope], rng)
                yield {"scope": scope, "tasks": tasks, "distribution": distribution, "runs": f"{runs[0]} vs {runs[1]}",
                       "n_sim": sims[scope], **{k: round(float(v), 4) for k, v in shares.items()}}


if __name__ == "__main__":
    import pandas as pd

    pd.set_option("display.width", 200)
    if "--partial" in sys.argv:  # the across-tasks test with runs unequal on some tasks only (review22a)
        generator = np.random.default_rng(22)
        for tasks, unequal in PARTIAL:
            for distribution in ("skewed", "capped"):
                for fewer_first in (True, False):
                    shares = partial_declared(distribution, tasks, unequal, 4_000, generator, fewer_first)
                    print(tasks, unequal, distribution, "5 first" if fewer_first else "100 first",
                          {k: round(float(v), 4) for k, v in shares.items()}, flush=True)
    elif "--candidates" in sys.argv:  # audit s22 equivfix22: the tests measured to replace Welch's t
        found = []
        for one in candidate_rows(quick="--quick" in sys.argv):
            found.append(one)
            print(one, flush=True)
        frame = pd.DataFrame(found)
        for kind, part in frame.groupby("kind", sort=False):
            print(part.dropna(axis=1, how="all").to_string(index=False))
    elif "--aggregate" in sys.argv:  # the IQM's bootstrap-t: TOST at +margin (5 vs 100), both at -margin (100 vs 5)
        n = 40 if "--quick" in sys.argv else 250
        print("5 vs 100 at +margin:", aggregate_declared((5, 100), 1.0, n)["equivalence"])
        print("100 vs 5 at -margin:", aggregate_declared((100, 5), -1.0, n))
    else:
        print(pd.DataFrame(list(rows(quick="--quick" in sys.argv))).to_string(index=False))
