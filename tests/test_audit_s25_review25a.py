"""Audit s25 review25a: the review of cli25, realdata25 and newuser25 (501ff20d..cbca8622), tried as a user.

Each defect found is first a strict xfail reproducer, then a test of the fix asserting what is printed.
"""

from __future__ import annotations

import json
import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import RlstatsWarning
from conftest import cli_shell


def _swept_agents():
    """3 agents on 4 tasks, 5 runs each, one named as a hyperparameter sweep names its runs ('SAC alpha=0.2': alpha
    is a keyword -o sets), which did not run t4: the permutation test's note names it."""
    rng = np.random.default_rng(0)
    rows = [(agent, task, seed, rng.normal(i)) for i, agent in enumerate(["SAC alpha=0.2", "PPO", "TD3"])
            for task in ["t1", "t2", "t3", "t4"] for seed in range(5) if not (agent == "SAC alpha=0.2" and task == "t4")]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_cli_notes_keep_agent_names_that_look_like_options(tmp_path):
    """cli25's rewriting of the notes read an agent named 'SAC alpha=0.2' as a hint: 'Note: SAC -o alpha=0.2 has no
    runs on t4'. The agents and tasks a result names are written as they are; the hints around them are spelled."""
    path = tmp_path / "sweep.csv"
    _swept_agents().to_csv(path, index=False)
    shown = cli_shell("compare", str(path), "score ~ agent | task", "--method", "permutation", "--seed", "0",
                      "-o", "n_resamples=200", "-o", "permutations=joint")
    assert shown.returncode == 0, shown.stderr
    notes = [line for line in shown.stdout.splitlines() if line.startswith("Note:")]
    assert "Note: SAC alpha=0.2 has no runs on t4: a pair with an agent that did not run a task is no comparison " \
           "there (no row)" in notes
    assert "-o alpha" not in shown.stdout
    # 370 since audit s33 keyed each task's stream by its name (280 before)
    assert any(note.startswith("Note: Monte Carlo error") and "Pass -o n_resamples=370 to" in note for note in notes)
    # the Python result's notes, as --format json gives them
    python = rlstats.compare(_swept_agents(), "score ~ agent | task", method="permutation", rng=0, n_resamples=200)
    shown = cli_shell("compare", str(path), "score ~ agent | task", "--method", "permutation", "--seed", "0",
                      "-o", "n_resamples=200", "--format", "json")
    assert json.loads(shown.stdout)["notes"] == list(python.notes)
    assert python.notes[-1].startswith("SAC alpha=0.2 has no runs on t4")
    # the summary's notes name a run of an agent 'PPO k=5' (k: --summarize-option k=) as written, and their hint
    # in the command's spelling
    rows = [(agent, "t", seed, step, float(step + seed)) for agent in ("PPO k=5", "SAC") for seed in range(4)
            for step in range(0, 11 if (seed or agent == "SAC") else 6)]
    path = tmp_path / "curves.csv"
    pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"]).to_csv(path, index=False)
    shown = cli_shell("compare", str(path), "score ~ agent | task/seed", "--summarize", "final", "--method",
                      "bootstrap", "-o", "n_resamples=200", "--seed", "0")
    assert shown.returncode == 0, shown.stderr
    assert "run '0' of agent 'PPO k=5' on task 't' at 5, its task's runs reaching 10" in shown.stdout
    assert "pass --summarize-option steps= ending at a step every run reaches" in shown.stdout
    assert "--summarize-option k=5" not in shown.stdout


def test_latex_keeps_double_hyphens(tmp_path):
    """latex_escape left '--', which LaTeX sets as an en dash: the command's '--summarize-option steps=' typeset as
    '–summarize-option'. Now -{}-, in the command's LaTeX and the Python API's alike (a name typed with two
    hyphens is printed as typed); a number's sign stays a minus."""
    from rlstats import format as fmt

    assert fmt.latex_escape("pass --summarize-option steps= or --max-seconds inf") == \
        "pass -{}-summarize-option steps= or -{}-max-seconds inf"
    assert fmt.latex_escape("PPO---v2 at --5, 3-10 runs") == "PPO-{}-{}-v2 at -{}-5, 3-10 runs"
    assert fmt.latex_escape("-0.5 to 1e-05") == "$-$0.5 to 1e$-$05"
    # the command: a learning curve ending early, summarised at its last step, says --summarize-option steps=
    rows = [("a" if i % 2 else "b", "t", seed, step, float(step + seed)) for i, seed in enumerate(range(6))
            for step in range(0, 11 if seed else 6)]
    path = tmp_path / "curves.csv"
    pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"]).to_csv(path, index=False)
    shown = cli_shell("compare", str(path), "score ~ agent | task/seed", "--summarize", "final", "--method",
                      "bootstrap", "-o", "n_resamples=200", "--seed", "0", "--format", "latex")
    assert shown.returncode == 0, shown.stderr
    assert "pass -{}-summarize-option steps= ending at a step every run reaches" in shown.stdout
    assert "--" not in shown.stdout


