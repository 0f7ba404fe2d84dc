"""Notes bound to the rows they describe (issue 39 item 1): after a pandas subset, reorder or concat, a result
states only what is true of the rows it analyses, and says in one line how many rows of its frame are not in these data (their notes are not shown).

The end-to-end tests read a folder laid out like the public Stable-Baselines3 trained agents
(rl-baselines3-zoo's ``rl-trained-agents``: ``<algo>/<Env>_1/evaluations.npz`` and ``0.monitor.csv``, one run
per environment, agents on different task sets, one run killed at 950k of 10M steps, one task run by one agent).
"""

import copy
import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import DesignError
from rlstats.format import latex_escape
from rlstats.provenance import NOTES_ATTR, PROVENANCE_ATTR, Note, add_note, notes_for, set_notes
from rlstats.results import sentences

ATARI = ("BreakoutNoFrameskip-v4", "MsPacmanNoFrameskip-v4", "PongNoFrameskip-v4")
CLASSIC = ("Acrobot-v1", "CartPole-v1")
ZOO_PATTERN = "{agent}/{task}_{seed}"
FORMULA = "score ~ agent | task"
# the frames here read the return alone, as 'score' (audit s20: the note spoke of 'eval/episodes' too, not read)
NPZ_NOTE = ("'score' of an evaluations.npz row is the mean return over that evaluation's episodes (as "
            "EvalCallback logs 'eval/mean_reward')")
ENDS_RULE = "to summarise every run at one step, pass steps= ending at a step every run reaches, or leave the short " \
            "runs out"


def zoo_plan():
    """(algo, env, last step, evaluation interval) of every run: 4 agents on 3 Atari games to 10M steps (qrdqn
    killed at 950k on MsPacman), 3 on 2 classic tasks to 500k (a2c stopped at 100k on Acrobot), her alone on
    PandaStack."""
    plan = [(algo, env, 950_000 if (algo, env) == ("qrdqn", ATARI[1]) else 10_000_000, 50_000)
            for algo in ("a2c", "dqn", "ppo", "qrdqn") for env in ATARI]
    plan += [(algo, env, 100_000 if (algo, env) == ("a2c", "Acrobot-v1") else 500_000, 10_000)
             for algo in ("a2c", "dqn", "ppo") for env in CLASSIC]
    return plan + [("her", "PandaStack-v1", 1_000_000, 20_000)]


def write_zoo(root, plan, first_seed=0):
    """The folder: each run's evaluations.npz (as EvalCallback saves it) and a monitor.csv beside it."""
    for k, (algo, env, last, every) in enumerate(plan, start=first_seed):
        folder = root / algo / f"{env}_1"
        folder.mkdir(parents=True)
        steps = np.arange(every, last + 1, every, dtype=np.int64)
        rng = np.random.default_rng(k)
        results = rng.normal((10.0 * (k % 7) + steps / last)[:, None], 1.0, size=(steps.size, 5))
        np.savez(folder / "evaluations.npz", timesteps=steps, results=results,
                 ep_lengths=rng.integers(100, 1000, size=(steps.size, 5)))
        (folder / "0.monitor.csv").write_text(f'#{{"t_start": 1700000000.0, "env_id": "{env}"}}\nr,l,t\n1.0,10,1.5\n')
    return root


def read_zoo(root):
    frame = rlstats.read_logs(root, ZOO_PATTERN, format="sb3_eval", tags={"eval/mean_reward": "score"},
                              progress=False)
    return rlstats.summarize_runs(frame, "score ~ agent | task/seed", step="step")


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    return read_zoo(write_zoo(tmp_path_factory.mktemp("rl-trained-agents"), zoo_plan()))


def read_note(n_runs, files=None):
    return (f"read {n_runs} runs from {'' if files is None else f'{files} '}Stable-Baselines3 EvalCallback "
            "evaluations.npz files, tag 'eval/mean_reward' as 'score'")


