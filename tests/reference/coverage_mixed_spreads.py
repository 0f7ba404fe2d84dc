"""The mixed model's pairwise intervals where the agents' runs differ in spread (audit s36, calib36): ``mixed.contrast``
rows of ``rlstats/calibration.csv`` whose ``configuration`` starts "run sd by agent ".

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 nice python tests/reference/coverage_mixed_spreads.py [--quick]
        [--json PATH] [--append-table rlstats/calibration.csv] [--analysis mixed|kenward-roger|scheffe|rank]

``rlstats.mixed(df, "score ~ agent | task/seed")`` fits one residual variance for every agent's runs; the grid of
``coverage_mixed.py`` draws every agent's runs with one spread (capped scores apart, where an agent placed higher
reaches the cap more often). RL agents' runs often differ in spread (an unstable agent beside a stable one). Here the
agents are alike in mean (every location 0, the standardised deviations of mean 0: every true difference 0) and half
of them have runs ``RATIO`` (4) times as spread as the others': 2 agents, run sd 1 and 4 in each task's noise units;
4 agents, 1, 1, 4 and 4 (``configuration`` "run sd by agent 1/1/4/4: all_equal"), or one unstable agent among
three, 1, 1, 1 and 4 ("run sd by agent 1/1/1/4: all_equal"). 2 and 4 agents x 5 and 10 tasks x
3, 5 and 10 runs a cell, normal and skewed scores (``designs.py``), the tasks' offsets and scales of
``designs.DESIGN_DRAWS`` draws, ``SIMULATIONS`` data sets a draw (a point with a row below 0.95, or a draw 2 SE below,
continued to 4 times as many, the same data sets then more: ``coverage_mixed.py``'s rule). Each data set is fitted once as :func:`rlstats.mixed`
fits it (``coverage_mixed.pairs``, Satterthwaite's df, the default) and its family decided by ``coverage_mixed.held``
(Tukey's, the default, and Bonferroni's beside Holm's p-values): ``coverage`` the share of data sets in which no pair
is declared different, so 1 - coverage is the family-wise error (the "size" of the default's pairwise test).

``--append-table`` writes the rows into the package table in place of the ones it wrote before (:func:`appended`,
which ``calibrate.py`` keeps when it re-measures ``mixed.contrast``).

Measured (seed 36; 400 data sets a point, 4 draws of 100, the 13 continued points 1,600; some 25 minutes at one job
on a shared machine): with 2 agents, or 4 in two pairs of spreads, the Tukey family held 0.948-0.988 (worst draw
0.92); with one agent's runs 4 times as spread as three others' it held 0.904-0.950 on skewed scores (0.904 at 5 tasks
x 3 runs, 0.922 at 5 x 5, 0.915 at 10 x 3: below 0.95 by more than 3 SE) and 0.940-0.975 on normal ones (5 x 5: 0.94,
its worst draw 0.9125 below by 3 SE of a draw); Bonferroni's 0.915-0.980. 7 of the 72 rows miss, all of that design,
none at 10 runs. ``docs/calibration.md`` ("The mixed model where the agents' runs differ in spread").

Other procedures on those data sets (audit s36, way36: ``--analysis``, not table rows; one agent's runs 4 times as
spread as three others', 4 agents x 5 and 10 tasks x 3 and 5 runs, normal and skewed, the same data sets as the
default's rows and its rule of 400 continued to 1,600; coverage pooled, worst draw; about 20 minutes at one job on a
shared machine). None held 0.95 everywhere:

* ``mixed(ddf="kenward-roger")``: Tukey 0.921-0.978 (0.921 at 5 x 3 skewed, 0.922 at 10 x 3 skewed, both below by
  more than 3 SE); Bonferroni's 0.937-0.983 (0.937 at 5 x 3 and 10 x 3 skewed of 1,600 data sets, 2.4 SE below; on
  6,400, the same then more: 0.943 and 0.940, 2.5 and 3.5 SE below 0.95 by the table's SE at the level, the second
  a miss). Tukey's at 6,400: 0.926 and 0.929.
* ``mixed(adjust="scheffe")`` (Satterthwaite's df): 0.924-0.983 (0.924 at 5 x 3 skewed, a miss; 0.943 at 10 x 3
  skewed); ``adjust="sidak"``: 0.914-0.978, 3 misses, as Bonferroni's.
* ``compare(df, "score ~ agent | task/seed")`` with every default (Mack-Skillings' rank test, Tukey's single step on
  the mean ranks, gated by the omnibus test): 0.943-0.965 on normal scores, 0.41-0.78 on skewed ones. Its null is
  one distribution for every agent, not equal means: 4 times a right-skewed deviation of mean 0 has its median
  further below 0 than the narrow agents', so its runs rank lower and the test rightly finds the agents' distributions
  unlike; it is no test of means here.
* ``permutation`` and ``adastop`` test each task on its own (``score ~ agent | task``: the level within each task, not
  across tasks), and ``bootstrap`` gives no intervals of pairwise differences: none compares the pairs over tasks.
"""

from __future__ import annotations

