"""Audit s21 (miss21): a quoted calibration row says which of the two criteria of
:func:`rlstats.calibration.misses` it fails. A row misses its level when its pooled coverage is below it by more than
3 binomial standard errors, or when its worst design draw is below it by more than 3 standard errors of one draw;
the notes said "below 0.95 (above alpha) by more than 3 Monte Carlo standard errors" of every quoted row, also of
rows whose pooled value is within 3 SE and whose worst draw alone misses."""

import math

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import calibration


def _capped_row():
    """The real ``adastop.fwe_means`` row of the joint relabelling (the default until audit s29b) at 3 agents, n = 5,
    K = 4, capped vs normal."""
    (row,) = [r for r in calibration.rows("adastop.fwe_means") if (r["agents"], r["runs"], r["configuration"],
              r["distribution"], r["interval"]) == ("3", "5", "K=4", "capped_vs_normal", "joint")]
    return row


def test_the_adastop_row_misses_in_its_worst_draw_only():
    """0.0725 of 400 is 2.06 SE above 0.05 (SE sqrt(0.05 x 0.95 / 400) = 0.0109); its worst draw, 0.120 of 100, is
    3.2 SE of a draw (0.0218) above it."""
    row = _capped_row()
    assert (float(row["coverage"]), float(row["coverage_min"]), row["n_sim"], row["design_draws"]) == (
        0.9275, 0.88, "400", "4")
    assert (0.0725 - 0.05) / math.sqrt(0.05 * 0.95 / 400) == pytest.approx(2.0647, abs=1e-4)
    assert (0.12 - 0.05) / math.sqrt(0.05 * 0.95 / 100) == pytest.approx(3.2118, abs=1e-4)
    assert calibration.misses(row, 0.95)


def test_adastop_note_says_the_worst_draw_misses_end_to_end():
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=20, rng=0)
    res = rlstats.adastop(df, "score ~ agent", n=5, K=4, rng=0, permutations="joint")  # the joint row's note
    (note,) = [n for n in res.notes if "capped scores" in n and "equal mean" in n]
    assert ("were declared different in 0.073 of 400 simulated tests, 0.120 in the worst of its 4 draws of the "
            "tasks' offsets and scales, its worst draw above alpha = 0.05 by more than 3 Monte Carlo standard errors "
            "of a draw;") in note
    assert "above alpha = 0.05 by more than 3 Monte Carlo standard errors;" not in note


POOLED = "below 0.95 by more than 3 Monte Carlo standard errors"
DRAW = "its worst draw below 0.95 by more than 3 Monte Carlo standard errors of a draw"
POOLED_SIZE = "above alpha = 0.05 by more than 3 Monte Carlo standard errors"
DRAW_SIZE = "its worst draw above alpha = 0.05 by more than 3 Monte Carlo standard errors of a draw"


def _draws(coverage, coverage_min, n_sim):
    """(pooled, draw-only): two rows of ``n_sim`` data sets in 4 draws; the first misses pooled, the second holds
    pooled (within 3 SE) and misses in its worst draw only."""
    return tuple({"n_sim": str(n_sim), "coverage": str(c), "design_draws": "4", "coverage_min": str(low)}
                 for c, low in zip(coverage, coverage_min))


def test_miss_clause_says_which_criterion_failed():
    # 400 data sets in 4 draws: 3 SE pooled 0.0327 (0.9173), 3 SE of a draw of 100 0.0654 (0.8846)
    pooled, draw = _draws((0.91, 0.93), (0.90, 0.88), 400)
    assert calibration.misses(pooled, 0.95) and calibration.misses(draw, 0.95)
    assert calibration.miss_clause(pooled, 0.95) == POOLED
    assert calibration.miss_clause(draw, 0.95) == DRAW
    assert calibration.miss_clause(pooled, 0.95, size=True) == POOLED_SIZE
    assert calibration.miss_clause(draw, 0.95, size=True) == DRAW_SIZE
    assert calibration.miss_clause(draw, 0.95, target="the level") == (
        "its worst draw below the level by more than 3 Monte Carlo standard errors of a draw")
    assert calibration.miss_clause(pooled, 0.95, size=True, target="beta = 0.05") == (
        "above beta = 0.05 by more than 3 Monte Carlo standard errors")
    # a row on one fixed design (no draws) misses pooled or not at all; a row that holds has no clause
    assert calibration.miss_clause({"n_sim": "400", "coverage": "0.91"}, 0.95) == POOLED
    for held in ({"n_sim": "400", "coverage": "0.93"}, {**draw, "coverage_min": "0.89"}):
        assert not calibration.misses(held, 0.95)
        with pytest.raises(ValueError, match="holds its level 0.95"):
            calibration.miss_clause(held, 0.95)