def results_of(data):
    """compare, bootstrap, task_table and mixed on ``data``: {name: result}, or the DesignError where the design
    cannot be analysed (one run per cell: bootstrap needs task_bootstrap=True)."""
    calls = {"compare": lambda: rlstats.compare(data, FORMULA),
             "bootstrap": lambda: rlstats.bootstrap(data, FORMULA, n_resamples=200, rng=0),
             "bootstrap over tasks": lambda: rlstats.bootstrap(data, FORMULA, n_resamples=200, rng=0,
                                                               task_bootstrap=True),
             "task_table": lambda: rlstats.task_table(data, FORMULA),
             "mixed": lambda: rlstats.mixed(data, FORMULA)}
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scales and small designs: not what these tests are about
        for name, call in calls.items():
            try:
                out[name] = call()
            except DesignError as error:
                out[name] = error
    return out


def assert_carried(results, expected, absent=()):
    """Every result's notes begin with ``expected`` (the frame's notes true of its rows), which print() and
    report() state too, and no note names any of the words ``absent``."""
    analysed = [name for name, res in results.items() if not isinstance(res, DesignError)]
    assert {"compare", "task_table"} <= set(analysed), results
    named = re.compile(r"\b(" + "|".join(map(re.escape, absent)) + r")\b") if absent else None
    for name in analysed:
        res = results[name]
        assert list(res.notes[:len(expected)]) == expected, (name, res.notes)
        assert named is None or not [n for n in res.notes if named.search(n)], (name, res.notes)
        printed = str(res)
        assert all(f"Note: {note}" in printed for note in expected), name
        # report() is LaTeX text; a note opening with the response's name as a label keeps its case (audit s36 paper36)
        assert latex_escape(sentences(expected, names=("score",))) in res.report(), name


# ----------------------------------------------------------------------------- the SB3 collection, end to end

def test_the_whole_collection_states_what_summarize_runs_did(zoo):
    assert len(zoo) == 18 and "PandaStack-v1" not in set(zoo["task"])
    # what was read stays as read beside summarize_runs' own drop of PandaStack-v1's run, as in every back end (audit
    # s24 onehome24: it read "read 18 runs from ... files" beside the line keeping the task out)
    assert list(zoo.attrs[NOTES_ATTR]) == [
        read_note(19, 19), NPZ_NOTE,
        "1 task (1 run) kept out of the analysis because fewer than two agents have runs there: PandaStack-v1",
        "1 agent with no runs in the remaining tasks left out: her",
        "score: the value at each run's last logged step (runs end between steps 100k and 10M; 2 runs end more than "
        "one logging interval before the last run of their task, so their values come from earlier in training "
        "(run '1' of agent 'qrdqn' on task 'MsPacmanNoFrameskip-v4' at 950k, its task's runs reaching 10M; run '1' "
        "of agent 'a2c' on task 'Acrobot-v1' at 100k, its task's runs reaching 500k); " + ENDS_RULE + ")"]
    # (msg32: the run stopping furthest short of its task's last step first: 9.5% of the way, before 20%)


def test_a_pandas_subset_to_the_atari_games_states_only_what_is_true_of_them(zoo):
    atari = zoo[zoo["task"].str.contains("NoFrameskip")]
    # The ends of the runs analysed, computed again from the npz steps: qrdqn on MsPacman stops at 950k of 10M.
    ends = atari.merge(pd.DataFrame(zoo_plan(), columns=["agent", "task", "last", "every"]))
    assert sorted(set(ends["last"])) == [950_000, 10_000_000]
    assert ends.loc[ends["last"] < 10_000_000 - 50_000, ["agent", "task"]].values.tolist() == [
        ["qrdqn", "MsPacmanNoFrameskip-v4"]]
    expected = [read_note(12), NPZ_NOTE,
                "score: the value at each run's last logged step (runs end between steps 950k and 10M; 1 run ends "
                "more than one logging interval before the last run of its task, so its value comes from earlier "
                "in training (run '1' of agent 'qrdqn' on task 'MsPacmanNoFrameskip-v4' at 950k, its task's runs "
                "reaching 10M); " + ENDS_RULE + ")",
                f"these data lack {len(zoo) - len(atari)} rows of the frame they were taken from; notes about those "
                "rows alone are not shown"]
    results = results_of(atari)
    assert not isinstance(results["bootstrap over tasks"], DesignError)
    assert_carried(results, expected, absent=("PandaStack-v1", "Acrobot-v1", "CartPole-v1", "her", "100k", "500k"))
    assert "one run in every task" in str(results["bootstrap"])  # refused: one run per cell, the way on named
    assert atari.attrs[NOTES_ATTR] == zoo.attrs[NOTES_ATTR]  # the caller's frame is not changed


