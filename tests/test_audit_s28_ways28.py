"""Audit s28 (ways28): refusals whose way on is not an option of the function or command the user called.

Found, each with its reproducer below:

* ``rlstats.power`` (and ``rlstats power --pilot``) passed on the back ends' refusals of a pilot whose agents fall
  into groups apart, or share no task, as "pass subset= to rlstats.compare"; power() takes no ``subset=`` (its
  pilot keeps agents by ``agents=``, tasks by ``tasks=``). The way on now depends on the entry point, in one home:
  :data:`rlstats.errors.ENTRY` (set by power() and sample_size()) read by :func:`rlstats.connectivity.keeping`.
* The way on of "no task has runs of every agent" (keep the agents that ran the widest task) led to a second
  refusal (the agents kept still missed tasks): it now adds na_action="drop", and each way is followed once here.
* ``rlstats power --pilot F --formula 'score ~ agent'`` on a file of several tasks said to filter "in the file
  itself"; it now says ``--formula "score ~ agent | task" --tasks NAME``.
* The command line's spelling of ``-o "subset=..."`` was spelled again by the hint rewriter into
  ``-o "-o subset=..."`` once a message carried it in the command's words.
"""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.cli import main
from rlstats.errors import DesignError

QUICK = dict(n_sim=4, seeds=[4], progress=False, rng=0)


def runs(layout, seeds=4, rng=0):
    """One row per (agent, task, seed) of ``layout``: [(agent, tasks)], normal scores."""
    gen = np.random.default_rng(rng)
    rows = [dict(agent=a, task=t, seed=s, score=gen.normal()) for a, tasks in layout for t in tasks
            for s in range(seeds)]
    return pd.DataFrame(rows)


GROUPS = runs([("A", ["t1", "t2"]), ("B", ["t1", "t2"]), ("C", ["t3"]), ("D", ["t3"])])
NO_COMMON = runs([("A", ["t1", "t2"]), ("B", ["t2", "t3"]), ("C", ["t1", "t3"])], seeds=6)
TWO_TASKS = runs([("A", ["t1", "t2"]), ("B", ["t1", "t2"])])


def refusal(call):
    with pytest.raises(DesignError) as info:
        call()
    return info.value


def command_error(capsys, argv):
    assert main(argv) == 2
    return capsys.readouterr().err


# --- power(): the way on names power()'s own options, and following it once works ----------------------------------

def test_power_groups_apart_are_named_with_agents_not_subset():
    error = str(refusal(lambda: rlstats.power("bootstrap", design=GROUPS, formula="score ~ agent | task",
                                              **QUICK)))
    assert "subset" not in error
    assert ("group 1: A, B (on 2 tasks: t1, t2), agents=['A', 'B'], tasks=['t1', 't2']; group 2: C, D (on 1 task: "
            "t3), agents=['C', 'D'], tasks=['t3']") in error
    assert error.endswith("analyse one group at a time by passing its agents= and tasks= to rlstats.power, or add "
                          "runs that link the groups")
    # followed once: agents= alone kept t3, where neither ran, and bootstrap refused the empty cells (a second refusal)
    result = rlstats.power("bootstrap", design=GROUPS, formula="score ~ agent | task", agents=["A", "B"],
                           tasks=["t1", "t2"], n_resamples=200, **QUICK)
    assert result.tidy()["seeds"].tolist() == [4]


def test_compare_keeps_its_subset_way():
    error = str(refusal(lambda: rlstats.compare(GROUPS, "score ~ agent | task", rng=0)))
    assert "subset=\"agent in ['A', 'B']\"" in error and "passing its subset= to rlstats.compare" in error


def test_power_no_common_task_way_is_accepted_and_leads_to_no_second_refusal():
    error = str(refusal(lambda: rlstats.power("bootstrap", design=NO_COMMON, formula="score ~ agent | task",
                                              **QUICK)))
    assert "passing agents=['A', 'C'] and na_action=\"drop\" to rlstats.power" in error
    result = rlstats.power("bootstrap", design=NO_COMMON, formula="score ~ agent | task", agents=["A", "C"],
                           na_action="drop", n_resamples=200, **QUICK)
    assert result.tidy()["seeds"].tolist() == [4]


