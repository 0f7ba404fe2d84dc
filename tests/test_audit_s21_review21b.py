"""Audit s21 (review21b): review of the merged bayes21, pbp21, cli21 and mixed21 branches.  Checked and found right:
the bayes few-runs note's threshold is the fewest paired runs per pair over the tasks it shares (counts of pairs by
seed, not runs of either agent), listing only the pairs under it; its "t with n - 2 df" is the flat prior on sigma_i
integrated out; mixed.contrast 2 x 3 x 3 capped spread reproduces its 400-data-set rows digit for digit
(reproduce_rows.py mixed.contrast 7: 0.9675 / 0.95 Satterthwaite, 0.995 / 0.99 Kenward-Roger); -o normalize=FILE
evaluates nothing (a CSV or Parquet read by pandas) and a missing file, a folder, an empty file, a header alone,
bytes that are not UTF-8, a file not Parquet, text bounds and duplicated tasks are each one rlstats error.  The
defects below."""

import types

import pytest

import rlstats
from conftest import cli_run


def _cli(*args):
    status, stdout, stderr = cli_run(*args)
    return types.SimpleNamespace(returncode=status, stdout=stdout, stderr=stderr)


def _few_runs(rope):
    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=3, effect=1.0, rng=0)
    with pytest.warns(rlstats.RlstatsWarning):  # the raw scales
        res = rlstats.bayes(df, "score ~ agent | task/seed", rope=rope, model="hierarchical", rng=0,
                            progress=False, warmup=100, draws=200)
    return res, next(note for note in res.notes if "fewer than 10 paired runs" in note)


@pytest.mark.usefixtures("first_run_only")  # the note is tested, not the fit: the chains as asked
def test_the_few_runs_note_without_a_rope_speaks_of_delta0_not_of_p_rope():
    """With rope=0 (the default) P(rope) is 0 by construction (printed "< 1/1600"), yet the note said "P(rope) can
    read an equivalence the runs do not show ... read P(rope) here as the model's pooling".  What the pooling does
    there is pull delta0 and its interval: at 3 runs 9 of 10 Atari sets' intervals missed the 100 runs' delta0."""
    res, note = _few_runs(0.0)
    assert res.comparisons["p_rope"].iloc[0] == 0
    assert "P(rope)" not in note
    assert "missed the 100 runs' delta0 -0.136 in 9 of 10" in note
    _, with_rope = _few_runs(0.1)
    assert "read P(rope) here as the model's pooling" in with_rope


def _reference_run(tmp_path, text, name="ref.csv"):
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    df.to_csv(tmp_path / "runs.csv", index=False)
    (tmp_path / name).write_text(text)
    return _cli("compare", tmp_path / "runs.csv", "score ~ agent | task", "--method", "bootstrap", "--seed", "0",
                "-o", "n_resamples=200", "-o", f"normalize={tmp_path / name}")


def test_a_reference_file_with_another_separator_is_not_told_to_pass_sep(tmp_path):
    """--sep sets the data file's separator, not the reference file's: "pass --sep ';'" would misread the data."""
    done = _reference_run(tmp_path, "task;random;human\ntask_01;0;1\ntask_02;0;1\ntask_03;0;1\n")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--sep" not in done.stderr, done.stderr
    assert "looks separated by ';'" in done.stderr and "a .tsv file" in done.stderr


def test_a_reference_file_of_a_header_alone_asks_for_a_row_per_task(tmp_path):
    done = _reference_run(tmp_path, "task,random,human\n")
    assert done.returncode == 2 and "has a header but no rows; give a file with one row per task" in done.stderr