def test_a_subset_to_the_classic_tasks_names_the_short_a2c_run_and_not_the_killed_atari_one(zoo):
    classic = zoo[~zoo["task"].str.contains("NoFrameskip")]
    expected = [read_note(6), NPZ_NOTE,
                "score: the value at each run's last logged step (runs end between steps 100k and 500k; 1 run ends "
                "more than one logging interval before the last run of its task, so its value comes from earlier "
                "in training (run '1' of agent 'a2c' on task 'Acrobot-v1' at 100k, its task's runs reaching 500k); "
                + ENDS_RULE + ")",
                "these data lack 12 rows of the frame they were taken from; notes about those rows alone are not shown"]
    assert_carried(results_of(classic), expected, absent=("MsPacmanNoFrameskip-v4", "PandaStack-v1", "her", "qrdqn",
                                                          "10M"))


def test_a_reordered_frame_keeps_every_note(zoo):
    shuffled = zoo.sample(frac=1.0, random_state=3)
    assert notes_for(shuffled) == notes_for(zoo) == zoo.attrs[NOTES_ATTR]
    res = rlstats.compare(shuffled, FORMULA)
    assert list(res.notes[:5]) == list(zoo.attrs[NOTES_ATTR])
    assert not [n for n in res.notes if "these data lack" in n]


def test_a_subset_that_keeps_every_run_and_only_drops_nothing_keeps_every_note(zoo):
    assert notes_for(zoo[zoo["score"] > -np.inf]) == notes_for(zoo)  # a mask keeping every row


def test_the_concat_of_two_annotated_frames_keeps_each_frames_notes(tmp_path):
    plan = zoo_plan()
    atari = read_zoo(write_zoo(tmp_path / "atari", [p for p in plan if p[1] in ATARI], first_seed=100))
    classic = read_zoo(write_zoo(tmp_path / "classic", [p for p in plan if p[1] in CLASSIC], first_seed=200))
    # pandas keeps attrs on concat only when every frame's are equal (pandas >= 2.1; 2.0 never): these differ, so
    # pandas' concat says nothing of how the frames were made (nothing false either); rlstats.concat keeps both.
    assert pd.concat([atari, classic]).attrs == {} and notes_for(pd.concat([atari, classic])) == ()
    both = rlstats.concat([atari, classic], ignore_index=True)
    pd.testing.assert_frame_equal(both, pd.concat([atari, classic], ignore_index=True))
    expected = list(atari.attrs[NOTES_ATTR]) + [n for n in classic.attrs[NOTES_ATTR] if n != NPZ_NOTE]
    assert expected == [read_note(12, 12), NPZ_NOTE, atari.attrs[NOTES_ATTR][-1], read_note(6, 6),
                        classic.attrs[NOTES_ATTR][-1]]
    assert "qrdqn" in expected[2] and "a2c" in expected[4]
    assert_carried(results_of(both), expected)
    # A subset of the concat: each frame's notes said again of its own rows, one line for the rest.
    no_a2c = both[both["agent"] != "a2c"]
    said = notes_for(no_a2c)
    assert said[:2] == (read_note(9), NPZ_NOTE) and said[3] == read_note(4)
    # The classic frame's note on its a2c run that stopped at 100k is left out with a2c's 5 runs (3 Atari, 2
    # classic): the line counts the rows of the stacked frame not here, as for any subset of one frame.
    assert "qrdqn" in said[2] and "a2c" not in " ".join(said) and said[-1] == (
        "these data lack 5 rows of the frame they were taken from; notes about those rows alone are not shown")


def test_a_concat_of_parts_of_one_frame_reads_the_same_as_pandas_keeping_equal_attrs(zoo):
    """pandas >= 2.1 keeps equal attrs on concat (2.0 drops them); rlstats.concat gives the same notes on both,
    counting the rows of the frame left out once."""
    parts = [zoo[zoo["agent"] == agent] for agent in ("ppo", "dqn")]
    joined = pd.concat(parts)
    assert joined.attrs[PROVENANCE_ATTR] is zoo.attrs[PROVENANCE_ATTR]  # pandas 3: equal attrs are kept
    assert notes_for(rlstats.concat(parts)) == notes_for(joined)
    assert notes_for(joined)[0] == read_note(10) and notes_for(joined)[-1] == (
        "these data lack 8 rows of the frame they were taken from; notes about those rows alone are not shown")
    whole = rlstats.concat([zoo.iloc[:7], zoo.iloc[7:]])
    assert notes_for(whole) == zoo.attrs[NOTES_ATTR]  # all the rows again: nothing left out