def test_compare_no_common_task_way_leads_to_no_second_refusal():
    error = str(refusal(lambda: rlstats.compare(NO_COMMON, "score ~ agent | task", method="bootstrap", rng=0)))
    assert "passing subset=\"agent not in ['B']\" and na_action=\"drop\" to rlstats.compare" in error
    result = rlstats.compare(NO_COMMON, "score ~ agent | task", method="bootstrap", subset="agent not in ['B']",
                             na_action="drop", n_resamples=200, rng=0)
    assert set(result.agents) == {"A", "C"}


def test_power_several_tasks_without_block_term_names_formula_and_tasks():
    error = str(refusal(lambda: rlstats.power("bootstrap", design=TWO_TASKS, formula="score ~ agent", **QUICK)))
    assert "pass formula='score ~ agent | task' and tasks=['t1'] to rlstats.power" in error
    rlstats.power("bootstrap", design=TWO_TASKS, formula="score ~ agent | task", tasks=["t1"], **QUICK)


def test_sample_size_names_its_own_function():
    error = str(refusal(lambda: rlstats.sample_size("skillings_mack", design=GROUPS, formula="score ~ agent | task",
                                                    effect=1.0, n_sim=4, progress=False, rng=0)))
    assert "passing its agents= and tasks= to rlstats.sample_size" in error


def test_entry_is_reset_after_power():
    refusal(lambda: rlstats.power("skillings_mack", design=GROUPS, formula="score ~ agent | task", **QUICK))
    assert "to rlstats.compare" in str(refusal(lambda: rlstats.compare(GROUPS, "score ~ agent | task", rng=0)))


# --- the command line: its flags ------------------------------------------------------------------------------------

@pytest.fixture
def files(tmp_path):
    for name, frame in (("groups", GROUPS), ("nocommon", NO_COMMON), ("two", TWO_TASKS)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    return tmp_path


POWER = ["--n-sim", "4", "--seeds", "4", "--no-progress", "--seed", "0"]


def test_command_power_groups_apart_names_agents_flag(files, capsys):
    err = command_error(capsys, ["power", "bootstrap", "--pilot", str(files / "groups.csv"), "--formula",
                                 "score ~ agent | task", *POWER])
    assert "--agents A,B --tasks t1,t2; group 2: C, D (on 1 task: t3), --agents C,D --tasks t3" in err
    assert "with its --agents and --tasks (rlstats power)" in err and "subset" not in err
    assert main(["power", "bootstrap", "--pilot", str(files / "groups.csv"), "--formula", "score ~ agent | task",
                 "--agents", "A,B", "--tasks", "t1,t2", "-o", "n_resamples=200", *POWER]) == 0


def test_command_power_no_common_task(files, capsys):
    err = command_error(capsys, ["power", "bootstrap", "--pilot", str(files / "nocommon.csv"), "--formula",
                                 "score ~ agent | task", *POWER])
    assert "passing --agents A,C -o na_action=drop to rlstats power" in err
    capsys.readouterr()
    assert main(["power", "bootstrap", "--pilot", str(files / "nocommon.csv"), "--formula", "score ~ agent | task",
                 "--agents", "A,C", "-o", "na_action=drop", "-o", "n_resamples=200", *POWER]) == 0


def test_command_power_several_tasks_names_formula_and_tasks_flags(files, capsys):
    err = command_error(capsys, ["power", "bootstrap", "--pilot", str(files / "two.csv"), "--formula",
                                 "score ~ agent", *POWER])
    assert "keep the rows of one task (--formula \"score ~ agent | task\" --tasks t1 with rlstats power)" in err
    assert "in the file itself" not in err
    assert main(["power", "bootstrap", "--pilot", str(files / "two.csv"), "--formula", "score ~ agent | task",
                 "--tasks", "t1", *POWER]) == 0


def test_command_compare_subset_said_once(files, capsys):
    err = command_error(capsys, ["compare", str(files / "groups.csv"), "score ~ agent | task"])
    assert "-o \"subset=agent in ['A', 'B']\"; group 2" in err and "-o \"-o" not in err
    err = command_error(capsys, ["compare", str(files / "two.csv"), "score ~ agent"])
    assert "(-o \"subset=task in ['t1']\" with rlstats compare)" in err
