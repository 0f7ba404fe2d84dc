"""Review s31 (rfix31a): defects confirmed in session 30's change (its reproducers, not kept, are the tests below)."""
import json
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.adastop._incremental import AdaStop


# ---- 1. the incremental AdaStop names agents by the one rule, records the labels, and loads what it saved ----------

def _fed(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seq = AdaStop(["0", "1", "2"], n=5, K=2, rng=0, **kw)
        seq.update({a: np.arange(5.0) + (3 if a == "2" else 0) for a in seq.agents_to_run})
    return seq


@pytest.mark.parametrize("kw, option, label", [({"reference": np.int64(2)}, "reference", "2"),
                                              ({"comparisons": [(0, 2.0)]}, "comparisons", (("0", "2"),))])
def test_incremental_records_the_labels_as_adastop_does(kw, option, label):
    seq = _fed(**kw)
    assert seq.result().options[option] == label
    df = pd.DataFrame({"agent": np.repeat([0, 1, 2], 10), "seed": np.tile(range(10), 3),
                       "score": np.r_[np.zeros(20), np.full(10, 3.0)] + np.tile(np.arange(10.0), 3)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = rlstats.adastop(df, "score ~ agent", n=5, K=2, rng=0, **kw)
    assert batch.options[option] == label


def test_state_with_integer_labelled_pairs_loads(tmp_path):
    seq = _fed(comparisons=[(0, 2.0)])
    back = AdaStop.load(seq.save(tmp_path / "s.json"))
    assert back._options.comparisons == (("0", "2"),)
    assert json.loads((tmp_path / "s.json").read_text())["options"]["comparisons"] == [["0", "2"]]
    assert back.decisions.equals(seq.decisions)


def _old_state(tmp_path, **given):
    """A state as session 30's rlstats wrote it: reference= and comparisons= recorded as given (label_value's int 2,
    the pair [0, 2.0]), the digests over those."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seq = AdaStop(["0", "1", "2"], n=5, K=2, rng=0,
                      **{k: ("2" if k == "reference" else [("0", "2")]) for k in given})
    seq._options = replace(seq._options, **given)
    seq.update({a: np.arange(5.0) + (3 if a == "2" else 0) for a in seq.agents_to_run})
    return seq, seq.save(tmp_path / "old.json")


@pytest.mark.parametrize("given, option, label", [({"reference": 2}, "reference", "2"),
                                                 ({"comparisons": ((0, 2.0),)}, "comparisons", (("0", "2"),))])
def test_state_recording_names_as_given_still_loads(tmp_path, given, option, label):
    seq, path = _old_state(tmp_path, **given)
    state = json.loads(path.read_text())
    assert state["options"][option] == (2 if option == "reference" else [[0, 2.0]])  # as session 30 wrote it
    back = AdaStop.load(path)
    assert getattr(back._options, option) == label
    assert back.decisions.equals(seq.decisions)
    # an edit of such a state is still refused: the digests cover the names as recorded
    state["options"][option] = 1 if option == "reference" else [[1, 2.0]]
    path.write_text(json.dumps(state))
    with pytest.raises(rlstats.DesignError, match=f"batch 1 of the AdaStop state .* does not match its recorded "
                                                  f"digest: option {option} changed"):
        AdaStop.load(path)


# ---- 2. the "can never reject" warning advises what works: n_resamples= only where the whole tree could spend -------

def _advice(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message).split("can never reject; ")[1] for w in caught if "never reject" in str(w.message)]


def _two(n):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"agent": np.repeat(["A", "B"], n), "seed": np.tile(range(n), 2),
                         "score": np.r_[rng.normal(0, 1, n), rng.normal(9, 1, n)]})


def test_powerless_advice_is_one_that_works():
    """By hand (alpha = 0.05, linear spending floor(alpha k / K m_k), m_k = min(C(2n, n)^k / 2, n_resamples)): n = 3
    has 10 paths at K = 1, 0.5 of one: no n_resamples= can; 20 paths are the fewest any n or K spends with (0.05 x 20
    = 1), and at 20 paths n = 4 (35 paths, 20 drawn) or K = 2 (10 then 200, 20 drawn) can. n = 6 has 462 paths: 20
    of them spend. The advised calls are then silent, and one path fewer is not."""
    perm = lambda n, nr: _advice(lambda: rlstats.permutation(_two(n), "score ~ agent", n_resamples=nr, rng=1))
    # rfix31d: the paths from which on separated runs reject for 95% of seeds: 4 runs' whole tree of 35 paths
    assert perm(3, 9) == ["add runs with n_resamples=35 or more: no n_resamples= can at 3 runs per agent, nor more "
                          "runs at 9 paths (at 35 paths, 4 runs per agent can)"]
    assert perm(3, 100_000) == ["add runs"]
    assert perm(4, 20) == [] and perm(3, 10**7) == ["add runs"]
    ada = lambda n, K, nr: _advice(lambda: rlstats.adastop(_two(6), "score ~ agent", n=n, K=K, n_resamples=nr,
                                                           rng=1))
    assert ada(3, 1, 5) == ["use a larger n or K with n_resamples=35 or more: no n_resamples= can at n = 3 and K = 1, "
                            "nor a larger n or K at 5 paths (at 35 paths, n = 4 at K = 1 can)"]
    assert ada(3, 1, 100_000) == ["use a larger n or K (the paper advises n * K >= 30)"]
    for n, K in ((3, 2), (6, 1)):
        assert ada(n, K, 5) == ["pass n_resamples=40 or more (its 5 random paths cap the smallest p-value; a larger n "
                                "or K cannot help at 5 paths)"]  # rfix31d: 20 spend, 40 reject for 95% of seeds
        assert ada(n, K, 20) == [] and ada(n, K, 19) != []
    assert ada(4, 1, 20) == [] and ada(3, 2, 20) == []
    # the incremental class says the same
    assert _advice(lambda: AdaStop(["a", "b"], n=3, K=1, n_resamples=5)) == ada(3, 1, 5)


def test_least_resamples_by_hand():  # rfix31d: the fewest that spend, where least_resamples' search starts
    from fractions import Fraction
    from rlstats.methods.adastop._api import _fewest_spending as least_resamples

    def by_hand(n, K, alpha, J):  # the fewest paths whose linear spending allows one of them somewhere
        from math import comb, floor
        for m in range(1, 10_000):
            spent, trees = Fraction(0), [Fraction(comb(2 * n, n) ** k, 2) for k in range(1, K + 1)]
            for k in range(1, K + 1):
                mk = min(trees[k - 1], m) if all(t <= m for t in trees[:k]) else m
                r = floor(Fraction(alpha).limit_denominator(10**6) / J * k / K * mk - spent * mk)
                if r >= 1:
                    return m
                spent += Fraction(max(r, 0), int(mk))
        return None

    for n, K, alpha, J in ((3, 1, 0.05, 1), (3, 2, 0.05, 1), (6, 1, 0.05, 1), (2, 2, 0.05, 1), (4, 3, 0.05, 3),
                           (5, 1, 0.05, 6), (2, 4, 0.1, 1)):
        assert least_resamples(n, K, alpha, J) == by_hand(n, K, alpha, J), (n, K, alpha, J)


def test_command_refusal_names_paths_and_sizes_together(tmp_path, capsys):
    """The command's refusal of a test that never rejects named --n-resamples 20 alone at 3 runs a batch and K = 1,
    whose 10 paths spend nothing with any n_resamples (review s31): with it a larger --n or --K."""
    from rlstats.cli import main

    (tmp_path / "b.csv").write_text("agent,score\na,1\na,2\na,3\nb,3\nb,4\nb,5\n")
    assert main(["adastop", "update", str(tmp_path / "s.json"), str(tmp_path / "b.csv"), "--K", "1",
                 "--n-resamples", "5", "--seed", "1"]) == 2
    assert ("no --n or --K can: at alpha = 0.05 a test needs at least 20 permutation paths, and at 3 runs per batch "
            "and K = 1 no number of paths can: pass --n-resamples 35 with --n 4; --allow-powerless creates it anyway"
            ) in capsys.readouterr().err  # rfix31d: 20 paths at n = 4 rejected separated runs for 12 of 20 seeds


# ---- 3. the unequal-runs refusal's way on runs where the formula has no tasks -------------------------------------

def _unequal_untasked():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"agent": ["A"] * 5 + ["B"] * 4 + ["C"] * 5, "score": rng.normal(size=14)})


@pytest.mark.parametrize("through", [False, True])
def test_unequal_runs_without_tasks_advice_runs(through):
    data = _unequal_untasked()
    with pytest.raises(rlstats.DesignError) as info:
        if through:
            rlstats.compare(data, "score ~ agent", method="permutation", rng=0)
        else:
            rlstats.permutation(data, "score ~ agent", rng=0)
    call = ("rlstats.compare(data.assign(task='all'), 'score ~ agent | task', method='task_table', "
            "test='fisher_pitman')" if through else
            "rlstats.task_table(data.assign(task='all'), 'score ~ agent | task', test='fisher_pitman')")
    # audit s32 left32: the table of all three answers which agents could be the best (one-sided), not the refused
    # two-sided question, which each pair on its own runs at alpha / 3 answers (tests/test_audit_s32_left32.py)
    assert str(info.value).endswith(f"The task table of all the agents at once ({call}) answers another question: "
                                    "which agents could be the best, by one-sided tests of every ordered pair, "
                                    "Holm-adjusted over the k(k - 1) of them")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = eval(call, {"rlstats": rlstats, "data": data})  # the advice runs as written
    assert tuple(res.tasks) == ("all",) and len(res.agents) == 3


def test_unequal_runs_without_tasks_advice_on_the_command_line(tmp_path, capsys):
    from rlstats.cli import main

    _unequal_untasked().to_csv(tmp_path / "u.csv", index=False)
    assert main(["compare", str(tmp_path / "u.csv"), "score ~ agent", "--method", "permutation", "--seed", "0"]) == 2
    assert capsys.readouterr().err.endswith(  # audit s32 left32: what the table of all three answers
        "The task table of all the agents at once (a column task of one value (e.g. all) added to the file, the "
        "formula 'score ~ agent | task' with --method task_table -o test=fisher_pitman) answers another question: "
        "which agents could be the best, by one-sided tests of every ordered pair, Holm-adjusted over the k(k - 1) of "
        "them\n")
    _unequal_untasked().assign(task="all").to_csv(tmp_path / "t.csv", index=False)
    assert main(["compare", str(tmp_path / "t.csv"), "score ~ agent | task", "--method", "task_table", "-o",
                 "test=fisher_pitman", "--seed", "0"]) == 0


# ---- 4. the profile note's word on the default band follows the band's own rule ------------------------------------

def _profile_data(runs, tasks=10):
    rng = np.random.default_rng(0)
    return pd.DataFrame([(f"t{t}", a, rng.normal(t * 0.1, 1)) for t in range(tasks) for a in ("A", "B")
                         for _ in range(runs)], columns=["task", "agent", "score"])


def test_profile_note_on_the_default_band_uses_the_band_rule():
    """10 tasks of 2 runs: every agent has 0 tasks with 3 or more runs, so the default wilson_tasks band of kind="tasks"
    is withheld (NaN) there; the percentile band's note said it 'held 95% there'. At 3 runs it is given."""
    kw = dict(kind="tasks", task_bootstrap=True, rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = rlstats.performance_profile(_profile_data(2), "score ~ agent | task", interval="percentile",
                                          n_resamples=200, **kw)
        assert np.isnan(rlstats.performance_profile(_profile_data(2), "score ~ agent | task", **kw).intervals).all()
        three = rlstats.performance_profile(_profile_data(3), "score ~ agent | task", interval="percentile",
                                            n_resamples=200, **kw)
        assert not np.isnan(rlstats.performance_profile(_profile_data(3), "score ~ agent | task", **kw).intervals).all()
    (note,) = [n for n in two.notes if "the default interval" in n]
    assert note.endswith("the default interval='wilson_tasks' withholds its bands where an agent has fewer than 5 "
                         "tasks with 3 or more runs, as 'A' (0) and 'B' (0) here, and held 95% from there (the "
                         "bootstrap.profile_population rows)")
    (note,) = [n for n in three.notes if "the default interval" in n]
    assert note.endswith("the default interval='wilson_tasks' held 95% there (the bootstrap.profile_population rows)")


# ---- 5. the bootstrap header says what is true whether expanded_tasks was asked by name or came as the default ------

def test_expanded_tasks_header_true_however_asked():
    """bootstrap()'s signature defaults to interval="studentized", so a call that leaves it out and one that names it
    are alike (and the options record the interval given: expanded_tasks); the header now states the rule, true of
    either and of interval="expanded_tasks" asked by name: the default with tasks resampled."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame([(f"t{t}", a, s, rng.normal(t, 1)) for t in range(12) for a in ("A", "B") for s in range(5)],
                      columns=["task", "agent", "seed", "score"])
    for kw in ({}, {"interval": "studentized"}, {"interval": "expanded_tasks"}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.bootstrap(df, "score ~ agent | task", metrics=["mean"], task_bootstrap=True, rng=0,
                                    n_resamples=200, **kw)
        assert res.options["interval"] == res.interval == "expanded_tasks"
        assert ("interval = expanded_tasks (the default with tasks resampled: the studentized interval's standard "
                "errors are of runs within tasks), 12 task strata, tasks resampled") in str(res)
        assert "gives way to it" not in str(res)


# ---- 6. the withheld median's note quotes the threshold that applies to the median ---------------------------------

def test_withheld_median_note_quotes_its_own_threshold():
    """On 1 or 2 tasks the median of task means takes the mean's interval (withheld below 10 tasks), but from 3 tasks
    its own, given from 5: the same call gives it at 5 tasks, so 'given from 10 tasks' was false of the median."""
    rng = np.random.default_rng(0)
    said = {}
    for T in (2, 3, 5):
        df = pd.DataFrame([(f"t{t}", a, s, rng.normal(t, 1)) for t in range(T) for a in ("A", "B") for s in range(5)],
                          columns=["task", "agent", "seed", "score"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = rlstats.bootstrap(df, "score ~ agent | task", metrics=["median"], task_bootstrap=True, rng=0,
                                  n_resamples=200)
        said[T] = (np.isnan(r.intervals).all(), [n for n in r.notes if "withheld with tasks resampled" in n])
    assert said[5] == (False, [])
    assert said[2][0] and said[3][0]
    assert ("intervals withheld with tasks resampled (task_bootstrap=True) from 2 tasks (given from 5 tasks; the "
            "median of 2 task means takes the mean's interval, withheld below 10 tasks):") in said[2][1][0]
    assert "from 3 tasks (given from 5 tasks):" in said[3][1][0]


# ---- 8. a mean rank outside the scale of the tasks the agent ran is noted ------------------------------------------

def _rank_data():
    g, rows = np.random.default_rng(0), []
    for t in ("t1", "t2", "t3"):  # 3 agents ranked: E (1 run, always last), B, C (5 runs)
        rows += [(t, "E", -100.0)] + [(t, a, g.normal()) for a in "BC" for _ in range(5)]
    for t in ("t4", "t5", "t6"):  # 4 agents ranked: A, B, C, D (5 runs each)
        rows += [(t, a, g.normal()) for a in "ABCD" for _ in range(5)]
    return pd.DataFrame(rows, columns=["task", "agent", "score"])


def test_mean_rank_judged_against_the_tasks_the_agent_ran():
    """With equal runs in a task an agent's mean position there lies in 1..k_i (its n runs at ranks 1..n average
    position 1), and an average over its tasks lies in 1..max k_i of those tasks: E ran only tasks ranking 3 agents,
    so its 3.36 (last of 11 runs each time: (11 - 1/2) 3 / 11 + 1/2) is beyond any equal-runs value, though below the
    4 of the tasks it did not run, and is noted as the others are."""
    res = rlstats.skillings_mack(_rank_data(), "score ~ agent | task", variant="mack_skillings", rng=0)
    ranks = dict(zip(res.agents, res.mean_ranks))
    assert ranks["E"] == pytest.approx(10.5 * 3 / 11 + 0.5, abs=1e-12)
    (note,) = [n for n in res.notes if "outside 1..k" in n]
    assert note.startswith("mean rank of E (3.36, whose tasks rank at most 3 agents) outside 1..k, k = 3 to 4 agents "
                           "ranked per task: runs per agent differ within tasks (1 to 5 runs per agent and task)"), note


def test_incremental_note_gives_the_warnings_way_on():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seq = AdaStop(["a", "b"], n=3, K=1, n_resamples=5, rng=0)
        seq.update({"a": [1.0, 2.0, 3.0], "b": [4.0, 5.0, 6.0]})
    (note,) = [n for n in seq.result().notes if n.startswith("AdaStop cannot reject")]
    assert note.endswith("whatever the scores; use a larger n or K with n_resamples=35 or more: no n_resamples= can at "
                         "n = 3 and K = 1, nor a larger n or K at 5 paths (at 35 paths, n = 4 at K = 1 can)")
