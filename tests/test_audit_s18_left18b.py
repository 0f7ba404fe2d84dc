"""Audit s18 (left18b): small leftovers where the package was silent or unhelpful.  Each test is a defect's
reproducer, in the order of the brief."""


import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import cli_run, named_agents_runs
from rlstats.errors import DesignError, FormulaError
from rlstats.methods.adastop import AdaStop


@pytest.mark.parametrize("name", ["None", "NA", "null"])
def test_an_agent_named_like_a_missing_value_is_named_on_the_command_line(tmp_path, name):
    """An agent literally called 'None' in a CSV: pandas' reader (the command line's) reads the text as missing, and
    the error said only "column 'agent' has 12 missing value(s)", leaving the user to guess.  It now names the text
    the file holds there and the way to keep it as a name."""
    path = tmp_path / "runs.csv"
    named_agents_runs((name, "PPO", "SAC")).to_csv(path, index=False)
    status, out, err = cli_run("compare", path, "score ~ agent | task")
    assert status == 2 and out == ""
    assert "column 'agent' has 12 missing values" in err
    assert (f"column 'agent' of the file holds the text '{name}' in 12 rows, which pandas.read_csv reads as missing "
            f"values: if '{name}' is a name, not a missing value, rename it in the file (e.g. with a suffix); remove "
            "or fill them, or pass -o na_action=drop") in err, err


def test_empty_fields_and_missing_text_are_told_apart(tmp_path):
    """Empty fields are missing values in any reader: said as such, with the count of each text."""
    data = named_agents_runs(("a", "b", "c"))
    data["agent"] = data["agent"].astype(object)
    data.loc[[0, 1], "agent"] = None  # written as empty fields
    text = data.to_csv(index=False).replace("\na,t1,2,", "\nNaN,t1,2,")  # one row holds the text NaN
    path = tmp_path / "runs.csv"
    path.write_text(text)
    status, _, err = cli_run("compare", path, "score ~ agent | task")
    assert status == 2 and "column 'agent' has 3 missing values" in err
    assert ("column 'agent' of the file holds empty fields in 2 rows and the text 'NaN' in 1 row, which "
            "pandas.read_csv reads as missing values: if 'NaN' is a name, not a missing value, rename it") in err, err


def test_a_batch_agent_named_like_a_missing_value_is_named_not_a_traceback(tmp_path):
    """``rlstats adastop update`` on a first batch with an agent 'None' (read as missing) ended in a KeyError
    traceback; a later batch's row without its agent was "unknown agent(s) nan" in Python."""
    first = tmp_path / "batch1.csv"
    first.write_text("agent,score\nNone,1\nNone,2\nb,3\nb,4\n")
    status, _, err = cli_run("adastop", "update", tmp_path / "state.json", first, "--K", "2")
    assert status == 2 and "Traceback" not in err
    assert ("column 'agent' has 2 missing values (first rows: data rows 1, 2 (lines 2, 3 of " in err
            and "column 'agent' of the file holds the text 'None' in 2 rows" in err), err
    seq = AdaStop(["a", "b"], n=5, K=6, rng=0, n_resamples=200)
    with pytest.raises(DesignError, match=r"column 'agent' has 1 missing value \(first rows: index label 1\)"):
        seq.update(pd.DataFrame({"agent": ["a", None, "b", "b"], "score": [1.0, 2.0, 3.0, 4.0]}))


def test_boolean_scores_are_noted_as_read_as_1_and_0():
    """A True/False score column was analysed as 1/0 without a word (R's lm does the same with logicals: a note,
    not an error)."""
    data = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=0)
    data["score"] = data["score"] > data["score"].median()
    result = rlstats.compare(data, "score ~ agent | task")
    said = [n for n in result.notes if "True/False" in n]
    assert said == ["column 'score' holds True/False values, read as 1 (True) and 0 (False)"], result.notes
    assert said[0] in str(result)
    numbers = rlstats.compare(data.assign(score=data["score"].astype(float)), "score ~ agent | task")
    assert result.statistic == numbers.statistic and result.pvalue == numbers.pvalue


def test_a_subset_value_close_to_one_in_the_data_is_suggested():
    """subset="agent == 'agent_1 '" (a trailing space) said only "keeps no rows"."""
    data = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=0)
    with pytest.raises(DesignError) as info:
        rlstats.compare(data, "score ~ agent | task", subset="agent == 'agent_1 ' and task != 'task_01'")
    message = str(info.value)
    assert "keeps no rows" in message
    assert "'agent_1 ' is no value of column 'agent' (did you mean 'agent_1'?)" in message, message
    with pytest.raises(DesignError) as info:
        rlstats.compare(data, "score ~ agent | task", subset="task in ['Task_01', 'task_09'] and agent == 'agent_1'")
    assert ("'Task_01' is no value of column 'task' (did you mean 'task_01'?); 'task_09' is no value of column "
            "'task' (did you mean 'task_01', 'task_02', 'task_03'?)") in str(info.value), str(info.value)
    with pytest.raises(rlstats.errors.OptionError) as info:  # a number in quotes, of a column of numbers (audit s22)
        rlstats.compare(data, "score ~ agent | task", subset="seed == '3'")
    assert str(info.value) == ("subset=\"seed == '3'\": column 'seed' holds numbers, and '3' is text, which no number "
                               "equals; write 3 without quotes")
    with pytest.raises(DesignError) as info:  # case and white space at the ends: only the value equal but for them
        rlstats.compare(data, "score ~ agent | task", subset="'AGENT_1' == agent")
    assert str(info.value).endswith("'AGENT_1' is no value of column 'agent' (did you mean 'agent_1'?)")


