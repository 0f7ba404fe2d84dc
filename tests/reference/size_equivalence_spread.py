"""Size at the margin of the equivalence tests with equal runs but unlike spreads (audit s23 equiv23).

    PYTHONPATH=. nice -n 10 python tests/reference/size_equivalence_spread.py [--quick]
        [--power | --rows | --append-table | --aggregate | --combined]

Audit s22 (``size_equivalence_unbalanced.py --candidates``, ``spread`` 0.5) found Welch's non-inferiority declaring at
-margin in 0.085 (3 vs 3 runs) and 0.114 (5 vs 5) of simulated tests on skewed scores where agent 1's spread was half
agent 2's: with equal runs the skewness of the two means cancels in their difference only where the two spreads are
alike. This script measures it on a grid (runs 3, 5, 10 per agent; the per-task test, and the across-tasks
Welch-Satterthwaite test at 5 and 26 tasks of one design draw; agent 1's deviations times ``SPREADS`` 1/8-8, so
that the spread ratio is 1, 2, 4 or 8 with either agent the wider; skewed, heavy-tailed and capped scores of
``designs.py``), as ``size_equivalence.py`` does: agent 1 at +-SHIFT noise units from agent 2, the margin at the
true difference (``designs.population``), and the share of tests declaring TOST at +margin and at -margin and
non-inferiority at -margin (higher is better). The per-task Welch test is invariant to the task's offset and scale,
so its rows are of one task; at 5 and 26 tasks the per-task test's size is that row's.

The candidates to replace Welch's t (:data:`CANDIDATES`, no new dependency), every one-sided p-value but Welch's own
floored at Welch's (never less conservative than the test they would replace):

``welch``
    today's test (``_kernels.welch``, ``welch_mean``).
``welch_min_df``
    Welch's t on min(n_1, n_2) - 1 df per task (the conservative df); across tasks the Welch-Satterthwaite df with
    each task's two terms on that df: (sum_t v_t)^2 / sum_t (v_t^2 / (min(n_1, n_2) - 1)), v_t = s_1t^2 / n_1 +
    s_2t^2 / n_2.
``hall_own``
    Hall's (1992) skewness-corrected t (``statistics.hall_transform``) at the difference's skewness k3 / se^3 with
    k3 = g_1 s_1^3 / n_1^2 - g_2 s_2^3 / n_2^2, each agent's own runs' skewness G1 (``statistics.shape_ratios``):
    the shape of each agent's mean kept apart, as unlike spreads need.
``hall``
    the same at one skewness, each cell's G1 pooled over the pair (as s22's ``hall``).
``bootstrap_t``
    the bootstrap-t of the difference, each agent's runs resampled within each task (``_kernels.bootstrap_t``, the
    aggregate's rule; ``N_RESAMPLES`` resamples).

Yuen's trimmed-means t tests a trimmed mean, not the mean the margin is set on (with unlike spreads on skewed scores
the two differences differ), and trims nothing of 3 runs at 20%; a sign-flip of the task differences needs each
task's difference symmetric about the margin (here only their mean is at the margin) and has no test of 1 task:
neither is a replacement for these tests, so neither is measured.

``--power``: the share of tests declaring equivalence (TOST) and non-inferiority at a true difference of 0 (both
agents at location 0, agent 1's deviations times the spread), margin ``POWER_MARGIN`` noise units of agent 2 per
task (its mean scale across tasks).

``--rows``: the calibration table's rows of Welch's t (``equivalence.size``, ``configuration`` "delta = -margin,
spread 1/4": agent 1's SD over agent 2's; :func:`table_rows`), spread ratios 2, 4, 8 either way, 4,000 data sets a
per-task row (1 task) and 1,000 an across-tasks row (5 and 26 tasks, one design draw), seed 23; ``--append-table``
also writes them into the package table in place of the ones it wrote before (:func:`appended`, which
``calibrate.py`` keeps when it re-measures ``equivalence.size``). 5 CPU-seconds.

``--aggregate``: the aggregate's test as :func:`rlstats.equivalence` forms it (``_api._aggregate``; the IQM's and the
mean's bootstrap-t, the mean's floored at Welch's t) at 5 tasks of one design draw, 3, 5 and 10 runs of each agent,
agent 1's spread 1/4 and 4 times agent 2's, skewed and capped scores, at -margin, 500 data sets a point (seed 2323,
400 resamples; 7 CPU-minutes): the IQM's declared non-inferiority in 0.014-0.056 (at most 0.044 skewed, 0.056
capped, 3 runs, spread 4: within alpha's 3 Monte Carlo standard errors, 0.079), the mean's in 0.076-0.084 skewed
where agent 1 is the narrower (0.084 at 5 runs; 0.002-0.008 where it is the wider) and 0.010-0.038 capped; TOST at
-margin: the IQM's at most 0.040, the mean's up to 0.084 (``_api.UNLIKE_AGGREGATE``). Not table rows.

``--combined`` (audit s29 tost29): Welch's t and the candidates of :data:`COMBINED` at the worst rows of Welch's t
(:data:`COMBINED_POINTS`, 2,000 data sets per task, 600 at 5 tasks, 400 at 26; seed 2929, 199 resamples; 2
CPU-minutes) with ``max_all``, a test declaring only where all three declare (each side's largest p-value), and
``boot_min_df``, the bootstrap-t floored at ``welch_min_df``; then their power at :data:`COMBINED_POWER`. ``max_all``
still misses: non-inferiority at -margin per task 0.1005 / 0.106 / 0.0835 at 3 / 5 / 10 skewed runs (spread 1/8; Welch
0.189 / 0.1765 / 0.142), 0.099 at 3 capped runs (spread 8; Welch 0.2105), 0.0805 at 5 skewed runs, spread 1/2 (Welch
0.118), 0.088 across 5 tasks (skewed, 5 runs, spread 1/8; Welch 0.1267); it holds at 10 capped runs, spread 8 (0.0455),
5 tasks x 3 capped runs (0.040) and 26 tasks x 5 skewed runs, spread 1/4 (0.055 of 400); power (non-inferiority at 0):
1 task x 5 normal runs 0.276 at ratio 1 and 0.417 with agent 1 four times narrower (Welch 0.3935 and 0.577), 5 tasks
x 5 skewed runs 0.857 (Welch 0.922). Not table rows: no test here replaces Welch's t.

Measured (seed 23; the grid 2.5 CPU-minutes, ``--power`` 10 s), the largest size at the margin over TOST at +-margin
and non-inferiority at -margin, runs 3-10, by spread ratio 1 / 2 / 4 / 8 (either agent the wider):

- Welch's t per task: skewed 0.042 / 0.115 / 0.172 / 0.181, capped 0.047 / 0.101 / 0.166 / 0.216, heavy-tailed
  0.044 / 0.050 / 0.046 / 0.048; across 5 and 26 tasks: skewed 0.065 / 0.088 / 0.139 / 0.137, capped 0.062 / 0.087 /
  0.095 / 0.097, heavy-tailed 0.063 / 0.065 / 0.078 / 0.055 (0.078: 26 tasks x 5 runs of 600; its table row of 1,000
  0.058). Skewed: where agent 1 (claimed non-inferior) is the narrower (non-inferiority per task 0.152-0.181 at
  ratio 4-8, TOST at -margin 0.107-0.159); capped: where it is the wider (non-inferiority 0.112-0.216 at 4-8).
- over the whole grid, by ratio 2 / 4 / 8: ``welch_min_df`` 0.102 / 0.157 / 0.200, ``hall_own`` 0.102 / 0.130 /
  0.152, ``hall`` 0.106 / 0.140 / 0.172, ``bootstrap_t`` 0.101 / 0.133 / 0.127 (Welch 0.115 / 0.172 / 0.216): none
  holds alpha, so Welch's t stays and ``equivalence()`` quotes the rows where a test declared with runs alike in
  number, whatever their SDs (a conditional: sample SDs cannot tell the true spreads; audit s23 equivgate23).
- power (``--power``: non-inferiority at a true difference of 0, margin 1 noise unit, 1 task, 5 runs, normal
  scores, ratio 1 and agent 1 four times narrower): Welch 0.400 and 0.561, ``welch_min_df`` 0.335 and 0.535,
  ``hall_own`` 0.342 and 0.456, ``hall`` 0.377 and 0.496, ``bootstrap_t`` 0.337 and 0.442.
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
#: agent 1's deviations times this: spread ratios 1, 2, 4, 8 with either agent the wider
SPREADS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
RUNS = (3, 5, 10)
TASKS = (1, 5, 26)
FAMILIES = ("skewed", "heavy_tailed", "capped")
CANDIDATES = ("welch", "welch_min_df", "hall_own", "hall", "bootstrap_t")
#: audit s29 (tost29, ``--combined``): each side's p-value the largest of these candidates' (none held alone)
COMBINED = ("welch_min_df", "hall_own", "bootstrap_t")
SIMULATIONS = {1: 4_000, 5: 1_000, 26: 600}
N_RESAMPLES = 199
POWER_MARGIN = 1.0


def _g1(values):
    """(..., T) each cell's runs' skewness G1 (values (..., T, runs), 3 runs or more)."""
    from rlstats.statistics import shape_ratios

    d = values - values.mean(axis=-1, keepdims=True)
    n = np.full(d.shape[:-1], values.shape[-1])
    g = shape_ratios(n.ravel(), (d ** 2).sum(axis=-1).ravel(), (d ** 3).sum(axis=-1).ravel())[0]
    return np.nan_to_num(g.reshape(d.shape[:-1]))


def candidate_p(y, margin, rng, n_resamples=N_RESAMPLES, candidates=CANDIDATES):
    """{candidate: (p_lower, p_upper)}, each (m,): the one-sided p-values of delta > -margin and delta < margin of
    the difference agent 1 - agent 2 of ``y`` (two arrays (m, T, n_a): m data sets, T tasks; one task: the per-task
    test, more: the mean over tasks), each but Welch's floored at Welch's."""
    from scipy import stats

    from rlstats.methods.equivalence import _kernels as kernels
    from rlstats.statistics import hall_transform

    m, tasks = y[0].shape[:2]
    runs = [v.shape[-1] for v in y]
    mean = [v.mean(axis=-1) for v in y]
    sd = [v.std(axis=-1, ddof=1) for v in y]
    if tasks == 1:
        estimate, se, df = (x[:, 0] for x in kernels.welch(mean[0], sd[0], runs[0], mean[1], sd[1], runs[1]))
    else:
        estimate, se, df = kernels.welch_mean(mean[0], sd[0], runs[0], mean[1], sd[1], runs[1])
    welch = kernels.tost(estimate, se, df, margin, ALPHA)
    p = {"welch": (welch["p_lower"], welch["p_upper"])}
    with np.errstate(invalid="ignore", divide="ignore"):
        t_lower, t_upper = (estimate + margin) / se, (estimate - margin) / se
    if "welch_min_df" in candidates:
        low = min(runs) - 1
        terms = [s ** 2 / n for s, n in zip(sd, runs)]
        v = terms[0] + terms[1]
        min_df = (v.sum(axis=1) ** 2 / (v ** 2 / low).sum(axis=1)) if tasks > 1 else np.full(m, float(low))
        p["welch_min_df"] = stats.t.sf(t_lower, min_df), stats.t.cdf(t_upper, min_df)
    shapes = {}
    if "hall_own" in candidates:
        shapes["hall_own"] = [_g1(v) for v in y]
    if "hall" in candidates:
        pooled = (runs[0] * _g1(y[0]) + runs[1] * _g1(y[1])) / sum(runs)
        shapes["hall"] = [pooled, pooled]
    for name, (g_1, g_2) in shapes.items():
        third = (g_1 * sd[0] ** 3 / runs[0] ** 2 - g_2 * sd[1] ** 3 / runs[1] ** 2).sum(axis=1) / tasks ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            gamma = third / se ** 3
        p[name] = (stats.t.sf(hall_transform(t_lower, gamma, 1), df),
                   stats.t.cdf(hall_transform(t_upper, gamma, 1), df))
    if "bootstrap_t" in candidates:
        drawn = []
        for v, n in zip(y, runs):
            r = np.take_along_axis(v[:, :, None, :], rng.integers(0, n, size=(m, tasks, n_resamples, n)), -1)
            drawn.append((r.mean(axis=-1), r.var(axis=-1, ddof=1) / n))
        delta = (drawn[0][0] - drawn[1][0]).mean(axis=1)
        draw_se = np.sqrt((drawn[0][1] + drawn[1][1]).sum(axis=1)) / tasks
        test = kernels.bootstrap_t(estimate, se, delta, draw_se, margin, ALPHA)
        p["bootstrap_t"] = test["p_lower"], test["p_upper"]
    for name in list(p):
        if name != "welch":
            p[name] = (np.fmax(p[name][0], welch["p_lower"]), np.fmax(p[name][1], welch["p_upper"]))
    return p


def combined_p(y, margin, rng, n_resamples=N_RESAMPLES):
    """:func:`candidate_p` of Welch's t and :data:`COMBINED` with ``"max_all"``: each side's largest p-value of
    :data:`COMBINED` (a test declaring only where all three declare), and ``"boot_min_df"``, the bootstrap-t floored
    at ``welch_min_df``."""
    p = candidate_p(y, margin, rng, n_resamples, ("welch",) + COMBINED)
    p["max_all"] = tuple(np.max([p[name][i] for name in COMBINED], axis=0) for i in (0, 1))
    p["boot_min_df"] = tuple(np.fmax(p["welch_min_df"][i], p["bootstrap_t"][i]) for i in (0, 1))
    return p


def _design(tasks):
    return DESIGNS["design_draw"](0, tasks) if tasks > 1 else (np.zeros(1), np.ones(1))


def _truth(distribution, location, spread, offset, scale):
    """The true difference of means agent 1 - agent 2, per task, from stratified quantiles."""
    q = DESIGNS["quantiles"](distribution, 20_000)
    return (DESIGNS["scores"](distribution, spread * q, location, offset[:, None], scale[:, None]).mean(axis=-1)
            - DESIGNS["scores"](distribution, q, 0.0, offset[:, None], scale[:, None]).mean(axis=-1))


def _simulate(distribution, runs, location, spread, offset, scale, m, rng):
    return [DESIGNS["scores"](distribution, factor * DESIGNS["deviations"](rng, distribution, (m, len(offset), runs)),
                              where, offset[None, :, None], scale[None, :, None])
            for where, factor in ((location, spread), (0.0, 1.0))]


def declared(distribution, runs, tasks, spread, n_sim, rng, candidates=CANDIDATES, n_resamples=N_RESAMPLES,
             chunk_values=4e6, p_values=None):
    """{(candidate, test): share} of ``n_sim`` data sets declaring TOST at +margin and -margin and non-inferiority at
    -margin, ``runs`` runs of each agent on ``tasks`` tasks, agent 1's deviations times ``spread``."""
    offset, scale = _design(tasks)
    resamples = n_resamples if "bootstrap_t" in candidates else 1
    chunk = max(1, int(chunk_values // (resamples * 2 * runs * tasks)))
    hits = {}
    for sign in (1.0, -1.0):
        truth = _truth(distribution, sign * SHIFT, spread, offset, scale)
        margin = abs(truth.mean())
        label = "+margin" if sign > 0 else "-margin"
        for start in range(0, n_sim, chunk):
            m = min(chunk, n_sim - start)
            y = _simulate(distribution, runs, sign * SHIFT, spread, offset, scale, m, rng)
            found = (p_values(y, margin, rng, n_resamples) if p_values
                     else candidate_p(y, margin, rng, n_resamples, candidates))
            for name, (p_lower, p_upper) in found.items():
                shown = {f"tost {label}": np.maximum(p_lower, p_upper) <= ALPHA}
                if sign < 0:
                    shown["noninferior -margin"] = p_lower <= ALPHA
                for test, flags in shown.items():
                    hits[name, test] = hits.get((name, test), 0) + int(np.count_nonzero(flags))
    return {key: hit / n_sim for key, hit in hits.items()}


def power(distribution, runs, tasks, spread, n_sim, rng, margin=POWER_MARGIN, candidates=CANDIDATES,
          n_resamples=N_RESAMPLES, p_values=None):
    """{(candidate, test): share} declaring TOST and non-inferiority where both agents' means are alike (a true
    difference of 0: agent 1's deviations times ``spread`` have mean 0 as agent 2's), margin ``margin`` noise units
    (times the draw's mean scale across tasks)."""
    offset, scale = _design(tasks)
    margin = margin * (1.0 if tasks == 1 else float(scale.mean()))
    y = _simulate(distribution, runs, 0.0, spread, offset, scale, n_sim, rng)
    out = {}
    found = p_values(y, margin, rng, n_resamples) if p_values else candidate_p(y, margin, rng, n_resamples, candidates)
    for name, (p_lower, p_upper) in found.items():
        out[name, "tost 0"] = float(np.mean(np.maximum(p_lower, p_upper) <= ALPHA))
        out[name, "noninferior 0"] = float(np.mean(p_lower <= ALPHA))
    return out


def grid_rows(quick=False, seed=23):
    """One row per (family, tasks, runs, spread): each candidate's share of each test."""
    rng = np.random.default_rng(seed)
    for distribution in FAMILIES:
        for tasks in TASKS:
            for runs in RUNS:
                for spread in SPREADS:
                    if quick and (runs != 3 or spread not in (0.25, 1.0, 4.0)):
                        continue
                    n_sim = SIMULATIONS[tasks] // (10 if quick else 1)
                    shares = declared(distribution, runs, tasks, spread, n_sim, rng)
                    yield {"distribution": distribution, "tasks": tasks, "runs": runs, "spread": spread,
                           "n_sim": n_sim, **{f"{c} {t}": round(v, 4) for (c, t), v in shares.items()}}


def power_rows(quick=False, seed=230):
    rng = np.random.default_rng(seed)
    for distribution in ("normal", "skewed", "heavy_tailed"):
        for tasks in (1, 5):
            for runs in (3, 5, 10):
                for spread in (1.0, 0.25, 4.0):
                    n_sim = (2_000 if tasks == 1 else 1_000) // (10 if quick else 1)
                    shares = power(distribution, runs, tasks, spread, n_sim, rng)
                    yield {"distribution": distribution, "tasks": tasks, "runs": runs, "spread": spread,
                           "n_sim": n_sim, **{f"{c} {t}": round(v, 4) for (c, t), v in shares.items()}}


#: the spreads (agent 1's over agent 2's) of the table's rows: ratios 2, 4 and 8, either agent the wider
ROW_SPREADS = (0.125, 0.25, 0.5, 2.0, 4.0, 8.0)
ROW_SIMULATIONS = {1: 4_000, 5: 1_000, 26: 1_000}
PROCEDURE, LEVEL = "equivalence.size", 0.95


def spread_label(spread):
    """The ``configuration``'s words of agent 1's spread over agent 2's: ``"spread 4"``, ``"spread 1/4"``."""
    return f"spread {spread:g}" if spread >= 1 else f"spread 1/{1 / spread:g}"


def appended(row):
    """Whether an ``equivalence.size`` row of the table (a dict of strings) is one this script wrote."""
    return ", spread " in row["configuration"]


def table_rows(seed=23, simulations=ROW_SIMULATIONS):
    """The ``equivalence.size`` rows of unlike spreads: Welch's t (per task, ``welch``, at 1 task: the test is
    invariant to a task's offset and scale; across tasks, ``welch_mean``, at 5 and 26 tasks of one design draw) at
    each test's null boundary, skewed, heavy-tailed and capped scores, 3, 5 and 10 runs of each agent, agent 1's
    spread :data:`ROW_SPREADS` times agent 2's (``configuration`` "delta = -margin, spread 1/4")."""
    import math

    rng = np.random.default_rng(seed)
    for distribution in FAMILIES:
        for tasks in TASKS:
            for runs in RUNS:
                for spread in ROW_SPREADS:
                    n_sim = simulations[tasks]
                    shares = declared(distribution, runs, tasks, spread, n_sim, rng, candidates=("welch",))
                    for (_, test), share in sorted(shares.items()):
                        alternative, _, side = test.partition(" ")
                        coverage = 1.0 - share
                        row = {"procedure": PROCEDURE, "test": alternative, "interval": "welch" if tasks == 1
                               else "welch_mean", "agents": 2, "tasks": tasks, "runs": runs,
                               "distribution": distribution, "configuration": f"delta = {side}, {spread_label(spread)}",
                               "level": LEVEL, "n_sim": n_sim, "coverage": coverage,
                               "se": math.sqrt(coverage * (1 - coverage) / n_sim)}
                        if tasks > 1:  # one design draw of the tasks' offsets and scales (designs.pooled_row's form)
                            row.update(DESIGNS["pooled_row"]([np.arange(n_sim) >= round(share * n_sim)], LEVEL))
                        yield row


#: the aggregate's measurement (``--aggregate``): 5 tasks of one design draw, agent 1 the narrower (1/4) and the wider
#: (4), skewed and capped scores, at -margin (non-inferiority and TOST), ``AGGREGATE_SIMULATIONS`` data sets a point
AGGREGATE_POINTS = [(metric, distribution, runs, spread) for metric in ("iqm", "mean")
                    for distribution in ("skewed", "capped") for runs in (3, 5, 10) for spread in (0.25, 4.0)]
AGGREGATE_SIMULATIONS, AGGREGATE_RESAMPLES = 500, 400


def _iqm_truth(distribution, spread, offset, scale):
    """The true difference of the IQMs of the pooled runs over tasks, agent 1 (at -SHIFT, deviations times
    ``spread``) - agent 2."""
    q = DESIGNS["quantiles"](distribution, 20_000)

    def iqm(values):
        pooled = np.sort(values.ravel())
        cut = pooled.size // 4
        return pooled[cut:pooled.size - cut].mean()

    return float(iqm(DESIGNS["scores"](distribution, spread * q, -SHIFT, offset[:, None], scale[:, None]))
                 - iqm(DESIGNS["scores"](distribution, q, 0.0, offset[:, None], scale[:, None])))


def aggregate_declared(metric, distribution, runs, spread, n_sim, rng, tasks=5, n_resamples=AGGREGATE_RESAMPLES):
    """{test: share} of ``n_sim`` data sets whose aggregate test (``metric``: "iqm" or "mean"), as
    :func:`rlstats.equivalence` forms it (``_api._aggregate``), declared non-inferiority or equivalence at -margin
    (agent 1 at -SHIFT with deviations times ``spread``; the margin the aggregate's true difference)."""
    import dataclasses
    import warnings

    from rlstats.methods.equivalence import _api

    size = runpy.run_path(str(HERE / "size_equivalence.py"))
    offset, scale = _design(tasks)
    margin = (abs(float(_truth(distribution, -SHIFT, spread, offset, scale).mean())) if metric == "mean"
              else abs(_iqm_truth(distribution, spread, offset, scale)))
    design = size["template"](tasks, runs)
    options = _api.EquivalenceOptions.checked(margin=margin, aggregate=metric, n_resamples=n_resamples)
    y = np.stack(_simulate(distribution, runs, -SHIFT, spread, offset, scale, n_sim, rng), axis=2)  # (m, T, 2, n)
    hits = {"noninferior -margin": 0, "tost -margin": 0}
    for i in range(n_sim):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # raw scales of the design draw: on purpose
            rows, *_ = _api._aggregate(dataclasses.replace(design, y=y[i].ravel()), options, (("a0", "a1"),),
                                         int(rng.integers(2**32)))
        low, high = rows[0]["conf_low"], rows[0]["conf_high"]
        hits["noninferior -margin"] += bool(low > -margin)
        hits["tost -margin"] += bool(low > -margin and high < margin)
    return {test: hit / n_sim for test, hit in hits.items()}


def aggregate_rows(quick=False, seed=2323):
    rng = np.random.default_rng(seed)
    for metric, distribution, runs, spread in AGGREGATE_POINTS:
        if quick and runs != 5:
            continue
        n_sim = AGGREGATE_SIMULATIONS // (10 if quick else 1)
        shares = aggregate_declared(metric, distribution, runs, spread, n_sim, rng)
        yield {"metric": metric, "distribution": distribution, "tasks": 5, "runs": runs,
               "spread": spread_label(spread), "n_sim": n_sim, **{k: round(v, 4) for k, v in shares.items()}}


#: ``--combined``'s points (audit s29 tost29): the worst per-task rows of Welch's t (skewed, agent 1 eight times
#: narrower; capped, eight times wider; 3, 5, 10 runs), two at a ratio of 2, and three across tasks
COMBINED_POINTS = ([("skewed", 1, runs, 0.125) for runs in RUNS] + [("capped", 1, runs, 8.0) for runs in RUNS]
                   + [("skewed", 1, 5, 0.5), ("capped", 1, 5, 2.0), ("skewed", 5, 5, 0.125), ("capped", 5, 3, 8.0),
                      ("skewed", 26, 5, 0.25)])
COMBINED_SIMULATIONS = {1: 2_000, 5: 600, 26: 400}
#: ``--combined``'s power points: non-inferiority and TOST at a true difference of 0, margin POWER_MARGIN
COMBINED_POWER = [("normal", 1, 5, 1.0), ("normal", 1, 5, 0.25), ("skewed", 5, 5, 1.0)]


def combined_rows(quick=False, seed=2929):
    """The size at each of :data:`COMBINED_POINTS` (then the power at :data:`COMBINED_POWER`) of Welch's t, the
    candidates of :data:`COMBINED` and their combinations (:func:`combined_p`)."""
    rng = np.random.default_rng(seed)
    for distribution, tasks, runs, spread in COMBINED_POINTS:
        n_sim = COMBINED_SIMULATIONS[tasks] // (10 if quick else 1)
        shares = declared(distribution, runs, tasks, spread, n_sim, rng, chunk_values=1e6, p_values=combined_p)
        yield {"what": "size", "distribution": distribution, "tasks": tasks, "runs": runs,
               "spread": spread_label(spread), "n_sim": n_sim,
               **{f"{c} {t}": round(v, 4) for (c, t), v in shares.items()}}
    for distribution, tasks, runs, spread in COMBINED_POWER:
        n_sim = COMBINED_SIMULATIONS[tasks] // (10 if quick else 1)
        shares = power(distribution, runs, tasks, spread, n_sim, rng, p_values=combined_p)
        yield {"what": "power", "distribution": distribution, "tasks": tasks, "runs": runs,
               "spread": spread_label(spread), "n_sim": n_sim,
               **{f"{c} {t}": round(v, 4) for (c, t), v in shares.items()}}


def append_table(rows, table):
    """Write ``rows`` into ``table`` in place of the rows this script wrote before, after the procedure's others."""
    import pandas as pd

    columns = runpy.run_path(str(HERE / "calibrate.py"))["COLUMNS"]
    old = pd.read_csv(table, dtype=str, keep_default_na=False)
    mine = [r["procedure"] == PROCEDURE and appended(r) for r in old.to_dict("records")]
    fresh = pd.DataFrame([{k: f"{v:.6g}" if isinstance(v, float) else str(v) for k, v in row.items()}
                          for row in rows]).reindex(columns=columns).astype(object).fillna("")
    pd.concat([old[[not m for m in mine]], fresh], ignore_index=True).sort_values(
        "procedure", kind="stable").to_csv(table, index=False)


if __name__ == "__main__":
    import pandas as pd

    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 50)
    quick = "--quick" in sys.argv
    if "--rows" in sys.argv or "--append-table" in sys.argv:
        found = list(table_rows(simulations={k: v // 10 for k, v in ROW_SIMULATIONS.items()} if quick
                                else ROW_SIMULATIONS))
        print(pd.DataFrame(found).to_string(index=False))
        if "--append-table" in sys.argv:
            append_table(found, runpy.run_path(str(HERE / "calibrate.py"))["OUT"])
    elif "--aggregate" in sys.argv:
        found = []
        for one in aggregate_rows(quick):
            found.append(one)
            print(one, flush=True)
        print(pd.DataFrame(found).to_string(index=False))
    elif "--combined" in sys.argv:
        found = []
        for one in combined_rows(quick):
            found.append(one)
            print(one, flush=True)
        print(pd.DataFrame(found).T.to_string())
    elif "--power" in sys.argv:
        print(pd.DataFrame(list(power_rows(quick))).to_string(index=False))
    else:
        found = []
        for one in grid_rows(quick):
            found.append(one)
            print(one, flush=True)
        print(pd.DataFrame(found).to_string(index=False))