def test_power_csv_notes_on_stderr(tmp_path):
    """rlstats power --format csv wrote the result's notes nowhere ('can spend no level at 3 seeds' was lost);
    compare writes them on stderr. Both now through cli._shared.notes_beside_csv."""
    shown = cli_shell("power", "permutation", "--n-sim", "20", "--seeds", "3", "--tasks", "2", "--seed", "1",
                      "--no-progress", "--format", "csv")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("method,seeds,power,")
    notes = [line[len("Note: "):] for line in shown.stderr.splitlines() if line.startswith("Note: ")]
    with pytest.warns(RlstatsWarning, match="no level can be spent"):
        python = rlstats.power("permutation", seeds=[3], n_sim=20, tasks=2, rng=1, progress=False)
    assert notes == list(python.notes) and len(notes) == 2
    assert notes[1] == ("the permutation test can spend no level at 3 seeds per cell (level_spent 0): it cannot "
                        "reject there, whatever the effect")
    assert "Note:" not in shown.stdout
    # compare's, through the same helper, as before
    path = tmp_path / "runs.csv"
    _swept_agents().to_csv(path, index=False)
    shown = cli_shell("compare", str(path), "score ~ agent | task", "--method", "permutation", "--seed", "0",
                      "-o", "n_resamples=200", "--format", "csv")
    assert shown.stderr.splitlines()[-1] == ("Note: SAC alpha=0.2 has no runs on t4: a pair with an agent that did "
                                             "not run a task is no comparison there (no row)")


def test_monte_carlo_advice_is_python_as_written(tmp_path):
    """The permutation test's (AdaStop's) Python note advised 'pass n_resamples=3,500' (the demo: 940,000), which as
    Python is not one number; now 3_500, as read_logs' smooth= advice writes a count. The command says 3500."""
    import ast
    import re

    df = rlstats.datasets.simulate(agents=4, tasks=4, seeds=10, effect=1.0, rng=2)
    res = rlstats.compare(df, "score ~ agent | task", method="permutation", n_resamples=200, rng=0, permutations="joint")
    advice = [m.group(1) for note in res.notes for m in re.finditer(r"ass n_resamples=(\S+) to make", note)]
    assert advice == ["2_800"] and ast.literal_eval(advice[0]) == 2800  # 3_500 before audit s33's task keys
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    shown = cli_shell("compare", str(path), "score ~ agent | task", "--method", "permutation", "--seed", "0",
                      "-o", "n_resamples=200", "-o", "permutations=joint")
    assert shown.returncode == 0, shown.stderr
    # "Pass" opens the sentence since audit s33's task keys (before, "; for the others, pass" followed a decision on
    # its boundary)
    assert "Pass -o n_resamples=2800 to make every margin exceed 2 Monte Carlo SE" in " ".join(shown.stdout.split())


def test_cli_errors_keep_agent_names_that_look_like_options(tmp_path):
    """The command's errors (and warnings) listed an agent 'SAC alpha=0.2' as 'SAC -o alpha=0.2' ("did you mean",
    "the agents are"); the names of the file's name columns are now written as they are, the hints spelled."""
    path = tmp_path / "sweep.csv"
    _swept_agents().to_csv(path, index=False)
    shown = cli_shell("compare", str(path), "score ~ agent | task", "--method", "equivalence", "-o", "margin=1",
                      "-o", "control=SAC alpha=0.3", "--seed", "0")
    assert shown.returncode == 2, shown.stderr
    assert shown.stderr.endswith("(did you mean 'SAC alpha=0.2'?); the agents are: 'PPO', 'SAC alpha=0.2', 'TD3'\n")
    # a summary's error names the run as written and the option in the command's spelling
    rows = [(agent, "t", seed, step, float(step + seed)) for agent in ("PPO k=5", "SAC") for seed in range(4)
            for step in range(0, 11 if (seed or agent == "SAC") else 6)]
    path = tmp_path / "curves.csv"
    pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"]).to_csv(path, index=False)
    shown = cli_shell("compare", str(path), "score ~ agent | task/seed", "--summarize", "auc", "--seed", "0")
    assert shown.returncode == 2
    assert "(e.g. run '0' of agent 'PPO k=5' on task 't')" in shown.stderr
    assert "pass --summarize-option steps= covering a range every run reached" in shown.stderr
    # power's pilot file: its agents were listed 'SAC --alpha 0.2' (--alpha is power's flag)
    path = tmp_path / "sweep.csv"
    shown = cli_shell("power", "permutation", "--pilot", str(path), "--formula", "score ~ agent | task",
                      "--shifted-agent", "SAC alpha=0.3", "--n-sim", "10", "--seeds", "3", "--seed", "0",
                      "--no-progress")
    assert shown.returncode == 2
    assert shown.stderr.endswith("(did you mean 'SAC alpha=0.2'?); the agents are: 'PPO', 'SAC alpha=0.2', 'TD3'\n")


def test_adastop_update_errors_keep_agent_names(tmp_path):
    """adastop update's errors listed a batch's agent 'SAC alpha=0.2' as 'SAC --alpha 0.2'; now as written, long or
    wide batch alike."""
    batch = _swept_agents().query("task == 't1'")[["agent", "score"]]
    path = tmp_path / "batch.csv"
    batch.to_csv(path, index=False)
    shown = cli_shell("adastop", "update", str(tmp_path / "state.json"), str(path), "--K", "2", "--seed", "0",
                      "--reference", "SAC alpha=0.3")
    assert shown.returncode != 0
    assert shown.stderr.endswith("(did you mean 'SAC alpha=0.2'?); the agents are: 'SAC alpha=0.2', 'PPO', 'TD3'\n")
    wide = pd.DataFrame({name: group["score"].to_numpy() for name, group in batch.groupby("agent", sort=False)})
    wide.to_csv(path, index=False)
    shown = cli_shell("adastop", "update", str(tmp_path / "state.json"), str(path), "--K", "2", "--seed", "0",
                      "--reference", "SAC alpha=0.3")
    assert shown.stderr.endswith("(did you mean 'SAC alpha=0.2'?); the agents are: 'SAC alpha=0.2', 'PPO', 'TD3'\n")