# ----------------------------------------------------------------------------- the shared SB3 logs

def test_the_shared_sb3_logs_subset_to_one_task(sb3):
    runs = rlstats.summarize_runs(sb3, "score ~ agent | task/seed", step="step")
    # Independent: the last logged step of each run, by pandas.
    last = sb3.groupby(["agent", "task", "seed"])["step"].max()
    on_cartpole = last.xs("CartPole-v1", level="task")
    assert sorted(on_cartpole[on_cartpole < 30_000].index.tolist()) == [("DQN", s) for s in (0, 1, 2)]
    assert set(last.xs("Acrobot-v1", level="task")) == {20_000}
    dqn_note = runs.attrs[NOTES_ATTR][-1]
    assert "3 runs end more than one logging interval" in dqn_note
    cartpole = runs[runs["task"] == "CartPole-v1"]
    res = rlstats.compare(cartpole, FORMULA)
    assert list(res.notes[:2]) == ["read 9 runs from TensorBoard event files, tag 'eval/mean_reward' as 'score'",
                                   dqn_note]  # the same runs end early: said as it was, nothing left out
    assert not [n for n in res.notes if "Acrobot" in n or "these data lack" in n]
    acrobot = runs[(runs["task"] == "Acrobot-v1")]
    assert notes_for(acrobot) == ("read 6 runs from TensorBoard event files, tag 'eval/mean_reward' as 'score'",
                                  "score: the value at each run's last logged step (every run ends at step 20k)",
                                  "these data lack 9 rows of the frame they were taken from; notes about those rows alone are not shown")


# ----------------------------------------------------------------------------- the pieces

def _frame():
    return pd.DataFrame({"agent": list("aabbcc") * 2, "task": ["t"] * 6 + ["u"] * 6, "score": np.arange(12.0)})


def test_sentences_stay_frame_notes_go_and_the_line_adds_up_over_subsets():
    frame = add_note(_frame(), "scores doubled")  # a caller's sentence: true of every row
    frame = add_note(frame, Note("2 rows dropped", scope="frame"))
    assert frame.attrs[NOTES_ATTR] == ("scores doubled", "2 rows dropped")
    assert notes_for(frame.iloc[::-1]) == ("scores doubled", "2 rows dropped")
    first = frame[frame["score"] < 8]
    assert notes_for(first) == ("scores doubled", "these data lack 4 rows of the frame they were taken from; notes about those rows alone are not shown")
    second = add_note(first.copy(), "then halved")
    assert notes_for(second[second["score"] < 2]) == (
        "scores doubled", "then halved", "these data lack 10 rows of the frame they were taken from; notes about those rows alone are not shown")


def test_row_notes_are_worded_again_for_the_keys_present():
    frame = _frame()
    items = tuple(((agent,), agent) for agent in "abc")
    note = Note("agents a, b, c were renamed", scope="rows", keys=("agent",), items=items,
                word="rlstats.interop:_reword_positions")
    set_notes(frame, [note])
    said = notes_for(frame[frame["agent"] != "b"])
    assert said == ("tasks named by their position in the rliable arrays, a, c here (tasks= names them)",
                    "these data lack 4 rows of the frame they were taken from; notes about those rows alone are not shown")
    renamed = frame.rename(columns={"agent": "algo"})  # the notes' key column is gone: they cannot be bound
    assert notes_for(renamed) == ("notes of the frame these rows came from that no longer hold for them are not shown",)


def test_minmax_bounds_are_those_of_the_tasks_analysed():
    frame = pd.DataFrame({"agent": ["A", "B"] * 3, "task": ["Pong"] * 2 + ["Boxing"] * 2 + ["Seaquest"] * 2,
                          "score": [-20.0, 10.0, 2.0, 6.5, 100.0, 300.0]})
    out = rlstats.normalize(frame, "minmax")
    pong = notes_for(out[out["task"] == "Pong"])
    assert pong == ("'score' normalised per task as (score - min) / (max - min) with min and max the smallest and "
                    "largest score of each task in the frame normalised (before these rows were selected): Pong -20 "
                    "to 10", "these data lack 4 rows of the frame they were taken from; notes about those rows alone are not shown")
    assert notes_for(out.iloc[::-1])[0].endswith("in the data: Boxing 2 to 6.5, Pong -20 to 10, Seaquest 100 to 300")