import pathlib
import runpy
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
MIXED = runpy.run_path(str(HERE / "coverage_mixed.py"))
CALIBRATE = runpy.run_path(str(HERE / "calibrate.py"))
PAIRS_FWER = runpy.run_path(str(HERE / "pairs_fwer.py"))
PROCEDURE, LEVEL = MIXED["PROCEDURE"], MIXED["LEVEL"]
#: --analysis NAME: what each data set is given to. ``mixed`` (the default, the table's ``mixed.contrast`` rows):
#: :func:`rlstats.mixed` with Satterthwaite's df; ``kenward-roger``: ``mixed(ddf="kenward-roger")``, both with Tukey's
#: family and Bonferroni's (``interval`` "holm"); ``scheffe``: Satterthwaite's df with ``adjust="sidak"`` and
#: ``"scheffe"`` (``coverage_mixed.OTHER_ADJUST``); ``rank``: ``rlstats.compare(df, "score ~ agent | task/seed")`` with
#: every default (the blocked rank test and its all-pairs post hoc, decisions withheld unless the omnibus test
#: rejects at 0.05: ``pairs_fwer.py``'s ``skillings_mack.pairs_fwer`` rows, whose screen and public call it reuses)
ANALYSES = ("mixed", "kenward-roger", "scheffe", "rank")
#: data sets per design draw: the table's, and --quick's
SIMULATIONS = (100, 10)
RATIO = 4.0
#: agents -> the patterns of run sds measured (the share of agents whose runs are RATIO times as spread)
PATTERNS = {2: ("half",), 4: ("half", "one")}
AGENTS, TASKS, RUNS = (2, 4), (5, 10), (3, 5, 10)
DISTRIBUTIONS = ("normal", "skewed")
ADJUST = MIXED["ADJUST"]
#: analysis -> (procedure of its rows, the mixed model's ddf (None: the rank test), its families)
ANALYSIS = {"mixed": (PROCEDURE, "satterthwaite", ADJUST), "kenward-roger": (PROCEDURE, "kenward-roger", ADJUST),
            "scheffe": (PROCEDURE, "satterthwaite", MIXED["OTHER_ADJUST"]), "rank": (PAIRS_FWER["PROCEDURE"], None, ())}


def run_sds(agents, pattern="half"):
    """Each agent's run sd in noise units: ``"half"``, the first half 1 and the others ``RATIO``; ``"one"``, the last
    agent ``RATIO`` and the others 1."""
    wide = agents // 2 if pattern == "half" else agents - 1
    return np.where(np.arange(agents) < wide, 1.0, RATIO)


def configuration(agents, pattern="half"):
    from rlstats.calibration import RUN_SPREADS

    return f"{RUN_SPREADS}{'/'.join(f'{s:g}' for s in run_sds(agents, pattern))}: all_equal"


def simulate(distribution, sds, offset, scale, runs, rng):
    """One data set's scores in ``coverage_mixed.template``'s order (task, agent, run), every agent at location 0."""
    deviation = DESIGNS["deviations"](rng, distribution, (offset.size, sds.size, runs)) * sds[None, :, None]
    return DESIGNS["scores"](distribution, deviation, 0.0, offset[:, None, None], scale[:, None, None]).ravel()


def measure(agents, pattern, tasks, runs, distribution, n_sim, seed=36, analysis="mixed"):
    """{key: one boolean array per design draw, True where the family held (no pair declared)}: keys (ddf, adjust)
    for the mixed model, (variant, p-values, adjustment) of the first data set's result for the rank test. Every
    analysis sees the same data sets."""
    design = MIXED["template"](agents, tasks, runs)
    sds = run_sds(agents, pattern)
    _, ddf, adjusts = ANALYSIS[analysis]
    decide = _mixed_decision(design, ddf, adjusts) if ddf else _rank_decision(design)
    held_by = {}
    for draw in range(DESIGNS["DESIGN_DRAWS"]):
        offset, scale = DESIGNS["design_draw"](draw, tasks)
        key = [seed, draw, agents, tasks, runs, DISTRIBUTIONS.index(distribution), PATTERNS[agents].index(pattern)]
        rng = np.random.default_rng(np.random.SeedSequence(key))
        # the rank test's rng= (its exact or resampled p-values), apart from the scores' stream
        calls = np.random.default_rng(np.random.SeedSequence(key + [1])).integers(0, 2**63, n_sim)
        hits = {}
        for i in range(n_sim):
            y = simulate(distribution, sds, offset, scale, runs, rng)
            for k, ok in decide(y, int(calls[i])).items():
                hits.setdefault(k, np.zeros(n_sim, dtype=bool))[i] = ok
        for k, h in hits.items():
            held_by.setdefault(k, []).append(h)
    return held_by