def test_the_real_table_words_every_miss_by_its_criterion():
    """Every row of the package table that misses is worded by the criterion that fails: 1,645 rows miss at their
    own level, 114 of them in their worst draw only (the pooled value within 3 SE); before audit s22's rows 1,486 and
    92: its 18 rows of tuning on real sweeps add 18 (16 in the worst sweep only) and the signed-rank bayes.decision
    rows at 1 and 2 runs 4 (all 4 in the worst draw only); audit s23's 486 equivalence.size rows of equal runs but
    unlike spreads add 112, all pooled (one draw a row; review23a), and its adastop.fwe_spread rows 25 (2 in the
    worst draw only; adajoint23). Audit s24 (cal24): the bootstrap's 508 rows on 2 tasks add 292 (19 in the worst
    draw only), 1,937 and 133; its 36 signed-rank bayes.decision rows at the ROPE's edge on 320 data sets 11 more (3
    fewer in the worst draw only: 28 of them miss, 1 in its worst draw only, where 17 did, 4). Audit s25 (cal25): 40
    curves.band points measured again on 240 curves add 12 (1,960 and 133): 13 rows miss that held, 11 of the
    expanded bands' and the default's two at one task of 5 skewed runs of the mean (its simultaneous band in its
    worst draw only), and one expanded row no longer misses; 4 of the 13 in their worst draw only, and one expanded
    row that missed in its worst draw only now misses pooled. Audit s25 (band25): the mean's default bands widened on
    the side of the runs' skew, those two hold (1,958 and 132). Audit s27 (curves27): the curves' 2-task rows add 17
    (1,975 and 134): 15 of the expanded bands' (2 in their worst draw only: the IQM's simultaneous band at 10 skewed
    runs and the median's at 5 normal ones) and the max-T test and difference band of the mean at 3 capped runs.
    Audit s27 (maxt27): the curves' 7 continued points read 400 fresh data sets (not those that triggered them),
    1,973 and 135: those two hold, the median's expanded pointwise band at 5 tasks x 2 capped runs holds (0.923 ->
    0.934), and the IQM's expanded simultaneous band at 26 tasks x 20 skewed runs misses in its worst draw only
    (0.9325, worst draw 0.90). Audit s28 (gapkinds28): curves' 20 optimality-gap rows of agents below gamma whose
    true scores cross it add 2 (1,975 and 136), one in its worst draw only. Audit s28 (taskboot28): the 780
    bootstrap.interval_tasks rows (task_bootstrap=True against a population of tasks) add 406, none in its worst draw
    only (2,381 and 136). Audit s28 (early28): the 762 curves.band rows at the steps some runs do not reach add 122,
    10 in their worst draw only, all of bands="expanded" (2,503 and 146).
    Audit s28 (gapboot28): the bootstrap's 39 optimality-gap rows of agents below gamma whose true scores cross it add
    8 (2,511 and 148): 7 capped (10 and 20 runs, 1 task x 20; one, 5 tasks x 10, in its worst draw only) and skewed
    1 task x 20 runs in its worst draw only. Audit s29 (taskboot29): the 60 expanded_tasks_t rows (the mean's bootstrap-t
    over tasks) add 12, all at 2 and 3 tasks, where resamples of one task make its bounds infinite (2,523 and 148).
    Audit s29 (profile29): the 600 bootstrap.profile_population rows add 186, all of the percentile band with tasks
    resampled (the former default of performance_profile(task_bootstrap=True)), none in a worst draw: its
    wilson_tasks default's 300 hold (2,709 and 148).
    Audit s29b: the 127 holm rows of adastop.fwe and adastop.fwe_means add 1, 1 in its worst draw only (the
    permutation test of 3 agents x 5 skewed runs; 2,710 and 149 with profile29's rows). Audit s29 (holmfix29): that row
    measured again on 2,400 tests (its draw of 60 was a Monte Carlo false alarm, exact bound 0.048) holds (2,709 and
    148). Audit s30 (tboot30): the 480 bootstrap.profile_population rows of kind="tasks" add 177, all of the percentile
    band with tasks resampled (the former default of performance_profile(kind="tasks", task_bootstrap=True)), none in a
    worst draw: its wilson_tasks default's 180 hold (2,886 and 148). Audit s32 (cal32): the 432 equivalence.size rows
    of pairs that did not share every task add none (2,886 and 148). Audit s32 (simband32): the sup-t band's t
    quantile read at most at the Bonferroni tail, two expanded simultaneous rows of the median miss in their worst draw
    only (26 tasks x 3 normal runs, 0.883 of 120; 5 x 5 skewed, 0.767 of 30), 2,888 and 150. Audit s33 (calib33): the
    360 task_table difference rows (FCR) and 320 mixed Sidak/Scheffe rows add one, 8 alike agents at 2 capped runs
    (0.944 of 11,200, not in its worst draw only): 2,889 and 150. Audit s34 (iqmfar34): the 48 rows of the defaults on 3
    tasks far apart (one design, no draws) add 13, all the IQM's: 7 of curves' bands, 6 of the bootstrap's interval
    (2,902 and 150); (mixbal34) the 216 mixed.f_size and 816 unbalanced mixed.contrast rows add none (the table
    16,492 rows). Audit s35 (farapart35): the 18 rows of the bootstrap's default on 3 tasks that overlap whose runs
    lie apart by chance (no draws) all miss (2,920 and 150; the table 16,510 rows). Audit s35 (former35) re-measured
    rows on today's resampling streams (their scripts, the same seeds): curves' gap rows below gamma miss in 1 (the
    simultaneous band at 5 tasks x 5 skewed runs, which missed in its worst draw only, holds), the 762 rows of runs
    cut early in 126, 8 in their worst draw only (122 and 10; all bands="expanded": 8 cross into a miss, 4 out of
    one): 2,923 and 147. Audit s35 (apart35): on 3 tasks that overlap whose runs lie apart by chance, the 12 rows of
    the bootstrap's median and optimality gap all miss and 25 of the 36 of curves' bands (2,960 and 147; the table
    16,558 rows). Audit s35 (former35b) re-measured the one-task rows of coverage_one_task.py on today's
    streams: 5 cross out of a miss (the percentile mean and median at 100 heavy-tailed runs, the median's t interval at
    20 skewed runs, studentized_no_welch's gap at 30 skewed runs, in its worst draw only, and at 200 heavy-tailed runs),
    none into one: 2,955 and 145. Audit s36 (calib36): the 168 equivalence.spread_ruled_out rows (the runs ruling
    out unlike spreads, no draws) add one, capped scores' factor 1/2 at 30 runs (2,956 and 145; the table 16,726 rows);
    the 72 mixed.contrast rows of agents whose runs differ in spread add 7, all of 4 agents with one of run SD 4 among
    three of 1, 1 in its worst draw only (2,963 and 146; the table 16,798 rows)."""
    missed = [r for r in calibration.read() if calibration.misses(r, float(r["level"]))]

    def counted(rows):
        said = [calibration.miss_clause(r, float(r["level"])) for r in rows]
        return len(said), sum(s.startswith("its worst draw") for s in said)

    assert counted(missed) == (2963, 146)
    # audit s34: 15,412 + 48 (iqmfar34) + 216 + 816 (mixbal34); audit s35: + 18 (farapart35) + 48 (apart35); audit
    # s36: + 168 + 72 (calib36)
    assert len(calibration.read()) == 16_798
    assert counted([r for r in missed if r["procedure"] == "bootstrap.profile_population"
                    and r["interval"] == "percentile" and r["metric"] == "runs"]) == (186, 0)
    assert counted([r for r in missed if r["procedure"] == "bootstrap.profile_population"
                    and r["metric"] == "tasks"]) == (177, 0)  # audit s30 tboot30: all the percentile band's
    assert counted([r for r in missed if r["procedure"] == "curves.band" and r["tasks"] == "2"
                    and not r["configuration"].startswith(calibration.RUNS_CUT)]) == (15, 2)
    assert counted([r for r in missed if r["procedure"] == "curves.band" and r["interval"] == "studentized"
                    and r["agents"] == "2" and r["statistic"] != "optimality_gap"]) == (0, 0)
    assert counted([r for r in missed if r["procedure"] == "curves.band" and r["statistic"] == "optimality_gap"]) == (1, 0)
    assert counted([r for r in missed if r["procedure"] == "bootstrap.interval" and r["tasks"] == "2"]) == (294, 19)
    assert counted([r for r in missed if r["procedure"] == "bayes.decision" and r["test"] == "signed_rank"
                    and r["runs"] in ("3", "5", "10")]) == (28, 1)
    assert counted([r for r in missed if ", spread " in r["configuration"]]) == (112, 0)
    assert counted([r for r in missed if r["procedure"] == "adastop.fwe_spread"]) == (25, 2)
    assert counted([r for r in missed if r["distribution"] == "real_dierkes2024"]) == (18, 16)
    assert counted([r for r in missed if r["procedure"] == "bayes.decision" and r["test"] == "signed_rank"
                    and r["runs"] in ("1", "2")]) == (4, 4)