def test_an_early_end_among_read_logs_runs_is_said_again_of_the_siblings_present(tmp_path):
    for seed, last in ((0, 1000), (1, 1000), (2, 1000), (3, 500)):
        folder = tmp_path / "ppo" / f"Hopper-v4_{seed}"
        folder.mkdir(parents=True)
        steps = np.arange(100, last + 1, 100)
        np.savez(folder / "evaluations.npz", timesteps=steps, results=np.ones((steps.size, 2)),
                 ep_lengths=np.ones((steps.size, 2), dtype=int))
    frame = rlstats.read_logs(tmp_path, ZOO_PATTERN, format="sb3_eval", progress=False)
    early = ("1 run ends well before the other runs with the same agent and task (last logged step under 90% of their "
             "median: killed, or still running?), so a value at the last step would compare different steps: "
             "agent=ppo task=Hopper-v4 seed={seed} ends at step 500 (its {n} 1,000)")
    assert frame.attrs[NOTES_ATTR][-1] == early.format(seed=3, n="3 siblings: median")
    two = frame[frame["seed"].isin([0, 3])]
    # audit s38 claims38: one sibling was said "its 1 siblings: median 1,000"
    assert notes_for(two)[-2:] == (early.format(seed=3, n="1 sibling:"), "these data lack 20 rows of the frame they were taken from; notes about those rows alone are not shown")
    assert frame.attrs[NOTES_ATTR][0].startswith("read 4 runs from 4 Stable-Baselines3 EvalCallback evaluations.npz "
                                                 "files, tags 'eval/mean_reward' (each evaluation's mean return")
    assert notes_for(two)[0] == frame.attrs[NOTES_ATTR][0].replace("4 runs from 4 ", "2 runs from ")
    full_runs = frame[frame["seed"] < 3]  # the short run left out: no run ends early among these
    assert not [n for n in notes_for(full_runs) if "ends at step" in n]


def test_the_provenance_is_shared_by_copies_and_survives_pickling(zoo):
    assert copy.deepcopy(zoo.attrs)[PROVENANCE_ATTR] is zoo.attrs[PROVENANCE_ATTR]  # pandas copies attrs often
    back = pickle.loads(pickle.dumps(zoo[zoo["agent"] == "dqn"]))
    assert notes_for(back)[0] == read_note(5)


def test_a_frame_built_anew_from_the_same_cells_has_no_notes(zoo):
    """Nothing is remembered between calls: equal rows are no proof of the same history (an input of align_steps
    would otherwise take the notes of its own output, whose rows it holds)."""
    fresh = pd.DataFrame(zoo.to_dict("list"))
    assert fresh.attrs == {} and notes_for(fresh) == ()
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=2, steps=3, rng=0)
    curves.attrs = {}
    counts = [len(rlstats.align_steps(curves, "score ~ agent | task/seed", step="step").attrs[NOTES_ATTR])
              for _ in range(3)]
    assert counts[0] == counts[1] == counts[2]  # the same notes each time, not one more per call
    with pytest.raises(rlstats.OptionError, match="item 1 is a dict"):
        rlstats.concat([zoo, {"a": 1}])
    with pytest.raises(rlstats.OptionError, match="axis=1"):
        rlstats.concat([zoo, zoo], axis=1)


def test_align_steps_names_the_grids_of_the_tasks_present():
    rows = [(agent, task, seed, step, step / 1000 + seed) for task, last in (("Acrobot-v1", 20_000),
                                                                           ("CartPole-v1", 30_000))
            for agent in ("A2C", "PPO") for seed in (0, 1) for step in range(5_000, last + 1, 5_000)]
    curves = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    aligned = rlstats.align_steps(curves, "score ~ agent | task/seed", step="step")
    assert aligned.attrs[NOTES_ATTR] == (
        "every run of a task is logged at the same steps, each task over the steps every agent reaches (Acrobot-v1: "
        "4 steps from 5k to 20k; CartPole-v1: 6 steps from 5k to 30k)",)
    cartpole = aligned[aligned["task"] == "CartPole-v1"]
    assert len(aligned) - len(cartpole) == 4 * 4  # Acrobot's 4 runs at 4 steps each
    assert notes_for(cartpole) == ("every run is logged at the same 6 steps from 5k to 30k",
                                   "these data lack 16 rows of the frame they were taken from; notes about those rows alone are not shown")


