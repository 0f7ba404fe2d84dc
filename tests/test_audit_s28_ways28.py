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
from conftest import caught

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


def _power(files, name, formula="score ~ agent | task", *flags):
    """The command line of ``rlstats power bootstrap`` on the pilot file ``name``."""
    return ["power", "bootstrap", "--pilot", str(files / name), "--formula", formula, *flags, *POWER]


def test_command_power_groups_apart_names_agents_flag(files, capsys):
    err = command_error(capsys, _power(files, "groups.csv"))
    assert "--agents A,B --tasks t1,t2; group 2: C, D (on 1 task: t3), --agents C,D --tasks t3" in err
    assert "with its --agents and --tasks (rlstats power)" in err and "subset" not in err
    assert main(_power(files, "groups.csv", "score ~ agent | task", "--agents", "A,B", "--tasks", "t1,t2", "-o",
                       "n_resamples=200")) == 0


def test_command_power_no_common_task(files, capsys):
    err = command_error(capsys, _power(files, "nocommon.csv"))
    assert "passing --agents A,C -o na_action=drop to rlstats power" in err
    capsys.readouterr()
    assert main(_power(files, "nocommon.csv", "score ~ agent | task", "--agents", "A,C", "-o", "na_action=drop",
                       "-o", "n_resamples=200")) == 0


def test_command_power_several_tasks_names_formula_and_tasks_flags(files, capsys):
    err = command_error(capsys, _power(files, "two.csv", "score ~ agent"))
    assert "keep the rows of one task (--formula \"score ~ agent | task\" --tasks t1 with rlstats power)" in err
    assert "in the file itself" not in err
    assert main(_power(files, "two.csv", "score ~ agent | task", "--tasks", "t1")) == 0


def test_command_compare_subset_said_once(files, capsys):
    err = command_error(capsys, ["compare", str(files / "groups.csv"), "score ~ agent | task"])
    assert "-o \"subset=agent in ['A', 'B']\"; group 2" in err and "-o \"-o" not in err
    err = command_error(capsys, ["compare", str(files / "two.csv"), "score ~ agent"])
    assert "(-o \"subset=task in ['t1']\" with rlstats compare)" in err


# --- read_logs: seeds read as reruns ---------------------------------------------------------------------------------

def _seed_folders(root, prefix="seed_"):
    """Two agents x one task x 3 seed folders of an SB3 progress.csv each, the pattern's {seed} left out."""
    for agent in ("dqn", "ppo"):
        for seed in range(3):
            folder = root / agent / "Pong" / f"{prefix}{seed}"
            folder.mkdir(parents=True)
            (folder / "progress.csv").write_text(f"step,reward\n0,1\n100,{seed + 2}\n")
    return root


def _notes(frame):
    from rlstats.provenance import provenance_of

    return [note.text for note in provenance_of(frame).notes]


def test_read_logs_seed_folders_read_as_reruns_suggest_seed_in_pattern(tmp_path):
    root = _seed_folders(tmp_path)
    frame = rlstats.read_logs(root, pattern="{agent}/{task}", progress=False)
    rerun = next(text for text in _notes(frame) if "started again" in text)
    assert "if those folders are seeds, not attempts of one run, name them in the pattern: " \
           "pattern='{agent}/{task}/seed_{seed}'; else keep the one you mean" in rerun
    # followed once: 6 runs of 3 seeds, no attempt column, no rerun note
    again = rlstats.read_logs(root, pattern="{agent}/{task}/seed_{seed}", progress=False)
    assert "attempt" not in again.columns and sorted(again.seed.unique().tolist()) == [0, 1, 2]
    assert not any("started again" in text for text in _notes(again))


def test_read_logs_rerun_folders_that_are_not_seeds_get_no_seed_hint(tmp_path):
    root = tmp_path
    for name in ("PPO_first", "PPO_again"):
        folder = root / "ppo" / "Pong" / name
        folder.mkdir(parents=True)
        (folder / "progress.csv").write_text("step,reward\n0,1\n100,2\n")
    frame = rlstats.read_logs(root, pattern="{agent}/{task}", progress=False)
    rerun = next(text for text in _notes(frame) if "started again" in text)
    assert "name them in the pattern" not in rerun and ", so keep the one you mean" in rerun


