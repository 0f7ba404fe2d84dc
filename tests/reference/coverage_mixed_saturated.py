"""Candidates for mixed()'s pairwise contrasts on saturated runs (audit s11), measured on the grid's ``saturated``
family (``designs.py``: 85% of a baseline agent's runs at a cap) and, to show what else a rule would touch, on the
other families.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python tests/reference/coverage_mixed_saturated.py [n_sim per draw]

Candidates, each a Tukey family over all pairs (the pairs a rule withholds left out of the family's event):

``model``
    the default: the model's variance and Satterthwaite df (one residual variance for every agent);
``welch``
    per-agent residual variances: the pair's variance ``2 sigma_ta^2 / T + (s_i^2 + s_j^2) / (n T)`` with ``s_a^2``
    the agent's own within-cell variance (its runs about their cell means) and ``sigma_ta`` the model's task x agent
    SD, Welch-Satterthwaite df (``T (n - 1)`` for each agent's variance, the model's df for the interaction part);
``paired``
    per pair, the differences of the two agents' cell means over tasks: variance ``var_t(d_t) / T``, df ``T - 1``;
``withhold K``
    the model's intervals, with the pairs withheld where an agent is saturated (three quarters or more of its runs at
    a task's largest or smallest score, ``rlstats.bounds.bound_ties``) with fewer than K runs off that bound.

``refit`` (:func:`measure_refit`)
    ``withhold K`` with the pairs left from the model refitted to the agents not withheld (Tukey over those agents);
``default`` (:func:`measure_default`)
    what :func:`rlstats.mixed` gives since audit s11 (``refit`` at K = 12, ``bounds.SATURATED_FEWEST_OFF_CONTRAST``).

Prints one line per design and candidate: coverage of the pairs given (a family holds when every given pair holds
its truth; data sets with no pair given do not count), the share of pairs given, and the median half-width relative
to the model's. ``data_sets`` and its seeds are ``coverage_mixed.py``'s (seed 0), so the model's numbers on the other
families are the ``mixed.contrast`` rows' data sets.

Measured (audit s11, 100 data sets a design, agents spread 0 to 1 noise units apart unless said):

- saturated, every pair given: model 0.63 (2 agents x 3 tasks x 3 runs), 0.64 (3 x 3 x 3), 0.84 (2 x 3 x 10), 0.83
  (3 x 10 x 3), 0.90 (2 x 26 x 3), 0.87 (8 x 26 x 3), 0.95 (2 x 26 x 10), 0.89 (3 x 10 x 10); welch 0.64, 0.33, 0.78,
  0.75, 0.91, 0.72, 0.95, 0.87; paired 0.65, 0.30, 0.86, 0.73, 0.89, 0.57, 0.95, 0.81. Agents equal (2 and 3 x 3 x
  3): model 1.0, welch and paired 0.90-0.92.
- saturated, withhold K, pairs left from the model / the refit: K = 6: 0.90 / 0.96 (8 x 26 x 3, 18% of pairs
  given), 0.816 / 0.837 (3 x 10 x 10, 49 data sets with a pair given), 0.943 / 0.943 (2 x 26 x 10, 53); K = 8: 0.978
  / 0.978 (8 x 26 x 3, 89), 0.85 / 0.85 (3 x 10 x 10, 20), 0.864 / 0.864 (2 x 26 x 10, 22); K = 12: 1.0 (13, 1 and
  2 data sets at those designs), 0.930 / 0.930 (3 x 26 x 20, 62% of pairs given); K = 20: 0.929 (3 x 26 x 20).
- default (``measure_default``): saturated, nothing given at 2-3 x 3-26 x 3-10 apart; 13/13 (8 x 26 x 3), 2/2 (2 x
  26 x 10), 1/1 (3 x 10 x 10), 93/100 (3 x 26 x 20) families held; agents equal 7/7 (3 x 3 x 3). Capped: 0.931 (2 x
  3 x 3, 58% of pairs given), 0.989 (3 x 3 x 3, 63%), 0.955 (2 x 3 x 10, 66%), 0.970 (3 x 10 x 3, 78%), and with
  every pair given 0.94-0.99 at 26 tasks and 3 x 10 x 10, 3 x 26 x 20. Normal 0.94-1 and skewed 0.95-1,
  every pair given (unchanged).

Audit s12: the omnibus F and the agents' mean intervals on runs at a cap (:func:`measure_omnibus_means`, as
:func:`rlstats.mixed` gives them)::

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python tests/reference/coverage_mixed_saturated.py omnibus [n_sim per draw]
        ["scenario;..."] [satterthwaite|kenward-roger] [AxTxR,...]

``SCENARIOS``: agents alike in mean, each at the task's ceiling in a share of its runs (``alike``), so that the F's
null holds; ``"saturated, spread 0 to 1"``: the grid's saturated runs, agents apart (mean intervals only). One line
per design: the F's rejections at 0.05 among the F tests given, each agent's mean interval's coverage of its mean over
the tasks at hand (the first agent's, the others'), and the share of data sets with pairs withheld.

Measured (audit s12, 100 data sets a design on ``OMNIBUS_GRID``, Satterthwaite):

- the model's F of every agent (before): one at 85%, others a third: 0.08, 0.08, 0.04, 0.13, 0.11, 0.11, 0.03, 0.05,
  0.06 (grid order); one at 95%: 0.12, 0.07, 0.07, 0.30, 0.20, 0.20, 0.13, 0.13, 0.04; all at 85%: 0-0.06; all a
  third: 0-0.04.
- as given since (the F of the agents not saturated, withheld with fewer than two): one at 85%: 0-0.06 (7-100 F
  tests given a design); one at 95%: 0-0.04 (none given at 2 x 3 x 10 and 2 x 26 x 3); all at 85%: 0-0.03.
- mean intervals: 0.97-1 at every design and scenario, the saturated agent's and the others', before and after (the
  fix does not touch them).
- the pairs' Tukey families as given (audit s11's rule) on these runs, where the saturated agent varies more than
  the others (unlike the ``saturated`` family): 0.94-1 of the data sets with a pair given, every scenario and design.
- Kenward-Roger at 3 x 10 x 3, 2 x 26 x 3, 8 x 26 x 3 and 2 x 26 x 10, one at 95% / 85%: before 0.30, 0.20, 0.20, 0.12
  / 0.13, 0.11, 0.11, 0.03 (as Satterthwaite); as given since 0, none given, 0.02, 0.017 / 0.04, 0.056, 0.03, 0.03.
"""

