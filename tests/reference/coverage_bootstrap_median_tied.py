"""Coverage of bootstrap()'s default (studentised) interval of the median of task means on runs tied at a cap, and
what the median's tied-share rule (audit s11, ``rlstats.bounds.MEDIAN_TIED_SHARE``) changes elsewhere.

    PYTHONPATH=. python tests/reference/coverage_bootstrap_median_tied.py --out after.npz [--datasets 10]
    PYTHONPATH=. python tests/reference/coverage_bootstrap_median_tied.py --compare before.npz after.npz
    PYTHONPATH=. python tests/reference/coverage_bootstrap_median_tied.py --alike --out alike.npz [--datasets 50]
    PYTHONPATH=. python tests/reference/coverage_bootstrap_median_tied.py --rules --out rules.npz --datasets 125 \
        --only "^alike_.*_5_"      (then "^capped_None_5_" with 30, "^capped_None_26_" with 15, "^alike_.*_26_" 40)
    PYTHONPATH=. python tests/reference/coverage_bootstrap_median_tied.py --evaluate rules.npz

``--alike`` (:func:`measure_alike`): two alike agents placed so that 36%, 55% or 70% of their runs sit at the grid's
saturated cap (one step of the saturated curves, where curves()' median bands missed), the median's intervals alone,
at 5 and 26 tasks x 3, 5 and 10 runs; it prints the coverage of those given. Audit s11 ran each mode on the package
before and after the median's tied-share rule: ``--datasets 8`` (128 intervals a point) for the grid's design,
``--alike --datasets 50`` (400) for the alike agents (docs/calibration.md).

``--rules`` (:func:`measure_rules`, audit s12): the median's intervals with the tied-share rule off, on the alike
designs and the grid's ``capped`` scores at 5 and 26 tasks x 3, 5 and 10 runs, with what candidate rules read
(:data:`FEATURES`); ``--evaluate`` prints the coverage and count of those each candidate gives (:data:`RULES`).
Audit s12 ran it with the sizes above (1000 intervals a point for the alike designs at 5 tasks, 320 at 26, 480 and
240 for the capped ones); the package's rule (``rlstats.bounds.median_tied_at_middle``) gave the same counts as
``"middle or 0.6"`` at every alike design checked with :func:`measure_alike`.

The data sets are those of ``coverage_small_runs.draw_design`` (four agents, B and D ``SHIFT`` noise units above A
and C, ``designs.DESIGN_DRAWS`` design draws): the ``saturated`` family with its cap moved so that a share ``s`` of
the baseline agents' runs sit at it (``s`` = 0.36, 0.55, 0.70; 0.85 is the grid's own), at 5 and 26 tasks x 3, 5 and
10 runs, and the grid's ``normal``, ``skewed``, ``heavy_tailed`` and ``capped`` families at 5 tasks x 3 and 5 runs
(``capped`` also at 5 tasks x 10 runs and 26 tasks x 3, 5 and 10).
Every interval of the four metrics is saved, so that a run of the package before a change and one after can be
compared: the coverage of the median's intervals given, how many are given, and whether every other interval is
the same bit for bit (``--compare``). An interval withheld is not counted as given.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import runpy
import warnings

import numpy as np
from scipy import stats

import rlstats

HERE = pathlib.Path(__file__).resolve().parent
small = runpy.run_path(str(HERE / "coverage_small_runs.py"))
METRICS = small["METRICS"]
SHARES = (0.36, 0.55, 0.70, 0.85)
SATURATED = [("saturated", share, tasks, runs) for tasks in (5, 26) for share in SHARES for runs in (3, 5, 10)]
OTHERS = ([(family, None, 5, runs) for family in ("normal", "skewed", "heavy_tailed", "capped") for runs in (3, 5)]
          + [("capped", None, 5, 10)] + [("capped", None, 26, runs) for runs in (3, 5, 10)])
N_RESAMPLES = 300
SEED = 311


def measure(family, share, tasks, runs, n_datasets, seed=SEED):
    """(intervals (data sets, agents, metrics, 2), truths (data sets, agents, metrics)) over the design draws."""
    caps = small["designs"]["_CAPS"]
    saved = caps["saturated"]
    if share is not None:
        caps["saturated"] = float(stats.norm.ppf(1 - share))
    try:
        intervals, truths = [], []
        for draw in range(small["designs"]["DESIGN_DRAWS"]):
            for d, (data, truth) in enumerate(small["draw_design"](family, tasks, runs, draw, n_datasets, seed)):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = rlstats.bootstrap(data, "score ~ agent | task", metrics=METRICS, n_resamples=N_RESAMPLES,
                                            rng=np.random.default_rng([seed, draw, d]), progress=False)
                intervals.append(res.intervals)
                truths.append([[truth[a][m] for m in METRICS] for a in res.agents])
    finally:
        caps["saturated"] = saved
    return np.array(intervals), np.array(truths)


def measure_alike(share, tasks, runs, n_datasets, seed=SEED, agents=2):
    """As :func:`measure` for the median alone, on ``agents`` alike agents placed so that a share ``share`` of their
    runs sit at the grid's saturated cap (one step of the saturated curves of coverage_curves_bands.py, where the
    curves' median bands missed): (intervals (data sets, agents, 1, 2), truths (data sets, agents, 1))."""
    d = small["designs"]
    location = d["SATURATED_CAP"] - float(stats.norm.ppf(1 - share))
    intervals, truths = [], []
    for draw in range(d["DESIGN_DRAWS"]):
        offset, scale = d["design_draw"](draw, tasks)
        truth = np.median(d["population"]("saturated", location, offset, scale).mean(axis=1))
        rng = np.random.default_rng([seed, draw, tasks, runs, int(share * 100)])
        for i in range(n_datasets):
            scores = {a: d["scores"]("saturated", rng.standard_normal((runs, tasks)), location, offset, scale)
                      for a in "AB"[:agents]}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = rlstats.bootstrap(small["frame"](scores), "score ~ agent | task", metrics=["median"],
                                        n_resamples=N_RESAMPLES, rng=np.random.default_rng([seed, draw, i]),
                                        progress=False)
            intervals.append(res.intervals)
            truths.append(np.full((agents, 1), truth))
    return np.array(intervals), np.array(truths)


