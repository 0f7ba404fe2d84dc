"""Audit s31, bfix31: leftovers other helpers found this session.

1. power("skillings_mack")'s estimate left out the one full analysis (the post hoc's Tukey tails) its dry run makes:
   300 agents were estimated at 0.0024 s and ran for minutes; max_seconds= now refuses with the estimate.
2. The command line's refusal of -o steps= advised steps=range(...), which -o cannot read: it gives a list literal.
3. subset= order comparisons on an ordered categorical compare its levels' order, as pandas and R do.
4. A numpy masked array given as subset= with masked entries is an error (its mask was ignored).
5. A polars Decimal score's refusal gives the polars spelling of the cast.
6. curves: a cell with one run in all is told to add runs to it, not runs "that reach those steps".
7. adastop()'s "cannot reject" note gives the way on the warning gives (one home: _powerless_way).
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest
from conftest import cli_run, levelled, tasks_kept

import rlstats
from rlstats import OptionError
from rlstats.design import subset_rows

try:
    import polars as pl
except ImportError:  # pragma: no cover
    pl = None


_cli = cli_run  # (exit status, stdout, stderr) of the command line, in this process


# ------------------------------------------------------------------------------------ 1. power()'s dry run counted

def test_power_counts_the_full_analysis_it_runs_once_with_the_post_hoc(caplog):
    # 40 agents x 10 tasks x 3 seeds: skillings_mack() with its post hoc (Tukey's tails of 780 pairs x 40 agents,
    # 1.5e-6 s each, + 1,200 runs at 1e-6 s: 0.048 s) ran once per number of seeds before the study's estimate, which
    # priced p-values alone (about 1e-3 s); max_seconds=0.02 let it run (300 agents: about 20 s, estimated 0.0024 s)
    with pytest.raises(OptionError, match=r"skillings_mack\(\), which power\(\) runs whole on the first data set of "
                                          r"each number of seeds, would take about 0\.048 s .*pass max_seconds=60"):
        rlstats.power("skillings_mack", agents=40, tasks=10, seeds=3, n_sim=2, rng=0, progress=False,
                      max_seconds=0.02)
    with caplog.at_level(logging.DEBUG, logger="rlstats.cost"):
        rlstats.power("skillings_mack", agents=40, tasks=10, seeds=3, n_sim=2, rng=0, progress=False)
    study = next(r.work for r in caplog.records if r.getMessage().startswith("this power study"))
    call = next(r.work for r in caplog.records if r.getMessage().startswith("skillings_mack()"))
    assert call.seconds == pytest.approx(780 * 40 * 1.5e-6 + 1200 * 1e-6)
    assert study.seconds >= call.seconds  # the dry run counted (it was about 1e-3 s)


def test_power_still_runs_a_cheap_study_under_a_small_bound():
    res = rlstats.power("skillings_mack", agents=3, tasks=4, seeds=3, n_sim=5, rng=0, progress=False,
                        max_seconds=0.5)
    assert res.tidy()["seeds"].tolist() == [3]


# --------------------------------------------------------------------------------- 2. -o steps= advice it can read

def test_the_command_lines_steps_advice_is_a_list_it_reads(tmp_path):
    path = tmp_path / "curves.csv"
    rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=4, rng=0).to_csv(path, index=False)
    for given in ("steps=range(0, 1_000_001, 50_000)", "steps=[3, 1]"):
        status, _, err = _cli("compare", path, "score ~ agent | task/seed", "--method", "curves", "-o", "step=step",
                              "-o", given)
        assert status == 2 and "steps=range(" not in err, err
        assert ('-o "steps=[0, 250000, 500000, 750000, 1000000]" (a list: the command line reads no range())'
                in err), err
    # the advice read back: the command takes it
    status, out, err = _cli("compare", path, "score ~ agent | task/seed", "--method", "curves", "-o", "step=step",
                            "-o", "steps=[0, 250000, 500000, 750000, 1000000]", "-o", "n_resamples=100",
                            "--seed", "1")
    assert status == 0, err
    # Python keeps its own wording
    with pytest.raises(OptionError, match=r"steps=range\(0, 1_000_001, 50_000\)"):
        rlstats.runs.check_grid("x")


# --------------------------------------------------------------------------- 3. subset= on an ordered categorical

def _levelled(ordered, levels=("easy", "medium", "hard")):
    return levelled(rlstats.datasets.simulate(agents=2, tasks=4, seeds=3, rng=0), ordered, levels)


_kept = tasks_kept


def test_subset_compares_an_ordered_categorical_by_its_levels_order_as_pandas_and_r_do():
    df = _levelled(ordered=True)
    for condition, rows in (("level >= 'medium'", df["level"] >= "medium"), ("'easy' < level", df["level"] > "easy"),
                            ("level < 'hard'", df["level"] < "hard"),
                            ("'easy' < level <= 'medium'", (df["level"] > "easy") & (df["level"] <= "medium"))):
        assert _kept(df, condition) == tuple(sorted(df.loc[rows, "task"].unique())), condition  # pandas' rows
    assert _kept(df, "level >= 'medium'") == ("task_02", "task_03", "task_04")
    note = str(subset_rows(df, "level >= 'medium'").attrs["rlstats_notes"][-1])
    assert "kept 18 of 24 rows" in note and "levels 'medium' and 'hard'" in note, note
    with pytest.raises(OptionError, match=r"'medium ' is not a level of the ordered categorical 'level' \('easy' < "
                                          r"'medium' < 'hard'\)"):
        _kept(df, "level >= 'medium '")


def test_a_polars_enum_is_compared_by_its_levels_order_as_polars_does():
    if pl is None:
        pytest.skip("polars is not installed")
    df = _levelled(ordered=True)
    frame = pl.from_pandas(df.assign(level=df["level"].astype(str))).with_columns(
        pl.col("level").cast(pl.Enum(["easy", "medium", "hard"])))
    polars_rows = frame.filter(pl.col("level") >= "medium")["task"].unique().sort().to_list()
    assert _kept(frame, "level >= 'medium'") == tuple(polars_rows) == ("task_02", "task_03", "task_04")


def test_unordered_categoricals_compare_their_text_as_a_text_column_does():
    df = _levelled(ordered=False)
    assert _kept(df, "level >= 'hard'") == ("task_02", "task_03", "task_04")  # 'hard' <= 'medium' as text
    assert _kept(df.assign(level=df["level"].astype(str)), "level >= 'hard'") == ("task_02", "task_03", "task_04")


# ------------------------------------------------------------------------------------ 4. masked arrays as subset=

def test_a_masked_array_with_masked_entries_is_no_subset_mask():
    df = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0)
    keep = np.ma.masked_array(np.ones(len(df), dtype=bool), mask=np.arange(len(df)) % 5 == 1)
    with pytest.raises(OptionError, match=r"subset= is a masked array with 3 masked entries \(first at position 1\)"):
        subset_rows(df, keep)
    whole = np.ma.masked_array(df["seed"].to_numpy() < 2, mask=False)  # nothing masked: its values
    assert len(subset_rows(df, whole)) == 8


# ---------------------------------------------------------------------------------- 5. a polars Decimal's way out

def test_a_polars_decimal_score_is_told_the_polars_cast():
    if pl is None:
        pytest.skip("polars is not installed")
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=2, rng=0)
    frame = pl.from_pandas(df).with_columns(pl.col("score").cast(pl.Decimal(10, 3)))
    with pytest.raises(rlstats.FormulaError) as caught:
        rlstats.compare(frame, "score ~ agent | task")
    said = str(caught.value)
    assert "pl.col('score').cast(pl.Float64)" in said and "astype" not in said, said
    # and the cast it gives is one polars runs
    assert len(rlstats.compare(frame.with_columns(pl.col('score').cast(pl.Float64)), "score ~ agent | task",
                               method="task_table").to_dict()["tasks"]) == 3
    from decimal import Decimal
    with pytest.raises(rlstats.FormulaError, match=r"df\['score'\]\.astype\(float\)"):  # pandas keeps its own
        rlstats.compare(df.assign(score=[Decimal(str(round(v, 3))) for v in df["score"]]), "score ~ agent | task")


# ----------------------------------------------------------------------------------- 6. curves: a cell of one run

def test_curves_tells_a_cell_of_one_run_to_add_runs_to_it():
    d = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=3, steps=5, rng=0)
    one = d[~((d.agent == "agent_1") & (d.task == "task_01") & (d.seed > 0))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.curves(one, "score ~ agent | task/seed", step="step", n_resamples=100, rng=0)
    note = next(n for n in res.notes if n.startswith("bands of the curves"))
    assert "reach those steps" not in note, note
    assert "agent_1 has one run of task_01 in all: add runs to it" in note, note


# ----------------------------------------------------------------------------- 7. adastop()'s cannot-reject note

def test_adastops_note_gives_the_way_on_its_warning_gives():
    d = rlstats.datasets.simulate(agents=2, tasks=1, seeds=3, rng=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = rlstats.adastop(d, "score ~ agent", n=3, K=1, n_resamples=5, rng=0)
    # rfix31d: 35 paths, n = 4's whole tree (C(8, 4) / 2), from which separated runs reject whatever the seed
    way = ("use a larger n or K with n_resamples=35 or more: no n_resamples= can at n = 3 and K = 1, nor a larger n "
           "or K at 5 paths (at 35 paths, n = 4 at K = 1 can)")
    assert any(str(w.message).endswith(way) for w in caught)
    note = next(n for n in res.notes if n.startswith("AdaStop cannot reject"))
    assert note.endswith(way) and "add runs" not in note, note