def test_a_frame_written_to_parquet_and_read_back_keeps_its_bound_notes(zoo, tmp_path):
    pytest.importorskip("pyarrow")
    zoo.to_parquet(tmp_path / "runs.parquet")  # pandas writes attrs as JSON: the notes must be JSON
    back = pd.read_parquet(tmp_path / "runs.parquet")
    if not back.attrs:  # pandas < 2.1 writes no attrs to Parquet: nothing is said of the frame, nothing false
        assert notes_for(back) == ()
        pytest.skip(f"pandas {pd.__version__} does not keep attrs in Parquet files (pandas >= 2.1 does)")
    assert notes_for(back) == zoo.attrs[NOTES_ATTR]
    atari = back[back["task"].str.contains("NoFrameskip")]
    assert notes_for(atari) == notes_for(zoo[zoo["task"].str.contains("NoFrameskip")])
    assert notes_for(atari)[-1] == "these data lack 6 rows of the frame they were taken from; notes about those rows alone are not shown"


def test_notes_follow_a_chain_of_subsets_through_normalize_and_summarize_runs():
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=2, steps=4, rng=0)
    scaled = rlstats.normalize(curves, "minmax")
    bounds = curves.groupby("task", observed=True)["score"].agg(["min", "max"])  # independent: pandas
    runs = rlstats.summarize_runs(scaled[scaled["task"] != "task_03"], "score ~ agent | task/seed", step="step")
    assert runs.attrs[NOTES_ATTR][1:] == ("these data lack 16 rows of the frame they were taken from; notes about those rows alone are not shown",  # task_03's curves
                                          "1 task level with no runs left out: task_03",
                                          "score: the value at each run's last logged step (every run ends at step 1M)")
    one = runs[runs["task"] == "task_01"]
    low, high = bounds.loc["task_01"]
    assert notes_for(one) == (
        "'score' normalised per task as (score - min) / (max - min) with min and max the smallest and largest score "
        f"of each task in the frame normalised (before these rows were selected): task_01 {low:.5g} to {high:.5g}",
        "score: the value at each run's last logged step (every run ends at step 1M)",
        "these data lack 4 rows of the frame they were taken from; notes about those rows alone are not shown")  # task_02's runs, and the task_03 level's note


def _said_again_of_every_item(frame):
    """Each row note of ``frame`` worded again from all its items: the sentence it holds (one wording for both).
    A count is worded again only of fewer runs (without the number of files, which it does not keep per run)."""
    from rlstats.provenance import COUNTED, _wording, provenance_of

    notes = [n for n in provenance_of(frame).notes if n.scope == "rows" and n.keys and n.word != COUNTED]
    assert notes
    for note in notes:
        assert _wording(note)(note, note.items, len(frame)) == note.text


@pytest.mark.parametrize("options", [{"how": "final"}, {"how": "last_k_mean", "k": 2}, {"how": "max"},
                                     {"how": "auc"}, {"how": "auc", "normalize_auc": True},
                                     {"how": "time_to_threshold", "threshold": 20.0},
                                     {"how": "final", "steps": [250_000, 500_000]}])
def test_every_summary_says_its_note_again_from_its_runs(options):
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=2, steps=5, rng=1)
    curves = curves[~((curves["seed"] == 1) & (curves["agent"] == "agent_2") & (curves["step"] > 750_000)
                      & (curves["task"] != "task_02"))] if options["how"] not in ("auc",) else curves
    runs = rlstats.summarize_runs(curves, "score ~ agent | task/seed", step="step", **options)
    _said_again_of_every_item(runs)
    one = runs[(runs["task"] == "task_02")]
    note = notes_for(one)[0]
    assert "task_01" not in note and "task_03" not in note
    if options["how"] == "time_to_threshold":  # the censored runs counted among those present, by pandas
        assert f"{int(one['censored'].sum())} of {len(one)} runs never reached it" in note


