"""Audit s17 (left17): older known leftovers.  Each test is a defect's reproducer, in the order of the brief."""

import numpy as np
import pandas as pd
import pytest

import rlstats


def _unmatched_seeds():
    """Agent A ran seeds 0-5 on 4 tasks, B seeds 0-2: the hierarchical model pairs 3 runs of each (24 of 36 rows)."""
    rng = np.random.default_rng(0)
    rows = [(a, f"t{t}", s, 10.0 * t + (0.5 if a == "A" else 0.0) + rng.normal())
            for t in range(4) for a, seeds in (("A", 6), ("B", 3)) for s in range(seeds)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.filterwarnings("ignore:the chains of")  # short chains: the counts are tested, not the fit
@pytest.mark.usefixtures("first_run_only")  # quick fits: the chains as asked
def test_bayes_report_counts_the_runs_the_model_analysed():
    """Atari 100k, CURL vs IRIS, model='hierarchical': report() began "We compared 2 agents on 26 tasks (2730 runs)"
    while the model paired only 260 runs by seed (the note says 2470 were left out).  The headline now gives the
    runs the model used and the data's count in one clause; the signed-rank model (task means of all runs) keeps the
    data's count."""
    df = _unmatched_seeds()
    res = rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", chains=2, warmup=100, draws=200,
                        rng=0, progress=False)
    assert res.nobs == 36 and res.runs_used == 24
    assert "4 tasks (24 of the data's 36 runs: those paired by seed" in res.report()
    sr = rlstats.bayes(df, "score ~ agent | task/seed", n_samples=500, rng=0, progress=False)
    assert sr.runs_used == 36 and "4 tasks (36 runs)" in sr.report()


def _text_scores(tmp_path):
    """runs.csv whose 5th and 10th data rows (lines 6 and 11 of the file) hold text in the score column."""
    from test_cli import write_runs

    _, df = write_runs(tmp_path, agents=3, tasks=4, seeds=3, effect=1.0)
    bad = df.astype({"score": object})
    bad.loc[4, "score"], bad.loc[9, "score"] = "diverged", "1,5"
    path = tmp_path / "text.csv"
    bad.to_csv(path, index=False)
    return path, bad


def test_rows_named_by_index_label_in_python_and_by_line_on_the_command_line(tmp_path, capsys):
    """A text value in the score column: the error said "(first rows: 4 'diverged', 9 '1,5')", pandas index labels
    that, read from a CSV on the command line, are the 5th and 10th data rows (lines 6 and 11 of the file).  Python
    now says "index labels 4, 9"; the command says "data rows 5, 10 (lines 6, 11 of FILE)"."""
    from test_cli import run

    path, bad = _text_scores(tmp_path)
    with pytest.raises(rlstats.errors.FormulaError) as info:
        rlstats.compare(bad, "score ~ agent | task")
    assert "(first rows: index labels 4, 9, holding 'diverged', '1,5')" in str(info.value)
    status, out = run(["compare", str(path), "score ~ agent | task"])
    err = capsys.readouterr().err
    assert status == 2 and out == ""
    assert f"(first rows: data rows 5, 10 (lines 6, 11 of {path}), holding 'diverged', '1,5')" in err, err
    # a blank line (which read_csv skips) moves the lines, not the data rows
    lines = path.read_text().splitlines()
    lines.insert(2, "")
    path.write_text("\n".join(lines) + "\n")
    status, _ = run(["compare", str(path), "score ~ agent | task"])
    err = capsys.readouterr().err
    assert f"(first rows: data rows 5, 10 (lines 7, 12 of {path})" in err, err


def test_a_parquet_file_names_data_rows_whatever_index_it_stored(tmp_path, capsys):
    """A Parquet file has no lines; its stored index (here labels 100, 101, ...) is not what the user sees in the
    file's order, so the command names the data rows."""
    pytest.importorskip("pyarrow")
    from test_cli import run

    _, bad = _text_scores(tmp_path)
    path = tmp_path / "text.parquet"
    bad.astype({"score": str}).set_axis(bad.index + 100).to_parquet(path)
    status, _ = run(["compare", str(path), "score ~ agent | task"])
    err = capsys.readouterr().err
    assert status == 2 and "(first rows: data rows 5, 10, holding 'diverged', '1,5')" in err, err