def test_adastop_notes_say_which_criterion_failed(monkeypatch):
    from types import SimpleNamespace

    from rlstats.methods.adastop import _api

    base = {"procedure": "adastop.fwe_means", "test": "adastop", "agents": "3", "tasks": "1", "runs": "5",
            "distribution": "skewed_vs_normal", "configuration": "K=4", "level": "0.95", "n_resamples": "2000",
            "interval": "holm"}  # the default scheme's rows (audit s29b)
    for row, quote in zip(_draws((0.91, 0.93), (0.90, 0.88), 400), (
            f"0.090 of 400 simulated tests, 0.100 in the worst of its 4 draws of the tasks' offsets and scales, "
            f"{POOLED_SIZE}; a", f"0.070 of 400 simulated tests, 0.120 in the worst of its 4 draws of the tasks' "
                                 f"offsets and scales, {DRAW_SIZE}; a")):
        monkeypatch.setattr(calibration, "rows", lambda p, row=row: ({**base, **row},) if p == "adastop.fwe_means"
                            else ())
        (note,) = _api._equal_means_notes({(3, 5, 4): None}, SimpleNamespace(alpha=0.05, permutations="holm"))
        assert quote in note, note
    # the family-wise error's note (adastop.fwe), through the one-shot permutation test
    base = {**base, "procedure": "adastop.fwe", "test": "permutation", "runs": "4", "distribution": "capped",
            "configuration": ""}
    blocked = rlstats.datasets.simulate(agents=3, tasks=2, seeds=4, rng=0)
    for row, clause in zip(_draws((0.91, 0.93), (0.90, 0.88), 400), (POOLED_SIZE, DRAW_SIZE)):
        monkeypatch.setattr(calibration, "rows", lambda p, row=row: ({**base, **row},) if p == "adastop.fwe" else ())
        notes = [n for n in rlstats.permutation(blocked, "score ~ agent | task", rng=0).notes
                 if n.startswith("measured family-wise")]  # not the per-task note (labels27)
        assert notes == [f"measured family-wise error of the permutation test with 3 agents and 4 runs per agent: "
                         f"{1 - float(row['coverage']):.3f}, {1 - float(row['coverage_min']):.3f} in the worst of its "
                         f"4 draws of the tasks' offsets and scales (capped scores, 400 null tests), {clause}"]


