"""Audit s33 (ttt33): after ``summarize_runs(how="time_to_threshold")`` the back ends read larger as better.

Found (a new-user trial on the Stable-Baselines3 logs): ``summarize_runs(..., how="time_to_threshold", threshold=300)``
on CartPole-v1 gives DQN, which never reaches 300, the horizon (20k) for every run; ``task_table`` then marked DQN
best (``\\textbf{20000 $\\pm$ 0}`` in the LaTeX, "bold: best mean") and ``compare`` gave it mean rank 1, the same
through ``rlstats compare --summarize time_to_threshold``. The summary's note said "smaller is better here: pass
higher_is_better=False", but the default silently reversed the table.

Fixed (the choice, and why): the package that made the column knows its direction, so it says it where it rides with
the data. The summary's note is marked as a smaller-is-better note for its column (``provenance.SMALLER_BETTER``, a
note code acts on, never read by its words) and a function taking ``higher_is_better=`` that is not given it reads
False there, and its result says so in a line (``design.direction_read``, called by ``design.public_function``, the
one home of what the public functions do with their arguments; the command line passes through it too). Where the
notes are lost (a merge, a polars round trip, a CSV file: measured below) but the ``censored`` column
``summarize_runs`` puts beside a time stays, the function cannot know and refuses without ``higher_is_better=`` (an
OptionError naming it), never guessing either way; ``higher_is_better=True`` given is obeyed. Measured (pandas 3.1,
polars 2.1): a subset, query, copy, assign, sort, reset_index, a concat of a frame's own parts, a Parquet round trip
and ``rlstats.concat`` keep the notes; pandas' merge, ``pd.concat`` of two summaries made apart, a polars round trip
and a CSV file lose them. Censored runs: every result built from the frame prints the summary's note, which counts
them and now says that a mean of the times is a lower bound of the plain mean time.
"""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest

import rlstats
from conftest import ATTRS_IN_PARQUET
from rlstats.errors import OptionError

FORMULA = "score ~ agent | task/seed"