def run_alike(out, n_datasets):
    saved = {}
    for share in SHARES[:3]:
        for tasks in (5, 26):
            for runs in (3, 5, 10):
                intervals, truths = measure_alike(share, tasks, runs, n_datasets)
                saved[f"alike_{share}_{tasks}_{runs}_i"], saved[f"alike_{share}_{tasks}_{runs}_t"] = intervals, truths
                np.savez(out, **saved)
                held, given = coverage(intervals, truths, 0)
                print(f"alike share {share} {tasks} tasks x {runs} runs: {held / max(given, 1):.3f} of {given} given "
                      f"({intervals.shape[0] * intervals.shape[1]} intervals)", flush=True)


def key(family, share, tasks, runs):
    return f"{family}_{share}_{tasks}_{runs}"


def run(out, n_datasets):
    saved = {}
    for point in SATURATED[:12] + OTHERS + SATURATED[12:]:  # the cheap points first; saved as they come
        intervals, truths = measure(*point, n_datasets)
        saved[key(*point) + "_i"], saved[key(*point) + "_t"] = intervals, truths
        np.savez(out, **saved)
        print(key(*point), flush=True)


def coverage(intervals, truths, metric="median"):
    """(held, given) of one metric's intervals (``metric``: its name, or its column)."""
    j = METRICS.index(metric) if isinstance(metric, str) else metric
    bounds, t = intervals[:, :, j], truths[:, :, j]
    given = np.isfinite(bounds).all(axis=-1)
    held = given & (bounds[..., 0] <= t) & (t <= bounds[..., 1])
    return int(held.sum()), int(given.sum())


def compare(before_path, after_path):
    before, after = np.load(before_path), np.load(after_path)
    median = METRICS.index("median")
    for point in SATURATED + OTHERS:
        if key(*point) + "_i" not in before or key(*point) + "_i" not in after:
            continue
        b, a, t = before[key(*point) + "_i"], after[key(*point) + "_i"], after[key(*point) + "_t"]
        others = [j for j in range(len(METRICS)) if j != median]
        same_others = np.array_equal(b[:, :, others], a[:, :, others], equal_nan=True)
        kept = np.isfinite(a[:, :, median]).all(axis=-1)
        same_kept = np.array_equal(b[:, :, median][kept], a[:, :, median][kept])
        hb, gb = coverage(b, t)
        ha, ga = coverage(a, t)
        total = a.shape[0] * a.shape[1]
        print(f"{key(*point):28s} median before {hb / max(gb, 1):.3f} of {gb:4d}/{total}  after "
              f"{(ha / ga if ga else float('nan')):.3f} of {ga:4d}/{total}   others same: {same_others}, "
              f"median kept same: {same_kept}")


#: the columns of :func:`median_features`
FEATURES = ("tied", "gap", "distinct", "middle_tied", "middle_off", "near", "mode")