def test_runs_read_from_several_files_and_reruns_are_said_of_the_runs_present(tmp_path):
    from test_logs import write_tb

    for seed in range(3):
        write_tb(tmp_path / "ppo" / "hopper" / f"seed_{seed}" / "tb" / "PPO_1",
                 {"eval/return": [(s, s / 100) for s in range(0, 1001, 100)]})
    write_tb(tmp_path / "ppo" / "hopper" / "seed_0" / "tb" / "PPO_2",
             {"eval/return": [(s, -s / 100) for s in range(1100, 1201, 100)]}, 1_700_100_000.0)  # continues
    write_tb(tmp_path / "ppo" / "hopper" / "seed_1" / "tb" / "PPO_2",
             {"eval/return": [(s, -s / 100) for s in range(0, 1001, 100)]}, 1_700_100_000.0)  # a rerun
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    _said_again_of_every_item(frame)
    notes = frame.attrs[NOTES_ATTR]
    assert notes[1].startswith("2 runs read from several files") and "seed=0" in notes[1] and "seed=1" in notes[1]
    assert notes[2].startswith("1 run started again from its first step")
    seed0 = notes_for(frame[frame["seed"] == 0])
    assert seed0[1] == notes[1].replace("2 runs", "1 run").split("; agent=ppo task=hopper seed=1")[0]
    assert not [n for n in seed0 if "started again" in n or "seed=1" in n]
    assert seed0[-1].startswith("these data lack ") and seed0[-1].endswith(" rows of the frame they were taken from; notes about those rows alone are not shown")
    seed2 = notes_for(frame[frame["seed"] == 2])  # read from one file, never rerun: only the read count
    assert seed2[0].startswith("read 1 run from TensorBoard event files") and len(seed2) == 2


def test_seeds_averaged_within_runs_keep_the_notes_of_their_rows():
    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0).assign(run=lambda d: d["seed"] // 2)
    data = add_note(data, "scores from the paper's table 3")
    res = rlstats.compare(data[data["task"] != "task_03"], "score ~ agent | task/run/seed")
    assert res.notes[:2] == ("seeds ('seed') averaged within each run: the run is the unit, 2 runs of 2 seeds per "
                             "agent and task", "scores from the paper's table 3")


def test_a_polars_frame_summarised_says_its_conversion_of_the_curves_only_of_the_whole_summary():
    pl = pytest.importorskip("polars")
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=2, steps=4, rng=0)
    runs = rlstats.summarize_runs(pl.from_pandas(curves), "score ~ agent | task/seed", step="step")
    converted = "data converted from a polars DataFrame to a pandas DataFrame"
    assert runs.attrs[NOTES_ATTR][0] == f"{converted} ({len(curves)} rows)"
    assert notes_for(runs.iloc[::-1]) == runs.attrs[NOTES_ATTR]
    assert notes_for(runs[runs["task"] == "task_01"]) == (  # 48 rows were converted, not the 4 runs analysed
        "score: the value at each run's last logged step (every run ends at step 1M)",
        "these data lack 8 rows of the frame they were taken from; notes about those rows alone are not shown")
    frame = rlstats.interop.as_pandas(pl.from_pandas(curves))  # at the front door: the rows analysed, counted
    assert notes_for(frame[frame["step"] > 0]) == (f"{converted} ({int((curves['step'] > 0).sum()):,} rows)",)


def test_a_notes_wording_read_back_from_a_file_is_never_a_name_to_import():
    """Parquet keeps attrs: a note whose wording names anything but rlstats' own functions is left out, not run."""
    import rlstats.provenance as provenance

    frame = pd.DataFrame({"agent": ["A", "B"], "task": ["t", "t"], "score": [1.0, 2.0]})
    note = provenance.Note("2 runs", scope="rows", keys=("agent",), items=((("A",), None), (("B",), None)),
                           word="rlstats.cli:main", data=("{n}", "run"))
    provenance.set_notes(frame, (note,), columns=("agent",))
    assert "rlstats.cli:main" not in provenance.WORDINGS
    assert provenance._said_again(note, note.items[:1], 1) is None  # refused, so the note is left out
    assert all(callable(provenance._wording(provenance.Note("x", word=w))) for w in provenance.WORDINGS)