def test_complex_scores_get_advice_that_works():
    """A complex score column's error suggested pd.to_numeric, which leaves it complex."""
    data = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, rng=0)
    data["score"] = data["score"] + 0j
    assert pd.to_numeric(data["score"]).dtype.kind == "c"  # the old advice does not help
    with pytest.raises(FormulaError) as info:
        rlstats.compare(data, "score ~ agent | task")
    message = str(info.value)
    assert "pd.to_numeric" not in message
    assert "column 'score' holds complex numbers (dtype complex128)" in message
    assert "df['score'] = np.real(df['score'])" in message and "np.abs(df['score'])" in message, message


def _batch(gen, agents, shift):
    return pd.DataFrame([(a, shift.get(a, 0.0) + gen.normal()) for a in agents for _ in range(5)],
                        columns=["agent", "score"])


def test_a_batch_without_agents_a_pairwise_run_stopped_names_the_pairwise_replay(tmp_path):
    """Batches of a run under the paper's pairwise scheme, fed to the default joint test, are refused once the files
    lack agents that scheme had stopped; the refusal now says how to replay such a run."""
    gen = np.random.default_rng(1)
    seq = AdaStop(["a", "b", "c"], n=5, K=3, rng=0, n_resamples=500, permutations="joint")  # the default before s29b
    seq.update(_batch(gen, ["a", "b", "c"], {}))
    assert seq.agents_to_run == ("a", "b", "c")
    with pytest.raises(DesignError) as info:
        seq.update(_batch(gen, ["b", "c"], {}))
    message = str(info.value)
    assert "the batch lacks agent a" in message
    assert ('if these batches come from a run whose test stopped agent a (the AdaStop paper\'s pairwise scheme '
            'stops agents sooner), replay it from its first batch in a new AdaStop with permutations="pairwise"'
            ) in message, message
    pairwise = AdaStop(["a", "b", "c"], n=5, K=3, rng=0, n_resamples=500, permutations="pairwise")
    pairwise.update(_batch(np.random.default_rng(1), ["a", "b", "c"], {}))
    with pytest.raises(DesignError) as info:
        pairwise.update(_batch(gen, ["b", "c"], {}))
    assert "permutations=" not in str(info.value)  # already pairwise: nothing to replay


WALKER = ("TimotheeMathieu/Adaptive_stopping_MC_RL/a909c18b87e4435754067f5c604bf607215d60a9/Deep_RL_xp/experiments/"
          "walker")


def test_the_walker_batches_replay_pairwise_from_the_shell(mirror_root, tmp_path):
    """The AdaStop paper's Walker batches (its repository's CSV files, one column per agent): the files of batch 3 on
    hold DDPG and TRPO only, as the paper's pairwise run stopped SAC and PPO after batch 2; the joint relabelling (the
    default before audit s29b) has not decided them, refuses batch 3, and now says how to replay the run (which then goes through)."""
    folder = mirror_root / WALKER
    if not folder.is_dir():
        pytest.skip("the AdaStop paper's files are not mirrored here")
    paths = [folder / f"walker{k}.csv" for k in (1, 2, 3)]
    assert list(pd.read_csv(paths[2], index_col=0).columns) == ["DDPG", "TRPO"]
    joint, pairwise = tmp_path / "joint.json", tmp_path / "pairwise.json"
    for path in paths[:2]:
        assert cli_run("adastop", "update", joint, path, "--K", "6", "--seed", "0", "--n-resamples", "2000",
                       "--permutations", "joint")[0] == 0
    status, _, err = cli_run("adastop", "update", joint, paths[2])
    assert status == 2 and "the batch lacks agents SAC, PPO" in err
    assert ("if these batches come from a run whose test stopped agents SAC, PPO (the AdaStop paper's pairwise "
            "scheme stops agents sooner), replay it from its first batch in a new state file with --permutations "
            "pairwise") in err, err
    for path in paths:
        status, out, err = cli_run("adastop", "update", pairwise, path, "--K", "6", "--seed", "0", "--n-resamples",
                                "2000", "--permutations", "pairwise")
        assert status == 0, err
    assert "next batch: 5 new runs of each of: DDPG, TRPO" in out