from __future__ import annotations

import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
MIXED = runpy.run_path(str(HERE / "coverage_mixed.py"))
MIXED["data_sets"].__globals__["DISTRIBUTIONS"] = MIXED["DISTRIBUTIONS"] + ("saturated",)
LEVEL = 0.95
THRESHOLDS = (0, 3, 6, 8, 12, 20)


def per_data_set(design, y, agents, tasks, runs):
    """{candidate: (estimates, variances, df)} and each agent's (share at a bound, runs off it)."""
    from rlstats.bounds import ties_at_bounds
    from rlstats.methods.mixed import _kernels as kernels

    _, pair_rows, first, second = kernels.agent_contrasts(agents)
    m, fit = MIXED["fitted"](design, y)
    est, var, df = MIXED["pairs"](design, y, ("satterthwaite",))["satterthwaite"]
    out = {"model": (est, var, df)}
    cube = y.reshape(tasks, agents, runs)
    within = ((cube - cube.mean(axis=2, keepdims=True)) ** 2).sum(axis=(0, 2)) / (tasks * (runs - 1))
    sd_ta = fit.theta[-1] * fit.sigma if fit.theta.size > 1 else 0.0
    part_ta = 2 * sd_ta ** 2 / tasks
    parts_i, parts_j = within[first] / (runs * tasks), within[second] / (runs * tasks)
    v = part_ta + parts_i + parts_j
    df_ta = (tasks - 1) * (agents - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        dfw = v ** 2 / (part_ta ** 2 / df_ta + (parts_i ** 2 + parts_j ** 2) / (tasks * (runs - 1)))
    out["welch"] = (est, v, dfw)
    means = cube.mean(axis=2)  # (tasks, agents)
    d = means[:, first] - means[:, second]
    out["paired"] = (d.mean(axis=0), d.var(axis=0, ddof=1) / tasks, np.full(first.size, tasks - 1.0))
    at_bound, _ = ties_at_bounds(design.task, design.agent, y, tasks, agents)
    total = design.counts.sum(axis=0)
    bound = at_bound.sum(axis=0)
    return out, bound / total, total - bound, first, second


def tukey_ok(est, var, df, truth, agents, keep):
    from rlstats.methods.mixed import _kernels as kernels

    if not keep.any():
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (est - truth) / np.sqrt(var)
    t, df = t[keep], df[keep]
    if not np.all(np.isfinite(t)):
        return False
    return bool(np.all(kernels.tukey_pvalues(t, np.maximum(df, 1e-3), agents) > 1 - LEVEL))


def measure(agents, tasks, runs, distribution, configuration, n_sim, seed=0):
    from rlstats.methods.mixed import _kernels as kernels

    design = MIXED["template"](agents, tasks, runs)
    # the template's rows are sorted as the design's (task, agent, run), which simulate() fills
    results = {}
    widths = {}
    given = {}
    for truth, ys in MIXED["data_sets"](agents, tasks, runs, distribution, configuration, n_sim, seed):
        for y in ys:
            out, share, off, first, second = per_data_set(design, y, agents, tasks, runs)
            saturated = share >= 0.75
            q = None
            for name in ("model", "welch", "paired"):
                est, var, df = out[name]
                ok = tukey_ok(est, var, df, truth, agents, np.ones(first.size, bool))
                results.setdefault(name, []).append(ok)
                half = kernels.tukey_quantiles(LEVEL, np.maximum(df, 1e-3), agents) * np.sqrt(var)
                if name == "model":
                    q = half
                widths.setdefault(name, []).append(np.median(half / q))
            for k in THRESHOLDS[1:]:
                bad = saturated & (off < k)
                keep = ~(bad[first] | bad[second])
                for name in ("model", "welch"):
                    key = f"{name} withhold {k}"
                    results.setdefault(key, []).append(tukey_ok(*out[name], truth, agents, keep))
                    given.setdefault(key, []).append(keep.mean())
    lines = []
    for key, oks in results.items():
        counted = [o for o in oks if o is not None]
        cov = np.mean(counted) if counted else float("nan")
        share = np.mean(given.get(key, [1.0]))
        width = np.nanmedian(widths[key]) if key in widths else float("nan")
        lines.append(f"{agents}x{tasks}x{runs} {distribution:9s} {configuration:14s} {key:18s} coverage {cov:.3f} "
                     f"({len(counted)} sets) pairs given {share:.2f} width/model {width:.2f}")
    return lines


GRID = [(2, 3, 3), (3, 3, 3), (2, 3, 10), (3, 10, 3), (2, 26, 3), (8, 26, 3), (2, 26, 10), (3, 10, 10)]

def main(argv):
    n_sim = int(argv[0]) if len(argv) > 0 else 25
    which = argv[1].split(",") if len(argv) > 1 else ["saturated"]
    configurations = argv[2].split(",") if len(argv) > 2 else ["spread 0 to 1", "all_equal"]
    for distribution in which:
        for configuration in configurations:
            for point in GRID:
                for line in measure(*point, distribution, configuration, n_sim):
                    print(line, flush=True)


def measure_refit(agents, tasks, runs, distribution, configuration, n_sim, fewest=6, seed=0):
    """Candidate ``refit``: the pairs with a flagged agent withheld (saturated, fewer than ``fewest`` runs off the
    bound) and the others from the model refitted to the agents not flagged (Tukey over those agents), against the
    model's intervals of the same pairs from the fit of every agent. (coverage refit, coverage model, sets, share)"""
    from rlstats.methods.mixed import _kernels as kernels

    design = MIXED["template"](agents, tasks, runs)
    _, _, first, second = kernels.agent_contrasts(agents)
    refit_ok, model_ok, given = [], [], []
    for truth, ys in MIXED["data_sets"](agents, tasks, runs, distribution, configuration, n_sim, seed):
        for y in ys:
            out, share, off, _, _ = per_data_set(design, y, agents, tasks, runs)
            flagged = (share >= 0.75) & (off < fewest)
            keep = ~(flagged[first] | flagged[second])
            given.append(keep.mean())
            if not keep.any():
                continue
            model_ok.append(tukey_ok(*out["model"], truth, agents, keep))
            if not flagged.any():
                refit_ok.append(model_ok[-1])
                continue
            left = np.flatnonzero(~flagged)
            sub = MIXED["template"](left.size, tasks, runs)
            ysub = y.reshape(tasks, agents, runs)[:, left, :].ravel()
            est, var, df = MIXED["pairs"](sub, ysub, ("satterthwaite",))["satterthwaite"]
            refit_ok.append(tukey_ok(est, var, df, truth[keep], left.size, np.ones(est.size, bool)))
    return (float(np.mean(refit_ok)) if refit_ok else np.nan, float(np.mean(model_ok)) if model_ok else np.nan,
            len(refit_ok), float(np.mean(given)))


def measure_default(agents, tasks, runs, distribution, configuration, n_sim, seed=0):
    """``rlstats.mixed``'s default pairs as given (audit s11's rule): (families that held every true difference of
    the pairs given, families with a pair given, data sets, share of pairs given)."""
    import warnings

    import pandas as pd

    import rlstats

    task, agent, run = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    frame = pd.DataFrame({"task": [f"t{t:02d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                          "seed": run.ravel()})
    held = given = total = 0
    shares = []
    for truth, ys in MIXED["data_sets"](agents, tasks, runs, distribution, configuration, n_sim, seed):
        for y in ys:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pairs = rlstats.mixed(frame.assign(score=y), "score ~ agent | task/seed").tidy()
            low, high = pairs["conf_low"].to_numpy(), pairs["conf_high"].to_numpy()
            shown = np.isfinite(low)
            total += 1
            shares.append(shown.mean())
            if shown.any():
                given += 1
                held += bool(np.all((low[shown] <= truth[shown]) & (truth[shown] <= high[shown])))
    return held, given, total, float(np.mean(shares))


# ---- audit s12: the omnibus F and the marginal means' intervals on saturated runs --------------------------------

#: agents alike in mean, each with this share of its runs at the task's ceiling (the first agent's share, then the
#: others'): ``shares`` below
SCENARIOS = {"all at 85%": (0.85, 0.85), "one at 85%, others a third": (0.85, 1 / 3),
             "one at 95%, others a third": (0.95, 1 / 3), "all a third": (1 / 3, 1 / 3)}


def shares(scenario, agents):
    """(agents,) each agent's share of runs at the ceiling in ``SCENARIOS[scenario]``."""
    first, others = SCENARIOS[scenario]
    return np.array([first] + [others] * (agents - 1))


def alike(share, deviation):
    """Deviations of agents with equal means whose runs sit at the ceiling 0 with probability ``share`` (agents,):
    agent a scores ``s_a (min(z, q_a) - q_a)`` with ``q_a`` the normal ``1 - share_a`` quantile and ``s_a`` chosen so
    that every mean is the first agent's (``s_0`` = 1): an agent at the ceiling more often varies more off it, as an
    agent that mostly solves a task but fails it badly now and then does. ``deviation`` (..., agents, runs) standard
    normal. Returns the scores and the common mean (closed form: E min(z, q) - q = -phi(q) - q Phi(q))."""
    from scipy import special

    q = special.ndtri(1 - np.asarray(share, dtype=float))
    gap = -np.exp(-q ** 2 / 2) / np.sqrt(2 * np.pi) - q * special.ndtr(q)
    s = gap[0] / gap
    return s[:, None] * (np.minimum(deviation, q[:, None]) - q[:, None]), float(gap[0])


def simulated_sets(agents, tasks, runs, scenario, n_sim, seed=0):
    """Per design draw (``designs.design_draw``, as ``coverage_mixed.py``): (each agent's true mean over the draw's
    tasks, a generator of ``n_sim`` data sets' scores in the template's order). ``scenario``: a key of ``SCENARIOS``
    (agents alike, the ceiling at each task's offset), or ``"saturated, spread 0 to 1"`` / ``"capped, spread 0 to 1"``
    (the grid's families, agents 0 to 1 noise units apart, truths from ``coverage_mixed_means.truths``)."""
    means = runpy.run_path(str(HERE / "coverage_mixed_means.py"))
    designs = MIXED["DESIGNS"]
    names = [*SCENARIOS, "saturated, spread 0 to 1", "capped, spread 0 to 1"]
    for draw in range(designs["DESIGN_DRAWS"]):
        offset, scale = designs["design_draw"](draw, tasks)
        key = [seed, draw, agents, tasks, runs, 1200 + names.index(scenario)]
        rng = np.random.default_rng(np.random.SeedSequence(key))
        if scenario in SCENARIOS:
            mean = alike(shares(scenario, agents), np.zeros((agents, 1)))[1]
            truth = np.full(agents, np.mean(offset + scale * mean))
        else:
            distribution = scenario.split(",")[0]
            location = MIXED["locations"]("spread 0 to 1", agents)
            truth = means["truths"](distribution, location, offset, scale)

        def draws(rng=rng, offset=offset, scale=scale):
            for _ in range(n_sim):
                while True:
                    if scenario in SCENARIOS:
                        z = alike(shares(scenario, agents), rng.standard_normal((tasks, agents, runs)))[0]
                        y = (offset[:, None, None] + scale[:, None, None] * z).ravel()
                    else:
                        y = MIXED["simulate"](distribution, location, offset, scale, runs, rng)
                    if not np.all(np.ptp(y.reshape(tasks, agents, runs), axis=(0, 2)) == 0):  # mixed() refuses
                        break
                yield y

        yield truth, draws()


def measure_omnibus_means(agents, tasks, runs, scenario, n_sim, ddf="satterthwaite", seed=0):
    """What :func:`rlstats.mixed` gives on ``simulated_sets``: {"rejected": the omnibus F's p at most 0.05 (None
    where withheld), "held": per agent whether its mean's 95% interval holds its truth (None where withheld),
    "withheld_pairs": how many pairs' intervals are withheld, "family": whether the pairs' intervals given all hold
    their true differences (None where none is given)}, one dict per data set."""
    import warnings

    import pandas as pd

    import rlstats

    task, agent, run = np.meshgrid(np.arange(tasks), np.arange(agents), np.arange(runs), indexing="ij")
    frame = pd.DataFrame({"task": [f"t{t:02d}" for t in task.ravel()], "agent": [f"a{a}" for a in agent.ravel()],
                          "seed": run.ravel()})
    out = []
    for truth, ys in simulated_sets(agents, tasks, runs, scenario, n_sim, seed):
        for y in ys:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = rlstats.mixed(frame.assign(score=y), "score ~ agent | task/seed", ddf=ddf)
            low, high = res.emmeans["conf_low"].to_numpy(), res.emmeans["conf_high"].to_numpy()
            held = [None if not np.isfinite(lo) else bool(lo <= t <= hi) for lo, hi, t in zip(low, high, truth)]
            pairs = res.comparisons
            shown = np.isfinite(pairs["conf_low"].to_numpy())
            first, second = (truth[[int(a[1:]) for a in pairs[column]]] for column in ("agent_1", "agent_2"))
            family = ((pairs["conf_low"] <= first - second) & (first - second <= pairs["conf_high"])).to_numpy()
            out.append({"rejected": None if not np.isfinite(res.pvalue) else bool(res.pvalue <= 0.05), "held": held,
                        "withheld_pairs": int((~shown).sum()),
                        "family": bool(family[shown].all()) if shown.any() else None})
    return out


def summary(agents, tasks, runs, scenario, n_sim, ddf="satterthwaite", seed=0):
    """One line: the F's size (rejections among the F tests given; for SCENARIOS, where the agents are alike), the
    first agent's and the others' interval coverage (among those given), the Tukey families' coverage (of the pairs
    given), and how often anything was withheld."""
    rows = measure_omnibus_means(agents, tasks, runs, scenario, n_sim, ddf, seed)
    given = [r["rejected"] for r in rows if r["rejected"] is not None]
    first = [r["held"][0] for r in rows if r["held"][0] is not None]
    others = [h for r in rows for h in r["held"][1:] if h is not None]
    withheld = np.mean([r["withheld_pairs"] > 0 for r in rows])
    families = [r["family"] for r in rows if r["family"] is not None]
    pairs = f"pairs' families {np.mean(families):.3f} ({len(families)})" if families else "pairs' families - (0)"
    size = f"size {np.mean(given):.3f} ({len(given)} F)" if given else "size - (0 F)"
    cover = (f"first {np.mean(first):.3f} ({len(first)})" if first else "first - (0)") + \
        (f" others {np.mean(others):.3f} ({len(others)})" if others else "")
    return (f"{agents}x{tasks}x{runs} {scenario:28s} {ddf[:5]} {size if scenario in SCENARIOS else 'size n/a':22s} "
            f"means {cover}; {pairs}; data sets with pairs withheld {withheld:.2f}")


OMNIBUS_GRID = [(2, 3, 3), (3, 3, 3), (2, 3, 10), (3, 10, 3), (2, 26, 3), (8, 26, 3), (2, 26, 10), (3, 10, 10),
                (3, 26, 20)]


def main_omnibus(argv):
    """``python coverage_mixed_saturated.py omnibus [n_sim per draw] [scenario;...] [ddf] [AxTxR,...]``"""
    n_sim = int(argv[0]) if argv else 25
    scenarios = argv[1].split(";") if len(argv) > 1 else [*SCENARIOS, "saturated, spread 0 to 1"]
    ddf = argv[2] if len(argv) > 2 else "satterthwaite"
    points = ([tuple(int(v) for v in p.split("x")) for p in argv[3].split(",")] if len(argv) > 3 else OMNIBUS_GRID)
    for scenario in scenarios:
        for point in points:
            print(summary(*point, scenario, n_sim, ddf), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["omnibus"]:
        main_omnibus(sys.argv[2:])
    else:
        main(sys.argv[1:])