def test_a_pattern_field_typo_is_pointed_out_by_the_formula(tmp_path, capsys):
    """read_logs' pattern fields are free names by design ({lr}, {env}), so '{sed}' for '{seed}' makes a column 'sed'
    (the read-logs output's header shows it).  The formula that asks for 'seed' then names the near miss, in Python
    and on the command line (checked, found right: no change)."""
    from conftest import SHARED_DATA
    from test_cli import run

    folder = SHARED_DATA / "logs" / "sb3_classic"
    if not folder.is_dir():
        pytest.skip(f"the SB3 logs are not at {folder}")
    with pytest.warns(rlstats.errors.RlstatsWarning, match=r"pattern field \{sed\} is not agent, task or seed: did "
                                                           r"you mean \{seed\}\?"):  # read_logs says so itself (s17)
        df = rlstats.read_logs(folder, "{agent}/{task}/seed_{sed}", format="sb3_eval",
                               tags={"eval/mean_reward": "score"}, progress=False)
    assert "sed" in df.columns and "seed" not in df.columns
    with pytest.raises(rlstats.errors.FormulaError, match=r"unknown column 'seed' in the replicate term; did you "
                                                          r"mean 'sed'\?"):
        rlstats.curves(df, "score ~ agent | task/seed", step="step")
    path = tmp_path / "logs.csv"
    df.to_csv(path, index=False)
    status, _ = run(["compare", str(path), "score ~ agent | task/seed", "--method", "curves", "-o", "step=step"])
    err = capsys.readouterr().err
    assert status == 2 and "unknown column 'seed' in the replicate term; did you mean 'sed'?" in err, err


def _one_run_best():
    """3 agents x 3 tasks x 5 seeds; agent_3 has one run on task_01, and it is that task's largest score."""
    df = rlstats.datasets.simulate(agents=3, tasks=3, seeds=5, effect=1.0, rng=0)
    one = (df["agent"] == "agent_3") & (df["task"] == "task_01")
    df = df[~one | (df["seed"] == 0)].copy()
    df.loc[one & (df["seed"] == 0), "score"] = 99.0
    return df


def test_task_table_does_not_bold_a_best_resting_on_one_run():
    """agent_3's one run on task_01 (score 99) printed as *99*, bold, beside a legend "the bold and marked agents form
    a 95% confidence set for the best agent of the task", while its possibly-best mark was withheld for want of runs
    (tidy(): possibly_best NA) and the report credited it with the task.  Where the table makes marks, a best cell
    whose marks are withheld is no longer bold (nor outlined in the figure, nor credited), and the caption says so;
    the other cells are as before."""
    import matplotlib.pyplot as plt

    res = rlstats.task_table(_one_run_best(), "score ~ agent | task/seed", rng=0, progress=False)
    assert res.tied_best[0, 2] and not res.possibly_best[0, 2]          # the fields: unchanged
    row = res.display().loc["task_01"]
    assert row["agent_3"] == "99" and "*" not in "".join(row)
    runs = _one_run_best().query("agent == 'agent_3' and task == 'task_02'")["score"]  # its mean ± SD, marked
    signif = rlstats.format.signif
    assert res.display().loc["task_02", "agent_3"] == f"*{signif(runs.mean(), 3)} ± {signif(runs.std(ddof=1), 2)}*"
    assert "**99**" not in res.to_markdown() and r"\textbf{99}" not in res.to_latex()
    assert ("Bold: the best mean of each task, but for a best from too few runs to test (task_01/agent_3)"
            in res.caption())
    assert r"Best per task: agent\_2 (1), agent\_3 (1); no best is credited in task\_01" in res.report()
    ax = res.plot()
    outlined = len(ax.patches)
    plt.close(ax.figure)
    assert outlined == 2