def test_task_table_sentence_says_which_criterion_failed():
    from rlstats.methods.task_table._api import _shortfall_sentence

    base = {"agents": "3", "runs": "5", "distribution": "capped", "configuration": "all_equal"}
    for row, clause in zip(_draws((0.91, 0.93), (0.90, 0.88), 400), (POOLED, DRAW)):
        sentence = _shortfall_sentence("the set", {**base, **row}, ["a", "b"], "simulations", 0.95, "0.95")
        assert sentence == (f"measured coverage of the set with 3 agents and 5 runs per agent: {row['coverage']:0<5}, "
                            f"{row['coverage_min']:0<5} in the worst of its 4 draws of the tasks' offsets and "
                            f"scales (capped scores, all equal; 400 simulations), {clause} (a, b)")
    sentence = _shortfall_sentence("the interval", {**base, **row}, ["a"], "simulated pairs", 0.95, "the level")
    assert sentence.endswith("its worst draw below the level by more than 3 Monte Carlo standard errors of a draw (a)")


def test_curves_note_says_which_criterion_failed(monkeypatch):
    from rlstats.datasets import simulate_curves

    base = {"statistic": "iqm", "band": "simultaneous", "interval": "studentized", "runs": "3", "tasks": "5",
            "distribution": "capped", "agents": "2", "n_resamples": "500", "se": "0.01"}
    df = simulate_curves(agents=2, tasks=4, seeds=4, steps=5, rng=0)
    for row, clause in zip(_draws((0.91, 0.93), (0.90, 0.88), 400), (POOLED, DRAW)):
        monkeypatch.setattr(calibration, "rows", lambda p, row=row: ({**base, **row},) if p == "curves.band" else ())
        res = rlstats.curves(df, "score ~ agent | task/seed", step="step", n_resamples=50, rng=0)
        assert (f"measured coverage of the simultaneous band of the IQM at the nearest simulated design (3 runs per "
                f"task, 5 tasks): {row['coverage_min']:0<5} (capped scores, 400 simulated curves, the lowest of 4 "
                f"draws of the tasks' offsets and scales), {clause}") in res.notes, res.notes