def test_a_row_longer_than_the_header_is_an_error_not_a_shifted_table(tmp_path):
    """pandas takes a first data row with one field more than the header as a row-name column: every column moves
    one place left.  A reference file 'task_01,0,1,5' under 'task,random,human' read its tasks as the row names and
    said the reference's task column had none of the data's tasks; a runs file with a trailing comma on each data
    line ('agent_1,task_01,0,37.1,') was said to have 60 missing scores, its seeds read as scores.  Now a longer
    record is an error naming its line, and trailing separators are read as pandas documents for index_col=False."""
    done = _reference_run(tmp_path, "task,random,human\ntask_01,0,1,5\ntask_02,0,1\ntask_03,0,1\n")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "line 2 has 4 fields where the header names 3" in done.stderr, done.stderr
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    lines = ["agent,task,seed,score"] + [f"{a},{t},{s},{x!r}," for a, t, s, x in df.itertuples(index=False)]
    (tmp_path / "trailing.csv").write_text("\n".join(lines) + "\n")
    done = _cli("compare", tmp_path / "trailing.csv", "score ~ agent | task", "--format", "csv")
    # a separator ending every line, header too, is no field: pandas reads such a file whole with index_col=False
    clean = _cli("compare", tmp_path / "runs.csv", "score ~ agent | task", "--format", "csv")
    assert done.returncode == 0 and done.stdout == clean.stdout
    # the p-value 0.4585 as the csv writes it: its last digits vary with numpy (0.4584999999999999, 0.45849999999999985)
    assert float(done.stdout.splitlines()[1].split(",")[5]) == pytest.approx(0.4585, abs=1e-12)


def test_a_log_table_record_longer_than_the_header_is_a_problem_not_a_shifted_run(tmp_path):
    """The same pandas rule in the tabular log reader: seed_0's 'step,eval/return' over '0,1.0,5' and '10,2.0' read
    as one row, step 1 and return 5.0, without a word (its step 0 return 1.0 and step 10 return 2.0 gone)."""
    for seed, text in ((0, "step,eval/return\n0,1.0,5\n10,2.0\n"), (1, "step,eval/return\n0,1.0\n10,2.0\n")):
        (tmp_path / "dqn" / "hopper" / f"seed_{seed}").mkdir(parents=True)
        (tmp_path / "dqn" / "hopper" / f"seed_{seed}" / "progress.csv").write_text(text)
    with pytest.raises(rlstats.RlstatsError, match="line 2 has 3 fields where the header names 2"):
        rlstats.read_logs(tmp_path, progress=False)
    # a record ending in a separator alone is read as pandas documents: its trailing empty field is no value
    (tmp_path / "dqn" / "hopper" / "seed_0" / "progress.csv").write_text("step,eval/return\n0,1.0,\n10,2.0,\n")
    frame = rlstats.read_logs(tmp_path, progress=False)
    seed_0 = frame[frame["run"] == "dqn/hopper/seed_0"]
    assert seed_0["step"].tolist() == [0, 10] and seed_0["eval/return"].tolist() == [1.0, 2.0]


def test_power_method_named_twice_is_said_as_the_argument():
    """cli21 words power's METHOD errors as the argument (empty, an empty item, an unknown name); a name given twice
    still read "method=['skillings_mack', 'skillings_mack'] lists a method twice"."""
    done = _cli("power", "skillings_mack,skillings_mack", "--no-progress")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "method=[" not in done.stderr, done.stderr
    assert "METHOD 'skillings_mack,skillings_mack' names 'skillings_mack' twice" in done.stderr, done.stderr


def test_a_parquet_reference_without_pyarrow_is_one_error_line(tmp_path, monkeypatch):
    """Without pyarrow (an optional extra) the error said the way on, pip install 'rlstats[parquet]', then pandas'
    four-line message: the command's contract is one 'rlstats: error:' line."""
    pytest.importorskip("pyarrow")
    import sys

    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    df.to_csv(tmp_path / "runs.csv", index=False)
    import pandas as pd

    pd.DataFrame({"task": ["task_01", "task_02", "task_03"], "random": 0.0, "human": 1.0}).to_parquet(
        tmp_path / "ref.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "fastparquet", None)
    done = _cli("compare", tmp_path / "runs.csv", "score ~ agent | task", "--method", "bootstrap",
                "-o", f"normalize={tmp_path / 'ref.parquet'}")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "needs pyarrow: pip install " in done.stderr and "pyarrow)" in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