def test_the_command_gives_actions_on_the_file_not_pandas_code(tmp_path, capsys):
    """From the command line, a text score said "(in Python, pd.to_numeric(df['score'], errors='coerce') makes them
    missing values)", a repeated row "drop them with df.drop_duplicates()", 'agent ' beside 'agent' "strip it:
    df['agent'] = df['agent'].str.strip()", an expression as the group "e.g. df['arm'] = ...": code a user of the
    command cannot run.  The command now gives an action on the file (an error's ``command_line``); Python keeps
    its code."""
    from test_cli import run

    _, bad = _text_scores(tmp_path)
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, effect=1.0, rng=0)
    cases = {
        "text": (bad, "score ~ agent | task",
                 "correct or remove those rows in the file (an empty cell is a missing value, which -o na_action=drop "
                 "leaves out)"),
        "repeated": (pd.concat([df, df.iloc[:2]], ignore_index=True), "score ~ agent | task",
                     "remove the repeated lines from the file, or give each run its own id"),
        "spaces": (df.assign(agent=df["agent"].astype(str).where(df.index != 0, df["agent"].iloc[0] + " ")),
                   "score ~ agent | task",
                   "strip the spaces around it in the file's column 'agent'"),
        "two groups": (df, "score ~ agent + seed | task",
                       "combine them into one column of the file first (e.g. 'arm', agent and variant joined by '/')"),
        "expression": (df, "score ~ agent | C(task)", "add it to the file as a column (e.g. 'block') and name that"),
    }
    for name, (frame, formula, action) in cases.items():
        with pytest.raises(rlstats.errors.RlstatsError) as info:
            rlstats.compare(frame, formula)
        assert "df" in str(info.value) or "pd." in str(info.value), name      # Python: the code, as before
        file = tmp_path / f"{name}.csv"
        frame.to_csv(file, index=False)
        status, _ = run(["compare", str(file), formula])
        err = capsys.readouterr().err
        assert status == 2 and action in err, (name, err)
        assert "df[" not in err and "df." not in err and "pd." not in err, (name, err)


def test_the_command_refusing_curves_names_its_own_way_on(tmp_path, capsys):
    """read-logs output compared as runs: the command said "rlstats.summarize_runs(df, ...) ... df.sort_values('step')
    .groupby([...]).tail(1) ... rlstats.curves(df, ...)"; it now names the file and its own flags."""
    from test_cli import run

    df = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=4, rng=0)
    path = tmp_path / "curves.csv"
    df.to_csv(path, index=False)
    status, _ = run(["compare", str(path), "score ~ agent | task"])
    err = capsys.readouterr().err
    assert status == 2 and "Keep one row of each run in the file (e.g. its last step; rlstats compare does it with " \
        "--summarize final, or last_k_mean, auc, max, time_to_threshold), or compare the curves with " \
        "the formula 'score ~ agent | task/seed' and --method curves, -o step=step" in err, err
    assert "df" not in err and "rlstats." not in err, err


def test_the_command_renames_tasks_in_the_file_for_a_reference(tmp_path, capsys, mirror):
    """-o normalize='atari100k_reference' on games spelled otherwise ('pong' for 'Pong'): the command said
    "e.g. df['task'] = df['task'].astype(object).replace({'pong': 'Pong'})"; it now says to rename them in the
    file's column, naming the pairs."""
    from test_cli import run

    df = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0)
    df["task"] = df["task"].astype(str).map({"task_01": "pong", "task_02": "breakout"})
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    status, _ = run(["compare", str(path), "score ~ agent | task", "--method", "bootstrap", "-o",
                     "normalize=atari100k_reference"])
    err = capsys.readouterr().err
    assert status == 2 and "('pong' -> 'Pong', 'breakout' -> 'Breakout'): rename them to the reference's names in " \
        "the file's column 'task'" in err, err
    assert "df[" not in err, err
    with pytest.raises(rlstats.errors.DesignError, match=r"df\['task'\] = df\['task'\]\.astype\(object\)"):
        rlstats.compare(df, "score ~ agent | task", method="bootstrap", normalize="atari100k_reference")