def _curves(slow_reaches=False):
    """3 agents x 3 tasks x 3 seeds, steps 0 to 1k by 100: 'fast' reaches 10 at step 400, 'mid' at 500 and 'slow'
    never (its scores rise to 5 + 0.1 seed), or at 1k with ``slow_reaches``."""
    rows = []
    for agent, slope in (("fast", 3.0), ("mid", 2.0), ("slow", 1.0 if slow_reaches else 0.5)):
        for task in ("t1", "t2", "t3"):
            for seed in range(3):
                rows += [(agent, task, seed, step * 100, slope * step + 0.1 * seed) for step in range(11)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


@pytest.fixture(scope="module")
def times():
    return rlstats.summarize_runs(_curves(), FORMULA, step="step", how="time_to_threshold", threshold=10)


def test_the_synthetic_times(times):
    """The fixture's times, by hand: fast 400, mid 500, slow censored at the horizon 1k."""
    means = times.groupby("agent").score.mean().to_dict()
    assert means == {"fast": 400, "mid": 500, "slow": 1000}
    assert times.groupby("agent").censored.sum().to_dict() == {"fast": 0, "mid": 0, "slow": 9}


def test_task_table_marks_the_fastest_best_and_says_why(times):
    res = rlstats.task_table(times, FORMULA)
    tidy = res.tidy()
    assert sorted(tidy[tidy.best].agent.unique()) == ["fast"]
    assert sorted(tidy[tidy.best].task) == ["t1", "t2", "t3"]
    bold = [line for line in res.to_latex().splitlines() if "textbf" in line and line.startswith("t")]
    assert len(bold) == 3 and all(re.search(r"\\textbf\{400 \$\\pm\$ 0\}", line) for line in bold)
    assert "1000" not in "".join(re.findall(r"\\textbf\{[^}]*\}", res.to_latex()))
    text = str(res)
    assert "higher_is_better=False, read from the data" in text
    assert "9 of 27 runs never reached it" in text


def test_compare_ranks_the_fastest_first(times):
    res = rlstats.compare(times, FORMULA, rng=0)
    ranks = dict(zip(res.agents, res.mean_ranks))
    # every run of 'fast' is first in its task, 'slow' last: mean ranks 1, 2, 3 exactly
    assert ranks == {"fast": 1.0, "mid": 2.0, "slow": 3.0}
    assert "higher_is_better=False, read from the data" in str(res)


def test_an_explicit_direction_is_obeyed_and_not_announced(times):
    res = rlstats.task_table(times, FORMULA, higher_is_better=True)
    tidy = res.tidy()
    assert sorted(tidy[tidy.best].agent.unique()) == ["slow"]
    assert "read from the data" not in str(res)
    res = rlstats.compare(times, FORMULA, higher_is_better=False, rng=0)
    assert dict(zip(res.agents, res.mean_ranks))["fast"] == 1.0
    assert "read from the data" not in str(res)


def test_every_back_end_taking_the_option_reads_it_from_the_data(times):
    """The other functions taking higher_is_better=: the percentile rank's and the selection check's best, tuning
    aside (it needs configurations), read the fastest first too."""
    res = rlstats.compare(times, FORMULA, method="percentiles", rng=0, n_resamples=200)
    assert "higher_is_better=False, read from the data" in str(res)
    assert res.higher_is_better is False


# measured with pandas 3.1 and polars 2.1: which operations keep the notes (and so the direction) and which keep
# only the 'censored' column (pandas' merge and a concat of differently made frames drop attrs; rlstats.concat keeps
# each frame's notes); either way the result is never the reversed one
KEEP = ["subset", "query", "copy", "assign", "sort", "reset_index", "concat of its parts", "parquet",
        "rlstats.concat of two summaries"]
LOSE = ["merge", "polars round trip", "csv round trip", "pandas concat of two summaries"]


def _operated(times, how):
    if how == "subset":
        return times[times.task != "t3"]
    if how == "query":
        return times.query("task != 't3'")
    if how == "copy":
        return times.copy()
    if how == "assign":
        return times.assign(extra=1)
    if how == "sort":
        return times.sort_values("score")
    if how == "reset_index":
        return times.reset_index(drop=True)
    if how == "concat of its parts":
        return pd.concat([times[times.task == "t1"], times[times.task != "t1"]])
    if how == "parquet":
        pytest.importorskip("pyarrow")
        buffer = io.BytesIO()
        times.to_parquet(buffer)
        buffer.seek(0)
        return pd.read_parquet(buffer)
    if how.endswith("concat of two summaries"):  # t1 summarised apart, at another threshold
        curves = _curves()
        parts = [rlstats.summarize_runs(curves[(curves.task == "t1") == first], FORMULA, step="step",
                                        how="time_to_threshold", threshold=threshold)
                 for first, threshold in ((True, 9), (False, 10))]
        return rlstats.concat(parts) if how.startswith("rlstats") else pd.concat(parts)
    if how == "merge":
        return times.merge(pd.DataFrame({"task": ["t1", "t2", "t3"], "suite": "classic"}))
    if how == "polars round trip":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(times).to_pandas()
    if how == "csv round trip":
        return pd.read_csv(io.StringIO(times.to_csv(index=False)))
    raise AssertionError(how)


@pytest.mark.parametrize("how", KEEP)
def test_operations_that_keep_the_notes_keep_the_direction(times, how):
    if how == "parquet" and not ATTRS_IN_PARQUET:  # pandas 2.0 writes no notes: refused, never reversed
        with pytest.raises(OptionError, match=r"higher_is_better=False.*higher_is_better=True"):
            rlstats.task_table(_operated(times, how), FORMULA)
        return
    res = rlstats.task_table(_operated(times, how), FORMULA)
    tidy = res.tidy()
    assert sorted(tidy[tidy.best].agent.unique()) == ["fast"]
    assert "higher_is_better=False, read from the data" in str(res)


@pytest.mark.parametrize("how", LOSE)
def test_operations_that_lose_the_notes_are_refused_while_censored_stays(times, how):
    data = _operated(times, how)
    with pytest.raises(OptionError, match=r"higher_is_better=False.*higher_is_better=True"):
        rlstats.task_table(data, FORMULA)
    with pytest.raises(OptionError, match="'censored'"):
        rlstats.compare(data, FORMULA)
    # told, it answers
    tidy = rlstats.task_table(data, FORMULA, higher_is_better=False).tidy()
    assert sorted(tidy[tidy.best].agent.unique()) == ["fast"]


def test_a_polars_frame_with_censored_is_refused_too(times):
    pl = pytest.importorskip("polars")
    with pytest.raises(OptionError, match="higher_is_better"):
        rlstats.task_table(pl.from_pandas(times), FORMULA)


def test_a_pyarrow_table_keeps_the_notes_in_its_schema(times):
    """pandas writes attrs into the pyarrow schema: read back, the direction is known."""
    pa = pytest.importorskip("pyarrow")
    if not ATTRS_IN_PARQUET:  # pandas 2.0 writes no attrs into the schema: refused, never reversed
        with pytest.raises(OptionError, match=r"higher_is_better=False.*higher_is_better=True"):
            rlstats.task_table(pa.Table.from_pandas(times), FORMULA)
        return
    res = rlstats.task_table(pa.Table.from_pandas(times), FORMULA)
    tidy = res.tidy()
    assert sorted(tidy[tidy.best].agent.unique()) == ["fast"]
    assert "higher_is_better=False, read from the data" in str(res)
    res = rlstats.task_table(pa.Table.from_pandas(times.drop(columns="censored")), FORMULA)
    assert "higher_is_better=False, read from the data" in str(res)


def test_censored_beside_another_column_is_refused_too(times):
    """Without the notes nothing says which column the times are: a frame holding 'censored' is refused whatever
    column is analysed (never a guess), and answers when told."""
    data = pd.read_csv(io.StringIO(times.to_csv(index=False))).assign(other=lambda d: -d.score)
    with pytest.raises(OptionError, match="whether a smaller or a larger other is better is not known"):
        rlstats.task_table(data, "other ~ agent | task/seed")
    tidy = rlstats.task_table(data, "other ~ agent | task/seed", higher_is_better=True).tidy()
    assert sorted(tidy[tidy.best].agent.unique()) == ["fast"]  # -400 above -500 and -1000


def test_another_column_beside_the_times_is_read_as_it_is_while_the_notes_say_which_is_the_time(times):
    """With the notes, the time's column is known: a column beside it is neither refused nor reversed."""
    data = times.assign(other=lambda d: -d.score)
    res = rlstats.task_table(data, "other ~ agent | task/seed")
    tidy = res.tidy()
    assert sorted(tidy[tidy.best].agent.unique()) == ["fast"]  # -400 is the largest
    assert "read from the data" not in str(res)


def test_other_summaries_keep_larger_is_better():
    runs = rlstats.summarize_runs(_curves(), FORMULA, step="step", how="final")
    res = rlstats.task_table(runs, FORMULA)
    tidy = res.tidy()
    assert sorted(tidy[tidy.best].agent.unique()) == ["fast"]  # 30.x beside 20.x and 5.x
    assert "read from the data" not in str(res)


def test_the_note_says_a_mean_of_censored_times_is_a_lower_bound(times):
    """Restricted at the horizon h, min(T, h) <= T, so the mean of the column is at most the plain mean time."""
    res = rlstats.compare(times, FORMULA, rng=0)
    text = str(res)
    assert "9 of 27 runs never reached it" in text
    assert "a lower bound of the plain mean time" in text


def test_the_command_line_reads_the_direction(tmp_path):
    from rlstats.cli import main

    path = tmp_path / "curves.csv"
    _curves().to_csv(path, index=False)
    out = io.StringIO()
    assert main(["compare", str(path), FORMULA, "--summarize", "time_to_threshold", "--summarize-option",
                 "threshold=10"], out=out) == 0
    text = out.getvalue()
    ranks = text.split("(1 = best):\n")[1].splitlines()[:2]
    assert ranks[0].split() == ["fast", "mid", "slow"] and [float(v) for v in ranks[1].split()] == [1, 2, 3]
    assert "-o higher_is_better=False, read from the data" in text
    out = io.StringIO()
    assert main(["compare", str(path), FORMULA, "--summarize", "time_to_threshold", "--summarize-option",
                 "threshold=10", "-o", "higher_is_better=True"], out=out) == 0
    ranks = out.getvalue().split("(1 = best):\n")[1].splitlines()[:2]
    assert [float(v) for v in ranks[1].split()] == [3, 2, 1]
    assert "read from the data" not in out.getvalue()


def test_on_the_sb3_logs_dqn_is_not_best_on_cartpole(sb3_evaluations):
    """The trial's case: CartPole-v1, threshold 300. DQN never reaches it (3 runs censored at 20k); PPO's times are
    5k, 10k, 10k (mean 8,333), A2C's 10k each: PPO is best, DQN last."""
    cart = sb3_evaluations[sb3_evaluations.task == "CartPole-v1"]
    runs = rlstats.summarize_runs(cart, FORMULA, step="step", how="time_to_threshold", threshold=300)
    assert runs.groupby("agent").censored.sum().to_dict() == {"A2C": 0, "DQN": 3, "PPO": 0}
    assert runs.groupby("agent").score.mean().round(1).to_dict() == {"A2C": 10000, "DQN": 20000, "PPO": 8333.3}
    table = rlstats.task_table(runs, FORMULA)
    tidy = table.tidy()
    assert tidy[tidy.best].agent.tolist() == ["PPO"]
    assert "\\textbf{20000" not in table.to_latex()
    res = rlstats.compare(runs, FORMULA, rng=0)
    ranks = dict(zip(res.agents, res.mean_ranks))
    assert ranks["DQN"] == 3.0 and ranks["PPO"] < ranks["A2C"]
    assert "3 of 9 runs never reached it" in str(res)