def test_command_read_logs_spells_pattern_and_subset_as_commands_take_them(tmp_path, capsys):
    root = _seed_folders(tmp_path / "logs")
    assert main(["read-logs", str(root), "--pattern", "{agent}/{task}", "-o", str(tmp_path / "out.csv")]) == 0
    said = capsys.readouterr().out  # the notes follow the summary line
    assert "name them in the pattern: --pattern \"{agent}/{task}/seed_{seed}\"" in said
    assert "e.g. rlstats compare's -o \"subset=~(agent == 'dqn' & task == 'Pong' & attempt != 'seed_2')\" keeps" in said
    assert "subset=\"" not in said


# --- a categorical's unused level named in pairs=/reference=: said as control= says it ------------------------------

def _with_unused_level():
    df = rlstats.datasets.simulate(agents=["A", "B", "C"], tasks=3, seeds=5, rng=0)
    return df.assign(agent=pd.Categorical(df.agent, categories=["A", "B", "C", "X"]))


LEFT_OUT = "is not an agent in column 'agent' (it has no rows in the data analysed, left out); the agents are: "


@pytest.mark.parametrize("call, said", [
    (lambda df: rlstats.skillings_mack(df, "score ~ agent | task", control="X"), "control='X' "),  # the wording
    (lambda df: rlstats.adastop(df, "score ~ agent | task", reference="X", rng=0, progress=False), "reference='X' "),
    (lambda df: rlstats.adastop(df, "score ~ agent | task", comparisons=[("A", "X")], rng=0, progress=False),
     "'X' in comparisons= "),
    (lambda df: rlstats.compare(df, "score ~ agent | task", method="permutation", reference="X", rng=0),
     "reference='X' "),
])
def test_unused_level_named_by_an_option_says_it_has_no_rows(call, said):
    with pytest.raises(rlstats.errors.OptionError) as info:
        call(_with_unused_level())
    assert str(info.value) == said + LEFT_OUT + "'A', 'B', 'C'"


def test_probability_of_improvement_pairs_unused_level_says_it_has_no_rows():
    with pytest.raises(rlstats.errors.OptionError) as info:
        rlstats.probability_of_improvement(_with_unused_level(), "score ~ agent | task", pairs=[("A", "X")], rng=0,
                                           progress=False)
    assert str(info.value) == "'X' in pairs= " + LEFT_OUT + "'A', 'B', 'C'"


# --- a plan's "add runs": the seeds it simulates ---------------------------------------------------------------------

def test_power_need_way_on_is_seeds_to_simulate(capsys):
    with pytest.raises(DesignError) as info:
        rlstats.power("permutation", seeds=[1, 2], n_sim=4, progress=False, rng=0)
    assert "p = 1 whatever the scores; simulate at least 2 seeds per cell (seeds=), or" in str(info.value)
    assert "add runs" not in str(info.value)
    # outside a plan the data are the user's: add runs
    data = rlstats.datasets.simulate(agents=2, tasks=2, seeds=1, rng=0)
    with pytest.raises(DesignError, match="p = 1 whatever the scores; add runs, or"):
        rlstats.compare(data, "score ~ agent | task", method="permutation", rng=0)
    assert main(["power", "permutation", "--seeds", "1,2", "--n-sim", "4", "--no-progress", "--seed", "0"]) == 2
    assert "simulate at least 2 seeds per cell (--seeds), or" in capsys.readouterr().err


def test_power_adastop_no_level_warning_names_seeds_and_k(capsys):
    with pytest.warns(rlstats.errors.RlstatsWarning, match=r"simulate more seeds per cell \(seeds=; n = seeds / K\) "
                                                           r"or pass a larger K="):
        rlstats.power("adastop", seeds=[5], K=5, n_sim=4, tasks=2, progress=False, rng=0)
    assert main(["power", "adastop", "--seeds", "5", "-o", "K=5", "--tasks", "2", "--n-sim", "4", "--no-progress",
                 "--seed", "0"]) == 0
    assert "simulate more seeds per cell (--seeds; n = seeds / K) or pass a larger -o K=" in capsys.readouterr().err


