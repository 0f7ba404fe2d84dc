"""Audit s33 (review of ttt33 and design33): three ways the merged work was silent.

1. A time summary's response renamed (``times.rename(columns={"score": "time"})``): the summary's notes survive
   naming 'score', no note named the response, so ``higher_is_better`` defaulted to True silently (the slowest agent
   bold) while the result printed the summary's sentence "smaller is better here". Fixed: a note whose column is no
   longer in the frame counts as lost, so the refusal beside a ``censored`` column fires; without that column the
   response is still refused where its values at the runs are the summary's times.
2. The note's claim was not checked against the rows: ``times.assign(score=-times.score)``, the final scores put in
   the column, and ``rlstats.concat`` of a time summary of t1 with a final summary of t2 and t3 all read False ("score
   is a time to a threshold"), so on t2/t3 the slowest agent was bold. Fixed: the summary's note records a hash of
   each run's key values and time (8 bytes a run, an array, never a dict), and ``design.direction_read`` refuses,
   naming both values of ``higher_is_better``, where a row's value is none of them, or where another summary's note
   with another ``how`` names the same column.
3. ``design._step_like`` read a step only where it rose row by row within each run, so after
   ``df.sort_values("score")`` curves with a step named 'checkpoint' passed ``score ~ agent | task`` with 48 curve
   rows counted as runs (p=0.7310). Fixed: order-free (values distinct within each run, shared by >= 2 runs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError, OptionError
from test_audit_s33_ttt33 import FORMULA, _curves


@pytest.fixture(scope="module")
def times():
    return rlstats.summarize_runs(_curves(), FORMULA, step="step", how="time_to_threshold", threshold=10)


@pytest.fixture(scope="module")
def finals():
    return rlstats.summarize_runs(_curves(), FORMULA, step="step", how="final")


def _best(res):
    tidy = res.tidy()
    return sorted(tidy[tidy.best].agent.unique())


# ------------------------------------------------------------------------------------------- 1. renamed response

def test_a_renamed_time_beside_censored_is_refused(times):
    renamed = times.rename(columns={"score": "time"})
    with pytest.raises(OptionError, match=r"higher_is_better=False.*higher_is_better=True"):
        rlstats.task_table(renamed, "time ~ agent | task/seed")
    with pytest.raises(OptionError, match="'censored'"):
        rlstats.compare(renamed, "time ~ agent | task/seed")
    # told, it answers: fast (400) best on every task
    assert _best(rlstats.task_table(renamed, "time ~ agent | task/seed", higher_is_better=False)) == ["fast"]


def test_a_renamed_time_without_censored_is_refused_by_its_values(times):
    renamed = times.rename(columns={"score": "time"}).drop(columns="censored")
    with pytest.raises(OptionError, match=r"'time'.*higher_is_better=False.*higher_is_better=True"):
        rlstats.task_table(renamed, "time ~ agent | task/seed")


# ------------------------------------------------------------------------------------------- 2. the note checked

@pytest.mark.parametrize("how", ["negated", "final scores", "shuffled times"])
def test_a_column_no_longer_the_times_is_refused(times, finals, how):
    if how == "negated":
        data = times.assign(score=-times.score)
    elif how == "final scores":
        final = finals.set_index(["agent", "task", "seed"]).score
        data = times.assign(score=final.reindex(pd.MultiIndex.from_frame(times[["agent", "task", "seed"]])).to_numpy())
    else:  # the times of other runs: every value a time, none its run's
        data = times.assign(score=times.score.to_numpy()[::-1])
    with pytest.raises(OptionError, match=r"'score'.*higher_is_better=False.*higher_is_better=True"):
        rlstats.task_table(data, FORMULA)


def test_a_time_summary_stacked_with_a_final_summary_is_refused(times, finals):
    # join="outer": the final summary has no 'censored' column, which concat refuses to leave missing unasked (s38)
    mixed = rlstats.concat([times[times.task == "t1"], finals[finals.task != "t1"]], join="outer")
    with pytest.raises(OptionError, match=r"'score'.*'final'.*higher_is_better=False.*higher_is_better=True"):
        rlstats.task_table(mixed, FORMULA)
    # told, each reading is the caller's: larger better makes 'fast' best on t2 and t3 (30.x), 'slow' on t1 (1000)
    tidy = rlstats.task_table(mixed, FORMULA, higher_is_better=True).tidy()
    assert tidy[tidy.best].set_index("task").agent.to_dict() == {"t1": "slow", "t2": "fast", "t3": "fast"}


def test_subsets_sorts_and_stacks_of_times_still_read_false(times):
    """What keeps the times (their runs' values) keeps the direction: a subset, a sort, and a stack of two time
    summaries made apart (rows of each vouched by its own note)."""
    curves = _curves()
    parts = [rlstats.summarize_runs(curves[(curves.task == "t1") == first], FORMULA, step="step",
                                    how="time_to_threshold", threshold=threshold)
             for first, threshold in ((True, 9), (False, 10))]
    for data in (times[times.agent != "mid"].sort_values("score"), times.sample(frac=1, random_state=0),
                 rlstats.concat(parts), times.astype({"score": float, "seed": float, "agent": str})):
        res = rlstats.task_table(data, FORMULA)
        assert _best(res) == ["fast"]
        assert "higher_is_better=False, read from the data" in str(res)


def test_the_record_is_eight_bytes_a_run(times):
    """The note's record of the runs: one 64-bit hash per run, sorted, in a JSON string (Parquet keeps it)."""
    import base64
    from rlstats.provenance import SMALLER_BETTER, provenance_of

    note = next(n for n in provenance_of(times).notes if n.kind == SMALLER_BETTER)
    hashes = np.frombuffer(base64.b64decode(note.data["values"]["hashes"]), dtype="<u8")  # notes34: values_record
    assert hashes.size == 27 and (np.diff(hashes.astype(np.float64)) >= 0).all()


# ------------------------------------------------------------------------------------------- 3. step, any order

def _checkpoints():
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=4, rng=0)
    return curves.rename(columns={"step": "checkpoint"})


ORDERS = {"score-sorted": lambda d: d.sort_values("score"),
          "descending": lambda d: d.sort_values("checkpoint", ascending=False),
          "shuffled": lambda d: d.sample(frac=1, random_state=1)}


@pytest.mark.parametrize("order", sorted(ORDERS))
@pytest.mark.parametrize("formula", ["score ~ agent | task", "score ~ agent | task/seed"])
def test_a_checkpoint_in_any_row_order_gets_the_curves_ways_on(order, formula):
    data = ORDERS[order](_checkpoints())
    with pytest.raises(DesignError, match=r"^column 'checkpoint' takes 4 values within run seed=\d of agent "
                                          r"'agent_1' on task 'task_01' \(4 rows\), each once, on values shared by "
                                          r"12 runs") as info:
        rlstats.compare(data, formula)
    assert "rlstats.curves(df, 'score ~ agent | task/seed', step='checkpoint')" in str(info.value)


def test_one_row_per_run_and_repeated_configs_are_not_steps():
    """A number several runs of a cell share (a configuration) is no step, in any order; one row per run is runs: they pass."""
    curves = _checkpoints()
    last = curves[curves.checkpoint == curves.checkpoint.max()].drop(columns="checkpoint")
    runs = last.assign(width=np.where(last.seed == 0, 64, 128)).sample(frac=1, random_state=2)
    assert rlstats.build(runs, "score ~ agent | task").y.size == 12  # build: compare's first call costs 3 s
    assert rlstats.build(runs, "score ~ agent | task/seed").y.size == 12