def _mixed_decision(design, ddf, adjusts):
    """y, seed -> {(ddf, adjust): held} as :func:`rlstats.mixed` decides (``coverage_mixed.pairs`` and ``held``)."""
    agents = design.n_agents
    truth = np.zeros(agents * (agents - 1) // 2)

    def decide(y, _seed):
        estimates, variances, df = MIXED["pairs"](design, y, (ddf,))[ddf]
        return {(ddf, adjust): ok for adjust, ok in MIXED["held"](estimates, variances, df, truth, agents).items()
                if adjust in adjusts}

    return decide


def _rank_decision(design):
    """y, seed -> {(variant, p-values, adjustment): held}: the public ``compare`` call where the omnibus p-value
    (``skillings_mack._api.pvalue_only``, the same number) is at most 0.05, as ``pairs_fwer.screened``."""
    import dataclasses

    from rlstats.design import design_of
    from rlstats.methods.skillings_mack._api import pvalue_only

    tasks, agents = design.n_tasks, design.n_agents
    frame = PAIRS_FWER["runs_frame"](np.full((tasks, agents), design.max_runs_per_cell))
    form = PAIRS_FWER["formula"](np.full((tasks, agents), design.max_runs_per_cell))
    template = design_of(frame, form)
    # the data sets are in the order of coverage_mixed.template's Design, built from the same frame
    assert np.array_equal(template.task, design.task) and np.array_equal(template.agent, design.agent)
    order = PAIRS_FWER["_frame_order"](frame, template)
    first = []

    def decide(y, seed):
        p = pvalue_only(dataclasses.replace(template, y=y), rng=seed)
        declared = False
        if p <= PAIRS_FWER["ALPHA"] or not first:
            declared, res = PAIRS_FWER["declared"](frame.assign(score=y[order]), form, seed)
            assert res.pvalue == p, (res.pvalue, p)  # the screen's p-value is the public call's
            if not first:
                first.append((res.variant, PAIRS_FWER["pvalue_kind"](res), res.posthoc_adjustment))
        return {first[0]: not declared}

    return decide


def grid(quick=False):
    """(agents, pattern, tasks, runs, distribution); --quick: 4 agents, one wide, on 5 tasks x 3 runs, skewed."""
    if quick:
        return [(4, "one", 5, 3, "skewed")]
    return DESIGNS["grid"]([(a, p) for a in AGENTS for p in PATTERNS[a]], TASKS, RUNS, DISTRIBUTIONS)


def rows_of(point, held_by, analysis="mixed"):
    agents, pattern, tasks, runs, distribution = point
    common = {"agents": agents, "tasks": tasks, "runs": runs, "distribution": distribution,
              "configuration": configuration(agents, pattern), "level": LEVEL}
    if ANALYSIS[analysis][1] is None:
        return [{"procedure": ANALYSIS[analysis][0], "test": variant, "statistic": kind, "interval": adjustment,
                 **common, **DESIGNS["pooled_row"](h, LEVEL)} for (variant, kind, adjustment), h in held_by.items()]
    return [{"procedure": PROCEDURE, "test": ddf, "interval": adjust, **common, **DESIGNS["pooled_row"](h, LEVEL)}
            for (ddf, adjust), h in held_by.items()]


def continued(rows):
    """Whether a point is continued (``coverage_mixed.py``'s rule): a row below the level, or a draw below it by
    ``coverage_mixed.CONTINUE_SE`` SE of a draw."""
    from rlstats.calibration import misses

    return any(row["coverage"] < LEVEL or misses({k: str(v) for k, v in row.items()}, LEVEL, MIXED["CONTINUE_SE"])
               for row in rows)


def table_rows(point, n_sim, quick=False, analysis="mixed"):
    """The rows of one grid point, continued to ``coverage_mixed.CONTINUED`` times its data sets (the same data sets,
    then more) where :func:`continued` (not with --quick)."""
    rows = rows_of(point, measure(*point, n_sim, analysis=analysis), analysis)
    if not quick and continued(rows):
        rows = rows_of(point, measure(*point, MIXED["CONTINUED"] * n_sim, analysis=analysis), analysis)
    return rows


def appended(row):
    """Whether a ``mixed.contrast`` row of the table (a dict of strings) is one this script writes."""
    from rlstats.calibration import RUN_SPREADS

    return str(row["configuration"]).startswith(RUN_SPREADS)


def main(argv):
    quick = "--quick" in argv
    analysis = argv[argv.index("--analysis") + 1] if "--analysis" in argv else "mixed"
    if analysis not in ANALYSES:
        raise SystemExit(f"--analysis {analysis!r}: one of {', '.join(ANALYSES)}")
    if analysis != "mixed" and "--append-table" in argv:
        # appended() tells this script's rows by their configuration only: these would replace the default's
        raise SystemExit(f"--analysis {analysis!r} writes no table rows (--json PATH keeps them)")
    points = grid(quick)
    if analysis != "mixed":  # the other analyses at the default's misses: one agent's runs 4 times as spread as 3
        points = [p for p in points if p[:2] == (4, "one") and p[3] in (3, 5)]
    rows = []
    for point in points:
        new = table_rows(point, SIMULATIONS[quick], quick, analysis)
        rows += new
        for row in new:
            print(f"{point} {row['test']} {row['interval']}: {row['coverage']:.4f} (worst draw "
                  f"{row['coverage_min']:.3f}) of {row['n_sim']}", flush=True)
    CALIBRATE["write_rows"](rows, argv, ANALYSIS[analysis][0], appended)


if __name__ == "__main__":
    main(sys.argv[1:])