def test_sample_size_not_reached_warning_names_the_flags(capsys):
    argv = ["power", "skillings_mack", "--effect", "0.05", "--target-power", "0.8", "--max-seeds", "4", "--n-sim",
            "20", "--tasks", "3", "--no-progress", "--seed", "0"]
    assert main(argv) == 0
    assert "raise --max-seeds or --effect" in capsys.readouterr().err


# --- sweep: ways on that named an option the function called does not take ----------------------------------------

def test_power_subset_names_agents_and_tasks(files, capsys):
    with pytest.raises(rlstats.errors.OptionError, match=r"subset= is not taken by power\(\): a pilot keeps some "
                                                         r"agents with agents= and some tasks with tasks="):
        rlstats.power("bootstrap", design=TWO_TASKS, formula="score ~ agent | task", subset="task == 't1'", **QUICK)
    err = command_error(capsys, _power(files, "two.csv", "score ~ agent | task", "-o", "subset=task == 't1'"))
    assert "some agents with --agents and some tasks with --tasks; for other rows, filter the file first" in err


def test_bayes_orderings_way_on_is_compares_subset():
    data = rlstats.datasets.simulate(agents=["A", "B", "C"], tasks=3, seeds=3, rng=0)
    data = data[~((data.agent == "C") & (data.task == "task_01"))]
    with pytest.raises(DesignError) as info:
        rlstats.bayes(data, "score ~ agent | task", orderings=True, rng=0, progress=False)
    assert "1 cell of this design is empty; keep the tasks every agent ran with rlstats.compare's subset=" \
        in str(info.value)


def test_power_workers_word_the_way_on_as_the_dry_run():
    """Blocks run on worker threads (or processes) start with no entry: their warnings said 'use a larger n or K'
    beside the dry run's 'simulate more seeds', one warning told twice in two wordings."""
    _, said = caught(lambda: rlstats.power("adastop", seeds=[5], K=5, n_sim=8, tasks=2, progress=False, rng=0,
                                           n_jobs=2, backend="threading"))
    said = [s for s in said if "no level can be spent" in s]
    assert len(said) == 1 and "simulate more seeds per cell (seeds=; n = seeds / K)" in said[0]


def _rerun_curves():
    """Run 0 of A started again (attempts 'x' and 'y' of one seed): its rows repeat steps 0 and 100."""
    rows = [dict(agent=a, task="t", seed=s, attempt=attempt, step=step, score=step / 100 + s)
            for a in "AB" for s in range(3) for attempt in (("x", "y") if (a, s) == ("A", 0) else ("x",))
            for step in (0, 100)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("function", ["summarize_runs", "align_steps"])
def test_attempts_way_on_is_the_data_queried_where_no_subset_is_taken(function):
    call = getattr(rlstats, function)
    with pytest.raises(DesignError) as info:
        call(_rerun_curves(), "score ~ agent | task/seed", step="step")
    condition = "~(agent == 'A' & task == 't' & seed == 0 & attempt != 'y')"
    # (since the read-through, a boolean mask, not df.query: no text handed to an evaluator outside the grammar)
    assert (f"keep the one you mean, e.g. data=df[mask] (a boolean mask of the rows where {condition} holds) to "
            f"rlstats.{function} (dropping") in str(info.value)
    frame = _rerun_curves()
    mask = ~((frame.agent == "A") & (frame.task == "t") & (frame.seed == 0) & (frame.attempt != "y"))
    kept = call(frame[mask], "score ~ agent | task/seed", step="step")  # followed once
    assert set(kept["agent"]) == {"A", "B"}


def test_attempts_way_on_in_curves_is_its_subset():
    with pytest.raises(DesignError, match=r"e\.g\. subset=\"~\(agent == 'A'"):
        rlstats.curves(_rerun_curves(), "score ~ agent | task/seed", step="step", rng=0, progress=False)


def test_command_summarize_attempts_way_on_is_its_option(tmp_path, capsys):
    _rerun_curves().to_csv(tmp_path / "att.csv", index=False)
    argv = ["compare", str(tmp_path / "att.csv"), "score ~ agent | task/seed", "--summarize", "final"]
    err = command_error(capsys, argv)
    condition = "~(agent == 'A' & task == 't' & seed == 0 & attempt != 'y')"
    assert f"e.g. -o \"subset={condition}\" (dropping" in err and "df.query" not in err
    assert main([*argv, "-o", f"subset={condition}"]) == 0