def test_equivalence_note_says_which_criterion_failed(monkeypatch):
    base = {"procedure": "equivalence.size", "test": "tost", "interval": "paired_t", "metric": "", "agents": "2",
            "tasks": "5", "runs": "5", "distribution": "capped", "configuration": "delta = +margin", "level": "0.95"}
    data = rlstats.datasets.simulate(agents=2, tasks=5, seeds=5, rng=0)
    for row, clause in zip(_draws((0.91, 0.93), (0.90, 0.88), 400), (POOLED_SIZE, DRAW_SIZE)):
        monkeypatch.setattr(calibration, "rows", lambda p, row=row: ({**base, **row},) if p == "equivalence.size"
                            else ())
        res = rlstats.equivalence(data, "score ~ agent | task", margin=1.0, across="paired_t", aggregate=None)
        (note,) = [n for n in res.notes if n.startswith("measured size at the margin")]
        # the pooled size is quoted beside its worst draw's (before, the worst draw's alone, with the pooled count)
        assert (f"at 5 tasks and 5 runs per agent: {1 - float(row['coverage']):.3f}, "
                f"{1 - float(row['coverage_min']):.3f} in the worst of its 4 draws of the tasks' offsets and scales "
                f"(capped scores, delta = +margin; 400 simulated tests), {clause}, so its 'equivalent' comes too "
                "easily there") in note, note


def test_mixed_notes_say_which_criterion_failed(monkeypatch):
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=2, rng=0)
    contrast = {"procedure": "mixed.contrast", "test": "satterthwaite", "interval": "tukey", "agents": "3",
                "tasks": "5", "runs": "2", "distribution": "heavy_tailed", "configuration": "all_equal",
                "level": "0.95"}
    means = {"procedure": "mixed.means", "test": "satterthwaite", "agents": "3", "tasks": "5", "runs": "2",
             "distribution": "capped", "configuration": "tasks drawn afresh", "level": "0.95"}
    for row, clause in zip(_draws((0.91, 0.93), (0.90, 0.88), 400), (POOLED, DRAW)):
        tables = {"mixed.contrast": ({**contrast, **row},), "mixed.means": ({**means, **row},)}
        monkeypatch.setattr(calibration, "rows", lambda p, tables=tables: tables.get(p, ()))
        notes = rlstats.mixed(df, "score ~ agent | task").notes
        assert (f"per cell: {row['coverage']:0<5}, {row['coverage_min']:0<5} in the worst of its 4 draws of the "
                f"tasks' levels and spreads (heavy-tailed scores, agents alike; 400 simulated data sets), {clause}"
                ) in "\n".join(notes), notes
        (note,) = [n for n in notes if "marginal means" in n]
        # with tasks drawn afresh, a row's 4 "draws" are blocks of data sets, each with tasks of its own
        assert (f"per cell: {row['coverage']:0<5}, {row['coverage_min']:0<5} in the worst of its 4 draws of 100 "
                f"data sets each (capped scores, tasks of different levels and spreads drawn afresh for each of 400 "
                f"simulated data sets), {clause}, averaged over the agents") in note, note