def median_features(res):
    """(K, len(FEATURES)) per agent of a bootstrap result whose first metric is the median: the share of its runs
    tied at a task's largest or smallest score (the rule's count, ``rlstats.bounds.median_tied``); the smallest gap
    between the middle task means and their neighbours, in standard errors (a near tie the median jumps across); the
    share of distinct values among the median's resamples; the share of the middle task's (tasks') runs tied and the
    fewest of its runs off the tie; how many other tasks' means lie within two standard errors of the middle one;
    the largest share of the resamples at one value."""
    from rlstats import bounds

    design = res.design
    tied_cells = bounds.bound_ties(design, tied_only=True)[0]
    tied = tied_cells.sum(axis=0) / design.counts.sum(axis=0)
    out = np.empty((design.n_agents, len(FEATURES)))
    for j in range(design.n_agents):
        mine = design.agent == j
        task, y = design.task[mine], design.y[mine]
        n = np.bincount(task, minlength=design.n_tasks)
        means = np.bincount(task, y, minlength=design.n_tasks) / n
        var = np.bincount(task, (y - means[task]) ** 2, minlength=design.n_tasks) / (n - 1)
        se = np.sqrt(var / n)
        order = np.argsort(means, kind="stable")
        t = order.size
        middle = [(t - 1) // 2] if t % 2 else [t // 2 - 1, t // 2]
        pairs = {(i, i + 1) for m in middle for i in (m - 1, m) if 0 <= i and i + 1 < t}
        with np.errstate(divide="ignore", invalid="ignore"):
            gaps = [np.nan_to_num((means[order[b]] - means[order[a]]) / np.hypot(se[order[a]], se[order[b]]),
                                  nan=0.0, posinf=np.inf) for a, b in pairs]
            mid = order[middle]
            near = max(int((np.abs(means - means[m]) <= 2 * np.hypot(se, se[m])).sum()) - 1 for m in mid)
        draws = res.bootstrap_distribution[j, 0]
        _, repeats = np.unique(draws, return_counts=True)
        out[j] = (tied[j], min(gaps), repeats.size / draws.size, tied_cells[mid, j].sum() / n[mid].sum(),
                  (n[mid] - tied_cells[mid, j]).min(), near, repeats.max() / draws.size)
    return out


def measure_rules(design, n_datasets, seed=SEED):
    """The median's intervals with the tied-share rule switched off (the three-quarters rule kept), their truths and
    :func:`median_features`, flat over data sets and agents: (intervals (n, 2), truths (n,), features (n, 7)).
    ``design``: ("alike", share, tasks, runs) (:func:`measure_alike`'s data) or (family, share, tasks, runs)
    (:func:`measure`'s)."""
    from rlstats import bounds

    kind, share, tasks, runs = design
    d = small["designs"]
    caps, saved, saved_share = d["_CAPS"], d["_CAPS"]["saturated"], bounds.MEDIAN_TIED_SHARE
    bounds.MEDIAN_TIED_SHARE = np.inf
    if kind != "alike" and share is not None:
        caps["saturated"] = float(stats.norm.ppf(1 - share))
    intervals, truths, features = [], [], []
    try:
        for draw in range(d["DESIGN_DRAWS"]):
            if kind == "alike":
                location = d["SATURATED_CAP"] - float(stats.norm.ppf(1 - share))
                offset, scale = d["design_draw"](draw, tasks)
                truth = np.median(d["population"]("saturated", location, offset, scale).mean(axis=1))
                rng = np.random.default_rng([seed, draw, tasks, runs, int(share * 100)])
                sets = ((small["frame"]({a: d["scores"]("saturated", rng.standard_normal((runs, tasks)), location,
                                                        offset, scale) for a in "AB"}), {a: truth for a in "AB"})
                        for _ in range(n_datasets))
            else:
                sets = ((data, {a: t["median"] for a, t in truth.items()})
                        for data, truth in small["draw_design"](kind, tasks, runs, draw, n_datasets, seed))
            for i, (data, truth_of) in enumerate(sets):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = rlstats.bootstrap(data, "score ~ agent | task", metrics=["median"], n_resamples=N_RESAMPLES,
                                            rng=np.random.default_rng([seed, draw, i]), progress=False)
                intervals.append(res.intervals[:, 0])
                truths.append([truth_of[a] for a in res.agents])
                features.append(median_features(res))
    finally:
        caps["saturated"], bounds.MEDIAN_TIED_SHARE = saved, saved_share
    return np.concatenate(intervals), np.concatenate(truths), np.concatenate(features)


def measure_identical(share, tasks, runs, n_datasets, seed=SEED):
    """The median's intervals as the package gives them on the reproducers' design (tests/conftest.py's
    ``capped_normal_frame``): two agents, every task the same standard normal cut where a share ``share`` of the runs
    sit, so that the tasks' true means tie exactly (the median's hardest case). (held, given, intervals)."""
    import sys

    sys.path.insert(0, str(HERE.parent))
    from conftest import capped_normal_frame

    cap = float(stats.norm.ppf(1 - share))
    truth = cap * share - stats.norm.pdf(cap)  # E min(Z, cap)
    held = given = 0
    for i in range(n_datasets):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.bootstrap(capped_normal_frame(cap, [seed, i], runs, tasks), "score ~ agent | task",
                                    metrics=["median"], n_resamples=N_RESAMPLES, rng=np.random.default_rng([seed, i]),
                                    progress=False)
        b = res.intervals[:, 0]
        ok = np.isfinite(b).all(axis=1)
        given += int(ok.sum())
        held += int((ok & (b[:, 0] <= truth) & (truth <= b[:, 1])).sum())
    return held, given, 2 * n_datasets


RULE_DESIGNS = ([("alike", share, tasks, runs) for tasks in (5, 26) for share in SHARES[:3] for runs in (3, 5, 10)]
                + [("capped", None, tasks, runs) for tasks in (5, 26) for runs in (3, 5, 10)])


def run_rules(out, n_datasets, only=None):
    saved = dict(np.load(out)) if only and pathlib.Path(out).exists() else {}
    for design in RULE_DESIGNS:
        if only and not re.search(only, key(*design)):
            continue
        intervals, truths, features = measure_rules(design, n_datasets)
        name = key(*design)
        saved[name + "_i"], saved[name + "_t"], saved[name + "_f"] = intervals, truths, features
        np.savez(out, **saved)
        print(name, intervals.shape[0], flush=True)


def _rule(name):
    col = FEATURES.index(name)
    return lambda f: f[:, col]


_tied, _gap, _middle = _rule("tied"), _rule("gap"), _rule("middle_tied")
#: the candidate rules audit s12 compared (features -> withheld): audit s11's share alone, none, a higher share, a
#: near tie of the middle task means (in standard errors), and the middle task's share of ties (the package's, with
#: the share alone from 0.6)
RULES = {
    "share 0.3": lambda f: _tied(f) >= 0.3,
    "none": lambda f: np.zeros(len(f), bool),
    "share 0.5": lambda f: _tied(f) >= 0.5,
    "near tie <1 SE": lambda f: (_tied(f) >= 0.3) & (_gap(f) < 1),
    "middle": lambda f: (_tied(f) >= 0.3) & (_middle(f) >= 0.5),
    "middle or 0.6": lambda f: (_tied(f) >= 0.3) & ((_middle(f) >= 0.5) | (_tied(f) >= 0.6)),
}


def rule_coverage(path, rules=RULES):
    """Per design and rule (name: function of the features (n, 3) -> withheld (n,)): coverage of those given."""
    saved = np.load(path)
    for design in RULE_DESIGNS:
        name = key(*design)
        if name + "_i" not in saved:
            continue
        b, t, f = saved[name + "_i"], saved[name + "_t"], saved[name + "_f"]
        given = np.isfinite(b).all(axis=1)
        held = given & (b[:, 0] <= t) & (t <= b[:, 1])
        parts = []
        for rule, withheld in rules.items():
            keep = given & ~withheld(f)
            n = int(keep.sum())
            parts.append(f"{rule} {held[keep].sum() / max(n, 1):.3f}/{n:4d}")
        print(f"{name:24s} of {b.shape[0]:4d}: " + "  ".join(parts))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--compare", nargs=2)
    parser.add_argument("--alike", action="store_true", help="the alike agents' median intervals alone")
    parser.add_argument("--rules", action="store_true", help="the median's intervals without the tied-share rule, "
                        "and the features candidate rules read")
    parser.add_argument("--only", help="with --rules: the designs whose key matches this regular expression")
    parser.add_argument("--evaluate", help="a --rules output: the coverage of the candidate rules (RULES)")
    options = parser.parse_args()
    if options.evaluate:
        rule_coverage(options.evaluate)
    elif options.rules:
        run_rules(options.out, options.datasets, options.only)
    elif options.alike:
        run_alike(options.out, options.datasets)
    elif options.compare:
        compare(*options.compare)
    else:
        run(options.out, options.datasets)