def test_rank_test_note_says_which_criterion_failed(monkeypatch):
    base = {"procedure": "skillings_mack.size", "test": "friedman", "agents": "3", "tasks": "8", "runs": "1",
            "distribution": "capped", "level": "0.95", "n_resamples": "999"}
    df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=1, rng=0)
    for row, clause in zip(_draws((0.91, 0.93), (0.90, 0.88), 400), (POOLED_SIZE, DRAW_SIZE)):
        monkeypatch.setattr(calibration, "rows", lambda p, row=row: ({**base, **row},) if p == "skillings_mack.size"
                            else ())
        notes = rlstats.compare(df, "score ~ agent | task").notes
        assert (f"measured size of the Friedman rank sum test with 3 agents, 8 tasks and 1 run per cell: "
                f"{1 - float(row['coverage']):.3f}, {1 - float(row['coverage_min']):.3f} in the worst of its 4 draws "
                f"of the tasks' offsets and scales (capped scores, 400 null data sets), {clause}") in notes, notes


def test_selection_note_says_which_criterion_failed(monkeypatch):
    from rlstats.methods.selection import selection_check

    rng = np.random.default_rng(0)
    tasks = [f"t{t:02d}" for t in range(10)]
    frame = pd.DataFrame({"agent": np.repeat(["new", "old"], 20), "task": np.tile(np.repeat(tasks, 2), 2),
                          "score": rng.normal(size=40)})
    base = {"procedure": "selection.size", "test": "welch", "statistic": "inspector", "agents": "2", "tasks": "10",
            "runs": "2", "distribution": "skewed", "configuration": "2 reported", "level": "0.95"}
    for row, clause in zip(_draws((0.91, 0.93), (0.90, 0.88), 400), (POOLED_SIZE, DRAW_SIZE)):
        monkeypatch.setattr(calibration, "rows", lambda p, row=row: ({**base, **row},) if p == "selection.size" else ())
        res = selection_check(frame, "score ~ agent | task", treatment="new", baseline="old", reported=tasks[:2],
                              inspector="welch", rng=0)
        assert (f"measured size of the inspector's Welch two-sample t test with 2 reported and 8 held-out tasks and 2 "
                f"runs of each agent per task: {1 - float(row['coverage']):.3f}, {1 - float(row['coverage_min']):.3f} "
                f"in the worst of its 4 draws of the tasks' offsets and scales (skewed scores, 400 null data sets), "
                + clause.replace("alpha", "beta")) in res.notes, res.notes


def test_one_task_note_says_which_criterion_failed(monkeypatch):
    from rlstats.methods.bootstrap import _small_runs

    # the real rows: the default's lowest one-task optimality-gap row from 20 runs misses in its worst draw only
    # (0.941 of 1,920 is within 3 SE, 0.0149, of 0.95; 0.906 of 480 is below it by more than 3 SE of a draw, 0.0298;
    # 0.942 and 0.904 on the streams before audit s33, re-measured by audit s35 former35b)
    assert _small_runs._one_task_shortfall("optimality_gap") == (
        0.940625, 30, "heavy-tailed", "0.906 in the worst of its 4 draws of the tasks' offsets and scales, its worst "
        "draw below 95% by more than 3 Monte Carlo standard errors of a draw")
    assert _small_runs._one_task_shortfall("mean", "studentized_no_welch")[3] == (
        "below 95% by more than 3 Monte Carlo standard errors")
    # a note quoting both kinds says which each is
    lows = {"mean": (0.920312, 30, "heavy-tailed", "below 95% by more than 3 Monte Carlo standard errors"),
            "optimality_gap": _small_runs._one_task_shortfall("optimality_gap")}
    monkeypatch.setattr(_small_runs, "_one_task_shortfall", lambda metric, interval="studentized": lows[metric])
    monkeypatch.setattr(_small_runs, "one_task_min_runs", lambda interval="studentized": {"mean": None,
                                                                                          "optimality_gap": None})
    note = _small_runs.one_task_note([3, 3], ["a", "b"], ["mean", "optimality_gap"], np.ones((2, 2), bool))
    assert ("(there the mean's 0.920 at 30 heavy-tailed runs, below 95% by more than 3 Monte Carlo standard errors; "
            "the optimality gap's 0.941 at 30 heavy-tailed runs, 0.906 in the worst of its 4 draws of the tasks' "
            "offsets and scales, its worst draw below 95% by more than 3 Monte Carlo standard errors of a draw)"
            ) in note, note
